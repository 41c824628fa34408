"""vcsched: a toolkit for scheduling research on clusters and grids.

Core package: problem models, generators, file formats, exact PuLP
formulations (solved by HiGHS), the simulator engine and the command line.
"""

from vcsched.errors import InvalidInputError, SolverUnavailableError, UnknownNameError, VcschedError
from vcsched.registry import Registry
from vcsched.result import Result, Status

__version__ = "0.1.0"

__all__ = [
    "Result",
    "Status",
    "Registry",
    "VcschedError",
    "InvalidInputError",
    "UnknownNameError",
    "SolverUnavailableError",
    "__version__",
]
