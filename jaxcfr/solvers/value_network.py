"""Counterfactual value networks (DeepStack's) and the batched generation of their data.

Moravcik et al., "DeepStack: Expert-Level Artificial Intelligence in Heads-Up No-Limit
Poker" (2017) replace the game below a lookahead's leaves by a network: inputs the pot
(here as a fraction of both stacks), the public cards and both players' ranges (each
normalised to sum to one), outputs both players' counterfactual values of every hand per
chip of the pot, against the opponent's normalised range. A *zero-sum correction* makes the
outputs consistent: with ``s = p0 . v0 + p1 . v1`` (zero in a zero-sum game), ``s / 2`` is
subtracted from every value of both players. DeepStack trains on random situations at the
start of a round, each solved to the end of the game, with a Huber loss; here they are
solved by ``jaxcfr.solvers.lookahead.solve_ranges`` (CFR+ on the public tree), thousands at a
time in one ``vmap``, and the ranges are drawn as DeepStack's range generator draws them:
the possible hands sorted by strength on the board, the probability mass split at a uniform
random point between the two halves, recursively (DeepStack-Leduc's ``RangeGenerator``).

    data = value_network.generate(rules, 10_000, iterations=500, seed=0)
    net = value_network.init(rules, seed=0)
    net, losses = value_network.train(net, data, steps=5_000)
    leaf_fn = value_network.leaf_fn(net)            # for jaxcfr.solvers.lookahead/resolving
    # the ranges the agent asks about, solved and added (DAgger), every suit relabelling too
    asked = value_network.solve(rules, *value_network.agent_queries(rules, net), iterations=500)
    data = value_network.with_suit_permutations(rules, value_network.concatenate(data, asked))

Shapes: ``H`` hands, ``C`` cards, ``S`` situations (trailing, like every batch axis here).
Networks and data files are ``.npz`` with a checksum (``save``, ``load``, ``save_data``,
``load_data``), read without pickles and checked in full, and against a game (``check_game``,
``load(path, rules)``): jaxcfr.solvers.value_network_files, re-exported here.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxcfr.kits import public_tree as public_tree
from jaxcfr.kits.public_tree import PublicTreeTensors
from jaxcfr.games import poker_rules
from jaxcfr.solvers import lookahead, resolving
from jaxcfr.kits.public_tree import LeafValueFn
from jaxcfr.solvers.value_network_files import (
  Situations,
  ValueNetwork,
  check_game,
  load,
  load_data,
  save,
  save_data,
  stack_of,
)

__all__ = [
  "Situations",
  "ValueNetwork",
  "random_ranges",
  "round_starts",
  "generate",
  "solve",
  "agent_queries",
  "with_suit_permutations",
  "concatenate",
  "init",
  "predict",
  "possible",
  "stack_of",
  "train",
  "leaf_fn",
  "check_game",
  "save",
  "load",
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


_solve = jax.jit(lookahead.solve_ranges, static_argnames=("iterations", "algorithm"))


def generate(
  rules, count: int, *, iterations: int = 500, seed: int = 0, batch: int = 1024, dtype=None, progress=None
) -> Situations:
  """``count`` random situations at the start of the second round of ``rules`` (a pot and a
  board that the game reaches, uniformly; ranges from ``random_ranges``), each solved to
  the end of the game by ``iterations`` of CFR+ (``solve``). ``progress`` is called with the
  number solved."""
  if count < 1:
    raise ValueError(f"count must be >= 1, got {count}")
  rng = np.random.default_rng(seed)
  starts = round_starts(rules)
  which = rng.integers(len(starts), size=count)
  ranges = np.zeros((2, len(poker_rules.hands(rules.num_cards, rules.hand_size)), count))
  for index, start in enumerate(starts):
    picked = np.flatnonzero(which == index)
    tree = public_tree.build(poker_rules.Subgame(rules, start))
    valid = tree.valid[tree.board[0]]
    on_board = np.flatnonzero(tree.showdown_boards == tree.board[0])
    order = np.argsort(tree.strength[on_board[0]], kind="stable") if len(on_board) else np.arange(len(valid))
    for p in (0, 1):
      ranges[p][:, picked] = random_ranges(order, valid, len(picked), rng)
  return solve(rules, which, ranges, iterations=iterations, batch=batch, dtype=dtype, progress=progress)


def solve(
  rules, which: np.ndarray, ranges: np.ndarray, *, iterations: int = 500, batch: int = 1024, dtype=None, progress=None
) -> Situations:
  """Situations at the second round's starts ``round_starts(rules)[which]`` (``which`` [S])
  with the players' ranges ``ranges`` [2, H, S] (each player's weight of each hand, any
  positive scale: normalised to sum to one on the hands the board leaves possible, zero
  where a player has no weight there), each solved to the end of the game by
  ``iterations`` of CFR+ (``lookahead.solve_ranges``), ``batch`` at a time in one program
  (the situations of one pot and board are a batch of ranges on one public tree).
  ``progress`` is called with the number solved."""
  starts = round_starts(rules)
  hands = len(poker_rules.hands(rules.num_cards, rules.hand_size))
  which, ranges = np.asarray(which), np.asarray(ranges, float)
  count = which.shape[0] if which.ndim == 1 else -1
  if count < 1 or ranges.shape != (2, hands, count):
    raise ValueError(f"which must be [S] and ranges [2, {hands}, S] with S >= 1, got {which.shape} and {ranges.shape}")
  if which.min() < 0 or which.max() >= len(starts):
    raise ValueError(f"which must index the {len(starts)} round starts, got values in [{which.min()}, {which.max()}]")
  if not np.all(np.isfinite(ranges)) or np.any(ranges < 0):
    raise ValueError("ranges must be finite and >= 0")
  if batch < 1 or iterations < 1:
    raise ValueError(f"batch and iterations must be >= 1, got {batch} and {iterations}")
  pot, board = np.zeros(count), np.zeros((rules.num_cards, count), bool)
  normalised, values = np.zeros((2, hands, count)), np.zeros((2, hands, count))
  # every chunk padded to one size, so that each shape of tree compiles once
  width = min(batch, 1 << int(np.ceil(np.log2(np.bincount(which, minlength=len(starts)).max()))))
  done = 0
  for index, start in enumerate(starts):
    picked = np.flatnonzero(which == index)
    if not len(picked):
      continue
    tree = public_tree.build(poker_rules.Subgame(rules, start))
    tensors = public_tree.to_device(tree, dtype)
    pot[picked] = sum(start.chips)
    board[list(start.board), picked[:, None]] = True
    weights = ranges[:, :, picked] * tree.valid[tree.board[0]][:, None]
    total = weights.sum(1, keepdims=True)
    normalised[:, :, picked] = np.where(total > 0, weights / np.where(total > 0, total, 1), 0)
    for lo in range(0, len(picked), width):
      chunk = picked[lo : lo + width]
      padded = np.pad(normalised[:, :, chunk], ((0, 0), (0, 0), (0, width - len(chunk))), constant_values=1.0)
      solved = _solve(tensors, jnp.asarray(padded, tensors.dtype), iterations=iterations)
      values[:, :, chunk] = np.asarray(solved)[:, :, : len(chunk)] / pot[chunk]
      done += len(chunk)
      if progress is not None:
        progress(done)
  return Situations(pot, board, normalised, values)


def agent_queries(
  rules, network: ValueNetwork, *, iterations: int = 1000, every: int = 20, gadget: str = "rm+"
) -> tuple:
  """``(which [S], ranges [2, H, S])``, the situations that the continual re-solving agent
  (``resolving.agent_strategy``, both seats, ``iterations`` per solve, ``gadget``) asks
  ``network`` about: both players' ranges at the leaves of its lookaheads, at every
  ``every``-th call of the leaf function, and which of ``round_starts(rules)`` each leaf is.

  These ranges are unlike the range generator's (hands at zero weight, the mass on few
  hands); a network trained on them as well errs several times less on what its agent asks
  (docs/resolving.md). Solved by ``solve`` and added to the training data, they are DAgger's
  data (Ross, Gordon and Bagnell, "A Reduction of Imitation Learning
  and Structured Prediction to No-Regret Online Learning", 2011): the learner's own queries
  labelled by the expert, here the exact solve."""
  if every < 1 or iterations < 1:
    raise ValueError(f"every and iterations must be >= 1, got {every} and {iterations}")
  index_of = {(tuple(s.chips), tuple(s.board)): i for i, s in enumerate(round_starts(rules))}
  values_of = leaf_fn(network)
  calls, kept = [0], []

  def record(chips, cards, ranges):  # host: chips [L, 2], cards [L, b], ranges [2, L, H, *B]
    calls[0] += 1
    if calls[0] % every == 0:
      flat = np.asarray(ranges).reshape(ranges.shape[:3] + (-1,))
      for leaf in range(flat.shape[1]):
        key = (tuple(int(c) for c in chips[leaf]), tuple(int(c) for c in cards[leaf]))
        kept.append((np.full(flat.shape[3], index_of[key]), flat[:, leaf]))

  def recording(tree: PublicTreeTensors, ranges: jax.Array) -> jax.Array:
    jax.debug.callback(record, tree.leaf_chips, tree.boards[tree.board[tree.leaf_nodes]], ranges)
    return values_of(tree, ranges)

  for player in (0, 1):
    resolving.agent_strategy(
      rules,
      player,
      iterations=iterations,
      leaf_values_of=lambda tree: recording,
      gadget=gadget,
      dtype=network.weights[0][0].dtype,
    )
  if not kept:
    raise ValueError(f"the agent called its leaves {calls[0]} times, fewer than every={every}")
  return np.concatenate([w for w, _ in kept]), np.concatenate([r for _, r in kept], -1)


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


def _features(network: ValueNetwork, pot: jax.Array, board: jax.Array, ranges: jax.Array) -> jax.Array:
  """[S, 1 + C + 2H] inputs from pot [S], board [C, S] and normalised ranges [2, H, S]."""
  scale = jnp.asarray(2 * network.stack, ranges.dtype)
  return jnp.concatenate([(pot / scale)[None], board.astype(ranges.dtype), ranges.reshape(-1, ranges.shape[-1])]).T


def init(rules, *, hidden: tuple = (50, 50, 50, 50, 50), seed: int = 0, dtype=None) -> ValueNetwork:
  """A fresh network for the game ``rules`` (Glorot-uniform weights, PReLU slopes 0.25; the
  default widths are DeepStack-Leduc's shipped network's)."""
  if not hidden or min(hidden) < 1:
    raise ValueError(f"hidden widths must be >= 1, got {hidden}")
  dtype = jnp.zeros((), dtype or float).dtype
  hands = len(poker_rules.hands(rules.num_cards, rules.hand_size))
  widths = (1 + rules.num_cards + 2 * hands,) + tuple(hidden) + (2 * hands,)
  key = jax.random.PRNGKey(seed)
  weights = []
  for n_in, n_out in zip(widths[:-1], widths[1:]):
    key, sub = jax.random.split(key)
    bound = np.sqrt(6.0 / (n_in + n_out))
    weights.append((jax.random.uniform(sub, (n_in, n_out), dtype, -bound, bound), jnp.zeros(n_out, dtype)))
  slopes = tuple(jnp.full(n, 0.25, dtype) for n in hidden)
  return ValueNetwork(tuple(weights), slopes, rules.num_cards, hands, int(stack_of(rules)))


def predict(network: ValueNetwork, pot: jax.Array, board: jax.Array, ranges: jax.Array) -> jax.Array:
  """[2, H, S] both players' values per chip of the pot against the opponent's range, with
  the zero-sum correction, from pot [S], board [C, S] and ranges [2, H, S] (each summing to
  one; zero on the hands the board blocks, where the values are zero too)."""
  x = _features(network, pot, board, ranges)
  for (w, b), slope in zip(network.weights[:-1], network.slopes):
    x = x @ w + b
    x = jnp.where(x >= 0, x, slope * x)
  w, b = network.weights[-1]
  values = (x @ w + b).T.reshape(ranges.shape)
  error = (ranges * values).sum((0, 1))  # [S]
  return (values - error / 2) * possible(network, board)[None].astype(values.dtype)


def train(
  network: ValueNetwork,
  data: Situations,
  *,
  steps: int = 2000,
  batch_size: int = 256,
  learning_rate: float | optax.Schedule = 1e-3,
  seed: int = 0,
  validation: Situations | None = None,
) -> tuple:
  """(network, losses) after ``steps`` of Adam (optax) on minibatches of ``data`` with
  DeepStack's Huber loss on the values of the hands the board leaves possible (``learning_rate``
  a number or an optax schedule of the step, e.g. ``optax.cosine_decay_schedule``); ``losses``
  [steps] the minibatch losses (and the validation loss every 100 steps if given:
  ``(train [steps], validation [steps // 100])``)."""
  if steps < 1 or batch_size < 1:
    raise ValueError(f"steps and batch_size must be >= 1, got {steps} and {batch_size}")
  dtype = network.weights[0][0].dtype
  on_device = lambda situations: [jnp.asarray(x, bool if x.dtype == bool else dtype) for x in situations]  # noqa: E731
  arrays = on_device(data)
  count = arrays[0].shape[0]
  optimizer = optax.adam(learning_rate)
  params = (network.weights, network.slopes)

  def loss_of(params, pot, board, ranges, values):
    net = dataclasses.replace(network, weights=params[0], slopes=params[1])
    mask = possible(network, board)[None]
    error = predict(net, pot, board, ranges) - values
    return (optax.huber_loss(error) * mask).sum() / jnp.maximum(mask.sum(), 1)

  def one(carry, key):
    params, state = carry
    pick = jax.random.randint(key, (batch_size,), 0, count)
    batch = [x[..., pick] for x in arrays]
    loss, grads = jax.value_and_grad(loss_of)(params, *batch)
    updates, state = optimizer.update(grads, state, params)
    return (optax.apply_updates(params, updates), state), loss

  chunk_of = jax.jit(lambda carry, keys: jax.lax.scan(one, carry, keys))  # compiled once per chunk length

  keys = jax.random.split(jax.random.PRNGKey(seed), steps)
  carry = (params, optimizer.init(params))
  losses, checks = [], []
  check = None
  if validation is not None:
    held = on_device(validation)
    check = jax.jit(lambda params: loss_of(params, *held))
  for lo in range(0, steps, 100):
    carry, chunk = chunk_of(carry, keys[lo : lo + 100])
    losses.append(np.asarray(chunk))
    if check is not None:
      checks.append(float(check(carry[0])))
  trained = dataclasses.replace(network, weights=carry[0][0], slopes=carry[0][1])
  losses = np.concatenate(losses)
  return trained, (losses if validation is None else (losses, np.array(checks)))


def possible(network: ValueNetwork, board: jax.Array) -> jax.Array:
  """[H, S] bool, the hands that hold no card of the board [C, S]."""
  size = next(k for k in range(1, network.num_cards + 1) if math.comb(network.num_cards, k) == network.num_hands)
  hands = jnp.asarray(poker_rules.hands(network.num_cards, size))  # [H, k]
  return ~board[hands].any(1)


def leaf_fn(network: ValueNetwork | tuple) -> LeafValueFn:
  """The LeafValueFn of lookaheads of the network's game: at each leaf, the pot and board of
  the leaf and both players' ranges there (normalised) into the network, its values scaled
  back by the pot and the opponent's total weight (the public tree's units). Given a tuple of
  networks of one game, the mean of their values (an ensemble: docs/resolving.md)."""
  networks = tuple(network) if isinstance(network, (tuple, list)) else (network,)
  if not networks or len({(n.num_cards, n.num_hands, n.stack) for n in networks}) != 1:
    raise ValueError("leaf_fn needs one network, or several of one game (the same deck, hands and stack)")
  network = networks[0]

  def values(tree: PublicTreeTensors, ranges: jax.Array) -> jax.Array:
    leaves = ranges.shape[1]
    batch = ranges.shape[3:]
    pot = jnp.broadcast_to(tree.leaf_chips.sum(1).reshape((leaves,) + (1,) * len(batch)), (leaves,) + batch)
    cards = tree.boards[tree.board[tree.leaf_nodes]]  # [L, b]
    board = (jnp.arange(network.num_cards)[:, None, None] == cards[None]).any(-1)  # [C, L]
    board = jnp.broadcast_to(board.reshape(board.shape + (1,) * len(batch)), (network.num_cards, leaves) + batch)
    valid = tree.valid[tree.board[tree.leaf_nodes]].T.reshape((1, ranges.shape[2], leaves) + (1,) * len(batch))
    mine = jnp.moveaxis(ranges, 1, 2) * valid  # [2, H, L, *B]
    total = mine.sum(1)  # [2, L, *B]
    normalised = jnp.where(total[:, None] > 0, mine / jnp.where(total > 0, total, 1)[:, None], 0)
    flat = lambda x, lead: x.reshape(lead + (-1,))
    inputs = (flat(pot, ()), flat(board, (network.num_cards,)), flat(normalised, (2, ranges.shape[2])))
    out = sum(predict(net, *inputs) for net in networks) / len(networks)
    out = out.reshape((2, ranges.shape[2], leaves) + batch) * pot * total[::-1][:, None] * valid
    return jnp.moveaxis(out, 2, 1)

  return values
