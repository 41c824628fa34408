"""``vc-certify-tenth``: ``vc-certify`` on the large set's stratified tenth.

Every one of the large set's 108 specifications with replicates 0-9 (1,080
instances): the first 1,080 cells of :mod:`benchmarks.experiments.vc_certify`,
same rows and report, for a run of about half an hour on two workers.
Quick: the same four instances as ``vc-certify --quick``.
"""

from __future__ import annotations

from benchmarks.experiments.vc_certify import certify_experiment

__all__ = ["EXPERIMENT"]

EXPERIMENT = certify_experiment(
    "vc-certify-tenth", "vc-certify on the large set's stratified tenth (1,080 instances, replicates 0-9)",
    "large", "large set, stratified tenth")
