"""The ``vcsched`` command: the composition root of the toolkit.

Each command group lives in its own module of this package (``vc``, ``bench``,
``moldable``, ``grid``, ``timeshare``, ``diet``) exposing
``register(subparsers)``. Group modules import the role packages
(``heuristics``, ``lowerbounds``, ``benchmarks``) lazily, inside the command
that needs them; nothing in the core imports this package.

Exit codes: 0 success (also when a solver reports ``infeasible`` or a
heuristic ``failed``: those are results), 2 bad input or usage, 1 an
unexpected internal error (or memory exhausted), 130 interrupted (SIGINT,
Ctrl-C), 143 terminated (SIGTERM, ``kill PID``), 141 the
reader of standard output went away (``vcsched ... --json | head -1``: the
output is cut short on purpose, so nothing is printed, as for a process ended
by SIGPIPE).

Every handler runs under :func:`main`, which handles these cases once for all
command groups. Both signals raise an exception in the main thread (SIGTERM
:class:`~vcsched.errors.Terminated`, a ``KeyboardInterrupt``), so clean-up
code runs, partial output files are removed, and a HiGHS solve in progress is
stopped through its interrupt callback
(:func:`vcsched.formulations.solve.run_interruptibly`): the command ends
within about a second with one line on standard error. ``RuntimeWarning`` s (numpy on degenerate arithmetic) are not
printed unless Python's warning options ask for them (``-W`` or
``PYTHONWARNINGS``).

Start-up: this package and the group modules import only the standard library
and the core's light modules at import time; numpy, pandas, PuLP, numba,
matplotlib and dask are imported inside the command that needs them, so
``vcsched --help`` starts without them (tested in ``tests/cli``). :func:`main` builds the parser
of the group named first only (:func:`groups_for`), and unfreezes at the end of a command what
the command froze (:func:`vcsched.cli.startup.modules_loaded`).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Sequence

from vcsched.errors import InvalidInputError, Terminated, VcschedError

__all__ = ["main", "build_parser", "groups_for", "GROUPS"]

GROUPS = ("vc", "bench", "moldable", "grid", "timeshare", "diet", "dfrs")


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line (exit status 2), naming the
    command and the option: ``vcsched vc generate: error: argument --jobs: expected ...``.
    Subcommand parsers inherit the class."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(groups: Sequence[str] = GROUPS) -> argparse.ArgumentParser:
    """The parser of the ``vcsched`` command with the command groups ``groups`` (default: all).

    :func:`main` builds only the group named by the first argument when there is one
    (:func:`groups_for`): a group's parser, its help and its errors do not depend on the
    other groups, and building them all costs a few tens of milliseconds at every start."""
    parser = OneLineParser(
        prog="vcsched",
        description="Scheduling research toolkit: exact optima, bounds, heuristics and simulators.",
    )
    from vcsched import __version__

    parser.add_argument("--version", action="version", version=f"vcsched {__version__}")
    sub = parser.add_subparsers(dest="group", metavar="COMMAND")
    sub.required = True
    for name in groups:
        importlib.import_module(f"vcsched.cli.{name}").register(sub)
    return parser


def groups_for(argv: Sequence[str]) -> Sequence[str]:
    """The command groups the parser of ``argv`` needs: the group named by the first argument, else all
    (``vcsched --help``, ``--version``, a misspelt group: the top-level text lists every group)."""
    return (argv[0],) if argv and argv[0] in GROUPS else GROUPS


def _silence_stdout() -> None:
    """After a broken pipe, point standard output at /dev/null so that the interpreter's
    final flush does not raise a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout replaced (tests) or already closed
        pass


def _terminate(signum, frame):  # pragma: no cover - exercised by a signal in a subprocess test
    raise Terminated


@contextlib.contextmanager
def _sigterm_raises():
    """While a command runs in the main thread, SIGTERM raises :class:`Terminated`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _guarded_stdout():
    """Install :class:`~vcsched.cli.common.GuardedStdout` for the command. When the process
    started with standard output closed, descriptor 1 is held on /dev/null first, so that no
    file opened later becomes descriptor 1 (and receives a solver's C-level output)."""
    from vcsched.cli.common import GuardedStdout

    if sys.stdout is None:
        try:
            os.fstat(1)
        except OSError:
            with contextlib.suppress(OSError):
                fd = os.open(os.devnull, os.O_WRONLY)
                if fd != 1:
                    os.dup2(fd, 1)
                    os.close(fd)
    saved = sys.stdout
    sys.stdout = GuardedStdout(saved)
    try:
        yield
    finally:
        sys.stdout = saved


def one_line(text: object) -> str:
    """``text`` on one line: a line break (a file name may hold one) is shown as ``\\n``, and a
    character standard error cannot encode (an undecodable byte of a file name) as ``?``."""
    line = str(text).replace("\r", "\\r").replace("\n", "\\n")
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    return line.encode(encoding, errors="replace").decode(encoding, errors="replace")


def _error(text: object) -> None:
    print(f"vcsched: error: {one_line(text)}", file=sys.stderr)


class _NoteFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"vcsched: note: {one_line(record.getMessage())}"


@contextlib.contextmanager
def _notes_prefixed():
    """While a command runs, the toolkit's log warnings (``vcsched.*`` loggers, e.g. the SWF reader's
    skipped lines) reach standard error as ``vcsched: note: ...`` lines, one line each."""
    logger = logging.getLogger("vcsched")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_NoteFormatter())
    logger.addHandler(handler)
    previous = logger.propagate
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = previous


def _stdout_failed(exc: Exception) -> int:
    _silence_stdout()  # the interpreter's final flush must not fail a second time
    _error(exc)
    return 2


def _on_disk() -> str:
    """What an interrupt leaves on disk: the outputs already written completely."""
    from vcsched.cli.common import WRITTEN

    return f"; complete output(s) already written: {one_line(', '.join(WRITTEN))}" if WRITTEN else ""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command of ``argv`` (default: the program's arguments); returns the exit status.

    A SIGINT or SIGTERM that lands after the command's own handling (while its last line is
    printed) still gives 130 or 143; called as the program (``argv`` None, in the main thread),
    signals are then ignored, so the status returned is the process's (not a death by SIGINT)."""
    from vcsched.cli.common import WRITTEN

    WRITTEN.clear()
    try:
        code = _main(argv)
    except KeyboardInterrupt as exc:
        code = 143 if isinstance(exc, Terminated) else 130
    if argv is None and threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN)
    return code


def _main(argv: Sequence[str] | None) -> int:
    from vcsched.cli.common import StdoutUnwritable

    with _guarded_stdout():
        given = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser(groups_for(given))
        try:
            args = parser.parse_args(given)
        except StdoutUnwritable as err:  # a long --help text flushed while written
            return _stdout_failed(err)
        except SystemExit as exc:  # --help, --version (0) or a usage error (2): the text must reach stdout
            try:
                sys.stdout.flush()
            except StdoutUnwritable as err:
                return _stdout_failed(err)
            except BrokenPipeError:
                _silence_stdout()
                return 141
            raise exc from None
        args.argv = given  # which options were written (check_options_apply)
        with _sigterm_raises(), _notes_prefixed():
            return _run(args)


def _run(args: argparse.Namespace) -> int:
    from vcsched.cli.common import StdoutUnwritable

    try:
        with warnings.catch_warnings():
            if not sys.warnoptions:
                warnings.simplefilter("ignore", RuntimeWarning)
            try:
                code = args.handler(args)
            finally:
                gc.unfreeze()  # what the command froze (startup.modules_loaded) is collectable again
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except StdoutUnwritable as exc:
        return _stdout_failed(exc)
    except InvalidInputError as exc:
        _error(exc)
        return 2
    except VcschedError as exc:
        _error(exc)
        return 1
    except MemoryError:
        print("vcsched: error: out of memory; try a smaller instance or option values", file=sys.stderr)
        return 1
    except Terminated:
        print(f"vcsched: terminated{_on_disk()}", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(f"vcsched: interrupted{_on_disk()}", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
