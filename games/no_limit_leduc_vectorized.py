"""No-limit Leduc hold'em's ``betting="full"`` rules over batches of states, for the
level-synchronous builder (jaxcfr/kits/sequence_form/vectorized.py): the same arrays as the tree
walk of games/no_limit_leduc_poker.py, level by level."""

from __future__ import annotations

import numpy as np

from ._base import CHANCE_NODE, TERMINAL_NODE
from .no_limit_leduc_poker import CALL, FOLD, NoLimitLeducPoker

__all__ = ["VectorizedNoLimitLeduc"]


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
