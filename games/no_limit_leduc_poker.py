"""No-limit Leduc hold'em (Chelarescu 2019 section 2.5) with integer chips.

Cards and rounds are Leduc's (games/leduc_poker.py, OpenSpiel's ``leduc_poker``): a deck of
``num_ranks`` ranks times ``num_suits`` suits (J, Q, K in two suits by default), card ``c``
of rank ``c // num_suits``; each player antes ``ante`` chips out of a ``stack`` of chips and
gets one private card (player 0 first); after the first betting round one public card is
dealt. Player 0 acts first in both rounds. A round ends on a call (a check when nothing is
owed) after each player has acted, or on a fold; folding is legal only when facing a bet.
At the showdown a card pairing the public card wins, else the higher rank; equal ranks
split the pot. A fold loses the chips the folder has put in, ante included.

**Betting.** The paper: "no limit on the amount of chips which can be raised by either
player. Every time a player wants to re-raise their opponent's previous bet, they have to
raise at least double that amount". Amounts here are chips put in *during the current
round*: the opening bet of a round is at least ``ante`` chips (the ante plays the big
blind's part, as in the ACPC rules and DeepStack-Leduc; it is 1 chip by default), and a
re-raise of an opponent whose bet in this round is ``L`` must bring the raiser's own bet in
this round to at least ``2 L`` (``raise_rule="double"``, the default). We read "raise at
least double that amount" as the raise-to amount, not the increment: "that amount" is
the opponent's *bet*, a wager, and the raiser's new wager must at least double it; the
increment reading (the increment at least twice the previous increment) would demand a
raise to at least ``3 L`` against an opening bet of ``L``, a rule of no poker variant we know,
whereas the raise-to reading is the common no-limit minimum raise in that case.
Either way amounts grow geometrically, hence "very quickly ... each player has to go
all-in". Going all-in (raising to the whole stack) is always allowed while the opponent
is not all-in, even below the minimum; there is no cap on the number of raises; the
stacks bound everything. An all-in that is called in round one deals the public card and
goes to the showdown.

``raise_rule="increment"`` is the standard no-limit rule of the ACPC server (OpenSpiel's
``universal_poker``) and DeepStack-Leduc: a raise must raise by at least the previous bet
or raise *increment* (and by at least ``ante`` when opening). Both rules give the same
minimum for an opening bet and for the first re-raise of a round (``2 L``); they differ
from the second re-raise on (facing a raise from ``L1`` to ``L2``: ``2 L2`` against
``2 L2 - L1``), so for small stacks they coincide: the full games are equal while
``stack <= 4 ante`` (telling the rules apart takes bets of ``ante`` and ``2 ante`` and a
re-raise to ``3 ante`` below all-in, on top of the ante; tests/test_no_limit_leduc.py
checks the equality against ``universal_poker``).

**Action ids** (stable): fold = 0, call/check = 1. With ``betting="full"`` (every legal
integer bet) a raise's id is its raise-to amount, the raiser's total chips in the pot
after it, ante included (>= 2; OpenSpiel's ``universal_poker`` ``fullgame`` ids). The
abstractions use fixed ids: pot = 2, all-in = 3.

- ``betting="fcpa"``: fold, call, pot, all-in, as OpenSpiel's ``universal_poker`` with
  ``bettingAbstraction=fcpa``: the pot raise calls and then raises by the pot after the
  call, i.e. to three times the opponent's total; it is offered when it does not exceed
  the stack (it always satisfies either minimum-raise rule), and all-in is offered when
  it differs from the pot raise (a pot raise that is exactly all-in keeps id 2).
- ``betting="deepstack"``: DeepStack-Leduc's tree (its ``bet_sizing = {1}``, pot-sized
  raises and all-in; its defaults are ``stack=1200, ante=100``): the same pot raise,
  offered only when it is strictly below all-in, all-in always offered (id 3, also when
  it equals the pot raise), and fold legal at every decision, also when nothing is owed
  (DeepStack-Leduc's tree builder adds a fold child to every player node; such a fold
  is weakly dominated by a check, so it does not change the game value).

Sizes: the full game grows about 2-3 times per two chips of stack (``stack=10``: 635,317
histories, 27,072 infosets per player; ``stack=20``: 18.5 million histories; table in
docs/games.md), so ``betting="full"`` takes ``stack - ante <= 42`` (the bound of the
vectorised rules, ``VectorizedNoLimitLeduc``: the same arrays level by level, which
``jaxcfr.load`` uses; the abstractions take stacks up to a million).

Utilities are in chips. The information-state string is ``"card:public:history"`` with
the history as ``f``, ``c`` and ``r<raise-to>`` per round, rounds joined by ``/``.
"""

from __future__ import annotations

import numpy as np

from . import poker_rules
from ._base import CHANCE, TERMINAL, GameError, GameInfo, InfostateEncoding, State, check_int

__all__ = [
  "BETTINGS",
  "RAISE_RULES",
  "MAX_STACK",
  "MAX_VECTORIZED_CHIPS",
  "NoLimitLeducState",
  "NoLimitLeducPoker",
  "PublicNoLimitLeduc",
  "information_state_tensor",
]

FOLD, CALL, POT, ALL_IN = 0, 1, 2, 3
BETTINGS = ("full", "fcpa", "deepstack")
RAISE_RULES = ("double", "increment")
MAX_STACK = 1_000_000
MAX_VECTORIZED_CHIPS = 42  # most stack - ante of betting=full: the raise mask and cards fill an int64 code


class NoLimitLeducState(State):
  """A history. ``spent`` are the players' chips in the pot; ``top`` the largest of them,
  ``previous`` its value before the last raise and ``base`` its value at the round's start."""

  __slots__ = ("rules", "cards", "spent", "top", "previous", "base", "round", "turn", "folded", "over", "history")

  def __init__(self, rules, cards, spent, top, previous, base, round_, turn, folded, over, history):
    self.rules, self.cards, self.spent = rules, cards, spent
    self.top, self.previous, self.base = top, previous, base
    self.round, self.turn, self.folded, self.over, self.history = round_, turn, folded, over, history

  def current_player(self) -> int:
    if len(self.cards) < 2 or (self.round == 1 and len(self.cards) < 3 and self.folded < 0):
      return CHANCE
    if self.folded >= 0 or self.over:
      return TERMINAL
    return self.turn % 2

  def raise_bounds(self) -> tuple[int, int] | None:
    """(smallest, largest) legal raise-to amount of the player to act, in total chips;
    None when no raise is legal (the opponent is all-in)."""
    stack = self.rules.stack
    if self.top >= stack:
      return None
    if self.top == self.base:
      smallest = self.base + self.rules.ante
    elif self.rules.raise_rule == "double":
      smallest = self.base + 2 * (self.top - self.base)
    else:
      smallest = 2 * self.top - self.previous
    return min(smallest, stack), stack

  def legal_actions(self) -> list[int]:
    player = self.turn % 2
    betting = self.rules.betting
    owes = self.spent[player] < self.top
    actions = [FOLD, CALL] if owes or betting == "deepstack" else [CALL]
    bounds = self.raise_bounds()
    if bounds is None:
      return actions
    smallest, stack = bounds
    if betting == "full":
      return actions + list(range(smallest, stack + 1))
    pot_to = 3 * self.top
    if betting == "fcpa":
      return actions + ([POT] if pot_to <= stack else []) + ([ALL_IN] if pot_to != stack else [])
    return actions + ([POT] if pot_to < stack else []) + [ALL_IN]

  def chance_outcomes(self) -> list[tuple[int, float]]:
    remaining = [c for c in range(self.rules.num_cards) if c not in self.cards]
    return [(c, 1.0 / len(remaining)) for c in remaining]

  def raise_to(self, action: int) -> int:
    """The raise-to amount (total chips) of a raise action id."""
    if self.rules.betting == "full":
      return action
    return 3 * self.top if action == POT else self.rules.stack

  def child(self, action: int) -> NoLimitLeducState:
    if self.current_player() == CHANCE:
      return NoLimitLeducState(
        self.rules,
        self.cards + (action,),
        self.spent,
        self.top,
        self.previous,
        self.base,
        self.round,
        self.turn,
        self.folded,
        self.over,
        self.history,
      )
    player = self.turn % 2
    if action == FOLD:
      return NoLimitLeducState(
        self.rules,
        self.cards,
        self.spent,
        self.top,
        self.previous,
        self.base,
        self.round,
        self.turn + 1,
        player,
        self.over,
        self.history + "f",
      )
    if action == CALL:
      spent = (self.top, self.spent[1]) if player == 0 else (self.spent[0], self.top)
      history = self.history + "c"
      if self.turn == 0:  # a check opening the round
        return NoLimitLeducState(
          self.rules, self.cards, spent, self.top, self.previous, self.base, self.round, 1, -1, False, history
        )
      if self.round == 0:  # the round ends: deal the public card; an all-in goes to the showdown
        over = self.top >= self.rules.stack
        return NoLimitLeducState(
          self.rules, self.cards, spent, self.top, self.top, self.top, 1, 0, -1, over, history + "/"
        )
      return NoLimitLeducState(
        self.rules, self.cards, spent, self.top, self.previous, self.base, self.round, self.turn + 1, -1, True, history
      )
    amount = self.raise_to(action)
    spent = (amount, self.spent[1]) if player == 0 else (self.spent[0], amount)
    return NoLimitLeducState(
      self.rules,
      self.cards,
      spent,
      amount,
      self.top,
      self.base,
      self.round,
      self.turn + 1,
      -1,
      False,
      f"{self.history}r{amount}",
    )

  def returns(self) -> list[float]:
    if self.folded >= 0:
      u0 = -self.spent[0] if self.folded == 0 else self.spent[1]
    else:
      s0, s1 = self._strength(0), self._strength(1)
      u0 = 0 if s0 == s1 else (self.spent[1] if s0 > s1 else -self.spent[0])
    return [float(u0), float(-u0)]

  def _strength(self, player: int) -> int:
    suits = self.rules.num_suits
    rank, public_rank = self.cards[player] // suits, self.cards[2] // suits
    return self.rules.num_ranks + rank if rank == public_rank else rank

  def information_state_string(self, player: int) -> str:
    public = self.cards[2] if len(self.cards) > 2 else ""
    return f"{self.cards[player]}:{public}:{self.history}"


def information_state_tensor(keys: list, player: int, *, num_cards: int, length: int, all_in: int = 0) -> np.ndarray:
  """[I, 2 + 2 C + 3 L] rows of the keys ``"card:public:history"`` (C cards, L action slots):
  OpenSpiel's ``universal_poker`` layout, the player one-hot (2), the private card one-hot (C),
  the public card one-hot (C), then the action sequence as L slots of two bits, each deal
  (the two private cards first, the public card after round one) an empty slot, call = (1, 0)
  and raise = (0, 1) (with ``betting="fcpa"`` the all-in, a raise to ``all_in`` chips, is (1, 1)),
  and last the L slots' raise-to amounts in chips (0 at other slots). ``length`` is OpenSpiel's
  ``MaxGameLength`` where the game has a twin (``_action_slots``)."""
  rows = np.zeros((len(keys), 2 + 2 * num_cards + 3 * length), np.float32)
  rows[:, player] = 1
  bits_at = 2 + 2 * num_cards
  sizes_at = bits_at + 2 * length
  for i, key in enumerate(keys):
    card, public, history = key.split(":")
    rows[i, 2 + int(card)] = 1
    if public:
      rows[i, 2 + num_cards + int(public)] = 1
    slot, j = 2, 0  # the two private deals
    while j < len(history):
      token = history[j]
      j += 1
      if token == "r":
        end = j
        while end < len(history) and history[end].isdigit():
          end += 1
        amount = int(history[j:end])
        rows[i, bits_at + 2 * slot + 1] = 1
        rows[i, bits_at + 2 * slot] = amount == all_in
        rows[i, sizes_at + slot] = amount
        j = end
      elif token == "c":
        rows[i, bits_at + 2 * slot] = 1
      elif token != "/" and token != "f":
        raise GameError(f"no_limit_leduc_poker: unknown action {token!r} in the key {key!r}")
      slot += 1  # a fold is (0, 0); "/" is the public card's deal
    if slot > length:
      raise GameError(f"no_limit_leduc_poker: the key {key!r} has more than {length} action slots")
  return rows


def _action_slots(stack: int, ante: int, betting: str) -> int:
  """OpenSpiel's ``universal_poker`` MaxGameLength, as measured on its games: a terminal slot,
  three deals and a check per player and round (8), then ``ceil(stack / ante)`` raises for the
  full game (every raise adds at least ``ante`` chips: a bound for the double rule and the
  DeepStack bets too), or for ``fcpa`` one per division of the stack by three (a pot raise
  triples the pot) down to the ante."""
  if betting != "fcpa":
    return 8 + -(-stack // ante)
  length, chips = 8, float(stack)
  while chips > ante:
    chips /= 3
    length += 1
  return length


class NoLimitLeducPoker:
  """``no_limit_leduc_poker(stack=10, ante=1, betting="full", raise_rule="double",
  num_ranks=3, num_suits=2)``; ``stack`` counts each player's chips before the ante."""

  def __init__(
    self,
    stack: int = 10,
    ante: int = 1,
    betting: str = "full",
    raise_rule: str = "double",
    num_ranks: int = 3,
    num_suits: int = 2,
  ):
    self.ante = check_int("ante", ante, low=1, high=MAX_STACK - 1)
    self.stack = check_int("stack", stack, low=ante + 1, high=MAX_STACK)
    if betting not in BETTINGS:
      raise GameError(f"parameter betting must be one of {list(BETTINGS)}, got {betting!r}")
    if raise_rule not in RAISE_RULES:
      raise GameError(f"parameter raise_rule must be one of {list(RAISE_RULES)}, got {raise_rule!r}")
    self.betting, self.raise_rule = betting, raise_rule
    if betting == "full" and stack - ante > MAX_VECTORIZED_CHIPS:
      raise GameError(
        f"no_limit_leduc_poker with betting=full allows stack - ante <= {MAX_VECTORIZED_CHIPS} "
        f"chips (stack=20 has 18.5 million histories), got {stack - ante}; "
        f"use betting=fcpa or betting=deepstack for larger stacks"
      )
    self.num_ranks = check_int("num_ranks", num_ranks, low=2, high=13)
    self.num_suits = check_int("num_suits", num_suits, low=1, high=4)
    self.num_cards = num_ranks * num_suits
    if self.num_cards < 3:
      raise GameError(f"num_ranks * num_suits must be >= 3 (two private cards and a public one), got {self.num_cards}")
    self.name = "no_limit_leduc_poker"
    self.params = {"stack": stack, "ante": ante}
    defaults = {"betting": "full", "raise_rule": "double", "num_ranks": 3, "num_suits": 2}
    given = {"betting": betting, "raise_rule": raise_rule, "num_ranks": num_ranks, "num_suits": num_suits}
    self.params.update({k: v for k, v in given.items() if v != defaults[k]})
    if betting == "full":
      self.vectorized = self._vectorized  # jaxcfr.load's level-synchronous builder

  def _vectorized(self):
    """The level-synchronous rules (games/no_limit_leduc_vectorized.py)."""
    from .no_limit_leduc_vectorized import VectorizedNoLimitLeduc  # it imports this module's actions

    return VectorizedNoLimitLeduc(self)

  @property
  def openspiel_name(self) -> str | None:
    """OpenSpiel's ``universal_poker`` string of the same game (same histories, action and
    chance ids), where one exists: the ``increment`` rule, ``fcpa``, or the ``double`` rule
    with ``stack <= 4 ante`` (where no second re-raise below all-in fits, so the rules agree)."""
    if self.betting == "deepstack":
      return None
    if self.betting == "full" and self.raise_rule == "double" and self.stack > 4 * self.ante:
      return None
    params = {
      "betting": "nolimit",
      "bettingAbstraction": "fullgame" if self.betting == "full" else "fcpa",
      "blind": f"{self.ante} {self.ante}",
      "firstPlayer": "1 1",
      "numBoardCards": "0 1",
      "numHoleCards": 1,
      "numPlayers": 2,
      "numRanks": self.num_ranks,
      "numRounds": 2,
      "numSuits": self.num_suits,
      "stack": f"{self.stack} {self.stack}",
    }
    return f"universal_poker({','.join(f'{k}={v}' for k, v in params.items())})"

  @property
  def info(self) -> GameInfo:
    twin = self.openspiel_name is not None
    return GameInfo(
      payoff_unit="chips",
      is_poker=True,
      openspiel_name=self.openspiel_name,
      big_blind=float(self.ante),  # DeepStack-Leduc reports in antes, its big blind
      representations=("sequence_form", "public_tree"),
      encoding=InfostateEncoding(
        information_state_tensor,
        (
          ("num_cards", self.num_cards),
          ("length", _action_slots(self.stack, self.ante, self.betting)),
          ("all_in", self.stack if self.betting == "fcpa" else 0),
        ),
        openspiel=twin,
      ),
    )

  def new_initial_state(self) -> NoLimitLeducState:
    return NoLimitLeducState(self, (), (self.ante, self.ante), self.ante, self.ante, self.ante, 0, 0, -1, False, "")

  def public_tree_rules(self) -> PublicNoLimitLeduc:
    """The rules of the public tree (jaxcfr.kits.public_tree.tree.public_tree_of builds it)."""
    return PublicNoLimitLeduc(self)


_HIDDEN = (-1, -1)  # the private cards of a public state: not known


class _PublicState:
  """A public state: a NoLimitLeducState whose private cards are hidden, with the fields
  of the public-game protocol (``round``, ``board``, ``chips``)."""

  __slots__ = ("history",)

  def __init__(self, history: NoLimitLeducState):
    self.history = history

  @property
  def round(self) -> int:
    return self.history.round

  @property
  def board(self) -> tuple:
    return self.history.cards[2:]

  @property
  def chips(self) -> tuple:
    return self.history.spent


class PublicNoLimitLeduc:
  """No-limit Leduc as a public game (the protocol of games/poker_rules.py): the betting of
  NoLimitLeducState itself, replayed with the private cards hidden, so every variant
  (``betting``, ``raise_rule``, deck) has its public tree; the showdown is Leduc's (a pair
  with the public card, then the higher rank: ``poker_rules.rank_groups``)."""

  hand_size = 1
  card_removal = True
  strength = staticmethod(poker_rules.rank_groups)

  def __init__(self, game: NoLimitLeducPoker):
    self.game = game
    self.ranks, self.suits, self.num_cards = game.num_ranks, game.num_suits, game.num_cards

  def root(self) -> _PublicState:
    state = self.game.new_initial_state()
    return _PublicState(state.child(_HIDDEN[0]).child(_HIDDEN[1]))

  def kind_of(self, state: _PublicState) -> tuple:
    """(kind, player) of a public state."""
    history = state.history
    player = history.current_player()
    if player == CHANCE:
      return poker_rules.CHANCE, -1
    if player != TERMINAL:
      return poker_rules.DECISION, player
    if history.folded >= 0:
      return poker_rules.FOLD, history.folded
    return poker_rules.SHOWDOWN, -1

  def children(self, state: _PublicState) -> list:
    """[(kind, player, action id, chance prob, child state)]: the public card (one of the
    cards the board leaves, with probability given both private cards), or the actions."""
    history = state.history
    if history.current_player() == CHANCE:
      remaining = [c for c in range(self.num_cards) if c not in state.board]
      prob = 1.0 / (self.num_cards - 2 - len(state.board))
      children = [_PublicState(history.child(card)) for card in remaining]
      return [(*self.kind_of(child), index, prob, child) for index, child in enumerate(children)]
    children = [(action, _PublicState(history.child(action))) for action in history.legal_actions()]
    return [(*self.kind_of(child), action, 1.0, child) for action, child in children]

  def initial_range(self) -> np.ndarray:
    """[2, H] the private deal: player 0's card ``1 / n``, player 1's ``1 / (n - 1)``."""
    n = self.num_cards
    return np.stack([np.full(n, 1 / n), np.full(n, 1 / (n - 1))])
