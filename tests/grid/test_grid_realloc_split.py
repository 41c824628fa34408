"""``grid-realloc``'s cells in parts (the reference, one part per policy) and a join: the rows of the plain
sequential cell (``tests/grid/grid_cell_oracle.py``) whatever the order and the process of the parts."""

from __future__ import annotations

import pytest

from benchmarks.experiments import _grid_cell
from benchmarks.experiments import grid_realloc as gr
from benchmarks.split import task_order
from tests.grid.grid_cell_oracle import oracle_cell


def _timeless(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if not k.endswith("seconds")} for r in rows]


@pytest.mark.parametrize("params", [
    {"scenario": "jan", "heterogeneous": False, "batch": "fcfs", "days": 0.5, "workload_seed": 0,
     "cause": "phase-1800"},
    pytest.param({"scenario": "apr", "heterogeneous": True, "batch": "fcfs", "days": 0.5, "workload_seed": 0},
                 marks=pytest.mark.slow),
])
def test_grid_cell_parts_in_any_order_give_the_plain_cells_rows(params):
    expected = oracle_cell(dict(params))
    parts = gr.SPLIT.parts(params)
    assert parts[0] == "reference" and len(parts) == 13 == len(set(parts))
    results = {p: gr.run_part(dict(params), 0, p) for p in reversed(parts)}  # reverse order, fresh workloads
    rows = gr.join_cell(dict(params), 0, [results[p] for p in parts])
    assert _timeless(rows) == expected
    assert all(r["sim_cpu_seconds"] >= 0 for r in rows)
    assert sum(r["reallocations"] for r in rows) > 0  # the window moves jobs: the rows compare real runs


def test_grid_part_cost_puts_six_month_maxmin_c_fcfs_first():
    """The estimates only order the tasks: MaxMin-C on the six-month FCFS cells is the longest part of the grid."""
    full = gr.cells(False)
    order = [(full[i], p) for i, _, p in task_order(gr.SPLIT, [(i, c, 0) for i, c in enumerate(full)])]
    assert order[0][1] == "cancel/maxmin" and order[0][0]["batch"] == "fcfs" and order[0][0]["days"] is None
    assert _grid_cell.part_cost(full[0], "reference") > 0


def test_grid_parts_line_replays_the_sweeps_schedule():
    """Six-month homogeneous FCFS cell: MaxMin-C (100 s of CPU) starts first on one worker, the twelve other parts
    (1 s each) run on the other, then the join (the cell's CPU minus its parts', 5 s) after MaxMin-C: 105 s."""
    import pandas as pd

    labels = ["reference"] + [f"x{k}" for k in range(12)]
    labels[gr.SPLIT.parts({})[1:].index("cancel/maxmin") + 1] = "MaxMin-C"
    cpu = [100.0 if label == "MaxMin-C" else 1.0 for label in labels]
    df = pd.DataFrame({"cell": 24, "row": range(13), "scenario": "pwa-g5k", "heterogeneous": False, "batch": "fcfs",
                       "days": float("nan"), "workload_seed": 0, "label": labels, "sim_cpu_seconds": cpu,
                       "cell_cpu_seconds": sum(cpu) + 5.0, "cell_seconds": 1.0})
    line = gr.parts_line(df)
    assert "longest part pwa-g5k hom FCFS MaxMin-C: 100 s of CPU" in line and "2 workers ends at 105 s" in line
    assert gr.parts_line(df.drop(columns=["sim_cpu_seconds"])) == "" and gr.parts_line(df.iloc[:5]) == ""
