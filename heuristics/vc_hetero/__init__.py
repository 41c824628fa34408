"""VCSched heuristics for d rigid resources and host types (seed 001 §3.3-§3.4, §9).

:func:`heuristics.vc_hetero.methods.solve` runs one name of :data:`vcsched.names.vc_hetero.METHODS`
on a :class:`vcsched.problems.vc_hetero.HeteroInstance`.
"""
