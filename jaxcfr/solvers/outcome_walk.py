"""Outcome sampling's walk: K trajectories drawn level by level through the tree arrays under
an epsilon-greedy sampling profile (Lanctot et al. 2009, section 3.2; Ponsen et al. 2011,
Algorithm 1), with the probabilities the estimates need, and the update schemes' checks.
jaxcfr.solvers.outcome_sampling turns the trajectories into regret and average updates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import regret
from jaxcfr.kits.sequence_form import sampling as sampling_lib
from jaxcfr.kits.sequence_form import walk as walk_lib
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, TERMINAL_NODE
from jaxcfr.kits.sequence_form.tensors import GameTensors, tree_statics
from jaxcfr.solvers.mccfr_state import DEFAULT_EPSILON

__all__ = [
  "EXPLORING",
  "UPDATES",
  "Trajectories",
  "Override",
  "check_scheme",
  "sample_trajectories",
  "forced_trajectory",
]

EXPLORING = ("updating", "both")
UPDATES = ("alternating", "simultaneous")
STACKED_TABLE_HISTORIES = 1 << 18  # the walk stacks both players' tables up to this many histories


class Trajectories(NamedTuple):
  """``K`` sampled root-to-terminal paths; ``D`` = number of depth levels - 1.

  Attributes:
    nodes: [K, D + 1] int32, the history at each depth (the terminal repeats once reached).
    actions: [K, D] int32, position of the child taken at each step (0 once terminal).
    policy_prob: [K, D] float, probability of that child under the profile sigma (chance
      probability at chance nodes; 1 once terminal).
    sample_prob: [K, D] float, probability of that child under the sampling profile.
    steps: optional (kind [K, D], infoset [K, D], legal count [K, D], sigma rows
      [K, D, A_max]) of each step's node, kept by the walk so that the update need not
      gather them again (None from ``forced_trajectory``).
  """

  nodes: jax.Array
  actions: jax.Array
  policy_prob: jax.Array
  sample_prob: jax.Array
  steps: tuple | None = None


class SamplingSource(NamedTuple):
  """Where the walk and the estimate read sigma rows: ``tables`` are the players' [I, A]
  strategies, or their cumulative regrets when ``matched`` (regret matching is then done
  per gathered row, so an update costs O(K D) rather than O(I A))."""

  tables: tuple
  matched: bool = False


def sigma_rows(
  source: SamplingSource, kind: jax.Array, infoset: jax.Array, count: jax.Array, width: int, players=(0, 1)
) -> jax.Array:
  """[..., width] sigma rows of the nodes (acting ``kind``, ``infoset``, ``count`` legal
  actions); rows of other kinds are garbage."""
  rows = []
  for p in players:
    table = source.tables[p]
    row = table[jnp.clip(infoset, 0, table.shape[0] - 1)]
    rows.append(jnp.pad(row, [(0, 0)] * (row.ndim - 1) + [(0, width - row.shape[-1])]))
  sigma = rows[0] if len(rows) == 1 else jnp.where((kind == players[1])[..., None], rows[1], rows[0])
  if source.matched:  # regret matching on the gathered rows
    sigma = regret.regret_matching(sigma, regret.legal_from_count(count, width), axis=-1)
  return sigma


class Override(NamedTuple):
  """On the trajectories of ``mask``, ``player`` acts by ``tables`` instead of sigma.

  Attributes:
    tables: ([I0, A0], [I1, A1]) a profile; only ``player``'s entry is read.
    player: [] int32, the player whose strategy is replaced.
    mask: [K] bool, the trajectories where it is.
  """

  tables: tuple
  player: jax.Array
  mask: jax.Array


def check_scheme(exploring: str, updates: str, override=None) -> None:
  """Raises ValueError for an ``exploring`` or ``updates`` outside ``EXPLORING`` and
  ``UPDATES``, or for simultaneous updates (one walk updates both players) that do not explore
  at both players' infosets or that replace a strategy on some walks (``override``)."""
  if exploring not in EXPLORING:
    raise ValueError(f"exploring must be one of {EXPLORING}, got {exploring!r}")
  if updates not in UPDATES:
    raise ValueError(f"updates must be one of {UPDATES}, got {updates!r}")
  if updates == "simultaneous" and exploring != "both":
    raise ValueError(
      "outcome sampling with updates=simultaneous updates both players from one walk, which must explore at both "
      f"players' infosets: pass exploring=both (got {exploring})"
    )
  if updates == "simultaneous" and override is not None:
    raise ValueError("outcome sampling with updates=simultaneous takes no override (MCRNR alternates its updates)")


def sample_trajectories(
  tensors: GameTensors,
  strategies,
  key: jax.Array,
  num: int,
  *,
  player: int,
  epsilon,
  override: Override | None = None,
  exploring: str = "updating",
) -> Trajectories:
  """Draws ``num`` trajectories for an update of ``player``: chance by ``chance_prob``,
  ``player`` by ``epsilon * uniform + (1 - epsilon) * sigma``, the opponent by sigma
  (``exploring="both"``: epsilon-greedy as well).

  The walk is one ``lax.scan`` step per depth level over all ``num`` trajectories at once:
  gather the node, draw a child by inverse CDF from the acting player's (sampling) row or
  from the chance node's window of ``chance_prob`` (the game's chance width, from its
  ``TreeStatics``). Terminals stay put.

  Args:
    strategies: (sigma0 [I0, A0], sigma1 [I1, A1]).
    key: a raw [2] uint32 PRNG key.
    override: a player's replacement strategy on some trajectories (see Override).
    exploring: whose infosets the epsilon-greedy profile explores, one of ``EXPLORING``.
  """
  return walk_trajectories(
    tensors,
    SamplingSource(tuple(strategies)),
    key,
    num,
    player=player,
    epsilon=epsilon,
    override=override,
    exploring=exploring,
  )


def walk_trajectories(
  tensors: GameTensors,
  source: SamplingSource,
  key: jax.Array,
  num: int,
  *,
  player: int,
  epsilon,
  override: Override | None = None,
  exploring: str = "updating",
) -> Trajectories:
  check_scheme(exploring, "alternating")
  tree = tensors.tree
  num_histories = tree.parent.shape[0]
  depths = max(len(tree.depth_slices) - 1, 1)
  width = max(tp.max_actions for tp in tensors.players)
  dtype = tensors.dtype
  statics = tree_statics(tree)
  chance_width = statics.chance_width
  has_chance = any(statics.level_chance_width)  # without chance nodes, no chance reads at all
  cdf = sampling_lib.sibling_cdf(tree)
  u = jax.random.uniform(jax.random.wrap_key_data(key), (depths, num), dtype)

  def policy(node: walk_lib.Node, ud: jax.Array, carry):
    kind, infoset, first = node.kind, node.infoset, node.first_child
    count = jnp.maximum(node.num_children, 1)
    alive = node.alive
    chance = kind == CHANCE_NODE
    sigma = sigma_rows(source, kind, infoset, count, width)
    if override is not None:
      replaced = override.mask & (kind == override.player)
      sigma = jnp.where(
        replaced[:, None], sigma_rows(SamplingSource(override.tables), kind, infoset, count, width), sigma
      )
    legal = regret.legal_from_count(count, width)
    explore = epsilon * legal / count[:, None].astype(dtype) + (1 - epsilon) * sigma
    explored = (kind == player) | (kind == 1 - player) if exploring == "both" else kind == player
    sampling = jnp.where(explored[:, None], explore, sigma)
    a = sampling_lib.inverse_cdf(sampling, ud, count)
    p_sigma = jnp.take_along_axis(sigma, a[:, None], 1)[:, 0]
    p_sample = jnp.take_along_axis(sampling, a[:, None], 1)[:, 0]
    if has_chance:
      a = jnp.where(chance, sampling_lib.chance_outcome(tree.chance_prob, first, count, ud, chance_width, cdf), a)
      p_chance = tree.chance_prob[jnp.minimum(first + a, num_histories - 1)]  # the child the walk takes
      p_sigma, p_sample = jnp.where(chance, p_chance, p_sigma), jnp.where(chance, p_chance, p_sample)
    out = (
      jnp.where(alive, a, 0),
      jnp.where(alive, p_sigma, 1.0),
      jnp.where(alive, p_sample, 1.0),
      (kind, infoset, count, sigma),
    )
    return a, carry, out

  # One gather of a stacked [H, 4] table per level is faster than four, but building the
  # table costs a pass over [H] per call of a jitted loop: only worth it for small trees.
  root = jnp.zeros((num,), jnp.int32)
  done = walk_lib.walk(tree, policy, u, root=root, stacked=num_histories <= STACKED_TABLE_HISTORIES)
  actions, policy_prob, sample_prob, steps = done.outputs
  return Trajectories(
    nodes=jnp.concatenate([root[None], done.path]).T.astype(jnp.int32),
    actions=actions.T.astype(jnp.int32),
    policy_prob=policy_prob.T.astype(dtype),
    sample_prob=sample_prob.T.astype(dtype),
    steps=tuple(jnp.swapaxes(x, 0, 1) for x in steps),
  )


def forced_trajectory(
  tensors: GameTensors, strategies, terminal: int, *, epsilon=DEFAULT_EPSILON, exploring: Sequence[int] = (0, 1)
) -> Trajectories:
  """The trajectory to ``terminal`` (K = 1) with the probabilities the sampling profile
  gives it: epsilon-greedy for the players in ``exploring``, sigma for the others, chance
  by ``chance_prob``. Runs on the host (not jittable); for tests and inspection, e.g. the
  worked example of Ponsen et al. 2011 section 3.2.3."""
  tree = tensors.tree
  parent = np.asarray(tree.parent)
  kind = np.asarray(tree.kind)
  infoset = np.asarray(tree.infoset)
  action_index = np.asarray(tree.action_index)
  chance_prob = np.asarray(tree.chance_prob)
  depths = len(tree.depth_slices) - 1
  if kind[terminal] != TERMINAL_NODE:
    raise ValueError(f"history {terminal} is not terminal")
  path = [int(terminal)]
  while parent[path[-1]] >= 0:
    path.append(int(parent[path[-1]]))
  path = path[::-1]
  actions, policy_prob, sample_prob = [], [], []
  for h, child in zip(path[:-1], path[1:]):
    a = int(action_index[child])
    if kind[h] == CHANCE_NODE:
      p = s = float(chance_prob[child])
    else:
      row = np.asarray(strategies[kind[h]])[infoset[h]]
      legal = np.asarray(tensors.players[kind[h]].legal)[infoset[h]]
      p = s = float(row[a])
      if kind[h] in exploring:
        s = float(epsilon / legal.sum() + (1 - epsilon) * row[a])
    actions.append(a)
    policy_prob.append(p)
    sample_prob.append(s)
  pad = depths - len(actions)
  dtype = tensors.dtype
  return Trajectories(
    nodes=jnp.asarray([path + [path[-1]] * pad], jnp.int32),
    actions=jnp.asarray([actions + [0] * pad], jnp.int32),
    policy_prob=jnp.asarray([policy_prob + [1.0] * pad], dtype),
    sample_prob=jnp.asarray([sample_prob + [1.0] * pad], dtype),
  )
