"""Per-iteration timings of peer CFR and CFR+ solvers, and jaxcfr beside them on Leduc.

Three CFR+ peers (:data:`PEERS`, which ``cfr_speed.py`` runs) are timed on OpenSpiel
games (``kuhn_poker``, ``leduc_poker``, ``liars_dice``,
``goofspiel(num_cards=5,imp_info=True)``, or any game string ``pyspiel.load_game``
accepts):

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

Four more (:data:`MORE_PEERS`) serve the Leduc side-by-side run below:
``openspiel_cpp_cfr`` (``pyspiel.CFRSolver``, vanilla CFR), ``openspiel_python_cfr`` and
``openspiel_python_cfr_plus`` (``open_spiel.python.algorithms.cfr``'s pure-Python
``CFRSolver`` and ``CFRPlusSolver``, about 0.1 s per Leduc iteration), and ``liteefg_cfr``
(LiteEFG's ``baselines.CFR`` graph, which updates both players in one ``env.update``).
``liteefg`` and ``liteefg_cfr`` take ``game_file`` (a LiteEFG ``.game`` file, run with
``FileEnv`` instead of ``OpenSpielEnv``) and ``print_freq`` (the training loop's
exploitability every so many iterations).

Leduc side by side (``--leduc-side-by-side``)
    One run times, each in its own process and in turn, jaxcfr's CFR and CFR+ (float32 and
    float64 on ``leduc_poker``; float32 on ``openspiel:leduc_poker(suit_isomorphism=True)``,
    OpenSpiel's Leduc with the suits merged: 288 infosets, the game of LiteEFG's own
    ``leduc.game``) and the peers as their authors run and time them:

    * LiteEFG's training loop (``LiteEFG.baselines.utils.train``, which its README's
      example and its baseline scripts run: ``update_graph``, ``update_strategy`` every
      iteration, ``exploitability`` every 1,000), CFR and CFR+, on OpenSpiel's Leduc and on
      its own ``leduc.game``, at 1 native thread (its default) and 2;
    * OpenSpiel's JaxCFR as ``open_spiel/python/jax/cfr/compare_cfr_with_jax.py`` builds
      and times it (:func:`time_openspiel_jax_as_published`: 10,000 iterations, set-up and
      compilation inside the timing), with XLA's default flags;
    * OpenSpiel's C++ ``CFRSolver`` and ``CFRPlusSolver``, and its pure-Python ones (a few
      iterations).

    Ratios are the peer's ms per iteration over jaxcfr's float32 ms on the same game and
    algorithm; :data:`PUBLISHED` quotes the peers' own figures for their own machines (with
    sources), set beside the same peers measured here. The load averages are recorded
    around every entry (``--wait-for-load`` first waits for a quiet CPU). Command::

        python benchmarks/peers.py --leduc-side-by-side --rounds 2 --wait-for-load 1.5 \\
            --liteefg-leduc-file PATH/leduc.game --out benchmarks/results/peers_leduc.json

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
    failing.  The wheel leaves out LiteEFG's ``game_instances/*.game`` files;
    its own Leduc is in the sdist (see :func:`liteefg_leduc_file`).

Installing chex (OpenSpiel's JaxCFR imports it)
    ``pip install --dry-run chex`` showed that it keeps the installed jax
    (chex 0.1.92 adds only toolz here); neither is in the project's extras,
    and without chex ``openspiel_jax`` reports the import error.

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
import functools
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
"""The CFR+ peers (``cfr_speed.py`` runs these), accepted by :func:`time_peer` and :func:`check_peer`."""

MORE_PEERS = ("openspiel_cpp_cfr", "openspiel_python_cfr", "openspiel_python_cfr_plus", "liteefg_cfr")
"""Also accepted by :func:`time_peer`: OpenSpiel's C++ CFR, its pure-Python CFR and CFR+,
and LiteEFG's CFR graph (the Leduc side-by-side run, :func:`leduc_side_by_side`)."""

ALL_PEERS = PEERS + MORE_PEERS

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


class _OpenSpielCppCfr(_OpenSpielCpp):
  """pyspiel.CFRSolver (vanilla CFR)."""

  def __init__(self, game, **options):  # pylint: disable=super-init-not-called
    import pyspiel

    if options:
      raise TypeError(f"openspiel_cpp_cfr takes no options, got {sorted(options)}")
    self._solver = pyspiel.CFRSolver(game)
    self.notes = [
      "pyspiel.CFRSolver (C++): vanilla CFR (regret matching, alternating updates, uniform averaging); "
      "single-threaded; float64",
      "iteration = one evaluate_and_update_policy() call",
    ]


class _OpenSpielPython(_OpenSpielCpp):
  """open_spiel.python.algorithms.cfr.CFRSolver or CFRPlusSolver (pure Python); ``step`` and
  ``block`` as the C++ solvers'."""

  def __init__(self, game, plus: bool = False, **options):  # pylint: disable=super-init-not-called
    from open_spiel.python.algorithms import cfr

    if options:
      raise TypeError(f"openspiel_python_cfr takes no options, got {sorted(options)}")
    name = "CFRPlusSolver" if plus else "CFRSolver"
    self._solver = getattr(cfr, name)(game)
    self.notes = [
      f"open_spiel.python.algorithms.cfr.{name} (pure Python tree walk; "
      + ("the 'Original' of OpenSpiel's compare_cfr_with_jax.py" if plus else "vanilla CFR")
      + "); float64",
      "iteration = one evaluate_and_update_policy() call",
    ]

  def average_policy(self):
    from open_spiel.python import policy as policy_lib

    return policy_lib.python_policy_to_pyspiel_policy(self._solver.average_policy())


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


def liteefg_leduc_file(path: str | None = None) -> str | None:
  """LiteEFG's own Leduc game file (``game_instances/leduc.game``), or None if not found.

  ``path`` if given, else ``$LITEEFG_LEDUC_FILE``, else the copy inside the installed
  package. The 1.0.0 wheel built from the sdist leaves the ``.game`` files out; they are in
  the sdist (``pip download --no-deps --no-binary :all: liteefg==1.0.0`` and unpack
  ``liteefg-1.0.0/LiteEFG/game_instances/leduc.game``).
  """
  candidates = [path, os.environ.get("LITEEFG_LEDUC_FILE")]
  with contextlib.suppress(Exception):
    import LiteEFG  # pylint: disable=import-outside-toplevel

    candidates.append(os.path.join(os.path.dirname(LiteEFG.__file__), "game_instances", "leduc.game"))
  return next((c for c in candidates if c and os.path.isfile(c)), None)


class _LiteEFG:
  """A LiteEFG baseline graph (CFR+ by default, or CFR) run by its authors' training loop.

  The loop is the body of ``LiteEFG.baselines.utils.train`` (which the baselines' scripts
  and the README's example run): ``graph.update_graph(env)`` then
  ``env.update_strategy(graph.current_strategy())`` every iteration, and, with
  ``print_freq``, ``env.exploitability(strategy, convergence_type)`` every ``print_freq``
  iterations (``train``'s default is 1000; its tqdm progress bar is left out). The
  environment is ``OpenSpielEnv`` of the given game, or ``FileEnv`` of ``game_file`` (for
  LiteEFG's own ``leduc.game``), both with ``traverse_type="Enumerate"``.
  """

  def __init__(
    self,
    game,
    threads: int | None = None,
    algorithm: str = "cfr+",
    game_file: str | None = None,
    print_freq: int | None = None,
    **options,
  ):
    if options:
      raise TypeError(f"liteefg takes threads, algorithm, game_file and print_freq, got {sorted(options)}")
    if algorithm not in ("cfr", "cfr+"):
      raise ValueError(f"liteefg runs 'cfr' or 'cfr+', got {algorithm!r}")
    ok, reason = liteefg_status()
    if not ok:
      raise PeerUnavailable(reason)
    import LiteEFG as leg
    from LiteEFG.baselines import CFR, CFRplus

    if threads is not None:
      leg.set_threads(int(threads))  # process-wide; LiteEFG's guide: before env.set_graph
    # The graph constructor and the loader print banners; keep them off the benchmark's output.
    with contextlib.redirect_stdout(io.StringIO()):
      self._graph = (CFR if algorithm == "cfr" else CFRplus).graph()
      if game_file is not None:
        self._env = leg.FileEnv(game_file, traverse_type="Enumerate")
      else:
        self._env = leg.OpenSpielEnv(game, traverse_type="Enumerate")
      self._env.set_graph(self._graph)
    self._strategy = self._graph.current_strategy()
    self._file = game_file
    self._print_freq = print_freq
    self._done = 0
    # The baselines' own scripts: CFR.py reports "avg-iterate", CFRplus.py "linear-avg-iterate".
    self._average = "avg-iterate" if algorithm == "cfr" else "linear-avg-iterate"
    graph = (
      "LiteEFG.baselines.CFR (regret matching; both players updated in one env.update)"
      if algorithm == "cfr"
      else "LiteEFG.baselines.CFRplus (regret matching+, alternating updates)"
    )
    where = f"FileEnv({os.path.basename(game_file)!r})" if game_file else "OpenSpielEnv"
    self.notes = [
      f"{graph} on LiteEFG.{where} (traverse_type='Enumerate'); average read as {self._average!r}; float64",
      "iteration = graph.update_graph(env) + env.update_strategy(strategy)"
      + (f", + env.exploitability(strategy, {self._average!r}) every {print_freq}" if print_freq else ""),
      f"LiteEFG {package_version('liteefg')}, native threads = {leg.get_threads()}",
    ]
    if not game_file:
      self.notes.append(
        "game converted to a text file cached in ~/game_instances/ (counted in setup_s when first written)"
      )

  def step(self):
    self._graph.update_graph(self._env)
    self._env.update_strategy(self._strategy)
    self._done += 1
    if self._print_freq and self._done % self._print_freq == 0:
      self._env.exploitability(self._strategy, self._average)

  def block(self):
    pass

  def average_policy(self):
    from open_spiel.python import policy as policy_lib

    if self._file is not None:
      raise PeerUnavailable("a LiteEFG FileEnv's strategy is not an OpenSpiel policy")
    tabular, _ = self._env.get_strategy(self._strategy, self._average)
    return policy_lib.python_policy_to_pyspiel_policy(tabular)


_ADAPTERS: dict[str, Callable[..., Any]] = {
  "openspiel_cpp": _OpenSpielCpp,
  "openspiel_jax": _OpenSpielJax,
  "liteefg": _LiteEFG,
  "openspiel_cpp_cfr": _OpenSpielCppCfr,
  "openspiel_python_cfr": _OpenSpielPython,
  "openspiel_python_cfr_plus": functools.partial(_OpenSpielPython, plus=True),
  "liteefg_cfr": functools.partial(_LiteEFG, algorithm="cfr"),
}


def _build(peer: str, game, options: dict):
  if peer not in _ADAPTERS:
    raise ValueError(f"unknown peer {peer!r}; choose from {ALL_PEERS}")
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
    peer: one of :data:`ALL_PEERS`.
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
    **options: peer options (``threads``, ``algorithm``, ``game_file``, ``print_freq`` for
      ``liteefg``).

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


def time_jaxcfr(game_string: str, algorithm: str = "cfr+", dtype: str = "float32", min_time_s: float = 2.0) -> dict:
  """jaxcfr's ms per iteration (``benchmarks/ours.py``: jitted ``fori_loop`` chunks of about
  0.1 s, timed for at least ``min_time_s`` after compilation), as ``cfr_speed.py`` times it.

  ``game_string`` is a jaxcfr one (``leduc_poker``, ``openspiel:...``). float64 turns on
  ``jax_enable_x64``, which is process-wide: run it in its own process
  (:func:`run_peer_isolated` does).
  """
  import jax  # pylint: disable=import-outside-toplevel

  if dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
  import jaxcfr  # pylint: disable=import-outside-toplevel
  import ours  # pylint: disable=import-outside-toplevel

  start = time.perf_counter()
  game = jaxcfr.load(game_string, dtype=dtype)
  setup_s = time.perf_counter() - start
  timing = ours.cfr_ms_per_iteration(game, algorithm, min_seconds=min_time_s)
  infosets = sum(len(p.keys) for p in game.arrays.players)
  return {
    "peer": "jaxcfr",
    "game": game_string,
    **timing,
    "iterations": timing["iterations_timed"],
    "setup_s": setup_s,
    "infosets": infosets,
    "notes": [
      f"jaxcfr.solvers.get({algorithm!r}) on jaxcfr.load({game_string!r}, dtype={dtype!r}) ({infosets} infosets); "
      "one run, jitted fori_loop chunks of ~0.1 s (benchmarks/ours.py), compilation excluded",
      f"backend {jax.default_backend()}",
    ],
  }


def time_openspiel_jax_as_published(game_string: str = "leduc_poker", iterations: int = 10_000) -> dict:
  """OpenSpiel's JaxCFR timed as ``open_spiel/python/jax/cfr/compare_cfr_with_jax.py`` does.

  The script builds ``JaxCFR(game)`` with its defaults (regret matching+, alternating updates,
  linear averaging: CFR+), in JAX's default float32, and times ``time.time()`` from before
  the constructor to after ``multiple_steps(10000)``: set-up (a Python walk of the tree) and
  compilation included. Here the first step is split off to report compilation, and JAX's
  results are waited for at the end (the script does not wait; one step at most).

  Returns:
    dict with ``total_s`` (the script's figure), ``ms_per_iteration_with_setup``
    (``total_s / iterations``), ``setup_s``, ``first_step_s`` (compilation), and
    ``ms_per_iteration`` over the remaining ``iterations - 1`` steps.
  """
  import jax  # pylint: disable=import-outside-toplevel
  from open_spiel.python.jax.cfr.jax_cfr import JaxCFR  # pylint: disable=import-outside-toplevel

  if iterations < 2:
    raise ValueError("iterations must be >= 2")
  game, converted = load_sequential_game(game_string)
  block = lambda solver: jax.block_until_ready((solver.regrets, solver.averages))
  start = time.time()
  solver = JaxCFR(game)
  setup_s = time.time() - start
  solver.multiple_steps(1)
  block(solver)
  first_step_s = time.time() - start - setup_s
  steady_start = time.perf_counter()
  solver.multiple_steps(iterations - 1)
  block(solver)
  steady_s = time.perf_counter() - steady_start
  total_s = time.time() - start
  dtype = solver.regrets[0].dtype
  notes = [
    "open_spiel.python.jax.cfr.jax_cfr.JaxCFR(game) with its defaults (regret_matching_plus, alternating_updates, "
    f"linear_averaging: CFR+); dtype {dtype}; backend {jax.default_backend()}",
    f"timed as compare_cfr_with_jax.py: time.time() from before JaxCFR(game) to after multiple_steps({iterations})",
    f"XLA_FLAGS={os.environ.get('XLA_FLAGS')!r}",
  ]
  if converted:
    notes.append("simultaneous game converted with pyspiel.convert_to_turn_based")
  return {
    "peer": "openspiel_jax",
    "game": game_string,
    "iterations": iterations,
    "total_s": total_s,
    "ms_per_iteration_with_setup": 1e3 * total_s / iterations,
    "setup_s": setup_s,
    "first_step_s": first_step_s,
    "ms_per_iteration": 1e3 * steady_s / (iterations - 1),
    "notes": notes,
  }


def run_peer_isolated(
  peer: str,
  game_string: str,
  iterations: int,
  *,
  timeout_s: float = 1800.0,
  check_game: str | None = "kuhn_poker",
  check_iterations: int = 10,
  environ: dict[str, str] | None = None,
  **kwargs,
) -> dict:
  """Run :func:`time_peer` (and :func:`check_peer`) in a fresh Python process.

  Isolation keeps peers from sharing thread pools, memory or JAX state, and
  lets a peer whose set-up is too slow be cut off.  Keyword arguments are
  those of :func:`time_peer` (``warmup_iterations``, ``min_time_s``,
  ``max_time_s``, and the peer's options).  ``peer`` may be any of :data:`SINGLE`;
  ``environ`` adds environment variables for the child.

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
    env = {**os.environ, **environ} if environ else None
    completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, env=env)
  except subprocess.TimeoutExpired:
    return {"timing": None, "check": None, "error": f"timed out after {timeout_s:.0f} s (set-up included)"}
  lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
  if not lines:
    tail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
    return {"timing": None, "check": None, "error": f"exit code {completed.returncode}: " + " | ".join(tail)}
  return json.loads(lines[-1])


_TIMING_KEYWORDS = ("warmup_iterations", "min_time_s", "max_time_s", "chunk_target_s")
SINGLE = ALL_PEERS + ("jaxcfr", "openspiel_jax_as_published")
"""What ``--single`` (and :func:`run_peer_isolated`) runs: a peer of :data:`ALL_PEERS` through
:func:`time_peer`, ``jaxcfr`` through :func:`time_jaxcfr` (options ``algorithm``, ``dtype``,
``min_time_s``), or ``openspiel_jax_as_published`` through :func:`time_openspiel_jax_as_published`."""


def _run_single(peer, game_string, iterations, check_game, check_iterations, kwargs):
  """Body of ``--single``: one peer's timing and check, as a dict."""
  options = {k: v for k, v in kwargs.items() if k not in _TIMING_KEYWORDS}
  result: dict[str, Any] = {"timing": None, "check": None, "error": None}
  if peer == "jaxcfr":
    result["timing"] = time_jaxcfr(game_string, **kwargs)
    return result
  if peer == "openspiel_jax_as_published":
    result["timing"] = time_openspiel_jax_as_published(game_string, iterations)
    peer = "openspiel_jax"
    options = {}
  try:
    if result["timing"] is None:
      result["timing"] = time_peer(peer, game_string, iterations, **kwargs)
    if check_game is not None:
      result["check"] = check_peer(peer, check_game, check_iterations, **options)
  except PeerUnavailable as error:
    result["error"] = f"unavailable: {error}"
  return result


# --------------------------------------------------------------------------
# Leduc side by side: jaxcfr and every peer, as their authors run and time them

PUBLISHED = {
  "liteefg_cfr": {
    "source": "LiteEFG's README.md, section 'Speed of LiteEFG' (github.com/liumy2010/LiteEFG, e.g. commit "
    "192e5e382e5085bda5b157312a9fca8664c1044a; the 1.0.0 sdist's README no longer has the section)",
    "quote": "the computation time of running Counterfactual Regret Minimization (CFR) for 100,000 iterations, "
    "without sampling [...] Leduc Poker: 10s",
    "hardware": "Ubuntu, 13th Gen Intel(R) Core(TM) i7-13700K 3.40 GHz",
    "algorithm": "cfr",
    "iterations": 100_000,
    "seconds": 10.0,
    "ms_per_iteration": 0.1,
    "measured_here_as": "liteefg_cfr_openspiel_leduc_1_thread",
    "how": "the README's example: OpenSpielEnv(pyspiel.load_game('leduc_poker'), traverse_type='Enumerate'), "
    "update_graph then update_strategy every iteration, exploitability every 1,000 (LiteEFG's default: 1 thread)",
  },
  "openspiel_jax_cfr_plus": {
    "source": "open_spiel/python/jax/cfr/compare_cfr_with_jax.py (open_spiel 2.0.2), comment above compare_leduc(): "
    "'Speed Results: Original: 139.60753107070923 Jax CPU: 3.7404067516326904'",
    "hardware": "not stated ('Jax CPU')",
    "algorithm": "cfr+ (JaxCFR's defaults)",
    "iterations": 10_000,
    "seconds": 3.7404067516326904,
    "ms_per_iteration": 0.37404067516326904,
    "measured_here_as": "openspiel_jax_cfr_plus",
    "how": "time.time() from before JaxCFR(game) to after multiple_steps(10000): set-up and compilation included",
  },
  "openspiel_python_cfr_plus": {
    "source": "the same comment of compare_cfr_with_jax.py ('Original': open_spiel.python.algorithms.cfr."
    "CFRPlusSolver, 1,000 evaluate_and_update_policy() calls)",
    "hardware": "not stated (the same machine as 'Jax CPU')",
    "algorithm": "cfr+",
    "iterations": 1_000,
    "seconds": 139.60753107070923,
    "ms_per_iteration": 139.60753107070923,
    "measured_here_as": "openspiel_python_cfr_plus",
    "how": "time.time() around 1,000 iterations",
  },
}
"""The peers' own published Leduc figures, for their own machines, quoted with their source."""

LEDUC = "leduc_poker"
LEDUC_SUITS_MERGED = "leduc_poker(suit_isomorphism=True)"


def leduc_suite(
  leduc_file: str | None, *, liteefg_iterations: int = 5_000, python_iterations: int = 10, jax_iterations: int = 10_000
) -> list[dict]:
  """The entries of :func:`leduc_side_by_side`: name, what runs (a :data:`SINGLE` name),
  game string, keyword arguments, iterations, and the jaxcfr entry it is compared with."""
  entries = []
  for algorithm, tag in (("cfr", "cfr"), ("cfr+", "cfr_plus")):
    for dtype, suffix in (("float32", ""), ("float64", "_float64")):
      entries.append(
        dict(name=f"jaxcfr_{tag}{suffix}", run="jaxcfr", game=LEDUC, options={"algorithm": algorithm, "dtype": dtype})
      )
    entries.append(
      dict(
        name=f"jaxcfr_{tag}_suits_merged",
        run="jaxcfr",
        game=f"openspiel:{LEDUC_SUITS_MERGED}",
        options={"algorithm": algorithm, "dtype": "float32"},
      )
    )
  cpp = {"iterations": 100, "options": {"warmup_iterations": 2, "min_time_s": 2.0}}
  entries += [
    dict(name="openspiel_cpp_cfr", run="openspiel_cpp_cfr", game=LEDUC, against="jaxcfr_cfr", **cpp),
    dict(name="openspiel_cpp_cfr_plus", run="openspiel_cpp", game=LEDUC, against="jaxcfr_cfr_plus", **cpp),
  ]
  python = {"iterations": python_iterations, "options": {"warmup_iterations": 1, "min_time_s": 0.0}}
  entries += [
    dict(name="openspiel_python_cfr", run="openspiel_python_cfr", game=LEDUC, against="jaxcfr_cfr", **python),
    dict(
      name="openspiel_python_cfr_plus", run="openspiel_python_cfr_plus", game=LEDUC, against="jaxcfr_cfr_plus", **python
    ),
    dict(
      name="openspiel_jax_cfr_plus",
      run="openspiel_jax_as_published",
      game=LEDUC,
      iterations=jax_iterations,
      against="jaxcfr_cfr_plus",
      # XLA's defaults, as the script runs: importing jaxcfr (this module does) would raise
      # XLA:CPU's small-loop limit (jaxcfr.xla_setup); 0 leaves it alone.
      environ={"JAXCFR_SMALL_LOOP_BYTES": "0"},
    ),
  ]
  for algorithm, tag in (("cfr", "cfr"), ("cfr+", "cfr_plus")):
    for where in ("openspiel_leduc", "own_leduc"):
      for threads in (1, 2):
        options = {
          "algorithm": algorithm,
          "threads": threads,
          "print_freq": 1000,
          "warmup_iterations": 100,
          "min_time_s": 2.0,
        }
        if where == "own_leduc":
          if leduc_file is None:
            continue
          options["game_file"] = leduc_file
        entries.append(
          dict(
            name=f"liteefg_{tag}_{where}_{threads}_thread{'s' if threads > 1 else ''}",
            run="liteefg",
            game=LEDUC if where == "openspiel_leduc" else LEDUC_SUITS_MERGED,
            options=options,
            iterations=liteefg_iterations,
            against=f"jaxcfr_{tag}" + ("_suits_merged" if where == "own_leduc" else ""),
            check=where == "openspiel_leduc",
          )
        )
  return entries


def _sha256(path: str | None) -> str | None:
  import hashlib  # pylint: disable=import-outside-toplevel
  from pathlib import Path  # pylint: disable=import-outside-toplevel

  return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else None


def load_average() -> list[float] | None:
  """``os.getloadavg()`` (1, 5 and 15 minutes), or None where it is not available."""
  try:
    return [round(x, 2) for x in os.getloadavg()]
  except (AttributeError, OSError):
    return None


def wait_for_load(below: float, max_wait_s: float, poll_s: float = 15.0) -> float:
  """Sleep until the 1-minute load average is below ``below`` (at most ``max_wait_s``);
  returns the seconds waited."""
  start = time.perf_counter()
  while True:
    load = load_average()
    waited = time.perf_counter() - start
    if load is None or load[0] < below or waited >= max_wait_s:
      return waited
    print(f"load average {load}: waiting for the 1-minute load to fall below {below}", flush=True)
    time.sleep(poll_s)


def leduc_side_by_side(
  entries: list[dict], *, rounds: int = 1, timeout_s: float = 900.0, log: Callable[[str], None] = print
) -> dict:
  """Run every entry of :func:`leduc_suite` in its own process, ``rounds`` times in turn, and
  compare: each peer's median ms per iteration over jaxcfr's (same algorithm and game; float32),
  and the peers' published figures (:data:`PUBLISHED`) beside the same peers measured here.

  Returns:
    dict with ``entries`` (name -> runs, median ``ms_per_iteration``, ``ratio_to_jaxcfr``...),
    ``ratios`` (name -> peer ms / jaxcfr ms), ``published`` and ``load_average`` (start, end).
  """
  out: dict[str, Any] = {"load_average": {"start": load_average()}, "entries": {}}
  for entry in entries:
    out["entries"][entry["name"]] = {
      k: entry.get(k) for k in ("run", "game", "options", "iterations", "against") if entry.get(k) is not None
    }
    out["entries"][entry["name"]]["runs"] = []
  for round_index in range(rounds):
    for entry in entries:
      before = load_average()
      result = run_peer_isolated(
        entry["run"],
        entry["game"],
        entry.get("iterations", 1),
        timeout_s=timeout_s,
        check_game="kuhn_poker" if entry.get("check", entry["run"] != "jaxcfr") else None,
        environ=entry.get("environ"),
        **entry.get("options", {}),
      )
      result["load_average_before"], result["load_average_after"] = before, load_average()
      row = out["entries"][entry["name"]]
      row["runs"].append(result)
      timing = result.get("timing")
      text = f"{timing['ms_per_iteration']:.4f} ms/iter" if timing else str(result.get("error"))
      log(f"round {round_index + 1} {entry['name']:42s} {text}  (load {before[0] if before else '?'})")
  for row in out["entries"].values():
    times = [r["timing"]["ms_per_iteration"] for r in row["runs"] if r.get("timing")]
    row["ms_per_iteration"] = statistics.median(times) if times else None
    row["ms_per_iteration_runs"] = times
    if row["run"] == "openspiel_jax_as_published":
      totals = [r["timing"]["total_s"] for r in row["runs"] if r.get("timing")]
      row["total_s"] = statistics.median(totals) if totals else None
      row["ms_per_iteration_with_setup"] = 1e3 * row["total_s"] / row["iterations"] if totals else None
  ratios = {}
  for name, row in out["entries"].items():
    base = out["entries"].get(row.get("against") or "", {}).get("ms_per_iteration")
    if base and row["ms_per_iteration"]:
      row["ratio_to_jaxcfr"] = ratios[name] = row["ms_per_iteration"] / base
      if "ms_per_iteration_with_setup" in row and row["ms_per_iteration_with_setup"]:
        row["ratio_to_jaxcfr_with_setup"] = row["ms_per_iteration_with_setup"] / base
  out["ratios"] = ratios
  published = {}
  for key, figure in PUBLISHED.items():
    row = out["entries"].get(figure["measured_here_as"], {})
    here = row.get("ms_per_iteration_with_setup") or row.get("ms_per_iteration")
    base = out["entries"].get(row.get("against") or "", {}).get("ms_per_iteration")
    published[key] = {
      **figure,
      "measured_here_ms_per_iteration": here,
      "measured_here_over_published": here / figure["ms_per_iteration"] if here else None,
      "jaxcfr_here_ms_per_iteration": base,
      "published_over_jaxcfr_here": figure["ms_per_iteration"] / base if base else None,
    }
  out["published"] = published
  out["load_average"]["end"] = load_average()
  return out


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
  parser.add_argument(
    "--leduc-side-by-side",
    action="store_true",
    help="time jaxcfr CFR/CFR+ and every peer on Leduc as their authors run them (leduc_side_by_side); "
    "with --out, write that record",
  )
  parser.add_argument("--rounds", type=int, default=1, help="side by side: runs of the whole suite, in turn")
  parser.add_argument(
    "--liteefg-leduc-file", help="side by side: LiteEFG's own game_instances/leduc.game (see liteefg_leduc_file)"
  )
  parser.add_argument("--liteefg-iters", type=int, default=5000, help="side by side: LiteEFG iterations timed")
  parser.add_argument("--python-iters", type=int, default=10, help="side by side: OpenSpiel Python CFR iterations")
  parser.add_argument(
    "--jax-iters", type=int, default=10_000, help="side by side: JaxCFR iterations (its script: 10,000)"
  )
  parser.add_argument(
    "--wait-for-load",
    type=float,
    default=None,
    help="side by side: first sleep until the 1-minute load average is below this (at most --max-wait s)",
  )
  parser.add_argument("--max-wait", type=float, default=3600.0)
  parser.add_argument("--single", choices=SINGLE, help=argparse.SUPPRESS)
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

  if args.leduc_side_by_side:
    leduc_file = liteefg_leduc_file(args.liteefg_leduc_file)
    waited = wait_for_load(args.wait_for_load, args.max_wait) if args.wait_for_load is not None else 0.0
    hw = hardware()
    print(
      f"Leduc side by side; {hw['cpu_model']}, {hw['cpus_usable']} cpus; jax {hw['jax']}, "
      f"open_spiel {hw['open_spiel']}, liteefg {hw['liteefg']}; load average {load_average()}",
      flush=True,
    )
    entries = leduc_suite(
      leduc_file,
      liteefg_iterations=args.liteefg_iters,
      python_iterations=args.python_iters,
      jax_iterations=args.jax_iters,
    )
    results = leduc_side_by_side(entries, rounds=args.rounds, timeout_s=args.timeout)
    results["waited_for_load_s"] = waited
    for name, ratio in results["ratios"].items():
      row = results["entries"][name]
      print(f"  {name:42s} {row['ms_per_iteration']:9.4f} ms/iter = {ratio:8.1f}x {row['against']}")
    if args.out:
      from record import write_record  # pylint: disable=import-outside-toplevel

      write_record(
        args.out,
        benchmark="peers",
        description="Leduc side by side in one run, each entry in its own process, in turn: jaxcfr CFR and CFR+ "
        "(float32 and float64; and float32 on OpenSpiel's Leduc with suits merged, the game of LiteEFG's own "
        "leduc.game) and the peers as their authors run and time them: LiteEFG's training loop (update_graph, "
        "update_strategy, exploitability every 1,000) with its CFR and CFR+ graphs on OpenSpiel's Leduc and on "
        "its own leduc.game at 1 and 2 native threads; OpenSpiel's JaxCFR as compare_cfr_with_jax.py builds and "
        "times it (10,000 iterations, set-up and compilation included); OpenSpiel's C++ CFRSolver and "
        "CFRPlusSolver; OpenSpiel's pure-Python CFRSolver and CFRPlusSolver (a few iterations). ratios = peer ms "
        "per iteration / jaxcfr's float32 ms on the same game and algorithm; published = the peers' own figures "
        "for their machines, with their sources, beside the same peers measured here. The CPU is shared: the "
        "load averages (1, 5, 15 minutes) are recorded at the start, the end and around every entry.",
        configuration={
          "game": LEDUC,
          "rounds": args.rounds,
          "entries": [{k: v for k, v in e.items() if k != "check"} for e in entries],
          "liteefg_leduc_file": leduc_file,
          "liteefg_leduc_file_sha256": _sha256(leduc_file),
          "wait_for_load": args.wait_for_load,
          "check_game": "kuhn_poker",
          "check_iterations": args.check_iters,
        },
        results=results,
      )
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
