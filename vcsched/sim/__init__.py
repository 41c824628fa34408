"""The simulator engine: event kernel, batch clusters (FCFS / CBF / EASY), grid platform, outputs.

See :mod:`vcsched.sim.kernel` (generic event loop), :mod:`vcsched.sim.cluster` (the base
cluster and the rules of an instant), the batch policies :mod:`vcsched.sim.fcfs`,
:mod:`vcsched.sim.easy` (on :mod:`vcsched.sim.queued`) and :mod:`vcsched.sim.cbf`, their
registry :mod:`vcsched.sim.batch`, :mod:`vcsched.sim.planning` (the planning snapshot of
the meta-schedulers), :mod:`vcsched.sim.profile` (availability
profiles), :mod:`vcsched.sim.compiled` (the compiled profile rules and CBF loops),
:mod:`vcsched.sim.platform` (several clusters under a meta-scheduler passed in,
:func:`simulate_grid`), :mod:`vcsched.sim.output` (``jobs.csv`` and metrics). The
time-shared client-agent-server simulator is :mod:`vcsched.sim.timeshare`
(:func:`~vcsched.sim.timeshare.simulate_timeshare`), with
:mod:`vcsched.sim.processor_sharing` and :mod:`vcsched.sim.htm`.
"""

from vcsched.sim.batch import BATCH_POLICIES, make_cluster
from vcsched.sim.cbf import CBFCluster, CBFQueue
from vcsched.sim.cluster import Cluster
from vcsched.sim.easy import EasyCluster
from vcsched.sim.fcfs import FCFSCluster
from vcsched.sim.jobs import JobTable
from vcsched.sim.kernel import Kernel
from vcsched.sim.output import JOBS_COLUMNS, jobs_frame, metrics, write_jobs
from vcsched.sim.platform import Grid, MetaScheduler, SimulationResult, simulate_grid
from vcsched.sim.profile import Profile

__all__ = ["Kernel", "Profile", "Cluster", "FCFSCluster", "EasyCluster", "CBFCluster", "CBFQueue", "BATCH_POLICIES",
           "make_cluster", "JobTable", "Grid", "MetaScheduler", "SimulationResult", "simulate_grid",
           "JOBS_COLUMNS", "jobs_frame", "metrics", "write_jobs"]
