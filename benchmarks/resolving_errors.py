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
4. **Split** by seat and by round, for the agent with exact leaves, the agent without a depth
   limit (both with the first of ``--iterations`` and of ``--gadgets``; the latter also with
   the other gadgets) and CFR+ on the whole game after as many iterations: the opponent's best-response gain against each seat over the
   game value (``seat_gains``; their mean is the exploitability); the first round's share,
   the gain against the seat's first-round strategy completed by the best later rounds
   (``best_completion``, ``--completion-iterations`` of CFR+), and the rest, the later rounds'
   share; and, as a control of that choice, the naive splices (``splice``) of the agent's first
   round with the reference equilibrium's later rounds and the other way round. Also the agent
   with exact leaves carrying the leaf function's values at the final average ranges
   (``carry="final_leaves"``), and the first round of one solve of the first round's lookahead
   (``one_lookahead_first_round``: no re-solving), best-completed.
5. **Warm leaves** (``lookahead.warm_leaf_values``: each leaf's subgame solve continued across
   the lookahead's iterations, ``--warm-iterations`` CFR+ steps per call, against fresh solves of
   ``--fresh-leaf-iterations``): the first round of one solve of the first round's lookahead,
   best-completed (as in part 4), for each of ``--iterations``; and the agent with warm leaves
   (the last of ``--warm-iterations``) for each of ``--agent-iterations`` and ``--gadgets``,
   its exploitability and seat gains.

The results file records the hardware and commit.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


PARTS = ("no_depth_limit", "one_root_resolve", "exact_leaves", "split", "warm_leaves")


def _cfr(tree, iterations: int):
  from jaxcfr.solvers import cfr  # pylint: disable=import-outside-toplevel

  state = cfr.init(tree, **cfr.preset_hyperparameters("cfr+"))
  return cfr.average_strategy(tree, cfr.run(tree, state, iterations, cfr.preset_step("cfr+")))


def _agent(rules, iterations: int, **settings) -> tuple:
  """Both seats of the re-solving agent (``resolving.agent_strategy``'s ``settings``)."""
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  from jaxcfr.solvers import resolving  # pylint: disable=import-outside-toplevel

  return tuple(
    jnp.asarray(resolving.agent_strategy(rules, p, iterations=iterations, dtype="float64", **settings)) for p in (0, 1)
  )


def first_round(tree, player: int) -> np.ndarray:
  """[N_p, 1, 1] bool: which rows of ``player``'s public-tree strategy (its decision nodes of
  the host tree ``tree``, in ``tree.decision_nodes`` order) lie in the first betting round."""
  return (np.asarray(tree.round)[tree.decision_nodes(player)] == 0)[:, None, None]


def splice(tree, first: tuple, later: tuple) -> tuple:
  """The profile that plays ``first``'s strategies at the first betting round's decision
  nodes and ``later``'s at every later round's (both public-tree profiles of ``tree``)."""
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  return tuple(jnp.where(first_round(tree, p), jnp.asarray(first[p]), jnp.asarray(later[p])) for p in (0, 1))


def seat_gains(whole, profile, value: float) -> dict:
  """The opponent's best-response gain over the game value against each seat of ``profile``:
  ``seat_0`` is ``BR_1(sigma_0) + v``, ``seat_1`` is ``BR_0(sigma_1) - v`` (``v``: player 0's
  game value), and ``chips``, their mean, the exploitability (``NashConv / 2``)."""
  from jaxcfr.kits.public_tree import values as ops  # pylint: disable=import-outside-toplevel

  best = ops.best_response_values(whole, tuple(profile))
  return {"chips": float(best.sum() / 2), "seat_0": float(best[1] + value), "seat_1": float(best[0] - value)}


def best_completion(whole, tree, strategy, player: int, iterations: int):
  """[N_p, A, H] ``player``'s strategy with its first round held to ``strategy``'s and its later
  rounds solved for the least gain of a best-responding opponent: ``iterations`` of CFR+ on
  the whole game in which ``player``'s first-round strategy is fixed. After every step the held
  rows get the fixed strategy back, and their regrets a 1e30 multiple of it, so that the regret
  matching inside the next (alternating) step, whose strategy player 1's update sees, returns it
  to 1e-16. The opponent's gain against the result bounds the first round's own cost from above
  (tight as ``iterations`` grow)."""
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  from jaxcfr.solvers import cfr  # pylint: disable=import-outside-toplevel

  held, fixed = jnp.asarray(first_round(tree, player)), jnp.asarray(strategy, whole.dtype)
  base = cfr.preset_step("cfr+")

  def hold(state):
    strategies, regrets = list(state.strategy), list(state.regrets)
    strategies[player] = jnp.where(held, fixed, strategies[player])
    regrets[player] = jnp.where(held, 1e30 * fixed, regrets[player])
    return state._replace(strategy=tuple(strategies), regrets=tuple(regrets))

  state = hold(cfr.init(whole, **cfr.preset_hyperparameters("cfr+")))
  run = jax.jit(lambda s: jax.lax.fori_loop(0, iterations, lambda _, x: hold(base(whole, x)), s))
  return jnp.where(held, fixed, cfr.average_strategy(whole, run(state))[player])


def completed_first_round(whole, tree, profile, value: float, iterations: int) -> dict:
  """Each seat's gain against ``profile`` with that seat's later rounds best-completed
  (``best_completion``), and their mean."""
  out = {}
  for p in (0, 1):
    profile_p = list(profile)
    profile_p[p] = best_completion(whole, tree, profile[p], p, iterations)
    out[f"seat_{p}"] = seat_gains(whole, profile_p, value)[f"seat_{p}"]
  out["chips"] = (out["seat_0"] + out["seat_1"]) / 2
  return out


def split(whole, tree, profile, reference, value: float, iterations: int) -> dict:
  """``profile``'s split by seat and round (module doc, part 4) against the near-equilibrium
  ``reference`` of player 0's game value ``value``."""
  row = seat_gains(whole, profile, value)
  row["first_round_best_completion"] = completed = completed_first_round(whole, tree, profile, value, iterations)
  row["later_rounds"] = {k: row[k] - completed[k] for k in ("seat_0", "seat_1")}
  row["later_rounds"]["chips"] = (row["later_rounds"]["seat_0"] + row["later_rounds"]["seat_1"]) / 2
  row["own_first_round_reference_later"] = seat_gains(whole, splice(tree, profile, reference), value)
  row["reference_first_round_own_later"] = seat_gains(whole, splice(tree, reference, profile), value)
  return row


def one_lookahead_first_round(rules, tree, leaf_values_of, iterations: int, reference: tuple) -> tuple:
  """``reference`` (a public-tree profile of the whole game ``tree``) with its first round
  replaced by one solve of the first round's lookahead from the game's root (``iterations``
  of CFR+, leaf values ``leaf_values_of(lookahead)``), both players', no re-solving."""
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits import public_tree as public_tree  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import lookahead  # pylint: disable=import-outside-toplevel

  first = lookahead.build(rules)
  tensors = public_tree.to_device(first, reference[0].dtype)
  solved = lookahead.solve(tensors, iterations, "cfr+", leaf_values_of(first))
  at = public_tree.embedding(tree, first)
  out = []
  for p in (0, 1):
    row = {int(n): i for i, n in enumerate(tree.decision_nodes(p))}
    rows = np.array([row[int(at[n])] for n in first.decision_nodes(p)], np.int64)
    width = first.action_ids.shape[1]
    out.append(jnp.asarray(reference[p]).at[rows, :width].set(solved.profile[p]))
  return tuple(out)


def warm_leaves(rules, game, args, star: tuple, value: float) -> dict:
  """Part 5 (module doc): fresh against warm leaves, from the reference ``star`` of player
  0's game value ``value``."""

  from jaxcfr.solvers import lookahead  # pylint: disable=import-outside-toplevel

  whole = game.tensors
  leaves = {
    f"fresh_{k}": functools.partial(lookahead.exact_leaf_values, iterations=k) for k in args.fresh_leaf_iterations
  }
  leaves.update(
    {f"warm_{k}": functools.partial(lookahead.warm_leaf_values, iterations=k) for k in args.warm_iterations}
  )
  out = {"game_value": value, "one_lookahead_first_round": {}, "agent": {}}
  for name, leaf_values_of in leaves.items():
    for iterations in args.iterations:
      start = time.perf_counter()
      profile = one_lookahead_first_round(rules, game.tree, leaf_values_of, iterations, star)
      row = completed_first_round(whole, game.tree, profile, value, args.completion_iterations)
      row["seconds"] = time.perf_counter() - start
      out["one_lookahead_first_round"].setdefault(name, {})[iterations] = row
      print(f"warm_leaves, one lookahead, {name} leaves, T={iterations}: {row}", flush=True)
  warm = functools.partial(lookahead.warm_leaf_values, iterations=args.warm_iterations[-1])
  for gadget in args.gadgets:
    for iterations in args.agent_iterations or args.iterations:
      start = time.perf_counter()
      profile = _agent(rules, iterations, leaf_values_of=warm, gadget=gadget)
      row = {**seat_gains(whole, profile, value), "seconds": time.perf_counter() - start}
      row["exploitability"] = row["chips"]  # NashConv / 2: the seats' mean gain
      out["agent"].setdefault(f"gadget_{gadget}", {})[iterations] = row
      print(f"warm_leaves, agent, gadget {gadget}, T={iterations}: {row}", flush=True)
  out["agent_warm_iterations"] = args.warm_iterations[-1]
  return out


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(prog="python -m benchmarks resolving_errors", description=__doc__.splitlines()[0])
  ints = lambda text: [int(x) for x in text.split(",") if x]
  words = lambda text: [x.strip() for x in text.split(",") if x.strip()]
  parser.add_argument("--stack", type=int, default=1200, help="stack (ante 100)")
  parser.add_argument("--iterations", type=ints, default=[1000, 3000], help="CFR+ iterations of each (re-)solve")
  parser.add_argument("--reference-iterations", type=int, default=20000, help="CFR+ iterations of the equilibrium")
  parser.add_argument("--leaf-iterations", type=int, default=200, help="CFR+ iterations of each exact leaf solve")
  parser.add_argument(
    "--completion-iterations", type=int, default=20000, help="CFR+ iterations of each best completion (split)"
  )
  parser.add_argument(
    "--warm-iterations", type=ints, default=[1, 5], help="CFR+ steps of each warm leaf call (warm_leaves)"
  )
  parser.add_argument(
    "--agent-iterations", type=ints, default=None, help="warm_leaves: the agent's iterations (default --iterations)"
  )
  parser.add_argument(
    "--fresh-leaf-iterations", type=ints, default=[200, 1000], help="fresh leaf solves compared (warm_leaves)"
  )
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
  from jaxcfr.kits.public_tree import values as ops  # pylint: disable=import-outside-toplevel
  from jaxcfr import kits  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import lookahead, resolving  # pylint: disable=import-outside-toplevel

  name = f"no_limit_leduc_poker(betting=deepstack,stack={args.stack},ante=100)"
  game = kits.load(name, representation="public_tree", dtype="float64")
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
  if {"one_root_resolve", "split", "warm_leaves"} & set(args.parts):
    star = _cfr(whole, args.reference_iterations)
    results["reference_exploitability"] = float(exploit(whole, star))
    best = ops.best_response_values(whole, star)
    value = float(best[0] - best[1]) / 2  # within the reference's exploitability of the game value
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
  if "split" in args.parts:
    results["split"] = {
      "game_value": value,
      "reference": split(whole, game.tree, star, star, value, args.completion_iterations),
    }
    agents = {
      "exact_leaves": dict(leaf_values_of=leaves, gadget=args.gadgets[0]),
      "exact_leaves_final_leaves_carried": dict(leaf_values_of=leaves, gadget=args.gadgets[0], carry="final_leaves"),
      **{
        "no_depth_limit" + ("" if gadget == args.gadgets[0] else f"_gadget_{gadget}"): dict(
          leaf_values_of=None, rounds=2, gadget=gadget
        )
        for gadget in args.gadgets
      },
    }
    for agent, settings in agents.items():
      start = time.perf_counter()
      profile = _agent(rules, args.iterations[0], **settings)
      seconds = time.perf_counter() - start
      results["split"][agent] = {
        **split(whole, game.tree, profile, star, value, args.completion_iterations),
        "seconds": seconds,
      }
      print(f"split, {agent}: {results['split'][agent]}", flush=True)
    profile = _cfr(whole, args.iterations[0])
    results["split"][f"whole_game_cfr+_{args.iterations[0]}"] = split(
      whole, game.tree, profile, star, value, args.completion_iterations
    )
    start = time.perf_counter()
    profile = one_lookahead_first_round(rules, game.tree, leaves, args.iterations[0], star)
    seconds = time.perf_counter() - start
    completed = completed_first_round(whole, game.tree, profile, value, args.completion_iterations)
    results["split"]["one_lookahead_solve"] = {"first_round_best_completion": completed, "seconds": seconds}
    print(f"split, one lookahead solve's first round: {completed}", flush=True)
  if "warm_leaves" in args.parts:
    results["warm_leaves"] = warm_leaves(rules, game, args, star, value)
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
