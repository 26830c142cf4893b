"""Hold'em ranges as poker solvers write them (PioSOLVER, GTO+, postflop-solver), read into and
written from a weight per hand: [1326] float64 in the library's hand order
(``jaxcfr.games.hunl_subgame.hand_names()``: card id ``4 * rank + suit``, ranks
``23456789TJQKA``, suits ``s h d c``, every pair of card ids ``c1 < c2``, lexicographic).

**The format.** Entries separated by commas (spaces around commas, dashes and colons ignored;
one trailing comma allowed; ``""`` is the empty range), each a hand class with an optional
weight ``:w`` in [0, 1] (default 1):

- a pair ``QQ`` (6 combos), suited ``AKs`` (4), offsuit ``AKo`` (12), both ``AK`` (16), or
  two cards ``AhKh`` (1 combo); the higher rank first;
- ``+``: a pair or a connector (``66+``, ``T9s+``) up to aces (``AKs``), any other hand up to
  a kicker one below its top card (``A8s+`` is A8s to AKs, ``K9o+`` K9o to KQo); with two
  cards the suits stay (``8h8s+``);
- a dash range of two ends of one shape: the same gap (``22-55``, ``KQo-JTo``: both ranks
  step) or the same top card (``A5s-A2s``: the kicker steps), in either order.

Ranks are read in either case, suits and ``s``/``o`` too. Where entries overlap, **the
earlier entry's weight holds** (``"AA:0.5,QQ+"`` gives aces 0.5): postflop-solver's rule
(it applies the entries last to first). A combo that holds a board card is a matter of the
spot (games/spots.py zeroes it, as postflop-solver does). Differences from postflop-solver:
it takes dash ranges only from the higher end down (``55-22``) and rejects a dash range of
two equal ends, and it reads weights as float32 (here float64, written back exactly).
"""

from __future__ import annotations

import itertools
import re

import numpy as np

__all__ = ["RANKS", "SUITS", "NUM_HANDS", "hand_index", "parse_range", "format_range"]

RANKS, SUITS = "23456789TJQKA", "shdc"
NUM_HANDS = 1326
_PAIRS = list(itertools.combinations(range(52), 2))
_INDEX = {pair: i for i, pair in enumerate(_PAIRS)}
_SEPARATORS = re.compile(r"\s*([-:,])\s*")
_SHAPES = {"s": "suited", "o": "offsuit", "": "both"}


def hand_index(card_a: int, card_b: int) -> int:
  """The index of the hand of two card ids (either order) in the 1,326."""
  return _INDEX[(min(card_a, card_b), max(card_a, card_b))]


def _combos(high: int, low: int, shape) -> list:
  """Hand indices of the class of ranks ``high >= low`` and ``shape`` (a pair's ``""``,
  ``"s"``, ``"o"``, or the two cards' suits ``(s1, s2)``)."""
  if isinstance(shape, tuple):
    return [hand_index(4 * high + shape[0], 4 * low + shape[1])]
  pairs = itertools.combinations(range(4), 2) if high == low else itertools.product(range(4), range(4))
  keep = {"": lambda a, b: True, "s": lambda a, b: a == b, "o": lambda a, b: a != b}[shape]
  return [hand_index(4 * high + a, 4 * low + b) for a, b in pairs if keep(a, b)]


def _rank(char: str, entry: str) -> int:
  if char.upper() not in RANKS:
    raise ValueError(f"unknown rank {char!r} in range entry {entry!r} (ranks {RANKS})")
  return RANKS.index(char.upper())


def _suit(char: str, entry: str) -> int:
  if char.lower() not in SUITS:
    raise ValueError(f"unknown suit {char!r} in range entry {entry!r} (suits {SUITS})")
  return SUITS.index(char.lower())


def _hand(text: str, entry: str) -> tuple:
  """(high rank, low rank, shape) of one hand class: ``QQ``, ``AKs``, ``AKo``, ``AK``, ``AhKh``."""
  if len(text) == 4:
    high, low = _rank(text[0], entry), _rank(text[2], entry)
    shape = (_suit(text[1], entry), _suit(text[3], entry))
    if high == low and shape[0] == shape[1]:
      raise ValueError(f"range entry {entry!r} holds the card {text[:2]!r} twice")
  elif len(text) in (2, 3):
    high, low = _rank(text[0], entry), _rank(text[1], entry)
    shape = text[2:].lower()
    if shape not in _SHAPES:
      raise ValueError(f"range entry {entry!r}: {text[2]!r} is neither s (suited) nor o (offsuit)")
    if high == low and shape:
      raise ValueError(f"range entry {entry!r}: a pair is neither suited nor offsuit")
  else:
    raise ValueError(f"malformed range entry {entry!r} (a hand like QQ, AKs, AKo, AK or AhKh, then + or -, then :w)")
  if high < low:
    raise ValueError(f"range entry {entry!r}: the higher rank comes first ({RANKS[low]}{RANKS[high]})")
  return high, low, shape


def _entry(entry: str) -> list:
  """Hand indices of one entry's hands (without its weight)."""
  if "-" in entry:
    ends = entry.split("-")
    if len(ends) != 2:
      raise ValueError(f"malformed range entry {entry!r} (a dash range has two ends, like A5s-A2s)")
    (h1, l1, s1), (h2, l2, s2) = _hand(ends[0], entry), _hand(ends[1], entry)
    if s1 != s2 or (h1 == l1) != (h2 == l2) or (h1 - l1 != h2 - l2 and h1 != h2):
      raise ValueError(
        f"range entry {entry!r}: the ends differ in shape (same gap like 22-55, or same top like A5s-A2s)"
      )
    if h1 - l1 == h2 - l2:
      gap = h1 - l1
      return [i for high in range(min(h1, h2), max(h1, h2) + 1) for i in _combos(high, high - gap, s1)]
    return [i for low in range(min(l1, l2), max(l1, l2) + 1) for i in _combos(h1, low, s1)]
  if entry.endswith("+"):
    high, low, shape = _hand(entry[:-1], entry)
    if high - low <= 1:  # a pair or a connector: both ranks step up to aces
      return [i for top in range(high, 13) for i in _combos(top, top - (high - low), shape)]
    return [i for kicker in range(low, high) for i in _combos(high, kicker, shape)]
  high, low, shape = _hand(entry, entry)
  return _combos(high, low, shape)


def _weight(text: str, entry: str) -> float:
  try:
    weight = float(text)
  except ValueError:
    raise ValueError(f"range entry {entry!r}: weight {text!r} is not a number") from None
  if weight != weight:
    raise ValueError(f"range entry {entry!r}: weight {text!r} is not a number")
  if not 0 <= weight <= 1:
    raise ValueError(f"range entry {entry!r}: weight {text!r} is outside [0, 1]")
  return weight


def parse_range(text: str) -> np.ndarray:
  """[1326] float64, each hand's weight in the range ``text`` (the module doc's format; hands
  not named weigh 0; an earlier entry's weight holds over a later one's).

  Raises:
    ValueError: one line naming the entry: malformed, an unknown rank or suit, a pair given
      as suited or offsuit, the lower rank first, a dash range whose ends differ in shape, a
      weight that is not a number or lies outside [0, 1], or an empty entry.
  """
  if not isinstance(text, str):
    raise ValueError(f"a range is a string like 'QQ+,AKs', got {type(text).__name__}")
  entries = _SEPARATORS.sub(r"\1", text).strip().split(",")
  if entries[-1] == "":
    entries.pop()
  weights, named = np.zeros(NUM_HANDS), np.zeros(NUM_HANDS, bool)
  for entry in entries:
    if not entry:
      raise ValueError(f"empty range entry (two commas) in {text!r}")
    hands, _, weight = entry.partition(":")
    if ":" in weight:
      raise ValueError(f"malformed range entry {entry!r} (one :weight)")
    weight = _weight(weight, entry) if ":" in entry else 1.0
    indices = np.array(_entry(hands), np.int64)
    indices = indices[~named[indices]]  # the earlier entries' weights hold
    weights[indices], named[indices] = weight, True
  return weights


def _number(weight: float) -> str:
  """``""`` for 1, else ``":w"`` with the shortest decimal that reads back exactly."""
  return "" if weight == 1 else ":" + np.format_float_positional(weight, unique=True, trim="-")


def _runs(cells: list, name) -> list:
  """Entries for ``cells`` [(kicker or rank, weight or None)], in descending order, each run
  of consecutive ones of one positive weight as one entry: ``name(first, last, to_top)``."""
  out, run = [], []
  for key, weight in cells + [(None, None)]:
    if run and (weight != run[-1][1] or key != run[-1][0] - 1):
      out.append(name(run[0][0], run[-1][0], len(run)) + _number(run[0][1]))
      run = []
    if weight is not None and weight > 0:
      run.append((key, weight))
  return out


def format_range(weights) -> str:
  """A short range string of ``weights`` [1326] in [0, 1] (hand order of the module doc):
  pairs, then hands by top card (suited and offsuit together where their weights agree),
  each run of equal weights as one ``+`` or dash entry, then single combos for the classes
  whose combos differ; weights exact (``parse_range`` gives ``weights`` back bit for bit).

  Raises:
    ValueError: ``weights`` is not [1326] or holds a weight outside [0, 1] or NaN.
  """
  weights = np.asarray(weights, np.float64)
  if weights.shape != (NUM_HANDS,) or not np.all((weights >= 0) & (weights <= 1)):
    raise ValueError(f"format_range takes [{NUM_HANDS}] weights in [0, 1], got shape {weights.shape}")

  def uniform(high, low, shape):
    values = weights[_combos(high, low, shape)]
    return float(values[0]) if np.all(values == values[0]) else None

  pairs = [(r, uniform(r, r, "")) for r in range(12, -1, -1)]
  out = _runs(pairs, lambda a, b, n: _name(a, b, n, 12, lambda r: RANKS[r] * 2))
  singles = [(r, r, "") for r, w in pairs if w is None]
  for high in range(12, 0, -1):
    cells = {shape: [(k, uniform(high, k, shape)) for k in range(high - 1, -1, -1)] for shape in "so"}
    names = {shape: _namer(high, shape) for shape in ("s", "o", "")}
    apart = _runs(cells["s"], names["s"]) + _runs(cells["o"], names["o"])
    both = [(k, s if s == o else None) for (k, s), (_, o) in zip(cells["s"], cells["o"])]
    rest = {shape: [(k, None if b is not None else w) for (k, w), (_, b) in zip(cells[shape], both)] for shape in "so"}
    together = _runs(both, names[""]) + _runs(rest["s"], names["s"]) + _runs(rest["o"], names["o"])
    out += together if len(",".join(together)) <= len(",".join(apart)) else apart
    singles += [(high, k, shape) for shape in "so" for k, w in cells[shape] if w is None]
  for high, low, shape in singles:
    for index in _combos(high, low, shape):
      a, b = _PAIRS[index]
      if weights[index] > 0:
        first, second = (a, b) if a // 4 >= b // 4 else (b, a)
        out.append(_card(first) + _card(second) + _number(float(weights[index])))
  return ",".join(out)


def _name(first: int, last: int, count: int, top: int, hand) -> str:
  """The entry of a run of ``count`` hands ``hand(first)`` down to ``hand(last)``: one hand, a
  ``+`` run where ``first`` is ``top`` (the highest it can be), else a dash range."""
  if count == 1:
    return hand(first)
  return hand(last) + "+" if first == top else f"{hand(first)}-{hand(last)}"


def _namer(high: int, shape: str):
  """The run namer of the hands of top rank ``high`` and ``shape`` (``_runs``)."""
  return lambda a, b, n: _name(a, b, n, high - 1, lambda k: RANKS[high] + RANKS[k] + shape)


def _card(card: int) -> str:
  return RANKS[card // 4] + SUITS[card % 4]
