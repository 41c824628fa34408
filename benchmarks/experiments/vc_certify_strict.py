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

from benchmarks.experiments.vc_certify import certify_experiment

__all__ = ["EXPERIMENT", "STRICT_GAP"]

STRICT_GAP = 1e-4
"""The gap certify runs to: its ``optimal`` status (HiGHS's MIP tolerance)."""

EXPERIMENT = certify_experiment(
    "vc-certify-strict",
    "certify to a proven 1e-4 gap on replicate 0 of the large set's 108 specs: fraction proven optimal",
    "large", "large set, replicate 0, stop at gap 1e-4", reps=1, stop_gap=STRICT_GAP)
