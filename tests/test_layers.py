"""The package's structure: layers import only downward (import-linter's contracts in
pyproject.toml), no import cycles, no module reads another module's private names, and the
rules install inside the jaxcfr namespace."""

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


def _module_names() -> dict:
  """{dotted module name: path} of every module of jaxcfr and of the rules (installed as jaxcfr.games)."""
  modules = {}
  for folder, package in (("jaxcfr", "jaxcfr"), ("games", "jaxcfr.games")):
    for path in sorted((ROOT / folder).rglob("*.py")):
      parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
      if parts[-1] == "__init__":
        parts = parts[:-1]
      modules[".".join([package, *parts])] = path
  return modules


def _is_private(name: str) -> bool:
  return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_uses(name: str, path: Path, modules: dict) -> list:
  """The places where module ``name`` reads another jaxcfr module's private name: ``from
  jaxcfr.x import _y``, or ``m._y`` with ``m`` bound to a jaxcfr module by an import."""
  is_package = path.name == "__init__.py"
  package = name if is_package else name.rpartition(".")[0]
  tree = ast.parse(path.read_text())
  where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
  bound, found = {}, []

  def absolute(node: ast.ImportFrom) -> str:
    if not node.level:
      return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))

  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      for alias in node.names:
        if alias.name.startswith("jaxcfr"):
          if alias.asname:
            bound[alias.asname] = alias.name
          else:
            bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
    elif isinstance(node, ast.ImportFrom):
      source = absolute(node)
      if not source.startswith("jaxcfr"):
        continue
      for alias in node.names:
        target = f"{source}.{alias.name}"
        if _is_private(alias.name) and target not in modules and source != name:
          found.append(f"{where}:{node.lineno} imports {target}")
        if target in modules:
          bound[alias.asname or alias.name] = target

  def module_of(node) -> str | None:
    if isinstance(node, ast.Name):
      return bound.get(node.id)
    if isinstance(node, ast.Attribute):
      outer = module_of(node.value)
      if outer is not None and f"{outer}.{node.attr}" in modules:
        return f"{outer}.{node.attr}"
    return None

  for node in ast.walk(tree):
    if isinstance(node, ast.Attribute) and _is_private(node.attr):
      owner = module_of(node.value)
      if owner is not None and owner != name and f"{owner}.{node.attr}" not in modules:
        found.append(f"{where}:{node.lineno} reads {owner}.{node.attr}")
  return found


def test_no_module_reads_another_modules_private_names():
  """Modules reuse each other through public names only (composition, not another
  module's internals): no ``from jaxcfr.x import _y`` and no ``x._y`` on an imported
  jaxcfr module. A module's own private names, dunder names and private submodules of a
  package (``games._base``) are fine."""
  modules = _module_names()
  found = [use for name, path in modules.items() for use in _private_uses(name, path, modules)]
  assert not found, "\n".join(found)


def test_the_private_name_check_sees_each_form_of_access(tmp_path):
  """The check flags ``from jaxcfr.x import _y``, ``m._y`` on an imported module (by any
  import form, relative ones included, and through a package) and passes dunder names,
  private submodules and attributes of other objects."""
  path = tmp_path / "probe.py"
  path.write_text(
    "import jaxcfr.solvers.cfr as c\n"
    "import jaxcfr\n"
    "from jaxcfr.solvers import cfr, rnr\n"
    "from jaxcfr.solvers.cfr import _step, step\n"
    "from . import mccfr\n"
    "c._a(); cfr._b; jaxcfr.solvers.cfr._c; mccfr._d\n"
    "cfr.__name__; cfr.step; state._replace(); rnr.solver\n"
  )
  modules = _module_names()
  found = _private_uses("jaxcfr.solvers.probe", path, modules)
  flagged = sorted(use.rpartition(" ")[2] for use in found)
  assert flagged == [
    "jaxcfr.solvers.cfr._a",
    "jaxcfr.solvers.cfr._b",
    "jaxcfr.solvers.cfr._c",
    "jaxcfr.solvers.cfr._step",
    "jaxcfr.solvers.mccfr._d",
  ], found
