"""Start-up of a command that reads a whole trace: one OpenBLAS thread and its modules out of the garbage
collector's reach (both measured on a whole-trace FCFS run, see docs/batch.md "From file to jobs.csv")."""

from __future__ import annotations

import contextlib
import sys

__all__ = ["one_blas_thread", "modules_loaded"]


def one_blas_thread() -> None:
    """For a command that does no linear algebra, called before numpy is first imported: OpenBLAS starts one
    thread (``OPENBLAS_NUM_THREADS=1``, unless the environment sets it).

    numpy's OpenBLAS otherwise starts a thread per core at import, which spins waiting for work that never
    comes: about 20 ms of CPU in every process (measured on 2 cores), about 5 % of a whole-trace FCFS run."""
    if "numpy" not in sys.modules:
        import os

        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@contextlib.contextmanager
def modules_loaded():
    """``with modules_loaded(): import ...``: a command's modules imported with the cyclic garbage collector
    off, then moved out of its reach (``gc.freeze``) until the command ends (:func:`vcsched.cli.main` calls
    ``gc.unfreeze``).

    Imports make objects that live until exit (numpy's alone about a hundred thousand); as their number
    grows, the collector walks all of them again and again. Measured on a whole-trace FCFS run: 12 to
    16 ms of CPU, 3 to 4 % of the command."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
