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

    taskset -c 1 python -m benchmarks neural_cfr_peers [--iterations kuhn_poker=10,leduc_poker=4] [--pytorch-timeout 180]
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from neural_cfr import OPENSPIEL_DEFAULTS, matched  # noqa: E402  pylint: disable=wrong-import-position
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


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--iterations", default="kuhn_poker=10,leduc_poker=4", help="GAME=N,...: iterations per game")
  parser.add_argument("--pytorch-timeout", type=float, default=180.0, help="seconds the PyTorch solver gets per game")
  parser.add_argument("--out", default=str(HERE / "results" / "neural_cfr_peers.json"))
  args = parser.parse_args(argv)
  iterations = {game: int(n) for game, n in (item.split("=") for item in args.iterations.split(","))}
  rows = []
  for game, n in iterations.items():
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
    rows.append(row)
  path = write_record(
    args.out,
    benchmark="neural_cfr_peers",
    configuration={
      "command": "python -m benchmarks neural_cfr_peers " + " ".join(argv if argv is not None else sys.argv[1:]),
      "iterations": iterations,
      "pytorch_timeout_s": args.pytorch_timeout,
      "seed": SEED,
      "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in OPENSPIEL_DEFAULTS.items()}
      | {"memory_capacity": int(1e6), "reinitialize_advantage_networks": True},
      "dtype": "float32",
    },
    results={"games": rows},
    description=(
      "Deep CFR with the same settings (OpenSpiel's JAX defaults) in OpenSpiel's JAX and PyTorch implementations "
      "and in jaxcfr, one run, one seed each, on one core: wall time with the final policy fit (ours after "
      "compiling) and the exploitability reached (mbb/g)."
    ),
  )
  print(f"wrote {path}")


if __name__ == "__main__":
  main()
