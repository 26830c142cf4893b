"""Opponent models for the restricted solvers (Johanson, Zinkevich and Bowling, "Computing
Robust Counter-Strategies", 2007, section 4).

A model is a profile ``(sigma0 [I0, A0], sigma1 [I1, A1])``; RNR uses the restricted
player's entry. Models are either fixed (``uniform``, ``cfr:ITERS``, a strategy file of
jaxcfr.kits.strategy_files.save_strategy) or frequentist: counts of the actions a strategy took in
sampled games against a probe strategy, normalised per infoset, with a default strategy at
infosets never observed (Johanson et al. 2007 section 4, "frequentist best response").
The paper's own choices are strategies over the game's action ids (``action_strategy``): the
default at an unobserved infoset is the call action, and the observed player is probed by a
player that calls and raises with equal probability.

Games are sampled by jaxcfr.kits.sequence_form.walk.play: from the root down the tree arrays, one depth per
step, all games at once.
"""

from __future__ import annotations

import functools
from pathlib import Path

from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import kits, solvers
from jaxcfr.kits.sequence_form import evaluation, walk
from jaxcfr.kits.strategy_files import load_strategy, split_run
from jaxcfr.kits.sequence_form.tensors import GameTensors, tree_statics

__all__ = [
  "average_of_run",
  "fixed_model",
  "sample_games",
  "frequency_strategy",
  "frequentist_model",
  "frequentist_profile",
  "action_strategy",
]


@functools.cache
def average_of_run(algorithm: str, iterations: int, representation: str = "sequence_form"):
  """A jitted ``tensors -> average profile`` of ``iterations`` iterations of the registered
  solver ``algorithm`` on ``representation`` (stochastic ones from seed 0); cached."""
  solver = solvers.get(algorithm, representation)
  if solver.requires:
    raise ValueError(f"a model cannot come from {algorithm}: it needs {', '.join(solver.requires)}")

  @jax.jit
  def run(tensors):
    state = jax.lax.fori_loop(0, iterations, lambda _, s: solver.step(tensors, s), solver.init(tensors))
    return solver.average_strategy(tensors, state)

  return run


def fixed_model(game, spec: str) -> tuple:
  """A fixed model profile from a spec: ``uniform``, ``ALGO:ITERS`` (the average strategy
  of ITERS iterations of a registered solver, stochastic ones from seed 0: ``cfr:100`` is
  a weak, partly converged player; ``mccfr-os:100000`` is like Ponsen et al.'s models
  "taken from runs of MCCFR"), or the path of a strategy file
  (jaxcfr.kits.strategy_files.save_strategy; ``FILE#K`` takes run K of a batched one).

  Args:
    game: a loaded game of an exact kit (the sequence form, the public tree).
  """
  tensors = game.tensors
  if spec == "uniform":
    return kits.of_game(game).uniform_profile(tensors)
  algorithm, _, iterations = spec.partition(":")
  if iterations and algorithm in solvers.names() and not Path(spec).exists():
    try:
      count = int(iterations)
    except ValueError as error:
      raise ValueError(f"model {spec!r}: iterations must be an integer") from error
    if count < 1:
      raise ValueError(f"model {spec!r}: iterations must be >= 1")
    return average_of_run(algorithm, count, str(game.representation))(tensors)
  path, index = split_run(spec)  # FILE#K: run K of a batched strategy file
  if not Path(path).exists():
    raise ValueError(f"model {spec!r} is neither 'uniform', 'ALGO:ITERS' nor an existing strategy file")
  profile = load_strategy(path, game, batch_index=index)
  return tuple(jnp.asarray(s, tensors.dtype) for s in profile)


@functools.partial(jax.jit, static_argnames=("num_games", "max_children"))
def _sample_counts(tensors: GameTensors, profile, key, *, num_games: int, max_children: int):
  terminals, steps = walk.play(
    tensors,
    lambda player, game, row, col: profile[player][row, col],
    key,
    num_games=num_games,
    max_children=max_children,
  )
  counts = []
  for player, tp in enumerate(tensors.players):
    acted = (steps.active & (steps.kind == player)).reshape(-1)
    rows = jnp.clip(steps.infoset.reshape(-1), 0, tp.num_infosets - 1)
    cols = jnp.clip(steps.action.reshape(-1), 0, tp.max_actions - 1)
    counts.append(jnp.zeros(tp.legal.shape, jnp.int32).at[rows, cols].add(acted.astype(jnp.int32)))
  return tuple(counts), terminals


def sample_games(tensors: GameTensors, profile, key, num_games: int):
  """Plays ``num_games`` games of ``profile`` (each strategy [I, A]) from the root.

  Returns:
    (counts, terminals): counts ([I0, A0], [I1, A1]) int32, how often each player took each
    action at each of its infosets, over all games; terminals [G], the history each game ended at.
  """
  return _sample_counts(
    tensors,
    tuple(jnp.asarray(s, tensors.dtype) for s in profile),
    key,
    num_games=int(num_games),
    max_children=tree_statics(tensors.tree).max_children,
  )


def frequency_strategy(tensors: GameTensors, player: int, counts, default=None) -> jax.Array:
  """[I, A] observed action frequencies of ``player``; ``default`` [I, A] (uniform if None)
  at infosets with no observation."""
  treeplex = tensors.players[player]
  counts = jnp.asarray(counts, tensors.dtype)
  total = counts.sum(1, keepdims=True)
  if default is None:
    default = evaluation.uniform_strategy(treeplex, tensors.dtype)
  default = jnp.asarray(default, tensors.dtype)
  return jnp.where(total > 0, counts / jnp.where(total > 0, total, 1), default)


def frequentist_model(
  tensors: GameTensors, player: int, strategy, probe, key, num_games: int, *, default=None
) -> tuple:
  """A frequentist model of ``player`` (Johanson et al. 2007 section 4): ``num_games`` games of
  ``strategy`` (player ``player``'s [I, A]) against ``probe`` (the other player's [I, A]),
  every action of ``player`` counted at its infoset, counts normalised per infoset,
  ``default`` (uniform if None) where nothing was observed.

  Returns:
    a profile whose ``player`` entry is the model (the other entry is ``probe``).
  """
  profile = [None, None]
  profile[player], profile[1 - player] = strategy, probe
  counts, _ = sample_games(tensors, profile, key, num_games)
  model = [jnp.asarray(probe, tensors.dtype)] * 2
  model[player] = frequency_strategy(tensors, player, counts[player], default)
  return tuple(model)


def frequentist_profile(tensors: GameTensors, profile, probe, key, num_games: int, *, default=None) -> tuple:
  """A frequentist model of both seats of an agent ``profile`` ([I0, A0], [I1, A1]): seat
  ``p``'s entry is ``frequentist_model`` of ``profile[p]`` from ``num_games`` games against
  ``probe[1 - p]``, each seat from its own half of ``jax.random.split(key)``.

  Args:
    probe: the probing profile (its seat ``1 - p`` strategy plays against seat ``p``).
    default: a profile to use at unobserved infosets (uniform where None).
  Returns:
    the model profile (sigma0 [I0, A0], sigma1 [I1, A1]).
  """
  keys = jax.random.split(key)
  return tuple(
    frequentist_model(
      tensors,
      player,
      profile[player],
      probe[1 - player],
      keys[player],
      num_games,
      default=None if default is None else default[player],
    )[player]
    for player in (0, 1)
  )


def action_strategy(tensors: GameTensors, player: int, weights: Mapping[int, float]) -> jax.Array:
  """[I, A] the strategy of ``player`` that plays the game's action ids in proportion to
  ``weights`` (action id -> weight >= 0) among those legal at each infoset, and uniformly
  over the legal actions where no weighted action is legal (or all their weights are zero).

  Johanson et al. 2007 section 4 in these terms (Leduc's and OpenSpiel's poker ids: fold 0,
  call 1, raise 2): the frequentist model's default at an infoset never observed is the call
  action, ``action_strategy(tensors, p, {CALL: 1})``, and the observed player is probed by
  "a trivial strategy that calls and raises with equal probability",
  ``action_strategy(tensors, 1 - p, {CALL: 1, RAISE: 1})`` (the call alone where the raise
  is not legal). Host-side: reads the action ids that ``tensors.labels`` carries.
  """
  if tensors.labels is None:
    raise ValueError(f"{tensors.name}: its tensors carry no action ids (labels), so actions cannot be named")
  for action, weight in weights.items():
    if not np.isfinite(weight) or weight < 0:
      raise ValueError(f"action {action}: weights must be finite and >= 0, got {weight}")
  ids = np.asarray(tensors.labels.action_ids(player))
  legal = np.asarray(tensors.players[player].legal)
  table = np.zeros(legal.shape)
  for action, weight in weights.items():
    table += np.where(legal & (ids == action), float(weight), 0.0)
  total = table.sum(1, keepdims=True)
  uniform = legal / legal.sum(1, keepdims=True)
  strategy = np.where(total > 0, table / np.where(total > 0, total, 1), uniform)
  return jnp.asarray(strategy, tensors.dtype)
