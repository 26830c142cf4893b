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
from ._base import CHANCE, CHANCE_NODE, TERMINAL, TERMINAL_NODE, GameError, GameInfo, State, check_int

__all__ = [
  "BETTINGS",
  "RAISE_RULES",
  "MAX_STACK",
  "MAX_VECTORIZED_CHIPS",
  "NoLimitLeducState",
  "NoLimitLeducPoker",
  "VectorizedNoLimitLeduc",
  "PublicNoLimitLeduc",
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
      self.vectorized = lambda: VectorizedNoLimitLeduc(self)  # jaxcfr.load's level-synchronous builder

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
    return GameInfo(
      payoff_unit="chips",
      is_poker=True,
      openspiel_name=self.openspiel_name,
      big_blind=float(self.ante),  # DeepStack-Leduc reports in antes, its big blind
      representations=("sequence_form", "public_tree"),
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


def _take(states: dict, index) -> dict:
  return {name: values[index] for name, values in states.items()}


def _ragged_arange(counts: np.ndarray) -> np.ndarray:
  """``concatenate([arange(c) for c in counts])``."""
  counts = np.asarray(counts, np.int64)
  return np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)


class VectorizedNoLimitLeduc:
  """The ``betting="full"`` rules over batches of states (jaxcfr/kits/sequence_form/vectorized.py)
  (``stack - ante <= MAX_VECTORIZED_CHIPS``). Fields, [N] each: ``c0``, ``c1``, ``board``
  (-1 = not dealt), ``spent0``, ``spent1``, ``top``, ``previous``, ``base`` (as in
  NoLimitLeducState), ``round``, ``turn``, ``folded`` (-1 = nobody), ``over``, and the
  history: ``raises``, a bitmask of the raise-to amounts made (bit ``T - ante - 1``; they
  only increase, so the mask is their sequence) and ``checks`` (bit r: round r opened
  with a check). The round-one raises are those up to ``base``, the level at round two's
  start, so (checks, raises, round, base) is the betting history."""

  def __init__(self, rules: NoLimitLeducPoker):
    self.rules = rules
    self.chips = rules.stack - rules.ante  # bits of the raise mask
    self.base_bits = self.chips.bit_length()

  def initial_states(self) -> dict:
    ante = self.rules.ante
    one = lambda value, dtype: np.array([value], dtype)
    return {
      "c0": one(-1, np.int8),
      "c1": one(-1, np.int8),
      "board": one(-1, np.int8),
      "spent0": one(ante, np.int32),
      "spent1": one(ante, np.int32),
      "top": one(ante, np.int32),
      "previous": one(ante, np.int32),
      "base": one(ante, np.int32),
      "round": one(0, np.int8),
      "turn": one(0, np.int16),
      "folded": one(-1, np.int8),
      "over": one(False, bool),
      "raises": one(0, np.int64),
      "checks": one(0, np.int8),
    }

  def _chance(self, s) -> np.ndarray:
    return (s["c1"] < 0) | ((s["round"] == 1) & (s["board"] < 0) & (s["folded"] < 0))

  def node_kind(self, s) -> np.ndarray:
    kind = np.where((s["folded"] >= 0) | s["over"], TERMINAL_NODE, s["turn"] % 2)
    return np.where(self._chance(s), CHANCE_NODE, kind).astype(np.int8)

  def _smallest_raise(self, s) -> np.ndarray:
    top, base = s["top"].astype(np.int64), s["base"].astype(np.int64)
    if self.rules.raise_rule == "double":
      smallest = base + 2 * (top - base)
    else:
      smallest = 2 * top - s["previous"]
    return np.minimum(np.where(top == base, base + self.rules.ante, smallest), self.rules.stack)

  def expand(self, s):
    rules, stack = self.rules, self.rules.stack
    chance = self._chance(s)
    # Chance: deal c0, then c1, then the board, each uniform over the cards not dealt.
    cp = np.flatnonzero(chance)
    parent_c = np.repeat(cp, rules.num_cards)
    card = np.tile(np.arange(rules.num_cards), len(cp))
    keep = (card != s["c0"][parent_c]) & (card != s["c1"][parent_c])
    parent_c, card = parent_c[keep], card[keep]
    dealt = (s["c0"] >= 0).astype(np.int64) + (s["c1"] >= 0)
    prob_c = 1.0 / (rules.num_cards - dealt[parent_c])
    # Decisions: [fold if owed], call, every raise-to amount from the smallest to the stack.
    dp = np.flatnonzero(~chance)
    player = (s["turn"][dp] % 2).astype(np.int64)
    spent = np.where(player == 0, s["spent0"][dp], s["spent1"][dp])
    owes = spent < s["top"][dp]
    smallest = self._smallest_raise(_take(s, dp))
    num_raises = np.where(s["top"][dp] < stack, stack - smallest + 1, 0)
    counts = 1 + owes + num_raises
    parent_d = np.repeat(dp, counts)
    j = _ragged_arange(counts)
    first_raise = np.repeat(1 + owes, counts)
    action = np.where(j < first_raise, j + 1 - np.repeat(owes, counts), np.repeat(smallest, counts) + j - first_raise)
    parent = np.concatenate([parent_c, parent_d])
    action_id = np.concatenate([card, action])
    prob = np.concatenate([prob_c, np.ones(len(parent_d))])
    order = np.argsort(parent, kind="stable")
    parent, action_id, prob = parent[order], action_id[order], prob[order]
    children = _take(s, parent)
    is_chance = chance[parent]
    for slot in ("c0", "c1", "board"):  # the first empty slot takes the card
      empty = is_chance & (children[slot] < 0)
      children[slot] = np.where(empty, action_id, children[slot]).astype(np.int8)
      is_chance = is_chance & ~empty
    self._apply(children, ~chance[parent], action_id)
    return parent, action_id, prob, children

  def _apply(self, c, decide, action) -> None:
    """Applies the decision ``action`` in place where ``decide``."""
    player = c["turn"] % 2
    fold, call, raise_ = decide & (action == FOLD), decide & (action == CALL), decide & (action >= 2)
    opening, round_end = call & (c["turn"] == 0), call & (c["turn"] > 0)
    first_round_end = round_end & (c["round"] == 0)
    amount = np.where(raise_, action, c["top"]).astype(np.int32)
    c["folded"] = np.where(fold, player, c["folded"]).astype(np.int8)
    for p in (0, 1):
      moves = (call | raise_) & (player == p)
      c[f"spent{p}"] = np.where(moves, amount, c[f"spent{p}"]).astype(np.int32)
    c["previous"] = np.where(raise_ | first_round_end, c["top"], c["previous"]).astype(np.int32)
    c["base"] = np.where(first_round_end, c["top"], c["base"]).astype(np.int32)
    c["top"] = amount
    c["over"] = c["over"] | (round_end & ((c["round"] == 1) | (c["top"] >= self.rules.stack)))
    c["checks"] = (c["checks"] | np.where(opening, 1 << c["round"].astype(np.int64), 0)).astype(np.int8)
    bit = np.maximum(action.astype(np.int64) - self.rules.ante - 1, 0)
    c["raises"] = c["raises"] | np.where(raise_, np.left_shift(1, bit), 0)
    c["turn"] = np.where(first_round_end, 0, np.where(decide, c["turn"] + 1, c["turn"])).astype(np.int16)
    c["round"] = np.where(first_round_end, 1, c["round"]).astype(np.int8)

  def utility(self, s) -> np.ndarray:
    suits, ranks = self.rules.num_suits, self.rules.num_ranks
    public = s["board"] // suits
    strength = [np.where(s[c] // suits == public, ranks + s[c] // suits, s[c] // suits) for c in ("c0", "c1")]
    showdown = np.where(strength[0] == strength[1], 0, np.where(strength[0] > strength[1], s["spent1"], -s["spent0"]))
    folded = np.where(s["folded"] == 0, -s["spent0"], s["spent1"])
    return np.where(s["folded"] >= 0, folded, showdown).astype(np.float64)

  def infoset_code(self, s, player: int) -> np.ndarray:
    code = s["board"].astype(np.int64) + 1
    code = code << 6 | s[f"c{player}"].astype(np.int64)
    code = code << self.base_bits | (s["base"].astype(np.int64) - self.rules.ante)
    code = code << 3 | s["round"].astype(np.int64) << 2 | s["checks"].astype(np.int64)
    return code << self.chips | s["raises"]

  def infoset_keys(self, player: int, codes) -> np.ndarray:
    ante, keys = self.rules.ante, []
    for code in np.asarray(codes, np.int64).tolist():
      raises = [ante + 1 + b for b in range(self.chips) if code >> b & 1]
      code >>= self.chips
      checks, round_, code = code & 3, code >> 2 & 1, code >> 3
      base, code = ante + (code & ((1 << self.base_bits) - 1)), code >> self.base_bits
      card, board = code & 63, (code >> 6) - 1
      history = ("c" if checks & 1 else "") + "".join(f"r{t}" for t in raises if t <= base or not round_)
      if round_:
        history += "c/" + ("c" if checks & 2 else "") + "".join(f"r{t}" for t in raises if t > base)
      keys.append(f"{card}:{board if board >= 0 else ''}:{history}")
    return np.array(keys)
