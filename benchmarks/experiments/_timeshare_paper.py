"""The numbers of seed 003 (Caniou & Jeannot RR-5168) that the ``timeshare`` experiment compares with, and the
deviation table built on them (:func:`deviation_table`, :func:`implied_speed_table`).

The experiment itself (cells, simulation, tables and figures) is :mod:`benchmarks.experiments.timeshare`;
this module only reads its result rows.
"""

from __future__ import annotations

import csv
import pathlib
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["PAPER", "PAPER_COLUMNS", "PAPER_COMPLETED", "PAPER_NOISE", "PAPER_SLOW_SHARE", "PAPER_TYPE_SHARES",
           "FAST_0916", "SCALES", "TS_DEVIATIONS", "deviation_table", "implied_speed_table"]

PAPER_COLUMNS = ("makespan", "sumflow", "maxflow", "maxstretch", "sooner_than_mct")
"""The values of each heuristic in :data:`PAPER`, in this order."""
_DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "timeshare"
"""The paper's numbers, one CSV line per configuration and heuristic: ``paper_averages.csv`` (the averages
of Tables 6-9 and 16-18; seconds; ``sooner``: % of tasks finishing >= 2 s sooner than with MCT; ``-``: not
given) and ``paper_type_shares.csv`` (MEAN blocks of Tables 10, 12, 14: % of the 500 tasks of types 1, 2, 3
on spinnaker and on artimon)."""


def _value(text: str):
    """A cell of the paper's tables: ``-`` (not given) is None, a number keeps the paper's spelling (an integer
    or a decimal), any other text is a name."""
    if text == "-":
        return None
    if text.isdigit():
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def _rows(name: str) -> list[list]:
    """The lines of one of the paper's tables (:data:`_DATA`), header left out, as lists of cells."""
    with open(_DATA / name, newline="", encoding="utf-8") as f:
        return [[_value(cell) for cell in line] for line in list(csv.reader(f))[1:]]


def _nest(pairs) -> dict:
    """``{outer: {heuristic: values}}`` from ``(outer, heuristic, values)`` in the tables' order."""
    out: dict = {}
    for outer, heuristic, values in pairs:
        out.setdefault(outer, {})[heuristic] = values
    return out


PAPER = _nest(((s, str(p), float(mu)), h, tuple(values))
              for s, p, mu, _table, h, *values in _rows("paper_averages.csv"))
"""``PAPER[(scenario, platform, mu)][heuristic]``: the paper's averages (:data:`PAPER_COLUMNS`)."""
PAPER_TYPE_SHARES = _nest((float(mu), h, (tuple(shares[:3]), tuple(shares[3:])))
                          for mu, h, *shares in _rows("paper_type_shares.csv"))
"""``PAPER_TYPE_SHARES[mu][heuristic]``: ((spinnaker's % of types 1-3), (artimon's))."""
# % of tasks on soyotte + fonck, MEAN blocks of Tables 10, 12, 14.
PAPER_SLOW_SHARE = {20.0: "MCT 0, HMCT 0, MP 10.8, MSF 0", 17.0: "MCT 0, HMCT 0, MP 11.8, MSF 0.5",
                    15.0: "MCT 1.1, HMCT 2.5, MP 10.9, MSF 4.4"}
PAPER_COMPLETED = {("a", "dgemm", 15.0): {"mct": 495, "hmct": 358, "mp": 500, "msf": 500}}
PAPER_NOISE = 0.04
"""Coefficient of variation of the repeated-run cells: the root mean square of the HTM's errors in the
paper's Table 1 (0.02-10.6 %, RMS 3.9 %)."""
FAST_0916 = "spinnaker=0.916,artimon=0.916"
"""Both fast servers at the speed the paper's utilisation tables imply for spinnaker (see implied_speed_table)."""
SCALES = {"fast x0.916": FAST_0916, "tables' minimum (spinnaker x0.916, artimon x0.989)":
          "spinnaker=0.916,artimon=0.989", "fast x0.93": "spinnaker=0.93,artimon=0.93",
          "fast x0.95": "spinnaker=0.95,artimon=0.95", "slow x0.5 (control)": "soyotte=0.5,fonck=0.5"}
"""Computation-time factors of the mu = 15 cells (``compute_scale``): the fast servers faster than Table 5, and a
control that only speeds up the slow servers (it lowers the total load but not the fast servers')."""


def _is_variant(df: pandas.DataFrame) -> pandas.Series:
    """Rows of the deviation cells that change the platform or the protocol (memory, overflow, computation
    times, MCT's completion rule, repeated runs): kept out of the tables beside the paper's."""
    import pandas as pd

    mask = pd.Series(False, index=df.index)
    for column, default in (("memory", "ram"), ("overflow", "refuse"), ("compute_scale", ""),
                            ("mct_completion", "notify"), ("runs", 1)):
        if column in df:
            mask |= df[column].fillna(default) != default
    return mask


def _select(df: pandas.DataFrame, *, scenario: str = "b", platform: str = "2", mu: float = 15.0,
            heuristic: str, law: str = "poisson", sensor: str = "count", noise: float = 0.0, memory: str = "ram",
            overflow: str = "refuse", scale: str = "", completion: str = "notify", runs: int = 1) -> pandas.DataFrame:
    """Summary rows of one configuration (absent variant columns count as the defaults)."""
    s = df[df["kind"] == "summary"]
    col = lambda name, default: s[name].fillna(default) if name in s else default  # noqa: E731
    keep = ((s["scenario"] == scenario) & (s["platform"].astype(str) == platform) & (s["mu"] == mu)
            & (s["heuristic"] == heuristic) & (col("interarrival", "poisson") == law)
            & (col("load_sensor", "count") == sensor) & (col("noise", 0.0) == noise)
            & (col("memory", "ram") == memory) & (col("overflow", "refuse") == overflow)
            & (col("compute_scale", "") == scale) & (col("mct_completion", "notify") == completion)
            & (col("runs", 1) == runs))
    return s[keep]


def _avg(df, column: str, **config) -> float:
    rows = _select(df, **config)
    return float(rows[column].mean()) if len(rows) else float("nan")


def _best(df, column: str, **config) -> float:
    """Largest value over the workload seeds (Table 7 gives MCT's and HMCT's best run)."""
    rows = _select(df, **config)
    return float(rows[column].max()) if len(rows) else float("nan")


def _hmct_vs_mct(df, **config) -> float:
    h, m = _avg(df, "sumflow", heuristic="hmct", **config), _avg(df, "sumflow", heuristic="mct", **config)
    return 100.0 * (h / m - 1.0) if m else float("nan")


def _overhang(df, **config) -> float:
    """MCT's makespan minus the last arrival date: the backlog left when the arrivals stop.

    The paper's value is its makespan minus 500 mu (its arrival dates are not given: about +-50 s
    on a mean of 3 seeds); ours uses the real last arrival when the rows carry it.
    """
    rows = _select(df, heuristic="mct", **config)
    if not len(rows):
        return float("nan")
    last = rows["last_arrival"] if "last_arrival" in rows else 500.0 * config.get("mu", 15.0)  # -1: DAG only
    return float((rows["makespan"] - last).mean())


B_VARIANTS = {"exponential gaps": {"law": "exponential"}, "loadavg sensor": {"sensor": "loadavg"},
              "noise 10 %": {"noise": 0.1}, "noise 30 %": {"noise": 0.3}, "mu 16": {"mu": 16.0},
              "mu 16.5": {"mu": 16.5}, "MCT completion on report": {"completion": "report"},
              "4 % noise, 3 runs, cross product": {"noise": PAPER_NOISE, "runs": 3},
              **{label: {"scale": scale} for label, scale in SCALES.items()},
              "report + fast x0.916": {"completion": "report", "scale": FAST_0916}}
"""Scenario (b) variants of the deviation table: the model options one at a time, two lighter loads, the
paper's protocol of repeated runs, faster servers, and the two changes that together restore the paper's
findings."""
A_VARIANTS = {"RAM + half swap": {"memory": "ram+swap/2"}, "close on overflow": {"overflow": "close"},
              "RAM + half swap, close": {"memory": "ram+swap/2", "overflow": "close"}}
"""Scenario (a) memory variants of the deviation table."""
_MODEL_ONLY = {k: v for k, v in B_VARIANTS.items() if "mu" not in v}

_CONGESTION = (
    "explained: the fast servers' offered load decides. One change at a time at mu = 15, HMCT beats MCT once "
    "that load falls below about 0.98, whether by spacing the arrivals (mu 16.5) or by faster fast servers "
    "(x0.93: -10.5 %); speeding up the slow servers only (x0.5, control) leaves HMCT +33 %. By Table 5 the fast "
    "servers are loaded at 1.06; the paper's own utilisation tables need spinnaker at least 8-9 % faster (the "
    "implied-speed table). With both fast servers x0.916 the order comes back (-11 %; with MCT's completion on "
    "report -21 %), but every sumflow then falls 25-40 % below the paper's: no one speed fits both its "
    "utilisation and its flows. The paper's HMCT also failed 1 of its 3 experiments here")
_INFORMATION = (
    "explained: how soon MCT's agent takes a finished task off its recorded load. With the completion "
    "learnt only at the server's next load report, MCT's sumflow comes within 9 % of the paper's, HMCT's gain "
    "over it within 5 points and the shares of tasks sooner / later within 6 / 7 points at mu = 20 and 17 "
    "(HMCT, MP and MSF do not change); the default keeps §5's letter "
    "(the agent corrects its load when told a task finished). Independent 4 % noise per run, compared in cross "
    "product as the paper did, adds 7 points to the sooner and later shares at mu = 20 and at most 2 at "
    "mu = 17 and 15")

def _at(stat, *args, **fixed):
    """``(df, variant) -> value``: ``stat(df, *args, **config)`` at the configuration ``fixed``, which the
    variant's own settings override (a variant of ``mu`` replaces the row's ``mu``)."""
    return lambda d, c: stat(d, *args, **{**fixed, **c})


_A = {"scenario": "a", "platform": "dgemm"}
TS_DEVIATIONS = (
    ("(b) mu=15 HMCT vs MCT sumflow (%)", -30.9, _at(_hmct_vs_mct), B_VARIANTS, _CONGESTION),
    ("(b) mu=15 HMCT sumflow (s)", 47605.0, _at(_avg, "sumflow", heuristic="hmct", mu=15.0), B_VARIANTS, "as above"),
    ("(b) mu=15 MCT sumflow (s)", 68874.0, _at(_avg, "sumflow", heuristic="mct", mu=15.0), B_VARIANTS,
     "MCT is within the paper's seed-to-seed range (46,647-83,120)"),
    ("(b) mu=15 MCT makespan - last arrival (s)", 150.0, _at(_overhang), B_VARIANTS,
     "backlog when the arrivals stop (paper: makespan - 500 mu, +-50 s): ours is larger at mu = 15 (and "
     "within the paper's error at mu = 17 and 20): our fast servers are more loaded than the paper's"),
    ("(b) mu=20 HMCT vs MCT sumflow (%)", -20.7, _at(_hmct_vs_mct, mu=20.0), _MODEL_ONLY, _INFORMATION),
    ("(b) mu=17 HMCT vs MCT sumflow (%)", -26.4, _at(_hmct_vs_mct, mu=17.0), _MODEL_ONLY, "as above"),
    ("(b) mu=20 MCT sumflow (s)", 22105.0, _at(_avg, "sumflow", heuristic="mct", mu=20.0), _MODEL_ONLY, "as above"),
    ("(b) mu=17 MCT sumflow (s)", 35380.0, _at(_avg, "sumflow", heuristic="mct", mu=17.0), _MODEL_ONLY, "as above"),
    ("(b) mu=20 HMCT % sooner than MCT", 55.0, _at(_avg, "sooner_than_mct", heuristic="hmct", mu=20.0),
     _MODEL_ONLY, _INFORMATION),
    ("(b) mu=20 HMCT % later than MCT", 18.0, _at(_avg, "later_than_mct", heuristic="hmct", mu=20.0),
     _MODEL_ONLY, "as above"),
    ("(b) mu=17 HMCT % sooner than MCT", 69.0, _at(_avg, "sooner_than_mct", heuristic="hmct", mu=17.0),
     _MODEL_ONLY, "as above"),
    ("(b) mu=15 HMCT % sooner than MCT", 80.0, _at(_avg, "sooner_than_mct", heuristic="hmct"), B_VARIANTS,
     "needs both causes: the congestion of the first row and MCT's information"),
    ("(a) mu=15 MSF completed", 500.0, _at(_avg, "completed", heuristic="msf", **_A), A_VARIANTS,
     "capacity = physical memory (our default) makes MSF lose 1-2 % at a few peaks; with RAM + half the "
     "swap it completes all 500 while HMCT still loses tasks"),
    ("(a) mu=15 MP completed", 500.0, _at(_avg, "completed", heuristic="mp", **_A), A_VARIANTS,
     "MP spreads the tasks and never fills a server"),
    ("(a) mu=15 HMCT completed (best run)", 358.0, _at(_best, "completed", heuristic="hmct", **_A), A_VARIANTS,
     "a loss of this size needs a collapse: a server that ran out of memory stays closed and HMCT, without "
     "feedback, keeps sending tasks to it; refusals alone lose at most 12 tasks"),
    ("(a) mu=15 MCT completed (best run)", 495.0, _at(_best, "completed", heuristic="mct", **_A), A_VARIANTS,
     "MCT's retries save it unless its servers close"),
)
"""The deviations of our reproduction from seed 003 that the deviation table follows."""


def implied_speed_table(df: pandas.DataFrame | None = None) -> pandas.DataFrame:
    """How fast the paper's fast servers must have been (scenario b, platform 2), from its own tables.

    For each rate and heuristic: the tabulated computation (Table 5) of the tasks the MEAN block of
    Tables 10, 12, 14 puts on spinnaker and artimon, divided by the average makespan of Tables 16-18
    minus one gap (the first arrival): :func:`vcsched.problems.timeshare.implied_speed`. Above 1, the
    server computed faster than its table, since processor sharing never does more than one second of
    dedicated work per second. With ``df``, the same ratio of our default runs is set beside
    (``ours``, mean over seeds; at most 1 by construction).
    """
    import pandas as pd

    from vcsched.problems.timeshare import implied_speed, platform_for

    compute = platform_for("2").compute
    lines = []
    for mu, by_h in PAPER_TYPE_SHARES.items():
        for h, shares in by_h.items():
            makespan = PAPER[("b", "2", mu)][h][0]
            for s, name in enumerate(("spinnaker", "artimon")):
                work = 500.0 * sum(p / 100.0 * c for p, c in zip(shares[s], compute[s]))
                line = {"mu": mu, "heuristic": h, "server": name, "paper tabulated work (s)": work,
                        "paper makespan - mu (s)": makespan - mu,
                        "paper implied speed": implied_speed(work, makespan, mu)}
                if df is not None:
                    line["ours"] = _our_speed(df, mu, h, name, compute[s])
                lines.append(line)
    return pd.DataFrame(lines)


def _our_speed(df: pandas.DataFrame, mu: float, heuristic: str, server: str, costs: np.ndarray) -> float:
    """The implied speed of our default runs (tabulated work on ``server`` / (makespan - mu)), mean over seeds."""
    serv = df[(df["kind"] == "server") & (df["scenario"] == "b") & (df["platform"].astype(str) == "2")
              & (df["mu"] == mu) & (df["heuristic"] == heuristic) & (df["server"] == server)
              & (df["interarrival"] == "poisson") & (df["load_sensor"] == "count")]
    summ = _select(df, mu=mu, heuristic=heuristic)
    if "noise" in serv:
        serv = serv[serv["noise"].fillna(0.0) == 0.0]
    if serv.empty or summ.empty or "server_percent_type1" not in serv:
        return float("nan")
    serv = serv[~_is_variant(serv)]
    out = []
    for seed, row in serv.groupby("workload_seed"):
        span = summ[summ["workload_seed"] == seed]["makespan"]
        if span.empty:
            continue
        shares = [float(row[f"server_percent_type{k + 1}"].iloc[0]) for k in range(3)]
        work = 500.0 * sum(p / 100.0 * c for p, c in zip(shares, costs))
        out.append(work / (float(span.iloc[0]) - mu))
    return float(np.mean(out)) if out else float("nan")


def deviation_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per deviation: the paper's number, ours with the defaults, the closest variant (or ``default``), the cause.

    Values are means over the workload seeds of each configuration. The measured cause is given only
    where at least one of the row's variants ran (a run without them cannot have measured it).
    """
    import pandas as pd

    out = []
    for quantity, paper, fn, variants, cause in TS_DEVIATIONS:
        base = fn(df, {})
        values = {v: fn(df, c) for v, c in variants.items()}
        values = {v: x for v, x in values.items() if np.isfinite(x)}
        pool = dict(values, **({"default": base} if np.isfinite(base) else {}))
        best = min(pool, key=lambda v: (abs(pool[v] - paper), v != "default")) if pool else None
        out.append({"quantity": quantity, "paper": paper, "ours (defaults)": base, "closest variant": best or "-",
                    "ours (closest variant)": pool[best] if best else np.nan,
                    "variants tried": "; ".join(f"{v} {x:,.1f}" for v, x in values.items()) or "-",
                    "measured cause": cause if values else "-"})
    return pd.DataFrame(out)
