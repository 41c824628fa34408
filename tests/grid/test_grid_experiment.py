"""The ``grid-realloc`` experiment: one small cell end to end, the report's tables, and (slow) performance."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from benchmarks.experiments import grid_realloc as gr


def test_grid_experiment_grid_is_the_papers_364_runs():
    quick = [c for c in gr.cells(True) if "cause" not in c]
    assert len(quick) == 28 and len({(c["scenario"], c["heterogeneous"], c["batch"]) for c in quick}) == 28
    assert {c["days"] for c in quick} == {gr.QUICK_DAYS}
    full = [c for c in gr.cells(False) if "cause" not in c]
    assert len(full) == 32 and {c["scenario"] for c in full} == set(gr.PAPER_COLUMNS) | {"pwa"}


def test_grid_experiment_cause_cells():
    """One cell per variant and batch policy (quick: the defaults and load 0.3), on the cause windows."""
    full = [c for c in gr.cells(False) if "cause" in c]
    assert len(full) == 2 * len(gr.CAUSE_VARIANTS) - len(gr.CBF_ONLY_CAUSES)
    assert all(c["batch"] == "cbf" for c in full if c["cause"] in gr.CBF_ONLY_CAUSES)
    assert {(c["batch"], c["scenario"], c["days"]) for c in full} == {(b, *w) for b, w in gr.CAUSE_WINDOWS.items()}
    assert not any(c["heterogeneous"] for c in full)
    assert {c["cause"] for c in gr.cells(True) if "cause" in c} == set(gr.QUICK_CAUSES)


def test_grid_experiment_cause_cell_applies_its_variant():
    """A cause cell runs its variant: the same numbers as the policy built by hand."""
    from heuristics.grid.realloc import Reallocation
    from vcsched.scenarios.grid import build_scenario, compare_to_reference
    from vcsched.sim import simulate_grid

    params = {"scenario": "apr", "heterogeneous": False, "batch": "fcfs", "days": 0.5, "workload_seed": 0,
              "cause": "load-0.3"}
    rows = {r["label"]: r for r in gr.run_cell(params, seed=0)}
    clusters, jobs = build_scenario("apr", days=0.5, max_load=0.3)
    ref = simulate_grid(clusters, jobs, meta=Reallocation("none"))
    clusters, _ = build_scenario("apr", days=0.5, max_load=0.3)
    pol = Reallocation("cancel", "minmin")
    m = compare_to_reference(simulate_grid(clusters, jobs, meta=pol), ref, reallocations=pol.reallocations)
    assert rows["MinMin-C"]["reallocations"] == m["reallocations"]
    assert rows["MinMin-C"]["relative_response"] == m["relative_response"]
    assert rows["MinMin-C"]["jobs_moved_pct"] == 100.0 * int((pol.job_moves > 0).sum()) / len(jobs)
    params["cause"] = "phase-1800"
    rows = gr.run_cell(params, seed=0)
    assert len(rows) == 13 and rows[0]["jobs"] == len(build_scenario("apr", days=0.5)[1])


def test_grid_deviation_table_hand_computed():
    """Means over the right rows, and the variant closest to the paper's value."""
    def row(alg, h, batch, rr, pct, cause=None, moved=0.0, wait=10.0):
        return {"algorithm": alg, "heuristic": h, "batch": batch, "heterogeneous": False, "relative_response": rr,
                "reallocations_pct": pct, "jobs_moved_pct": moved, "displaced_pct": moved / 2, "cause": cause,
                "max_wait": wait, "ref_max_wait": 8.0}

    main = pd.DataFrame([row("no-cancel", "mct", "fcfs", 0.9, 4.0), row("no-cancel", "mct", "cbf", 1.0, 2.0),
                         row("cancel", "maxmin", "fcfs", 3.0, 100.0, wait=20.0), row("cancel", "mct", "cbf", 1.1, 10.0),
                         row("cancel", "minmin", "cbf", 0.5, 6.0)])
    causes = pd.concat([main.assign(cause="default", jobs_moved_pct=[1.0, 1.0, 20.0, 4.0, 6.0]),
                        main.assign(cause="load-0.3", reallocations_pct=[2.0, 2.0, 8.0, 4.0, 3.0],
                                    relative_response=[0.9, 0.9, 0.8, 0.9, 0.9]),
                        main.assign(cause="walltime-1.5", reallocations_pct=[3.0, 1.0, 30.0, 3.0, 3.0])])
    dev = gr.deviation_table(main, causes).set_index("quantity")
    q = [d[0] for d in gr.DEVIATIONS]
    assert dev.loc[q[0], "ours (grid, defaults)"] == 3.0  # (4 + 2) / 2
    assert dev.loc[q[1], "ours (grid, defaults)"] == pytest.approx(116.0 / 3)
    assert dev.loc[q[2], "ours (grid, defaults)"] == pytest.approx((3.0 + 1.1 + 0.5) / 3 - 0.95)
    assert dev.loc[q[3], "ours (grid, defaults)"] == 3.0 and dev.loc[q[5], "ours (grid, defaults)"] == 1.1
    assert dev.loc[q[4], "ours (grid, defaults)"] == 2.5  # longest FCFS wait with cancellation 20 / reference's 8
    # no cancellation: load-0.3 gives 2.0, walltime-1.5 gives 2.0 too, counting once gives 1.0: the first tie wins
    assert dev.loc[q[0], "closest variant"] == "load-0.3" and dev.loc[q[0], "window, closest variant"] == 2.0
    # with cancellation: default 116/3, load-0.3 5.0, walltime 12.0, jobs moved once 10.0, displaced 5.0
    assert dev.loc[q[1], "closest variant"] == "load-0.3" and dev.loc[q[1], "window, closest variant"] == 5.0
    assert dev.loc[q[3], "window, defaults"] == 3.0 and dev.loc[q[3], "closest variant"] == "load-0.3"
    assert set(gr.cause_matrix(causes).columns) == {"quantity", "paper", "default", "load-0.3", "walltime-1.5"}


def test_grid_experiment_cell_and_report(tmp_path):
    params = {"scenario": "feb", "heterogeneous": True, "batch": "cbf", "days": 1.0, "workload_seed": 0}
    rows = gr.run_cell(params, seed=123)
    assert [r["label"] for r in rows] == ["reference", "Mct", "MinMin", "MaxMin", "MaxGain", "MaxRelGain",
                                         "Sufferage", "Mct-C", "MinMin-C", "MaxMin-C", "MaxGain-C", "MaxRelGain-C",
                                         "Sufferage-C"]
    assert rows[0]["impacted_pct"] == 0 and rows[0]["reallocations"] == 0
    assert all(r["jobs"] == rows[0]["jobs"] > 0 for r in rows)
    assert rows == [dict(r, sim_seconds=s["sim_seconds"], realloc_seconds=s["realloc_seconds"],
                         sim_cpu_seconds=s["sim_cpu_seconds"])
                    for r, s in zip(gr.run_cell(params, seed=7), rows)]  # the harness seed does not matter
    for r in rows:  # the optimum's bracket: the cell's own runs are candidates, so no run is below its upper end
        assert r["response_bound"] <= r["response_upper"] <= r["mean_response"] * (1 + 1e-9)
        assert r["response_opt_ratio_low"] == pytest.approx(r["mean_response"] / r["response_upper"])
        assert r["response_opt_ratio_high"] == pytest.approx(r["response_ratio_to_bound"])
        assert 1 - 1e-9 <= r["response_opt_ratio_low"] <= r["response_opt_ratio_high"]
    df = pd.DataFrame([{**params, **r, "cell": 0, "cell_status": "ok"} for r in rows])
    text = gr.report(df, tmp_path)
    assert (tmp_path / "opt_intervals.csv").exists() and "interval [low, high]" in text
    assert "2.3 / 13.5" in text and "Table 16" in text and "Deviation table" in text
    assert (tmp_path / "deviations.csv").exists()
    assert (pd.read_csv(tmp_path / "deviations.csv")["measured cause"] == "-").all()  # no cause cells ran
    assert not any(line.startswith("- ") for line in text.splitlines())
    for n in range(2, 18):
        assert list(tmp_path.glob(f"table{n:02d}_*.md")), n
    t16 = pd.read_csv(next(tmp_path.glob("table17_*.csv")))
    assert list(t16.columns) == ["batch", "heuristic", "feb", "AVG", "paper_AVG", "n", "ci95"] and len(t16) == 6
    assert (t16["n"] == 1).all() and t16["ci95"].isna().all()  # one scenario: no interval
    assert (tmp_path / "fig_relative_response.png").exists()
    # cause rows are kept out of the paper's tables and feed the deviation table and the matrix
    causes = pd.concat([df.assign(cause=v, cell=k + 1) for k, v in enumerate(("default", "load-0.3"))])
    text = gr.report(pd.concat([df, causes]), tmp_path)
    assert "Cause windows" in text
    # two of the variants ran: the causes (drawn from all of them) are not printed, what ran is named
    assert not any(line.startswith("- ") for line in text.splitlines())
    assert "this run ran default, load-0.3" in text
    assert pd.read_csv(next(tmp_path.glob("table17_*.csv")))["feb"].tolist() == t16["feb"].tolist()
    dev = pd.read_csv(tmp_path / "deviations.csv")
    assert (dev["window, defaults"].fillna(-1) == dev["ours (grid, defaults)"].fillna(-1)).all()


@pytest.mark.slow
def test_grid_six_month_platform2_cbf_minmin_c_under_two_minutes():
    """Issue 6 performance target: six months of platform 2, CBF, hourly MinMin-C, <= 120 s wall time."""
    from heuristics.grid.realloc import Reallocation
    from tests.conftest import require_trace
    from vcsched.scenarios.grid import build_scenario
    from vcsched.sim import simulate_grid

    require_trace("CTC-SP2-1996-3.1-cln.swf.gz")
    require_trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    t0 = time.perf_counter()
    clusters, jobs = build_scenario("pwa-g5k", batch="cbf")
    pol = Reallocation("cancel", "minmin")
    res = simulate_grid(clusters, jobs, meta=pol)
    assert not pd.isna(res.finish).any() and pol.reallocations > 0
    assert time.perf_counter() - t0 <= 120.0


def test_grid_run_time_line_counts_each_cell_once():
    """The report's run-time line sums each cell's time once (its rows repeat it) and divides by the workers."""
    import pandas as pd

    from benchmarks.experiments.grid_realloc import run_time_line

    df = pd.DataFrame({"cell": [0, 0, 1, 2, 2, 2], "scenario": ["jan", "jan", "pwa", "apr", "apr", "apr"],
                       "heterogeneous": [False, False, True, False, False, False],
                       "batch": ["fcfs", "fcfs", "cbf", "fcfs", "fcfs", "fcfs"],
                       "cell_seconds": [100.0, 100.0, 7000.0, 100.0, 100.0, 100.0],
                       "cell_cpu_seconds": [90.0, 90.0, 6500.0, float("nan"), float("nan"), float("nan")]})
    line = run_time_line(df)
    assert "3 cells" in line and "7,200 s, i.e. 3,600 s = 1.00 h on 2 workers" in line
    assert "CPU 6,590 s over the 2 cells" in line and "slowest cell pwa het CBF: 7,000 s" in line
    assert run_time_line(df.drop(columns=["cell_seconds"])).startswith("run time: no cell times")


def test_grid_cbf_only_variant_pools_the_default_fcfs_window():
    """A CBF-only variant (cbf-replan-full) runs on the CBF window only; pooled quantities take the defaults' FCFS
    rows for it (the variant changes nothing there), so they compare like with like."""
    def row(alg, h, batch, pct, cause):
        return {"algorithm": alg, "heuristic": h, "batch": batch, "heterogeneous": False, "relative_response": 1.0,
                "reallocations_pct": pct, "jobs_moved_pct": 0.0, "displaced_pct": 0.0, "cause": cause,
                "max_wait": 1.0, "ref_max_wait": 1.0}

    causes = pd.DataFrame([row("cancel", "mct", "fcfs", 90.0, "default"), row("cancel", "mct", "cbf", 10.0, "default"),
                           row("cancel", "mct", "cbf", 2.0, "cbf-replan-full")])
    matrix = gr.cause_matrix(causes).set_index("quantity")
    q = gr.DEVIATIONS[1][0]  # reallocations with cancellation, pooled over both windows
    assert matrix.loc[q, "default"] == 50.0
    assert matrix.loc[q, "cbf-replan-full"] == 46.0  # (90 from the defaults' FCFS window + 2) / 2, not 2
