"""Exact evaluation on the sequence-form tensors (DESIGN section 4).

A *profile* is a pair of behavioural strategies ``(sigma0 [I0, A0], sigma1 [I1, A1])``,
each row a distribution over the legal actions of one infoset (zero where illegal). Every
function here is pure and traceable: ``jit`` it, ``vmap`` it over a batch of profiles, or
differentiate it with respect to the float leaves of the tensors.

Conventions: values are player 0's unless said otherwise. ``nash_conv`` is the sum of both
best-response gains (papers 000 and 002 call it the exploitability epsilon_sigma);
``exploitability`` is ``nash_conv / 2``, OpenSpiel's convention.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxcfr.tensors import GameTensors, SequencePayoff, Treeplex


def uniform_strategy(treeplex: Treeplex, dtype=None) -> jax.Array:
  """[I, A] uniform over the legal actions of each infoset."""
  legal = treeplex.legal.astype(dtype or jnp.zeros(()).dtype)
  return legal / legal.sum(-1, keepdims=True)


def uniform_profile(tensors: GameTensors) -> tuple[jax.Array, jax.Array]:
  return tuple(uniform_strategy(t, tensors.dtype) for t in tensors.players)


def realization_plan(treeplex: Treeplex, strategy: jax.Array) -> jax.Array:
  """[S] realization plan ``x[(I,a)] = x[parent(I)] * sigma(I,a)``, ``x[empty] = 1``.

  Args:
    strategy: [I, A] behavioural strategy.
  """
  flat = strategy.reshape(-1)[treeplex.seq_flat_index]
  plan = jnp.ones_like(flat)
  for lo, hi in treeplex.seq_level_slices:
    plan = plan.at[lo:hi].set(plan[treeplex.seq_parent[lo:hi]] * flat[lo:hi])
  return plan


def sequence_values_for(payoff: SequencePayoff, player: int, opponent_plan: jax.Array,
                        num_sequences: int) -> jax.Array:
  """[S_player] sequence values of ``player`` against the opponent's realization plan:
  ``A y`` for player 0, ``-A^T x`` for player 1 (one sorted segment sum over the pairs)."""
  if player == 0:
    return jax.ops.segment_sum(payoff.value * opponent_plan[payoff.seq1], payoff.seq0,
                               num_segments=num_sequences, indices_are_sorted=True)
  value_by_seq1 = payoff.value[payoff.by_seq1]
  return -jax.ops.segment_sum(value_by_seq1 * opponent_plan[payoff.seq0_by_seq1], payoff.seq1_by_seq1,
                              num_segments=num_sequences, indices_are_sorted=True)


def sequence_values(payoff: SequencePayoff, plan0: jax.Array, plan1: jax.Array):
  """Per-sequence values against the opponent's plan: ``g0 = A y``, ``g1 = -A^T x``.

  Args:
    plan0: [S0] player 0's realization plan; plan1: [S1] player 1's.
  Returns:
    (g0 [S0], g1 [S1]), each from its own player's point of view.
  """
  return (sequence_values_for(payoff, 0, plan1, plan0.shape[0]),
          sequence_values_for(payoff, 1, plan0, plan1.shape[0]))


def _bottom_up(treeplex: Treeplex, seq_values: jax.Array, infoset_value) -> jax.Array:
  """Adds each infoset's value to its parent sequence, deepest level first.

  Returns [S]: entry ``(I,a)`` is ``q(I,a)``, entry 0 the value of the empty sequence.
  """
  total = seq_values
  for lo, hi in reversed(treeplex.level_slices):
    q = total[treeplex.sequences[lo:hi]]
    total = total.at[treeplex.parent_seq[lo:hi]].add(infoset_value(q, lo, hi))
  return total


def counterfactual_values(treeplex: Treeplex, seq_values: jax.Array, strategy: jax.Array):
  """Counterfactual action values ``q`` [I, A] and infoset values ``v`` [I].

  ``q(I,a) = g[(I,a)] + sum_{J child of (I,a)} v(J)``, ``v(I) = sum_a sigma(I,a) q(I,a)``:
  the counterfactual values of CFR (paper 002 eq. 4-5; paper 004 section 1.6).
  The instantaneous regret is ``q - v[:, None]`` on legal actions.
  """
  masked = jnp.where(treeplex.legal, strategy, 0)
  total = _bottom_up(treeplex, seq_values, lambda q, lo, hi: (masked[lo:hi] * q).sum(-1))
  q = jnp.where(treeplex.legal, total[treeplex.sequences], 0)
  return q, (masked * q).sum(-1)


def best_response(treeplex: Treeplex, seq_values: jax.Array):
  """Best response to the opponent plan behind ``seq_values``.

  Returns:
    (value, strategy): the best-response value (scalar, this player's point of view) and a
    pure best-response strategy [I, A] (first maximising legal action).
  """

  def best(q, lo, hi):
    return jnp.where(treeplex.legal[lo:hi], q, -jnp.inf).max(-1)

  total = _bottom_up(treeplex, seq_values, best)
  q = jnp.where(treeplex.legal, total[treeplex.sequences], -jnp.inf)
  strategy = jax.nn.one_hot(jnp.argmax(q, -1), treeplex.max_actions, dtype=seq_values.dtype)
  return total[0], strategy


def plans(tensors: GameTensors, profile) -> tuple[jax.Array, jax.Array]:
  return tuple(realization_plan(t, s) for t, s in zip(tensors.players, profile))


def expected_value(tensors: GameTensors, profile) -> jax.Array:
  """Player 0's expected utility ``x^T A y`` under ``profile``."""
  x, y = plans(tensors, profile)
  g0, _ = sequence_values(tensors.payoff, x, y)
  return jnp.dot(x, g0)


def best_response_values(tensors: GameTensors, profile) -> jax.Array:
  """[2] each player's best-response value against the other's strategy in ``profile``."""
  g = sequence_values(tensors.payoff, *plans(tensors, profile))
  return jnp.stack([best_response(t, gi)[0] for t, gi in zip(tensors.players, g)])


def nash_conv(tensors: GameTensors, profile) -> jax.Array:
  """NashConv ``= BR0(sigma1) + BR1(sigma0)`` (the game is zero-sum)."""
  return best_response_values(tensors, profile).sum()


def exploitability(tensors: GameTensors, profile) -> jax.Array:
  """``nash_conv / 2``, OpenSpiel's ``exploitability``."""
  return nash_conv(tensors, profile) / 2
