"""The CFR family on the public tree (vector-form CFR): jaxcfr.solvers.cfr's algorithms with
regrets, strategies and averages as ``[N_p, A, H, *B]`` arrays over each player's decision
nodes, action slots and private hands.

The parameterisation, the presets and the update order are cfr.py's (CFR, CFR+, LCFR,
DCFR(alpha, beta, gamma) of Brown and Sandholm, "Solving Imperfect-Information Games via
Discounted Regret Minimization", 2019; PCFR+ of Farina, Kroer and Sandholm, "Faster Game
Solving via Predictive Blackwell Approachability", 2021; alternating updates, player 0
first, player 1 then sees player 0's new strategy; regret matching uniform where no regret
is positive; the average of own reach times strategy, kept normalised through
``weight_ratio``). The counterfactual values of one public node are those of the sequence
form's infosets at it scaled by one positive constant (jaxcfr.core.public_tree), so the
iterates are the sequence form's: tests/test_public_tree.py checks them to 1e-12 in
float64 on Kuhn, one-card poker and Leduc.

Registered for the public-tree representation under the presets' names
(``jaxcfr.solvers.get("cfr+", "public_tree")``; option ``terminals``: "sorted" prefix sums or
"dense" ``[H, H]`` products). The plain functions:

    tree = public_tree.to_device(public_tree.build(public_tree.leduc_rules()))
    step = vector_cfr.preset_step("cfr+")
    state = vector_cfr.init(tree, **vector_cfr.preset_hyperparameters("cfr+"))
    state = vector_cfr.run(tree, state, 100, step)
    profile = vector_cfr.average_strategy(tree, state)      # ([N_0, A, H], [N_1, A, H])
    vector_cfr.exploitability(tree, profile)

Two hooks serve depth-limited solving and re-solving (jaxcfr.solvers.resolving): on a
depth-limited tree (jaxcfr.games.poker_rules.Subgame with ``rounds``) ``step`` asks a
``LeafValueFn`` for both players' values at the leaves, given both ranges there; and
``root_ranges`` replaces the tree's ranges at the root for one step (the CFR-D gadget's
opponent range). The state keeps each player's counterfactual values at the root, or at
every node (``init(..., keep_values=True)``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcfr.core import public_tree as ops
from jaxcfr.core import regret
from jaxcfr.game.public_tree import PublicTreeTensors
from jaxcfr.game.representation import Representation
from jaxcfr.solvers import cfr, registry
from jaxcfr.solvers.cfr import ALGORITHMS, INF, PRESETS

__all__ = [
  "ALGORITHMS",
  "PRESETS",
  "VectorCFRState",
  "LeafValueFn",
  "LeafSolver",
  "init",
  "step",
  "preset_step",
  "preset_hyperparameters",
  "run",
  "average_strategy",
  "current_strategy",
  "leaf_values",
  "running_average",
  "best_response_values",
  "nash_conv",
  "exploitability",
  "to_sequence_form",
]

best_response_values = ops.best_response_values
nash_conv = ops.nash_conv
exploitability = ops.exploitability
to_sequence_form = ops.to_sequence_form

LeafValueFn = Callable[[PublicTreeTensors, jax.Array], jax.Array]
"""``leaf_fn(tree, ranges)``: ``ranges`` [2, L, H, *B], both players' ranges at the tree's
``L`` leaves (``tree.leaf_nodes``) -> [2, L, H, *B] both players' counterfactual values
there (in the public tree's units: jaxcfr.core.public_tree)."""


class LeafSolver(NamedTuple):
  """A leaf value function with a state carried across a solve's iterations (a solve of the
  game below the leaves warm-started from the last call's: jaxcfr.solvers.lookahead's
  ``warm_leaf_values``); ``step`` accepts it wherever it accepts a ``LeafValueFn``.

  Attributes:
    init: ``init(tree, batch) -> leaf_state`` for the depth-limited ``tree`` and the run's
      batch shape ``batch``.
    apply: ``apply(tree, ranges, leaf_state) -> (values, leaf_state)``, ``LeafValueFn``'s
      ranges and values.
  """

  init: Callable
  apply: Callable


class VectorCFRState(NamedTuple):
  """State of one run, or of a batch with trailing axes ``B``; the fields of
  jaxcfr.solvers.cfr.CFRState with tables over public nodes and hands.

  Attributes:
    regrets, strategy, average: ([N_0, A, H, *B], [N_1, A, H, *B]).
    last_regret: the same shapes for a predictive solver, else ([0, A, H, *B], ...).
    iteration: [*B] int32; weight_ratio, alpha, beta, gamma: [*B] float;
    averaging_delay: [*B] int32.
    values: [2, K, H, *B] each player's counterfactual values under the strategies its
      last update saw (zeros before the first step), at every node (``K = N``: ``init``'s
      ``keep_values``) or at the root only (``K = 1``).
    leaf_state: a ``LeafSolver``'s state (``init``'s ``leaf_fn``), else ().
  """

  regrets: tuple
  strategy: tuple
  average: tuple
  last_regret: tuple
  iteration: jax.Array
  weight_ratio: jax.Array
  alpha: jax.Array
  beta: jax.Array
  gamma: jax.Array
  averaging_delay: jax.Array
  values: jax.Array
  leaf_state: tuple = ()


def _legal(tree: PublicTreeTensors, player: int, ndim: int) -> jax.Array:
  """[N_p, A, 1, ...] the legal mask broadcast over hands and batch axes."""
  legal = tree.legal[player]
  return legal.reshape(legal.shape + (1,) * (ndim - 2))


def init(
  tree: PublicTreeTensors,
  *,
  alpha=INF,
  beta=INF,
  gamma=0.0,
  averaging_delay=0,
  predictive: bool = False,
  keep_values: bool = False,
  leaf_fn: LeafValueFn | LeafSolver | None = None,
) -> VectorCFRState:
  """A fresh state: zero regrets, uniform strategies. Hyperparameters of shape ``B`` make
  a batch (cfr.init), and so do the tree's ranges ``[2, H, *B]`` (a batch of subgames:
  jaxcfr.core.public_tree.with_initial_ranges); the batch is their broadcast.
  ``keep_values``: the state keeps both players' values at every node, not only at the
  root (re-solving averages them: jaxcfr.solvers.resolving). ``leaf_fn``: the leaf
  function ``step`` will be given; a ``LeafSolver``'s state starts here."""
  cfr.check_hyperparameters(alpha=alpha, beta=beta, gamma=gamma, averaging_delay=averaging_delay)
  dtype = tree.dtype
  hyper, batch = cfr.broadcast_hyperparameters(dtype, alpha, beta, gamma, averaging_delay)
  batch = jnp.broadcast_shapes(batch, tree.initial_range.shape[2:])
  hyper = {k: jnp.broadcast_to(v, batch) for k, v in hyper.items()}
  shapes = [tree.legal[p].shape + (tree.num_hands,) + batch for p in (0, 1)]
  zeros = tuple(jnp.zeros(s, dtype) for s in shapes)
  uniform = tuple(
    jnp.broadcast_to(ops.uniform_strategy(tree, p).reshape(s[:3] + (1,) * len(batch)), s) for p, s in enumerate(shapes)
  )
  last = zeros if predictive else tuple(jnp.zeros((0,) + s[1:], dtype) for s in shapes)
  return VectorCFRState(
    regrets=zeros,
    strategy=uniform,
    average=zeros,
    last_regret=last,
    iteration=jnp.zeros(batch, jnp.int32),
    weight_ratio=jnp.zeros(batch, dtype),
    **hyper,
    values=jnp.zeros((2, tree.kind.shape[0] if keep_values else 1, tree.num_hands) + batch, dtype),
    leaf_state=leaf_fn.init(tree, batch) if isinstance(leaf_fn, LeafSolver) else (),
  )


def _update_player(
  tree, state, player, strategies, opponent_ranges, own_ranges, t, weight_ratio, predictive, dense, leaf_values
):
  """One player's regret, average and strategy update (cfr._update_player on the public tree)."""
  values = ops.counterfactual_values(
    tree, player, strategies[player], opponent_ranges, dense=dense, leaf_values=leaf_values
  )
  q = ops.action_values(tree, player, values)  # [N_p, A, H, *B]
  v = values[tree.decision_nodes[player]]  # [N_p, H, *B]
  legal = _legal(tree, player, q.ndim)
  instant = jnp.where(legal, q - jnp.expand_dims(v, 1), 0)
  regrets = state.regrets[player] + instant
  factor = jnp.where(regrets >= 0, cfr.discount(t, state.alpha), cfr.discount(t, state.beta))
  regrets = regrets * factor.astype(regrets.dtype)
  reach = jnp.expand_dims(own_ranges[tree.decision_nodes[player]], 1)
  average = running_average(weight_ratio, state.average[player], reach * strategies[player])
  matched = regrets + instant if predictive else regrets
  return regrets, average, instant, regret.regret_matching(matched, legal), values[: state.values.shape[1]]


def running_average(weight_ratio: jax.Array, average: jax.Array, current: jax.Array) -> jax.Array:
  """``average`` [..., *B] updated with this iteration's ``current`` with the average
  strategy's weights (``weight_ratio`` [*B], the state's after the step: the weights so far
  over this iteration's), so that values kept beside a run average like its strategies."""
  mix = jnp.where(weight_ratio > 0, 1.0 / jnp.where(weight_ratio > 0, weight_ratio, 1.0), 0.0).astype(average.dtype)
  return average * (1 - mix) + current * mix


def leaf_values(
  tree: PublicTreeTensors, leaf_fn: LeafValueFn | LeafSolver | None, reach, leaf_state: tuple = ()
) -> jax.Array | None:
  """[2, L, H, *B] ``leaf_fn``'s values at the leaves given both players' ranges ``reach``
  ([N, H, *B] each) (a ``LeafSolver`` from ``leaf_state``), or None for a tree without
  leaves."""
  return _leaf_call(tree, leaf_fn, reach, leaf_state)[0]


def _leaf_call(tree, leaf_fn, reach, leaf_state) -> tuple:
  """``leaf_values`` and the leaf state after the call."""
  if tree.leaf_nodes.shape[0] == 0:
    return None, leaf_state
  if leaf_fn is None:
    raise ValueError(f"the tree has {tree.leaf_nodes.shape[0]} depth-limit leaves: give a leaf_fn for their values")
  ranges = jnp.stack([r[tree.leaf_nodes] for r in reach])
  if isinstance(leaf_fn, LeafSolver):
    return leaf_fn.apply(tree, ranges, leaf_state)
  return leaf_fn(tree, ranges), leaf_state


def step(
  tree: PublicTreeTensors,
  state: VectorCFRState,
  *,
  alternating: bool = True,
  predictive: bool = False,
  dense=False,
  leaf_fn: LeafValueFn | LeafSolver | None = None,
  root_ranges: jax.Array | None = None,
) -> VectorCFRState:
  """One iteration: player 0's update, then player 1's (against player 0's new strategy
  if ``alternating``, else against its old one). ``dense``: terminal values by [H, H]
  products instead of sorted prefix sums. ``leaf_fn``: the values at a depth-limited
  tree's leaves (asked before each player's update, with the ranges it sees; a
  ``LeafSolver`` from the state's ``leaf_state``, which ``init`` made).
  ``root_ranges``: [2, H, *B] both players' ranges at the root for this step (default the
  tree's, ``tree.initial_range``)."""
  t = (state.iteration + 1).astype(state.alpha.dtype)
  weight_ratio = cfr.next_weight_ratio(state, t)
  current, new = list(state.strategy), list(state.strategy)
  regrets, average, last = list(state.regrets), list(state.average), list(state.last_regret)
  initial = (None, None) if root_ranges is None else root_ranges
  reach = [ops.ranges(tree, p, s, initial[p]) for p, s in enumerate(current)]
  values = [None, None]
  leaves, leaf_state = _leaf_call(tree, leaf_fn, reach, state.leaf_state)
  for player in (0, 1):
    regrets[player], average[player], instant, new[player], values[player] = _update_player(
      tree,
      state,
      player,
      current,
      reach[1 - player],
      reach[player],
      t,
      weight_ratio,
      predictive,
      dense,
      None if leaves is None else leaves[player],
    )
    if predictive:
      last[player] = instant
    if alternating and player == 0:  # player 1 updates against player 0's new strategy
      current[player] = new[player]
      reach[player] = ops.ranges(tree, player, new[player], initial[player])
      leaves, leaf_state = _leaf_call(tree, leaf_fn, reach, leaf_state)
  return state._replace(
    values=jnp.stack(values).astype(state.values.dtype),
    regrets=tuple(regrets),
    strategy=tuple(new),
    average=tuple(average),
    last_regret=tuple(last),
    iteration=state.iteration + 1,
    weight_ratio=weight_ratio,
    leaf_state=leaf_state,
  )


@functools.cache
def preset_step(
  algorithm: str,
  updates: str | None = None,
  *,
  dense: bool = False,
  leaf_fn: LeafValueFn | LeafSolver | None = None,
) -> Callable:
  """``step(tree, state)`` of a preset (cfr.PRESETS) with its update order (default: the
  preset's) and ``leaf_fn`` for depth-limited trees; cached, so that ``run`` compiles once
  per preset."""
  if algorithm not in PRESETS:
    raise ValueError(f"unknown CFR algorithm {algorithm!r}; choose one of {list(ALGORITHMS)}")
  preset = PRESETS[algorithm]
  updates = updates or preset.updates
  if updates not in ("alternating", "simultaneous"):
    raise ValueError(f"updates must be 'alternating' or 'simultaneous', got {updates!r}")
  return functools.partial(
    step, alternating=updates == "alternating", predictive=preset.predictive, dense=dense, leaf_fn=leaf_fn
  )


def preset_hyperparameters(algorithm: str) -> dict:
  """``init``'s keyword arguments of a preset: alpha, beta, gamma, averaging_delay and
  predictive."""
  if algorithm not in PRESETS:
    raise ValueError(f"unknown CFR algorithm {algorithm!r}; choose one of {list(ALGORITHMS)}")
  preset = PRESETS[algorithm]
  return dict(alpha=preset.alpha, beta=preset.beta, gamma=preset.gamma, averaging_delay=0, predictive=preset.predictive)


@functools.partial(jax.jit, static_argnames=("step_fn",))
def _run(tree, state, num_iterations, step_fn):
  return jax.lax.fori_loop(0, num_iterations, lambda _, s: step_fn(tree, s), state)


def run(tree: PublicTreeTensors, state: VectorCFRState, num_iterations, step_fn: Callable) -> VectorCFRState:
  """``num_iterations`` (traced: no recompilation per count) of ``step_fn`` (e.g. a
  ``preset_step``), jitted."""
  return _run(tree, state, num_iterations, step_fn)


def average_strategy(tree: PublicTreeTensors, state: VectorCFRState) -> tuple:
  """The average profile ([N_p, A, H, *B] each); uniform where the player never reached."""
  return tuple(regret.normalise(a, _legal(tree, p, a.ndim)) for p, a in enumerate(state.average))


def current_strategy(tree: PublicTreeTensors, state: VectorCFRState) -> tuple:
  """The current profile sigma^t ([N_p, A, H, *B] each)."""
  del tree
  return state.strategy


TERMINALS = registry.Param(
  "terminals",
  str,
  "sorted",
  "public tree: showdowns by prefix sums over hands sorted by strength (O(H)) or dense [H, H] products",
  choices=("sorted", "dense"),
)


def solver(name: str, *, updates: str | None = None, terminals: str = "sorted") -> registry.Solver:
  """The registered public-tree solver of a CFR preset (``get(name, "public_tree", ...)``)."""
  step_fn = preset_step(name, updates, dense=terminals == "dense")
  defaults = preset_hyperparameters(name)
  predictive = defaults.pop("predictive")

  def init_with_defaults(tree, **hyperparameters):
    return init(tree, **{**defaults, **hyperparameters}, predictive=predictive)

  return registry.Solver(
    name=name,
    init=init_with_defaults,
    step=step_fn,
    average_strategy=average_strategy,
    current_strategy=current_strategy,
    hyperparameters=defaults,
    options={"updates": updates or PRESETS[name].updates, "terminals": terminals},
  )


for _name in ALGORITHMS:
  registry.register(
    _name,
    functools.partial(solver, _name),
    summary=cfr.SUMMARIES[_name],
    representation=Representation.PUBLIC_TREE,
    options=(cfr.UPDATES, TERMINALS),
    hyperparameters=cfr.declared_hyperparameters(_name),
  )
