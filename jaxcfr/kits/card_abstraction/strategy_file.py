"""Card-abstraction strategy files: a profile ``[I_p, 3, *B]`` per player over (betting node,
bucket) rows, with the abstraction's settings that give the rows their meaning (buckets,
bucketing, rollouts: part of the game's name, which jaxcfr.kits.strategy_files checks), read
back without unpickling and checked: shapes, and probabilities over the legal actions."""

from __future__ import annotations

import numpy as np

from jaxcfr.kits.sequence_form.strategy_file import select_run

__all__ = ["save", "load", "check_profile"]


def _legal(game, player: int) -> np.ndarray:
  """[I_p, 3] the legal actions of each row (its betting node's)."""
  nodes = np.flatnonzero(game.tree.player == player)
  return np.repeat(np.asarray(game.tree.child[nodes] >= 0), game.buckets, axis=0)


def check_profile(game, profile, *, tolerance: float = 1e-6) -> None:
  """Raises ValueError unless ``profile`` holds one ``[I_p, 3, *B]`` table of probabilities per
  player, summing to one over each row's legal actions."""
  for p, strategy in enumerate(profile):
    strategy = np.asarray(strategy, np.float64)
    legal = _legal(game, p)
    if strategy.shape[:2] != legal.shape:
      raise ValueError(f"player {p}'s strategy has shape {strategy.shape}; the game's rows are {legal.shape}")
    legal = legal.reshape(legal.shape + (1,) * (strategy.ndim - 2))
    if not np.all(np.isfinite(strategy)) or np.any(strategy < -tolerance):
      raise ValueError(f"player {p}'s strategy holds negative or non-finite probabilities")
    if np.any(np.abs(np.where(legal, 0, strategy)) > tolerance):
      raise ValueError(f"player {p}'s strategy puts weight on illegal actions")
    if not np.allclose(strategy.sum(1), 1, atol=tolerance):
      raise ValueError(f"player {p}'s strategy does not sum to one over the legal actions")


def save(game, profile) -> dict:
  """The arrays of a profile's file: ``player{p}`` [I_p, 3, *B]."""
  return {f"player{p}": np.asarray(s) for p, s in enumerate(profile)}


def load(path, data: dict, game, batch_index: int | None) -> tuple:
  """The profile of a card-abstraction file's verified arrays ``data``, checked."""
  try:
    profile = tuple(select_run(path, np.asarray(data[f"player{p}"]), 2, batch_index) for p in range(2))
  except KeyError as error:
    raise ValueError(f"{path} is not a strategy file (no {error.args[0]})") from None
  try:
    check_profile(game, profile)
  except ValueError as error:
    raise ValueError(f"{path}: {error}") from None
  return profile
