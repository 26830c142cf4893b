"""Learning a game from play (after Ling, Fang and Kolter, "What game are we playing?
End-to-end learning in normal and extensive form games", 2018): a hidden parameter of the game
is recovered from sampled play of a logit QRE player by gradient ascent on the log-likelihood
``sum n(I, a) log sigma_theta(I, a)`` through the differentiable QRE (``jaxcfr.diff.qre``,
implicit gradients), with random restarts batched by ``vmap``. Both players play the QRE of
the true game; from N sampled games we observe every action and the infoset it was taken at.

- one-card poker with 4 cards: the deck's card weights ``w = softmax(theta)`` (hidden: the
  deal probabilities, dealing without replacement), temperature 0.05;
- Leduc poker: the ante and the bet size (a raise adds ``bet`` chips in round one and
  ``2 bet`` in round two; OpenSpiel's rules are ante 1, bet 2). Every terminal utility is
  linear in them, ``u0(z) = s(z) (ante + k(z) bet)`` (the loser's chips: ``s`` the sign,
  ``k`` the loser's raise units), so the game is differentiable in ``(ante, bet) =
  exp(theta)`` through ``jaxcfr.with_payoff_from_tree``; temperature 0.2.

Reported: the recovered parameters against the true ones as N grows, and a figure
(``learn_game_from_play.png``).

    python benchmarks/learn_game_from_play.py [--games one_card,leduc]
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
from jaxcfr.kits.sequence_form.tensors import path_product  # noqa: E402
from jaxcfr.games import leduc_poker as leduc_rules  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

CARDS = 4
TEMPERATURE = 0.05
TRUE_WEIGHTS = np.array([0.1, 0.2, 0.3, 0.4])
LEDUC_TEMPERATURE = 0.2
LEDUC_TRUE = np.array([1.0, 2.0])  # (ante, bet)


SEED = 0  # the generator of the sampled games and of the restarts


def deal_structure(arrays):
  """For every chance edge: (card dealt, card dealt before or -1); -1 for non-chance edges."""
  card, first = np.full(arrays.num_histories, -1), np.full(arrays.num_histories, -1)
  for h in range(1, arrays.num_histories):
    if arrays.kind[arrays.parent[h]] == 2:
      actions = arrays.history_actions(h)
      card[h] = actions[-1]
      first[h] = actions[0] if len(actions) == 2 else -1
  return jnp.asarray(card), jnp.asarray(first)


def card_game(tensors, structure, theta):
  """The game with the deck's weights softmax(theta) (dealing without replacement)."""
  card, first = structure
  w = jax.nn.softmax(theta)
  prob = jnp.where(first >= 0, w[card] / (1 - w[jnp.maximum(first, 0)]), w[jnp.maximum(card, 0)])
  chance_prob = jnp.where(card >= 0, prob, tensors.tree.chance_prob)
  return jaxcfr.with_payoff_from_tree(
    dataclasses.replace(tensors, tree=dataclasses.replace(tensors.tree, chance_prob=chance_prob))
  )


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
    np.add.at(
      seq_counts, np.asarray(tensors.tree.sequence[player])[np.asarray(tensors.payoff.terminal)], terminal_counts
    )
    parent = np.asarray(tp.parent_seq)
    for lo, hi in reversed(tp.level_slices):
      block = seq_counts[1 + lo * tp.max_actions : 1 + hi * tp.max_actions].reshape(hi - lo, tp.max_actions)
      np.add.at(seq_counts, parent[lo:hi], block.sum(1))
    counts.append(jnp.asarray(seq_counts[1:].reshape(tp.legal.shape)))
  return counts


def leduc_coefficients(arrays):
  """[H] each: ``s(z)`` and ``s(z) k(z)`` with ``u0(z) = s(z) (ante + k(z) bet)`` at terminals (0 elsewhere).
  ``k`` counts the loser's raise units (a raise is 1 unit in round one, 2 in round two; a call
  matches the units owed); ties at the showdown pay 0."""
  ante, bet = np.zeros(arrays.num_histories), np.zeros(arrays.num_histories)
  for h in np.flatnonzero(np.asarray(arrays.kind) == 3):
    state = leduc_rules.LeducState()
    for action in arrays.history_actions(int(h)):
      state = state.child(action)
    units = [0, 0]
    for round_index, actions in enumerate(state.rounds):
      owed = 0
      for turn, action in enumerate(actions):
        if action == leduc_rules.CALL:
          units[turn % 2], owed = units[turn % 2] + owed, 0
        elif action == leduc_rules.RAISE:
          units[turn % 2], owed = units[turn % 2] + owed + round_index + 1, round_index + 1
    if state.returns()[0] == 0:
      continue
    loser = 0 if state.returns()[0] < 0 else 1
    sign = -1.0 if loser == 0 else 1.0
    ante[h], bet[h] = sign, sign * units[loser]
  return jnp.asarray(ante), jnp.asarray(bet)


def leduc_game(tensors, coefficients, theta):
  """Leduc with ``(ante, bet) = exp(theta)``: utilities ``s (ante + k bet)``."""
  ante, bet = jnp.exp(theta[0]), jnp.exp(theta[1])
  utility = coefficients[0] * ante + coefficients[1] * bet
  return jaxcfr.with_payoff_from_tree(
    dataclasses.replace(tensors, tree=dataclasses.replace(tensors.tree, utility=utility))
  )


def fit(make_game, temperature, counts, starts, steps, lr=0.1):
  """Adam on the mean negative log-likelihood from every start ([R, D]) at once (vmap)."""

  def log_likelihood(theta):
    profile = diff.qre(make_game(theta), temperature=temperature, tolerance=1e-9)
    return sum((c * jnp.log(jnp.where(c > 0, s, 1))).sum() for c, s in zip(counts, profile))

  grad = jax.value_and_grad(log_likelihood)
  total = sum(float(c.sum()) for c in counts)

  @jax.jit
  def adam(thetas):
    def step(carry, i):
      theta, m, v = carry
      value, g = jax.vmap(grad)(theta)
      g = -g / total
      m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g**2
      t = i + 1.0
      theta = theta - lr * (m / (1 - 0.9**t)) / (jnp.sqrt(v / (1 - 0.999**t)) + 1e-8)
      return (theta, m, v), value

    (theta, _, _), _ = jax.lax.scan(
      step, (thetas, jnp.zeros_like(thetas), jnp.zeros_like(thetas)), jnp.arange(steps, dtype=thetas.dtype)
    )
    return theta, jax.vmap(log_likelihood)(theta)

  return adam(jnp.asarray(starts))


def task(name):
  """(game, make_game(theta), temperature, true theta, theta -> reported parameters, their names)."""
  if name == "one_card":
    game = jaxcfr.load(f"one_card_poker(num_cards={CARDS})", dtype="float64")
    structure = deal_structure(game.arrays)
    return (
      game,
      lambda theta: card_game(game.tensors, structure, theta),
      TEMPERATURE,
      np.log(TRUE_WEIGHTS),
      lambda theta: np.asarray(jax.nn.softmax(jnp.asarray(theta), -1)),
      [f"w{c}" for c in range(CARDS)],
    )
  if name == "leduc":
    game = jaxcfr.load("leduc_poker", dtype="float64")
    coefficients = leduc_coefficients(game.arrays)
    return (
      game,
      lambda theta: leduc_game(game.tensors, coefficients, theta),
      LEDUC_TEMPERATURE,
      np.log(LEDUC_TRUE),
      lambda theta: np.exp(np.asarray(theta)),
      ["ante", "bet"],
    )
  raise ValueError(f"--games: unknown game {name!r}; choose one_card or leduc")


def run_task(name, sample_sizes, restarts, steps, rng, log=print):
  game, make_game, temperature, true_theta, reported, names = task(name)
  tensors = game.tensors
  true_game = make_game(jnp.asarray(true_theta))
  truth = diff.qre(true_game, temperature=temperature, tolerance=1e-12)
  probabilities = np.asarray(terminal_probabilities(true_game, truth))
  true_params = reported(true_theta)
  rows = []
  for n in sample_sizes:
    start = time.perf_counter()
    counts = action_counts(tensors, game.arrays, rng.multinomial(n, probabilities / probabilities.sum()))
    starts = rng.normal(size=(restarts, true_theta.size)) * (1.0 if name == "one_card" else 0.7)  # not from the truth
    thetas, likelihoods = fit(make_game, temperature, counts, starts, steps)
    best = int(jnp.argmax(likelihoods))
    recovered = reported(thetas[best])
    rows.append(
      {
        "game": name,
        "samples": n,
        "parameters": names,
        "recovered": recovered.tolist(),
        "true": true_params.tolist(),
        "max_abs_error": float(np.abs(recovered - true_params).max()),
        "max_rel_error": float(np.abs(recovered / true_params - 1).max()),
        "restart_spread": float(np.ptp(reported(thetas), 0).max()),
        "seconds": time.perf_counter() - start,
      }
    )
    log(rows[-1])
  return rows


def figure(rows, out):
  import matplotlib  # pylint: disable=import-outside-toplevel

  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

  games = sorted({r["game"] for r in rows})
  fig, axes = plt.subplots(1, len(games), figsize=(5 * len(games), 3.8), squeeze=False)
  for ax, name in zip(axes[0], games):
    mine = [r for r in rows if r["game"] == name]
    n = [r["samples"] for r in mine]
    for k, label in enumerate(mine[0]["parameters"]):
      (line,) = ax.semilogx(n, [r["recovered"][k] for r in mine], "o-", label=f"{label} recovered")
      ax.axhline(mine[0]["true"][k], color=line.get_color(), ls=":", lw=1)
    ax.set(xlabel="sampled games N", ylabel="parameter (dotted: true)", title=f"{name}: recovered vs true")
    ax.legend(fontsize=7)
  fig.tight_layout()
  fig.savefig(out, dpi=120)
  plt.close(fig)


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--games", default="one_card,leduc")
  parser.add_argument("--samples", default="100,1000,10000,100000")
  parser.add_argument("--restarts", type=int, default=8)
  parser.add_argument("--steps", type=int, default=150)
  parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "learn_game_from_play.json"))
  args = parser.parse_args(argv)
  names = args.games.split(",")
  unknown = [name for name in names if name not in ("one_card", "leduc")]
  if unknown:
    parser.error(f"--games: unknown game {unknown[0]!r}; choose one_card or leduc")
  sizes = [int(s) for s in args.samples.split(",")]
  rng = np.random.default_rng(SEED)
  rows = [row for name in names for row in run_task(name, sizes, args.restarts, args.steps, rng)]
  figure(rows, Path(args.out).with_suffix(".png"))
  write_record(
    args.out,
    benchmark="learn_game_from_play",
    description=(
      "Recovering hidden game parameters from sampled play of the logit QRE by maximum likelihood "
      f"through jaxcfr.diff.qre: one_card_poker(num_cards={CARDS})'s card weights (temperature "
      f"{TEMPERATURE}) and Leduc's (ante, bet) (temperature {LEDUC_TEMPERATURE}, true (1, 2)). Adam "
      f"(lr 0.1, {args.steps} steps) on the mean negative log-likelihood, {args.restarts} restarts batched "
      "by vmap (theta ~ N(0, 1) for one_card's card logits, N(0, 0.7^2) for Leduc's log (ante, bet)), best restart by likelihood. "
      "Observations: actions at their infosets, not the deals or the payoffs. Float64; CPU shared with "
      "other jobs."
    ),
    configuration={
      "temperatures": {"one_card": TEMPERATURE, "leduc": LEDUC_TEMPERATURE},
      "steps": args.steps,
      "restarts": args.restarts,
      "seed": SEED,  # the sampled games and the restarts' starting points (numpy.random.default_rng)
      "figure": Path(args.out).with_suffix(".png").name,
    },
    results={"rows": rows},
  )
  return 0


if __name__ == "__main__":
  sys.exit(main())
