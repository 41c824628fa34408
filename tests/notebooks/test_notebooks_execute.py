"""Every notebook of ``notebooks/`` runs top to bottom without a cell error (nbclient).

Each notebook gets a time budget: ``metadata.vcsched.timeout`` seconds if
set, else :data:`DEFAULT_TIMEOUT`; it applies to every cell (nbclient stops
a cell that exceeds it) and to the notebook as a whole (checked after).
"""

from __future__ import annotations

import pathlib
import time

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS_DIR = pathlib.Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
DEFAULT_TIMEOUT = 300


def test_the_theory_notebooks_exist():
    names = [p.name for p in NOTEBOOKS]
    for prefix in ("01_", "02_", "03_"):
        assert any(n.startswith(prefix) for n in names), f"notebooks/{prefix}*.ipynb is missing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_without_errors(path):
    nb = nbformat.read(path, as_version=4)
    budget = float(nb.metadata.get("vcsched", {}).get("timeout", DEFAULT_TIMEOUT))
    client = nbclient.NotebookClient(nb, timeout=int(budget), kernel_name="python3", allow_errors=False,
                                     resources={"metadata": {"path": str(NOTEBOOKS_DIR)}})
    t0 = time.perf_counter()
    client.execute()  # raises CellExecutionError (with the traceback) on the first failing cell
    elapsed = time.perf_counter() - t0
    errors = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors
    assert any(cell.cell_type == "code" and "assert" in cell.source for cell in nb.cells), "a notebook must check something"
    assert elapsed <= budget, f"{path.name} took {elapsed:.0f} s, over its {budget:.0f} s budget"
