"""``grid simulate --trace T -o jobs.csv`` writes the bytes of the plain simulator (``tests/sim/plain_batch.py``),
and the CSV writer writes the bytes of pandas' ``to_csv``."""

from __future__ import annotations

import gzip
import importlib.util
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.sim import native_build, plain_batch
from vcsched.cli import main
from vcsched.problems.workload import from_arrays, read_swf
from vcsched.sim import JobTable, make_cluster, simulate_grid
from vcsched.sim.output import jobs_frame, write_jobs, write_jobs_csv

_spec = importlib.util.spec_from_file_location("_sim_conftest", Path(__file__).resolve().parent.parent / "conftest.py")
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
require_trace = _conftest.require_trace

POLICIES = ("fcfs", "easy", "cbf")


@pytest.fixture(params=["c", "fallback"])
def loops(request, monkeypatch):
    """Each test runs with the C extension's loops, then with their fallbacks (numba, numpy, Python)."""
    native_build.use(request.param, monkeypatch)
    return request.param


def _random_swf(path: Path, seed: int, n: int = 400, procs: int = 32) -> None:
    """An SWF file with the awkward cases: zero run and requested times, unknown requested times (-1), runs
    longer than requested, bursts of equal submit times, jobs to skip, blank and comment lines, tabs."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, n * 20, size=n) // 7 * 7)
    req = rng.choice([-1, 0, 1, 30, 100, 600, 3600], size=n)
    run = np.where(rng.random(n) < 0.1, 0, rng.integers(0, 1200, size=n))
    width = rng.choice([0, 1, 2, 3, 8, 16, procs], size=n, p=[0.02, 0.3, 0.2, 0.2, 0.13, 0.1, 0.05])
    lines = [f"; MaxProcs: {procs}", "; a comment", ""]
    for i in range(n):
        f = [i + 1, submit[i], -1, run[i], width[i], -1, -1, width[i] if i % 3 else -1, req[i]] + [-1] * 9
        sep = "\t" if i % 11 == 0 else "  "
        lines.append(sep.join(str(x) for x in f))
        if i % 97 == 0:
            lines.append("")
    path.write_text("\n".join(lines) + "\n")


def _both(trace: Path, policy: str, tmp_path: Path) -> tuple[bytes, bytes]:
    ours, plain = tmp_path / f"ours.{policy}.csv", tmp_path / f"plain.{policy}.csv"
    assert main(["grid", "simulate", "--trace", str(trace), "--policy", policy, "-o", str(ours), "--no-progress",
                 "--json"]) == 0
    plain_batch.run(str(trace), policy, str(plain))
    return ours.read_bytes(), plain.read_bytes()


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("seed", range(3))
def test_jobs_csv_equals_the_plain_simulator_on_random_traces(policy, seed, tmp_path, capsys, loops, monkeypatch):
    """With the C extension and without it, the whole run compiled at any size (its thresholds set to 0)."""
    monkeypatch.setattr("vcsched.sim.platform.Grid.WHOLE_RUN_C_FROM", 0)
    monkeypatch.setattr("vcsched.sim.platform.Grid.WHOLE_RUN_FROM", 0)
    trace = tmp_path / f"r{seed}.swf"
    _random_swf(trace, seed)
    ours, plain = _both(trace, policy, tmp_path)
    assert ours == plain
    assert ours.count(b"\n") > 300


@pytest.mark.parametrize("policy", POLICIES)
def test_jobs_csv_equals_the_plain_simulator_on_the_start_of_kth(policy, tmp_path, capsys):
    with gzip.open(require_trace("KTH-SP2-1996-2.1-cln.swf.gz"), "rt") as fh:
        head = [next(fh) for _ in range(3000)]
    trace = tmp_path / "kth-head.swf.gz"
    with gzip.open(trace, "wt") as fh:
        fh.writelines(head)
    ours, plain = _both(trace, policy, tmp_path)
    assert ours == plain and ours.count(b"\n") > 2500


@pytest.mark.parametrize("chunk", [100, 1 << 20])
def test_fast_swf_reader_equals_the_line_reader(chunk, tmp_path, monkeypatch, loops):
    """A file the fast path reads (in chunks of ``chunk`` bytes) and the same file with a comment after the data
    (read line by line)."""
    monkeypatch.setattr("vcsched.problems.swf_fast._CHUNK_BYTES", chunk)
    path = tmp_path / "a.swf"
    _random_swf(path, 7)
    other = tmp_path / "b.swf"
    other.write_text(path.read_text() + "; trailing comment\n")
    a, b = read_swf(path), read_swf(other)
    np.testing.assert_array_equal(a.fields, b.fields)
    assert a.header == b.header[:-1] and a.skipped == b.skipped > 0 and a.max_procs == 32


def test_bad_line_reported_with_its_number_by_the_fast_reader(tmp_path):
    path = tmp_path / "bad.swf"
    rows = [" ".join(["1"] * 18)] * 3 + [" ".join(["1"] * 17)]
    path.write_text("; MaxProcs: 4\n\n" + "\n".join(rows) + "\n")
    with pytest.raises(Exception, match=r"bad.swf:6: malformed SWF line"):
        read_swf(path)
    path.write_text("; MaxProcs: 4\n" + "\n".join(rows[:3]) + "\n" + " ".join(["1"] * 8 + ["-5"] + ["1"] * 9) + "\n")
    with pytest.raises(Exception, match=r"bad.swf:5: field 9"):
        read_swf(path)


def _grid_result():
    """Two clusters and a job that cannot run anywhere useful: names with a comma and a quote, Batsim profiles."""
    w = from_arrays([0, 0, 1, 3], [10, 5, 0, 2], [10, 5, 0, 4], [6, 6, 4, 2])
    w2 = from_arrays([0, 2], [3, 1], [3, 1], [1, 8])
    jobs = JobTable.from_workloads([w, w2], labels=['a,b', 'q"x'])
    return simulate_grid([make_cluster('a,b', 8, 1.0, "easy"), make_cluster('q"x', 8, 1.5, "cbf")], jobs)


@pytest.mark.parametrize("rows", [2, 20000])
@pytest.mark.parametrize("layout", ["batsim", "legacy"])
def test_csv_writer_writes_what_pandas_to_csv_writes(layout, rows, tmp_path, monkeypatch, loops):
    monkeypatch.setattr("vcsched.sim.output._CSV_ROWS", rows)  # blocks of rows
    monkeypatch.setattr("vcsched.sim.output._CSV_ROWS_NATIVE", rows)
    for res in (_grid_result(), simulate_grid([make_cluster("c", 8, policy="fcfs")], JobTable.from_workloads(
            [from_arrays([0, 1, 1], [0.1, 1 / 3, 0], [1e-5, 1e11 + 0.7, 0], [8, 1, 2])]))):
        write_jobs(res, tmp_path / "ours.csv", layout=layout)
        jobs_frame(res, layout=layout).to_csv(tmp_path / "pandas.csv", index=False)
        assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()
        back = pd.read_csv(tmp_path / "ours.csv", keep_default_na=False)
        assert len(back) == len(res.jobs)


@pytest.mark.parametrize("rows", [1, 3, 4096])
def test_csv_float_columns_integral_or_not_write_their_repr(rows, tmp_path, monkeypatch, loops):
    """A float column is written as ``%d.0`` only where that is its repr: -0.0, 1e16 and above, NaN, inf, halves and
    negative integers, alone or mixed in a block, give pandas' bytes."""
    monkeypatch.setattr("vcsched.sim.output._CSV_ROWS", rows)
    monkeypatch.setattr("vcsched.sim.output._CSV_ROWS_NATIVE", rows)
    odd = [0.0, -0.0, -5.0, 9999999999999998.0, 1e16, -1e16, 3e17, np.nan, np.inf, -np.inf, 0.5, 7.0, 2.0 ** 62]
    cols = {"a": np.array(odd), "b": np.arange(len(odd), dtype=float) - 3, "c": np.arange(len(odd)) - 4,
            "d": np.array([True, False] * 6 + [True]), "e": ["x"] * len(odd)}
    write_jobs_csv(cols, tmp_path / "ours.csv")
    pd.DataFrame(cols).to_csv(tmp_path / "pandas.csv", index=False)
    assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()


def _repr_cases(rng, n: int) -> np.ndarray:
    """Doubles whose repr the C writer's shortcut computes or leaves to CPython: quotients of integers (the
    stretches), random bit patterns in [1, 2**53), neighbours of powers of ten and two, short decimals, dyadic
    fractions (ties), negatives and values below 1."""
    a, b = rng.integers(1, 10**7, n), rng.integers(1, 10**6, n)
    bits = rng.integers(0x3FF0000000000000, 0x4340000000000000, n, dtype=np.int64).view(np.float64)
    edges = np.concatenate([10.0 ** np.arange(16), 2.0 ** np.arange(54)])
    parts = [a / b, (a + b) / b, bits, np.nextafter(bits, 0), np.nextafter(bits, np.inf), edges,
             np.nextafter(edges, 0), np.nextafter(edges, np.inf), rng.integers(1, 10**6, n) / 10.0 ** rng.integers(1, 8, n),
             rng.integers(1, 2**20, n) / 2.0 ** rng.integers(1, 20, n), np.exp(rng.uniform(-12, 37, n))]
    x = np.concatenate(parts)
    return np.concatenate([x, -x])


@pytest.mark.parametrize("n", [5_000, pytest.param(500_000, marks=pytest.mark.slow)])
def test_c_writer_float_text_is_repr(n):
    """The C writer's shortest-digits shortcut (exact 128-bit arithmetic, CPython for what it leaves) writes
    ``repr`` of every double, and its integers are ``str``'s digits."""
    native = native_build.load()
    if native is None:
        pytest.skip("no C compiler: the C extension cannot be built")
    x = _repr_cases(np.random.default_rng(n), n)
    assert native.csv_rows([x], "f").decode().split("\n")[:-1] == list(map(repr, x.tolist()))
    powers = 10 ** np.arange(19, dtype=np.int64)
    ints = np.concatenate([np.arange(-200, 200), powers, powers - 1, -powers, [-2**63, 2**63 - 1],
                           np.random.default_rng(0).integers(-2**63, 2**63 - 1, n, dtype=np.int64)])
    assert native.csv_rows([ints], "i").decode().split("\n")[:-1] == list(map(str, ints.tolist()))


@pytest.mark.parametrize("extra", ["", "1e3", "+5", "1.2.3"])
@pytest.mark.parametrize("loop", ["c", "numba"])
def test_compiled_swf_parser_equals_numpy(extra, loop, tmp_path, monkeypatch):
    """Decimals, negative zero, long mantissas: the compiled loop reads what numpy reads; a number it does not take
    (an exponent, a plus sign, ...) sends the file to the other readers, which accept or refuse it as before."""
    rng = np.random.default_rng(3)
    rows = []
    for i in range(300):
        f = [i + 1, i * 10, -1, rng.integers(0, 999), 4, "142.00", "-0", 4, "0.1", "123456789012345.6", 1, 2,
             "0.000000000000000000123", -1, -1, -1, -1, "7." if i % 2 else ".5"]
        rows.append(" ".join(str(x) for x in f))
    if extra:
        rows[150] = rows[150].replace("142.00", extra)
    path = tmp_path / "d.swf"
    path.write_text("; MaxProcs: 8\n" + "\n".join(rows) + "\n")
    monkeypatch.setattr("vcsched.problems.swf_fast.COMPILED_FROM_BYTES", 1 << 40)
    native_build.use("fallback", monkeypatch)
    try:
        expected = read_swf(path).fields
    except Exception as exc:  # noqa: BLE001 - the same refusal is expected from the compiled path
        monkeypatch.setattr("vcsched.problems.swf_fast.COMPILED_FROM_BYTES", 0)
        native_build.use("c" if loop == "c" else "fallback", monkeypatch)
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            read_swf(path)
        return
    monkeypatch.setattr("vcsched.problems.swf_fast.COMPILED_FROM_BYTES", 0)
    native_build.use("c" if loop == "c" else "fallback", monkeypatch)
    got = read_swf(path).fields
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


def test_vectorised_decimal_reader_equals_float_or_declines():
    """``[-]digits[.digits]`` tokens of up to 15 digits read as ``float`` reads them (bit for bit, ``-0`` included);
    anything else is declined (None), and numpy's conversion takes the chunk."""
    from vcsched.problems.swf_fast import _decimal_numbers

    def read(text: bytes):
        u = np.frombuffer(text, dtype=np.uint8)
        return _decimal_numbers(u, ~((u == 32) | (u == 9) | (u == 10)))

    rng = np.random.default_rng(5)
    fixed = ["0", "-0", "-0.0", "7.", ".5", "-.5", "00", "142.00", "0.1", "999999999999999", "12345678.9012345",
             "-1", "0.00000000000001", "900719925474.993"]
    digits = [str(x) for x in rng.integers(0, 10 ** 12, 300)]
    decimals = [f"{x}.{y:0{k}d}" for x, y, k in zip(rng.integers(-10 ** 6, 10 ** 6, 300),
                                                   rng.integers(0, 10 ** 6, 300), rng.integers(6, 9, 300))]
    tokens = fixed + digits + decimals
    text = ("\n".join(" \t".join(tokens[i:i + 7]) for i in range(0, len(tokens), 7)) + "\n").encode()
    got = read(text)
    expected = np.array([float(t) for t in tokens])
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))
    for bad in ["1e3", "+5", "1.2.3", "-", ".", "1-2", "1234567890123456", "--1"]:
        assert read(f"1 2 {bad} 3\n".encode()) is None
