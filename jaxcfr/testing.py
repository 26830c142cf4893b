"""The conformance kit: what every game and every solver of jaxcfr must satisfy, as public
checks that the project's own tests run for each game and solver, and that people who add
their own call the same way (as pgx ships its ``api_test``).

    >>> import jaxcfr.testing
    >>> jaxcfr.testing.check_game("kuhn_poker")          # doctest: +SKIP
    >>> jaxcfr.testing.check_solver("cfr+")               # doctest: +SKIP

``check_game`` loads a game (or takes a loaded one) and checks its arrays (the builder's
structural checks, the tensors, a round trip through the cache format) and a short CFR+ run
on it. ``check_solver`` takes a registered solver through the generic path on a small game:
the declaration is consistent with the solver, ``init`` and ``run`` under ``jit``, a batch of
three runs equals the three runs alone with trailing batch axes, valid strategies with
finite exploitability, no retrace on a reloaded game or a new chunk length, and a checkpoint
round trip. Each raises AssertionError (or ValueError from the library) naming what failed.

The module stands outside the layers: it uses every one of them and nothing imports it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import solvers
from jaxcfr.core import evaluation
from jaxcfr.game import integrity
from jaxcfr.game.arrays import GameArrays
from jaxcfr.game.loading import Game, load
from jaxcfr.game.representation import Representation
from jaxcfr.run import checkpoint

__all__ = ["check_game", "check_solver", "BATCHABLE_VALUES"]

# Three values each, that make three different runs, for the hyperparameter a batch is tried on.
BATCHABLE_VALUES = {
  "seed": (1, 2, 3),
  "p": (0.2, 0.5, 0.8),
  "averaging_delay": (0, 1, 2),
  "temperature": (0.1, 0.5, 1.0),
  "alpha": (1.0, 1.5, 2.0),
}


def check_game(game: Game | str, *, dtype=None, iterations: int = 20) -> Game:
  """Checks a sequence-form game: its arrays pass the builder's structural checks and survive
  the cache format's round trip, its tensors agree with the arrays, a uniform profile is
  valid, and CFR+ lowers its exploitability over ``iterations``. Returns the loaded game."""
  if isinstance(game, str):
    game = load(game, dtype=dtype)
  assert game.representation == Representation.SEQUENCE_FORM, f"{game.name}: check_game takes sequence-form games"
  arrays = game.arrays
  integrity.check_game_arrays(arrays)
  stored = integrity.verify_checksum(integrity.with_checksum(arrays.to_npz_dict()), f"{game.name} (round trip)")
  back = GameArrays.from_npz_dict(stored, getattr(arrays, "key_decoders", (None, None)))
  for field in ("parent", "kind", "infoset", "utility", "chance_prob"):
    np.testing.assert_array_equal(getattr(back, field), getattr(arrays, field), err_msg=f"{game.name}: {field}")
  tensors = game.tensors
  assert [tp.legal.shape for tp in tensors.players] == [p.legal.shape for p in arrays.players], game.name
  np.testing.assert_array_equal(np.asarray(tensors.tree.kind), arrays.kind, err_msg=f"{game.name}: tree kinds")
  uniform = evaluation.uniform_profile(tensors)
  evaluation.check_profile(tensors, uniform)
  start = float(evaluation.exploitability(tensors, uniform))
  assert np.isfinite(start) and start >= -1e-6, f"{game.name}: the uniform profile's exploitability is {start}"
  solver = solvers.get("cfr+")
  state = solver.run(tensors, solver.init(tensors), iterations)
  end = float(evaluation.exploitability(tensors, solver.average_strategy(tensors, state)))
  assert np.isfinite(end) and end <= start + 1e-6, f"{game.name}: CFR+ went from {start} to {end}"
  return game


def _init_arguments(declared, solver, tensors) -> dict:
  """What ``init`` needs beyond defaults: a uniform model and p for the restricted solvers."""
  kwargs = {}
  if "model" in declared.requires:
    kwargs["model"] = evaluation.uniform_profile(tensors)
  p = declared.param("p")
  if p is not None and p.default is None:
    kwargs["p"] = 0.5
  del solver
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


def check_declaration(name: str, representation: Representation | str = Representation.SEQUENCE_FORM) -> None:
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


def check_solver(name: str, game: str = "kuhn_poker", *, dtype=None, iterations: int = 20, rtol: float = 1e-9) -> None:
  """Takes the registered sequence-form solver ``name`` through the generic path on ``game``
  loaded in ``dtype`` (see the module docstring); float32 runs want a looser ``rtol``."""
  check_declaration(name)
  declared = solvers.registration(name)
  first = load(game, dtype=dtype)
  tensors = first.tensors
  solver = solvers.get(name)
  kwargs = _init_arguments(declared, solver, tensors)
  batched = _batched_name(solver)
  values = BATCHABLE_VALUES[batched]
  alone = [solver.run(tensors, solver.init(tensors, **{**kwargs, batched: v}), iterations) for v in values]
  batch = solver.run(tensors, solver.init(tensors, **{**kwargs, batched: jnp.asarray(values)}), iterations)
  assert solvers.batch_shape(batch) == (3,) and solvers.batch_shape(alone[0]) == (), f"{name}: batch shapes"
  for b, single in enumerate(alone):
    for x, y in zip(jax.tree_util.tree_leaves(single), jax.tree_util.tree_leaves(batch)):
      assert y.shape == x.shape + (3,), f"{name}: a leaf of shape {x.shape} batched as {y.shape}"
      np.testing.assert_allclose(np.asarray(y)[..., b], np.asarray(x), rtol=rtol, atol=1e-12, err_msg=name)
  for strategies in (solver.average_strategy, solver.current_strategy):
    profile = strategies(tensors, batch)
    assert [s.shape for s in profile] == [t.legal.shape + (3,) for t in tensors.players], f"{name}: strategy shapes"
    evaluation.check_profile(tensors, profile)
    exploitability = np.asarray(evaluation.exploitability(tensors, profile))
    assert exploitability.shape == (3,) and np.all(np.isfinite(exploitability)), f"{name}: {exploitability}"
    assert np.all(exploitability >= -1e-6), f"{name}: negative exploitability {exploitability}"
  average = solver.average_strategy(tensors, batch)[0]
  assert not np.allclose(average[..., 0], average[..., 1]), f"{name}: the runs of a batch over {batched} agree"
  # No retrace: a reloaded game (new arrays, equal statics) and new chunk lengths reuse the program.
  second = load(game, dtype=dtype).tensors
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
