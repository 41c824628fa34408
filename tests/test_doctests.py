"""The examples in the docstrings of the public modules run and print what they show.

Every module of the four packages whose source contains ``>>>`` is imported
and its docstrings are run with :mod:`doctest` (``ELLIPSIS`` and
``NORMALIZE_WHITESPACE``); one test per module, so a failure names it.
"""

from __future__ import annotations

import doctest
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("vcsched", "lowerbounds", "heuristics", "benchmarks")


def _modules_with_examples() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                parts = list(path.relative_to(ROOT).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                names.append(".".join(parts))
    return names


MODULES = _modules_with_examples()


def test_examples_exist_where_the_docs_promise_them():
    for name in ("vcsched.formulations.vc_milp", "heuristics.vc.mcb", "vcsched.problems.vc_metrics",
                 "vcsched.registry"):
        assert name in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (see the output above)"
