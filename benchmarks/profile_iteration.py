"""Where one CFR+ iteration spends its time: each part of the iteration timed alone.

A CFR+ iteration with alternating updates does, for each player in turn: the opponent's
realization plan (top-down, one gather and one update per level), the sequence values
against it (a gather and a sorted segment sum over the payoff pairs), the counterfactual
values (bottom-up, one gather and one scatter-add per level), and an elementwise regret
update with regret matching+, plus the own plan for the average. Each part runs here on
its own inside a jitted ``fori_loop`` of ``--iters`` steps (its output fed back so that
nothing is hoisted), next to the whole step, for one run and for a batch; the compiled
step's operations are counted (fusions, gathers, scatters), and an empty loop of as many
trivial fused operations gives the fixed cost per operation of XLA's CPU runtime.

    python -m benchmarks profile_iteration --game leduc_poker --batch 1,64
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import best_seconds as _best_of  # noqa: E402  pylint: disable=wrong-import-position

import jaxcfr  # noqa: E402  pylint: disable=wrong-import-position
from jaxcfr import solvers  # noqa: E402  pylint: disable=wrong-import-position
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.base import regret  # noqa: E402  pylint: disable=wrong-import-position


def best_seconds(fn, x, repeats: int) -> float:
  """Best of ``repeats`` calls of ``fn(x)`` after a compiling call."""
  jax.block_until_ready(fn(x))
  return _best_of(lambda: fn(x), repeats)


def looped(part, iters: int):
  """``part(x) -> x'`` of the same shape, iterated ``iters`` times in one jitted call."""
  return jax.jit(lambda x: jax.lax.fori_loop(0, iters, lambda _, y: part(y), x))


def resized(x: jax.Array, n: int) -> jax.Array:
  """``x`` [S, *B] cut or zero-padded to ``n`` rows."""
  return x[:n] if x.shape[0] >= n else jnp.pad(x, [(0, n - x.shape[0])] + [(0, 0)] * (x.ndim - 1))


def op_counts(fn, x) -> dict:
  text = fn.lower(x).compile().as_text()
  counts = collections.Counter(re.findall(r"= \S+ ([a-z][\w-]*)\(", text))
  return {name: counts[name] for name in ("fusion", "gather", "scatter", "dynamic-update-slice", "copy")}


def profile(game: jaxcfr.kits.sequence_form.Game, batch: int, iters: int, repeats: int) -> dict:
  tensors = game.tensors
  solver = solvers.get("cfr+")
  state = solver.init(tensors, gamma=jnp.ones(batch)) if batch > 1 else solver.init(tensors)
  p0, p1 = tensors.players
  sigma0, sigma1 = state.strategy
  y = evaluation.realization_plan(p1, sigma1)
  g0 = evaluation.sequence_values_for(tensors.payoff, 0, y)
  legal0 = evaluation.expand_to(p0.legal, sigma0.ndim)

  def renormalised(s):  # keeps a strategy a strategy when fed back
    return regret.normalise(jnp.abs(s) + 0.1, legal0) if s.shape == sigma0.shape else s

  parts = {
    "opponent_plan": (
      lambda s: sigma1 * 0.5 + 0.5 * evaluation.action_table(p1, evaluation.realization_plan(p1, s)),
      sigma1,
    ),
    "sequence_values": (
      lambda v: 0.5 * v + 0.5 * resized(evaluation.sequence_values_for(tensors.payoff, 0, v), v.shape[0]),
      y,
    ),
    "counterfactual_values": (lambda s: renormalised(evaluation.counterfactual_values(p0, g0, s)[0]), sigma0),
    "regret_matching_plus": (
      lambda r: regret.regret_matching(jnp.maximum(r - 0.01, 0) + 0.001, legal0),
      state.regrets[0],
    ),
  }
  rows = {}
  for name, (part, x) in parts.items():
    rows[name] = {"us_per_call": 1e6 * best_seconds(looped(part, iters), x, repeats) / iters}
  step = looped(lambda s: solver.step(tensors, s), iters)
  rows["whole_step"] = {"us_per_call": 1e6 * best_seconds(step, state, repeats) / iters, "ops": op_counts(step, state)}
  fusions = rows["whole_step"]["ops"]["fusion"]
  chain = lambda v: tiny_operations(v, fusions)
  rows["empty_loop_same_op_count"] = {
    "us_per_call": 1e6 * best_seconds(looped(chain, iters), jnp.ones(4), repeats) / iters,
    "ops": op_counts(looped(chain, iters), jnp.ones(4)),
  }
  return rows


def tiny_operations(v, n):
  """``n`` dependent tiny operations that XLA cannot fuse into one (a reduction between each)."""
  for _ in range(n // 2):
    v = v * 1.0001 + v.sum() * 1e-9
  return v


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--game", default="leduc_poker")
  parser.add_argument("--batch", default="1,64", help="comma-separated batch sizes")
  parser.add_argument("--iters", type=int, default=2000)
  parser.add_argument("--repeats", type=int, default=5)
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "profile_iteration.json"))
  args = parser.parse_args(argv)
  game = jaxcfr.load(args.game)
  results = {}
  for batch in (int(b) for b in args.batch.split(",")):
    results[f"B={batch}"] = rows = profile(game, batch, args.iters, args.repeats)
    print(f"{args.game} B={batch}:")
    for name, row in rows.items():
      print(f"  {name:26s} {row['us_per_call']:9.2f} us  {row.get('ops', '')}")
  write_record(
    args.out,
    benchmark="profile_iteration",
    description=__doc__.split("\n\n")[0].strip(),
    configuration={
      "game": args.game,
      "algorithm": "cfr+",
      "dtype": str(game.tensors.dtype),
      "batches": [int(b) for b in args.batch.split(",")],
      "iters": args.iters,
      "repeats": args.repeats,
    },
    results=results,
  )
  return 0


if __name__ == "__main__":
  sys.exit(main())
