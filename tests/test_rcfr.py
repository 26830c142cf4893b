"""RCFR (Waugh et al. 2015): the table regressor is CFR, an abstraction is CFR on the abstract
game, the tree's split rule, MLP convergence, batches, features and errors."""

import dataclasses
import functools
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.base import regret
from jaxcfr import kits
from jaxcfr.kits import sequence_form
from jaxcfr.base import openspiel
from jaxcfr.kits.sequence_form import tensors as tensors_module
from jaxcfr.run import cli, driver
from jaxcfr.solvers import rcfr_features, regressors
import helpers


@functools.cache
def _stepper(name, **options):
  solver = solvers.get(name, **options)
  return solver, jax.jit(solver.step)


def _trajectory(name, game, iterations, **options):
  solver, step = _stepper(name, **options)
  tensors = helpers.load(game).tensors
  state, out = solver.init(tensors), []
  for _ in range(iterations):
    state = step(tensors, state)
    out.append((solver.current_strategy(tensors, state), solver.average_strategy(tensors, state)))
  return out


@pytest.mark.parametrize("game,iterations", [("kuhn_poker", 40), ("leduc_poker", 12)])
def test_table_regressor_is_cfr(game, iterations):
  """An exact tabular fit of R/t makes RCFR CFR itself: every iterate, to 1e-9 (float64)."""
  for (c_now, c_avg), (r_now, r_avg) in zip(
    _trajectory("cfr", game, iterations), _trajectory("rcfr", game, iterations, regressor="table")
  ):
    for a, b in zip(c_now + c_avg, r_now + r_avg):
      np.testing.assert_allclose(np.asarray(b), np.asarray(a), atol=1e-9)


def _abstract_cfr(tensors, cells_by_player, iterations):
  """Reference: CFR on the abstract game by summed regrets (Waugh et al. 2015, "Relationship
  to Abstraction"): an abstract infoset's regret is the sum of its members'; alternating
  updates as jaxcfr's cfr. Returns the current strategies after each iteration."""
  strategies = list(evaluation.uniform_profile(tensors))
  abstract = [
    jnp.asarray(c.reshape(tp.legal.shape)[:, 0] // tp.max_actions) for c, tp in zip(cells_by_player, tensors.players)
  ]
  cumulative = [jnp.zeros((int(a.max()) + 1, tp.max_actions)) for a, tp in zip(abstract, tensors.players)]
  out = []
  for _ in range(iterations):
    for p, tp in enumerate(tensors.players):
      plan = evaluation.realization_plan(tensors.players[1 - p], strategies[1 - p])
      values = evaluation.sequence_values_for(tensors.payoff, p, plan)
      q, v = evaluation.counterfactual_values(tp, values, strategies[p])
      instant = jnp.where(tp.legal, q - v[:, None], 0)
      cumulative[p] = cumulative[p] + jax.ops.segment_sum(instant, abstract[p], cumulative[p].shape[0])
      strategies[p] = regret.regret_matching(cumulative[p][abstract[p]], tp.legal)
    out.append(tuple(strategies))
  return out


def test_abstraction_regressor_is_cfr_on_the_abstract_game():
  game = "leduc_poker"
  tensors = helpers.load(game).tensors
  cells = [rcfr_features.abstraction_cells(tensors, p, "J.QK")[0] for p in (0, 1)]
  reference = _abstract_cfr(tensors, cells, 8)
  for (now, _), expected in zip(_trajectory("rcfr", game, 8, regressor="abstraction:J.QK"), reference):
    for a, b in zip(now, expected):
      np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-9)


def test_a_user_abstraction_map_on_kuhn():
  """Kuhn with the card forgotten (keyed by the betting only): RCFR equals the reference, and
  the regressor has one parameter per abstract sequence."""
  game = helpers.load("kuhn_poker")
  mapping = tuple((k, k[1:]) for p in game.arrays.players for k in p.keys)
  cells = [rcfr_features.abstraction_cells(game.tensors, p, mapping)[0] for p in (0, 1)]
  reference = _abstract_cfr(game.tensors, cells, 10)
  got = _trajectory("rcfr", "kuhn_poker", 10, regressor="abstraction:map", abstraction=mapping)
  for (now, _), expected in zip(got, reference):
    for a, b in zip(now, expected):
      np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-9)
  solver = solvers.get("rcfr", regressor="abstraction:map", abstraction=mapping)
  counts = solver.counters(solver.init(game.tensors))
  assert int(counts["regressor_size"]) == 8 and np.isclose(counts["relative_size"], 8 / 24)


def _rows(x):
  x = np.asarray(x, float)
  legal = np.ones(len(x), bool)
  return rcfr_features.RowData(
    features=x,
    legal=legal,
    cells=np.arange(len(x), dtype=np.int32),
    num_cells=len(x),
  )


def test_tree_split_rule_on_a_hand_made_data_set():
  """Feature 0 is noise, feature 1 separates the targets {0, 0, 10, 11} at 1.5 (SSE 110.75 ->
  0.5: a reduction of 110.25 over unit weights); a second split at 2.5 in the right half
  reduces 0.5."""
  rows = _rows([[3, 0], [0, 1], [2, 2], [1, 3]])
  y = jnp.array([0.0, 0.0, 10.0, 11.0])
  w = jnp.ones(4)
  tree = regressors.tree(max_depth=4)
  fit = jax.jit(lambda t: tree.fit(tree.init(None, rows), rows, y, w, {"threshold": t}))
  full = fit(0.0)
  assert int(full.feature[0, 0]) == 1 and float(full.cut[0, 0]) == 1.5 and bool(full.split[0, 0])
  assert int(full.leaves) == 3  # {0, 0} is pure; {10, 11} splits
  np.testing.assert_allclose(tree.predict(full, rows), y)
  coarse = fit(0.6)  # the second split (0.5) is below the threshold
  assert int(coarse.leaves) == 2
  np.testing.assert_allclose(tree.predict(coarse, rows), [0, 0, 10.5, 10.5])
  assert int(fit(111.0).leaves) == 1  # even the root split is below the threshold
  np.testing.assert_allclose(tree.predict(fit(111.0), rows), np.full(4, 5.25))
  new = _rows([[9, 1.4], [9, 1.6], [0, 2.6]])  # a real function of the features
  np.testing.assert_allclose(tree.predict(full, new), [0, 10, 11])


def test_the_tree_threshold_bounds_the_summed_or_the_mean_error():
  """The hand-made set's splits reduce the error summed over the points by 110.25 and 0.5:
  "sum" compares those with the threshold, so with ten times the points (weights x10) the
  second passes 0.6; "mean" compares them over the total weight (4, or 40): 27.6 and 0.125
  either way."""
  rows = _rows([[3, 0], [0, 1], [2, 2], [1, 3]])
  y = jnp.array([0.0, 0.0, 10.0, 11.0])
  leaves = {}
  for error in ("sum", "mean"):
    tree = regressors.tree(max_depth=4, error=error)
    for scale in (1.0, 10.0):
      fit = tree.fit(tree.init(None, rows), rows, y, scale * jnp.ones(4), {"threshold": 0.6})
      leaves[error, scale] = int(fit.leaves)
  assert leaves == {("sum", 1.0): 2, ("sum", 10.0): 3, ("mean", 1.0): 2, ("mean", 10.0): 2}
  mean = regressors.tree(max_depth=4, error="mean")
  fit = mean.fit(mean.init(None, rows), rows, y, jnp.ones(4), {"threshold": 0.12})  # 0.5 / 4 = 0.125
  assert int(fit.leaves) == 3
  tensors = helpers.load("kuhn_poker").tensors
  sizes = {}
  for error in ("sum", "mean"):
    solver = solvers.get("rcfr", regressor="tree:0.01", tree_error=error)
    sizes[error] = int(solver.counters(solver.run(tensors, solver.init(tensors), 30))["regressor_size"])
  assert sizes["mean"] < sizes["sum"]  # the mean's bound is the sum's over 30 x 12 points
  with pytest.raises(ValueError, match="tree_error of solver 'rcfr' must be one of sum, mean, got 'max'"):
    solvers.get("rcfr", regressor="tree", tree_error="max")
  with pytest.raises(ValueError, match="tree error must be 'sum' or 'mean', got 'max'"):
    regressors.tree(error="max")


def _reference_tree(x, y, w, threshold):
  """Waugh et al. 2015's rule, recursively in NumPy float64: (leaves, predictions [N])."""
  out = np.zeros(len(y))

  def grow(members):
    ww, wy = w[members], w[members] * y[members]
    best = (-np.inf, None)
    for f in range(x.shape[1]):
      for cut in np.unique(x[members, f])[:-1]:
        left = x[members, f] <= cut
        gain = wy[left].sum() ** 2 / ww[left].sum() + wy[~left].sum() ** 2 / ww[~left].sum() - wy.sum() ** 2 / ww.sum()
        if gain > best[0] * (1 + 1e-9) + 1e-12:  # the first of near-equal gains
          best = (gain, (f, cut))
    if best[1] is None or best[0] <= threshold:
      out[members] = wy.sum() / ww.sum()
      return 1
    f, cut = best[1]
    return grow(members[x[members, f] <= cut]) + grow(members[x[members, f] > cut])

  return grow(np.flatnonzero(w > 0)), out


@pytest.mark.parametrize("path", ["histogram", "sorting"])
@pytest.mark.parametrize("threshold", [0.0, 0.5, 5.0])
def test_the_tree_equals_a_reference_on_rows_with_repeated_features(monkeypatch, path, threshold):
  """Rows with few values per feature and many repeated rows (as Leduc's: 1404 rows, 337
  distinct): the tree grown on the distinct rows, by per-node histograms or by sorting, has
  the reference's leaves and predictions; rows without weight are left out."""
  if path == "sorting":
    monkeypatch.setattr(regressors, "_HISTOGRAM_CELLS", 0)
  rng = np.random.default_rng(7)
  x = rng.integers(0, [3, 4, 2, 5], size=(120, 4)).astype(float)
  y = np.round(rng.normal(size=120) + 2 * (x[:, 1] > 1) - x[:, 3], 1)
  w = rng.integers(0, 4, size=120).astype(float)
  rows = _rows(x)
  tree = regressors.tree(max_depth=16)
  fit = tree.fit(tree.init(None, rows), rows, jnp.asarray(y), jnp.asarray(w), {"threshold": threshold})
  predictions = np.asarray(tree.predict(fit, rows))
  leaves, expected = _reference_tree(x, y, w, threshold)
  assert len(np.unique(x, axis=0)) < len(x) and int(fit.leaves) == leaves > 1
  np.testing.assert_allclose(predictions[w > 0], expected[w > 0], rtol=1e-9, atol=1e-9)


def test_tree_with_threshold_zero_tracks_cfr_on_kuhn():
  """Threshold 0 splits wherever a single-feature split reduces the error (Waugh et al.
  2015's RCFR-96%): on Kuhn it stays within 1.5x of CFR's exploitability, and its size never
  exceeds the table's."""
  tensors = helpers.load("kuhn_poker").tensors
  values = []
  for name, options in (("cfr", {}), ("rcfr", {"regressor": "tree"})):
    solver = solvers.get(name, **options)
    state = solver.run(tensors, solver.init(tensors), 60)
    values.append(float(helpers.exploitability(tensors, solver.average_strategy(tensors, state))))
  assert values[1] <= 1.5 * values[0]
  assert int(solver.counters(state)["regressor_size"]) <= 24


def test_mlp_rcfr_converges_on_kuhn_under_a_fixed_seed():
  game = helpers.load("kuhn_poker")
  solver = solvers.get("rcfr")
  state = solver.run(game.tensors, solver.init(game.tensors, seed=3), 100)
  exploitability = float(helpers.exploitability(game.tensors, solver.average_strategy(game.tensors, state)))
  assert exploitability < 0.03  # OpenSpiel's RCFR test asks NashConv < 0.92 after 10 iterations
  again = solver.run(game.tensors, solver.init(game.tensors, seed=3), 100)
  np.testing.assert_array_equal(np.asarray(again.inner_state.average[0]), np.asarray(state.inner_state.average[0]))


@pytest.mark.parametrize(
  "regressor,name,values", [("tree", "threshold", [0.0, 0.02, 5.0]), ("mlp", "learning_rate", [0.001, 0.01, 0.05])]
)
def test_a_batch_of_hyperparameters_equals_runs_alone(regressor, name, values):
  tensors = helpers.load("kuhn_poker").tensors
  solver = solvers.get("rcfr", regressor=regressor, steps=10)
  batch = solver.run(tensors, solver.init(tensors, **{name: jnp.asarray(values)}), 8)
  for b, value in enumerate(values):
    alone = solver.run(tensors, solver.init(tensors, **{name: value}), 8)
    for x, y in zip(jax.tree_util.tree_leaves(alone), jax.tree_util.tree_leaves(batch)):
      np.testing.assert_allclose(np.asarray(y)[..., b], np.asarray(x), rtol=1e-9, atol=1e-12)
  if regressor == "tree":
    sizes = np.asarray(solver.counters(batch)["regressor_size"])
    assert sizes[0] >= sizes[1] >= sizes[2] and sizes[2] == 2  # a larger threshold, a smaller tree


def test_leduc_features_are_the_papers_eight():
  rows = rcfr_features.row_data(helpers.load("leduc_poker").tensors, 0)
  assert rows.features.shape == (468 * 3, 8)
  distinct = np.unique(np.round(rows.features[rows.legal], 9), axis=0)
  assert len(distinct) == 336  # one per suit-isomorphic sequence: 672 over both players (Waugh et al. 2015)
  assert rcfr_features._hand_strength(4, None) == pytest.approx(0.7)  # a king preflop  pylint: disable=protected-access
  assert rcfr_features._hand_strength(0, 1) == 1.0  # a paired jack  pylint: disable=protected-access
  keys = list(helpers.load("leduc_poker").arrays.players[0].keys)
  i = keys.index("0::cr")  # facing a preflop bet of 2 into a pot of 4: fold, call, raise
  raw = rcfr_features.leduc_features(["0::cr"], np.ones((1, 3), bool), np.array([[0, 1, 2]]))
  np.testing.assert_allclose(raw[:, 2:], [[4, 0.5, 2, 1, 1, 0], [4, 0.5, 2, 1, 0, 0], [4, 0.5, 2, 1, 0, 1.0]])
  assert i >= 0


def test_generic_features_tell_every_sequence_apart():
  for p in (0, 1):
    rows = rcfr_features.row_data(helpers.load("kuhn_poker").tensors, p)
    assert len(np.unique(rows.features[rows.legal], axis=0)) == rows.legal.sum()


def test_driver_reports_the_regressor_size():
  result = driver.solve(helpers.load("leduc_poker"), "rcfr", 2, regressor="abstraction:JQK", progress=False)
  summary = result.summary()
  assert summary["regressor_size"] == 154 and summary["relative_size"] == pytest.approx(154 / 2184)


def test_bad_options_get_clear_errors():
  tensors = helpers.load("kuhn_poker").tensors
  with pytest.raises(ValueError, match="unknown regressor 'forest'"):
    solvers.get("rcfr", regressor="forest")
  with pytest.raises(ValueError, match="abstraction 'J.QK' is Leduc Hold'em's, not 'kuhn_poker''s"):
    solvers.get("rcfr", regressor="abstraction:J.QK").init(tensors)
  with pytest.raises(ValueError, match="unknown abstraction 'QQ'"):
    solvers.get("rcfr", regressor="abstraction:QQ").init(helpers.load("leduc_poker").tensors)
  with pytest.raises(ValueError, match="threshold must be >= 0"):
    solvers.get("rcfr", regressor="tree:-1")
  with pytest.raises(ValueError, match="threshold of solver 'rcfr' must be >= 0"):
    solvers.get("rcfr", regressor="tree").init(tensors, threshold=jnp.array([0.1, -0.5]))
  with pytest.raises(ValueError, match="needs the abstraction option"):
    solvers.get("rcfr", regressor="abstraction:map")
  with pytest.raises(ValueError, match="no label for infoset"):
    solvers.get("rcfr", regressor="abstraction:map", abstraction=(("0", "a"),)).init(tensors)
  with pytest.raises(ValueError, match="features 'leduc' are Leduc Hold'em's"):
    solvers.get("rcfr", features="leduc").init(tensors)
  with pytest.raises(ValueError, match="has no hyperparameter threshold"):
    solvers.get("rcfr", regressor="mlp").init(tensors, threshold=0.1)


def test_the_command_line_reports_the_sizes(tmp_path):
  out = tmp_path / "rcfr.json"
  assert (
    cli.main(
      [
        "solve",
        "kuhn_poker",
        "--algo",
        "rcfr",
        "--regressor",
        "tree:0.5",
        "--iters",
        "3",
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
  assert record["options"]["regressor"] == "tree:0.5" and record["hyperparameters"] == {"threshold": 0.5}
  assert 2 <= record["regressor_size"] <= 24 and record["relative_size"] == record["regressor_size"] / 24
  assert cli.main(["solve", "kuhn_poker", "--algo", "rcfr", "--regressor", "forest", "--iters", "3"]) == 2
  assert (
    cli.main(
      [
        "solve",
        "kuhn_poker",
        "--algo",
        "rcfr",
        "--regressor",
        "table",
        "--reservoir",
        "50",
        "--iters",
        "3",
        "--json",
        str(out),
        "--no-progress",
      ]
    )
    == 0
  )
  record = json.loads(out.read_text())
  assert record["options"]["reservoir"] == 50 and record["hyperparameters"] == {"seed": 0}


def test_reservoir_sampling_keeps_every_point_with_equal_probability():
  """Algorithm R, batched: 4 batches of 6 points offered to 5 slots under 4000 keys; every
  point is kept with probability 5/24 (a binomial standard error of 0.0064) and each
  reservoir holds 5 distinct points; the statistics are per-row means and counts."""
  from jaxcfr.solvers import reservoir

  def fill(key):
    buffer = reservoir.empty(5)
    for t in range(4):
      buffer = reservoir.add(buffer, jnp.arange(6) + 6 * t, jnp.arange(6.0) + 6 * t, t + 1, jax.random.fold_in(key, t))
    return buffer

  buffers = jax.jit(jax.vmap(fill))(jax.random.split(jax.random.key(0), 4000))
  rows = np.asarray(buffers.row)
  frequency = np.bincount(rows.ravel(), minlength=24) / len(rows)
  np.testing.assert_allclose(frequency, 5 / 24, atol=0.03)
  assert all(len(set(r)) == 5 for r in rows.tolist()) and int(buffers.seen[0]) == 24
  np.testing.assert_array_equal(np.asarray(buffers.value), rows)  # a point keeps its value
  np.testing.assert_array_equal(np.asarray(buffers.iteration), rows // 6 + 1)  # and its iteration
  one = jax.tree_util.tree_map(lambda x: x[0], buffers)
  means, counts = reservoir.statistics(one._replace(row=jnp.array([2, 2, 7, 7, 7]), value=jnp.arange(5.0)), 24)
  assert float(means[2]) == 0.5 and float(means[7]) == 3 and float(counts.sum()) == 5 and float(means[0]) == 0
  with pytest.raises(ValueError, match="reservoir must be >= 1"):
    reservoir.empty(0)


@pytest.mark.parametrize("regressor", ["table", "mlp"])
def test_a_reservoir_holding_every_point_is_the_all_data_path(regressor):
  """With room for every instantaneous regret, the reservoir's per-row means are R^t / t and
  its counts t: the fit, hence the run, is the all-data one (the table's is CFR), to 1e-9."""
  options = {"steps": 10} if regressor == "mlp" else {}
  reference = _trajectory("rcfr", "kuhn_poker", 12, regressor=regressor, **options)
  got = _trajectory("rcfr", "kuhn_poker", 12, regressor=regressor, reservoir=12 * 12, **options)
  for (a_now, a_avg), (b_now, b_avg) in zip(reference, got):
    for a, b in zip(a_now + a_avg, b_now + b_avg):
      np.testing.assert_allclose(np.asarray(b), np.asarray(a), atol=1e-9)


def test_a_small_reservoir_is_keyed_by_the_seed_and_still_converges():
  """200 of Kuhn's 12 points per player and iteration: a batch of seeds equals its runs
  alone, seeds differ, the run differs from all data, and the table regressor on the sample
  still converges (uniform play is 0.46 exploitable).

  The batch and the run alone agree to rounding (about 1e-14 after 100 iterations), not
  bit for bit: XLA fuses the two shapes differently. Kuhn's regrets sit at exact ties, so
  over hundreds of iterations a rounding difference can tip one regret-matching choice
  (it did at iteration 210); the equality is checked after 100."""
  tensors = helpers.load("kuhn_poker").tensors
  solver = solvers.get("rcfr", regressor="table", reservoir=200)
  batch = solver.run(tensors, solver.init(tensors, seed=jnp.arange(2)), 100)
  alone = solver.run(tensors, solver.init(tensors, seed=1), 100)
  for x, y in zip(jax.tree_util.tree_leaves(alone), jax.tree_util.tree_leaves(batch)):
    np.testing.assert_allclose(np.asarray(y)[..., 1], np.asarray(x), rtol=1e-9, atol=1e-12)
  batch = solver.run(tensors, batch, 200)
  alone = solver.run(tensors, alone, 200)
  average = solver.average_strategy(tensors, batch)
  values = [float(helpers.exploitability(tensors, tuple(p[..., b] for p in average))) for b in (0, 1)]
  assert values[0] != values[1] and max(values) < 0.15
  cfr_state = solvers.get("cfr").run(tensors, solvers.get("cfr").init(tensors), 300)
  assert not np.allclose(np.asarray(cfr_state.average[0]), np.asarray(alone.inner_state.average[0]))
  with pytest.raises(ValueError, match="reservoir of solver 'rcfr' must be >= 1"):
    solvers.get("rcfr", reservoir=0)
  with pytest.raises(ValueError, match="does not combine with plus or bootstrap"):
    solvers.get("rcfr", reservoir=10, plus=True)


def _no_loading_by_name(monkeypatch):
  """Makes every way of loading a game by its name fail, and empties the feature cache."""

  def refuse(*args, **kwargs):
    raise AssertionError(f"a game was loaded by name: {args} {kwargs}")

  for module, attribute in (
    (sequence_form.game, "build_arrays"),
    (kits.registry, "load"),
    (kits, "load"),
    (jaxcfr, "load"),
  ):
    monkeypatch.setattr(module, attribute, refuse)
  rcfr_features._row_data.cache_clear()  # pylint: disable=protected-access


def _table_rcfr_is_cfr(tensors, iterations=15):
  """RCFR with the table regressor on ``tensors`` equals CFR on them, iterate by iterate."""
  for (c_now, c_avg), (r_now, r_avg) in zip(
    _trajectory_on("cfr", tensors, iterations), _trajectory_on("rcfr", tensors, iterations, regressor="table")
  ):
    for a, b in zip(c_now + c_avg, r_now + r_avg):
      np.testing.assert_allclose(np.asarray(b), np.asarray(a), atol=1e-9)


def _trajectory_on(name, tensors, iterations, **options):
  solver, step = _stepper(name, **options)
  state, out = solver.init(tensors), []
  for _ in range(iterations):
    state = step(tensors, state)
    out.append((solver.current_strategy(tensors, state), solver.average_strategy(tensors, state)))
  return out


def test_rcfr_runs_on_tensors_built_from_openspiel(monkeypatch):
  """Tensors of OpenSpiel's Kuhn poker, loaded as ``openspiel:kuhn_poker`` or built by the
  adapter directly: RCFR reads their keys from the tensors (the generic features: OpenSpiel's
  keys are not Leduc's), the table regressor is CFR, and the MLP's features are the generic
  encoding of OpenSpiel's keys."""
  loaded = jaxcfr.load("openspiel:kuhn_poker", dtype=jnp.float64)
  source = jaxcfr.kits.GameSource(
    "an_adapter_build", openspiel.OpenSpielRules("kuhn_poker", "an_adapter_build", {}), None
  )
  source = dataclasses.replace(source, info=source.rules.info)
  built = tensors_module.to_tensors(sequence_form.build_arrays(source, use_cache=False), jnp.float64)
  assert built.info.is_poker and built.info.features is None and built.labels == loaded.tensors.labels
  _no_loading_by_name(monkeypatch)
  for tensors in (loaded.tensors, built):
    _table_rcfr_is_cfr(tensors)
    rows = rcfr_features.row_data(tensors, 0)
    assert len(np.unique(rows.features[rows.legal], axis=0)) == rows.legal.sum() == 12
    solver = solvers.get("rcfr", regressor="tree")
    state = solver.run(tensors, solver.init(tensors), 20)
    assert 2 <= int(solver.counters(state)["regressor_size"]) <= 24


def test_rcfr_runs_on_a_game_it_has_never_seen_by_name(monkeypatch):
  """Kuhn's and Leduc's tensors re-labelled with fresh names: nothing loads a game by name,
  Leduc keeps its declared features and abstractions, and every result equals the original's."""
  kuhn, leduc = helpers.load("kuhn_poker").tensors, helpers.load("leduc_poker").tensors
  _no_loading_by_name(monkeypatch)
  fresh_kuhn = dataclasses.replace(kuhn, name="a_game_never_seen")
  fresh_leduc = dataclasses.replace(leduc, name="another_game_never_seen")
  solver = solvers.get("rcfr", regressor="tree:0.01")
  runs = [solver.run(t, solver.init(t), 10) for t in (kuhn, fresh_kuhn)]
  for x, y in zip(jax.tree_util.tree_leaves(runs[0]), jax.tree_util.tree_leaves(runs[1])):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  assert rcfr_features.row_data(fresh_leduc, 0).features.shape == (468 * 3, 8)  # "auto": the declared "leduc"
  for p in (0, 1):
    np.testing.assert_array_equal(
      rcfr_features.abstraction_cells(fresh_leduc, p, "J.QK")[0], rcfr_features.abstraction_cells(leduc, p, "J.QK")[0]
    )
  abstract = solvers.get("rcfr", regressor="abstraction:J.QK")
  averages = [abstract.average_strategy(t, abstract.run(t, abstract.init(t), 3)) for t in (leduc, fresh_leduc)]
  for x, y in zip(*averages):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  assert rcfr_features.table_size(fresh_leduc) == 2184


def test_features_follow_the_declared_tag_not_the_name():
  """Leduc's tensors declaring no feature set take the generic encoding under "auto" and
  refuse Leduc's features and abstractions; tensors without labels are refused."""
  leduc = helpers.load("leduc_poker").tensors
  plain = dataclasses.replace(leduc, info=dataclasses.replace(leduc.info, features=None))
  assert plain.name == "leduc_poker"
  assert rcfr_features.row_data(plain, 0).features.shape[1] > 8
  with pytest.raises(ValueError, match="features 'leduc' are Leduc Hold'em's"):
    rcfr_features.row_data(plain, 0, "leduc")
  with pytest.raises(ValueError, match="abstraction 'JQK' is Leduc Hold'em's"):
    solvers.get("rcfr", regressor="abstraction:JQK").init(plain)
  unknown = dataclasses.replace(leduc, info=dataclasses.replace(leduc.info, features="chess"))
  with pytest.raises(ValueError, match="declares features 'chess'"):
    rcfr_features.row_data(unknown, 0)
  with pytest.raises(ValueError, match="must carry their infoset labels"):
    solvers.get("rcfr").init(dataclasses.replace(leduc, labels=None))
