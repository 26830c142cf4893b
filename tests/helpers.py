"""Shared helpers for the tests: cached game loading, shared jitted evaluation functions,
random strategies and reference computations that do not go through the sequence form."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import jaxcfr
from jaxcfr.game.arrays import CHANCE_NODE, TERMINAL_NODE

# Module-level jitted functions: every test file shares one compilation per game.
expected_value = jax.jit(jaxcfr.expected_value)
best_response_values = jax.jit(jaxcfr.best_response_values)
nash_conv = jax.jit(jaxcfr.nash_conv)
exploitability = jax.jit(jaxcfr.exploitability)


@functools.lru_cache(maxsize=None)
def load(name: str) -> jaxcfr.Game:
  """A float64 game, built once per test session."""
  game = jaxcfr.load(name, dtype=jnp.float64)
  assert game.tensors.dtype == jnp.float64
  return game


@functools.lru_cache(maxsize=None)
def openspiel_game(name: str):
  return load(name).openspiel_game()


def random_strategy(player, rng: np.random.Generator, *, zeros: float = 0.0,
                    pure: bool = False) -> np.ndarray:
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
