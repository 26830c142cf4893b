"""The opponent model that holdem_learned_model.py and holdem_learning_seeds.py share (Ponsen, de
Jong and Lanctot 2011, Table 2 and Figure 8 on limit hold'em): MCCFR10, the player that observes
the rule bot; the bot's games against it, half in each seat; the model learned from them
(jaxcfr.evaluate.holdem_model, the paper's five features, one tree per round); and the
seat-by-seat counter-strategy of a pair of MCRNR runs."""

from __future__ import annotations

import time

import jax

from jaxcfr import solvers
from jaxcfr.evaluate import holdem_model

PCONF = 0.75  # MCRNR's confidence in the model, the paper's


def observed_model(game, bot, key, *, iters: int, games: int, threshold: float) -> tuple:
  """MCCFR10 after ``iters`` outcome-sampling iterations (epsilon 0.6, seed 0), ``games`` games
  of ``bot`` against it (the bot in seat 0 for the first half, keys folded from ``key`` with 1
  and 2) and the model learned from them with the trees' ``threshold``.

  Returns:
    (mccfr10, observed [(bot's seat, observations)], model, seconds {"mccfr10", "observe", "learn"})
  """
  seconds = {}
  start = time.perf_counter()
  mccfr = solvers.get("mccfr-os", "card_abstraction")
  state = jax.block_until_ready(mccfr.run(game, mccfr.init(game, seed=0, epsilon=0.6), iters))
  mccfr10 = mccfr.average_strategy(game, state)
  seconds["mccfr10"] = time.perf_counter() - start
  start = time.perf_counter()
  half = games // 2
  observed = [
    (0, holdem_model.observe(game, (bot[0], mccfr10[1]), jax.random.fold_in(key, 1), half)),
    (1, holdem_model.observe(game, (mccfr10[0], bot[1]), jax.random.fold_in(key, 2), games - half)),
  ]
  seconds["observe"] = time.perf_counter() - start
  start = time.perf_counter()
  model = holdem_model.learn(game, observed, threshold=threshold)
  seconds["learn"] = time.perf_counter() - start
  return mccfr10, observed, model, seconds


def counter(mcrnr, game, state) -> tuple:
  """The seat-by-seat counter-strategy of a pair of runs restricting seats 1 and 0."""
  profile = mcrnr.counter_profile(game, state)
  return profile[0][..., 0], profile[1][..., 1]
