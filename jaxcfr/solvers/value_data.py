"""The data of counterfactual value networks (jaxcfr.solvers.value_network): random situations
at the start of a game's second round, drawn as DeepStack's range generator draws them and
solved to the end of the game, thousands at a time in one ``vmap``; their suit relabellings;
and their files.

Moravcik et al., "DeepStack: Expert-Level Artificial Intelligence in Heads-Up No-Limit
Poker" (2017) train on random situations at the start of a round, each solved to the end of
the game; here they are solved by ``jaxcfr.solvers.lookahead.solve_ranges`` (a CFR preset on
the public tree), and the ranges are drawn as DeepStack-Leduc's ``RangeGenerator`` draws them:
the possible hands sorted by strength on the board, the probability mass split at a uniform
random point between the two halves, recursively.

The work comes in chunks, so that a driver can checkpoint between them
(jaxcfr.run.resolving_jobs): ``RoundStarts`` builds each start's public tree once, ``draw``
draws situations, ``prepare`` checks and normalises them and cuts them into ``chunks``, and
``solve_chunk`` solves one. ``generate`` and ``solve`` do it all at once.

    data = value_data.generate(rules, 10_000, iterations=500, seed=0)
    value_data.save_data("data.npz", data)

Shapes: ``H`` hands, ``C`` cards, ``S`` situations (trailing, like every batch axis here).
Data files are ``.npz`` with a checksum (``save_data``, ``load_data``), read without pickles.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.games import poker_rules
from jaxcfr.kits import public_tree as public_tree
from jaxcfr.kits.public_tree import PublicTree, PublicTreeTensors
from jaxcfr.solvers import lookahead
from jaxcfr.solvers.value_network_files import Situations, load_data, save_data

__all__ = [
  "Situations",
  "RoundStarts",
  "Prepared",
  "random_ranges",
  "round_starts",
  "draw",
  "prepare",
  "solve_chunk",
  "generate",
  "solve",
  "with_suit_permutations",
  "concatenate",
  "save_data",
  "load_data",
]


def random_ranges(order: np.ndarray, valid: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
  """[H, count] random ranges summing to one, zero where ``valid`` [H] is False: the valid
  hands in ``order`` (weakest first, [H]), the mass split at a uniform point between the two
  halves recursively, an odd middle hand going to either half at random (DeepStack-Leduc)."""
  hands = [int(h) for h in order if valid[h]]
  out = np.zeros((len(valid), count))

  def split(lo: int, hi: int, mass: np.ndarray):
    if hi - lo == 1:
      out[hands[lo]] += mass
      return
    cut = rng.random(count)
    half = (hi - lo) // 2
    if (hi - lo) % 2:  # each sample sends the middle hand one way at random: two cases
      odd = rng.random(count) < 0.5
      for middle, which in ((lo + half, odd), (lo + half + 1, ~odd)):
        split(lo, middle, np.where(which, mass * cut, 0))
        split(middle, hi, np.where(which, mass * (1 - cut), 0))
      return
    split(lo, lo + half, mass * cut)
    split(lo + half, hi, mass * (1 - cut))

  split(0, len(hands), np.ones(count))
  return out


def round_starts(rules, round_: int = 1) -> list:
  """The distinct public states at the first decision of round ``round_`` (one per pot and
  board) that the whole game ``rules`` can reach: the states a value network of that round
  is asked about."""
  tree = lookahead.build(rules, rounds=round_)
  states = {}
  for node in np.flatnonzero(tree.kind == poker_rules.LEAF):
    state = tree.states[node]
    states.setdefault((tuple(state.chips), tuple(state.board)), state)
  return [states[key] for key in sorted(states)]


class RoundStarts:
  """The public states at the first decision of a game's second round (``round_starts``) and
  the public tree of the game below each, built once and moved to the device once.

  Attributes:
    rules: the whole game's rules; states: the starts, in ``round_starts``' order.
  """

  def __init__(self, rules, dtype=None):
    self.rules, self.dtype = rules, dtype
    self.states = round_starts(rules)
    self._trees: dict = {}
    self._tensors: dict = {}

  def tree(self, index: int) -> PublicTree:
    """The host public tree of the game below start ``index``."""
    if index not in self._trees:
      self._trees[index] = public_tree.build(poker_rules.Subgame(self.rules, self.states[index]))
    return self._trees[index]

  def tensors(self, index: int) -> PublicTreeTensors:
    """Start ``index``'s tree on the device."""
    if index not in self._tensors:
      self._tensors[index] = public_tree.to_device(self.tree(index), self.dtype)
    return self._tensors[index]

  @property
  def num_hands(self) -> int:
    return len(poker_rules.hands(self.rules.num_cards, self.rules.hand_size))


class Prepared(NamedTuple):
  """Situations checked and cut into chunks, ready to solve.

  Attributes:
    data: the Situations, their ranges normalised and their values zero until solved.
    chunks: ((start index, situation indices [<= width]), ...), the situations of one start
      ``width`` at a time, solved as one program each.
    width: every chunk is padded to it, so that each shape of tree compiles once.
  """

  data: Situations
  chunks: tuple
  width: int


_solve = jax.jit(lookahead.solve_ranges, static_argnames=("iterations", "algorithm"))


def draw(starts: RoundStarts, count: int, *, seed: int = 0) -> tuple:
  """``(which [count], ranges [2, H, count])``: ``count`` random situations at the starts (one
  drawn uniformly for each; ranges from ``random_ranges`` on its board)."""
  if count < 1:
    raise ValueError(f"count must be >= 1, got {count}")
  rng = np.random.default_rng(seed)
  which = rng.integers(len(starts.states), size=count)
  ranges = np.zeros((2, starts.num_hands, count))
  for index in range(len(starts.states)):
    picked = np.flatnonzero(which == index)
    tree = starts.tree(index)
    valid = tree.valid[tree.board[0]]
    on_board = np.flatnonzero(tree.showdown_boards == tree.board[0])
    order = np.argsort(tree.strength[on_board[0]], kind="stable") if len(on_board) else np.arange(len(valid))
    for p in (0, 1):
      ranges[p][:, picked] = random_ranges(order, valid, len(picked), rng)
  return which, ranges


def prepare(starts: RoundStarts, which: np.ndarray, ranges: np.ndarray, *, batch: int = 1024) -> Prepared:
  """The situations ``starts.states[which]`` (``which`` [S]) with the players' ranges ``ranges``
  [2, H, S] (each player's weight of each hand, any positive scale: normalised to sum to one on
  the hands the board leaves possible, zero where a player has no weight there), checked, with
  their pots and boards, cut into chunks of at most ``batch``. ValueError on bad input."""
  hands = starts.num_hands
  which, ranges = np.asarray(which), np.asarray(ranges, float)
  count = which.shape[0] if which.ndim == 1 else -1
  if count < 1 or ranges.shape != (2, hands, count):
    raise ValueError(f"which must be [S] and ranges [2, {hands}, S] with S >= 1, got {which.shape} and {ranges.shape}")
  if which.min() < 0 or which.max() >= len(starts.states):
    raise ValueError(
      f"which must index the {len(starts.states)} round starts, got values in [{which.min()}, {which.max()}]"
    )
  if not np.all(np.isfinite(ranges)) or np.any(ranges < 0):
    raise ValueError("ranges must be finite and >= 0")
  if batch < 1:
    raise ValueError(f"batch must be >= 1, got {batch}")
  pot, board = np.zeros(count), np.zeros((starts.rules.num_cards, count), bool)
  normalised = np.zeros((2, hands, count))
  width = min(batch, 1 << int(np.ceil(np.log2(np.bincount(which, minlength=len(starts.states)).max()))))
  chunks = []
  for index, start in enumerate(starts.states):
    picked = np.flatnonzero(which == index)
    if not len(picked):
      continue
    tree = starts.tree(index)
    pot[picked] = sum(start.chips)
    board[list(start.board), picked[:, None]] = True
    weights = ranges[:, :, picked] * tree.valid[tree.board[0]][:, None]
    total = weights.sum(1, keepdims=True)
    normalised[:, :, picked] = np.where(total > 0, weights / np.where(total > 0, total, 1), 0)
    chunks.extend((index, picked[lo : lo + width]) for lo in range(0, len(picked), width))
  return Prepared(Situations(pot, board, normalised, np.zeros((2, hands, count))), tuple(chunks), width)


def solve_chunk(
  starts: RoundStarts, prepared: Prepared, k: int, *, iterations: int = 500, algorithm: str = "cfr+"
) -> np.ndarray:
  """[2, H, n] the values per chip of the pot of chunk ``k``'s ``n`` situations, each solved to
  the end of the game by ``iterations`` of ``algorithm`` (``lookahead.solve_ranges``), as one
  program (padded to ``prepared.width``)."""
  if iterations < 1:
    raise ValueError(f"iterations must be >= 1, got {iterations}")
  index, chunk = prepared.chunks[k]
  tensors, width = starts.tensors(index), prepared.width
  ranges = prepared.data.ranges[:, :, chunk]
  padded = np.pad(ranges, ((0, 0), (0, 0), (0, width - len(chunk))), constant_values=1.0)
  solved = _solve(tensors, jnp.asarray(padded, tensors.dtype), iterations=iterations, algorithm=algorithm)
  return np.asarray(solved)[:, :, : len(chunk)] / prepared.data.pot[chunk]


def generate(
  rules,
  count: int,
  *,
  iterations: int = 500,
  seed: int = 0,
  batch: int = 1024,
  dtype=None,
  progress=None,
  algorithm: str = "cfr+",
) -> Situations:
  """``count`` random situations at the start of the second round of ``rules`` (a pot and a
  board that the game reaches, uniformly; ranges from ``random_ranges``), each solved to
  the end of the game by ``iterations`` of ``algorithm`` (``solve``). ``progress`` is called
  with the number solved."""
  starts = RoundStarts(rules, dtype)
  which, ranges = draw(starts, count, seed=seed)
  return _solve_all(starts, which, ranges, iterations, batch, progress, algorithm)


def solve(
  rules,
  which: np.ndarray,
  ranges: np.ndarray,
  *,
  iterations: int = 500,
  batch: int = 1024,
  dtype=None,
  progress=None,
  algorithm: str = "cfr+",
) -> Situations:
  """Situations at the second round's starts ``round_starts(rules)[which]`` (``which`` [S])
  with the players' ranges ``ranges`` [2, H, S] (``prepare``), each solved to the end of the
  game by ``iterations`` of ``algorithm`` (``lookahead.solve_ranges``), ``batch`` at a time in
  one program (the situations of one pot and board are a batch of ranges on one public
  tree). ``progress`` is called with the number solved."""
  return _solve_all(RoundStarts(rules, dtype), which, ranges, iterations, batch, progress, algorithm)


def _solve_all(starts, which, ranges, iterations, batch, progress, algorithm) -> Situations:
  if iterations < 1:
    raise ValueError(f"batch and iterations must be >= 1, got {batch} and {iterations}")
  prepared = prepare(starts, which, ranges, batch=batch)
  done = 0
  for k, (_, chunk) in enumerate(prepared.chunks):
    prepared.data.values[:, :, chunk] = solve_chunk(starts, prepared, k, iterations=iterations, algorithm=algorithm)
    done += len(chunk)
    if progress is not None:
      progress(done)
  return prepared.data


def with_suit_permutations(rules, data: Situations) -> Situations:
  """``data`` followed by its images under every other permutation of the suits, ``S x
  suits!`` situations: relabelling the suits of every card is a symmetry of the game (the
  deal is uniform and the showdown treats the suits alike), so each image is a solved
  situation too, which a network then need not learn separately."""
  suits, cards = rules.suits, rules.num_cards
  hands = poker_rules.hands(cards, rules.hand_size)
  index = {tuple(hand): h for h, hand in enumerate(hands.tolist())}
  images = []
  for perm in itertools.permutations(range(suits)):
    card = np.array([c - c % suits + perm[c % suits] for c in range(cards)])  # [C] each card's image
    hand = np.array([index[tuple(sorted(card[held]))] for held in hands])  # [H] each hand's image
    # the image holds at card[c] what data holds at c: gather with the inverse maps
    from_card, from_hand = np.argsort(card), np.argsort(hand)
    images.append(Situations(data.pot, data.board[from_card], data.ranges[:, from_hand], data.values[:, from_hand]))
  return concatenate(*images)


def concatenate(*parts: Situations) -> Situations:
  """The situations of ``parts`` (of one game) in one ``Situations``."""
  return Situations(*(np.concatenate(arrays, -1) for arrays in zip(*parts)))
