"""Every subcommand and output flag on every representation that the registry offers, at small
size: each combination writes a file that loads back, or is refused in one
line before any solve. The three kits' small games: Kuhn poker on the sequence form and on the
public tree, limit hold'em's card abstraction, and a river subgame of heads-up no-limit."""

import json

import pytest

import jaxcfr
from jaxcfr.run import checkpoint as checkpoint_lib
from jaxcfr.run import cli, jobs, outputs

CASES = [
  pytest.param("kuhn_poker", "sequence_form", "cfr+", id="kuhn-sequence_form"),
  pytest.param("kuhn_poker", "public_tree", "cfr+", id="kuhn-public_tree"),
  pytest.param(
    "limit_holdem(buckets=3,rollouts=4)",
    "card_abstraction",
    "mccfr-os",
    id="holdem-card_abstraction",
    marks=[pytest.mark.slow],
  ),
  pytest.param("hunl_subgame(endgame=4)", "public_tree", "cfr+", id="hunl-public_tree", marks=[pytest.mark.slow]),
]
SMALL = ["--iters", "4", "--eval-every", "2", "--no-progress"]


def _run(argv, capsys) -> tuple[int, str]:
  capsys.readouterr()
  try:
    code = cli.main(argv)
  except SystemExit as exit_:  # argparse's own errors
    code = exit_.code
  return code, capsys.readouterr().err


def _refused(argv, capsys, monkeypatch, message: str) -> None:
  """``argv`` ends in one error line naming ``message``, before any solver step or job part."""
  monkeypatch.setattr(
    jaxcfr.solvers.Solver, "run", lambda *a, **k: pytest.fail(f"{argv}: a solve ran before the check")
  )
  monkeypatch.setattr(jobs, "run_job", lambda *a, **k: pytest.fail(f"{argv}: a job ran before the check"))
  code, err = _run(argv, capsys)
  lines = err.strip().splitlines()
  assert code == 2 and len(lines) == 1 and lines[0].startswith("jaxcfr: error:"), (argv, err)
  assert message in lines[0], (argv, lines[0])
  monkeypatch.undo()


@pytest.mark.parametrize("game,representation,algo", CASES)
def test_every_subcommand_and_output_flag_on_every_representation(
  game, representation, algo, tmp_path, capsys, monkeypatch
):
  files = {name: str(tmp_path / name) for name in ("s.npz", "r.json", "c.npz", "i.json", "m.json", "x.json")}
  solve = ["solve", game, "--representation", representation, "--algo", algo, *SMALL]
  loaded = jaxcfr.load(game, representation=representation, dtype="float32")  # the command line's default

  # solve --strategy-out: a strategy file of the kit that loads back onto the game
  assert _run([*solve, "--strategy-out", files["s.npz"]], capsys)[0] == 0
  profile = jaxcfr.load_strategy(files["s.npz"], loaded)
  jaxcfr.kits.of_game(loaded).check_profile(loaded.tensors, profile)

  # solve --json: the self-described record
  assert _run([*solve, "--json", files["r.json"]], capsys)[0] == 0
  straight = json.loads(open(files["r.json"], encoding="utf-8").read())
  assert straight["representation"] == representation and straight["history"][-1]["iteration"] == 4

  # solve --checkpoint, then --resume: a checkpoint of the run, and the resumed run equals the straight one
  half = [a if a != "4" else "2" for a in solve]
  assert _run([*half, "--checkpoint", files["c.npz"]], capsys)[0] == 0
  state, meta = checkpoint_lib.load(files["c.npz"], _template(loaded, algo, representation), host=True)
  assert meta["iterations"] == 2 and meta["identity"]["representation"] == representation
  assert _run([*solve, "--checkpoint", files["c.npz"], "--resume", "--json", files["x.json"]], capsys)[0] == 0
  resumed = json.loads(open(files["x.json"], encoding="utf-8").read())
  headline = "sb_per_hand_vs_bot" if representation == "card_abstraction" else "exploitability"
  assert resumed[headline] == straight[headline]

  # info --json
  assert _run(["info", game, "--representation", representation, "--json", files["i.json"]], capsys)[0] == 0
  assert json.loads(open(files["i.json"], encoding="utf-8").read())["representation"] == representation

  # match: an exact crosstable where the kit has exact expected values; refused otherwise
  match = ["match", game, "--representation", representation, "--agents", f"{files['s.npz']},uniform"]
  exact = jaxcfr.kits.get(representation).expected_value is not None
  if not exact:
    _refused([*match, "--json", files["m.json"]], capsys, monkeypatch, "has no exact expected value")
  else:
    assert _run([*match, "--json", files["m.json"]], capsys)[0] == 0
    table = json.loads(open(files["m.json"], encoding="utf-8").read())["crosstable"]
    assert len(table) == 2 and table[0][0] == 0 and table[0][1] == pytest.approx(-table[1][0])
  if representation != "sequence_form" and exact:
    _refused([*match, "--games", "100"], capsys, monkeypatch, "--games plays sampled games on the sequence form")

  # rnr against the solve's strategy file as the model, on every exact kit; refused elsewhere
  rnr = ["rnr", game, "--representation", representation, "--model", files["s.npz"], "--p", "0.5", *SMALL]
  rnr += ["--value-iters", "10", "--json", files["x.json"]]
  if exact:
    assert _run(rnr, capsys)[0] == 0
    (row,) = json.loads(open(files["x.json"], encoding="utf-8").read())["rows"]
    assert row["p"] == 0.5 and row["restricted_player"] == 1
  else:
    _refused(rnr, capsys, monkeypatch, "by exact best responses")

  # the depth-limited commands on games that are not two-round public trees
  message = "two betting rounds" if "public_tree" in jaxcfr.kits.representations_of(game) else "no public_tree"
  _refused(["resolve", game, "--strategy-out", files["x.json"]], capsys, monkeypatch, message)
  _refused(["value-data", game, "--out", files["x.json"]], capsys, monkeypatch, message)
  _refused(["value-train", files["s.npz"], "--game", game, "--out", files["x.json"]], capsys, monkeypatch, message)


def _template(game, algo, representation):
  solver = jaxcfr.solvers.get(algo, representation)
  return solver.init(game.tensors)


def test_refused_combinations_name_the_flag(tmp_path, capsys, monkeypatch):
  """Flags that need another, and output files that collide, are one line before any work,
  whatever the subcommand."""
  out = str(tmp_path / "o.json")
  for argv, message in [
    (["resolve", "kuhn_poker", "--resume"], "--resume needs --checkpoint FILE"),
    (["value-data", "kuhn_poker", "--out", out, "--json", out], "--out and --json name the same file"),
    (["solve", "kuhn_poker", "--checkpoint-every", "5"], "--checkpoint-every needs --checkpoint FILE"),
    (["solve", "kuhn_poker", "--algo", "mcrnr"], "needs an opponent model; use 'jaxcfr rnr kuhn_poker"),
    (["rnr", "kuhn_poker", "--alpha", "1,2"], "--alpha takes one value in rnr"),
    (["match", "limit_holdem(buckets=3,rollouts=4)", "--agents", "uniform,uniform"], "no exact expected value"),
  ]:
    _refused(argv, capsys, monkeypatch, message)


def test_the_summary_table_fits_names_of_any_length():
  """A long metric name (exploitability_pot_percent) keeps a space before its value, and every
  value starts in one column."""
  rows = [("game", "g", ""), ("exploitability_pot_percent", 0.25, "(note)"), ("x" * 40, 1, "")]
  lines = outputs.table(rows)
  columns = {line.index(str(value), len(name)) for line, (name, value, _) in zip(lines, rows)}
  assert len(columns) == 1 and min(columns) >= 42
  assert outputs.table([("seconds", 1, "")])[0].index("1") == 25  # short names: the column as before
  assert all(line[column - 2 : column] == "  " for line, column in zip(lines, [min(columns)] * 3))
