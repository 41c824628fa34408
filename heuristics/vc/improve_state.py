"""The placement that :mod:`heuristics.vc.improve` improves, with what its search reads at every step.

Task sizes, the host of every task, load and memory per host, the tasks of every host
(a set each), the hosts sorted by load (:class:`~heuristics.vc.host_order.HostOrder`)
and the tasks sorted by CPU (:meth:`Placement.smaller_within`), all kept in step by
:meth:`Placement.apply` and :meth:`Placement.reassign`.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from heuristics.vc.host_order import HostOrder
from vcsched.problems.vc import VCInstance, host_loads, host_memory

__all__ = ["Placement"]


@dataclasses.dataclass
class Placement:
    """The placement being improved: task sizes, host of every task, load and memory per host,
    and the tasks of every host (kept in step with ``th`` by :meth:`relocate`)."""

    instance: VCInstance
    th: np.ndarray
    cpu: np.ndarray
    mem: np.ndarray
    load: np.ndarray
    used: np.ndarray
    members: list
    deadline: float | None
    by_cpu: np.ndarray
    """Task indices by increasing CPU size (stable), and those sizes: :meth:`smaller_within`."""
    cpu_sorted: np.ndarray
    order: HostOrder
    """The hosts sorted by load (the peak host, the least loaded partners), kept in step with ``load``."""

    @classmethod
    def start(cls, instance: VCInstance, th: np.ndarray, deadline: float | None) -> Placement:
        members: list[set] = [set() for _ in range(instance.hosts)]
        for task, host in enumerate(th.tolist()):
            members[host].add(task)
        by_cpu = np.argsort(instance.task_cpu, kind="stable")
        load = host_loads(instance, th)
        return cls(instance, th, instance.task_cpu, instance.task_mem, load, host_memory(instance, th), members,
                   deadline, by_cpu, instance.task_cpu[by_cpu], HostOrder(load))

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def on(self, h: int) -> np.ndarray:
        """Tasks of host ``h`` in task order."""
        return np.array(sorted(self.members[h]), dtype=np.int64)

    def on_hosts(self, hosts: np.ndarray) -> np.ndarray:
        """Tasks of the hosts ``hosts`` in task order."""
        if hosts.size * 8 < self.load.size:  # a few hosts: their task sets
            return np.sort(np.array([t for g in hosts.tolist() for t in self.members[g]], dtype=np.int64))
        mask = np.zeros(self.load.size, dtype=bool)
        mask[hosts] = True
        return np.flatnonzero(mask[self.th])

    def smaller_within(self, sizes: np.ndarray, room: float) -> np.ndarray:
        """Tasks (in task order) whose CPU is below one of ``sizes`` by less than ``room``
        (plus ``1e-9``): ``O(log T)`` per size plus the tasks found (the windows of the sizes
        merged first, so that no task is read twice)."""
        lo = np.searchsorted(self.cpu_sorted, sizes - room - 1e-9, side="left")
        hi = np.searchsorted(self.cpu_sorted, sizes, side="left")
        keep = hi > lo
        if not np.any(keep):
            return np.empty(0, dtype=np.int64)
        lo, hi = lo[keep], hi[keep]
        first = np.argsort(lo, kind="stable")
        lo, hi = lo[first], np.maximum.accumulate(hi[first])
        starts = np.flatnonzero(np.r_[True, lo[1:] > hi[:-1]])  # a window not overlapping the ones before
        ends = np.r_[starts[1:], lo.size] - 1
        found = np.concatenate([self.by_cpu[a:b] for a, b in zip(lo[starts].tolist(), hi[ends].tolist())])
        return np.sort(found)

    def relocate(self, task: int, dest: int) -> None:
        self.apply([(task, dest)])

    def _move_task(self, task: int, dest: int) -> None:
        src = int(self.th[task])
        self.load[src] -= self.cpu[task]
        self.used[src] -= self.mem[task]
        self.load[dest] += self.cpu[task]
        self.used[dest] += self.mem[task]
        self.th[task] = dest
        self.members[src].discard(task)
        self.members[dest].add(task)

    def apply(self, relocations: list) -> None:
        """Move every ``(task, host)`` of ``relocations`` in turn; the host order is updated once."""
        touched = {int(self.th[task]) for task, _ in relocations} | {int(dest) for _, dest in relocations}
        self.order.changing(touched)
        for task, dest in relocations:
            self._move_task(int(task), int(dest))
        self.order.changed(touched)

    def reassign(self, tasks: np.ndarray, hosts: np.ndarray) -> None:
        """Put ``tasks`` on ``hosts`` at once; loads and memory recomputed from the placement."""
        for task, dest in zip(tasks.tolist(), hosts.tolist()):
            self.members[int(self.th[task])].discard(task)
            self.members[dest].add(task)
        self.th[tasks] = hosts
        self.load, self.used = host_loads(self.instance, self.th), host_memory(self.instance, self.th)
        self.order.rebuild(self.load)
