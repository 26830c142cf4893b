"""A fuzz pass over the command line and the loaders, as a hostile tester would run it:
game strings from a grammar of every native game's parameters (and junk), sizes near the
memory guard, random combinations of the solver flags. Every input ends in a normal run or
in one error line and exit 2: never a traceback, a hang past its time limit, or an
allocation past the memory limit. (Damaged files: tests/test_hostile.py and test_cache.py.)"""

import signal

import hypothesis
import hypothesis.strategies as st
import pytest

from jaxcfr.run import cli

_SECONDS = 120  # an example that runs longer than this is a hang


class _Hang(Exception):
  pass


def _raise_hang(signum, frame):
  raise _Hang(f"no answer within {_SECONDS} s")


def _run(argv, capfd) -> tuple[int, str]:
  """(exit code, stderr) of the command line in this process, under a time limit; ``capfd``
  sees what native libraries write to the process's stderr too."""
  capfd.readouterr()
  previous = signal.signal(signal.SIGALRM, _raise_hang)
  signal.alarm(_SECONDS)
  try:
    try:
      code = cli.main(argv)
    except SystemExit as exit_:  # argparse's own errors
      code = exit_.code
  finally:
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)
  return code, capfd.readouterr().err


def _assert_clean(code, err, argv):
  assert code in (0, 2), (argv, code, err[-2000:])
  assert "Traceback" not in err and "Error:" not in err.replace("error:", ""), (argv, err[-2000:])
  if code == 2:
    lines = [line for line in err.strip().splitlines() if not line.startswith(("usage:", " "))]
    assert len(lines) == 1 and "error" in lines[0], (argv, err[-2000:])


_VALUES = st.one_of(
  st.integers(-3, 12),
  st.integers(-(10**12), 10**12),
  st.floats(allow_nan=True, allow_infinity=True).map(lambda v: f"{v!r}"),
  st.sampled_from(["", "x", "True", "false", "none", "1e400", "0.5", "-0", "allin", "1;2", "0.5;allin", "(", ")"]),
)
_PARAMETERS = {
  "kuhn_poker": [],
  "leduc_poker": [],
  "one_card_poker": ["num_cards"],
  "rps": [],
  "coin_toss": ["sell_value"],
  "goofspiel": ["num_cards", "imp_info", "points_order", "returns_type", "forced_last_round"],
  "liars_dice": ["dice_sides"],
  "princess_and_monster": ["rows", "cols", "horizon"],
  "latent_tic_tac_toe": ["opening"],
  "no_limit_leduc_poker": ["stack", "ante", "betting", "raise_rule", "num_ranks", "num_suits"],
  "hunl_subgame": ["endgame", "pot", "stack", "first_bets", "raises", "big_blind", "board"],
  "limit_holdem": ["buckets", "bucketing", "rollouts"],
  "tic_tac_toe": [],  # through OpenSpiel
  "no_such_game": ["x"],
}


@st.composite
def _game_strings(draw) -> str:
  name = draw(st.sampled_from(sorted(_PARAMETERS)))
  keys = draw(st.lists(st.sampled_from([*_PARAMETERS[name], "bogus", "num_cards"]), max_size=3, unique=True))
  body = ",".join(f"{key}={draw(_VALUES)}" for key in keys)
  prefix = draw(st.sampled_from(["", "", "", "openspiel:"]))
  return f"{prefix}{name}({body})" if body or draw(st.booleans()) else f"{prefix}{name}"


_FIXTURE = [hypothesis.HealthCheck.too_slow, hypothesis.HealthCheck.function_scoped_fixture]


@hypothesis.settings(max_examples=60, deadline=None, suppress_health_check=_FIXTURE)
@hypothesis.given(game=st.one_of(_game_strings(), st.text(max_size=30)), limit=st.sampled_from(["16M", "64M", "256M"]))
def test_fuzz_game_strings_end_cleanly(game, limit, capfd):
  """Any game string, under a memory limit small enough that large games meet the guard."""
  argv = ["info", game, "--max-memory", limit]
  _assert_clean(*_run(argv, capfd), argv)


@pytest.mark.parametrize(
  "game",
  [
    "goofspiel(num_cards={n})",
    "one_card_poker(num_cards={n}0)",
    "liars_dice(dice_sides={n})",
    "no_limit_leduc_poker(stack={n})",
    "princess_and_monster(rows=3,cols=3,horizon={n})",
  ],
)
@hypothesis.settings(max_examples=6, deadline=None, suppress_health_check=_FIXTURE)
@hypothesis.given(n=st.integers(2, 14), megabytes=st.integers(1, 200))
def test_fuzz_sizes_near_the_guard(game, n, megabytes, capfd):
  """Growing parameters against a random limit: a build within it, or the guard's line."""
  argv = ["info", game.format(n=n), "--max-memory", f"{megabytes}M"]
  code, err = _run(argv, capfd)
  _assert_clean(code, err, argv)
  if code == 2:
    assert "needs about" in err or "ran out of memory" in err or "parameter" in err, err


_FLAGS = {
  "--algo": st.sampled_from(["cfr", "cfr+", "dcfr", "pcfr+", "mccfr-os", "mccfr-es", "cfr-cs", "mcts", "mmd", "rcfr"]),
  "--batch": st.sampled_from(["1", "2", "3", "0", "-1"]),
  "--seed": st.sampled_from(["0", "7", "1,2", "-1", "99999999999999"]),
  "--epsilon": st.sampled_from(["0", "0.6", "1", "2", "0.1,0.2"]),
  "--alpha": st.sampled_from(["1.5", "0", "-1", "100", "1,2"]),
  "--gamma": st.sampled_from(["2", "0", "1e9"]),
  "--trajectories": st.sampled_from(["1", "4", "0"]),
  "--updates": st.sampled_from(["alternating", "simultaneous", "both"]),
  "--averaging-delay": st.sampled_from(["0", "2", "100"]),
  "--checkpoint-every": st.sampled_from(["1", "3"]),
  "--eval-every": st.sampled_from(["1", "2", "10"]),
  "--dtype": st.sampled_from(["float32", "float64"]),
  "--representation": st.sampled_from(["sequence_form", "public_tree", "card_abstraction"]),
  "--temperature": st.sampled_from(["0.1", "0", "-1"]),
  "--regressor": st.sampled_from(["table", "tree", "mlp", "nope"]),
  "--max-memory": st.sampled_from(["1K", "1G"]),
  "--storage": st.sampled_from(["float", "16bit", "8bit"]),
}


@hypothesis.settings(max_examples=40, deadline=None, suppress_health_check=_FIXTURE)
@hypothesis.given(
  game=st.sampled_from(["kuhn_poker", "leduc_poker", "one_card_poker(num_cards=4)"]),
  flags=st.lists(st.sampled_from(sorted(_FLAGS)), max_size=4, unique=True),
  data=st.data(),
)
def test_fuzz_flag_combinations_end_cleanly(game, flags, data, capfd):
  """Random combinations of solver flags: a run, or one line naming what does not apply."""
  argv = ["solve", game, "--iters", "4", "--no-progress"]
  for flag in flags:
    argv += [flag, data.draw(_FLAGS[flag], label=flag)]
  _assert_clean(*_run(argv, capfd), argv)
