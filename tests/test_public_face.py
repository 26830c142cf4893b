"""The public face: a small set of names (the ``__all__`` of jaxcfr, jaxcfr.solvers, jaxcfr.kits,
jaxcfr.games, jaxcfr.diff and jaxcfr.testing), each documented, the API reference listing exactly
them, and the doctested examples of the main ones running as written."""

import doctest
import importlib
import re
import types
from pathlib import Path

import pytest

import jaxcfr

ROOT = Path(__file__).resolve().parents[1]
FACE = ("jaxcfr", "jaxcfr.solvers", "jaxcfr.kits", "jaxcfr.games", "jaxcfr.diff", "jaxcfr.testing")
DOCTESTED = (
  "jaxcfr",
  "jaxcfr.solvers",
  "jaxcfr.kits.registry",
  "jaxcfr.kits.profiles",
  "jaxcfr.base.game_strings",
  "jaxcfr.testing",
  "jaxcfr.solvers.locking",
  "jaxcfr.poker.solutions",
  "jaxcfr.poker.queries",
  "jaxcfr.poker.grids",
  "jaxcfr.poker.boards",
)


def _face() -> dict:
  names = {}
  for module_name in FACE:
    module = importlib.import_module(module_name)
    for name in module.__all__:
      value = getattr(module, name)
      if not isinstance(value, types.ModuleType):
        names[f"{module_name}.{name}"] = value
  return names


def test_the_public_face_is_small_and_documented():
  face = _face()
  assert 40 <= len(face) <= 70, len(face)
  undocumented = [name for name, value in face.items() if callable(value) and not (value.__doc__ or "").strip()]
  assert not undocumented, undocumented


def test_the_api_reference_lists_exactly_the_public_face():
  page = (ROOT / "docs" / "api" / "index.md").read_text()
  listed = set(re.findall(r"^   (jaxcfr[\w.]+)$", page, re.M)) | set(re.findall(r"^- `(jaxcfr[\w.]+)`", page, re.M))
  assert listed == set(_face())


@pytest.mark.parametrize("module_name", DOCTESTED)
def test_the_doctested_examples_run(module_name):
  module = importlib.import_module(module_name)
  failures, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
  assert attempted > 0, f"{module_name} has no doctested example"
  assert failures == 0, f"{failures} of {attempted} examples of {module_name} fail"


def test_the_front_door_is_short_and_cites_no_results_file():
  readme = (ROOT / "README.md").read_text()
  assert len(readme.splitlines()) <= 150
  assert not re.search(r"(benchmarks|papers)/results|results/\w+\.json", readme)
  assert jaxcfr.__all__  # the package imports
