"""Exception hierarchy of the toolkit.

Bad input is an exception (:class:`InvalidInputError`, a ``ValueError``);
outcomes of an algorithm (infeasible model, heuristic failure, time limit) are
never exceptions: they are a :class:`vcsched.result.Status` in the result.
"""

__all__ = ["VcschedError", "InvalidInputError", "SolverUnavailableError", "UnknownNameError", "InternalError",
           "Terminated"]


class VcschedError(Exception):
    """Base class of every error raised by the toolkit."""


class InvalidInputError(VcschedError, ValueError):
    """An instance, file or argument is malformed.

    The message says what was wrong, where (file, job index, field) and how
    to fix it, on one line, so the command line can print it as it is.
    """


class UnknownNameError(InvalidInputError, KeyError):
    """A name (method, heuristic, experiment) is not in a registry."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class SolverUnavailableError(VcschedError, RuntimeError):
    """The LP/MILP backend (HiGHS through PuLP) cannot be used."""


class InternalError(VcschedError, RuntimeError):
    """The toolkit contradicted itself (a bug, here or in a backend), e.g. a result claimed
    ``optimal`` with its objective far from its proven bound. Never a user's mistake: the
    message says what was inconsistent so that it can be reported."""


class Terminated(KeyboardInterrupt):
    """SIGTERM received (``kill PID``): raised by the command line's signal handler.

    A ``KeyboardInterrupt``, so that every clean-up written for Ctrl-C (stopping
    workers, removing temporary files, stopping a solver) runs for it too; the
    command line tells the two apart only for the exit status (143, not 130).
    """
