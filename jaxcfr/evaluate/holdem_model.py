"""An opponent model of a limit hold'em player learned from observed games: Ponsen, de Jong and
Lanctot, "Computing Approximate Nash Equilibria and Robust Best-Responses Using Sampling"
(JAIR 2011), section 5.2.

The paper observes about 20,000 games of each bot and, "since a frequency count cannot
generalize", learns one decision tree per betting round (Weka's J48) that predicts the
modelled player's strategy from five features:

1. the player's seat relative to the button (here the player, 0 or 1, of the abstract game);
2. the bets and raises made so far in the game;
3. the bets and raises made so far in the current round;
4. the bets and raises the modelled player made so far in the game;
5. the modelled player's bucket in the current round, if it was observed (its cards are
   shown only at a showdown; ``-1`` otherwise).

MCRNR then restricts the modelled player to this model with pConf 0.75 (jaxcfr.solvers.
holdem_search, ``mcrnr``). Here the trees are jaxcfr.solvers.regressors' regression trees,
one per round and action, fitted to the observed actions (one-hot) on the distinct feature
rows weighted by their counts, and their predictions are clipped at zero and normalised over
the legal actions (uniform where all are zero). A tree is not J48 (a classification tree
with pruning); the regression tree's threshold plays the part of J48's pruning.

``observe`` plays the games: the cards are dealt by ``limit_holdem.sample_deals`` and both
players' actions are sampled from their tables, all games at once.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form import sampling as sampling_lib
from jaxcfr.kits.card_abstraction import game as holdem
from jaxcfr.kits.card_abstraction import walk as betting_walk
from jaxcfr.games import limit_holdem as rules
from jaxcfr.solvers import regressors

__all__ = ["Observed", "FEATURES", "node_features", "observe", "decision_features", "learn", "agreement"]

FEATURES = ("seat", "raises in the game", "raises in the round", "own raises in the game", "observed bucket")


class Observed(NamedTuple):
  """Games played with sampled actions (host NumPy).

  Attributes:
    deals: [G, 9] the cards (jaxcfr.kits.card_abstraction.game.sample_deals).
    buckets: [G, 2, 4] each player's bucket in each round.
    nodes: [G, S] the betting node before each step (S = the tree's depth; the terminal
      repeats once reached).
    actions: [G, S] the action taken there (fold 0, call 1, raise 2; meaningless past the
      terminal).
    terminal: [G] the terminal node reached.
  """

  deals: np.ndarray
  buckets: np.ndarray
  nodes: np.ndarray
  actions: np.ndarray
  terminal: np.ndarray


@functools.cache
def node_features(game: holdem.HoldemGame) -> np.ndarray:
  """[N, 4] per betting node: bets and raises so far in the game, in the node's round, and by
  player 0 and by player 1 (the big blind not counted), from one pass over the tree in its
  breadth-first order; computed once per game (read-only)."""
  tree = game.tree
  out = np.zeros((tree.num_nodes, 4), np.int32)
  for node in range(tree.num_nodes):
    for action in range(3):
      child = tree.child[node, action]
      if child < 0:
        continue
      raised = int(action == rules.RAISE)
      out[child, 0] = out[node, 0] + raised
      out[child, 1] = (out[node, 1] if tree.round[child] == tree.round[node] else 0) + raised
      out[child, 2:] = out[node, 2:]
      out[child, 2 + tree.player[node]] += raised
  out.flags.writeable = False
  return out


def observe(game: holdem.HoldemGame, profile: tuple, key: jax.Array, num_games: int) -> Observed:
  """``num_games`` games of ``profile`` (player 0's table [I0, 3], player 1's [I1, 3]) on
  fresh deals, each action sampled from the acting player's row."""
  if num_games < 1:
    raise ValueError(f"observe: num_games must be positive, got {num_games}")
  _check_profile(game, profile, "observe")
  deal_key, action_key = jax.random.split(key)
  deals = holdem.sample_deals(deal_key, num_games)
  buckets = holdem.deal_buckets(game, deals)
  steps = betting_walk.max_depth(game.tree)
  u = jax.random.uniform(action_key, (num_games, steps), profile[0].dtype)
  tables = tuple(jnp.asarray(t) for t in profile)

  def one(deal_buckets, ud):
    def policy(decision: betting_walk.Decision, x):
      rows = [t[jnp.clip(decision.row, 0, t.shape[0] - 1)] for t in tables]
      probs = jnp.where(decision.seat == 0, rows[0], rows[1])
      probs = jnp.where(decision.legal, probs, 0)
      action = sampling_lib.inverse_cdf(probs[None], x[None], jnp.int32(3)[None])[0]
      return action, (decision.node, action)

    last, (nodes, actions) = betting_walk.walk_betting(game, deal_buckets, policy, ud)
    return last, nodes, actions

  last, nodes, actions = jax.jit(jax.vmap(one))(buckets, u)
  return Observed(*(np.asarray(x) for x in (deals, buckets, nodes, actions, last)))


def _check_profile(game: holdem.HoldemGame, profile, where: str) -> None:
  shapes = tuple(tuple(np.shape(t)) for t in profile)
  expected = tuple((n, 3) for n in game.num_infosets)
  if shapes != expected:
    raise ValueError(f"{where}: the profile's tables must have shapes {expected} for {game.name}, got {shapes}")


def decision_features(game: holdem.HoldemGame, nodes: np.ndarray, player: int, bucket: np.ndarray) -> np.ndarray:
  """[M, 5] the paper's five features (``FEATURES``) of ``player`` at betting ``nodes`` [M],
  with ``bucket`` [M] its bucket there (-1 where unobserved)."""
  per_node = node_features(game)[nodes]
  seat = np.full(len(nodes), player)
  return np.stack([seat, per_node[:, 0], per_node[:, 1], per_node[:, 2 + player], bucket], 1).astype(np.float64)


def _decisions(game: holdem.HoldemGame, observed: Observed, player: int):
  """(game [M], step [M], node [M]) of every decision ``player`` took in ``observed``."""
  tree = game.tree
  mine = (tree.player[observed.nodes] == player) & (tree.terminal[observed.nodes] == rules.NOT_TERMINAL)
  games, steps = np.nonzero(mine)
  return games, steps, observed.nodes[games, steps]


def _observations(game: holdem.HoldemGame, observed: Observed, player: int):
  """(features [M, 5], action [M], round [M]) of every decision ``player`` took."""
  tree = game.tree
  games, steps, nodes = _decisions(game, observed, player)
  rounds = tree.round[nodes]
  shown = tree.terminal[observed.terminal[games]] == rules.SHOWDOWN
  bucket = np.where(shown, observed.buckets[games, player, rounds], -1)
  return decision_features(game, nodes, player, bucket), observed.actions[games, steps], rounds


class _Rows(NamedTuple):  # what jaxcfr.solvers.regressors reads of a row set
  features: np.ndarray


def learn(game: holdem.HoldemGame, observations: list, *, threshold: float = 1.0) -> tuple:
  """The learned model: a profile ([I0, 3], [I1, 3]) for the player observed in
  ``observations``, a list of ``(player, Observed)`` (the games where that player sat in that
  seat). One regression tree per round and action on the five features (``threshold``: the
  least reduction of the squared error, summed over the observed decisions, that a split
  must bring); the other seat's rows are predicted from the same trees."""
  if not observations or any(player not in (0, 1) for player, _ in observations):
    raise ValueError(f"learn: give a list of (player 0 or 1, Observed) pairs, got {[p for p, _ in observations]}")
  if not threshold >= 0:
    raise ValueError(f"learn: threshold must be >= 0, got {threshold}")
  parts = [_observations(game, observed, player) for player, observed in observations]
  features = np.concatenate([p[0] for p in parts])
  actions = np.concatenate([p[1] for p in parts])
  rounds = np.concatenate([p[2] for p in parts])
  tree = regressors.tree(max_depth=16)
  hyper = {"threshold": jnp.asarray(threshold)}
  profile = []
  for player in (0, 1):
    nodes = np.flatnonzero(game.tree.player == player)
    row_nodes, row_bucket = np.repeat(nodes, game.buckets), np.tile(np.arange(game.buckets), nodes.size)
    rows = _Rows(decision_features(game, row_nodes, player, row_bucket))
    table = np.zeros((rows.features.shape[0], 3))
    for rnd in range(4):
      seen, at = rounds == rnd, game.tree.round[row_nodes] == rnd
      if not seen.any() or not at.any():
        continue
      train, target_rows = _Rows(features[seen]), _Rows(rows.features[at])
      weights = jnp.ones(int(seen.sum()))
      for action in range(3):
        target = jnp.asarray(actions[seen] == action, jnp.float32)
        params = tree.fit(tree.init(None, train), train, target, weights, hyper)
        table[at, action] = np.asarray(tree.predict(params, target_rows))
    legal = game.tree.child[row_nodes] >= 0
    table = np.where(legal, np.clip(table, 0, None), 0)
    total = table.sum(1, keepdims=True)
    table = np.where(total > 0, table / np.where(total > 0, total, 1), legal / legal.sum(1, keepdims=True))
    profile.append(jnp.asarray(table, jnp.float32))
  return tuple(profile)


def agreement(game: holdem.HoldemGame, model: tuple, truth: tuple, observed: list) -> dict:
  """How well ``model`` predicts ``truth`` (profiles of [I_p, 3] tables): on the decisions of
  ``observed`` (a list of ``(player, Observed)``), the mean total-variation distance between
  the two rows and the fraction where their most likely actions agree; the same over every
  infoset row of both seats (weighting all rows alike, most of which are never reached)."""
  distances, agree = [], []
  for player, games in observed:
    g, _, nodes = _decisions(game, games, player)
    rows = np.asarray(game.arrays.decision)[nodes] * game.buckets + games.buckets[g, player, game.tree.round[nodes]]
    m, t = np.asarray(model[player])[rows], np.asarray(truth[player])[rows]
    distances.append(0.5 * np.abs(m - t).sum(1))
    agree.append(m.argmax(1) == t.argmax(1))
  every = [0.5 * np.abs(np.asarray(m) - np.asarray(t)).sum(1) for m, t in zip(model, truth)]
  return {
    "observed_decisions": int(sum(len(d) for d in distances)),
    "mean_total_variation_on_observed_decisions": float(np.concatenate(distances).mean()),
    "most_likely_action_agrees_on_observed_decisions": float(np.concatenate(agree).mean()),
    "mean_total_variation_over_all_rows": float(np.concatenate(every).mean()),
  }
