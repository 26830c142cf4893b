"""Strategy files: a profile as plain ``.npz`` arrays with the infoset keys and action ids
that identify its rows, read back without unpickling and checked against the game."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from jaxcfr.core import evaluation
from jaxcfr.game.loading import Game

__all__ = ["save_strategy", "load_strategy"]


def save_strategy(path: str | Path, game: Game, profile) -> None:
  """Writes a profile as .npz: ``player{p}`` [I, A, *B] with ``keys{p}`` and ``action_ids{p}``."""
  arrays = {}
  for p, (player, strategy) in enumerate(zip(game.arrays.players, profile)):
    arrays[f"player{p}"] = np.asarray(strategy)
    arrays[f"keys{p}"] = player.keys
    arrays[f"action_ids{p}"] = player.action_ids
  np.savez(path, game=np.array(game.name), **arrays)


def load_strategy(path: str | Path, game: Game) -> tuple:
  """Reads a profile written by ``save_strategy`` and checks it fits ``game``."""
  with np.load(path, allow_pickle=False) as data:
    if str(data["game"]) != game.name:
      raise ValueError(f"{path} holds a strategy for {data['game']}, not {game.name}")
    profile = tuple(np.asarray(data[f"player{p}"]) for p in range(2))
  evaluation.check_profile(game.tensors, profile)
  return profile
