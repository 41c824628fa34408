"""Non-clairvoyant DFRS policies (Stillwell, Vivien, Casanova, IPDPS 2010): greedy ones and
MCB8 run periodically (seed 001 §3.4).

Each policy is an object with ``name``, ``period`` and ``decide(view) -> Decision``
(:class:`vcsched.sim.dfrs.DfrsPolicy`); the view holds no run time.

Priority (our choice, after the papers' "virtual time relative to flow time"): a job's priority is
``(flow + tau) / (work + tau)^2`` with ``tau = 10`` s, ``flow`` its time in the system and ``work``
the work done so far. A new job has ``1 / tau``; a job that has run long at full yield has about
``1 / work`` (low); a paused or starved job's priority grows with its flow time. Ties: arrival order.

``greedy``
    keeps every running job where it is; the jobs not running (waiting, and paused ones, which
    only ``greedy-pmtn`` makes) are tried in priority order, each placed on the least loaded hosts
    with memory (:func:`place_least_loaded`); a job that does not fit waits. No preemption,
    no migration.
``greedy-pmtn``
    the same, and a job that does not fit may pause running jobs of lower priority, lowest first,
    until it fits (if pausing all of them would not make room, none is paused). A paused job
    resumes on its own hosts only. Preemption stops at the first job for which it fails.
``greedy-pmtn-migr``
    the same, but a paused job resumes on any hosts (the least loaded ones): paused tasks move.
``mcb8-per``
    at arrivals (unless ``on_arrival``, ``--realloc-on-arrival``: then as at a period) and completions as
    ``greedy`` (without preemption; paused jobs may resume anywhere);
    every ``period`` seconds a candidate re-allocation: the jobs in the system in priority order, the
    longest prefix whose tasks MCB8 packs in memory (bisection on the prefix length), placed by
    MCB8 with bisection on the minimum yield (:func:`heuristics.vc.mcb.mcb`, the tasks of a job
    as items of CPU ``1 / cores``); hosts relabelled to keep the most memory in place; the jobs left
    out are then tried greedily and otherwise wait (running ones are paused). When the new
    placement moves more memory than ``budget``, this re-allocation keeps the running jobs in place
    (as ``greedy``). The candidate replaces the current placement (kept, with the jobs not running placed
    greedily) when it runs other jobs, or the same jobs at a minimum yield higher by more than 1e-3: without this
    rule MCB8, which packs from scratch, moves tasks at every period even when nothing is gained, and
    each move costs the penalty (our choice; the papers do not say).
``mcb8-per-stretch``
    ``mcb8-per`` whose average-yield phase gives the spare CPU to the jobs of highest estimated
    stretch ``(flow + tau) / (work + tau)`` first.

CPU is shared among the placed jobs by :func:`heuristics.dfrs.cpu.share_cpu` (``cpu_target``).
"""

from __future__ import annotations

import math

import numpy as np

from heuristics.dfrs.cpu import share_cpu
from vcsched.errors import InvalidInputError
from vcsched.sim.dfrs import PAUSED, RUNNING, WAITING, Decision, View

__all__ = ["HYSTERESIS", "PRIORITY_TAU", "priorities", "place_least_loaded", "GreedyPolicy", "Mcb8Periodic"]

PRIORITY_TAU = 10.0
MEM_SLACK = 1e-9


def priorities(view: View) -> list[float]:
    """``(flow + tau) / (work + tau)^2`` of every job of the view (module docstring)."""
    t = PRIORITY_TAU
    return [(f + t) / ((w + t) * (w + t)) for f, w in zip(view.flow, view.work)]


class _Hosts:
    """Tasks and memory per host of a tentative placement."""

    def __init__(self, hosts: int) -> None:
        self.load = np.zeros(hosts, dtype=np.int64)
        self.mem = np.zeros(hosts)

    def add(self, placed, m: float, sign: int = 1) -> None:
        load, mem, dm = self.load, self.mem, sign * m
        for h in placed:  # a job has few tasks: a loop beats np.add.at (same order of the float sums)
            load[h] += sign
            mem[h] += dm

    def fits_on(self, placed, m: float) -> bool:
        """Every host of ``placed`` keeps its memory at most 1 with ``m`` more per task placed there (the hosts
        not in ``placed`` are unchanged; the engine keeps them at most 1)."""
        extra: dict[int, float] = {}
        for h in placed:
            extra[h] = extra.get(h, 0.0) + m
        mem = self.mem
        return all(mem[h] + e <= 1.0 + MEM_SLACK for h, e in extra.items())


def place_least_loaded(hosts: _Hosts, q: int, m: float) -> tuple[int, ...] | None:
    """Each of ``q`` tasks (memory ``m``) on the host with the fewest tasks that still has the memory
    (ties: lowest index); ``None`` (and ``hosts`` unchanged) when some task does not fit."""
    load = hosts.load.astype(float)
    free = 1.0 + MEM_SLACK - hosts.mem
    out = []
    for _ in range(q):
        cand = np.where(free >= m, load, np.inf)
        h = int(np.argmin(cand))
        if cand[h] == np.inf:
            return None
        out.append(h)
        load[h] += 1
        free[h] -= m
    hosts.add(out, m)
    return tuple(out)


class GreedyPolicy:
    """``greedy``, ``greedy-pmtn`` (``preempt``) and ``greedy-pmtn-migr`` (``preempt``, ``move_paused``)."""

    def __init__(self, name: str, *, preempt: bool = False, move_paused: bool = False,
                 cpu_target: str = "avgyield", budget: float = math.inf) -> None:
        self.name, self.preempt, self.move_paused, self.cpu_target = name, preempt, move_paused, cpu_target
        self.period: float | None = None
        self.budget = float(budget)
        self._moved = 0.0

    def decide(self, view: View) -> Decision:
        self._moved = 0.0
        prio = priorities(view)
        hosts = _Hosts(view.hosts_count)
        placement: dict[int, tuple[int, ...]] = {}
        running = []
        for k, j in enumerate(view.jobs):
            if view.state[k] == RUNNING:
                placement[j] = view.hosts[k]
                hosts.add(view.hosts[k], view.mem[k])
                running.append(k)
        self.admit(view, prio, hosts, placement, running, preempt=self.preempt, move_paused=self.move_paused)
        return Decision(placement, share_cpu(placement, view.hosts_count, view.cores, self.cpu_target,
                                             self.spare_order(view, placement)))

    def spare_order(self, view: View, placement) -> list[int] | None:
        return None

    def _try(self, view: View, k: int, hosts: _Hosts, move_paused: bool) -> tuple[int, ...] | None:
        """Place job ``k``: a paused job on its own hosts if they have room, else (``move_paused``, within the
        budget) on the least loaded hosts; a waiting job on the least loaded hosts."""
        m = view.mem[k]
        if view.state[k] == PAUSED:
            own = view.last_hosts[k]
            if hosts.fits_on(own, m):
                hosts.add(own, m)
                return own
            if not move_paused:
                return None
            placed = place_least_loaded(hosts, view.tasks[k], m)
            if placed is None:
                return None
            cost = m * sum(1 for a, b in zip(placed, own) if a != b)
            if self._moved + cost > self.budget + 1e-12:
                hosts.add(placed, m, -1)
                return None
            self._moved += cost
            return placed
        return place_least_loaded(hosts, view.tasks[k], m)

    def admit(self, view: View, prio, hosts: _Hosts, placement, running: list[int], *, preempt: bool,
              move_paused: bool) -> None:
        """Place the jobs not running in priority order (module docstring), pausing lower-priority running
        jobs when ``preempt``."""
        waiting = sorted((k for k in range(len(view.jobs)) if view.state[k] in (WAITING, PAUSED)
                          and view.jobs[k] not in placement), key=lambda k: (-prio[k], k))
        victims = sorted(running, key=lambda k: (prio[k], -k))
        for k in waiting:
            placed = self._try(view, k, hosts, move_paused)
            if placed is None and preempt:
                placed = self._preempt(view, k, prio, hosts, placement, victims, move_paused)
                if placed is None:
                    preempt = False
            if placed is not None:
                placement[view.jobs[k]] = placed

    def _preempt(self, view: View, k: int, prio, hosts: _Hosts, placement, victims: list[int],
                 move_paused: bool) -> tuple[int, ...] | None:
        paused = []
        for v in victims:
            if prio[v] >= prio[k] or view.jobs[v] not in placement:
                continue
            hosts.add(placement[view.jobs[v]], view.mem[v], -1)
            paused.append(v)
            placed = self._try(view, k, hosts, move_paused)
            if placed is not None:
                for p in paused:
                    del placement[view.jobs[p]]
                return placed
        for p in paused:
            hosts.add(placement[view.jobs[p]], view.mem[p])
        return None


HYSTERESIS = 4.0
"""Default of :class:`Mcb8Periodic`'s ``hysteresis`` (measured in docs/dfrs.md)."""

IMPROVEMENT = 1e-3
"""A re-allocation that runs the same jobs replaces the current placement only if it raises the minimum yield by
more than this."""



def _better(new: Decision, stay: Decision) -> bool:
    """``new`` runs other jobs than ``stay`` (the priorities decide), or the same with a minimum yield higher
    by :data:`IMPROVEMENT`."""
    if new.placement.keys() != stay.placement.keys():
        return True
    if not new.yields:
        return False
    return min(new.yields.values()) > min(stay.yields.values()) + IMPROVEMENT


def _nothing_to_gain(view: View, stay: Decision) -> bool:
    """Every job in the system runs at yield 1 in ``stay``: no re-allocation can run more jobs or raise the
    minimum yield, so MCB8 is not run (it would only be taken if it failed to pack the jobs that already fit and
    paused some)."""
    return len(stay.placement) == len(view.jobs) and all(y >= 1.0 for y in stay.yields.values())


class Mcb8Periodic(GreedyPolicy):
    """``mcb8-per`` and ``mcb8-per-stretch`` (``stretch=True``); module docstring."""

    def __init__(self, name: str, *, period: float = 600.0, budget: float = math.inf, stretch: bool = False,
                 cpu_target: str = "avgyield", on_arrival: bool = False, hysteresis: float = HYSTERESIS) -> None:
        super().__init__(name, preempt=False, move_paused=True, cpu_target=cpu_target, budget=budget)
        if not hysteresis >= 0:
            raise InvalidInputError(f"hysteresis must be >= 0, got {hysteresis}")
        self.period, self.stretch, self.on_arrival = float(period), stretch, on_arrival
        self.hysteresis = float(hysteresis)

    def spare_order(self, view: View, placement) -> list[int] | None:
        if not self.stretch:
            return None
        t = PRIORITY_TAU
        est = {j: (f + t) / (w + t) for j, f, w in zip(view.jobs, view.flow, view.work)}
        return sorted(placement, key=lambda j: -est[j])

    def decide(self, view: View) -> Decision:
        if "period" not in view.reasons and not (self.on_arrival and "arrival" in view.reasons):
            return super().decide(view)
        stay = super().decide(view)
        if _nothing_to_gain(view, stay):
            return stay
        prio = priorities(view)
        order = self.realloc_order(view, prio)
        placement = self._repack(view, order)
        if placement is None:
            return stay
        from heuristics.dfrs.repack import moved_memory

        self._moved = moved_memory(view, placement)
        hosts = _Hosts(view.hosts_count)
        for k, j in enumerate(view.jobs):
            if j in placement:
                hosts.add(placement[j], view.mem[k])
        self.admit(view, prio, hosts, placement, [], preempt=False, move_paused=True)
        new = Decision(placement, share_cpu(placement, view.hosts_count, view.cores, self.cpu_target,
                                            self.spare_order(view, placement)))
        return new if _better(new, stay) else stay

    def realloc_order(self, view: View, prio: list[float]) -> list[int]:
        """The jobs in priority order for a re-allocation, a running job's priority multiplied by ``1 +
        hysteresis`` (a job not running displaces a running one only when its priority is that much higher)."""
        if self.hysteresis > 0:
            boost = 1.0 + self.hysteresis
            prio = [p * boost if st == RUNNING else p for p, st in zip(prio, view.state)]
        return sorted(range(len(view.jobs)), key=lambda k: (-prio[k], k))

    def _repack(self, view: View, order: list[int]) -> dict[int, tuple[int, ...]] | None:
        """MCB8 on the longest packable prefix of ``order``, relabelled; ``None`` when over budget or failed."""
        from heuristics.dfrs.repack import mcb8_prefix

        return mcb8_prefix(view, order, self.budget)
