"""One check for every output path (issue 39, cause 1): a known suffix, never an input of the
same run, writable, written atomically to exactly the path given
(:func:`vcsched.cli.common.check_output_path`, :func:`vcsched.cli.common.save_output`)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tests.conftest import cli_error
from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.problems import plots
from vcsched.problems.vc import Allocation, VCInstance


@pytest.fixture
def vc_png(tmp_path):
    """A VC instance saved under a figure's name (``i.png``)."""
    path = tmp_path / "i.png"
    assert main(["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "-o", str(tmp_path / "i.json")]) == 0
    os.replace(tmp_path / "i.json", path)
    return path


def test_plot_onto_the_instance_just_read_is_refused(vc_png, capsys):
    before = vc_png.read_bytes()
    err = cli_error(capsys, ["vc", "solve", str(vc_png), "--method", "mcb8", "--plot", str(vc_png)])
    assert "is the input file" in err
    assert vc_png.read_bytes() == before


def test_gantt_onto_the_moldable_instance_is_refused(tmp_path, capsys):
    src = tmp_path / "m.json"
    assert main(["moldable", "generate", "--m", "4", "--n", "3", "-o", str(src)]) == 0
    os.replace(src, tmp_path / "m.pdf")
    before = (tmp_path / "m.pdf").read_bytes()
    assert "is the input file" in cli_error(capsys, ["moldable", "solve", str(tmp_path / "m.pdf"), "--gantt",
                                                     str(tmp_path / "m.pdf")])
    assert (tmp_path / "m.pdf").read_bytes() == before


@pytest.mark.parametrize("target", ["/dev/full", "/dev/null"])
def test_a_device_as_figure_is_refused_not_written_under_another_name(vc_png, capsys, target):
    extra = target + ".png"
    existed = os.path.exists(extra)
    err = cli_error(capsys, ["vc", "solve", str(vc_png), "--method", "mcb8", "--plot", target])
    assert "not a regular file" in err
    assert os.path.exists(extra) == existed  # matplotlib never wrote /dev/full.png


def test_moldable_gantt_to_dev_full_is_refused(tmp_path, capsys):
    src = tmp_path / "m.json"
    assert main(["moldable", "generate", "--m", "4", "--n", "3", "-o", str(src)]) == 0
    assert "--gantt /dev/full" in cli_error(capsys, ["moldable", "solve", str(src), "--gantt", "/dev/full"])


@pytest.mark.parametrize("argv", [["--plot", "a.jpg"], ["--plot", "a"], ["--plot", "a.PNG.gif"]])
def test_undocumented_figure_formats_are_refused(vc_png, capsys, tmp_path, argv):
    argv = [argv[0], str(tmp_path / argv[1])]
    assert "name the format by the suffix: .png, .svg or .pdf" in cli_error(
        capsys, ["vc", "solve", str(vc_png), "--method", "mcb8"] + argv)


def test_moldable_gantt_jpg_is_refused(tmp_path, capsys):
    src = tmp_path / "m.json"
    assert main(["moldable", "generate", "--m", "4", "--n", "3", "-o", str(src)]) == 0
    assert "unknown figure format '.jpg'" in cli_error(capsys, ["moldable", "solve", str(src), "--gantt",
                                                                str(tmp_path / "g.jpg")])


def test_figure_written_to_exactly_the_path_and_uppercase_suffix_accepted(vc_png, tmp_path):
    out = tmp_path / "A.SVG"
    assert main(["vc", "solve", str(vc_png), "--method", "mcb8", "--plot", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["A.SVG", "i.png"]
    assert b"<svg" in out.read_bytes()[:400]


def test_python_api_refuses_an_unknown_figure_format(tmp_path):
    inst = VCInstance.from_arrays(2, [0.5, 0.5], [0.8, 0.8])
    with pytest.raises(InvalidInputError, match="unknown figure format"):
        plots.plot_allocation(inst, Allocation(np.array([0, 1]), np.array([0.5, 0.5])), tmp_path / "x.jpg")
    assert list(tmp_path.iterdir()) == []


def test_set_table_onto_a_file_of_the_set_is_refused(tmp_path, capsys):
    assert main(["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "-o", str(tmp_path / "a.json")]) == 0
    (tmp_path / "b.csv").write_text("kept\n")
    err = cli_error(capsys, ["vc", "solve", str(tmp_path / "*"), "--method", "mcb8", "-o", str(tmp_path / "b.csv"),
                             "--workers", "1"])
    assert "is the input file" in err and (tmp_path / "b.csv").read_text() == "kept\n"


@pytest.mark.parametrize("argv,suffixes", [
    (["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "-o"], ".json"),
    (["moldable", "generate", "--n", "3", "-o"], ".json or .npz"),
])
def test_generated_instances_need_their_suffix(tmp_path, capsys, argv, suffixes):
    assert f"name the format by the suffix: {suffixes}" in cli_error(capsys, argv + [str(tmp_path / "x.txt")])
    assert list(tmp_path.iterdir()) == []


def test_convert_to_a_full_disk_is_one_line_and_leaves_nothing(tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    full = tmp_path / "k.json"
    full.symlink_to("/dev/full")
    err = cli_error(capsys, ["grid", "convert", str(swf), "-o", str(full)])
    assert "-o " in err and "No space left on device" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.json", "t.swf"]
