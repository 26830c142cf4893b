"""Exact expected hand strength E[HS] of two-card hold'em hands, by enumeration.

The *hand strength* of hand ``h`` on a full five-card board ``B`` is the probability of
beating a uniformly random opponent hand (two of the 45 cards neither in ``h`` nor on ``B``:
990 hands), ties counting one half: ``HS(h, B) = (wins + ties / 2) / 990``. On a partial
board ``b`` (a flop of three or a turn of four cards) the *expected* hand strength is its
mean over the uniformly random completions of the board by cards not in ``h`` or ``b``:
``E[HS](h, b) = mean_B HS(h, B)``; preflop, over all five-card boards. This is the quantity
Ponsen, de Jong and Lanctot 2011 (section 4.3.2) bucket, computed without sampling error:

- **river**: ``river_strength`` ranks every hand on a board once (jaxcfr.kits.card_abstraction.hand_eval) and
  counts each hand's wins and ties with card removal: the hands ranked below it (one sort of
  the 1,326 ranks), less those that share one of its two cards (one sort per card of the 51
  hands holding it), the hand itself counted back among the ties. For the two hands of one
  deal, ``round_strengths`` compares them with the opponent hands their cards leave;
- **turn**: ``E[HS]`` averages the river strengths of the 46 rivers; tabulated once per turn
  board up to a permutation of the suits (16,432 canonical boards of 270,725). The table is
  built from the river boards' own suit classes (``turn_table``): each of the 134,459 classes
  of the 788,736 river boards of the canonical turns is ranked once, and its exact counts
  are added into the turns it completes;
- **flop**: the mean of the turn table over the 47 turn cards (tower property); 1,755
  canonical flops of 22,100;
- **preflop**: the mean of the flop table over the flops; one value per hand.

**Suit symmetry.** Permuting the suits of hand and board together leaves E[HS] unchanged.
A board's *canonical* form is the permutation (of the 24) whose sorted cards have the
smallest colex index. ``board_map`` records, for every board, its canonical board's row and
the permutation, so a lookup (``round_strengths``) is one gather for the row and one for the
permuted hand's column. Any minimising permutation gives the same value (they differ by a
symmetry of the board).

Hands are numbered in colex order: hand ``(a, b)``, ``a < b``, is ``b (b - 1) / 2 + a``
(``HANDS [1326, 2]``). Cards are ``0..51``, rank ``c // 4``, suit ``c % 4``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from math import comb
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import integrity
from jaxcfr.kits.card_abstraction.hand_eval import hand_rank

__all__ = [
  "HANDS",
  "NUM_HANDS",
  "hand_index",
  "river_counts",
  "river_strength",
  "canonical_boards",
  "board_index",
  "board_map",
  "StrengthTables",
  "turn_strength",
  "flop_strength",
  "preflop_strength",
  "TABLE_SHAPES",
  "TABLE_BYTES",
  "check_tables",
  "river_classes",
  "turn_table",
  "build_tables",
  "round_strengths",
]

NUM_CARDS = 52
NUM_HANDS = comb(NUM_CARDS, 2)  # 1,326
HANDS = np.array([(a, b) for b in range(NUM_CARDS) for a in range(b)], np.int32)  # [1326, 2], colex order
_CARD_HANDS = np.array([np.flatnonzero((HANDS == c).any(1)) for c in range(NUM_CARDS)], np.int32)  # [52, 51]
_GROUP_SLOT = np.array(  # [1326, 2] the position of each hand in the groups of its two cards
  [[int(np.flatnonzero(_CARD_HANDS[c] == h)[0]) for c in HANDS[h]] for h in range(NUM_HANDS)], np.int32
)
_PERMS = np.array(list(itertools.permutations(range(4))), np.int32)  # [24, 4] suit permutations
_OPPONENTS = comb(NUM_CARDS - 7, 2)  # 990 opponent hands on a full board
_BINOM = np.array([[comb(n, k) for k in range(6)] for n in range(NUM_CARDS + 1)], np.int64)  # [53, 6]


def hand_index(cards: jax.Array) -> jax.Array:
  """[...] int32 colex index of two distinct cards [..., 2] (either order)."""
  a, b = jnp.minimum(cards[..., 0], cards[..., 1]), jnp.maximum(cards[..., 0], cards[..., 1])
  return (b * (b - 1) // 2 + a).astype(jnp.int32)


def _colex(sorted_cards, xp=jnp):
  """[...] colex index of sorted distinct cards [..., k]: sum_i C(c_i, i + 1)."""
  k = sorted_cards.shape[-1]
  binom = xp.asarray(_BINOM[:, 1 : k + 1]) if xp is np else jnp.asarray(_BINOM[:, 1 : k + 1], jnp.int32)
  return binom[sorted_cards, xp.arange(k)].sum(-1)


def _permute(cards, xp=jnp):
  """[..., 24, k] the cards [..., k] under every suit permutation."""
  suits = xp.moveaxis(xp.asarray(_PERMS)[:, cards % 4], 0, -2)  # [..., 24, k]
  return (cards[..., None, :] // 4) * 4 + suits


def board_index(boards):
  """[...] int colex index of the sorted cards of ``boards`` [..., k] (any order; JAX or NumPy)."""
  xp = np if isinstance(boards, np.ndarray) else jnp
  return _colex(xp.sort(boards, -1), xp)


def _suit_classes(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """(every board of ``k`` cards [C, k] (sorted), the colex index of its canonical form [C],
  the first suit permutation [C] that maps it there)."""
  boards = np.array(list(itertools.combinations(range(NUM_CARDS), k)), np.int32)
  keys = board_index(_permute(boards, np))  # [C, 24]
  return boards, keys.min(-1), keys.argmin(-1)


def canonical_boards(k: int) -> np.ndarray:
  """[n, k] int32 the canonical boards of ``k`` cards (sorted, in colex order of their index):
  each board's form, under the 24 suit permutations, of the smallest colex index."""
  boards, canonical, _ = _suit_classes(k)
  canon = boards[canonical == board_index(boards)]
  return canon[np.argsort(board_index(canon))]


def board_map(k: int) -> np.ndarray:
  """[C(52, k)] int32: for each board of ``k`` cards, by ``board_index``, ``24 * row + perm``:
  the row of its canonical board among ``canonical_boards(k)`` and the suit permutation
  (index into the 24) that maps it there. A table's ``turn_map`` or ``flop_map``."""
  boards, canonical, perm = _suit_classes(k)
  out = np.empty(comb(NUM_CARDS, k), np.int32)
  out[board_index(boards)] = 24 * np.searchsorted(np.unique(canonical), canonical) + perm
  return out


def _count_below(ordered: jax.Array, values: jax.Array, side: str) -> jax.Array:
  """[..., q] how many of ``ordered`` [..., m] (sorted) are below (``side="left"``) or at most
  (``"right"``) each of ``values`` [..., q]."""
  flat = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))
  lead = ordered.shape[:-1]
  return flat(ordered.reshape(-1, ordered.shape[-1]), values.reshape(-1, values.shape[-1])).reshape(
    lead + values.shape[-1:]
  )


@jax.jit
def river_counts(boards: jax.Array) -> jax.Array:
  """[B, 1326] int32 ``2 wins + ties`` of every hand against the 990 opponent hands on each
  five-card board of ``boards`` [B, 5] (``river_strength`` times 1,980, exact); 0 for the
  hands that hold a board card.

  A hand's wins are the hands ranked below it less those that share one of its cards; the
  hands sharing card ``c`` are the 51 of ``c``'s group, and within its own group a hand's
  count is its position in the group sorted by rank (``_count_below`` of its own rank)."""
  b = boards.shape[0]
  hands = jnp.asarray(HANDS)
  cards = jnp.concatenate(
    [jnp.broadcast_to(hands, (b, NUM_HANDS, 2)), jnp.broadcast_to(boards[:, None], (b, NUM_HANDS, 5))], -1
  )
  valid = ~(hands[None, :, :, None] == boards[:, None, None, :]).any((-1, -2))  # [B, 1326]
  rank = jnp.where(valid, hand_rank(cards), jnp.iinfo(jnp.int32).max)  # [B, 1326]; held cards last
  ordered = jnp.sort(rank, -1)
  below = _count_below(ordered, rank, "left")
  at_most = _count_below(ordered, rank, "right")
  group = rank[:, jnp.asarray(_CARD_HANDS)]  # [B, 52, 51] the hands holding each card
  group_ordered = jnp.sort(group, -1)
  cards_of, slot = jnp.asarray(HANDS), jnp.asarray(_GROUP_SLOT)  # [1326, 2] each hand's cards, its slot in their groups
  below_sharing = _count_below(group_ordered, group, "left")[:, cards_of, slot].sum(-1)  # [B, 1326]
  at_most_sharing = _count_below(group_ordered, group, "right")[:, cards_of, slot].sum(-1)
  wins = below - below_sharing
  ties = (at_most - below) - (at_most_sharing - below_sharing) + 1  # the hand itself: counted once, removed twice
  return jnp.where(valid, 2 * wins + ties, 0).astype(jnp.int32)


@jax.jit
def river_strength(boards: jax.Array) -> jax.Array:
  """[B, 1326] float32 HS of every hand on each five-card board of ``boards`` [B, 5]; 0 for
  the hands that hold a board card (``river_counts / 1980``)."""
  return (river_counts(boards) / (2 * _OPPONENTS)).astype(jnp.float32)


class StrengthTables(NamedTuple):
  """Exact E[HS] tables, the device arrays ``round_strengths`` reads (about 98 MB).

  Attributes:
    turn: [16432, 1326] float32 E[HS] of each hand on each canonical turn board (0 for hands
      holding a board card).
    flop: [1755, 1326] float32, the same on the canonical flops.
    preflop: [1326] float32, each hand before the flop.
    turn_map: [270725] int32, ``board_map(4)``: for every turn board (by ``board_index``),
      ``24 *`` its canonical board's row in ``turn`` ``+`` the suit permutation to it; one
      gather finds a board's row, with no search over the permutations per lookup.
    flop_map: [22100] int32, ``board_map(3)``, the same for flops.
  """

  turn: jax.Array
  flop: jax.Array
  preflop: jax.Array
  turn_map: jax.Array
  flop_map: jax.Array


TABLE_SHAPES = {  # StrengthTables' fields: shape, dtype
  "turn": ((16432, NUM_HANDS), np.float32),
  "flop": ((1755, NUM_HANDS), np.float32),
  "preflop": ((NUM_HANDS,), np.float32),
  "turn_map": ((comb(NUM_CARDS, 4),), np.int32),
  "flop_map": ((comb(NUM_CARDS, 3),), np.int32),
}
TABLE_BYTES = sum(int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype in TABLE_SHAPES.values())  # 98 MB


def check_tables(data: dict) -> None:
  """Raises DamagedFileError (a ValueError) naming the first way in which ``data`` (arrays by field name, e.g.
  read from a file) are not StrengthTables: shapes and dtypes, values in [0, 1], board maps
  onto every row with valid permutations."""
  for name, (shape, dtype) in TABLE_SHAPES.items():
    if name not in data or data[name].shape != shape or data[name].dtype != dtype:
      raise integrity.DamagedFileError(
        f"the E[HS] tables lack {name} of shape {shape} and dtype {np.dtype(dtype).name}"
      )
  for name in ("turn", "flop", "preflop"):
    if not (np.all(data[name] >= 0) and np.all(data[name] <= 1)):
      raise integrity.DamagedFileError(f"the E[HS] table {name} has values outside [0, 1]")
  for name, table in (("turn_map", "turn"), ("flop_map", "flop")):
    rows, perms = np.divmod(data[name], 24)
    if not (np.array_equal(np.unique(rows), np.arange(TABLE_SHAPES[table][0][0])) and np.all(perms >= 0)):
      raise integrity.DamagedFileError(f"the E[HS] table {name} does not map the boards onto the rows of {table}")


_MOVED = _permute(HANDS, np)  # [1326, 24, 2] each hand under each suit permutation
_HAND_PERM = (_MOVED.max(-1) * (_MOVED.max(-1) - 1) // 2 + _MOVED.min(-1)).T.astype(np.int32)  # [24, 1326] its index


def _locate(board_map_: jax.Array, boards: jax.Array) -> tuple[jax.Array, jax.Array]:
  """(row [...], suit permutation [...]) of ``boards`` [..., k] in a table with this board map."""
  return jnp.divmod(board_map_[board_index(boards)], 24)


def _permuted_rows(table: jax.Array, board_map_: jax.Array, boards: jax.Array) -> jax.Array:
  """[..., 1326] the rows of ``table`` for ``boards`` [..., k] (any suits), in the boards' own
  hand numbering."""
  row, perm = _locate(board_map_, boards)
  return jnp.take_along_axis(table[row], jnp.asarray(_HAND_PERM)[perm], -1)


def _extended(boards: jax.Array) -> tuple[jax.Array, jax.Array]:
  """([n, 52, k + 1] each board of ``boards`` [n, k] with each card added (a card already on
  the board is swapped for a harmless stand-in), [n, 52] whether the card was on the board)."""
  n, k = boards.shape
  cards = jnp.arange(NUM_CARDS)
  on_board = (boards[:, :, None] == cards).any(1)
  full = jnp.concatenate(
    [jnp.broadcast_to(boards[:, None], (n, NUM_CARDS, k)), jnp.broadcast_to(cards[None, :, None], (n, NUM_CARDS, 1))],
    -1,
  )
  return jnp.where(on_board[..., None], jnp.arange(k + 1), full), on_board


def _mean_over_next_card(values: jax.Array, on_board: jax.Array, k: int) -> jax.Array:
  """[n, 1326] the mean over the next card of ``values`` [n, 52, 1326] (0 for hands holding
  the card), skipping the cards on the board: each hand has ``52 - k - 2`` next cards."""
  return jnp.where(on_board[..., None], 0.0, values).sum(1) / (NUM_CARDS - k - 2)


@jax.jit
def turn_strength(boards: jax.Array) -> jax.Array:
  """[T, 1326] E[HS] of every hand on turn boards [T, 4]: the mean river strength over the
  46 rivers it can see (0 for hands holding a board card)."""
  full, on_board = _extended(boards)
  return _mean_over_next_card(jax.vmap(river_strength)(full), on_board, 4)


@jax.jit
def flop_strength(turn: jax.Array, turn_map: jax.Array, boards: jax.Array) -> jax.Array:
  """[F, 1326] E[HS] on flops [F, 3] from the turn table (``StrengthTables.turn``,
  ``turn_map``): the mean over the 47 turn cards a hand can see (tower property)."""
  full, on_board = _extended(boards)
  return _mean_over_next_card(_permuted_rows(turn, turn_map, full), on_board, 3)


def preflop_strength(flop: jax.Array, flop_map: jax.Array) -> jax.Array:
  """[1326] E[HS] of every hand before the flop from the flop table: the mean over the
  19,600 flops each hand can see."""
  flops = jnp.asarray(np.array(list(itertools.combinations(range(NUM_CARDS), 3)), np.int32))
  total = jax.jit(lambda f: _permuted_rows(flop, flop_map, f).sum(0))
  return sum(total(flops[i : i + 1100]) for i in range(0, flops.shape[0], 1100)) / comb(NUM_CARDS - 2, 3)


_PAIRS_CHUNK = 1 << 16  # (turn, river) boards put in canonical form at a time: [65536, 24, 5] int32, 31 MB


def river_classes(turns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
  """The river boards that complete ``turns`` [T, 4], grouped by suit class.

  Returns:
    (turn_row [P], river_class [P], perm [P], canonical [R, 5]): for each pair of a turn and
    a river card not on it (``P = 48 T``), the turn's row, the river board's suit class (a
    row of ``canonical``, the classes' canonical boards in colex order) and the suit
    permutation (index into the 24) that maps the board onto its canonical board. On the
    16,432 canonical turns: 788,736 pairs in 134,459 classes.
  """
  turns = np.asarray(turns, np.int32)
  turn_row, river = np.nonzero(~(turns[:, :, None] == np.arange(NUM_CARDS)).any(1))
  keys, perm = np.empty(len(turn_row), np.int64), np.empty(len(turn_row), np.int64)
  for start in range(0, len(turn_row), _PAIRS_CHUNK):
    part = slice(start, start + _PAIRS_CHUNK)
    moved = board_index(_permute(np.concatenate([turns[turn_row[part]], river[part, None].astype(np.int32)], 1), np))
    keys[part], perm[part] = moved.min(-1), moved.argmin(-1)
  _, first, river_class = np.unique(keys, return_index=True, return_inverse=True)
  boards = np.concatenate([turns[turn_row[first]], river[first, None].astype(np.int32)], 1)
  canonical = np.sort(_permute(boards, np)[np.arange(len(first)), perm[first]], -1)
  return turn_row, river_class.ravel(), perm, canonical


def turn_table(
  progress: Callable = lambda iterable, **_: iterable, chunk: int = 1024, turns: np.ndarray | None = None
) -> np.ndarray:
  """[T, 1326] float32 ``StrengthTables.turn`` ([16432, 1326] on the canonical turns, the
  default ``turns`` [T, 4]), equal to ``turn_strength(turns)`` up to float32 rounding,
  computed from each suit class of river boards once: the
  ``river_counts`` of the 134,459 classes' canonical boards (not of the 16,432 x 46 river
  boards of the turns), ``chunk`` classes at a time, each added into the turns it completes
  through its suit permutation (exact int32 sums of at most 46 x 1,980) and divided once.
  ``progress(iterable, desc=...)`` wraps the loop over the chunks."""
  turns = canonical_boards(4) if turns is None else np.asarray(turns, np.int32)
  turn_row, river_class, perm, canonical = river_classes(turns)
  order = np.argsort(river_class, kind="stable")  # the pairs grouped by class
  edges = np.searchsorted(river_class[order], np.minimum(np.arange(0, len(canonical) + chunk, chunk), len(canonical)))
  padded = np.concatenate([canonical, np.repeat(canonical[-1:], -len(canonical) % chunk, 0)])
  totals = np.zeros((len(turns), NUM_HANDS), np.int32)  # per turn and hand: the sum of 2 wins + ties over its rivers
  for i in progress(range(len(edges) - 1), desc="turn E[HS]"):
    counts = np.asarray(river_counts(jnp.asarray(padded[i * chunk : (i + 1) * chunk])))  # [chunk, 1326]
    pairs = order[edges[i] : edges[i + 1]]
    pairs = pairs[np.argsort(turn_row[pairs], kind="stable")]
    rows = counts[(river_class[pairs] - i * chunk)[:, None], _HAND_PERM[perm[pairs]]]  # in each turn's own numbering
    target = turn_row[pairs]
    starts = np.flatnonzero(np.concatenate([[True], target[1:] != target[:-1]]))
    totals[target[starts]] += np.add.reduceat(rows, starts, axis=0)
  return np.divide(totals, np.float32(2 * _OPPONENTS * (NUM_CARDS - 6)), dtype=np.float32)


def build_tables(progress: Callable = lambda iterable, **_: iterable, chunk: int = 1024) -> StrengthTables:
  """The exact tables: about a minute on one CPU core (docs/limit_holdem.md has the measured
  figure), nearly all of it the river classes of ``turn_table`` (``chunk`` at a time);
  ``progress(iterable, desc=...)`` wraps the loops (jaxcfr.base.progress.steps)."""
  turn, turn_map = jnp.asarray(turn_table(progress, chunk)), jnp.asarray(board_map(4))
  flops = canonical_boards(3)
  steps = progress(range(0, len(flops), 64), desc="flop E[HS]")
  flop = jnp.concatenate([flop_strength(turn, turn_map, jnp.asarray(flops[i : i + 64])) for i in steps])
  flop_map = jnp.asarray(board_map(3))
  return StrengthTables(turn, flop, preflop_strength(flop, flop_map).astype(jnp.float32), turn_map, flop_map)


def _entries(table: jax.Array, board_map_: jax.Array, boards: jax.Array, hands: jax.Array) -> jax.Array:
  """[n, P] the entries of ``table`` for ``boards`` [n, k] (any suits) and hand indices [n, P]."""
  row, perm = _locate(board_map_, boards)
  return table[row[:, None], jnp.asarray(_HAND_PERM)[perm[:, None], hands]]


def round_strengths(tables: StrengthTables, holes: jax.Array, board: jax.Array) -> jax.Array:
  """[n, P, 4] exact E[HS] of each of ``holes`` [n, P, 2] in each round (preflop, flop, turn,
  river) of the deal with board ``board`` [n, 5]."""
  n = board.shape[0]
  hands = hand_index(holes)  # [n, P]
  everyone = jnp.concatenate(
    [jnp.broadcast_to(jnp.asarray(HANDS), (n, NUM_HANDS, 2)), jnp.broadcast_to(board[:, None], (n, NUM_HANDS, 5))], -1
  )
  ranks = hand_rank(everyone)  # [n, 1326] every hand on the river (1,326 evaluations a deal)
  seen = jnp.concatenate([holes, jnp.broadcast_to(board[:, None], holes.shape[:2] + (5,))], -1)  # [n, P, 7]
  seen = (seen[..., None] == jnp.arange(NUM_CARDS)).any(-2)  # [n, P, 52]
  free = ~(seen[..., HANDS[:, 0]] | seen[..., HANDS[:, 1]])  # [n, P, 1326] the opponent hands left
  mine = jnp.take_along_axis(ranks, hands, 1)[..., None]  # [n, P, 1]
  river = jnp.where(free, (ranks[:, None] < mine) + 0.5 * (ranks[:, None] == mine), 0.0).sum(-1) / _OPPONENTS
  return jnp.stack(
    [
      tables.preflop[hands],
      _entries(tables.flop, tables.flop_map, board[:, :3], hands),
      _entries(tables.turn, tables.turn_map, board[:, :4], hands),
      river.astype(jnp.float32),
    ],
    -1,
  )
