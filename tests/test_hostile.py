"""Bad input, damaged files and the command line, tried as a hostile user would: every case
ends in a clean one-line error before long work, or in a correct result; never a traceback
or a silent wrong number. (Damaged cache files: tests/test_cache.py.)"""

import json
import os
import re
import signal
import subprocess
import sys
import time
import warnings

import hypothesis
import hypothesis.strategies as st
import jax
import numpy as np
import pytest

import jaxcfr
from jaxcfr.evaluate import opponent
from jaxcfr.games import GameError
from jaxcfr.base import integrity
from jaxcfr.run import checkpoint as checkpoint_lib
from jaxcfr.run import cli, driver
import helpers


def _error_line(capsys) -> str:
  err = capsys.readouterr().err.strip().splitlines()
  assert err, "no error message"
  assert "Traceback" not in "\n".join(err) and "allow_pickle" not in "\n".join(err)
  return err[-1]


@pytest.mark.parametrize(
  "argv,message",
  [
    (["rnr", "kuhn_poker", "--p", "nan"], "finite"),
    (["rnr", "kuhn_poker", "--p", "0.5,1.5"], "p of solver 'rnr' must be in [0.0, 1.0]"),
    (["rnr", "kuhn_poker", "--value-iters", "-5"], "positive integer"),
    (["solve", "kuhn_poker", "--checkpoint-every", "0"], "positive integer"),
    (["solve", "kuhn_poker", "--checkpoint-every", "-3"], "positive integer"),
    (["solve", "kuhn_poker", "--eval-every", "-10"], "positive integer"),
    (
      ["solve", "kuhn_poker", "--algo", "mccfr-os", "--epsilon", "2"],
      "epsilon of solver 'mccfr-os' must be in [0.0, 1.0]",
    ),
    (["solve", "kuhn_poker", "--iters", "30", "--averaging-delay", "50"], "averaging_delay 50"),
    (["solve", "one_card_poker(num_cards=3,num_cards=5)"], "given twice"),
    (["solve", "kuhn_poker", "--resume"], "--resume needs --checkpoint"),
    (["solve", "kuhn_poker", "--json", "/no/such/folder/r.json"], "is not an existing folder"),
    (["solve", "kuhn_poker", "--strategy-out", "/no/such/folder/s.npz"], "is not an existing folder"),
    (["solve", "kuhn_poker", "--checkpoint", "/no/such/folder/c.npz"], "is not an existing folder"),
    (["solve", "kuhn_poker", "--algo", "cfr+", "--seed", "3"], "--seed does not apply to --algo cfr+"),
    (
      ["solve", "kuhn_poker", "--algo", "mccfr-es", "--trajectories", "2"],
      "--trajectories does not apply to --algo mccfr-es",
    ),
    (["rnr", "kuhn_poker", "--algo", "rnr", "--trajectories", "2"], "(it applies to: mccfr-os, mcrnr)"),
    (["rnr", "kuhn_poker", "--model", "missing.npz"], "neither 'uniform'"),
    (["solve", "kuhn_poker", "--json", "o.x", "--strategy-out", "o.x"], "--json and --strategy-out name the same file"),
    (["solve", "kuhn_poker", "--checkpoint", "o.x", "--strategy-out", "./o.x"], "name the same file"),
    (["match", "kuhn_poker", "--agents", "uniform,uniform", "--games", "10000000000000"], "[0, 10,000,000]"),
    (["match", "kuhn_poker", "--agents", "uniform,uniform", "--seed", "99999999999999"], "[0, 4,294,967,295]"),
  ],
)
def test_bad_command_lines_give_one_line_errors(argv, message, monkeypatch):
  monkeypatch.setattr(jaxcfr.solvers.Solver, "run", lambda *a, **k: pytest.fail("iterations ran before the check"))
  code, err = _cli_in_process(argv)
  assert code == 2
  assert "Traceback" not in err and message in err.strip().splitlines()[-1]


def test_empty_cache_variable_is_an_error(capsys, monkeypatch):
  monkeypatch.setenv("JAXCFR_CACHE_DIR", "")
  assert cli.main(["info", "kuhn_poker"]) == 2
  assert "JAXCFR_CACHE_DIR is set but empty" in _error_line(capsys)


def test_checkpoints_follow_their_own_schedule(monkeypatch, tmp_path):
  saved = []
  real = checkpoint_lib.save
  monkeypatch.setattr(
    checkpoint_lib, "save", lambda path, state, meta: (saved.append(meta["iterations"]), real(path, state, meta))
  )
  kuhn = helpers.load("kuhn_poker")
  result = driver.solve(kuhn, "cfr+", 7000, eval_every=7000, checkpoint=tmp_path / "c.npz", checkpoint_every=3001)
  assert saved == [3001, 6002, 7000]
  assert [row["iteration"] for row in result.history] == [7000]
  resumed = driver.solve(
    kuhn, "cfr+", 9000, eval_every=7000, checkpoint=tmp_path / "c.npz", checkpoint_every=3001, resume=True
  )
  straight = driver.solve(kuhn, "cfr+", 9000, eval_every=7000)
  for a, b in zip(resumed.average_strategy, straight.average_strategy):
    np.testing.assert_array_equal(a, b)


def _write_checkpoint(tmp_path) -> str:
  path = tmp_path / "run.npz"
  driver.solve(helpers.load("kuhn_poker"), "cfr+", 20, checkpoint=path)
  return str(path)


@pytest.mark.parametrize("damage", ["truncated", "empty", "random", "foreign", "flipped", "other solver"])
def test_resume_from_a_bad_checkpoint_is_one_line(damage, tmp_path, capsys):
  path = _write_checkpoint(tmp_path)
  raw = open(path, "rb").read()
  if damage == "truncated":
    open(path, "wb").write(raw[: len(raw) // 2])
  elif damage == "empty":
    open(path, "wb").write(b"")
  elif damage == "random":
    open(path, "wb").write(np.random.default_rng(0).bytes(4096))
  elif damage == "foreign":
    np.savez(path, something=np.arange(3))
  elif damage == "flipped":
    data = bytearray(raw)
    data[len(data) // 2] ^= 0x10
    open(path, "wb").write(bytes(data))
  code = cli.main(
    [
      "solve",
      "kuhn_poker",
      "--iters",
      "40",
      "--checkpoint",
      path,
      "--resume",
      *(["--algo", "dcfr"] if damage == "other solver" else []),
    ]
  )
  assert code == 2
  line = _error_line(capsys)
  assert path in line or "another run" in line


@pytest.mark.parametrize("kind", ["cache", "checkpoint", "strategy"])
@hypothesis.settings(
  max_examples=10, deadline=None, suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture]
)
@hypothesis.given(
  action=st.sampled_from(["flip", "truncate", "overwrite"]),
  where=st.floats(0, 1, exclude_max=True),
  bit=st.integers(0, 7),
  junk=st.binary(min_size=16, max_size=16),
)
def test_fuzz_random_corruptions_end_cleanly(kind, action, where, bit, junk, tmp_path_factory, capsys):
  """Random byte flips, truncations and overwrites of each kind of file: a clean error or
  the original result, never a traceback or a different result."""
  folder = tmp_path_factory.mktemp(kind)
  kuhn = helpers.load("kuhn_poker")
  if kind == "cache":
    os.environ["JAXCFR_CACHE_DIR"] = str(folder)
    reference = jaxcfr.load("one_card_poker(num_cards=4)", dtype="float64")
    (path,) = folder.glob("*.npz")
  elif kind == "checkpoint":
    path = folder / "c.npz"
    driver.solve(kuhn, "cfr+", 20, checkpoint=path)
  else:
    path = folder / "s.npz"
    jaxcfr.save_strategy(path, kuhn, opponent.fixed_model(kuhn, "cfr:10"))
  raw = bytearray(path.read_bytes())
  at = int(where * len(raw))
  if action == "flip":
    raw[at] ^= 1 << bit
  elif action == "truncate":
    raw = raw[:at]
  else:
    raw[at : at + 16] = junk
  path.write_bytes(bytes(raw))
  if kind == "cache":
    try:
      with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reloaded = jaxcfr.load("one_card_poker(num_cards=4)", dtype="float64")
    finally:
      os.environ.pop("JAXCFR_CACHE_DIR", None)
    ours, theirs = reloaded.arrays.to_npz_dict(), reference.arrays.to_npz_dict()
    assert ours.keys() == theirs.keys()
    for key in ours:  # never a different game
      np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)
    return
  argv = (
    ["solve", "kuhn_poker", "--iters", "40", "--checkpoint", str(path), "--resume"]
    if kind == "checkpoint"
    else ["rnr", "kuhn_poker", "--iters", "20", "--value-iters", "20", "--model", str(path), "--p", "0.5"]
  )
  code = cli.main(argv)
  out = capsys.readouterr()
  assert "Traceback" not in out.err and "allow_pickle" not in out.err
  assert code in (0, 2)
  if code == 2:
    assert len(out.err.strip().splitlines()) == 1


@hypothesis.settings(max_examples=25, deadline=None)
@hypothesis.given(
  flag=st.sampled_from(
    [
      "--iters",
      "--eval-every",
      "--checkpoint-every",
      "--averaging-delay",
      "--alpha",
      "--gamma",
      "--epsilon",
      "--batch",
      "--seed",
      "--trajectories",
    ]
  ),
  value=st.one_of(
    st.integers(-(10**6), 0).map(str), st.sampled_from(["nan", "inf", "-inf", "", "x", "1e400", "0.5.5", "-0"])
  ),
)
def test_fuzz_bad_cli_values_end_cleanly(flag, value):
  """Out-of-range and malformed values: a clean error (exit 2, the error on the last line),
  or, where the value is valid after all (a negative seed, -0), a normal run."""
  algo = "mccfr-os" if flag in ("--epsilon", "--batch", "--seed", "--trajectories") else "dcfr"
  code, err = _cli_in_process(["solve", "kuhn_poker", "--algo", algo, "--iters", "5", "--no-progress", flag, value])
  assert code in (0, 2) and "Traceback" not in err, (code, err)
  if code == 2:
    assert "error" in err.strip().splitlines()[-1]


def _cli_in_process(argv):
  import contextlib  # pylint: disable=import-outside-toplevel
  import io  # pylint: disable=import-outside-toplevel

  err = io.StringIO()
  with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
    try:
      code = cli.main(argv)
    except SystemExit as exit_:
      code = exit_.code
  return code, err.getvalue()


def test_strategy_files_are_matched_by_key_and_action_id(tmp_path):
  """A file whose rows, keys and action ids are permuted consistently reads as the same profile."""
  kuhn = helpers.load("kuhn_poker")
  profile = tuple(np.asarray(s) for s in opponent.fixed_model(kuhn, "cfr:10"))
  path = tmp_path / "s.npz"
  jaxcfr.save_strategy(path, kuhn, profile)
  with np.load(path, allow_pickle=False) as data:
    arrays = {k: data[k] for k in data.files if k != "checksum"}
  rng = np.random.default_rng(3)
  for p in range(2):
    order = rng.permutation(len(arrays[f"keys{p}"]))
    arrays[f"player{p}"] = arrays[f"player{p}"][order][:, ::-1]
    arrays[f"keys{p}"] = arrays[f"keys{p}"][order]
    arrays[f"action_ids{p}"] = arrays[f"action_ids{p}"][order][:, ::-1]
  np.savez(path, **integrity.with_checksum(arrays))
  loaded = jaxcfr.load_strategy(path, kuhn)
  for a, b in zip(loaded, profile):
    np.testing.assert_allclose(a, b, rtol=0, atol=0)
  assert float(helpers.exploitability(kuhn.tensors, loaded)) == pytest.approx(
    float(helpers.exploitability(kuhn.tensors, profile)), rel=1e-12
  )


def test_batched_strategy_files_need_an_explicit_run(tmp_path):
  kuhn = helpers.load("kuhn_poker")
  result = driver.solve(kuhn, "dcfr", 30, batch={"alpha": [1.0, 2.0, 3.0]})
  path = tmp_path / "batch.npz"
  jaxcfr.save_strategy(path, kuhn, result.average_strategy)
  with pytest.raises(ValueError, match="holds a batch"):
    opponent.fixed_model(kuhn, str(path))
  second = opponent.fixed_model(kuhn, f"{path}#1")
  for a, b in zip(second, result.average_strategy):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b)[..., 1], rtol=1e-12)
  with pytest.raises(ValueError, match="batch index 3"):
    opponent.fixed_model(kuhn, f"{path}#3")


def test_cli_json_describes_itself(tmp_path):
  out = tmp_path / "r.json"
  assert (
    cli.main(
      [
        "solve",
        "kuhn_poker",
        "--algo",
        "mccfr-os",
        "--iters",
        "50",
        "--seed",
        "1,2",
        "--json",
        str(out),
        "--no-progress",
        "--dtype",
        "float64",
      ]
    )
    == 0
  )
  record = json.loads(out.read_text())
  assert record["command"] == [
    "jaxcfr",
    "solve",
    "kuhn_poker",
    "--algo",
    "mccfr-os",
    "--iters",
    "50",
    "--seed",
    "1,2",
    "--json",
    str(out),
    "--no-progress",
    "--dtype",
    "float64",
  ]
  assert record["dtype"] == "float64" and record["hyperparameters"]["seed"] == [1, 2]
  assert record["hardware"]["jax"] == jax.__version__ and record["hardware"]["numpy"] == np.__version__
  assert 0 < record["compile_seconds"] < record["seconds"] and record["run_seconds"] > 0
  assert "git_commit" in record
  solver = jaxcfr.solvers.get("mccfr-os")
  state = solver.run(helpers.load("kuhn_poker").tensors, solver.init(helpers.load("kuhn_poker").tensors, seed=2), 50)
  expected = float(
    helpers.exploitability(
      helpers.load("kuhn_poker").tensors, solver.average_strategy(helpers.load("kuhn_poker").tensors, state)
    )
  )
  assert record["results"][1]["exploitability"] == pytest.approx(expected, rel=1e-12)
  rnr_out = tmp_path / "rnr.json"
  assert (
    cli.main(["rnr", "kuhn_poker", "--iters", "20", "--value-iters", "50", "--p", "0.5", "--json", str(rnr_out)]) == 0
  )
  rnr = json.loads(rnr_out.read_text())
  for key in ("command", "hardware", "git_commit", "dtype", "seed", "seconds", "compile_seconds", "game_value_seconds"):
    assert key in rnr, key


def test_cli_help_describes_every_argument(capsys):
  parser = cli.parser()
  for action in parser._actions:  # pylint: disable=protected-access
    if isinstance(action, type(parser._subparsers._group_actions[0])):  # pylint: disable=protected-access
      for name, sub in action.choices.items():
        for argument in sub._actions:  # pylint: disable=protected-access
          assert argument.help, (name, argument.dest)
  with pytest.raises(SystemExit):
    cli.main(["--version"])
  assert capsys.readouterr().out.strip() == f"jaxcfr {jaxcfr.__version__}"


def test_progress_bar_moves_with_iterations(capsys):
  assert cli.main(["solve", "kuhn_poker", "--iters", "2000", "--eval-every", "2000", "--progress"]) == 0
  err = capsys.readouterr().err
  assert "2000/2000" in err and "it/s" in err


def test_ctrl_c_saves_a_checkpoint_and_exits_cleanly(tmp_path):
  path = tmp_path / "run.npz"
  command = [
    sys.executable,
    "-m",
    "jaxcfr.run.cli",
    "solve",
    "leduc_poker",
    "--iters",
    "100000000",
    "--eval-every",
    "100000000",
    "--checkpoint",
    str(path),
    "--no-progress",
    "--dtype",
    "float64",
  ]
  # The child starts with SIGINT at its default disposition, whatever the test process
  # (or a library it loaded) left it at: a child that inherits "ignored" never sees Ctrl-C.
  process = subprocess.Popen(
    command,
    stdout=subprocess.PIPE,
    stderr=subprocess.PIPE,
    text=True,
    env={**os.environ, "PYTHONUNBUFFERED": "1"},
    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
  )
  deadline = time.time() + 120
  try:
    time.sleep(12)  # past start-up and compilation
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=max(10, deadline - time.time()))
  finally:  # a failed or timed-out test leaves no solver running
    if process.poll() is None:
      process.kill()
      process.communicate()
  assert process.returncode == 130, err[-2000:]
  assert "Traceback" not in err and len(err.strip().splitlines()) == 1
  assert "checkpoint saved to" in err
  state, metadata = checkpoint_lib.load(path, jaxcfr.solvers.get("cfr+").init(helpers.load("leduc_poker").tensors))
  assert 0 < metadata["iterations"] == int(state.iteration) < 100000000


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full, a file whose writes fail")
def test_failing_writes_name_the_file_and_keep_the_results(tmp_path, capsys):
  """A full disk after the run: one line naming the file and where the results went instead."""
  assert cli.main(["solve", "kuhn_poker", "--iters", "10", "--no-progress", "--json", "/dev/full"]) == 2
  line = _error_line(capsys)
  assert line.startswith("jaxcfr: error: --json /dev/full could not be written (No space left on device)")
  fallback = line.rsplit(" ", 1)[-1]
  with open(fallback) as f:
    saved = json.load(f)
  os.remove(fallback)
  assert saved["iters"] == 10 and saved["history"][-1]["iteration"] == 10
  out = tmp_path / "s.npz"
  assert cli.main(["solve", "kuhn_poker", "--iters", "10", "--no-progress", "--strategy-out", "/dev/full"]) == 2
  line = _error_line(capsys)
  assert "--strategy-out /dev/full could not be written" in line
  os.replace(line.rsplit(" ", 1)[-1], out)
  assert jaxcfr.load_strategy(out, jaxcfr.load("kuhn_poker"))[0].shape[0] == 6


def test_a_strategy_file_is_written_at_exactly_the_path_given(tmp_path):
  """NumPy adds .npz to a name without it; the command line writes the name it was given."""
  assert cli.main(["solve", "kuhn_poker", "--iters", "5", "--no-progress", "--strategy-out", str(tmp_path / "s")]) == 0
  assert [p.name for p in tmp_path.iterdir()] == ["s"]


def test_a_reader_that_leaves_early_gets_no_traceback():
  """``jaxcfr ... | head -1``: the command stops quietly when its standard output closes."""
  done = subprocess.run(
    ["bash", "-c", f"{sys.executable} -m jaxcfr.run.cli solve kuhn_poker --iters 50 --no-progress | head -1"],
    capture_output=True,
    text=True,
    timeout=120,
  )
  assert done.stdout.startswith("game") and "Traceback" not in done.stderr and "Broken pipe" not in done.stderr, (
    done.stderr[-2000:]
  )


# --- the public tree's and re-solving's inputs --------------------------------------------------------


def _one_line(error) -> str:
  text = str(error.value)
  assert "\n" not in text and "Traceback" not in text, text
  return text


@pytest.mark.parametrize(
  "game, message",
  [
    ("hunl_subgame(board=AhAh7c,pot=100)", "card 'Ah' appears twice in 'AhAh7c'"),
    ("hunl_subgame(board=AhKh,pot=100)", "parameter board needs 3, 4 or 5 cards (flop, turn or river), got 2"),
    ("hunl_subgame(board=AhKh7c2d3s4s,pot=100)", "parameter board needs 3, 4 or 5 cards"),
    ("hunl_subgame(board=AhKh7c,pot=0)", "parameter pot must be >= 2, got 0"),
    ("hunl_subgame(board=AhKh7c,pot=1000,stack=100)", "parameter pot must be even and at most twice the stack 100"),
    ("hunl_subgame(board=AhKh7c,pot=100,stack=0)", "parameter stack must be >= 1, got 0"),
    ("hunl_subgame(board=AhKh7c2d3s,pot=100,first_bets=-0.5)", "parameter first_bets needs positive pot fractions"),
    ("hunl_subgame(board=AhKh7c2d3s,pot=100,first_bets=nan)", "parameter first_bets needs positive pot fractions"),
    ("hunl_subgame(board=AhKh7c2d3s,pot=100,raises=0;1)", "parameter raises needs positive pot fractions"),
    ("hunl_subgame(board=AhKh7c2d3s,pot=100,big_blind=0)", "parameter big_blind must be >= 1, got 0"),
  ],
)
def test_hostile_hunl_subgame_parameters_are_one_line_errors(game, message):
  with pytest.raises(GameError) as error:
    jaxcfr.load(game, representation="public_tree")
  assert message in _one_line(error)


def _endgame_with(reach_of=None, text=None) -> str:
  """Libratus endgame 3 (a river) with its reach numbers changed by ``reach_of(list)``, or ``text``."""
  from jaxcfr.games import hunl_subgame  # pylint: disable=import-outside-toplevel

  river = (hunl_subgame.ENDGAMES / "subgame3.txt").read_text()
  if text is not None:
    return text(river)
  head, numbers = river.split("-reach", 1)
  numbers = numbers.split()
  reach_of(numbers)
  return head + "-reach " + " ".join(numbers) + "\n"


def _first_possible(numbers, player=0) -> int:
  return next(h for h in range(1326) if float(numbers[player * 1326 + h]) > 0)


@pytest.mark.parametrize(
  "edit, message",
  [
    (lambda n: n.__setitem__(slice(0, 1326), ["0"] * 1326), "player 0's reach is zero on every hand the board leaves"),
    (lambda n: n.__setitem__(_first_possible(n), "1.5"), "reach 1.5 of player 0 at hand .* is above 1"),
    (lambda n: n.__setitem__(1326 + _first_possible(n, 1), "-0.5"), "negative or non-finite reach -0.5 of player 1"),
    (lambda n: n.__setitem__(_first_possible(n), "nan"), "negative or non-finite reach nan of player 0"),
    (lambda n: n.__setitem__(0, "0.5"), "hand 2s2h holds a board card but player 0's reach is 0.5"),  # another board's
    (lambda n: n.__delitem__(slice(1300, None)), "-reach has 1300 numbers, expected 2652"),  # truncated
    (lambda n: n.__setitem__(3, "x" * 400), r"-reach holds 'xxxxxxxxxxxxxxxxxxxx\.\.\.', not a number"),
  ],
)
def test_hostile_ranges_files_are_one_line_errors_naming_the_file(edit, message, tmp_path):
  path = tmp_path / "ranges.txt"
  path.write_text(_endgame_with(edit))
  with pytest.raises(GameError, match=f"^{re.escape(str(path))}: {message}") as error:
    jaxcfr.load(f"hunl_subgame(ranges={path})")
  _one_line(error)


@pytest.mark.parametrize(
  "content, message",
  [
    (b"", "missing field -round"),
    (b"\0" * 500, r"'\\x00\\x00.*\.\.\.' comes before any field"),
    (b"-round 4\n-board \xff\xfe\n", "cannot read the endgame file"),
    (None, "cannot read the endgame file"),  # missing
  ],
)
def test_damaged_ranges_files_are_one_line_errors(content, message, tmp_path):
  path = tmp_path / "ranges.txt"
  if content is not None:
    path.write_bytes(content)
  with pytest.raises(GameError, match=f"^{re.escape(str(path))}: {message}") as error:
    jaxcfr.load(f"hunl_subgame(ranges={path})")
  assert len(_one_line(error)) < 300


@pytest.mark.parametrize(
  "damage, message",
  [
    (lambda raw: raw[: len(raw) // 2], "not JSON"),
    (lambda raw: b"\0" * 64, "not JSON|cannot read the spot file"),
    (lambda raw: raw.replace(b'"pot": 100', b'"pot": -100'), "pot must be an integer >= 2"),
    (lambda raw: b"[]", "a spot file holds a JSON object, got list"),
  ],
)
def test_damaged_spot_files_are_one_line_errors(damage, message, tmp_path):
  from jaxcfr.games.bet_trees import BetTree  # pylint: disable=import-outside-toplevel
  from jaxcfr.games.spots import Spot  # pylint: disable=import-outside-toplevel

  path = tmp_path / "spot.json"
  Spot("Td9d6h", 100, 400, "QQ+", "22+", BetTree()).save(path)
  path.write_bytes(damage(path.read_bytes()))
  with pytest.raises(GameError, match=f"^{re.escape(str(path))}: ({message})") as error:
    jaxcfr.load(f"hunl_subgame(spot={path})")
  _one_line(error)


RESOLVING_GAME = "no_limit_leduc_poker(betting=deepstack,stack=1200,ante=100)"


@pytest.fixture(scope="module")
def resolving_rules():
  return jaxcfr.load(RESOLVING_GAME, representation="public_tree").tree.rules


def _network_file(tmp_path, rules, **changes):
  """A small network of ``rules`` saved, then its members changed (None: removed) and the
  checksum made afresh: a file that verifies, so that only the network's own checks remain."""
  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  path = tmp_path / "net.npz"
  value_network.save(path, value_network.init(rules, hidden=(8, 8)))
  if changes:
    data = {k: np.asarray(v) for k, v in integrity.read_arrays(path, "network").items() if k != integrity.CHECKSUM}
    data.update({k: v for k, v in changes.items() if v is not None})
    data = {k: v for k, v in data.items() if changes.get(k, 0) is not None}
    with open(path, "wb") as f:
      np.savez(f, **integrity.with_checksum(data))
  return path


def _meta(**fields) -> np.ndarray:
  return np.array(json.dumps({"num_cards": 6, "num_hands": 6, "stack": 1200, **fields}))


@pytest.mark.parametrize(
  "changes, message",
  [
    (dict(meta=None), "is not a value network: no meta giving its game's num_cards, num_hands and stack"),
    (dict(meta=np.array("{")), "is not a value network: no meta"),
    (dict(meta=_meta(stack=0)), "deck 6, hands 6 and stack 0 are no game's"),
    (dict(meta=_meta(num_hands=7)), "deck 6, hands 7 and stack 1200 are no game's"),
    (dict(meta=_meta(stack="1200")), "its meta's num_cards, num_hands and stack must be integers"),
    (dict(w1=np.zeros((5, 8))), r"layer 1 has weights \(5, 8\) and biases \(8,\), not \(8, 8\)"),
    (dict(b0=np.zeros(3)), r"layer 0 has weights \(19, 8\) and biases \(3,\)"),
    (dict(w2=np.zeros((8, 10)), b2=np.zeros(10)), r"layer 2 has weights \(8, 10\) and biases \(10,\), not \(8, 12\)"),
    (dict(slope0=np.zeros(3)), r"layer 0's PReLU slopes are \(3,\), not \(8,\)"),
    (dict(w0=np.full((19, 8), np.nan)), "w0 is not finite floating-point numbers"),
    (dict(w0=np.zeros((19, 8), np.int64)), "w0 is not finite floating-point numbers"),
    (dict(w0=None, w1=None, w2=None, b0=None, b1=None, b2=None, slope0=None, slope1=None), "without layers"),
    (dict(slope1=None), r"not the members of a network of 3 layers \(missing or extra: slope1\)"),
    (dict(w3=np.zeros((12, 12))), r"missing or extra: b3, slope2"),
  ],
)
def test_hostile_value_network_files_are_one_line_errors(changes, message, tmp_path, resolving_rules):
  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  path = _network_file(tmp_path, resolving_rules, **changes)
  with pytest.raises(integrity.DamagedFileError) as error:
    value_network.load(path)
  text = _one_line(error)
  assert text.startswith(str(path)) and re.search(message, text), text


def test_missing_damaged_and_foreign_value_networks_are_one_line_errors(tmp_path, resolving_rules):
  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  with pytest.raises(integrity.DamagedFileError, match="value network .*absent.npz does not exist"):
    value_network.load(tmp_path / "absent.npz")
  path = _network_file(tmp_path, resolving_rules)
  raw = path.read_bytes()
  path.write_bytes(raw[: len(raw) // 2])
  with pytest.raises(integrity.DamagedFileError, match="is not a readable jaxcfr .npz file"):
    value_network.load(path)
  path = _network_file(tmp_path, resolving_rules)
  assert value_network.load(path, resolving_rules).num_hands == 6  # its own game
  other = jaxcfr.load("no_limit_leduc_poker(betting=deepstack,stack=600,ante=100)", representation="public_tree")
  with pytest.raises(
    ValueError, match=r"net.npz is a network of another game \(deck 6, hands 6, stack 1200; the game's: "
  ):
    value_network.load(path, other.tree.rules)
  wider = jaxcfr.load(
    "no_limit_leduc_poker(betting=deepstack,stack=1200,ante=100,num_ranks=4)", representation="public_tree"
  )
  with pytest.raises(ValueError, match=r"another game \(deck 6, hands 6, stack 1200; the game's: deck 8, hands 8"):
    value_network.check_game(value_network.load(path), wider.tree.rules, str(path))
  strategy = tmp_path / "s.npz"  # another kind of file altogether
  kuhn = jaxcfr.load("kuhn_poker")
  jaxcfr.save_strategy(strategy, kuhn, jaxcfr.kits.of_game(kuhn).uniform_profile(kuhn.tensors))
  with pytest.raises(integrity.DamagedFileError, match="s.npz is not a value network: no meta"):
    value_network.load(strategy)


def test_hostile_value_network_data_are_one_line_errors(tmp_path, resolving_rules):
  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  count, hands = 3, 6
  good = value_network.Situations(
    np.full(count, 200.0), np.zeros((6, count), bool), np.full((2, hands, count), 1 / 6), np.zeros((2, hands, count))
  )
  path = tmp_path / "data.npz"
  for data, message in [
    (good._replace(board=np.zeros((6, 2), bool)), "its arrays' shapes do not agree"),
    (good._replace(ranges=np.zeros((3, hands, count))), "its arrays' shapes do not agree"),
    (good._replace(values=np.full((2, hands, count), np.nan)), "non-finite values"),
    (good._replace(pot=np.zeros(count)), "a pot that is not positive or a negative range"),
    (good._replace(ranges=-np.ones((2, hands, count))), "a pot that is not positive or a negative range"),
  ]:
    value_network.save_data(path, data)
    with pytest.raises(integrity.DamagedFileError, match=f"^{re.escape(str(path))}: {message}") as error:
      value_network.load_data(path)
    _one_line(error)
  value_network.save_data(path, good)
  assert value_network.load_data(path, resolving_rules).pot.shape == (count,)
  wider = jaxcfr.load(
    "no_limit_leduc_poker(betting=deepstack,stack=1200,ante=100,num_ranks=4)", representation="public_tree"
  )
  with pytest.raises(ValueError, match=r"holds situations of another game \(deck 6, hands 6; the game's: deck 8"):
    value_network.load_data(path, wider.tree.rules)


def test_hostile_resolve_inputs_are_one_line_errors(resolving_rules):
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits import public_tree  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import lookahead, resolving  # pylint: disable=import-outside-toplevel

  tree = public_tree.to_device(lookahead.build(resolving_rules, rounds=None))
  hands = jnp.ones(tree.num_hands)
  for kwargs, message in [
    (dict(own_range=jnp.ones(5)), r"own_range must be \[H, \*B\] with the tree's H = 6 hands, got shape \(5,\)"),
    (dict(opponent_values=jnp.ones(())), r"opponent_values must be \[H, \*B\] .* got shape \(\)"),
    (dict(own_range=hands.at[0].set(jnp.nan)), "own_range holds values that are not finite"),
    (dict(opponent_values=hands.at[0].set(jnp.inf)), "opponent_values holds values that are not finite"),
    (dict(own_range=-hands), "own_range holds negative weights"),
    (dict(player=2), "player must be 0 or 1, got 2"),
    (dict(iterations=0), "iterations must be >= 1, got 0"),
  ]:
    arguments = dict(own_range=hands, opponent_values=hands, player=0, iterations=1) | kwargs
    with pytest.raises(ValueError, match=message) as error:
      resolving.resolve(tree, arguments.pop("own_range"), arguments.pop("opponent_values"), **arguments)
    _one_line(error)
  empty = resolving.resolve(tree, jnp.zeros(tree.num_hands), hands, player=0, iterations=2)  # a node never reached
  assert np.all(np.isfinite(np.asarray(empty.strategy)))
