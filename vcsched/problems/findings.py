"""What a checker found: whether a result is valid, its violations, and how an invalid one fails.

The allocation checker of VCSched (:func:`vcsched.problems.vc.check_allocation`) and the schedule checker of
the moldable problem (:func:`vcsched.problems.moldable.check_schedule`) return a report built on
:class:`Findings`, each adding the criteria it measured.
"""

from __future__ import annotations

import dataclasses

__all__ = ["Findings"]


@dataclasses.dataclass(frozen=True)
class Findings:
    """``valid`` and the ``violations`` found (messages, empty when valid).

    :meth:`raise_if_invalid` raises the class's ``error`` naming the first five violations; a subclass sets
    ``noun`` (what was checked) and ``error`` (``AssertionError`` for a result the toolkit made, the project's
    input error for one a user gave).
    """

    valid: bool
    violations: tuple

    noun = "result"
    error = AssertionError

    def raise_if_invalid(self) -> None:
        if not self.valid:
            raise self.error(f"invalid {self.noun}: " + "; ".join(self.violations[:5]))
