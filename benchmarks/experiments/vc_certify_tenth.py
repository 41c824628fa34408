"""``vc-certify-tenth``: ``vc-certify`` on the large set's stratified tenth.

Every one of the large set's 108 specifications with replicates 0-9 (1,080
instances): the first 1,080 cells of :mod:`benchmarks.experiments.vc_certify`,
same rows and report, for a run of about half an hour on two workers.
Quick: the same four instances as ``vc-certify --quick``.
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
    """Full: 108 specs x replicates 0-9 of the large set. Quick: 4 instances."""
    return make_cells("large", quick)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    return summarize(df, out_dir, "large set, stratified tenth")


EXPERIMENT = Experiment(
    name="vc-certify-tenth",
    description="vc-certify on the large set's stratified tenth (1,080 instances, replicates 0-9)",
    cells=cells,
    run_cell=run_cell,
    report=report,
)
