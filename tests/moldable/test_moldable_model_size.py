"""Exact moldable models are sized before they are built.

The estimates of :mod:`vcsched.formulations.moldable_size` are upper bounds on
the models PuLP builds (checked against built models); the command line takes
the formulation that fits, or refuses with the limit named, in about a second
where building took minutes and gigabytes.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vcsched.cli import main
from vcsched.formulations.moldable_milp import build_model, build_time_indexed_model, time_grain
from vcsched.formulations.moldable_size import MAX_EXACT_NONZEROS, flow_model_size, time_indexed_model_size
from vcsched.generators.moldable import generate_moldable_instance
from vcsched.problems.moldable import MoldableInstance


def _nonzeros(prob) -> int:
    return sum(len(c) for c in prob.constraints.values()) + len(prob.objective)


@settings(max_examples=12, deadline=None)
@given(m=st.integers(1, 8), n=st.integers(1, 14), seed=st.integers(0, 10_000), half=st.booleans())
def test_estimates_bound_the_built_models(m, n, seed, half):
    inst = generate_moldable_instance(m, n, "mixed", rng=seed)
    if half:  # times on a grid of 0.5, as the moldable-exact experiment uses
        inst = MoldableInstance.from_arrays(m, np.ceil(inst.times * 2) / 2, inst.weights)
    prob, _ = build_model(inst)
    est = flow_model_size(inst)
    assert est.variables >= len(prob.variables()) and est.nonzeros >= _nonzeros(prob)
    grain = time_grain(inst)
    if grain is not None and time_indexed_model_size(inst, grain).nonzeros < 300_000:
        prob, _ = build_time_indexed_model(inst, grain)
        est = time_indexed_model_size(inst, grain)
        assert est.variables >= len(prob.variables()) and est.nonzeros >= _nonzeros(prob)


def _solve(tmp_path, capsys, doc, *extra):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    t0 = time.monotonic()
    code = main(["moldable", "solve", str(path), "--method", "exact", *extra])
    out, err = capsys.readouterr()
    return code, out, err, time.monotonic() - t0


def test_a_model_over_the_limit_is_refused_before_building(tmp_path, capsys):
    inst = generate_moldable_instance(32, 200, "high", rng=1)
    doc = {"m": 32, "tasks": [{"weight": float(w), "times": t.tolist()} for w, t in zip(inst.weights, inst.times)]}
    code, _, err, seconds = _solve(tmp_path, capsys, doc, "--time-limit", "1")
    assert code == 2 and err.count("\n") == 1
    assert f"more than the limit of {MAX_EXACT_NONZEROS:,} nonzeros" in err and "flow model" in err
    assert seconds < 10


def test_a_fine_grid_falls_back_to_branch_and_bound(tmp_path, capsys):
    # times with three decimals: grain 0.001, a time-indexed model of billions of nonzeros
    doc = {"m": 3, "tasks": [{"weight": 1.5, "times": [7.123, 4.001, 3.517]},
                             {"weight": 2, "times": [5.379, 3.211, 2.003]},
                             {"weight": 1, "times": [9.871, 5.113, 3.999]},
                             {"weight": 3, "times": [2.457, 1.5, 1.333]}]}
    code, out, err, _ = _solve(tmp_path, capsys, doc, "--time-limit", "20", "--json")
    assert code == 0, err
    row = json.loads(out)
    assert row["formulation"] == "branch-and-bound" and row["status"] == "optimal"
    assert row["minsum"] == pytest.approx(row["bound"], rel=1e-4)
    code, _, err, _ = _solve(tmp_path, capsys, doc, "--formulation", "time-indexed")
    assert code == 2 and "--formulation time-indexed: the time-indexed model of about" in err
    assert "use a smaller instance or --formulation flow" in err
