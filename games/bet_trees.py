"""Bet trees as poker solvers write them: bet and raise sizes per street and player, donk bets,
the all-in thresholds and the merging of close sizes, with the semantics of postflop-solver
(b-inary/postflop-solver, ``src/bet_size.rs`` and ``src/action_tree.rs``): a spot given the same
sizes makes the same action tree there and here, chip amounts included.

**Sizes**, comma-separated, case-insensitive, spaces around them ignored, one trailing comma
allowed (``""`` is no size):

- ``"75%"``: a percentage of the pot after calling; a raise adds it to the previous bet;
- ``"2.5x"``: raises only, the previous bet times 2.5 (the factor must exceed 1);
- ``"100c"``: a bet of 100 chips, a raise of the previous bet plus 100; raises may cap the
  bets and raises of the street for it, ``"20c3r"`` (the size only while at most 3 are made);
- ``"e"``, ``"2e"``, ``"3e150%"``: the geometric size, the fraction ``f`` of the pot with
  ``(1 + 2 f)^n = 1 + 2 stack / pot`` (``stack`` behind after calling), so that ``n`` such
  bets, each called, put both players all-in; ``n`` is the number given, or the streets
  left (3 on the flop, 2 on the turn, 1 on the river); for a raise ``n`` less the bets and
  raises already made this street, plus one, and at least one; ``XeY%`` caps it at Y% of the pot;
- ``"a"``: the all-in.

**The tree** (``BetTree``): player 0 (out of position, OOP) acts first on every street, player
1 (in position, IP) second. Amounts are chips put in on the current street (postflop-solver's
``Bet(x)``, ``Raise(x)``, ``AllIn(x)``); ``pot`` is both players' chips after calling. A bet's
least amount is 1 chip, a raise's the previous bet plus what is owed (the last increment
again); a size below the least amount is raised to it, one above the stack is the all-in.
With ``add_allin_threshold = t`` the all-in is added where it is at most ``t`` pots beyond the
previous bet; with ``force_allin_threshold = t`` a bet or raise becomes the all-in where the
stack left behind it would be at most ``t`` times the pot once called; with
``merging_threshold = t``, from the largest size down, a size of ``Y`` pots (beyond the
previous bet) is dropped where ``(1 + X) / (1 + Y) < 1 + t`` against the last size ``X``
kept (PioSOLVER's rule). Two sizes to one amount are one action. A donk bet is OOP's first
action on the turn or river after OOP called the last bet of the street before; it takes the
street's donk sizes where given, else OOP's bets. Nobody raises facing an all-in.
``max_raises`` (this library's, not postflop-solver's) caps the bets and raises a street.

Action ids: fold 0, check or call 1, and ``2 + x`` for a bet, raise or all-in to ``x`` chips
on the street (``action_label`` writes postflop-solver's names). A ``NoLimitRules`` with
``bet_tree`` set (games/poker_rules.py) plays this tree; its ``stack`` is the effective stack
plus half the pot, so that postflop-solver's ``effective_stack`` is ``stack - pot / 2``.
"""

from __future__ import annotations

import dataclasses
import math
import re

from .no_limit_rules import NoLimitState
from .poker_rules import CALL_ID, DECISION, FOLD, FOLD_ID, SHOWDOWN

__all__ = ["STREETS", "BetSize", "parse_bet_sizes", "BetTree", "BetTreeState", "street_actions", "action_label"]

STREETS = ("flop", "turn", "river")
_NUMBER = re.compile(r"[0-9]+\.?[0-9]*|\.[0-9]+")
_FOLD, _CHECK, _CALL, _BET, _RAISE, _ALL_IN = range(6)  # postflop-solver's order of actions
_NAMES = {_BET: "Bet", _RAISE: "Raise", _ALL_IN: "AllIn"}
_I32_MAX = 2**31 - 1


@dataclasses.dataclass(frozen=True)
class BetSize:
  """One size: ``kind`` ``"%"`` (``value`` pots), ``"x"`` (``value`` times the previous bet),
  ``"c"`` (``value`` chips; ``count`` the raise cap, 0 none), ``"e"`` (geometric over ``count``
  streets, 0 the streets left, at most ``value`` pots) or ``"a"`` (the all-in)."""

  kind: str
  value: float = 0.0
  count: int = 0


def _number(text: str, token: str, where: str) -> float:
  if not _NUMBER.fullmatch(text):
    raise ValueError(f"{where}: bet size {token!r} holds {text!r}, not a number")
  return float(text)


def _whole(text: str, token: str, where: str, what: str, low: int, high: int) -> int:
  value = _number(text, token, where)
  if value != int(value) or not low <= value <= high:
    raise ValueError(f"{where}: bet size {token!r} needs {what} an integer in {low}..{high}, got {text!r}")
  return int(value)


def _size(token: str, role: str, where: str) -> BetSize:
  """One size of the module doc's notation; ``role`` is ``"bets"``, ``"raises"`` or ``"donks"``."""
  text = token.lower()
  if text.endswith("x"):
    if role != "raises":
      raise ValueError(f"{where}: bet size {token!r} is a multiple of the previous bet, for raises only")
    factor = _number(text[:-1], token, where)
    if not factor > 1:
      raise ValueError(f"{where}: bet size {token!r} needs a factor above 1")
    return BetSize("x", factor)
  if "c" in text:
    parts = text.split("c")
    if len(parts) != 2:
      raise ValueError(f"{where}: malformed bet size {token!r} (chips: 100c, or 20c3r for raises)")
    chips = _whole(parts[0], token, where, "chips", 0, _I32_MAX)
    if not parts[1]:
      return BetSize("c", chips)
    if role != "raises":
      raise ValueError(f"{where}: bet size {token!r}: a raise cap (20c3r) is for raises only")
    if not parts[1].endswith("r"):
      raise ValueError(f"{where}: malformed bet size {token!r} (chips: 100c, or 20c3r for raises)")
    return BetSize("c", chips, _whole(parts[1][:-1], token, where, "a raise cap", 1, 100))
  if "e" in text:
    parts = text.split("e")
    if len(parts) != 2 or (parts[1] and not parts[1].endswith("%")):
      raise ValueError(f"{where}: malformed bet size {token!r} (geometric: e, 2e, 3e150%)")
    streets = _whole(parts[0], token, where, "streets", 1, 100) if parts[0] else 0
    cap = _number(parts[1][:-1], token, where) / 100 if parts[1] else math.inf
    return BetSize("e", cap, streets)
  if text.endswith("%"):
    return BetSize("%", _number(text[:-1], token, where) / 100)
  if text == "a":
    return BetSize("a")
  raise ValueError(f"{where}: malformed bet size {token!r} (sizes: 75%, 2.5x, 100c, e, 2e, a)")


def parse_bet_sizes(text: str, role: str = "bets", where: str = "bet sizes") -> tuple:
  """The sizes of ``"33%, 75%, e, a"`` (module doc) as a tuple of BetSize; ``role`` is
  ``"bets"``, ``"raises"`` or ``"donks"`` (``x`` sizes and raise caps are for raises only).
  Raises ValueError naming ``where`` and the malformed size (a negative or NaN size is one)."""
  if not isinstance(text, str):
    raise ValueError(f"{where}: bet sizes must be a string like '33%,75%,a', got {type(text).__name__}")
  tokens = [token.strip() for token in text.split(",")]
  if tokens[-1] == "":
    tokens.pop()
  return tuple(_size(token, role, where) for token in tokens)


def _streets(value, name: str, keys: tuple, players: bool) -> tuple:
  """``value`` as one entry per key of ``keys``: a string (or None) for every key, a mapping
  with exactly those keys, or a sequence in their order. With ``players`` each entry is an
  (OOP, IP) pair of strings (a string: both players'), else a string or None (a key left
  out of a mapping: None)."""
  if value is None or isinstance(value, str):
    value = dict.fromkeys(keys, value)
  elif not isinstance(value, dict):
    value = list(value)
    if len(value) != len(keys):
      raise ValueError(f"{name} needs one value per street ({', '.join(keys)}), got {len(value)}")
    value = dict(zip(keys, value))
  if not players:  # donks: a street left out has none
    value = {**dict.fromkeys(keys), **value}
  if set(value) != set(keys):
    raise ValueError(f"{name} needs the keys {', '.join(keys)}, got {', '.join(sorted(map(str, value)))}")
  out = []
  for key in keys:
    item = value[key]
    if players:
      item = (item, item) if isinstance(item, str) else tuple(item) if isinstance(item, (list, tuple)) else item
      good = isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)
    else:
      good = item is None or isinstance(item, str)
    if not good:
      want = "a string or an (OOP, IP) pair of strings" if players else "a string or None"
      raise ValueError(f"{name}[{key!r}] must be {want}, got {item!r}")
    out.append(item)
  return tuple(out)


def _threshold(name: str, value) -> float:
  if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
    raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
  return float(value)


@dataclasses.dataclass(frozen=True)
class BetTree:
  """The bet sizes of a no-limit subgame, per street and player (module doc), given as below
  and stored as tuples per street.

  Attributes:
    bets, raises: a string of sizes for every street and both players, or a mapping
      ``{"flop": ..., "turn": ..., "river": ...}`` whose values are strings or (OOP, IP)
      pairs; stored as ``((flop OOP, flop IP), (turn ...), (river ...))`` strings.
    donks: None (OOP's bets), a string for both streets, or ``{"turn": ..., "river": ...}``
      (a value None or left out: that street's OOP bets); stored as ``(turn, river)``. The
      flop has none.
    add_allin_threshold, force_allin_threshold, merging_threshold: >= 0, 0 is off.
    max_raises: bets and raises allowed per street, or None (the stacks bound them).
  """

  bets: object = ""
  raises: object = ""
  donks: object = None
  add_allin_threshold: float = 0.0
  force_allin_threshold: float = 0.0
  merging_threshold: float = 0.0
  max_raises: int | None = None

  def __post_init__(self):
    set_ = lambda name, value: object.__setattr__(self, name, value)
    set_("bets", _streets(self.bets, "bets", STREETS, True))
    set_("raises", _streets(self.raises, "raises", STREETS, True))
    set_("donks", _streets(self.donks, "donks", STREETS[1:], False))
    for name in ("add_allin_threshold", "force_allin_threshold", "merging_threshold"):
      set_(name, _threshold(name, getattr(self, name)))
    cap = self.max_raises
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 0):
      raise ValueError(f"max_raises must be an int >= 0 or None, got {cap!r}")
    parsed = {}
    for s, street in enumerate(STREETS):
      for p, player in enumerate(("oop", "ip")):
        parsed["bets", s, p] = parse_bet_sizes(self.bets[s][p], "bets", f"bets {street} {player}")
        parsed["raises", s, p] = parse_bet_sizes(self.raises[s][p], "raises", f"raises {street} {player}")
    for s, text in enumerate(self.donks, 1):
      if text is not None:
        parsed["donks", s, 0] = parse_bet_sizes(text, "donks", f"donks {STREETS[s]}")
    set_("_parsed", parsed)

  def sizes(self, role: str, street: int, player: int, donk: bool = False) -> tuple:
    """The BetSize tuple of ``role`` (``"bets"`` or ``"raises"``) on ``street`` (0 flop, 1
    turn, 2 river) for ``player``; with ``donk``, the street's donk sizes where given."""
    if donk and ("donks", street, 0) in self._parsed:
      return self._parsed["donks", street, 0]
    return self._parsed[role, street, player]

  # --- the rules' hooks (NoLimitRules with bet_tree set) ------------------------------------------

  def check(self, rules) -> None:
    """Raises ValueError unless ``rules``' root is on one of its last three rounds (flop, turn, river)."""
    if rules.root_round < len(rules.board_cards) - len(STREETS):
      raise ValueError(f"a bet tree starts on the flop, turn or river, got a board of {len(rules.board)} cards")

  def root(self, rules) -> BetTreeState:
    chips = (rules.pot // 2, rules.pot // 2)
    return BetTreeState(rules.root_round, rules.board, chips, start=rules.pot // 2)

  def children(self, rules, state: BetTreeState, player: int) -> list:
    """[(kind, player, action id, 1.0, child)] of ``state``, a decision of ``player``."""
    top, mine = max(state.chips), state.chips[player]
    out = []
    if top > mine:
      out.append((FOLD, player, FOLD_ID, 1.0, dataclasses.replace(state, actions=state.actions + (FOLD_ID,))))
    chips = list(state.chips)
    chips[player] = top
    called = dataclasses.replace(state, chips=tuple(chips), actions=state.actions + (CALL_ID,))
    if top == mine and player == 0:  # OOP checks
      out.append((DECISION, 1, CALL_ID, 1.0, called))
    elif state.round + 1 == len(rules.board_cards):
      out.append((SHOWDOWN, -1, CALL_ID, 1.0, called))
    else:
      after = BetTreeState(state.round + 1, state.board, tuple(chips), start=top, donk=player == 0 and top > mine)
      after = rules._settle(after)  # both all-in: the cards to come, then the showdown
      out.append((*rules.kind_of(after), CALL_ID, 1.0, after))
    street = len(STREETS) - (len(rules.board_cards) - state.round)
    donk = state.donk and not state.actions
    behind, most = rules.stack - top, rules.stack - state.start
    options = street_actions(
      self, street, player, donk, 2 * top, top - state.start, top - mine, behind, most, state.bets
    )
    for _, amount in options:
      chips[player] = state.start + amount
      child = BetTreeState(
        state.round, state.board, tuple(chips), state.actions + (2 + amount,), 0, state.bets + 1, state.start
      )
      out.append((DECISION, 1 - player, 2 + amount, 1.0, child))
    return out


@dataclasses.dataclass(frozen=True)
class BetTreeState(NoLimitState):
  """A NoLimitState of a bet tree (``min_to`` unused), with ``start``: each player's
  contribution when the round began, and ``donk``: player 0 called the last bet of the round
  before (its first action here is a donk bet)."""

  start: int = 0
  donk: bool = False


def _round(x: float) -> int:
  """The nearest integer to ``x >= 0``, halves away from zero (Rust's ``f64::round``), exactly."""
  low = math.floor(x)
  return low + 1 if x - low >= 0.5 else low


def street_actions(
  tree: BetTree,
  street: int,
  player: int,
  donk: bool,
  pot: int,
  prev: int,
  owed: int,
  behind: int,
  most: int,
  made: int,
) -> list:
  """[(kind, amount)] the bets, raises and all-in open to ``player`` on ``street`` (0 flop, 1
  turn, 2 river), ascending, with kind 3 bet, 4 raise, 5 all-in and ``amount`` the chips the
  player will have put in on the street. ``donk``: a donk bet's turn; ``pot``: both players'
  chips after calling; ``prev``: the previous bet (0 if none); ``owed``: chips to call;
  ``behind``: each player's stack left after calling; ``most``: the all-in's amount; ``made``:
  bets and raises made on the street so far."""
  if tree.max_raises is not None and made >= tree.max_raises:
    return []
  streets_left = len(STREETS) - street

  def geometric(size: BetSize, bets_made: int) -> int:
    n = max((size.count or streets_left) - bets_made, 1)
    ratio = ((2.0 * (behind / pot) + 1.0) ** (1.0 / n) - 1.0) / 2.0
    return _round(pot * min(ratio, size.value))

  actions = []
  if owed == 0:  # a bet (no bet yet on the street)
    for size in tree.sizes("bets", street, player, donk):
      if size.kind == "%":
        actions.append((_BET, _round(pot * size.value)))
      elif size.kind == "c":
        actions.append((_BET, int(size.value)))
      elif size.kind == "e":
        actions.append((_BET, geometric(size, 0)))
      else:
        actions.append((_ALL_IN, most))
  elif behind > 0:  # a raise (not facing an all-in)
    for size in tree.sizes("raises", street, player):
      if size.kind == "%":
        actions.append((_RAISE, prev + _round(pot * size.value)))
      elif size.kind == "x":
        actions.append((_RAISE, _round(prev * size.value)))
      elif size.kind == "c":
        if size.count == 0 or made <= size.count:
          actions.append((_RAISE, prev + int(size.value)))
      elif size.kind == "e":
        actions.append((_RAISE, prev + geometric(size, made - 1)))
      else:
        actions.append((_ALL_IN, most))
  else:
    return []
  if most <= prev + _round(pot * tree.add_allin_threshold):
    actions.append((_ALL_IN, most))
  least = min(max(prev + owed, 1), most)
  clamped = []
  for kind, amount in actions:
    if kind != _ALL_IN:
      amount = min(max(amount, least), most)
      if most <= amount + _round((pot + 2 * (amount - prev)) * tree.force_allin_threshold):
        kind, amount = _ALL_IN, most
    clamped.append((kind, amount))
  return _merge(sorted(set(clamped)), pot, prev, tree.merging_threshold)


def _merge(actions: list, pot: int, prev: int, threshold: float) -> list:
  """``actions`` less those within ``threshold`` of a larger one kept (module doc), from the largest down."""
  kept, last = [], _I32_MAX
  for kind, amount in reversed(actions):
    ratio, last_ratio = (amount - prev) / pot, (last - prev) / pot
    if ratio < (last_ratio - threshold) / (1.0 + threshold) * (1.0 - 1e-12):
      kept.append((kind, amount))
      last = amount
  return kept[::-1]


def action_label(rules, state: BetTreeState, action: int) -> str:
  """postflop-solver's name of ``action`` at ``state`` (a decision of a bet tree):
  ``"Fold"``, ``"Check"``, ``"Call"``, ``"Bet(x)"``, ``"Raise(x)"`` or ``"AllIn(x)"``."""
  top, low = max(state.chips), min(state.chips)
  if action == FOLD_ID:
    return "Fold"
  if action == CALL_ID:
    return "Check" if top == low else "Call"
  amount = action - 2
  kind = _ALL_IN if state.start + amount >= rules.stack else _BET if top == low else _RAISE
  return f"{_NAMES[kind]}({amount})"
