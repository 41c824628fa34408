"""``vc generate --resources/--host-types/--preset`` and ``vc solve`` on the new JSON form."""

import json
import subprocess
import sys

import numpy as np
import pytest

from heuristics.vc_hetero.methods import solve
from vcsched.generators.vc_hetero import GRID5000, generate_hetero
from vcsched.problems.vc_hetero import load_hetero


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "vcsched.cli", *args], capture_output=True, text=True)


def test_generate_then_solve_equals_the_python_api(tmp_path):
    path = tmp_path / "g.json"
    out = _cli("vc", "generate", "--hosts", "5", "--jobs", "10", "--slack", "0.5", "--resources", "3",
               "--host-types", "2", "--seed", "3", "-o", str(path))
    assert out.returncode == 0, out.stderr
    inst = load_hetero(path)
    assert inst.d == 3 and inst.host_count.sum() == 5 and inst.host_count.shape == (2,)
    ref = generate_hetero(5, 10, resources=3, host_types=2, slack=0.5, rng=3)
    assert np.array_equal(inst.job_rigid, ref.job_rigid) and np.array_equal(inst.host_cap, ref.host_cap)
    out = _cli("vc", "solve", str(path), "--method", "mcb8,milp", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    for row, name in zip(rows, ("mcb8", "milp")):
        api = solve(inst, name)
        assert row["method"] == name and row["status"] == str(api.status) and row["min_yield"] == api.objective
    assert rows[0]["min_yield"] is None or rows[0]["min_yield"] <= rows[1]["min_yield"] + 1e-9


def test_grid5000_preset_has_the_four_generations():
    inst = generate_hetero(40, 100, preset="grid5000", rng=0)
    assert inst.resources == GRID5000["resources"] and inst.host_cpu.tolist() == list(GRID5000["cpu"])
    assert inst.n_hosts == 40 and (inst.host_count >= 1).all()
    fits = np.all(inst.job_rigid[:, None, :] <= inst.host_cap[None] + 1e-12, axis=2).any(axis=1)
    assert fits.all()


@pytest.mark.parametrize("doc, words", [
    ({"hosts": 2, "resources": ["mem"], "jobs": [{"cpu": 0.5, "mem": 0.5}]}, "old form"),
    ({"resources": ["mem"], "hosts": [{"cpu": 1, "mem": 1, "disk": 1}], "jobs": [{"cpu": 0.5, "mem": 0.5}]},
     "'disk' is not declared"),
])
def test_bad_json_one_line_exit_2(tmp_path, doc, words):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    out = _cli("vc", "solve", str(path), "--method", "mcb8")
    assert out.returncode == 2 and words in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
