"""The simulator engine: event kernel, batch clusters (FCFS / CBF / EASY), grid platform, outputs.

See :mod:`vcsched.sim.kernel` (generic event loop), :mod:`vcsched.sim.batch` (clusters and
the rules of an instant), :mod:`vcsched.sim.compiled` (the compiled loops of conservative
backfilling), :mod:`vcsched.sim.platform` (several clusters under a
meta-scheduler passed in), :mod:`vcsched.sim.output` (``jobs.csv`` and metrics).
"""

from vcsched.sim.batch import BATCH_POLICIES, CBFCluster, Cluster, EasyCluster, FCFSCluster, make_cluster
from vcsched.sim.jobs import JobTable
from vcsched.sim.kernel import Kernel
from vcsched.sim.output import JOBS_COLUMNS, jobs_frame, metrics, write_jobs
from vcsched.sim.platform import Grid, MetaScheduler, SimulationResult, simulate
from vcsched.sim.profile import Profile

__all__ = ["Kernel", "Profile", "Cluster", "FCFSCluster", "EasyCluster", "CBFCluster", "BATCH_POLICIES",
           "make_cluster", "JobTable", "Grid", "MetaScheduler", "SimulationResult", "simulate", "JOBS_COLUMNS",
           "jobs_frame", "metrics", "write_jobs"]
