"""Pure operations on the public tree (jaxcfr.kits.public_tree.tree): ranges, counterfactual
values, terminal values with card removal, best responses, and the conversion of a
public-tree profile to the sequence form.

Shapes: ``N`` public nodes, ``H`` hands, ``A`` most actions, ``N_p`` decision nodes of
player ``p``, ``*B`` trailing batch axes. A player's strategy is ``[N_p, A, H, *B]`` (the
probability of action slot ``a`` with hand ``h`` at the player's ``n``-th decision node), a
profile a pair of them. Ranges are ``[N, H, *B]``: the deal probability of each hand
(``initial_range``, ``[2, H]``, or ``[2, H, *B]`` for a batch of subgames that differ in
their ranges: ``with_initial_ranges``) times the player's own reach, zero where the board holds one of the
hand's cards. Counterfactual values are ``[N, H, *B]``, each player's own (player 1's are
minus player 0's payoffs): ``v_i(n, h)`` is the sum over the opponent's hands ``h'`` that
share no card with ``h`` of ``r_{-i}(n, h')`` times player ``i``'s expected payoff below
``n`` (chance below ``n`` included). The sequence form's counterfactual value of the
infoset ``(n, h)`` is ``v_i(n, h)`` times player ``i``'s share of the deal and the
probability of ``n``'s public cards: a constant of each node, so regrets differ by a
positive factor per infoset and regret matching is unchanged.

Terminal values (docs/design.md, "The public tree"): a fold's by inclusion-exclusion over
the cards of each hand, O(H k + M W) for the ``M`` card subsets held by ``W`` hands each;
a showdown's (jaxcfr.kits.public_tree.showdowns) by prefix and suffix sums over the hands sorted by strength once at build
time, with the same corrections over each card's holders, O(H k + M W); and, for small
``H``, by dense ``[H, H]`` products (``dense=True``); a payoff terminal's (games whose
terminals are no fold or showdown, as liar's dice's calls) by a dense product with its
``[H, H]`` payoff matrix. Johanson et al., "Accelerating Best Response Calculation in Large
Extensive Games" (2011) introduced the sorted showdown.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import regret
from jaxcfr.kits.public_tree import showdowns
from jaxcfr.kits.public_tree.device import PublicTreeTensors
from jaxcfr.kits.public_tree.showdowns import (
  EXACT,
  compatible_reach,
  select_rows,
  showdown_values,
  showdown_values_dense,
)
from jaxcfr.kits.public_tree.showdowns import expand_to

__all__ = [
  "uniform_strategy",
  "uniform_profile",
  "ranges",
  "compatible_reach",
  "normalise_ranges",
  "with_initial_ranges",
  "fold_values",
  "showdown_values",
  "fold_values_dense",
  "showdown_values_dense",
  "payoff_values",
  "terminal_values",
  "counterfactual_values",
  "action_values",
  "root_value",
  "expected_value",
  "best_response_values",
  "evaluation",
  "nash_conv",
  "exploitability",
]


def uniform_strategy(tree: PublicTreeTensors, player: int) -> jax.Array:
  """[N_p, A, H] uniform over each decision node's legal actions."""
  legal = tree.legal[player].astype(tree.dtype)
  uniform = legal / jnp.maximum(legal.sum(1, keepdims=True), 1)
  return jnp.broadcast_to(uniform[:, :, None], legal.shape + (tree.num_hands,))


def uniform_profile(tree: PublicTreeTensors) -> tuple:
  """([N_0, A, H], [N_1, A, H]) uniform strategies."""
  return uniform_strategy(tree, 0), uniform_strategy(tree, 1)


def _rows(strategy: jax.Array, constants: tuple, index: jax.Array) -> jax.Array:
  """[*index.shape, H, *B] row ``index`` of the strategy's (node, slot) rows followed by
  rows of ``constants`` (``index`` ``N_p A + k``: ``constants[k]`` everywhere), gathered and
  selected in one pass: the table of both is never built (a copy of the strategy per pass)."""
  rows = strategy.reshape((-1,) + strategy.shape[2:])
  count, ndim = rows.shape[0], index.ndim + rows.ndim - 1
  constant = jnp.asarray(constants[0], rows.dtype)
  for k, value in enumerate(constants[1:], 1):
    constant = jnp.where(index == count + k, jnp.asarray(value, rows.dtype), constant)
  constant = expand_to(constant, ndim)
  if count == 0:
    return jnp.broadcast_to(constant, index.shape + rows.shape[1:])
  return jnp.where(expand_to(index < count, ndim), rows[jnp.minimum(index, count - 1)], constant)


def ranges(tree: PublicTreeTensors, player: int, strategy: jax.Array, initial: jax.Array | None = None) -> jax.Array:
  """[N, H, *B] the reach of each of ``player``'s hands at every node, top-down:
  ``r(child) = r(parent) sigma(parent, slot, h) valid(child's board, h)`` (no sigma at
  the opponent's and chance nodes).

  Args:
    strategy: [N_p, A, H, *B] the player's strategy.
    initial: [H, *B] the ranges at the root (default: the deal, ``tree.initial_range``).
  """
  batch = strategy.shape[3:]
  ndim = 2 + len(batch)
  initial = tree.initial_range[player] if initial is None else initial
  root = expand_to(initial, ndim - 1) * expand_to(tree.valid[tree.board[0]], ndim - 1)
  levels = [jnp.broadcast_to(root, (tree.num_hands,) + batch)[None].astype(strategy.dtype)]
  for d, (lo, hi) in enumerate(tree.level_slices[1:], 1):
    reach = levels[-1][tree.level_parent[d - 1]] * _rows(strategy, (1,), tree.reach_index[player][d - 1])
    if tree.level_dealt[d]:
      reach = reach * expand_to(tree.valid[tree.board[lo:hi]], ndim)
    levels.append(reach)
  return jnp.concatenate(levels)


def normalise_ranges(tree: PublicTreeTensors, ranges: jax.Array) -> tuple:
  """([2, H, *B], [2, *B]) ``ranges`` [2, H, *B] (each player's weight of each hand at the
  root) normalised as the builder normalises a subgame's given ranges, and the factors
  that undo it: zero on the hands the root board blocks, player 0's summing to one,
  player 1's so that ``r0(h0) r1(h1)`` sums to one over the pairs of hands that share no
  card; ``normalised * scale = weights``. A player's counterfactual values scale with the
  opponent's factor. Where a factor is zero (no weight, or no compatible pair) the
  normalised ranges are zero and the factor is reported as zero."""
  weights = ranges * expand_to(tree.valid[tree.board[0]], ranges.ndim - 1).astype(ranges.dtype)
  total = weights[0].sum(0)  # [*B]
  first = weights[0] / jnp.where(total > 0, total, 1)
  joint = (first * compatible_reach(tree, weights[1][None])[0]).sum(0)  # [*B]
  scale = jnp.stack([total, jnp.where(total > 0, joint, 0)])
  safe = jnp.where(scale > 0, scale, 1)
  normalised = jnp.stack([first, weights[1] / safe[1]]) * (scale > 0)[:, None]
  return normalised, scale


def with_initial_ranges(tree: PublicTreeTensors, ranges) -> PublicTreeTensors:
  """``tree`` with other ranges at the root: ``ranges`` [2, H, *B], each player's weight of
  each hand, with trailing batch axes ``B`` for a batch of subgames that differ only in the
  ranges (the solvers then run them as one program, a state's batch axes including ``B``).
  Normalised as the builder normalises a subgame's given ranges (``normalise_ranges``).

  Raises:
    ValueError: (concrete ``ranges`` only) a wrong shape, a negative weight, or a subgame
      whose ranges have no pair of compatible hands.
  """
  ranges = jnp.asarray(ranges, tree.dtype)
  if ranges.ndim < 2 or ranges.shape[:2] != (2, tree.num_hands):
    raise ValueError(
      f"ranges must be [2, {tree.num_hands}, *B] (both players' weights of each hand), got {ranges.shape}"
    )
  normalised, scale = normalise_ranges(tree, ranges)
  if not isinstance(ranges, jax.core.Tracer):
    if bool(jnp.any(ranges < 0)):
      raise ValueError("ranges must be >= 0")
    if not bool(jnp.all(scale > 0)):
      bad = np.argwhere(~np.asarray(jnp.all(scale > 0, 0)).reshape(-1))[0, 0]
      raise ValueError(
        f"subgame {bad} of the batch: the ranges have no pair of hands that share no card with each other and the board"
      )
  return dataclasses.replace(tree, initial_range=normalised)


def fold_values(tree: PublicTreeTensors, player: int, opponent_reach: jax.Array, *, dense: bool = False) -> jax.Array:
  """[F, H, *B] ``player``'s values at the folds: its payoff (minus its chips if it
  folded, the opponent's chips if the opponent did) times the opponent's reach over the
  hands compatible with each hand, zero for hands the board blocks.

  Args:
    opponent_reach: [F, H, *B] the opponent's ranges at ``tree.fold_nodes``.
  """
  if dense:
    compatible = showdowns.compatible_hands(tree).astype(opponent_reach.dtype)
    reach = jnp.einsum("hg,fg...->fh...", compatible, opponent_reach, precision=EXACT)
  else:
    reach = compatible_reach(tree, opponent_reach)
  ndim = reach.ndim
  mask = tree.valid[tree.board[tree.fold_nodes]]
  return expand_to(tree.fold_payoff[player], ndim) * reach * expand_to(mask, ndim)


def fold_values_dense(tree: PublicTreeTensors, player: int, opponent_reach: jax.Array) -> jax.Array:
  """``fold_values`` by a dense [H, H] compatibility product (small ``H``)."""
  return fold_values(tree, player, opponent_reach, dense=True)


def payoff_values(tree: PublicTreeTensors, player: int, opponent_reach: jax.Array) -> jax.Array:
  """[P, H, *B] ``player``'s values at the payoff terminals: ``sum_h' u(h, h') r(h')`` with
  the terminal's payoff matrix ``u`` (player 0's ``payoff_tables`` row, its transpose negated
  for player 1), zero for hands the board blocks.

  Args:
    opponent_reach: [P, H, *B] the opponent's ranges at ``tree.payoff_nodes``.
  """
  tables = tree.payoff_tables.astype(opponent_reach.dtype)
  if player == 1:
    tables = -jnp.swapaxes(tables, 1, 2)
  values = jnp.einsum("phg,pg...->ph...", tables[tree.payoff_table], opponent_reach, precision=EXACT)
  return values * expand_to(tree.valid[tree.board[tree.payoff_nodes]], values.ndim)


def terminal_values(
  tree: PublicTreeTensors, player: int, opponent_ranges: jax.Array, *, dense: bool = False, leaf_values=None
) -> jax.Array:
  """[T + L, H, *B] ``player``'s values at the folds, the showdowns, the payoff terminals
  and the leaves, given the opponent's ranges [N, H, *B] at every node.

  Args:
    leaf_values: [L, H, *B] the player's counterfactual values at the leaves of a
      depth-limited tree (a value function's, given both players' ranges there), masked
      here by the leaves' boards; required if and only if the tree has leaves.

  Raises:
    ValueError: ``leaf_values`` missing for a depth-limited tree, or given for a whole one.
  """
  folds = fold_values(tree, player, opponent_ranges[tree.fold_nodes], dense=dense)
  showdowns = showdown_values(tree, player, opponent_ranges[tree.showdown_nodes], dense=dense)
  payoffs = payoff_values(tree, player, opponent_ranges[tree.payoff_nodes])
  leaves = tree.leaf_nodes.shape[0]
  if (leaf_values is None) != (leaves == 0):
    raise ValueError(
      f"the tree has {leaves} depth-limit leaves: pass leaf_values [{leaves}, H, *B] for them"
      if leaves
      else "leaf_values given, but the tree has no depth-limit leaves"
    )
  if not leaves:
    return jnp.concatenate([folds, showdowns, payoffs])
  leaf_values = jnp.broadcast_to(leaf_values, (leaves,) + folds.shape[1:]).astype(folds.dtype)
  mask = expand_to(tree.valid[tree.board[tree.leaf_nodes]], folds.ndim)
  return jnp.concatenate([folds, showdowns, payoffs, leaf_values * mask])


def counterfactual_values(
  tree: PublicTreeTensors,
  player: int,
  strategy: jax.Array | None,
  opponent_ranges: jax.Array,
  *,
  dense: bool = False,
  leaf_values: jax.Array | None = None,
  best: jax.Array | None = None,
) -> jax.Array:
  """[N, H, *B] ``player``'s counterfactual values at every node, bottom-up: terminal
  values at the terminals, ``leaf_values`` [L, H, *B] at a depth-limited tree's leaves; ``sum_a sigma(a, h) v(child_a, h)`` at the player's decision
  nodes (the best action's value, ``max_a``, if ``strategy`` is None: a best response);
  the sum of the children at the opponent's (its strategy is in its ranges); and
  ``sum_c p(c) v(child_c, h)`` at chance nodes.

  Args:
    strategy: [N_p, A, H, *B] the player's strategy, or None for a best response.
    opponent_ranges: [N, H, *B] the opponent's ranges (``ranges``).
    best: [*B'] bool, trailing axes of ``B``: where True, that batch element's best response
      (``strategy`` unread there), so that best responses and values share one pass.
  """
  terminal = terminal_values(tree, player, opponent_ranges, dense=dense, leaf_values=leaf_values)
  ndim = terminal.ndim
  rows = lambda table, index: select_rows(table, index, ndim)  # row T + L, no terminal, reads 0
  below, levels = None, []
  for d in reversed(range(len(tree.level_slices))):
    lo, hi = tree.level_slices[d]
    values = rows(terminal, tree.terminal_row[lo:hi])
    if below is not None:
      kids = below[tree.decision_children[d]]  # [nD, A, H, *B]
      if strategy is None:
        legal = expand_to(tree.decision_legal[d], ndim + 1)
        best = regret.unrolled_reduce(jnp.where(legal, kids, -jnp.inf), 1, jnp.maximum, jnp.max)
        summed = regret.unrolled_reduce(jnp.where(legal, kids, 0), 1, jnp.add, jnp.sum)
        decided = jnp.where(expand_to(tree.decision_own[player][d], ndim), best, summed)
      else:
        weight = _rows(strategy, (0, 1), tree.decision_weight[player][d])  # [nD, A, H, *B]
        decided = regret.unrolled_reduce(weight * kids, 1, jnp.add, jnp.sum)
        if best is not None:
          legal = expand_to(tree.decision_legal[d], ndim + 1)
          top = regret.unrolled_reduce(jnp.where(legal, kids, -jnp.inf), 1, jnp.maximum, jnp.max)
          mine = expand_to(tree.decision_own[player][d], ndim) & best.reshape((1,) * (ndim - best.ndim) + best.shape)
          decided = jnp.where(mine, top, decided)
      dealt = below[tree.chance_children[d]]  # [nC, C, H, *B]
      dealt = regret.unrolled_reduce(expand_to(tree.chance_weight[d], ndim + 1) * dealt, 1, jnp.add, jnp.sum)
      values = values + jnp.concatenate([decided, dealt, jnp.zeros_like(values[:1])])[tree.level_gather[d]]
    levels.append(values)
    below = values
  return jnp.concatenate(levels[::-1])


def action_values(tree: PublicTreeTensors, player: int, values: jax.Array) -> jax.Array:
  """[N_p, A, H, *B] the values of each action at ``player``'s decision nodes (0 at
  illegal slots), from the node values [N, H, *B]."""
  q = values[tree.children[player]]
  return jnp.where(expand_to(tree.legal[player], q.ndim), q, 0)


def root_value(tree: PublicTreeTensors, player: int, values: jax.Array, initial: jax.Array | None = None) -> jax.Array:
  """[*B] ``sum_h r_i(root, h) v_i(root, h)``: the player's expected payoff when ``values``
  [N, H, *B] are its counterfactual values (its best-response value if they are a best
  response's)."""
  initial = tree.initial_range[player] if initial is None else initial
  valid = expand_to(tree.valid[tree.board[0]], initial.ndim)
  root = values[0] * expand_to(initial * valid, values.ndim - 1)
  return root.sum(0)


def _leaf(leaf_values, player: int):
  return None if leaf_values is None else leaf_values[player]


def expected_value(tree: PublicTreeTensors, profile, *, dense: bool = False, leaf_values=None) -> jax.Array:
  """[*B] player 0's expected payoff under ``profile`` (``leaf_values``: [2, L, H, *B] both
  players' values at a depth-limited tree's leaves)."""
  values = counterfactual_values(
    tree, 0, profile[0], ranges(tree, 1, profile[1]), dense=dense, leaf_values=_leaf(leaf_values, 0)
  )
  return root_value(tree, 0, values)


def best_response_values(tree: PublicTreeTensors, profile, *, dense: bool = False, leaf_values=None) -> jax.Array:
  """[2, *B] each player's best-response value against the other's strategy in ``profile``
  (``jaxcfr.best_response_values`` on the sequence form of the same game). On a
  depth-limited tree the best response stops at the leaves, whose values ``leaf_values``
  [2, L, H, *B] are given."""
  out = []
  for player in (0, 1):
    opponent = ranges(tree, 1 - player, profile[1 - player])
    values = counterfactual_values(tree, player, None, opponent, dense=dense, leaf_values=_leaf(leaf_values, player))
    out.append(root_value(tree, player, values))
  return jnp.stack(out)


def evaluation(tree: PublicTreeTensors, first, second, *, dense: bool = False) -> tuple:
  """([2, *B], [2, *B], [*B]) ``best_response_values`` of the profiles ``first`` and
  ``second`` and ``expected_value`` of ``first``, in two bottom-up passes, one per player,
  with the evaluations side by side on a new trailing axis (player 0's: its best responses
  to both and its value under ``first``; player 1's: its best responses): a compiled
  program of two value passes and two range passes instead of five each (the evaluator's
  program, compiled at a solve's start). A tree with depth-limit leaves is not taken."""
  stack = lambda *xs: jnp.stack(xs, -1)
  zero = ranges(tree, 1, stack(first[1], second[1], first[1]))  # [N, H, *B, 3]
  zero = counterfactual_values(tree, 0, stack(first[0], second[0], first[0]), zero, dense=dense, best=_BR_BR_VALUE)
  zero = root_value(tree, 0, zero)  # [*B, 3]
  one = counterfactual_values(tree, 1, None, ranges(tree, 0, stack(first[0], second[0])), dense=dense)
  one = root_value(tree, 1, one)  # [*B, 2]
  return jnp.stack([zero[..., 0], one[..., 0]]), jnp.stack([zero[..., 1], one[..., 1]]), zero[..., 2]


_BR_BR_VALUE = np.array([True, True, False])  # evaluation's player 0: two best responses, one value


def nash_conv(tree: PublicTreeTensors, profile, *, dense: bool = False, leaf_values=None) -> jax.Array:
  """[*B] ``BR0(sigma1) + BR1(sigma0)`` (the game is zero-sum)."""
  return best_response_values(tree, profile, dense=dense, leaf_values=leaf_values).sum(0)


def exploitability(tree: PublicTreeTensors, profile, *, dense: bool = False, leaf_values=None) -> jax.Array:
  """[*B] ``nash_conv / 2``, OpenSpiel's ``exploitability``."""
  return nash_conv(tree, profile, dense=dense, leaf_values=leaf_values) / 2
