"""Deep CFR and Single Deep CFR: CFR whose regrets are learned by networks from sampled traversals.

``deep-cfr``: Brown, Lerer, Gross and Sandholm, "Deep Counterfactual Regret Minimization", ICML
2019. ``sd-cfr``: Steinberger, "Single Deep Counterfactual Regret Minimization", 2019. One
iteration ``t`` (alternating, player 0 first, as both papers' Algorithm 1 and OpenSpiel):

    for p in (0, 1):
      K external-sampling traversals for p (one batched program: jaxcfr.solvers.traversal's
        frontier walk, vmapped over K), the players playing sigma^t:
        every visited history h of p adds (I(h), v(ha) - v(h), t) to p's advantage memory;
        every visited history of the opponent adds (I, sigma^t_-p(I), t) to its strategy memory
      V_p = the advantage network fitted to p's memory by the t-weighted squared error (linear
        CFR's weighting), from the same initial weights every iteration (the papers'), or from
        the last iteration's (``warm_start``, Steinberger's Leduc runs)
      sigma_p = regret matching on V_p(x_I) over the legal actions, all mass on the largest
        advantage where none is positive (Brown et al. 2019, section 3)

Each visited history's sampled regret has the expectation of the counterfactual regret at
its infoset over the histories there (external sampling: ``q(z) = pi_-p(z) pi_c(z)`` cancels),
so a memory row's t-weighted mean is, up to a positive factor per infoset (which regret
matching ignores), linear CFR's cumulative regret. The inputs ``x_I`` are the game's
information-state encoding (``jaxcfr.solvers.neural_inputs``); the networks are the shared
MLP (``jaxcfr.solvers.networks``) and the memories and fits are ``neural_memory``'s: all data
as sufficient statistics (``memory=0``) or a reservoir of K points per player (the papers').
The networks are evaluated on every infoset once per update (a [I, F] batch) and the
traversals read the resulting tables, so a traversal costs what MCCFR's does.

Average strategy:

- ``deep-cfr``: the average-strategy network, fitted (from fresh weights, as the paper, at
  every call) to the strategy memory: the masked softmax's squared error weighted by t. A
  strategy memory row's t-weighted mean is the linear average strategy, since an opponent
  infoset J is visited with probability ``pi_J(J) x`` a factor independent of t.
- ``sd-cfr``: the mixture of the iterations' strategies ``sigma^t_p = RM(V^t_p)`` (the network
  fitted at iteration t) weighted by t, which SD-CFR samples from the stored networks. On the
  sequence form the mixture is exact: its behavioural strategy is the realisation-weighted
  average ``sum_t t x^t_p(parent(I)) sigma^t_p(I, a)`` normalised per infoset (Kuhn's theorem),
  accumulated each iteration, so no network is stored.

Each run is written for itself and batched over trailing axes by ``registry.per_run``: seeds
and learning rates batch in one program. ``counters`` report the nodes touched (histories on
the traversals' frontiers) and the last fit's objective per player.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits.sequence_form.tensors import GameTensors
from jaxcfr.solvers import networks, neural_inputs, neural_memory, registry, traversal
from jaxcfr.solvers.mccfr_state import add_count, nodes_touched

__all__ = [
  "DeepCFRState",
  "solver",
  "counters",
  "NEURAL_OPTIONS",
  "NEURAL_HYPERPARAMETERS",
  "network",
  "split",
  "external_walks",
  "fit_advantages",
  "policy_network",
]


class DeepCFRState(NamedTuple):
  """One run's state (trailing batch axes ``B`` on every leaf when batched).

  Attributes:
    params: (MLPParams, MLPParams) the players' advantage networks.
    opt_state: the optimiser states of their last fits (kept for ``warm_start``).
    strategy: ([I0, A0], [I1, A1]) sigma^t, regret matching on the networks (uniform at first).
    memory: the players' advantage memories (neural_memory: a Tally or a Reservoir each).
    policy_memory: deep-cfr: the players' strategy memories; sd-cfr: ().
    average: sd-cfr: ([I0, A0], [I1, A1]) the t- and realisation-weighted sums of the
      strategies; deep-cfr: ().
    loss: [2] the last fit's objective per player.
    nodes_touched: [2] int32 (high, low) words of the histories the traversals touched.
    key: [2] uint32 raw PRNG key; seed: [] int32; learning_rate: [] float.
    iteration: [] int32 iterations done (both players updated).
  """

  params: tuple
  opt_state: tuple
  strategy: tuple
  memory: tuple
  policy_memory: tuple
  average: tuple
  loss: jax.Array
  nodes_touched: jax.Array
  key: jax.Array
  seed: jax.Array
  learning_rate: jax.Array
  iteration: jax.Array


def network(tensors: GameTensors, player: int, hidden: tuple, layer_norm: bool) -> networks.MLP:
  """The MLP from ``player``'s information-state encoding to its actions."""
  features = neural_inputs.infostate_features(tensors, player).shape[1]
  return networks.MLP((features,) + tuple(hidden) + (tensors.players[player].max_actions,), "relu", layer_norm)


def advantage_networks(tensors: GameTensors, key: jax.Array, rate, hidden: tuple, layer_norm: bool, clip) -> tuple:
  """(params, optimiser states): each player's fresh advantage network (from ``fold_in(key,
  player)``) and its Adam state at learning rate ``rate``; shared with ESCHER."""
  params = tuple(
    network(tensors, p, hidden, layer_norm).init(jax.random.fold_in(key, p), tensors.dtype) for p in (0, 1)
  )
  opt = networks.optimizer(rate, clip=clip)
  return params, tuple(opt.init(x) for x in params)


def empty_memories(tensors: GameTensors, memory: int) -> tuple:
  """Both players' empty memories of ``memory`` points (0: sufficient statistics), one row a
  (infoset, action)."""
  return tuple(neural_memory.empty(tp.num_infosets, tp.max_actions, memory, tensors.dtype) for tp in tensors.players)


def split(key: jax.Array, count: int) -> list:
  """``count`` typed keys from a raw [2] uint32 key."""
  return list(jax.random.split(jax.random.wrap_key_data(key), count))


def check_options(name: str, **options) -> None:
  for option in ("traversals", "steps"):
    if not isinstance(options[option], (int, np.integer)) or isinstance(options[option], bool) or options[option] < 1:
      raise ValueError(f"{name}: {option} must be an integer >= 1, got {options[option]!r}")
  for option in ("batch_size", "memory"):
    if not isinstance(options[option], (int, np.integer)) or isinstance(options[option], bool) or options[option] < 0:
      raise ValueError(f"{name}: {option} must be an integer >= 0 (0: {_ZERO[option]}), got {options[option]!r}")
  if not options["hidden"] or min(options["hidden"]) < 1:
    raise ValueError(f"{name}: hidden widths must be >= 1, got {options['hidden']!r}")


_ZERO = {"batch_size": "every row with data", "memory": "all samples as sufficient statistics"}


def solver(
  *,
  name: str = "deep-cfr",
  traversals: int = 1000,
  hidden: tuple = (64, 64),
  steps: int = 300,
  batch_size: int = 0,
  memory: int = 0,
  warm_start: bool = False,
  layer_norm: bool = True,
  clip: float = 10.0,
  policy_steps: int = 2000,
) -> registry.Solver:
  """``deep-cfr`` or ``sd-cfr`` with the declared options (see the module doc and
  ``NEURAL_OPTIONS``); hyperparameters seed and learning_rate."""
  check_options(name, traversals=traversals, steps=steps, batch_size=batch_size, memory=memory, hidden=hidden)
  single = name == "sd-cfr"
  hidden = tuple(int(h) for h in hidden)
  hyperparameters = {"seed": 0, "learning_rate": DEFAULT_LEARNING_RATE}

  fitting = dict(steps=steps, batch_size=batch_size, clip=clip, warm_start=warm_start)

  def nets(tensors):
    return [network(tensors, p, hidden, layer_norm) for p in (0, 1)]

  def init(tensors: GameTensors, seed=0, learning_rate=DEFAULT_LEARNING_RATE) -> DeepCFRState:
    dtype = tensors.dtype
    seed = jnp.asarray(seed, jnp.int32)
    rate = jnp.asarray(learning_rate, dtype)
    key = jax.random.key(seed)
    params, states = advantage_networks(tensors, key, rate, hidden, layer_norm, clip)
    tables = [(tp.num_infosets, tp.max_actions) for tp in tensors.players]
    return DeepCFRState(
      params=params,
      opt_state=states,
      strategy=tuple(evaluation.uniform_strategy(tp, dtype) for tp in tensors.players),
      memory=empty_memories(tensors, memory),
      policy_memory=() if single else empty_memories(tensors, memory),
      average=tuple(jnp.zeros(shape, dtype) for shape in tables) if single else (),
      loss=jnp.zeros((2,), dtype),
      nodes_touched=jnp.zeros((2,), jnp.int32),
      key=jax.random.key_data(jax.random.fold_in(key, 2)),
      seed=seed,
      learning_rate=rate,
      iteration=jnp.zeros((), jnp.int32),
    )

  def step(tensors: GameTensors, state: DeepCFRState) -> DeepCFRState:
    t = state.iteration + 1
    keys = split(state.key, 7)
    params, opt_states, strategy = list(state.params), list(state.opt_state), list(state.strategy)
    memories, policy_memories, average = list(state.memory), list(state.policy_memory), list(state.average)
    losses, count = [], state.nodes_touched
    for p, net in enumerate(nets(tensors)):
      treeplex = tensors.players[p]
      walks = external_walks(tensors, tuple(strategy), keys[1 + 3 * p], p, traversals)
      rows = walks.index.reshape(-1)
      memory_key, fit_key = jax.random.split(keys[2 + 3 * p])
      memories[p] = neural_memory.remember(
        memories[p], rows, walks.regret.reshape(rows.shape[0], -1), rows < treeplex.num_infosets, t, memory_key
      )
      if not single:
        q = 1 - p
        seen = walks.opponent_index.reshape(-1)
        sigma = walks.opponent_sigma.reshape(seen.shape[0], -1)
        valid = seen < tensors.players[q].num_infosets
        policy_memories[q] = neural_memory.remember(policy_memories[q], seen, sigma, valid, t, keys[3 + 3 * p])
      count = add_count(count, walks.nodes_touched.sum())
      params[p], opt_states[p], loss, strategy[p] = fit_advantages(
        tensors, p, net, memories[p], params[p], opt_states[p], state, fit_key, **fitting
      )
      losses.append(loss)
      if single:  # sigma^t_p = RM(V^t_p) joins the mixture with weight t
        plan = evaluation.realization_plan(treeplex, strategy[p])
        average[p] = average[p] + t.astype(tensors.dtype) * plan[treeplex.parent_seq][:, None] * strategy[p]
    return state._replace(
      params=tuple(params),
      opt_state=tuple(opt_states),
      strategy=tuple(strategy),
      memory=tuple(memories),
      policy_memory=tuple(policy_memories),
      average=tuple(average),
      loss=jnp.stack(losses).astype(state.loss.dtype),
      nodes_touched=count,
      key=jax.random.key_data(keys[0]),
      iteration=t,
    )

  def average_strategy(tensors: GameTensors, state: DeepCFRState):
    if single:
      return tuple(evaluation.normalise_rows(tp, a) for tp, a in zip(tensors.players, state.average))
    return tuple(
      policy_network(tensors, p, state, hidden, layer_norm, clip, policy_steps, batch_size) for p in range(2)
    )

  def current_strategy(tensors: GameTensors, state: DeepCFRState):
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
  )
  if not single:
    options["policy_steps"] = policy_steps
  return registry.Solver(
    name=name,
    hyperparameters=hyperparameters,
    options=options,
    counters=counters,
    **registry.per_run(
      init,
      hyperparameters,
      step=step,
      average_strategy=jax.jit(average_strategy),  # deep-cfr fits a network: compiled once
      current_strategy=current_strategy,
    ),
  )


def external_walks(tensors: GameTensors, strategy: tuple, key: jax.Array, player: int, count: int):
  """``count`` external-sampling traversals for ``player`` under ``strategy`` (([I0, A0],
  [I1, A1])) as one vmapped program: a ``traversal.Traversal`` whose leaves have a leading
  axis [count] (rows ``index`` [count, R], ``regret`` [count, R, A], ...)."""
  needed = traversal.uniforms_needed(tensors, player=player, sample_opponent=True)
  uniforms = jax.random.uniform(key, (count, needed), tensors.dtype)
  return jax.vmap(
    lambda u: traversal.traverse(
      tensors, strategy, None, player=player, sample_opponent=True, matched=False, uniforms=u
    )
  )(uniforms)


def fit_advantages(
  tensors, player: int, net, memory, params, opt_state, state, key, *, steps, batch_size, clip, warm_start
):
  """Fits ``player``'s advantage network to its memory (from the run's fresh weights, or from
  ``params`` and ``opt_state`` when ``warm_start``) and returns (params, optimiser state, []
  last objective, [I, A] regret matching on its outputs: the next strategy)."""
  treeplex = tensors.players[player]
  targets, weights = neural_memory.statistics(memory, treeplex.num_infosets)
  opt = networks.optimizer(state.learning_rate, clip=clip)
  if not warm_start:
    params = net.init(jax.random.fold_in(jax.random.key(state.seed), player), tensors.dtype)
    opt_state = opt.init(params)
  x = jnp.asarray(neural_inputs.infostate_features(tensors, player), tensors.dtype)
  params, opt_state, loss = neural_memory.fit_values(
    net, params, opt_state, opt, x, treeplex.legal, targets, weights, steps=steps, batch_size=batch_size, key=key
  )
  return params, opt_state, loss, networks.regret_matching_argmax(net.apply(params, x), treeplex.legal)


def policy_network(tensors, player: int, state: DeepCFRState, hidden, layer_norm, clip, steps, batch_size) -> jax.Array:
  """[I, A] the average-strategy network of ``player``, fitted from fresh weights to its
  strategy memory (deterministic in the state: the keys come from the run's seed)."""
  treeplex = tensors.players[player]
  net = network(tensors, player, hidden, layer_norm)
  key = jax.random.fold_in(jax.random.fold_in(jax.random.key(state.seed), 11), player)
  init_key, fit_key = jax.random.split(key)
  fresh = net.init(init_key, tensors.dtype)
  opt = networks.optimizer(state.learning_rate, clip=clip)
  targets, weights = neural_memory.statistics(state.policy_memory[player], treeplex.num_infosets)
  x = jnp.asarray(neural_inputs.infostate_features(tensors, player), tensors.dtype)
  params, _, _ = neural_memory.fit_policy(
    net,
    fresh,
    opt.init(fresh),
    opt,
    x,
    treeplex.legal,
    targets,
    weights,
    steps=steps,
    batch_size=batch_size,
    key=fit_key,
  )
  return networks.masked_policy(net.apply(params, x), treeplex.legal)


def counters(state: DeepCFRState) -> dict:
  """Host-side running counts: nodes_touched (int64, [*B]) and the last fits' objectives
  (advantage_loss, [2, *B])."""
  return {"nodes_touched": nodes_touched(state), "advantage_loss": np.asarray(state.loss)}


DEFAULT_LEARNING_RATE = 1e-3
NEURAL_OPTIONS = (
  registry.Param("traversals", int, 1000, "traversals (or trajectories) per player and iteration, one program", low=1),
  registry.Param("hidden", "ints", (64, 64), "the networks' hidden widths (ReLU)", low=1),
  registry.Param("steps", int, 300, "optimiser steps of each advantage (regret) fit per iteration", low=1),
  registry.Param(
    "batch_size", int, 0, "rows per optimiser step, drawn by weight (0: every row with data, weighted)", low=0
  ),
  registry.Param("memory", int, 0, "reservoir points per player and memory (0: all samples, as statistics)", low=0),
  registry.Param("warm_start", bool, False, "fit from the last iteration's weights (default: the same fresh ones)"),
  registry.Param("layer_norm", bool, True, "normalise the networks' last hidden layer"),
  registry.Param("clip", float, 10.0, "clip gradients at this global norm (0: no clipping)", low=0.0),
)
POLICY_STEPS = registry.Param("policy_steps", int, 2000, "optimiser steps of the average-strategy fit", low=1)
NEURAL_HYPERPARAMETERS = (
  registry.SEED,
  registry.Param("learning_rate", float, DEFAULT_LEARNING_RATE, "Adam's step size", batchable=True, low=0.0),
)

registry.register(
  "deep-cfr",
  solver,
  summary="Deep CFR (Brown, Lerer, Gross and Sandholm 2019): advantage networks from external sampling, "
  "an average-strategy network",
  options=NEURAL_OPTIONS + (POLICY_STEPS,),
  hyperparameters=NEURAL_HYPERPARAMETERS,
)
registry.register(
  "sd-cfr",
  solver,
  summary="Single Deep CFR (Steinberger 2019): Deep CFR's advantage networks; the average is the exact mixture "
  "of their strategies",
  options=NEURAL_OPTIONS,
  hyperparameters=NEURAL_HYPERPARAMETERS,
)
