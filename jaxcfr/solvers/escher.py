"""ESCHER: neural CFR whose sampled regrets need no importance weights.

McAleer, Farina, Lanctot and Sandholm, "ESCHER: Eschewing Importance Sampling in Games by
Computing a History Value Function to Estimate Regret", ICLR 2023. One iteration ``t``
(alternating, player 0 first, as Deep CFR):

    for p in (0, 1):
      V = the history value network of the profile p's walks follow (sigma^t_p and the
        opponent's strategy, updated already when p = 1), fitted (warm-started from the last
        fit's weights, ``value_steps`` steps on ``value_batch_size`` histories drawn by visits)
        to the returns of ``value_traversals`` trajectories of the profile
        ``value_exploration * uniform + (1 - value_exploration) * sigma``: at each history on a
        trajectory, player 0's utility at its end times the importance ratios of the actions
        taken from there on (``value_samples``; histories sigma does not reach need values too);
        ``value_function="exact"`` takes the exact values instead (an oracle, for ablations)
      K trajectories (one batched walk, jaxcfr.solvers.outcome_walk) under the fixed sampling
        profile: p uniform over its legal actions, the opponent by its strategy, chance by its
        probabilities;
        every visited history h of p adds (I(h), q(h, .) - sum_b sigma^t_p(I, b) q(h, b), t)
          to p's advantage memory, with q(h, a) = V(ha) (the utility itself at terminals);
        every visited history of the opponent adds (I, sigma_-p(I), t) to its strategy memory
      the advantage network of p is fitted to its memory as Deep CFR's (jaxcfr.solvers.deep_cfr)

With exact history values the sum of a trajectory's regret rows at an infoset ``I`` of ``p``
has the expectation ``xi_p(I) r(I, a)``: ``r`` the counterfactual regret and ``xi_p(I)`` the
uniform profile's reach of ``I`` (the same for every history of ``I`` by perfect recall), a
positive factor fixed over iterations, so regret matching on the memory's mean is linear CFR's.
No ``1 / q(z)`` multiplies the estimate, which is what keeps its variance down (the paper's
Theorem 1; tests/test_neural_cfr.py checks the expectation). The average strategy is Deep CFR's
average-strategy network fitted to the strategy memory (the opponent samples on-policy, so a
memory row's t-weighted mean is the linear average strategy).

The value network's inputs are the histories' paths (``neural_inputs.history_features``: one
one-hot block of the child slot per depth, complete on every game); it is evaluated on every
history once per fit (an [H, D W] batch) and the walks read the table, as Deep CFR reads
its advantage tables. ``counters`` report the nodes touched (histories on the trajectories,
of both kinds of walks, and the children whose values a regret row reads) and the fits'
objectives.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits.sequence_form.arrays import TERMINAL_NODE
from jaxcfr.kits.sequence_form.tensors import GameTensors
from jaxcfr.solvers import deep_cfr, networks, neural_inputs, neural_memory, registry
from jaxcfr.solvers.mccfr_state import add_count, nodes_touched
from jaxcfr.solvers.outcome_walk import sample_trajectories

__all__ = [
  "EscherState",
  "solver",
  "value_network",
  "history_values",
  "edge_probabilities",
  "backup_values",
  "regret_samples",
  "value_samples",
  "RegretSamples",
]


VALUE_FUNCTIONS = ("network", "exact")
VALUE_INPUTS = ("path", "infostates")
VALUE_TARGETS = ("returns", "backup")


class EscherState(NamedTuple):
  """One run's state (trailing batch axes ``B`` on every leaf when batched).

  Attributes:
    params, opt_state, strategy, memory, policy_memory: as ``deep_cfr.DeepCFRState``'s.
    value_params: the history value network's MLPParams; value_opt_state: its optimiser's.
    loss: [3] the last fits' objectives (advantages of player 0 and 1, history values).
    nodes_touched: [2] int32 (high, low) words; key: [2] uint32; seed: [] int32;
    learning_rate: [] float; iteration: [] int32.
  """

  params: tuple
  opt_state: tuple
  strategy: tuple
  memory: tuple
  policy_memory: tuple
  value_params: networks.MLPParams
  value_opt_state: tuple
  loss: jax.Array
  nodes_touched: jax.Array
  key: jax.Array
  seed: jax.Array
  learning_rate: jax.Array
  iteration: jax.Array


class RegretSamples(NamedTuple):
  """The rows of K trajectories for one player (leading axes [K, D]: one step per depth).

  Attributes:
    index: [K, D] int32 the player's infoset at the step (I where another acts or the walk ended).
    regret: [K, D, A] the sampled regrets (0 at illegal actions and other rows).
    opponent_index: [K, D] int32 the opponent's infoset (I_opp elsewhere).
    opponent_sigma: [K, D, A_opp] its sigma row there.
    nodes_touched: [] int32 histories on the trajectories plus children read.
  """

  index: jax.Array
  regret: jax.Array
  opponent_index: jax.Array
  opponent_sigma: jax.Array
  nodes_touched: jax.Array


def value_features(tensors: GameTensors, inputs: str = "path") -> jax.Array:
  """[H, F] the value network's inputs: the path (``neural_inputs.history_features``) or both
  players' information states beside it (``neural_inputs.history_infostate_features``)."""
  if inputs == "infostates":
    return neural_inputs.history_infostate_features(tensors)
  return neural_inputs.history_features(tensors)


def value_network(tensors: GameTensors, hidden: tuple, layer_norm: bool, inputs: str = "path") -> networks.MLP:
  """The MLP from a history's ``value_features`` to player 0's value there."""
  depth, width = neural_inputs.path_width(tensors)
  features = depth * width
  if inputs == "infostates":
    features += sum(neural_inputs.infostate_features(tensors, p).shape[1] for p in (0, 1))
  return networks.MLP((features,) + tuple(hidden) + (1,), "relu", layer_norm)


def edge_probabilities(tensors: GameTensors, profile) -> jax.Array:
  """[H] the probability of each history's incoming edge under ``profile`` (([I0, A0], [I1,
  A1])): chance's, or the acting player's strategy at its parent; 1 at the root."""
  tree = tensors.tree
  parent = jnp.maximum(tree.parent, 0)
  kind = tree.kind[parent]
  prob = tree.chance_prob.astype(tensors.dtype)
  for p in (0, 1):
    table = profile[p]
    infoset = jnp.clip(tree.infoset[parent], 0, table.shape[0] - 1)
    prob = jnp.where(kind == p, table[infoset, jnp.clip(tree.action_index, 0, table.shape[1] - 1)], prob)
  return jnp.where(tree.parent < 0, 1, prob)


def history_values(tensors: GameTensors, profile) -> jax.Array:
  """[H] player 0's exact expected utility at every history under ``profile`` (([I0, A0],
  [I1, A1])), bottom-up over the depth levels: the oracle a history value network learns."""
  tree = tensors.tree
  prob = edge_probabilities(tensors, profile)
  values = jnp.where(tree.kind == TERMINAL_NODE, tree.utility.astype(tensors.dtype), 0)
  for lo, hi in reversed(tree.depth_slices[1:]):
    values = values.at[tree.parent[lo:hi]].add(prob[lo:hi] * values[lo:hi])
  return values


def backup_values(tensors: GameTensors, profile, values: jax.Array) -> jax.Array:
  """[H] the one-step backup of ``values`` [H] under ``profile``: at every history the sum over
  its children of the edge's probability times the child's value (0 at terminals). Equal to
  ``values`` at the inner histories exactly when ``values`` are ``history_values`` there."""
  tree = tensors.tree
  prob = edge_probabilities(tensors, profile)
  child = tree.parent >= 0
  return jnp.zeros_like(values).at[jnp.where(child, tree.parent, 0)].add(jnp.where(child, prob * values, 0))


def regret_samples(
  tensors: GameTensors, strategy: tuple, values: jax.Array, key: jax.Array, player: int, count: int
) -> RegretSamples:
  """ESCHER's estimator on ``count`` trajectories for ``player`` (see the module doc), reading
  the history values ``values`` [H] (player 0's; a network's table or ``history_values``)."""
  tree = tensors.tree
  sign = 1.0 if player == 0 else -1.0
  paths = sample_trajectories(tensors, strategy, key, count, player=player, epsilon=1.0)
  kind, infoset, legal_count, _ = paths.steps
  h = paths.nodes[:, :-1]  # [K, D]
  own_width = tensors.players[player].max_actions
  legal = jnp.arange(own_width) < legal_count[..., None]
  children = jnp.minimum(tree.first_child[h][..., None] + jnp.arange(own_width), tree.parent.shape[0] - 1)
  q = jnp.where(legal, sign * values[children], 0)  # [K, D, A]
  mine = kind == player  # steps where player acts (terminals and their repeats have their own kind)
  sigma = strategy[player][jnp.clip(infoset, 0, strategy[player].shape[0] - 1)]
  regret = jnp.where(legal & mine[..., None], q - (sigma * q).sum(-1, keepdims=True), 0)
  opponent = 1 - player
  theirs = kind == opponent
  opp_table = strategy[opponent]
  alive = (tree.kind[paths.nodes] != TERMINAL_NODE).sum() + count  # each path's histories
  return RegretSamples(
    index=jnp.where(mine, infoset, tensors.players[player].num_infosets).astype(jnp.int32),
    regret=regret,
    opponent_index=jnp.where(theirs, infoset, tensors.players[opponent].num_infosets).astype(jnp.int32),
    opponent_sigma=opp_table[jnp.clip(infoset, 0, opp_table.shape[0] - 1)],
    nodes_touched=(alive + jnp.where(mine, legal_count, 0).sum()).astype(jnp.int32),
  )


def value_samples(tensors: GameTensors, strategy: tuple, key: jax.Array, count: int, exploration):
  """(rows [K D], returns [K D, 1], valid [K D], histories touched) of ``count`` trajectories
  drawn by ``exploration * uniform + (1 - exploration) * sigma`` at both players' nodes: each
  non-terminal history ``h`` on a trajectory to ``z`` with the return ``u_0(z)`` times the
  importance ratios ``sigma / sampling`` of the actions taken from ``h`` on, whose expectation
  given ``h`` is ``h``'s value under sigma (off-policy returns, so that histories sigma never
  reaches are seen too; the suffix ratios are products of at most D factors of at most
  ``1 / (1 - exploration)``)."""
  tree = tensors.tree
  paths = sample_trajectories(tensors, strategy, key, count, player=0, epsilon=exploration, exploring="both")
  ratio = paths.policy_prob / paths.sample_prob  # [K, D], 1 at chance and past the terminal
  suffix = jnp.flip(jnp.cumprod(jnp.flip(ratio, -1), -1), -1)
  h = paths.nodes[:, :-1]
  inner = tree.kind[h] != TERMINAL_NODE  # terminals are read exactly
  returns = tree.utility[paths.nodes[:, -1]][:, None].astype(tensors.dtype) * suffix
  touched = (tree.kind[paths.nodes] != TERMINAL_NODE).sum() + count
  return h.reshape(-1), returns.reshape(-1, 1), inner.reshape(-1), touched


def _check(name: str, value_traversals: int, value_steps: int) -> None:
  for option, value in (("value_traversals", value_traversals), ("value_steps", value_steps)):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
      raise ValueError(f"{name}: {option} must be an integer >= 1, got {value!r}")


def solver(
  *,
  name: str = "escher",
  traversals: int = 1000,
  hidden: tuple = (64, 64),
  steps: int = 300,
  batch_size: int = 0,
  memory: int = 0,
  warm_start: bool = False,
  layer_norm: bool = True,
  clip: float = 10.0,
  policy_steps: int = 2000,
  value_traversals: int = 1000,
  value_steps: int = 300,
  value_exploration: float = 0.1,
  value_batch_size: int = 256,
  value_function: str = "network",
  value_inputs: str = "path",
  value_targets: str = "returns",
) -> registry.Solver:
  """``escher`` with the declared options (Deep CFR's, and the history value network's
  ``value_traversals`` and ``value_steps``); hyperparameters seed and learning_rate."""
  deep_cfr.check_options(name, traversals=traversals, steps=steps, batch_size=batch_size, memory=memory, hidden=hidden)
  _check(name, value_traversals, value_steps)
  if value_function not in VALUE_FUNCTIONS:
    raise ValueError(f"{name}: value_function must be one of {VALUE_FUNCTIONS}, got {value_function!r}")
  for option, value, choices in (
    ("value_inputs", value_inputs, VALUE_INPUTS),
    ("value_targets", value_targets, VALUE_TARGETS),
  ):
    if value not in choices:
      raise ValueError(f"{name}: {option} must be one of {choices}, got {value!r}")
  if not isinstance(value_batch_size, (int, np.integer)) or isinstance(value_batch_size, bool) or value_batch_size < 0:
    raise ValueError(f"{name}: value_batch_size must be an integer >= 0, got {value_batch_size!r}")
  if not 0.0 < value_exploration <= 1.0:
    raise ValueError(f"{name}: value_exploration must be in (0, 1], got {value_exploration!r}")
  hidden = tuple(int(h) for h in hidden)
  hyperparameters = {"seed": 0, "learning_rate": deep_cfr.DEFAULT_LEARNING_RATE}
  fitting = dict(steps=steps, batch_size=batch_size, clip=clip, warm_start=warm_start)

  def init(tensors: GameTensors, seed=0, learning_rate=deep_cfr.DEFAULT_LEARNING_RATE) -> EscherState:
    dtype = tensors.dtype
    seed = jnp.asarray(seed, jnp.int32)
    rate = jnp.asarray(learning_rate, dtype)
    key = jax.random.key(seed)
    params, opt_state = deep_cfr.advantage_networks(tensors, key, rate, hidden, layer_norm, clip)
    value_params = value_network(tensors, hidden, layer_norm, value_inputs).init(jax.random.fold_in(key, 3), dtype)
    return EscherState(
      params=params,
      opt_state=opt_state,
      strategy=tuple(evaluation.uniform_strategy(tp, dtype) for tp in tensors.players),
      memory=deep_cfr.empty_memories(tensors, memory),
      policy_memory=deep_cfr.empty_memories(tensors, memory),
      value_params=value_params,
      value_opt_state=networks.optimizer(rate, clip=clip).init(value_params),
      loss=jnp.zeros((3,), dtype),
      nodes_touched=jnp.zeros((2,), jnp.int32),
      key=jax.random.key_data(jax.random.fold_in(key, 2)),
      seed=seed,
      learning_rate=rate,
      iteration=jnp.zeros((), jnp.int32),
    )

  def fit_history_values(tensors, state, strategy, value_params, value_opt_state, keys, t):
    """[H] player 0's history values under ``strategy`` (the network's, or exact), the
    network's new parameters and optimiser state, its loss and the histories touched."""
    dtype = tensors.dtype
    terminal = tensors.tree.kind == TERMINAL_NODE
    if value_function == "exact":
      return (
        history_values(tensors, strategy),
        value_params,
        value_opt_state,
        jnp.zeros((), dtype),
        jnp.zeros((), jnp.int32),
      )
    num_histories = tensors.tree.parent.shape[0]
    vnet = value_network(tensors, hidden, layer_norm, value_inputs)
    features = value_features(tensors, value_inputs)
    rows, returns, valid, touched = value_samples(
      tensors, strategy, jax.random.key_data(keys[0]), value_traversals, value_exploration
    )
    if value_targets == "backup":  # the network's own children, one step back under sigma
      table = jnp.where(terminal, tensors.tree.utility.astype(dtype), vnet.apply(value_params, features)[:, 0])
      returns = backup_values(tensors, strategy, table)[rows][:, None]
      touched = touched + jnp.where(valid, tensors.tree.num_children[rows], 0).sum()
    tally = neural_memory.remember(neural_memory.empty(num_histories, 1, 0, dtype), rows, returns, valid, t, keys[1])
    targets, weights = neural_memory.statistics(tally, num_histories)
    value_params, value_opt_state, loss = neural_memory.fit_values(
      vnet,
      value_params,
      value_opt_state,
      networks.optimizer(state.learning_rate, clip=clip),
      features,
      jnp.ones((num_histories, 1), bool),
      targets,
      weights,
      steps=value_steps,
      batch_size=value_batch_size,
      key=keys[2],
    )
    values = jnp.where(terminal, tensors.tree.utility.astype(dtype), vnet.apply(value_params, features)[:, 0])
    return values, value_params, value_opt_state, loss, touched

  def step(tensors: GameTensors, state: EscherState) -> EscherState:
    t = state.iteration + 1
    keys = deep_cfr.split(state.key, 9)
    params, opt_states, strategy = list(state.params), list(state.opt_state), list(state.strategy)
    memories, policy_memories, losses = list(state.memory), list(state.policy_memory), []
    count = state.nodes_touched
    value_params, value_opt_state = state.value_params, state.value_opt_state
    for p in (0, 1):
      # the history values of the profile p's walks follow (the opponent updated already)
      values, value_params, value_opt_state, value_loss, touched = fit_history_values(
        tensors, state, tuple(strategy), value_params, value_opt_state, jax.random.split(keys[1 + p], 3), t
      )
      count = add_count(count, touched)
      net = deep_cfr.network(tensors, p, hidden, layer_norm)
      samples = regret_samples(tensors, tuple(strategy), values, jax.random.key_data(keys[4 + 2 * p]), p, traversals)
      memory_key, policy_key, fit_key = jax.random.split(keys[5 + 2 * p], 3)
      index = samples.index.reshape(-1)
      memories[p] = neural_memory.remember(
        memories[p],
        index,
        samples.regret.reshape(index.shape[0], -1),
        index < tensors.players[p].num_infosets,
        t,
        memory_key,
      )
      seen = samples.opponent_index.reshape(-1)
      policy_memories[1 - p] = neural_memory.remember(
        policy_memories[1 - p],
        seen,
        samples.opponent_sigma.reshape(seen.shape[0], -1),
        seen < tensors.players[1 - p].num_infosets,
        t,
        policy_key,
      )
      count = add_count(count, samples.nodes_touched)
      params[p], opt_states[p], loss, strategy[p] = deep_cfr.fit_advantages(
        tensors, p, net, memories[p], params[p], opt_states[p], state, fit_key, **fitting
      )
      losses.append(loss)
    return state._replace(
      params=tuple(params),
      opt_state=tuple(opt_states),
      strategy=tuple(strategy),
      memory=tuple(memories),
      policy_memory=tuple(policy_memories),
      value_params=value_params,
      value_opt_state=value_opt_state,
      loss=jnp.stack(losses + [value_loss]).astype(state.loss.dtype),
      nodes_touched=count,
      key=jax.random.key_data(keys[0]),
      iteration=t,
    )

  def average_strategy(tensors: GameTensors, state: EscherState):
    return tuple(
      deep_cfr.policy_network(tensors, p, state, hidden, layer_norm, clip, policy_steps, batch_size) for p in range(2)
    )

  def current_strategy(tensors: GameTensors, state: EscherState):
    del tensors
    return state.strategy

  options = dict(
    traversals=traversals,
    hidden=hidden,
    steps=steps,
    batch_size=batch_size,
    memory=memory,
    warm_start=warm_start,
    layer_norm=layer_norm,
    clip=clip,
    policy_steps=policy_steps,
    value_traversals=value_traversals,
    value_steps=value_steps,
    value_exploration=value_exploration,
    value_batch_size=value_batch_size,
    value_function=value_function,
    value_inputs=value_inputs,
    value_targets=value_targets,
  )
  return registry.Solver(
    name=name,
    hyperparameters=hyperparameters,
    options=options,
    counters=counters,
    **registry.per_run(
      init,
      hyperparameters,
      step=step,
      average_strategy=jax.jit(average_strategy),
      current_strategy=current_strategy,
    ),
  )


def counters(state: EscherState) -> dict:
  """Host-side running counts: nodes_touched (int64, [*B]) and the last fits' objectives
  (advantage_loss [2, *B], value_loss [*B])."""
  loss = np.asarray(state.loss)
  return {"nodes_touched": nodes_touched(state), "advantage_loss": loss[:2], "value_loss": loss[2]}


registry.register(
  "escher",
  solver,
  summary="ESCHER (McAleer, Farina, Lanctot and Sandholm 2023): Deep CFR's networks with regrets from a history "
  "value network on trajectories of a fixed sampling profile, no importance weights",
  options=deep_cfr.NEURAL_OPTIONS
  + (
    deep_cfr.POLICY_STEPS,
    registry.Param(
      "value_traversals",
      int,
      1000,
      "trajectories of the exploring profile per value fit (one fit per player and iteration)",
      low=1,
    ),
    registry.Param("value_steps", int, 300, "optimiser steps of the history value fit per iteration", low=1),
    registry.Param(
      "value_exploration", float, 0.1, "uniform share of the value trajectories' sampling profile", low=0.0, high=1.0
    ),
    registry.Param(
      "value_batch_size",
      int,
      256,
      "histories per step of the value fit, drawn by visits (0: every visited history, weighted)",
      low=0,
    ),
    registry.Param(
      "value_function",
      str,
      "network",
      "the history values: the network (the paper's) or exact on the tree (an oracle, for ablations)",
      choices=VALUE_FUNCTIONS,
    ),
    registry.Param(
      "value_inputs",
      str,
      "path",
      "the value network's inputs: the path of child slots, or both players' information states and the path",
      choices=VALUE_INPUTS,
    ),
    registry.Param(
      "value_targets",
      str,
      "returns",
      "the value fit's targets: importance-weighted returns (the paper's), or the one-step backup of the "
      "network's own children under sigma",
      choices=VALUE_TARGETS,
    ),
  ),
  hyperparameters=deep_cfr.NEURAL_HYPERPARAMETERS,
)
