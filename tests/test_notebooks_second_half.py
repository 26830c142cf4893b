"""The second half of the notebooks at smoke size (test_notebooks.py runs the first)."""

import pytest
from test_notebooks import FIRST_HALF, NOTEBOOKS, run_at_smoke_size


@pytest.mark.parametrize("path", NOTEBOOKS[len(FIRST_HALF) :], ids=lambda p: p.stem)
def test_notebook_runs_at_smoke_size(path, tmp_path, monkeypatch):
  run_at_smoke_size(path, tmp_path, monkeypatch)
