"""An independent checker of DFRS runs, from the recorded decisions of
:func:`vcsched.sim.dfrs.simulate_dfrs` (``record=True``) and the workload alone.

It rebuilds every interval between decisions and asserts: memory and CPU at most 1 on every host at
every decision; no job placed before its submit time nor after its end; a job moved or resumed has
``penalty_until >= t + penalty`` (the checker finds the moves itself); the work integrated from the
allocations (yield over the time outside penalties) equals the run time exactly at the job's end;
every job ends.
"""

from __future__ import annotations

import math

import numpy as np

TOL = 1e-7


def check_run(result, penalty: float) -> None:
    jobs, plat = result.jobs, result.platform
    n = len(jobs)
    assert np.all(np.isfinite(result.end)), "a job never ended"
    assert np.all(result.end >= jobs.submit - TOL)
    log = list(result.log)
    times = [t for t, _ in log]
    assert times == sorted(times)
    work = np.zeros(n)
    prev: dict[int, tuple] = {}   # job -> hosts at its last allocation
    last_alloc = {}               # job -> index of its last allocation in the log
    for k, (t, alloc) in enumerate(log):
        cpu = np.zeros(plat.hosts)
        mem = np.zeros(plat.hosts)
        for j, (hosts, y, pu) in alloc.items():
            assert t >= jobs.submit[j] - TOL, f"job {j} placed at {t} before its submit {jobs.submit[j]}"
            assert t <= result.end[j] + TOL, f"job {j} placed at {t} after its end {result.end[j]}"
            assert len(hosts) == jobs.tasks[j] and 0 < y <= 1 + TOL
            for h in hosts:
                cpu[h] += y / plat.cores
                mem[h] += jobs.mem[j]
            resumed = j in last_alloc and last_alloc[j] != k - 1
            moved = j in prev and tuple(prev[j]) != tuple(hosts)
            if resumed or moved:
                assert pu >= t + penalty - TOL, f"job {j} moved/resumed at {t} without its penalty"
            prev[j], last_alloc[j] = hosts, k
            t_next = times[k + 1] if k + 1 < len(log) else math.inf
            seg_end = min(t_next, result.end[j])
            work[j] += y * max(0.0, seg_end - max(t, pu))
        assert cpu.max(initial=0) <= 1 + TOL, f"CPU {cpu.max()} at {t}"
        assert mem.max(initial=0) <= 1 + TOL, f"memory {mem.max()} at {t}"
    np.testing.assert_allclose(work, jobs.run, rtol=1e-6, atol=1e-6)
