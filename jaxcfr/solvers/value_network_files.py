"""A value network and its data as types and files (jaxcfr.solvers.value_network re-exports
all of it): ``Situations`` and ``ValueNetwork``, written as ``.npz`` with a checksum and read
back without pickles, checked in full before use: a network's layers chain from ``1 + C + 2H``
inputs to ``2H`` outputs with biases and PReLU slopes of their widths, all finite, of a game
whose deck, hands and stack agree (``load``), and, given a game, that game's (``check_game``);
data's arrays agree in shape and hold finite values, ranges and pots that can be (``load_data``).
Every problem is one line naming the file."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import integrity
from jaxcfr.games import poker_rules

__all__ = ["Situations", "ValueNetwork", "stack_of", "check_game", "save", "load", "save_data", "load_data"]


class Situations(NamedTuple):
  """Solved random situations.

  Attributes:
    pot: [S] chips in the pot (both contributions).
    board: [C, S] bool, the public cards.
    ranges: [2, H, S] each player's range, summing to one (zero on blocked hands).
    values: [2, H, S] each player's counterfactual values per chip of the pot against the
      opponent's range.
  """

  pot: np.ndarray
  board: np.ndarray
  ranges: np.ndarray
  values: np.ndarray


@dataclasses.dataclass(frozen=True)
class ValueNetwork:
  """A counterfactual value network of one game.

  Attributes:
    weights: list of ([F_in, F_out], [F_out]) layers, ``F = 1 + C + 2 H`` inputs, PReLU
      hidden layers, ``2 H`` outputs.
    slopes: per hidden layer, [F_out] the PReLU slopes.
    num_cards, num_hands, stack: the game's deck, hands and stack (the pot's scale).
  """

  weights: tuple
  slopes: tuple
  num_cards: int
  num_hands: int
  stack: int


jax.tree_util.register_dataclass(
  ValueNetwork, data_fields=["weights", "slopes"], meta_fields=["num_cards", "num_hands", "stack"]
)


def stack_of(rules) -> int:
  """The stack of a rules object (a Subgame's whole game's), the pot's scale."""
  rules = getattr(rules, "whole", rules)
  stack = getattr(rules, "stack", None) or getattr(getattr(rules, "game", None), "stack", None)
  if stack is None:
    raise ValueError("the rules declare no stack (the value network scales the pot by it)")
  return stack


def check_game(network: ValueNetwork, rules, where: str = "the value network") -> None:
  """Raises ValueError, one line naming ``where``, unless ``network`` is one of the game of
  ``rules``: the same deck, hands and stack."""
  game = (rules.num_cards, len(poker_rules.hands(rules.num_cards, rules.hand_size)), int(stack_of(rules)))
  mine = (network.num_cards, network.num_hands, network.stack)
  if mine != game:
    raise ValueError(
      f"{where} is a network of another game (deck {mine[0]}, hands {mine[1]}, stack {mine[2]}; "
      f"the game's: deck {game[0]}, hands {game[1]}, stack {game[2]})"
    )


def save(path, network: ValueNetwork) -> None:
  """Writes ``network`` to ``path`` (.npz with a checksum)."""
  arrays = {f"w{i}": np.asarray(w) for i, (w, _) in enumerate(network.weights)}
  arrays |= {f"b{i}": np.asarray(b) for i, (_, b) in enumerate(network.weights)}
  arrays |= {f"slope{i}": np.asarray(s) for i, s in enumerate(network.slopes)}
  meta = dict(num_cards=network.num_cards, num_hands=network.num_hands, stack=network.stack)
  arrays["meta"] = np.array(json.dumps(meta))
  _write(path, arrays)


def _meta(path, arrays: dict) -> tuple[int, int, int]:
  """(deck, hands, stack) of a network file, checked to be a poker game's."""
  try:
    meta = json.loads(str(arrays["meta"]))
    num_cards, num_hands, stack = (meta[k] for k in ("num_cards", "num_hands", "stack"))
  except (KeyError, ValueError, TypeError):
    raise integrity.DamagedFileError(
      f"{path} is not a value network: no meta giving its game's num_cards, num_hands and stack"
    ) from None
  if not all(isinstance(x, int) and not isinstance(x, bool) for x in (num_cards, num_hands, stack)):
    raise integrity.DamagedFileError(f"{path}: its meta's num_cards, num_hands and stack must be integers")
  if num_cards < 1 or stack < 1 or not any(math.comb(num_cards, k) == num_hands for k in range(1, num_cards + 1)):
    raise integrity.DamagedFileError(
      f"{path}: deck {num_cards}, hands {num_hands} and stack {stack} are no game's (hands of k of the cards)"
    )
  return num_cards, num_hands, stack


def load(path, rules=None) -> ValueNetwork:
  """The network saved at ``path``, checked (the module doc), and to be of the game of
  ``rules`` if given (``check_game``). Raises DamagedFileError (or ValueError for another
  game's network), one line naming the file."""
  arrays = integrity.read_arrays(path, "value network")
  num_cards, num_hands, stack = _meta(path, arrays)
  layers = 0
  while f"w{layers}" in arrays:
    layers += 1
  expected = {
    "meta",
    *(f"{k}{i}" for k in ("w", "b") for i in range(layers)),
    *(f"slope{i}" for i in range(layers - 1)),
  }
  members = set(arrays) - {integrity.CHECKSUM}
  if not layers:
    raise integrity.DamagedFileError(f"{path}: a value network without layers (no w0)")
  if members != expected:
    found = ", ".join(sorted(members ^ expected)) or "none"
    raise integrity.DamagedFileError(
      f"{path}: not the members of a network of {layers} layers (missing or extra: {found})"
    )
  inputs = 1 + num_cards + 2 * num_hands
  for i in range(layers):
    w, b = arrays[f"w{i}"], arrays[f"b{i}"]
    slope = arrays[f"slope{i}"] if i < layers - 1 else None
    width_in = inputs if i == 0 else arrays[f"w{i - 1}"].shape[1]
    width_out = 2 * num_hands if i == layers - 1 else w.shape[-1]
    if w.ndim != 2 or w.shape != (width_in, width_out) or b.shape != (width_out,):
      raise integrity.DamagedFileError(
        f"{path}: layer {i} has weights {w.shape} and biases {b.shape}, not ({width_in}, {width_out}) and "
        f"({width_out},) (inputs 1 + {num_cards} + 2 x {num_hands}, outputs 2 x {num_hands}, chained)"
      )
    if slope is not None and slope.shape != (width_out,):
      raise integrity.DamagedFileError(f"{path}: layer {i}'s PReLU slopes are {slope.shape}, not ({width_out},)")
  for name in sorted(expected - {"meta"}):
    if arrays[name].dtype.kind != "f" or not np.all(np.isfinite(arrays[name])):
      raise integrity.DamagedFileError(f"{path}: {name} is not finite floating-point numbers")
  weights = tuple((jnp.asarray(arrays[f"w{i}"]), jnp.asarray(arrays[f"b{i}"])) for i in range(layers))
  slopes = tuple(jnp.asarray(arrays[f"slope{i}"]) for i in range(layers - 1))
  network = ValueNetwork(weights, slopes, num_cards, num_hands, stack)
  if rules is not None:
    check_game(network, rules, str(path))
  return network


def save_data(path, data: Situations) -> None:
  """Writes solved situations to ``path`` (.npz with a checksum)."""
  _write(path, data._asdict())


def load_data(path, rules=None) -> Situations:
  """The situations saved at ``path``, checked: shapes ``pot [S]``, ``board [C, S]``,
  ``ranges`` and ``values [2, H, S]``; pots positive, ranges non-negative, everything finite;
  given ``rules``, the deck and hands of that game. Raises DamagedFileError (or ValueError for
  another game's data), one line naming the file."""
  arrays = integrity.read_arrays(path, "value network data")
  try:
    data = Situations(*(np.asarray(arrays[name]) for name in Situations._fields))
  except KeyError as error:
    raise integrity.DamagedFileError(f"{path} lacks {error}: not value network data") from None
  count = data.pot.shape[0] if data.pot.ndim == 1 else -1
  shapes = (data.board.shape[1:], data.ranges.shape[0], data.ranges.shape[2:], data.values.shape)
  if data.board.ndim != 2 or data.ranges.ndim != 3 or shapes != ((count,), 2, (count,), data.ranges.shape):
    raise integrity.DamagedFileError(
      f"{path}: its arrays' shapes do not agree (pot [S], board [C, S], ranges [2, H, S])"
    )
  if any(x.dtype.kind not in "fiub" for x in data) or not all(np.all(np.isfinite(x)) for x in data):
    raise integrity.DamagedFileError(f"{path}: non-finite values")
  if np.any(data.pot <= 0) or np.any(data.ranges < 0):
    raise integrity.DamagedFileError(f"{path}: a pot that is not positive or a negative range")
  if rules is not None:
    hands = len(poker_rules.hands(rules.num_cards, rules.hand_size))
    if (data.board.shape[0], data.ranges.shape[1]) != (rules.num_cards, hands):
      raise ValueError(
        f"{path} holds situations of another game (deck {data.board.shape[0]}, hands {data.ranges.shape[1]}; "
        f"the game's: deck {rules.num_cards}, hands {hands})"
      )
  return data


def _write(path, arrays: dict) -> None:
  path = Path(path)
  tmp = path.with_name(path.name + ".tmp")
  with open(tmp, "wb") as handle:
    np.savez(handle, **integrity.with_checksum(arrays))
  tmp.replace(path)
