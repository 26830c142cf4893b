"""Per-iteration timings of peer CFR+ solvers, for jaxcfr's speed benchmarks.

Three peers are timed on OpenSpiel games (``kuhn_poker``, ``leduc_poker``,
``liars_dice``, ``goofspiel(num_cards=5,imp_info=True)``, or any game string
``pyspiel.load_game`` accepts):

``openspiel_cpp``
    ``pyspiel.CFRPlusSolver`` (OpenSpiel's C++ CFR+: regret matching+,
    alternating updates, linear averaging).  One iteration is one
    ``evaluate_and_update_policy()`` call.  Single-threaded.

``openspiel_jax``
    ``open_spiel.python.jax.cfr.jax_cfr.JaxCFR`` configured as CFR+
    (``regret_matching_plus=True, alternating_updates=True,
    linear_averaging=True``, which are also its defaults).  One iteration is
    one ``step()`` (two jitted calls, one per player).  Its set-up walks the
    whole game tree in Python, which dominates on large games (on a 2-core
    AMD EPYC: about 80 s for ``liars_dice`` and 15 minutes and 6 GB of memory
    for ``goofspiel(num_cards=5,imp_info=True)``) and is reported separately
    as ``setup_s``; compilation happens in the warm-up and is reported as
    ``warmup_s``.  It computes in JAX's default float dtype (float32 unless
    the caller enabled ``jax_enable_x64``).  XLA's CPU backend may use every
    core.

``liteefg``
    LiteEFG's ``LiteEFG.baselines.CFRplus`` computation graph on
    ``LiteEFG.OpenSpielEnv`` with full-tree (``"Enumerate"``) traversal.  One
    iteration is ``graph.update_graph(env)`` (player 1 then player 2) plus
    ``env.update_strategy(...)`` (the average-strategy bookkeeping that its
    own training loop performs every iteration); the average is read back as
    ``"linear-avg-iterate"``.  LiteEFG uses one native thread unless
    ``threads`` is given (``LiteEFG.set_threads`` is process-wide).  Its
    OpenSpiel loader converts the game into a text file cached under
    ``~/game_instances/``; both writing it (first use) and loading it count
    in ``setup_s`` (goofspiel: about 2 minutes to write, 1 to load).

Simultaneous-move games are converted with ``pyspiel.convert_to_turn_based``
for all three peers: the C++ solver rejects simultaneous games ("CFR requires
sequential games"), JaxCFR walks ``legal_actions()`` of the current player
only, and LiteEFG performs the same conversion internally.

Installing LiteEFG
    PyPI has only an sdist (``liteefg-1.0.0.tar.gz``), compiled with pybind11
    (vendored in the sdist) and CMake/Ninja, which pip fetches as build
    dependencies; a C++17 compiler is needed.  LiteEFG 1.0.0 declares
    ``jax<0.8`` and ``flax<0.11`` for its optional deep-RL subpackage, so a
    plain ``pip install liteefg`` downgrades jax (0.10.2 -> 0.7.2 here).
    The tabular solvers used here need only ``pandas`` and ``open_spiel``, so
    install it as::

        pip install --no-deps liteefg==1.0.0
        pip install pandas

    (``pip check`` then reports the unmet ``jax<0.8``/``flax`` pins; they are
    not used by this module.)  Compiling took about 95 s on a 2-core machine
    with g++ 12; pip's wheel cache makes later installs fast.  When LiteEFG
    cannot be imported the peer is reported as unavailable rather than
    failing.

Timing method
    Build the solver (``setup_s``), run ``warmup_iterations`` iterations
    (``warmup_s``; includes JIT compilation), then time iterations in chunks
    with ``time.perf_counter``, blocking on JAX results at the end of each
    chunk, until at least ``iterations`` iterations *and* ``min_time_s``
    seconds have been timed, or ``max_time_s`` has passed.  The headline
    ``ms_per_iteration`` is total timed seconds / iterations timed.  On a
    shared virtual machine, repeated runs can differ by tens of percent;
    compare peers from the same run, or repeat runs.

Correctness check
    ``check_peer`` runs a few iterations (default 10 on ``kuhn_poker``) and
    reports the exploitability of the peer's average policy with
    ``pyspiel.exploitability``, so a fast but wrong peer shows up.

Command line::

    python benchmarks/peers.py --game leduc_poker --iters 50

runs each peer in its own subprocess (``--in-process`` to disable), with a
per-peer time limit (``--timeout``), and prints ms/iteration and the
exploitability check side by side.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any
from collections.abc import Callable

from jaxcfr.run.hardware import hardware, package_version

PEERS = ("openspiel_cpp", "openspiel_jax", "liteefg")
"""Peer names accepted by :func:`time_peer` and :func:`check_peer`."""

GAMES = (
  "kuhn_poker",
  "leduc_poker",
  "liars_dice",
  "goofspiel(num_cards=5,imp_info=True)",
)
"""The benchmark's game strings (any ``pyspiel.load_game`` string works)."""


class PeerUnavailable(RuntimeError):
  """A peer cannot be run here (not installed, or it rejects the game)."""


# --------------------------------------------------------------------------
# Games


def load_sequential_game(game_string: str):
  """Load an OpenSpiel game, converting simultaneous-move games to turn-based.

  Returns:
    ``(game, converted)`` where ``converted`` says whether
    ``pyspiel.convert_to_turn_based`` was applied.

  Raises:
    ValueError: if the game is neither sequential nor simultaneous.
  """
  import pyspiel

  game = pyspiel.load_game(game_string)
  dynamics = game.get_type().dynamics
  if dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL:
    return game, False
  if dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
    return pyspiel.convert_to_turn_based(game), True
  raise ValueError(f"{game_string!r}: unsupported dynamics {dynamics}")


# --------------------------------------------------------------------------
# Peer adapters: each builds a solver for one game and exposes step(),
# block() (wait for asynchronous work), average_policy() (a pyspiel policy)
# and notes (what exactly is being run).


class _OpenSpielCpp:
  """pyspiel.CFRPlusSolver."""

  def __init__(self, game, **options):
    import pyspiel

    if options:
      raise TypeError(f"openspiel_cpp takes no options, got {sorted(options)}")
    self._solver = pyspiel.CFRPlusSolver(game)
    self.notes = [
      "pyspiel.CFRPlusSolver (C++): regret matching+, alternating updates, linear averaging; single-threaded; float64",
      "iteration = one evaluate_and_update_policy() call",
    ]

  def step(self):
    self._solver.evaluate_and_update_policy()

  def block(self):
    pass

  def average_policy(self):
    return self._solver.average_policy()


class _OpenSpielJax:
  """open_spiel.python.jax.cfr.jax_cfr.JaxCFR, configured as CFR+."""

  def __init__(self, game, **options):
    import jax
    from open_spiel.python.jax.cfr.jax_cfr import JaxCFR

    if options:
      raise TypeError(f"openspiel_jax takes no options, got {sorted(options)}")
    self._jax = jax
    self._solver = JaxCFR(
      game,
      regret_matching_plus=True,
      alternating_updates=True,
      linear_averaging=True,
    )
    dtype = self._solver.regrets[0].dtype
    self.notes = [
      "open_spiel.python.jax.cfr.jax_cfr.JaxCFR(regret_matching_plus=True, "
      "alternating_updates=True, linear_averaging=True), i.e. CFR+",
      f"iteration = one step() (one jitted call per player); dtype {dtype}; backend {jax.default_backend()}",
      "setup_s is JaxCFR's Python tree walk; warmup_s includes compilation",
    ]

  def step(self):
    self._solver.step()

  def block(self):
    self._jax.block_until_ready((self._solver.regrets, self._solver.averages))

  def average_policy(self):
    from open_spiel.python import policy as policy_lib

    return policy_lib.python_policy_to_pyspiel_policy(self._solver.average_policy())


def liteefg_status() -> tuple[bool, str]:
  """Whether LiteEFG can be imported here, and its version or the reason not."""
  try:
    import LiteEFG  # noqa: F401
  except Exception as error:  # ImportError, or a broken native extension.
    return False, (
      f"LiteEFG cannot be imported ({type(error).__name__}: {error}); install "
      "with `pip install --no-deps liteefg==1.0.0 && pip install pandas`"
    )
  return True, package_version("liteefg") or "unknown version"


class _LiteEFG:
  """LiteEFG's CFRplus baseline graph on its OpenSpiel environment."""

  def __init__(self, game, threads: int | None = None, **options):
    if options:
      raise TypeError(f"liteefg takes only `threads`, got {sorted(options)}")
    ok, reason = liteefg_status()
    if not ok:
      raise PeerUnavailable(reason)
    import LiteEFG as leg
    from LiteEFG.baselines import CFRplus

    if threads is not None:
      leg.set_threads(int(threads))
    # The graph constructor and the loader print banners; keep them off
    # the benchmark's output.
    with contextlib.redirect_stdout(io.StringIO()):
      self._graph = CFRplus.graph()
      self._env = leg.OpenSpielEnv(game, traverse_type="Enumerate")
      self._env.set_graph(self._graph)
    self._strategy = self._graph.current_strategy()
    self.notes = [
      "LiteEFG.baselines.CFRplus on LiteEFG.OpenSpielEnv "
      "(traverse_type='Enumerate'): regret matching+, alternating updates; "
      "average read as 'linear-avg-iterate'; float64",
      "iteration = graph.update_graph(env) + env.update_strategy(strategy)",
      f"LiteEFG {package_version('liteefg')}, native threads = {leg.get_threads()}",
      "game converted to a text file cached in ~/game_instances/ (counted in setup_s when first written)",
    ]

  def step(self):
    self._graph.update_graph(self._env)
    self._env.update_strategy(self._strategy)

  def block(self):
    pass

  def average_policy(self):
    from open_spiel.python import policy as policy_lib

    tabular, _ = self._env.get_strategy(self._strategy, "linear-avg-iterate")
    return policy_lib.python_policy_to_pyspiel_policy(tabular)


_ADAPTERS: dict[str, Callable[..., Any]] = {
  "openspiel_cpp": _OpenSpielCpp,
  "openspiel_jax": _OpenSpielJax,
  "liteefg": _LiteEFG,
}


def _build(peer: str, game, options: dict):
  if peer not in _ADAPTERS:
    raise ValueError(f"unknown peer {peer!r}; choose from {PEERS}")
  return _ADAPTERS[peer](game, **options)


# --------------------------------------------------------------------------
# Timing and checking


def time_peer(
  peer: str,
  game_string: str,
  iterations: int,
  *,
  warmup_iterations: int = 2,
  min_time_s: float = 1.0,
  max_time_s: float = 60.0,
  chunk_target_s: float = 0.1,
  **options,
) -> dict:
  """Time one peer's CFR+ iterations on one game.

  Args:
    peer: one of :data:`PEERS`.
    game_string: an OpenSpiel game string; simultaneous games are converted
      to turn-based.
    iterations: minimum number of timed iterations.
    warmup_iterations: untimed iterations run first (JIT compilation,
      caches, allocation).
    min_time_s: keep timing until at least this many seconds are measured.
    max_time_s: stop timing once this many seconds are measured, even if
      fewer than ``iterations`` iterations were timed (said in ``notes``).
    chunk_target_s: iterations are timed in chunks of about this duration;
      JAX work is waited for at the end of each chunk.
    **options: peer options (``threads`` for ``liteefg``).

  Returns:
    dict with ``peer``, ``game``, ``ms_per_iteration`` (total timed time /
    iterations timed), ``iterations`` (timed), ``timed_s``,
    ``ms_per_iteration_chunk_median`` and ``_min`` (per-chunk spread),
    ``setup_s``, ``warmup_s``, ``warmup_iterations``, ``converted_to_turn_based``
    and ``notes`` (list of strings).

  Raises:
    PeerUnavailable: the peer cannot run here.
    ValueError: bad arguments or unknown peer.
  """
  if iterations < 1:
    raise ValueError("iterations must be >= 1")
  if warmup_iterations < 0:
    raise ValueError("warmup_iterations must be >= 0")
  game, converted = load_sequential_game(game_string)

  start = time.perf_counter()
  solver = _build(peer, game, options)
  setup_s = time.perf_counter() - start

  start = time.perf_counter()
  for _ in range(warmup_iterations):
    solver.step()
  solver.block()
  warmup_s = time.perf_counter() - start

  chunks: list[tuple[int, float]] = []
  done, timed_s, chunk = 0, 0.0, 1
  while True:
    start = time.perf_counter()
    for _ in range(chunk):
      solver.step()
    solver.block()
    elapsed = time.perf_counter() - start
    chunks.append((chunk, elapsed))
    done += chunk
    timed_s += elapsed
    if (done >= iterations and timed_s >= min_time_s) or timed_s >= max_time_s:
      break
    per_iteration = timed_s / done
    chunk = max(1, int(chunk_target_s / per_iteration)) if per_iteration > 0 else 2 * chunk

  notes = list(solver.notes)
  if converted:
    notes.append("simultaneous game converted with pyspiel.convert_to_turn_based")
  if done < iterations:
    notes.append(f"stopped at max_time_s={max_time_s}: timed {done} of the {iterations} iterations asked for")
  per_chunk_ms = [1e3 * seconds / count for count, seconds in chunks]
  return {
    "peer": peer,
    "game": game_string,
    "ms_per_iteration": 1e3 * timed_s / done,
    "iterations": done,
    "timed_s": timed_s,
    "ms_per_iteration_chunk_median": statistics.median(per_chunk_ms),
    "ms_per_iteration_chunk_min": min(per_chunk_ms),
    "chunks": len(chunks),
    "setup_s": setup_s,
    "warmup_s": warmup_s,
    "warmup_iterations": warmup_iterations,
    "converted_to_turn_based": converted,
    "notes": notes,
  }


def check_peer(peer: str, game_string: str = "kuhn_poker", iterations: int = 10, **options) -> dict:
  """Exploitability of a peer's average policy after a few iterations.

  Uses ``pyspiel.exploitability`` (mean best-response gain over players,
  i.e. NashConv / 2 for two players) on the same, possibly turn-based, game
  the peer solved.  All peers run CFR+, so values should be close but need
  not be identical: the averaging schemes differ in detail (for example
  LiteEFG averages the strategy after each update, and JaxCFR uses float32).

  Returns:
    dict with ``peer``, ``game``, ``iterations``, ``exploitability`` and
    ``notes``.
  """
  import pyspiel

  if iterations < 1:
    raise ValueError("iterations must be >= 1")
  game, converted = load_sequential_game(game_string)
  solver = _build(peer, game, options)
  for _ in range(iterations):
    solver.step()
  solver.block()
  value = float(pyspiel.exploitability(game, solver.average_policy()))
  notes = ["pyspiel.exploitability of the average policy"]
  if converted:
    notes.append("on the turn-based conversion")
  return {
    "peer": peer,
    "game": game_string,
    "iterations": iterations,
    "exploitability": value,
    "notes": notes,
  }


def time_openspiel_cpp_cfr_plus(game_string: str, iterations: int, **kwargs) -> dict:
  """:func:`time_peer` for ``pyspiel.CFRPlusSolver``."""
  return time_peer("openspiel_cpp", game_string, iterations, **kwargs)


def time_openspiel_jax_cfr(game_string: str, iterations: int, **kwargs) -> dict:
  """:func:`time_peer` for OpenSpiel's JaxCFR configured as CFR+."""
  return time_peer("openspiel_jax", game_string, iterations, **kwargs)


def time_liteefg_cfr_plus(game_string: str, iterations: int, **kwargs) -> dict:
  """:func:`time_peer` for LiteEFG's CFR+ (``threads=`` sets native threads)."""
  return time_peer("liteefg", game_string, iterations, **kwargs)


def run_peer_isolated(
  peer: str,
  game_string: str,
  iterations: int,
  *,
  timeout_s: float = 1800.0,
  check_game: str | None = "kuhn_poker",
  check_iterations: int = 10,
  **kwargs,
) -> dict:
  """Run :func:`time_peer` (and :func:`check_peer`) in a fresh Python process.

  Isolation keeps peers from sharing thread pools, memory or JAX state, and
  lets a peer whose set-up is too slow be cut off.  Keyword arguments are
  those of :func:`time_peer` (``warmup_iterations``, ``min_time_s``,
  ``max_time_s``, ``threads``).

  Returns:
    ``{"timing": dict | None, "check": dict | None, "error": str | None}``.
  """
  command = [
    sys.executable,
    os.path.abspath(__file__),
    "--single",
    peer,
    "--game",
    game_string,
    "--iters",
    str(iterations),
    "--options",
    json.dumps(kwargs),
  ]
  if check_game is not None:
    command += ["--check-game", check_game, "--check-iters", str(check_iterations)]
  else:
    command += ["--no-check"]
  try:
    completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
  except subprocess.TimeoutExpired:
    return {"timing": None, "check": None, "error": f"timed out after {timeout_s:.0f} s (set-up included)"}
  lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
  if not lines:
    tail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
    return {"timing": None, "check": None, "error": f"exit code {completed.returncode}: " + " | ".join(tail)}
  return json.loads(lines[-1])


def _run_single(peer, game_string, iterations, check_game, check_iterations, kwargs):
  """Body of ``--single``: one peer's timing and check, as a dict."""
  options = {k: kwargs[k] for k in ("threads",) if k in kwargs}
  result: dict[str, Any] = {"timing": None, "check": None, "error": None}
  try:
    result["timing"] = time_peer(peer, game_string, iterations, **kwargs)
    if check_game is not None:
      result["check"] = check_peer(peer, check_game, check_iterations, **options)
  except PeerUnavailable as error:
    result["error"] = f"unavailable: {error}"
  return result


# --------------------------------------------------------------------------
# Hardware


def _format_row(peer: str, result: dict) -> str:
  if result.get("error"):
    return f"  {peer:14s} {result['error']}"
  timing, check = result["timing"], result["check"]
  text = (
    f"  {peer:14s} {timing['ms_per_iteration']:11.3f} ms/iter  "
    f"({timing['iterations']} iters in {timing['timed_s']:.2f} s; "
    f"chunk median {timing['ms_per_iteration_chunk_median']:.3f}; "
    f"setup {timing['setup_s']:.2f} s, warm-up {timing['warmup_s']:.2f} s)"
  )
  if check is not None:
    text += (
      f"\n  {'':14s} check: exploitability {check['exploitability']:.6g} "
      f"after {check['iterations']} iters on {check['game']}"
    )
  return text


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--game", default="leduc_poker", help="OpenSpiel game string")
  parser.add_argument("--iters", type=int, default=50, help="minimum timed iterations per peer")
  parser.add_argument("--peers", default=",".join(PEERS), help=f"comma-separated subset of {','.join(PEERS)}")
  parser.add_argument("--warmup", type=int, default=2, help="warm-up iterations")
  parser.add_argument("--min-time", type=float, default=1.0, help="minimum seconds of timing per peer")
  parser.add_argument("--max-time", type=float, default=60.0, help="maximum seconds of timing per peer")
  parser.add_argument(
    "--liteefg-threads", type=int, default=None, help="LiteEFG native threads (default: LiteEFG's, 1)"
  )
  parser.add_argument("--check-game", default="kuhn_poker")
  parser.add_argument("--check-iters", type=int, default=10)
  parser.add_argument("--no-check", action="store_true", help="skip the exploitability check")
  parser.add_argument(
    "--timeout", type=float, default=1800.0, help="per-peer subprocess limit in seconds, set-up included"
  )
  parser.add_argument("--in-process", action="store_true", help="run peers in this process (no isolation, no timeout)")
  parser.add_argument("--json", action="store_true", help="print one JSON object")
  parser.add_argument("--out", help="also write the results as a benchmark record (JSON) to this path")
  parser.add_argument("--single", choices=PEERS, help=argparse.SUPPRESS)
  parser.add_argument("--options", default="{}", help=argparse.SUPPRESS)
  args = parser.parse_args(argv)
  check_game = None if args.no_check else args.check_game

  if args.single:
    kwargs = json.loads(args.options)
    try:
      result = _run_single(args.single, args.game, args.iters, check_game, args.check_iters, kwargs)
    except Exception as error:  # Reported to the parent, which carries on.
      message = " ".join(str(error).split())
      if len(message) > 300:
        message = message[:300] + "..."
      print(json.dumps({"timing": None, "check": None, "error": f"{type(error).__name__}: {message}"}))
      return 1
    print(json.dumps(result))
    return 0

  peers = [name.strip() for name in args.peers.split(",") if name.strip()]
  unknown = sorted(set(peers) - set(PEERS))
  if unknown:
    parser.error(f"unknown peers {unknown}; choose from {PEERS}")
  kwargs: dict[str, Any] = {"warmup_iterations": args.warmup, "min_time_s": args.min_time, "max_time_s": args.max_time}
  hw = hardware()
  if not args.json:
    print(
      f"game {args.game}; {hw['cpu_model']}, {hw['cpus_usable']} cpus, "
      f"{hw['memory_gib']} GiB; python {hw['python']}, jax {hw['jax']}, "
      f"open_spiel {hw['open_spiel']}, liteefg {hw['liteefg']}; "
      f"devices {hw['jax_devices']}",
      flush=True,
    )
  results = {}
  for peer in peers:
    peer_kwargs = dict(kwargs)
    if peer == "liteefg" and args.liteefg_threads is not None:
      peer_kwargs["threads"] = args.liteefg_threads
    if args.in_process:
      results[peer] = _run_single(peer, args.game, args.iters, check_game, args.check_iters, peer_kwargs)
    else:
      results[peer] = run_peer_isolated(
        peer,
        args.game,
        args.iters,
        timeout_s=args.timeout,
        check_game=check_game,
        check_iterations=args.check_iters,
        **peer_kwargs,
      )
    if not args.json:
      print(_format_row(peer, results[peer]), flush=True)

  if args.json:
    print(json.dumps({"game": args.game, "hardware": hw, "results": results}, indent=2))
  if args.out:
    from record import write_record  # pylint: disable=import-outside-toplevel

    write_record(
      args.out,
      benchmark="peers",
      description="CFR+ per-iteration timings of the peer implementations, each in its own "
      "process unless in_process, with an exploitability check",
      configuration={
        "game": args.game,
        "peers": peers,
        "iterations": args.iters,
        "warmup": args.warmup,
        "min_time_s": args.min_time,
        "max_time_s": args.max_time,
        "check_game": check_game,
        "check_iterations": args.check_iters,
        "in_process": args.in_process,
      },
      results=results,
    )
  return 0


if __name__ == "__main__":
  sys.exit(main())
