"""Information-set Monte-Carlo tree search in self-play (``mcts``), with Smooth UCT as an option.

Ponsen, de Jong and Lanctot, "Computing Approximate Nash Equilibria and Robust Best-Responses
Using Sampling", 2011, section 3.2.1: statistics are kept per information set, a value and a
visit count per (infoset, action), while the tree in memory holds game nodes. One ``step``
is one simulation from the root:

1. *Selection* (eq. 2, UCT of Kocsis and Szepesvari 2006): at a decision of player ``p`` at
   infoset ``I`` the action

       a* in argmax_a  v(I, a) + C sqrt(ln n(I) / n(I, a)),   n(I) = sum_a n(I, a),

   where ``v(I, a) = W(I, a) / n(I, a)`` is the mean reward of ``p`` after ``(I, a)``. Untried
   actions (``n(I, a) = 0``) come first; ties (among untried actions or equal scores) are
   broken uniformly by the run's PRNG. Chance nodes draw an outcome from their probabilities.
2. *Expansion*: the first history on the path that is not yet in the tree is added to it
   (one node per simulation; the root is in the tree from the start).
3. *Simulation*: on-policy, "we always take action a* according to Equation 2": below the
   tree the same rule picks the actions from the same infoset statistics.
4. *Back-propagation*: the terminal reward (``u_0(z)`` for player 0, ``-u_0(z)`` for player 1)
   is added to ``W(I, a)`` and ``n(I, a)`` is incremented for every decision ``(I, a)`` of
   both players on the path ("we update each information set that contains a prefix of the
   terminal history"; option ``backup="path"``, the default). ``backup="tree"`` updates only
   the decisions whose child is in the tree (the selection path and the new node), as
   classic MCTS does; the simulation part then only chooses actions.

The final policy is the normalised visit counts ``n(I, a) / n(I)`` (``final="visits"``,
Ponsen et al. 2011: "the ratio between the actions selected determines the probability
distribution"; uniform at infosets never visited), or the most visited action
(``final="max"``, ties shared uniformly).

**Smooth UCT** (``smooth=True``; Heinrich and Silver, "Smooth UCT Search in Computer Poker",
IJCAI 2015): at a visited infoset the selection follows UCT with probability

    eta_k = max(gamma, eta / (1 + d sqrt(n(I))))

and otherwise samples the average policy ``n(I, a) / n(I)``; every selection counts in
``n``, and the average policy is the final policy. Defaults ``eta = 0.9, d = 0.001, gamma = 0.1``
(the paper's Kuhn settings as we read them); all three are hyperparameters.

The run: one simulation is a walk over the tree's depths on the tree arrays
(jaxcfr.kits.sequence_form.walk by depth, with the UCT rule as its policy; each depth traced on its own,
reading only what the tree holds there), statistics are ``[I, A]`` tables per player and
``expanded`` is a ``[H]`` flag per history. A simulation reads ``2 D`` uniforms from one
threefry call (``simulation_uniforms``): per depth ``u[d, 0]`` breaks UCT ties, draws the
chance outcome or samples the average policy, and ``u[d, 1]`` is Smooth UCT's coin. Runs
(seeds, ``uct_c``, the Smooth UCT parameters) are batched over trailing axes: a sweep over
C values is one program. The registry's loop moves the batch to one leading axis and
``step`` simulates all its runs at once (natively batched: the same values as ``vmap`` of
one run's step, in less than half the time on a CPU; benchmarks/results/mcts_speed.json).

``average_strategy`` and ``current_strategy`` are both the final policy (the visit counts
are the only policy MCTS defines between simulations; the UCT rule itself is a
deterministic, tie-broken choice, not a mixed strategy).
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
from jaxcfr.kits.sequence_form import walk as walk_lib
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE
from jaxcfr.kits.sequence_form.tensors import GameTensors, tree_statics
from jaxcfr.solvers import registry

__all__ = [
  "MCTSState",
  "DEFAULTS",
  "SMOOTH_DEFAULTS",
  "init",
  "uct_scores",
  "uct_choice",
  "smooth_eta",
  "simulation_uniforms",
  "simulate",
  "step",
  "final_policy",
  "solver",
  "counters",
]

DEFAULTS = {"seed": 0, "uct_c": 2.0}
SMOOTH_DEFAULTS = {"eta": 0.9, "d": 0.001, "gamma": 0.1}
FINAL = ("visits", "max")
BACKUP = ("path", "tree")


class MCTSState(NamedTuple):
  """State of one MCTS run (every field an array; batches carry trailing axes).

  Attributes:
    visits: ([I0, A0], [I1, A1]) int32 ``n(I, a)``.
    rewards: ([I0, A0], [I1, A1]) summed rewards ``W(I, a)`` of the acting player.
    expanded: [H] bool, the histories in the tree (the root from the start).
    key: [2] uint32, the raw PRNG key of the next simulation.
    iteration: [] int32, simulations done.
    seed: [] int32; uct_c: [] float, C of eq. 2; eta, d, gamma: [] float, Smooth UCT's
      mixing schedule (unused by plain UCT).
  """

  visits: tuple
  rewards: tuple
  expanded: jax.Array
  key: jax.Array
  iteration: jax.Array
  seed: jax.Array
  uct_c: jax.Array
  eta: jax.Array
  d: jax.Array
  gamma: jax.Array


def init(
  tensors: GameTensors,
  *,
  seed=0,
  uct_c=DEFAULTS["uct_c"],
  eta=SMOOTH_DEFAULTS["eta"],
  d=SMOOTH_DEFAULTS["d"],
  gamma=SMOOTH_DEFAULTS["gamma"],
) -> MCTSState:
  """A fresh run: no statistics, only the root in the tree, the PRNG key of ``seed``."""
  dtype = tensors.dtype
  seed = jnp.asarray(seed, jnp.int32)
  num_histories = tensors.tree.parent.shape[0]
  return MCTSState(
    visits=tuple(jnp.zeros(tp.legal.shape, jnp.int32) for tp in tensors.players),
    rewards=tuple(jnp.zeros(tp.legal.shape, dtype) for tp in tensors.players),
    expanded=jnp.zeros((num_histories,), bool).at[0].set(True),
    key=jax.random.key_data(jax.random.key(seed)),
    iteration=jnp.zeros((), jnp.int32),
    seed=seed,
    uct_c=jnp.asarray(uct_c, dtype),
    eta=jnp.asarray(eta, dtype),
    d=jnp.asarray(d, dtype),
    gamma=jnp.asarray(gamma, dtype),
  )


def check(tensors: GameTensors, **kwargs) -> None:
  """Raises ValueError for a negative or non-finite C, or Smooth UCT parameters outside range."""
  del tensors
  ranges = {"uct_c": (0, np.inf), "eta": (0, 1), "d": (0, np.inf), "gamma": (0, 1)}
  for name, (lo, hi) in ranges.items():
    value = registry.concrete(kwargs.get(name, 0.5))
    if value is not None and not np.all((value >= lo) & (value <= hi) & np.isfinite(value)):
      raise ValueError(f"{name} must lie in [{lo}, {hi}] and be finite, got {value}")


def uct_scores(visits: jax.Array, rewards: jax.Array, legal: jax.Array, c) -> jax.Array:
  """[..., K] eq. 2's score ``W/n + C sqrt(ln n(I) / n)`` of each action of a row; +inf at
  untried legal actions, -inf at illegal ones."""
  n = visits.astype(rewards.dtype)
  total = jnp.where(legal, n, 0).sum(-1, keepdims=True)
  safe = jnp.maximum(n, 1)
  score = rewards / safe + c * jnp.sqrt(jnp.log(jnp.maximum(total, 1)) / safe)
  return jnp.where(legal, jnp.where(n > 0, score, jnp.inf), -jnp.inf)


def _uniform_among(candidates: jax.Array, u) -> jax.Array:
  """[...] index of the ``floor(u * m)``-th True entry of each row of ``candidates``
  [..., K] (m of them), ``u`` [...]."""
  count = candidates.sum(-1)
  k = jnp.minimum(jnp.floor(u * count).astype(jnp.int32), jnp.maximum(count, 1) - 1)
  rank = jnp.cumsum(candidates.astype(jnp.int32), -1)
  return jnp.argmax(candidates & (rank == k[..., None] + 1), -1).astype(jnp.int32)


def uct_choice(visits: jax.Array, rewards: jax.Array, legal: jax.Array, c, u) -> jax.Array:
  """[...] int32 slot chosen by eq. 2 from each row (``visits``, ``rewards``, ``legal``
  [..., K]; ``c`` and ``u`` [...] or scalars): untried actions first, ties broken by the
  uniform ``u`` in [0, 1)."""
  score = uct_scores(visits, rewards, legal, jnp.asarray(c)[..., None])
  return _uniform_among(legal & (score == score.max(-1, keepdims=True)), u)


def smooth_eta(total, eta, d, gamma):
  """Smooth UCT's probability of following UCT at an infoset visited ``total`` times."""
  return jnp.maximum(gamma, eta / (1 + d * jnp.sqrt(total)))


def _depths(tensors: GameTensors) -> int:
  return len(tensors.tree.depth_slices)


def simulation_uniforms(tensors: GameTensors, key: jax.Array):
  """(next key [2], uniforms [D, 2]) of one simulation from one threefry call."""
  depths = _depths(tensors)
  words = sampling_lib.words_per_uniform(tensors.dtype)
  bits = jax.random.bits(jax.random.wrap_key_data(key), (2 + words * 2 * depths,), jnp.uint32)
  return bits[:2], sampling_lib.uniform_from_bits(bits[2:], tensors.dtype).reshape(depths, 2)


class Path(NamedTuple):
  """One simulation: the terminal reached and, per depth, the decision taken (each field with
  the leading batch axis ``[B]`` of a natively batched ``simulate``).

  Attributes:
    terminal: [] int32 history. kind, infoset, action: [D] int32 at each depth (kind 3 past
    the terminal). update: [D] bool, the decision is backed up. expanded: [H] the tree after it.
  """

  terminal: jax.Array
  kind: jax.Array
  infoset: jax.Array
  action: jax.Array
  update: jax.Array
  expanded: jax.Array


def simulate(tensors: GameTensors, state: MCTSState, uniforms: jax.Array, *, smooth: bool, backup: str) -> Path:
  """One simulation from the root with the statistics of ``state`` (selection, expansion,
  on-policy simulation), its uniforms ``[D, 2]`` given; or, natively batched, one per run of
  a state whose every leaf carries one leading batch axis ``[B]``, with uniforms
  ``[B, D, 2]`` and the Path's fields ``[B]``, ``[B, D]`` and expanded ``[B, H]`` (the values
  of each run alone).

  One walk by depth (jaxcfr.kits.sequence_form.walk, ``by_depth``): each depth reads the statistics of
  only the players who act there and draws chance only where chance acts
  (TreeStatics.level_kinds); a child's slot is its action's column (the tree arrays'
  ``action_index``, checked when they are built); each history's expansion flag is read
  once, as the child of the previous depth.
  """
  tree = tensors.tree
  statics = tree_statics(tree)
  expanded = state.expanded
  batch, num_histories = expanded.shape[:-1], expanded.shape[-1]
  runs = tuple(jnp.arange(b) for b in batch)  # indexes a run's own table: table[runs + (row,)]

  def policy(node: walk_lib.Node, u: jax.Array, carry):
    grown, new_node, node_expanded = carry
    kinds = statics.level_kinds[node.depth]
    slot = jnp.zeros_like(node.kind)
    players = [player for player in range(len(tensors.players)) if player in kinds]
    if players:
      width = max(tensors.players[player].max_actions for player in players)
      valid = (jnp.arange(width) < node.num_children[..., None]) & node.alive[..., None]
      n = jnp.zeros(batch + (width,), jnp.int32)
      w = jnp.zeros(batch + (width,), tensors.dtype)
      for player in players:
        tp = tensors.players[player]
        row = runs + (jnp.clip(node.infoset, 0, tp.num_infosets - 1),)
        pad = ((0, 0),) * len(batch) + ((0, width - tp.max_actions),)
        mine = (node.kind == player)[..., None]
        n = jnp.where(mine, jnp.pad(state.visits[player][row], pad), n)
        w = jnp.where(mine, jnp.pad(state.rewards[player][row], pad), w)
      slot = uct_choice(n, w, valid, state.uct_c, u[..., 0])
      if smooth:
        counts = jnp.where(valid, n, 0)
        total = counts.sum(-1)
        eta = smooth_eta(total.astype(tensors.dtype), state.eta, state.d, state.gamma)
        average = _inverse_cdf(counts.astype(tensors.dtype), u[..., 0], node.num_children)
        slot = jnp.where((u[..., 1] < eta) | (total == 0), slot, average)
    if CHANCE_NODE in kinds:
      width = statics.level_chance_width[node.depth]
      valid = (jnp.arange(width) < node.num_children[..., None]) & node.alive[..., None]
      probs = tree.chance_prob[jnp.where(valid, node.first_child[..., None] + jnp.arange(width), 0)]
      chance = _inverse_cdf(jnp.where(valid, probs, 0), u[..., 0], node.num_children)
      slot = jnp.where(node.kind == CHANCE_NODE, chance, slot)
    next_node = jnp.minimum(node.first_child + slot, num_histories - 1)
    next_expanded = expanded[runs + (next_node,)]
    in_tree = node_expanded & ~grown & node.alive  # the node added by this simulation is never read here
    expand = in_tree & ~next_expanded
    update = node.alive & (node.kind != CHANCE_NODE) & (in_tree if backup == "tree" else True)
    carry = (
      grown | expand,
      jnp.where(expand, next_node, new_node),
      jnp.where(node.alive, next_expanded, node_expanded),
    )
    return slot, carry, (node.kind, node.infoset, slot, update)

  carry = (jnp.zeros(batch, bool), jnp.full(batch, num_histories, jnp.int32), expanded[..., 0])
  xs = jnp.moveaxis(uniforms, -2, 0)  # [D, ..., 2]
  done = walk_lib.walk(tree, policy, xs, root=jnp.zeros(batch, jnp.int32), carry=carry, by_depth=True)
  kinds, infosets, actions, updates = (jnp.moveaxis(x, 0, -1) for x in done.outputs)
  new_node = done.carry[1]  # the new node, if any (out of range: none)
  if batch:
    expanded = expanded.at[runs + (new_node,)].set(True, mode="drop")
  else:
    expanded = row_updates.max_rows(expanded, new_node[None], jnp.ones((1,), bool))
  return Path(terminal=done.last, kind=kinds, infoset=infosets, action=actions, update=updates, expanded=expanded)


def _inverse_cdf(weights: jax.Array, u: jax.Array, count: jax.Array) -> jax.Array:
  """jaxcfr.kits.sequence_form.sampling.inverse_cdf over rows ``[..., W]`` of any leading shape."""
  flat = sampling_lib.inverse_cdf(weights.reshape(-1, weights.shape[-1]), u.reshape(-1), count.reshape(-1))
  return flat.reshape(u.shape)


def step(tensors: GameTensors, state: MCTSState, *, smooth: bool, backup: str) -> MCTSState:
  """One simulation and its back-propagation; natively batched for a state whose leaves carry
  one leading batch axis (``simulate``): the values of ``vmap(step)``, in less than half the
  time on a CPU (benchmarks/results/mcts_speed.json)."""
  batched = state.expanded.ndim == 2
  draw = functools.partial(simulation_uniforms, tensors)
  key, uniforms = jax.vmap(draw)(state.key) if batched else draw(state.key)
  path = simulate(tensors, state, uniforms, smooth=smooth, backup=backup)
  reward = tensors.tree.utility[path.terminal]
  level_kinds = tree_statics(tensors.tree).level_kinds
  visits, rewards = list(state.visits), list(state.rewards)
  for player, tp in enumerate(tensors.players):
    depths = [d for d, kinds in enumerate(level_kinds) if player in kinds]  # where the player can act
    if not depths:
      continue
    mine = path.update[..., depths] & (path.kind[..., depths] == player)
    row = jnp.where(mine, path.infoset[..., depths], tp.num_infosets)  # out of range: dropped
    col = jnp.clip(path.action[..., depths], 0, tp.max_actions - 1)
    reward_p = jnp.broadcast_to((reward if player == 0 else -reward)[..., None], row.shape).astype(tensors.dtype)
    if batched:
      runs = jnp.arange(row.shape[0])[:, None]
      visits[player] = visits[player].at[runs, row, col].add(1, mode="drop")
      rewards[player] = rewards[player].at[runs, row, col].add(reward_p, mode="drop")
    else:
      taken = jax.nn.one_hot(col, tp.max_actions, dtype=tensors.dtype)
      visits[player] = row_updates.add_rows(visits[player], row, taken.astype(jnp.int32))
      rewards[player] = row_updates.add_rows(rewards[player], row, taken * reward_p[:, None])
  return state._replace(
    visits=tuple(visits), rewards=tuple(rewards), expanded=path.expanded, key=key, iteration=state.iteration + 1
  )


def final_policy(tensors: GameTensors, state: MCTSState, *, final: str = "visits"):
  """The final profile ([I, A] each): normalised visit counts, or the most visited action."""
  profile = []
  for tp, n in zip(tensors.players, state.visits):
    weights = jnp.where(tp.legal, n, 0).astype(tensors.dtype)
    if final == "max":
      weights = jnp.where(tp.legal & (weights == weights.max(1, keepdims=True)), 1.0, 0.0).astype(tensors.dtype)
    profile.append(regret.normalise(weights, tp.legal))
  return tuple(profile)


def counters(state: MCTSState) -> dict:
  """Histories in the tree ([*B])."""
  return {"tree_nodes": np.asarray(jax.device_get(state.expanded)).sum(0)}


def solver(*, smooth: bool = False, final: str = "visits", backup: str = "path") -> registry.Solver:
  """The registered ``mcts`` solver.

  Options (static): smooth (Smooth UCT), final ("visits" or "max"), backup ("path": every
  decision on the path, Ponsen et al. 2011; "tree": only those inside the tree).
  Hyperparameters of ``init`` (batchable): seed, uct_c (C of eq. 2, default 2, Ponsen et
  al.'s Kuhn setting) and, with ``smooth``, eta, d, gamma.
  """
  if final not in FINAL:
    raise ValueError(f"final must be one of {list(FINAL)}, got {final!r}")
  if backup not in BACKUP:
    raise ValueError(f"backup must be one of {list(BACKUP)}, got {backup!r}")
  smooth = bool(smooth)
  hyperparameters = {**DEFAULTS, **(SMOOTH_DEFAULTS if smooth else {})}
  policy = functools.partial(final_policy, final=final)
  return registry.Solver(
    name="mcts",
    hyperparameters=hyperparameters,
    options={"smooth": smooth, "final": final, "backup": backup},
    counters=counters,
    **registry.per_run(
      init,
      hyperparameters,
      check=check,
      step=functools.partial(step, smooth=smooth, backup=backup),
      batched_step=functools.partial(step, smooth=smooth, backup=backup),
      average_strategy=policy,
      current_strategy=policy,
    ),
  )


registry.register(
  "mcts",
  solver,
  summary="information-set MCTS with UCT (Ponsen et al. 2011, 3.2.1); Smooth UCT with smooth",
  options=(
    registry.Param("smooth", bool, False, "Smooth UCT (Heinrich and Silver 2015)"),
    registry.Param("final", str, "visits", "final policy: visit counts or the most visited action", choices=FINAL),
    registry.Param(
      "backup",
      str,
      "path",
      "back up to every decision on the path (the paper) or only inside the tree",
      choices=BACKUP,
    ),
  ),
  hyperparameters=(
    registry.SEED,
    registry.Param("uct_c", float, DEFAULTS["uct_c"], "C of UCT (eq. 2)", batchable=True, low=0.0, finite=True),
    registry.Param(
      "eta", float, SMOOTH_DEFAULTS["eta"], "Smooth UCT: eta (with smooth)", batchable=True, low=0.0, high=1.0
    ),
    registry.Param(
      "d", float, SMOOTH_DEFAULTS["d"], "Smooth UCT: d (with smooth)", batchable=True, low=0.0, finite=True
    ),
    registry.Param(
      "gamma",
      float,
      SMOOTH_DEFAULTS["gamma"],
      "Smooth UCT: gamma (with smooth)",
      batchable=True,
      low=0.0,
      high=1.0,
    ),
  ),
)
