"""Exploitability after the same number of sampled iterations: jaxcfr's outcome and
external sampling next to OpenSpiel's C++ OutcomeSamplingMCCFRSolver and
ExternalSamplingMCCFRSolver (one iteration = player 0's update, then player 1's; K = 1,
epsilon = 0.6), averaged over seeds, with wall times. The tests check the same numbers
within a factor 1.5 (tests/test_mccfr.py::test_convergence_comparable_to_openspiel).

  python benchmarks/mccfr_convergence.py [--seeds 8] [--out benchmarks/results/mccfr_convergence.json]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pyspiel

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.solvers import mccfr_state
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import timed  # noqa: E402  pylint: disable=wrong-import-position

RUNS = [
  ("mccfr-os", "kuhn_poker", 10000),
  ("mccfr-es", "kuhn_poker", 1000),
  ("mccfr-os", "leduc_poker", 20000),
  ("mccfr-es", "leduc_poker", 1000),
  ("mccfr-os", "leduc_poker", 200000),
  ("mccfr-es", "leduc_poker", 10000),
]


def ours(algorithm: str, name: str, iterations: int, seeds: int):
  game = jaxcfr.load(name)
  tensors = game.tensors
  solver = solvers.get(algorithm)
  # One batch of runs, one per seed (trailing batch axes on every leaf of the state).
  run = jax.jit(lambda seeds: solver.run(tensors, solver.init(tensors, seed=seeds), iterations))
  exploit = jax.jit(lambda s: evaluation.exploitability(tensors, solver.average_strategy(tensors, s)))  # [seeds]
  jax.block_until_ready(run(jnp.arange(seeds) + 10_000))  # compile
  seconds, states = timed(lambda: run(jnp.arange(seeds)))
  return np.asarray(exploit(states)).tolist(), seconds, float(np.mean(mccfr_state.nodes_touched(states))) / iterations


def openspiel(algorithm: str, name: str, iterations: int, seeds: int):
  game = pyspiel.load_game(name)

  def one(seed):
    solver = (
      pyspiel.OutcomeSamplingMCCFRSolver(game, mccfr_state.DEFAULT_EPSILON, seed)
      if algorithm == "mccfr-os"
      else pyspiel.ExternalSamplingMCCFRSolver(game, seed)
    )
    for _ in range(iterations):
      solver.run_iteration()
    return pyspiel.exploitability(game, solver.average_policy())

  seconds, values = timed(lambda: [one(seed) for seed in range(seeds)])
  return values, seconds


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--seeds", type=int, default=8)
  parser.add_argument(
    "--max-iterations", type=int, default=None, help="only the runs of at most this many iterations (default: all)"
  )
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "mccfr_convergence.json"))
  args = parser.parse_args(argv)
  runs = [r for r in RUNS if args.max_iterations is None or r[2] <= args.max_iterations]
  if not runs:
    parser.error(f"--max-iterations {args.max_iterations} leaves no run (the shortest has {min(r[2] for r in RUNS)})")
  rows = []
  for algorithm, name, iterations in runs:
    mine, my_seconds, nodes = ours(algorithm, name, iterations, args.seeds)
    theirs, their_seconds = openspiel(algorithm, name, iterations, args.seeds)
    row = {
      "algorithm": algorithm,
      "game": name,
      "iterations": iterations,
      "seeds": args.seeds,
      "exploitability_ours": float(np.mean(mine)),
      "exploitability_openspiel": float(np.mean(theirs)),
      "ratio": float(np.mean(mine) / np.mean(theirs)),
      "sem_ours": float(np.std(mine, ddof=1) / np.sqrt(len(mine))),
      "sem_openspiel": float(np.std(theirs, ddof=1) / np.sqrt(len(theirs))),
      "ours_per_seed": mine,
      "openspiel_per_seed": theirs,
      "nodes_touched_per_iteration": nodes,
      "seconds_ours_all_seeds_batched": my_seconds,
      "seconds_openspiel_all_seeds": their_seconds,
    }
    rows.append(row)
    print(
      f"{algorithm} {name:12} {iterations:>7} it: ours {row['exploitability_ours']:.4f} "
      f"(+-{row['sem_ours']:.4f}, {my_seconds:.1f}s)  OpenSpiel {row['exploitability_openspiel']:.4f} "
      f"(+-{row['sem_openspiel']:.4f}, {their_seconds:.1f}s)  ratio {row['ratio']:.2f}",
      flush=True,
    )
  write_record(
    args.out,
    benchmark="mccfr_convergence",
    description=__doc__.split("\n\n")[0],
    configuration={
      "runs": [{"algorithm": a, "game": g, "iterations": i} for a, g, i in runs],
      "seeds": args.seeds,
      "epsilon": mccfr_state.DEFAULT_EPSILON,
      "trajectories": 1,
      "exploitability": "NashConv / 2 (OpenSpiel's)",
    },
    results=rows,
  )
  print(f"wrote {args.out}")
  return read_record(args.out)


if __name__ == "__main__":
  main()
