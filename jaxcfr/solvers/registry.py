"""The one solver protocol and the registry of every algorithm.

A solver is a set of pure functions in the style of optax's ``GradientTransformation``:

    init(tensors, **hyperparameters) -> state
    step(tensors, state) -> state                    (one iteration)
    average_strategy(tensors, state) -> profile      (sigma0 [I0, A0, *B], sigma1 [I1, A1, *B])
    current_strategy(tensors, state) -> profile
    run(tensors, state, num_iterations, donate=False) -> state
                                                     (jitted; num_iterations is traced)

**The batch convention.** Hyperparameters passed to ``init`` as arrays of shape ``B``
make a batch of runs; every leaf of the state then carries *trailing* batch axes
``[..., *B]`` (strategies ``[I, A, *B]``, scalars ``[*B]``, a PRNG key ``[2, *B]``), and
every result (strategies, metrics) has them too. Every state has an ``iteration`` leaf of
shape ``[*B]``. The deterministic solvers compute on trailing axes natively (the shared
gathers and segment sums of the game stay contiguous: faster than ``vmap``, see
benchmarks/cfr_speed.py); solvers written for one run (``per_run``: sampled, tree-walking)
are batched here by ``vmap`` over the trailing axes, so users see one convention.

Solvers are made by ``get(name, **options)`` (static options, such as outcome
sampling's number of trajectories; cached, so the same options return the same object
and its programs compile once) and listed by ``names()``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["Solver", "register", "get", "names", "option_names", "batch_shape", "per_run", "concrete"]


@dataclasses.dataclass(frozen=True, eq=False)
class Solver:
  """One algorithm, configured by its static options.

  Attributes:
    name: the registered name.
    init: ``init(tensors, **hyperparameters) -> state``; hyperparameters of shape ``B``
      make a batch (trailing axes).
    step: ``step(tensors, state) -> state``, one iteration of every run of the batch.
    average_strategy, current_strategy: ``(tensors, state) -> profile``, each strategy
      ``[I, A, *B]``.
    hyperparameters: the names ``init`` accepts as (batchable) arrays, with defaults.
    options: the static options the solver was made with (name -> value).
    requires: ``init`` arguments that have no default (e.g. an opponent model).
    counter_profile: for restricted solvers (RNR, DBR, MCRNR), ``(tensors, state) ->
      profile`` with the model for the restricted player and the counter-strategy for
      the other; None otherwise.
    counters: ``state -> dict`` of host-side running counts reported with the metrics
      (e.g. sampled CFR's nodes touched), or None.
    loop: ``(tensors, state, n) -> state``, ``n`` steps, used by ``run`` instead of a loop
      of ``step`` when given (every ``per_run`` solver), or None.
  """

  name: str
  init: Callable
  step: Callable
  average_strategy: Callable
  current_strategy: Callable
  hyperparameters: dict
  options: dict = dataclasses.field(default_factory=dict)
  requires: tuple = ()
  counter_profile: Callable | None = None
  counters: Callable | None = None
  loop: Callable | None = None

  @property
  def stochastic(self) -> bool:
    """True when runs draw random numbers (``seed`` is then a hyperparameter)."""
    return "seed" in self.hyperparameters

  def run(self, tensors, state, num_iterations, *, donate: bool = False):
    """``num_iterations`` steps as one jitted loop. The count is traced: every chunk
    length shares one compilation.

    ``donate=True`` hands the buffers of ``state`` to the result, which is then computed in
    place: ``state`` is deleted and must not be used again (nor may its leaves be arrays
    used elsewhere, such as the tensors'). Without it every call first copies the state; on
    the largest games that is a second or so per call (latent tic-tac-toe's CFR+ state is
    3 GB)."""
    if donate:
      return _run_donating(self, tensors, _distinct_buffers(state), jnp.asarray(num_iterations, jnp.int32))
    return _run(self, tensors, state, jnp.asarray(num_iterations, jnp.int32))

  def __repr__(self):
    options = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
    return f"Solver({self.name!r}{', ' + options if options else ''})"


def _loop(solver: Solver, tensors, state, num_iterations):
  if solver.loop is not None:
    return solver.loop(tensors, state, num_iterations)
  return jax.lax.fori_loop(0, num_iterations, lambda _, s: solver.step(tensors, s), state)


_run = jax.jit(_loop, static_argnums=0)
_run_donating = jax.jit(_loop, static_argnums=0, donate_argnums=2)


def _distinct_buffers(state):
  """``state`` with a copy of every leaf whose buffers an earlier leaf already holds (a fresh
  CFR state shares its zeros between regrets and average): a buffer is donated once."""
  seen = set()

  def own(leaf):
    if not isinstance(leaf, jax.Array) or leaf.size == 0:
      return leaf
    buffers = {shard.data.unsafe_buffer_pointer() for shard in leaf.addressable_shards}
    if buffers & seen:
      return jnp.copy(leaf)
    seen.update(buffers)
    return leaf

  return jax.tree_util.tree_map(own, state)


def batch_shape(state) -> tuple:
  """The trailing batch shape ``B`` of a state (``()`` for one run)."""
  return tuple(state.iteration.shape)


def per_run(init: Callable, hyperparameters, *, check: Callable | None = None, **functions: Callable) -> dict:
  """``init`` and ``functions`` of a solver written for one run (scalar hyperparameters,
  unbatched state), batched over trailing axes by ``vmap``.

  ``init(tensors, **kwargs)`` broadcasts the array ``hyperparameters`` among ``kwargs`` to
  one shape ``B`` and initialises one run per entry (other keyword arguments are shared by
  all runs); every state leaf gets the trailing axes ``B``. Each of ``functions`` (``step``,
  the strategies, ...) is ``fn(tensors, state)`` on one run, mapped over the batch axes
  of the state it is given. ``check(tensors, **kwargs)``, if given, validates the
  arguments once, on concrete values, before the runs are initialised under ``vmap``
  (where checks of traced values are skipped).

  It also returns ``loop(tensors, state, n)`` for ``Solver.loop`` (what ``run`` uses): it
  moves the batch axes of the state to one leading axis once, runs the ``n`` steps there
  and moves them back (the same values). ``vmap`` over trailing axes inside the loop would
  transpose the whole state every step: with 64 runs on Leduc the leading loop is 2.5x faster
  for outcome sampling and 5.8x for MCTS (its ``[H]`` tree flags;
  benchmarks/results/batch_layout.json). A batch of one run steps without ``vmap``. A
  hand-written loop of ``step`` gets the same values, slower.
  """
  hyperparameters = tuple(hyperparameters)

  def batched_init(tensors, **kwargs):
    if check is not None:
      check(tensors, **kwargs)
    arrays = {k: jnp.asarray(v) for k, v in kwargs.items() if k in hyperparameters}
    shape = jnp.broadcast_shapes(*(v.shape for v in arrays.values())) if arrays else ()
    if not shape:
      return init(tensors, **kwargs)
    shared = {k: v for k, v in kwargs.items() if k not in hyperparameters}
    flat = {k: jnp.broadcast_to(v, shape).reshape(-1) for k, v in arrays.items()}
    states = jax.vmap(lambda kw: init(tensors, **kw, **shared), out_axes=-1)(flat)
    return jax.tree_util.tree_map(lambda x: x.reshape(x.shape[:-1] + shape), states)

  def over_batch(fn):
    def batched(tensors, state):
      mapped = fn
      for _ in batch_shape(state):
        mapped = jax.vmap(mapped, in_axes=(None, -1), out_axes=-1)
      return mapped(tensors, state)

    return batched

  result = dict(init=batched_init, **{name: over_batch(fn) for name, fn in functions.items()})
  if "step" in functions:
    step = functions["step"]

    def loop(tensors, state, num_iterations):
      steps = lambda one_step, s: jax.lax.fori_loop(0, num_iterations, lambda _, x: one_step(tensors, x), s)
      shape = batch_shape(state)
      k = len(shape)
      size = math.prod(shape)  # explicit: a leaf may have an empty axis
      if size == 1:  # one run (or a batch of one): no vmap, whose gathers, copies and transposes where
        # one run slices cost several times the run (benchmarks/results/batch_layout_batch1.json)
        one = steps(step, jax.tree_util.tree_map(lambda x: x.reshape(x.shape[: x.ndim - k]), state))
        return jax.tree_util.tree_map(lambda x: x.reshape(x.shape + shape), one)
      front = jax.tree_util.tree_map(lambda x: jnp.moveaxis(x.reshape(x.shape[: x.ndim - k] + (size,)), -1, 0), state)
      front = steps(jax.vmap(step, in_axes=(None, 0)), front)
      return jax.tree_util.tree_map(lambda x: jnp.moveaxis(x, 0, -1).reshape(x.shape[1:] + shape), front)

    result["loop"] = loop
  return result


_FACTORIES: dict[str, Callable] = {}


def register(name: str, factory: Callable) -> None:
  """Registers ``factory(**options) -> Solver`` under ``name``."""
  if name in _FACTORIES:
    raise ValueError(f"a solver named {name!r} is already registered")
  _FACTORIES[name] = factory


def names() -> tuple[str, ...]:
  """The registered solver names."""
  return tuple(_FACTORIES)


def option_names(name: str) -> tuple[str, ...]:
  """The static options the factory of solver ``name`` takes."""
  if name not in _FACTORIES:
    raise ValueError(f"unknown solver {name!r}; registered: {', '.join(names())}")
  return tuple(p for p in inspect.signature(_FACTORIES[name]).parameters if p != "name")


def get(name: str, **options) -> Solver:
  """The solver ``name`` with its static ``options`` (see each solver's factory).

  Cached: equal options return the same Solver, so its programs compile once. Raises
  ValueError naming the registered solvers for an unknown name.
  """
  allowed = option_names(name)
  unknown = sorted(set(options) - set(allowed))
  if unknown:
    raise ValueError(f"solver {name!r} has no option {', '.join(unknown)}; its options: {', '.join(allowed) or 'none'}")
  try:
    return _cached(name, tuple(sorted(options.items())))
  except TypeError as error:
    if "unhashable" in str(error):
      raise ValueError(f"options of solver {name!r} must be hashable values: {options}") from error
    raise


def concrete(value) -> np.ndarray | None:
  """``value`` as a NumPy array, or None when it is traced (under ``jit`` or ``vmap``):
  argument checks run on concrete values and are skipped inside transformations."""
  try:
    return np.asarray(value)
  except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
    return None


@functools.cache
def _cached(name: str, options: tuple) -> Solver:
  factory = _FACTORIES[name]
  if "name" in inspect.signature(factory).parameters:  # one factory serving several names
    return factory(name=name, **dict(options))
  return factory(**dict(options))
