"""Exact evaluation on the sequence-form tensors (docs/design.md section 4).

A *profile* is a pair of behavioural strategies ``(sigma0 [I0, A0], sigma1 [I1, A1])``,
each row a distribution over the legal actions of one infoset (zero where illegal). Every
function here is pure and traceable: ``jit`` it, differentiate it with respect to the float
leaves of the tensors, or batch it.

Batches: every function also takes strategies with trailing batch axes ``[I, A, *B]`` (and
payoff values ``[P]`` or ``[P, *B]``) and returns results with the same trailing axes
(plans ``[S, *B]``, values ``[*B]``). The action axis is always axis 1. Trailing batch
axes keep the gathers and segment sums over shared indices contiguous, which is faster
than ``vmap``'s leading axis (benchmarks/cfr_speed.py); ``vmap`` works as well.

The payoff is an operator (jaxcfr.kits.sequence_form.payoff, re-exported here): solvers ask it for
sequence values only, through
``sequence_values_for(payoff, player, plan)`` (``A y`` for player 0, ``-A^T x`` for player 1)
and ``payoff_scale(payoff)`` (the largest ``|A|`` entry); ``SequencePayoff`` (jaxcfr.kits.sequence_form.tensors)
is its one implementation on the sequence form, whose pairs, row tables and sorted segment
sums stay behind these two functions. The public tree's operator is its terminal values
(jaxcfr.kits.public_tree.values).

Conventions: values are player 0's unless said otherwise. ``nash_conv`` is the sum of both
best-response gains (Ponsen et al. 2011 and Lanctot et al. 2009 call it the exploitability epsilon_sigma);
``exploitability`` is ``nash_conv / 2``, OpenSpiel's convention.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import regret
from jaxcfr.kits.sequence_form import row_sums
from jaxcfr.kits.sequence_form.modes import expand_to, gathers as _gathers, hand_written as _hand_written
from jaxcfr.kits.sequence_form.modes import integer_zeros as _integer_zeros
from jaxcfr.kits.sequence_form.modes import hand_written_reverse
from jaxcfr.kits.sequence_form.payoff import SEQUENCE_VALUES, payoff_scale, sequence_values, sequence_values_for
from jaxcfr.kits.sequence_form.tensors import GameTensors, Treeplex

__all__ = [
  "expand_to",
  "sum_actions",
  "max_actions",
  "normalise_rows",
  "regret_matching",
  "uniform_strategy",
  "uniform_profile",
  "realization_plan",
  "action_table",
  "hand_written_reverse",
  "sequence_values_for",
  "SEQUENCE_VALUES",
  "payoff_scale",
  "sequence_values",
  "counterfactual_values",
  "best_response",
  "soft_best_response",
  "plans",
  "expected_value",
  "best_response_values",
  "best_response_profile",
  "nash_conv",
  "exploitability",
  "check_profile",
]


def sum_actions(x: jax.Array, keepdims: bool = False) -> jax.Array:
  """Sum over the action axis (1) of [I, A, *B], as fused adds (``regret.unrolled_reduce``;
  for the infoset values of ``counterfactual_values`` the library call cost a quarter of a
  Leduc CFR+ iteration at B = 64)."""
  return regret.unrolled_reduce(x, 1, jnp.add, jnp.sum, keepdims)


def max_actions(x: jax.Array) -> jax.Array:
  """Maximum over the action axis (1) of [I, A, *B], unrolled like ``sum_actions``."""
  return regret.unrolled_reduce(x, 1, jnp.maximum, jnp.max)


def normalise_rows(treeplex: Treeplex, weights: jax.Array) -> jax.Array:
  """[I, A, *B] rows of non-negative ``weights`` scaled to sum to one over the legal actions
  (axis 1); uniform where a row is all zero (``regret.normalise`` with the treeplex's mask)."""
  return regret.normalise(weights, expand_to(treeplex.legal, weights.ndim))


def regret_matching(treeplex: Treeplex, regrets: jax.Array) -> jax.Array:
  """[I, A, *B] strategy proportional to positive regret; uniform where none is positive."""
  return regret.regret_matching(regrets, expand_to(treeplex.legal, regrets.ndim))


def uniform_strategy(treeplex: Treeplex, dtype=None) -> jax.Array:
  """[I, A] uniform over the legal actions of each infoset."""
  legal = treeplex.legal.astype(dtype or jnp.zeros(()).dtype)
  return legal / legal.sum(-1, keepdims=True)


def uniform_profile(tensors: GameTensors) -> tuple[jax.Array, jax.Array]:
  """([I0, A0], [I1, A1]) the uniform profile."""
  return tuple(uniform_strategy(t, tensors.dtype) for t in tensors.players)


def realization_plan(treeplex: Treeplex, strategy: jax.Array) -> jax.Array:
  """[S, *B] realization plan ``x[(I,a)] = x[parent(I)] * sigma(I,a)``, ``x[empty] = 1``,
  on padded sequences (0 at illegal slots), level by level from the top. An infoset's
  parent sequence lies one level up: in batches (``_gathers``) each level gathers from the
  one above and the levels are concatenated once; for small batches each level is
  written into the plan in place.

  Within ``hand_written_reverse()`` reverse mode runs the adjoint by hand: the plan is linear
  in each level's parents, so its transpose is the counterfactual values' bottom-up pass
  with ``x_bar`` as the sequence values, ``T(I,a) = x_bar(I,a) + sum_{J child of (I,a)} sum_b
  sigma(J,b) T(J,b)``, and ``sigma_bar(I,a) = T(I,a) x[parent(I)]``: gathers only, where
  plain autodiff scatter-adds into the parent sequences.

  Args:
    strategy: [I, A, *B] behavioural strategy.
  """
  if _hand_written():
    gathers = _gathers(strategy.shape[2:])
    return _plan(treeplex.level_slices, gathers, treeplex.legal, treeplex.parent_seq, treeplex.children, strategy)
  return _plan_forward_pass(treeplex, strategy)


def _plan_forward_pass(treeplex, strategy: jax.Array, gathers: bool | None = None) -> jax.Array:
  batch = strategy.shape[2:]
  strategy = jnp.where(expand_to(treeplex.legal, strategy.ndim), strategy, 0)
  if not (_gathers(batch) if gathers is None else gathers):
    plan = jnp.zeros((treeplex.num_sequences,) + batch, strategy.dtype).at[0].set(1)
    for lo, hi in treeplex.level_slices:
      block = jnp.expand_dims(plan[treeplex.parent_seq[lo:hi]], 1) * strategy[lo:hi]
      plan = plan.at[treeplex.level_sequences(lo, hi)].set(block.reshape((-1,) + batch))
    return plan
  above, first_above = jnp.ones((1,) + batch, strategy.dtype), 0  # the level above, its first sequence
  blocks = [above]
  for lo, hi in treeplex.level_slices:
    block = jnp.expand_dims(above[treeplex.parent_seq[lo:hi] - first_above], 1) * strategy[lo:hi]
    above, first_above = block.reshape((-1,) + batch), treeplex.level_sequences(lo, hi).start
    blocks.append(above)
  return jnp.concatenate(blocks)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _plan(level_slices, gathers, legal, parent_seq, children, strategy):
  return _plan_forward_pass(_LevelView(level_slices, legal, parent_seq, children), strategy, gathers)


def _plan_fwd(level_slices, gathers, legal, parent_seq, children, strategy):
  plan = _plan_forward_pass(_LevelView(level_slices, legal, parent_seq, children), strategy, gathers)
  return plan, (legal, parent_seq, children, strategy, plan)


def _plan_bwd(level_slices, gathers, residuals, plan_bar):
  legal, parent_seq, children, strategy, plan = residuals
  view = _LevelView(level_slices, legal, parent_seq, children)
  wide = expand_to(legal, strategy.ndim)
  masked = jnp.where(wide, strategy, 0)
  total = _bottom_up(view, plan_bar, lambda t, lo, hi: sum_actions(masked[lo:hi] * t), gathers)
  strategy_bar = jnp.where(wide, action_table(view, total) * jnp.expand_dims(plan[parent_seq], 1), 0)
  return (*_integer_zeros((legal, parent_seq, children)), _sum_to(strategy_bar.astype(strategy.dtype), strategy.shape))


def parent_reach(treeplex: Treeplex, plan: jax.Array) -> jax.Array:
  """[I, *B] ``x[parent(I)]``, each infoset's parent sequence's entry of ``plan`` [S, *B]
  (a gather; within ``hand_written_reverse()`` its reverse pass sums each sequence's child
  infosets by gathers, ``_bottom_up`` without recursion, where autodiff scatter-adds)."""
  if _hand_written():
    gathers = _gathers(plan.shape[1:])
    return _parent_reach(treeplex.level_slices, gathers, treeplex.legal, treeplex.parent_seq, treeplex.children, plan)
  return plan[treeplex.parent_seq]


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _parent_reach(level_slices, gathers, legal, parent_seq, children, plan):
  return plan[parent_seq]


def _parent_reach_fwd(level_slices, gathers, legal, parent_seq, children, plan):
  return plan[parent_seq], (legal, parent_seq, children)


def _parent_reach_bwd(level_slices, gathers, residuals, reach_bar):
  legal, parent_seq, children = residuals
  view = _LevelView(level_slices, legal, parent_seq, children)
  zeros = jnp.zeros((1 + legal.size,) + reach_bar.shape[1:], reach_bar.dtype)  # [S, *B]: the padded sequences
  plan_bar = _bottom_up(view, zeros, lambda _, lo, hi: reach_bar[lo:hi], gathers)
  return (*_integer_zeros((legal, parent_seq, children)), plan_bar)


def action_table(treeplex: Treeplex, seq_values: jax.Array) -> jax.Array:
  """[I, A, *B] view of a padded [S, *B] sequence vector (without the empty sequence)."""
  return seq_values[1:].reshape(treeplex.legal.shape + seq_values.shape[1:])


def _bottom_up(treeplex: Treeplex, seq_values: jax.Array, infoset_value, gathers: bool | None = None) -> jax.Array:
  """Adds each infoset's value to its parent sequence, deepest level first (in batches,
  every sequence gathers its child infosets' values: ``treeplex.children``).

  ``infoset_value(q [n, A, *B], lo, hi) -> [n, *B]`` is the value of infosets ``lo:hi``.
  Returns [S, *B]: entry ``(I,a)`` is ``q(I,a)``, entry 0 the value of the empty sequence.
  ``gathers``: which way (default ``_gathers``; the reverse passes fix it when traced).
  """
  batch = seq_values.shape[1:]
  if not (_gathers(batch) if gathers is None else gathers):
    total = seq_values
    for lo, hi in reversed(treeplex.level_slices):
      q = total[treeplex.level_sequences(lo, hi)].reshape((hi - lo, treeplex.max_actions) + batch)
      total = total.at[treeplex.parent_seq[lo:hi]].add(infoset_value(q, lo, hi))
    return total
  blocks, below = [], None  # below: [n, *B] values of the infosets one level down
  for level in reversed(range(len(treeplex.level_slices))):
    lo, hi = treeplex.level_slices[level]
    q = seq_values[treeplex.level_sequences(lo, hi)]
    if below is not None:
      child_values = row_sums.padded(below)
      q = q + row_sums.sum_rows(treeplex.children[level], lambda i: child_values[i], batch, q.dtype)
    q = q.reshape((hi - lo, treeplex.max_actions) + batch)
    below = infoset_value(q, lo, hi)
    blocks.append(q.reshape((-1,) + batch))
  root = seq_values[:1] + (below.sum(0, keepdims=True) if below is not None else 0)
  return jnp.concatenate([root] + blocks[::-1])


def counterfactual_values(treeplex: Treeplex, seq_values: jax.Array, strategy: jax.Array):
  """Counterfactual action values ``q`` [I, A, *B] and infoset values ``v`` [I, *B].

  ``q(I,a) = g[(I,a)] + sum_{J child of (I,a)} v(J)``, ``v(I) = sum_a sigma(I,a) q(I,a)``:
  the counterfactual values of CFR (Lanctot et al. 2009 eq. 4-5; Chelarescu 2019 section 1.6).
  The instantaneous regret is ``q - v[:, None]`` on legal actions.

  Within ``hand_written_reverse()`` reverse mode runs the adjoint pass by hand: the bottom-up
  sums transpose to one top-down pass (the shape of ``realization_plan``), ``g_bar = Tbar``
  with ``Tbar[(I,a)] = q_bar(I,a) + sigma(I,a) (v_bar(I) + Tbar[parent(I)])``, and
  ``sigma_bar(I,a) = q(I,a) (v_bar(I) + Tbar[parent(I)])`` (about half the cost of
  differentiating the scatter-adds).
  """
  fields = (treeplex.legal, treeplex.parent_seq, treeplex.children, seq_values, strategy)
  if _hand_written():
    return _counterfactual(treeplex.level_slices, _gathers(seq_values.shape[1:]), *fields)
  return _counterfactual_forward_pass(treeplex.level_slices, None, *fields)


def _counterfactual_forward_pass(level_slices, gathers, legal, parent_seq, children, seq_values, strategy):
  treeplex = _LevelView(level_slices, legal, parent_seq, children)
  legal = expand_to(legal, strategy.ndim)
  masked = jnp.where(legal, strategy, 0)
  total = _bottom_up(treeplex, seq_values, lambda q, lo, hi: sum_actions(masked[lo:hi] * q), gathers)
  q = jnp.where(legal, action_table(treeplex, total), 0)
  return q, sum_actions(masked * q)


class _LevelView:
  """The fields of a Treeplex that the passes read (for custom_vjp, whose array arguments
  must be explicit)."""

  def __init__(self, level_slices, legal, parent_seq, children):
    self.level_slices, self.legal, self.parent_seq, self.children = level_slices, legal, parent_seq, children
    self.max_actions = legal.shape[1]

  def level_sequences(self, lo, hi):
    return slice(1 + lo * self.max_actions, 1 + hi * self.max_actions)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _counterfactual(level_slices, gathers, legal, parent_seq, children, seq_values, strategy):
  return _counterfactual_forward_pass(level_slices, gathers, legal, parent_seq, children, seq_values, strategy)


def _counterfactual_fwd(level_slices, gathers, legal, parent_seq, children, seq_values, strategy):
  q, v = _counterfactual_forward_pass(level_slices, gathers, legal, parent_seq, children, seq_values, strategy)
  return (q, v), (legal, parent_seq, children, strategy, q, seq_values.shape)


def _counterfactual_bwd(level_slices, gathers, residuals, cotangents):
  legal, parent_seq, children, strategy, q, seq_shape = residuals
  q_bar, v_bar = cotangents
  view = _LevelView(level_slices, legal, parent_seq, children)
  batch = q.shape[2:]
  wide = expand_to(legal, strategy.ndim)
  masked = jnp.where(wide, strategy, 0)
  base = jnp.where(wide, q_bar + masked * jnp.expand_dims(v_bar, 1), 0).astype(q.dtype)
  total_bar = jnp.concatenate([jnp.zeros((1,) + batch, q.dtype), base.reshape((-1,) + batch)])
  for lo, hi in level_slices:
    block = masked[lo:hi] * jnp.expand_dims(total_bar[parent_seq[lo:hi]], 1)
    total_bar = total_bar.at[view.level_sequences(lo, hi)].add(block.reshape((-1,) + batch))
  parent_bar = total_bar[parent_seq] + v_bar
  strategy_bar = jnp.where(wide, q * jnp.expand_dims(parent_bar, 1), 0).astype(strategy.dtype)
  return (
    *_integer_zeros((legal, parent_seq, children)),
    _sum_to(total_bar, seq_shape),
    _sum_to(strategy_bar, strategy.shape),
  )


def _sum_to(x: jax.Array, shape) -> jax.Array:
  """``x`` summed over trailing batch axes that an input of ``shape`` was broadcast along."""
  if x.shape == tuple(shape):
    return x
  return x.reshape(tuple(shape) + (-1,)).sum(-1) if x.ndim > len(shape) else jnp.broadcast_to(x, shape)


_counterfactual.defvjp(_counterfactual_fwd, _counterfactual_bwd)


def best_response(treeplex: Treeplex, seq_values: jax.Array):
  """Best response to the opponent plan behind ``seq_values``.

  Args:
    seq_values: [S, *B] this player's sequence values.
  Returns:
    (value, strategy): the best-response value [*B] (this player's point of view) and a
    pure best-response strategy [I, A, *B] (first maximising legal action).
  """
  legal = expand_to(treeplex.legal, seq_values.ndim + 1)

  def best(q, lo, hi):
    return max_actions(jnp.where(legal[lo:hi], q, -jnp.inf))

  total = _bottom_up(treeplex, seq_values, best)
  q = jnp.where(legal, action_table(treeplex, total), -jnp.inf)
  strategy = jax.nn.one_hot(jnp.argmax(q, 1), treeplex.max_actions, axis=1, dtype=seq_values.dtype)
  return total[0], strategy


def soft_best_response(treeplex: Treeplex, seq_values: jax.Array, log_prior: jax.Array | None = None):
  """The dilated-entropy regularised best response, bottom-up (the logit choice of every infoset).

  With ``u(I,a) = g[(I,a)] + log rho(I,a) + sum over child infosets J of (I,a) of logsumexp_b u(J,b)``,
  the strategy is ``sigma(I) = softmax(u(I))`` over the legal actions: the maximiser over
  realization plans ``x`` of ``g^T x - KL_dil(x || rho)``, the dilated Kullback-Leibler
  divergence to the prior ``rho``, and the returned value is that maximum. Without a prior
  the regulariser is the dilated negative entropy ``psi(x) = sum_(I,a) x(I,a) log sigma(I,a)``
  (the same strategy as the uniform prior; the value differs by ``sum_I x(parent(I)) log |A(I)|``). Divide ``g`` by a temperature for the logit response at that temperature
  (Sokota et al., "A Unified Approach to Reinforcement Learning, Quantal Response Equilibria,
  and Two-Player Zero-Sum Games", 2023, the closed form of their dilated-entropy update).

  Args:
    seq_values: [S, *B] this player's sequence values ``g``.
    log_prior: [I, A, *B] or [I, A] log of the prior behavioural strategy on legal actions
      (any value at illegal slots), or None for the uniform prior.
  Returns:
    (value [*B], strategy [I, A, *B], log_strategy [I, A, *B]); the log is 0 at illegal slots.
  """
  legal = expand_to(treeplex.legal, seq_values.ndim + 1)
  local = seq_values
  if log_prior is not None:
    prior = jnp.where(legal, expand_to(log_prior, seq_values.ndim + 1), 0)
    prior = jnp.broadcast_to(prior, treeplex.legal.shape + seq_values.shape[1:])
    local = local.at[1:].add(prior.reshape((-1,) + seq_values.shape[1:]))

  def soft(q, lo, hi):
    return jax.nn.logsumexp(jnp.where(legal[lo:hi], q, -jnp.inf), axis=1)

  total = _bottom_up(treeplex, local, soft)
  u = jnp.where(legal, action_table(treeplex, total), -jnp.inf)
  log_strategy = jnp.where(legal, u - jax.nn.logsumexp(u, axis=1, keepdims=True), 0)
  strategy = jnp.where(legal, jnp.exp(log_strategy), 0)
  return total[0], strategy, log_strategy


def plans(tensors: GameTensors, profile) -> tuple[jax.Array, jax.Array]:
  """([S0, *B], [S1, *B]) both players' realization plans of a profile ([I, A, *B] each)."""
  return tuple(realization_plan(t, s) for t, s in zip(tensors.players, profile))


def expected_value(tensors: GameTensors, profile) -> jax.Array:
  """[*B] player 0's expected utility ``x^T A y`` under ``profile`` ([I, A, *B] each)."""
  x, y = plans(tensors, profile)
  g0 = sequence_values_for(tensors.payoff, 0, y)
  return (x * g0).sum(0)


def best_response_values(tensors: GameTensors, profile) -> jax.Array:
  """[2, *B] each player's best-response value against the other's strategy in ``profile``."""
  g = sequence_values(tensors.payoff, *plans(tensors, profile))
  return jnp.stack([best_response(t, gi)[0] for t, gi in zip(tensors.players, g)])


def best_response_profile(tensors: GameTensors, profile) -> tuple[jax.Array, jax.Array]:
  """([I0, A0, *B], [I1, A1, *B]) each player's pure best response to the other's strategy
  in ``profile`` (``best_response``: the first maximising legal action at every infoset, also
  where the other's strategy never lets the infoset be reached). Against a frequentist model
  this is Johanson et al. 2007's frequentist best response, one strategy per seat."""
  g = sequence_values(tensors.payoff, *plans(tensors, profile))
  return tuple(best_response(t, gi)[1] for t, gi in zip(tensors.players, g))


def nash_conv(tensors: GameTensors, profile) -> jax.Array:
  """[*B] NashConv ``= BR0(sigma1) + BR1(sigma0)`` of ``profile`` ([I, A, *B] each; the
  game is zero-sum)."""
  return best_response_values(tensors, profile).sum(0)


def exploitability(tensors: GameTensors, profile) -> jax.Array:
  """[*B] ``nash_conv / 2``, OpenSpiel's ``exploitability``."""
  return nash_conv(tensors, profile) / 2


def check_profile(tensors: GameTensors, profile, *, tolerance: float = 1e-6) -> None:
  """Raises ValueError naming the first problem of a user-supplied profile: a wrong shape,
  a NaN or negative probability, mass on an illegal action, or a row that does not sum to
  one. Eager (not traceable): call it before handing a profile to jitted code."""
  if len(profile) != 2:
    raise ValueError(f"a profile has one strategy per player (2), got {len(profile)}")
  for player, (treeplex, strategy) in enumerate(zip(tensors.players, profile)):
    strategy = np.asarray(strategy, np.float64)
    legal = np.asarray(treeplex.legal)
    if strategy.shape[:2] != legal.shape:
      raise ValueError(
        f"player {player}'s strategy has shape {strategy.shape}; expected {legal.shape} "
        f"(infosets, max actions) followed by any batch axes"
      )
    legal = legal.reshape(legal.shape + (1,) * (strategy.ndim - 2))
    problems = [
      (~np.isfinite(strategy), "is not finite"),
      (strategy < -tolerance, "is negative"),
      ((np.abs(strategy) > tolerance) & ~legal, "puts probability on an illegal action"),
    ]
    for bad, what in problems:
      if bad.any():
        infoset = np.argwhere(bad)[0][0]
        raise ValueError(f"player {player}'s strategy {what} at infoset {infoset}")
    sums = strategy.sum(1)
    off = np.abs(sums - 1) > tolerance
    if off.any():
      infoset = np.argwhere(off)[0][0]
      raise ValueError(
        f"player {player}'s strategy at infoset {infoset} sums to {sums[tuple(np.argwhere(off)[0])]!r}, not 1"
      )


_plan.defvjp(_plan_fwd, _plan_bwd)
_parent_reach.defvjp(_parent_reach_fwd, _parent_reach_bwd)
