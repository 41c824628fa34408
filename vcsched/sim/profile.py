"""Availability profile of a space-shared cluster: numpy arrays worked on by the compiled profile rules.

The profile is a step function of time: ``t[k]`` are increasing breakpoints and
``f[k]`` the number of free processors on ``[t[k], t[k+1])``; the last step lasts
forever. Conservative backfilling (seed §3.1, CBF [16]) keeps one such profile with
every running job (until its requested end) and every reservation; FCFS and EASY build
one only to answer completion-time estimates (seed §2.1 "estimation of the completion
time"; :class:`vcsched.sim.queued._EstimatePlan`).

One implementation of each rule
-------------------------------
Each profile rule is written once, as a compiled function of
:mod:`vcsched.sim.compiled` on arrays with spare room: :func:`~vcsched.sim.compiled.add`
(reserve or release processors on an interval), :func:`~vcsched.sim.compiled.trim`
(forget the past, merge equal steps), :func:`~vcsched.sim.compiled.earliest` (the
earliest slot), :func:`~vcsched.sim.compiled.earliest_many` and
:func:`~vcsched.sim.compiled.reserve` (trim, earliest slot, reserve it).
:class:`CBFCluster <vcsched.sim.cbf.CBFCluster>` calls them on its own arrays;
:class:`Profile` wraps them for everything else (the FCFS/EASY estimate plan, the
ECT queries of the meta-schedulers, inspection). numba is imported, and the functions
compiled or loaded from their on-disk cache, at the first call of a method that needs
them.

Why no plain version here: a second, uncompiled implementation of the same rules in
production would be a copy to keep in step. The plain numpy implementation survives
as the test oracle, ``tests/sim/plain_profile.py``: the compiled functions are tested
against it, and the independent conservative-backfilling reference of
``tests/sim/literal_cbf.py`` is built on it rather than on this class, so that the
reference shares no profile code with the engine it checks.
"""

from __future__ import annotations

import numpy as np

from vcsched.errors import InvalidInputError

__all__ = ["Profile"]

_ROOM = 16  # initial room of the arrays (doubled when needed)


def _step_arrays(t: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The breakpoint and free-count arrays of a profile, with room for twice ``t`` (at least ``_ROOM``): ``t`` and
    ``f`` copied at their heads (``f`` may be shorter than ``t``; the rest is assigned later)."""
    room = max(_ROOM, 2 * t.size)
    T = np.empty(room)
    T[: t.size] = t
    F = np.empty(room, dtype=np.int64)
    F[: f.size] = f
    return T, F


_compiled = None


def _kernels():
    """The compiled module (imported on first use: numba loads only when a profile rule runs)."""
    global _compiled
    if _compiled is None:
        from vcsched.sim import compiled

        _compiled = compiled
    return _compiled


class Profile:
    """Free processors over time, with earliest-slot queries and reservations.

    Parameters
    ----------
    total : int
        Processors of the cluster (the value of the last, infinite step when nothing
        is reserved beyond it).
    start : float
        First breakpoint (the current time).

    Notes
    -----
    :attr:`t` and :attr:`f` are views of the current steps, valid until the next
    change (copy them to keep them). Build a profile from given steps with
    :meth:`from_steps` (or assign :attr:`t`, then :attr:`f`). Every method runs a compiled rule of :mod:`vcsched.sim.compiled`.

    Examples
    --------
    >>> prof = Profile(8, 0.0)
    >>> prof.reserve(0.0, 10.0, 6)          # 6 processors on [0, 10)
    >>> prof.earliest(4, 5.0, 0.0)          # 4 processors for 5 s: after the reservation
    10.0
    >>> prof.t.tolist(), prof.f.tolist()
    ([0.0, 10.0], [2, 8])
    """

    __slots__ = ("total", "_T", "_F", "_n")

    def __init__(self, total: int, start: float = 0.0) -> None:
        self.total = int(total)
        self._T = np.empty(_ROOM)
        self._F = np.empty(_ROOM, dtype=np.int64)
        self._T[0] = float(start)
        self._F[0] = self.total
        self._n = 1

    @classmethod
    def from_steps(cls, total: int, t, f) -> Profile:
        """A profile with breakpoints ``t`` (increasing) and free counts ``f`` (copied)."""
        t = np.asarray(t, dtype=np.float64).ravel()
        f = np.asarray(f, dtype=np.int64).ravel()
        if t.size == 0 or t.size != f.size:
            raise InvalidInputError(f"Profile.from_steps: give as many free counts as breakpoints (at least one), "
                                    f"got {t.size} breakpoints and {f.size} counts")
        prof = cls.__new__(cls)
        prof.total = int(total)
        prof._T, prof._F = _step_arrays(t, f)
        prof._n = t.size
        return prof

    @property
    def t(self) -> np.ndarray:
        """Breakpoints (a view). Assigning replaces them (then assign :attr:`f` of the same length)."""
        return self._T[: self._n]

    @t.setter
    def t(self, value) -> None:
        value = np.asarray(value, dtype=np.float64).ravel()
        self._T, self._F = _step_arrays(value, self._F[: min(self._n, value.size)])
        self._n = value.size

    @property
    def f(self) -> np.ndarray:
        """Free processors on ``[t[k], t[k+1])`` (a view). Assigning replaces them (as many as breakpoints)."""
        return self._F[: self._n]

    @f.setter
    def f(self, value) -> None:
        value = np.asarray(value, dtype=np.int64).ravel()
        if value.size != self._n:
            raise InvalidInputError(f"Profile.f: give one free count per breakpoint ({self._n}), got {value.size}; "
                                    "assign t first, or build the profile with Profile.from_steps")
        self._F[: self._n] = value

    def copy(self) -> Profile:
        return Profile.from_steps(self.total, self.t, self.f)

    def _room(self, rows: int) -> None:
        """Make room for ``rows`` more breakpoints."""
        size = self._T.size
        if self._n + rows > size:
            size = max(2 * size, self._n + rows)
            T, F = np.empty(size), np.empty(size, dtype=np.int64)
            T[: self._n], F[: self._n] = self._T[: self._n], self._F[: self._n]
            self._T, self._F = T, F

    def apply(self, rule, room: int, *args) -> list:
        """Run a compiled rule ``rule(T, F, n, *args) -> (n, *results)`` of :mod:`vcsched.sim.compiled` on this
        profile's arrays, with room for ``room`` more rows first; returns the rule's other results.

        How the CBF queue's loops (:meth:`vcsched.sim.cbf.CBFQueue.replan`) change the profile they plan on.
        """
        self._room(room)
        n, *rest = rule(self._T, self._F, self._n, *args)
        self._n = n
        return rest

    def add(self, start: float, end: float, delta: int) -> None:
        """Add ``delta`` free processors on ``[start, end)`` (negative to reserve): :func:`compiled.add`."""
        self._room(2)
        self._n = _kernels().add(self._T, self._F, self._n, float(start), float(end), int(delta), self.total)

    def reserve(self, start: float, duration: float, procs: int) -> None:
        self.add(start, start + duration, -procs)

    def release(self, start: float, duration: float, procs: int) -> None:
        self.add(start, start + duration, procs)

    def free_at(self, x: float) -> int:
        k = int(np.searchsorted(self.t, x, side="right")) - 1
        return self.total if k < 0 else int(self._F[k])

    def trim(self, now: float, *, merge: bool = False) -> None:
        """Forget the past before ``now``; with ``merge``, also merge equal neighbouring steps (:func:`compiled.trim`).

        Merging is safe for reservations: :meth:`add` re-inserts a boundary when it is
        needed, and a search for free processors only looks at the free counts.
        """
        self._n = _kernels().trim(self._T, self._F, self._n, float(now), bool(merge))

    def earliest(self, procs: int, duration: float, not_before: float) -> float:
        """Earliest ``s >= not_before`` with at least ``procs`` free on ``[s, s + duration)`` (:func:`compiled.earliest`).

        ``duration`` must be positive (the caller plans a zero requested time as 1 s);
        ``inf`` when ``procs`` exceeds the free processors of the last step.
        """
        return _kernels().earliest(self._T, self._F, self._n, int(procs), float(duration), float(not_before))

    def reserve_earliest(self, procs: int, duration: float, not_before: float, now: float) -> float:
        """Trim to ``now`` and reserve ``procs`` processors at the earliest slot from ``not_before >= now``.

        Returns the start of the slot (:func:`compiled.reserve`).
        """
        self._room(2)
        self._n, start = _kernels().reserve(self._T, self._F, self._n, int(procs), float(duration), float(now),
                                            float(not_before), self.total)
        return start

    def reserve_many(self, procs: np.ndarray, durations: np.ndarray, not_before: float, now: float,
                     advances: bool) -> tuple[np.ndarray, float]:
        """:meth:`reserve_earliest` for each job in turn (:func:`compiled.reserve_many`); with ``advances`` each one
        from the previous one's start (FCFS). Returns the starts and the last lower bound."""
        procs = np.ascontiguousarray(procs, dtype=np.int64).ravel()
        durations = np.ascontiguousarray(durations, dtype=np.float64).ravel()
        out = np.empty(procs.size)
        self._room(2 * procs.size)
        self._n, lower = _kernels().reserve_many(self._T, self._F, self._n, procs, durations, float(now),
                                                 float(not_before), self.total, bool(advances), out)
        return out, lower

    def earliest_many(self, procs: np.ndarray, durations: np.ndarray, not_before: float) -> np.ndarray:
        """:meth:`earliest` for many jobs at once (:func:`compiled.earliest_many`). Jobs wider than the cluster get ``inf``."""
        procs = np.ascontiguousarray(procs, dtype=np.int64).ravel()
        durations = np.ascontiguousarray(durations, dtype=np.float64).ravel()
        out = np.empty(procs.size)
        _kernels().earliest_many(self._T, self._F, self._n, procs, durations, float(not_before), out)
        return out

    def __repr__(self) -> str:
        steps = ", ".join(f"{a:g}:{b}" for a, b in zip(self.t.tolist(), self.f.tolist()))
        return f"Profile(total={self.total}, [{steps}])"
