"""Reproduced experiments and the harness that runs them.

* :mod:`benchmarks.harness`: the :class:`~benchmarks.harness.Experiment` type,
  discovery of ``benchmarks/experiments/*.py``, the resumable runner (local
  process pool or Dask) and the Parquet result store.
* :mod:`benchmarks.tables`, :mod:`benchmarks.figures`: report helpers (CSV +
  Markdown tables, PNG line plots with reference lines).
* :mod:`benchmarks.experiments`: one module per experiment.

Nothing imports this package except the ``vcsched bench`` command.
"""
