"""One step of ``moldable-scale`` on one generated instance, in its own process: prints one JSON line.

``python -m benchmarks.experiments._moldable_scale_child '{"n": 400, "m": 200, ...}'``. The
process's address space is capped at ``mem_cap_gb`` (``RLIMIT_AS``), so a step that would
need more fails with an error row instead of crowding a shared machine.
"""

from __future__ import annotations

import json
import math
import os
import resource
import sys
import tempfile
import time

from benchmarks.experiments._vc_scale_child import peak_rss_mb

LOAD_STEPS = {"load": ".json", "load-npz": ".npz"}
"""The load steps and the file form each one reads."""


def _instance(params: dict):
    from vcsched.generators.moldable import generate_moldable_instance

    return generate_moldable_instance(int(params["m"]), int(params["n"]), params["kind"],
                                      rng=int(params["instance_seed"]))


def _load(inst, suffix: str = ".json") -> tuple[object, dict]:
    """Save the instance as the documented JSON (or the ``.npz`` form), then time :func:`load_instance` alone."""
    from vcsched.problems.moldable import load_instance, save_instance

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "inst" + suffix)
        save_instance(inst, path)
        size_mb = os.path.getsize(path) / 2**20
        wall, cpu = time.perf_counter(), time.process_time()
        loaded = load_instance(path)
        return loaded, {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                        "file_mb": size_mb, "status": "optimal" if loaded.n == inst.n else "error"}


def _run(method: str, inst, params: dict) -> dict:
    from heuristics.moldable import REGISTRY
    from lowerbounds.moldable import interval_bound, refined_interval_bound

    limit = float(params["time_limit"])
    wall, cpu = time.perf_counter(), time.process_time()
    if method == "bicriteria":
        res = REGISTRY.get("bicriteria")(inst, rng=0)
        value = float(res.objective) if res.objective is not None else math.nan
    elif method == "interval":
        res = interval_bound(inst, time_limit=limit)
        value = float(res.bound)
    elif method == "refined":
        res = refined_interval_bound(inst, time_limit=limit)
        value = float(res.bound)
    else:
        raise ValueError(f"unknown method {method!r}")
    return {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu, "value": value,
            "status": res.status.value}


def measure(params: dict) -> dict:
    """Generate the instance, run the step ``params['method']``; seconds, peak RSS, outcome."""
    cap = float(params.get("mem_cap_gb", 0))
    if cap > 0:
        limit = int(cap * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    inst = _instance(params)
    rss_instance = peak_rss_mb()
    method = params["method"]
    if method in LOAD_STEPS:
        row = _load(inst, LOAD_STEPS[method])[1]
    else:
        row = _run(method, inst, params)
    return {**row, "peak_rss_mb": peak_rss_mb(), "instance_rss_mb": rss_instance}


if __name__ == "__main__":  # pragma: no cover - run by moldable-scale in a subprocess
    print(json.dumps(measure(json.loads(sys.argv[1]))))
