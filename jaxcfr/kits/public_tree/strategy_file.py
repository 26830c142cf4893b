"""Public-tree strategy files: a profile per public decision node and private hand, with the
nodes, boards, action ids and hands that identify it, checked against the game's tree when
read (jaxcfr.kits.strategy_files verifies the checksum and dispatches by representation); a
file read for the sequence form of the same game is mapped infoset by infoset."""

from __future__ import annotations

import numpy as np

from jaxcfr.kits.public_tree import conversion
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits.sequence_form.strategy_file import select_run

__all__ = ["save", "load", "load_as_sequence_form"]


def save(game, profile) -> dict:
  """The arrays of a profile's file: ``player{p}`` [N_p, A, H, *B], ``nodes{p}`` [N_p] (the
  public nodes, breadth-first), ``boards{p}`` [N_p, max board] (their public cards, -1
  padding), ``action_ids{p}`` [N_p, A] (the game's action ids, -1 = none), ``hands`` [H, k]
  (card ids)."""
  tree = game.tree
  arrays = {"hands": tree.hands}
  for p, strategy in enumerate(profile):
    nodes = tree.decision_nodes(p)
    arrays[f"player{p}"] = np.asarray(strategy)
    arrays[f"nodes{p}"] = nodes
    arrays[f"boards{p}"] = tree.boards[tree.board[nodes]]
    arrays[f"action_ids{p}"] = tree.action_ids[nodes]
  return arrays


def load(path, data: dict, game, batch_index: int | None) -> tuple:
  """The profile ([N_p, A, H] per player) of a public-tree file's verified arrays ``data``,
  checked against the game's public tree: its hands, decision nodes, boards and action ids."""
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
    strategy = select_run(path, strategy, 3, batch_index)
    legal = tree.action_ids[nodes] >= 0
    if strategy.shape != legal.shape + (tree.num_hands,) or not np.all(np.isfinite(strategy)) or np.any(strategy < 0):
      raise ValueError(f"{path}: player {p}'s strategy is not [N, A, H] of finite probabilities")
    total = strategy.sum(1)
    if np.any(np.where(legal[:, :, None], 0, strategy) != 0) or not np.allclose(total, 1, atol=1e-6):
      raise ValueError(f"{path}: player {p}'s strategy does not sum to one over the legal actions")
    profile.append(np.asarray(strategy, game.tensors.dtype))
  return tuple(profile)


def load_as_sequence_form(path, data: dict, game, public_game, batch_index: int | None) -> tuple:
  """A public-tree file read for ``game`` in sequence form (``public_game``: the same game
  on the public tree): checked against the public tree, then mapped infoset by infoset."""
  try:
    mapping = conversion.sequence_form_map(public_game.tree, game.arrays)
  except ValueError as error:
    raise ValueError(
      f"{path} is a public-tree strategy, which {game.name}'s sequence form cannot take: {error}"
    ) from None
  profile = conversion.to_sequence_form(mapping, load(path, data, public_game, batch_index))
  profile = tuple(np.asarray(x) for x in profile)
  evaluation.check_profile(game.tensors, profile)
  return profile
