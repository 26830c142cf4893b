"""Goofspiel Goof(N), the papers' imperfect-information variant (Ponsen et al. 2011, section 2.2;
Lanctot et al. 2009, section 5).

Each player holds the cards 1..N. The point cards are a fixed, strictly decreasing stack
N, N - 1, ..., 1. In round r (0-based) both players bid a card from their hands for the
point card worth N - r: the higher bid wins its points, equal bids discard it. The players
learn only the result of each bid (who won, or a tie), never the card the opponent bid.
After N rounds the player with more points wins:
the papers' payoff "the player with the highest total points wins" is +1 / -1 (0 for a
tie in points), which is OpenSpiel's default ``returns_type=win_loss``.

The simultaneous bids are turn-based: player 0 bids, then player 1 bids without seeing it
(as OpenSpiel's ``convert_to_turn_based`` does). Action id = card - 1, as in OpenSpiel;
there are no chance nodes.

The last round is forced (one card left each). By default it is played as two forced
moves, which is how Lanctot et al. 2009 Table 1 counts Goof(7): 98.3 million histories, l = 14.
OpenSpiel's goofspiel plays the last cards automatically: with
``forced_last_round=False`` the game ends after N - 1 rounds with the last cards scored
at the terminal, and is then OpenSpiel's turn-based ``goofspiel(imp_info=True,
num_cards=N, points_order=descending)`` history for history (same action ids, infoset
partition and utilities). The two differ only by the forced moves: the same values,
equilibria (restricted to the first N - 1 rounds) and M-values minus the forced round's
one-action infosets. The infoset key lists the player's
own bids and the public results: for each past round the bid card (``1``-``9``, then
``a``, ``b``) and the winner (``0``, ``1``, or ``=`` for a tie). E.g. player 1's key
``"706="``: it bid 7 and player 0 won round 0, then it bid 6 and round 1 was a tie.
"""

from __future__ import annotations

import numpy as np

from ._base import (
  PLAYER_0,
  PLAYER_1,
  TERMINAL,
  TERMINAL_NODE,
  GameError,
  GameInfo,
  InfostateEncoding,
  OpenSpielVariant,
  State,
  check_int,
  strings_from_chars,
)

__all__ = ["MAX_CARDS", "GoofspielState", "Goofspiel", "VectorizedGoofspiel", "information_state_tensor"]

_SYMBOLS = "0123456789abcdefghijklmnopqrstuvwxyz"
_RESULTS = "01="  # player 0 won the point card, player 1 won it, tie
MAX_CARDS = 11  # infoset codes are exact in int64 up to here


def _result(bid0: int, bid1: int) -> int:
  return 0 if bid0 > bid1 else 1 if bid1 > bid0 else 2


def information_state_tensor(keys: list, player: int, *, num_cards: int) -> np.ndarray:
  """[I, 4 + 2 (M + 1) + N + 2 N + 2 N^2] rows of the keys (own bid and result per past round),
  M = N (N + 1) / 2 the most points: OpenSpiel's layout of turn-based ``goofspiel(imp_info=True,
  points_order=descending)`` (``pyspiel.convert_to_turn_based``), for both ways of playing the
  last round: the acting player one-hot (2, the turn-based transform's), the observing player
  one-hot (2), the points one-hot (M + 1 each) of the observer, then of the opponent, the cards left in the own hand (N),
  per round the winner one-hot (2 each, zeros for a tie or a round not yet played), per round
  the point card one-hot (N each; the cards dealt so far, the current round's included), and
  per round the own bid one-hot (N each)."""
  most = num_cards * (num_cards + 1) // 2
  points_at, hand_at = 4, 4 + 2 * (most + 1)
  wins_at = hand_at + num_cards
  cards_at = wins_at + 2 * num_cards
  bids_at = cards_at + num_cards * num_cards
  rows = np.zeros((len(keys), bids_at + num_cards * num_cards), np.float32)
  rows[:, player] = 1
  rows[:, 2 + player] = 1
  for i, key in enumerate(keys):
    points, hand = [0, 0], set(range(num_cards))
    played = len(key) // 2
    for r in range(played):
      bid, result = _SYMBOLS.index(key[2 * r]) - 1, _RESULTS.index(key[2 * r + 1])
      hand.discard(bid)
      rows[i, bids_at + num_cards * r + bid] = 1
      if result < 2:
        points[result] += num_cards - r
        rows[i, wins_at + 2 * r + result] = 1
    for r in range(min(played + 1, num_cards)):
      rows[i, cards_at + num_cards * r + num_cards - r - 1] = 1
    for k in (0, 1):  # the observer's points first
      rows[i, points_at + (most + 1) * k + points[(player + k) % 2]] = 1
    rows[i, [hand_at + c for c in hand]] = 1
  return rows


class GoofspielState(State):
  def __init__(self, num_cards: int, num_rounds: int, bids0: tuple = (), bids1: tuple = ()):
    self.num_cards, self.num_rounds, self.bids0, self.bids1 = num_cards, num_rounds, bids0, bids1

  def current_player(self) -> int:
    if len(self.bids0) > len(self.bids1):
      return 1
    return TERMINAL if len(self.bids1) == self.num_rounds else 0

  def legal_actions(self) -> list[int]:
    own = self.bids0 if self.current_player() == 0 else self.bids1
    return [card for card in range(self.num_cards) if card not in own]

  def child(self, action: int) -> GoofspielState:
    if self.current_player() == 0:
      return GoofspielState(self.num_cards, self.num_rounds, self.bids0 + (action,), self.bids1)
    return GoofspielState(self.num_cards, self.num_rounds, self.bids0, self.bids1 + (action,))

  def returns(self) -> list[float]:
    bids = [list(self.bids0), list(self.bids1)]
    for own in bids:  # the last cards, when the last round is not played as moves
      own += [card for card in range(self.num_cards) if card not in own]
    points = [0, 0]
    for round_, (bid0, bid1) in enumerate(zip(*bids)):
      result = _result(bid0, bid1)
      if result < 2:
        points[result] += self.num_cards - round_
    u0 = float(np.sign(points[0] - points[1]))
    return [u0, -u0]

  def information_state_string(self, player: int) -> str:
    own = self.bids0 if player == 0 else self.bids1
    rounds = zip(own, self.bids0, self.bids1)  # completed rounds only
    return "".join(_SYMBOLS[bid + 1] + _RESULTS[_result(b0, b1)] for bid, b0, b1 in rounds)


class Goofspiel:
  """``goofspiel(num_cards=N)``; N in [1, 11] (7 in Ponsen et al. 2011 and Lanctot et al. 2009).

  ``forced_last_round=False`` gives OpenSpiel's structure (see the module doc). OpenSpiel's
  parameters are accepted where they name these rules (``imp_info=True``,
  ``points_order=descending``, ``returns_type=win_loss``); given any of them, the game is
  OpenSpiel's, with OpenSpiel's defaults for the ones not given (imp_info=False,
  points_order=random) and ``forced_last_round`` False, so OpenSpiel's game string
  ``goofspiel(imp_info=True,num_cards=4,points_order=descending)`` loads natively the game
  OpenSpiel has. Any other variant (e.g. ``goofspiel(num_cards=5,imp_info=True)``, whose
  point order is random) raises OpenSpielVariant, and ``jaxcfr.load`` builds it through
  the OpenSpiel adapter.
  """

  def __init__(
    self,
    num_cards: int = 4,
    forced_last_round: bool | None = None,
    *,
    imp_info: bool | None = None,
    points_order: str | None = None,
    returns_type: str | None = None,
  ):
    self.num_cards = check_int("num_cards", num_cards, low=1, high=MAX_CARDS)
    openspiel_params = {"imp_info": imp_info, "points_order": points_order, "returns_type": returns_type}
    if any(value is not None for value in openspiel_params.values()):
      openspiel_defaults = {"imp_info": False, "points_order": "random", "returns_type": "win_loss"}
      these_rules = {"imp_info": True, "points_order": "descending", "returns_type": "win_loss"}
      for key, value in openspiel_params.items():
        value = openspiel_defaults[key] if value is None else value
        if value != these_rules[key]:
          raise OpenSpielVariant(
            f"native goofspiel has {key}={these_rules[key]}; OpenSpiel's {key}={value} is another game"
          )
      if forced_last_round:
        raise GameError("forced_last_round=True is not OpenSpiel's goofspiel; drop OpenSpiel's parameters")
      forced_last_round = False
    elif forced_last_round is None:
      forced_last_round = True
    if not isinstance(forced_last_round, bool):
      raise GameError(f"parameter forced_last_round must be True or False, got {forced_last_round!r}")
    self.num_rounds = num_cards if forced_last_round else num_cards - 1
    self.name = "goofspiel"
    self.params = {"num_cards": num_cards} | ({} if forced_last_round else {"forced_last_round": False})

  @property
  def openspiel_name(self) -> str | None:
    """OpenSpiel's game with the same histories and action ids (made turn-based)."""
    if self.num_rounds == self.num_cards:
      return None
    return f"goofspiel(imp_info=True,num_cards={self.num_cards},points_order=descending)"

  @property
  def info(self) -> GameInfo:
    encoding = InfostateEncoding(
      information_state_tensor, (("num_cards", self.num_cards),), openspiel=self.openspiel_name is not None
    )
    return GameInfo(openspiel_name=self.openspiel_name, encoding=encoding)

  def new_initial_state(self) -> GoofspielState:
    return GoofspielState(self.num_cards, self.num_rounds)

  def vectorized(self) -> VectorizedGoofspiel:
    return VectorizedGoofspiel(self.num_cards, self.num_rounds)


class VectorizedGoofspiel:
  """Goof(N) over batches of states (``num_rounds`` played as moves: N or N - 1). Every
  level of the tree is one phase of one round.

  States: ``hand0``, ``hand1``: [N] int32 bitmasks of the cards still held (bit c = action
  c); ``pending``: [N] int8 player 0's bid this round (-1 before it); ``diff``: [N] int16
  points of player 0 minus player 1; ``round``: [N] int8; ``code0``, ``code1``: [N] int64
  the infoset codes, one base-``3 (N + 1)`` digit ``3 (bid + 1) + result`` per past round
  (the leading digit is >= 3, so codes of different lengths differ).
  """

  def __init__(self, num_cards: int, num_rounds: int):
    if not 1 <= num_cards <= MAX_CARDS:
      raise GameError(f"vectorised goofspiel supports num_cards in [1, {MAX_CARDS}], got {num_cards}")
    self.num_cards, self.num_rounds = num_cards, num_rounds
    self.base = 3 * (num_cards + 1)

  def initial_states(self) -> dict:
    full = (1 << self.num_cards) - 1
    return {
      "hand0": np.array([full], np.int32),
      "hand1": np.array([full], np.int32),
      "pending": np.array([-1], np.int8),
      "diff": np.array([0], np.int16),
      "round": np.array([0], np.int8),
      "code0": np.array([0], np.int64),
      "code1": np.array([0], np.int64),
    }

  def node_kind(self, states) -> np.ndarray:
    kind = np.where(states["pending"] >= 0, PLAYER_1, PLAYER_0)
    return np.where(states["round"] == self.num_rounds, TERMINAL_NODE, kind).astype(np.int8)

  def expand(self, states):
    n, num_cards = len(states["pending"]), self.num_cards
    player = 1 if states["pending"][0] >= 0 else 0  # levels alternate between the players
    hand = states[f"hand{player}"]
    parent = np.repeat(np.arange(n), num_cards)
    card = np.tile(np.arange(num_cards, dtype=np.int32), n)
    keep = (hand[parent] >> card) & 1 == 1
    parent, card = parent[keep], card[keep]
    children = {name: values[parent] for name, values in states.items()}
    children[f"hand{player}"] &= ~(np.int32(1) << card)
    if player == 0:
      children["pending"] = card.astype(np.int8)
      return parent, card, np.ones(len(parent)), children
    bid0, bid1 = children["pending"].astype(np.int32), card
    result = np.where(bid0 > bid1, 0, np.where(bid1 > bid0, 1, 2))
    points = (num_cards - children["round"]).astype(np.int16)
    children["diff"] += np.where(result == 0, points, np.where(result == 1, -points, 0)).astype(np.int16)
    children["code0"] = children["code0"] * self.base + 3 * (bid0 + 1) + result
    children["code1"] = children["code1"] * self.base + 3 * (bid1 + 1) + result
    children["pending"] = np.full(len(parent), -1, np.int8)
    children["round"] += 1
    return parent, card, np.ones(len(parent)), children

  def utility(self, states) -> np.ndarray:
    diff = states["diff"].astype(np.int64)
    if self.num_rounds < self.num_cards:  # score the last cards (point card 1)
      last0, last1 = (np.log2(np.maximum(states[h], 1)).astype(np.int64) for h in ("hand0", "hand1"))
      diff = diff + np.sign(last0 - last1)
    return np.sign(diff).astype(np.float64)

  def infoset_code(self, states, player: int) -> np.ndarray:
    return states[f"code{player}"]

  def infoset_keys(self, player: int, codes) -> np.ndarray:
    codes = np.asarray(codes, np.int64).copy()
    digits = np.zeros((len(codes), self.num_cards), np.int64)  # least significant (latest round) first
    for j in range(self.num_cards):
      codes, digits[:, j] = np.divmod(codes, self.base)
    length = (digits > 0).sum(1)
    chars = np.zeros((len(codes), 2 * self.num_cards), np.uint8)
    symbols = np.frombuffer(_SYMBOLS.encode(), np.uint8)
    results = np.frombuffer(_RESULTS.encode(), np.uint8)
    rows = np.arange(len(codes))
    for k in range(self.num_cards):  # k-th round in order of play
      present = k < length
      digit = digits[rows, np.maximum(length - 1 - k, 0)]
      bid_plus_one, result = np.divmod(digit, 3)
      chars[:, 2 * k] = np.where(present, symbols[bid_plus_one], 0)
      chars[:, 2 * k + 1] = np.where(present, results[result], 0)
    return strings_from_chars(chars)
