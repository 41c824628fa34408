"""Byte identity of ``jobs.csv`` between two checkouts: nine traces x three policies.

Run::

    python benchmarks/jobs_csv_identity.py write --tree /path/to/main --out before/   # the "before" files
    python benchmarks/jobs_csv_identity.py write --tree . --out after/
    python benchmarks/jobs_csv_identity.py compare before/ after/                     # exit 1 on any difference

``write`` runs ``python -m vcsched.cli grid simulate --trace T --policy P -o DIR/T.P.csv
--no-progress`` for every trace of ``$VCSCHED_TRACES`` (default ``../shared/data/traces``)
and every policy (fcfs, easy, cbf) in a fresh process with ``PYTHONPATH`` set to
``--tree``, and records each file's SHA-256 in ``DIR/sha256.json``. ``compare`` reports,
for every file of the first folder, whether the second folder holds the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

POLICIES = ("fcfs", "easy", "cbf")


def traces(folder: Path) -> list[Path]:
    """The traces of ``folder``: every ``.swf``, ``.swf.gz`` and ``.json`` file, by name."""
    return sorted(p for p in folder.iterdir() if p.name.endswith((".swf", ".swf.gz", ".json")))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write(tree: Path, out: Path, folder: Path, policies=POLICIES) -> dict[str, str]:
    """Simulate every trace with every policy using the checkout ``tree``; name -> SHA-256."""
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()), VCSCHED_TRACES=str(folder.resolve()))
    sums = {}
    for trace in traces(folder):
        for pol in policies:
            name = f"{trace.name}.{pol}.csv"
            cmd = [sys.executable, "-m", "vcsched.cli", "grid", "simulate", "--trace", str(trace.resolve()),
                   "--policy", pol, "-o", str((out / name).resolve()), "--no-progress"]
            proc = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"{name}: exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
            sums[name] = _sha(out / name)
            print(name, sums[name][:16], flush=True)
    (out / "sha256.json").write_text(json.dumps(sums, indent=1, sort_keys=True) + "\n")
    return sums


def compare(before: Path, after: Path) -> int:
    """Number of files of ``before`` that ``after`` lacks or holds with other bytes (each printed)."""
    bad = 0
    for path in sorted(before.glob("*.csv")):
        other = after / path.name
        same = other.exists() and path.read_bytes() == other.read_bytes()
        bad += not same
        print(("identical " if same else "DIFFERENT ") + path.name)
    print(f"{bad} different of {len(list(before.glob('*.csv')))}")
    return bad


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    w.add_argument("--out", type=Path, required=True)
    w.add_argument("--traces", type=Path, default=Path(os.environ.get("VCSCHED_TRACES", "../shared/data/traces")))
    w.add_argument("--policies", nargs="+", default=list(POLICIES))
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "write":
        write(args.tree, args.out, args.traces, args.policies)
        return 0
    return 1 if compare(args.before, args.after) else 0


if __name__ == "__main__":
    sys.exit(main())
