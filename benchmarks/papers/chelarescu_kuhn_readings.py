"""Chelarescu 2019, Figures 3.14-3.16 on Kuhn poker: which reading of the report's setup gives its
order (CFR+ quickest, then LCFR, then CFR)?

At 3,000 iterations of the average profile (benchmarks/papers/chelarescu_poker.py) LCFR ends
lowest on Kuhn and CFR+ zigzags about it. The report plots "the exploitability of the current
solution" and gives no horizon, update order or averaging rule, so this script changes each in
turn, on Kuhn in float64 from the uniform start, to 10^5 iterations (evaluations log-spaced):

- ``average``: the average profile, alternating updates (the presets; chelarescu_poker.py's run);
- ``current``: the current profile (the report's "current solution" read literally);
- ``simultaneous``: the average profile with both players updated at once;
- ``cfr+ uniform average``: CFR+ with a uniform instead of a linear average (gamma = 0), the
  other presets as in ``average``.

For each reading the record keeps the three curves (milli-chips per game), the share of the
evaluations at which the report's order CFR+ < LCFR < CFR holds, the order at the end and after
3,000 iterations, and how often CFR+ and LCFR swap.

  PYTHONPATH=benchmarks python benchmarks/papers/chelarescu_kuhn_readings.py [--iterations 100000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmarks folder: record
import jaxcfr  # noqa: E402
from jaxcfr import solvers  # noqa: E402
from jaxcfr.kits import profiles  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

ALGORITHMS = ("cfr", "cfr+", "lcfr")
READINGS = {
  "average": {"strategy": "average", "updates": None, "cfr+": {}},
  "current": {"strategy": "current", "updates": None, "cfr+": {}},
  "simultaneous": {"strategy": "average", "updates": "simultaneous", "cfr+": {}},
  "cfr+ uniform average": {"strategy": "average", "updates": None, "cfr+": {"gamma": 0.0}},
}
REPORT_ORDER = ("cfr+", "lcfr", "cfr")  # lowest first


def checkpoints(iterations: int, count: int = 40) -> list[int]:
  """About ``count`` log-spaced iteration counts from 10 to ``iterations``, with 3,000 among them."""
  points = np.unique(np.round(np.logspace(1, np.log10(iterations), count)).astype(int))
  return sorted(set(points.tolist()) | ({3000} if iterations >= 3000 else set()))


def curve(tensors, algorithm: str, reading: dict, points: list[int]) -> list[list[float]]:
  """[[iteration, milli-chips per game]] of ``algorithm`` under ``reading`` at ``points``."""
  options = {"updates": reading["updates"]} if reading["updates"] else {}
  solver = solvers.get(algorithm, "sequence_form", **options)
  hyperparameters = reading["cfr+"] if algorithm == "cfr+" else {}
  state = solver.init(tensors, **hyperparameters)
  strategy = solver.average_strategy if reading["strategy"] == "average" else solver.current_strategy
  out, done = [], 0
  for point in points:
    state = solver.run(tensors, state, point - done)
    done = point
    out.append([point, 1000 * float(profiles.exploitability(tensors, strategy(tensors, state)))])
  return out


def summarise(curves: dict) -> dict:
  """The report's order's share of the evaluations, the order at 3,000 and at the end, and the
  CFR+ / LCFR swaps."""
  values = {a: np.array([v for _, v in curves[a]]) for a in ALGORITHMS}
  iterations = [i for i, _ in curves["cfr"]]
  holds = (values["cfr+"] < values["lcfr"]) & (values["lcfr"] < values["cfr"])
  above = values["cfr+"] > values["lcfr"]

  def order(k: int) -> list[str]:
    return sorted(ALGORITHMS, key=lambda a: values[a][k])

  at_3000 = iterations.index(3000) if 3000 in iterations else None
  return {
    "report_order_share": float(holds.mean()),
    "report_order_from": next((iterations[k] for k in range(len(holds)) if holds[k:].all()), None),
    "order_at_3000": order(at_3000) if at_3000 is not None else None,
    "order_at_end": order(-1),
    "cfr+_lcfr_swaps": int(np.sum(above[1:] != above[:-1])),
    "final_milli_chips": {a: float(values[a][-1]) for a in ALGORITHMS},
  }


def compute(iterations: int) -> dict:
  game = jaxcfr.load("kuhn_poker", dtype="float64")
  points = checkpoints(iterations)
  results = {}
  for name, reading in READINGS.items():
    started = time.perf_counter()
    curves = {a: curve(game.tensors, a, reading, points) for a in ALGORITHMS}
    results[name] = {"curves_milli_chips": curves, **summarise(curves)}
    summary = results[name]
    print(
      f"{name:>22}: report's order at {100 * summary['report_order_share']:.0f}% of the evaluations, "
      f"from {summary['report_order_from']}; at 3,000 {summary['order_at_3000']}, at the end {summary['order_at_end']} "
      f"({time.perf_counter() - started:.0f} s)"
    )
  return results


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--iterations", type=int, default=100_000, help="iterations of every run (default 10^5)")
  parser.add_argument(
    "--out", default=str(Path(__file__).resolve().parent / "results" / "chelarescu_kuhn_readings.json")
  )
  args = parser.parse_args(argv)
  if args.iterations < 100:
    parser.error("--iterations must be at least 100")
  results = compute(args.iterations)
  write_record(
    Path(args.out),
    benchmark="chelarescu_kuhn_readings",
    description=(
      "Chelarescu 2019 Figures 3.14-3.16 on Kuhn poker under four readings of the report's setup (the "
      "average or current profile, alternating or simultaneous updates, CFR+'s linear or uniform average), "
      "float64 from the uniform start, exploitability (NashConv / 2) in milli-chips per game at log-spaced "
      "iterations; deterministic (no seed)."
    ),
    configuration={"iterations": args.iterations, "readings": READINGS, "algorithms": list(ALGORITHMS)},
    results=results,
  )
  return results


if __name__ == "__main__":
  main()
