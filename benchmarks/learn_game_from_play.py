"""Learning a game from play (after Ling, Fang and Kolter, "What game are we playing?
End-to-end learning in normal and extensive form games", 2018): in one-card poker with 4
cards, the deck's card weights ``w = softmax(theta)`` are hidden; both players play the logit
QRE (temperature 0.05) of the true game. From N sampled games we observe every action and
the infoset it was taken at (not the deal's probabilities), and recover ``w`` by gradient
ascent on the log-likelihood ``sum n(I, a) log sigma_theta(I, a)`` through the differentiable
QRE (``jaxcfr.diff.qre``, implicit gradients), with 8 random restarts batched by ``vmap``.
Reported: the recovered weights against the true ones as N grows.

    python benchmarks/learn_game_from_play.py
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jaxcfr  # noqa: E402
from jaxcfr import diff  # noqa: E402
from jaxcfr.game.tensors import path_product  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

CARDS = 4
TEMPERATURE = 0.05
TRUE_WEIGHTS = np.array([0.1, 0.2, 0.3, 0.4])


def deal_structure(arrays):
  """For every chance edge: (card dealt, card dealt before or -1); -1 for non-chance edges."""
  card, first = np.full(arrays.num_histories, -1), np.full(arrays.num_histories, -1)
  for h in range(1, arrays.num_histories):
    if arrays.kind[arrays.parent[h]] == 2:
      actions = arrays.history_actions(h)
      card[h] = actions[-1]
      first[h] = actions[0] if len(actions) == 2 else -1
  return jnp.asarray(card), jnp.asarray(first)


def game_with(tensors, structure, theta):
  """The game with the deck's weights softmax(theta) (dealing without replacement)."""
  card, first = structure
  w = jax.nn.softmax(theta)
  prob = jnp.where(first >= 0, w[card] / (1 - w[jnp.maximum(first, 0)]), w[jnp.maximum(card, 0)])
  chance_prob = jnp.where(card >= 0, prob, tensors.tree.chance_prob)
  return jaxcfr.with_payoff_from_tree(dataclasses.replace(tensors, tree=dataclasses.replace(tensors.tree,
                                                                                             chance_prob=chance_prob)))


def terminal_probabilities(tensors, profile):
  tree = tensors.tree
  parent = jnp.maximum(tree.parent, 0)
  edge = tree.chance_prob
  for player in (0, 1):
    pick = profile[player][tree.infoset[parent], tree.action_index]
    edge = jnp.where((tree.kind[parent] == player) & (tree.parent >= 0), pick, edge)
  reach = path_product(tree, edge)
  return reach[tensors.payoff.terminal]


def action_counts(tensors, arrays, terminal_counts):
  """[I, A] per player: how often each action was taken in the sampled games."""
  counts = []
  for player in (0, 1):
    tp = tensors.players[player]
    seq_counts = np.zeros(tp.num_sequences)
    np.add.at(seq_counts, np.asarray(tensors.tree.sequence[player])[np.asarray(tensors.payoff.terminal)], terminal_counts)
    parent = np.asarray(tp.parent_seq)
    for lo, hi in reversed(tp.level_slices):
      block = seq_counts[1 + lo * tp.max_actions:1 + hi * tp.max_actions].reshape(hi - lo, tp.max_actions)
      np.add.at(seq_counts, parent[lo:hi], block.sum(1))
    counts.append(jnp.asarray(seq_counts[1:].reshape(tp.legal.shape)))
  return counts


def fit(tensors, structure, counts, restarts, steps, rng):
  def log_likelihood(theta):
    game = game_with(tensors, structure, theta)
    profile = diff.qre(game, temperature=TEMPERATURE, tolerance=1e-9)
    return sum((c * jnp.log(jnp.where(c > 0, s, 1))).sum() for c, s in zip(counts, profile))

  grad = jax.value_and_grad(log_likelihood)
  total = sum(float(c.sum()) for c in counts)

  @jax.jit
  def adam(thetas):
    def step(carry, i):
      theta, m, v = carry
      value, g = jax.vmap(grad)(theta)
      g = -g / total
      m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g ** 2
      t = i + 1.0
      theta = theta - 0.1 * (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
      return (theta, m, v), value
    (theta, _, _), values = jax.lax.scan(step, (thetas, jnp.zeros_like(thetas), jnp.zeros_like(thetas)),
                                         jnp.arange(steps, dtype=thetas.dtype))
    return theta, jax.vmap(log_likelihood)(theta)

  return adam(jnp.asarray(rng.normal(size=(restarts, CARDS))))


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--samples", default="100,1000,10000,100000")
  parser.add_argument("--restarts", type=int, default=8)
  parser.add_argument("--steps", type=int, default=150)
  parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "learn_game_from_play.json"))
  args = parser.parse_args(argv)
  game = jaxcfr.load(f"one_card_poker(num_cards={CARDS})", dtype="float64")
  tensors, structure = game.tensors, deal_structure(game.arrays)
  true_game = game_with(tensors, structure, jnp.log(jnp.asarray(TRUE_WEIGHTS)))
  truth = diff.qre(true_game, temperature=TEMPERATURE, tolerance=1e-12)
  probabilities = np.asarray(terminal_probabilities(true_game, truth))
  rng = np.random.default_rng(0)
  rows = []
  for n in [int(s) for s in args.samples.split(",")]:
    start = time.perf_counter()
    counts = action_counts(tensors, game.arrays, rng.multinomial(n, probabilities / probabilities.sum()))
    thetas, likelihoods = fit(tensors, structure, counts, args.restarts, args.steps, rng)
    best = int(jnp.argmax(likelihoods))
    recovered = np.asarray(jax.nn.softmax(thetas[best]))
    rows.append({"samples": n, "recovered": recovered.tolist(), "true": TRUE_WEIGHTS.tolist(),
                 "max_abs_error": float(np.abs(recovered - TRUE_WEIGHTS).max()),
                 "restart_spread": float(np.ptp(np.asarray(jax.nn.softmax(thetas, -1)), 0).max()),
                 "seconds": time.perf_counter() - start})
    print(rows[-1], flush=True)
  write_record(args.out, {
      "description": f"Recovering one_card_poker(num_cards={CARDS})'s card weights from sampled play of the logit QRE "
                     f"(temperature {TEMPERATURE}) by maximum likelihood through jaxcfr.diff.qre; Adam (lr 0.1, "
                     f"{args.steps} steps), {args.restarts} restarts batched by vmap, best restart by likelihood. "
                     "Observations: actions at their infosets, not the deals' probabilities. CPU shared with other jobs.",
      "temperature": TEMPERATURE, "rows": rows})
  return 0


if __name__ == "__main__":
  sys.exit(main())
