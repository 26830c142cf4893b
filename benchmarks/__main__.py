"""One way to run every benchmark: ``python -m benchmarks NAME [its arguments]``.

``python -m benchmarks`` lists them (each script of this folder, and of ``papers/`` for the
papers' experiments, with a ``main(argv)``, the first line of its docstring beside it);
``python -m benchmarks NAME --help`` shows a benchmark's own arguments. Results go to
``results/`` beside the script through ``record.py`` (one schema: benchmark, description,
date, git_commit, hardware, configuration, results), which adds the date, the hardware and
the commit to every file; timings use ``timing.py``.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _scripts() -> dict[str, Path]:
  """Name -> path of every script here and in papers/ (names are unique across both)."""
  return {path.stem: path for path in sorted([*HERE.glob("*.py"), *(HERE / "papers").glob("*.py")])}


def benchmarks() -> dict[str, str]:
  """Name -> first docstring line of every script here and in papers/ that defines ``main``."""
  found = {}
  for path in _scripts().values():
    if path.stem.startswith("_"):
      continue
    tree = ast.parse(path.read_text())
    if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body):
      found[path.stem] = (ast.get_docstring(tree) or "").strip().splitlines()[0] if ast.get_docstring(tree) else ""
  return found


def main(argv: list[str] | None = None) -> int:
  argv = sys.argv[1:] if argv is None else argv
  known = benchmarks()
  if not argv or argv[0] in ("-h", "--help"):
    print(__doc__.strip().splitlines()[0] + "\n")
    width = max(map(len, known))
    for name, line in known.items():
      print(f"  {name:<{width}}  {line}")
    return 0
  name, rest = argv[0], argv[1:]
  if name not in known:
    print(f"benchmarks: error: unknown benchmark {name!r}; choose one of {', '.join(known)}", file=sys.stderr)
    return 2
  sys.path.insert(0, str(HERE))  # the scripts import their siblings (record, ours, peers)
  sys.path.insert(0, str(_scripts()[name].parent))
  result = importlib.import_module(name).main(rest)
  return result if isinstance(result, int) else 0


if __name__ == "__main__":
  sys.exit(main())
