"""Helpers shared by the command groups: JSON output, number parsing, tables.

This module imports only the standard library (numpy is looked up in
``sys.modules`` when converting values: if numpy was never imported, no value
can be a numpy one), so that ``vcsched --help`` starts fast.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable
from typing import Any

from vcsched.arguments import SEED_MAX
from vcsched.errors import InvalidInputError
from vcsched.files import FIGURE_FORMATS

__all__ = ["print_json", "jsonable", "positive_float", "nonneg_float", "positive_int", "nonneg_int", "print_table",
           "progress_bar", "number_option", "check_output_path", "save_output", "FIGURE_FORMATS", "TABLE_FORMATS",
           "seed_option", "write_output", "write_stdout", "write_text", "option_given",
           "SEED_MAX", "GuardedStdout", "StdoutUnwritable", "add_set_options", "wants_instance_set",
           "run_instance_set", "short_message", "status_line", "duration_text", "remember_defaults",
           "check_options_apply", "check_single_file_options", "check_path_text", "add_solve_tail", "draw_figure",
           "add_family", "add_time_window"]


def jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays and non-finite floats to plain JSON values."""
    np = sys.modules.get("numpy")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if np is not None and isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if np is not None and isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float) or (np is not None and isinstance(value, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else None
    if hasattr(value, "value") and isinstance(value.value, str):
        return value.value  # enums
    return value


def print_json(obj: Any) -> None:
    write_stdout(json.dumps(jsonable(obj), indent=1) + "\n")


def _number(kind: type, check, what: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if isinstance(value, float) and math.isnan(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got NaN")
        if not check(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


positive_float = _number(float, lambda v: v > 0 and math.isfinite(v), "a positive number")
nonneg_float = _number(float, lambda v: v >= 0, "a number >= 0")
positive_int = _number(int, lambda v: v >= 1, "an integer >= 1")
nonneg_int = _number(int, lambda v: v >= 0, "an integer >= 0")


def number_option(kind: type = float, *, low: float | None = None, high: float | None = None,
                  low_open: bool = False, high_open: bool = False):
    """An argparse ``type=`` for a finite number in a documented range.

    ``number_option(float, low=0, low_open=True, high=1e6)`` accepts ``(0, 1e6]``;
    NaN, infinities and values outside the range are refused with a message
    that states the range. With ``kind=int``, ``3`` and ``3.0`` are accepted,
    ``2.5`` is not; a string of digits is read exactly (a 20-digit seed keeps
    every digit), other integers through ``float``.

    >>> number_option(int, low=1, high=10)("3")
    3
    >>> number_option(float, low=0, low_open=True)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number > 0, got '0'
    """
    def shown(x):  # an integer bound in full (a seed's 2^63 - 1), a float one short
        return str(int(x)) if kind is int else f"{x:g}"

    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {shown(low)}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {shown(high)}")
    noun = "an integer" if kind is int else "a number"
    what = f"{noun} {' and '.join(parts)}" if parts else f"a finite {noun[2:] if kind is int else 'number'}"

    def parse(text: str):
        try:
            x: float | int = int(text.strip()) if kind is int and text.strip().lstrip("+-").isdigit() else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if isinstance(x, float) and (not math.isfinite(x) or (kind is int and not x.is_integer())):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        if (low is not None and (x <= low if low_open else x < low)) or \
                (high is not None and (x >= high if high_open else x > high)):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return int(x) if kind is int else x

    parse.__name__ = what  # argparse names the type in its messages
    return parse


TABLE_FORMATS = (".parquet", ".csv")
"""The table formats of ``-o`` over an instance set."""


def _is_device(path: str) -> bool:
    """An existing path that is neither a regular file nor a folder (``/dev/stdout``, a FIFO)."""
    import os

    return os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)


def check_path_text(path: str, *, option: str) -> None:
    """Refuse a path whose name is not UTF-8 text (``--out $'o\\xff'``): the table writers
    (pyarrow) and the JSON reports cannot name it."""
    import os

    try:
        os.fsencode(path).decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{option} {path!r}: the name is not UTF-8 text; choose another name") from None


def check_output_path(path: str, *, option: str, inputs: Iterable[str] = (), formats: Iterable[str] | None = None,
                      devices: bool = True, others: Iterable[tuple[str, str | None]] = ()) -> None:
    """The one check of every output path (table, figure, schedule, converted workload), made
    before any work is done.

    Refused, with one line naming ``option``: an empty name; a suffix not in ``formats`` (when
    given; the format is chosen from it, so ``/dev/full`` as a figure is refused rather than
    written to ``/dev/full.png``); an existing path that is not a regular file (a device such as
    ``/dev/stdout``) unless ``devices``; a folder; a missing or read-only parent folder; one of
    the run's ``inputs`` (same file, through any link); the path of another output of the same
    run (``others``: ``(option, path)`` pairs). The file itself is written with
    :func:`save_output` (atomically, to exactly this path).
    """
    import os

    check_path_text(path, option=option)
    if not path:
        raise InvalidInputError(f"{option}: empty file name; give a file name")
    if os.path.isdir(path):
        raise InvalidInputError(f"{option} {path}: is a directory; give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InvalidInputError(f"{option} {path}: folder {parent} does not exist; create it first")
    for source in inputs:
        if source and os.path.exists(source) and os.path.exists(path) and os.path.samefile(source, path):
            raise InvalidInputError(f"{option} {path}: is the input file {source}; writing would overwrite it")
    for other_option, other in others:
        if other and os.path.abspath(other) == os.path.abspath(path):
            raise InvalidInputError(f"{option} {path}: is also the {other_option} output; give each output its own file")
    device = _is_device(path)
    if device and not devices:
        ending = f" ending in {', '.join(formats)}" if formats else ""
        raise InvalidInputError(f"{option} {path}: not a regular file; give a file name{ending}")
    if formats is not None and not device and not path.lower().endswith(tuple(formats)):
        formats = tuple(formats)
        suffix = os.path.splitext(path)[1]
        kind = "figure" if formats == FIGURE_FORMATS else "output"
        found = f"unknown {kind} format {suffix!r}" if suffix else "no suffix"
        names = ", ".join(formats[:-1]) + " or " + formats[-1] if len(formats) > 1 else formats[0]
        raise InvalidInputError(f"{option} {path}: {found}; name the format by the suffix: {names}")
    if not device and (not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK))):
        raise InvalidInputError(f"{option} {path}: not writable")


WRITTEN: list[str] = []
"""The outputs :func:`save_output` has written completely during this command: an interrupt that
lands afterwards says they are on disk (:func:`vcsched.cli.main`)."""


def save_output(path: str, write, *, option: str, keep_suffix: bool = False) -> None:
    """Write an output checked by :func:`check_output_path` with :func:`vcsched.files.atomic_write`
    (``write(tmp)`` writes the file; ``keep_suffix`` for writers that choose the format by the
    suffix): exactly ``path`` is written, nothing partial is left after a failure, and a failure
    (full disk, ``/dev/full``, permissions) is one :class:`InvalidInputError` line naming ``option``."""
    from vcsched.files import atomic_write

    try:
        atomic_write(path, write, keep_suffix=keep_suffix)
        WRITTEN.append(path)
    except OSError as exc:
        raise InvalidInputError(f"{option} {path}: cannot write ({exc.strerror or exc}); choose a writable path "
                                "(nothing was written)") from None
    except InvalidInputError as exc:
        if str(exc).startswith(f"{option} "):
            raise
        raise InvalidInputError(f"{option} {path}: {exc}") from None




def seed_option():
    """The ``type=`` of every ``--seed``: an integer in ``[0, 2^63 - 1]``."""
    return number_option(int, low=0, high=SEED_MAX)


class StdoutUnwritable(InvalidInputError):
    """Standard output cannot be written: closed (``>&-``), a full disk or ``/dev/full``."""


class GuardedStdout:
    """``sys.stdout`` while a command runs (:func:`vcsched.cli.main` installs it).

    * A write or flush that fails (``OSError`` other than a broken pipe, a closed
      stream, no stream at all when the process started with standard output closed)
      raises :class:`StdoutUnwritable`: one line, exit status 2, as a failed ``-o`` write.
      ``BrokenPipeError`` passes unchanged (exit 141, nothing printed).
    * Text the stream's encoding cannot hold (an ASCII locale, ``PYTHONIOENCODING=ascii``)
      is written with ``?`` in place of each such character (tables keep their columns;
      JSON output is ASCII already).

    Everything else is the wrapped stream's (``fileno``, ``isatty``, ``encoding``).
    """

    def __init__(self, stream) -> None:
        self._stream = stream

    def _fail(self, reason: str) -> StdoutUnwritable:
        return StdoutUnwritable(f"cannot write to standard output ({reason}); redirect it to a writable file")

    def _call(self, name: str, *args):
        if self._stream is None:
            raise self._fail("it is closed")
        try:
            return getattr(self._stream, name)(*args)
        except (BrokenPipeError, UnicodeEncodeError):
            raise
        except OSError as exc:
            raise self._fail(exc.strerror or str(exc)) from None
        except ValueError as exc:  # I/O operation on closed file
            raise self._fail(str(exc)) from None

    def write(self, text: str) -> int:
        try:
            return self._call("write", text)
        except UnicodeEncodeError:
            encoding = getattr(self._stream, "encoding", None) or "ascii"
            return self._call("write", text.encode(encoding, errors="replace").decode(encoding))

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._stream is not None:  # closed from the start: nothing was written, nothing to flush
            self._call("flush")

    def __getattr__(self, name: str):
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def write_stdout(text: str, chunk: int = 1 << 16) -> None:
    """Write ``text`` to standard output in pieces of ``chunk`` characters.

    One large ``write`` that the reader cuts short (``| head -1``) is reported by Python's
    buffered writer as a short write, not as an error, so the loss would go unnoticed;
    piece by piece, the closed pipe raises ``BrokenPipeError``, which :func:`vcsched.cli.main`
    handles (exit status 141, nothing printed)."""
    for start in range(0, len(text), chunk):
        sys.stdout.write(text[start:start + chunk])


def write_output(path: str, text: str, *, option: str) -> None:
    """Write ``text`` to ``path`` with :func:`save_output` (UTF-8)."""
    save_output(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), option=option)


def write_text(path: str | None, text: str) -> None:
    """``text`` to ``path`` (``-o``, :func:`write_output`) when one is given, else to standard output."""
    if path:
        write_output(path, text, option="-o")
    else:
        write_stdout(text)


def print_table(rows: Iterable[dict], columns: list[str], floatfmt: str = "{:.4f}") -> None:
    rows = list(rows)
    cells = [[("-" if r.get(c) is None else floatfmt.format(r[c]) if isinstance(r.get(c), float) else str(r.get(c)))
              for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[k]) for row in cells]) for k, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))


def progress_bar(total: float, *, disable: bool, desc: str, unit: str = "it", bar_format: str | None = None):
    """A tqdm bar on standard error, shown only when standard error is a terminal and ``disable``
    is false (``--no-progress``), and its update function ``update(done)`` (``done`` is the
    amount reached so far, not an increment). Returns ``(bar, update)``; close the bar when
    done. ``bar_format`` is tqdm's (default: its own). tqdm is imported here, not at start-up, and only
    when the bar is shown (a hidden bar is :class:`_HiddenBar`, whose update does nothing)."""
    if disable or not sys.stderr.isatty():
        return _HiddenBar(), _HiddenBar.update
    from tqdm import tqdm

    bar = tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, disable=disable or not sys.stderr.isatty(),
               bar_format=bar_format)

    def update(done: float) -> None:
        bar.update(done - bar.n)

    return bar, update


class _HiddenBar:
    """The bar :func:`progress_bar` returns when nothing is shown (tqdm's import costs tens of milliseconds)."""

    hidden = True

    @staticmethod
    def update(done: float) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to close."""


SET_COLUMNS = {"vc": ["file", "method", "status", "min_yield", "bound", "gap", "seconds"],
               "moldable": ["file", "method", "status", "minsum", "makespan", "bound", "gap", "seconds"],
               "vc-pack": ["file", "method", "status", "lower", "upper", "seconds"]}
"""The columns ``solve`` prints for an instance set (the file holds every field)."""


SET_PATTERNS = {"vc-pack": ("*.vbp", "*.json")}
"""The files of a folder that ``solve`` takes as the instance set (default ``*.json``)."""


def add_family(sub: argparse._SubParsersAction, name: str, *, help: str) -> argparse._SubParsersAction:
    """The command group ``vcsched NAME ACTION``: its parser under ``sub`` (described by ``help``) and the
    sub-parsers of its actions (an action is required; its name is in ``args.NAME_command``)."""
    group = sub.add_parser(name, help=help)
    actions = group.add_subparsers(dest=f"{name}_command", metavar="ACTION")
    actions.required = True
    return actions


def add_json_option(parser: argparse.ArgumentParser, help: str = "print JSON") -> None:
    """``--json``: the command prints its result as JSON (``help`` says its shape) instead of a table."""
    parser.add_argument("--json", action="store_true", help=help)


def add_time_window(parser: argparse.ArgumentParser, *, days_help: str) -> None:
    """``--start``, ``--end`` (the trace's clock, seconds) and ``--days``: the jobs a trace command keeps."""
    parser.add_argument("--start", type=number_option(float, low=0, high=1e12), default=None,
                        help="keep jobs submitted at or after this time (trace clock, s)")
    parser.add_argument("--end", type=number_option(float, low=0, high=1e12), default=None,
                        help="keep jobs submitted before this time (trace clock, s)")
    parser.add_argument("--days", type=number_option(float, low=0, low_open=True, high=36500), default=None,
                        help=days_help)


def add_set_options(parser: argparse.ArgumentParser) -> None:
    """``-o``, ``--workers``, ``--scheduler``, ``--resume`` of ``solve`` over an instance set."""
    parser.add_argument("-o", "--output", metavar="TABLE",
                        help="instance set (a folder or a glob as INSTANCE): write one row per file x method to "
                             "TABLE (.parquet or .csv); the run folder TABLE's stem + .run holds the finished cells")
    parser.add_argument("--workers", type=positive_int, default=None,
                        help="instance set: local worker processes (default: number of cores)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="instance set: run on a dask.distributed cluster, e.g. tcp://host:8786")
    parser.add_argument("--resume", action="store_true",
                        help="instance set: keep the finished cells of an earlier run into the same -o")


def add_solve_tail(parser: argparse.ArgumentParser, *, seed_help: str, figure: str, figure_help: str, handler,
                   options: Iterable[str]) -> None:
    """The options every ``solve`` command ends with: ``--seed``, ``--json``, its figure option (``--plot``,
    ``--gantt``), the instance-set options; then its handler and the defaults of its method ``options``
    (:func:`remember_defaults`)."""
    parser.add_argument("--seed", type=seed_option(), default=0, help=seed_help)
    add_json_option(parser, "print JSON (one object, or a list with several methods)")
    parser.add_argument(figure, metavar="FILE", help=figure_help)
    add_set_options(parser)
    parser.set_defaults(handler=handler)
    remember_defaults(parser, options)


def remember_defaults(parser: argparse.ArgumentParser, dests: Iterable[str]) -> None:
    """Keep the defaults of ``dests`` in ``args.option_defaults`` and the command's option strings in
    ``args.option_strings``, so that :func:`option_given` can tell an option the user gave from one left
    alone."""
    strings = [text for action in parser._actions for text in action.option_strings]
    parser.set_defaults(option_defaults={dest: parser.get_default(dest) for dest in dests}, option_strings=strings)


def option_given(args: argparse.Namespace, dest: str) -> bool:
    """Whether the option of ``dest`` was given: its value differs from its default
    (:func:`remember_defaults`), or its flag is written in ``args.argv`` (``--time-limit 60``,
    ``--time-limit=60``, or an abbreviation argparse resolved to it, ``--time 60``, even with the
    default value). An abbreviation is a written ``--name`` that is not an option of the command itself
    but begins the flag: argparse accepts only abbreviations that begin exactly one option."""
    if getattr(args, dest) != args.option_defaults[dest]:
        return True
    flag = "--" + dest.replace("_", "-")
    exact = set(getattr(args, "option_strings", ()))
    for token in getattr(args, "argv", []):
        if token == "--":
            break
        name = token.split("=", 1)[0]
        if name == flag or (name.startswith("--") and len(name) > 2 and name not in exact and flag.startswith(name)):
            return True
    return False


def draw_figure(path: str, draw, *, option: str) -> None:
    """Run ``draw()``, which writes a figure to ``path`` (checked by :func:`check_output_path`): a drawing the
    figure refuses (``ValueError``) or a failed write (``OSError``: full disk, permissions) is one
    :class:`InvalidInputError` line naming ``option``."""
    try:
        draw()
    except ValueError as exc:
        raise InvalidInputError(f"{option} {path}: {exc}") from exc
    except OSError as exc:
        raise InvalidInputError(f"{option} {path}: cannot write ({exc.strerror or exc}); choose a writable path "
                                "(nothing was written)") from None


def check_options_apply(args: argparse.Namespace, options: dict[str, str], methods: list[str], table) -> None:
    """Refuse an option that none of ``methods`` takes, rather than ignore it (one line naming the
    option and the methods it needs).

    ``options`` maps an option's ``dest`` to the method option it sets (``seed`` -> ``rng``);
    ``table`` is the method table (``heuristics.vc.methods.METHODS``, ...); given is
    :func:`option_given`."""
    for dest, key in options.items():
        flag = "--" + dest.replace("_", "-")
        if not option_given(args, dest) or any(key in table.get(m).options for m in methods):
            continue
        takers = [name for name in table.names() if key in table.get(name).options]
        raise InvalidInputError(f"{flag} applies to --method {', '.join(takers)}; none of --method "
                                f"{','.join(methods)} takes it: drop {flag} or add such a method")


def check_single_file_options(args: argparse.Namespace, *, figure: str | None) -> None:
    """Options of an instance set given with one instance file, and the one-file figure option
    given with an instance set, are refused (they would be ignored)."""
    import pathlib

    text = args.instance
    try:
        folder = pathlib.Path(text).expanduser().is_dir()
    except (RuntimeError, OSError):
        folder = False
    is_set = folder or any(c in text for c in "*?[")
    if not is_set:
        for dest, flag in (("workers", "--workers"), ("scheduler", "--scheduler")):
            if getattr(args, dest) is not None:
                raise InvalidInputError(f"{flag} applies to an instance set (a folder or a glob as INSTANCE); "
                                        f"{text} is one file: drop {flag}")
    elif figure is not None and getattr(args, figure.lstrip("-")):
        raise InvalidInputError(f"{figure} draws one instance's solution; with an instance set ({text}) drop it")


def wants_instance_set(args: argparse.Namespace) -> bool:
    """A folder or glob as the instance (:func:`vcsched.files.names_instance_set`), or any of the set options:
    the set mode of ``solve``."""
    from vcsched.files import names_instance_set

    return (names_instance_set(args.instance) or args.output is not None or args.workers is not None
            or args.scheduler is not None or args.resume)


def run_instance_set(args: argparse.Namespace, problem: str, methods: list[str], options: dict) -> int:
    """``solve`` over an instance set (:mod:`benchmarks.instance_sets`): prints a summary table."""
    import tempfile

    if args.scheduler is not None and args.workers is not None:
        raise InvalidInputError("--workers and --scheduler exclude each other: with --scheduler the Dask workers run "
                                "the cells")
    if args.scheduler is not None and "://" not in args.scheduler:
        raise InvalidInputError(f"--scheduler: expected an address like tcp://host:8786, got {args.scheduler!r}")
    if args.resume and args.output is None:
        raise InvalidInputError("--resume needs -o TABLE: the run folder to resume sits beside it")
    if getattr(args, "json", False):
        raise InvalidInputError("--json prints one instance's results; for an instance set use -o TABLE.parquet "
                                "(or .csv)")
    from benchmarks.instance_sets import expand_instances, solve_set

    files = expand_instances(args.instance, patterns=SET_PATTERNS.get(problem, ("*.json",)))
    if args.output is not None:
        check_output_path(args.output, option="-o", inputs=files, formats=TABLE_FORMATS, devices=False)
    with tempfile.TemporaryDirectory(prefix="vcsched-set-") as scratch:
        table = solve_set(problem, files, methods, options, args.output, workers=args.workers,
                          scheduler=args.scheduler, resume=args.resume,
                          folder=None if args.output is not None else scratch)
    rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            for row in table.to_dict("records")]
    errors = sum(row.get("status") == "error" for row in rows)
    for row in rows:
        if row.get("status") == "error":
            row["message"] = str(row.get("message"))[:80]
    columns = [c for c in SET_COLUMNS[problem] if c in table.columns] + (["message"] if errors else [])
    print_table([{**r, "message": r.get("message") if r.get("status") == "error" else None} for r in rows], columns)
    where = f"; table: {args.output}" if args.output is not None else ""
    print(f"{len(files)} files x {len(methods)} methods = {len(table)} rows, {errors} errors{where}", file=sys.stderr)
    return 0


def short_message(text: str | None, width: int = 60) -> str | None:
    """A result's message cut to ``width`` characters for a text table (the JSON keeps it whole)."""
    if not text:
        return None
    return text if len(text) <= width else text[: width - 3] + "..."


class status_line:
    """While the block runs, one line on standard error (a terminal only) says which method is
    being solved, since when, and a MILP's incumbent and bound (:mod:`vcsched.progress`)."""

    def __init__(self, stream=None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.state: dict = {}
        self.context = None

    def __enter__(self):
        if not (hasattr(self.stream, "isatty") and self.stream.isatty()):
            return self
        from vcsched import progress

        self.context = progress.observe(self.update)
        self.context.__enter__()
        return self

    def update(self, fields: dict) -> None:
        if "method" in fields:
            self.state = dict(fields)
        else:
            self.state.update(fields)
        s = self.state
        parts = [f"[{s.get('index', '?')}/{s.get('total', '?')}] {s.get('method', '')}"]
        if s.get("elapsed") is not None:
            parts.append(f"{s['elapsed']:.0f} s")
        if s.get("incumbent") is not None:
            parts.append(f"incumbent {s['incumbent']:.6g}")
        if s.get("bound") is not None:
            parts.append(f"bound {s['bound']:.6g}")
        self.stream.write("\r\x1b[K" + "  ".join(parts))
        self.stream.flush()

    def __exit__(self, *exc) -> None:
        if self.context is not None:
            self.context.__exit__(*exc)
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def duration_text(seconds: float | None) -> str | None:
    """A duration for a text table: seconds below 3 hours, then hours below 3 days, then days
    (``"7,465 s"``, ``"12.4 h"``, ``"332.9 d"``)."""
    if seconds is None or not math.isfinite(seconds):
        return None
    if abs(seconds) < 3 * 3600:
        return f"{seconds:,.0f} s" if abs(seconds) >= 100 else f"{seconds:.3g} s"
    if abs(seconds) < 3 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


RESULT_COLUMNS = ["method", "status", "min_yield", "avg_yield", "bound", "gap", "seconds", "message"]
"""The text table of a VCSched solve (old and heterogeneous forms alike)."""


def print_result_rows(rows: list[dict], as_json: bool) -> None:
    """One solve's rows: JSON (one object for one method, else a list), or the table of :data:`RESULT_COLUMNS`
    with each message cut to one short line."""
    if as_json:
        print_json(rows[0] if len(rows) == 1 else rows)
        return
    for row in rows:
        row["message"] = short_message(row["message"])
    print_table(rows, RESULT_COLUMNS)
