"""Head-to-head evaluation of profiles: exact expected values with seats alternated, a
crosstable of a list of agents, and a sampled match mode with 95% confidence intervals (for
comparison with papers that report sampled hands, e.g. Ponsen, de Jong and Lanctot,
"Computing Approximate Nash Equilibria and Robust Best-Responses Using Sampling", 2011,
section 3.3.2).

An agent is a profile ``(sigma0 [I0, A0], sigma1 [I1, A1])``: it plays ``sigma0`` in seat 0
and ``sigma1`` in seat 1. The head-to-head value of agent ``a`` against agent ``b`` is the
mean over the two seatings,

    h(a, b) = ( u0(a0, b1) - u0(b0, a1) ) / 2,

with ``u0`` player 0's exact expected value (jaxcfr.kits.sequence_form.evaluation.expected_value). It is
antisymmetric, ``h(a, b) = -h(b, a)``, and ``h(a, a) = 0``. For poker games (those whose
GameInfo declares ``is_poker``) the tables are also given in thousandths of the game's payoff
unit per hand, e.g. milli-chips per hand (``1000 h``; the papers' "mb/h", milli-big-blinds
per hand, needs a big blind, which the small poker games do not have: their unit is the
ante/bet chip).

The sampled mode plays ``num_games`` games, half in each seating, by walking the tree arrays
(jaxcfr.kits.sequence_form.walk.play), and reports the mean with a normal 95% interval
``mean +- 1.96 sqrt(var_0 / n_0 + var_1 / n_1) / 2`` over the two seatings' sample variances.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form import evaluation, walk
from jaxcfr.kits.sequence_form.tensors import GameTensors, tree_statics

__all__ = ["head_to_head", "crosstable", "sampled_match", "is_poker", "table_unit", "Z95"]

Z95 = 1.959963984540054


def is_poker(game) -> bool:
  """True for a poker game (a loaded game, or its tensors, whose GameInfo declares it): its
  values are also reported per hand in thousandths of its payoff unit."""
  if isinstance(game, str):
    raise TypeError("is_poker takes a loaded game or its tensors (their declared GameInfo), not a name")
  return bool(game.info.is_poker)


def table_unit(game) -> tuple[str, float]:
  """(unit, scale) in which to print a loaded game's head-to-head values: thousandths of the
  payoff unit per hand for poker (``("milli-chips per hand", 1000.0)``), else the payoff unit
  per game (``("value per game", 1.0)``)."""
  if is_poker(game):
    return f"milli-{game.info.payoff_unit} per hand", 1000.0
  return f"{game.info.payoff_unit} per game", 1.0


def head_to_head(tensors: GameTensors, agent_a, agent_b) -> jax.Array:
  """[*B] exact ``h(a, b)``: agent a's expected value against agent b, seats alternated
  (each agent a profile of [I, A, *B] strategies)."""
  a_first = evaluation.expected_value(tensors, (agent_a[0], agent_b[1]))
  b_first = evaluation.expected_value(tensors, (agent_b[0], agent_a[1]))
  return (a_first - b_first) / 2


@jax.jit
def _pairs(tensors, stacked0, stacked1):
  num = stacked0.shape[-1]
  rows, cols = jnp.meshgrid(jnp.arange(num), jnp.arange(num), indexing="ij")
  rows, cols = rows.reshape(-1), cols.reshape(-1)
  value = head_to_head(tensors, (stacked0[..., rows], stacked1[..., rows]), (stacked0[..., cols], stacked1[..., cols]))
  return value.reshape(num, num)


def crosstable(tensors: GameTensors, agents) -> np.ndarray:
  """[N, N] ``h(agents[i], agents[j])`` (row agent's value, chips per game), all pairs in one
  batched evaluation. ``agents``: a list of N profiles ([I, A] strategies)."""
  stacked = [jnp.stack([jnp.asarray(agent[p], tensors.dtype) for agent in agents], -1) for p in (0, 1)]
  return np.asarray(_pairs(tensors, *stacked))


@functools.partial(jax.jit, static_argnames=("num_games", "max_children"))
def _seat_returns(tensors, seat0, seat1, key, *, num_games: int, max_children: int):
  profile = (seat0, seat1)
  terminals, _ = walk.play(
    tensors,
    lambda player, game, row, col: profile[player][row, col],
    key,
    num_games=num_games,
    max_children=max_children,
  )
  return tensors.tree.utility[terminals]


def sampled_match(tensors: GameTensors, agent_a, agent_b, key, num_games: int) -> dict:
  """Plays ``num_games`` games of agent a against agent b (half with a in seat 0, half in
  seat 1) and estimates ``h(a, b)``.

  Returns:
    {"mean", "half_width" (of the 95% interval), "low", "high", "games", "stderr"} (floats).
  """
  if num_games < 4:
    raise ValueError(f"a sampled match needs at least 4 games, got {num_games}")
  half = int(num_games) // 2
  width = tree_statics(tensors.tree).max_children
  key_a, key_b = jax.random.split(key)
  cast = lambda s: jnp.asarray(s, tensors.dtype)
  first = np.asarray(
    _seat_returns(tensors, cast(agent_a[0]), cast(agent_b[1]), key_a, num_games=half, max_children=width)
  )
  second = -np.asarray(
    _seat_returns(tensors, cast(agent_b[0]), cast(agent_a[1]), key_b, num_games=half, max_children=width)
  )
  mean = (first.mean() + second.mean()) / 2
  stderr = np.sqrt(first.var(ddof=1) / half + second.var(ddof=1) / half) / 2
  return {
    "mean": float(mean),
    "stderr": float(stderr),
    "half_width": float(Z95 * stderr),
    "low": float(mean - Z95 * stderr),
    "high": float(mean + Z95 * stderr),
    "games": 2 * half,
  }
