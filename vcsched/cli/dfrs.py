"""``vcsched dfrs simulate`` and ``vcsched dfrs bound``: dynamic fractional resource scheduling against batch
scheduling on HPC workloads, with a max-stretch lower bound (docs/dfrs.md).

::

    vcsched dfrs simulate --trace KTH-SP2-1996-2.1-cln.swf.gz --days 7 --policy easy,greedy-pmtn,mcb8-per --bound
    vcsched dfrs simulate --workload lublin --jobs 500 --load 0.7 --hosts 64 --policy easy,mcb8-per --seeds 1-5
    vcsched dfrs bound --trace HPC2N-2002-2.2-cln.swf.gz --json
"""

from __future__ import annotations

import argparse
import math

from vcsched.cli.common import (
    add_family,
    add_json_option,
    add_time_window,
    check_output_path,
    number_option,
    print_json,
    print_table,
    progress_bar,
    seed_option,
)
from vcsched.errors import InvalidInputError
from vcsched.names.dfrs import CPU_TARGETS, DEFAULT_POLICIES, POLICIES, RUN_METRICS

__all__ = ["register", "cmd_simulate", "cmd_bound"]



def _workload_options(s: argparse.ArgumentParser) -> None:
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--trace", help="SWF trace or Batsim JSON workload (a bare name is looked up in the traces folder)")
    src.add_argument("--workload", choices=["lublin"], help="a Lublin-Feitelson workload (with --jobs and --load)")
    s.add_argument("--jobs", type=number_option(int, low=1, high=10**7), default=None, help="--workload lublin: jobs")
    s.add_argument("--load", type=number_option(float, low=0, low_open=True, high=10), default=None,
                   help="--workload lublin: offered load (arrivals scaled to it)")
    add_time_window(s, days_help="keep this many days from --start (or the first job)")
    s.add_argument("--hosts", type=number_option(int, low=1, high=10**6), default=None,
                   help="hosts (default: the trace's processors / --cores; 64 for --workload lublin)")
    s.add_argument("--cores", type=number_option(int, low=1, high=1024), default=1, help="cores per host (default 1)")
    s.add_argument("--memory", default="trace", metavar="trace|model|fixed:X",
                   help="task memory: the trace's fields 7/10 (default; the model where absent), the seeded model, "
                        "or X of a host for every task")
    s.add_argument("--host-memory", type=number_option(float, low=0, low_open=True, high=1e15), default=None,
                   metavar="KB", help="memory of a host in KB when the trace's machine is not known (docs/dfrs.md)")
    s.add_argument("--seed", type=seed_option(), default=0, help="seed of the memory model and of Lublin (default 0)")
    s.add_argument("--skip-bad-lines", action="store_true",
                   help="skip malformed lines and jobs wider than the platform (counted) instead of failing")
    add_json_option(s, "one JSON object on standard output")
    s.add_argument("--no-progress", action="store_true", help="no progress bar (off anyway when stderr is not a TTY)")


def register(sub: argparse._SubParsersAction) -> None:
    dsub = add_family(sub, "dfrs", help="dynamic fractional resource scheduling vs batch on HPC workloads")
    s = dsub.add_parser("simulate", help="run fractional and batch policies on one workload, paired")
    _workload_options(s)
    s.add_argument("--policy", default=",".join(DEFAULT_POLICIES),
                   help=f"comma-separated policies: {', '.join(POLICIES)} (default all but fcfs)")
    s.add_argument("--penalty", type=number_option(float, low=0, high=1e9), default=300.0,
                   help="seconds without progress after a migration or a resume (default 300; 0 allowed)")
    s.add_argument("--period", type=number_option(float, low=0, low_open=True, high=1e9), default=600.0,
                   help="seconds between MCB8 re-allocations (> 0, default 600)")
    s.add_argument("--budget", type=number_option(float, low=0, high=1e9), default=math.inf,
                   help="memory migrated per re-allocation, in hosts' memory (default unbounded; seed 001 eq. 31)")
    s.add_argument("--cpu-target", choices=CPU_TARGETS, default="avgyield",
                   help="CPU sharing after placement: the average-yield phase (default) or max-min fairness")
    s.add_argument("--realloc-on-arrival", action="store_true",
                   help="mcb8-per, mcb8-per-stretch: also re-allocate at each arrival (default: greedy placement)")
    s.add_argument("--hysteresis", type=number_option(float, low=0, high=1e9), default=None,
                   help="mcb8-per, mcb8-per-stretch: a re-allocation pauses a running job for one whose priority is "
                   "more than 1 + H times higher (default: heuristics.dfrs.DEFAULT_HYSTERESIS; 0: none)")
    s.add_argument("--seeds", metavar="A-B", help="one run per seed (A-B, A,B,C): every figure as mean, std, 95%% "
                   "interval and n")
    s.add_argument("--bound", action="store_true", help="also the max-stretch lower bound of every schedule")
    s.add_argument("-o", "--output", metavar="FILE", help="one row per job and policy (.csv or .parquet)")
    s.set_defaults(handler=cmd_simulate)
    b = dsub.add_parser("bound", help="lower bound on the max stretch of every schedule of the workload")
    _workload_options(b)
    b.set_defaults(handler=cmd_bound)


def _policies(text: str) -> list[str]:
    from heuristics.dfrs import POLICIES as REGISTRY

    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise InvalidInputError("--policy: give at least one policy")
    try:
        return [REGISTRY.get(n).name for n in names]
    except InvalidInputError as exc:
        raise InvalidInputError(f"--policy: {exc}") from None


def _build(args: argparse.Namespace, seed: int):
    from vcsched.problems.dfrs import parse_memory
    from vcsched.scenarios.dfrs import dfrs_workload

    parse_memory(args.memory)
    if args.workload and any(v is not None for v in (args.start, args.end, args.days)):
        raise InvalidInputError("--start, --end and --days cut a --trace; with --workload lublin use --jobs and --load")
    return dfrs_workload(trace=args.trace, window={"start": args.start, "end": args.end, "days": args.days},
                         lublin_jobs=args.jobs, load=args.load, hosts=args.hosts, cores=args.cores,
                         memory=args.memory, host_memory=args.host_memory, seed=seed,
                         skip_bad_lines=args.skip_bad_lines)


def _note_skipped(args: argparse.Namespace, jobs, platform) -> None:
    """One ``vcsched: note:`` line when ``--skip-bad-lines`` dropped jobs (as the batch simulator's)."""
    import sys

    if jobs.skipped:
        print(f"vcsched: note: {args.trace}: skipped {jobs.skipped} job(s) (wider than the platform's "
              f"{platform.processors} processors, or malformed lines)", file=sys.stderr)


def _bound(jobs, platform, progress: bool) -> dict:
    from lowerbounds.dfrs import DEFAULT_WINDOW, max_stretch_bound

    total = max((int((jobs.run > 0).sum()) + DEFAULT_WINDOW // 2 - 1) // (DEFAULT_WINDOW // 2), 1)
    bar, update = progress_bar(total, disable=not progress, desc="bound", unit="window")
    try:
        b = max_stretch_bound(jobs, platform, memory=platform.cores == 1, progress=update)
    finally:
        bar.close()
    return b


def _bound_doc(bound, runs, seconds: list[float]) -> dict:
    """``{"max_stretch": {value, method, seconds, lower, upper, status}}``: the bound's own fields, then the
    reference contract (lower = the bound, upper = the best simulated policy's max stretch,
    :func:`lowerbounds.dfrs.stretch_bracket`)."""
    from lowerbounds.dfrs import stretch_bracket

    bracket = stretch_bracket(bound, {r.policy: (r.metrics.get("max_stretch"), t) for r, t in zip(runs, seconds)})
    return {"max_stretch": {**bound.to_dict(), **bracket.to_dict()}}


def _run_once(args: argparse.Namespace, names: list[str], seed: int, progress: bool):
    import time

    from heuristics.dfrs import simulate_policy

    jobs, platform = _build(args, seed)
    runs, seconds = [], []
    for name in names:
        t0 = time.perf_counter()
        bar, update = progress_bar(len(jobs), disable=not progress, desc=name, unit="job")
        try:
            runs.append(simulate_policy(jobs, platform, name, penalty=args.penalty, period=args.period,
                                        budget=args.budget, cpu_target=args.cpu_target,
                                        on_arrival=args.realloc_on_arrival, progress=update,
                                        **({} if args.hysteresis is None else {"hysteresis": args.hysteresis})))
        finally:
            bar.close()
        seconds.append(time.perf_counter() - t0)
    bound = _bound_doc(_bound(jobs, platform, progress), runs, seconds) if args.bound else None
    return jobs, platform, runs, bound


def _job_rows(jobs, runs, seed: int | None) -> list[dict]:
    from heuristics.dfrs import job_rows

    rows = job_rows(jobs, runs)
    return rows if seed is None else [{**row, "seed": seed} for row in rows]


def _write_jobs(path: str, rows: list[dict]) -> None:
    import pandas as pd

    from vcsched.files import atomic_write

    frame = pd.DataFrame(rows)

    def write(tmp) -> None:
        if str(path).lower().endswith(".parquet"):
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)

    try:
        atomic_write(path, write, keep_suffix=True)
    except OSError as exc:
        raise InvalidInputError(f"-o {path}: cannot be written ({exc.strerror or exc})") from None


def _print_text(doc: dict, names: list[str]) -> None:
    print(f"{doc['jobs']} jobs on {doc['hosts']} hosts")
    rows = []
    for name in names:
        m = doc["policies"][name]
        rows.append({"policy": name, **{k: _cell(m[k]) for k in RUN_METRICS}})
    bound = doc.get("bound")
    if bound:
        b = bound["max_stretch"]
        rows.append({"policy": f"bound ({b['method']})", "max_stretch": _cell(b["value"])})
    print_table(rows, ["policy", *RUN_METRICS])


def _cell(v):
    if isinstance(v, dict):
        if v.get("mean") is None:
            return None
        ci = v.get("ci95")
        return f"{v['mean']:.4g}" + ("" if not ci else f" ± {(ci[1] - ci[0]) / 2:.2g}")
    return v


def _summaries(docs: list[dict], names: list[str]) -> dict:
    from vcsched.stats import summarize

    out = {"jobs": docs[0]["jobs"], "hosts": docs[0]["hosts"], "skipped": docs[0]["skipped"],
           "seeds": [d["seed"] for d in docs],
           "policies": {n: {m: summarize([d["policies"][n][m] for d in docs]) for m in RUN_METRICS} for n in names}}
    if docs[0].get("bound"):
        out["bound"] = {"max_stretch": {
            "value": summarize([d["bound"]["max_stretch"]["value"] for d in docs]),
            "method": docs[0]["bound"]["max_stretch"]["method"],
            "seconds": summarize([d["bound"]["max_stretch"]["seconds"] for d in docs])}}
    return out


def cmd_simulate(args: argparse.Namespace) -> int:
    from lowerbounds.reference import ratio_interval
    from vcsched.stats import parse_seeds

    names = _policies(args.policy)
    seeds = parse_seeds(args.seeds) if args.seeds else [args.seed]
    if args.output:
        check_output_path(args.output, option="-o", inputs=[args.trace] if args.trace else [])
    progress = not args.no_progress
    docs, rows = [], []
    for seed in seeds:
        jobs, platform, runs, bound = _run_once(args, names, seed, progress)
        if not docs:
            _note_skipped(args, jobs, platform)
        doc = {"jobs": len(jobs), "hosts": platform.hosts, "skipped": jobs.skipped, "seed": seed,
               "policies": {r.policy: {k: r.metrics.get(k) for k in RUN_METRICS} for r in runs}}
        if bound:
            doc["bound"] = bound
            b = bound["max_stretch"]
            for r in runs:
                doc["policies"][r.policy]["max_stretch_ratio_to_opt"] = ratio_interval(
                    r.metrics.get("max_stretch"), b["lower"]["value"], (b["upper"] or {}).get("value"))
        docs.append(doc)
        if args.output:
            rows.extend(_job_rows(jobs, runs, seed if args.seeds else None))
    if args.seeds:
        doc = _summaries(docs, names)
    else:
        doc = docs[0]
        del doc["seed"]
    if args.output:
        _write_jobs(args.output, rows)
    if args.json:
        print_json(doc)
    else:
        _print_text(doc, names)
    return 0


def cmd_bound(args: argparse.Namespace) -> int:
    jobs, platform = _build(args, args.seed)
    _note_skipped(args, jobs, platform)
    doc = {"jobs": len(jobs), "hosts": platform.hosts, "skipped": jobs.skipped,
           "bound": {"max_stretch": _bound(jobs, platform, not args.no_progress).to_dict()}}
    if args.json:
        print_json(doc)
    else:
        b = doc["bound"]["max_stretch"]
        print(f"{doc['jobs']} jobs on {doc['hosts']} hosts: max stretch >= {b['value']:.6g} "
              f"({b['method']}, {b['seconds']:.2f} s)")
    return 0

