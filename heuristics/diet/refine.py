"""RefinePlacement: re-arranging a window's placements at the Master Agent (seed 004 §5.2, §7.2).

Each function takes the window's responses (one list per request, best server
first, as returned by the agents) and the requests' costs, and returns
``(servers, minQueueWait)``: the server chosen for each request, in order, and
the smallest queue-wait estimate of the window (Algorithm 2 uses it to size the
next window).

``first-free`` is Algorithm 3: request 1 gets its best server; request ``i``
gets the first server of its list not yet chosen in this window. Choices where
the pseudocode is loose (documented and tested):

* the figure's loop has no ``break`` (read literally it would keep the *last*
  unused server of the list); we take the *first* unused one, the best ranked,
  which is what "avoid placing tasks in the same window on the same host"
  intends;
* when every server of request ``i``'s list is already used (more requests in
  the window than servers answered), it gets its best server (the figure leaves
  ``finalPlacements[i]`` undefined).

``last-free`` is the figure to the letter: without a ``break``, the assignment
in the loop runs for every unused server of the list, so request ``i`` keeps the
*last* (worst-ranked) server not yet used in the window; the other rules are as in
``first-free``.

Beyond the paper (its §7.2 future work asks for Min-min/Sufferage-like
heuristics inside the window). The variants model each server as ``slots``
parallel slots: a slot is free at 0 if the server had fewer jobs than slots,
otherwise it frees at the server's ``queue_wait`` estimate; a request on a slot
available at ``a`` completes at ``a + exec_time`` and the slot then becomes
available at that time. Ties go to the server with fewer requests of this
window, then to the better-ranked server of the request's list.

``minmin``
    repeatedly place the request whose best completion time is smallest.
``sufferage``
    repeatedly place the request that would lose most (second-best minus best
    completion time; ``inf`` with a single candidate) if denied its best server.
``msf``
    minimum sum-flow: requests in shortest-first order (SPT minimises the sum of
    flow times on one slot), each to the server of earliest completion.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from vcsched.names import diet as names
from vcsched.registry import Registry
from vcsched.sim.diet_policy import Response

__all__ = ["REFINE", "min_queue_wait", "refine_first_free", "refine_last_free", "refine_minmin", "refine_sufferage",
           "refine_msf"]

REFINE: Registry = Registry("RefinePlacement variant", names.REFINE)

RefineFn = Callable[[Sequence[Sequence[Response]], Sequence[float]], tuple[list[str], float]]


def min_queue_wait(responses: Sequence[Sequence[Response]]) -> float:
    """Smallest ``queue_wait`` over every response of the window (0 when none carries one)."""
    waits = [r.queue_wait for resp in responses for r in resp
             if r.queue_wait is not None and not math.isnan(r.queue_wait)]
    return float(min(waits)) if waits else 0.0


@REFINE.register("first-free")
def refine_first_free(responses: Sequence[Sequence[Response]], costs: Sequence[float] = ()) -> tuple[list[str], float]:
    """Algorithm 3: each request to the first server of its list not yet used in the window.

    Examples
    --------
    >>> a, b = Response("a", 1.0, 0, 1.0), Response("b", 1.0, 0, 1.0)
    >>> refine_first_free([[a, b], [a, b], [a, b]])[0]
    ['a', 'b', 'a']
    """
    chosen: list[str] = []
    used: set[str] = set()
    for resp in responses:
        servers = [r.sed for r in resp]
        pick = next((s for s in servers if s not in used), servers[0] if servers else "")
        chosen.append(pick)
        if pick:
            used.add(pick)
    return chosen, min_queue_wait(responses)


@REFINE.register("last-free")
def refine_last_free(responses: Sequence[Sequence[Response]], costs: Sequence[float] = ()) -> tuple[list[str], float]:
    """Algorithm 3 to the letter: request 1 its best server, request ``i`` the last server of its list not yet
    used in the window (the loop has no ``break``), its best one when all are used.

    Examples
    --------
    >>> a, b, c = (Response(x, 1.0, 0, 1.0) for x in "abc")
    >>> refine_last_free([[a, b, c], [a, b, c], [a, b, c]])[0]
    ['a', 'c', 'b']
    """
    chosen: list[str] = []
    used: set[str] = set()
    for i, resp in enumerate(responses):
        servers = [r.sed for r in resp]
        free = [s for s in servers if s not in used] if i > 0 else servers[:1]
        pick = free[-1] if free else (servers[0] if servers else "")
        chosen.append(pick)
        if pick:
            used.add(pick)
    return chosen, min_queue_wait(responses)


def _slot_table(responses: Sequence[Sequence[Response]]) -> dict[str, list[float]]:
    """Availability times of each server's slots, from the first response seen for it."""
    slots: dict[str, list[float]] = {}
    for resp in responses:
        for r in resp:
            if r.sed in slots:
                continue
            k = max(1, int(r.slots))
            jobs = int(r.num_jobs) if r.num_jobs is not None else 0
            wait = float(r.queue_wait) if r.queue_wait is not None and not math.isnan(r.queue_wait) else 0.0
            free = max(0, k - jobs)
            slots[r.sed] = sorted([0.0] * free + [wait] * (k - free))
    return slots


def _exec(r: Response, cost: float) -> float:
    return float(r.exec_time) if r.exec_time is not None and not math.isnan(r.exec_time) else float(cost)


def _candidates(resp: Sequence[Response], cost: float, slots: dict[str, list[float]],
                count: dict[str, int]) -> list[tuple[float, int, int, str, float]]:
    """(completion, window count, rank, server, exec) for each server of one request's list, best first."""
    out = []
    for rank, r in enumerate(resp):
        e = _exec(r, cost)
        out.append((min(slots[r.sed]) + e, count.get(r.sed, 0), rank, r.sed, e))
    out.sort()
    return out


def _place(server: str, e: float, slots: dict[str, list[float]], count: dict[str, int]) -> None:
    times = slots[server]
    times[times.index(min(times))] += e
    count[server] = count.get(server, 0) + 1


def _greedy(responses: Sequence[Sequence[Response]], costs: Sequence[float], pick: str) -> tuple[list[str], float]:
    costs = list(costs) if len(costs) else [math.nan] * len(responses)
    slots = _slot_table(responses)
    count: dict[str, int] = {}
    chosen = [""] * len(responses)
    todo = [i for i, resp in enumerate(responses) if resp]
    if pick == "msf":
        todo.sort(key=lambda i: (_exec(responses[i][0], costs[i]), i))
        for i in todo:
            best = _candidates(responses[i], costs[i], slots, count)[0]
            chosen[i] = best[3]
            _place(best[3], best[4], slots, count)
        return chosen, min_queue_wait(responses)
    while todo:
        scored = []
        for i in todo:
            cand = _candidates(responses[i], costs[i], slots, count)
            if pick == "minmin":
                score = (cand[0][0], i)
            else:  # sufferage: largest loss first
                loss = cand[1][0] - cand[0][0] if len(cand) > 1 else math.inf
                score = (-loss, cand[0][0], i)
            scored.append((score, i, cand[0]))
        _, i, best = min(scored)
        chosen[i] = best[3]
        _place(best[3], best[4], slots, count)
        todo.remove(i)
    return chosen, min_queue_wait(responses)


@REFINE.register("minmin")
def refine_minmin(responses: Sequence[Sequence[Response]], costs: Sequence[float] = ()) -> tuple[list[str], float]:
    """MinMin inside the window (beyond the paper, §7.2)."""
    return _greedy(responses, costs, "minmin")


@REFINE.register("sufferage")
def refine_sufferage(responses: Sequence[Sequence[Response]], costs: Sequence[float] = ()) -> tuple[list[str], float]:
    """Sufferage inside the window (beyond the paper, §7.2)."""
    return _greedy(responses, costs, "sufferage")


@REFINE.register("msf")
def refine_msf(responses: Sequence[Sequence[Response]], costs: Sequence[float] = ()) -> tuple[list[str], float]:
    """Minimum sum-flow inside the window: shortest request first, earliest completion (beyond the paper)."""
    return _greedy(responses, costs, "msf")
