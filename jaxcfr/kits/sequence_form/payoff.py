"""The sequence-form payoff as an operator: per-sequence values against the opponent's plan
(``A y`` for player 0, ``-A^T x`` for player 1: a sorted segment sum over the payoff pairs, or
in batches each sequence gathering its pairs) with a hand-written reverse pass, and the
operator's largest entry (``payoff_scale``)."""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

from jaxcfr.kits.sequence_form import row_sums
from jaxcfr.kits.sequence_form.modes import expand_to, integer_zeros as _integer_zeros
from jaxcfr.kits.sequence_form.modes import gathers as _gathers, hand_written as _hand_written
from jaxcfr.kits.sequence_form.tensors import SequencePayoff

__all__ = ["payoff_scale", "SEQUENCE_VALUES", "sequence_values_for", "sequence_values"]


def payoff_scale(payoff: SequencePayoff) -> jax.Array:
  """[] the largest entry of the payoff operator in absolute value, ``max |A|``."""
  return jnp.max(jnp.abs(payoff.value), axis=0)


# The checkpoint name of ``sequence_values_for``'s result: a ``jax.checkpoint`` policy that saves
# it (``jaxcfr.diff.unrolled(..., policy=...)``) spares the payoff product when a chunk is recomputed.
SEQUENCE_VALUES = "sequence_values"


def sequence_values_for(payoff: SequencePayoff, player: int, opponent_plan: jax.Array) -> jax.Array:
  """[S_player, *B] sequence values of ``player`` against the opponent's plan [S', *B]:
  ``A y`` for player 0, ``-A^T x`` for player 1 (a segment sum over the payoff pairs, or
  in batches each sequence gathering its pairs: ``_gathers``). Its reverse pass is
  hand-written within ``hand_written_reverse()``; the result is named ``SEQUENCE_VALUES``
  for checkpoint policies."""
  indices = _PayoffIndices.of(payoff)
  if _hand_written():
    product = _payoff_product(player, _gathers(opponent_plan.shape[1:]), payoff.value, opponent_plan, indices)
  else:
    product = _product(player, payoff.value, opponent_plan, indices)
  return checkpoint_name(product if player == 0 else -product, SEQUENCE_VALUES)


@functools.partial(jax.tree_util.register_dataclass, data_fields=["seq0", "seq1", "rows0", "rows1"], meta_fields=[])
@dataclasses.dataclass(frozen=True)
class _PayoffIndices:
  """The integer arrays of a SequencePayoff that the product reads (explicit arguments of
  the custom_vjp)."""

  seq0: jax.Array
  seq1: jax.Array
  rows0: row_sums.RowSums
  rows1: row_sums.RowSums

  @classmethod
  def of(cls, payoff: SequencePayoff) -> _PayoffIndices:
    return cls(payoff.seq0, payoff.seq1, payoff.pairs_by_seq0, payoff.pairs_by_seq1)


def _product(
  player: int, value: jax.Array, plan: jax.Array, indices: _PayoffIndices, gathers: bool | None = None
) -> jax.Array:
  """``A plan`` (player 0: [S0, *B] from [S1, *B]) or ``A^T plan`` (player 1)."""
  rows, other = (indices.rows0, indices.seq1) if player == 0 else (indices.rows1, indices.seq0)
  batch = plan.shape[1:]
  if not (_gathers(batch) if gathers is None else gathers):
    keys = indices.seq0 if player == 0 else indices.seq1
    return jax.ops.segment_sum(
      expand_to(value, plan.ndim) * plan[other], keys, num_segments=rows.num_rows, indices_are_sorted=player == 0
    )
  value, other = row_sums.padded(value), row_sums.padded(other)

  def term(pairs):
    return expand_to(value[pairs], 1 + len(batch)) * plan[other[pairs]]

  return row_sums.sum_rows(rows, term, batch, plan.dtype)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _payoff_product(player, gathers, value, plan, indices):
  return _product(player, value, plan, indices, gathers)


def _payoff_product_forward(player, gathers, value, plan, indices):
  return _product(player, value, plan, indices, gathers), (value, plan, indices)


def _payoff_product_backward(player, gathers, residuals, cotangent):
  value, plan, indices = residuals
  plan_bar = _product(1 - player, value, cotangent, indices, gathers)
  rows, cols = (indices.seq0, indices.seq1) if player == 0 else (indices.seq1, indices.seq0)
  value_bar = cotangent[rows] * plan[cols]  # [P, *B]
  if value_bar.ndim > value.ndim:  # a shared payoff under batched plans
    value_bar = value_bar.reshape(value_bar.shape[: value.ndim] + (-1,)).sum(-1)
  if plan_bar.ndim > plan.ndim:  # a shared plan under batched payoffs
    plan_bar = plan_bar.reshape(plan_bar.shape[: plan.ndim] + (-1,)).sum(-1)
  return value_bar.astype(value.dtype), plan_bar.astype(plan.dtype), _integer_zeros(indices)


_payoff_product.defvjp(_payoff_product_forward, _payoff_product_backward)


def sequence_values(payoff: SequencePayoff, plan0: jax.Array, plan1: jax.Array):
  """Per-sequence values against the opponent's plan: ``g0 = A y``, ``g1 = -A^T x``.

  Args:
    plan0: [S0] player 0's realization plan; plan1: [S1] player 1's.
  Returns:
    (g0 [S0], g1 [S1]), each from its own player's point of view.
  """
  return (sequence_values_for(payoff, 0, plan1), sequence_values_for(payoff, 1, plan0))
