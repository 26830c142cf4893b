"""Chelarescu 2019, Figures 3.14-3.19: CFR, CFR+ and LCFR exploitability on Kuhn and Leduc poker.

The report (Chelarescu, "Learning strategies in large imperfect-information games", University
of Manchester, 2019) plots the three algorithms' exploitability in mbb/g against iterations on
Kuhn (Figures 3.14-3.16) and Leduc (3.17-3.19), CFR+ the quickest, then LCFR, then CFR; its text
gives no numbers. The same runs as notebook 02: float64, exploitability (NashConv / 2) of the
average profile every ``iterations / 30`` iterations, in milli-chips per game (the report's
mbb/g with the ante as the unit). The record keeps each curve, its final value, how often CFR+
and LCFR swap order over the evaluations, which is lower at the end, and CFR+ / LCFR over the
last half of the evaluations.

  python -m benchmarks chelarescu_poker [--iterations 3000] [--out benchmarks/papers/results/chelarescu_poker.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmarks folder: record, timing
import jaxcfr  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

GAMES = ("kuhn_poker", "leduc_poker")
ALGORITHMS = ("cfr", "cfr+", "lcfr")
EVALUATIONS = 30


def compute(iterations: int = 3000) -> dict:
  """Per game: each algorithm's curve ([iteration, milli-chips per game] pairs) and final value,
  and the CFR+ / LCFR comparison."""
  every = max(1, iterations // EVALUATIONS)
  results = {}
  for name in GAMES:
    game = jaxcfr.load(name, dtype="float64")
    curves = {}
    for algorithm in ALGORITHMS:
      history = jaxcfr.solve(game, algorithm, iterations, eval_every=every).history
      curves[algorithm] = [[r["iteration"], 1000 * r["exploitability"]] for r in history]
    plus, linear = (np.array([v for _, v in curves[a]]) for a in ("cfr+", "lcfr"))
    above = plus > linear
    half = len(above) // 2
    ratio = plus[half:] / linear[half:]
    results[name] = {
      "curves_milli_chips": curves,
      "final_milli_chips": {a: curves[a][-1][1] for a in ALGORITHMS},
      "final_iteration": curves["cfr"][-1][0],
      "evaluations": len(above),
      "cfr+_lcfr_swaps": int(np.sum(above[1:] != above[:-1])),
      "lower_at_end": "lcfr" if above[-1] else "cfr+",
      "cfr+_over_lcfr_last_half": {"evaluations": len(ratio), "min": float(ratio.min()), "max": float(ratio.max())},
    }
    print(f"{name}: " + ", ".join(f"{a} {v:.3f}" for a, v in results[name]["final_milli_chips"].items()))
  return results


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--iterations", type=int, default=3000, help="iterations of every run (default 3000)")
  parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "chelarescu_poker.json"))
  args = parser.parse_args(argv)
  if args.iterations < EVALUATIONS:
    parser.error(f"--iterations must be at least {EVALUATIONS} (one evaluation per {EVALUATIONS}th of the run)")
  results = compute(args.iterations)
  write_record(
    Path(args.out),
    benchmark="chelarescu_poker",
    description=(
      "Chelarescu 2019 Figures 3.14-3.19: CFR, CFR+ and LCFR (jaxcfr presets, alternating updates) "
      "on Kuhn and Leduc poker from the uniform start, float64; exploitability (NashConv / 2) of the "
      f"average profile every iterations / {EVALUATIONS} iterations, in milli-chips per game."
    ),
    configuration={"iterations": args.iterations, "games": list(GAMES), "algorithms": list(ALGORITHMS)},
    results=results,
  )
  return results


if __name__ == "__main__":
  main()
