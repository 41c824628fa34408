"""`vcsched bench list` / `vcsched bench run`, and the demo experiment end to end."""

from __future__ import annotations

import pandas as pd
import pytest

from vcsched.cli import main


def test_bench_list_shows_the_registered_experiments(capsys):
    assert main(["bench", "list"]) == 0
    out = capsys.readouterr().out
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert "demo" in names and "vc-milp" in names


def test_bench_run_unknown_name_exits_2_with_the_list(capsys):
    assert main(["bench", "run", "no-such-experiment"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vcsched: error: unknown experiment 'no-such-experiment'")
    assert "demo" in err


@pytest.mark.parametrize("argv, message", [
    (["--scheduler", "localhost"], "tcp://host:8786"),
    (["--scheduler", "tcp://h:8786", "--workers", "2"], "exclude each other"),
])
def test_bench_run_rejects_bad_options(capsys, tmp_path, argv, message):
    assert main(["bench", "run", "demo", "--out", str(tmp_path)] + argv) == 2
    assert message in capsys.readouterr().err


def test_bench_run_rejects_bad_numbers(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "run", "demo", "--workers", "0"])
    assert exc.value.code == 2
    assert "--workers" in capsys.readouterr().err


def test_demo_quick_end_to_end_and_resume(capsys, tmp_path):
    assert main(["bench", "run", "demo", "--quick", "--out", str(tmp_path), "--workers", "2"]) == 0
    out = capsys.readouterr().out
    run = tmp_path / "demo"
    assert "demo: 2 cells (2 run, 0 resumed, 0 failed)" in out
    assert "milp" in out and "lp" in out and "mean_gap_pct" in out
    for name in ("results.parquet", "results.csv", "summary.csv", "summary.md", "min_yield_vs_slack.png", "run.json"):
        assert (run / name).exists(), name
    assert f"written: {run / 'min_yield_vs_slack.png'}" in out
    assert (run / "min_yield_vs_slack.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_parquet(run / "results.parquet")
    milp = table[table["method"] == "milp"]
    lp = table[table["method"] == "lp"]
    assert (milp["status"] == "optimal").all() and (milp["gap_pct"] == 0).all()
    # the LP relaxation bounds the optimum from above: its gap to the MILP is <= 0
    assert (lp["min_yield"].to_numpy() >= milp["min_yield"].to_numpy() - 1e-9).all()
    assert (lp["gap_pct"] <= 1e-9).all()
    # every heuristic registered right now has a row per instance, never above the optimum
    from heuristics.vc import REGISTRY

    assert set(table["method"]) == {"milp", "lp", *REGISTRY.names()}
    solved = table[table["status"].isin(["optimal", "feasible"]) & ~table["method"].isin(["lp"])]
    assert (solved["gap_pct"] >= -1e-6).all()

    assert main(["bench", "run", "demo", "--quick", "--out", str(tmp_path), "--workers", "1", "--resume"]) == 0
    assert "(0 run, 2 resumed, 0 failed)" in capsys.readouterr().out
    pd.testing.assert_frame_equal(pd.read_parquet(run / "results.parquet"), table)


def test_resume_with_other_options_is_refused(capsys, tmp_path):
    assert main(["bench", "run", "demo", "--quick", "--out", str(tmp_path), "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["bench", "run", "demo", "--out", str(tmp_path), "--resume", "--seed", "0"]) == 2
    assert "quick=True" in capsys.readouterr().err


@pytest.mark.slow  # ~10-30 s: waits for the first 64x500 LP cell of vc-milp
def test_sigterm_stops_the_run_and_its_workers_at_once_keeping_finished_cells(tmp_path):
    """vc-milp --quick starts with two long LP cells: kill while the ~20 s literal one is in flight."""
    import os
    import signal
    import subprocess
    import sys
    import time

    vcsched = os.path.join(os.path.dirname(sys.executable), "vcsched")
    proc = subprocess.Popen([vcsched, "bench", "run", "vc-milp", "--quick", "--workers", "2", "--out", str(tmp_path)],
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    parts = tmp_path / "vc-milp" / "parts"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and not list(parts.glob("*.parquet")):
            time.sleep(0.1)
        assert list(parts.glob("*.parquet")), "no cell finished in time"
        proc.send_signal(signal.SIGTERM)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=30)
        stopped_after = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143 and "terminated" in err
    assert stopped_after < 10, f"stopping took {stopped_after:.1f} s: it waited for the cells in flight"
    left = True
    for _ in range(100):  # no worker (nor forkserver) left behind in the run's session, within 5 s
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            left = False
            break
        time.sleep(0.05)
    assert not left, "worker processes survived the interrupted run"
    done = pd.read_parquet(next(parts.glob("*.parquet")))
    assert (done["cell_status"] == "ok").all() and len(done) >= 1
    assert not list(parts.glob(".*.tmp"))
