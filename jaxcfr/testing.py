"""The conformance kit: what every game, in every representation it declares, and every
registered solver of jaxcfr must satisfy, as public checks that the project's own tests run
for each game and solver, and that people who add their own call the same way (as pgx ships
its ``api_test``).

    >>> import jaxcfr.testing
    >>> game = jaxcfr.testing.check_game("kuhn_poker", representation="public_tree")
    >>> jaxcfr.testing.check_solver("cfr+", "public_tree")

``check_game`` loads a game (or takes a loaded one) and runs its kit's conformance check
(structure, round trips, a valid uniform profile with finite values), a round trip of the
uniform profile through the kit's strategy file, and, where the kit has CFR operations, a
short CFR+ run that does not raise the exploitability. ``check_solver`` takes a registered
solver through the generic path on a small game of its representation: the declaration is
consistent with the solver, ``init`` and ``run`` under ``jit``, a batch of three runs equals
the three runs alone with trailing batch axes, valid strategies with a finite evaluation, no
retrace on a reloaded game or a new chunk length, and a checkpoint round trip. Each raises
AssertionError (or ValueError from the library) naming what failed.

The module stands outside the layers: it uses every one of them and nothing imports it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import kits, solvers
from jaxcfr.kits import strategy_files
from jaxcfr.run import checkpoint

__all__ = ["check_game", "check_solver", "check_declaration", "BATCHABLE_VALUES"]

# Three values each, that make three different runs, for the hyperparameter a batch is tried on.
BATCHABLE_VALUES = {
  "seed": (1, 2, 3),
  "p": (0.2, 0.5, 0.8),
  "averaging_delay": (0, 1, 2),
  "temperature": (0.1, 0.5, 1.0),
  "alpha": (1.0, 1.5, 2.0),
}


def _headline(kit, game, solver, state) -> np.ndarray:
  """The kit evaluator's headline metric of ``state`` (finite, [*B])."""
  evaluator = kit.evaluator(game)
  values = evaluator(solver, game.tensors, state, 1)
  return np.asarray(values[evaluator.headline])


def check_game(game, *, representation: str | None = None, dtype=None, iterations: int = 20):
  """Checks a game in one representation (``game`` a loaded game, or a game string loaded in
  ``representation``, default the game's own): its kit's conformance check, the strategy
  file round trip, and CFR+ over ``iterations`` not raising the exploitability where the kit
  has CFR operations. Returns the loaded game."""
  if isinstance(game, str):
    game = kits.load(game, dtype=dtype, representation=representation)
  kit = kits.of_game(game)
  kit.check_game(game)
  tensors = game.tensors
  uniform = kit.uniform_profile(tensors)
  kit.check_profile(tensors, uniform)
  if kit.save_strategy is not None:
    with tempfile.TemporaryDirectory() as folder:
      path = Path(folder) / "uniform.npz"
      strategy_files.save_strategy(path, game, uniform)
      back = strategy_files.load_strategy(path, game)
    for x, y in zip(uniform, back):
      np.testing.assert_allclose(np.asarray(y), np.asarray(x), err_msg=f"{game.name}: strategy file round trip")
  if kit.operations is not None:
    solver = solvers.get("cfr+", kit.name)
    start = _headline(kit, game, solver, solver.init(tensors))
    state = solver.run(tensors, solver.init(tensors), iterations)
    end = _headline(kit, game, solver, state)
    assert np.isfinite(end) and end <= start + 1e-6, f"{game.name}: CFR+ went from {start} to {end}"
  return game


def _init_arguments(declared, kit, tensors) -> dict:
  """What ``init`` needs beyond defaults: a uniform model and p for the restricted solvers,
  a lock of player 0's first row to its uniform strategy for node locking."""
  kwargs = {}
  if "model" in declared.requires:
    kwargs["model"] = kit.uniform_profile(tensors)
  if "lock" in declared.requires:
    from jaxcfr.solvers.locking import Lock  # pylint: disable=import-outside-toplevel

    uniform = kit.uniform_profile(tensors)[0]
    mask = jnp.zeros(uniform.shape[:1] + uniform.shape[2:], bool).at[0].set(True)
    kwargs["lock"] = Lock(0, mask, uniform)
  p = declared.param("p")
  if p is not None and p.default is None:
    kwargs["p"] = 0.5
  return kwargs


def _batched_name(solver) -> str:
  for name in BATCHABLE_VALUES:
    if name in solver.hyperparameters:
      return name
  raise AssertionError(f"{solver.name}: no hyperparameter among {list(BATCHABLE_VALUES)} to batch")


def _compilations(run) -> int:
  """The number of XLA compilations while ``run()`` executes."""
  count = [0]

  def listen(event, duration, **kwargs):
    del duration, kwargs
    if "backend_compile" in event:
      count[0] += 1

  jax.monitoring.register_event_duration_secs_listener(listen)
  try:
    run()
  finally:
    jax.monitoring.unregister_event_duration_listener(listen)
  return count[0]


def check_declaration(name: str, representation: str = "sequence_form") -> None:
  """The solver made with default options agrees with its declaration: the declared option
  defaults are its options, and every hyperparameter it takes is declared with its default."""
  declared = solvers.registration(name, representation)
  solver = solvers.get(name, representation)
  for param in declared.options:
    assert param.name in solver.options, f"{name}: declared option {param.name} is not among {solver.options}"
    if param.default is not None:
      assert solver.options[param.name] == param.default, f"{name}: option {param.name} default"
  declared_names = {p.name for p in declared.hyperparameters}
  for key, default in solver.hyperparameters.items():
    assert key in declared_names, f"{name}: hyperparameter {key} is not declared"
    param = declared.param(key)
    if param.default is not None and default is not None:
      assert np.all(np.asarray(default) == np.asarray(param.default)), (
        f"{name}: {key} defaults to {default}, declared {param.default}"
      )


def check_solver(
  name: str,
  representation: str = "sequence_form",
  *,
  game: str | None = None,
  dtype=None,
  iterations: int = 20,
  rtol: float = 1e-9,
  atol: float = 1e-12,
) -> None:
  """Takes the registered solver ``name`` of ``representation`` through the generic path on
  ``game`` (default: the kit's small example game) loaded in ``dtype`` (see the module
  docstring); float32 runs want a looser ``rtol`` and ``atol`` (the batch's runs and the runs
  alone sum in other orders, and a sampled run's discrete choices, such as a hand's bucket near
  a cut, can part on a rounding)."""
  check_declaration(name, representation)
  declared = solvers.registration(name, representation)
  kit = kits.get(representation)
  game = game or kit.example
  first = kits.load(game, dtype=dtype, representation=representation)
  tensors = first.tensors
  solver = solvers.get(name, representation)
  kwargs = _init_arguments(declared, kit, tensors)
  batched = _batched_name(solver)
  values = BATCHABLE_VALUES[batched]
  alone = [solver.run(tensors, solver.init(tensors, **{**kwargs, batched: v}), iterations) for v in values]
  batch = solver.run(tensors, solver.init(tensors, **{**kwargs, batched: jnp.asarray(values)}), iterations)
  assert solvers.batch_shape(batch) == (3,) and solvers.batch_shape(alone[0]) == (), f"{name}: batch shapes"
  for b, single in enumerate(alone):
    for x, y in zip(jax.tree_util.tree_leaves(single), jax.tree_util.tree_leaves(batch)):
      assert y.shape == x.shape + (3,), f"{name}: a leaf of shape {x.shape} batched as {y.shape}"
      np.testing.assert_allclose(np.asarray(y)[..., b], np.asarray(x), rtol=rtol, atol=atol, err_msg=name)
  uniform = kit.uniform_profile(tensors)
  for strategies in (solver.average_strategy, solver.current_strategy):
    profile = strategies(tensors, batch)
    assert [s.shape for s in profile] == [u.shape + (3,) for u in uniform], f"{name}: strategy shapes"
    kit.check_profile(tensors, profile)
  headline = _headline(kit, first, solver, batch)
  assert headline.shape == (3,) and np.all(np.isfinite(headline)), f"{name}: {headline}"
  average = solver.average_strategy(tensors, batch)[0]
  assert not np.allclose(average[..., 0], average[..., 1]), f"{name}: the runs of a batch over {batched} agree"
  # No retrace: a reloaded game (new arrays, equal statics) and new chunk lengths reuse the program.
  second = kits.load(game, dtype=dtype, representation=representation).tensors
  fresh = solver.init(second, **kwargs)
  jax.block_until_ready(solver.run(tensors, solver.init(tensors, **kwargs), 3))
  compiled = _compilations(lambda: jax.block_until_ready([solver.run(second, fresh, n) for n in (1, 7, 12)]))
  assert compiled == 0, f"{name}: {compiled} compilations on a reloaded game or a new chunk length"
  # A checkpoint round trip gives back the state.
  with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "state.npz"
    checkpoint.save(path, batch, {"solver": name})
    restored, metadata = checkpoint.load(path, solver.init(tensors, **{**kwargs, batched: jnp.asarray(values)}))
  assert metadata["solver"] == name
  for x, y in zip(jax.tree_util.tree_leaves(batch), jax.tree_util.tree_leaves(restored)):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=f"{name}: checkpoint round trip")
