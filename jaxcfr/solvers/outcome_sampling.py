"""Outcome-sampling MCCFR: Lanctot, Waugh, Zinkevich and Bowling, "Monte Carlo Sampling
for Regret Minimization in Extensive Games" (2009), section 3 and eq. 10; Ponsen, de Jong
and Lanctot, "Computing Approximate Nash Equilibria and Robust Best-Responses Using
Sampling" (2011), Algorithm 1 and eq. 6.

``mccfr-os``: per update of player ``i``, ``K`` root-to-terminal trajectories are drawn in parallel
    through the tree arrays, one depth level at a time: chance by ``chance_prob``, player
    ``i`` by the epsilon-greedy profile ``eps * uniform + (1 - eps) * sigma_i``, the
    opponent by its current strategy ``sigma_-i`` (as in OpenSpiel's solver; with
    ``exploring="both"`` the opponent samples epsilon-greedily too, a reading of Lanctot et
    al. 2009, section 5: "at each information set, we sample an action uniformly randomly
    with probability epsilon"; the estimate below is unchanged, ``q(z)`` then holding the
    opponent's sampling probabilities and ``pi_-i(z)`` its strategy's). With
    ``q(z)`` the probability of sampling ``z``, every infoset ``I`` of ``i`` on the path
    gets (Lanctot et al. 2009, eq. 10, written with the sampled action ``a*``)

        w_I = u_i(z) pi_-i(z) pi_i(z[I] a*, z) / q(z),
        r~(I, a) = w_I (1[a = a*] - sigma(a* | I))          (legal a).

    This is Ponsen et al. 2011's eq. 6 with its ``w_I = u_i(z) pi_-i(z[I]) / q(z)`` (the two
    ``w`` differ by the tail probability ``pi(z[I] a*, z)``; ``OSEstimate`` reports
    both). The ``K`` estimates are averaged (``K = 1`` is the papers' algorithm).
    In arrays: a walk (jaxcfr.kits.sequence_form.walk, one ``lax.scan`` over depth levels) moves all K
    trajectories one level down per step (gather the node; inverse CDF on the acting
    player's gathered row, regret-matched on the fly when K D is below the table size;
    chance from the node's window of ``chance_prob``, as wide as the game's widest chance
    node); the backward
    pass is exclusive cumulative products over the path arrays (read depth-major), and
    the regret and average rows are scatter-added into the [I, A] tables.

Average strategy:
  * ``mccfr-os``, ``averaging="stochastic"`` (default; OpenSpiel's, "stochastically-weighted
    averaging" of Lanctot's thesis, cited by Lanctot et al. 2009 [10]): at each infoset of the
    updating player on the path, ``s_I += pi_i(z[I]) sigma(I, .) / q(z[I])``, where
    ``q(z[I])`` is the probability of sampling the prefix. Its expectation is
    ``n_I pi_i(I) sigma(I, .)``, CFR's weight times the number ``n_I`` of histories of
    ``I`` that chance and the opponent reach; the row normalisation removes ``n_I``
    while it stays constant (it changes only when the opponent's reach of some history
    of ``I`` becomes or stops being zero).
  * ``mccfr-os``, ``averaging="optimistic"``: Ponsen et al. 2011 Algorithm 1 line 15, ``s_I +=
    (t - c_I) pi_i(z[I]) sigma(I, .)``, ``c_I <- t`` (the worked Kuhn example of Ponsen et al. 2011
    section 3.2.3 uses it).

Updates alternate like OpenSpiel's C++ ``OutcomeSamplingMCCFRSolver`` (player 0's update,
then player 1's, which sees player 0's new regrets); one ``outcome_step`` is one of its
iterations. With ``updates="simultaneous"`` an iteration is the papers' instead: "on each
iteration we sample one terminal history and only update each information set along that
history" (Lanctot et al. 2009, section 3; Ponsen et al. 2011, Algorithm 1): one walk, sampled
epsilon-greedily at both players' infosets (``exploring="both"``), updates both players
against the profile it was sampled with, and its nodes are touched once. ``Override`` lets a
caller replace a player's strategy on chosen trajectories (jaxcfr.solvers.mcrnr's model
subtree uses it).
"""

from __future__ import annotations

from typing import NamedTuple
from collections.abc import Callable

import jax
import jax.numpy as jnp

from jaxcfr.base import row_updates
from jaxcfr.kits.sequence_form import sampling as sampling_lib
from jaxcfr.kits.sequence_form.arrays import TERMINAL_NODE
from jaxcfr.kits.sequence_form.tensors import GameTensors
from jaxcfr.solvers.mccfr_state import MCCFRState, add_count, current_strategy
from jaxcfr.solvers.outcome_walk import (
  STACKED_TABLE_HISTORIES,
  SamplingSource,
  walk_trajectories,
  EXPLORING,
  UPDATES,
  Override,
  Trajectories,
  sigma_rows,
  check_scheme,
  forced_trajectory,
  sample_trajectories,
)

__all__ = [
  "AVERAGING",
  "EXPLORING",
  "UPDATES",
  "check_scheme",
  "STACKED_TABLE_HISTORIES",
  "Trajectories",
  "OSEstimate",
  "Override",
  "sample_trajectories",
  "forced_trajectory",
  "outcome_sampling_estimate",
  "outcome_sampling_update",
  "outcome_step",
]

AVERAGING = ("stochastic", "optimistic")


class OSEstimate(NamedTuple):
  """One outcome-sampling update of one player from ``K`` trajectories.

  Attributes:
    regret: [I, A] sampled regrets (Lanctot et al. 2009, eq. 10), averaged over the trajectories.
    average: [I, A] stochastically-weighted average-strategy increments, averaged.
    reach: [I] own reach ``pi_i(z[I])`` at visited infosets (0 elsewhere).
    visited: [I] bool, infosets on some path.
    w: [K, D] Lanctot et al. 2009, eq. 10's ``w_I = u_i(z) pi_-i(z) pi_i(z[I] a*, z) / q(z)`` (0 off own steps).
    w_ponsen_2011: [K, D] Ponsen et al. 2011, eq. 6's ``w_I = u_i(z) pi_-i(z[I]) / q(z)`` (0 off own steps).
    nodes_touched: [] int32, histories on the K paths.
  """

  regret: jax.Array
  average: jax.Array
  reach: jax.Array
  visited: jax.Array
  w: jax.Array
  w_ponsen_2011: jax.Array
  nodes_touched: jax.Array


def _exclusive_cumprod(x: jax.Array, reverse: bool = False) -> jax.Array:
  """[D, K] products of the entries strictly before (or after, with ``reverse``) each step."""
  if reverse:
    return _exclusive_cumprod(x[::-1])[::-1]
  return sampling_lib.exclusive_prefix_product(x, axis=0)


class _OSRows(NamedTuple):
  """One update's per-step rows before they are scattered; ``index`` [D * K] is the
  infoset of each step (``I`` off the updating player's steps, dropped by the scatter)."""

  index: jax.Array
  regret: jax.Array
  average: jax.Array
  reach: jax.Array
  sigma: jax.Array
  w: jax.Array
  w_ponsen_2011: jax.Array
  nodes_touched: jax.Array


def _os_rows(
  tensors: GameTensors,
  source: SamplingSource,
  trajectories: Trajectories,
  player: int,
  walk_rows: bool = False,
  keep: jax.Array | None = None,
) -> _OSRows:
  """``walk_rows``: take the steps' nodes and sigma rows from the walk (valid only when the
  walk read the same ``source``). ``keep`` [K] bool: trajectories that update ``player``
  (MCRNR drops the restricted player's steps in the model's subtree)."""
  # The path arrays are read depth-major ([D, K], as the walk's scan makes them): the
  # products over depth are then elementwise over contiguous rows, where on [K, D] they
  # cost a transposed copy each (outcome sampling on Leduc, 4096 trajectories: 2.6 against
  # 3.5 ms per iteration).
  tree = tensors.tree
  num_infosets, width = tensors.players[player].legal.shape
  steps = trajectories.nodes[:, :-1].T
  num = steps.shape[1]
  walk_rows = walk_rows and trajectories.steps is not None
  kind = trajectories.steps[0].T if walk_rows else tree.kind[steps]
  own = kind == player
  if keep is not None:
    own = own & keep[None, :]
  sigma_taken = trajectories.policy_prob.T
  sample_taken = trajectories.sample_prob.T
  own_p = jnp.where(own, sigma_taken, 1.0)
  other_p = jnp.where(own, 1.0, sigma_taken)
  q = sample_taken.prod(0)
  terminal = trajectories.nodes[:, -1]
  u = tree.utility[terminal] * (1.0 if player == 0 else -1.0)
  w = (u * other_p.prod(0) / q)[None, :] * _exclusive_cumprod(own_p, reverse=True)
  w = jnp.where(own, w, 0.0)
  w_ponsen_2011 = jnp.where(own, u[None, :] * _exclusive_cumprod(other_p) / q[None, :], 0.0)
  if walk_rows:
    infoset = jnp.where(own, trajectories.steps[1].T, num_infosets)
    count, sigma = trajectories.steps[2].T, jnp.swapaxes(trajectories.steps[3][..., :width], 0, 1)
  else:
    infoset = jnp.where(own, tree.infoset[steps], num_infosets)
    count = jnp.maximum(tree.num_children[steps], 1)
    sigma = sigma_rows(source, kind, infoset, count, width, players=(player,))
  legal = jnp.arange(width) < count[..., None]
  onehot = jax.nn.one_hot(trajectories.actions.T, width, dtype=sigma.dtype)
  regret = w[..., None] * (onehot - sigma_taken[..., None] * legal)  # Lanctot et al. 2009, eq. 10
  own_before = _exclusive_cumprod(own_p)
  average = (own_before / _exclusive_cumprod(sample_taken))[..., None] * sigma
  alive = kind != TERMINAL_NODE
  flat = lambda x: x.reshape((-1,) + x.shape[2:])
  return _OSRows(
    index=flat(infoset),
    regret=flat(regret) / num,
    average=flat(average) / num,
    reach=flat(jnp.where(own, own_before, 0.0)),
    sigma=flat(sigma),
    w=w.T,
    w_ponsen_2011=w_ponsen_2011.T,
    nodes_touched=(alive.sum() + num).astype(jnp.int32),
  )


def _first_visits(index: jax.Array, reach: jax.Array) -> jax.Array:
  """[R] bool: one row per infoset of ``index`` [R] (the one of largest ``reach`` [R], the
  first of those), so that an infoset that several trajectories visit is averaged once.
  Pairwise for the few rows of a small update, sorted for larger ones."""
  if index.shape[0] <= 64:
    r = jnp.arange(index.shape[0])
    better = (reach[None, :] > reach[:, None]) | ((reach[None, :] == reach[:, None]) & (r[None, :] < r[:, None]))
    return ~jnp.any((index[None, :] == index[:, None]) & better, axis=1)
  order = jnp.lexsort((-reach, index))
  head = jnp.concatenate([jnp.ones((1,), bool), index[order][1:] != index[order][:-1]])
  return jnp.zeros_like(head).at[order].set(head)


def _estimate(tensors: GameTensors, rows: _OSRows, player: int) -> OSEstimate:
  num_infosets, width = tensors.players[player].legal.shape
  dense = lambda v: jnp.zeros((num_infosets, width), v.dtype).at[rows.index].add(v, mode="drop")
  return OSEstimate(
    regret=dense(rows.regret),
    average=dense(rows.average),
    reach=jnp.zeros((num_infosets,), rows.reach.dtype).at[rows.index].max(rows.reach, mode="drop"),
    visited=jnp.zeros((num_infosets,), bool).at[rows.index].set(True, mode="drop"),
    w=rows.w,
    w_ponsen_2011=rows.w_ponsen_2011,
    nodes_touched=rows.nodes_touched,
  )


def outcome_sampling_estimate(
  tensors: GameTensors, strategies, trajectories: Trajectories, *, player: int, keep: jax.Array | None = None
) -> OSEstimate:
  """Player ``player``'s sampled regrets (Lanctot et al. 2009, eq. 10) and average increments from the
  trajectories, with sigma = ``strategies`` (the profile they were sampled under);
  ``keep`` [K] bool: the trajectories that count (default: all)."""
  rows = _os_rows(tensors, SamplingSource(tuple(strategies)), trajectories, player, keep=keep)
  return _estimate(tensors, rows, player)


def outcome_sampling_update(
  tensors: GameTensors,
  state: MCCFRState,
  trajectories: Trajectories,
  *,
  player: int,
  strategies=None,
  averaging: str = "stochastic",
  keep: jax.Array | None = None,
  _walk_rows: bool = False,
):
  """Applies one outcome-sampling update of ``player`` from given trajectories.

  Args:
    strategies: the profile sigma used for the update (default: regret matching on
      ``state.regrets``, done per visited row). Ponsen et al. 2011's simultaneous update of both
      players on one trajectory passes the profile of the forward pass to both calls.
    averaging: "stochastic" or "optimistic" (see the module doc); the iteration ``t`` of
      optimistic averaging is ``state.iteration + 1``.
    keep: [K] bool, the trajectories that update ``player`` (default: all).
  Returns:
    (new state, OSEstimate). ``state.iteration`` is not advanced. Under ``jit`` the dense
    OSEstimate costs nothing when unused.
  """
  source = SamplingSource(state.regrets, True) if strategies is None else SamplingSource(tuple(strategies))
  rows = _os_rows(tensors, source, trajectories, player, walk_rows=_walk_rows, keep=keep)
  regrets, average, last_visit = list(state.regrets), list(state.average), list(state.last_visit)
  # a few rows per run: a batch's rows as one loop over the stacked tables (row_updates)
  regrets[player] = row_updates.add_rows(regrets[player], rows.index, rows.regret, stack_batches=True)
  if averaging == "stochastic":
    average[player] = row_updates.add_rows(average[player], rows.index, rows.average, stack_batches=True)
  elif averaging == "optimistic":  # Ponsen et al. 2011, Algorithm 1 line 15, once per visited infoset
    num_infosets = last_visit[player].shape[0]
    once = jnp.where(_first_visits(rows.index, rows.reach), rows.index, num_infosets)  # [R], others dropped
    t = state.iteration + 1
    since = t - last_visit[player][jnp.minimum(once, num_infosets - 1)]  # [R] t - c_I
    increment = (since.astype(rows.reach.dtype) * rows.reach)[:, None] * rows.sigma
    average[player] = row_updates.add_rows(average[player], once, increment, stack_batches=True)
    last_visit[player] = row_updates.max_rows(last_visit[player], once, jnp.full_like(once, t), stack_batches=True)
  else:
    raise ValueError(f"averaging must be one of {AVERAGING}, got {averaging!r}")
  state = state._replace(
    regrets=tuple(regrets),
    average=tuple(average),
    last_visit=tuple(last_visit),
    nodes_touched=add_count(state.nodes_touched, rows.nodes_touched),
  )
  return state, _estimate(tensors, rows, player)


def outcome_step(
  tensors: GameTensors,
  state: MCCFRState,
  *,
  trajectories: int,
  averaging: str,
  override: Callable | None = None,
  exploring: str = "updating",
  updates: str = "alternating",
) -> MCCFRState:
  """One outcome-sampling iteration of one run: an update of player 0, then of player 1
  (whose walk sees player 0's new regrets), ``trajectories`` (K) paths each; with
  ``updates="simultaneous"`` both players' updates from the same K paths (module doc).

  Args:
    override: optional ``override(key, player) -> (Override | None, keep [K] bool | None)``
      called before each player's walk with the walk's key: a replacement strategy on
      some trajectories and the trajectories that update ``player`` (None: all).
    exploring: whose infosets the walks explore, one of ``EXPLORING`` (see the module doc).
    updates: one of ``UPDATES``; "simultaneous" needs ``exploring="both"`` and no ``override``.
  Raises:
    ValueError: see ``check_scheme``.
  """
  check_scheme(exploring, updates, override)
  next_key, *keys = sampling_lib.split_key(state.key, 3)
  depths = len(tensors.tree.depth_slices) - 1
  lazy = trajectories * depths < sum(tp.num_infosets for tp in tensors.players)
  simultaneous = updates == "simultaneous"
  for player in (0, 1):  # alternating: player 1's walk sees player 0's new regrets
    if not simultaneous or player == 0:  # simultaneous: player 0's walk serves both updates
      # regret matching per visited row when the walk reads fewer rows than the tables hold
      source = SamplingSource(state.regrets, True) if lazy else SamplingSource(current_strategy(tensors, state))
      replacement, keep = override(keys[player], player) if override is not None else (None, None)
      paths = walk_trajectories(
        tensors,
        source,
        keys[player],
        trajectories,
        player=player,
        epsilon=state.epsilon,
        override=replacement,
        exploring=exploring,
      )
    state, _ = outcome_sampling_update(  # the rows' sigma is the walk's (the profile it sampled)
      tensors,
      state,
      paths,
      player=player,
      averaging=averaging,
      strategies=None if lazy else source.tables,
      keep=keep,
      _walk_rows=True,
    )
    if simultaneous and player == 0:
      counted = state.nodes_touched  # the one walk's nodes, counted once
  if simultaneous:
    state = state._replace(nodes_touched=counted)
  return state._replace(key=next_key, iteration=state.iteration + 1)
