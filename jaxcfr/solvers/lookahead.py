"""Depth-limited lookaheads on the public tree and exact values at their leaves.

DeepStack (Moravcik et al., "DeepStack: Expert-Level Artificial Intelligence in Heads-Up
No-Limit Poker", 2017) never solves the whole game: it solves a *lookahead*, the public tree
from the current public state to the end of the betting round, and asks a function of
(pot, board, both ranges) for the counterfactual values at its leaves, the first decisions
of the next round. Here a lookahead is a public tree built from
``jaxcfr.games.poker_rules.Subgame`` with ``rounds`` set; its leaves are nodes of kind LEAF
(after the deal of their round, so each knows its board), and every CFR solver of
jaxcfr.solvers.cfr runs on it with a ``LeafValueFn`` (``cfr.step``'s hook),
batched like any public tree.

``exact_leaf_values`` is the reference value function: it solves the rest of the game below
each leaf from the ranges it is given (CFR+ on the leaf's subgame, every leaf of one shape
in one ``vmap``, or one after another with ``sequential=True``) and returns the solution's
counterfactual values, so a lookahead with it solves the whole game up to the inner solves'
accuracy. A counterfactual value network
stands in for it at play time (jaxcfr.solvers.value_network). ``warm_leaf_values`` is the
exact reference that converges like CFR on the whole game: each leaf's solve goes on from
the lookahead's last iteration (a ``public_tree.LeafSolver``, whose state the run carries).

    rules = game.public_tree_rules()
    tree = lookahead.build(rules)                           # the first round, host
    leaf_fn = lookahead.exact_leaf_values(tree, iterations=200)
    solved = lookahead.solve(public_tree.to_device(tree), 300, leaf_fn=leaf_fn)
    solved.values                                           # [2, N, H] average values

Shapes: ``N`` nodes, ``L`` leaves, ``H`` hands, ``*B`` trailing batch axes.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.public_tree import values as ops
from jaxcfr.kits import public_tree as public_tree
from jaxcfr.kits.public_tree import PublicTree, PublicTreeTensors, Subgame
from jaxcfr.solvers import cfr
from jaxcfr.kits.public_tree import LeafValueFn

__all__ = [
  "build",
  "whole_game_rules",
  "solve_ranges",
  "exact_leaf_values",
  "warm_leaf_values",
  "Solved",
  "solve",
]


def build(rules, root=None, *, ranges=None, rounds: int | None = 1) -> PublicTree:
  """The public tree of ``rules`` below the public state ``root`` (default the game's root),
  depth-limited to ``rounds`` betting rounds (None: to the end of the game), with
  ``ranges`` [2, H] at the root (poker_rules.Subgame)."""
  return public_tree.build(Subgame(rules, root, ranges, rounds))


def whole_game_rules(tree: PublicTree):
  """The rules of the whole game of which ``tree`` is a subgame (its own if it is none)."""
  return getattr(tree.rules, "whole", tree.rules)


def _stack(trees: list) -> PublicTreeTensors:
  return jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *trees)


def _signature(tree: PublicTreeTensors) -> tuple:
  leaves, treedef = jax.tree_util.tree_flatten(tree)
  return treedef, tuple((x.shape, x.dtype) for x in leaves)


def solve_ranges(tree: PublicTreeTensors, ranges: jax.Array, iterations: int, algorithm: str = "cfr+") -> jax.Array:
  """[2, H, *B] both players' counterfactual values at the root of ``tree`` (a subgame
  without leaves) after ``iterations`` of ``algorithm`` from the root ``ranges`` [2, H, *B]
  (each player's weight of each hand; any positive scale): each player's best-response
  values against the other's average strategy, in the units of those ranges
  (jaxcfr.kits.public_tree.values: a player's values scale with the opponent's weights). At an
  equilibrium they are the equilibrium's values on the hands a player holds with positive
  weight, and on every hand they are what that hand can earn against the opponent's
  strategy: a supergradient of the subgame's value in the player's range, which is what a
  lookahead's regrets need (a hand the solution never plays into the subgame keeps an
  honest value). A player with no weight at all is solved against as if uniform (its
  opponent's values are then zero: nobody to play against). Zero for a subgame whose ranges
  have no compatible pair."""
  valid = tree.valid[tree.board[0]].reshape((tree.num_hands,) + (1,) * (ranges.ndim - 2)).astype(ranges.dtype)
  reached = (ranges * valid).sum(1) > 0  # [2, *B]
  # A player who never reaches the subgame still needs its values there (its regrets ask
  # what reaching it would earn): solve against a uniform range in its place.
  weights = jnp.where(reached[:, None], ranges, valid)
  normalised, scale = ops.normalise_ranges(tree, weights)
  scale = scale * reached
  tree = dataclasses.replace(tree, initial_range=normalised)
  state = cfr.init(tree, **cfr.preset_hyperparameters(algorithm))
  step = cfr.preset_step(algorithm)
  state = jax.lax.fori_loop(0, iterations, lambda _, s: step(tree, s), state)
  profile = cfr.average_strategy(tree, state)
  values = [ops.counterfactual_values(tree, p, None, ops.ranges(tree, 1 - p, profile[1 - p]))[0] for p in (0, 1)]
  return jnp.stack([values[0] * scale[1], values[1] * scale[0]])


def _leaf_subgames(tree: PublicTree, dtype) -> list:
  """[(positions [G], stacked subgames)]: the subgames below the leaves of the depth-limited
  ``tree`` (host), grouped by shape (the same betting on different boards), each group's
  positions among the leaves and its subgames stacked on a leading axis."""
  leaf_nodes = np.flatnonzero(tree.kind == public_tree.LEAF)
  if not len(leaf_nodes):
    raise ValueError("the tree has no depth-limit leaves (build it with rounds set)")
  rules = whole_game_rules(tree)
  groups: dict = {}
  for position, node in enumerate(leaf_nodes):
    subgame = public_tree.to_device(build(rules, tree.states[node], rounds=None), dtype)
    groups.setdefault(_signature(subgame), []).append((position, subgame))
  return [(np.array([p for p, _ in group]), _stack([t for _, t in group])) for group in groups.values()]


def _over_leaves(fn, subgames: PublicTreeTensors, ranges: jax.Array, *states, sequential: bool):
  """``fn(subgame, ranges, *states)`` for each leaf of one group: ``subgames`` and ``states``
  stacked on a leading axis ``G``, ``ranges`` [2, G, H, *B]; the outputs gain a leading ``G``.
  Side by side (``vmap``: one wide program), or one leaf after another (``lax.map``: the step's
  intermediates are one subgame's, while every subgame's tables, and a ``LeafSolver``'s states,
  stay resident)."""
  ranges = jnp.moveaxis(ranges, 1, 0)
  if sequential:
    return jax.lax.map(lambda args: fn(*args), (subgames, ranges) + states)
  return jax.vmap(fn)(subgames, ranges, *states)


def exact_leaf_values(
  tree: PublicTree, iterations: int = 200, algorithm: str = "cfr+", dtype=None, *, sequential: bool = False
) -> LeafValueFn:
  """The ``LeafValueFn`` of the depth-limited ``tree`` (host) that solves the rest of the
  game below each leaf: ``iterations`` of ``algorithm`` on the leaf's subgame from the
  ranges it is given (``solve_ranges``), the leaves whose subgames have one shape (the same
  betting on different boards) in one ``vmap`` (``sequential``: one after another, so that the
  solves' intermediates are one subgame's). Exact as ``iterations`` grows.

  Each call solves from scratch, so the values are a function of the ranges alone, as a
  network's are; but a best response's values are not smooth in the ranges, and a
  lookahead's CFR converges on them at about the rate of 1 / sqrt(T) (a no-regret method on
  a non-smooth concave-convex game), not at CFR+'s on the whole game: ``warm_leaf_values``."""
  stacked = _leaf_subgames(tree, dtype)
  solve_one = functools.partial(solve_ranges, iterations=iterations, algorithm=algorithm)

  def leaf_fn(lookahead: PublicTreeTensors, ranges: jax.Array) -> jax.Array:
    del lookahead
    out = jnp.zeros_like(ranges)
    for positions, subgames in stacked:
      values = _over_leaves(solve_one, subgames, ranges[:, positions], sequential=sequential)  # [G, 2, H, *B]
      out = out.at[:, positions].set(jnp.moveaxis(values, 0, 1).astype(out.dtype))
    return out

  return leaf_fn


def warm_leaf_values(
  tree: PublicTree, iterations: int = 1, algorithm: str = "cfr+", dtype=None, *, sequential: bool = False
) -> public_tree.LeafSolver:
  """Exact values at the leaves of the depth-limited ``tree`` (host) by solves of the game
  below them warm-started across the lookahead's iterations (a ``public_tree.LeafSolver``):
  each leaf's subgame keeps its own ``algorithm`` state, and each call runs ``iterations``
  steps of it from that state with the ranges it is given, unnormalised (so that the
  subgame's regrets are those of the whole game's CFR, weighted by the lookahead's reach),
  and returns both players' counterfactual values at the leaf under the strategies of the
  last of those steps. The lookahead's CFR with them is CFR-D (Burch, Johanson and Bowling,
  "Solving Imperfect Information Games Using Decomposition", 2014) with each subgame's
  strategy of an iteration from a no-regret learner instead of a fresh equilibrium, and
  converges like CFR on the whole game; ``exact_leaf_values``' fresh solves are a function of
  the ranges alone but converge much more slowly (its doc). ``sequential``: the leaves of one
  shape one after another instead of side by side (``exact_leaf_values``')."""
  if iterations < 1:
    raise ValueError(f"iterations must be >= 1 (CFR steps per call), got {iterations}")
  stacked = _leaf_subgames(tree, dtype)
  step = cfr.preset_step(algorithm)
  hyperparameters = cfr.preset_hyperparameters(algorithm)

  def with_ranges(subgame: PublicTreeTensors, ranges: jax.Array) -> PublicTreeTensors:
    valid = subgame.valid[subgame.board[0]].reshape((subgame.num_hands,) + (1,) * (ranges.ndim - 2))
    return dataclasses.replace(subgame, initial_range=ranges * valid.astype(ranges.dtype))

  def init(lookahead: PublicTreeTensors, batch: tuple) -> tuple:
    def one(subgame):
      shape = (2, subgame.num_hands) + tuple(batch)
      return cfr.init(with_ranges(subgame, jnp.zeros(shape, subgame.dtype)), **hyperparameters)

    del lookahead
    return tuple(jax.vmap(one)(subgames) for _, subgames in stacked)

  def apply(lookahead: PublicTreeTensors, ranges: jax.Array, states: tuple) -> tuple:
    def one(subgame, subgame_ranges, state):
      subgame = with_ranges(subgame, subgame_ranges)
      state = jax.lax.fori_loop(0, iterations, lambda _, s: step(subgame, s), state)
      return state.values[:, 0], state

    del lookahead
    out, new = jnp.zeros_like(ranges), []
    for (positions, subgames), state in zip(stacked, states):
      values, state = _over_leaves(one, subgames, ranges[:, positions], state, sequential=sequential)
      out = out.at[:, positions].set(jnp.moveaxis(values, 0, 1).astype(out.dtype))
      new.append(state)
    return out, tuple(new)

  return public_tree.LeafSolver(init, apply)


class Solved(NamedTuple):
  """A solved (depth-limited) public tree.

  Attributes:
    profile: ([N_0, A, H, *B], [N_1, A, H, *B]) the average strategies.
    values: [2, N, H, *B] each player's counterfactual values at every node, averaged over
      the iterations with the average strategy's weights (DeepStack's average values: on a
      lookahead, the leaf function is not linear in the ranges, so the values at the
      average profile's ranges would not bound what the opponent earns, while the average
      of each iteration's values does, up to its regret).
  """

  profile: tuple
  values: jax.Array


@functools.partial(jax.jit, static_argnames=("iterations", "algorithm", "leaf_fn"))
def solve(
  tree: PublicTreeTensors,
  iterations: int,
  algorithm: str = "cfr+",
  leaf_fn: LeafValueFn | public_tree.LeafSolver | None = None,
) -> Solved:
  """``iterations`` of ``algorithm`` on ``tree`` (a lookahead with ``leaf_fn`` for its
  leaves, or a whole subgame), from its own root ranges."""
  step = cfr.preset_step(algorithm, operations=public_tree.operations(leaf_fn=leaf_fn))

  def body(_, carry):
    state, average = carry
    state = step(tree, state)
    return state, cfr.running_average(state.weight_ratio, average, state.values)

  state = cfr.init(
    tree, **cfr.preset_hyperparameters(algorithm), keep_values=True, operations=public_tree.operations(leaf_fn=leaf_fn)
  )
  state, values = jax.lax.fori_loop(0, iterations, body, (state, jnp.zeros_like(state.values)))
  return Solved(cfr.average_strategy(tree, state), values)
