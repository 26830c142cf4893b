"""The solve driver, checkpoints, strategy files and the command line."""

import dataclasses
import json
import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr.run import cli, driver


@pytest.fixture(scope="module")
def kuhn():
  return jaxcfr.load("kuhn_poker", dtype=jnp.float64)


def test_solve_history_and_metrics(kuhn):
  result = jaxcfr.solve(kuhn, "cfr+", 50, eval_every=20)
  assert [row["iteration"] for row in result.history] == [20, 40, 50]
  solver = jaxcfr.solvers.get("cfr+")
  alone = solver.run(kuhn.tensors, solver.init(kuhn.tensors), 50)
  expected = float(jaxcfr.exploitability(kuhn.tensors, solver.average_strategy(kuhn.tensors, alone)))
  summary = result.summary()
  assert summary["exploitability"] == pytest.approx(expected, rel=1e-12)
  assert summary["nash_conv"] == pytest.approx(2 * expected, rel=1e-12)
  assert summary["hardware"]["jax"] == jax.__version__ and summary["hardware"]["cpu_count"] == os.cpu_count()
  exploitabilities = [row["exploitability"] for row in result.history]
  assert exploitabilities[-1] < exploitabilities[0]


def test_resume_equals_uninterrupted_run(kuhn, tmp_path):
  path = tmp_path / "run.npz"
  straight = jaxcfr.solve(kuhn, "dcfr", 60, eval_every=20)
  first = jaxcfr.solve(kuhn, "dcfr", 40, eval_every=20, checkpoint=path)
  assert first.history[-1]["iteration"] == 40
  resumed = jaxcfr.solve(kuhn, "dcfr", 60, eval_every=20, checkpoint=path, resume=True)
  assert [r["iteration"] for r in resumed.history] == [20, 40, 60]
  for a, b in zip(straight.average_strategy, resumed.average_strategy):
    np.testing.assert_array_equal(a, b)
  with pytest.raises(ValueError, match="another run"):
    jaxcfr.solve(kuhn, "cfr", 80, checkpoint=path, resume=True)


def test_batched_solve_reports_one_result_per_configuration(kuhn):
  grid = driver.hyperparameter_grid(alpha=[1.0, 2.0], gamma=[1.0, 3.0])
  result = jaxcfr.solve(kuhn, "dcfr", 30, batch=grid)
  assert result.batch_size == 4
  assert len(result.summary()["exploitability"]) == 4
  alone = jaxcfr.solve(kuhn, "dcfr", 30, alpha=2.0, gamma=1.0)
  assert result.summary()["exploitability"][2] == pytest.approx(alone.summary()["exploitability"], rel=1e-9)


def test_solve_rejects_bad_arguments(kuhn):
  with pytest.raises(ValueError, match="has no setting delta"):
    jaxcfr.solve(kuhn, "cfr", 10, delta=1.0)
  with pytest.raises(ValueError, match="iterations"):
    jaxcfr.solve(kuhn, "cfr", 0)
  with pytest.raises(ValueError, match="one length"):
    jaxcfr.solve(kuhn, "dcfr", 10, batch={"alpha": [1.0, 2.0], "gamma": [1.0]})


def test_a_float32_run_past_two_to_the_24_iterations_warns():
  """Past 2^24 iterations a float32 running sum no longer absorbs increments of its size:
  such a run is warned about before it starts; float64, or fewer iterations, are not."""
  with pytest.warns(UserWarning, match="float32 pass 2\\^24"):
    driver.warn_if_float32_saturates(jnp.float32, 2**24 + 1)
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    driver.warn_if_float32_saturates(jnp.float32, 2**24)
    driver.warn_if_float32_saturates(jnp.float64, 10**9)
  assert np.float32(2**24) + np.float32(1) == np.float32(2**24)  # the reason: an increment of one is lost


def test_strategy_file_round_trip(kuhn, tmp_path):
  profile = jaxcfr.uniform_profile(kuhn.tensors)
  jaxcfr.save_strategy(tmp_path / "s.npz", kuhn, profile)
  loaded = jaxcfr.load_strategy(tmp_path / "s.npz", kuhn)
  for a, b in zip(profile, loaded):
    np.testing.assert_array_equal(a, b)
  with pytest.raises(ValueError, match="not leduc_poker"):
    jaxcfr.load_strategy(tmp_path / "s.npz", jaxcfr.load("leduc_poker"))


def test_cli_solve_writes_json_and_strategy(tmp_path, capsys):
  out, strategy = tmp_path / "r.json", tmp_path / "s.npz"
  assert (
    cli.main(
      [
        "solve",
        "kuhn_poker",
        "--algo",
        "cfr+",
        "--iters",
        "30",
        "--json",
        str(out),
        "--strategy-out",
        str(strategy),
        "--no-progress",
        "--dtype",
        "float64",
      ]
    )
    == 0
  )
  record = json.loads(out.read_text())
  assert record["algo"] == "cfr+" and record["iters"] == 30 and record["game"] == "kuhn_poker"
  solver = jaxcfr.solvers.get("cfr+")
  tensors = jaxcfr.load("kuhn_poker", dtype="float64").tensors
  average = solver.average_strategy(tensors, solver.run(tensors, solver.init(tensors), 30))
  assert record["exploitability"] == pytest.approx(float(jaxcfr.exploitability(tensors, average)), rel=1e-12)
  assert record["value"] == pytest.approx(float(jaxcfr.expected_value(tensors, average)), rel=1e-12)
  assert "exploitability" in capsys.readouterr().out
  assert np.load(strategy)["player0"].shape == (6, 2)


def test_cli_info_json(capsys, tmp_path):
  assert cli.main(["info", "kuhn_poker", "--json"]) == 0
  record = json.loads(capsys.readouterr().out)
  assert {"command", "game", "representation", "timestamp", "git_commit", "hardware"} <= set(record)
  assert cli.main(["info", "kuhn_poker", "--json", str(tmp_path / "i.json")]) == 0  # a file, as solve --json
  assert json.loads((tmp_path / "i.json").read_text())["statistics"] == record["statistics"]
  stats = record["statistics"]
  for key in (
    "histories",
    "chance_nodes",
    "decision_nodes",
    "terminals",
    "infosets",
    "sequences",
    "max_length",
    "m_values",
  ):
    assert key in stats
  assert stats["histories"] == 58 and stats["infosets"] == [6, 6]


def test_cli_reports_errors(capsys):
  assert cli.main(["info", "no_such_game"]) == 2
  assert "unknown game 'no_such_game'" in capsys.readouterr().err


@pytest.mark.parametrize(
  "mutate,message",
  [
    (lambda s: s[:, :1], "shape"),
    (lambda s: s.at[0, 0].set(jnp.nan), "not finite"),
    (lambda s: s.at[0].set(jnp.array([1.5, -0.5])), "negative"),
    (lambda s: s.at[1].set(jnp.array([0.7, 0.7])), "sums to"),
  ],
)
def test_check_profile_names_the_problem(kuhn, mutate, message):
  sigma0, sigma1 = jaxcfr.uniform_profile(kuhn.tensors)
  jaxcfr.check_profile(kuhn.tensors, (sigma0, sigma1))
  with pytest.raises(ValueError, match=message):
    jaxcfr.check_profile(kuhn.tensors, (mutate(sigma0), sigma1))


def test_check_profile_rejects_mass_on_illegal_actions():
  leduc = jaxcfr.load("leduc_poker")
  sigma0, sigma1 = jaxcfr.uniform_profile(leduc.tensors)
  illegal = int(np.argwhere(~np.asarray(leduc.tensors.players[0].legal))[0][0])
  bad = sigma0.at[illegal].set(jnp.full(3, 1 / 3))
  with pytest.raises(ValueError, match="illegal action"):
    jaxcfr.check_profile(leduc.tensors, (bad, sigma1))


def _overflowing(game, scale=1e308):
  """``game`` with its payoffs scaled so far that the regrets overflow to inf and NaN."""
  tensors = game.tensors
  payoff = jaxcfr.kits.sequence_form.tensors.SequencePayoff(
    **{**vars(tensors.payoff), "value": tensors.payoff.value * scale}
  )
  tensors = jaxcfr.kits.sequence_form.tensors.GameTensors(
    tree=tensors.tree, players=tensors.players, name=tensors.name, payoff=payoff
  )
  return dataclasses.replace(game, tensors=tensors)


def test_a_state_turning_non_finite_stops_the_run_naming_the_iteration(kuhn, monkeypatch, tmp_path, capsys):
  """Checked after every chunk: no NaN exploitability is reported, and no NaN checkpoint is written."""
  with pytest.raises(
    driver.NonFiniteError,
    match=r"cfr\+ on kuhn_poker: the solver state's \.regrets\[\d\] became NaN or infinite (at|between) iteration",
  ):
    jaxcfr.solve(_overflowing(kuhn), "cfr+", 20, checkpoint=tmp_path / "c.npz")
  with np.load(tmp_path / "c.npz") as saved:  # the last checkpoint, written before: finite
    assert all(np.isfinite(saved[k]).all() for k in saved.files if k.startswith((".regrets", ".average")))
  monkeypatch.setattr(jaxcfr.kits, "load", lambda *a, **k: _overflowing(kuhn))
  assert cli.main(["solve", "kuhn_poker", "--iters", "20", "--no-progress"]) == 2
  err = capsys.readouterr().err.strip().splitlines()
  assert len(err) == 1 and err[0].startswith("jaxcfr: error: cfr+ on kuhn_poker: the solver state's")
