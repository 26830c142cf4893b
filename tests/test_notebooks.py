"""Every notebook runs top to bottom at smoke size (JAXCFR_NOTEBOOK_SMOKE=1), and uses only
the public API."""

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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_at_smoke_size(path, tmp_path, monkeypatch):
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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_with_outputs_and_public_imports(path):
  notebook = json.loads(path.read_text())
  code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
  assert any(c.get("outputs") for c in code), "commit the notebook with its outputs"
  source = "\n".join("".join(c["source"]) for c in code)
  assert "SMOKE" in source
  for module in re.findall(r"(?:from|import) (jaxcfr[\w.]*)", source):
    assert not any(part.startswith("_") for part in module.split(".")), module
