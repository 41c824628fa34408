"""Registries of algorithms by name, so the CLI and benchmarks iterate without special cases."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from vcsched.errors import InternalError, UnknownNameError

__all__ = ["Registry", "check_options"]

F = TypeVar("F", bound=Callable)


class Registry(Generic[F]):
    """An ordered mapping name -> callable, with a helpful error for unknown names.

    Examples
    --------
    >>> HEURISTICS = Registry("VCSched heuristic")
    >>> @HEURISTICS.register("gr")
    ... def greedy(instance): ...
    >>> HEURISTICS.names()
    ['gr']
    """

    def __init__(self, kind: str, names: Iterable[str] | None = None) -> None:
        self.kind = kind
        self._items: dict[str, F] = {}
        self._table = None if names is None else tuple(str(n).lower() for n in names)

    def register(self, name: str) -> Callable[[F], F]:
        """Register a callable under ``name``, which must be in the name table given (:mod:`vcsched.names`)."""
        key = name.lower()
        if self._table is not None and key not in self._table:
            raise InternalError(f"{self.kind} {name!r} is not in its name table ({', '.join(self._table)}); "
                                "add it to vcsched.names first")

        def decorator(func: F) -> F:
            if key in self._items and self._items[key] is not func:
                raise InternalError(f"{self.kind} {name!r} is registered twice")
            self._items[key] = func
            return func

        return decorator

    def get(self, name: str) -> F:
        key = str(name).lower()
        try:
            return self._items[key]
        except KeyError:
            close = difflib.get_close_matches(key, self._items, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UnknownNameError(
                f"unknown {self.kind} {name!r}{hint}; choose one of: {', '.join(self._items)}"
            ) from None

    def names(self) -> list[str]:
        return list(self._items)

    def unregistered(self) -> list[str]:
        """The names of the table that nothing registered (a test checks that there are none)."""
        return [n for n in (self._table or ()) if n not in self._items]

    def __contains__(self, name: object) -> bool:
        return str(name).lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def check_options(options: Iterable[str], accepted: Iterable[str], *, owner: str) -> None:
    """Raise ``TypeError`` naming the first of ``options`` not in ``accepted`` (sorted), as
    ``"<owner>: unknown option 'x'; it takes: a, b"``: an option is never silently ignored."""
    accepted = tuple(accepted)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise TypeError(f"{owner}: unknown option {unknown[0]!r}; it takes: {', '.join(accepted) or 'none'}")
