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

from benchmarks.experiments.vc_certify import certify_experiment

__all__ = ["EXPERIMENT"]

EXPERIMENT = certify_experiment(
    "vc-certify-parallel",
    "certify on parallel jobs (vc-parallel instances, stratified tenth): fraction closed, remaining gaps",
    "parallel", "parallel jobs")
