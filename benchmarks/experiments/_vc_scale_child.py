"""One method on one generated VCSched instance, in its own process: prints one JSON line.

``python -m benchmarks.experiments._vc_scale_child '{"hosts": 64, "jobs": 500, ...}'``; used by
``vc-scale`` so that the peak resident memory (:func:`peak_rss_mb`) is the method's own, not a
high-water mark left by an earlier method in the same worker.
"""

from __future__ import annotations

import json
import math
import resource
import sys
import time


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MB: ``VmHWM`` of ``/proc/self/status`` (the
    high-water mark of this program's own address space), else ``ru_maxrss``, which on
    Linux also keeps the high-water mark of the process that started this one."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return float(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


WARMUP_JOBS = 20_000
"""Jobs at most of the instance solved before the timed run (as many as the timed instance up to
this, a tenth as many hosts; ``params["warmup_jobs"]`` overrides it): the method's lazy imports and compiled code (MCB8's fill from
:data:`heuristics.vc.mcb_pack.COMPILED_FROM` items, the least-loaded rule of GR, SG and the core
greedy from :data:`vcsched.problems.vc_greedy.COMPILED_FROM` tasks) are loaded then."""


def _instance(params: dict):
    from vcsched.generators.vc import generate_vc_instance

    return generate_vc_instance(int(params["hosts"]), int(params["jobs"]), float(params["slack"]),
                                float(params["cv_mem"]), float(params["cv_cpu"]), rng=int(params["instance_seed"]))


def _solve(method: str, inst, params: dict):
    if method == "mcb8":
        from heuristics.vc import REGISTRY

        return REGISTRY.get("mcb8")(inst)
    if method == "closed-form":
        from lowerbounds.vc import closed_form_bound

        return closed_form_bound(inst)
    if method == "certify":
        from heuristics.vc.methods import solve

        return solve(inst, "certify", time_limit=float(params["time_limit"]), gap=float(params["stop_gap"]))
    raise ValueError(f"unknown method {method!r}")


def measure(params: dict) -> dict:
    """Solve a smaller instance first (:data:`WARMUP_JOBS`: the one-off start, imports and compiled
    code), then build the instance and run ``params['method']`` on it; seconds (wall, CPU), peak
    RSS, outcome."""
    warm = time.process_time()
    jobs = int(params.get("warmup_jobs", min(WARMUP_JOBS, int(params["jobs"]))))
    _solve(params["method"], _instance(dict(params, hosts=max(1, jobs // 10), jobs=jobs)), params)
    warm = time.process_time() - warm
    inst = _instance(params)
    rss_instance = peak_rss_mb()
    wall, cpu = time.perf_counter(), time.process_time()
    res = _solve(params["method"], inst, params)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    extra = dict(res.extra or {})
    nan = math.nan
    return {
        "status": res.status.value, "min_yield": nan if res.objective is None else float(res.objective),
        "bound": nan if res.bound is None else float(res.bound), "gap": nan if res.gap is None else float(res.gap),
        "closed_by": str(extra.get("closed_by", "")), "wall_s": wall, "cpu_s": cpu,
        "peak_rss_mb": peak_rss_mb(), "instance_rss_mb": rss_instance, "warmup_cpu_s": warm,
        "tasks": int(inst.n_tasks),
        **{k: float(extra.get(k, nan)) for k in ("seconds_cheap_bounds", "seconds_heuristics", "seconds_improve",
                                                   "seconds_configuration_lp", "seconds_integer_master",
                                                   "seconds_dive")},
    }


if __name__ == "__main__":  # pragma: no cover - run by vc-scale in a subprocess
    print(json.dumps(measure(json.loads(sys.argv[1]))))
