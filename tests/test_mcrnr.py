"""Monte-Carlo Restricted Nash Response (jaxcfr.solvers.mcrnr, Ponsen et al. 2011 Algorithm 2): unbiased
updates, p = 0 is plain outcome sampling, batches, convergence to the exact RNR."""

import functools
import json
import statistics

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcfr import solvers
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.evaluate import exploitation, opponent
from jaxcfr.run import cli
from jaxcfr.solvers import mcrnr, outcome_sampling
import helpers

EPSILON = 0.6
KUHN_VALUE = -1 / 18


@functools.cache
def kuhn():
  return helpers.load("kuhn_poker")


@functools.cache
def model():
  return opponent.fixed_model(kuhn(), "cfr:10")


@functools.cache
def solver(trajectories=1):
  return solvers.get("mcrnr", trajectories=trajectories)


@functools.cache
def _moments_fn(name):
  """Jitted (profile, model, p, restricted, keys [N]) -> per player (sum, sum of squares) of
  the MCRNR regret estimate over N draws (K = 1 each)."""
  game = helpers.load(name)
  tensors = game.tensors

  def draw(profile, fixed_model, p, restricted, key):
    out = []
    state = mcrnr.MCRNRState(inner_state=None, p=p, restricted=restricted, model=fixed_model)
    for player in (0, 1):
      override, keep = mcrnr.model_subtree(state, key, player, trajectories=1)
      paths = outcome_sampling.sample_trajectories(
        tensors, profile, key, 1, player=player, epsilon=EPSILON, override=override
      )
      out.append(outcome_sampling.outcome_sampling_estimate(tensors, profile, paths, player=player, keep=keep).regret)
    return out

  def moments(profile, fixed_model, p, restricted, keys):
    draws = jax.vmap(draw, (None, None, None, None, 0))(profile, fixed_model, p, restricted, keys)
    return [(d.sum(0), (d**2).sum(0), (d != 0).sum(0)) for d in draws]

  return jax.jit(moments)


def _exact_rnr_regrets(tensors, profile, fixed_model, p, restricted):
  """RNR's counterfactual regrets: the unrestricted player's against ``p y_fix + (1 - p) y``,
  the restricted free part's against the unrestricted player, times ``1 - p``."""
  plans = evaluation.plans(tensors, profile)
  fixed_plan = evaluation.realization_plan(tensors.players[restricted], fixed_model[restricted])
  faced = list(plans)
  faced[restricted] = p * fixed_plan + (1 - p) * plans[restricted]
  regrets = []
  for player in (0, 1):
    treeplex = tensors.players[player]
    values = evaluation.sequence_values_for(tensors.payoff, player, faced[1 - player])
    q, v = evaluation.counterfactual_values(treeplex, values, profile[player])
    regret = np.asarray(jnp.where(treeplex.legal, q - v[:, None], 0))
    regrets.append(regret * (1 - p) if player == restricted else regret)
  return regrets


@pytest.mark.parametrize(
  "name,draws,min_nonzero,coverage", [("kuhn_poker", 40000, 0, 0.5), ("leduc_poker", 20000, 100, 0.02)]
)
def test_sampled_regrets_are_unbiased_for_rnr(name, draws, min_nonzero, coverage):
  """The mean MCRNR regret of each player over many draws matches the exact RNR regret (a
  z bound from the sample standard error, Bonferroni over all entries). On Leduc, entries
  with few nonzero draws (where the normal approximation fails) are left out."""
  game = helpers.load(name)
  tensors = game.tensors
  profile = helpers.as_jax(helpers.random_profile(game.arrays, seed=5, zeros=0.1))
  fixed_model = helpers.as_jax(helpers.random_profile(game.arrays, seed=6, zeros=0.2))
  p = 0.6
  chunk = min(draws, 10000)
  z_scores, covered = [], []
  for restricted in (0, 1):
    totals = None
    for start in range(0, draws, chunk):
      keys = jax.vmap(lambda s: jax.random.key_data(jax.random.key(s)))(jnp.arange(start, start + chunk))
      part = jax.device_get(_moments_fn(name)(profile, fixed_model, p, restricted, keys))
      totals = part if totals is None else [tuple(a + b for a, b in zip(t, q)) for t, q in zip(totals, part)]
    exact = _exact_rnr_regrets(tensors, profile, fixed_model, p, restricted)
    for player in (0, 1):
      total, squares, nonzero = totals[player]
      mean = total / draws
      se = np.sqrt(np.maximum(squares / draws - mean**2, 0) / (draws - 1))
      random = se > 1e-12
      constant = ~random & (nonzero >= min_nonzero)  # never sampled (Kuhn: all are) or constant
      np.testing.assert_allclose(mean[constant], exact[player][constant], atol=1e-12)
      tested = random & (nonzero >= max(min_nonzero, 1))
      z_scores.append(np.abs(mean - exact[player])[tested] / se[tested])
      covered.append(tested.mean())
  bound = statistics.NormalDist().inv_cdf(1 - 1e-3 / (2 * sum(z.size for z in z_scores)))
  assert max(float(z.max()) for z in z_scores) < bound
  assert min(covered) > coverage, covered


def test_p_zero_is_plain_outcome_sampling():
  tensors = kuhn().tensors
  state = solver().run(tensors, solver().init(tensors, model=model(), p=0.0, restricted=1, seed=3), 100)
  plain = solvers.get("mccfr-os")
  reference = plain.run(tensors, plain.init(tensors, seed=3), 100)
  for ours, theirs in zip(jax.tree_util.tree_leaves(state.inner_state), jax.tree_util.tree_leaves(reference)):
    np.testing.assert_array_equal(ours, theirs)


def test_p_one_leaves_the_restricted_player_untouched():
  """Every trajectory is in the model's subtree: the restricted player's free part never updates."""
  tensors = kuhn().tensors
  state = solver().run(tensors, solver().init(tensors, model=model(), p=1.0, restricted=0, seed=1), 50)
  assert not np.any(np.asarray(state.inner_state.regrets[0]))
  assert np.any(np.asarray(state.inner_state.regrets[1]))


def test_batch_equals_runs_alone():
  tensors = kuhn().tensors
  ps, rs, seeds = np.array([0.0, 0.5, 0.9]), np.array([1, 0, 1]), np.array([4, 5, 6])
  batch = solver().run(tensors, solver().init(tensors, model=model(), p=ps, restricted=rs, seed=seeds), 50)
  for b in range(3):
    alone = solver().run(tensors, solver().init(tensors, model=model(), p=ps[b], restricted=rs[b], seed=seeds[b]), 50)
    for ours, theirs in zip(jax.tree_util.tree_leaves(batch), jax.tree_util.tree_leaves(alone)):
      np.testing.assert_allclose(np.asarray(ours)[..., b], theirs, rtol=1e-12, atol=1e-15)


@functools.cache
def _convergence():
  """Exact RNR (CFR+) and MCRNR after 1000 and 20000 iterations (K = 16), p in {0.5, 0.9},
  each player restricted."""
  tensors = kuhn().tensors
  ps, rs = [0.5, 0.9], (1, 0)
  exact = exploitation.trade_off(tensors, model(), ps, restricted=rs, iterations=3000, value=KUHN_VALUE)
  s = solver(16)
  state = s.init(tensors, model=model(), p=np.array(ps * 2), restricted=np.repeat(rs, 2), seed=np.arange(4))
  early = s.run(tensors, state, 1000)
  late = s.run(tensors, early, 19000)
  return exact, [jax.device_get(exploitation.evaluate(s, tensors, x, KUHN_VALUE)) for x in (early, late)]


def test_mcrnr_converges_to_the_restricted_nash_response():
  exact, (early, late) = _convergence()
  errors = []
  for metrics in (early, late):
    value = np.array([abs(metrics["value_vs_model"][k] - row["value_vs_model"]) for k, row in enumerate(exact)])
    excess = np.array([metrics["exploitability"][k] - row["exploitability"] for k, row in enumerate(exact)])
    errors.append((value, excess))
  (value_early, excess_early), (value_late, excess_late) = errors
  assert value_late.max() < 0.01 and excess_late.max() < 0.08, errors
  assert value_late.sum() + excess_late.sum() < 0.5 * (value_early.sum() + excess_early.sum()), errors


def test_paired_profile_of_figure_7():
  """Player 0's counter-strategy from the runs restricting player 1 and player 1's from the
  runs restricting player 0."""
  tensors = kuhn().tensors
  state = solver().init(
    tensors, model=model(), p=np.array([0.5, 0.5]), restricted=np.array([1, 0]), seed=np.array([0, 1])
  )
  state = solver().run(tensors, state, 10)
  average = solver().average_strategy(tensors, state)
  pair = mcrnr.paired_profile(tensors, state, solver())
  np.testing.assert_array_equal(pair[0][..., 0], average[0][..., 0])
  np.testing.assert_array_equal(pair[1][..., 0], average[1][..., 1])
  profile = (average[0][..., :1], average[1][..., 1:])  # written out: runs 0 and 1 of the batch
  np.testing.assert_allclose(
    np.asarray(evaluation.nash_conv(tensors, pair)), np.asarray(evaluation.nash_conv(tensors, profile)), rtol=1e-12
  )


def test_trade_off_and_cli_run_mcrnr(tmp_path, capsys):
  out = tmp_path / "mcrnr.json"
  assert (
    cli.main(
      [
        "rnr",
        "kuhn_poker",
        "--algo",
        "mcrnr",
        "--iters",
        "200",
        "--p",
        "0,1",
        "--restricted",
        "both",
        "--model",
        "cfr:10",
        "--json",
        str(out),
        "--dtype",
        "float64",
      ]
    )
    == 0
  )
  record = json.loads(out.read_text())
  assert record["algo"] == "mcrnr" and len(record["rows"]) == 4
  direct = exploitation.trade_off(
    kuhn().tensors, model(), [0, 1], restricted=(0, 1), solver="mcrnr", iterations=200, value=record["game_value"]
  )
  for row, expected in zip(record["rows"], direct):  # the CLI's rows are the library's, to rounding
    for key in ("p", "restricted_player", "value_vs_model", "exploitation", "exploitability"):
      assert row[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12), key
  assert "mcrnr" in capsys.readouterr().out
  with pytest.raises(ValueError, match="computes no counter-strategy"):
    exploitation.trade_off(kuhn().tensors, model(), [0.5], solver="mccfr-es", iterations=1)
  with pytest.raises(ValueError, match="p of solver .mcrnr. must be in"):
    solver().init(kuhn().tensors, model=model(), p=1.5)


def test_figure_7_script_runs(tmp_path, monkeypatch):
  from pathlib import Path  # pylint: disable=import-outside-toplevel

  monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
  monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks" / "papers"))
  import rnr_convergence  # pylint: disable=import-outside-toplevel

  out = tmp_path / "convergence"
  record = rnr_convergence.main(
    [
      "--games",
      "kuhn_poker",
      "--ps",
      "0.5",
      "--seconds",
      "0.05",
      "--model-seconds",
      "1",
      "--trajectories",
      "2",
      "--dtype",
      "float64",
      "--out",
      str(out),
    ]
  )
  written = json.loads(out.with_suffix(".json").read_text())
  assert written == record and written["configuration"]["games"] == ["kuhn_poker"]
  assert written["results"]["games"].keys() == {"kuhn_poker"}
  curves = record["results"]["games"]["kuhn_poker"]["curves"]
  assert set(curves) == {"rnr-cfr", "rnr-cfr+", "mcrnr"}
  for points in curves.values():
    assert len(points) >= 2 and [len(p["nash_conv"]) for p in points] == [1] * len(points)
    assert all(a["iterations"] < b["iterations"] and a["seconds"] <= b["seconds"] for a, b in zip(points, points[1:]))
    assert all(0 < a["nodes_touched"] < b["nodes_touched"] for a, b in zip(points, points[1:]))
  histories = kuhn().arrays.num_histories
  for name in ("rnr-cfr", "rnr-cfr+"):  # a tree walk per player of the restricted game's two copies
    assert [p["nodes_touched"] for p in curves[name]] == [4 * histories * p["iterations"] for p in curves[name]]
  sampled = curves["mcrnr"][-1]  # two trajectories per walk, two walks an iteration: short paths
  assert sampled["nodes_touched"] < 4 * histories * sampled["iterations"]
  # the exact solvers' paired profile gets close to the restricted equilibrium's NashConv
  assert curves["rnr-cfr+"][-1]["nash_conv"][0] < curves["rnr-cfr+"][0]["nash_conv"][0]
