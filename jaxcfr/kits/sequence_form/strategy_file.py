"""Sequence-form strategy files: a profile as plain ``.npz`` arrays with the infoset keys and
action ids that identify its rows, read back without unpickling (jaxcfr.kits.strategy_files
verifies the checksum and dispatches by representation), and matched to the game by infoset
key and action id (never by position)."""

from __future__ import annotations

import numpy as np

from jaxcfr.kits.sequence_form import evaluation

__all__ = ["save", "load", "select_run"]


def save(game, profile) -> dict:
  """The arrays of a profile's file: ``player{p}`` [I, A, *B] with ``keys{p}`` [I] and
  ``action_ids{p}`` [I, A] (the caller adds the game, the representation and the checksum)."""
  arrays = {}
  for p, (player, strategy) in enumerate(zip(game.arrays.players, profile)):
    arrays[f"player{p}"] = np.asarray(strategy)
    arrays[f"keys{p}"] = player.keys
    arrays[f"action_ids{p}"] = player.action_ids
  return arrays


def select_run(path, strategy: np.ndarray, axes: int, batch_index: int | None) -> np.ndarray:
  """Run ``batch_index`` of a batched strategy (``axes`` axes a run), or the one strategy;
  an error for a batch without an index (never silently one strategy per run)."""
  if strategy.ndim > axes:
    if batch_index is None:
      raise ValueError(
        f"{path} holds a batch of {strategy.shape[axes:]} strategies; choose one (batch_index, or "
        f"'FILE#K' where a model spec is read)"
      )
    if strategy.ndim != axes + 1 or not 0 <= batch_index < strategy.shape[axes]:
      raise ValueError(f"{path}: batch index {batch_index} is not in a batch of shape {strategy.shape[axes:]}")
    return strategy[..., batch_index]
  if batch_index not in (None, 0):
    raise ValueError(f"{path} holds one strategy, not a batch: batch index {batch_index} does not exist")
  return strategy


def _reorder(path, p: int, strategy: np.ndarray, keys: np.ndarray, action_ids: np.ndarray, player) -> np.ndarray:
  """The file's rows of player ``p`` placed at the game's infosets, and its columns at the
  game's actions, matched by infoset key and action id."""
  game_keys = player.keys
  if strategy.shape[0] != len(game_keys) or len(keys) != len(game_keys) or set(keys) != set(game_keys):
    raise ValueError(f"{path}: player {p}'s infoset keys are not those of the game")
  row = {k: i for i, k in enumerate(keys)}
  order = np.array([row[k] for k in game_keys])
  strategy, action_ids = strategy[order], action_ids[order]
  out = np.zeros((len(game_keys), player.max_actions) + strategy.shape[2:], strategy.dtype)
  for i in range(len(game_keys)):
    legal = player.action_ids[i][player.action_ids[i] >= 0]
    ids = action_ids[i][action_ids[i] >= 0]
    if sorted(ids.tolist()) != sorted(legal.tolist()):
      raise ValueError(f"{path}: player {p}'s actions at infoset {game_keys[i]!r} are not the game's")
    column = {a: j for j, a in enumerate(action_ids[i]) if a >= 0}
    out[i, : len(legal)] = strategy[i, [column[a] for a in legal]]
  return out


def load(path, data: dict, game, batch_index: int | None) -> tuple:
  """The profile ([I, A] per player, rows in the game's infoset order) of a sequence-form
  strategy file's verified arrays ``data``, checked (``evaluation.check_profile``)."""
  try:
    stored = [
      (np.asarray(data[f"player{p}"]), data[f"keys{p}"].astype(str), np.asarray(data[f"action_ids{p}"]))
      for p in range(2)
    ]
  except KeyError as error:
    raise ValueError(f"{path} is not a strategy file (no {error.args[0]})") from None
  profile = []
  for p, (strategy, keys, action_ids) in enumerate(stored):
    strategy = select_run(path, strategy, 2, batch_index)
    profile.append(_reorder(path, p, strategy, keys, action_ids, game.arrays.players[p]))
  evaluation.check_profile(game.tensors, profile)
  return tuple(profile)
