"""The compact ``.npz`` moldable instance: round trips with the JSON form, the same rules, one-line errors."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.generators.moldable import generate_moldable_instance
from vcsched.problems.moldable import MoldableInstance, load_instance, parse_instance, save_instance


def _same(a: MoldableInstance, b: MoldableInstance) -> bool:
    return a.m == b.m and np.array_equal(a.times, b.times) and np.array_equal(a.weights, b.weights)


@pytest.mark.parametrize("kind", ["weak", "high", "mixed", "cirne"])
def test_npz_and_json_round_trip_to_the_same_instance(tmp_path, kind):
    inst = generate_moldable_instance(7, 5, kind, rng=3)
    save_instance(inst, tmp_path / "i.npz")
    save_instance(inst, tmp_path / "i.json")
    from_npz, from_json = load_instance(tmp_path / "i.npz"), load_instance(tmp_path / "i.json")
    assert _same(from_npz, inst) and _same(from_json, inst)
    save_instance(from_npz, tmp_path / "again.json")  # npz -> json -> npz keeps every bit
    save_instance(load_instance(tmp_path / "again.json"), tmp_path / "again.npz")
    assert _same(load_instance(tmp_path / "again.npz"), inst)


def test_generate_writes_npz_by_suffix_and_bound_reads_it(tmp_path, capsys):
    assert main(["moldable", "generate", "--n", "6", "--m", "4", "--seed", "2", "-o", str(tmp_path / "g.npz")]) == 0
    assert main(["moldable", "generate", "--n", "6", "--m", "4", "--seed", "2", "-o", str(tmp_path / "g.json")]) == 0
    assert zipfile.is_zipfile(tmp_path / "g.npz")
    assert _same(load_instance(tmp_path / "g.npz"), parse_instance(json.loads((tmp_path / "g.json").read_text())))
    capsys.readouterr()
    values = []
    for name in ("g.npz", "g.json"):
        assert main(["moldable", "bound", str(tmp_path / name), "--method", "refined", "--json"]) == 0
        values.append(json.loads(capsys.readouterr().out)["minsum_lb"])
    assert values[0] == values[1]


def _write(path, **arrays):
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    return path


GOOD = {"m": np.int64(2), "weights": np.array([1.0, 2.0]), "times": np.array([[2.0, 1.5], [3.0, 2.0]])}


@pytest.mark.parametrize("change, fragment", [
    ({"times": np.array([[2.0, 1.5], [3.0, 0.0]])}, "task 1, entry 1 (p_i(2)): field 'times' must be >= 1e-09"),
    ({"times": np.array([[2.0, np.nan], [3.0, 1.0]])}, "task 0, entry 1 (p_i(2)): field 'times' must be finite"),
    ({"times": np.array([[2.0, 1.0], [1e13, 1.0]])}, "task 1, entry 0 (p_i(1)): field 'times' must be >= 1e-09 and <= 1e+12"),
    ({"weights": np.array([1.0, -1.0])}, "task 1: field 'weight' must be >= 1e-09"),
    ({"weights": np.array([1.0])}, "field 'weights' has shape (1,), expected (2,)"),
    ({"times": np.array([[2.0], [3.0]])}, "task 0, field 'times': has 1 values, expected m = 2"),
    ({"times": np.array([2.0, 3.0])}, "field 'times' must be a 2-d array"),
    ({"times": np.zeros((0, 2)), "weights": np.zeros(0)}, "field 'tasks' missing or empty"),
    ({"m": np.int64(0)}, "field 'm' must be >= 1 and <= 100000"),
    ({"m": np.array([2])}, "field 'm' must be one integer"),
    ({"m": np.float64(2.0)}, "field 'm' must be one integer"),
    ({"times": np.array([["a", "b"], ["c", "d"]])}, "array 'times' has dtype <U1; expected real numbers"),
    ({"extra": np.zeros(1)}, "unknown field 'extra'"),
    ({"m": np.int64(100_000), "times": np.ones((201, 100_000), dtype=np.uint8), "weights": np.ones(201)},
     "more than the limit of 20,000,000"),
])
def test_bad_npz_is_one_line_naming_file_and_task(tmp_path, change, fragment):
    path = _write(tmp_path / "bad.npz", **{**GOOD, **change})
    with pytest.raises(InvalidInputError) as err:
        load_instance(path)
    text = str(err.value)
    assert text.startswith(str(path) + ": ") and fragment in text and "\n" not in text


def test_missing_array_object_array_and_non_zip_are_refused(tmp_path):
    path = _write(tmp_path / "few.npz", m=GOOD["m"], times=GOOD["times"])
    with pytest.raises(InvalidInputError, match="array 'weights' missing"):
        load_instance(path)
    obj = _write(tmp_path / "obj.npz", **{**GOOD, "weights": np.array([1, "x"], dtype=object)})
    with pytest.raises(InvalidInputError, match="'weights'"):  # never unpickled
        load_instance(obj)
    with zipfile.ZipFile(tmp_path / "odd.npz", "w") as zf:
        zf.writestr("m", "2")
    with pytest.raises(InvalidInputError, match="entry 'm' is not a .npy array"):
        load_instance(tmp_path / "odd.npz")
    (tmp_path / "text.npz").write_text("{}")
    with pytest.raises(InvalidInputError, match="not a readable .npz archive"):
        load_instance(tmp_path / "text.npz")


def test_cli_exits_2_with_the_message(tmp_path, capsys):
    path = _write(tmp_path / "bad.npz", **{**GOOD, "times": np.array([[2.0, 1.5], [3.0, -2.0]])})
    assert main(["moldable", "bound", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "bad.npz: task 1, entry 1 (p_i(2))" in err and len(err.splitlines()) == 1
