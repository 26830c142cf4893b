"""The command line's solver flags are generated from the solvers' declarations: every
declared hyperparameter of every registered solver can be set on the command line and
reaches the solver's state; a flag of another solver is a one-line error."""

import math

import jax
import numpy as np
import pytest

import jaxcfr
from jaxcfr import solvers
from jaxcfr.run import cli

GAMES = {
  "sequence_form": "kuhn_poker",
  "card_abstraction": "limit_holdem(buckets=3,rollouts=4)",
  "public_tree": "kuhn_poker",
}
# Options that enable a hyperparameter (Smooth UCT's, the tree regressor's threshold).
ENABLING = {
  ("mcts", "eta"): ["--smooth"],
  ("mcts", "d"): ["--smooth"],
  ("mcts", "gamma"): ["--smooth"],
  ("rcfr", "threshold"): ["--regressor", "tree"],
}


# Where a hyperparameter lands when the state keeps it under another name (dbr's p is the
# confidence of every infoset).
STORED_AS = {("dbr", "p"): ".confidence[0]"}


def _value(param):
  """A valid value that differs from the default."""
  if param.kind is int:
    low = 0 if param.low is None else int(param.low)
    return low + 1 if param.high is None or low + 1 <= param.high else low
  low = 0.0 if param.low is None else param.low
  high = low + 1.0 if param.high is None or param.high > 1e6 else param.high
  return low + (high - low) * 0.375


# What the command line gives a solver that requires it (``jaxcfr rnr``'s model and p); a
# solver requiring anything else (a node lock) is refused by ``jaxcfr solve`` in one line.
GIVEN = {"model", "p"}


def _cases():
  for declared in solvers.registrations():
    if not set(declared.requires) <= GIVEN:
      continue
    for param in declared.hyperparameters:
      if param.cli:
        yield pytest.param(declared, param, id=f"{declared.name}-{declared.representation}-{param.name}")


def test_solvers_needing_what_only_python_gives_are_refused_in_one_line(capsys):
  refused = [d for d in solvers.registrations() if not set(d.requires) <= GIVEN]
  for declared in refused:
    argv = ["solve", GAMES[declared.representation], "--algo", declared.name]
    assert cli.main([*argv, "--representation", str(declared.representation)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "which the command line cannot give" in err[0], err


@pytest.fixture(scope="module")
def games():
  import jaxcfr

  return {r: jaxcfr.load(name, representation=r) for r, name in GAMES.items()}


@pytest.mark.parametrize("declared,param", list(_cases()))
def test_every_declared_hyperparameter_reaches_the_state(declared, param, games):
  value = _value(param)
  argv = ["solve", GAMES[declared.representation], "--algo", declared.name, param.flag, str(value)]
  argv += ["--representation", str(declared.representation)]
  argv += ENABLING.get((declared.name, param.name), [])
  args = cli.parser().parse_args(argv)
  representation, _, options, lists = cli.solve_settings(args)
  assert lists[param.name] == [value]
  game = games[str(representation)]
  solver = solvers.get(declared.name, representation, **options)
  settings = {k: v[0] for k, v in lists.items()}
  if "model" in declared.requires:
    from jaxcfr.kits.card_abstraction import match as holdem_match

    sampled = str(representation) == "card_abstraction"
    settings["model"] = (
      holdem_match.rule_bot(game) if sampled else jaxcfr.kits.of_game(game).uniform_profile(game.tensors)
    )
  p = declared.param("p")
  if p is not None and p.default is None and "p" not in settings:  # the restricted solvers' required p
    settings["p"] = 0.5
  state = solver.init(game.tensors, **settings)
  leaves = {jax.tree_util.keystr(path): leaf for path, leaf in jax.tree_util.tree_flatten_with_path(state)[0]}
  stored = STORED_AS.get((declared.name, param.name), f".{param.name}")
  found = [leaf for path, leaf in leaves.items() if path.endswith(stored)]
  if not found and param.name == "seed":  # a state may keep only the key the seed makes
    key = jax.random.key_data(jax.random.key(np.uint32(value)))
    assert any(path.endswith(".key") and np.array_equal(leaf, key) for path, leaf in leaves.items())
    return
  assert found, f"{param.name} is not a leaf of {declared.name}'s state: {sorted(leaves)}"
  np.testing.assert_allclose(np.asarray(found[0], float), np.full(np.shape(found[0]), value), rtol=1e-6)


def test_help_lists_every_declared_setting_with_its_solvers():
  text = cli.parser()._subparsers._group_actions[0].choices["solve"].format_help()  # pylint: disable=protected-access
  for declared in solvers.registrations():
    for param in declared.params:
      if param.cli:
        assert param.flag in text
    assert declared.name in text
  assert "mcts: Smooth UCT: eta" in text.replace("\n", " ").replace("  ", " ") or "Smooth UCT: eta" in text


@pytest.mark.parametrize(
  "argv,message",
  [
    (
      ["--algo", "cfr+", "--eta", "0.5"],
      "--eta does not apply to --algo cfr+ on sequence_form games (it applies to: mcts)",
    ),
    (["--algo", "mccfr-es", "--epsilon", "0.5"], "--epsilon does not apply to --algo mccfr-es"),
    (["--algo", "dcfr", "--gamma", "-1"], "gamma of solver 'dcfr' must be >= 0.0"),
    (["--algo", "mccfr-os", "--seed", "99999999999999"], "seed of solver 'mccfr-os' must be in [0, 4294967295]"),
    (["--algo", "mcts", "--final", "best"], "invalid choice"),
  ],
)
def test_bad_settings_are_one_line_errors_before_loading(argv, message, capsys, monkeypatch):
  def refuse(*args, **kwargs):
    raise AssertionError("a game was loaded before the settings were checked")

  monkeypatch.setattr(jaxcfr.kits, "load", refuse)
  code = None
  try:
    code = cli.main(["solve", "kuhn_poker", *argv])
  except SystemExit as exit_:  # argparse's own errors (choices)
    code = exit_.code
  assert code == 2
  err = capsys.readouterr().err
  assert message in err and "Traceback" not in err


def test_negative_values_parse_as_lists():
  args = cli.parser().parse_args(cli._negative_values(["solve", "--algo", "dcfr", "--beta", "-1,0"]))  # pylint: disable=protected-access
  assert args.beta == [-1.0, 0.0]


GRID_64 = ["--alpha", "1,2", "--beta", "0,1", "--gamma", ",".join(map(str, range(16)))]  # 2 x 2 x 16 runs


@pytest.mark.parametrize(
  "argv, want",
  [
    (["liars_dice"], "sequence_form"),  # one run: the sequence form is the faster
    (["liars_dice", *GRID_64], "public_tree"),
    (["liars_dice", "--batch", "64", "--algo", "mccfr-os"], "sequence_form"),  # no sampled public-tree solver
    (["liars_dice", *GRID_64, "--representation", "sequence_form"], "sequence_form"),  # as asked
    (["leduc_poker", *GRID_64], "sequence_form"),  # Leduc's public tree is the slower for every batch
  ],
)
def test_the_faster_representation_is_chosen_for_the_batch(argv, want):
  """liar's dice declares GameInfo.public_tree_runs=64: a batch of 64 runs gets the public tree."""
  args = cli.parser().parse_args(["solve", *argv] + ([] if "--algo" in argv else ["--algo", "dcfr"]))
  representation, declared, _, lists = cli.solve_settings(args)
  assert str(representation) == want and declared.representation == representation
  assert math.prod(len(v) for v in lists.values()) == (1 if argv == ["liars_dice"] else 64)


def test_the_compilation_cache_is_on_by_default_and_off_on_request(tmp_path, monkeypatch):
  """``--compilation-cache`` (default on): xla/ under the game cache unless
  $JAX_COMPILATION_CACHE_DIR names the folder; off with --no-compilation-cache or
  $JAXCFR_COMPILATION_CACHE=0."""
  monkeypatch.setenv("JAXCFR_CACHE_DIR", str(tmp_path))
  updates = []
  monkeypatch.setattr(jax.config, "update", lambda name, value: updates.append((name, value)))  # the session's stays
  assert cli.compilation_cache(None, {}) == str(tmp_path / "xla")
  assert ("jax_compilation_cache_dir", str(tmp_path / "xla")) in updates
  assert cli.compilation_cache(True, {"JAX_COMPILATION_CACHE_DIR": "/elsewhere"}) == "/elsewhere"
  assert cli.compilation_cache(False, {}) is None
  for off in ("0", "false", "OFF"):
    assert cli.compilation_cache(None, {cli.COMPILATION_CACHE_ENV: off}) is None
  assert cli.compilation_cache(True, {cli.COMPILATION_CACHE_ENV: "0"}) == str(tmp_path / "xla")
  assert cli.parser().parse_args(["solve", "--no-compilation-cache"]).compilation_cache is False
