"""Liar's Dice / Bluff(1,1,N) (Ponsen et al. 2011, section 2.2).

Each player rolls one N-sided die (player 0 first, then player 1; chance outcome d is face
d + 1) and sees only their own. Player 0 then player 1, alternately, either raise the bid
or call "liar" (bluff) on the opponent's last bid; calling needs a bid to call. A bid
``(quantity, face)``, quantity in {1, 2}, face in 1..N, claims that at least ``quantity``
of the two dice show ``face``; the highest face N is wild and counts as any face. Bid ids
are ``b = N (quantity - 1) + (face - 1)`` and a raise must have a larger id (OpenSpiel's
``bidding_rule=reset-face``); calling is action ``2 N``. At a call the bidder wins (+1,
the caller -1) if the bid holds, and loses otherwise.

These are OpenSpiel's ``liars_dice(dice_sides=N)`` rules, with its action and chance ids
and its information-state strings (``"3 1-2 2-5"``: own face, then the bids so far), so
the histories and infosets are the same.

On the public tree (``public_tree_rules``: the public-game protocol of games/poker_rules.py)
a public node is a sequence of bids, a player's private hand is its die (hand ``h`` is face
``h + 1``, no card removal: both players may roll the same face), and a call is a PAYOFF
terminal whose ``[N, N]`` matrix gives the result for each pair of dice.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import poker_rules
from ._base import (
  CHANCE,
  CHANCE_NODE,
  PLAYER_0,
  PLAYER_1,
  TERMINAL,
  TERMINAL_NODE,
  GameInfo,
  InfostateEncoding,
  State,
  check_int,
)

__all__ = [
  "MAX_SIDES",
  "LiarsDiceState",
  "LiarsDice",
  "VectorizedLiarsDice",
  "PublicLiarsDice",
  "information_state_tensor",
]

MAX_SIDES = 15  # the bids made are a 2N-bit mask in the infoset codes


def _bid_holds(bid: int, dice, sides: int) -> bool:
  quantity, face = bid // sides + 1, bid % sides + 1
  return sum(die + 1 == face or die + 1 == sides for die in dice) >= quantity


def _bid_string(bid: int, sides: int) -> str:
  return f"{bid // sides + 1}-{bid % sides + 1}"


def information_state_tensor(keys: list, player: int, *, sides: int) -> np.ndarray:
  """[I, 3 N + 3] rows of the keys ``"face bid bid ..."``: OpenSpiel's ``liars_dice`` layout, the
  player one-hot (2), the own die's face one-hot (N), then one bit per bid id made (2 N) and one
  for the call (never set in a key: a call ends the game)."""
  rows = np.zeros((len(keys), 3 * sides + 3), np.float32)
  rows[:, player] = 1
  for i, key in enumerate(keys):
    face, *bids = key.split(" ")
    rows[i, 2 + int(face) - 1] = 1
    for bid in bids:
      quantity, bid_face = bid.split("-")
      rows[i, 2 + sides + sides * (int(quantity) - 1) + int(bid_face) - 1] = 1
  return rows


class LiarsDiceState(State):
  def __init__(self, sides: int, dice: tuple = (), bids: tuple = ()):
    self.sides, self.dice, self.bids = sides, dice, bids

  @property
  def _liar(self) -> int:
    return 2 * self.sides

  def current_player(self) -> int:
    if len(self.dice) < 2:
      return CHANCE
    if self.bids and self.bids[-1] == self._liar:
      return TERMINAL
    return len(self.bids) % 2

  def legal_actions(self) -> list[int]:
    last = self.bids[-1] if self.bids else -1
    return list(range(last + 1, self._liar)) + ([self._liar] if self.bids else [])

  def chance_outcomes(self) -> list[tuple[int, float]]:
    return [(face, 1.0 / self.sides) for face in range(self.sides)]

  def child(self, action: int) -> LiarsDiceState:
    if self.current_player() == CHANCE:
      return LiarsDiceState(self.sides, self.dice + (action,), self.bids)
    return LiarsDiceState(self.sides, self.dice, self.bids + (action,))

  def returns(self) -> list[float]:
    caller = (len(self.bids) - 1) % 2
    bidder_wins = _bid_holds(self.bids[-2], self.dice, self.sides)
    u0 = 1.0 if (caller == 1) == bidder_wins else -1.0
    return [u0, -u0]

  def information_state_string(self, player: int) -> str:
    return " ".join([str(self.dice[player] + 1)] + [_bid_string(b, self.sides) for b in self.bids])


class LiarsDice:
  """``liars_dice(dice_sides=N)``: one die per player, N in [2, 15] (6 by default)."""

  def __init__(self, dice_sides: int = 6):
    self.sides = check_int("dice_sides", dice_sides, low=2, high=MAX_SIDES)
    self.name = "liars_dice"
    self.params = {"dice_sides": dice_sides}

  @property
  def openspiel_name(self) -> str:
    return f"liars_dice(dice_sides={self.sides})"

  @property
  def info(self) -> GameInfo:
    # benchmarks/results/public_tree_liars_dice.json: CFR+ on the public tree takes 0.60x the
    # sequence form's time for a batch of 64 runs and 0.75x for 1,024; for one run 0.88x, a
    # margin too small for a shared CPU's timings to settle
    return GameInfo(
      openspiel_name=self.openspiel_name,
      public_tree_runs=64,
      representations=("sequence_form", "public_tree"),
      encoding=InfostateEncoding(information_state_tensor, (("sides", self.sides),), openspiel=True),
    )

  def new_initial_state(self) -> LiarsDiceState:
    return LiarsDiceState(self.sides)

  def vectorized(self) -> VectorizedLiarsDice:
    return VectorizedLiarsDice(self.sides)

  def public_tree_rules(self) -> PublicLiarsDice:
    return PublicLiarsDice(self.sides)


class VectorizedLiarsDice:
  """Bluff(1,1,N) over batches of states: ``die0``, ``die1``: [N] int8 (-1 = not rolled);
  ``last_bid``: [N] int8 (-1 = none); ``num_bids``: [N] int8 bids so far (the call not
  counted); ``bids_made``: [N] int32 bitmask of the bid ids made (bids increase, so the
  mask is the sequence); ``called``: [N] bool.
  """

  def __init__(self, sides: int):
    self.sides = sides
    self.liar = 2 * sides

  def initial_states(self) -> dict:
    return {
      "die0": np.array([-1], np.int8),
      "die1": np.array([-1], np.int8),
      "last_bid": np.array([-1], np.int8),
      "num_bids": np.array([0], np.int8),
      "bids_made": np.array([0], np.int32),
      "called": np.array([False]),
    }

  def node_kind(self, states) -> np.ndarray:
    kind = np.where(states["called"], TERMINAL_NODE, np.where(states["num_bids"] % 2 == 0, PLAYER_0, PLAYER_1))
    return np.where(states["die1"] < 0, CHANCE_NODE, kind).astype(np.int8)

  def expand(self, states):
    n = len(states["die0"])
    for roller in ("die0", "die1"):  # chance levels roll one die for every state
      if states[roller][0] < 0:
        parent = np.repeat(np.arange(n), self.sides)
        face = np.tile(np.arange(self.sides), n)
        children = {name: values[parent] for name, values in states.items()}
        children[roller] = face.astype(np.int8)
        return parent, face, np.full(len(parent), 1.0 / self.sides), children
    parent = np.repeat(np.arange(n), self.liar + 1)
    action = np.tile(np.arange(self.liar + 1), n)
    keep = (action > states["last_bid"][parent]) & ((action < self.liar) | (states["num_bids"][parent] > 0))
    parent, action = parent[keep], action[keep]
    children = {name: values[parent] for name, values in states.items()}
    call = action == self.liar
    raise_ = ~call
    children["called"] = call
    children["last_bid"] = np.where(raise_, action, children["last_bid"]).astype(np.int8)
    children["num_bids"] = (children["num_bids"] + raise_).astype(np.int8)
    children["bids_made"] = children["bids_made"] | np.where(raise_, 1 << np.minimum(action, self.liar - 1), 0).astype(
      np.int32
    )
    return parent, action, np.ones(len(parent)), children

  def utility(self, states) -> np.ndarray:
    bid = states["last_bid"].astype(np.int64)
    quantity, face = bid // self.sides + 1, bid % self.sides + 1
    matches = sum(((states[d] + 1 == face) | (states[d] + 1 == self.sides)).astype(np.int64) for d in ("die0", "die1"))
    bidder = (states["num_bids"] - 1) % 2
    winner = np.where(matches >= quantity, bidder, 1 - bidder)
    return np.where(winner == 0, 1.0, -1.0)

  def infoset_code(self, states, player: int) -> np.ndarray:
    return states[f"die{player}"].astype(np.int64) << self.liar | states["bids_made"]

  def infoset_keys(self, player: int, codes) -> np.ndarray:
    keys = []
    for code in np.asarray(codes).tolist():
      die, mask = code >> self.liar, code & ((1 << self.liar) - 1)
      bids = [_bid_string(b, self.sides) for b in range(self.liar) if mask >> b & 1]
      keys.append(" ".join([str(die + 1)] + bids))
    return np.array(keys)


@dataclasses.dataclass(frozen=True)
class _PublicState:
  """A public state: the bids so far (the call, ``2 N``, last at a terminal)."""

  bids: tuple = ()
  round: int = 0
  board: tuple = ()
  chips: tuple = (1, 1)  # each player stakes one unit


class PublicLiarsDice:
  """Bluff(1,1,N) as a public game (games/poker_rules.py's protocol): the bids are public,
  each player's die is its private hand (``num_cards`` = N faces, hands of one "card",
  ``card_removal`` False), uniform and independent; a call is a PAYOFF terminal."""

  hand_size, suits, card_removal, strength = 1, 1, False, None

  def __init__(self, sides: int):
    self.sides = self.num_cards = sides
    self.liar = 2 * sides
    faces = np.arange(sides)
    # holds[b, d0, d1]: bid b holds for the dice (d0, d1) (the top face is wild)
    quantity, face = np.arange(self.liar) // sides + 1, np.arange(self.liar) % sides
    counts = lambda d: (d[None] == face[:, None]) | (d[None] == sides - 1)  # [bids, N]
    self._holds = counts(faces)[:, :, None].astype(int) + counts(faces)[:, None, :] >= quantity[:, None, None]

  def root(self) -> _PublicState:
    return _PublicState()

  def kind_of(self, state: _PublicState) -> tuple:
    if state.bids and state.bids[-1] == self.liar:
      return poker_rules.PAYOFF, -1
    return poker_rules.DECISION, len(state.bids) % 2

  def children(self, state: _PublicState) -> list:
    last = state.bids[-1] if state.bids else -1
    actions = list(range(last + 1, self.liar)) + ([self.liar] if state.bids else [])
    out = []
    for action in actions:
      child = dataclasses.replace(state, bids=state.bids + (action,))
      out.append((*self.kind_of(child), action, 1.0, child))
    return out

  def payoff(self, state: _PublicState) -> np.ndarray:
    """[N, N] player 0's payoff for each pair of dice: the bidder wins one unit from the
    caller if the called bid holds, and loses one otherwise."""
    caller = (len(state.bids) - 1) % 2
    bidder_wins = self._holds[state.bids[-2]]
    return np.where(bidder_wins == (caller == 1), 1.0, -1.0)

  def initial_range(self) -> np.ndarray:
    """[2, N] each face with probability 1 / N, independently."""
    return np.full((2, self.sides), 1.0 / self.sides)
