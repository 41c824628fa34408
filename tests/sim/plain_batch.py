"""A plain batch simulator, from SWF file to ``jobs.csv``: the independent oracle of ``grid simulate --trace``.

Pure Python (``gzip``, ``heapq``, ``bisect``, lists; no numpy, no numba, no pandas) and
sharing no code with :mod:`vcsched`: it reads one SWF trace, simulates one cluster with
FCFS, EASY or CBF, numbers the processors and writes the per-job table in Batsim's
``jobs.csv`` layout. ``vcsched grid simulate --trace T --policy P -o jobs.csv`` must write
the same bytes (``tests/sim/test_sim_plain_batch.py`` on windows of real traces;
``benchmarks/bench_sim_speed.py`` on whole traces, where it is also the speed reference).

Rules, as ``docs/batch.md`` states them:

* job model: processors = field 8 if positive, else field 5; requested time = field 9,
  or the run time when field 9 is -1; a job runs min(run time, requested time); jobs with
  processors <= 0 or run time < 0 are dropped; jobs in submission order (stable);
* an instant: the jobs ending then leave; CBF re-plans once if one of them ended before
  its planned end; the jobs submitted then arrive in order (a CBF job gets its earliest
  reservation); one pass starts what can start; a job of run time 0 ends at once, which
  makes another round (ends, re-plan, pass) at the same instant;
* FCFS starts jobs from the head of the queue while they fit;
* EASY starts jobs from the head while they fit, then gives the head its shadow time (the
  requested end of running jobs, by requested end, once enough processors would be free;
  ties included) and *extra* processors; each later job starts if it fits and ends by the
  shadow time (``req <= shadow - now``) or takes no more than the extra;
* CBF plans with requested times (0 planned as 1 s); a job starts at its reservation; at
  a re-plan each waiting job, in submission order, is taken out of the profile and put back
  at its earliest slot from now;
* processor numbers: a sweep over ends and starts by (time, end before start, job row);
  a starting job takes the lowest free numbers; a zero-length job gets numbers without
  holding them.
"""

from __future__ import annotations

import bisect
import csv
import gzip
import heapq
import re

INF = float("inf")
COLUMNS = ["job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
           "requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
           "waiting_time", "turnaround_time", "stretch", "allocated_resources", "cluster", "origin_cluster"]


# ---------------------------------------------------------------------------------------------- reading
def read_trace(path: str) -> tuple[list[tuple], int | None]:
    """``(jobs, machine size)``: each job ``(id, submit, run, requested, procs)``, in submission order."""
    opener = gzip.open if str(path).endswith(".gz") else open
    jobs, size = [], {}
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            text = line.strip()
            if not text:
                continue
            if text.startswith(";"):
                m = re.match(r"^\s*(MaxProcs|MaxNodes)\s*:\s*(-?\d+)", text[1:].strip(), re.IGNORECASE)
                if m and m.group(1).lower() not in size:  # the first such line counts
                    size[m.group(1).lower()] = int(m.group(2))
                continue
            f = [float(x) for x in text.split()]
            procs = f[7] if f[7] > 0 else f[4]
            run, req = f[3], (f[3] if f[8] == -1 else f[8])
            if procs <= 0 or run < 0:
                continue
            jobs.append((int(f[0]), f[1], min(run, req), req, int(procs)))
    jobs.sort(key=lambda job: job[1])  # stable: file order breaks ties
    procs, nodes = size.get("maxprocs", 0), size.get("maxnodes", 0)
    return jobs, (procs if procs > 0 else nodes if nodes > 0 else None)


# ---------------------------------------------------------------------------------------------- policies
class FCFS:
    def __init__(self, total, jobs):
        self.free, self.jobs, self.queue, self.head = total, jobs, [], 0

    def arrive(self, j, now):
        self.queue.append(j)

    def end(self, j, now):
        self.free += self.jobs[j][4]

    def due(self):
        return INF

    def passes(self, now, start):
        q = self.queue
        while self.head < len(q) and self.jobs[q[self.head]][4] <= self.free:
            j = q[self.head]
            self.head += 1
            self.free -= self.jobs[j][4]
            start(j)


class EASY:
    def __init__(self, total, jobs):
        self.free, self.jobs, self.queue = total, jobs, []
        self.running = []  # sorted (requested end, job)

    def arrive(self, j, now):
        self.queue.append(j)

    def end(self, j, now):
        self.free += self.jobs[j][4]
        self.running.remove(self.req_end[j])

    def due(self):
        return INF

    def _run(self, j, now, start):
        self.free -= self.jobs[j][4]
        key = (now + self.jobs[j][3], j)
        self.req_end[j] = key
        bisect.insort(self.running, key)
        start(j)

    def passes(self, now, start):
        jobs, q = self.jobs, self.queue
        if not hasattr(self, "req_end"):
            self.req_end = {}
        while q and jobs[q[0]][4] <= self.free:
            self._run(q.pop(0), now, start)
        if not q:
            return
        head = q[0]
        need, acc, shadow, extra = jobs[head][4] - self.free, 0, INF, 0
        for k, (rend, j) in enumerate(self.running):
            acc += jobs[j][4]
            if acc >= need and (k + 1 == len(self.running) or self.running[k + 1][0] != rend):
                shadow, extra = rend, self.free + acc - jobs[head][4]
                break
        free, limit, kept = self.free, shadow - now, [head]
        for j in q[1:]:
            p, late = jobs[j][4], jobs[j][3] > limit
            if free > 0 and p <= free and (not late or p <= extra):
                self._run(j, now, start)
                free -= p
                if late:
                    extra -= p
            else:
                kept.append(j)
        self.queue = kept


class CBF:
    """Conservative backfilling on a step profile: ``T[k]`` (times, increasing) and ``F[k]`` free from ``T[k]`` on."""

    def __init__(self, total, jobs):
        self.total, self.jobs = total, jobs
        self.T, self.F = [0.0], [total]
        self.queue = []  # [job, reservation] in submission order
        self.planned_end = {}
        self.stale = False

    @staticmethod
    def planned(req):
        return req if req > 0 else 1.0

    def _row(self, t):
        return bisect.bisect_right(self.T, t) - 1

    def _add(self, a, b, delta):
        if not b > a:
            return
        T, F = self.T, self.F
        for x in (a, b):
            i = bisect.bisect_left(T, x)
            if i == len(T) or T[i] != x:
                T.insert(i, x)
                F.insert(i, F[i - 1] if i > 0 else self.total)
        for k in range(bisect.bisect_left(T, a), bisect.bisect_left(T, b)):
            F[k] += delta

    def _trim(self, now):
        k = self._row(now)
        if k > 0:
            del self.T[:k], self.F[:k]
        if self.T[0] < now:
            self.T[0] = now

    def _earliest(self, p, d, lower):
        T, F = self.T, self.F
        begin = None
        for k in range(max(self._row(lower), 0), len(T)):
            if F[k] < p:
                begin = None
                continue
            if begin is None:
                begin = max(T[k], lower)
            if k + 1 == len(T) or T[k + 1] >= begin + d:
                return begin
        raise AssertionError("the last step has every processor free")

    def _reserve(self, j, now):
        d = self.planned(self.jobs[j][3])
        s = self._earliest(self.jobs[j][4], d, now)
        self._add(s, s + d, -self.jobs[j][4])
        return s

    def arrive(self, j, now):
        self._trim(now)
        self.queue.append([j, self._reserve(j, now)])

    def end(self, j, now):
        end = self.planned_end.pop(j)
        if now < end:
            self._add(now, end, self.jobs[j][4])
            self.stale = True

    def react(self, now):
        if not self.stale:
            return
        self.stale = False
        self._trim(now)
        for entry in self.queue:
            j, s = entry
            if s > now:
                d, p = self.planned(self.jobs[j][3]), self.jobs[j][4]
                self._add(s, s + d, p)
                entry[1] = self._reserve(j, now)

    def due(self):
        return min((s for _, s in self.queue), default=INF)

    def passes(self, now, start):
        kept = []
        for j, s in self.queue:
            if s <= now:
                self.planned_end[j] = s + self.planned(self.jobs[j][3])
                start(j)
            else:
                kept.append([j, s])
        self.queue = kept


POLICIES = {"fcfs": FCFS, "easy": EASY, "cbf": CBF}


# ---------------------------------------------------------------------------------------------- simulation
def simulate(jobs: list[tuple], total: int, policy: str) -> tuple[list, list]:
    """Start and finish of each job (rows of ``jobs``) on one cluster of ``total`` processors."""
    n = len(jobs)
    if any(job[4] > total for job in jobs):
        raise ValueError("a job is wider than the cluster")
    cluster = POLICIES[policy](total, jobs)
    start, finish = [None] * n, [None] * n
    ends: list = []  # heap of (time, sequence, job)
    seq = [0]
    nxt = 0

    def begin(j):
        start[j] = now
        seq[0] += 1
        heapq.heappush(ends, (now + jobs[j][2], seq[0], j))

    while nxt < n or ends or cluster.due() < INF:
        now = min(jobs[nxt][1] if nxt < n else INF, ends[0][0] if ends else INF, cluster.due())
        first = True
        while first or (ends and ends[0][0] == now):
            while ends and ends[0][0] == now:
                _, _, j = heapq.heappop(ends)
                finish[j] = now
                cluster.end(j, now)
            if hasattr(cluster, "react"):
                cluster.react(now)
            while first and nxt < n and jobs[nxt][1] == now:
                cluster.arrive(nxt, now)
                nxt += 1
            first = False
            cluster.passes(now, begin)
    return start, finish


# ---------------------------------------------------------------------------------------------- output
def allocate(start: list, finish: list, widths: list, total: int) -> list[str]:
    """Interval sets of processor numbers (see the module docstring)."""
    events = sorted([(finish[j], 0, j) for j in range(len(start))] + [(start[j], 1, j) for j in range(len(start))])
    free = list(range(total))  # a heap
    held, ended, out = {}, set(), [""] * len(start)
    for _, kind, j in events:
        if kind == 0:
            if j in held:
                for x in held.pop(j):
                    heapq.heappush(free, x)
            else:
                ended.add(j)
            continue
        ids = [heapq.heappop(free) for _ in range(min(widths[j], len(free)))]
        parts, a = [], 0
        while a < len(ids):
            b = a
            while b + 1 < len(ids) and ids[b + 1] == ids[b] + 1:
                b += 1
            parts.append(str(ids[a]) if a == b else f"{ids[a]}-{ids[b]}")
            a = b + 1
        out[j] = " ".join(parts)
        if j in ended:
            ended.discard(j)
            for x in ids:
                heapq.heappush(free, x)
        else:
            held[j] = ids
    return out


def write_csv(path: str, name: str, jobs: list[tuple], start: list, finish: list, alloc: list[str]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLUMNS)
        for j, (jid, submit, _run, req, procs) in enumerate(jobs):
            s, f = start[j], finish[j]
            execution, turnaround = f - s, f - submit
            stretch = turnaround / execution if execution > 0 else INF
            w.writerow([str(jid), name, "", repr(submit), str(procs), repr(req), "1", "COMPLETED_SUCCESSFULLY",
                        repr(s), repr(execution), repr(f), repr(s - submit), repr(turnaround), repr(stretch),
                        alloc[j], name, name])


def cluster_name(path: str) -> str:
    name = str(path).replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".gz", ".swf"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def run(trace: str, policy: str, out: str, procs: int | None = None) -> None:
    """``grid simulate --trace trace --policy policy -o out`` (``--procs`` defaults to the header's)."""
    jobs, size = read_trace(trace)
    total = procs or size
    start, finish = simulate(jobs, total, policy)
    alloc = allocate(start, finish, [job[4] for job in jobs], total)
    write_csv(out, cluster_name(trace), jobs, start, finish, alloc)


if __name__ == "__main__":
    import sys

    run(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else None)
