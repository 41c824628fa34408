"""The names of every algorithm, policy and method, one table per family, importable without numpy.

Each family's registry is built on its table (:class:`vcsched.registry.Registry` refuses a name that is not
in it, and the tests check that every name is registered); the command line's choices and help read the same
tables, so ``vcsched --help`` stays light and no name is written twice outside the tests.

=====================================  =================================================
module                                 names
=====================================  =================================================
:mod:`vcsched.names.references`        the reference methods of the simulated families
:mod:`vcsched.names.vc`                VCSched heuristics' modules, adaptation policies
:mod:`vcsched.names.moldable`          moldable heuristics, exact method, bounds, kinds
:mod:`vcsched.names.grid`              batch policies, meta-schedulers, reallocation and
                                       their rule variants, ``jobs.csv`` layouts
:mod:`vcsched.names.timeshare`         the time-shared heuristics, the simulator's rules
:mod:`vcsched.names.diet`              DIET approaches, RefinePlacement, experiments
:mod:`vcsched.names.vector`            vector-packing orders, windows, heuristics, ``vc pack`` methods
:mod:`vcsched.names.dfrs`              DFRS policies (batch baselines and fractional)
:mod:`vcsched.names.vc_hetero`         methods of VCSched with host types and d resources
=====================================  =================================================
"""
