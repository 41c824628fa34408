"""The limits of a moldable instance (:mod:`vcsched.problems.moldable`), read by the JSON and ``.npz`` readers
alike (:mod:`vcsched.problems.moldable_npz`)."""

from __future__ import annotations

from vcsched.errors import InvalidInputError

__all__ = ["MAX_PROCESSORS", "MAX_TIME_ENTRIES", "MAX_GENERATED_TASKS", "MIN_VALUE", "MAX_VALUE", "check_size"]

MAX_PROCESSORS = 100_000
"""Most processors ``m`` in an instance."""

MAX_TIME_ENTRIES = 20_000_000
"""Largest ``n x m`` (entries of the times table, 160 MB as float64, e.g. 10,000 tasks on 2,000
processors; the JSON text of such an instance is about 405 MB, under the 512 MiB file limit, and
takes seconds and gigabytes of Python objects to read: use the ``.npz`` form at that size). Checked
before the table is allocated."""

MAX_GENERATED_TASKS = 100_000
"""Most tasks of a generated instance (:func:`vcsched.generators.moldable.generate_moldable_instance`,
``moldable generate``; its processors: at most :data:`MAX_PROCESSORS`, and ``n x m`` at most
:data:`MAX_TIME_ENTRIES`)."""

MIN_VALUE = 1e-9
MAX_VALUE = 1e12
"""Times and weights must lie in ``[1e-9, 1e12]``: ``k p_i(k)``, ``sum w_i C_i`` and the dual
approximation's bisection stay finite and well-conditioned (a time of ``1e308`` overflows the
work ``k p_i(k)``; ``1e-320`` is a subnormal float that breaks every ratio)."""


def check_size(m: int, n: int, *, where: str = "instance") -> None:
    """Refuse ``m`` processors and ``n`` tasks beyond :data:`MAX_PROCESSORS` and :data:`MAX_TIME_ENTRIES`."""
    if m > MAX_PROCESSORS:
        raise InvalidInputError(f"{where}: {m:,} processors is more than the limit of {MAX_PROCESSORS:,}")
    if n * m > MAX_TIME_ENTRIES:
        raise InvalidInputError(f"{where}: {n:,} tasks x {m:,} processors = {n * m:,} processing times, more than the "
                                f"limit of {MAX_TIME_ENTRIES:,}")
