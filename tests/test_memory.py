"""The size guard (jaxcfr.base.memory): games and runs too large for memory end in one line
that names the estimate, the limit and the way out, before the allocation, from every loader
(the size estimates before a sequence-form build, the vectorised builder, the tree walk of
native and OpenSpiel games, the public tree) and from the driver; allocation failures the
estimates miss become the same line. The subprocess tests run under an address-space limit,
as a small machine or a container would."""

import os
import resource
import shlex
import subprocess
import sys
import time

import jax
import numpy as np
import pytest

import jaxcfr
from jaxcfr.base import memory
from jaxcfr.kits import registry
from jaxcfr.kits.sequence_form import build, vectorized
from jaxcfr.run import cli


@pytest.mark.parametrize(
  "text,size", [("8G", 8 * 2**30), ("512M", 512 * 2**20), ("1.5T", int(1.5 * 2**40)), ("100", 100), ("4 GiB", 4 << 30)]
)
def test_sizes_parse(text, size):
  assert memory.parse_size(text) == size


@pytest.mark.parametrize("text", ["0", "-1G", "8X", "", "lots", "1e9"])
def test_bad_sizes_are_one_line_errors(text):
  with pytest.raises(memory.GameError, match="must be a positive size such as 8G"):
    memory.parse_size(text)


def test_the_limit_is_the_setting_or_what_is_available(monkeypatch):
  monkeypatch.delenv(memory.ENV, raising=False)
  room = memory.limit()
  assert room.source == "available" and 0 < room.size <= memory.available() * 1.5 + 2**30
  monkeypatch.setenv(memory.ENV, "3G")
  assert memory.limit() == (3 * 2**30, f"set by --max-memory ({memory.ENV})")


def test_an_allocation_failure_inside_a_build_is_one_line(monkeypatch):
  """The address space is capped for the build and restored after it."""
  monkeypatch.setenv(memory.ENV, "256M")
  before = resource.getrlimit(resource.RLIMIT_AS)
  with pytest.raises(memory.GameTooLargeError, match=r"^big\(\) ran out of memory while building \(the limit: 256"):
    with memory.guarded("big()"):
      np.ones(2**28)  # 2 GiB
  assert resource.getrlimit(resource.RLIMIT_AS) == before


def _error(capsys, argv) -> str:
  assert cli.main(argv) == 2
  err = capsys.readouterr().err.strip().splitlines()
  assert len(err) == 1 and "Traceback" not in err[0], err
  return err[0]


@pytest.mark.parametrize(
  "argv,message",
  [
    (  # vectorised rules: the levels sampled, 2,048 states a depth
      ["info", "goofspiel(num_cards=7)", "--max-memory", "100M"],
      "goofspiel(num_cards=7) needs about 372.8 MiB (about 3,053,835 histories to depth 9, estimated from at most "
      "2,048 states a depth before building), more than the 100.0 MiB set by --max-memory",
    ),
    (  # one chance node with 10^10 children: extrapolated from the first states of the level
      ["info", "one_card_poker(num_cards=100000)"],
      "(about 10,000,000,001 histories to depth 2, estimated from at most 2,048 states a depth before building)",
    ),
    (  # the tree walk (OpenSpiel's game, 1,000 moves deep), 512 bytes a history
      ["info", "openspiel:oshi_zumo(coins=4,size=1)", "--max-memory", "30M"],
      "(about 87,648 histories to depth 13, estimated from at most 2,048 states a depth before building)",
    ),
    (  # the tree walk of native rules
      ["info", "leduc_poker", "--max-memory", "2M"],
      "leduc_poker needs about 2.9 MiB (about 5,857 histories to depth 8, estimated from at most 2,048 states",
    ),
    (  # a game no wider than 2,048 states a depth: counted, and refused past the limit itself
      ["info", "kuhn_poker", "--max-memory", "7K"],
      "kuhn_poker needs about 7.2 KiB (58 histories to depth 5, counted before building), more than the 7.0 KiB",
    ),
  ],
)
def test_too_large_is_refused_from_the_size_estimate_in_seconds(argv, message, capsys, tmp_path, monkeypatch):
  """Before anything is built: the size counted level by level from the root, a uniform sample
  of at most 2,048 states a depth standing for each level (the estimate, not running out)."""
  monkeypatch.setenv("JAXCFR_CACHE_DIR", str(tmp_path))
  start = time.perf_counter()
  line = _error(capsys, argv)
  assert time.perf_counter() - start < 10
  assert message in line and "choose smaller parameters" in line, line


@pytest.mark.parametrize(
  "game,exact",
  [
    ("kuhn_poker", True),
    ("leduc_poker", False),
    ("openspiel:leduc_poker", False),
    ("liars_dice", False),
    ("openspiel:liars_dice", False),
    ("no_limit_leduc_poker(stack=10)", False),
    ("goofspiel(num_cards=5)", False),
    ("latent_tic_tac_toe(opening=eai)", False),
  ],
)
def test_the_size_estimates_are_near_the_counts(game, exact, tmp_path, monkeypatch):
  """Within 15% of the histories built (measured: 0.4% to 10%), exact where no level is wider
  than the sample; the tree walk's and the vectorised rules' estimates alike."""
  monkeypatch.setenv("JAXCFR_CACHE_DIR", str(tmp_path))
  source = registry.source(game)
  room = memory.Limit(2**60, "test")
  if hasattr(source.rules, "vectorized"):
    found = vectorized.estimate_histories(source.rules.vectorized(), game, room)
  else:
    found = build.estimate_histories(source.rules.new_initial_state(), game, room)
  histories = jaxcfr.load(game).arrays.num_histories
  assert found[1] == exact and (found[0] == histories if exact else abs(found[0] / histories - 1) < 0.15), found


def test_an_estimate_out_of_time_leaves_the_decision_to_the_build():
  source = registry.source("goofspiel(num_cards=5)")
  room = memory.Limit(2**60, "test")
  assert vectorized.estimate_histories(source.rules.vectorized(), "g", room, seconds=0) is None
  assert build.estimate_histories(source.rules.new_initial_state(), "g", room, seconds=0) is None


@pytest.mark.parametrize(
  "argv,message",
  [
    (  # the vectorised builder: a level priced from a sample of its states, before it is made
      ["info", "goofspiel(num_cards=7)", "--max-memory", "100M"],
      "goofspiel(num_cards=7) needs about 133.2 MiB (231,435 histories to depth 7 and about 705,600 at depth 8), "
      "more than the 100.0 MiB set by --max-memory",
    ),
    (  # one chance node with 10^10 children: priced before it is expanded
      ["info", "one_card_poker(num_cards=100000)"],
      "about 9,999,900,000 at depth 2), more than the",
    ),
    (  # the tree walk (OpenSpiel's game, 1,000 moves deep): the process measured as it goes
      ["info", "openspiel:oshi_zumo(coins=4,size=1)", "--max-memory", "30M"],
      "histories walked,",
    ),
    (  # the public tree: nodes times hands, as it grows
      [
        "info",
        "hunl_subgame(endgame=1,first_bets=0.1;0.2;0.3;0.5;0.7;1;2;allin,raises=0.1;0.2;0.3;0.5;1;2;allin)",
        "--representation",
        "public_tree",
        "--max-memory",
        "500M",
      ],
      "the public tree of hunl_subgame(endgame=1,first_bets=0.1;0.2;0.3;0.5;0.7;1;2;allin,raises=0.1;0.2;0.3;0.5;1;"
      "2;allin) needs about",
    ),
    (  # the driver: the solver's state from the shapes of its init, nothing allocated
      ["solve", "leduc_poker", "--algo", "mccfr-os", "--batch", "100000", "--iters", "10", "--max-memory", "50M"],
      "leduc_poker needs about 7.3 GiB (mccfr-os's state of 2.4 GiB for 100000 runs, held 3 times while it steps)",
    ),
  ],
)
def test_too_large_is_one_line_before_the_allocation(argv, message, capsys, tmp_path, monkeypatch):
  """The builders' own guards, behind the size estimates (here undecided, as when out of time)."""
  monkeypatch.setenv("JAXCFR_CACHE_DIR", str(tmp_path))  # an empty cache: the builds are priced, not a cached game
  monkeypatch.setattr(vectorized, "estimate_histories", lambda *args, **kwargs: None)
  monkeypatch.setattr(build, "estimate_histories", lambda *args, **kwargs: None)
  line = _error(capsys, argv)
  assert line.startswith("jaxcfr: error: ") and message in line, line
  assert "choose smaller parameters" in line


def test_a_state_is_priced_from_its_shapes_for_callers_that_step_a_solver(monkeypatch):
  """memory.check_state, the driver's guard, for a caller that runs ``solver.run`` itself (the
  benchmarks): the bytes of ``init()``'s shapes, nothing allocated; over the limit one line."""
  tensors = jaxcfr.load("kuhn_poker").tensors
  solver = jaxcfr.solvers.get("mccfr-os")
  init = lambda: solver.init(tensors, seed=np.arange(10**6))  # noqa: E731
  state = solver.init(tensors, seed=np.arange(3))
  per_run = sum(leaf.nbytes for leaf in jax.tree_util.tree_leaves(state)) / 3
  monkeypatch.setenv(memory.ENV, "64G")
  assert memory.check_state(init, "kuhn_poker", "mccfr-os", 10**6) == pytest.approx(per_run * 10**6, rel=1e-3)
  monkeypatch.setenv(memory.ENV, "1M")
  with pytest.raises(
    memory.GameTooLargeError, match=r"kuhn_poker needs about .* \(mccfr-os's state of .* for 1000000 runs"
  ):
    memory.check_state(init, "kuhn_poker", "mccfr-os", 10**6)


def test_a_cached_game_is_priced_before_its_tensors_are_made(capsys):
  jaxcfr.load("kuhn_poker")  # in the cache: no build to price
  line = _error(capsys, ["info", "kuhn_poker", "--max-memory", "1K"])
  assert "kuhn_poker needs about " in line and " KiB (the device tensors of 58 histories)" in line


def _run_limited(argv, address_space_kib: int, timeout: int = 120) -> subprocess.CompletedProcess:
  """``jaxcfr argv`` in a child whose address space is capped by the shell (``ulimit -v``)."""
  command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "jaxcfr.run.cli", *argv])
  return subprocess.run(
    ["bash", "-c", f"ulimit -v {address_space_kib} && exec {command}"],
    capture_output=True,
    text=True,
    timeout=timeout,
    env={k: v for k, v in os.environ.items() if k != memory.ENV},
  )


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the process's size from /proc")
@pytest.mark.parametrize(
  "game,message",
  [
    ("goofspiel(num_cards=8)", "histories to depth"),  # vectorised
    ("openspiel:oshi_zumo(coins=4,size=1)", "histories to depth"),  # OpenSpiel's walk, 1,000 moves deep
  ],
)
def test_under_an_address_space_limit_the_limit_is_found_and_kept(game, message):
  """No flag: the limit is read from the process (its address-space limit less its size);
  the build stops with one line, not a segfault, a MemoryError or the out-of-memory killer."""
  done = _run_limited(["info", game], 5 * 2**19)  # 2.5 GiB, of which JAX's import takes about 1.5
  err = done.stderr.strip().splitlines()
  assert done.returncode == 2 and len(err) == 1, done.stderr[-3000:]
  assert err[0].startswith(f"jaxcfr: error: {game} needs about") and message in err[0]
  assert "GiB available; choose smaller parameters, or set --max-memory" in err[0]
