"""A source stamp for numba's cache that covers what a compiled function can call.

numba keys a function's cached machine code on the source of the function's own
file only ("Notes on caching" in numba's documentation: a change in a function
defined in another file is not seen). A kernel that calls a compiled helper of
another module would then, in an existing checkout, keep running the helper's
old code after the helper is edited. :func:`dependency_stamp` digests the file
of a function together with every project module it imports, transitively
(``import`` lines anywhere in a module, lazy ones included, read as text;
modules outside the project are left out: an installed library changes with
its version, which numba's index already records). The digest is
an over-approximation: a module imported for something else than compiled code
also invalidates, which only costs a compilation.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path

__all__ = ["PROJECT", "dependency_stamp", "project_imports"]

#: The checkout's root and the top-level packages whose modules count as the project.
PROJECT = (Path(__file__).resolve().parents[1], ("vcsched", "lowerbounds", "heuristics", "benchmarks"))


def _module_file(name: str, root: Path, packages: tuple[str, ...]) -> Path | None:
    """The project file of a dotted module name, or None for a module outside the project."""
    parts = name.split(".")
    if parts[0] not in packages:
        return None
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package_of(path: Path, root: Path) -> list[str]:
    """The dotted package a file belongs to (for ``a/b/__init__.py`` as for ``a/b/c.py``: ``a.b``)."""
    return list(path.relative_to(root).parts[:-1])


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)|import[ \t]+([^\n#]+))",
                     re.MULTILINE)


def _imported_names(path: Path, root: Path) -> set[str]:
    """Every module name an ``import`` line of the file may load (``from a import b`` gives ``a`` and
    ``a.b``); read as text, not parsed: a match in a string only adds a module to the digest."""
    names: set[str] = set()
    for dots, module, imported, plain in _IMPORT.findall(path.read_text(encoding="utf-8", errors="replace")):
        if plain:
            names.update(part.split()[0] for part in plain.split(",") if part.strip())
            continue
        package = _package_of(path, root)
        head = package[: len(package) - len(dots) + 1] if dots else []
        base = ".".join([*head, module] if module else head)
        if base:
            names.add(base)
            aliases = imported.strip("() \t\n").replace("\n", " ").split(",")
            names.update(f"{base}.{a.split()[0]}" for a in aliases if a.strip() and a.split()[0] != "*")
    return names


@functools.cache
def _direct_imports(path: Path, mtime_ns: int, size: int, root: Path, packages: tuple[str, ...]) -> frozenset[Path]:
    """The project files a file imports directly (memoised on the file's stat, like numba's own hash)."""
    files = (_module_file(name, root, packages) for name in _imported_names(path, root))
    return frozenset(f for f in files if f is not None and f != path)


def project_imports(path: Path, project: tuple[Path, tuple[str, ...]] | None = None) -> list[Path]:
    """The file and every project file it imports, transitively, sorted (``project``: :data:`PROJECT`)."""
    root, packages = project or PROJECT
    seen = {path}
    todo = [path]
    while todo:
        current = todo.pop()
        st = current.stat()
        for dependency in _direct_imports(current, st.st_mtime_ns, st.st_size, root, packages):
            if dependency not in seen:
                seen.add(dependency)
                todo.append(dependency)
    return sorted(seen)


@functools.cache
def _content_digest(path: Path, mtime_ns: int, size: int) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()


def dependency_stamp(py_file: str, project: tuple[Path, tuple[str, ...]] | None = None) -> str | None:
    """A digest of the file's content and of every project module it imports; None outside the project
    (``project``: :data:`PROJECT`)."""
    path = Path(os.path.abspath(py_file))
    project = project or PROJECT
    root, packages = project
    try:
        top = path.relative_to(root).parts[0]
    except (ValueError, IndexError):
        return None
    if top not in packages or not path.is_file():
        return None
    digest = hashlib.sha256()
    for file in project_imports(path, project):
        st = file.stat()
        digest.update(str(file.relative_to(root)).encode() + b"\0")
        digest.update(_content_digest(file, st.st_mtime_ns, st.st_size))
    return digest.hexdigest()
