"""Lower bounds for moldable tasks (seed 002 §3.3): makespan (dual approximation) and weighted minsum (interval
LP, refined interval LP by columns).

Modules: :mod:`~lowerbounds.moldable.bounds` (every bound and the method table), :mod:`~lowerbounds.moldable.refined`
(the refined LP's columns and its column generation).
"""

from lowerbounds.moldable.bounds import (
    BOUND_METHODS,
    DEFAULT_RATIO,
    MAX_INTERVAL_VARIABLES,
    DualSearch,
    batch_times,
    brute_force_optimum,
    check_interval_model_size,
    dual_approximation_search,
    dual_test,
    interval_bound,
    makespan_lower_bound,
    minsum_bound,
    refined_interval_bound,
    smallest_allotment,
)

__all__ = ["DualSearch", "smallest_allotment", "dual_test", "dual_approximation_search", "makespan_lower_bound",
           "batch_times", "interval_bound", "brute_force_optimum", "refined_interval_bound", "BOUND_METHODS",
           "minsum_bound", "DEFAULT_RATIO", "MAX_INTERVAL_VARIABLES", "check_interval_model_size"]
