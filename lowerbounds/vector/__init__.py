"""Lower bounds and certified optima for d-dimensional vector bin packing (fewest identical bins).

Modules, bottom up: :mod:`~lowerbounds.vector.bounds` (volume, L2, large items),
:mod:`~lowerbounds.vector.knapsack` (the d-dimensional pricing),
:mod:`~lowerbounds.vector.configuration` (the configuration LP),
:mod:`~lowerbounds.vector.upper` (restricted integer master, price-and-dive) and
:mod:`~lowerbounds.vector.certify` (``certify_packing``); for typed hosts and the max-min yield:
:mod:`~lowerbounds.vector.host_bounds` → :mod:`~lowerbounds.vector.typed_lp` (configuration LP with one count
row per host type) → :mod:`~lowerbounds.vector.hosts` (``certify_hosts``). docs/vector.md describes the method.
"""

from lowerbounds.vector.bounds import cheap_lower_bound, l2_bound, large_items_bound, volume_bound
from lowerbounds.vector.certify import PackingCertificate, bins_of, certify_packing
from lowerbounds.vector.configuration import configuration_lp
from lowerbounds.vector.hosts import HostsCertificate, certify_hosts
from lowerbounds.vector.knapsack import knapsack_nd

__all__ = ["cheap_lower_bound", "l2_bound", "large_items_bound", "volume_bound", "PackingCertificate", "bins_of",
           "certify_packing", "configuration_lp", "knapsack_nd", "HostsCertificate", "certify_hosts"]
