"""``vc solve --plot`` and ``moldable solve --gantt``: the picture of the best solution."""

from __future__ import annotations

import numpy as np
import pytest

from vcsched.cli import main
from vcsched.problems import plots
from vcsched.problems.moldable import MoldableInstance, Schedule
from vcsched.problems.vc import Allocation, VCInstance

PNG = b"\x89PNG\r\n\x1a\n"


def test_vc_plot_draws_the_allocation_of_the_best_method(tmp_path, monkeypatch):
    assert main(["vc", "generate", "--hosts", "3", "--jobs", "7", "--slack", "0.3", "--seed", "2",
                 "-o", str(tmp_path / "i.json")]) == 0
    drawn = []
    real = plots.plot_allocation
    monkeypatch.setattr(plots, "plot_allocation", lambda inst, alloc, path, title="": (
        drawn.append((title, alloc)), real(inst, alloc, path, title=title)))
    out = tmp_path / "alloc.png"
    assert main(["vc", "solve", str(tmp_path / "i.json"), "--method", "gr,mcb8,milp", "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG
    assert [t for t, _ in drawn] == ["milp"]  # the MILP's optimum is at least every heuristic's yield
    assert main(["vc", "solve", str(tmp_path / "i.json"), "--method", "lp", "--plot", str(out)]) == 2


def test_plot_allocation_refuses_an_invalid_allocation(tmp_path):
    inst = VCInstance.from_arrays(2, [0.5, 0.5], [0.8, 0.8])
    with pytest.raises(ValueError, match="invalid allocation"):
        plots.plot_allocation(inst, Allocation(np.array([0, 0]), np.array([0.5, 0.5])), tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()
    plots.plot_allocation(inst, Allocation(np.array([0, 1]), np.array([0.5, 0.5])), tmp_path / "ok.svg")
    assert b"<svg" in (tmp_path / "ok.svg").read_bytes()[:400]


def test_moldable_gantt_draws_the_least_minsum_schedule(tmp_path, capsys):
    inst = MoldableInstance.from_arrays(2, [[7, 6], [2, 1], [4, 4]], [5, 1, 4])
    with pytest.raises(ValueError, match="invalid schedule"):  # two tasks on 2 processors at once
        plots.plot_moldable_schedule(inst, Schedule(np.zeros(3), np.array([2, 1, 1])), tmp_path / "bad.png")
    from vcsched.problems.moldable import save_instance

    save_instance(inst, tmp_path / "m.json")
    out = tmp_path / "g.png"
    assert main(["moldable", "solve", str(tmp_path / "m.json"), "--method", "gang,exact", "--gantt", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG
    assert main(["moldable", "solve", str(tmp_path / "m.json"), "--gantt", str(tmp_path / "no" / "g.png")]) == 2
