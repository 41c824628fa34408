"""Price-and-dive (lowerbounds.vc.dive): its packings fit, it never packs below the optimum, it finds
the perfect packings heuristics miss, and it honours its deadline."""

from __future__ import annotations

import time

import numpy as np
import pytest

from lowerbounds.vc.dive import dive_packing
from lowerbounds.vc.integer_master import placement_from_configurations
from lowerbounds.vc.packing import configuration_lp, packing_items
from tests.vc.test_vc_certify_integer_master import _triplet_instance, tiny_instance_with_optimum
from vcsched.generators.vc import VCSpec, build_instance, generate_vc_instance
from vcsched.problems.vc import host_loads, host_memory


def _placement(inst, out):
    th = placement_from_configurations(inst, out.columns, out.counts)
    assert th is not None
    return th


@pytest.mark.parametrize("seed", range(20))
def test_a_dive_packing_fits_and_none_exists_below_the_optimum(seed):
    """Tiny instances against brute force: at the optimal largest load times 1.05 a packing found
    fits memory (the checker's rule) and the load; below the optimum nothing is ever found."""
    inst, opt = tiny_instance_with_optimum(seed, hosts=(2, 4), jobs=(3, 7))
    items = packing_items(inst)
    above = dive_packing(items, opt * 1.05)
    if above.status == "found":
        th = _placement(inst, above)
        assert np.all(host_memory(inst, th) <= 1 + 1e-12)
        assert host_loads(inst, th).max() <= opt * 1.05 * (1 + 1e-12)
        assert above.counts.sum() <= inst.hosts
    else:
        assert above.status == "failed"
    below = dive_packing(items, opt * (1 - 1e-6))
    assert below.status == "failed" and below.counts is None


@pytest.mark.parametrize("seed", range(4))
def test_the_dive_finds_the_perfect_triplet_packing(seed):
    """Memory of three tasks per host summing exactly to 1: at a load the LP allows, with memory
    exactly full on every host, the dive finds the packing."""
    inst = _triplet_instance(seed)
    items = packing_items(inst)
    loose = float(inst.task_cpu.sum())  # CPU never binds: the memory packing alone
    out = dive_packing(items, loose)
    assert out.status == "found"
    th = _placement(inst, out)
    assert np.all(host_memory(inst, th) <= 1 + 1e-12)
    assert np.bincount(th, minlength=inst.hosts).tolist() == [3] * inst.hosts


def test_the_dive_reuses_the_columns_it_is_given():
    """Warm-started with a configuration LP's columns at the same load, the dive starts from them:
    no fewer columns than given (those that fit)."""
    inst = generate_vc_instance(8, 24, 0.4, 0.75, 0.75, rng=2)
    items = packing_items(inst)
    load = float(inst.task_cpu.sum()) / inst.hosts * 1.2
    proof = configuration_lp(items, load, keep_columns=True)
    out = dive_packing(items, load, columns=proof.generated)
    assert len(out.columns) >= items.demand.size + len(proof.generated)
    if out.status == "found":
        th = _placement(inst, out)
        assert host_loads(inst, th).max() <= load * (1 + 1e-12)


def test_the_dive_honours_its_deadline():
    inst = build_instance(VCSpec("large", 64, 250, 0.1, 0.75, 0.75, 4, None), 0)
    items = packing_items(inst)
    load = float(inst.task_cpu.sum()) / inst.hosts * 1.002
    t0 = time.perf_counter()
    out = dive_packing(items, load, deadline=time.perf_counter() + 0.5)
    assert time.perf_counter() - t0 <= 0.5 + 0.6  # one pricing round past the deadline at most
    assert out.status in ("time_limit", "found", "failed")
