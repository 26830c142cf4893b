"""Counterfactual value networks (DeepStack's), their training and their leaf function.

Moravcik et al., "DeepStack: Expert-Level Artificial Intelligence in Heads-Up No-Limit
Poker" (2017) replace the game below a lookahead's leaves by a network: inputs the pot
(here as a fraction of both stacks), the public cards and both players' ranges (each
normalised to sum to one), outputs both players' counterfactual values of every hand per
chip of the pot, against the opponent's normalised range. A *zero-sum correction* makes the
outputs consistent: with ``s = p0 . v0 + p1 . v1`` (zero in a zero-sum game), ``s / 2`` is
subtracted from every value of both players. DeepStack trains on random situations at the
start of a round, each solved to the end of the game, with a Huber loss; the situations and
their files are jaxcfr.solvers.value_data's (its names are re-exported here).

    data = value_network.generate(rules, 10_000, iterations=500, seed=0)
    net = value_network.init(rules, seed=0)
    net, losses = value_network.train(net, data, steps=5_000)
    leaf_fn = value_network.leaf_fn(net)            # for jaxcfr.solvers.lookahead/resolving
    # the ranges the agent asks about, solved and added (DAgger), every suit relabelling too
    asked = value_network.solve(rules, *value_network.agent_queries(rules, net), iterations=500)
    data = value_network.with_suit_permutations(rules, value_network.concatenate(data, asked))

Training comes in chunks of ``CHUNK`` steps (``Trainer``), so that a driver can checkpoint
between them (jaxcfr.run.resolving_jobs); ``train`` runs them all.

Shapes: ``H`` hands, ``C`` cards, ``S`` situations (trailing, like every batch axis here).
Networks and data files are ``.npz`` with a checksum (``save``, ``load``, ``save_data``,
``load_data``), read without pickles and checked in full, and against a game (``check_game``,
``load(path, rules)``): jaxcfr.solvers.value_network_files, re-exported here.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxcfr.kits.public_tree import PublicTreeTensors
from jaxcfr.games import poker_rules
from jaxcfr.solvers import networks, resolving
from jaxcfr.solvers.value_data import (
  concatenate,
  generate,
  random_ranges,
  round_starts,
  solve,
  with_suit_permutations,
)
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
  "Trainer",
  "CHUNK",
  "leaf_fn",
  "check_game",
  "save",
  "load",
  "save_data",
  "load_data",
]


def agent_queries(
  game, network: ValueNetwork, *, iterations: int = 1000, every: int = 20, gadget: str = "rm+"
) -> tuple:
  """``(which [S], ranges [2, H, S])``, the situations that the continual re-solving agent
  (``resolving.agent_strategy``, both seats, ``iterations`` per solve, ``gadget``) asks
  ``network`` about: both players' ranges at the leaves of its lookaheads, at every
  ``every``-th call of the leaf function, and which of ``round_starts(rules)`` each leaf is.
  ``game``: the whole game's public tree (built once, e.g. a loaded game's ``tree``), or its
  rules.

  These ranges are unlike the range generator's (hands at zero weight, the mass on few
  hands); a network trained on them as well errs several times less on what its agent asks
  (docs/resolving.md). Solved by ``solve`` and added to the training data, they are DAgger's
  data (Ross, Gordon and Bagnell, "A Reduction of Imitation Learning
  and Structured Prediction to No-Regret Online Learning", 2011): the learner's own queries
  labelled by the expert, here the exact solve."""
  if every < 1 or iterations < 1:
    raise ValueError(f"every and iterations must be >= 1, got {every} and {iterations}")
  whole = resolving.whole_tree(game)  # built once for both seats
  rules = whole.rules
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
      whole,
      player,
      iterations=iterations,
      leaf_values_of=lambda tree: recording,
      gadget=gadget,
      dtype=network.weights[0][0].dtype,
    )
  if not kept:
    raise ValueError(f"the agent called its leaves {calls[0]} times, fewer than every={every}")
  return np.concatenate([w for w, _ in kept]), np.concatenate([r for _, r in kept], -1)


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
  weights = networks.glorot(jax.random.PRNGKey(seed), widths, dtype)  # the shared MLP's initialisation
  slopes = tuple(jnp.full(n, 0.25, dtype) for n in hidden)
  return ValueNetwork(tuple(weights), slopes, rules.num_cards, hands, int(stack_of(rules)))


def predict(network: ValueNetwork, pot: jax.Array, board: jax.Array, ranges: jax.Array) -> jax.Array:
  """[2, H, S] both players' values per chip of the pot against the opponent's range, with
  the zero-sum correction, from pot [S], board [C, S] and ranges [2, H, S] (each summing to
  one; zero on the hands the board blocks, where the values are zero too)."""
  x = _features(network, pot, board, ranges)
  layers = networks.MLPParams(list(network.weights), (), tuple(network.slopes))
  values = networks.forward(layers, x, "prelu").T.reshape(ranges.shape)
  error = (ranges * values).sum((0, 1))  # [S]
  return (values - error / 2) * possible(network, board)[None].astype(values.dtype)


CHUNK = 100
"""Adam steps per chunk of training (one compiled scan; the validation loss after each)."""


class Trainer:
  """Training of ``network`` on ``data`` in chunks of ``CHUNK`` steps (``train``'s arguments):
  ``start()`` the carry before the first step, ``chunk(carry, k)`` the steps of chunk ``k``
  (``(carry, losses [<= CHUNK], validation loss or None)``), ``network_of(carry)`` the trained
  network. Chunk ``k`` is a function of the carry alone, so chunks resumed from a saved carry
  give the same network."""

  def __init__(
    self,
    network: ValueNetwork,
    data: Situations,
    *,
    steps: int = 2000,
    batch_size: int = 256,
    learning_rate: float | optax.Schedule = 1e-3,
    seed: int = 0,
    validation: Situations | None = None,
  ):
    if steps < 1 or batch_size < 1:
      raise ValueError(f"steps and batch_size must be >= 1, got {steps} and {batch_size}")
    dtype = network.weights[0][0].dtype
    on_device = lambda situations: [jnp.asarray(x, bool if x.dtype == bool else dtype) for x in situations]  # noqa: E731
    arrays = on_device(data)
    count = arrays[0].shape[0]
    self.network, self.steps = network, steps
    self.chunks = -(-steps // CHUNK)
    self.optimizer = optimizer = optax.adam(learning_rate)

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

    self._chunk = jax.jit(lambda carry, keys: jax.lax.scan(one, carry, keys))  # compiled once per chunk length
    self._keys = jax.random.split(jax.random.PRNGKey(seed), steps)
    self._check = None
    if validation is not None:
      held = on_device(validation)
      self._check = jax.jit(lambda params: loss_of(params, *held))

  def start(self) -> tuple:
    """The carry before the first step: ``(params, optimizer state)``, params ``(weights, slopes)``."""
    params = (self.network.weights, self.network.slopes)
    return params, self.optimizer.init(params)

  def chunk(self, carry, k: int) -> tuple:
    """The steps of chunk ``k`` from ``carry``: ``(carry, losses, validation loss or None)``."""
    carry, losses = self._chunk(carry, self._keys[k * CHUNK : (k + 1) * CHUNK])
    check = None if self._check is None else float(self._check(carry[0]))
    return carry, np.asarray(losses), check

  def network_of(self, carry) -> ValueNetwork:
    """The network of a carry."""
    return dataclasses.replace(self.network, weights=carry[0][0], slopes=carry[0][1])


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
  ``(train [steps], validation [steps // 100])``). ``Trainer``'s chunks, all of them."""
  trainer = Trainer(
    network, data, steps=steps, batch_size=batch_size, learning_rate=learning_rate, seed=seed, validation=validation
  )
  carry, losses, checks = trainer.start(), [], []
  for k in range(trainer.chunks):
    carry, chunk, check = trainer.chunk(carry, k)
    losses.append(chunk)
    if check is not None:
      checks.append(check)
  losses = np.concatenate(losses)
  return trainer.network_of(carry), (losses if validation is None else (losses, np.array(checks)))


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
