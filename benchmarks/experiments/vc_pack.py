"""``vc-pack``: certified optima of vector bin packing, and the heuristics' excess over them.

Instances: the ``.vbp`` files of a folder, by default the set shipped in
``benchmarks/data/vbp`` (:func:`vcsched.generators.vbp.shipped_set`: classes
uniform, correlated, anti-correlated and perfect triplets; d = 3, 5, 10;
30, 60 and 120 items); the environment variable ``VCSCHED_VBP`` names
another folder. The class of a file is its name up to the first ``_``.
Quick: the files of 30 items only, 10 s each.

One cell = one file: every heuristic of :data:`heuristics.vector.methods.HEURISTICS`, META (``heuristics``)
and ``certify`` (:func:`heuristics.vector.methods.pack`, :data:`TIME_LIMIT`
seconds, wall clock), one row each with ``lower``, ``upper``, ``status``,
``seconds``.

Report (per class): instances, how many certify proved optimal
(``lower == upper``), the mean relative gap ``(upper - lower) / lower`` of
certify, its mean and largest time; then per heuristic and class, the mean
excess ``100 (bins - optimum) / optimum`` over the instances proven optimal
and how many of them it solved to the optimum.
"""

from __future__ import annotations

import os
import pathlib
from typing import TYPE_CHECKING

from benchmarks.harness import Experiment
from benchmarks.tables import save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "TIME_LIMIT", "DEFAULT_FOLDER"]

TIME_LIMIT = 60.0
QUICK_TIME_LIMIT = 10.0
DEFAULT_FOLDER = pathlib.Path(__file__).resolve().parents[1] / "data" / "vbp"
FOLDER_ENV = "VCSCHED_VBP"


def cells(quick: bool) -> list[dict]:
    """One cell per ``.vbp`` file of the folder (quick: those named ``*_n30.vbp``)."""
    from vcsched.errors import InvalidInputError

    folder = pathlib.Path(os.environ.get(FOLDER_ENV) or DEFAULT_FOLDER)
    files = sorted(folder.glob("*_n30.vbp" if quick else "*.vbp"))
    if not files:
        raise InvalidInputError(f"vc-pack: no .vbp file in {folder}; set {FOLDER_ENV} to a folder of .vbp files")
    return [{"file": str(f), "time_limit": QUICK_TIME_LIMIT if quick else TIME_LIMIT} for f in files]


def run_cell(params: dict, seed: int) -> list[dict]:
    """Every heuristic and certify on one file (``seed`` unused: every method is deterministic)."""
    from heuristics.vector.methods import HEURISTICS, pack
    from vcsched.problems.vbp import read_vbp

    inst = read_vbp(params["file"])
    name = pathlib.Path(params["file"]).name
    base = {"instance": name, "class": name.split("_")[0], "d": inst.d, "items": inst.n_items}
    rows = []
    for method in ["certify", "heuristics", *HEURISTICS.names()]:
        r = pack(inst, method, time_limit=params["time_limit"])
        rows.append({**base, "method": method, "lower": r["lower"], "upper": r["upper"], "status": r["status"],
                     "seconds": r["seconds"], "lower_method": r["lower_method"], "upper_method": r["upper_method"]})
    return rows


def class_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per class: instances, proven optimal, mean gap (%), mean and largest certify time."""
    import pandas as pd

    cert = df[df["method"] == "certify"].copy()
    cert["gap_pct"] = 100.0 * (cert["upper"] - cert["lower"]) / cert["lower"]
    out = []
    for cls, sub in list(cert.groupby("class")) + [("all", cert)]:
        out.append({"class": cls, "instances": len(sub), "optimal": int((sub["status"] == "optimal").sum()),
                    "mean_gap_pct": float(sub["gap_pct"].mean()), "mean_seconds": float(sub["seconds"].mean()),
                    "max_seconds": float(sub["seconds"].max())})
    return pd.DataFrame(out)


def heuristic_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per heuristic and class, over the instances certify proved optimal: mean excess (%) and hits."""
    import pandas as pd

    cert = df[(df["method"] == "certify") & (df["status"] == "optimal")].set_index("instance")["upper"]
    heur = df[(df["method"] != "certify") & df["instance"].isin(cert.index)].copy()
    heur["excess_pct"] = 100.0 * (heur["upper"] - heur["instance"].map(cert)) / heur["instance"].map(cert)
    heur["hit"] = heur["excess_pct"] <= 0
    wide = heur.pivot_table(index="method", columns="class", values="excess_pct", aggfunc="mean")
    wide["all"] = heur.groupby("method")["excess_pct"].mean()
    wide["hits"] = heur.groupby("method")["hit"].sum().astype(int)
    wide = wide.reset_index().sort_values("all", kind="stable")
    return pd.DataFrame(wide)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Both tables (CSV + Markdown) and their text."""
    if df.empty or "method" not in df:
        return "vc-pack: no rows (every cell failed?)"
    ok = df[df["cell_status"] == "ok"] if "cell_status" in df else df
    classes = class_table(ok)
    heur = heuristic_table(ok)
    save_table(classes, out_dir, "classes", title="vc-pack: certify per class (gap: (upper - lower) / lower)")
    save_table(heur, out_dir, "heuristics", title="vc-pack: heuristics' mean excess over the proven optimum (%)")
    return ("vc-pack: certify per class\n" + text_table(classes) + "\n\nheuristics: mean % above the proven optimum "
            "(instances certify closed), hits = optimum reached\n" + text_table(heur, digits=2))


EXPERIMENT = Experiment("vc-pack", "vector bin packing: certified optima of a .vbp folder (default: the shipped set) "
                        "and each heuristic's excess over them", cells, run_cell, report)
