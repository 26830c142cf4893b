"""Solvers of sampled games: outcome-sampling MCCFR on limit hold'em's imperfect-recall
abstraction (jaxcfr.kits.card_abstraction.game), where no sequence-form tensors exist.

An infoset of player ``p`` is ``(betting node, current-round bucket)``, the row
``decision[node] * buckets + bucket`` of a table ``[I_p, 3]`` (fold, call, raise); the
betting node fixes the round and the betting sequence, and only the current round's
bucket is remembered (imperfect recall, Ponsen et al. 2011, section 3.3.2).

``mccfr-os`` (Lanctot et al. 2009, eq. 10; Ponsen et al. 2011, Algorithm 1): each
iteration draws one deal (its buckets for both players and rounds, and the showdown
winner), then updates player 0 and player 1 in turn, each from one trajectory through the
betting tree (jaxcfr.kits.card_abstraction.walk.walk_betting): the updating player ``i`` samples
``epsilon * uniform + (1 - epsilon) * sigma_i`` (epsilon = 0.6, as the paper), the
opponent plays ``sigma_-i``. With ``q_i(z)``
the product of ``i``'s sampling probabilities on the path (the opponent's and chance's
cancel against ``pi_-i(z)``), every own infoset ``I`` on the path with sampled action
``a*`` gets

    r~(I, a) = u_i(z) pi_i(z[I] a*, z) / q_i(z) * (1[a = a*] - sigma(a* | I)),

and the average strategy adds ``pi_i(z[I]) sigma(I, .) / (q_i(z[I]) pi_-i(z[I]))``
(stochastically-weighted averaging, as OpenSpiel's outcome sampling; the deal's chance
probability is the same for every prefix of a round and cancels in the row
normalisation). Payoffs are in small bets. With imperfect recall CFR's guarantees are
lost; the paper (and Waugh et al. 2009, "A practical use of imperfect recall") finds the
strategies good in practice.

These solvers are registered for the sampled representation (they take a ``HoldemGame`` in
place of ``GameTensors``): ``jaxcfr.solvers.get("mccfr-os", "card_abstraction")``. Batches of seeds ride on trailing axes through
``registry.per_run`` like every sampled solver.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import regret
from jaxcfr.base import row_updates
from jaxcfr.kits.sequence_form import sampling as sampling_lib
from jaxcfr.kits.card_abstraction import game as holdem
from jaxcfr.kits.card_abstraction import walk as betting_walk
from jaxcfr.games import limit_holdem as rules
from jaxcfr.solvers import mccfr, registry
from jaxcfr.solvers.mccfr_state import DEFAULT_EPSILON  # 0.6, as Lanctot et al. 2009 and Ponsen et al. 2011

__all__ = [
  "HoldemState",
  "Fixed",
  "init",
  "step",
  "average_strategy",
  "current_strategy",
  "trajectory_update",
  "chance_sampled_update",
  "legal_table",
  "SMALL_BET",
]

SMALL_BET = float(rules.SMALL_BET)


class HoldemState(NamedTuple):
  """One run of ``mccfr-os`` on a sampled game (trailing batch axes added by ``per_run``).

  Attributes:
    regret: ([I0, 3], [I1, 3]) cumulative regrets.
    average: ([I0, 3], [I1, 3]) average-strategy weights.
    key: [2] uint32 PRNG key.
    epsilon: [] exploration of the updating player.
    iteration: [] int32.
  """

  regret: tuple
  average: tuple
  key: jax.Array
  epsilon: jax.Array
  iteration: jax.Array


class Fixed(NamedTuple):
  """MCRNR's restriction: ``player`` acts by ``p * tables[player] + (1 - p) * sigma``
  (Ponsen et al. 2011, section 4.3.2's constant pConf); tables ([I0, 3], [I1, 3])."""

  tables: tuple
  player: jax.Array
  p: jax.Array


def _sampling_policy(tables, *, player: int, epsilon, matched: bool, fixed: Fixed | None = None):
  """The BettingPolicy of an update of ``player``: ``player`` samples ``epsilon * uniform +
  (1 - epsilon) * sigma``, the opponent sigma, with sigma from ``tables`` (regrets when
  ``matched``, else strategies) and ``fixed``'s restriction. Outputs per step (alive,
  acting player, row, action, sigma(a), sample(a), sigma row [3], legal [3])."""
  width = 3

  def policy(decision: betting_walk.Decision, ud):
    p, row, legal = decision.player, decision.row, decision.legal
    rows = [t[jnp.clip(row, 0, t.shape[0] - 1)] for t in tables]
    values = jnp.where(decision.seat == 0, rows[0], rows[1])
    sigma = regret.regret_matching(values, legal, axis=-1) if matched else regret.normalise(values, legal, -1)
    if fixed is not None:
      model = jnp.where(
        decision.seat == 0,
        fixed.tables[0][jnp.clip(row, 0, fixed.tables[0].shape[0] - 1)],
        fixed.tables[1][jnp.clip(row, 0, fixed.tables[1].shape[0] - 1)],
      )
      sigma = jnp.where(p == fixed.player, fixed.p * model + (1 - fixed.p) * sigma, sigma)
    count = legal.sum()
    explore = epsilon * legal / count + (1 - epsilon) * sigma
    sample = jnp.where(p == player, explore, sigma)
    a = sampling_lib.inverse_cdf(jnp.where(legal, sample, 0)[None], ud[None], jnp.int32(width)[None])[0]
    a = jnp.where(legal[a], a, jnp.argmax(legal))  # past rounding, never an illegal action
    return a, (decision.alive, p, row, a, sigma[a], sample[a], sigma, legal)

  return policy


def trajectory_update(
  game: holdem.HoldemGame, regrets, buckets, sign, key, *, player: int, epsilon, fixed: Fixed | None = None
):
  """One outcome-sampling update of ``player``: (regret increments, average increments),
  each ``(rows [D], values [D, 3])`` with rows ``I_player`` (dropped) off own steps."""
  u = jax.random.uniform(key, (betting_walk.max_depth(game.tree),))
  policy = _sampling_policy(regrets, player=player, epsilon=epsilon, matched=True, fixed=fixed)
  last, (alive, p, row, a, sig_a, samp_a, sigma, legal) = betting_walk.walk_betting(game, buckets, policy, u)
  u0 = holdem.terminal_utility(game.arrays, last[None], sign[None])[0] / SMALL_BET
  ui = u0 if player == 0 else -u0
  own = alive & (p == player)
  opp = alive & (p != player)
  sig_own = jnp.where(own, sig_a, 1.0)
  samp_own = jnp.where(own, samp_a, 1.0)
  sig_opp = jnp.where(opp, sig_a, 1.0)
  q = jnp.prod(samp_own)
  tail = sampling_lib.exclusive_prefix_product(sig_own[::-1])[::-1]  # prod over later own steps
  w = ui * tail / q
  onehot = jax.nn.one_hot(a, 3, dtype=sigma.dtype)
  regret_inc = w[:, None] * (onehot - sig_a[:, None]) * legal
  reach_i = sampling_lib.exclusive_prefix_product(sig_own)
  q_prefix = sampling_lib.exclusive_prefix_product(samp_own)
  reach_opp = sampling_lib.exclusive_prefix_product(sig_opp)  # > 0: the opponent samples on policy
  weight = reach_i / (q_prefix * jnp.maximum(reach_opp, 1e-30))
  average_inc = weight[:, None] * sigma
  size = regrets[player].shape[0]
  rows = jnp.where(own, row, size)
  return (rows, regret_inc), (rows, average_inc)


def init(game: holdem.HoldemGame, *, seed=0, epsilon=DEFAULT_EPSILON) -> HoldemState:
  """A fresh run of ``mccfr-os`` (or ``cfr-cs``): zero tables, the PRNG key of ``seed``."""
  tables = tuple(jnp.zeros((n, 3), jnp.float32) for n in game.num_infosets)
  key = jax.random.key_data(jax.random.key(jnp.asarray(seed, jnp.uint32)))
  return HoldemState(
    regret=tables,
    average=tables,
    key=key,
    epsilon=jnp.asarray(epsilon, jnp.float32),
    iteration=jnp.zeros((), jnp.int32),
  )


def step(game: holdem.HoldemGame, state: HoldemState, fixed: Fixed | None = None) -> HoldemState:
  """One ``mccfr-os`` iteration: a deal, then an outcome-sampling update of player 0 and of
  player 1 (one trajectory each); ``fixed``: MCRNR's restriction (jaxcfr.solvers.holdem_search)."""
  keys = sampling_lib.split_key(state.key, 4)
  deal = holdem.sample_deals(jax.random.wrap_key_data(keys[1]), 1)
  buckets = holdem.deal_buckets(game, deal)[0]
  sign = holdem.showdown_sign(deal)[0]
  regrets, average = list(state.regret), list(state.average)
  for player in (0, 1):
    (rows, r_inc), (_, a_inc) = trajectory_update(
      game,
      tuple(regrets),
      buckets,
      sign,
      jax.random.wrap_key_data(keys[2 + player]),
      player=player,
      epsilon=state.epsilon,
      fixed=fixed,
    )
    regrets[player] = row_updates.add_rows(regrets[player], rows, r_inc)
    average[player] = row_updates.add_rows(average[player], rows, a_inc)
  return HoldemState(
    regret=tuple(regrets), average=tuple(average), key=keys[0], epsilon=state.epsilon, iteration=state.iteration + 1
  )


def legal_table(game: holdem.HoldemGame, player: int) -> jax.Array:
  """[I_p, 3] legal actions of player ``p``'s infosets."""
  nodes = jnp.asarray((game.tree.player == player).nonzero()[0])
  return jnp.repeat(game.arrays.legal[nodes], game.buckets, axis=0)


def average_strategy(game: holdem.HoldemGame, state: HoldemState) -> tuple:
  """The normalised average profile ([I0, 3], [I1, 3]); uniform over the legal actions where never averaged."""
  return tuple(regret.normalise(state.average[p], legal_table(game, p), axis=-1) for p in (0, 1))


def current_strategy(game: holdem.HoldemGame, state: HoldemState) -> tuple:
  """Regret matching on the cumulative regrets ([I0, 3], [I1, 3])."""
  return tuple(regret.regret_matching(state.regret[p], legal_table(game, p), axis=-1) for p in (0, 1))


def _mccfr_os() -> registry.Solver:
  functions = registry.per_run(
    init, ("seed", "epsilon"), step=step, average_strategy=average_strategy, current_strategy=current_strategy
  )
  return registry.Solver(name="mccfr-os", hyperparameters={"seed": 0, "epsilon": DEFAULT_EPSILON}, **functions)


def chance_sampled_update(game: holdem.HoldemGame, regrets, deals: jax.Array):
  """Chance-sampled CFR on the betting tree for ``deals`` [D, 9] (Lanctot et al. 2009,
  section 3; Zinkevich et al.'s poker CFR): both players' whole betting trees are walked
  for each deal, top-down for the reach probabilities and bottom-up for the values, one
  depth level at a time for all deals at once. Returns per player ``(rows [L, D], regret
  [L, D, 3], average [L, D, 3])`` over the decision nodes (rows past the table off the
  player's nodes): ``pi_-p(h) (q(h, a) - v(h))`` and ``pi_p(h) sigma(h, .)``."""
  arrays = game.arrays
  levels = betting_walk.decision_levels(game)
  nodes = np.concatenate(levels)
  num = arrays.player.shape[0]
  buckets = holdem.deal_buckets(game, deals)  # [D, 2, 4]
  sign = holdem.showdown_sign(deals)
  player = arrays.player[nodes]  # [L]
  bucket = jnp.where(
    player[:, None] == 0, buckets[:, 0, :][:, arrays.round[nodes]].T, buckets[:, 1, :][:, arrays.round[nodes]].T
  )  # [L, D]
  rows = arrays.decision[nodes][:, None] * game.buckets + bucket
  legal = arrays.legal[nodes][:, None, :]
  sigma = jnp.where(
    player[:, None, None] == 0,
    regret.regret_matching(regrets[0][jnp.clip(rows, 0, regrets[0].shape[0] - 1)], legal, axis=-1),
    regret.regret_matching(regrets[1][jnp.clip(rows, 0, regrets[1].shape[0] - 1)], legal, axis=-1),
  )
  position = np.full(num, -1)
  position[nodes] = np.arange(nodes.size)
  d = deals.shape[0]
  reach = jnp.ones((num, d, 2), sigma.dtype)
  for level in levels:  # top-down: the children's reach
    at = position[level]
    child = arrays.child[level]  # [l, 3]
    acting = jax.nn.one_hot(arrays.player[level], 2, dtype=sigma.dtype)  # [l, 2]
    factor = 1 - acting[:, None, None, :] + acting[:, None, None, :] * sigma[at][:, :, :, None]  # [l, D, 3, 2]
    child_reach = reach[level][:, :, None, :] * factor
    target = jnp.where(child >= 0, child, num)
    reach = reach.at[target.T].set(jnp.moveaxis(child_reach, 2, 0), mode="drop")
  terminal_value = (
    jax.vmap(lambda s: holdem.terminal_utility(arrays, jnp.arange(num), jnp.broadcast_to(s, (num,))), out_axes=1)(sign)
    / SMALL_BET
  )  # [N, D]
  value = jnp.where((arrays.terminal != 0)[:, None], terminal_value, 0.0).astype(sigma.dtype)
  q_all = jnp.zeros((nodes.size, d, 3), sigma.dtype)
  for level in reversed(levels):  # bottom-up: player 0's values
    at = position[level]
    child = arrays.child[level]
    q = jnp.where((child >= 0)[:, None, :], jnp.moveaxis(value[jnp.maximum(child, 0)], 1, 2), 0.0)  # [l, D, 3]
    value = value.at[level].set((sigma[at] * q).sum(-1))
    q_all = q_all.at[at].set(q)
  v = (sigma * q_all).sum(-1, keepdims=True)
  out = []
  for p in (0, 1):
    own_sign = 1.0 if p == 0 else -1.0
    opp_reach = reach[nodes][:, :, 1 - p][..., None]
    own_reach = reach[nodes][:, :, p][..., None]
    size = regrets[p].shape[0]
    p_rows = jnp.where((player == p)[:, None], rows, size)
    out.append((p_rows, own_sign * opp_reach * (q_all - v) * legal, own_reach * sigma))
  return out


def _cs_step(game: holdem.HoldemGame, state: HoldemState, *, deals: int) -> HoldemState:
  keys = sampling_lib.split_key(state.key, 2)
  sampled = holdem.sample_deals(jax.random.wrap_key_data(keys[1]), deals)
  updates = chance_sampled_update(game, state.regret, sampled)
  regrets = tuple(state.regret[p].at[updates[p][0]].add(updates[p][1] / deals, mode="drop") for p in (0, 1))
  average = tuple(state.average[p].at[updates[p][0]].add(updates[p][2] / deals, mode="drop") for p in (0, 1))
  return HoldemState(regret=regrets, average=average, key=keys[0], epsilon=state.epsilon, iteration=state.iteration + 1)


def _cfr_cs(deals: int = 8) -> registry.Solver:
  functions = registry.per_run(
    init,
    ("seed",),
    step=functools.partial(_cs_step, deals=deals),
    average_strategy=average_strategy,
    current_strategy=current_strategy,
  )
  return registry.Solver(name="cfr-cs", hyperparameters={"seed": 0}, options={"deals": deals}, **functions)


registry.register(
  "mccfr-os",
  _mccfr_os,
  summary="outcome-sampling MCCFR on the card abstraction (Ponsen et al. 2011, Algorithm 1)",
  representation="card_abstraction",
  hyperparameters=(registry.SEED, mccfr.EPSILON),
)
registry.register(
  "cfr-cs",
  _cfr_cs,
  summary="chance-sampled CFR on the card abstraction: the whole betting tree for sampled deals",
  representation="card_abstraction",
  options=(registry.Param("deals", int, 8, "deals sampled per iteration", low=1),),
  hyperparameters=(registry.SEED,),
)
