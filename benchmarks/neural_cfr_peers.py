"""Deep CFR three ways with the same settings, in one run: OpenSpiel's JAX implementation
(``open_spiel.python.jax.deep_cfr``), OpenSpiel's PyTorch one (``open_spiel.python.pytorch.deep_cfr``)
and jaxcfr's ``deep-cfr``, on Kuhn and Leduc poker.

The settings are the JAX implementation's defaults (``neural_cfr.OPENSPIEL_DEFAULTS``: 20
external-sampling traversals per iteration, advantage networks (128, 128) re-initialised and
trained 750 full-buffer Adam steps at 1e-4 each iteration, a policy network (256, 256) trained
5,000 steps at the end, reservoirs of 10^6). The PyTorch implementation's own defaults train
one step of each network; it is given the same 750 and 5,000 here, so that the three do the
same work. Each OpenSpiel solver is scored with OpenSpiel's ``exploitability`` of its tabulated
policy, ours exactly on the sequence form (the same quantity: NashConv / 2, in mbb/g). Times
include the final policy fit; ours are after compiling (its first call compiles both programs).
The PyTorch solver needs ``torch``, a benchmark-only install (``pip install torch``); without
it, or without flax and chex for the JAX one, the file records why that part did not run.

The second part of each game's entry (``jaxcfr_own_defaults_to_openspiel_mbb``) is the time our
``deep-cfr`` with its own registered defaults (``solvers.get("deep-cfr")``, no options: 1,000
traversals, (64, 64) networks, 300 steps, 2,000 policy steps; seed 0, learning rate 1e-3)
needs to reach the exploitability E that OpenSpiel's JAX solver reached, beside that solver's
time T (``to_openspiel_mbb``). A curve first: compiled programs, exact evaluations every
``--every`` iterations, until E or ``--limit`` x T of solving time. Then the solve that reaches
E (the curve's iterations, one ``run`` and one average-strategy fit) is timed twice from a new
state: after ``jax.clear_caches()`` (tracing and compiling included: a first call) and again
compiled. The ratio T / time_to_E uses the first; OpenSpiel's T includes its own compiles.

With ``--persistent-cache`` (the default) the solve to E is timed a third way, as the command
line ``jaxcfr solve`` runs it: JAX's persistent compilation cache on (``jaxcfr.run.cli
.compilation_cache``) in a new folder, a first fresh process filling it, a second timed
(``seconds_with_persistent_cache``: tracing and lowering included, XLA's compile read back from
disk; ``persistent_cache``).

The reference is OpenSpiel after the iterations given, by default its full default run
(``DeepCFRSolver``'s ``num_iterations=100``, read in ``open_spiel/python/jax/deep_cfr.py``) on
both games. That run is long on one core: each iteration recompiles the advantage update for the
buffer's new size and trains 750 steps on the whole buffer, so Leduc's iterations take a few
seconds at first and grow with the buffer (15 iterations and the policy fit took 77 s on an idle
core, 5 s an iteration by the 15th), and the same settings in ours (``matched``) run as many
full-buffer steps. Earlier records used 10 Kuhn and 4 Leduc iterations
(``--iterations kuhn_poker=10,leduc_poker=4``). OpenSpiel's seed is 0 (its default is 42) in
every part; its traversals sample from numpy's global generator, which it does not seed, so its
exploitability, the target, varies between runs.

    taskset -c 1 python -m benchmarks neural_cfr_peers [--iterations kuhn_poker=100,leduc_poker=100] \
      [--pytorch-timeout 180] [--every 1] [--limit 4] [--no-persistent-cache]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import jax  # noqa: E402
import jaxcfr  # noqa: E402
from jaxcfr import solvers  # noqa: E402
from neural_cfr import LOAD, OPENSPIEL_DEFAULTS, matched  # noqa: E402  pylint: disable=wrong-import-position
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

SEED = 0


def openspiel(game: str, iterations: int) -> dict:
  """OpenSpiel's JAX Deep CFR with its defaults for ``iterations`` iterations, or why not."""
  try:
    import pyspiel  # pylint: disable=import-outside-toplevel
    from open_spiel.python.jax import deep_cfr as peer  # pylint: disable=import-outside-toplevel
  except ImportError as error:
    return {"game": game, "ran": False, "why": f"open_spiel.python.jax.deep_cfr does not import: {error}"}
  spiel_game = pyspiel.load_game(game)
  seconds, mbb = solve_and_score(spiel_game, peer.DeepCFRSolver(spiel_game, num_iterations=iterations, seed=0))
  print(f"  OpenSpiel {game}: {iterations} iterations {seconds:.1f} s {mbb:.1f} mbb/g", flush=True)
  return {"game": game, "ran": True, "iterations": iterations, "seconds_with_policy_fit": seconds, "mbb": mbb}


def solve_and_score(spiel_game, solver) -> tuple[float, float]:
  """(seconds, mbb/g): an OpenSpiel Deep CFR solver's ``solve`` (the iterations and the final
  policy fit) timed, and OpenSpiel's exploitability of its tabulated policy."""
  from open_spiel.python import policy  # pylint: disable=import-outside-toplevel
  from open_spiel.python.algorithms import exploitability  # pylint: disable=import-outside-toplevel

  start = time.perf_counter()
  solver.solve()
  seconds = time.perf_counter() - start
  tabular = policy.tabular_policy_from_callable(spiel_game, solver.action_probabilities)
  return seconds, 1e3 * float(exploitability.exploitability(spiel_game, tabular))


def openspiel_pytorch(game: str, iterations: int, timeout: float) -> dict:
  """``pytorch_deep_cfr`` in a child process, stopped after ``timeout`` seconds (then the row
  says so): with full-buffer steps, this implementation trains each step on its whole
  preallocated reservoir (10^6 rows of np.empty, the unfilled ones included), far slower on one core."""
  context = multiprocessing.get_context("spawn")
  queue = context.Queue()
  child = context.Process(target=_put, args=(queue, game, iterations))
  child.start()
  child.join(timeout)
  if child.is_alive():
    child.terminate()
    child.join()
    return {
      "game": game,
      "ran": False,
      "why": f"did not finish {iterations} iterations in {timeout:.0f} s: each of its 750 advantage steps "
      "(no batch size: the whole buffer) trains on the reservoir's 10^6 preallocated rows, the unfilled (uninitialised) ones included",
    }
  return queue.get()


def _put(queue, game: str, iterations: int) -> None:
  queue.put(pytorch_deep_cfr(game, iterations))


def pytorch_deep_cfr(game: str, iterations: int) -> dict:
  """OpenSpiel's PyTorch Deep CFR with ``OPENSPIEL_DEFAULTS`` for ``iterations`` iterations, or
  why not."""
  try:
    import pyspiel  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel
    from open_spiel.python.pytorch import deep_cfr as peer  # pylint: disable=import-outside-toplevel
  except ImportError as error:
    return {"game": game, "ran": False, "why": f"open_spiel.python.pytorch.deep_cfr does not import: {error}"}
  torch.set_num_threads(1)  # one core, as the other two
  d = OPENSPIEL_DEFAULTS
  spiel_game = pyspiel.load_game(game)
  solver = peer.DeepCFRSolver(
    spiel_game,
    policy_network_layers=d["policy_layers"],
    advantage_network_layers=d["advantage_layers"],
    num_iterations=iterations,
    num_traversals=d["traversals"],
    learning_rate=d["learning_rate"],
    memory_capacity=int(1e6),
    policy_network_train_steps=d["policy_steps"],
    advantage_network_train_steps=d["steps"],
    reinitialize_advantage_networks=True,
    seed=SEED,
  )
  seconds, mbb = solve_and_score(spiel_game, solver)
  print(f"  OpenSpiel PyTorch {game}: {iterations} iterations {seconds:.1f} s {mbb:.1f} mbb/g", flush=True)
  return {
    "game": game,
    "ran": True,
    "iterations": iterations,
    "seconds_with_policy_fit": seconds,
    "mbb": mbb,
    "torch": torch.__version__,
  }


def to_target(
  game: str, target: float, limit: float, every: int = 1, options: dict | None = None, persistent: bool = False
) -> dict:
  """Our ``deep-cfr`` with its registered defaults (``options`` overrides some, for tests) from
  seed 0 until the exact exploitability of its average strategy is at most ``target`` mbb/g, or
  ``limit`` seconds of solving.

  The curve: after compiling (one iteration and one fit on a scratch state), ``every``
  iterations per ``run``, then the average strategy fitted and scored exactly
  (``jaxcfr.exploitability``, mbb/g, not timed). A point's ``seconds`` is a solve's time to
  there: the runs so far and that one fit (a solve stopping there fits once; the earlier
  evaluations' fits are measurement). Then the solve to the first point at or below
  ``target`` (init, one ``run`` of its iterations, one fit) is timed from a new state twice:
  after ``jax.clear_caches()`` (``seconds_with_compile``: its first calls trace and compile)
  and again (``seconds_without_compile``), each with its exploitability (the curve's there:
  one seed, the same programs). ``persistent``: the same solve with JAX's persistent
  compilation cache too (``persistent_cache``: fresh processes, the second reading a cache the
  first filled).
  """
  tensors = jaxcfr.load(game, dtype="float32").tensors
  solver = solvers.get("deep-cfr", **(options or {}))

  def fit(state) -> tuple[float, float]:
    """(seconds of the average-strategy fit, its exploitability in mbb/g)."""
    start = time.perf_counter()
    profile = jax.block_until_ready(solver.average_strategy(tensors, state))
    return time.perf_counter() - start, 1e3 * float(jaxcfr.exploitability(tensors, profile))

  fit(solver.run(tensors, solver.init(tensors, seed=SEED), 1))  # compiles both programs
  state, ran, points = solver.init(tensors, seed=SEED), 0.0, []
  while not points or (points[-1]["mbb"] > target and points[-1]["seconds"] < limit):
    start = time.perf_counter()
    state = jax.block_until_ready(solver.run(tensors, state, every))
    ran += time.perf_counter() - start
    fitted, mbb = fit(state)
    points.append(dict(iteration=int(state.iteration), seconds=ran + fitted, fit_seconds=fitted, mbb=mbb))
    print(
      f"  jaxcfr deep-cfr {game} defaults: it {points[-1]['iteration']} {ran + fitted:.1f} s {mbb:.1f} mbb/g",
      flush=True,
    )
  out = {
    "game": game,
    "options": {k: list(v) if isinstance(v, tuple) else v for k, v in solver.options.items()},
    "hyperparameters": dict(solver.hyperparameters, seed=SEED),
    "target_mbb": target,
    "limit_s": limit,
    "every": every,
    "reached": points[-1]["mbb"] <= target,
    "curve": points,
  }
  if out["reached"]:
    jax.clear_caches()
    cold = timed_solve(tensors, solver, points[-1]["iteration"])
    warm = timed_solve(tensors, solver, points[-1]["iteration"])
    out |= {"iterations": points[-1]["iteration"], "seconds_with_compile": cold[0], "mbb_with_compile": cold[1]}
    out |= {"seconds_without_compile": warm[0], "mbb_without_compile": warm[1], "compile_s": cold[0] - warm[0]}
    if persistent:
      out |= persistent_cache(game, points[-1]["iteration"], options)
    print(
      f"  jaxcfr deep-cfr {game} defaults: to {target:.1f} mbb/g in {cold[0]:.1f} s ({warm[0]:.2f} s compiled"
      + (f", {out['seconds_with_persistent_cache']:.2f} s from the persistent cache)" if persistent else ")"),
      flush=True,
    )
  return out


def timed_solve(tensors, solver, iterations: int) -> tuple[float, float]:
  """(seconds of init, ``iterations`` in one ``run`` and the average-strategy fit; its exact
  exploitability in mbb/g, not timed)."""
  start = time.perf_counter()
  state = jax.block_until_ready(solver.run(tensors, solver.init(tensors, seed=SEED), iterations))
  profile = jax.block_until_ready(solver.average_strategy(tensors, state))
  seconds = time.perf_counter() - start
  return seconds, 1e3 * float(jaxcfr.exploitability(tensors, profile))


def persistent_cache(game: str, iterations: int, options: dict | None = None) -> dict:
  """The solve to E (``iterations`` of our defaults, one fit) in two fresh processes sharing
  JAX's persistent compilation cache in a new folder, turned on as ``jaxcfr solve`` does
  (``jaxcfr.run.cli.compilation_cache``: every program written, the small ones too): the first
  fills the cache (``seconds_filling``), the second reads its programs back from disk
  (``seconds_with_persistent_cache``: tracing and lowering included, XLA's compile not). Each
  time is from the process's first call, after its imports and loading the game."""
  context = multiprocessing.get_context("spawn")
  with tempfile.TemporaryDirectory(prefix="jax-cache-") as folder:
    runs = []
    for _ in range(2):
      with context.Pool(1) as pool:
        runs.append(pool.apply(_cached_solve, (game, iterations, folder, options)))
    files = sum(1 for path in Path(folder).rglob("*") if path.is_file())
  return {
    "seconds_filling": runs[0][0],
    "seconds_with_persistent_cache": runs[1][0],
    "mbb_with_persistent_cache": runs[1][1],
    "cache_files": files,
  }


def _cached_solve(game: str, iterations: int, folder: str, options: dict | None) -> tuple[float, float]:
  from jaxcfr.run import cli  # pylint: disable=import-outside-toplevel

  cli.compilation_cache(True, environ={"JAX_COMPILATION_CACHE_DIR": folder})
  tensors = jaxcfr.load(game, dtype="float32").tensors
  return timed_solve(tensors, solvers.get("deep-cfr", **(options or {})), iterations)


def speedup(theirs: dict, ours: dict, goal: float = 20.0) -> dict:
  """OpenSpiel's time T to its exploitability E over ours to E (``to_target``), with our compile
  and without (and with the persistent compilation cache where ``ours`` has it); ``goal_met``:
  T / ours with compile >= ``goal`` (None where ours did not reach E)."""
  out = {"openspiel_mbb": theirs["mbb"], "openspiel_seconds": theirs["seconds_with_policy_fit"], "goal": goal}
  if not ours["reached"]:
    return out | {"with_compile": None, "without_compile": None, "goal_met": False}
  kinds = [k for k in ("with_compile", "without_compile", "with_persistent_cache") if f"seconds_{k}" in ours]
  ratio = {k: theirs["seconds_with_policy_fit"] / ours[f"seconds_{k}"] for k in kinds}
  return out | ratio | {"goal_met": ratio["with_compile"] >= goal}


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--iterations", default="kuhn_poker=100,leduc_poker=100", help="GAME=N,...: iterations per game")
  parser.add_argument("--pytorch-timeout", type=float, default=180.0, help="seconds the PyTorch solver gets per game")
  parser.add_argument("--every", type=int, default=1, help="our own defaults' run: iterations per evaluation")
  parser.add_argument("--limit", type=float, default=4.0, help="... its solving time at most, in OpenSpiel's times")
  parser.add_argument(
    "--persistent-cache",
    action=argparse.BooleanOptionalAction,
    default=True,
    help="also time the solve to E in a fresh process with JAX's persistent compilation cache filled",
  )
  parser.add_argument("--out", default=str(HERE / "results" / "neural_cfr_peers.json"))
  args = parser.parse_args(argv)
  iterations = {game: int(n) for game, n in (item.split("=") for item in args.iterations.split(","))}
  rows = []
  for game, n in iterations.items():
    load = os.getloadavg()[0]
    row = {
      "openspiel_jax": openspiel(game, n),
      "openspiel_pytorch": openspiel_pytorch(game, n, args.pytorch_timeout),
      "jaxcfr": matched(game, n),
    }
    ours = row["jaxcfr"]["seconds_with_policy_fit"]
    row["wall_time_over_jaxcfr"] = {
      peer: row[peer]["seconds_with_policy_fit"] / ours
      for peer in ("openspiel_jax", "openspiel_pytorch")
      if row[peer]["ran"]
    }
    theirs = row["openspiel_jax"]
    if theirs["ran"]:
      limit = args.limit * theirs["seconds_with_policy_fit"]
      row["jaxcfr_own_defaults_to_openspiel_mbb"] = to_target(
        game, theirs["mbb"], limit, args.every, persistent=args.persistent_cache
      )
      row["to_openspiel_mbb"] = speedup(theirs, row["jaxcfr_own_defaults_to_openspiel_mbb"])
    row["load_average_1_min"] = {"start": load, "end": os.getloadavg()[0]}  # the 2-core machine's, other jobs too
    rows.append(row)
  path = write_record(
    args.out,
    benchmark="neural_cfr_peers",
    configuration={
      "command": "python -m benchmarks neural_cfr_peers " + " ".join(argv if argv is not None else sys.argv[1:]),
      "iterations": iterations,
      "pytorch_timeout_s": args.pytorch_timeout,
      "own_defaults": {
        "every": args.every,
        "limit_over_openspiel_seconds": args.limit,
        "persistent_cache": args.persistent_cache,
      },
      "seed": SEED,
      "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in OPENSPIEL_DEFAULTS.items()}
      | {"memory_capacity": int(1e6), "reinitialize_advantage_networks": True},
      "dtype": "float32",
    },
    results={"games": rows},
    description=(
      "Deep CFR with the same settings (OpenSpiel's JAX defaults) in OpenSpiel's JAX and PyTorch implementations "
      "and in jaxcfr, one run, one seed each, on one core: wall time with the final policy fit (ours after "
      "compiling) and the exploitability reached (mbb/g). Then our deep-cfr with its own defaults until it reaches "
      "the exploitability E OpenSpiel's JAX solver reached (exact evaluations every few iterations, at most a "
      "multiple of OpenSpiel's time): the solve to E timed with our compile (after clearing JAX's caches) and "
      "without, and with JAX's persistent compilation cache filled by an earlier process (as `jaxcfr solve` "
      "runs), and OpenSpiel's time over each. OpenSpiel's reference is its run of the iterations given "
      "(configuration.iterations; DeepCFRSolver's default num_iterations is 100): each of its iterations recompiles "
      "its update for the buffer's size and trains 750 full-buffer steps, so its Leduc iterations grow with the buffer."
      + LOAD
    ),
  )
  print(f"wrote {path}")


if __name__ == "__main__":
  main()
