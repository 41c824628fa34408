"""The ``simulate`` commands' runs over many seeds: ``--seeds A-B`` / ``--repeat N``, one run per
seed, each metric summarized (mean, 95 % interval, paired differences; :mod:`vcsched.stats`).

Standard library only at import time, as :mod:`vcsched.cli.common`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from vcsched.cli.common import positive_int, print_json, print_table, progress_bar
from vcsched.errors import InvalidInputError

__all__ = ["add_seed_options", "seeds_of", "over_seeds", "show_over_seeds", "print_seed_tables"]


def add_seed_options(parser: argparse.ArgumentParser) -> None:
    """``--seeds A-B`` and ``--repeat N`` of the ``simulate`` commands (one run per seed)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--seeds", metavar="A-B",
                       help="one run per seed (A-B, A,B,C): every metric as mean, std, 95%% confidence interval "
                            "and n; policies compared on the same seeds (paired differences with their interval)")
    group.add_argument("--repeat", type=positive_int, default=None, metavar="N",
                       help="N runs with seeds SEED, SEED+1, ... (as --seeds)")


def seeds_of(args: argparse.Namespace) -> list[int] | None:
    """The seeds of ``--seeds`` / ``--repeat`` (``None``: one run with ``--seed``)."""
    from vcsched.stats import MAX_SEEDS, parse_seeds

    if getattr(args, "seeds", None) is not None:
        return parse_seeds(args.seeds)
    if getattr(args, "repeat", None) is not None:
        if args.repeat > MAX_SEEDS:
            raise InvalidInputError(f"--repeat {args.repeat}: more than {MAX_SEEDS:,} runs")
        from vcsched.arguments import SEED_MAX

        if args.seed + args.repeat - 1 > SEED_MAX:
            raise InvalidInputError(f"--repeat {args.repeat} from --seed {args.seed}: the last seed would be above the "
                                    f"largest seed {SEED_MAX} (2^63 - 1)")
        return list(range(args.seed, args.seed + args.repeat))
    return None


def over_seeds(run_one, seeds: list[int], key: str, metrics: Iterable[str], *, desc: str = "seeds") -> dict:
    """Run ``run_one(seed) -> rows`` (one row per policy, named by ``key``) for every seed and
    summarize (:mod:`vcsched.stats`): ``{"seeds", "results": [{key, metric: {mean, std, ci95, n}}],
    "paired": [{key, "versus": first policy, metric: summary of the per-seed differences}]}``."""
    from vcsched.stats import paired_difference, summarize

    metrics = list(metrics)
    bar, update = progress_bar(len(seeds), disable=len(seeds) < 2, desc=desc, unit="run")
    runs = []
    try:
        for k, seed in enumerate(seeds):
            runs.append({row[key]: row for row in run_one(seed)})
            update(k + 1)
    finally:
        bar.close()
    names = list(runs[0])
    values = {name: {m: [_known(run[name].get(m)) if name in run else None for run in runs] for m in metrics}
              for name in names}
    results = [{key: name, **{m: summarize(values[name][m]) for m in metrics}} for name in names]
    paired = [{key: name, "versus": names[0], **{m: paired_difference(values[names[0]][m], values[name][m])
                                               for m in metrics}} for name in names[1:]]
    return {"seeds": list(seeds), "results": results, "paired": paired}


def _known(value):
    """A run's metric for the statistics: a NaN or infinite metric (e.g. a ratio to a bound of 0, a
    mean over no job) is a run without that value (``None``), counted out of ``n``, which the
    output reports."""
    import math
    import numbers

    return value if value is None or (isinstance(value, numbers.Real) and math.isfinite(value)) else None


def show_over_seeds(args: argparse.Namespace, run_one, seeds: list[int], key: str, metrics: Iterable[str], *,
                    desc: str) -> dict:
    """:func:`over_seeds`, printed as JSON (``--json``) or as :func:`print_seed_tables`; returns the document."""
    metrics = list(metrics)
    doc = over_seeds(run_one, seeds, key, metrics, desc=desc)
    if getattr(args, "json", False):
        print_json(doc)
    else:
        print_seed_tables(doc, key, metrics)
    return doc


def _interval_text(summary: dict) -> str | None:
    if summary.get("mean") is None:
        return None
    if summary.get("ci95") is None:
        return f"{summary['mean']:.4g}"
    lo, hi = summary["ci95"]
    half = (hi - lo) / 2
    return f"{summary['mean']:.4g} ± {0.0 if half <= 1e-9 * abs(summary['mean']) else half:.2g}"


def print_seed_tables(doc: dict, key: str, metrics: Iterable[str]) -> None:
    """The text form of :func:`over_seeds`: mean ± half-width of the 95 % interval per metric, the
    number of runs, then the paired differences (``*`` where the interval excludes 0)."""
    metrics = list(metrics)
    n = len(doc["seeds"])
    rows = [{key: r[key], **{m: _interval_text(r[m]) for m in metrics}} for r in doc["results"]]
    print(f"{n} runs (seeds {doc['seeds'][0]}..{doc['seeds'][-1]}): mean ± half-width of the 95% confidence interval")
    print_table(rows, [key] + metrics)
    if doc["paired"]:
        print(f"\npaired differences on the same seeds (policy - {doc['paired'][0]['versus']}); "
              "* = the 95% interval excludes 0")
        rows = []
        for p in doc["paired"]:
            row = {key: p[key]}
            for m in metrics:
                text, ci = _interval_text(p[m]), p[m].get("ci95")
                row[m] = None if text is None else text + (" *" if ci and (ci[0] > 0 or ci[1] < 0) else "")
            rows.append(row)
        print_table(rows, [key] + metrics)
