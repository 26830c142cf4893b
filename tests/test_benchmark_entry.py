"""``python -m benchmarks`` lists every benchmark and runs one by name."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*argv):
  return subprocess.run([sys.executable, "-m", "benchmarks", *argv], capture_output=True, text=True, cwd=ROOT,
                        timeout=300)


def test_lists_every_benchmark_and_runs_one_by_name():
  listing = _run()
  assert listing.returncode == 0
  scripts = [p.stem for p in (ROOT / "benchmarks").glob("*.py")
             if not p.stem.startswith("_") and "def main(" in p.read_text()]
  assert scripts and all(name in listing.stdout for name in scripts)
  assert _run("rnr_tradeoff", "--help").returncode == 0
  unknown = _run("no_such_benchmark")
  assert unknown.returncode == 2 and "unknown benchmark" in unknown.stderr
