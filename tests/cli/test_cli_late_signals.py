"""Interrupts that land late (issue 39, cause 9): after ``grid convert`` has written its output the
line says it is complete on disk; after a refusal the status is 2 or 130, never an uncaught
``KeyboardInterrupt`` (a death by SIGINT)."""

from __future__ import annotations

import vcsched.cli as cli
import vcsched.cli.grid_convert as grid_convert
from vcsched.cli import main


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_interrupt_after_convert_wrote_its_output_says_it_is_complete(tmp_path, capsys, monkeypatch):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    out = tmp_path / "k.json"
    monkeypatch.setattr(grid_convert, "print", _interrupt, raising=False)  # the signal lands on the last line
    assert main(["grid", "convert", str(swf), "-o", str(out)]) == 130
    err = capsys.readouterr().err
    assert err == f"vcsched: interrupted; complete output(s) already written: {out}\n"
    assert out.read_text().startswith("{")


def test_interrupt_while_the_refusal_is_printed_is_an_exit_status(tmp_path, capsys, monkeypatch):
    real = cli._error

    def error_then_interrupt(text):
        real(text)
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_error", error_then_interrupt)
    assert main(["vc", "solve", str(tmp_path / "i.json"), "--plot", str(tmp_path / "x.gif")]) == 130
    assert capsys.readouterr().err.count("\n") == 1


def test_interrupt_before_any_output_says_nothing_more(tmp_path, capsys, monkeypatch):
    import vcsched.problems.workload as workload

    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    monkeypatch.setattr(workload, "read_workload", _interrupt)
    assert main(["grid", "convert", str(swf), "-o", str(tmp_path / "k.json")]) == 130
    assert capsys.readouterr().err == "vcsched: interrupted\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.swf"]
