"""Per-run solvers' batches: the library's ``run`` (the batch moved to one leading axis once
per chunk, registry.per_run) against a loop of ``step`` over the trailing batch axes.

    python -m benchmarks batch_layout [--game leduc_poker] [--batch 64] [--iterations 300]

Both give the same states; the result file records milliseconds per batched iteration and
the ratio, with the hardware.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jaxcfr  # noqa: E402  pylint: disable=wrong-import-position
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import best_seconds  # noqa: E402  pylint: disable=wrong-import-position

SOLVERS = ("mccfr-os", "mccfr-es", "mcrnr", "mcts")


def _best_ms(run, state, iterations: int, repeats: int = 3) -> float:
  jax.block_until_ready(run(state, 2))  # compile
  return 1e3 * best_seconds(lambda: run(state, iterations), repeats) / iterations


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--game", default="leduc_poker")
  parser.add_argument("--batch", type=int, default=64)
  parser.add_argument("--iterations", type=int, default=300)
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "batch_layout.json"))
  args = parser.parse_args(argv)
  game = jaxcfr.load(args.game, dtype="float32")
  tensors = game.tensors
  rows = []
  for name in SOLVERS:
    solver = jaxcfr.solvers.get(name)
    extra = {"model": jaxcfr.uniform_profile(tensors), "p": 0.5} if "model" in solver.requires else {}
    state = solver.init(tensors, seed=jnp.arange(args.batch), **extra)
    trailing = jax.jit(lambda s, n, solver=solver: jax.lax.fori_loop(0, n, lambda _, x: solver.step(tensors, x), s))
    library = lambda s, n, solver=solver: solver.run(tensors, s, n)
    ms_trailing = _best_ms(trailing, state, args.iterations)
    ms_library = _best_ms(library, state, args.iterations)
    rows.append(
      {
        "solver": name,
        "batch": args.batch,
        "ms_per_iteration_run": ms_library,
        "ms_per_iteration_trailing_step_loop": ms_trailing,
        "speedup": ms_trailing / ms_library,
      }
    )
    print(
      f"{name:9s} run {ms_library:.3f} ms, step loop on trailing axes {ms_trailing:.3f} ms "
      f"({ms_trailing / ms_library:.1f}x)",
      flush=True,
    )
  write_record(
    args.out,
    benchmark="batch_layout",
    description="milliseconds per batched iteration (float32) of per-run solvers: solver.run (the "
    "batch on one leading axis inside the loop) against a jitted fori_loop of solver.step "
    "(vmap over the trailing batch axes every step); best of 3",
    configuration={
      "game": args.game,
      "solvers": list(SOLVERS),
      "batch": args.batch,
      "iterations": args.iterations,
      "dtype": "float32",
      "repeats": 3,
      "seeds": list(range(args.batch)),  # one per run of the batch (solver.init's seed)
    },
    results=rows,
  )
  return read_record(args.out)


if __name__ == "__main__":
  main()
