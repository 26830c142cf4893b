"""A vectorised 7-card poker hand evaluator in JAX: a batch of hands -> comparable ranks.

Cards are integers ``0..51``: ``rank = card // 4`` (0 = deuce .. 12 = ace) and ``suit =
card % 4`` (jaxcfr.games.limit_holdem's deck, and PyPI's ``phevaluator``'s card ids).
``hand_rank(cards [..., 7]) -> [...] int32`` is larger for a better hand and equal for hands
that split the pot: ``category << 26 | primary << 13 | kickers``, with the categories high
card (0), pair, two pair, trips, straight, flush, full house, quads, straight flush (8).

Everything is bit arithmetic on 13-bit rank masks, one per suit: ranks held at least
twice are the pairwise ANDs of the suit masks, three times the triple ANDs, four times
the AND of all four; a straight is five consecutive bits (the ace also below the deuce);
the kickers are a rank mask with its lowest bits cleared until ``k`` remain (sets of equal
size compare as numbers like their descending rank lists). No lookup table and no loop
over hands: a jitted call evaluates a million hands in a fraction of a second on a CPU.
With seven cards a flush excludes quads and a full house (they would need eight cards), so
the flush branch reads only the flush suit's mask. tests/test_limit_holdem.py compares the
ordering with ``phevaluator`` on a million random hands.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["hand_rank", "CATEGORIES", "category"]

CATEGORIES = ("high card", "pair", "two pair", "trips", "straight", "flush", "full house", "quads", "straight flush")
_SHIFT = 26


def _popcount(mask: jax.Array) -> jax.Array:
  return jax.lax.population_count(mask)


def _high_bit(mask: jax.Array) -> jax.Array:
  """Index of the highest set bit (-1 for 0) of int32 ``mask``."""
  return 31 - jax.lax.clz(mask.astype(jnp.int32))


def _keep_top(mask: jax.Array, k: int, drops: int) -> jax.Array:
  """``mask`` with its lowest set bits cleared until at most ``k`` remain (``drops`` rounds)."""
  for _ in range(drops):
    mask = jnp.where(_popcount(mask) > k, mask & (mask - 1), mask)
  return mask


def _straight_high(mask: jax.Array) -> jax.Array:
  """High rank of the best straight in a rank mask (the wheel A-5 has high rank 3), or -1."""
  low_ace = (mask << 1) | ((mask >> 12) & 1)  # bit j = rank j - 1; bit 0 = the ace as one
  run = low_ace & (low_ace >> 1) & (low_ace >> 2) & (low_ace >> 3) & (low_ace >> 4)
  return jnp.where(run > 0, _high_bit(run) + 3, -1)


@jax.jit
def hand_rank(cards: jax.Array) -> jax.Array:
  """[...] int32 rank of the best five-card hand among ``cards`` [..., 7] (distinct cards
  0..51); larger is better, equal ranks tie."""
  cards = jnp.asarray(cards, jnp.int32)
  bit = jnp.left_shift(jnp.int32(1), cards // 4)
  suit = cards % 4
  s = [jnp.where(suit == i, bit, 0).sum(-1, dtype=jnp.int32) for i in range(4)]  # [...] rank mask per suit
  any_ = s[0] | s[1] | s[2] | s[3]
  two = (s[0] & s[1]) | (s[0] & s[2]) | (s[0] & s[3]) | (s[1] & s[2]) | (s[1] & s[3]) | (s[2] & s[3])
  three = (s[0] & s[1] & s[2]) | (s[0] & s[1] & s[3]) | (s[0] & s[2] & s[3]) | (s[1] & s[2] & s[3])
  four = s[0] & s[1] & s[2] & s[3]
  suited = jnp.zeros_like(any_)
  for i in range(4):
    suited = jnp.where(_popcount(s[i]) >= 5, s[i], suited)

  straight_flush = _straight_high(suited)
  straight = _straight_high(any_)
  quad = _high_bit(four)
  trip = _high_bit(three)
  pairs = _keep_top(two, 2, 2)  # the best two pairs (a second trips counts as a pair)
  pair_high = _high_bit(two)
  full_pair = _high_bit(two & ~jnp.left_shift(jnp.int32(1), jnp.maximum(trip, 0)))
  one = lambda rank: jnp.left_shift(jnp.int32(1), jnp.maximum(rank, 0))

  candidates = [  # (condition, category, primary, kickers), best first
    (straight_flush >= 0, 8, straight_flush, 0),
    (four > 0, 7, quad, _keep_top(any_ & ~one(quad), 1, 3)),
    ((three > 0) & (full_pair >= 0), 6, trip, full_pair),
    (suited > 0, 5, 0, _keep_top(suited, 5, 2)),
    (straight >= 0, 4, straight, 0),
    (three > 0, 3, trip, _keep_top(any_ & ~one(trip), 2, 3)),
    (_popcount(two) >= 2, 2, pairs, _keep_top(any_ & ~pairs, 1, 4)),
    (two > 0, 1, pair_high, _keep_top(any_ & ~one(pair_high), 3, 3)),
  ]
  result = _keep_top(any_, 5, 2)  # high card
  for condition, cat, primary, kickers in reversed(candidates):
    result = jnp.where(condition, (cat << _SHIFT) | (jnp.asarray(primary, jnp.int32) << 13) | kickers, result)
  return result.astype(jnp.int32)


def category(rank: jax.Array) -> jax.Array:
  """[...] the category index (see CATEGORIES) of ranks from ``hand_rank``."""
  return rank >> _SHIFT
