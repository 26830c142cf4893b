"""MMD as a Nash solver on Leduc: temperature, step-size and magnet schedules against CFR and CFR+.

Magnetic mirror descent (Sokota et al., "A Unified Approach to Reinforcement Learning, Quantal
Response Equilibria, and Two-Player Zero-Sum Games", 2023) converges to the logit QRE of its
temperature; towards a Nash equilibrium the temperature must vanish or the magnet must move.
Compared here, each schedule over a small grid of (alpha, eta) run as one batch (trailing axes),
float64, exploitability (NashConv / 2) of the current and of the average strategy after
10^2, 10^3 and 10^4 iterations, the best grid point of each reported:

- ``anneal``: jaxcfr's ``mmd`` with ``anneal=True``, ``alpha_t = alpha / sqrt(t)`` and
  ``eta_t = eta / sqrt(t)``;
- ``anneal_alpha``: ``alpha_t = alpha / sqrt(t)`` with a fixed ``eta``;
- ``md``: ``alpha = 0`` (no magnet: mirror descent ascent with the dilated entropy), fixed
  ``eta``, the average converging; OpenSpiel's ``examples/mmd_nash_example.py`` (alpha 0,
  stepsize 1);
- ``moving_magnet(r)``: fixed ``alpha`` and ``eta``, the magnet moved towards the current
  iterate after every step, ``log rho <- normalise((1 - r) log rho + r log sigma)`` (each
  magnet's QRE is the next one's start: a proximal-point path to a Nash equilibrium);
- CFR and CFR+ (average), the references.

    python benchmarks/mmd_schedules.py [--iters 10000]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jaxcfr  # noqa: E402
from jaxcfr import solvers  # noqa: E402
from jaxcfr.kits.sequence_form import evaluation  # noqa: E402
from jaxcfr.base import regret  # noqa: E402
from jaxcfr.solvers import mmd  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


def _normalised_log(tensors, log_magnet):
  out = []
  for tp, x in zip(tensors.players, log_magnet):
    legal = evaluation.expand_to(tp.legal, x.ndim)
    z = jax.nn.logsumexp(jnp.where(legal, x, -jnp.inf), axis=1, keepdims=True)
    out.append(jnp.where(legal, x - z, 0))
  return tuple(out)


def run_schedule(tensors, alpha, eta, checkpoints, *, anneal_alpha, anneal_eta, magnet_rate=0.0):
  """[(T, current exploitability [G], average exploitability [G])] for the grid (alpha, eta) [G]."""
  state = mmd.init(tensors, temperature=alpha, step_size=eta)

  def body(i, carry):
    log_strategy, log_magnet, average = carry
    t = (i + 1).astype(alpha.dtype)
    a = alpha / jnp.sqrt(t) if anneal_alpha else alpha
    e = eta / jnp.sqrt(t) if anneal_eta else eta
    log_strategy = mmd.mmd_map(tensors, log_strategy, log_magnet, a, e)
    if magnet_rate:
      log_magnet = _normalised_log(
        tensors, tuple((1 - magnet_rate) * m + magnet_rate * s for m, s in zip(log_magnet, log_strategy))
      )
    strategy = mmd.current_strategy(tensors, state._replace(log_strategy=log_strategy))
    average = tuple(
      m + (jnp.expand_dims(evaluation.realization_plan(tp, s)[tp.parent_seq], 1) * s - m) / t
      for tp, s, m in zip(tensors.players, strategy, average)
    )
    return log_strategy, log_magnet, average

  advance = jax.jit(lambda carry, lo, hi: jax.lax.fori_loop(lo, hi, body, carry))
  carry, done, out = (state.log_strategy, state.log_magnet, state.average), 0, []
  for hi in checkpoints:
    carry, done = advance(carry, done, hi), hi
    current = mmd.current_strategy(tensors, state._replace(log_strategy=carry[0]))
    average = tuple(
      regret.normalise(m, evaluation.expand_to(tp.legal, m.ndim)) for tp, m in zip(tensors.players, carry[2])
    )
    out.append(
      (hi, np.asarray(jaxcfr.exploitability(tensors, current)), np.asarray(jaxcfr.exploitability(tensors, average)))
    )
  return out


def cfr_reference(tensors, name, checkpoints):
  solver = solvers.get(name)
  state, done, out = solver.init(tensors), 0, []
  for hi in checkpoints:
    state, done = solver.run(tensors, state, hi - done), hi
    out.append(
      {
        "iterations": hi,
        "exploitability": float(jaxcfr.exploitability(tensors, solver.average_strategy(tensors, state))),
      }
    )
  return out


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--game", default="leduc_poker")
  parser.add_argument("--iters", type=int, default=10000)
  parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "mmd_schedules.json"))
  args = parser.parse_args(argv)
  tensors = jaxcfr.load(args.game, dtype="float64").tensors
  checkpoints = [t for t in (100, 1000, 10000, 100000) if t < args.iters] + [args.iters]
  schedules = {
    "anneal": (dict(anneal_alpha=True, anneal_eta=True), [0.01, 0.03, 0.1], [10.0, 30.0, 100.0]),
    "anneal_alpha": (dict(anneal_alpha=True, anneal_eta=False), [0.003, 0.01, 0.03], [1.0, 3.0, 10.0]),
    "md": (dict(anneal_alpha=False, anneal_eta=False), [1e-12], [1.0, 3.0, 10.0, 30.0]),
    "moving_magnet(0.1)": (
      dict(anneal_alpha=False, anneal_eta=False, magnet_rate=0.1),
      [0.003, 0.01, 0.03],
      [3.0, 10.0, 30.0],
    ),
    "moving_magnet(0.01)": (
      dict(anneal_alpha=False, anneal_eta=False, magnet_rate=0.01),
      [0.003, 0.01, 0.03],
      [3.0, 10.0, 30.0],
    ),
  }
  rows = []
  for name, (options, alphas, etas) in schedules.items():
    grid = list(itertools.product(alphas, etas))
    alpha, eta = (jnp.asarray([g[k] for g in grid], tensors.dtype) for k in (0, 1))
    start = time.perf_counter()
    for t, current, average in run_schedule(tensors, alpha, eta, checkpoints, **options):
      for kind, values in (("current", current), ("average", average)):
        best = int(np.argmin(values))
        rows.append(
          {
            "schedule": name,
            "strategy": kind,
            "iterations": t,
            "exploitability": float(values[best]),
            "alpha": grid[best][0],
            "eta": grid[best][1],
          }
        )
    print(
      name,
      [r for r in rows if r["schedule"] == name and r["iterations"] == args.iters],
      f"{time.perf_counter() - start:.0f}s",
      flush=True,
    )
  references = {name: cfr_reference(tensors, name, checkpoints) for name in ("cfr", "cfr+")}
  print(references, flush=True)
  write_record(
    args.out,
    benchmark="mmd_schedules",
    description=(
      f"MMD schedules as Nash solvers on {args.game} (float64): for each schedule the best point of a "
      "small (alpha, eta) grid run as one batch, exploitability (NashConv/2) of the current and of the "
      "average strategy; eta is absolute (OpenSpiel's default alpha / max|A|^2 is about 85 alpha on "
      "Leduc); CFR and CFR+ (average) as references. See the module docstring for the schedules. "
      "CPU shared with other jobs."
    ),
    configuration={
      "game": args.game,
      "checkpoints": checkpoints,
      "grids": {k: {"alpha": v[1], "eta": v[2]} for k, v in schedules.items()},
    },
    results={"rows": rows, "references": references},
  )
  return 0


if __name__ == "__main__":
  sys.exit(main())
