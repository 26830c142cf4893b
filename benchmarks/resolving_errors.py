"""Where continual re-solving's exploitability comes from on no-limit Leduc: the gadget, the carried values, the leaves.

    python -m benchmarks resolving_errors                      # stack 1,200, the defaults below
    python -m benchmarks resolving_errors --iterations 1000 --out /tmp/e.json

The re-solving agent of ``benchmarks/resolving.py`` loses to CFR+ on the whole game by more
than its depth-limited leaves explain. This separates the parts, on DeepStack-Leduc's game
(``no_limit_leduc_poker(betting=deepstack,stack=S,ante=100)``), each figure exact
(``NashConv / 2`` in chips, or a best-response gain), for each way the gadget's follow
probabilities learn (``resolving.GADGETS``: regret matching, or regret matching+ as
DeepStack-Leduc's gadget):

1. **No depth limit**: the continual re-solving agent whose every solve covers the rest of
   the game (``rounds=2``: no leaves, so no leaf error), for each of ``--iterations``, with
   the opponent values DeepStack carries (averaged over the iterations) and with the exact
   best-response values against the re-solved strategy (the safe bound of Burch, Johanson
   and Bowling 2014).
2. **One re-solve with exact bounds**: the whole game re-solved once at its root for each
   player, from the bounds of a near-equilibrium (``--reference-iterations`` of CFR+), spliced
   into that equilibrium: the opponent's best-response gain over the equilibrium value, beside
   the same number of plain CFR+ iterations on the whole game, and the gadget's mean follow
   probability.
3. **Exact leaves**: the agent of ``benchmarks/resolving.py`` (first-round lookaheads, exact
   leaf values of ``--leaf-iterations``), at the first of ``--iterations``.

The results file records the hardware and commit.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


PARTS = ("no_depth_limit", "one_root_resolve", "exact_leaves")


def _cfr(tree, iterations: int):
  from jaxcfr.solvers import vector_cfr  # pylint: disable=import-outside-toplevel

  state = vector_cfr.init(tree, **vector_cfr.preset_hyperparameters("cfr+"))
  return vector_cfr.average_strategy(tree, vector_cfr.run(tree, state, iterations, vector_cfr.preset_step("cfr+")))


def _agent(rules, iterations: int, **settings) -> tuple:
  """Both seats of the re-solving agent (``resolving.agent_strategy``'s ``settings``)."""
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  from jaxcfr.solvers import resolving  # pylint: disable=import-outside-toplevel

  return tuple(
    jnp.asarray(resolving.agent_strategy(rules, p, iterations=iterations, dtype="float64", **settings)) for p in (0, 1)
  )


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(prog="python -m benchmarks resolving_errors", description=__doc__.splitlines()[0])
  ints = lambda text: [int(x) for x in text.split(",") if x]
  words = lambda text: [x.strip() for x in text.split(",") if x.strip()]
  parser.add_argument("--stack", type=int, default=1200, help="stack (ante 100)")
  parser.add_argument("--iterations", type=ints, default=[1000, 3000], help="CFR+ iterations of each (re-)solve")
  parser.add_argument("--reference-iterations", type=int, default=20000, help="CFR+ iterations of the equilibrium")
  parser.add_argument("--leaf-iterations", type=int, default=200, help="CFR+ iterations of each exact leaf solve")
  parser.add_argument(
    "--parts", type=words, default=list(PARTS), help=f"comma-separated parts to run, of {', '.join(PARTS)}"
  )
  parser.add_argument(
    "--gadgets", type=words, default=["rm+", "rm"], help="comma-separated gadgets (resolving.GADGETS)"
  )
  parser.add_argument(
    "--out", default=str(Path(__file__).parent / "results" / "resolving_errors.json"), help="the results file"
  )
  args = parser.parse_args(argv)
  if set(args.parts) - set(PARTS):
    parser.error(f"--parts: unknown {sorted(set(args.parts) - set(PARTS))}; choose from {', '.join(PARTS)}")
  import jax  # pylint: disable=import-outside-toplevel

  jax.config.update("jax_enable_x64", True)
  from jaxcfr.core import public_tree as ops  # pylint: disable=import-outside-toplevel
  from jaxcfr.game import loading  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import lookahead, resolving  # pylint: disable=import-outside-toplevel

  name = f"no_limit_leduc_poker(betting=deepstack,stack={args.stack},ante=100)"
  game = loading.load(name, representation="public_tree", dtype="float64")
  rules, whole = game.tree.rules, game.tensors
  exploit = jax.jit(ops.exploitability)
  results = {"game": name, "whole_game_cfr+": {}, **{part: {} for part in args.parts}}
  for iterations in args.iterations:
    results["whole_game_cfr+"][iterations] = float(exploit(whole, _cfr(whole, iterations)))
  for gadget in args.gadgets if "no_depth_limit" in args.parts else ():
    for carry in resolving.CARRIES:
      for iterations in args.iterations:
        start = time.perf_counter()
        profile = _agent(rules, iterations, leaf_values_of=None, rounds=2, carry=carry, gadget=gadget)
        row = {"chips": float(exploit(whole, profile)), "seconds": time.perf_counter() - start}
        results["no_depth_limit"].setdefault(f"gadget_{gadget}", {}).setdefault(f"{carry}_values", {})[iterations] = row
        print(f"no depth limit, gadget {gadget}, {carry} values carried, T={iterations}: {row}", flush=True)
  if "one_root_resolve" in args.parts:
    star = _cfr(whole, args.reference_iterations)
    results["reference_exploitability"] = float(exploit(whole, star))
  for player in (0, 1) if "one_root_resolve" in args.parts else ():
    opponent = 1 - player
    target = float(ops.best_response_values(whole, star)[opponent])
    bounds = ops.counterfactual_values(whole, opponent, None, ops.ranges(whole, player, star[player]))[0]
    rows = {}
    for iterations in args.iterations:
      plain = list(star)
      plain[player] = _cfr(whole, iterations)[player]
      rows[iterations] = {
        "opponent_gain_plain_cfr+": float(ops.best_response_values(whole, tuple(plain))[opponent]) - target
      }
      for gadget in args.gadgets:
        out = resolving.resolve(
          whole, whole.initial_range[player], bounds, player=player, iterations=iterations, gadget=gadget
        )
        spliced = list(star)
        spliced[player] = out.strategy
        rows[iterations][f"gadget_{gadget}"] = {
          "opponent_gain": float(ops.best_response_values(whole, tuple(spliced))[opponent]) - target,
          "mean_follow": float(out.follow.mean()),
        }
    results["one_root_resolve"][f"player_{player}"] = rows
    print(f"one re-solve at the root, player {player}: {rows}", flush=True)
  leaves = functools.partial(lookahead.exact_leaf_values, iterations=args.leaf_iterations)
  for gadget in args.gadgets if "exact_leaves" in args.parts else ():
    start = time.perf_counter()
    profile = _agent(rules, args.iterations[0], leaf_values_of=leaves, gadget=gadget)
    row = {"chips": float(exploit(whole, profile)), "seconds": time.perf_counter() - start}
    row["leaf_iterations"] = args.leaf_iterations
    results["exact_leaves"][f"gadget_{gadget}"] = {args.iterations[0]: row}
    print(f"exact leaves, gadget {gadget}, T={args.iterations[0]}: {row}", flush=True)
  write_record(
    args.out,
    benchmark="resolving_errors",
    description="Where continual re-solving's exploitability comes from (no-limit Leduc, DeepStack-Leduc's "
    "betting, float64, this CPU): re-solving without depth limit, with averaged or best-response values "
    "carried; one re-solve of the whole game at the root from exact bounds against plain CFR+; the gadget's "
    "follow regrets by regret matching or regret matching+ (DeepStack-Leduc's); exact leaf values.",
    configuration=vars(args),
    results=results,
  )
  return results


if __name__ == "__main__":
  main()
