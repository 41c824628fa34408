"""MinMin and MaxMin of Algorithm 2 on FCFS clusters of one speed by blocks of widths
(:func:`heuristics.grid.fastwidths.plan_event_widths`) against the grouped loop
(:func:`heuristics.grid.fastevent.plan_event_grouped`) and the row-by-row event
(:func:`heuristics.grid.fastevent.plan_event`): the same order of reservations and the same clusters."""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.grid import fastevent, fastwidths
from heuristics.grid.realloc import _comparable_groups
from heuristics.grid.selection import HEURISTICS
from vcsched.sim.planning import make_state, monotone_after_lower


def _snapshot(seed: int, n: int, base: float):
    """Three FCFS clusters whose free processors rise in a few steps after the lower bound, and ``n`` jobs of one
    duration per job (many equal durations; from ``base`` on, durations closer than a rounding step tie)."""
    rng = np.random.default_rng(seed)
    totals = np.array([64, 40, 16])
    room = 8 + 2 * n
    T = np.zeros((3, room))
    F = np.zeros((3, room), dtype=np.int64)
    rows = np.empty(3, dtype=np.int64)
    for k, total in enumerate(totals):
        m = int(rng.integers(1, 5))
        T[k, :m] = base + np.sort(rng.choice(np.arange(0, 4000, 100), m, replace=False)).astype(float)
        T[k, 0] = base
        F[k, :m] = np.sort(rng.integers(0, total + 1, m))
        F[k, m - 1] = total
        rows[k] = m
    widths = rng.integers(1, 65, n)
    d = rng.choice([50.0, 100.0, 100.5, 3600.0, 7200.0, 7201.0], n) if base else rng.integers(1, 40, n) * 60.0
    D = np.column_stack([d, d, d])
    lower = np.full(3, base)
    return T, F, rows, totals, lower, widths, D


def _plan(fn, snap, heuristic, *groups):
    T, F, rows, totals, lower, widths, D = snap
    n, K = D.shape
    st = make_state(T.copy(), F.copy(), rows.copy(), totals, lower.copy(), np.ones(K, dtype=bool), widths, D, 0.0)
    assert monotone_after_lower(st)
    spec = HEURISTICS.get(heuristic)
    prev = np.arange(n, dtype=np.int64) % K
    fn(st, fastevent.Choice(spec.code, spec.maximise, prev, np.zeros(n), False, 0.0, True), *groups)
    c = st.count[0]
    return st.log_row[:c].tolist(), st.log_cluster[:c].tolist(), st.log_start[:c].tolist()


@pytest.mark.parametrize("heuristic", ["maxmin", "minmin"])
@pytest.mark.parametrize("seed,base", [(0, 0.0), (1, 0.0), (2, 2.0 ** 53), (3, 2.0 ** 53 + 2.0 ** 52)])
def test_widths_event_equals_the_grouped_and_row_by_row_events(heuristic, seed, base):
    """More widths than a block (several blocks, pruned ones), equal keys across widths broken by row, and (from
    2^53 on) rounding ties inside a width: the same reservations as the two other loops."""
    snap = _snapshot(seed, 120, base)
    widths, D = snap[5], snap[6]
    groups = fastevent.Groups(*_comparable_groups(widths, np.zeros(widths.size, dtype=np.int64),
                                                  np.zeros(widths.size, dtype=bool), D, heuristic == "maxmin"))
    assert groups.uw.size > 2 * fastwidths.BLOCK and groups.start.size == groups.uw.size
    ours = _plan(fastwidths.plan_event_widths, snap, heuristic, groups)
    assert ours == _plan(fastevent.plan_event_grouped, snap, heuristic, groups)
    assert ours == _plan(fastevent.plan_event, snap, heuristic)
    assert sorted(ours[0]) == list(range(widths.size))
