"""Readings of seed 003 checked for fidelity: faster servers than Table 5, and the paper's
repeated runs compared in "cross product" (§5.2.2)."""

import json

import numpy as np
import pytest

from heuristics.timeshare import evaluate, run_heuristic
from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.generators.timeshare import generate_scenario, rerun_noise
from vcsched.problems.timeshare import (
    TimeshareInstance,
    TimeshareWorkload,
    compare_with,
    cross_compare,
    implied_speed,
    make_platform,
    platform_for,
)


def test_compute_scale_changes_only_the_named_servers_computation():
    base = platform_for("2")
    fast = make_platform("wastecpu", base.servers, name="2", compute_scale={"spinnaker": 0.5})
    assert fast.compute[0].tolist() == [8.0, 15.3, 22.8]
    np.testing.assert_array_equal(fast.compute[1:], base.compute[1:])
    np.testing.assert_array_equal(fast.input, base.input)
    np.testing.assert_array_equal(fast.output, base.output)


def test_compute_scale_hand_computed_completion():
    # one type-1 task at t = 10 on an idle platform: HMCT takes spinnaker, 0.09 s input,
    # 16 x 0.5 = 8 s computation, 0.05 s output -> completion 18.14
    p = make_platform("wastecpu", platform_for("2").servers, compute_scale={"spinnaker": 0.5})
    inst = TimeshareInstance("x", p, TimeshareWorkload.independent([10.0], [0]))
    run = run_heuristic("hmct", inst)
    assert run.server.tolist() == [0]
    assert run.completion[0] == pytest.approx(18.14)


@pytest.mark.parametrize("scale, match", [({"nobody": 0.9}, "not on the platform"),
                                          ({"spinnaker": 0.0}, r"in \(0, 100\]"),
                                          ({"spinnaker": float("nan")}, r"in \(0, 100\]")])
def test_compute_scale_bad_input(scale, match):
    with pytest.raises(InvalidInputError, match=match):
        make_platform("wastecpu", platform_for("2").servers, compute_scale=scale)


def test_implied_speed_of_table_14_mean_mct_spinnaker():
    # Table 14 MEAN, MCT on spinnaker: 18.2 / 17.3 / 18.3 % of 500 tasks of types 1-3 (16, 30.6, 45.6 s)
    # = 8275.3 s of tabulated work; Table 18: makespan 7650, first arrival about mu = 15 s.
    work = 500 * (0.182 * 16 + 0.173 * 30.6 + 0.183 * 45.6)
    assert work == pytest.approx(8275.3, abs=0.01)
    assert implied_speed(work, 7650.0, 15.0) == pytest.approx(1.0839, abs=1e-4)
    with pytest.raises(InvalidInputError, match="makespan > start"):
        implied_speed(1.0, 5.0, 5.0)


def test_cross_compare_is_the_mean_over_pairs():
    c1, c2 = np.array([10.0, 20.0]), np.array([14.0, 20.0])
    r1, r2 = np.array([13.0, 20.0]), np.array([10.0, 30.0])
    # pairs: (c1, r1) sooner 50 later 0; (c1, r2) 50 / 0; (c2, r1) 0 / 0; (c2, r2) 50 / 50
    assert cross_compare([c1, c2], [r1, r2]) == (37.5, 12.5)
    assert cross_compare([c1], [r1]) == compare_with(c1, r1)
    with pytest.raises(InvalidInputError, match="at least one run"):
        cross_compare([], [r1])


def test_rerun_noise_streams_are_reproducible_and_independent():
    inst = generate_scenario("b", mu=20, rng=1, noise=0.04)
    a, b = rerun_noise(inst, 1, 0), rerun_noise(inst, 1, 0)
    np.testing.assert_array_equal(a.work_factor, b.work_factor)
    assert not np.array_equal(a.work_factor, rerun_noise(inst, 1, 1).work_factor)
    assert not np.array_equal(a.work_factor, rerun_noise(inst, 0, 0).work_factor)
    assert not np.array_equal(a.work_factor, inst.work_factor)
    assert a.work_factor.mean() == pytest.approx(1.0, abs=0.01)
    assert a.work_factor.std() == pytest.approx(0.04, rel=0.2)
    with pytest.raises(InvalidInputError, match="need a noise"):
        rerun_noise(generate_scenario("b", mu=20, rng=1), 0, 0)


def test_evaluate_runs_cross_product_by_hand():
    inst = generate_scenario("j", rng=2, noise=0.05)
    rows = {r["heuristic"]: r for r in evaluate(inst, ["mct", "msf"], runs=2)}
    mct = [run_heuristic("mct", rerun_noise(inst, 0, k)) for k in range(2)]
    msf = [run_heuristic("msf", rerun_noise(inst, 3, k)) for k in range(2)]
    pairs = [compare_with(a.completion, b.completion) for a in msf for b in mct]
    assert rows["msf"]["sooner_than_mct"] == pytest.approx(np.mean([p[0] for p in pairs]))
    assert rows["msf"]["later_than_mct"] == pytest.approx(np.mean([p[1] for p in pairs]))
    flows = [np.nansum(r.completion - r.arrival) for r in msf]
    assert rows["msf"]["sumflow"] == pytest.approx(np.mean(flows))
    assert rows["mct"]["sooner_than_mct"] == 0.0


def test_evaluate_one_run_is_unchanged():
    inst = generate_scenario("j", rng=2, noise=0.05)
    rows = {r["heuristic"]: r for r in evaluate(inst, ["mct", "hmct"])}
    ref, run = run_heuristic("mct", inst), run_heuristic("hmct", inst)
    assert (rows["hmct"]["sooner_than_mct"], rows["hmct"]["later_than_mct"]) == compare_with(run.completion,
                                                                                           ref.completion)
    with pytest.raises(InvalidInputError, match="runs must be"):
        evaluate(inst, ["mct"], runs=0)


def _cli(capsys, *argv):
    code = main(["timeshare", "simulate", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_compute_scale_and_runs(capsys):
    args = ("--scenario", "b", "--mu", "15", "--seed", "1", "--heuristic", "mct", "--json")
    plain = json.loads(_cli(capsys, *args)[1])
    fast = json.loads(_cli(capsys, *args, "--compute-scale", "spinnaker=0.9", "--compute-scale", "ARTIMON=0.9")[1])
    p = make_platform("wastecpu", platform_for("2").servers, name="2",
                      compute_scale={"spinnaker": 0.9, "artimon": 0.9})
    lib = evaluate(generate_scenario("b", platform=p, mu=15, rng=1), ["mct"])[0]
    assert fast["sumflow"] == pytest.approx(lib["sumflow"])
    assert fast["sumflow"] < plain["sumflow"]
    code, _, err = _cli(capsys, *args, "--compute-scale", "spinnaker=0.9", "--compute-scale", "spinnaker=0.8")
    assert code != 0 and "twice" in err
    code, _, err = _cli(capsys, *args, "--runs", "2")
    assert code != 0 and "--noise" in err
    with pytest.raises(SystemExit):
        main(["timeshare", "simulate", *args, "--compute-scale", "spinnaker"])
    with pytest.raises(SystemExit):
        main(["timeshare", "simulate", *args, "--runs", "0"])


def _two_servers():
    from vcsched.problems.timeshare import Platform
    return Platform(name="tiny", servers=("fast", "slow"), input=[[1.0], [1.0]], compute=[[10.0], [19.0]],
                    output=[[0.5], [0.5]], memory=[np.inf, np.inf], task_memory=[0.0])


@pytest.mark.parametrize("completion, servers", [("notify", [0, 0, 0]), ("report", [0, 1, 0])])
def test_mct_completion_rule_by_hand(completion, servers):
    # task 0 (t=0) -> fast, computes 1..11, result back at 11.5; the count sensor reported 1 at t=1.
    # task 1 (t=20): "notify" took the task off at 11.5 (load 0: fast 20+1.5+10 = 31.5 < slow 40.5);
    # "report" still records 1 (fast 20+1.5+2x10 = 41.5 > slow 40.5) until the report check at
    # t = 61 sends load 0; task 2 (t=70) then goes to the fast server under both rules.
    from heuristics.timeshare import MCT
    from vcsched.sim.timeshare import simulate_timeshare
    run = simulate_timeshare(_two_servers(), TimeshareWorkload.independent([0.0, 20.0, 70.0], [0, 0, 0]),
                             MCT(completion=completion))
    assert run.server.tolist() == servers
    assert run.completion[1] == pytest.approx(31.5 if completion == "notify" else 40.5)


def test_mct_completion_rule_bad_name():
    from heuristics.timeshare import MCT
    with pytest.raises(InvalidInputError, match="notify, report"):
        MCT(completion="never")
    with pytest.raises(InvalidInputError, match="notify, report"):
        evaluate(generate_scenario("j", rng=1), ["hmct"], mct_completion="later")


def test_cli_mct_completion_reaches_mct(capsys):
    args = ("--scenario", "b", "--mu", "20", "--seed", "2", "--heuristic", "all", "--json")
    rows = {r["heuristic"]: r for r in json.loads(_cli(capsys, *args, "--mct-completion", "report")[1])}
    lib = {r["heuristic"]: r for r in evaluate(generate_scenario("b", mu=20, rng=2), mct_completion="report")}
    assert rows["mct"]["sumflow"] == pytest.approx(lib["mct"]["sumflow"])
    assert rows["hmct"]["sooner_than_mct"] == pytest.approx(lib["hmct"]["sooner_than_mct"])
    plain = {r["heuristic"]: r for r in json.loads(_cli(capsys, *args)[1])}
    assert rows["hmct"]["sumflow"] == pytest.approx(plain["hmct"]["sumflow"])  # only MCT changes
    assert rows["mct"]["sumflow"] != pytest.approx(plain["mct"]["sumflow"])
