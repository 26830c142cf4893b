"""Heads-up no-limit hold'em subgames (endgames): a board, a pot, stacks, each player's range
over the 1,326 two-card hands and a bet-size abstraction, solved on the public tree
(jaxcfr.kits.public_tree.tree.public_tree_of builds it from ``public_tree_rules()``).

Cards are written rank then suit, ranks ``23456789TJQKA`` and suits ``s h d c``, e.g.
``7s9h9cTc``; card ids are ``4 * rank + suit`` in that order (the deck of
jaxcfr.games.poker_rules with 13 ranks and 4 suits, and OpenSpiel's ``handReaches`` order).
The hands are ordered 2s2h, 2s2d, 2s2c, 2s3s, ..., AdAc (every pair of card ids,
lexicographic).

**Endgame files** (the format of the Libratus endgames, as published with Steinberger's PokerRL
and used by Brown and Sandholm, "Solving Imperfect-Information Games via Discounted Regret
Minimization", 2019), one field a line: ``-round R`` (3 = the turn, 4 = the river; 2 = the
flop), ``-board CARDS`` (spaces between cards allowed), ``-pot P`` (both players' chips, equal
shares) and ``-reach`` followed by 2,652 numbers: the first 1,326 the reach of the
out-of-position player (player 0, first to act), the next 1,326 the button's (player 1), in the
hand order above. ``read_endgame`` reads and verifies one (plain text, nothing
unpickled); the four Libratus endgames ship in ``data/libratus_endgames`` (its README
names their source): ``libratus_endgame(1..4)``.

**The game** ``hunl_subgame(...)``: one of ``endgame=1..4`` (a built-in endgame), ``ranges=PATH``
(a file of that format; its board, pot and round are the subgame's), ``board=CARDS`` with
``pot=P`` (uniform ranges) or ``spot=PATH`` (a spot file, games/spots.py: its board, pot,
stacks, ranges, big blind and bet tree, postflop-solver's betting, and no other parameter); and ``stack`` (default 20,000 each, the pot's share included),
``big_blind`` (100), the bet sizes in pots ``first_bets`` (default ``0.5;1;allin``) for the
first bet of a round and ``raises`` (``1;allin``) for later raises, separated by ``;`` or ``x`` (the
game string's parser splits parameters at commas), and ``max_raises`` (bets and raises per
round; default none, the stacks bound them); with any of them, ``hands=in_play`` builds the
public tree over only the hands in either range (NoLimitRules' ``hands_in_play``: smaller and
faster; its arrays over hands then cover ``tree.hands``), ``hands=all`` (the default) over all
1,326. Player 0 is out of position and acts first in every round; the turn's and the flop's
subgames deal the cards below them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._base import GameError, GameInfo, check_int
from .no_limit_rules import NoLimitRules
from .poker_rules import ALL_IN, HOLDEM
from .poker_rules import hands as deck_hands

__all__ = [
  "RANKS",
  "SUITS",
  "NUM_HANDS",
  "ENDGAMES",
  "parse_cards",
  "format_cards",
  "hand_names",
  "hand_grid",
  "Endgame",
  "read_endgame",
  "parse_endgame",
  "libratus_endgame",
  "parse_sizes",
  "HunlSubgame",
  "hunl_subgame",
]

RANKS, SUITS = "23456789TJQKA", "shdc"
NUM_HANDS = 1326  # C(52, 2)
ENDGAMES = Path(__file__).resolve().parent / "data" / "libratus_endgames"
_BOARD_SIZE = {2: 3, 3: 4, 4: 5}  # -round -> cards on the board (flop, turn, river)
_FIELDS = ("-round", "-board", "-pot", "-reach")


def parse_cards(text: str) -> tuple:
  """Card ids of ``"7s9h9cTc"`` (rank then suit; spaces ignored). Raises ValueError naming a
  malformed or repeated card."""
  text = "".join(str(text).split())
  if len(text) % 2:
    raise ValueError(f"cards {text!r} are not pairs of a rank and a suit")
  out = []
  for i in range(0, len(text), 2):
    rank, suit = text[i].upper(), text[i + 1].lower()
    if rank not in RANKS or suit not in SUITS:
      raise ValueError(f"malformed card {text[i : i + 2]!r} (ranks {RANKS}, suits {SUITS})")
    card = 4 * RANKS.index(rank) + SUITS.index(suit)
    if card in out:
      raise ValueError(f"card {text[i : i + 2]!r} appears twice in {text!r}")
    out.append(card)
  return tuple(out)


def format_cards(cards) -> str:
  """``"7s9h"`` from card ids."""
  return "".join(RANKS[c // 4] + SUITS[c % 4] for c in cards)


def hand_names() -> list:
  """The 1,326 hands' names in the files' order: ``["2s2h", "2s2d", ..., "AdAc"]``."""
  return [format_cards(hand) for hand in deck_hands(52, 2).tolist()]


def hand_grid(values, weights=None):
  """The 13 x 13 grid poker players read: ``values`` [1326] (one per hand, the files' order)
  averaged over each cell's hands, weighted by ``weights`` [1326] (e.g. a range; default
  equal), NaN where a cell has no weight. Rows and columns run from ace down to deuce; the
  pairs on the diagonal, the suited hands above it (row ``AK`` column: ``AKs`` at [0, 1]),
  the offsuit hands below ([1, 0] is ``AKo``).

  Returns:
    grid: [13, 13] float64; labels: [13, 13] the cells' names (``"AA"``, ``"AKs"``, ``"AKo"``).
  """
  values = np.asarray(values, np.float64)
  weights = np.ones(NUM_HANDS) if weights is None else np.asarray(weights, np.float64)
  if values.shape != (NUM_HANDS,) or weights.shape != (NUM_HANDS,):
    raise ValueError(f"hand_grid takes [{NUM_HANDS}] values and weights, got {values.shape} and {weights.shape}")
  table = deck_hands(52, 2)
  high = 12 - np.maximum(table[:, 0] // 4, table[:, 1] // 4)  # row/column of the higher rank, ace first
  low = 12 - np.minimum(table[:, 0] // 4, table[:, 1] // 4)
  suited = table[:, 0] % 4 == table[:, 1] % 4
  row = np.where(suited, high, low)
  col = np.where(suited, low, high)
  total = np.zeros((13, 13))
  mass = np.zeros((13, 13))
  np.add.at(total, (row, col), weights * values)
  np.add.at(mass, (row, col), weights)
  with np.errstate(invalid="ignore", divide="ignore"):
    grid = np.where(mass > 0, total / mass, np.nan)
  names = RANKS[::-1]
  labels = np.array(
    [
      [names[min(i, j)] + names[max(i, j)] + ("" if i == j else "s" if i < j else "o") for j in range(13)]
      for i in range(13)
    ]
  )
  return grid, labels


class Endgame:
  """A subgame read from an endgame file.

  Attributes:
    round: the file's round (2 flop, 3 turn, 4 river).
    board: the board's card ids.
    pot: both players' chips in the middle.
    reach: [2, 1326] float64, each player's reach of each hand (player 0 out of position).
    source: where it was read from.
  """

  def __init__(self, round_: int, board: tuple, pot: int, reach: np.ndarray, source: str):
    self.round, self.board, self.pot, self.reach, self.source = round_, board, pot, reach, source

  def __repr__(self) -> str:
    return f"Endgame({self.source}: round {self.round}, board {format_cards(self.board)}, pot {self.pot})"


def parse_endgame(text: str, source: str = "<text>") -> Endgame:
  """The Endgame in ``text`` (the format of the module doc). Raises ValueError naming
  ``source`` and the problem: a missing, repeated or unknown field, a wrong count of reach
  numbers, a reach outside [0, 1] (a probability) or not finite, a malformed card, a board
  that does not fit the round, a pot that is not a positive even integer, a board card in a
  hand with positive reach, or a player whose reach is zero on every hand the board leaves
  (an empty range). Junk is quoted up to 20 characters."""
  fields, current = {}, None
  for token in text.split():
    if token.startswith("-") and not _is_number(token):
      if token not in _FIELDS:
        raise ValueError(f"{source}: unknown field {_quoted(token)}; the fields are {', '.join(_FIELDS)}")
      if token in fields:
        raise ValueError(f"{source}: field {token} is given twice")
      current = fields[token] = []
    elif current is None:
      raise ValueError(f"{source}: {_quoted(token)} comes before any field")
    else:
      current.append(token)
  for field in _FIELDS:
    if field not in fields:
      raise ValueError(f"{source}: missing field {field}")
  for field in ("-round", "-pot"):
    if len(fields[field]) != 1:
      raise ValueError(f"{source}: {field} needs one value, got {len(fields[field])}")
  round_, pot = _integer(fields["-round"][0], "-round", source), _integer(fields["-pot"][0], "-pot", source)
  if round_ not in _BOARD_SIZE:
    raise ValueError(f"{source}: -round must be 2 (flop), 3 (turn) or 4 (river), got {round_}")
  if pot <= 0 or pot % 2:
    raise ValueError(f"{source}: -pot must be a positive even number of chips (equal shares), got {pot}")
  try:
    board = parse_cards("".join(fields["-board"]))
  except ValueError as error:
    raise ValueError(f"{source}: -board: {error}") from None
  if len(board) != _BOARD_SIZE[round_]:
    raise ValueError(f"{source}: round {round_} needs a board of {_BOARD_SIZE[round_]} cards, got {len(board)}")
  if len(fields["-reach"]) != 2 * NUM_HANDS:
    raise ValueError(f"{source}: -reach has {len(fields['-reach'])} numbers, expected {2 * NUM_HANDS}")
  try:
    reach = np.array([float(x) for x in fields["-reach"]], np.float64).reshape(2, NUM_HANDS)
  except ValueError:
    bad = next(x for x in fields["-reach"] if not _is_number(x))
    raise ValueError(f"{source}: -reach holds {_quoted(bad)}, not a number") from None
  bad = np.argwhere(~np.isfinite(reach) | (reach < 0))
  if len(bad):
    p, h = bad[0]
    raise ValueError(f"{source}: negative or non-finite reach {reach[p, h]} of player {p} at hand {hand_names()[h]}")
  bad = np.argwhere(reach > 1)
  if len(bad):
    p, h = bad[0]
    raise ValueError(
      f"{source}: reach {reach[p, h]} of player {p} at hand {hand_names()[h]} is above 1 (a probability)"
    )
  blocked = np.isin(deck_hands(52, 2), board).any(1)
  bad = np.argwhere((reach > 0) & blocked)
  if len(bad):
    p, h = bad[0]
    raise ValueError(f"{source}: hand {hand_names()[h]} holds a board card but player {p}'s reach is {reach[p, h]}")
  empty = np.flatnonzero(~(reach > 0).any(1))
  if len(empty):
    raise ValueError(
      f"{source}: player {empty[0]}'s reach is zero on every hand the board leaves possible (an empty range)"
    )
  return Endgame(round_, board, pot, reach, source)


def read_endgame(path) -> Endgame:
  """The Endgame of a file (see parse_endgame for its checks)."""
  path = Path(path)
  try:
    text = path.read_text(encoding="ascii")
  except (OSError, UnicodeDecodeError) as error:
    raise ValueError(f"{path}: cannot read the endgame file ({type(error).__name__}: {error})") from None
  return parse_endgame(text, str(path))


def libratus_endgame(number: int) -> Endgame:
  """Libratus endgame ``number`` (1..4; data/libratus_endgames/README.md)."""
  check_int("endgame", number, low=1, high=4)
  return read_endgame(ENDGAMES / f"subgame{number}.txt")


def _quoted(token: str) -> str:
  """``repr(token)``, cut at 20 characters: a message quotes junk without repeating it."""
  return repr(token) if len(token) <= 20 else repr(token[:20])[:-1] + "...'"


def _is_number(token: str) -> bool:
  try:
    float(token)
  except ValueError:
    return False
  return True


def _integer(token: str, field: str, source: str) -> int:
  try:
    return int(token)
  except ValueError:
    raise ValueError(f"{source}: {field} must be an integer, got {token!r}") from None


def parse_sizes(value, name: str) -> tuple:
  """Bet sizes in pots from ``"0.5;1;allin"``, a number or a sequence (``allin`` or ALL_IN
  for the all-in). Raises GameError naming ``name``."""
  if isinstance(value, str):
    items = [item.strip() for item in value.replace("x", ";").split(";") if item.strip()]
  elif isinstance(value, (int, float)) and not isinstance(value, bool):
    items = [value]
  else:
    items = list(value)
  sizes = []
  for item in items:
    if isinstance(item, str) and item.lower() in ("allin", "all-in", "all_in"):
      sizes.append(ALL_IN)
      continue
    try:
      size = float(item)
    except (TypeError, ValueError):
      raise GameError(f"parameter {name} must be pot fractions or allin separated by ';', got {value!r}") from None
    if not (0 < size < 1e6 or size == ALL_IN):
      raise GameError(f"parameter {name} needs positive pot fractions, got {value!r}")
    sizes.append(size)
  if not sizes:
    raise GameError(f"parameter {name} names no bet size, got {value!r}")
  return tuple(dict.fromkeys(sizes))


class HunlSubgame:
  """A heads-up no-limit hold'em subgame (the module doc describes its parameters). It
  declares only a public tree (``public_tree_rules``): its sequence form would hold every
  pair of hands at every betting history.

  Attributes:
    name, params: the game's name and its parameters as given.
    info: GameInfo (chips; mbb/g by ``big_blind``; shares of the pot by ``pot``).
    board: the board's card ids; pot: chips in the middle; stack, big_blind: chips.
    ranges: [2, 1326] float64 each player's reach of each hand (player 0 out of position).
    source: where the board, pot and ranges come from.
    spot: the Spot of ``spot=PATH`` (games/spots.py), else None.
    hands_in_play: ``hands=in_play`` (the public tree over the hands in either range only).
  """

  def __init__(
    self,
    *,
    endgame: int | None = None,
    ranges: str | None = None,
    board: str | None = None,
    pot: int | None = None,
    stack: int = 20_000,
    big_blind: int = 100,
    first_bets="0.5;1;allin",
    raises="1;allin",
    max_raises: int | None = None,
    spot: str | None = None,
    hands: str = "all",
  ):
    self.name = "hunl_subgame"
    given = dict(endgame=endgame, ranges=ranges, board=board, pot=pot, stack=stack, big_blind=big_blind)
    given.update(first_bets=first_bets, raises=raises, max_raises=max_raises, spot=spot)
    defaults = dict(stack=20_000, big_blind=100, first_bets="0.5;1;allin", raises="1;allin")
    self.params = {k: v for k, v in given.items() if v is not None and defaults.get(k, None) != v}
    if hands not in ("all", "in_play"):
      raise GameError(f"parameter hands must be all or in_play, got {hands!r}")
    if hands != "all":
      self.params["hands"] = hands
    self.hands_in_play = hands == "in_play"
    self.spot = None
    if spot is not None:
      self._load_spot(spot)
      return
    if sum(x is not None for x in (endgame, ranges, board)) != 1:
      raise GameError(
        "give one of endgame=1..4, ranges=PATH (an endgame file), board=CARDS with pot=CHIPS or spot=PATH (a spot file)"
      )
    if board is None and pot is not None:
      raise GameError("parameter pot goes with board=CARDS; an endgame file gives its own pot")
    try:
      if endgame is not None:
        found = libratus_endgame(endgame)
      elif ranges is not None:
        found = read_endgame(ranges)
      else:
        if pot is None:
          raise GameError("board=CARDS needs pot=CHIPS (both players' chips in the middle)")
        cards = parse_cards(board)
        if len(cards) not in (3, 4, 5):
          raise GameError(f"parameter board needs 3, 4 or 5 cards (flop, turn or river), got {len(cards)}")
        reach = np.ones((2, NUM_HANDS)) * ~np.isin(deck_hands(52, 2), cards).any(1)
        found = Endgame(len(cards) - 1, cards, check_int("pot", pot, low=2), reach, "uniform ranges")
    except GameError:
      raise
    except ValueError as error:
      raise GameError(str(error)) from None
    self.board, self.pot, self.ranges, self.source = found.board, found.pot, found.reach, found.source
    self.stack = check_int("stack", stack, low=1)
    self.big_blind = check_int("big_blind", big_blind, low=1)
    if self.pot % 2 or self.pot // 2 > self.stack:
      raise GameError(f"parameter pot must be even and at most twice the stack {self.stack}, got {self.pot}")
    self.first_bets, self.raises = parse_sizes(first_bets, "first_bets"), parse_sizes(raises, "raises")
    self.max_raises = None if max_raises is None else check_int("max_raises", max_raises, low=0)
    self.info = self._info()

  def _load_spot(self, path) -> None:
    """The game of a spot file (games/spots.py), which gives every other parameter."""
    from .spots import Spot  # spots imports this module (its cards and endgames)

    others = sorted(set(self.params) - {"spot", "hands"})
    if others:
      raise GameError(f"parameter spot=PATH gives the whole subgame; drop {', '.join(others)}")
    try:
      self.spot = Spot.load(path)
    except ValueError as error:
      raise GameError(str(error)) from None
    self.board, self.pot, self.ranges, self.source = self.spot.cards, self.spot.pot, self.spot.ranges, str(path)
    self.stack, self.big_blind = self.spot.stack, self.spot.big_blind
    self.first_bets = self.raises = self.max_raises = None  # the spot's bet tree instead
    self.info = self._info()

  def _info(self) -> GameInfo:
    """What the subgame declares: chips, poker, its big blind and pot, the public tree only."""
    return GameInfo(
      payoff_unit="chips",
      is_poker=True,
      big_blind=float(self.big_blind),
      pot=float(self.pot),
      representations=("public_tree",),
    )

  @property
  def round(self) -> int:
    """The subgame's round: 2 flop, 3 turn, 4 river (the files' numbering)."""
    return len(self.board) - 1

  def public_tree_rules(self) -> NoLimitRules:
    """The rules of the public tree (jaxcfr.kits.public_tree.tree.public_tree_of builds it)."""
    if self.spot is not None:
      return self.spot.rules(self.hands_in_play)
    return NoLimitRules(
      ranks=13,
      suits=4,
      board=self.board,
      board_cards=(0, 3, 1, 1),
      pot=self.pot,
      stack=self.stack,
      big_blind=self.big_blind,
      first_bets=self.first_bets,
      raises=self.raises,
      max_raises=self.max_raises,
      ranges=tuple(tuple(row) for row in self.ranges.tolist()),
      strength=HOLDEM,
      hands_in_play=self.hands_in_play,
    )


def hunl_subgame(**params) -> HunlSubgame:
  """A heads-up no-limit hold'em subgame (HunlSubgame; the module doc lists ``params``)."""
  return HunlSubgame(**params)
