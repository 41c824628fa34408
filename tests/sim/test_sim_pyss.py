"""All pyss reference schedules (100 processors; a job's id is its correct finish time).

The files are copied with their README in ``tests/data/pyss`` (source: dinesh121991/pyss,
commit 44a24235, ``src/schedulers/Input_test_files``). Line format:
``submit id estimate procs actual admin_qos user_qos user``; as in the original suite a
line whose estimate is below its actual run time, or with a negative submit time,
processors or run time, is skipped.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, make_cluster, simulate_grid
from vcsched.sim.invariants import check_schedule

DATA = Path(__file__).resolve().parent.parent / "data" / "pyss"

# which policies each file checks (README of the reference schedules)
POLICIES = {"basic_input": ("fcfs", "cbf", "easy"), "extreme_input.0": ("fcfs", "cbf", "easy"),
            "extreme_input.1": ("fcfs", "cbf", "easy"), "extreme_input.2": ("easy",), "fcfs_input": ("fcfs",),
            "bf_input": ("cbf", "easy"), "cons_bf_input": ("cbf",), "easy_bf_input": ("easy",)}


def parse_pyss(path: Path) -> list[tuple[float, str, float, int, float]]:
    rows = []
    for line in path.read_text().splitlines():
        parts = line.split("#", 1)[0].split()
        if not parts:
            continue
        submit, jid, est, procs, actual = float(parts[0]), parts[1], float(parts[2]), int(parts[3]), float(parts[4])
        if est < actual or submit < 0 or procs < 0 or actual < 0:
            continue
        rows.append((submit, jid, est, procs, actual))
    return rows


def expected_finish(jid: str) -> int:
    return int(jid.split(".")[0])


def cases():
    out = []
    for path in sorted(DATA.glob("*_input.*")):
        pols = POLICIES.get(path.name) or POLICIES[path.name.rsplit(".", 1)[0]]
        out.extend(pytest.param(path.name, pol, id=f"{path.name}-{pol}") for pol in pols)
    return out


def run_file(name: str, policy: str):
    rows = parse_pyss(DATA / name)
    w = from_arrays([r[0] for r in rows], [r[4] for r in rows], [r[2] for r in rows], [r[3] for r in rows],
                    job_id=np.arange(len(rows)))
    res = simulate_grid([make_cluster("pyss", 100, policy=policy)], JobTable.from_workloads([w]))
    check_schedule(res)
    got = {rows[int(i)][1]: f for i, f in zip(res.jobs.job_id, res.finish)}
    return rows, got


def test_all_files_present_and_counted():
    assert len(cases()) == 29 * 3 + 2 * 3 + 1 + 8 + 9 * 2 + 2 + 4 == 126


@pytest.mark.parametrize("name,policy", cases())
def test_pyss_reference_schedule(name, policy):
    rows, got = run_file(name, policy)
    assert len(got) == len(rows) > 0
    wrong = {jid: f for jid, f in got.items() if f != expected_finish(jid)}
    assert not wrong, f"{name} {policy}: jobs finishing at the wrong time (id: finish) {dict(list(wrong.items())[:5])}"


@pytest.mark.parametrize("name,policy", [("bf_input.3", "fcfs"), ("easy_bf_input.0", "cbf"),
                                         ("cons_bf_input.0", "easy"), ("fcfs_input.0", "easy")])
def test_reference_files_discriminate_policies(name, policy):
    """Negative control: the comparison above can fail (other policies disagree on these files)."""
    _, got = run_file(name, policy)
    assert any(f != expected_finish(jid) for jid, f in got.items())
