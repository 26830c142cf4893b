"""Shared helpers for the tests: cached game loading, shared jitted evaluation functions,
random strategies and reference computations that do not go through the sequence form."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import jaxcfr
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, TERMINAL_NODE

# Module-level jitted functions: every test file shares one compilation per game.
expected_value = jax.jit(jaxcfr.expected_value)
best_response_values = jax.jit(jaxcfr.best_response_values)
nash_conv = jax.jit(jaxcfr.nash_conv)
exploitability = jax.jit(jaxcfr.exploitability)


@functools.cache
def load(name: str) -> jaxcfr.kits.sequence_form.Game:
  """A float64 game, built once per test session."""
  game = jaxcfr.load(name, dtype=jnp.float64)
  assert game.tensors.dtype == jnp.float64
  return game


@functools.cache
def openspiel_game(name: str):
  return load(name).openspiel_game()


def random_strategy(player, rng: np.random.Generator, *, zeros: float = 0.0, pure: bool = False) -> np.ndarray:
  """[I, A] random behavioural strategy of a PlayerArrays.

  Args:
    zeros: probability of setting each legal action to exactly zero (at least one legal
      action keeps positive mass), to exercise zero-reach subtrees.
    pure: one legal action with probability one per infoset.
  """
  legal = player.legal
  if pure:
    choice = (rng.random(player.num_infosets) * player.num_actions).astype(int)
    return np.eye(player.max_actions)[choice] * legal
  weights = rng.dirichlet(np.ones(player.max_actions), size=player.num_infosets) * legal
  if zeros:
    drop = (rng.random(weights.shape) < zeros) & legal
    keep = np.argmax(np.where(legal, rng.random(weights.shape), -1), axis=1)
    drop[np.arange(player.num_infosets), keep] = False
    weights = np.where(drop, 0.0, weights)
  return weights / weights.sum(-1, keepdims=True)


def random_profile(arrays, seed: int, **kwargs) -> tuple[np.ndarray, np.ndarray]:
  rng = np.random.default_rng(seed)
  return tuple(random_strategy(p, rng, **kwargs) for p in arrays.players)


def as_jax(profile):
  return tuple(jnp.asarray(s, jnp.float64) for s in profile)


def history_reach(arrays, profile) -> np.ndarray:
  """[3, H] reach probability of every history: player 0's, player 1's and chance's
  contributions, computed by walking the tree arrays forward (no sequence form)."""
  reach = np.ones((3, arrays.num_histories))
  for h in range(1, arrays.num_histories):  # breadth-first: parents come first
    parent = arrays.parent[h]
    reach[:, h] = reach[:, parent]
    kind = arrays.kind[parent]
    if kind == CHANCE_NODE:
      reach[2, h] *= arrays.chance_prob[h]
    else:
      reach[kind, h] *= profile[kind][arrays.infoset[parent], arrays.action_index[h]]
  return reach


def reference_expected_value(arrays, profile) -> float:
  """Player 0's expected utility summed over terminal histories, without the sequence form."""
  reach = history_reach(arrays, profile).prod(0)
  terminal = arrays.kind == TERMINAL_NODE
  return float((reach[terminal] * arrays.utility[terminal]).sum())


def sequence_constraints(treeplex):
  """Sequence-form constraints ``E x = e`` of a padded treeplex: ``x[0] = 1`` and, per
  infoset, the sum of its legal sequences equals its parent sequence; illegal slots 0.
  Returns (E, e, bounds) for scipy's linprog."""
  legal = np.asarray(treeplex.legal)
  parent = np.asarray(treeplex.parent_seq)
  rows = [np.eye(treeplex.num_sequences)[0]]
  for i in range(treeplex.num_infosets):
    row = np.zeros(treeplex.num_sequences)
    row[1 + i * treeplex.max_actions + np.flatnonzero(legal[i])] = 1
    row[parent[i]] -= 1
    rows.append(row)
  bounds = [(0, None)] + [(0, None) if ok else (0, 0) for ok in legal.reshape(-1)]
  e = np.zeros(len(rows))
  e[0] = 1
  return np.array(rows), e, bounds


def payoff_matrix(tensors) -> np.ndarray:
  """[S0, S1] the dense sequence-form payoff of player 0 (small games only)."""
  payoff = tensors.payoff
  a = np.zeros((tensors.players[0].num_sequences, tensors.players[1].num_sequences))
  np.add.at(a, (np.asarray(payoff.seq0), np.asarray(payoff.seq1)), np.asarray(payoff.value))
  return a


def lp_game_value(tensors) -> float:
  """Player 0's exact game value ``max_x min_y x^T A y`` by one linear program (the inner min
  replaced by its dual: ``max f^T z`` subject to ``F^T z <= A^T x``)."""
  from scipy.optimize import linprog  # pylint: disable=import-outside-toplevel

  a = payoff_matrix(tensors)
  e, e_rhs, x_bounds = sequence_constraints(tensors.players[0])
  f, f_rhs, _ = sequence_constraints(tensors.players[1])
  nz = f.shape[0]
  objective = -np.concatenate([np.zeros(a.shape[0]), f_rhs])
  inequality = np.hstack([-a.T, f.T])
  equality = np.hstack([e, np.zeros((e.shape[0], nz))])
  result = linprog(
    objective,
    A_ub=inequality,
    b_ub=np.zeros(a.shape[1]),
    A_eq=equality,
    b_eq=e_rhs,
    bounds=x_bounds + [(None, None)] * nz,
    method="highs",
  )
  assert result.status == 0
  return -result.fun
