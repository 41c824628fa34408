"""Stage profile of the time-shared servers', DIET's and ``vc adapt``'s simulators on their largest documented runs.

Run::

    python benchmarks/bench_sim_stages.py                 # the three runs, 3 rounds each
    python benchmarks/bench_sim_stages.py --rounds 5 --json

Each round runs each workload in a fresh process (``PYTHONPATH`` = this checkout) through the functions its
command calls, timing every stage inside the process on both clocks (CPU: ``time.process_time``; wall:
``time.perf_counter``):

* ``imports``: the modules the command needs;
* ``building``: the workload and platform (the scenario's builder; for ``vc adapt``, reading the trace too);
* ``simulating``: the simulator (for the time-shared servers, the evaluation of each heuristic, whose metrics
  come out of the same pass);
* ``metrics``: the rows the command prints;
* ``writing``: the JSON text.

The runs are those of the README and the docs: ``timeshare simulate --scenario b --heuristic all`` (500 tasks,
mu = 15), ``diet simulate --experiment steady --approach all`` (an hour of sequential users, three
approaches) and ``vc adapt --hosts 16 --swf KTH-SP2 --duration 86400 --policy local-search --budget inf``.
Medians over the rounds are printed, with the load average (wall times on a shared machine include waiting
for a core; CPU times do not).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("imports", "building", "simulating", "metrics", "writing")

_PRELUDE = r"""
import json, sys, time
marks = [(time.process_time(), time.perf_counter())]
def mark():
    marks.append((time.process_time(), time.perf_counter()))
"""

_TIMESHARE = _PRELUDE + r"""
from heuristics.timeshare import evaluate, result_row
from vcsched.names.timeshare import HEURISTICS
from vcsched.scenarios.timeshare import build
mark()
instance = build("b", mu=15.0, seed=1)
mark()
rows = evaluate(instance, list(HEURISTICS))
mark()
rows = [result_row(row) for row in rows]
mark()
text = json.dumps(rows, indent=1)
mark()
"""

_DIET = _PRELUDE + r"""
from heuristics.diet import WindowParams, make_approach
from vcsched.names.diet import APPROACHES
from vcsched.scenarios.diet import approach_row, build, simulate_scenario
mark()
scenario = build("steady")
mark()
runs = []
for name in APPROACHES:
    policy = make_approach(name, window=WindowParams(max_win_size=scenario.platform.n_best))
    runs.append(simulate_scenario(scenario, policy, seed=0))
mark()
rows = [approach_row(m, "steady", 0) for m in runs]
mark()
text = json.dumps(rows, indent=1, default=str)
mark()
"""

_ADAPT = _PRELUDE + r"""
from heuristics.vc.adapt import make_policy
from vcsched.data import trace_path
from vcsched.problems.workload import read_swf, time_window
from vcsched.scenarios.vc_dynamic import swf_workload
from vcsched.sim.vcdynamic import simulate_dynamic
mark()
jobs = read_swf(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"))
start = float(jobs.submit_time.min())
jobs = time_window(jobs, start=start, end=start + 86400.0)
workload = swf_workload(jobs, 16, slack=0.5, rng=0)  # the command's default slack and seed
mark()
result = simulate_dynamic(16, workload, make_policy("local-search"), budget=float("inf"), duration=86400.0)
mark()
doc = result.to_dict()
mark()
text = json.dumps(doc, indent=1)
mark()
"""

_REPORT = r"""
print(json.dumps([[b[0] - a[0], b[1] - a[1]] for a, b in zip(marks, marks[1:])]))
"""

RUNS = {"timeshare (b), mu 15, all heuristics": _TIMESHARE,
        "diet steady, all approaches": _DIET,
        "vc adapt KTH-SP2 1 day, local-search": _ADAPT}


def _run(code: str) -> list[list[float]]:
    """The (CPU, wall) seconds of each stage, from a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code + _REPORT], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(rounds: int) -> dict[str, dict[str, dict[str, float]]]:
    """Per run and stage, the median CPU and wall seconds over ``rounds`` fresh processes."""
    samples = {name: [] for name in RUNS}
    for _ in range(rounds):
        for name, code in RUNS.items():  # alternated, so that a burst of load spreads over every run
            samples[name].append(_run(code))
    return {name: {stage: {"cpu": statistics.median(s[k][0] for s in runs),
                           "wall": statistics.median(s[k][1] for s in runs)}
                   for k, stage in enumerate(STAGES)}
            for name, runs in samples.items()}


def _table(result: dict) -> str:
    lines = [f"{'run':40s} " + " ".join(f"{s:>16s}" for s in STAGES) + "   (CPU / wall seconds, medians)"]
    for name, stages in result.items():
        lines.append(f"{name:40s} " + " ".join(f"{v['cpu']:.3f}/{v['wall']:.3f}".rjust(16) for v in stages.values()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per run (default 3)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    result = measure(max(1, args.rounds))
    if args.json:
        print(json.dumps({"load_average": os.getloadavg(), "stages": result}, indent=1))
    else:
        print(_table(result))
        print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
