"""Magnetic mirror descent on Leduc: jaxcfr's ``mmd`` next to OpenSpiel's NumPy
``mmd_dilated.MMDDilatedEnt`` in the same run (milliseconds per iteration, as a ratio; goal
>= 100x), both float64, and annealed MMD against CFR+ as a Nash solver (exploitability of
MMD's current strategy and of CFR+'s average after the same number of iterations).

    python benchmarks/mmd_speed.py [--game leduc_poker] [--openspiel-iters 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jaxcfr  # noqa: E402
from jaxcfr import diff, solvers  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


def openspiel_ms(game_string: str, temperature: float, iterations: int) -> float:
  import pyspiel  # pylint: disable=import-outside-toplevel
  from open_spiel.python.algorithms import mmd_dilated  # pylint: disable=import-outside-toplevel

  solver = mmd_dilated.MMDDilatedEnt(pyspiel.load_game(game_string), temperature)
  solver.update_sequences()  # warm-up
  start = time.perf_counter()
  for _ in range(iterations):
    solver.update_sequences()
  return 1e3 * (time.perf_counter() - start) / iterations


def ours_ms(tensors, temperature: float, iterations: int, **options) -> float:
  solver = solvers.get("mmd", **options)
  state = solver.init(tensors, temperature=temperature)
  jax.block_until_ready(solver.run(tensors, state, 2))  # compile
  start = time.perf_counter()
  jax.block_until_ready(solver.run(tensors, state, iterations))
  return 1e3 * (time.perf_counter() - start) / iterations


def nash_comparison(tensors, checkpoints=(100, 1000, 10000)) -> list[dict]:
  """Annealed MMD (temperature alpha/sqrt(t), step 1/max|A| / sqrt(t)) and fixed-temperature
  MMD against CFR+ at the same iteration counts."""
  scale = float(jnp.max(jnp.abs(tensors.payoff.value)))
  runs = {
    "cfr+ (average)": (solvers.get("cfr+"), {}, "average"),
    "mmd annealed alpha0=0.03 (current)": (
      solvers.get("mmd", anneal=True),
      {"temperature": 0.03, "step_size": 1 / scale},
      "current",
    ),
    "mmd annealed alpha0=0.03 (average)": (
      solvers.get("mmd", anneal=True),
      {"temperature": 0.03, "step_size": 1 / scale},
      "average",
    ),
    "mmd alpha=0.001 (current)": (solvers.get("mmd"), {"temperature": 0.001}, "current"),
  }
  rows = []
  for name, (solver, hyper, which) in runs.items():
    state, done = solver.init(tensors, **hyper), 0
    for n in checkpoints:
      state, done = solver.run(tensors, state, n - done), n
      strategy = solver.average_strategy if which == "average" else solver.current_strategy
      rows.append(
        {
          "solver": name,
          "iterations": n,
          "exploitability": float(jaxcfr.exploitability(tensors, strategy(tensors, state))),
        }
      )
      print(rows[-1], flush=True)
  return rows


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--game", default="leduc_poker")
  parser.add_argument("--temperature", type=float, default=0.1)
  parser.add_argument("--openspiel-iters", type=int, default=5)
  parser.add_argument("--iters", type=int, default=2000)
  parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "mmd_speed.json"))
  args = parser.parse_args(argv)
  tensors = jaxcfr.load(args.game, dtype="float64").tensors
  peer = openspiel_ms(args.game, args.temperature, args.openspiel_iters)
  mine = ours_ms(tensors, args.temperature, args.iters)
  print(f"OpenSpiel mmd_dilated {peer:.2f} ms/iter, jaxcfr mmd {mine:.4f} ms/iter: {peer / mine:.0f}x", flush=True)
  qre = jax.jit(lambda t: diff.qre(t, temperature=args.temperature))
  profile = jax.block_until_ready(qre(tensors))
  rows = nash_comparison(tensors)
  write_record(
    args.out,
    benchmark="mmd_speed",
    description=(
      "MMD (dilated entropy, float64, simultaneous updates) per-iteration time on "
      f"{args.game}: jaxcfr vs OpenSpiel's NumPy mmd_dilated.MMDDilatedEnt at temperature "
      f"{args.temperature}, same process; then annealed MMD vs CFR+ exploitability (NashConv/2). "
      "Measured on a CPU shared with other jobs: timings are noisy."
    ),
    configuration={"game": args.game, "temperature": args.temperature, "dtype": "float64", "goal_ratio": 100},
    results={
      "openspiel_ms_per_iteration": peer,
      "jaxcfr_ms_per_iteration": mine,
      "ratio": peer / mine,
      "qre_gap": float(diff.qre_gap(tensors, profile, temperature=args.temperature)),
      "qre_exploitability": float(jaxcfr.exploitability(tensors, profile)),
      "nash_comparison": rows,
    },
  )
  return 0


if __name__ == "__main__":
  sys.exit(main())
