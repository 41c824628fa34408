"""VCSched's method table through ``vcsched vc solve`` and through Python: migration budgets
respected by every method, default time limits, size refusals, options.

On an instance with current hosts and ``migration_budget: 0`` the MILP proves 0.556 with
no migration, while MCB8's from-scratch placement reaches 1.0 and SG/GB 0.714 by moving
jobs. No method may report a success that breaks the budget or exceeds a proven bound,
whether called from the command line, :func:`heuristics.vc.solve` or
``heuristics.vc.REGISTRY``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import heuristics.vc.methods as vc_methods
from heuristics.vc import METHODS, REGISTRY, solve, solve_many
from heuristics.vc.methods import DEFAULT_TIME_LIMIT, methods_for_all
from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.problems.vc import Allocation, VCInstance, check_allocation, parse_instance
from vcsched.problems.vc_metrics import migration_cost

ADAPT_METHODS = [name for name in METHODS if name.startswith("adapt-")]

BUDGET_INSTANCE = {"hosts": 3, "jobs": [{"cpu": 0.5, "mem": 0.5, "current_host": 0},
                                       {"cpu": 0.5, "mem": 0.5, "current_host": 0},
                                       {"cpu": 0.9, "mem": 0.4, "tasks": 2, "current_host": [1, 1]}],
                  "migration_budget": 0}


def solve_json(capsys, path, *extra):
    code = main(["vc", "solve", str(path), "--json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def flat_allocation(row) -> Allocation:
    host = np.concatenate([np.atleast_1d(h) for h in row["assignment"]]).astype(np.int64)
    cpu = np.concatenate([np.atleast_1d(c) for c in row["cpu"]]).astype(float)
    return Allocation(host, cpu)


def test_issue_instance_no_method_breaks_the_budget(tmp_path, capsys):
    path = tmp_path / "mig.json"
    path.write_text(json.dumps(BUDGET_INSTANCE))
    rows = {r["method"]: r for r in solve_json(capsys, path, "--method", "all")}
    milp = rows["milp"]
    assert milp["status"] == "optimal" and milp["min_yield"] == pytest.approx(1 / 1.8)
    assert milp["migrations"] == 0
    assert set(ADAPT_METHODS) <= set(rows)  # the instance has current hosts: adaptation policies join `all`
    from vcsched.problems.vc import load_instance

    inst = load_instance(path)
    for name, row in rows.items():
        if name == "lp" or row["status"] != "feasible" and row["status"] != "optimal":
            continue
        assert row["migrations"] == 0 and row["migrated_memory"] == 0, name
        assert row["min_yield"] <= milp["bound"] + 1e-9, name
        assert check_allocation(inst, flat_allocation(row)).valid, name
    for name in ("mcb8", "sg", "gb"):  # their from-scratch placements move a job: they say so
        assert rows[name]["status"] == "failed"
        assert "more than the migration budget 0" in rows[name]["message"]
        assert rows[name]["min_yield"] is None and rows[name]["assignment"] is None
    for name in ADAPT_METHODS:
        assert rows[name]["status"] == "feasible" and rows[name]["min_yield"] == pytest.approx(1 / 1.8)


def test_unbounded_budget_reports_migrations_after_relabelling(tmp_path, capsys):
    doc = dict(BUDGET_INSTANCE)
    doc.pop("migration_budget")
    path = tmp_path / "free.json"
    path.write_text(json.dumps(doc))
    row = solve_json(capsys, path, "--method", "mcb8")
    assert row["status"] == "feasible" and row["min_yield"] == pytest.approx(1.0)
    # relabelled to keep the most memory in place: only one 0.4-memory task has to move
    assert row["migrations"] == 1 and row["migrated_memory"] == pytest.approx(0.4)


def random_instance(rng: np.random.Generator) -> VCInstance:
    hosts = int(rng.integers(2, 4))
    jobs = int(rng.integers(3, 7))
    tasks = rng.integers(1, 3, size=jobs)
    cpu = rng.uniform(0.1, 1.0, size=jobs).round(3)
    mem = rng.uniform(0.05, 0.45, size=jobs).round(3)
    current = []
    for i in range(jobs):
        if rng.random() < 0.2:
            current.append(None)  # a new job
        elif tasks[i] == 1:
            current.append(int(rng.integers(0, hosts)))
        else:
            current.append([int(h) for h in rng.integers(0, hosts, size=tasks[i])])
    budget = [0.0, 0.3, 1.0, None][int(rng.integers(0, 4))]
    return VCInstance.from_arrays(hosts, cpu, mem, tasks, current_host=current, migration_budget=budget)


@pytest.mark.parametrize("budget_mode", ["memory", "count"])
def test_property_no_heuristic_result_exceeds_the_budget_or_the_optimum(budget_mode):
    rng = np.random.default_rng(19)
    methods = [m for m in methods_for_all(random_instance(np.random.default_rng(0))) if m not in ("milp", "lp")]
    checked = 0
    for _ in range(15):
        inst = random_instance(rng)
        best = solve(inst, "milp", time_limit=10, budget_mode=budget_mode)
        for name in methods:
            res = solve_many(inst, [name], rng=3, budget_mode=budget_mode)[0]
            if not res.success:
                continue
            report = check_allocation(inst, res.solution)
            assert report.valid, (name, report.violations)
            cost = migration_cost(inst, res.solution.task_host)
            spent = cost["migrated_memory"] if budget_mode == "memory" else cost["migrations"]
            assert res.extra["migrations"] == cost["migrations"]
            if inst.migration_budget is not None:
                assert spent <= inst.migration_budget + 1e-9, (name, spent, inst.migration_budget)
            if best.status.value == "optimal":
                assert res.objective <= best.objective + 1e-7, (name, res.objective, best.objective)
            checked += 1
    assert checked > 60  # the property was exercised, not skipped


def test_exact_methods_get_the_default_time_limit(tmp_path, capsys, monkeypatch):
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.3}, {"cpu": 0.7, "mem": 0.2}]}))
    rows = {r["method"]: r for r in solve_json(capsys, path, "--method", "milp,lp,mcb8")}
    assert rows["milp"]["time_limit"] == DEFAULT_TIME_LIMIT and rows["lp"]["time_limit"] == DEFAULT_TIME_LIMIT
    assert "time_limit" not in rows["mcb8"]
    row = solve_json(capsys, path, "--method", "milp", "--time-limit", "5")
    assert row["time_limit"] == 5 and "default" not in row["message"]


def test_certify_records_its_time_limit_like_the_exact_methods(tmp_path, capsys):
    """certify's default limit (60 s) is recorded in its JSON as the exact methods' is."""
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.3}, {"cpu": 0.7, "mem": 0.2}]}))
    row = solve_json(capsys, path, "--method", "certify")
    assert row["time_limit"] == vc_methods.CERTIFY_DEFAULT_TIME_LIMIT and row["status"] == "optimal"
    assert solve_json(capsys, path, "--method", "certify", "--time-limit", "7")["time_limit"] == 7


def test_reaching_the_default_time_limit_is_reported(tmp_path, capsys, monkeypatch):
    """A hard instance with a tiny default limit: the MILP stops with ``feasible`` and a gap,
    and the message says the default limit was reached."""
    from vcsched.generators.vc import generate_vc_instance
    from vcsched.problems.vc import save_instance

    monkeypatch.setattr(vc_methods, "DEFAULT_TIME_LIMIT", 0.05)
    path = tmp_path / "hard.json"
    save_instance(generate_vc_instance(8, 40, 0.5, 0.75, 0.75, rng=5), path)
    row = solve_json(capsys, path, "--method", "milp")
    assert row["time_limit"] == 0.05
    assert row["status"] in ("feasible", "time_limit"), row["status"]
    assert "stopped at the default time limit of 0.05 s (give --time-limit to change it)" in row["message"]
    if row["status"] == "feasible":
        assert row["gap"] > 0 and row["bound"] >= row["min_yield"]


def test_certify_is_refused_on_a_migration_budget_and_kept_out_of_all(tmp_path, capsys):
    # certify places from scratch: on this instance (budget 0) it would claim 1.0 > the proven 0.556
    path = tmp_path / "budget.json"
    path.write_text(json.dumps(BUDGET_INSTANCE))
    assert main(["vc", "solve", str(path), "--method", "certify", "--json"]) == 2
    err = capsys.readouterr().err
    assert "migration budget" in err and len(err.strip().splitlines()) == 1
    assert "certify" not in methods_for_all(VCInstance.from_arrays(2, [0.5], [0.5]))


def test_python_api_respects_the_budget_exactly_like_the_command_line(tmp_path, capsys):
    """``REGISTRY.get(name)(inst)`` and ``solve(inst, name)`` give the command line's status,
    message and migrations on the instance with budget 0 (failed) and without a budget (relabelled)."""
    for doc in (BUDGET_INSTANCE, {k: v for k, v in BUDGET_INSTANCE.items() if k != "migration_budget"}):
        path = tmp_path / "inst.json"
        path.write_text(json.dumps(doc))
        inst = parse_instance(doc)
        for name in ("mcb8", "sg", "gb", "rrnz"):
            row = solve_json(capsys, path, "--method", name, "--seed", "3")
            for res in (REGISTRY.get(name)(inst, rng=3), solve(inst, name, rng=3)):
                assert (res.status.value, res.message) == (row["status"], row["message"]), name
                assert res.extra["migrations"] == row["migrations"], name
                if res.solution is not None:
                    assert res.solution.assignment(inst) == row["assignment"], name
        if "migration_budget" in doc:
            assert REGISTRY.get("mcb8")(inst).status.value == "failed"


def test_solve_refuses_unknown_options_and_oversized_models_like_the_command_line(tmp_path, capsys):
    inst = VCInstance.from_arrays(400, [0.5] * 300, [0.1] * 300)  # 400 x 300 = 120,000 variables
    with pytest.raises(TypeError, match="mcb8: unknown option 'time_limit'"):
        solve(inst, "mcb8", time_limit=5)
    with pytest.raises(TypeError, match="unknown option 'time_limt'"):
        solve_many(inst, ["mcb8"], time_limt=5)
    with pytest.raises(InvalidInputError, match="120,000 assignment variables") as refused:
        solve(inst, "milp")
    path = tmp_path / "big.json"
    from vcsched.problems.vc import save_instance

    save_instance(inst, path)
    assert main(["vc", "solve", str(path), "--method", "milp"]) == 2
    assert capsys.readouterr().err.strip().endswith(str(refused.value))


def test_the_adapt_command_limit_is_the_relabelling_limit(capsys):
    """One limit (``vc_limits.MAX_RELABEL_HOSTS``) for the command and the method table."""
    from vcsched.problems.vc_limits import MAX_RELABEL_HOSTS

    assert vc_methods.MAX_RELABEL_HOSTS is MAX_RELABEL_HOSTS
    with pytest.raises(SystemExit) as exc:
        main(["vc", "adapt", "--hosts", str(MAX_RELABEL_HOSTS + 1), "--steps", "1"])
    assert exc.value.code == 2 and f"<= {MAX_RELABEL_HOSTS}, got '{MAX_RELABEL_HOSTS + 1}'" in capsys.readouterr().err
