"""Cells split into parts (benchmarks.split): the same rows as whole cells, longest parts first, joins first."""

from __future__ import annotations

import pandas as pd

from benchmarks import selftest
from benchmarks.harness import run_cells, stable_table
from benchmarks.split import _Plan, replay_makespan, run_split_cell, task_order


def test_split_cells_give_the_rows_of_whole_cells(tmp_path):
    """Parts run as tasks of two workers, in cost order (not cell order): the table of one task per cell."""
    split = run_cells(selftest.split_experiment(n=4), tmp_path / "split", workers=2, progress=False)
    whole = run_cells(selftest.split_experiment(n=4, split=False), tmp_path / "whole", workers=1, progress=False)
    assert split.workers == 2 and split.n_failed == 0
    pd.testing.assert_frame_equal(stable_table(split.table), stable_table(whole.table))
    table = split.table
    assert list(table["part"]) == list(selftest.PARTS) * 4 and list(table["cell"]) == [k // 3 for k in range(12)]
    for _, cell in table.groupby("cell"):
        assert cell["total"].iloc[0] == sum(cell["draw"])  # the join saw every part's result, in order
    # a cell's times are the sums over its parts and join
    assert (table.drop_duplicates("cell")["cell_cpu_seconds"] > 0).all()


def test_split_failed_part_fails_its_cell_only(tmp_path):
    out = run_cells(selftest.split_experiment(n=3, fail=(1,)), tmp_path / "f", workers=2, progress=False)
    assert out.n_failed == 1
    cells = out.table.drop_duplicates("cell").set_index("cell")
    assert cells.loc[1, "cell_status"] == "error" and "part p2: RuntimeError" in cells.loc[1, "error"]
    assert (cells.loc[[0, 2], "cell_status"] == "ok").all()


def test_task_order_is_longest_first_ties_in_cell_then_part_order():
    split = selftest.SPLIT
    todo = [(0, {"k": 1}, 5), (1, {"k": 0}, 6), (2, {"k": 1}, 7)]
    order = task_order(split, todo)
    costs = [split.cost(todo[[t[0] for t in todo].index(i)][1], p) for i, _, p in order]
    assert costs == sorted(costs, reverse=True)
    assert order[:3] == [(0, 2, "p2"), (2, 2, "p2"), (0, 1, "p1")]  # cost 3, 3, then cell 0's p1 before cell 2's
    assert sorted(order) == [(i, k, p) for i in range(3) for k, p in enumerate(selftest.PARTS)]


def test_plan_takes_a_ready_join_before_any_part():
    """List scheduling: when a cell's last part finishes, its join is the next task; the join's outcome is the cell's,
    with the times summed over the parts and the join."""
    todo = [(0, {"k": 0}, 1), (1, {"k": 5}, 2)]
    plan = _Plan(selftest.SPLIT, todo)
    done = {"error": "", "seconds": 1.0, "cpu_seconds": 0.5}
    taken = [plan.take() for _ in range(3)]  # cell 1's three parts (costs 5-7) come first
    assert [key for key, _, _ in taken] == [("part", 1, 2), ("part", 1, 1), ("part", 1, 0)]
    for key, _, _ in taken:
        assert plan.finish(key, {**done, "result": 0.25 * key[2]}) is None
    key, func, args = plan.take()
    assert key == ("join", 1)
    outcome = func(*args)
    assert outcome["error"] == "" and [r["draw"] for r in outcome["rows"]] == [0.0, 0.25, 0.5]
    index, cell = plan.finish(key, outcome)
    assert index == 1 and cell["rows"] == outcome["rows"] and cell["cpu_seconds"] == 1.5 + outcome["cpu_seconds"]
    assert plan.take()[0] == ("part", 0, 2)


def test_run_split_cell_is_the_join_of_the_parts_in_order():
    rows = run_split_cell(selftest.SPLIT, {"k": 2}, 9)
    assert [r["draw"] for r in rows] == [selftest.run_part({"k": 2}, 9, p) for p in selftest.PARTS]


def test_replay_makespan_is_the_list_schedule():
    """Estimated costs (k + part index): 1/p2 (3), then 0/p2 and 1/p1 (2, cell 0 first), 0/p1 and 1/p0 (1), 0/p0 (0).
    With these durations on two workers: A 1/p2 [0, 6); B 0/p2 [0, 3), 1/p1 [3, 8); A 0/p1 [6, 8); at 8, 1/p1 ends
    first (started first): B 1/p0 [8, 12), A 0/p0 [8, 9), then cell 0's join [9, 10); cell 1's join [12, 13)."""
    todo = [(0, {"k": 0}, 1), (1, {"k": 1}, 2)]
    durations = {("part", 1, 2): 6.0, ("part", 1, 1): 5.0, ("part", 1, 0): 4.0, ("join", 1): 1.0,
                 ("part", 0, 2): 3.0, ("part", 0, 1): 2.0, ("part", 0, 0): 1.0, ("join", 0): 1.0}
    assert replay_makespan(selftest.SPLIT, todo, durations, 2) == 13.0
    assert replay_makespan(selftest.SPLIT, todo, durations, 1) == sum(durations.values())
    assert replay_makespan(selftest.SPLIT, todo, durations, 8) == 7.0  # cell 1: its longest part, then its join
