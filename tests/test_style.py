"""The tree passes the formatter and the linter (ruff, configured in pyproject.toml)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"])
def test_ruff(command):
  ruff = shutil.which("ruff")
  assert ruff is not None, "ruff is part of the test extra: pip install -e '.[test]'"
  result = subprocess.run([ruff, *command], cwd=ROOT, capture_output=True, text=True)
  assert result.returncode == 0, result.stdout + result.stderr
