"""Running one measurement in a fresh Python process (the scale experiments: peak memory and CPU of
one step alone, an address-space cap, and a process that may die without taking the sweep with it)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys


def run_child(module: str, params: dict, timeout: float) -> list[dict]:
    """``python -m module '<params as JSON>'``; its last JSON line as one row, or an ``error`` row when the
    process died, printed nothing or ran past ``timeout`` seconds."""
    cmd = [sys.executable, "-m", module, json.dumps(params)]
    root = str(pathlib.Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)}
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False, cwd=root, env=env)
    except subprocess.TimeoutExpired:
        return [{"status": "error", "message": f"no result after {timeout:.0f} s"}]
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        return [{"status": "error", "message": (out.stderr.strip().splitlines() or ["died"])[-1][:200]}]
    return [json.loads(lines[-1])]
