"""VCSched heuristics (seed 001 §3.2-3.5, §5).

Every heuristic is a function ``f(instance, *, rng=None, **options) -> Result``
registered in :data:`REGISTRY`; a heuristic that finds no placement returns
status ``failed``, never an allocation the checker rejects. Importing this
package registers them all:

``mcb1`` .. ``mcb8``  multi-capacity bin packing with binary search on the yield (§3.4)
``gr``, ``sg``        greedy, sorted greedy (§3.3)
``gb``, ``sgb``       the same with bounded backtracking (§3.3)
``rrnd``, ``rrnz``    randomized rounding of the LP relaxation (§3.2)

Each is followed by the average-yield phase (§3.5); ``Result.seconds`` is the
total time and ``extra["seconds_first_phase"]`` the time without that phase
(what the paper reports).
"""

from heuristics.vc.greedy import gb, gr, sg, sgb
from heuristics.vc.mcb import mcb1, mcb2, mcb3, mcb4, mcb5, mcb6, mcb7, mcb8
from heuristics.vc.rounding import rrnd, rrnz
from vcsched.registry import Registry

REGISTRY: Registry = Registry("VCSched heuristic")

for _name, _fn in [
    ("mcb1", mcb1), ("mcb2", mcb2), ("mcb3", mcb3), ("mcb4", mcb4),
    ("mcb5", mcb5), ("mcb6", mcb6), ("mcb7", mcb7), ("mcb8", mcb8),
    ("gr", gr), ("sg", sg), ("gb", gb), ("sgb", sgb),
    ("rrnd", rrnd), ("rrnz", rrnz),
]:
    REGISTRY.register(_name)(_fn)

__all__ = ["REGISTRY", "mcb1", "mcb2", "mcb3", "mcb4", "mcb5", "mcb6", "mcb7", "mcb8",
           "gr", "sg", "gb", "sgb", "rrnd", "rrnz"]
