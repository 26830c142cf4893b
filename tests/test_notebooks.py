"""Every notebook runs top to bottom at smoke size (JAXCFR_NOTEBOOK_SMOKE=1), and uses only
the public API. The first half of the notebooks runs here, the second in
test_notebooks_second_half.py: the test processes take a module each, and the notebooks
are the longest module of the suite."""

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
  numbers = [p.stem[:2] for p in NOTEBOOKS]
  assert len(numbers) >= 10 and numbers[0] == "01" and len(set(numbers)) == len(numbers)


FIRST_HALF = NOTEBOOKS[: len(NOTEBOOKS) // 2]


def run_at_smoke_size(path, tmp_path, monkeypatch):
  """Runs the notebook at ``path`` at smoke size and asserts that no cell raised."""
  monkeypatch.setenv("JAXCFR_NOTEBOOK_SMOKE", "1")
  monkeypatch.setenv("MPLBACKEND", "Agg")
  notebook = nbformat.read(path, as_version=4)
  NotebookClient(
    notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
  ).execute()
  errors = [
    o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"
  ]
  assert not errors


@pytest.mark.parametrize("path", FIRST_HALF, ids=lambda p: p.stem)
def test_notebook_runs_at_smoke_size(path, tmp_path, monkeypatch):
  run_at_smoke_size(path, tmp_path, monkeypatch)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_with_outputs_and_public_imports(path):
  notebook = json.loads(path.read_text())
  code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
  assert any(c.get("outputs") for c in code), "commit the notebook with its outputs"
  source = "\n".join("".join(c["source"]) for c in code)
  assert "SMOKE" in source
  for module in re.findall(r"(?:from|import) (jaxcfr[\w.]*)", source):
    assert not any(part.startswith("_") for part in module.split(".")), module
