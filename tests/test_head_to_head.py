"""Head-to-head evaluation (jaxcfr.evaluate.head_to_head): exact values with seats alternated,
crosstables, the sampled mode against its 95% interval, and the ``jaxcfr match`` and
``jaxcfr solve --algo mcts`` command lines."""

import dataclasses
import json

import jax
import numpy as np
import pytest

from jaxcfr.evaluate import head_to_head, kuhn
from jaxcfr.kits.card_abstraction import game as limit_holdem
from jaxcfr.run import cli
import helpers


def _agents(game):
  return [helpers.random_profile(game.arrays, seed=s) for s in range(3)] + [kuhn.equilibrium(game, 0.2)]


def test_crosstable_is_antisymmetric_and_matches_the_reference_values():
  game = helpers.load("kuhn_poker")
  agents = _agents(game)
  table = head_to_head.crosstable(game.tensors, agents)
  np.testing.assert_allclose(table, -table.T, atol=1e-12)
  np.testing.assert_allclose(np.diag(table), 0, atol=1e-12)
  a, b = agents[0], agents[1]
  expected = (
    helpers.reference_expected_value(game.arrays, (a[0], b[1]))
    - helpers.reference_expected_value(game.arrays, (b[0], a[1]))
  ) / 2
  np.testing.assert_allclose(table[0, 1], expected, rtol=1e-10)
  assert np.all(table[3, :3] > 0)  # an equilibrium never loses with seats alternated, and beats random agents
  assert head_to_head.is_poker(game) and not head_to_head.is_poker(helpers.load("goofspiel(num_cards=4)"))


def test_poker_and_its_unit_are_what_the_game_declares_not_its_name():
  kuhn, goofspiel = helpers.load("kuhn_poker"), helpers.load("goofspiel(num_cards=3)")
  assert head_to_head.is_poker(kuhn) and head_to_head.is_poker(kuhn.tensors)
  assert head_to_head.table_unit(kuhn) == ("milli-chips per hand", 1000.0)
  assert not head_to_head.is_poker(goofspiel) and head_to_head.table_unit(goofspiel) == ("value per game", 1.0)
  assert head_to_head.is_poker(dataclasses.replace(kuhn, name="a_game_never_seen"))
  assert not head_to_head.is_poker(dataclasses.replace(goofspiel, name="poker_in_name_only"))
  holdem = object.__new__(limit_holdem.HoldemGame)  # its declarations need no abstraction built
  assert head_to_head.is_poker(holdem) and holdem.representation == "card_abstraction"
  assert head_to_head.table_unit(holdem) == ("milli-small bets per hand", 1000.0)
  assert kuhn.representation == "sequence_form"
  with pytest.raises(TypeError, match="not a name"):
    head_to_head.is_poker("kuhn_poker")


def test_sampled_matches_agree_with_the_exact_values_within_their_intervals():
  game = helpers.load("kuhn_poker")
  agents = _agents(game)
  table = head_to_head.crosstable(game.tensors, agents)
  covered, trials = 0, 0
  for k, (i, j) in enumerate([(0, 1), (0, 3), (2, 3), (1, 2)] * 5):
    row = head_to_head.sampled_match(game.tensors, agents[i], agents[j], jax.random.PRNGKey(k), 4000)
    assert row["games"] == 4000 and row["half_width"] > 0
    np.testing.assert_allclose(row["half_width"], head_to_head.Z95 * row["stderr"])
    covered += row["low"] <= table[i, j] <= row["high"]
    trials += 1
    assert abs(row["mean"] - table[i, j]) < 2 * row["half_width"]  # four sigma
  assert covered >= trials - 4  # 95% intervals: about one miss in twenty


def test_cli_match_and_mcts_solve(tmp_path, capsys):
  files = []
  for name, args in (
    ("cfr", ["--algo", "cfr+", "--iters", "200"]),
    ("mcts", ["--algo", "mcts", "--iters", "300", "--seed", "0,1", "--uct-c", "2"]),
  ):
    out = tmp_path / f"{name}.json"
    assert (
      cli.main(
        [
          "solve",
          "kuhn_poker",
          *args,
          "--json",
          str(out),
          "--strategy-out",
          str(tmp_path / f"{name}.npz"),
          "--no-progress",
          "--eval-every",
          "150",
        ]
      )
      == 0
    )
    files.append(str(tmp_path / f"{name}.npz"))
  record = json.loads((tmp_path / "mcts.json").read_text())
  assert record["hyperparameters"]["seed"] == [0, 1] and record["batch_size"] == 2
  assert len(record["squared_error"]) == 2 and len(record["dominated_error"]) == 2
  assert all("squared_error" in row and "dominated_error" in row for row in record["history"])
  assert "squared_error" in json.loads((tmp_path / "cfr.json").read_text())["history"][0]
  out = tmp_path / "match.json"
  assert (
    cli.main(["match", "kuhn_poker", "--agents", ",".join(files + ["uniform"]), "--games", "400", "--json", str(out)])
    == 0
  )
  match = json.loads(out.read_text())
  assert match["agents"][1:3] == [files[1] + "[0]", files[1] + "[1]"] and len(match["crosstable"]) == 4
  assert match["unit"] == "milli-chips per hand" and len(match["sampled"]) == 6
  printed = capsys.readouterr().out.splitlines()
  title = next(i for i, line in enumerate(printed) if "row agent's exact expected value" in line)
  assert "milli-chips per hand" in printed[title]
  assert printed[title + 1].split() == ["row", "/", "column", *match["agents"]]  # the columns are named
  assert cli.main(["match", "kuhn_poker", "--agents", f"{files[1]}#1,uniform", "--json", str(out)]) == 0
  one = json.loads(out.read_text())  # FILE#K: run K of a batched file, as rnr's --model reads it
  assert one["agents"] == [f"{files[1]}#1", "uniform"]
  assert one["crosstable"][0][1] == match["crosstable"][2][3]
  assert cli.main(["match", "kuhn_poker", "--agents", "uniform"]) == 2
  assert cli.main(["solve", "kuhn_poker", "--algo", "cfr+", "--smooth"]) == 2
  assert cli.main(["solve", "kuhn_poker", "--algo", "mcts", "--seed", "0,1", "--batch", "2"]) == 2
  assert "--batch B takes one --seed" in capsys.readouterr().err
