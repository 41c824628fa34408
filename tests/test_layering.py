"""The import rules of the architecture ("Which room may import which"), checked on the source.

Every module of the four packages is parsed (AST, so imports inside functions
and ``if TYPE_CHECKING:`` blocks count too) and each import is classified by
the room it comes from and the room it goes to:

* core rooms, bottom to top: ``base`` (``vcsched/*.py``: errors, result,
  registry, data), ``problems``; then ``generators``, ``formulations`` and
  ``sim``, which use ``problems`` but not each other; ``scenarios`` above
  them; ``cli`` on top;
* ``lowerbounds`` and ``heuristics`` use the core (not its CLI) and not each
  other, except that a heuristic may start from a relaxation through
  ``lowerbounds``' public names: RRND/RRNZ (``heuristics/vc/rounding.py``)
  and the moldable heuristics that start from the dual approximation
  (:data:`PUBLIC_EXCEPTIONS`);
  the method tables (``heuristics/vc/methods.py``, ``heuristics/moldable/methods.py``)
  wire the LP, the bounds and the certification, as a registry may;
* nothing imports ``benchmarks`` except ``benchmarks`` itself and the CLI, and ``benchmarks`` does not import
  the CLI;
* the CLI imports the role packages (``lowerbounds``, ``heuristics``,
  ``benchmarks``) only lazily, inside the command that needs them;
* no import circle between modules (``a`` imports ``b`` which imports ``a``), lazy imports included, across
  packages too, and through a package's ``__init__``: the modules form layers.
"""

from __future__ import annotations

import ast
import dataclasses
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("vcsched", "lowerbounds", "heuristics", "benchmarks")
CORE_ROOMS = ("problems", "generators", "formulations", "sim", "scenarios", "cli")
CORE = {"base", *CORE_ROOMS}

ALLOWED: dict[str, set[str]] = {
    "base": {"base"},
    "problems": {"base", "problems"},
    "generators": {"base", "problems", "generators"},
    "formulations": {"base", "problems", "formulations"},
    "sim": {"base", "problems", "sim"},
    "scenarios": {"base", "problems", "generators", "formulations", "sim", "scenarios"},
    "cli": CORE,
    "lowerbounds": (CORE - {"cli"}) | {"lowerbounds"},
    "heuristics": (CORE - {"cli"}) | {"heuristics"},
    "benchmarks": (CORE - {"cli"}) | {"lowerbounds", "heuristics", "benchmarks"},
}
"""Room -> rooms it may import at module level."""

LAZY_ALLOWED: dict[str, set[str]] = {"cli": {"lowerbounds", "heuristics", "benchmarks"}}
"""Room -> further rooms it may import inside a function (the CLI is the composition root)."""

PUBLIC_EXCEPTIONS: dict[str, set[str]] = {
    "heuristics.vc.rounding": {"lowerbounds"},  # RRND/RRNZ round the LP relaxation
    "heuristics.vc.methods": {"lowerbounds"},  # the method table wires the LP, the bounds and certify
    "heuristics.moldable.methods": {"lowerbounds"},  # the method table wires the exact MILP's bound
    "heuristics.vector.methods": {"lowerbounds"},  # the vector-packing table wires the bounds and certify
    "heuristics.vector.typed": {"lowerbounds"},  # the same for bins of several types (certify_typed)
    "heuristics.vc_hetero.methods": {"lowerbounds"},  # the host-types table wires certify_hosts
    "heuristics.moldable.baselines": {"lowerbounds"},  # start from the dual approximation's guess
    "heuristics.moldable.bicriteria": {"lowerbounds"},  # likewise (C*max and the allotments)
    "heuristics.moldable.dual_approx": {"lowerbounds"},  # the two-shelf dual approximation's search
}
"""Module -> rooms it may import public (non-underscore) names from despite the table: heuristics
that start from a relaxation or bound, and the method tables that wire compositions (the architecture's exceptions)."""


def room(module: str) -> str | None:
    """The room of a dotted module name; ``None`` outside the project (stdlib, third party)."""
    parts = module.split(".")
    if parts[0] in ("lowerbounds", "heuristics", "benchmarks"):
        return parts[0]
    if parts[0] != "vcsched":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in CORE_ROOMS else "base"


@dataclasses.dataclass(frozen=True)
class Import:
    source: str
    target: str
    names: tuple[str, ...]
    lazy: bool
    line: int


def _module_name(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: pathlib.Path, root: pathlib.Path) -> list[Import]:
    """Every import statement of one file, with whether it sits inside a function."""
    module = _module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[Import] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                out.extend(Import(module, a.name, (), lazy, child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                target = _absolute(child, module, path.name == "__init__.py")
                names = tuple(a.name for a in child.names)
                # ``from vcsched import sim`` imports the room of vcsched.sim
                subrooms = [n for n in names if room(f"{target}.{n}") != room(target)]
                for n in subrooms:
                    out.append(Import(module, f"{target}.{n}", (n,), lazy, child.lineno))
                rest = tuple(n for n in names if n not in subrooms)
                if rest:
                    out.append(Import(module, target, rest, lazy, child.lineno))
            visit(child, inner)

    visit(tree, False)
    return out


def violations(root: pathlib.Path) -> list[str]:
    """Every import under ``root`` that breaks the rules, as ``file:line: message``."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for imp in imports_of(path, root):
                src, dst = room(imp.source), room(imp.target)
                if dst is None or src is None or dst in ALLOWED[src]:
                    continue
                if imp.lazy and dst in LAZY_ALLOWED.get(src, ()):
                    continue
                if dst in PUBLIC_EXCEPTIONS.get(imp.source, ()) and imp.names and \
                        not any(n.startswith("_") for n in imp.names):
                    continue
                where = "inside a function" if imp.lazy else "at module level"
                found.append(f"{path.relative_to(root)}:{imp.line}: {src} imports {dst} ({imp.target}, {where})")
    return found


def test_the_project_follows_the_layering():
    assert violations(ROOT) == []


def _module_files(root: pathlib.Path) -> dict[str, pathlib.Path]:
    return {_module_name(p, root): p for package in PACKAGES for p in sorted((root / package).rglob("*.py"))}


def _resolve(target: str, names: tuple[str, ...], modules: dict[str, pathlib.Path]) -> list[str]:
    """The project modules an import loads: ``from p import m`` loads ``p.m`` when it is a module."""
    found = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
    if len(found) < len(names) or not names:
        found.append(target)
    return [m for m in found if m in modules]


def import_graph(root: pathlib.Path) -> dict[str, set[str]]:
    """Module -> the project modules it imports, anywhere in the four packages: at module level, inside a
    function (a lazy import closes a circle as soon as it runs) and in ``if TYPE_CHECKING:`` blocks. An
    import of names from a package (``from heuristics.moldable import REGISTRY``) goes to the package's
    ``__init__``, including from the package's own modules: that is the circle that works only through the
    order of the ``__init__``'s imports."""
    modules = _module_files(root)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for imp in imports_of(path, root):
            graph[name].update(t for t in _resolve(imp.target, imp.names, modules) if t != name)
    return graph


def import_cycles(root: pathlib.Path) -> list[list[str]]:
    """The import circles between modules: the strongly connected components of :func:`import_graph` with more
    than one module (Tarjan's algorithm), each sorted."""
    graph = import_graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_no_import_circle_between_modules():
    assert import_cycles(ROOT) == []


def test_an_injected_import_circle_is_reported(tmp_path):
    tree = _tree(tmp_path, {**CLEAN, "vcsched/sim/a.py": "from vcsched.sim.b import x\n",
                            "vcsched/sim/b.py": "import numpy\n\ndef f():\n    from vcsched.sim import a\n",
                            "vcsched/sim/c.py": "from vcsched.sim import d\n",
                            "vcsched/sim/d.py": "x = 1\nfrom .c import y  # noqa: E402\n"})
    assert import_cycles(tree) == [["vcsched.sim.a", "vcsched.sim.b"], ["vcsched.sim.c", "vcsched.sim.d"]]


def test_circles_through_a_package_init_and_across_packages_are_reported(tmp_path):
    tree = _tree(tmp_path, {**CLEAN,
                            "heuristics/fam/__init__.py": "R = 1\nfrom heuristics.fam.m import f\n",
                            "heuristics/fam/m.py": "from heuristics.fam import R\n",
                            "benchmarks/runner.py": "from vcsched.cli.vc import row\n",
                            "vcsched/cli/vc.py": "def cmd():\n    from benchmarks.runner import run\n"})
    assert import_cycles(tree) == [["benchmarks.runner", "vcsched.cli.vc"], ["heuristics.fam", "heuristics.fam.m"]]


def test_the_walk_sees_every_package_and_nested_imports():
    """Guard against a walk that finds nothing: the CLI's lazy imports of the role packages are seen."""
    cli_imports = [imp for path in (ROOT / "vcsched" / "cli").rglob("*.py") for imp in imports_of(path, ROOT)]
    lazy_roles = {room(i.target) for i in cli_imports if i.lazy}
    assert {"heuristics", "lowerbounds"} <= lazy_roles
    assert all(any((ROOT / p).rglob("*.py")) for p in PACKAGES)


def _tree(tmp_path: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for package in PACKAGES:
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


CLEAN = {
    "vcsched/problems/__init__.py": "",
    "vcsched/problems/vc.py": "import numpy\nfrom vcsched.errors import InvalidInputError\n",
    "vcsched/sim/__init__.py": "",
    "vcsched/sim/engine.py": "from vcsched.problems.vc import X\nfrom . import other\n",
    "vcsched/scenarios/grid.py": "from vcsched.sim.engine import run\nfrom vcsched.generators.vc import g\n",
    "vcsched/cli/vc.py": "def cmd():\n    from heuristics.vc import REGISTRY\n    from benchmarks.harness import run\n",
    "heuristics/vc/rounding.py": "from lowerbounds.vc import lp_relaxation\n",
    "benchmarks/experiments/x.py": "from heuristics.vc import REGISTRY\nfrom lowerbounds.vc import lp\n",
}


def test_a_clean_synthetic_tree_passes(tmp_path):
    assert violations(_tree(tmp_path, CLEAN)) == []


@pytest.mark.parametrize("rel, text, expected", [
    ("vcsched/problems/diet.py", "from vcsched.sim.diet import AgentTree\n", "problems imports sim"),
    ("vcsched/sim/vcdynamic.py", "def f():\n    from vcsched.formulations.vc_milp import m\n",
     "sim imports formulations (vcsched.formulations.vc_milp, inside a function)"),
    ("vcsched/sim/x.py", "from vcsched import generators\n", "sim imports generators"),
    ("vcsched/sim/y.py", "from ..generators import vc\n", "sim imports generators"),
    ("vcsched/generators/vc.py", "import vcsched.formulations.solve\n", "generators imports formulations"),
    ("vcsched/sim/policy.py", "from heuristics.diet import standard\n", "sim imports heuristics"),
    ("vcsched/cli/vc.py", "from heuristics.vc import REGISTRY\n", "cli imports heuristics (heuristics.vc, at module level)"),
    ("vcsched/problems/vc.py", "from vcsched.cli.common import x\n", "problems imports cli"),
    ("lowerbounds/vc/relaxation.py", "from heuristics.vc.mcb import mcb\n", "lowerbounds imports heuristics"),
    ("heuristics/vc/mcb.py", "from lowerbounds.vc import lp_relaxation\n", "heuristics imports lowerbounds"),
    ("heuristics/vc/rounding.py", "from lowerbounds.vc import _private\n", "heuristics imports lowerbounds"),
    ("heuristics/vc/adapt.py", "from benchmarks.harness import run\n", "heuristics imports benchmarks"),
    ("lowerbounds/x.py", "from vcsched.cli import main\n", "lowerbounds imports cli"),
])
def test_an_injected_upward_import_is_reported(tmp_path, rel, text, expected):
    found = violations(_tree(tmp_path, {**CLEAN, rel: text}))
    assert len(found) == 1 and expected in found[0] and found[0].startswith(rel), found
