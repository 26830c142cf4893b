"""The one walk of limit hold'em's betting tree in JAX (jaxcfr.kits.card_abstraction.game's
``HoldemGame``): one deal's path from the root, an action a step chosen by a policy, shared by
the sampled solvers (jaxcfr.solvers.holdem_cfr, holdem_search) and the model's play
(jaxcfr.evaluate.holdem_model); and the decision nodes by depth, the static levels of the
passes over the betting tree."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.games import limit_holdem as rules
from jaxcfr.kits.card_abstraction.game import HoldemGame

__all__ = ["decision_levels", "Decision", "BettingPolicy", "max_depth", "walk_betting"]


@functools.cache
def decision_levels(game: HoldemGame) -> tuple:
  """The decision nodes grouped by depth (actions from the root), shallowest first: host
  int arrays, the static levels of the top-down and bottom-up passes over the betting tree."""
  depth = np.array([len(h.replace("/", "")) for h in game.tree.history.tolist()])
  decisions = game.tree.terminal == rules.NOT_TERMINAL
  return tuple(
    np.flatnonzero(decisions & (depth == d)) for d in range(depth.max() + 1) if (decisions & (depth == d)).any()
  )


class Decision(NamedTuple):
  """A betting node that one deal's walk reached (each ``[]``, or ``[3]`` for ``legal``).

  Attributes:
    node: int32, the betting node.
    player: int32, its acting player as the tree records it (not 0 or 1 at terminals).
    seat: int32, ``player`` clipped to 0 or 1: whose table ``row`` indexes.
    alive: bool, the node is not terminal.
    row: int32, the acting player's infoset row ``decision[node] * buckets + bucket`` (the
      current round's bucket of the deal; meaningless at terminals).
    legal: [3] bool, fold, call, raise.
  """

  node: jax.Array
  player: jax.Array
  seat: jax.Array
  alive: jax.Array
  row: jax.Array
  legal: jax.Array


BettingPolicy = Callable[[Decision, Any], tuple[jax.Array, Any]]
"""``policy(decision, x) -> (action, output)``: at a Decision, with this step's input ``x``
(a slice of the walk's ``xs``), the action [] int32 (0 fold, 1 call, 2 raise; ignored at
terminals) and an output pytree stacked over the steps."""


def max_depth(tree: rules.BettingTree) -> int:
  """The most actions in one hand (the length of a walk that always ends at a terminal)."""
  return max(len(h.replace("/", "")) for h in tree.history.tolist())


def walk_betting(game: HoldemGame, buckets: jax.Array, policy: BettingPolicy, xs: Any) -> tuple[jax.Array, Any]:
  """One deal's walk from the root of the betting tree, one action per leading entry of
  ``xs`` (one ``lax.scan``; give ``max_depth(game.tree)`` steps to reach a terminal): each
  step reads the node's Decision, asks ``policy`` for the action and moves to that child;
  terminals stay put. The betting-tree counterpart of jaxcfr.kits.sequence_form.walk, shared by the
  sampled solvers (jaxcfr.solvers.holdem_cfr and sampled_search).

  Args:
    buckets: [2, 4] int32, each player's bucket in each round of the deal (``deal_buckets``).
    policy: a BettingPolicy.
    xs: the per-step inputs, a pytree of ``[D, ...]`` arrays (e.g. uniforms).
  Returns:
    (last, outputs): the node reached ([] int32) and the policy's outputs stacked to ``[D, ...]``.
  """
  arrays = game.arrays

  def step(h, x):
    player = arrays.player[h]
    seat = jnp.clip(player, 0, 1)
    row = jnp.maximum(arrays.decision[h], 0) * game.buckets + buckets[seat, arrays.round[h]]
    alive = arrays.terminal[h] == rules.NOT_TERMINAL
    action, output = policy(Decision(h, player, seat, alive, row, arrays.legal[h]), x)
    return jnp.where(alive, arrays.child[h, action], h), output

  return jax.lax.scan(step, jnp.int32(0), xs)
