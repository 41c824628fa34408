"""The window search of the batch upper side (lowerbounds.batch.windowsearch, its kernel lowerbounds.batch._window).

The checks that compile the kernel are ``slow`` (hypothesis); the default suite runs the same checks on a few fixed
cases with the kernel's functions replaced by their plain Python (``py_func``), so that it compiles nothing."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lowerbounds.batch._window as kernel
import lowerbounds.batch.windowsearch as driver
from lowerbounds.batch._listsched import serial_schedule
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics
from tests.grid.batch_oracle import brute_force, plain_check

EXAMPLES = 40


def _instance(seed: int, n: int, K: int, integer: bool) -> BatchInstance:
    rng = np.random.default_rng(seed)
    m = rng.integers(2, 7, size=K)
    s = rng.choice((1.0, 1.25, 2.0), size=K) if K > 1 else np.ones(1)
    q = rng.integers(1, m.max() + 1, size=n)
    r = np.sort(rng.integers(0, 8, size=n)).astype(float) if integer else np.sort(rng.uniform(0, 8, size=n))
    base = rng.integers(0, 7, size=n).astype(float) if integer else rng.uniform(0.0, 6, size=n)
    return BatchInstance.from_arrays(r, q, base[:, None] * s[0] / s[None, :], m, s)


def _arrays(inst):
    return (inst.release, inst.width.astype(np.int64), np.ascontiguousarray(inst.duration), inst.procs.astype(np.int64))


def _free_at(bt, bf, nxt, k, t):
    """The free processors of cluster ``k``'s profile at time ``t`` (walked plainly)."""
    a = k
    while nxt[a] != -1 and bt[nxt[a]] <= t:
        a = nxt[a]
    return bf[a]


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 7), st.integers(1, 3), st.booleans())
def test_place_without_fixed_jobs_is_the_serial_construction(seed, n, K, integer):
    _place_without_fixed_jobs_is_the_serial_construction(seed, n, K, integer)


def _place_without_fixed_jobs_is_the_serial_construction(seed, n, K, integer):
    inst = _instance(seed, n, K, integer)
    release, width, duration, procs = _arrays(inst)
    perm = np.random.default_rng(seed).permutation(n)
    t_lo, t_hi = float(release.min()), float(release.max() + np.nan_to_num(duration, posinf=0).max(axis=1).sum() + 1)
    none = np.zeros(0, dtype=np.int64)
    bt, bf, nxt, size = kernel.residual_profile(procs, none, np.zeros(0), np.zeros(0), none, t_lo, t_hi, 2 * n + 2)
    work = np.zeros(1, dtype=np.int64)
    node0 = kernel.start_nodes(release, K, bt, nxt, work)
    cluster, start = np.zeros(n, dtype=np.int64), np.zeros(n)
    total = kernel.place(perm, release, release, width, duration, bt, bf, nxt, size, node0, t_hi, np.inf, False,
                         bt.copy(), bf.copy(),
                  nxt.copy(), cluster, start, work)
    c2, s2 = serial_schedule(release, width, duration, procs, perm)
    assert np.array_equal(cluster, c2) and np.array_equal(start, s2)
    assert total == pytest.approx(n * schedule_metrics(inst, cluster, start)["mean_response"])


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 12), st.integers(1, 2))
def test_the_residual_profile_is_the_capacity_the_fixed_jobs_leave(seed, nf, K):
    _the_residual_profile_is_the_capacity_the_fixed_jobs_leave(seed, nf, K)


def _the_residual_profile_is_the_capacity_the_fixed_jobs_leave(seed, nf, K):
    rng = np.random.default_rng(seed)
    procs = rng.integers(2, 9, size=K).astype(np.int64)
    clus = rng.integers(0, K, size=nf).astype(np.int64)
    width = np.minimum(rng.integers(1, 9, size=nf), procs[clus]).astype(np.int64)
    start = rng.integers(0, 20, size=nf).astype(float)
    finish = start + rng.integers(0, 8, size=nf)
    t_lo, t_hi = float(rng.integers(0, 10)), float(rng.integers(10, 30))
    keep = np.ones(nf, dtype=bool)
    for i in range(nf):  # the fixed jobs of a schedule never exceed a cluster: drop those that would
        t = start[i]
        used = width[(clus == clus[i]) & keep & (start <= t) & (finish > t)].sum()
        keep[i] = used <= procs[clus[i]] or finish[i] == start[i]
    clus, width, start, finish = clus[keep], width[keep], start[keep], finish[keep]
    bt, bf, nxt, _size = kernel.residual_profile(procs, clus, start, finish, width, t_lo, t_hi, 0)
    for k in range(K):
        for t in np.arange(t_lo, t_hi, 0.5):
            used = width[(clus == k) & (start <= t) & (finish > t)].sum()
            assert _free_at(bt, bf, nxt, k, t) == procs[k] - used
        assert _free_at(bt, bf, nxt, k, t_hi) == procs[k]  # the sentinel


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 6), st.integers(1, 2), st.booleans(), st.integers(2, 6),
       st.sampled_from(("mean_response", "mean_bounded_slowdown")))
def test_windows_keep_a_valid_schedule_that_only_improves_and_stays_above_the_optimum(seed, n, K, integer, size,
                                                                                      metric):
    _windows_keep_a_valid_schedule_that_only_improves_and_stays_above_the_optimum(seed, n, K, integer, size, metric)


def _windows_keep_a_valid_schedule_that_only_improves_and_stays_above_the_optimum(seed, n, K, integer, size, metric):
    inst = _instance(seed, n, K, integer)
    release, width, duration, procs = _arrays(inst)
    order = np.random.default_rng(seed + 1).permutation(n)
    cluster, start = serial_schedule(release, width, duration, procs, order)
    optimum = brute_force(inst)[metric]
    work = np.zeros(1, dtype=np.int64)
    ws = driver.WindowSearch(inst, metric, cluster, start, work, size=size)
    rng = np.random.default_rng(seed)
    last = ws.value
    for _ in range(6):
        ws.step(rng)
        plain_check(inst, ws.cluster, ws.start)
        assert ws.checked_value() <= last + 1e-9 and ws.value >= optimum - 1e-6
        assert np.all(np.diff(ws.start[ws.by_start]) >= 0) and np.array_equal(ws.pos[ws.by_start], np.arange(n))
        last = ws.value
    assert work[0] > 0


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 6), st.booleans())
def test_a_window_of_every_job_does_at_least_as_well_as_the_serial_construction_of_its_start_order(seed, n, integer):
    _a_window_of_every_job_does_at_least_as_well_as_the_serial_construction_of_its_start_order(seed, n, integer)


def _a_window_of_every_job_does_at_least_as_well_as_the_serial_construction_of_its_start_order(seed, n, integer):
    inst = _instance(seed, n, 1, integer)
    release, width, duration, procs = _arrays(inst)
    cluster, start = serial_schedule(release, width, duration, procs, np.random.default_rng(seed).permutation(n))
    finish = start + duration[np.arange(n), cluster]
    t_lo, t_hi = float(release.min()), float(finish.max())
    none = np.zeros(0, dtype=np.int64)
    bt, bf, nxt, size = kernel.residual_profile(procs, none, np.zeros(0), np.zeros(0), none, t_lo, t_hi, 2 * n + 2)
    current = float(n * schedule_metrics(inst, cluster, start)["mean_response"])
    perm = np.argsort(start, kind="stable")
    work = np.zeros(1, dtype=np.int64)
    cost, c2, s2, evals = kernel.improve_window(release, release, width, duration, bt, bf, nxt, size, t_hi, 1e18, perm,
                                                False, 10**6,
                                         work)
    c3, s3 = serial_schedule(release, width, duration, procs, perm)
    assert evals >= 1 and cost <= n * schedule_metrics(inst, c3, s3)["mean_response"] + 1e-9
    check_batch_schedule(inst, c2, s2)
    assert cost == pytest.approx(n * schedule_metrics(inst, c2, s2)["mean_response"])
    assert cost >= n * brute_force(inst)["mean_response"] - 1e-6
    # against the present placement: returned only when strictly better
    again, *_ = kernel.improve_window(release, release, width, duration, bt, bf, nxt, size, t_hi, current, perm, False,
                                      10**6, work)
    assert (again < current) or again == np.inf


def _plain_descent(release, ready, width, duration, bt, bf, nxt, size, t_hi, current, perm, bsld, max_evals):
    """The descent of ``improve_window`` with every list placed in full from the residual profile (``place``)."""
    m, K = duration.shape
    work = np.zeros(1, dtype=np.int64)
    node0 = kernel.start_nodes(ready, K, bt, nxt, work)
    scratch = (np.zeros(bt.size), np.zeros(bt.size, dtype=np.int64), np.full(bt.size, -1, dtype=np.int64))
    c_best, s_best, c_try, s_try = np.zeros(m, dtype=np.int64), np.zeros(m), np.zeros(m, dtype=np.int64), np.zeros(m)
    cur = perm.copy()
    best = kernel.place(cur, release, ready, width, duration, bt, bf, nxt, size, node0, t_hi, np.inf, bsld, *scratch,
                        c_best, s_best, work)
    evals, improved = 1, True
    while improved and evals < max_evals:
        improved = False
        for a in range(m):
            for b in range(m):
                if b == a or evals >= max_evals:
                    continue
                trial = np.empty(m, dtype=np.int64)
                kernel._insert(cur, a, b, trial)
                evals += 1
                v = kernel.place(trial, release, ready, width, duration, bt, bf, nxt, size, node0, t_hi, best, bsld,
                                 *scratch, c_try, s_try, work)
                if v < best - 1e-9 * max(abs(best), 1.0):
                    best, cur, improved = v, trial, True
                    c_best[:], s_best[:] = c_try, s_try
    if best < current - 1e-9 * max(abs(current), 1.0):
        return best, c_best, s_best, evals
    return np.inf, c_best, s_best, evals


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 9), st.integers(1, 2), st.booleans(), st.booleans())
def test_the_descent_from_kept_prefixes_is_the_descent_with_full_placements(seed, m, K, integer, bsld):
    _the_descent_from_kept_prefixes_is_the_descent_with_full_placements(seed, m, K, integer, bsld)


def _the_descent_from_kept_prefixes_is_the_descent_with_full_placements(seed, m, K, integer, bsld):
    """A window of ``m`` jobs of a schedule against the others (fixed), cut at a random ``t_hi``, from a random list:
    the same cost, placement and number of placements as the descent that places every list in full, under any cap
    of placements."""
    inst = _instance(seed, 3 * m, K, integer)
    release, width, duration, procs = _arrays(inst)
    rng = np.random.default_rng(seed)
    cluster, start = serial_schedule(release, width, duration, procs, rng.permutation(3 * m))
    finish = start + duration[np.arange(3 * m), cluster]
    rows = np.sort(rng.choice(3 * m, size=m, replace=False))
    fixed = np.setdiff1d(np.arange(3 * m), rows)
    t_lo = float(start[rows].min())
    spare = float(np.nan_to_num(duration[rows], posinf=0.0).max(axis=1).sum())  # room for any list, or little
    t_hi = float(finish[rows].max()) + float(rng.choice((0.0, 2.0, spare, spare)))
    bt, bf, nxt, size = kernel.residual_profile(procs, cluster[fixed], start[fixed], finish[fixed], width[fixed],
                                                t_lo, t_hi, 2 * m + 2)
    ready = np.maximum(release[rows], t_lo)
    perm = rng.permutation(m)  # a poor first list: many moves are kept
    args = (release[rows], ready, width[rows], np.ascontiguousarray(duration[rows]), bt, bf, nxt, size, t_hi)
    finite = 0
    for current, cap in ((1e18, 10**6), (0.0, 10**6), (1e18, int(rng.integers(1, m * m + 2)))):
        fast = kernel.improve_window(*args, current, perm, bsld, cap, np.zeros(1, dtype=np.int64))
        plain = _plain_descent(*args, current, perm, bsld, cap)
        assert fast[0] == plain[0]
        if np.isfinite(plain[0]):
            assert np.array_equal(fast[1], plain[1]) and np.array_equal(fast[2], plain[2]) and fast[3] == plain[3]
            finite += 1
    return finite


@pytest.mark.slow
def test_the_same_seed_gives_the_same_windows():
    inst = _instance(5, 200, 2, False)
    release, width, duration, procs = _arrays(inst)
    cluster, start = serial_schedule(release, width, duration, procs, np.arange(200))
    runs = []
    for _ in range(2):
        work = np.zeros(1, dtype=np.int64)
        ws = driver.WindowSearch(inst, "mean_response", cluster, start, work, size=12)
        driver.search_windows(ws, np.random.default_rng(3), lambda idle, w=work: "budget" if w[0] > 3e6 else None,
                              patience=30)
        runs.append((ws.checked_value(), ws.cluster.tobytes(), ws.start.tobytes(), int(work[0]), ws.windows))
    assert runs[0] == runs[1] and runs[0][0] < schedule_metrics(inst, cluster, start)["mean_response"]


@pytest.fixture
def plain_kernels(monkeypatch):
    """The window kernel's compiled functions (and the two profile steps it borrows) replaced by their Python."""
    for name in ("residual_profile", "start_nodes", "place", "improve_window", "_insert", "_cost", "_earliest_fit",
                 "_occupy", "_fit", "_advance", "_restore"):
        monkeypatch.setattr(kernel, name, getattr(kernel, name).py_func)
    for name in ("residual_profile", "improve_window"):
        monkeypatch.setattr(driver, name, getattr(kernel, name))


def test_the_window_checks_on_fixed_cases_as_plain_python(plain_kernels):
    """The five checks above that could fail on the kernel's logic, on fixed cases, without compiling."""
    for seed, n, K, integer in ((1, 5, 2, True), (2, 6, 1, False), (3, 4, 3, False)):
        _place_without_fixed_jobs_is_the_serial_construction(seed, n, K, integer)
        _the_residual_profile_is_the_capacity_the_fixed_jobs_leave(seed, 2 * n, min(K, 2))
        _windows_keep_a_valid_schedule_that_only_improves_and_stays_above_the_optimum(
            seed, n, min(K, 2), integer, 3, ("mean_response", "mean_bounded_slowdown")[seed % 2])
    _a_window_of_every_job_does_at_least_as_well_as_the_serial_construction_of_its_start_order(4, 5, True)
    for seed, m, K, integer, bsld in ((0, 8, 1, True, True), (2, 8, 1, True, False), (3, 8, 2, False, True)):
        assert _the_descent_from_kept_prefixes_is_the_descent_with_full_placements(seed, m, K, integer, bsld) > 0


@pytest.mark.slow
def test_a_trace_scale_search_ends_with_windows_checked_and_the_same_on_a_second_run():
    from lowerbounds.batch.clairvoyant import WINDOW_JOBS, clairvoyant_schedules
    rng = np.random.default_rng(7)
    n = WINDOW_JOBS + 200
    r, q, p = np.sort(rng.uniform(0, 1e5, n)), rng.integers(1, 17, n), rng.exponential(600, n) + 1
    inst = BatchInstance.from_arrays(r, q, p[:, None], [32])
    a, b = (clairvoyant_schedules(inst, metrics=("mean_response",), budget=3e8, time_limit=1e6, seed=1)["mean_response"]
            for _ in range(2))
    raced = re.search(r"list moves and windows raced \((\d+) and (\d+) slices\)", a.detail)
    assert raced and int(raced[1]) >= 1 and int(raced[2]) >= 1, a.detail  # each step ran at least one slice
    assert a.value == b.value and np.array_equal(a.start, b.start) and a.evaluations == b.evaluations
    check_batch_schedule(inst, a.cluster, a.start)
    assert a.value == pytest.approx(schedule_metrics(inst, a.cluster, a.start)["mean_response"])


def test_windows_then_the_serial_construction_over_their_start_order_keep_the_better_checked_schedule(plain_kernels):
    """``clairvoyant._windows`` with ``justify``: the windows' schedule, then the serial construction over its start
    order when that is better; never worse than the windows alone, checked, and its value the recomputed one."""
    import time

    import lowerbounds.batch.clairvoyant as cv
    from lowerbounds.batch._searchstep import Best, Limit

    kept = shifted = 0
    for seed in (4,):  # 40 jobs: windows of 32 leave some fixed, so the serial construction can shift jobs left
        inst = _instance(seed, 40, 1, seed % 2 == 0)
        release, width, duration, procs = _arrays(inst)
        cluster, start = serial_schedule(release, width, duration, procs, np.arange(40)[::-1].copy())
        value = schedule_metrics(inst, cluster, start)["mean_response"]
        found = []
        for justify in (False, True):
            ev = cv._Evaluator(inst)
            best = Best(value, "portfolio", "reversed", cluster, start, "serial")
            out, _stopped = cv._windows(ev, "mean_response", best, np.random.default_rng(seed),
                                        Limit(ev, 3e5, time.perf_counter() + 600), 20, justify)
            plain_check(inst, out.cluster, out.start)
            assert out.value == pytest.approx(schedule_metrics(inst, out.cluster, out.start)["mean_response"])
            found.append(out)
        windows, both = found
        assert both.value <= windows.value + 1e-9 and windows.value <= value
        again = schedule_metrics(inst, *serial_schedule(release, width, duration, procs,
                                                        np.argsort(windows.start, kind="stable")))
        if windows.value < value:  # a window was kept: the serial construction over its start order was tried
            assert both.value == pytest.approx(min(windows.value, again["mean_response"]))
            kept += 1
            shifted += both.value < windows.value - 1e-9
    assert kept == 1 and shifted == 1
