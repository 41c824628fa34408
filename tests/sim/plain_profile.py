"""The availability profile written as the rule reads, in numpy: the test oracle of the compiled profile.

:class:`vcsched.sim.profile.Profile` (and everything in production that reserves,
releases, trims or searches a profile) runs the compiled functions of
:mod:`vcsched.sim.compiled`. This class is an independent implementation of the same
rules, kept only for the tests: the compiled functions are checked against it, and the
literal conservative backfilling of ``tests/sim/literal_cbf.py`` is built on it, so that
the reference shares no profile code with the engine it checks.

The profile is a step function of time: ``t[k]`` are increasing breakpoints and ``f[k]``
the number of free processors on ``[t[k], t[k+1])``; the last step lasts forever. The
earliest-slot search is done without Python loops: a start candidate ``k`` is feasible
when ``f[k] >= p`` and the next breakpoint where ``f < p`` is at or after
``t[k] + d``.
"""

from __future__ import annotations

import numpy as np

_INF = float("inf")


class PlainProfile:
    """Free processors over time, with earliest-slot queries and reservations.

    Parameters
    ----------
    total : int
        Processors of the cluster (the value of the last, infinite step when nothing
        is reserved beyond it).
    start : float
        First breakpoint (the current time).
    """

    __slots__ = ("total", "t", "f")

    def __init__(self, total: int, start: float = 0.0) -> None:
        self.total = int(total)
        self.t = np.array([float(start)])
        self.f = np.array([self.total], dtype=np.int64)

    def copy(self) -> PlainProfile:
        other = PlainProfile.__new__(PlainProfile)
        other.total, other.t, other.f = self.total, self.t.copy(), self.f.copy()
        return other

    def _breakpoint(self, x: float) -> int:
        t = self.t
        k = int(t.searchsorted(x))
        if k < t.size and t[k] == x:
            return k
        f = self.f
        if k == 0:  # before the first breakpoint (trimmed past): nothing is reserved there
            self.t = np.concatenate(((x,), t))
            self.f = np.concatenate(((self.total,), f))
            return 0
        self.t = np.concatenate((t[:k], (x,), t[k:]))
        self.f = np.concatenate((f[:k], f[k - 1:]))
        return k

    def add(self, start: float, end: float, delta: int) -> None:
        """Add ``delta`` free processors on ``[start, end)`` (negative to reserve)."""
        if not end > start:
            return
        i = self._breakpoint(start)
        j = self._breakpoint(end)
        self.f[i:j] += delta

    def reserve(self, start: float, duration: float, procs: int) -> None:
        self.add(start, start + duration, -procs)

    def release(self, start: float, duration: float, procs: int) -> None:
        self.add(start, start + duration, procs)

    def free_at(self, x: float) -> int:
        k = int(np.searchsorted(self.t, x, side="right")) - 1
        return self.total if k < 0 else int(self.f[k])

    def trim(self, now: float, *, merge: bool = False) -> None:
        """Forget the past before ``now``; with ``merge``, also merge equal neighbouring steps.

        Merging is safe for reservations: :meth:`add` re-inserts a boundary when it is
        needed, and a search for free processors only looks at the free counts.
        """
        t, f = self.t, self.f
        k = int(t.searchsorted(now, side="right")) - 1
        if k > 0:
            t, f = t[k:], f[k:]
        if t[0] < now:
            t = t.copy()
            t[0] = now
        if merge and f.size > 1:
            keep = np.empty(f.size, dtype=bool)
            keep[0] = True
            np.not_equal(f[1:], f[:-1], out=keep[1:])
            if not keep.all():
                t, f = t[keep], f[keep]
        self.t, self.f = t, f

    def earliest(self, procs: int, duration: float, not_before: float) -> float:
        """Earliest ``s >= not_before`` with at least ``procs`` free on ``[s, s + duration)``.

        ``procs`` must not exceed :attr:`total` (the caller checks it); ``duration``
        must be positive (the caller plans a zero requested time as 1 s).
        """
        t, f = self.t, self.f
        k0 = int(t.searchsorted(not_before, side="right")) - 1
        if k0 < 0:
            k0 = 0
        F = f[k0:]
        ok = F >= procs
        bad = np.flatnonzero(~ok)
        if bad.size == 0:
            return max(not_before, float(t[k0]))
        T = t[k0:]
        first_bad = bad[0]
        if first_bad > 0 and T[first_bad] >= max(not_before, T[0]) + duration:
            return max(not_before, float(T[0]))
        starts = T.copy()
        if starts[0] < not_before:
            starts[0] = not_before
        nxt = np.searchsorted(bad, np.arange(F.size))
        t_bad = np.append(T[bad], _INF)[nxt]
        feasible = ok & (t_bad >= starts + duration)
        return float(starts[int(np.argmax(feasible))])

    def __repr__(self) -> str:
        steps = ", ".join(f"{a:g}:{b}" for a, b in zip(self.t.tolist(), self.f.tolist()))
        return f"PlainProfile(total={self.total}, [{steps}])"
