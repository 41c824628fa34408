"""``vc-certify-strict-wide``: ``vc-certify-strict`` on replicates 0-5 of the large set's 108 specs.

The same certify run to a proven 1e-4 gap within 60 s, rows and report as
:mod:`benchmarks.experiments.vc_certify_strict`, on six instances of every
specification (648, the first six slices of ``vc-certify``'s instances):
a 6 % stratified sample of the large set, so that the fraction proven
optimal is measured on more than one instance per specification. Quick:
four instances, 10 s each.
"""

from __future__ import annotations

from benchmarks.experiments.vc_certify import certify_experiment
from benchmarks.experiments.vc_certify_strict import STRICT_GAP

__all__ = ["EXPERIMENT", "REPLICATES"]

REPLICATES = 6

EXPERIMENT = certify_experiment(
    "vc-certify-strict-wide",
    "certify to a proven 1e-4 gap on replicates 0-5 of the large set's 108 specs (648): fraction proven optimal",
    "large", "large set, replicates 0-5, stop at gap 1e-4", reps=REPLICATES, stop_gap=STRICT_GAP)
