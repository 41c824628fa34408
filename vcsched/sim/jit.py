"""``vcsched.sim.jit`` is :mod:`vcsched.jit` (the module moved to the base room so that the SWF reader of
:mod:`vcsched.problems` compiles with it too); this name stays the same module object, for the existing imports."""

import sys

from vcsched import jit as _jit

sys.modules[__name__] = _jit
