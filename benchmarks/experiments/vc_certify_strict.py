"""``vc-certify-strict``: how often ``certify`` *proves* optimality (gap <= 1e-4) on the large set.

``vc-certify`` stops at a certified gap of 0.1 % (the acceptance
threshold), so its ``optimal`` count is a lower bound. Here certify runs
to a proven relative gap of 1e-4 (its ``optimal`` status; HiGHS's MIP
tolerance) within 60 s, on replicate 0 of each of the large set's 108
specifications (the first slice of ``vc-certify``'s instances). Same rows
and report as :mod:`benchmarks.experiments.vc_certify`. Quick: four
instances, 10 s each.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

from benchmarks.experiments.vc_certify import make_cells, run_cell, summarize
from benchmarks.harness import Experiment

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "report", "STRICT_GAP"]

STRICT_GAP = 1e-4


def cells(quick: bool) -> list[dict]:
    """Full: replicate 0 of the 108 large-set specs. Quick: 4 instances."""
    return make_cells("large", quick, reps=1, stop_gap=STRICT_GAP)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    return summarize(df, out_dir, "large set, replicate 0, stop at gap 1e-4")


EXPERIMENT = Experiment(
    name="vc-certify-strict",
    description="certify to a proven 1e-4 gap on replicate 0 of the large set's 108 specs: fraction proven optimal",
    cells=cells,
    run_cell=run_cell,
    report=report,
)
