"""Strategy files: a profile as plain ``.npz`` arrays with the infoset keys and action ids
that identify its rows, read back without unpickling, verified by checksum, and matched to
the game by infoset key and action id (never by position)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from jaxcfr.core import evaluation
from jaxcfr.core import public_tree as public_tree_ops
from jaxcfr.game import integrity, public_tree
from jaxcfr.game.loading import Game, load
from jaxcfr.game.representation import Representation

__all__ = ["save_strategy", "save_public_strategy", "load_strategy", "load_runs", "split_run"]


def _write(path: str | Path, arrays: dict) -> None:
  """``arrays`` and their checksum as an .npz file at exactly ``path`` (NumPy would add
  ``.npz`` to a name without it); an OSError (a full disk) propagates."""
  with open(path, "wb") as f:
    np.savez(f, **integrity.with_checksum(arrays))


def save_strategy(path: str | Path, game: Game, profile) -> None:
  """Writes a profile as .npz: ``player{p}`` [I, A, *B] with ``keys{p}`` [I] and
  ``action_ids{p}`` [I, A], the game's name and a checksum. A game on the public tree is
  written per public node and hand (``save_public_strategy``)."""
  if game.representation == Representation.PUBLIC_TREE:
    save_public_strategy(path, game, profile)
    return
  arrays = {"game": np.array(game.name)}
  for p, (player, strategy) in enumerate(zip(game.arrays.players, profile)):
    arrays[f"player{p}"] = np.asarray(strategy)
    arrays[f"keys{p}"] = player.keys
    arrays[f"action_ids{p}"] = player.action_ids
  _write(path, arrays)


def save_public_strategy(path: str | Path, game, profile) -> None:
  """Writes a public-tree profile as .npz, per public decision node and private hand:
  ``player{p}`` [N_p, A, H, *B], ``nodes{p}`` [N_p] (the public nodes, breadth-first),
  ``boards{p}`` [N_p, max board] (their public cards, -1 padding), ``action_ids{p}``
  [N_p, A] (the game's action ids, -1 = none), ``hands`` [H, k] (card ids), the game's name,
  ``representation`` and a checksum."""
  tree = game.tree
  arrays = {"game": np.array(game.name), "representation": np.array(str(game.representation)), "hands": tree.hands}
  for p, strategy in enumerate(profile):
    nodes = tree.decision_nodes(p)
    arrays[f"player{p}"] = np.asarray(strategy)
    arrays[f"nodes{p}"] = nodes
    arrays[f"boards{p}"] = tree.boards[tree.board[nodes]]
    arrays[f"action_ids{p}"] = tree.action_ids[nodes]
  _write(path, arrays)


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


def load_strategy(path: str | Path, game: Game, *, batch_index: int | None = None) -> tuple:
  """Reads a profile written by ``save_strategy``, verifies it, and returns it ([I, A] per
  player, rows in the game's infoset order) after ``evaluation.check_profile``; or one
  written by ``save_public_strategy`` ([N_p, A, H] per player, checked against the game's
  public tree; for a game loaded in sequence form, mapped onto its infosets, [I, A] per
  player, where the game has both forms).

  Args:
    batch_index: a file from a batched run holds [I, A, B] strategies; choose run
      ``batch_index`` of it (a batched file without it is an error, never silently one
      strategy per run).
  """
  data = integrity.read_arrays(path, "strategy file")
  if "representation" in data and str(data["representation"]) == "public_tree":
    return _load_public(path, data, game, batch_index)
  try:
    name = str(data["game"])
    stored = [
      (np.asarray(data[f"player{p}"]), data[f"keys{p}"].astype(str), np.asarray(data[f"action_ids{p}"]))
      for p in range(2)
    ]
  except KeyError as error:
    raise ValueError(f"{path} is not a strategy file (no {error.args[0]})") from None
  if name != game.name:
    raise ValueError(f"{path} holds a strategy for {name}, not {game.name}")
  profile = []
  for p, (strategy, keys, action_ids) in enumerate(stored):
    if strategy.ndim > 2:
      if batch_index is None:
        raise ValueError(
          f"{path} holds a batch of {strategy.shape[2:]} strategies; choose one (batch_index, or "
          f"'FILE#K' where a model spec is read)"
        )
      if strategy.ndim != 3 or not 0 <= batch_index < strategy.shape[2]:
        raise ValueError(f"{path}: batch index {batch_index} is not in a batch of shape {strategy.shape[2:]}")
      strategy = strategy[..., batch_index]
    elif batch_index not in (None, 0):
      raise ValueError(f"{path} holds one strategy, not a batch: batch index {batch_index} does not exist")
    profile.append(_reorder(path, p, strategy, keys, action_ids, game.arrays.players[p]))
  evaluation.check_profile(game.tensors, profile)
  return tuple(profile)


def _load_public(path, data: dict, game, batch_index: int | None) -> tuple:
  """A profile written by ``save_public_strategy`` ([N_p, A, H] per player), checked against
  the game's public tree: its name, hands, decision nodes, boards and action ids."""
  if str(data.get("game")) != game.name:
    raise ValueError(f"{path} holds a strategy for {data.get('game')}, not {game.name}")
  if game.representation != Representation.PUBLIC_TREE:
    return _public_as_sequence_form(path, data, game, batch_index)
  tree = game.tree
  profile = []
  for p in range(2):
    nodes = tree.decision_nodes(p)
    try:
      same = (
        np.array_equal(data["hands"], tree.hands)
        and np.array_equal(data[f"nodes{p}"], nodes)
        and np.array_equal(data[f"boards{p}"], tree.boards[tree.board[nodes]])
        and np.array_equal(data[f"action_ids{p}"], tree.action_ids[nodes])
      )
      strategy = np.asarray(data[f"player{p}"], np.float64)
    except KeyError as error:
      raise ValueError(f"{path} is not a public-tree strategy file (no {error.args[0]})") from None
    if not same:
      raise ValueError(f"{path}: player {p}'s public nodes, boards, hands or actions differ from {game.name}'s tree")
    if strategy.ndim > 3:
      if batch_index is None or strategy.ndim != 4 or not 0 <= batch_index < strategy.shape[3]:
        raise ValueError(f"{path} holds a batch of {strategy.shape[3:]} strategies; choose one (batch_index)")
      strategy = strategy[..., batch_index]
    legal = tree.action_ids[nodes] >= 0
    if strategy.shape != legal.shape + (tree.num_hands,) or not np.all(np.isfinite(strategy)) or np.any(strategy < 0):
      raise ValueError(f"{path}: player {p}'s strategy is not [N, A, H] of finite probabilities")
    total = strategy.sum(1)
    if np.any(np.where(legal[:, :, None], 0, strategy) != 0) or not np.allclose(total, 1, atol=1e-6):
      raise ValueError(f"{path}: player {p}'s strategy does not sum to one over the legal actions")
    profile.append(np.asarray(strategy, game.tensors.dtype))
  return tuple(profile)


def _public_as_sequence_form(path, data: dict, game: Game, batch_index: int | None) -> tuple:
  """A public-tree strategy file read for the sequence form of the same game: checked
  against the game's public tree, then mapped infoset by infoset
  (``public_tree.sequence_form_map``)."""
  try:
    public = load(game.name, dtype=game.tensors.dtype, representation=Representation.PUBLIC_TREE)
    mapping = public_tree.sequence_form_map(public.tree, game.arrays)
  except ValueError as error:
    raise ValueError(
      f"{path} is a public-tree strategy, which {game.name}'s sequence form cannot take: {error}"
    ) from None
  profile = public_tree_ops.to_sequence_form(mapping, _load_public(path, data, public, batch_index))
  profile = tuple(np.asarray(x) for x in profile)
  evaluation.check_profile(game.tensors, profile)
  return profile


def split_run(spec: str) -> tuple[str, int | None]:
  """``(path, K)`` of ``"FILE#K"`` (run ``K`` of a batched strategy file), ``(spec, None)``
  of a plain path (one that exists is never split)."""
  if "#" not in spec or Path(spec).exists():
    return spec, None
  path, _, k = spec.rpartition("#")
  if not k.isdigit():
    raise ValueError(f"{spec!r}: the batch index after '#' must be a non-negative integer")
  return path, int(k)


def load_runs(path: str | Path, game: Game) -> list[tuple]:
  """Every profile of a strategy file: one for a single run, one per run (``[I, A]`` each)
  for a file from a batched run (one batch axis); ``FILE#K`` (``split_run``) only run ``K``."""
  path, index = split_run(str(path))
  if index is not None:
    return [load_strategy(path, game, batch_index=index)]
  data = integrity.read_arrays(path, "strategy file")
  shape = np.shape(data.get("player0", np.zeros((0, 0))))
  axes = 3 if str(data.get("representation")) == "public_tree" else 2  # [N, A, H] or [I, A] per run
  if len(shape) > axes + 1:
    raise ValueError(f"{path} holds a batch of shape {shape[axes:]}; only one batch axis is supported")
  if len(shape) <= axes:
    return [load_strategy(path, game)]
  return [load_strategy(path, game, batch_index=b) for b in range(shape[axes])]
