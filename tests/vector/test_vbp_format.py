"""The ``.vbp`` reader and writer (VPSolver's format), its one-line errors, and the checker."""

from __future__ import annotations

import numpy as np
import pytest

from vcsched.errors import InvalidInputError
from vcsched.generators.vbp import CLASSES, generate_vbp, shipped_set
from vcsched.problems.vbp import (
    VectorPacking,
    bins_problem,
    oversized_item,
    parse_vbp,
    read_vbp,
    vbp_text,
)
from vcsched.problems.vbp_typed import load_packing

TEXT = "2\n10 8\n3\n5 4 2\n3 3 1\n# a comment\n10 1 1\n"


def test_parse_reads_capacities_types_and_counts():
    inst = parse_vbp(TEXT, "t.vbp")
    assert inst.d == 2 and inst.n_types == 3 and inst.n_items == 4
    assert inst.capacity.tolist() == [10, 8]
    assert inst.demand.tolist() == [[5, 4], [3, 3], [10, 1]]
    assert inst.item_type().tolist() == [0, 0, 1, 2]
    assert inst.item_sizes()[3].tolist() == [1.0, 1 / 8]


@pytest.mark.parametrize("kind", CLASSES)
def test_write_then_read_gives_the_same_instance(kind, tmp_path):
    inst = generate_vbp(kind, 30, 4, 5)
    path = tmp_path / "x.vbp"
    path.write_text(vbp_text(inst))
    back = read_vbp(path)
    assert np.array_equal(back.capacity, inst.capacity) and np.array_equal(back.demand, inst.demand)
    assert np.array_equal(back.count, inst.count) and back.n_items == (30 if kind != "triplets" else 30)


@pytest.mark.parametrize("text, where, what", [
    ("2\n10 8\n3\n5 4 2\n3 3 1\n", "line 5", "too few numbers"),
    ("2\n10 8\n1\n5 4 2 7\n", "line 4", "extra number '7'"),
    ("2\n10 0\n1\n5 4 2\n", "line 2", "capacity 2 of 2: expected a number > 0"),
    ("2\n10 -3\n1\n5 4 2\n", "line 2", "capacity 2 of 2"),
    ("2\n10 8\n1\n5 -4 2\n", "line 4", "item type 1 of 1, demand 2 of 2"),
    ("2\n10 8\n1\n5 4 2.5\n", "line 4", "item type 1 of 1, count: expected an integer"),
    ("2\n10 8\n1\n5 x 2\n", "line 4", "expected a number, got 'x'"),
    ("0\n", "line 1", "d (the number of dimensions)"),
    ("1 1 1 0 99999999999999999999", "line 1", "count: 99999999999999999999 is more than the limit of 1,000,000"),
    ("", "", "the file ends where d"),
])
def test_a_bad_file_is_one_line_naming_the_line_and_the_field(text, where, what):
    with pytest.raises(InvalidInputError) as err:
        parse_vbp(text, "bad.vbp")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("bad.vbp") and where in msg and what in msg


def test_an_item_larger_than_the_bin_is_named_not_refused():
    inst = parse_vbp("2\n10 8\n2\n5 4 2\n3 9 1\n", "big.vbp")
    assert "item 2 (type 2)" in oversized_item(inst) and "dimension 2" in oversized_item(inst)
    assert oversized_item(parse_vbp(TEXT)) is None


def test_a_vc_json_instance_is_a_packing_of_its_tasks(tmp_path):
    path = tmp_path / "i.json"
    path.write_text('{"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.25, "tasks": 3}, {"cpu": 0.2, "mem": 0.7}]}')
    inst = load_packing(path)
    assert inst.n_items == 4 and inst.capacity.tolist() == [1, 1]
    assert inst.item_sizes().tolist() == [[0.5, 0.25]] * 3 + [[0.2, 0.7]]


def test_the_checker_finds_each_kind_of_fault():
    inst = VectorPacking(np.array([10.0, 10.0]), np.array([[6.0, 1.0], [5.0, 5.0]]), np.array([1, 2]))
    assert bins_problem(inst, [[0], [1, 2]]) is None
    assert "exceeds its capacity in dimension 1" in bins_problem(inst, [[0, 1], [2]])
    assert "item 2 is packed 0 times" in bins_problem(inst, [[0], [1]])
    assert "item 1 is packed 2 times" in bins_problem(inst, [[0], [1, 2], [1]])
    assert "not an item" in bins_problem(inst, [[0], [1, 2, 3]])


def test_the_shipped_set_is_the_generator_output():
    import pathlib

    folder = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "vbp"
    shipped = shipped_set()
    assert len(shipped) == 36 and sorted(p.name for p in folder.glob("*.vbp")) == sorted(n for n, _ in shipped)
    for name, inst in shipped:
        assert (folder / name).read_text() == vbp_text(inst)


def test_triplets_fill_their_bins_exactly():
    inst = generate_vbp("triplets", 30, 5, 1)
    assert np.allclose(inst.count @ inst.demand, 10 * 1000)
