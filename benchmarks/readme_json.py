"""The JSON of the README's example commands, run on a checkout, and compared between two checkouts.

Used to show that a restructuring changed no result: every field that the older checkout prints must be
printed, equal, by the newer one (new fields are allowed; fields that time something are left out)::

    python -m benchmarks.readme_json run --checkout OLD --out before.json
    python -m benchmarks.readme_json run --checkout NEW --out after.json
    python -m benchmarks.readme_json compare before.json after.json

Each command runs as ``python -m vcsched.cli ...`` with ``PYTHONPATH=CHECKOUT`` in one temporary folder per
checkout (the instance files it generates are compared too).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["COMMANDS", "run_all", "differences"]

COMMANDS: list[tuple[str, list[str]]] = [
    ("vc generate", ["vc", "generate", "--hosts", "4", "--jobs", "8", "--slack", "0.3", "--cv-mem", "0.25",
                     "--cv-cpu", "0.75", "--seed", "1", "-o", "inst.json"]),
    ("vc generate parallel", ["vc", "generate", "--hosts", "64", "--jobs", "100", "--slack", "0.5", "--tasks",
                              "lublin", "--seed", "2", "-o", "par.json"]),
    ("vc solve milp", ["vc", "solve", "inst.json", "--method", "milp", "--time-limit", "60", "--json"]),
    ("vc solve all", ["vc", "solve", "inst.json", "--method", "all", "--json"]),
    ("vc solve certify", ["vc", "solve", "inst.json", "--method", "certify", "--time-limit", "60", "--json"]),
    ("vc solve certify gap", ["vc", "solve", "inst.json", "--method", "certify", "--time-limit", "60", "--gap",
                              "0.001", "--json"]),
    ("vc solve parallel mcb8", ["vc", "solve", "par.json", "--method", "mcb8,gr,sg,lp-closed", "--json"]),
    ("moldable generate", ["moldable", "generate", "--n", "12", "--m", "8", "--seed", "3", "-o",
                           "mold.json"]),
    ("moldable solve", ["moldable", "solve", "mold.json", "--method", "all", "--json"]),
    ("moldable bound", ["moldable", "bound", "mold.json", "--json"]),
    ("grid bound quick", ["grid", "bound", "--trace", "CTC-SP2-1996-3.1-cln.swf.gz", "--method", "quick", "--json"]),
    ("grid simulate easy", ["grid", "simulate", "--trace", "KTH-SP2-1996-2.1-cln.swf.gz", "--procs", "100",
                            "--policy", "easy", "--json"]),
    ("grid simulate cbf 30 days", ["grid", "simulate", "--trace", "CTC-SP2-1996-3.1-cln.swf.gz", "--policy", "cbf",
                                   "--days", "30", "--json"]),
    ("grid simulate realloc", ["grid", "simulate", "--scenario", "jan", "--days", "2", "--realloc", "cancel",
                               "--heuristic", "minmin", "--json"]),
    ("timeshare bound exact", ["timeshare", "bound", "--scenario", "b", "--mu", "17", "--seed", "1", "--tasks", "10",
                               "--method", "exact", "--json"]),
    ("timeshare simulate", ["timeshare", "simulate", "--scenario", "b", "--tasks", "10", "--heuristic", "all",
                            "--bound", "--json"]),
    ("diet bound exact", ["diet", "bound", "--experiment", "bursty", "--interarrival", "0", "--method", "exact",
                          "--json"]),
    ("diet simulate", ["diet", "simulate", "--experiment", "add-seds", "--approach", "all", "--bound", "--json"]),
]
"""The README's examples (``--json`` added where the README prints a table), smallest sizes where it offers one."""

_FILES = ("inst.json", "par.json", "mold.json")
_TIMING_WORDS = ("seconds", "elapsed", "wall", "cpu_s", "time_s")


def _is_timing(key: str) -> bool:
    return any(w in key for w in _TIMING_WORDS)


def _strip(value):
    """``value`` without the fields that time something (their names hold 'seconds', 'elapsed', ...)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if not _is_timing(str(k))}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def run_all(checkout: Path, *, traces: str | None = None) -> dict:
    """Run :data:`COMMANDS` on ``checkout``: ``{name: {"exit": code, "json": parsed or None, "stderr": text}}``
    and ``{"file:<name>": contents}`` for the instance files they write."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    if traces:
        env["VCSCHED_TRACES"] = traces
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv in COMMANDS:
            proc = subprocess.run([sys.executable, "-m", "vcsched.cli", *argv], cwd=tmp, env=env,
                                  capture_output=True, text=True, timeout=900)
            try:
                parsed = _strip(json.loads(proc.stdout)) if proc.stdout.strip() else None
            except json.JSONDecodeError:
                parsed = {"unparsed stdout": proc.stdout}
            out[name] = {"exit": proc.returncode, "json": parsed, "stderr": proc.stderr.strip()[-500:]}
            print(f"{name}: exit {proc.returncode}", file=sys.stderr)
        for f in _FILES:
            p = Path(tmp) / f
            out[f"file:{f}"] = p.read_text() if p.exists() else None
    return out


def differences(before, after, path: str = "") -> list[str]:
    """Every field of ``before`` missing from ``after`` or different there (``after`` may hold more)."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for k, v in before.items():
            if k not in after:
                found.append(f"{path}/{k}: missing")
            else:
                found.extend(differences(v, after[k], f"{path}/{k}"))
        return found
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return [f"{path}: {len(before)} items before, {len(after)} after"]
        return [d for i, (a, b) in enumerate(zip(before, after)) for d in differences(a, b, f"{path}[{i}]")]
    return [] if before == after else [f"{path}: {before!r} before, {after!r} after"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.readme_json", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--checkout", required=True, type=Path)
    r.add_argument("--out", required=True, type=Path)
    r.add_argument("--traces", help="folder of the SWF traces (default: the checkout's own setting)")
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "run":
        args.out.write_text(json.dumps(run_all(args.checkout.resolve(), traces=args.traces), indent=1))
        return 0
    found = differences(json.loads(args.before.read_text()), json.loads(args.after.read_text()))
    for line in found:
        print(line)
    print(f"{len(found)} difference(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
