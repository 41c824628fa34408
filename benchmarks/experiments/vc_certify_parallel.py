"""``vc-certify-parallel``: ``certify`` on parallel jobs (seed 001 §5.1-5.2, the vc-parallel instances).

The same measurement as :mod:`benchmarks.experiments.vc_certify` on the
stratified tenth of the ``parallel`` set (Lublin-Feitelson task counts,
1-64 tasks per job; 108 specs x replicates 0-9, root seed 0 as
``vc-parallel``): fraction closed, remaining gaps per slack and job count,
MCB8's % below the certified bound vs below the LP. Tasks of a job are
identical items of the packing bounds (demand ``T_i``) and may share a
host (§5.1). Quick: four instances, 10 s each.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

from benchmarks.experiments.vc_certify import make_cells, run_cell, summarize
from benchmarks.harness import Experiment

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "report"]


def cells(quick: bool) -> list[dict]:
    """Full: 108 specs x replicates 0-9 of the parallel set. Quick: 4 instances."""
    return make_cells("parallel", quick)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    return summarize(df, out_dir, "parallel jobs")


EXPERIMENT = Experiment(
    name="vc-certify-parallel",
    description="certify on parallel jobs (vc-parallel instances, stratified tenth): fraction closed, remaining gaps",
    cells=cells,
    run_cell=run_cell,
    report=report,
)
