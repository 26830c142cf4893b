"""Refusals of games beyond the memory limit: the time and the peak memory until the one-line error.

Each game is loaded in a child process (an empty game cache, ``JAXCFR_MAX_MEMORY`` set to
``--limit``) whose peak resident memory is read from /proc while it runs; the time is that of
``jaxcfr.load`` alone, and the memory its growth over the process's size once jaxcfr is
imported (the peak less the size before the load). The goal: refused within 10 s and 10% of
the limit. A child still running after ``--timeout`` seconds is stopped and recorded so.

  python -m benchmarks refusals [--limit 1G] [--timeout 120] [--out benchmarks/results/refusals.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

GAMES = [  # (game string, representation or None, what it stands for)
  ("openspiel:oshi_zumo(coins=4,size=1)", None, "OpenSpiel's game 1,000 moves deep, walked by the tree walk"),
  ("goofspiel(num_cards=10)", None, "native, vectorised rules"),
  ("no_limit_leduc_poker(stack=40)", None, "native, vectorised rules"),
  (
    "hunl_subgame(board=AhKd7c,pot=200,stack=20000,first_bets=0.25;0.33;0.5;0.75;1;1.5;2;allin,raises=0.5;1;2;allin)",
    "public_tree",
    "a HUNL flop subgame with eight bet sizes and four raise sizes",
  ),
  ("openspiel:phantom_ttt", None, "an OpenSpiel game of unknown size (imperfect-information tic-tac-toe)"),
]

_CHILD = """
import json, sys, time
import jaxcfr
from jaxcfr.base import memory
game, representation = sys.argv[1], (sys.argv[2] or None)
before = memory.resident()
print(json.dumps({"before": before}), flush=True)
start = time.perf_counter()
try:
  jaxcfr.load(game, representation=representation)
  outcome, message = "loaded", ""
except memory.GameTooLargeError as error:
  outcome, message = "refused", str(error)
except Exception as error:  # recorded, not hidden
  outcome, message = type(error).__name__, str(error)
print(json.dumps({"seconds": time.perf_counter() - start, "outcome": outcome, "message": message}), flush=True)
"""


def _peak(pid: int) -> int:
  """The peak resident memory (VmHWM) of process ``pid`` in bytes, 0 once it is gone."""
  try:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
      for line in status:
        if line.startswith("VmHWM:"):
          return int(line.split()[1]) * 1024
  except OSError:
    pass
  return 0


def refuse(game: str, representation: str | None, limit: str, timeout: float) -> dict:
  """What loading ``game`` under the limit does: outcome, message, seconds, peak growth."""
  env = {**os.environ, "JAXCFR_MAX_MEMORY": limit, "JAXCFR_CACHE_DIR": tempfile.mkdtemp(prefix="jaxcfr-refusals-")}
  child = subprocess.Popen(
    [sys.executable, "-c", _CHILD, game, representation or ""],
    stdout=subprocess.PIPE,
    stderr=subprocess.DEVNULL,
    text=True,
    env=env,
  )
  before = json.loads(child.stdout.readline() or "{}").get("before")
  start, peak = time.monotonic(), 0
  while child.poll() is None and time.monotonic() - start < timeout:
    peak = max(peak, _peak(child.pid))
    time.sleep(0.05)
  if child.poll() is None:
    peak = max(peak, _peak(child.pid))
    child.kill()
    child.wait()
    return {"outcome": f"still running after {timeout:.0f} s", "peak_growth_mib": _mib(peak - (before or 0))}
  found = json.loads(child.stdout.readline() or "{}")
  return {
    "outcome": found.get("outcome", f"exit {child.returncode}"),
    "seconds": round(found.get("seconds", float("nan")), 2),
    "peak_growth_mib": _mib(peak - (before or 0)),
    "message": found.get("message", ""),
  }


def _mib(size: int) -> float:
  return round(size / 2**20, 1)


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--limit", default="1G", help="JAXCFR_MAX_MEMORY of the children")
  parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a child is stopped")
  parser.add_argument("--games", help="only the games whose string contains this text")
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "refusals.json"))
  args = parser.parse_args(argv)
  rows = []
  for game, representation, what in GAMES:
    if args.games and args.games not in game:
      continue
    row = {"game": game, "representation": representation, "what": what}
    row.update(refuse(game, representation, args.limit, args.timeout))
    print(json.dumps(row), flush=True)
    rows.append(row)
  write_record(
    args.out,
    benchmark="refusals",
    description=(
      "Each game loaded in a child process with JAXCFR_MAX_MEMORY set and an empty game cache: the outcome "
      "(refused: the one-line GameTooLargeError), the seconds of jaxcfr.load, and the growth of the child's "
      "peak resident memory (VmHWM, read every 50 ms) over its size before the load. Goal: refused within "
      "10 s and 10% of the limit. A shared two-core machine."
    ),
    configuration={"limit": args.limit, "timeout_seconds": args.timeout},
    results=rows,
  )
  return {"rows": rows}


if __name__ == "__main__":
  main()
