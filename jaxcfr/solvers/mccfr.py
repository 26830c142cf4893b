"""The sampled CFR family (MCCFR) as registered solvers.

Three samplers of Lanctot et al. 2009 (Lanctot, Waugh, Zinkevich & Bowling 2009), each an unbiased
estimate of the counterfactual regret ``r(I, a) = q(I, a) - v(I)`` of CFR (Lanctot et al. 2009, Lemma 1):

``mccfr-os``
    outcome sampling: see jaxcfr.solvers.outcome_sampling.
``mccfr-es``
    external sampling (Lanctot et al. 2009, eq. 11). Per update of player ``i``, one traversal
    expands every action of ``i`` and follows one sampled child elsewhere: an action drawn
    from ``sigma_-i`` at every visited opponent history (per visited history, as OpenSpiel
    does; the paper's one action per opponent infoset is equally unbiased, but costs a draw
    per infoset) and one outcome at every visited chance node. ``q(z) = pi_-i(z) pi_c(z)``
    cancels, so the sampled value of a history is ``u_i`` at terminals, ``sum_a sigma(a)
    v(ha)`` at own nodes and the sampled child's value elsewhere, and each visited own
    history adds ``v(ha) - v(h)`` to its infoset's regrets: together ``q~(I, a) - v~(I)``.
``cfr-cs``
    chance sampling (Lanctot et al. 2009, section 3, Zinkevich et al.'s chance-sampled CFR). One
    outcome per visited chance node is drawn; both players' actions are expanded (the
    opponent's by ``sigma_-i``), and an own history's regret row is weighted by the
    opponent's reach ``pi_-i(h)`` (chance probabilities cancel).
    Both are frontier walks over the tree arrays (``jaxcfr.solvers.traversal``): one depth
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

  * ``mccfr-os``: see jaxcfr.solvers.outcome_sampling.
  * ``mccfr-es``: OpenSpiel's default "simple" averaging: while player ``i`` traverses,
    every visited history of the opponent adds the opponent's current ``sigma_-i(J, .)``
    (expectation ``pi_-i(J) sum_{h in J} pi_c(h) sigma``, again a per-infoset constant),
    scatter-added from the visited rows.
  * ``cfr-cs``: CFR's exact average ``s_I += pi_i(I) sigma(I, .)`` (one treeplex pass, the
    one O(I A) part of a chance-sampled iteration).

Nodes touched (Lanctot et al. 2009, section 5, Figure 1): histories the algorithm's traversal visits.
Outcome sampling: the length of each sampled path, root and terminal included; external
and chance sampling: the histories consistent with the sample (every chance and sampled
opponent edge on the path taken), per traversal. ``nodes_touched(state)`` reads the
running total (kept exact as two int32 words).

Each solver steps one run (``MCCFRState``, jaxcfr.solvers.mccfr_state); the registry
batches runs (seeds, epsilons) over trailing axes by ``vmap``.

"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.base import row_updates
from jaxcfr.kits.sequence_form import sampling as sampling_lib
from jaxcfr.kits.sequence_form.arrays import GameArrays
from jaxcfr.kits.sequence_form.tensors import GameTensors, padded_sequence_ids
from jaxcfr.solvers import outcome_sampling, registry, traversal
from jaxcfr.solvers.mccfr_state import (
  DEFAULT_EPSILON,
  MCCFRState,
  add_count,
  average_strategy,
  current_strategy,
  init,
  nodes_touched,
)

__all__ = [
  "ALGORITHMS",
  "SampledRegret",
  "cfr_nodes_touched",
  "histories_per_sequence",
  "external_sampling_estimate",
  "chance_sampling_estimate",
  "EPSILON",
  "TRAJECTORIES",
  "AVERAGING",
  "outcome_sampling_solver",
  "external_sampling_solver",
  "chance_sampling_solver",
  "counters",
]

ALGORITHMS = ("mccfr-os", "mccfr-es", "cfr-cs")


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
      ``jaxcfr.solvers.traversal``).
  """

  regret: jax.Array
  values: jax.Array
  opponent_visits: jax.Array
  nodes_touched: jax.Array
  frontier_sizes: jax.Array
  overflow: jax.Array


def cfr_nodes_touched(
  tensors: GameTensors,
  opponent_strategy: jax.Array,
  player: int,
  *,
  pruning: bool,
  histories_per_sequence: jax.Array | None = None,
) -> jax.Array:
  """Histories one vanilla-CFR pass for ``player`` visits (Lanctot et al. 2009, section 5): all of them, or
  with pruning only those the opponent reaches with positive probability (the walk skips
  a subtree where the opponent's reach is zero).

  ``histories_per_sequence`` ([S] of the opponent, from ``histories_per_sequence``), if given,
  counts in sequence form: the opponent's reach of a history is its realization plan at the
  opponent's last sequence there, so the count is a sum over sequences, not a pass over
  every history (on the paper's games that pass costs more than the CFR iteration)."""
  tree = tensors.tree
  if not pruning:
    return jnp.asarray(tree.parent.shape[0], jnp.int32)
  if histories_per_sequence is not None:
    plan = evaluation.realization_plan(tensors.players[1 - player], opponent_strategy)
    return jnp.where(plan > 0, histories_per_sequence, 0).sum().astype(jnp.int32)
  reach = sampling_lib.history_reach(tree, opponent_strategy, 1 - player)
  return (reach > 0).sum().astype(jnp.int32)


def histories_per_sequence(arrays: GameArrays, player: int) -> np.ndarray:
  """[S] int32, for each padded sequence of ``player``, the histories whose last sequence of
  ``player`` it is (host side: one pass over ``arrays.sequence``; for ``cfr_nodes_touched``)."""
  owner = arrays.players[player]
  counts = np.zeros(1 + owner.num_infosets * owner.max_actions, np.int32)
  counts[padded_sequence_ids(owner)] = np.bincount(arrays.sequence[player], minlength=owner.num_sequences)
  return counts


def _dense(tensors: GameTensors, walk: traversal.Traversal, player: int) -> SampledRegret:
  """Scatters one traversal's rows into dense [I, A] tables."""
  num_infosets, width = tensors.players[player].legal.shape
  num_opp = tensors.players[1 - player].num_infosets
  dense = lambda v: jnp.zeros((num_infosets, width), v.dtype).at[walk.index].add(v, mode="drop")
  visits = jnp.zeros((num_opp,), walk.regret.dtype).at[walk.opponent_index].add(1.0, mode="drop")
  return SampledRegret(
    regret=dense(walk.regret),
    values=dense(walk.values),
    opponent_visits=visits,
    nodes_touched=walk.nodes_touched,
    frontier_sizes=walk.frontier_sizes,
    overflow=walk.overflow,
  )


def external_sampling_estimate(tensors: GameTensors, strategies, key: jax.Array, *, player: int) -> SampledRegret:
  """One external-sampling traversal for ``player`` (Lanctot et al. 2009, eq. 11): one action drawn from
  sigma_-i at every visited opponent history and one outcome at every visited chance node;
  own actions expanded (a frontier walk, see ``jaxcfr.solvers.traversal``).

  Args:
    strategies: (sigma0 [I0, A0], sigma1 [I1, A1]).
    key: a raw [2] uint32 PRNG key.
  """
  walk = traversal.traverse(tensors, tuple(strategies), key, player=player, sample_opponent=True, matched=False)
  return _dense(tensors, walk, player)


def chance_sampling_estimate(tensors: GameTensors, strategies, key: jax.Array, *, player: int) -> SampledRegret:
  """One chance-sampled CFR pass for ``player``: one outcome at every visited chance node,
  both players' actions expanded (the opponent's reach weights the regrets)."""
  walk = traversal.traverse(tensors, tuple(strategies), key, player=player, sample_opponent=False, matched=False)
  return _dense(tensors, walk, player)


def _traversal_uniforms(tensors, key: jax.Array, sample_opponent: bool):
  """(next key, [uniforms of player 0's traversal, of player 1's]) from one draw of bits
  (one threefry call per iteration: on a CPU each call costs more than a frontier level)."""
  needed = [traversal.uniforms_needed(tensors, player=p, sample_opponent=sample_opponent) for p in (0, 1)]
  words = sampling_lib.words_per_uniform(tensors.dtype)
  bits = jax.random.bits(jax.random.wrap_key_data(key), (2 + words * sum(needed),), jnp.uint32)
  uniforms = sampling_lib.uniform_from_bits(bits[2:], tensors.dtype)
  return bits[:2], [uniforms[: needed[0]], uniforms[needed[0] :]]


def _external_step(tensors, state: MCCFRState) -> MCCFRState:
  next_key, uniforms = _traversal_uniforms(tensors, state.key, True)
  regrets, average = list(state.regrets), list(state.average)
  count = state.nodes_touched
  for player in (0, 1):  # player 1's traversal sees player 0's new regrets
    walk = traversal.traverse(
      tensors, tuple(regrets), None, player=player, sample_opponent=True, matched=True, uniforms=uniforms[player]
    )
    regrets[player] = row_updates.add_rows(regrets[player], walk.index, walk.regret)
    opponent = 1 - player  # simple averaging: sigma_-i at every visited opponent history
    average[opponent] = row_updates.add_rows(average[opponent], walk.opponent_index, walk.opponent_sigma)
    count = add_count(count, walk.nodes_touched)
  return state._replace(
    regrets=tuple(regrets), average=tuple(average), nodes_touched=count, key=next_key, iteration=state.iteration + 1
  )


def _chance_step(tensors, state: MCCFRState) -> MCCFRState:
  next_key, uniforms = _traversal_uniforms(tensors, state.key, False)
  regrets, average = list(state.regrets), list(state.average)
  count = state.nodes_touched
  for player in (0, 1):
    treeplex = tensors.players[player]
    sigma = evaluation.regret_matching(treeplex, regrets[player])  # the exact average needs every row
    plan = evaluation.realization_plan(treeplex, sigma)
    average[player] = average[player] + plan[treeplex.parent_seq][:, None] * sigma
    walk = traversal.traverse(
      tensors, tuple(regrets), None, player=player, sample_opponent=False, matched=True, uniforms=uniforms[player]
    )
    regrets[player] = row_updates.add_rows(regrets[player], walk.index, walk.regret)
    count = add_count(count, walk.nodes_touched)
  return state._replace(
    regrets=tuple(regrets), average=tuple(average), nodes_touched=count, key=next_key, iteration=state.iteration + 1
  )


EPSILON = registry.Param(
  "epsilon",
  float,
  DEFAULT_EPSILON,
  "outcome sampling's exploration: the updating player samples epsilon * uniform + (1 - epsilon) * sigma",
  batchable=True,
  low=0.0,
  high=1.0,
)
TRAJECTORIES = registry.Param(
  "trajectories", int, 1, "outcome sampling's trajectories per update (1: the papers' algorithm)", low=1
)
AVERAGING = registry.Param(
  "averaging",
  str,
  "stochastic",
  "the average strategy's rule: outcome sampling stochastic or optimistic; rcfr uniform or linear",
  choices=outcome_sampling.AVERAGING,
)
UPDATES = registry.Param(
  "updates",
  str,
  "alternating",
  "outcome sampling's iteration: alternating (OpenSpiel's, a walk per player) or simultaneous (the papers': "
  "one walk updates both players; needs exploring both)",
  choices=outcome_sampling.UPDATES,
)
EXPLORING = registry.Param(
  "exploring",
  str,
  "updating",
  "whose infosets outcome sampling explores epsilon-greedily: the updating player's (OpenSpiel's) or both players'",
  choices=outcome_sampling.EXPLORING,
)


def _solver(name: str, step, hyperparameters: dict, options: dict) -> registry.Solver:
  return registry.Solver(
    name=name,
    hyperparameters=hyperparameters,
    options=options,
    counters=counters,
    **registry.per_run(
      init,
      hyperparameters,
      step=step,
      average_strategy=average_strategy,
      current_strategy=current_strategy,
    ),
  )


def outcome_sampling_solver(
  *, trajectories: int, averaging: str, exploring: str = "updating", updates: str = "alternating"
) -> registry.Solver:
  """``mccfr-os``: outcome sampling (jaxcfr.solvers.outcome_sampling) with ``trajectories``
  per update, the ``averaging`` rule, the ``exploring`` players and the ``updates`` scheme;
  hyperparameters seed and epsilon.

  Raises:
    ValueError: see ``outcome_sampling.check_scheme`` (e.g. simultaneous updates without
      ``exploring="both"``)."""
  outcome_sampling.check_scheme(exploring, updates)
  options = {"trajectories": trajectories, "averaging": averaging, "exploring": exploring}
  step = functools.partial(outcome_sampling.outcome_step, updates=updates, **options)
  options["updates"] = updates
  return _solver("mccfr-os", step, {"seed": 0, "epsilon": DEFAULT_EPSILON}, options)


def external_sampling_solver() -> registry.Solver:
  """``mccfr-es``: external sampling; hyperparameter seed."""
  return _solver("mccfr-es", _external_step, {"seed": 0}, {})


def chance_sampling_solver() -> registry.Solver:
  """``cfr-cs``: chance-sampled CFR; hyperparameter seed."""
  return _solver("cfr-cs", _chance_step, {"seed": 0}, {})


def counters(state) -> dict:
  """The running count of nodes touched (int64, [*B])."""
  return {"nodes_touched": nodes_touched(state)}


registry.register(
  "mccfr-os",
  outcome_sampling_solver,
  summary="outcome-sampling MCCFR (Lanctot et al. 2009; Ponsen et al. 2011, Algorithm 1)",
  options=(TRAJECTORIES, AVERAGING, EXPLORING, UPDATES),
  hyperparameters=(registry.SEED, EPSILON),
)
registry.register(
  "mccfr-es",
  external_sampling_solver,
  summary="external-sampling MCCFR (Lanctot et al. 2009)",
  hyperparameters=(registry.SEED,),
)
registry.register(
  "cfr-cs",
  chance_sampling_solver,
  summary="chance-sampled CFR (Lanctot et al. 2009, section 3)",
  hyperparameters=(registry.SEED,),
)
