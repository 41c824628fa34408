"""VCSched instance generator of seed 001 §4.1 and the two named instance sets.

Per-job CPU and memory needs are drawn from normal distributions truncated to
(0, 1] (redrawn until inside), with given mean and coefficient of variation.
Mean memory is ``H (1 - slack) / J``; mean CPU is 0.5.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterator

import numpy as np

from vcsched.arguments import integer, number
from vcsched.errors import InvalidInputError
from vcsched.generators.lublin import lublin_sizes
from vcsched.problems.vc import MIN_CPU, VCInstance
from vcsched.problems.vc_limits import MAX_CV, MAX_GENERATE

__all__ = [
    "VCSpec",
    "truncated_normal",
    "generate_vc_instance",
    "instance_set_specs",
    "iter_instance_set",
    "INSTANCE_SETS",
    "spec_seed",
    "MAX_REDRAW_ROUNDS",
]


MAX_REDRAW_ROUNDS = 1000
"""Rounds of redrawing in :func:`truncated_normal` before giving up: with the CLI's
ranges (coefficient of variation <= 10) a round keeps at least ~8 % of the draws,
so 1,000 rounds are never reached; an absurd spread fails at once instead of looping."""


def truncated_normal(
    mean: float, cv: float, size: int, rng: np.random.Generator, low: float = 0.0, high: float = 1.0
) -> np.ndarray:
    """Normal(mean, cv * mean) restricted to ``(low, high]`` by redrawing.

    Redraws the values outside at most :data:`MAX_REDRAW_ROUNDS` times; if some are
    still outside (a spread so large, or a mean so far out, that almost no draw lands
    in the interval), raises :class:`~vcsched.errors.InvalidInputError` saying so. A
    standard deviation that is not finite is refused before drawing.
    """
    if mean <= low:
        raise InvalidInputError(f"mean must be > {low}, got {mean}")
    std = cv * mean
    if not (math.isfinite(std) and std >= 0):
        raise InvalidInputError(f"standard deviation {std!r} (coefficient of variation {cv!r} x mean {mean!r}) "
                                "is not a finite number >= 0; use a smaller coefficient of variation")
    out = rng.normal(mean, std, size)
    bad = (out <= low) | (out > high)
    for _ in range(MAX_REDRAW_ROUNDS):
        if not bad.any():
            return out
        out[bad] = rng.normal(mean, std, int(bad.sum()))
        bad = (out <= low) | (out > high)
    if not bad.any():
        return out
    raise InvalidInputError(f"after {MAX_REDRAW_ROUNDS} redraws {int(bad.sum())} of {size} values of a normal "
                            f"(mean {mean:g}, coefficient of variation {cv:g}) are still outside ({low:g}, {high:g}]; "
                            "use a smaller coefficient of variation")


def generate_vc_instance(
    hosts: int,
    jobs: int,
    slack: float,
    cv_mem: float,
    cv_cpu: float,
    *,
    mean_cpu: float = 0.5,
    tasks: str | None = None,
    rng: np.random.Generator | int | None = None,
) -> VCInstance:
    """One instance of §4.1.

    Parameters
    ----------
    hosts, jobs : int
        At most :data:`~vcsched.problems.vc_limits.MAX_GENERATE` each.
    slack : float in [0, 1)
        Memory slack: mean memory need is ``hosts * (1 - slack) / jobs``.
    cv_mem, cv_cpu : float
        Coefficients of variation of the memory and CPU needs, at most
        :data:`~vcsched.problems.vc_limits.MAX_CV`.
    tasks : None or "lublin"
        ``"lublin"`` draws task counts (1..64) from the Lublin-Feitelson model
        (§5.2). Choice: the memory slack keeps its meaning, so the mean memory
        need of a task is ``H (1 - slack) / sum_i T_i`` (with ``J`` jobs of ~7
        tasks each, ``H (1 - slack) / J`` per task would ask for about 7 times
        the platform's memory and make almost every instance infeasible).
    rng : Generator or seed
    """
    hosts, jobs = integer(hosts, "hosts", low=1, high=MAX_GENERATE), integer(jobs, "jobs", low=1, high=MAX_GENERATE)
    slack = number(slack, "slack", low=0, high=1, high_open=True)
    cv_mem, cv_cpu = number(cv_mem, "cv_mem", low=0, high=MAX_CV), number(cv_cpu, "cv_cpu", low=0, high=MAX_CV)
    mean_cpu = number(mean_cpu, "mean_cpu", low=MIN_CPU, low_open=True, high=1)
    if tasks not in (None, "lublin"):
        raise InvalidInputError(f"tasks must be None or 'lublin', got {tasks!r}")
    rng = np.random.default_rng(rng)
    counts = lublin_sizes(jobs, rng) if tasks == "lublin" else np.ones(jobs, dtype=np.int64)
    mean_mem = hosts * (1.0 - slack) / float(counts.sum())
    mem = truncated_normal(min(mean_mem, 1.0), cv_mem, jobs, rng)
    cpu = truncated_normal(mean_cpu, cv_cpu, jobs, rng, low=MIN_CPU)  # the file format's range, (1e-9, 1]
    return VCInstance(hosts=hosts, cpu=cpu, mem=mem, tasks=counts)


@dataclasses.dataclass(frozen=True)
class VCSpec:
    """One problem specification of an instance set (and the replicate index)."""

    set_name: str
    hosts: int
    jobs: int
    slack: float
    cv_mem: float
    cv_cpu: float
    rep: int
    tasks: str | None = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


INSTANCE_SETS = {
    # name: (hosts, job counts, replicates per spec, tasks model)
    "small": (4, (6, 8, 10, 12), 10, None),
    "large": (64, (100, 250, 500), 100, None),
    "parallel": (64, (100, 250, 500), 100, "lublin"),
}
SLACKS = tuple(round(0.1 * k, 1) for k in range(1, 10))
CVS = (0.25, 0.75)


def instance_set_specs(name: str, *, replicates: int | None = None) -> list[VCSpec]:
    """The specs of a named set: small (1,440 instances) or large (10,800).

    Order: jobs, slack, cv_mem, cv_cpu, replicate.
    """
    if name not in INSTANCE_SETS:
        raise InvalidInputError(f"unknown instance set {name!r}; choose one of {sorted(INSTANCE_SETS)}")
    hosts, job_counts, reps, tasks = INSTANCE_SETS[name]
    reps = reps if replicates is None else replicates
    return [
        VCSpec(name, hosts, j, s, cm, cc, r, tasks)
        for j, s, cm, cc, r in itertools.product(job_counts, SLACKS, CVS, CVS, range(reps))
    ]


def spec_seed(spec: VCSpec, root_seed: int = 0) -> np.random.SeedSequence:
    """A seed that depends only on the spec and the root seed (not on order or worker)."""
    key = (spec.hosts, spec.jobs, int(round(spec.slack * 10)), int(spec.cv_mem * 100), int(spec.cv_cpu * 100), spec.rep,
           1 if spec.tasks else 0)
    return np.random.SeedSequence(entropy=root_seed, spawn_key=key)


def build_instance(spec: VCSpec, root_seed: int = 0) -> VCInstance:
    rng = np.random.default_rng(spec_seed(spec, root_seed))
    return generate_vc_instance(spec.hosts, spec.jobs, spec.slack, spec.cv_mem, spec.cv_cpu, tasks=spec.tasks, rng=rng)


def iter_instance_set(name: str, *, root_seed: int = 0, replicates: int | None = None) -> Iterator[tuple[VCSpec, VCInstance]]:
    for spec in instance_set_specs(name, replicates=replicates):
        yield spec, build_instance(spec, root_seed)


__all__ += ["build_instance", "SLACKS", "CVS"]
