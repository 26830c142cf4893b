"""Differentiable solving: MMD against OpenSpiel and Gambit's QRE of Kuhn poker, QRE gradients
(implicit differentiation) and gradients through unrolled solvers against central finite
differences, equilibrium-value gradients (Danskin) against finite differences of exact LP
values. Float64 throughout (conftest); perturbed games keep regret matching smooth (no ties)."""

import dataclasses
import functools
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr import diff, solvers
from jaxcfr.kits.sequence_form import openspiel as adapter
from jaxcfr.run import cli
import helpers

# Gambit's logit QRE of Kuhn poker at lambda = 10 (temperature 1/10), as OpenSpiel's
# mmd_dilated_test.py gives it: realization plans in OpenSpiel's sequence order.
GAMBIT_KUHN_QRE = [
  np.array(
    [
      1.0,
      0.75364232,
      0.64695966,
      0.10668266,
      0.24635768,
      0.70309809,
      0.25609184,
      0.44700625,
      0.29690191,
      0.47546799,
      0.01290797,
      0.46256001,
      0.52453201,
    ]
  ),
  np.array(
    [
      1.0,
      0.63415944,
      0.36584056,
      0.41154828,
      0.58845172,
      0.28438486,
      0.71561514,
      0.0620185,
      0.9379815,
      0.65005434,
      0.34994566,
      0.79722767,
      0.20277233,
    ]
  ),
]
EPS = 1e-6
qre = jax.jit(lambda tensors, temperature: diff.qre(tensors, temperature=temperature))  # one compilation per shape


def kuhn():
  return helpers.load("kuhn_poker")


@functools.cache
def perturbed_kuhn(seed=0, scale=0.1):
  """Kuhn with every terminal utility moved by N(0, scale^2): a generic game (unique
  equilibrium, no regret ties)."""
  tensors = kuhn().tensors
  rng = np.random.default_rng(seed)
  noise = jnp.asarray(rng.normal(size=tensors.tree.utility.shape) * scale) * (tensors.tree.kind == 3)
  return with_leaves(tensors, utility=tensors.tree.utility + noise)


def with_leaves(tensors, **leaves):
  """The game with tree leaves replaced (utility, chance_prob) and the payoff recomputed."""
  return jaxcfr.with_payoff_from_tree(dataclasses.replace(tensors, tree=dataclasses.replace(tensors.tree, **leaves)))


def direction(tensors, kind, seed):
  """A random direction on the utilities (kind 3, terminals) or chance edges (kind 2's children)."""
  rng = np.random.default_rng(seed)
  tree = tensors.tree
  mask = tree.kind == 3 if kind == "utility" else (tree.kind[tree.parent] == 2) & (jnp.arange(tree.kind.shape[0]) > 0)
  return jnp.asarray(rng.normal(size=mask.shape)) * mask


def central(f, x, d, eps=EPS):
  return (f(x + eps * d) - f(x - eps * d)) / (2 * eps)


# --- MMD -----------------------------------------------------------------------------------


def _openspiel_plans(profile):
  """Our Kuhn profile as realization plans in OpenSpiel's sequence order."""
  from open_spiel.python.algorithms import sequence_form_utils  # pylint: disable=import-outside-toplevel

  game = kuhn()
  openspiel_game = helpers.openspiel_game("kuhn_poker")
  _, to_sequence, *_ = sequence_form_utils.construct_vars(openspiel_game)
  policy = adapter.to_openspiel_policy(game.arrays, [np.asarray(s) for s in profile], openspiel_game)
  return sequence_form_utils.policy_to_sequence(openspiel_game, policy, to_sequence)


def test_qre_of_kuhn_equals_gambits():
  tensors = kuhn().tensors
  for plan, gambit in zip(_openspiel_plans(qre(tensors, 0.1)), GAMBIT_KUHN_QRE):
    np.testing.assert_allclose(plan, gambit, atol=1e-6)
  solver = solvers.get("mmd")
  state = solver.run(tensors, solver.init(tensors, temperature=0.1), 400)
  for plan, gambit in zip(_openspiel_plans(solver.current_strategy(tensors, state)), GAMBIT_KUHN_QRE):
    np.testing.assert_allclose(plan, gambit, atol=1e-6)
  assert float(diff.qre_gap(tensors, solver.current_strategy(tensors, state), temperature=0.1)) < 1e-12
  assert float(diff.qre_gap(tensors, jaxcfr.uniform_profile(tensors), temperature=0.1)) > 0.1


@pytest.mark.parametrize("temperature,step_size", [(0.1, None), (0.5, 2.0)])
def test_mmd_iterates_equal_openspiels(temperature, step_size):
  """Five MMD steps from the uniform profile equal OpenSpiel's MMDDilatedEnt's, to rounding."""
  from open_spiel.python.algorithms import mmd_dilated  # pylint: disable=import-outside-toplevel

  game = kuhn()
  reference = mmd_dilated.MMDDilatedEnt(helpers.openspiel_game("kuhn_poker"), temperature, stepsize=step_size)
  solver = solvers.get("mmd")
  state = solver.init(game.tensors, temperature=temperature, step_size=step_size or 0.0)
  for _ in range(5):
    reference.update_sequences()
    state = solver.step(game.tensors, state)
  for plan, expected in zip(
    _openspiel_plans(solver.current_strategy(game.tensors, state)), reference.current_sequences()
  ):
    np.testing.assert_allclose(plan, expected, atol=1e-12)


def test_annealed_mmd_approaches_a_nash_equilibrium():
  tensors = kuhn().tensors
  fixed, annealed = solvers.get("mmd"), solvers.get("mmd", anneal=True)
  runs = [s.run(tensors, s.init(tensors, temperature=1.0), 2000) for s in (fixed, annealed)]
  gaps = [
    float(helpers.exploitability(tensors, s.current_strategy(tensors, r))) for s, r in zip((fixed, annealed), runs)
  ]
  assert gaps[1] < 0.02 < 0.1 < gaps[0]


def test_mmd_rejects_bad_temperatures():
  with pytest.raises(ValueError, match="mmd's temperature must be > 0"):
    solvers.get("mmd").init(kuhn().tensors, temperature=jnp.array([0.1, 0.0]))
  with pytest.raises(ValueError, match="solver .mmd. has no hyperparameter alpha"):
    solvers.get("mmd").init(kuhn().tensors, alpha=1.0)


def test_cli_solves_with_mmd(tmp_path):
  path = tmp_path / "mmd.json"
  assert (
    cli.main(
      [
        "solve",
        "kuhn_poker",
        "--algo",
        "mmd",
        "--iters",
        "300",
        "--temperature",
        "0.1,1",
        "--no-progress",
        "--json",
        str(path),
      ]
    )
    == 0
  )
  record = json.loads(path.read_text())
  assert record["algo"] == "mmd" and [r["temperature"] for r in record["results"]] == [0.1, 1.0]


# --- QRE gradients (implicit differentiation) -------------------------------------------------


def _qre_scalar(tensors, temperature):
  """[*B] a mix of strategy entries and the value of the QRE (temperature [*B])."""
  profile = diff.qre(tensors, temperature=temperature)
  return profile[0][1, 0] + 2 * profile[1][3, 1] + jaxcfr.expected_value(tensors, profile)


def test_qre_gradients_equal_finite_differences():
  """Implicit gradients with respect to utilities, chance probabilities and the temperature."""
  base = kuhn().tensors
  x0 = {"utility": base.tree.utility, "chance": base.tree.chance_prob, "temperature": jnp.asarray(0.1)}

  def f(x):
    return _qre_scalar(with_leaves(base, utility=x["utility"], chance_prob=x["chance"]), x["temperature"])

  zero = jax.tree_util.tree_map(jnp.zeros_like, x0)
  _check_gradient(
    f,
    x0,
    [
      {**zero, "utility": direction(base, "utility", 1)},
      {**zero, "chance": direction(base, "chance", 2)},
      {**zero, "temperature": jnp.asarray(1.0)},
    ],
    rel=1e-6,
  )


def test_qre_batches_temperatures_and_payoffs():
  tensors = kuhn().tensors
  temperatures = jnp.array([0.05, 0.1, 1.0])
  batch = qre(tensors, temperatures)
  assert [s.shape for s in batch] == [t.legal.shape + (3,) for t in tensors.players]
  for b, temperature in enumerate(temperatures):
    for s, alone in zip(batch, qre(tensors, temperature)):
      np.testing.assert_allclose(s[..., b], alone, atol=1e-10)
  # A batch's gradient (trailing axes) equals the gradients one temperature at a time (vmap).
  scalar = lambda x: _qre_scalar(tensors, x)  # noqa: E731
  np.testing.assert_allclose(
    jax.jit(jax.grad(lambda t: scalar(t).sum()))(temperatures),
    jax.jit(jax.vmap(jax.grad(scalar)))(temperatures),
    rtol=1e-8,
  )
  scales = jnp.array([0.5, 1.0, 2.0])  # vmap over payoff parameters: scaling payoffs = dividing the temperature
  scaled = jax.jit(jax.vmap(lambda c: qre(with_leaves(tensors, utility=c * tensors.tree.utility), 0.1)[0]))(scales)
  np.testing.assert_allclose(scaled[1], qre(tensors, 0.1)[0], atol=1e-10)
  np.testing.assert_allclose(scaled[2], qre(tensors, 0.05)[0], atol=1e-9)


# --- Gradients through unrolled solvers -------------------------------------------------------


def test_unrolled_equals_run():
  tensors = kuhn().tensors
  for name in ("dcfr", "mmd"):
    solver = solvers.get(name)
    state = solver.init(tensors)
    for chunk in (7, None):
      unrolled = diff.unrolled(solver, tensors, state, 23, chunk=chunk)
      for x, y in zip(jax.tree_util.tree_leaves(unrolled), jax.tree_util.tree_leaves(solver.run(tensors, state, 23))):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-14)
  with pytest.raises(ValueError, match="chunk must be >= 1"):
    diff.unrolled(solvers.get("cfr"), tensors, solvers.get("cfr").init(tensors), 5, chunk=0)
  with pytest.raises(ValueError, match="with checkpoint=False every residual is kept"):
    policy = jax.checkpoint_policies.everything_saveable
    diff.unrolled(solvers.get("cfr"), tensors, solvers.get("cfr").init(tensors), 5, checkpoint=False, policy=policy)


def _run_scalar(solver, tensors, iterations=40, **hyperparameters):
  state = diff.unrolled(solver, tensors, solver.init(tensors, **hyperparameters), iterations, chunk=7)
  profile = solver.average_strategy(tensors, state)
  return jaxcfr.expected_value(tensors, profile) + profile[1][2, 0]


def _check_gradient(f, x0, directions, rel=1e-5):
  """The jitted gradient of ``f`` at ``x0`` along each direction equals a central difference."""
  f = jax.jit(f)
  grad = jax.jit(jax.grad(f))(x0)
  for d in directions:
    along = sum(float((g * e).sum()) for g, e in zip(jax.tree_util.tree_leaves(grad), jax.tree_util.tree_leaves(d)))
    shifted = [jax.tree_util.tree_map(lambda x, e, s=s: x + s * EPS * e, x0, d) for s in (1, -1)]
    assert along == pytest.approx(float(f(shifted[0]) - f(shifted[1])) / (2 * EPS), rel=rel, abs=1e-9)


def test_gradients_through_dcfr_with_respect_to_hyperparameters_and_the_game():
  """alpha, beta, gamma, utilities and chance probabilities, in one gradient."""
  base, solver = perturbed_kuhn(), solvers.get("dcfr")
  x0 = {"hyper": jnp.array([1.5, 0.0, 2.0]), "utility": base.tree.utility, "chance": base.tree.chance_prob}

  def f(x):
    tensors = with_leaves(base, utility=x["utility"], chance_prob=x["chance"])
    return _run_scalar(solver, tensors, alpha=x["hyper"][0], beta=x["hyper"][1], gamma=x["hyper"][2])

  zero = jax.tree_util.tree_map(jnp.zeros_like, x0)
  directions = [{**zero, "hyper": jnp.eye(3)[i]} for i in range(3)]
  directions += [{**zero, "utility": direction(base, "utility", 3)}, {**zero, "chance": direction(base, "chance", 4)}]
  _check_gradient(f, x0, directions)


def test_gradients_through_cfr_plus_and_rnr():
  """CFR+'s clipping (regret matching+) and RNR's p, at a generic point."""
  base = perturbed_kuhn()
  model = helpers.as_jax(helpers.random_profile(kuhn().arrays, seed=0))
  cfr_plus, restricted = solvers.get("cfr+"), solvers.get("rnr")

  def f(x):
    tensors = with_leaves(base, utility=x["utility"])
    return _run_scalar(cfr_plus, tensors) + _run_scalar(restricted, tensors, model=model, p=x["p"])

  x0 = {"utility": base.tree.utility, "p": jnp.asarray(0.5)}
  _check_gradient(
    f,
    x0,
    [
      {"utility": direction(base, "utility", 5), "p": jnp.asarray(0.0)},
      {"utility": jnp.zeros_like(base.tree.utility), "p": jnp.asarray(1.0)},
    ],
  )


def test_a_checkpoint_policy_keeping_the_sequence_values_gives_the_same_gradient():
  """``unrolled(..., policy=save_only_these_names(SEQUENCE_VALUES))``: the recomputed chunks
  take the kept products instead of computing them again; the gradient is the same."""
  from jaxcfr.kits.sequence_form import evaluation  # pylint: disable=import-outside-toplevel

  base, solver = perturbed_kuhn(), solvers.get("dcfr")
  keep = jax.checkpoint_policies.save_only_these_names(evaluation.SEQUENCE_VALUES)

  def f(utility, policy):
    tensors = with_leaves(base, utility=utility)
    state = diff.unrolled(solver, tensors, solver.init(tensors), 30, chunk=7, policy=policy)
    return jaxcfr.exploitability(tensors, solver.average_strategy(tensors, state))

  kept = jax.jit(jax.grad(lambda u: f(u, keep)))(base.tree.utility)
  recomputed = jax.jit(jax.grad(lambda u: f(u, None)))(base.tree.utility)
  np.testing.assert_allclose(kept, recomputed, rtol=1e-12, atol=1e-14)
  assert float(jnp.abs(kept).max()) > 0


@pytest.mark.parametrize("batch", [(2,), (8,)])  # segment sums and scatters; gathered row sums
def test_hand_written_reverse_passes_equal_autodiff_of_the_forward_code(batch):
  """The payoff products', the counterfactual values', the realization plan's and the parent
  reach's custom VJPs (transposed products, a top-down adjoint, bottom-up sums) against JAX's
  reverse mode of the same forward code."""
  from jaxcfr.kits.sequence_form import evaluation  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.sequence_form import payoff as payoff_module  # pylint: disable=import-outside-toplevel

  tensors = perturbed_kuhn()
  rng = np.random.default_rng(3)
  tp = tensors.players[0]
  strategy = jnp.asarray(rng.random(tp.legal.shape + batch))
  values = jnp.asarray(rng.normal(size=(tp.num_sequences,) + batch))
  weights = (
    jnp.asarray(rng.normal(size=tp.legal.shape + batch)),
    jnp.asarray(rng.normal(size=tp.legal.shape[:1] + batch)),
  )

  def score(cfv, g, s):
    q, v = cfv(g, s)
    return (q * weights[0]).sum() + (v * weights[1]).sum() + (q**2).sum()

  with evaluation.hand_written_reverse():
    ours = jax.jit(jax.grad(lambda g, s: score(functools.partial(evaluation.counterfactual_values, tp), g, s), (0, 1)))(
      values, strategy
    )
  plain = jax.jit(
    jax.grad(
      lambda g, s: score(
        lambda g, s: evaluation._counterfactual_forward_pass(  # pylint: disable=protected-access
          tp.level_slices, None, tp.legal, tp.parent_seq, tp.children, g, s
        ),
        g,
        s,
      ),
      (0, 1),
    )
  )(values, strategy)
  for a, b in zip(ours, plain):
    np.testing.assert_allclose(a, b, atol=1e-12)
  # the realization plan's and the parent reach's adjoints (bottom-up sums by gathers)
  plan_weights = jnp.asarray(rng.normal(size=(tp.num_sequences,) + batch))

  def plan_score(s, custom):
    plan = evaluation.realization_plan(tp, s)
    reach = evaluation.parent_reach(tp, plan) if custom else plan[tp.parent_seq]
    return (jnp.sin(plan) * plan_weights).sum() + jnp.cos(reach).sum()

  plan_gradient = jax.jit(jax.grad(plan_score), static_argnums=1)
  with evaluation.hand_written_reverse():
    ours = plan_gradient(strategy, True)
  np.testing.assert_allclose(ours, plan_gradient(strategy, False), atol=1e-12)
  payoff = tensors.payoff
  for player in (0, 1):
    plan = jnp.asarray(rng.random((tensors.players[1 - player].num_sequences,) + batch))

    def product(value, plan, custom):
      if custom:
        out = evaluation.sequence_values_for(dataclasses.replace(payoff, value=value), player, plan)
      else:
        out = payoff_module._product(player, value, plan, payoff_module._PayoffIndices.of(payoff))  # pylint: disable=protected-access
        out = out * (1 if player == 0 else -1)
      return jnp.sin(out).sum()

    gradient = jax.jit(jax.grad(product, (0, 1)), static_argnums=2)
    with evaluation.hand_written_reverse():
      ours = gradient(payoff.value, plan, True)
    for a, b in zip(ours, gradient(payoff.value, plan, False)):
      np.testing.assert_allclose(a, b, atol=1e-12)
  # forward mode through solver.run (outside the switch) still works
  solver = solvers.get("cfr+")
  tangent = jax.jvp(
    lambda v: jaxcfr.exploitability(
      with_payoff(tensors, v),
      solver.average_strategy(tensors, solver.run(with_payoff(tensors, v), solver.init(tensors), 3)),
    ),
    (payoff.value,),
    (payoff.value,),
  )[1]
  assert np.isfinite(float(tangent))


def with_payoff(tensors, value):
  return dataclasses.replace(tensors, payoff=dataclasses.replace(tensors.payoff, value=value))


# --- The equilibrium value (Danskin) ------------------------------------------------------------


def test_equilibrium_value_and_its_gradient_match_linear_programming():
  base = perturbed_kuhn(seed=4)
  value = diff.equilibrium_value(base, iterations=20000)
  assert float(value) == pytest.approx(helpers.lp_game_value(base), abs=1e-5)
  for kind, leaf, seed in (("utility", "utility", 5), ("chance", "chance_prob", 6)):
    d = direction(base, kind, seed)
    x0 = getattr(base.tree, leaf)
    grad = jax.grad(lambda x, leaf=leaf: diff.equilibrium_value(with_leaves(base, **{leaf: x}), iterations=20000))(x0)
    lp = lambda x, leaf=leaf: helpers.lp_game_value(with_leaves(base, **{leaf: x}))  # noqa: E731
    assert float((grad * d).sum()) == pytest.approx(float(central(lp, x0, d, eps=1e-5)), abs=2e-3)


def test_equilibrium_value_gradient_is_the_outer_product_of_the_plans():
  tensors = perturbed_kuhn()
  grad = jax.grad(lambda t: diff.equilibrium_value(t, iterations=500), allow_int=True)(tensors)
  solver = solvers.get("cfr+")
  state = solver.run(tensors, solver.init(tensors), 500)
  x, y = jaxcfr.kits.sequence_form.evaluation.plans(tensors, solver.average_strategy(tensors, state))
  np.testing.assert_allclose(grad.payoff.value, x[tensors.payoff.seq0] * y[tensors.payoff.seq1], rtol=1e-12)
  assert float(jnp.abs(grad.tree.utility).max()) == 0.0
  with pytest.raises(ValueError, match="needs a solver without requirements"):
    diff.equilibrium_value(tensors, algo="rnr")


def test_qre_of_a_game_whose_payoffs_are_all_zero_is_the_magnet():
  """The default step size divides by the largest payoff squared; an all-zero game gave NaN."""
  tensors = helpers.load("kuhn_poker").tensors
  zero = dataclasses.replace(tensors, payoff=dataclasses.replace(tensors.payoff, value=tensors.payoff.value * 0))
  rng = np.random.default_rng(0)
  magnet = []
  for player in tensors.players:
    x = rng.random(player.legal.shape) * np.asarray(player.legal) + 1e-3
    magnet.append(jnp.asarray(x / x.sum(1, keepdims=True)))
  profile = diff.qre(zero, temperature=jnp.array([0.1, 1.0]), magnet=tuple(magnet))
  for got, want, player in zip(profile, magnet, tensors.players):
    want = np.where(np.asarray(player.legal), np.asarray(want), 0)
    np.testing.assert_allclose(got, np.broadcast_to(want[..., None], got.shape), atol=1e-9)
  entropy = diff.qre(zero, temperature=0.5)  # the dilated entropy's maximiser: finite, gap 0
  assert all(bool(jnp.all(jnp.isfinite(x))) for x in entropy)
  assert abs(float(diff.qre_gap(zero, entropy, temperature=0.5))) < 1e-9
  assert float(jnp.max(solvers.mmd.automatic_step_size(zero, jnp.float64(0.5)))) == 1.0
