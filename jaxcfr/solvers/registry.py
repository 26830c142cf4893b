"""The one solver protocol and the registry of every algorithm.

A solver is a set of pure functions in the style of optax's ``GradientTransformation``::

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
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxcfr.base import row_updates
from jaxcfr import kits
from jaxcfr.base.params import SEED, Param, concrete

__all__ = [
  "Solver",
  "Registration",
  "Param",
  "SEED",
  "register",
  "get",
  "names",
  "representations",
  "registration",
  "registrations",
  "option_names",
  "split_settings",
  "check_settings",
  "batch_shape",
  "per_run",
  "concrete",
]


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
    representation: the representation of the games it runs on (set by ``get``).
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
  representation: str = "sequence_form"

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
    split = _batch_split(state)
    count = jnp.asarray(num_iterations, jnp.int32)
    if donate:
      return _run_donating(self, split, tensors, _distinct_buffers(state), count)
    return _run(self, split, tensors, state, count)

  def __repr__(self):
    options = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
    return f"Solver({self.name!r}{', ' + options if options else ''})"


def _loop(solver: Solver, tensors, state, num_iterations):
  if solver.loop is not None:
    return solver.loop(tensors, state, num_iterations)
  return jax.lax.fori_loop(0, num_iterations, lambda _, s: solver.step(tensors, s), state)


def _batch_split(state) -> tuple[Mesh, str] | None:
  """(mesh, axis name) when the trailing batch axis of ``state`` is split over several devices,
  as ``jaxcfr.run.sharding.shard_trailing_batch`` places it (every non-empty leaf split along
  its last axis only, over one mesh axis); None otherwise, and for traced states (a ``run``
  inside the caller's ``jit``, whose partitioner places it)."""
  leaves = [x for x in jax.tree_util.tree_leaves(state) if isinstance(x, jax.Array) and x.size]
  if any(isinstance(x, jax.core.Tracer) for x in leaves):
    return None
  found = set()
  for leaf in leaves:
    sharding = leaf.sharding
    if not isinstance(sharding, NamedSharding):
      return None
    spec = tuple(sharding.spec) + (None,) * (leaf.ndim - len(sharding.spec))
    if any(spec[:-1]) or not isinstance(spec[-1], str):
      return None
    found.add((sharding.mesh, spec[-1]))
  if len(found) != 1:
    return None
  mesh, axis = found.pop()
  return (mesh, axis) if mesh.shape[axis] > 1 else None


def _loop_per_device(solver: Solver, split, tensors, state, num_iterations):
  """``_loop`` with the batch on one device, or, when it is split over devices, as one loop
  per device (``shard_map``; runs never interact): either way a sampled step adds a batch's
  rows as one loop (``row_updates.local_batches``)."""
  with row_updates.local_batches():
    if split is None:
      return _loop(solver, tensors, state, num_iterations)
    mesh, axis = split
    specs = jax.tree_util.tree_map(lambda x: P(*(None,) * (x.ndim - 1), axis) if x.size else P(), state)
    per_device = jax.shard_map(
      functools.partial(_loop, solver), mesh=mesh, in_specs=(P(), specs, P()), out_specs=specs, check_vma=False
    )
    return per_device(tensors, state, num_iterations)


_run = jax.jit(_loop_per_device, static_argnums=(0, 1))
_run_donating = jax.jit(_loop_per_device, static_argnums=(0, 1), donate_argnums=3)


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


def per_run(
  init: Callable,
  hyperparameters,
  *,
  check: Callable | None = None,
  batched_step: Callable | None = None,
  **functions: Callable,
) -> dict:
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
  and moves them back (the same values), stepping them with ``batched_step(tensors, state)``
  if given (a natively batched step of a state whose leaves carry that one leading axis,
  with the values of ``vmap(step)``), else with ``vmap(step)``. ``vmap`` over trailing axes inside the loop would
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
      front = steps(batched_step or jax.vmap(step, in_axes=(None, 0)), front)
      return jax.tree_util.tree_map(lambda x: jnp.moveaxis(x, 0, -1).reshape(x.shape[1:] + shape), front)

    result["loop"] = loop
  return result


@dataclasses.dataclass(frozen=True)
class Registration:
  """What a registered solver declares: the one source of its metadata.

  Attributes:
    name: the algorithm's name (``get(name)``).
    representation: the representation of games it runs on (jaxcfr.base.representation).
    factory: ``factory(**options) -> Solver`` (with ``name=`` first when one factory serves
      several names); it is given every declared option, defaults filled in.
    summary: one line: what the algorithm is.
    options: the static options (``Param``, ``batchable=False``).
    hyperparameters: the batchable hyperparameters of ``init`` (``Param``, ``batchable=True``),
      those that only some options enable included.
    requires: ``init`` arguments without a default (an opponent model).
  """

  name: str
  representation: str
  factory: Callable
  summary: str
  options: tuple = ()
  hyperparameters: tuple = ()
  requires: tuple = ()

  @property
  def params(self) -> tuple:
    return tuple(self.options) + tuple(self.hyperparameters)

  def param(self, name: str) -> Param | None:
    return next((p for p in self.params if p.name == name), None)


_REGISTRY: dict[tuple[str, str], Registration] = {}


def register(
  name: str,
  factory: Callable,
  *,
  summary: str,
  representation: str = "sequence_form",
  options: tuple = (),
  hyperparameters: tuple = (),
  requires: tuple = (),
) -> None:
  """Registers the algorithm ``name`` on ``representation``: ``factory(**options) ->
  Solver`` and its declared ``options`` and ``hyperparameters`` (``Param`` tuples)."""
  representation = kits.get(representation).name
  if (name, representation) in _REGISTRY:
    raise ValueError(f"a solver named {name!r} is already registered for {representation}")
  for param in options:
    if param.batchable:
      raise ValueError(f"option {param.name} of {name} is declared batchable; options are static")
  for param in hyperparameters:
    if not param.batchable:
      raise ValueError(f"hyperparameter {param.name} of {name} must be declared batchable")
  _REGISTRY[(name, representation)] = Registration(
    name=name,
    representation=representation,
    factory=factory,
    summary=summary,
    options=tuple(options),
    hyperparameters=tuple(hyperparameters),
    requires=tuple(requires),
  )


def names(representation: str | None = None) -> tuple[str, ...]:
  """The registered algorithm names, each once (those accepting ``representation`` if given)."""
  wanted = None if representation is None else kits.get(representation).name
  return tuple(dict.fromkeys(n for (n, r) in _REGISTRY if wanted in (None, r)))


def representations(name: str) -> tuple[str, ...]:
  """The representations the algorithm ``name`` accepts."""
  _known(name)
  return tuple(r for (n, r) in _REGISTRY if n == name)


def registrations(representation: str | None = None) -> tuple[Registration, ...]:
  """Every registration (of ``representation`` if given), in registration order."""
  wanted = None if representation is None else kits.get(representation).name
  return tuple(r for r in _REGISTRY.values() if wanted in (None, r.representation))


def _known(name: str) -> None:
  if name not in names():
    raise ValueError(f"unknown solver {name!r}; registered: {', '.join(names())}")


def registration(name: str, representation: str = "sequence_form") -> Registration:
  """The declaration of ``name`` on ``representation``. Raises ValueError naming both when
  the solver does not accept that representation."""
  _known(name)
  representation = kits.get(representation).name
  found = _REGISTRY.get((name, representation))
  if found is None:
    accepted = ", ".join(map(str, representations(name)))
    raise ValueError(
      f"solver {name!r} does not run on the {representation} representation (it accepts: {accepted}); "
      f"solvers for {representation}: {', '.join(names(representation)) or 'none'}"
    )
  return found


def option_names(name: str, representation: str = "sequence_form") -> tuple[str, ...]:
  """The static options solver ``name`` declares."""
  return tuple(p.name for p in registration(name, representation).options)


def split_settings(name: str, representation: str, settings: dict) -> tuple[dict, dict]:
  """``(options, hyperparameters)`` of ``settings`` by the declaration of ``name``; raises
  ValueError naming a setting it does not declare, with what it does declare."""
  declared = registration(name, representation)
  known = {p.name for p in declared.params} | set(declared.requires)
  unknown = sorted(set(settings) - known)
  if unknown:
    raise ValueError(
      f"solver {name!r} has no setting {', '.join(unknown)}; its options: "
      f"{', '.join(p.name for p in declared.options) or 'none'}; its hyperparameters: "
      f"{', '.join(p.name for p in declared.hyperparameters) or 'none'}"
    )
  option_set = {p.name for p in declared.options}
  options = {k: v for k, v in settings.items() if k in option_set}
  return options, {k: v for k, v in settings.items() if k not in option_set}


def check_settings(name: str, representation: str, options: dict, hyperparameters: dict) -> None:
  """Checks ``options`` and ``hyperparameters`` (values, or lists of values for a batch)
  against the declaration of ``name`` without building anything, so that a caller can stop
  bad input before long work (loading a game). The same checks run again in ``get`` and
  ``init``, from the same declarations."""
  declared = registration(name, representation)
  split_settings(name, representation, {**options, **hyperparameters})
  for key, value in {**options, **hyperparameters}.items():
    param = declared.param(key)
    if param is not None:
      param.check(value, name)


def get(name: str, representation: str = "sequence_form", **options) -> Solver:
  """The solver ``name`` for games of ``representation`` with its static ``options``.

  Options are checked against their declaration and the rest filled with declared defaults;
  the solver's ``init`` checks its hyperparameters the same way (concrete values, once).
  Cached: equal options return the same Solver, so its programs compile once. Raises
  ValueError naming the registered solvers for an unknown name, the accepted
  representations for another one, and the allowed values for a bad option.
  """
  declared = registration(name, representation)
  unknown = sorted(set(options) - {p.name for p in declared.options})
  if unknown:
    allowed = ", ".join(p.name for p in declared.options) or "none"
    raise ValueError(f"solver {name!r} has no option {', '.join(unknown)}; its options: {allowed}")
  full = {p.name: p.check(options.get(p.name, p.default), name) for p in declared.options}
  try:
    return _cached(name, declared.representation, tuple(sorted(full.items())))
  except TypeError as error:
    if "unhashable" in str(error):
      raise ValueError(f"options of solver {name!r} must be hashable values: {options}") from error
    raise


@functools.cache
def _cached(name: str, representation: str, options: tuple) -> Solver:
  declared = _REGISTRY[(name, representation)]
  factory = declared.factory
  if "name" in inspect.signature(factory).parameters:  # one factory serving several names
    made = factory(name=name, **dict(options))
  else:
    made = factory(**dict(options))
  return dataclasses.replace(made, representation=representation, init=_checked_init(declared, made))


def _checked_init(declared: Registration, made: Solver) -> Callable:
  """``made.init`` behind one check of its keyword arguments against the declaration."""
  active = set(made.hyperparameters) | set(declared.requires)
  objects = {p.name for p in declared.hyperparameters if not p.cli}

  def init(tensors, **hyperparameters):
    for key, value in hyperparameters.items():
      param = declared.param(key)
      if key not in active and key not in objects:
        if param is not None and param.batchable:
          chosen = {p.name: made.options.get(p.name) for p in declared.options}
          chosen = {k: v for k, v in chosen.items() if v != declared.param(k).default} or "its default options"
          raise ValueError(
            f"solver {declared.name!r} with {chosen} has no hyperparameter {key} (other options enable it); "
            f"it takes: {', '.join(sorted(active)) or 'none'}"
          )
        raise ValueError(
          f"solver {declared.name!r} has no hyperparameter {key}; its hyperparameters: "
          f"{', '.join(sorted(active | objects)) or 'none'}"
        )
      if param is not None:
        param.check(value, declared.name)
    return made.init(tensors, **hyperparameters)

  return init
