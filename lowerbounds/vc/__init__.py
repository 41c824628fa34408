"""Bounds on the VCSched minimum yield (seed 001 §3.1) and ``certify``, which closes the gap to a proven optimum.

Modules, bottom up: :mod:`~lowerbounds.vc.relaxation` (closed form, LP relaxation),
:mod:`~lowerbounds.vc.knapsack`, :mod:`~lowerbounds.vc.packing` (packing bounds, configuration LP),
:mod:`~lowerbounds.vc.dive`, :mod:`~lowerbounds.vc.integer_master`, :mod:`~lowerbounds.vc.options`,
:mod:`~lowerbounds.vc.certification_run` and :mod:`~lowerbounds.vc.certification`.

``certify`` and its options load on first use (PEP 562): a small ``vcsched vc solve`` that needs only the
LP relaxation does not import the packing machinery (numba).
"""

from lowerbounds.vc.relaxation import LPRelaxation, closed_form_bound, lp_relaxation

__all__ = ["closed_form_bound", "lp_relaxation", "LPRelaxation", "certify", "CertifyOptions", "DEFAULT_GAP_TOL"]


_LAZY = {"certify": "lowerbounds.vc.certification", "CertifyOptions": "lowerbounds.vc.options",
         "DEFAULT_GAP_TOL": "lowerbounds.vc.options"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'lowerbounds.vc' has no attribute {name!r}")
