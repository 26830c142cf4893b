"""Strategy files of every kit: a profile as plain ``.npz`` arrays with the game's name, the
kit's name (``representation``) and what the kit needs to match its rows to the game (infoset
keys and action ids, public nodes and hands, ...), and a checksum; read back without
unpickling, verified, checked to be of the game asked for, and handed to the kit that wrote
it (``Kit.save_strategy``, ``Kit.load_strategy``). A public-tree file read for the sequence
form of the same game is mapped infoset by infoset."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from jaxcfr.base import integrity
from jaxcfr.kits import public_tree, registry, sequence_form

__all__ = ["save_strategy", "load_strategy", "load_runs", "split_run", "can_save"]


def can_save(game) -> bool:
  """Whether profiles of ``game``'s kit can be written to a strategy file."""
  return registry.of_game(game).save_strategy is not None


def save_strategy(path: str | Path, game, profile) -> None:
  """Writes ``profile`` (the strategies of ``game``'s kit, batch axes allowed) as an .npz file
  at exactly ``path``, with the game's name, the representation and a checksum; an OSError
  (a full disk) propagates."""
  kit = registry.of_game(game)
  if kit.save_strategy is None:
    raise ValueError(f"strategies of the {kit.name} representation cannot be saved")
  arrays = {"game": np.array(game.name), "representation": np.array(kit.name), **kit.save_strategy(game, profile)}
  with open(path, "wb") as f:  # NumPy would add ``.npz`` to a name without it
    np.savez(f, **integrity.with_checksum(arrays))


def _representation(data: dict) -> str:
  """The kit that wrote a file (files written before the kits named theirs: the sequence form)."""
  return str(data["representation"]) if "representation" in data else sequence_form.NAME


def load_strategy(path: str | Path, game, *, batch_index: int | None = None) -> tuple:
  """Reads a profile written by ``save_strategy`` for ``game``, verifies it, and returns it in
  the strategies of ``game``'s kit, after that kit's checks; a public-tree file read for the
  sequence form of the same game is mapped onto its infosets.

  Args:
    batch_index: a file from a batched run holds strategies with a batch axis; choose run
      ``batch_index`` of it (a batched file without it is an error, never silently one
      strategy per run).
  """
  data = integrity.read_arrays(path, "strategy file")
  if "game" not in data:
    raise ValueError(f"{path} is not a strategy file (no game)")
  if str(data["game"]) != game.name:
    raise ValueError(f"{path} holds a strategy for {data['game']}, not {game.name}")
  written = _representation(data)
  if written == game.representation:
    return registry.of_game(game).load_strategy(path, data, game, batch_index)
  if written == public_tree.NAME and game.representation == sequence_form.NAME:
    public = registry.load(game.name, dtype=game.tensors.dtype, representation=public_tree.NAME)
    return public_tree.strategy_file.load_as_sequence_form(path, data, game, public, batch_index)
  raise ValueError(f"{path} holds a {written} strategy, which {game.name}'s {game.representation} cannot take")


def split_run(spec: str) -> tuple[str, int | None]:
  """``(path, K)`` of ``"FILE#K"`` (run ``K`` of a batched strategy file), ``(spec, None)``
  of a plain path (one that exists is never split)."""
  if "#" not in spec or Path(spec).exists():
    return spec, None
  path, _, k = spec.rpartition("#")
  if not k.isdigit():
    raise ValueError(f"{spec!r}: the batch index after '#' must be a non-negative integer")
  return path, int(k)


def load_runs(path: str | Path, game) -> list[tuple]:
  """Every profile of a strategy file: one for a single run, one per run for a file from a
  batched run (one batch axis); ``FILE#K`` (``split_run``) only run ``K``."""
  path, index = split_run(str(path))
  if index is not None:
    return [load_strategy(path, game, batch_index=index)]
  data = integrity.read_arrays(path, "strategy file")
  shape = np.shape(data.get("player0", np.zeros((0, 0))))
  axes = 3 if _representation(data) == public_tree.NAME else 2  # [N, A, H] or [I, A] per run
  if len(shape) > axes + 1:
    raise ValueError(f"{path} holds a batch of shape {shape[axes:]}; only one batch axis is supported")
  if len(shape) <= axes:
    return [load_strategy(path, game)]
  return [load_strategy(path, game, batch_index=b) for b in range(shape[axes])]
