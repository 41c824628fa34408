"""Reproduced experiments, one module each, discovered by :func:`benchmarks.harness.discover`.

A module here defines a module-level ``EXPERIMENT``, a
:class:`benchmarks.harness.Experiment`, registered by its ``name``
(module ``vc_small.py`` -> ``vc-small``)::

    from benchmarks.harness import Experiment

    def cells(quick: bool) -> list[dict]:           # the parameter grid (JSON scalars)
        ...
    def run_cell(params: dict, seed: int) -> list[dict]:   # module-level: it is pickled to workers
        ...
    def report(df, out_dir) -> str:                 # tables (benchmarks.tables) and PNGs (benchmarks.figures)
        ...

    EXPERIMENT = Experiment("vc-small", "one line for `vcsched bench list`", cells, run_cell, report)

Run it with ``vcsched bench run vc-small [--quick]``. Modules whose name starts
with ``_`` are not experiments.
"""
