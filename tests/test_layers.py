"""The package's structure: layers import only downward (import-linter's contracts in
pyproject.toml), no import cycles, and the rules install inside the jaxcfr namespace."""

import ast
import itertools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def test_layer_contracts_hold():
  lint = Path(sys.executable).with_name("lint-imports")  # import-linter's command, beside this Python
  done = subprocess.run(
    [str(lint), "--config", str(ROOT / "pyproject.toml")], capture_output=True, text=True, cwd=ROOT, timeout=300
  )
  assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
  assert "1 kept, 0 broken" in done.stdout


def test_the_rules_import_only_numpy_and_the_standard_library():
  allowed = {"numpy", "__future__"} | set(sys.stdlib_module_names)
  for path in sorted((ROOT / "games").glob("*.py")):
    for node in ast.walk(ast.parse(path.read_text())):
      if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
      elif isinstance(node, ast.ImportFrom) and node.level == 0:
        names = [node.module]
      else:
        continue
      for name in names:
        assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_no_import_cycles_between_modules():
  """No two modules of the library import each other, directly or through others (the
  package __init__ files, which gather their modules, are left out)."""
  graph = grimp.build_graph("jaxcfr")
  modules = sorted(m for m in graph.modules if not (ROOT / (m.replace(".", "/") + "/__init__.py")).exists())
  cycles = []
  for a, b in itertools.combinations(modules, 2):
    if graph.chain_exists(importer=a, imported=b) and graph.chain_exists(importer=b, imported=a):
      packages = {m for m in graph.modules if (ROOT / (m.replace(".", "/") + "/__init__.py")).exists()}
      # a chain through a package's __init__ (e.g. ``from jaxcfr import solvers``) counts
      # only if it also exists without the packages
      if _chain_without(graph, a, b, packages) and _chain_without(graph, b, a, packages):
        cycles.append((a, b))
  assert not cycles, cycles


def _chain_without(graph, importer, imported, packages) -> bool:
  seen, frontier = {importer}, [importer]
  while frontier:
    module = frontier.pop()
    for nxt in graph.find_modules_directly_imported_by(module):
      if nxt == imported:
        return True
      if nxt not in seen and nxt not in packages and nxt.startswith("jaxcfr."):
        seen.add(nxt)
        frontier.append(nxt)
  return False


def test_games_install_inside_the_jaxcfr_namespace():
  """``import jaxcfr.games`` works from anywhere; ``import games`` does not, so installing
  jaxcfr claims no global module name."""
  script = (
    "import importlib.util, jaxcfr.games\n"
    "assert 'kuhn_poker' in jaxcfr.games.GAMES\n"
    "assert importlib.util.find_spec('games') is None, importlib.util.find_spec('games')\n"
    "print('ok')\n"
  )
  with tempfile.TemporaryDirectory() as elsewhere:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
      [sys.executable, "-c", script], capture_output=True, text=True, cwd=elsewhere, env=env, timeout=120
    )
  assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_no_file_points_outside_the_repository():
  offenders = []
  for folder in ("jaxcfr", "games", "docs", "notebooks", "benchmarks", "tests"):
    for path in (ROOT / folder).rglob("*"):
      if path.suffix in (".py", ".md", ".ipynb") and path.name != Path(__file__).name:
        text = path.read_text(encoding="utf-8", errors="replace")
        if "../shared" in text or "DESIGN section" in text or "DESIGN.md" in text:
          offenders.append(str(path.relative_to(ROOT)))
  readme = (ROOT / "README.md").read_text()
  assert "../shared" not in readme and "DESIGN.md" not in readme
  assert not offenders, offenders
