"""Fuzzing every reader and the option parsing (issue 39): any bytes or any JSON value either
loads to a valid instance or raises :class:`~vcsched.errors.InvalidInputError` with one line,
never another exception, never a hang.

Each example is bounded twice: hypothesis's ``deadline`` (a slow example fails) and an alarm
(:func:`bounded`) that interrupts a hang. The default suite runs :data:`DEFAULT_EXAMPLES` examples per
reader; ``pytest -m slow tests/fuzz`` runs :data:`SLOW_EXAMPLES`. Inputs mix raw bytes, arbitrary
JSON values and valid documents with one field replaced by an arbitrary value (which reach the
checks behind the first ones). ``.vbp`` files mix tokens
that are numbers, almost numbers and words, on lines of any length.
"""

from __future__ import annotations

import contextlib
import datetime
import gzip
import io
import json
import os
import signal
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vcsched.errors import InvalidInputError

DEFAULT_EXAMPLES = 100
SLOW_EXAMPLES = 10_000
DEADLINE = datetime.timedelta(seconds=5)
HANG_SECONDS = 20
"""An example still running after this is a hang (the alarm interrupts it)."""


class Hang(Exception):
    pass


@contextlib.contextmanager
def bounded(seconds: int = HANG_SECONDS):
    def ring(signum, frame):
        raise Hang(f"an example ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def loads_or_one_line(read, *args) -> object:
    """``read(*args)``; an InvalidInputError must be one non-empty line. Returns the value or None."""
    with bounded():
        try:
            return read(*args)
        except InvalidInputError as exc:
            text = str(exc)
            assert text and "\n" not in text and "\r" not in text, repr(text)
            return None


# ------------------------------------------------------------------ strategies

json_scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                | st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=6)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=6), max_leaves=25)


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for k, v in enumerate(doc):
            yield from _paths(v, prefix + (k,))


def _replace(doc, path, value):
    if not path:
        return value
    doc = json.loads(json.dumps(doc))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def mutated(valid: dict) -> st.SearchStrategy:
    """``valid`` with one node (a field, a list item, the whole) replaced by an arbitrary JSON value,
    or with one key dropped."""
    paths = list(_paths(valid))

    def drop(doc, path):
        if not path:
            return doc
        doc = json.loads(json.dumps(doc))
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
        return doc

    return (st.builds(_replace, st.just(valid), st.sampled_from(paths), json_values)
            | st.builds(drop, st.just(valid), st.sampled_from(paths)))


def json_bytes(valid: dict) -> st.SearchStrategy:
    docs = mutated(valid) | json_values
    text = docs.map(lambda d: json.dumps(d).encode())
    spliced = st.tuples(st.just(json.dumps(valid).encode()), st.integers(0, 400), st.binary(max_size=8)).map(
        lambda t: t[0][:t[1]] + t[2] + t[0][t[1]:])
    return text | spliced | st.binary(max_size=300)


VC_DOC = {"hosts": 3, "jobs": [{"cpu": 0.5, "mem": 0.3}, {"cpu": 0.8, "mem": 0.2, "tasks": 2, "current_host": [0, 1]},
                               {"cpu": 0.1, "mem": 0.1, "current_host": 2}, {"cpu": 1, "mem": 0, "current_host": None}],
          "migration_budget": 0.5}
VC_HETERO_DOC = {"resources": ["mem", "disk"],
                 "hosts": [{"cpu": 1.0, "mem": 1.0, "disk": 0.5, "count": 2}, {"cpu": 2.0, "mem": 0.5, "disk": 1, "count": 1}],
                 "jobs": [{"cpu": 0.5, "mem": 0.3, "disk": 0.1}, {"cpu": 1.5, "mem": 0.2, "disk": 0.4},
                          {"cpu": 0.1, "mem": 0.0, "disk": 0.0}]}
MOLDABLE_DOC = {"m": 3, "weights": [1, 2.5], "times": [[4, 2.5, 2], [3, 2, 1.5]]}
BATSIM_DOC = {"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "res": 2, "walltime": 20, "profile": "d5"},
                                    {"id": "w!2", "subtime": 3.5, "res": 4, "profile": "d5"}],
              "profiles": {"d5": {"type": "delay", "delay": 5}}}
SWF_TEXT = (b"; MaxProcs: 8\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n"
            b"2 5 1 30 4 -1 -1 4 40 -1 1 1 1 -1 1 -1 -1 -1\n")


def swf_bytes() -> st.SearchStrategy:
    lines = st.lists(st.lists(st.sampled_from(["-1", "0", "1", "2.5", "1e300", "nan", "inf", "-7", "x", "", "1e-300",
                                               "99999999999999999999"]), min_size=0, max_size=20)
                     .map(" ".join), max_size=6)
    text = lines.map(lambda ls: "\n".join(ls).encode())
    spliced = st.tuples(st.integers(0, len(SWF_TEXT)), st.binary(max_size=8)).map(
        lambda t: SWF_TEXT[:t[0]] + t[1] + SWF_TEXT[t[0]:])
    return text | spliced | st.binary(max_size=300)


def npz_bytes() -> st.SearchStrategy:
    def archive(m, weights, times, extra):
        buf = io.BytesIO()
        arrays = {"m": m, "weights": weights, "times": times}
        arrays.update(extra)
        np.savez(buf, **arrays)
        return buf.getvalue()

    numbers = st.floats(allow_nan=True, allow_infinity=True, width=64)
    arrays = st.lists(numbers, max_size=12).map(np.array) | st.lists(st.integers(-5, 10), max_size=12).map(np.array)
    shaped = st.tuples(st.integers(1, 4), st.integers(1, 4)).flatmap(
        lambda s: st.lists(numbers, min_size=s[0] * s[1], max_size=s[0] * s[1]).map(
            lambda v: np.array(v).reshape(s)))
    m = st.integers(-3, 6).map(np.int64) | numbers.map(np.float64) | arrays
    built = st.builds(archive, m, arrays, shaped | arrays, st.dictionaries(st.sampled_from(["x", "m2"]), arrays,
                                                                          max_size=1))
    valid = archive(np.int64(3), np.array([1.0, 2.0]), np.array([[4.0, 2.5, 2.0], [3.0, 2.0, 1.5]]), {})
    spliced = st.tuples(st.integers(0, len(valid)), st.binary(min_size=1, max_size=8)).map(
        lambda t: valid[:t[0]] + t[1] + valid[t[0] + len(t[1]):])
    return built | spliced | st.binary(max_size=200)


VBP_TEXT = b"2\n10 8\n3\n4 2 2\n3 3 1\n10 8 1\n"


def vbp_bytes() -> st.SearchStrategy:
    tokens = st.sampled_from(["0", "1", "2", "3", "10", "-1", "2.5", "1e300", "nan", "inf", "x", "", "1e-300",
                              "99999999999999999999", "1000000"])
    lines = st.lists(st.lists(tokens, min_size=0, max_size=8).map(" ".join), max_size=10)
    text = lines.map(lambda ls: "\n".join(ls).encode())
    spliced = st.tuples(st.integers(0, len(VBP_TEXT)), st.binary(max_size=8)).map(
        lambda t: VBP_TEXT[:t[0]] + t[1] + VBP_TEXT[t[0]:])
    return text | spliced | st.binary(max_size=200)


# ------------------------------------------------------------------ readers


def _vc(path):
    from vcsched.problems.vc import load_instance

    inst = load_instance(path)
    assert inst.hosts >= 1 and np.all((inst.cpu > 0) & (inst.cpu <= 1)) and np.all((inst.mem >= 0) & (inst.mem <= 1))
    return inst


def _vc_hetero(path):
    from vcsched.problems.vc_hetero import load_hetero

    inst = load_hetero(path)
    assert inst.n_hosts >= 1 and inst.host_cap.shape == (inst.host_count.size, inst.d)
    assert inst.job_rigid.shape == (inst.n_jobs, inst.d) and np.all(np.isfinite(inst.job_rigid))
    assert np.all(inst.job_cpu > 0) and np.all(np.isfinite(inst.job_cpu)) and np.all(inst.job_rigid >= 0)
    return inst


def _moldable(path):
    from vcsched.problems.moldable import load_instance

    inst = load_instance(path)
    assert inst.m >= 1 and np.all(np.isfinite(inst.times)) and np.all(inst.times > 0)
    assert np.all(np.isfinite(inst.weights)) and np.all(inst.weights > 0)
    return inst


def _batsim(path):
    from vcsched.problems.workload import read_batsim_json

    w = read_batsim_json(path)
    assert len(set(w.job_id.tolist())) == len(w) and np.all(w.processors >= 1)
    return w


def _swf(path):
    from vcsched.problems.workload import read_swf

    w = read_swf(path, skip_bad_lines=path.endswith("skip.swf"))
    assert np.all(np.isfinite(w.submit_time)) and np.all(w.run_time >= 0)
    return w


def _vbp(path):
    from vcsched.problems.vbp import read_vbp

    inst = read_vbp(path)
    assert inst.d >= 1 and np.all(np.isfinite(inst.capacity)) and np.all(inst.capacity > 0)
    assert inst.demand.shape == (inst.n_types, inst.d) and np.all(np.isfinite(inst.demand))
    assert np.all(inst.demand >= 0) and np.all(inst.count >= 0)
    return inst


def _platform(path):
    from vcsched.scenarios.platform import load_platform

    return load_platform(path)


def _platform_doc(folder: str) -> dict:
    trace = os.path.join(folder, "trace.swf")
    with open(trace, "wb") as fh:
        fh.write(SWF_TEXT)
    return {"clusters": [{"name": "a", "procs": 8, "speed": 1.0, "policy": "easy", "trace": trace},
                         {"name": "b", "procs": 4, "speed": 1.2, "policy": "fcfs"}], "meta": "mct"}


def _cases(folder: str) -> dict:
    return {
        "vc-json": ("i.json", json_bytes(VC_DOC), _vc),
        "vc-hetero-json": ("h.json", json_bytes(VC_HETERO_DOC), _vc_hetero),
        "moldable-json": ("m.json", json_bytes(MOLDABLE_DOC), _moldable),
        "moldable-npz": ("m.npz", npz_bytes(), _moldable),
        "batsim-json": ("w.json", json_bytes(BATSIM_DOC), _batsim),
        "swf": ("t.swf", swf_bytes(), _swf),
        "swf-skip-bad-lines": ("t-skip.swf", swf_bytes(), _swf),
        "swf-gz": ("t.swf.gz", (swf_bytes().map(gzip.compress) | st.binary(max_size=100)), _swf),
        "platform-json": ("p.json", json_bytes(_platform_doc(folder)), _platform),
        "vbp": ("i.vbp", vbp_bytes(), _vbp),
    }


READERS = ["vc-json", "vc-hetero-json", "moldable-json", "moldable-npz", "batsim-json", "swf", "swf-skip-bad-lines", "swf-gz",
           "platform-json", "vbp"]


def fuzz_reader(name: str, examples: int) -> None:
    with tempfile.TemporaryDirectory(prefix="vcsched-fuzz-") as folder:
        file_name, strategy, read = _cases(folder)[name]
        path = os.path.join(folder, file_name)

        @settings(max_examples=examples, deadline=DEADLINE, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.filter_too_much])
        @given(strategy)
        def check(data: bytes) -> None:
            with open(path, "wb") as fh:
                fh.write(data)
            loads_or_one_line(read, path)

        check()


@pytest.mark.parametrize("name", READERS)
def test_fuzz_reader(name):
    fuzz_reader(name, DEFAULT_EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("name", READERS)
def test_fuzz_reader_slow(name):
    fuzz_reader(name, SLOW_EXAMPLES)


@pytest.mark.parametrize("field,value", [("flag_bits", 0x1), ("extract_version", 64)])
def test_npz_entries_zipfile_cannot_read_are_one_line(tmp_path, field, value):
    """Found by the fuzzer: an entry marked encrypted (``RuntimeError``) or of a zip version zipfile
    lacks (``NotImplementedError``) is an InvalidInputError."""
    import zipfile

    from vcsched.problems.moldable import load_instance

    path = tmp_path / "m.npz"
    arrays = {"m": np.int64(2), "weights": np.array([1.0]), "times": np.array([[2.0, 1.0]])}
    with zipfile.ZipFile(path, "w") as zf:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(name + ".npy")
            buf = io.BytesIO()
            np.save(buf, array)
            zf.writestr(info, buf.getvalue())
            setattr(zf.getinfo(name + ".npy"), field, value)  # written to the central directory on close
    with pytest.raises(InvalidInputError, match=r"m\.npz") as info:
        load_instance(path)
    assert "\n" not in str(info.value)


def test_a_resource_name_with_a_control_character_stays_on_one_line(tmp_path):
    # found by the slow fuzz run: the declared names were joined raw into the refusal
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"resources": ["\r"], "hosts": [{"cpu": 1.0, "mem": 1.0, "count": 1}],
                                "jobs": [{"cpu": 0.5, "mem": 0.3}]}))
    assert loads_or_one_line(_vc_hetero, str(path)) is None
