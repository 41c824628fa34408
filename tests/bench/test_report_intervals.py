"""Report conventions: means carry their count and 95 % interval, figures their spread and count,
terminal text stays readable (durations with units, long causes below the tables, causes only for
variants that ran)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchmarks.figures import count_caption, line_plot
from benchmarks.tables import (
    ci95_half,
    format_duration,
    mean_ci_table,
    ratio_ci95_half,
    text_table_notes,
    with_intervals,
)


def _t_half(values) -> float:
    v = np.asarray(values, dtype=float)
    return float(stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v)))


FRAME = pd.DataFrame({"method": ["a", "a", "a", "a", "b", "b", "c"],
                      "y": [1.0, 2.0, 4.0, 7.0, 3.0, None, 5.0],
                      "z": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]})


def test_mean_ci_table_single_value_matches_scipy():
    t = mean_ci_table(FRAME, ["method"], "y").set_index("method")
    assert list(t.columns) == ["y", "n", "ci95"]
    assert t.loc["a", "y"] == pytest.approx(3.5) and t.loc["a", "n"] == 4
    assert t.loc["a", "ci95"] == pytest.approx(_t_half([1, 2, 4, 7]))
    lo, hi = stats.t.interval(0.95, 3, loc=3.5, scale=stats.sem([1, 2, 4, 7]))
    assert t.loc["a", "y"] - t.loc["a", "ci95"] == pytest.approx(lo)
    assert t.loc["a", "y"] + t.loc["a", "ci95"] == pytest.approx(hi)
    # a missing value is left out of the mean and the count; one value has no interval
    assert t.loc["b", "n"] == 1 and t.loc["b", "y"] == 3.0 and math.isnan(t.loc["b", "ci95"])


def test_mean_ci_table_several_values_and_with_intervals_keep_the_columns():
    t = mean_ci_table(FRAME, ["method"], ["y", "z"])
    assert list(t.columns) == ["method", "y", "y_n", "y_ci95", "z", "z_n", "z_ci95"]
    assert t.set_index("method").loc["b", "z_n"] == 2
    assert t.set_index("method").loc["b", "z_ci95"] == pytest.approx(_t_half([0.5, 0.6]))
    base = FRAME.groupby("method", as_index=False).agg(y=("y", "mean"), rows=("y", "size"))
    out = with_intervals(base, FRAME, ["method"], "y")
    assert list(out.columns) == ["method", "y", "rows", "n", "ci95"]  # nothing renamed, count and interval added
    assert out["y"].tolist() == base["y"].tolist()
    assert out.set_index("method").loc["a", "ci95"] == pytest.approx(_t_half([1, 2, 4, 7]))


def test_ratio_interval_covers_the_ratio_of_sums_at_the_nominal_rate():
    """The delta-method interval of sum y / sum x: about 95 % of intervals cover the true ratio."""
    rng = np.random.default_rng(7)
    true_ratio, covered, trials = 2.0, 0, 400
    for _ in range(trials):
        x = rng.uniform(1.0, 3.0, 40)
        y = true_ratio * x + rng.normal(0.0, 0.5, 40)
        r, half = y.sum() / x.sum(), ratio_ci95_half(y, x)
        covered += abs(r - true_ratio) <= half
    assert 0.91 <= covered / trials <= 0.99
    assert math.isnan(ratio_ci95_half([1.0], [2.0]))
    # pairs with y = R x exactly: no spread
    assert ratio_ci95_half([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]) == pytest.approx(0.0)


def test_ci95_half_is_the_vcsched_stats_interval():
    from vcsched.stats import summarize

    s = summarize([10.0, 12.0, 11.0, 13.0])
    assert ci95_half([10.0, 12.0, 11.0, 13.0]) == pytest.approx((s["ci95"][1] - s["ci95"][0]) / 2)
    assert math.isnan(ci95_half([]))


def test_line_plot_draws_error_bars_and_states_the_count(tmp_path, monkeypatch):
    import matplotlib.axes

    df = pd.DataFrame({"x": [1, 1, 1, 2, 2, 2], "y": [1.0, 2.0, 3.0, 2.0, 2.5, 3.5], "s": "m"})
    bars, texts = [], []
    monkeypatch.setattr(matplotlib.axes.Axes, "errorbar",
                        lambda self, x, y, yerr=None, **kw: bars.append(np.asarray(yerr)))
    import benchmarks.figures as figures

    real = figures.add_caption
    monkeypatch.setattr(figures, "add_caption", lambda fig, text: (texts.append(text), real(fig, text)))
    path = line_plot(df, x="x", y="y", series="s", out_dir=tmp_path, stem="f", xlabel="x", ylabel="y",
                     unit="seeds")
    assert path.exists()
    assert bars and bars[0] == pytest.approx([_t_half([1, 2, 3]), _t_half([2, 2.5, 3.5])])
    assert texts == ["points: mean +- 95 % CI over n = 3 seeds per point"]


def test_count_caption_ranges_and_single_values():
    assert count_caption([3, 5, 5], "runs", interval=True) == "points: mean +- 95 % CI over n = 3-5 runs per point"
    assert "no interval" in count_caption([1, 1], "runs", interval=False)
    assert count_caption([4], "runs", interval=False, aggregate="median") == "points: median over n = 4 runs per point"


def test_format_duration_gives_units():
    assert format_duration(2.876e7) == "332.9 d"
    assert format_duration(7200.0) == "2.00 h"
    assert format_duration(90.0) == "90.0 s"
    assert format_duration(600.0) == "10.0 min"
    assert format_duration(float("nan")) == "-"


def test_long_cells_go_below_the_table():
    df = pd.DataFrame({"quantity": ["q1", "q2"], "measured cause": ["short", "word " * 80]})
    text = text_table_notes(df, ["measured cause"], width=40)
    table, notes = text.split("\n[1]")
    assert max(len(line) for line in table.splitlines()) < 40
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "measured cause: word word" in notes


def test_deviation_causes_only_for_variants_that_ran():
    """A run without a row's variants prints no measured cause for that row (DIET and time-shared tables)."""
    from benchmarks.experiments import diet
    from benchmarks.experiments._timeshare_paper import deviation_table as ts_deviations

    rows = pd.DataFrame({"experiment": "add-seds", "variant": "default", "approach": "standard",
                         "makespan": [400.0], "mean_turnaround": [250.0], "max_tasks_per_sed": [8.0],
                         "tasks_on_new_seds": [0.0], "cell_status": "ok"})
    dev = diet.deviation_table(rows)
    assert (dev["variants tried"] == "-").all()
    assert (dev["measured cause"] == "-").all()
    summary = pd.DataFrame([{"kind": "summary", "scenario": "b", "platform": "2", "mu": mu, "heuristic": h,
                             "sumflow": 1000.0, "makespan": 8000.0, "completed": 500, "sooner_than_mct": 50.0,
                             "later_than_mct": 20.0, "last_arrival": 7500.0, "workload_seed": 0}
                            for mu in (15.0, 17.0, 20.0) for h in ("mct", "hmct", "mp", "msf")])
    ts = ts_deviations(summary)
    assert ts["ours (defaults)"].notna().any()
    assert (ts["measured cause"] == "-").all()
    # with one variant of the scenario (b) rows run, those rows (and only those) say their cause
    noisy = summary[summary["mu"] == 15.0].assign(noise=0.1)
    ts = ts_deviations(pd.concat([summary.assign(noise=0.0), noisy]))
    b15 = ts["quantity"].str.startswith("(b) mu=15")
    assert (ts.loc[b15, "measured cause"] != "-").all() and (ts.loc[~b15, "measured cause"] == "-").all()


def test_vc_tables_add_counts_and_intervals():
    from benchmarks.experiments._vc_common import degradation_table, headline_table, runtime_table, slack_table

    rows = []
    for rep, (a, b) in enumerate([(0.5, 0.4), (0.6, 0.6), (0.7, None), (0.9, 0.8)]):
        for method, y in (("mcb8", a), ("sg", b)):
            rows.append({"jobs": 6, "slack": 0.5, "cv_mem": 0.25, "cv_cpu": 0.25, "instance_rep": rep,
                         "method": method, "min_yield": y, "avg_yield": y, "success": int(y is not None),
                         "seconds_first_phase": 0.001 * (rep + 1), "lp_seconds": float("nan")})
    df = pd.DataFrame(rows)
    st = slack_table(df, ["mcb8", "sg"]).set_index("method")
    assert {"instances", "min_yield", "avg_yield", "failure_rate"} <= set(st.columns)  # the existing columns
    assert st.loc["sg", "min_yield_n"] == 3 and st.loc["sg", "failure_rate_n"] == 4
    assert st.loc["sg", "min_yield_ci95"] == pytest.approx(_t_half([0.4, 0.6, 0.8]))
    assert st.loc["mcb8", "failure_rate_ci95"] == 0.0
    rt = runtime_table(df, ["mcb8"]).iloc[0]
    assert rt["n"] == 4 and rt["ci95"] == pytest.approx(_t_half([1.0, 2.0, 3.0, 4.0]))
    deg = degradation_table(df, ["mcb8", "sg"]).set_index("algorithm")
    assert deg.loc["sg", "n"] == 3 and deg.loc["sg", "ci95"] == pytest.approx(_t_half([20.0, 0.0, 100 / 9]))
    heads = headline_table([("a", 1.0, 2.0, ""), ("b", 1.0, 2.0, "", 7, 0.5)])
    assert heads["n"].tolist() == ["-", 7] and heads["ci95"].tolist() == ["-", 0.5]


def test_median_points_show_the_range_of_their_values(tmp_path):
    import pandas

    from benchmarks.figures import count_caption, line_plot

    assert count_caption([3, 3], "instances", interval="range", aggregate="median") == (
        "points: median, bars from the smallest to the largest value over n = 3 instances per point")
    df = pandas.DataFrame({"jobs": [10, 10, 10, 100, 100, 100], "cpu_s": [1.0, 2.0, 4.0, 10.0, 11.0, 30.0]})
    path = line_plot(df, x="jobs", y="cpu_s", out_dir=tmp_path, stem="m", xlabel="jobs", ylabel="s",
                     aggregate="median", unit="instances")
    assert path.exists() and path.stat().st_size > 0
