"""The simulator engine: event kernel, batch clusters (FCFS / CBF / EASY), grid platform, outputs.

See :mod:`vcsched.sim.kernel` (generic event loop), :mod:`vcsched.sim.batch` (clusters,
the CBF queue and the rules of an instant), :mod:`vcsched.sim.profile` (availability
profiles), :mod:`vcsched.sim.compiled` (the compiled profile rules and CBF loops),
:mod:`vcsched.sim.platform` (several clusters under a meta-scheduler passed in,
:func:`simulate_grid`), :mod:`vcsched.sim.output` (``jobs.csv`` and metrics). The
time-shared client-agent-server simulator is :mod:`vcsched.sim.timeshare`
(:func:`~vcsched.sim.timeshare.simulate_timeshare`), with
:mod:`vcsched.sim.processor_sharing` and :mod:`vcsched.sim.htm`.

``simulate`` is :func:`simulate_grid` under the name existing code uses.
"""

from vcsched.sim.batch import BATCH_POLICIES, CBFCluster, CBFQueue, Cluster, EasyCluster, FCFSCluster, make_cluster
from vcsched.sim.jobs import JobTable
from vcsched.sim.kernel import Kernel
from vcsched.sim.output import JOBS_COLUMNS, jobs_frame, metrics, write_jobs
from vcsched.sim.platform import Grid, MetaScheduler, SimulationResult, simulate, simulate_grid
from vcsched.sim.profile import Profile

__all__ = ["Kernel", "Profile", "Cluster", "FCFSCluster", "EasyCluster", "CBFCluster", "CBFQueue", "BATCH_POLICIES",
           "make_cluster", "JobTable", "Grid", "MetaScheduler", "SimulationResult", "simulate_grid", "simulate",
           "JOBS_COLUMNS", "jobs_frame", "metrics", "write_jobs"]
