"""Matches between strategies of limit hold'em's abstraction, in small bets per hand, and a
rule-based bot.

A strategy of player ``p`` is a table ``[I_p, 3]`` over (betting node, current-round
bucket) rows (jaxcfr.solvers.holdem_cfr). ``match`` plays two agents on the same
sampled deals with the seats alternated (duplicate deals: agent A as player 0 against B
as player 1, then the same cards with the seats swapped), and for each deal takes the
*expected* payoff over both agents' action probabilities, a backward pass over the
16,584-node betting tree for all deals at once, instead of sampling the actions: only the
cards are sampled, which removes the betting's variance at no cost in bias. The result is
A's mean winnings in small bets per hand with a 95% confidence interval over the deals.

``rule_bot`` is a simple hand-strength rule, **a stand-in for the commercial bots (Poki,
Sparbot of Poker Academy Pro) that Ponsen et al. 2011 played against, which we cannot
have**: raise with a bucket in the top 30% of the buckets, call (or check) with a bucket
in the top 70%, else check when free and fold to a bet.
"""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.card_abstraction import game as holdem

from jaxcfr.kits.card_abstraction import walk as betting_walk
from jaxcfr.games import limit_holdem as rules

__all__ = ["rule_bot", "uniform", "deal_values", "match"]


def _rows(game: holdem.HoldemGame, player: int) -> tuple[np.ndarray, np.ndarray]:
  """(node, bucket) of each row of player ``player``'s table."""
  nodes = np.flatnonzero(game.tree.player == player)
  return np.repeat(nodes, game.buckets), np.tile(np.arange(game.buckets), nodes.size)


def rule_bot(game: holdem.HoldemGame, *, raise_above: float = 0.7, call_above: float = 0.3) -> tuple:
  """The rule-based profile ([I0, 3], [I1, 3]) described in the module doc."""
  profile = []
  for p in (0, 1):
    nodes, bucket = _rows(game, p)
    legal = game.tree.child[nodes] >= 0
    strength = (bucket + 0.5) / game.buckets
    action = np.where(strength >= raise_above, rules.RAISE, np.where(strength >= call_above, rules.CALL, rules.FOLD))
    action = np.where(legal[np.arange(nodes.size), action], action, rules.CALL)  # capped: call; fold when free: check
    profile.append(jnp.asarray(np.eye(3, dtype=np.float32)[action]))
  return tuple(profile)


def uniform(game: holdem.HoldemGame) -> tuple:
  """The uniform profile over legal actions."""
  profile = []
  for p in (0, 1):
    nodes, _ = _rows(game, p)
    legal = (game.tree.child[nodes] >= 0).astype(np.float32)
    profile.append(jnp.asarray(legal / legal.sum(1, keepdims=True)))
  return tuple(profile)


@jax.jit
def deal_values(
  game: holdem.HoldemGame, profile: tuple, deals: jax.Array, game1: holdem.HoldemGame | None = None
) -> jax.Array:
  """[n] player 0's expected chips on ``deals`` [n, 9] when both play ``profile``; player 1's
  table reads the buckets of ``game1`` when given (agents of different abstractions)."""
  arrays = game.arrays
  games = (game, game1 if game1 is not None else game)
  buckets = [holdem.deal_buckets(g, deals)[:, p, :] for p, g in enumerate(games)]  # [n, 4] each
  sign = holdem.showdown_sign(deals)
  num = arrays.player.shape[0]
  all_nodes = jnp.arange(num)
  value = jax.vmap(lambda s: holdem.terminal_utility(arrays, all_nodes, jnp.broadcast_to(s, (num,))), out_axes=1)(sign)
  value = jnp.where((arrays.terminal != 0)[:, None], value, 0.0)  # [N, n]
  for nodes in reversed(betting_walk.decision_levels(game)):
    player = game.tree.player[nodes]
    rnd = jnp.asarray(game.tree.round[nodes])
    probs = []
    for p in (0, 1):
      bucket = buckets[p][:, rnd].T  # [len, n]
      row = arrays.decision[nodes][:, None] * games[p].buckets + bucket
      probs.append(profile[p][jnp.clip(row, 0, profile[p].shape[0] - 1)])  # [len, n, 3]
    prob = jnp.where(jnp.asarray(player == 0)[:, None, None], probs[0], probs[1])
    child = arrays.child[nodes]  # [len, 3]
    child_values = jnp.where((child >= 0)[:, :, None], value[jnp.maximum(child, 0)], 0.0)  # [len, 3, n]
    value = value.at[nodes].set(jnp.einsum("lna,lan->ln", prob, child_values, precision=jax.lax.Precision.HIGHEST))
  return value[0]


def match(
  game: holdem.HoldemGame,
  profile_a: tuple,
  profile_b: tuple,
  key: jax.Array,
  num_deals: int,
  *,
  chunk: int = 256,
  game_b: holdem.HoldemGame | None = None,
) -> dict:
  """Agent A (its player-0 table in seat 0, its player-1 table in seat 1) against B on
  ``num_deals`` duplicate deals: A's small bets per hand, with a 95% confidence interval.
  B's tables read the buckets of ``game_b`` when given (e.g. 100 buckets against 10)."""
  game_b = game_b if game_b is not None and game_b != game else None
  if num_deals < 2:
    raise ValueError(f"match: num_deals must be at least 2, got {num_deals}")
  results = []
  for start in range(0, num_deals, chunk):
    deals = holdem.sample_deals(jax.random.fold_in(key, start), min(chunk, num_deals - start))
    a_first = deal_values(game, (profile_a[0], profile_b[1]), deals, game_b)
    b_first = deal_values(game_b or game, (profile_b[0], profile_a[1]), deals, game if game_b else None)
    results.append(np.asarray((a_first - b_first) / 2) / rules.SMALL_BET)
  per_deal = np.concatenate(results)
  mean = float(per_deal.mean())
  half = float(1.96 * per_deal.std(ddof=1) / np.sqrt(per_deal.size))
  return {"sb_per_hand": mean, "ci95": half, "deals": int(per_deal.size)}
