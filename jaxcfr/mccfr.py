"""The sampled CFR family (MCCFR) as pure, batchable ``init`` / ``step`` pairs (DESIGN section 5).

Three samplers of paper 002 (Lanctot, Waugh, Zinkevich & Bowling 2009), each an unbiased
estimate of the counterfactual regret ``r(I, a) = q(I, a) - v(I)`` of CFR (002 Lemma 1):

``mccfr-os``  outcome sampling (002 section 3, eq. 10; paper 000 Algorithm 1, eq. 6).
    Per update of player ``i``, ``K`` root-to-terminal trajectories are drawn in parallel
    through the tree arrays, one depth level at a time: chance by ``chance_prob``, player
    ``i`` by the epsilon-greedy profile ``eps * uniform + (1 - eps) * sigma_i``, the
    opponent by its current strategy ``sigma_-i`` (as in OpenSpiel's solver). With
    ``q(z)`` the probability of sampling ``z``, every infoset ``I`` of ``i`` on the path
    gets (002 eq. 10, written with the sampled action ``a*``)

        w_I = u_i(z) pi_-i(z) pi_i(z[I] a*, z) / q(z),
        r~(I, a) = w_I (1[a = a*] - sigma(a* | I))          (legal a).

    This is paper 000's eq. 6 with its ``w_I = u_i(z) pi_-i(z[I]) / q(z)`` (the two
    ``w`` differ by the tail probability ``pi(z[I] a*, z)``; ``OSEstimate`` reports
    both). The ``K`` estimates are averaged (``K = 1`` is the papers' algorithm).
    In arrays: a ``lax.scan`` over depth levels moves all K trajectories one level down
    per step (gather the node; inverse CDF on the acting player's gathered row, regret-
    matched on the fly when K D is below the table size; chance from a gathered row of
    ``chance_width`` outcomes or a binary search over sibling intervals); the backward
    pass is exclusive cumulative products over the [K, D] path arrays, and the regret and
    average rows are scatter-added into the [I, A] tables.
``mccfr-es``  external sampling (002 eq. 11). Per update of player ``i``, one traversal
    expands every action of ``i`` and follows one sampled child elsewhere: an action drawn
    from ``sigma_-i`` at every visited opponent history (per visited history, as OpenSpiel
    does; the paper's one action per opponent infoset is equally unbiased, but costs a draw
    per infoset) and one outcome at every visited chance node. ``q(z) = pi_-i(z) pi_c(z)``
    cancels, so the sampled value of a history is ``u_i`` at terminals, ``sum_a sigma(a)
    v(ha)`` at own nodes and the sampled child's value elsewhere, and each visited own
    history adds ``v(ha) - v(h)`` to its infoset's regrets: together ``q~(I, a) - v~(I)``.
``cfr-cs``    chance sampling (002 section 3, Zinkevich et al.'s chance-sampled CFR). One
    outcome per visited chance node is drawn; both players' actions are expanded (the
    opponent's by ``sigma_-i``), and an own history's regret row is weighted by the
    opponent's reach ``pi_-i(h)`` (chance probabilities cancel).
    Both are frontier walks over the tree arrays (``jaxcfr.mccfr_traversal``): one depth
    level at a time, the frontier of histories consistent with the sample is compacted
    into a static-capacity array (the exact worst case over all samples, a per-game,
    per-player constant, ``TreeStatics.frontier_capacity``), then a backward pass of
    gathers computes the values and the rows are scatter-added; the cost of a traversal
    follows the histories it can touch, not ``|H|``. Regret matching is done per gathered
    row, and one threefry call per iteration draws all the uniforms.

Updates alternate like OpenSpiel's C++ ``OutcomeSamplingMCCFRSolver`` and
``ExternalSamplingMCCFRSolver`` (``RunIteration``: player 0's update, then player 1's,
which sees player 0's new regrets); one ``step`` is one of their iterations.

Average strategy:
  * ``mccfr-os``, ``averaging="stochastic"`` (default; OpenSpiel's, "stochastically-weighted
    averaging" of Lanctot's thesis, cited by paper 002 [10]): at each infoset of the
    updating player on the path, ``s_I += pi_i(z[I]) sigma(I, .) / q(z[I])``, where
    ``q(z[I])`` is the probability of sampling the prefix. Its expectation is
    ``n_I pi_i(I) sigma(I, .)``, CFR's weight times the number ``n_I`` of histories of
    ``I`` that chance and the opponent reach; the row normalisation removes ``n_I``
    while it stays constant (it changes only when the opponent's reach of some history
    of ``I`` becomes or stops being zero).
  * ``mccfr-os``, ``averaging="optimistic"``: paper 000 Algorithm 1 line 15, ``s_I +=
    (t - c_I) pi_i(z[I]) sigma(I, .)``, ``c_I <- t`` (the worked Kuhn example of 000
    section 3.2.3 uses it).
  * ``mccfr-es``: OpenSpiel's default "simple" averaging: while player ``i`` traverses,
    every visited history of the opponent adds the opponent's current ``sigma_-i(J, .)``
    (expectation ``pi_-i(J) sum_{h in J} pi_c(h) sigma``, again a per-infoset constant),
    scatter-added from the visited rows.
  * ``cfr-cs``: CFR's exact average ``s_I += pi_i(I) sigma(I, .)`` (one treeplex pass, the
    one O(I A) part of a chance-sampled iteration).

Nodes touched (002 section 5, Figure 1): histories the algorithm's traversal visits.
Outcome sampling: the length of each sampled path, root and terminal included; external
and chance sampling: the histories consistent with the sample (every chance and sampled
opponent edge on the path taken), per traversal. ``nodes_touched(state)`` reads the
running total (kept exact as two int32 words).
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import cfr, evaluation, mccfr_traversal
from jaxcfr.arrays import CHANCE_NODE, TERMINAL_NODE
from jaxcfr.tensors import GameTensors, Tree, tree_statics

ALGORITHMS = ("mccfr-os", "mccfr-es", "cfr-cs")
AVERAGING = ("stochastic", "optimistic")
HYPERPARAMETERS = ("seed", "epsilon")
DEFAULT_EPSILON = 0.6
_COUNT_BASE = 1 << 24  # nodes_touched = high * _COUNT_BASE + low


class MCCFRState(NamedTuple):
  """State of one sampled run; every field is an array, so ``vmap`` over states (e.g. over
  seeds) runs B independent runs as one program.

  Attributes:
    regrets: ([I0, A0], [I1, A1]) cumulative sampled regrets.
    average: ([I0, A0], [I1, A1]) cumulative average-strategy weights (unnormalised).
    last_visit: ([I0], [I1]) int32, ``c_I`` of optimistic averaging: the iteration of the
      infoset's last update (unused by the other averaging rules).
    key: [2] uint32, the raw PRNG key of the next iteration.
    iteration: [] int32, iterations done (one iteration updates both players).
    nodes_touched: [2] int32, (high, low) words of the running count of nodes touched.
    seed: [] int32, the seed the run started from.
    epsilon: [] float, exploration of outcome sampling's epsilon-greedy sampling profile.
  """

  regrets: tuple
  average: tuple
  last_visit: tuple
  key: jax.Array
  iteration: jax.Array
  nodes_touched: jax.Array
  seed: jax.Array
  epsilon: jax.Array


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


class OSEstimate(NamedTuple):
  """One outcome-sampling update of one player from ``K`` trajectories.

  Attributes:
    regret: [I, A] sampled regrets (002 eq. 10), averaged over the trajectories.
    average: [I, A] stochastically-weighted average-strategy increments, averaged.
    reach: [I] own reach ``pi_i(z[I])`` at visited infosets (0 elsewhere).
    visited: [I] bool, infosets on some path.
    w: [K, D] 002 eq. 10's ``w_I = u_i(z) pi_-i(z) pi_i(z[I] a*, z) / q(z)`` (0 off own steps).
    w_paper000: [K, D] 000 eq. 6's ``w_I = u_i(z) pi_-i(z[I]) / q(z)`` (0 off own steps).
    nodes_touched: [] int32, histories on the K paths.
  """

  regret: jax.Array
  average: jax.Array
  reach: jax.Array
  visited: jax.Array
  w: jax.Array
  w_paper000: jax.Array
  nodes_touched: jax.Array


class SampledRegret(NamedTuple):
  """One external- or chance-sampling traversal for one player.

  Attributes:
    regret: [I, A] sampled counterfactual regrets ``q~ - v~`` (0 at illegal actions).
    values: [I, A] sampled counterfactual action values ``q~``.
    opponent_visits: [I_opp] visits of each opponent infoset (external sampling's simple
      averaging weight).
    nodes_touched: [] int32, histories consistent with the sample.
    frontier_sizes: [D] int32, of those, the histories at each depth.
    overflow: [] bool, a frontier exceeded its static capacity (never; see
      ``jaxcfr.mccfr_traversal``).
  """

  regret: jax.Array
  values: jax.Array
  opponent_visits: jax.Array
  nodes_touched: jax.Array
  frontier_sizes: jax.Array
  overflow: jax.Array


# --- tree helpers -------------------------------------------------------------------------


def chance_width(game) -> int:
  """The most children of any chance node (a Game or GameArrays; host side, not traced).

  Outcome sampling draws chance outcomes from a [K, chance_width] row gather. Without a
  ``chance_width`` argument ``solver`` / ``sample_trajectories`` take the same number from
  the tree's ``TreeStatics``; a tree without statics under ``jit`` falls back to a binary
  search over sibling intervals recomputed over all histories each update.
  """
  arrays = getattr(game, "arrays", game)
  chance = np.asarray(arrays.kind) == CHANCE_NODE
  return max(1, int(np.asarray(arrays.num_children)[chance].max())) if chance.any() else 1


def _search_steps(tree: Tree) -> int:
  """Binary-search steps that cover any sibling range: log2 of the largest depth level."""
  largest = max(hi - lo for lo, hi in tree.depth_slices)
  return max(1, int(np.ceil(np.log2(largest + 1))))


def chance_intervals(tree: Tree) -> tuple[jax.Array, jax.Array]:
  """Each history's slice ``[lo, hi)`` of [0, 1) among its siblings by ``chance_prob``.

  The siblings of a chance node partition [0, 1) exactly (first ``lo`` is 0, last ``hi``
  is 1, each ``lo`` is the previous ``hi``), so a uniform ``u`` drawn at the node selects
  the child with ``lo <= u < hi``. Only meaningful for children of chance nodes. The
  sibling prefix sums are a segmented Hillis-Steele scan (children are contiguous and
  ``action_index`` is the position among them).

  Returns:
    (lo [H], hi [H]).
  """
  index = jnp.arange(tree.parent.shape[0])

  def double(k, total):
    shift = jnp.left_shift(1, k)
    earlier = total[jnp.maximum(index - shift, 0)]
    return jnp.where(tree.action_index >= shift, total + earlier, total)

  parent = jnp.maximum(tree.parent, 0)
  last = tree.action_index == tree.num_children[parent] - 1
  hi = jax.lax.fori_loop(0, _search_steps(tree), double, tree.chance_prob)
  hi = jnp.where(last, 1.0, hi).astype(tree.chance_prob.dtype)
  lo = jnp.where(tree.action_index == 0, 0.0, jnp.roll(hi, 1)).astype(hi.dtype)
  return lo, hi


def _sample_rows(probs: jax.Array, u: jax.Array, num_legal: jax.Array) -> jax.Array:
  """[N] index drawn from each row of ``probs`` [N, A] by inverse CDF with ``u`` [N]."""
  cum = jnp.cumsum(probs, -1)
  below = cum[:, :-1] <= (u * cum[:, -1])[:, None]
  return jnp.minimum(below.sum(-1), num_legal - 1).astype(jnp.int32)


def history_reach(tree: Tree, strategy: jax.Array, player: int) -> jax.Array:
  """[H] ``pi_player(h)``: the product of ``player``'s probabilities on the path to h."""
  parent = jnp.maximum(tree.parent, 0)
  acting = tree.kind[parent] == player
  edge = strategy[jnp.maximum(tree.infoset[parent], 0), tree.action_index]
  reach = jnp.where(acting, edge, 1.0).at[0].set(1.0).astype(strategy.dtype)
  for lo, hi in tree.depth_slices[1:]:
    reach = reach.at[lo:hi].multiply(reach[tree.parent[lo:hi]])
  return reach


def cfr_nodes_touched(tensors: GameTensors, opponent_strategy: jax.Array, player: int, *,
                      pruning: bool) -> jax.Array:
  """Histories one vanilla-CFR pass for ``player`` visits (002 section 5): all of them, or
  with pruning only those the opponent reaches with positive probability (the walk skips
  a subtree where the opponent's reach is zero)."""
  tree = tensors.tree
  if not pruning:
    return jnp.asarray(tree.parent.shape[0], jnp.int32)
  reach = history_reach(tree, opponent_strategy, 1 - player)
  return (reach > 0).sum().astype(jnp.int32)


# --- outcome sampling ---------------------------------------------------------------------


class _Sigma(NamedTuple):
  """Where the walk and the estimate read sigma rows: ``tables`` are the players' [I, A]
  strategies, or their cumulative regrets when ``matched`` (regret matching is then done
  per gathered row, so an update costs O(K D) rather than O(I A))."""

  tables: tuple
  matched: bool = False


def _sigma_rows(source: _Sigma, kind: jax.Array, infoset: jax.Array, count: jax.Array,
                width: int, players=(0, 1)) -> jax.Array:
  """[..., width] sigma rows of the nodes (acting ``kind``, ``infoset``, ``count`` legal
  actions); rows of other kinds are garbage."""
  rows = []
  for p in players:
    table = source.tables[p]
    row = table[jnp.clip(infoset, 0, table.shape[0] - 1)]
    rows.append(jnp.pad(row, [(0, 0)] * (row.ndim - 1) + [(0, width - row.shape[-1])]))
  sigma = rows[0] if len(rows) == 1 else jnp.where((kind == players[1])[..., None], rows[1], rows[0])
  if source.matched:  # paper 000 eq. 5 on the gathered rows (cfr.regret_matching row-wise)
    legal = jnp.arange(width) < count[..., None]
    positive = jnp.where(legal, jnp.maximum(sigma, 0), 0)
    total = positive.sum(-1, keepdims=True)
    uniform = legal / jnp.maximum(count, 1)[..., None].astype(sigma.dtype)
    sigma = jnp.where(total > 0, positive / jnp.where(total > 0, total, 1), uniform).astype(sigma.dtype)
  return sigma


class Restriction(NamedTuple):
  """Monte-Carlo RNR's restricted player (paper 000 Algorithm 2; jaxcfr.mcrnr): on the
  trajectories whose hidden coin chose the model, the ``restricted`` player acts by the
  fixed ``model`` (lines 7-8) instead of its regret-matched strategy.

  Attributes:
    model: ([I0, A0], [I1, A1]) the fixed profile; only the restricted player's is read.
    restricted: [] int32, the restricted player.
    fixed: [K] bool, the trajectories in the model's subtree.
  """

  model: tuple
  restricted: jax.Array
  fixed: jax.Array


def sample_trajectories(tensors: GameTensors, strategies, key: jax.Array, num: int, *,
                        player: int, epsilon, chance_width: int | None = None,
                        restriction: Restriction | None = None) -> Trajectories:
  """Draws ``num`` trajectories for an update of ``player``: chance by ``chance_prob``,
  ``player`` by ``epsilon * uniform + (1 - epsilon) * sigma``, the opponent by sigma.

  The walk is one ``lax.scan`` step per depth level over all ``num`` trajectories at once:
  gather the node, draw a child by inverse CDF from the acting player's (sampling) row, or
  from the chance row (``chance_width`` given) / a binary search over the sibling
  intervals of ``chance_intervals`` (not given). Terminals stay put.

  Args:
    strategies: (sigma0 [I0, A0], sigma1 [I1, A1]).
    key: a raw [2] uint32 PRNG key.
    chance_width: static bound on chance outcomes per node (see ``chance_width``; default:
      the game's own from ``TreeStatics``, else a binary search).
    restriction: MCRNR's restricted player, following its model on the trajectories of
      ``restriction.fixed``.
  """
  return _walk(tensors, _Sigma(tuple(strategies)), key, num, player=player, epsilon=epsilon,
               chance_width=chance_width, restriction=restriction)


def _walk(tensors: GameTensors, source: _Sigma, key: jax.Array, num: int, *, player: int, epsilon,
          chance_width: int | None, restriction: Restriction | None = None) -> Trajectories:
  tree = tensors.tree
  num_histories = tree.parent.shape[0]
  depths = max(len(tree.depth_slices) - 1, 1)
  width = max(tp.max_actions for tp in tensors.players)
  dtype = tensors.dtype
  table = jnp.stack([tree.kind.astype(jnp.int32), tree.infoset, tree.first_child, tree.num_children], -1)
  u = jax.random.uniform(jax.random.wrap_key_data(key), (depths, num), dtype)
  if chance_width is None:  # the game's own (host side, static) unless the tree has none
    try:
      chance_width = tree_statics(tree).chance_width
    except ValueError:
      pass
  if chance_width is None:
    _, cdf_hi = chance_intervals(tree)
    steps = _search_steps(tree)

  def chance_choice(first, count, ud):
    if chance_width is None:  # first sibling whose interval ends above u
      lo, hi = first, first + count - 1
      for _ in range(steps):
        mid = (lo + hi) // 2
        right = cdf_hi[mid] <= ud
        lo, hi = jnp.where(right, mid + 1, lo), jnp.where(right, hi, mid)
      return jnp.minimum(lo - first, count - 1)
    j = jnp.arange(chance_width)
    index = jnp.minimum(first[:, None] + j, num_histories - 1)
    cum = jnp.cumsum(jnp.where(j < count[:, None], tree.chance_prob[index], 0), -1)
    return jnp.minimum((cum[:, :-1] <= ud[:, None]).sum(-1), count - 1).astype(jnp.int32)

  def depth_step(h, ud):
    node = table[h]
    kind, infoset, first, count = node[:, 0], node[:, 1], node[:, 2], jnp.maximum(node[:, 3], 1)
    alive = kind != TERMINAL_NODE
    chance = kind == CHANCE_NODE
    sigma = _sigma_rows(source, kind, infoset, count, width)
    if restriction is not None:
      follows_model = restriction.fixed & (kind == restriction.restricted)
      model_rows = _sigma_rows(_Sigma(restriction.model), kind, infoset, count, width)
      sigma = jnp.where(follows_model[:, None], model_rows, sigma)
    legal = jnp.arange(width) < count[:, None]
    explore = epsilon * legal / count[:, None].astype(dtype) + (1 - epsilon) * sigma
    sampling = jnp.where((kind == player)[:, None], explore, sigma)
    a = _sample_rows(sampling, ud, count)
    p_sigma = jnp.take_along_axis(sigma, a[:, None], 1)[:, 0]
    p_sample = jnp.take_along_axis(sampling, a[:, None], 1)[:, 0]
    a = jnp.where(chance, chance_choice(first, count, ud), a)
    child = jnp.minimum(first + a, num_histories - 1)
    p_chance = tree.chance_prob[child]
    child = jnp.where(alive, child, h)
    out = (child, jnp.where(alive, a, 0),
           jnp.where(alive, jnp.where(chance, p_chance, p_sigma), 1.0),
           jnp.where(alive, jnp.where(chance, p_chance, p_sample), 1.0), (kind, infoset, count, sigma))
    return child, out

  root = jnp.zeros((num,), jnp.int32)
  _, (nodes, actions, policy_prob, sample_prob, steps) = jax.lax.scan(depth_step, root, u)
  return Trajectories(nodes=jnp.concatenate([root[None], nodes]).T.astype(jnp.int32),
                      actions=actions.T.astype(jnp.int32), policy_prob=policy_prob.T.astype(dtype),
                      sample_prob=sample_prob.T.astype(dtype),
                      steps=tuple(jnp.swapaxes(x, 0, 1) for x in steps))


def forced_trajectory(tensors: GameTensors, strategies, terminal: int, *, epsilon=DEFAULT_EPSILON,
                      exploring: Sequence[int] = (0, 1)) -> Trajectories:
  """The trajectory to ``terminal`` (K = 1) with the probabilities the sampling profile
  gives it: epsilon-greedy for the players in ``exploring``, sigma for the others, chance
  by ``chance_prob``. Runs on the host (not jittable); for tests and inspection, e.g. the
  worked example of paper 000 section 3.2.3."""
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
      sample_prob=jnp.asarray([sample_prob + [1.0] * pad], dtype))


def _exclusive_cumprod(x: jax.Array, reverse: bool = False) -> jax.Array:
  """Products of the entries strictly before (or after, with ``reverse``) each position."""
  if reverse:
    return _exclusive_cumprod(x[:, ::-1])[:, ::-1]
  ones = jnp.ones_like(x[:, :1])
  return jnp.concatenate([ones, jnp.cumprod(x, 1)[:, :-1]], 1)


class _OSRows(NamedTuple):
  """One update's per-step rows before they are scattered; ``index`` [K * D] is the
  infoset of each step (``I`` off the updating player's steps, dropped by the scatter)."""

  index: jax.Array
  regret: jax.Array
  average: jax.Array
  reach: jax.Array
  sigma: jax.Array
  w: jax.Array
  w_paper000: jax.Array
  nodes_touched: jax.Array


def _os_rows(tensors: GameTensors, source: _Sigma, trajectories: Trajectories, player: int,
             walk_rows: bool = False, keep: jax.Array | None = None) -> _OSRows:
  """``walk_rows``: take the steps' nodes and sigma rows from the walk (valid only when the
  walk read the same ``source``). ``keep`` [K] bool: trajectories that update ``player``
  (MCRNR drops the restricted player's steps in the model's subtree)."""
  tree = tensors.tree
  num_infosets, width = tensors.players[player].legal.shape
  steps = trajectories.nodes[:, :-1]
  num = steps.shape[0]
  walk_rows = walk_rows and trajectories.steps is not None
  kind = trajectories.steps[0] if walk_rows else tree.kind[steps]
  own = kind == player
  if keep is not None:
    own = own & keep[:, None]
  sigma_taken = trajectories.policy_prob
  own_p = jnp.where(own, sigma_taken, 1.0)
  other_p = jnp.where(own, 1.0, sigma_taken)
  q = trajectories.sample_prob.prod(1)
  terminal = trajectories.nodes[:, -1]
  u = tree.utility[terminal] * (1.0 if player == 0 else -1.0)
  w = (u * other_p.prod(1) / q)[:, None] * _exclusive_cumprod(own_p, reverse=True)
  w = jnp.where(own, w, 0.0)
  w_paper000 = jnp.where(own, u[:, None] * _exclusive_cumprod(other_p) / q[:, None], 0.0)
  if walk_rows:
    infoset = jnp.where(own, trajectories.steps[1], num_infosets)
    count, sigma = trajectories.steps[2], trajectories.steps[3][..., :width]
  else:
    infoset = jnp.where(own, tree.infoset[steps], num_infosets)
    count = jnp.maximum(tree.num_children[steps], 1)
    sigma = _sigma_rows(source, kind, infoset, count, width, players=(player,))
  legal = jnp.arange(width) < count[..., None]
  onehot = jax.nn.one_hot(trajectories.actions, width, dtype=sigma.dtype)
  regret = w[..., None] * (onehot - sigma_taken[..., None] * legal)  # 002 eq. 10
  own_before = _exclusive_cumprod(own_p)
  average = (own_before / _exclusive_cumprod(trajectories.sample_prob))[..., None] * sigma
  alive = kind != TERMINAL_NODE
  flat = lambda x: x.reshape((num * steps.shape[1],) + x.shape[2:])
  return _OSRows(index=flat(infoset), regret=flat(regret) / num, average=flat(average) / num,
                 reach=flat(jnp.where(own, own_before, 0.0)), sigma=flat(sigma), w=w, w_paper000=w_paper000,
                 nodes_touched=(alive.sum() + num).astype(jnp.int32))


def _estimate(tensors: GameTensors, rows: _OSRows, player: int) -> OSEstimate:
  num_infosets, width = tensors.players[player].legal.shape
  dense = lambda v: jnp.zeros((num_infosets, width), v.dtype).at[rows.index].add(v, mode="drop")
  return OSEstimate(
      regret=dense(rows.regret), average=dense(rows.average),
      reach=jnp.zeros((num_infosets,), rows.reach.dtype).at[rows.index].max(rows.reach, mode="drop"),
      visited=jnp.zeros((num_infosets,), bool).at[rows.index].set(True, mode="drop"),
      w=rows.w, w_paper000=rows.w_paper000, nodes_touched=rows.nodes_touched)


def outcome_sampling_estimate(tensors: GameTensors, strategies, trajectories: Trajectories, *,
                              player: int, keep: jax.Array | None = None) -> OSEstimate:
  """Player ``player``'s sampled regrets (002 eq. 10) and average increments from the
  trajectories, with sigma = ``strategies`` (the profile they were sampled under);
  ``keep`` [K] bool: the trajectories that count (default: all)."""
  rows = _os_rows(tensors, _Sigma(tuple(strategies)), trajectories, player, keep=keep)
  return _estimate(tensors, rows, player)


def outcome_sampling_update(tensors: GameTensors, state: MCCFRState, trajectories: Trajectories, *,
                            player: int, strategies=None, averaging: str = "stochastic",
                            keep: jax.Array | None = None, _walk_rows: bool = False):
  """Applies one outcome-sampling update of ``player`` from given trajectories.

  Args:
    strategies: the profile sigma used for the update (default: regret matching on
      ``state.regrets``, done per visited row). Paper 000's simultaneous update of both
      players on one trajectory passes the profile of the forward pass to both calls.
    averaging: "stochastic" or "optimistic" (see the module doc); the iteration ``t`` of
      optimistic averaging is ``state.iteration + 1``.
    keep: [K] bool, the trajectories that update ``player`` (default: all).
  Returns:
    (new state, OSEstimate). ``state.iteration`` is not advanced. Under ``jit`` the dense
    OSEstimate costs nothing when unused.
  """
  source = _Sigma(state.regrets, True) if strategies is None else _Sigma(tuple(strategies))
  rows = _os_rows(tensors, source, trajectories, player, walk_rows=_walk_rows, keep=keep)
  regrets, average, last_visit = list(state.regrets), list(state.average), list(state.last_visit)
  regrets[player] = regrets[player].at[rows.index].add(rows.regret, mode="drop")
  if averaging == "stochastic":
    average[player] = average[player].at[rows.index].add(rows.average, mode="drop")
  elif averaging == "optimistic":  # 000 Algorithm 1 line 15, once per visited infoset
    estimate = _estimate(tensors, rows, player)
    sigma = (cfr.regret_matching(tensors.players[player], state.regrets[player]) if strategies is None
             else strategies[player])
    t = state.iteration + 1
    weight = ((t - last_visit[player]).astype(estimate.reach.dtype) * estimate.reach)[:, None]
    average[player] = average[player] + jnp.where(estimate.visited[:, None], weight * sigma, 0)
    last_visit[player] = jnp.where(estimate.visited, t, last_visit[player])
  else:
    raise ValueError(f"averaging must be one of {AVERAGING}, got {averaging!r}")
  state = state._replace(regrets=tuple(regrets), average=tuple(average), last_visit=tuple(last_visit),
                         nodes_touched=_add_count(state.nodes_touched, rows.nodes_touched))
  return state, _estimate(tensors, rows, player)


# --- external and chance sampling ---------------------------------------------------------


def _dense(tensors: GameTensors, walk: mccfr_traversal.Traversal, player: int) -> SampledRegret:
  """Scatters one traversal's rows into dense [I, A] tables."""
  num_infosets, width = tensors.players[player].legal.shape
  num_opp = tensors.players[1 - player].num_infosets
  dense = lambda v: jnp.zeros((num_infosets, width), v.dtype).at[walk.index].add(v, mode="drop")
  visits = jnp.zeros((num_opp,), walk.regret.dtype).at[walk.opponent_index].add(1.0, mode="drop")
  return SampledRegret(regret=dense(walk.regret), values=dense(walk.values), opponent_visits=visits,
                       nodes_touched=walk.nodes_touched, frontier_sizes=walk.frontier_sizes,
                       overflow=walk.overflow)


def external_sampling_estimate(tensors: GameTensors, strategies, key: jax.Array, *,
                               player: int) -> SampledRegret:
  """One external-sampling traversal for ``player`` (002 eq. 11): one action drawn from
  sigma_-i at every visited opponent history and one outcome at every visited chance node;
  own actions expanded (a frontier walk, see ``jaxcfr.mccfr_traversal``).

  Args:
    strategies: (sigma0 [I0, A0], sigma1 [I1, A1]).
    key: a raw [2] uint32 PRNG key.
  """
  walk = mccfr_traversal.traverse(tensors, tuple(strategies), key, player=player, sample_opponent=True,
                                  matched=False)
  return _dense(tensors, walk, player)


def chance_sampling_estimate(tensors: GameTensors, strategies, key: jax.Array, *,
                             player: int) -> SampledRegret:
  """One chance-sampled CFR pass for ``player``: one outcome at every visited chance node,
  both players' actions expanded (the opponent's reach weights the regrets)."""
  walk = mccfr_traversal.traverse(tensors, tuple(strategies), key, player=player, sample_opponent=False,
                                  matched=False)
  return _dense(tensors, walk, player)


# --- solvers ------------------------------------------------------------------------------


def _add_count(counter: jax.Array, n: jax.Array) -> jax.Array:
  low = counter[1] + n.astype(jnp.int32)
  return jnp.stack([counter[0] + low // _COUNT_BASE, low % _COUNT_BASE])


def nodes_touched(state: MCCFRState) -> np.ndarray:
  """The running count of nodes touched as int64 ([] or [B] for a batch of states)."""
  counter = np.asarray(jax.device_get(state.nodes_touched)).astype(np.int64)
  return counter[..., 0] * _COUNT_BASE + counter[..., 1]


def init(tensors: GameTensors, *, seed=0, epsilon=DEFAULT_EPSILON) -> MCCFRState:
  """A fresh state: zero regrets (uniform strategies), the PRNG key of ``seed``.
  ``seed`` and ``epsilon`` may be traced arrays (``vmap`` over seeds runs a batch)."""
  dtype = tensors.dtype
  zeros = tuple(jnp.zeros(tp.legal.shape, dtype) for tp in tensors.players)
  seed = jnp.asarray(seed, jnp.int32)
  return MCCFRState(
      regrets=zeros, average=zeros,
      last_visit=tuple(jnp.zeros((tp.num_infosets,), jnp.int32) for tp in tensors.players),
      key=jax.random.key_data(jax.random.key(seed)), iteration=jnp.zeros((), jnp.int32),
      nodes_touched=jnp.zeros((2,), jnp.int32), seed=seed, epsilon=jnp.asarray(epsilon, dtype))


def current_strategy(tensors: GameTensors, state: MCCFRState):
  """Regret matching on the cumulative sampled regrets (paper 000 eq. 5)."""
  return tuple(cfr.regret_matching(tp, r) for tp, r in zip(tensors.players, state.regrets))


def average_strategy(tensors: GameTensors, state: MCCFRState):
  """The normalised average profile; uniform at infosets never averaged."""
  return tuple(cfr.normalise_rows(tp, a) for tp, a in zip(tensors.players, state.average))


def _split(key: jax.Array, num: int):
  keys = jax.random.split(jax.random.wrap_key_data(key), num)
  return [jax.random.key_data(k) for k in keys]


def restriction_coins(key: jax.Array, num: int, p) -> jax.Array:
  """[num] bool: MCRNR's hidden coin per trajectory (True, with probability ``p``: the
  restricted player follows the model). Drawn from ``key`` folded with 1, so the walk's
  own random numbers are those of plain outcome sampling with the same key."""
  coin = jax.random.fold_in(jax.random.wrap_key_data(key), 1)
  return jax.random.uniform(coin, (num,)) < p


def outcome_step(tensors, state: MCCFRState, *, trajectories: int, averaging: str,
                 chance_width: int | None, rnr=None) -> MCCFRState:
  """One outcome-sampling iteration (an update of each player; see ``solver``).

  Args:
    rnr: optional (model profile, restricted player [], p []) of Monte-Carlo RNR
      (jaxcfr.mcrnr): each trajectory's hidden coin puts it in the model's subtree with
      probability p.
  """
  next_key, *keys = _split(state.key, 3)
  depths = len(tensors.tree.depth_slices) - 1
  lazy = trajectories * depths < sum(tp.num_infosets for tp in tensors.players)
  for player in (0, 1):  # player 1's walk sees player 0's new regrets
    # regret matching per visited row when the walk reads fewer rows than the tables hold
    source = _Sigma(state.regrets, True) if lazy else _Sigma(current_strategy(tensors, state))
    restriction = keep = None
    if rnr is not None:  # paper 000 Algorithm 2: the model's subtree updates only the other player
      model, restricted, p = rnr
      fixed = restriction_coins(keys[player], trajectories, p)
      restriction = Restriction(model, restricted, fixed)
      keep = ~(fixed & (restricted == player))
    paths = _walk(tensors, source, keys[player], trajectories, player=player,
                  epsilon=state.epsilon, chance_width=chance_width, restriction=restriction)
    state, _ = outcome_sampling_update(tensors, state, paths, player=player, averaging=averaging,
                                       strategies=None if lazy else source.tables, keep=keep,
                                       _walk_rows=True)
  return state._replace(key=next_key, iteration=state.iteration + 1)


def _traversal_uniforms(tensors, key: jax.Array, sample_opponent: bool):
  """(next key, [uniforms of player 0's traversal, of player 1's]) from one draw of bits
  (one threefry call per iteration: on a CPU each call costs more than a frontier level)."""
  needed = [mccfr_traversal.uniforms_needed(tensors, player=p, sample_opponent=sample_opponent) for p in (0, 1)]
  words = mccfr_traversal.words_per_uniform(tensors.dtype)
  bits = jax.random.bits(jax.random.wrap_key_data(key), (2 + words * sum(needed),), jnp.uint32)
  uniforms = mccfr_traversal.uniform_from_bits(bits[2:], tensors.dtype)
  return bits[:2], [uniforms[:needed[0]], uniforms[needed[0]:]]


def _external_step(tensors, state: MCCFRState) -> MCCFRState:
  next_key, uniforms = _traversal_uniforms(tensors, state.key, True)
  regrets, average = list(state.regrets), list(state.average)
  count = state.nodes_touched
  for player in (0, 1):  # player 1's traversal sees player 0's new regrets
    walk = mccfr_traversal.traverse(tensors, tuple(regrets), None, player=player, sample_opponent=True,
                                    matched=True, uniforms=uniforms[player])
    regrets[player] = regrets[player].at[walk.index].add(walk.regret, mode="drop")
    opponent = 1 - player  # simple averaging: sigma_-i at every visited opponent history
    average[opponent] = average[opponent].at[walk.opponent_index].add(walk.opponent_sigma, mode="drop")
    count = _add_count(count, walk.nodes_touched)
  return state._replace(regrets=tuple(regrets), average=tuple(average), nodes_touched=count,
                        key=next_key, iteration=state.iteration + 1)


def _chance_step(tensors, state: MCCFRState) -> MCCFRState:
  next_key, uniforms = _traversal_uniforms(tensors, state.key, False)
  regrets, average = list(state.regrets), list(state.average)
  count = state.nodes_touched
  for player in (0, 1):
    treeplex = tensors.players[player]
    sigma = cfr.regret_matching(treeplex, regrets[player])  # the exact average needs every row
    plan = evaluation.realization_plan(treeplex, sigma)
    average[player] = average[player] + plan[treeplex.parent_seq][:, None] * sigma
    walk = mccfr_traversal.traverse(tensors, tuple(regrets), None, player=player, sample_opponent=False,
                                    matched=True, uniforms=uniforms[player])
    regrets[player] = regrets[player].at[walk.index].add(walk.regret, mode="drop")
    count = _add_count(count, walk.nodes_touched)
  return state._replace(regrets=tuple(regrets), average=tuple(average), nodes_touched=count,
                        key=next_key, iteration=state.iteration + 1)


@functools.lru_cache(maxsize=None)
def solver(algorithm: str = "mccfr-os", *, trajectories: int = 1, averaging: str = "stochastic",
           chance_width: int | None = None) -> cfr.Solver:
  """The Solver of a sampled algorithm (the same NamedTuple as the CFR family).

  Cached: the same arguments return the same Solver, so its jitted functions compile once.

  Args:
    algorithm: one of ALGORITHMS.
    trajectories: K, outcome sampling's trajectories per update (static: it is a shape).
    averaging: outcome sampling's average rule, "stochastic" or "optimistic".
    chance_width: outcome sampling's static bound on chance outcomes per node, e.g.
      ``chance_width(game)``. By default the game's own (``TreeStatics.chance_width``,
      computed once per game), so chance outcomes come from a row gather rather than a
      binary search; a tree without statics under ``jit`` falls back to the search. A
      bound below the game's true width samples wrongly, so ``init`` checks it when it can.
  """
  if algorithm not in ALGORITHMS:
    raise ValueError(f"unknown sampled algorithm {algorithm!r}; choose one of {list(ALGORITHMS)}")
  if int(trajectories) != trajectories or trajectories < 1:
    raise ValueError(f"trajectories must be a positive integer, got {trajectories}")
  if averaging not in AVERAGING:
    raise ValueError(f"averaging must be one of {list(AVERAGING)}, got {averaging!r}")
  if algorithm == "mccfr-os":
    step = functools.partial(outcome_step, trajectories=int(trajectories), averaging=averaging,
                             chance_width=chance_width)
  elif algorithm == "mccfr-es":
    step = _external_step
  else:
    step = _chance_step

  def checked_init(tensors, **hyperparameters):
    tree = tensors.tree
    if chance_width is not None and not isinstance(tree.num_children, jax.core.Tracer):
      chance = np.asarray(tree.kind) == CHANCE_NODE
      width = int(np.asarray(tree.num_children)[chance].max()) if chance.any() else 1
      if width > chance_width:
        raise ValueError(f"chance_width={chance_width} is below {tensors.name}'s {width} chance outcomes")
    return init(tensors, **hyperparameters)

  run = cfr.iterate(step)

  return cfr.Solver(init=checked_init, step=step, run=run, average_strategy=average_strategy,
                    current_strategy=current_strategy, name=algorithm)
