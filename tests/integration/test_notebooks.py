"""The notebooks run from top to bottom (they hold no logic of their own, only calls and output)."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.notebooks

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEARTS_QUICK", "1")  # notebooks that train take a smoke-sized budget
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    errors = [o for cell in notebook.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
