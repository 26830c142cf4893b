"""RCFR with an MLP regressor: jaxcfr's ``rcfr`` next to OpenSpiel's JAX RCFR
(``open_spiel.python.jax.rcfr.RcfrSolver``, flax.nnx) in the same run, milliseconds per
iteration on Kuhn and Leduc as a ratio (goal >= 100x).

Comparable settings on both sides: the generic features (OpenSpiel's information-state
tensor plus a one-hot of the action; jaxcfr's ``features="generic"``, the infoset key's
one-hot plus a one-hot of the action), the same network (two hidden layers of ``--width``
units, one output: OpenSpiel's ``DeepRcfrModel(num_hidden_layers=1)``, jaxcfr's
``hidden=(width, width)``), the same training per player and iteration (``--steps``
full-batch Adam steps on the squared error at learning rate ``--learning-rate``, every
sequence of the player one row), float32. OpenSpiel's solver takes the training function
from its user; the one here is the fastest we could write for it: all the steps in one
jitted ``lax.fori_loop`` (its own test calls a jitted step per mini-batch from Python). What
remains on OpenSpiel's side is its design: the game tree walked in Python every iteration.
jaxcfr's iteration is one compiled step (exact regrets from the sequence-form tensors, the
fit, regret matching); a batch of runs (seeds) in one program is recorded as well.

OpenSpiel's JAX RCFR needs flax (and chex), a benchmark-only install that is not in the
project's extras: ``pip install flax chex`` next to the pinned jax (flax 0.12.8, chex
0.1.92 with jax 0.10.2 here); without them this benchmark stops with that message.

    python -m benchmarks rcfr_speed [--games kuhn_poker,leduc_poker] [--steps 100]
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jaxcfr  # noqa: E402
from jaxcfr import solvers  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

RESULTS = Path(__file__).resolve().parent / "results"


def _openspiel_trainer(steps: int, learning_rate: float):
  """OpenSpiel's ``train_fn(model, ((x, y), rng))``: ``steps`` full-batch Adam steps on the
  squared error, all in one jitted loop, the optimiser kept per model (warm-started, as
  jaxcfr's) so that the loop compiles once."""
  import flax.nnx as nn  # pylint: disable=import-outside-toplevel
  import optax  # pylint: disable=import-outside-toplevel

  @functools.partial(jax.jit, static_argnames=("graphdef",))
  def fit(graphdef, state, x, y):
    def one(_, state):
      model, optimizer = nn.merge(graphdef, state, copy=True)
      grads = nn.grad(lambda m: ((m(x) - y) ** 2).mean())(model)
      optimizer.update(model, grads)
      return nn.state((model, optimizer))

    return jax.lax.fori_loop(0, steps, one, state)

  optimizers = {}

  def train(model, data):
    (x, y), _ = data
    if id(model) not in optimizers:
      optimizers[id(model)] = nn.Optimizer(model, optax.adam(learning_rate), wrt=nn.Param)
    optimizer = optimizers[id(model)]
    graphdef, state = nn.split((model, optimizer))
    nn.update((model, optimizer), fit(graphdef, state, jnp.asarray(x), jnp.asarray(y)))

  return train


def openspiel_ms(game_name: str, width: int, steps: int, learning_rate: float, iterations: int) -> dict:
  try:
    import pyspiel  # pylint: disable=import-outside-toplevel
    from open_spiel.python.jax import rcfr as peer  # pylint: disable=import-outside-toplevel
  except ImportError as error:
    raise SystemExit(
      f"OpenSpiel's JAX RCFR does not import ({error}); install flax and chex in this environment (benchmark only)"
    ) from error
  game = pyspiel.load_game(game_name)
  models = [peer.DeepRcfrModel(game, num_hidden_units=width, num_hidden_layers=1, seed=p) for p in range(2)]
  solver = peer.RcfrSolver(game, models)
  train = _openspiel_trainer(steps, learning_rate)
  rng = jax.random.key(0)
  start = time.perf_counter()
  solver.evaluate_and_update_policy(train, rng)  # warm-up: compiles the training loop
  first = time.perf_counter() - start
  start = time.perf_counter()
  for _ in range(iterations):
    rng, sub = jax.random.split(rng)
    solver.evaluate_and_update_policy(train, sub)
  jax.block_until_ready(solver._cumulative_seq_probs)  # pylint: disable=protected-access
  ms = 1e3 * (time.perf_counter() - start) / iterations
  return {
    "ms_per_iteration": ms,
    "first_iteration_s": first,
    "features": peer.num_features(game),
    "iterations_timed": iterations,
  }


def ours_ms(game_name: str, width: int, steps: int, learning_rate: float, iterations: int, batch: int) -> dict:
  tensors = jaxcfr.load(game_name, dtype="float32").tensors
  solver = solvers.get("rcfr", regressor="mlp", features="generic", hidden=(width, width), steps=steps)
  out = {}
  for runs in (1, batch):
    seeds = 0 if runs == 1 else jnp.arange(runs)
    state = solver.init(tensors, seed=seeds, learning_rate=learning_rate)
    start = time.perf_counter()
    jax.block_until_ready(solver.run(tensors, state, iterations))  # compile
    first = time.perf_counter() - start
    start = time.perf_counter()
    state = jax.block_until_ready(solver.run(tensors, state, iterations))
    ms = 1e3 * (time.perf_counter() - start) / iterations
    key = "" if runs == 1 else f"batch{runs}_"
    out |= {f"{key}ms_per_iteration": ms, f"{key}compile_and_first_run_s": first}
    if runs > 1:
      out[f"{key}ms_per_run_iteration"] = ms / runs
  rows = solver.counters(solver.init(tensors))
  out |= {
    "iterations_timed": iterations,
    "regressor_size": int(rows["regressor_size"]),
    "relative_size": float(rows["relative_size"]),
  }
  return out


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--games", default="kuhn_poker,leduc_poker")
  parser.add_argument("--width", type=int, default=24)
  parser.add_argument("--steps", type=int, default=100)
  parser.add_argument("--learning-rate", type=float, default=0.01)
  parser.add_argument("--openspiel-iters", type=int, default=5)
  parser.add_argument("--ours-iters", type=int, default=200)
  parser.add_argument("--batch", type=int, default=16)
  parser.add_argument("--out", default=str(RESULTS / "rcfr_speed.json"))
  args = parser.parse_args(argv)
  settings = dict(width=args.width, steps=args.steps, learning_rate=args.learning_rate)
  rows = []
  for game in args.games.split(","):
    theirs = openspiel_ms(game, iterations=args.openspiel_iters, **settings)
    ours = ours_ms(game, iterations=args.ours_iters, batch=args.batch, **settings)
    ratio = theirs["ms_per_iteration"] / ours["ms_per_iteration"]
    rows.append(
      {
        "game": game,
        "openspiel": theirs,
        "jaxcfr": ours,
        "speedup": ratio,
        "speedup_per_run_in_batch": theirs["ms_per_iteration"] / ours[f"batch{args.batch}_ms_per_run_iteration"],
      }
    )
    print(
      f"{game:>12}: OpenSpiel {theirs['ms_per_iteration']:9.1f} ms/it, jaxcfr {ours['ms_per_iteration']:7.2f} "
      f"ms/it ({ratio:6.0f}x; in a batch of {args.batch}: {rows[-1]['speedup_per_run_in_batch']:6.0f}x per run)",
      flush=True,
    )
  path = write_record(
    args.out,
    benchmark="rcfr_speed",
    configuration={
      **settings,
      "hidden_layers": 2,
      "optimizer": "adam",
      "loss": "squared error",
      "dtype": "float32",
      "batch": args.batch,
      "games": args.games.split(","),
    },
    results={"rows": rows},
    description=(
      "Milliseconds per RCFR iteration (both players) with an MLP regressor, jaxcfr's rcfr against "
      "OpenSpiel's JAX RcfrSolver side by side, same network, steps, learning rate and full batch; "
      "OpenSpiel's training loop is one jitted fori_loop (its best case). Measured while the 2-core CPU "
      "was shared with other jobs: the ratio, taken in one run, is the figure to quote."
    ),
  )
  print(f"wrote {path}")


if __name__ == "__main__":
  main()
