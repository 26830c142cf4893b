"""Features ``phi(I, a)`` of infoset-action pairs and abstraction maps, for RCFR.

Regression CFR (Waugh, Morrill, Bagnell and Bowling, "Solving Games with Functional Regret
Estimation", AAAI 2015; Waugh et al. 2015 below) estimates the cumulative counterfactual
regret of every pair ``(I, a)`` with one regressor over features of the pair. Rows are laid
out as the player's ``[I, A]`` table flattened (row ``i A + a``); illegal slots get zero
features and are never trained on.

Everything is computed from what the tensors carry: their ``labels`` (host-side infoset
keys and action ids, jaxcfr.kits.sequence_form.tensors.InfosetLabels) and the game's declared
``info.features`` tag (jaxcfr.games.GameInfo); no game is loaded or looked up by its name.

Feature sets (host-side NumPy, built once per game from the infoset keys and cached):

- ``"generic"``, for any loaded game: the infoset's observation, its key string one-hot per
  character position (the key is the player's information-state string, so it tells the
  infosets apart), plus a one-hot of the action slot.
- ``"leduc"``, for games that declare the tag ``"leduc"`` (Leduc Hold'em, keys
  ``card:public:history``): Leduc Hold'em's eight features of Waugh et al. 2015: (1) expected hand
  strength E[HS] (win probability, ties counting one half, against a uniform opponent card
  and board card), (2) the board card's rank (1-3, 0 preflop), (3) the pot, (4) the wager
  faced relative to the pot, (5) actions this hand, (6) wagers this hand, (7) the next action
  is a fold, (8) the wager the next action makes relative to the pot (0 for check / call).

Every column is standardised over the player's legal rows (mean 0, standard deviation 1;
constant columns are centred only): trees are invariant to it and it conditions the MLP.

Abstraction maps (``abstraction_cells``): each row gets the index of its abstract cell
(abstract infoset times action slot). For games tagged ``"leduc"``, the paper's card abstractions ``JQK``,
``J.QK``, ``JQ.K`` and ``J.Q.K``: preflop the private card's rank is known only up to its
group; on the flop the abstract infoset keeps that group and only whether the board pairs
the private card (not the board's rank). A user map is a dict from infoset key to any
hashable label; infosets sharing a label share one row of regrets.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping

import numpy as np

from jaxcfr.kits.sequence_form.tensors import GameTensors, InfosetLabels

__all__ = [
  "RowData",
  "FEATURE_SETS",
  "LEDUC_ABSTRACTIONS",
  "features",
  "leduc_features",
  "generic_features",
  "abstraction_cells",
  "row_data",
  "table_size",
]

FEATURE_SETS = ("auto", "generic", "leduc")
# The GameInfo.features tags this module implements (a game without one takes "generic").
_GAME_FEATURES = ("leduc",)
LEDUC_ABSTRACTIONS = {"JQK": ((0, 1, 2),), "J.QK": ((0,), (1, 2)), "JQ.K": ((0, 1), (2,)), "J.Q.K": ((0,), (1,), (2,))}
_LEDUC_RAISE = (2, 4)


@dataclasses.dataclass(frozen=True)
class RowData:
  """One player's regression rows (host NumPy; made device constants inside the step).

  Attributes:
    features: [N, F] float64 standardised features ``phi(I, a)``, N = I * A.
    legal: [N] bool, the rows trained on.
    cells: [N] int32 tabular cell of each row (the row itself, or its abstract cell).
    num_cells: the number of cells (static).
  """

  features: np.ndarray
  legal: np.ndarray
  cells: np.ndarray
  num_cells: int


def _tensors(game) -> GameTensors:
  """GameTensors, or a loaded game's."""
  return getattr(game, "tensors", game)


def _labels(tensors: GameTensors) -> InfosetLabels:
  """The tensors' host-side labels."""
  labels = getattr(_tensors(tensors), "labels", None)
  if not isinstance(labels, InfosetLabels):
    raise ValueError(
      "tensors must carry their infoset labels (GameTensors.labels); build them with jaxcfr.kits.sequence_form.tensors.to_tensors"
    )
  return labels


def _game_features(tensors: GameTensors) -> str | None:
  """The feature tag the tensors' game declares, checked (None: the generic encoding)."""
  tensors = _tensors(tensors)
  tag = tensors.info.features
  if tag is not None and tag not in _GAME_FEATURES:
    raise ValueError(f"game {tensors.name!r} declares features {tag!r}; the known ones are {list(_GAME_FEATURES)}")
  return tag


def _resolve(tensors: GameTensors, feature_set: str) -> str:
  """The feature set that ``feature_set`` names for the tensors' game ("auto": the declared one)."""
  if feature_set not in FEATURE_SETS:
    raise ValueError(f"unknown features {feature_set!r}; choose one of {list(FEATURE_SETS)}")
  declared = _game_features(tensors)
  if feature_set == "auto":
    return declared or "generic"
  if feature_set == "leduc" and declared != "leduc":
    name = _tensors(tensors).name
    raise ValueError(f"features 'leduc' are Leduc Hold'em's; game {name!r} takes 'generic'")
  return feature_set


def _standardise(x: np.ndarray, legal: np.ndarray) -> np.ndarray:
  rows = x[legal]
  mean = rows.mean(0) if len(rows) else np.zeros(x.shape[1])
  std = rows.std(0) if len(rows) else np.ones(x.shape[1])
  std = np.where(std > 1e-12, std, 1.0)
  return np.where(legal[:, None], (x - mean) / std, 0.0)


def generic_features(keys_by_player, legal: np.ndarray, player: int) -> np.ndarray:
  """[I * A, F] raw generic features of ``player``: the key one-hot per character position
  (vocabulary and length shared by both players) and a one-hot of the action slot."""
  every = [k for keys in keys_by_player for k in keys]
  vocabulary = {c: j for j, c in enumerate(sorted({c for k in every for c in k}))}
  length = max((len(k) for k in every), default=0)
  keys = keys_by_player[player]
  num_infosets, num_actions = legal.shape
  observation = np.zeros((num_infosets, length, len(vocabulary)))
  for i, key in enumerate(keys):
    for position, character in enumerate(key):
      observation[i, position, vocabulary[character]] = 1.0
  observation = observation.reshape(num_infosets, -1)
  rows = np.concatenate([np.repeat(observation, num_actions, 0), np.tile(np.eye(num_actions), (num_infosets, 1))], 1)
  return rows


def _leduc_parse(key: str):
  card, public, history = key.split(":")
  rounds = [[{"f": 0, "c": 1, "r": 2}[c] for c in r] for r in history.split("/")]
  return int(card), (int(public) if public else None), rounds


def _hand_strength(card: int, public: int | None) -> float:
  """E[HS]: the win probability (ties one half) against a uniform opponent card and, preflop,
  a uniform board card, over the remaining deck of Leduc's six cards (rank = card // 2)."""
  total, wins = 0.0, 0.0
  boards = [public] if public is not None else [b for b in range(6) if b != card]
  for board in boards:
    for other in range(6):
      if other in (card, board):
        continue
      mine = 10 + card // 2 if card // 2 == board // 2 else card // 2
      theirs = 10 + other // 2 if other // 2 == board // 2 else other // 2
      total += 1
      wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
  return wins / total


def leduc_features(keys, legal: np.ndarray, action_ids: np.ndarray) -> np.ndarray:
  """[I * A, 8] raw Leduc features of Waugh et al. 2015 (see the module doc) for one player's
  keys ``card:public:history`` and action ids [I, A] (0 fold, 1 call, 2 raise, -1 none)."""
  num_infosets, num_actions = legal.shape
  out = np.zeros((num_infosets, num_actions, 8))
  for i, key in enumerate(keys):
    card, public, rounds = _leduc_parse(key)
    chips, actions, wagers = [1, 1], 0, 0
    owed = 0
    for round_index, round_actions in enumerate(rounds):
      owed = 0
      for turn, action in enumerate(round_actions):
        player = turn % 2
        actions += 1
        if action == 1:
          chips[player] += owed
          owed = 0
        elif action == 2:
          chips[player] += owed + _LEDUC_RAISE[round_index]
          owed = _LEDUC_RAISE[round_index]
          wagers += 1
    pot = chips[0] + chips[1]
    round_index = len(rounds) - 1
    base = [_hand_strength(card, public), 0 if public is None else public // 2 + 1, pot, owed / pot, actions, wagers]
    for a in range(num_actions):
      action = action_ids[i, a]
      if action < 0:
        continue
      raise_size = (owed + _LEDUC_RAISE[round_index]) / pot if action == 2 else 0.0
      out[i, a] = base + [1.0 if action == 0 else 0.0, raise_size]
  return out.reshape(num_infosets * num_actions, 8)


def features(tensors: GameTensors, player: int, feature_set: str = "auto") -> np.ndarray:
  """[I * A, F] standardised features of ``player`` of the game of ``tensors`` (GameTensors or
  a loaded game). ``feature_set``: "leduc" (games that declare it), "generic", or "auto": the
  set the game declares (GameInfo.features), else the generic encoding."""
  return _features(_labels(tensors), player, _resolve(tensors, feature_set))


def _features(labels: InfosetLabels, player: int, feature_set: str) -> np.ndarray:
  legal = labels.legal(player)
  if feature_set == "leduc":
    raw = leduc_features(labels.keys(player), legal, labels.action_ids(player))
  else:
    raw = generic_features([labels.keys(p) for p in range(2)], legal, player)
  return _standardise(raw, legal.reshape(-1))


def _leduc_abstract_key(key: str, groups) -> tuple:
  card, public, rounds = _leduc_parse(key)
  group = next(g for g, ranks in enumerate(groups) if card // 2 in ranks)
  paired = None if public is None else card // 2 == public // 2
  return group, paired, key.split(":")[2]


def abstraction_cells(tensors: GameTensors, player: int, abstraction) -> tuple[np.ndarray, int]:
  """([I * A] int32 abstract cell of each row, number of cells) for ``abstraction`` on the game
  of ``tensors`` (GameTensors or a loaded game): a name of ``LEDUC_ABSTRACTIONS`` (games that
  declare the features "leduc") or a mapping infoset key -> label (any game; every key of the
  player must be mapped, and infosets sharing a label must have the same legal actions)."""
  _check_abstraction(tensors, abstraction)
  return _cells(_labels(tensors), player, abstraction)


def _check_abstraction(tensors: GameTensors, abstraction) -> None:
  if not isinstance(abstraction, str):
    return
  if abstraction not in LEDUC_ABSTRACTIONS:
    raise ValueError(
      f"unknown abstraction {abstraction!r}; Leduc's: {', '.join(LEDUC_ABSTRACTIONS)}, "
      f"or a map from infoset keys to labels"
    )
  if _game_features(tensors) != "leduc":
    name = _tensors(tensors).name
    raise ValueError(f"abstraction {abstraction!r} is Leduc Hold'em's, not {name!r}'s")


def _cells(infosets: InfosetLabels, player: int, abstraction) -> tuple[np.ndarray, int]:
  keys, legal = infosets.keys(player), infosets.legal(player)
  if isinstance(abstraction, str):
    labels = [_leduc_abstract_key(k, LEDUC_ABSTRACTIONS[abstraction]) for k in keys]
  else:
    mapping = dict(abstraction) if isinstance(abstraction, Mapping) else dict(abstraction)
    missing = [k for k in keys if k not in mapping]
    if missing:
      raise ValueError(f"the abstraction map has no label for infoset {missing[0]!r} (player {player})")
    labels = [(player, mapping[k]) for k in keys]
  index: dict = {}
  abstract = np.array([index.setdefault(label, len(index)) for label in labels], np.int64)
  first = {}
  for i, a in enumerate(abstract):
    if a in first and not np.array_equal(legal[first[a]], legal[i]):
      raise ValueError(
        f"infosets {keys[first[a]]!r} and {keys[i]!r} share an abstract infoset but not their legal actions"
      )
    first.setdefault(a, i)
  num_actions = legal.shape[1]
  cells = (abstract[:, None] * num_actions + np.arange(num_actions)).reshape(-1)
  return cells.astype(np.int32), len(index) * num_actions


def table_size(tensors: GameTensors) -> int:
  """The full regret table's size: legal sequences of both players (the relative size's unit)."""
  return _labels(tensors).num_legal_sequences


def row_data(tensors: GameTensors, player: int, feature_set: str = "auto", abstraction=None) -> RowData:
  """The player's RowData on the game of ``tensors`` (GameTensors, traced or not, or a loaded
  game: only its static labels and info are read); ``abstraction`` (a name or a frozen map)
  sets the tabular cells. Cached by the labels' value, so every load of a game shares it."""
  feature_set = _resolve(tensors, feature_set)
  _check_abstraction(tensors, abstraction)
  return _row_data(_labels(tensors), player, feature_set, abstraction)


@functools.lru_cache(maxsize=64)
def _row_data(labels: InfosetLabels, player: int, feature_set: str, abstraction) -> RowData:
  legal = labels.legal(player).reshape(-1)
  x = _features(labels, player, feature_set)
  if abstraction is None:
    cells, num_cells = np.arange(len(legal), dtype=np.int32), len(legal)
  else:
    cells, num_cells = _cells(labels, player, abstraction)
  return RowData(features=x, legal=legal, cells=cells, num_cells=num_cells)
