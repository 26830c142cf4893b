"""``solve_sampled``: runs a solver of a sampled game (limit hold'em's abstraction) in jitted
chunks, batched over seeds, and scores the average strategy of every run against the
rule-based bot (jaxcfr.evaluate.holdem_match) in small bets per hand. Exact metrics
(exploitability) do not exist there: the game has no sequence-form tensors.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import tqdm

from jaxcfr.evaluate import holdem_match
from jaxcfr.solvers import sampled_games

__all__ = ["solve_sampled"]


def _run_slice(profile, b):
  return tuple(t[..., b] for t in profile)


def solve_sampled(
  game,
  algorithm: str,
  iterations: int,
  *,
  seeds=(0,),
  eval_every: int | None = None,
  eval_deals: int = 512,
  progress: bool | None = None,
  **hyperparameters,
) -> dict:
  """``iterations`` of ``algorithm`` on ``game`` for each of ``seeds`` (one batch), with scalar
  ``hyperparameters`` (``epsilon``, ``uct_c``; None = the solver's default); returns the
  JSON-ready record: iterations per second (the batch's runs count once each), and per
  evaluation each run's sb/h against the rule bot with a 95% interval. ``mcrnr`` models the
  rule bot itself (pConf 0.75, restricted seat 1, Ponsen et al. 2011 section 4.3.2) and is
  scored by its counter-profile (the counter-strategy in seat 0, the model in seat 1)."""
  solver = sampled_games.get(algorithm)
  seeds = [int(s) for s in seeds]
  hyper = {"seed": jnp.asarray(seeds, jnp.uint32)}
  for name, value in hyperparameters.items():
    if value is None:
      continue
    if name not in solver.hyperparameters:
      raise ValueError(f"--{name.replace('_', '-')} does not apply to --algo {algorithm} on {game.name}")
    hyper[name] = jnp.full((len(seeds),), value, jnp.float32)
  eval_every = eval_every or max(iterations // 10, 1)
  bot = holdem_match.rule_bot(game)
  if "model" in solver.requires:
    hyper["model"] = bot
  scored = solver.counter_profile or solver.average_strategy
  started = time.perf_counter()
  state = solver.init(game, **hyper)
  history, done, run_seconds = [], 0, 0.0
  bar = tqdm.tqdm(total=iterations, disable=progress is False, desc=algorithm, leave=False)
  while done < iterations:
    n = min(eval_every, iterations - done)
    t = time.perf_counter()
    state = jax.block_until_ready(solver.run(game, state, n))
    run_seconds += time.perf_counter() - t if done else 0.0  # the first chunk includes compiling
    done += n
    bar.update(n)
    average = scored(game, state)
    rows = [
      holdem_match.match(game, _run_slice(average, b), bot, jax.random.PRNGKey(10_000 + done), eval_deals)
      for b in range(len(seeds))
    ]
    history.append(
      {
        "iteration": done,
        "seconds": time.perf_counter() - started,
        "sb_per_hand_vs_bot": [r["sb_per_hand"] for r in rows],
        "ci95": [r["ci95"] for r in rows],
      }
    )
  bar.close()
  timed = iterations - min(eval_every, iterations)
  return {
    "game": game.name,
    "algo": algorithm,
    "iters": iterations,
    "seeds": seeds,
    "hyperparameters": {
      k: (hyperparameters[k] if hyperparameters.get(k) is not None else v)
      for k, v in solver.hyperparameters.items()
      if k not in ("seed", "restricted")
    },
    "iterations_per_second": (timed * len(seeds) / run_seconds) if timed and run_seconds else None,
    "seconds": time.perf_counter() - started,
    "eval_deals": eval_deals,
    "opponent": "rule bot (a stand-in for the paper's commercial bots)",
    "scored": "counter-profile" if solver.counter_profile else "average strategy",
    "history": history,
    "average_strategy": solver.average_strategy(game, state),
  }
