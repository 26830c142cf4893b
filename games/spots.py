"""Poker spots as poker players write them: a board, the starting pot, the effective stack, both
players' ranges and a bet tree (games/poker_ranges.py, games/bet_trees.py), with the meanings
of postflop-solver's ``CardConfig`` and ``TreeConfig``; ``Spot.rules()`` is the
``NoLimitRules`` whose public tree jaxcfr.kits.public_tree builds. Player 0 is out of position
(OOP) and acts first on every street, player 1 is in position (IP).

**Spot files** are JSON (``Spot.save``, ``Spot.load``; ``hunl_subgame(spot=PATH)`` loads one)::

  {"format": "jaxcfr-spot", "version": 1,
   "board": "Td9d6h", "pot": 200, "effective_stack": 900, "big_blind": 10,
   "oop_range": "66+,A8s+,AJo+", "ip_range": [1326 weights in the hand order],
   "bet_tree": {"flop": {"oop": {"bets": "33%,75%,a", "raises": "2.5x"}, "ip": {...}},
                "turn": {...}, "river": {...}, "turn_donks": null, "river_donks": "50%",
                "add_allin_threshold": 1.5, "force_allin_threshold": 0.15,
                "merging_threshold": 0.1, "max_raises": null}}

Every key is required (null where the value may be None); an unknown key, a missing one or a
value of the wrong type is a one-line error naming the file and the key. ``pot`` is both
players' chips in the middle, half from each (so it must be even: postflop-solver also takes
odd pots); ``effective_stack`` is the chips each player has behind it; ``big_blind`` is only
the unit of mbb/g (postflop-solver has none: the least bet is one chip). A range is a range
string or 1,326 weights in [0, 1]; a hand that holds a board card weighs 0 whatever its
weight (postflop-solver's rule), and a range with no weight left is an error.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from .bet_trees import STREETS, BetTree
from .hunl_subgame import format_cards, libratus_endgame, parse_cards
from .poker_ranges import NUM_HANDS, format_range, parse_range
from .no_limit_rules import NoLimitRules
from .poker_rules import HOLDEM, hands

__all__ = ["FORMAT", "VERSION", "Spot"]

FORMAT, VERSION = "jaxcfr-spot", 1
_PLAYERS = ("oop", "ip")
_INT, _NUMBER, _TEXT, _NONE = "an integer", "a number", "a string", "null"
_RANGE = "a range string or a list of 1326 numbers"
_KEYS = {
  "": {
    "format": _TEXT,
    "version": _INT,
    "board": _TEXT,
    "pot": _INT,
    "effective_stack": _INT,
    "big_blind": _INT,
    "oop_range": _RANGE,
    "ip_range": _RANGE,
    "bet_tree": dict,
  },
  "bet_tree": {
    **dict.fromkeys(STREETS, dict),
    "turn_donks": (_TEXT, _NONE),
    "river_donks": (_TEXT, _NONE),
    "add_allin_threshold": _NUMBER,
    "force_allin_threshold": _NUMBER,
    "merging_threshold": _NUMBER,
    "max_raises": (_INT, _NONE),
  },
  "street": dict.fromkeys(_PLAYERS, dict),
  "player": {"bets": _TEXT, "raises": _TEXT},
}


def _is(value, kind) -> bool:
  if isinstance(kind, tuple):
    return any(_is(value, k) for k in kind)
  number = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)
  return {
    _INT: lambda: isinstance(value, int) and not isinstance(value, bool),
    _NUMBER: lambda: number(value),
    _TEXT: lambda: isinstance(value, str),
    _NONE: lambda: value is None,
    _RANGE: lambda: isinstance(value, str) or (isinstance(value, list) and all(map(number, value))),
    dict: lambda: isinstance(value, dict),
  }[kind]()


def _checked(data, schema: str, where: str, source: str) -> dict:
  """``data`` if it is a mapping with exactly the keys of ``_KEYS[schema]``, each of its type;
  else ValueError naming ``source`` and the key (``where`` + key)."""
  keys = _KEYS[schema]
  for key in data:
    if key not in keys:
      raise ValueError(f"{source}: unknown key {where + str(key)!r} (expected: {', '.join(keys)})")
  for key, kind in keys.items():
    if key not in data:
      raise ValueError(f"{source}: missing key {where + key!r}")
    if not _is(data[key], kind):
      want = " or ".join(
        k if isinstance(k, str) else "an object" for k in (kind if isinstance(kind, tuple) else (kind,))
      )
      raise ValueError(f"{source}: key {where + key!r} must be {want}, got {type(data[key]).__name__}")
  return data


@dataclasses.dataclass(frozen=True)
class Spot:
  """A heads-up no-limit hold'em spot (module doc); checked on construction (ValueError, one
  line naming the field: a malformed board or range, a card twice, a board of other than 3,
  4 or 5 cards, weights outside [0, 1], a range left empty by the board, a pot that is not
  even and positive, an effective stack below one chip).

  Attributes:
    board: the board, e.g. ``"Td9d6h"`` (3, 4 or 5 cards: the flop, turn or river).
    pot: both players' chips in the middle, an even number.
    effective_stack: the chips each player has behind the pot, >= 1.
    oop_range, ip_range: a range string (games/poker_ranges.py) or 1,326 weights in [0, 1]
      (stored as a tuple), for player 0 (OOP) and player 1 (IP).
    bet_tree: the BetTree (games/bet_trees.py).
    big_blind: the unit of mbb/g (chips).
  """

  board: str
  pot: int
  effective_stack: int
  oop_range: str | tuple
  ip_range: str | tuple
  bet_tree: BetTree
  big_blind: int = 100

  def __post_init__(self):
    if not isinstance(self.board, str):
      raise ValueError(f"board must be a string of cards like 'Td9d6h', got {type(self.board).__name__}")
    try:
      cards = parse_cards(self.board)
    except ValueError as error:
      raise ValueError(f"board: {error}") from None
    if len(cards) not in (3, 4, 5):
      raise ValueError(
        f"board: a spot's board has 3, 4 or 5 cards (flop, turn, river), got {len(cards)} in {self.board!r}"
      )
    for name, low in (("pot", 2), ("effective_stack", 1), ("big_blind", 1)):
      value = getattr(self, name)
      if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an integer >= {low} (chips), got {value!r}")
    if self.pot % 2:
      raise ValueError(f"pot must be even (each player put in half), got {self.pot}")
    if not isinstance(self.bet_tree, BetTree):
      raise ValueError(f"bet_tree must be a BetTree (games/bet_trees.py), got {type(self.bet_tree).__name__}")
    blocked = np.isin(hands(52, 2), cards).any(1)
    weights = []
    for name in ("oop_range", "ip_range"):
      value = getattr(self, name)
      if isinstance(value, str):
        try:
          row = parse_range(value)
        except ValueError as error:
          raise ValueError(f"{name}: {error}") from None
      else:
        row = np.asarray(value, np.float64)
        if row.shape != (NUM_HANDS,) or not np.all((row >= 0) & (row <= 1)):
          raise ValueError(f"{name}: weights must be {NUM_HANDS} numbers in [0, 1], got shape {row.shape}")
        object.__setattr__(self, name, tuple(row.tolist()))
      row = np.where(blocked, 0.0, row)
      if not row.sum() > 0:
        raise ValueError(f"{name}: no weight on a hand that the board {self.board} leaves possible")
      weights.append(row)
    object.__setattr__(self, "_weights", np.stack(weights))
    object.__setattr__(self, "_cards", cards)
    self.rules()  # both ranges hold a pair of hands that share no card (NoLimitRules checks)

  @property
  def cards(self) -> tuple:
    """The board's card ids."""
    return self._cards

  @property
  def ranges(self) -> np.ndarray:
    """[2, 1326] float64 both players' weights, zero on the hands that hold a board card."""
    return self._weights.copy()

  @property
  def stack(self) -> int:
    """Each player's chips at the start of the hand, the pot's share included (NoLimitRules')."""
    return self.pot // 2 + self.effective_stack

  def rules(self, hands_in_play: bool = False) -> NoLimitRules:
    """The NoLimitRules of the spot (jaxcfr.kits.public_tree.build builds its public tree);
    ``hands_in_play``: the tree holds only the hands in either range (NoLimitRules')."""
    return NoLimitRules(
      ranks=13,
      suits=4,
      board=self._cards,
      board_cards=(0, 3, 1, 1),
      pot=self.pot,
      stack=self.stack,
      big_blind=self.big_blind,
      ranges=tuple(tuple(row) for row in self._weights.tolist()),
      strength=HOLDEM,
      bet_tree=self.bet_tree,
      hands_in_play=hands_in_play,
    )

  def to_dict(self) -> dict:
    """The spot file's content (module doc): JSON types only."""
    tree = self.bet_tree
    per_street = {
      street: {p: {"bets": tree.bets[s][i], "raises": tree.raises[s][i]} for i, p in enumerate(_PLAYERS)}
      for s, street in enumerate(STREETS)
    }
    thresholds = ("add_allin_threshold", "force_allin_threshold", "merging_threshold", "max_raises")
    return {
      "format": FORMAT,
      "version": VERSION,
      "board": self.board,
      "pot": self.pot,
      "effective_stack": self.effective_stack,
      "big_blind": self.big_blind,
      "oop_range": self.oop_range if isinstance(self.oop_range, str) else list(self.oop_range),
      "ip_range": self.ip_range if isinstance(self.ip_range, str) else list(self.ip_range),
      "bet_tree": {
        **per_street,
        "turn_donks": tree.donks[0],
        "river_donks": tree.donks[1],
        **{name: getattr(tree, name) for name in thresholds},
      },
    }

  @classmethod
  def from_dict(cls, data, source: str = "<spot>") -> Spot:
    """The Spot of a spot file's content; ValueError naming ``source`` and the key on an
    unknown, missing or mistyped key, another format or version, or a value the Spot rejects."""
    if not isinstance(data, dict):
      raise ValueError(f"{source}: a spot file holds a JSON object, got {type(data).__name__}")
    _checked(data, "", "", source)
    if data["format"] != FORMAT:
      raise ValueError(f"{source}: key 'format' must be {FORMAT!r}, got {data['format']!r}")
    if data["version"] != VERSION:
      raise ValueError(f"{source}: key 'version' is {data['version']}; this reader knows version {VERSION}")
    tree = _checked(data["bet_tree"], "bet_tree", "bet_tree.", source)
    sizes = {"bets": {}, "raises": {}}
    for street in STREETS:
      players = _checked(tree[street], "street", f"bet_tree.{street}.", source)
      for p in _PLAYERS:
        entry = _checked(players[p], "player", f"bet_tree.{street}.{p}.", source)
        for role in sizes:
          sizes[role].setdefault(street, []).append(entry[role])
    try:
      bet_tree = BetTree(
        bets=sizes["bets"],
        raises=sizes["raises"],
        donks={"turn": tree["turn_donks"], "river": tree["river_donks"]},
        **{key: tree[key] for key in ("add_allin_threshold", "force_allin_threshold", "merging_threshold")},
        max_raises=tree["max_raises"],
      )
    except ValueError as error:
      raise ValueError(f"{source}: bet_tree: {error}") from None
    fields = ("board", "pot", "effective_stack", "oop_range", "ip_range", "big_blind")
    try:
      return cls(**{key: data[key] for key in fields}, bet_tree=bet_tree)
    except ValueError as error:
      raise ValueError(f"{source}: {error}") from None

  def save(self, path) -> None:
    """Writes the spot file (JSON; weights as exact decimals, one range a line)."""
    data = self.to_dict()
    ranges = {key: data[key] for key in ("oop_range", "ip_range") if isinstance(data[key], list)}
    text = json.dumps({**data, **{key: f"@{key}@" for key in ranges}}, indent=2)
    for key, row in ranges.items():
      text = text.replace(f'"@{key}@"', json.dumps(row))
    Path(path).write_text(text + "\n", encoding="utf-8")

  @classmethod
  def load(cls, path) -> Spot:
    """The Spot of a spot file; ValueError naming the file (and the key) if it cannot be read,
    is not JSON or fails ``from_dict``'s checks."""
    path = Path(path)
    try:
      text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
      raise ValueError(f"{path}: cannot read the spot file ({type(error).__name__}: {error})") from None
    try:
      data = json.loads(text)  # NaN and Infinity read as floats, which the checks reject
    except json.JSONDecodeError as error:
      raise ValueError(f"{path}: not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    return cls.from_dict(data, str(path))

  @classmethod
  def from_endgame(cls, number: int) -> Spot:
    """Libratus endgame ``number`` (1..4, jaxcfr.games.hunl_subgame) as a Spot: its board, pot
    and reach as weights, stacks of 20,000, a big blind of 100 and hunl_subgame's default
    bet abstraction (first bets of half a pot, a pot and all-in, raises of a pot and all-in),
    whose public tree equals ``hunl_subgame(endgame=number)``'s."""
    found = libratus_endgame(number)
    return cls(
      board=format_cards(found.board),
      pot=found.pot,
      effective_stack=20_000 - found.pot // 2,
      oop_range=tuple(found.reach[0].tolist()),
      ip_range=tuple(found.reach[1].tolist()),
      bet_tree=BetTree(bets="50%,100%,a", raises="100%,a"),
      big_blind=100,
    )

  def range_strings(self) -> tuple:
    """Both ranges as range strings (format_range of ``ranges``: board hands at zero)."""
    return format_range(self._weights[0]), format_range(self._weights[1])
