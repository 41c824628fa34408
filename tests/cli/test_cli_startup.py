"""Start-up of the ``vcsched`` command: heavy packages are imported only where used.

A module-set check in a fresh interpreter, not a timing (timings are in
``benchmarks/bench_startup.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "matplotlib", "numba", "pulp", "dask", "scipy", "pyarrow", "highspy")


def imported_after(code: str) -> set[str]:
    """Top-level packages imported by ``code`` in a fresh interpreter with this checkout first on the path."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_help_imports_no_heavy_package_and_not_numpy():
    mods = imported_after(
        "import contextlib, io\n"
        "import vcsched.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        vcsched.cli.main(['--help'])\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0\n"
    )
    assert "vcsched" in mods
    assert not mods & set(HEAVY + ("numpy",)), sorted(mods & set(HEAVY + ("numpy",)))


def test_every_group_help_imports_no_heavy_package():
    groups = ["vc", "moldable", "timeshare", "diet", "grid", "bench"]
    mods = imported_after(
        "import contextlib, io\n"
        "import vcsched.cli\n"
        f"for g in {groups!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        try:\n"
        "            vcsched.cli.main([g, '--help'])\n"
        "        except SystemExit:\n"
        "            pass\n"
    )
    assert not mods & {"pandas", "matplotlib", "numba", "pulp", "dask"}, sorted(mods)


def _solve_modules(path, *argv: str) -> set[str]:
    return imported_after(
        "import contextlib, io\n"
        "import vcsched.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert vcsched.cli.main(['vc', 'solve', {str(path)!r}, *{list(argv)!r}]) == 0\n"
    )


def test_vc_solve_mcb8_imports_no_solver_package(tmp_path):
    """``vc solve --method mcb8`` on one-task jobs: numpy, but no scipy, PuLP, pandas..., text and JSON output."""
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.3}, {"cpu": 0.7, "mem": 0.2},
                                                     {"cpu": 0.4, "mem": 0.4}]}))
    for argv in (["--method", "mcb8"], ["--method", "mcb1,MCB8", "--json"]):
        mods = _solve_modules(path, *argv)
        assert "heuristics" in mods and "vcsched" in mods
        assert not mods & set(HEAVY), sorted(mods & set(HEAVY))


def test_vc_solve_mcb8_on_parallel_jobs_imports_scipy_but_no_other_solver_package(tmp_path):
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.3, "tasks": 2}, {"cpu": 0.7, "mem": 0.2}]}))
    mods = _solve_modules(path, "--method", "mcb8")
    assert "numpy" in mods  # the average-yield phase of parallel jobs is an LP (scipy's HiGHS)
    assert not mods & {"pandas", "matplotlib", "numba", "pulp", "dask", "pyarrow"}, sorted(mods)


def _help_texts(parser, path=("vcsched",)) -> dict:
    """Every parser's help text and usage-error line, by command path, below ``parser``."""
    import argparse

    texts = {path: parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                texts.update(_help_texts(sub, path + (name,)))
    return texts


def test_the_parser_of_one_group_has_the_help_and_errors_of_the_whole_parser(capsys):
    """``main`` builds only the group named first (``groups_for``): every command's help text is the whole
    parser's, and a misspelt group or no group still gets the whole parser's text."""
    from vcsched.cli import GROUPS, build_parser, groups_for

    whole = _help_texts(build_parser())
    for group in GROUPS:
        assert groups_for([group, "x"]) == (group,)
        one = _help_texts(build_parser(groups_for([group, "--help"])))
        assert {k: v for k, v in whole.items() if k[1:2] == (group,)} == {k: v for k, v in one.items() if len(k) > 1}
    assert groups_for([]) == groups_for(["--help"]) == groups_for(["gri"]) == groups_for(["--version", "grid"]) \
        == GROUPS


def test_grid_simulate_to_jobs_csv_imports_only_what_it_needs(tmp_path):
    """``grid simulate --trace T -o jobs.csv``: numpy with one OpenBLAS thread, but neither the heavy packages nor
    tempfile (the output is written through ``vcsched.files.atomic_write``'s own temporary name)."""
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n" + "".join(f"{i} {i} 0 5 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1\n" for i in range(1, 6)))
    mods = imported_after(
        "import os, vcsched.cli\n"
        "os.environ.pop('OPENBLAS_NUM_THREADS', None)\n"
        f"assert vcsched.cli.main(['grid', 'simulate', '--trace', {str(trace)!r}, '-o', {str(tmp_path / 'j.csv')!r},"
        " '--no-progress', '--json']) == 0\n"
        "assert os.environ['OPENBLAS_NUM_THREADS'] == '1'\n"  # numpy's OpenBLAS started one thread
    )
    assert "numpy" in mods and (tmp_path / "j.csv").exists()
    assert not mods & set(HEAVY + ("tempfile", "tqdm")), sorted(mods & set(HEAVY + ("tempfile", "tqdm")))
