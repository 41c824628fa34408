"""``vcsched vc solve --method mcbN``: the printed results are the plain oracle's
(``tests/vc/plain_oracle.py``: MCB, the average-yield phase and the checker on lists), to
the last digit but the timings; bad files get the loader's one-line error whatever the method.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vcsched.cli
from heuristics.vc.methods import result_row
from tests.vc.plain_oracle import mcb_plain
from vcsched.problems.vc import MIN_CPU, parse_instance

TIMINGS = ("seconds", "seconds_first_phase")


def random_doc(seed: int) -> dict:
    """Mostly one-task instances (where the oracle applies), some with parallel jobs or current
    hosts; memory scaled so that some do not pack."""
    rng = np.random.default_rng(seed)
    H, J = int(rng.integers(1, 6)), int(rng.integers(1, 12))
    mem_scale = float(rng.uniform(0.05, 1.5))
    kind = rng.choice(["one-task", "one-task", "one-task", "parallel", "current"])
    jobs = []
    for _ in range(J):
        cpu = float(rng.choice([MIN_CPU, 0.25, 0.5])) if rng.random() < 0.3 else float(rng.uniform(MIN_CPU, 1.0))
        job = {"cpu": cpu, "mem": float(min(1.0, rng.random() * mem_scale))}
        if kind == "parallel":
            job["tasks"] = int(rng.integers(1, 4))
        if kind == "current":
            job["current_host"] = int(rng.integers(0, H))
        jobs.append(job)
    return {"hosts": H, "jobs": jobs}


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = vcsched.cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def stdout_of(argv: list[str]) -> str:
    """Standard output of an in-process run that succeeds (hypothesis forbids capsys in @given)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert vcsched.cli.main(argv) == 0
    return buf.getvalue()


def untimed_json(text: str):
    doc = json.loads(text)
    rows = doc if isinstance(doc, list) else [doc]
    for row in rows:
        for key in TIMINGS:
            assert key in row
            row.pop(key)
    return doc


def untimed_table(text: str) -> list[list[str]]:
    """The table's cells without the last column (seconds)."""
    return [line.split()[:-1] for line in text.splitlines()]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), methods=st.sampled_from(["mcb8", "mcb1,mcb8", "MCB3,mcb5,mcb3", "mcb2,mcb4,mcb6,mcb7"]))
def test_solve_prints_what_the_oracle_computes(seed, methods):
    doc = random_doc(seed)
    inst = parse_instance(doc)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "f.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
        printed = untimed_json(stdout_of(["vc", "solve", path, "--method", methods, "--json"]))
        text = stdout_of(["vc", "solve", path, "--method", methods])
    rows = printed if isinstance(printed, list) else [printed]
    names = list(dict.fromkeys(m.strip().lower() for m in methods.split(",")))
    assert [r["method"] for r in rows] == names
    assert len(text.splitlines()) == len(names) + 1
    if inst.current_host is None and not inst.is_parallel:
        expected = [result_row(mcb_plain(inst, int(name[3:])), inst) for name in names]
        assert rows == untimed_json(json.dumps(expected))


def test_solve_output_on_a_known_instance(tmp_path, capsys):
    """Two hosts, jobs (0.8, 0.5), (0.8, 0.5), (0.4, 0.4): MCB8 places one 0.8 job per host and
    the 0.4 job with one of them, load 1.2, min yield 1 / 1.2; the average-yield phase gives the
    0.8 job alone its full need and shares 1 - 0.4 / 1.2 on the other host."""
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 0.8, "mem": 0.5}, {"cpu": 0.8, "mem": 0.5},
                                                     {"cpu": 0.4, "mem": 0.4}]}))
    code, out, _ = run(capsys, ["vc", "solve", str(path), "--method", "mcb8", "--json"])
    row = json.loads(out)
    assert code == 0 and row["status"] == "feasible"
    assert row["min_yield"] == pytest.approx(1 / 1.2, abs=1e-12)
    assert sorted(row["assignment"][:2]) == [0, 1]
    shared = row["assignment"][2]
    alone = 1 - shared
    assert row["cpu"][alone] == pytest.approx(0.8)
    assert row["cpu"][2] + row["cpu"][shared] == pytest.approx(1.0)
    assert set(row) == {"method", "status", "min_yield", "avg_yield", "assignment", "cpu", "bound", "gap", "seconds",
                        "message", "seconds_first_phase"}


def test_solve_reports_failure(tmp_path, capsys):
    """Memory 0.6 + 0.6 > 1 on one host: no placement; MCB says failed, exit 0, no allocation."""
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"hosts": 1, "jobs": [{"cpu": 0.2, "mem": 0.6}, {"cpu": 0.2, "mem": 0.6}]}))
    code, out, _ = run(capsys, ["vc", "solve", str(path), "--method", "mcb8", "--json"])
    row = json.loads(out)
    assert code == 0 and row["status"] == "failed" and row["assignment"] is None and row["min_yield"] is None
    assert "no yield" in row["message"]


BAD_DOCS = [
    {"hosts": 2, "jobs": [{"cpu": 1.5, "mem": 0.1}]},
    {"hosts": 2, "jobs": [{"cpu": 5e-324, "mem": 0.1}]},
    {"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.1, "tsks": 2}]},
    {"hosts": 2, "jbos": []},
    {"hosts": 1e308, "jobs": [{"cpu": 0.5, "mem": 0.1}]},
    {"hosts": 10**400, "jobs": [{"cpu": 0.5, "mem": 0.1}]},
    {"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.1, "tasks": 2.5}]},
    {"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.1, "tasks": 2, "current_host": [0]}]},
    {"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.1, "current_host": 2}]},
    {"hosts": 2, "jobs": []},
    {"hosts": 100_000, "jobs": [{"cpu": 0.5, "mem": 0.1, "tasks": 1_000_000}]},
    [1, 2],
]


@pytest.mark.parametrize("doc", BAD_DOCS, ids=range(len(BAD_DOCS)))
def test_bad_instances_get_the_same_message_whatever_the_method(tmp_path, capsys, doc):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    plain = run(capsys, ["vc", "solve", str(path), "--method", "mcb8"])
    full = run(capsys, ["vc", "solve", str(path), "--method", "milp"])
    assert plain[0] == full[0] == 2
    assert plain[1] == full[1] == ""
    assert plain[2] == full[2] and plain[2].count("\n") == 1 and str(path) in plain[2]


@pytest.mark.parametrize("content", [b"{\"hosts\": 2, \"jobs\": [", b"\x00\x01\x02\xff", "{}".encode("utf-16"),
                                     b"{\"hosts\": NaN, \"jobs\": []}"])
def test_bad_files_get_the_same_message_whatever_the_method(tmp_path, capsys, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    plain = run(capsys, ["vc", "solve", str(path), "--method", "mcb8"])
    full = run(capsys, ["vc", "solve", str(path), "--method", "milp"])
    assert plain == full and plain[0] == 2
    # a directory is an instance set: the bad file is an error row, the same whatever the method
    plain = run(capsys, ["vc", "solve", str(tmp_path), "--method", "mcb8", "--workers", "1"])
    full = run(capsys, ["vc", "solve", str(tmp_path), "--method", "milp", "--workers", "1"])
    assert plain[0] == full[0] == 0
    assert plain[1].replace("mcb8", "milp") == full[1] and " error " in plain[1]


def test_an_unknown_method_among_known_ones_is_refused(tmp_path, capsys):
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.3}]}))
    code, _, err = run(capsys, ["vc", "solve", str(path), "--method", "mcb8,mcb9"])
    assert code == 2 and "unknown method 'mcb9'" in err
    code, _, err = run(capsys, ["vc", "solve", str(path), "--method", " , "])
    assert code == 2 and "--method" in err
