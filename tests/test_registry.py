"""The one solver protocol: every registered solver through the same generic path, the
batch convention, and compilation hygiene (no retrace on reloading a game or on a new
chunk length)."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr import solvers
import helpers

# The batch each solver is tried with: three runs that differ.
_BATCHES = {"seed": [1, 2, 3], "p": [0.2, 0.5, 0.8], "averaging_delay": [0, 1, 2], "temperature": [0.1, 0.5, 1.0]}


def _arguments(solver, tensors):
  """Keyword arguments of ``init`` that every solver of its kind needs (a model for the
  restricted solvers) and the name of the hyperparameter to batch."""
  kwargs = {}
  if "model" in solver.requires:
    kwargs["model"] = helpers.random_profile(helpers.load("kuhn_poker").arrays, seed=0)
  if "p" in solver.requires:
    kwargs["p"] = 0.5
  batched = next(name for name in _BATCHES if name in solver.hyperparameters)
  return kwargs, batched


class CompileCounter:
  """Counts XLA backend compilations while active (jax.monitoring events)."""

  def __init__(self):
    self.count, self.active = 0, False
    jax.monitoring.register_event_duration_secs_listener(self._listen)

  def _listen(self, event, duration, **kwargs):
    del duration, kwargs
    if self.active and "backend_compile" in event:
      self.count += 1

  def __enter__(self):
    self.count, self.active = 0, True
    return self

  def __exit__(self, *exc):
    self.active = False


@functools.cache
def compile_counter():
  return CompileCounter()


def test_every_algorithm_is_registered():
  expected = {
    "cfr",
    "cfr+",
    "lcfr",
    "dcfr",
    "pcfr+",
    "rm",
    "rm+",
    "mccfr-os",
    "mccfr-es",
    "cfr-cs",
    "rnr",
    "dbr",
    "mcrnr",
    "mcts",
    "rcfr",
    "mmd",
  }
  assert expected <= set(solvers.names())
  assert all(isinstance(solvers.get(n), solvers.Solver) for n in solvers.names())
  assert solvers.get("mccfr-os", trajectories=4) is solvers.get("mccfr-os", trajectories=4)  # cached: one compile


@pytest.mark.parametrize("name", solvers.names())
def test_every_solver_through_the_generic_path(name):
  """init, run under jit, valid strategies, finite exploitability; a batch of 3 equals the
  3 runs alone, with trailing batch axes on every leaf and strategy."""
  game = helpers.load("kuhn_poker")
  tensors = game.tensors
  solver = solvers.get(name)
  kwargs, batched = _arguments(solver, tensors)
  alone = [solver.run(tensors, solver.init(tensors, **{**kwargs, batched: v}), 20) for v in _BATCHES[batched]]
  batch = solver.run(tensors, solver.init(tensors, **{**kwargs, batched: jnp.asarray(_BATCHES[batched])}), 20)
  assert solvers.batch_shape(batch) == (3,) and solvers.batch_shape(alone[0]) == ()
  for b, single in enumerate(alone):
    for x, y in zip(jax.tree_util.tree_leaves(single), jax.tree_util.tree_leaves(batch)):
      assert y.shape == x.shape + (3,)
      np.testing.assert_allclose(np.asarray(y)[..., b], np.asarray(x), rtol=1e-9, atol=1e-12)
  for strategies in (solver.average_strategy, solver.current_strategy):
    profile = strategies(tensors, batch)
    assert [s.shape for s in profile] == [t.legal.shape + (3,) for t in tensors.players]
    jaxcfr.check_profile(tensors, profile)
    exploitability = np.asarray(helpers.exploitability(tensors, profile))
    assert exploitability.shape == (3,) and np.all(np.isfinite(exploitability)) and np.all(exploitability >= -1e-12)
  assert not np.allclose(
    solver.average_strategy(tensors, batch)[0][..., 0], solver.average_strategy(tensors, batch)[0][..., 1]
  )  # the runs differ


@pytest.mark.parametrize("name", solvers.names())
def test_reloading_the_game_and_new_chunk_lengths_do_not_recompile(name):
  """Retrace guard: a second load of the same game (new arrays, equal statics) and any
  chunk length reuse the compiled run of every solver."""
  first = jaxcfr.load("kuhn_poker", dtype="float64")
  second = jaxcfr.load("kuhn_poker", dtype="float64")
  assert first.tensors.tree.statics is not second.tensors.tree.statics
  assert first.tensors.tree.statics == second.tensors.tree.statics
  solver = solvers.get(name)
  kwargs, _ = _arguments(solver, first.tensors)
  state = solver.run(first.tensors, solver.init(first.tensors, **kwargs), 3)
  jax.block_until_ready(state)
  fresh = solver.init(second.tensors, **kwargs)
  with compile_counter() as counter:
    for length in (1, 7, 12):
      state = solver.run(second.tensors, fresh, length)
    jax.block_until_ready(state)
  assert counter.count == 0, f"{name}: {counter.count} compilations"


def test_unknown_solvers_and_options_get_one_line_errors():
  with pytest.raises(ValueError, match="unknown solver 'cfr\\+\\+'; registered: cfr, cfr\\+"):
    solvers.get("cfr++")
  with pytest.raises(ValueError, match="solver 'mccfr-es' has no option trajectorys; its options:"):
    solvers.get("mccfr-es", trajectorys=2)
  with pytest.raises(ValueError, match="mccfr-os, not mccfr-es"):
    solvers.get("mccfr-es", trajectories=2)
  with pytest.raises(ValueError, match="rnr needs p"):
    solvers.get("rnr").init(
      helpers.load("kuhn_poker").tensors, model=jaxcfr.uniform_profile(helpers.load("kuhn_poker").tensors)
    )
  with pytest.raises(ValueError, match="epsilon must lie in"):
    solvers.get("mccfr-os").init(
      helpers.load("kuhn_poker").tensors, seed=jnp.arange(3), epsilon=jnp.array([0.1, 2.0, 0.5])
    )


@pytest.mark.parametrize("name", ["cfr+", "mccfr-os"])
def test_a_donating_run_computes_the_same_state_in_place(name):
  """``run(..., donate=True)`` (what the driver calls) gives the state of a plain run and
  consumes its input, a fresh state too (CFR's shares one zeros array between two leaves);
  a native-batch solver and a ``per_run`` one."""
  tensors = helpers.load("kuhn_poker").tensors
  solver = solvers.get(name)
  _, batched = _arguments(solver, tensors)
  fresh = lambda: solver.init(tensors, **{batched: jnp.asarray(_BATCHES[batched])})
  state = fresh()
  plain = solver.run(tensors, state, 9)
  given = fresh()
  donated = solver.run(tensors, given, 9, donate=True)
  for x, y in zip(jax.tree_util.tree_leaves(plain), jax.tree_util.tree_leaves(donated)):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  assert all(leaf.is_deleted() for leaf in jax.tree_util.tree_leaves(given) if leaf.size)
  assert not any(leaf.is_deleted() for leaf in jax.tree_util.tree_leaves(state))


@pytest.mark.parametrize("name", ["mccfr-os", "mcts"])
def test_a_batch_of_one_run_equals_the_run(name):
  """A batch of one (``seed=[s]``, the loop's path without vmap) gives the run's state, with
  the trailing axis."""
  tensors = helpers.load("kuhn_poker").tensors
  solver = solvers.get(name)
  alone = solver.run(tensors, solver.init(tensors, seed=7), 25)
  batch = solver.run(tensors, solver.init(tensors, seed=jnp.asarray([7])), 25)
  assert solvers.batch_shape(batch) == (1,)
  for x, y in zip(jax.tree_util.tree_leaves(alone), jax.tree_util.tree_leaves(batch)):
    np.testing.assert_array_equal(np.asarray(y)[..., 0], np.asarray(x))
