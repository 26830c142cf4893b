"""Splitting a batch of runs over devices, on one host or over several processes.

A batched solver state of any family carries trailing batch axes ``[..., B]``
(jaxcfr.solvers.registry). Runs never interact, so splitting the last batch axis across
devices needs no communication: XLA's partitioner keeps every step local, and the game
tensors are replicated (``replicate``). On a CPU, expose the cores as devices with
``XLA_FLAGS=--xla_force_host_platform_device_count=N`` set before JAX starts (the command
line does: ``jaxcfr.xla_setup.expose_cpu_cores``): a batch of CFR runs compiles into one
kernel per device, which runs on one core.

Several processes (hosts) join through JAX's own runtime, ``jax.distributed``
(``initialize``): every process builds the same whole batch, keeps the slice that lives on
its own devices, and the mesh spans every process's devices. Results are gathered to every
process with ``gather``.
"""

from __future__ import annotations

import os
import sys
import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding, PartitionSpec

__all__ = [
  "batch_mesh",
  "devices_dividing",
  "shard_trailing_batch",
  "is_split",
  "replicate",
  "gather",
  "finite_leaves",
  "initialize",
  "is_main_process",
]


def initialize(
  coordinator: str | None = None,
  num_processes: int | None = None,
  process_id: int | None = None,
  *,
  timeout_s: int | None = None,
) -> None:
  """Joins a multi-process run through ``jax.distributed`` (before any other JAX work).

  With no arguments JAX detects the cluster (e.g. SLURM's variables); otherwise give the
  coordinator's ``host:port``, the number of processes and this process's id. On CPUs the
  processes talk through gloo collectives (used only to gather results).

  ``timeout_s``: say on stderr what the process waits for, and if the others have not all
  joined within ``timeout_s`` seconds, print one line and exit the process with status 2
  (JAX itself would abort it with a C++ stack trace, which no Python code can catch). None:
  JAX's own behaviour (a 300-second limit)."""
  jax.config.update("jax_cpu_collectives_implementation", "gloo")  # CPU processes only; accelerators have their own
  if timeout_s is None:
    jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes, process_id=process_id)
    return
  who = f"process {process_id} of {num_processes}" if process_id is not None else "this process"
  where = f"the coordinator {coordinator}" if coordinator else "the cluster's coordinator"
  print(f"jaxcfr: {who} waits for the others at {where} (up to {timeout_s} s)", file=sys.stderr, flush=True)
  joined = threading.Event()

  def give_up():
    if not joined.wait(timeout_s):
      print(
        f"jaxcfr: error: {who}: the other processes did not join {where} within {timeout_s} s "
        "(--join-timeout); start every process with the same --coordinator and --num-processes",
        file=sys.stderr,
        flush=True,
      )
      os._exit(2)  # the main thread is blocked inside JAX's C++ client

  threading.Thread(target=give_up, daemon=True, name="jaxcfr-join-timeout").start()
  jax.distributed.initialize(
    coordinator_address=coordinator,
    num_processes=num_processes,
    process_id=process_id,
    initialization_timeout=int(timeout_s) + 60,  # ours comes first
  )
  joined.set()


def is_main_process() -> bool:
  """True on the process that writes files and draws progress (process 0)."""
  return jax.process_index() == 0


def batch_mesh(devices=None) -> Mesh:
  """A one-axis ("batch") mesh over ``devices`` (default: every device of every process)."""
  return Mesh(np.array(devices if devices is not None else jax.devices()), ("batch",))


def devices_dividing(batch_size: int) -> list:
  """The first ``d`` local devices, for the largest ``d`` that divides ``batch_size``: a
  batch of 6 runs on 4 devices splits over 3 of them rather than none."""
  local = jax.local_devices()
  count = max(d for d in range(1, len(local) + 1) if batch_size % d == 0)
  return local[:count]


def shard_trailing_batch(state, batch_size: int, devices=None):
  """Places ``state`` so that every leaf's last axis (of length ``batch_size``) is split
  over ``devices`` (default: every device of every process). Every process must pass the
  same ``state``; each keeps its own slice. Returns ``state`` unchanged when there is one
  device or ``batch_size`` is not a multiple of the device count (in a multi-process run
  that is an error: the batch would not be split)."""
  mesh = batch_mesh(devices)
  if mesh.size == 1 or batch_size % mesh.size:
    if jax.process_count() > 1:
      raise ValueError(
        f"a batch of {batch_size} runs does not split over the {mesh.size} devices of "
        f"{jax.process_count()} processes; use a multiple of {mesh.size}"
      )
    return state

  def place(leaf):
    if leaf.ndim == 0 or leaf.shape[-1] != batch_size:
      raise ValueError(f"a batched state leaf has shape {leaf.shape}; expected a trailing batch axis {batch_size}")
    # An empty leaf (e.g. the [0, A, B] prediction of solvers that do not predict) has
    # nothing to split, and a jitted step returns it replicated: placing it replicated
    # keeps a step's output shardings equal to its input's, so feeding states back into
    # a jitted loop never recompiles.
    spec = (None,) * (leaf.ndim - 1) + ("batch",) if leaf.size else ()
    return _put(leaf, NamedSharding(mesh, PartitionSpec(*spec)))

  return jax.tree_util.tree_map(place, state)


def _put(leaf, sharding: NamedSharding) -> jax.Array:
  """``leaf`` placed with ``sharding``; over several processes each keeps its own part of
  the same host array."""
  if jax.process_count() == 1:
    return jax.device_put(leaf, sharding)
  host = np.asarray(leaf)
  return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])


def is_split(tree) -> bool:
  """Whether some leaf of ``tree`` lives on more than one device."""
  return any(len(leaf.sharding.device_set) > 1 for leaf in jax.tree_util.tree_leaves(tree))


def replicate(tree, devices=None):
  """Places a copy of every leaf of ``tree`` (the game tensors) on each of ``devices``
  (default: every device of every process), once. Pass the result with a state placed by
  ``shard_trailing_batch``: tensors left on one device are copied to the others at every
  call of a jitted function (Leduc poker's, split over two CPU devices: about 1 ms per
  ``solver.run`` call, against 0.2 ms for a CFR+ iteration of 64 runs). Every process must
  pass the same ``tree``. Returns ``tree`` unchanged with one device."""
  mesh = batch_mesh(devices)
  if mesh.size == 1:
    return tree
  everywhere = NamedSharding(mesh, PartitionSpec())
  return jax.tree_util.tree_map(lambda leaf: _put(leaf, everywhere), tree)


def gather(tree):
  """Host (NumPy) copies of every leaf of ``tree``; leaves split over several processes are
  gathered from all of them (a collective: every process must call it)."""

  def fetch(leaf):
    if isinstance(leaf, jax.Array) and not leaf.is_fully_addressable:
      return np.asarray(multihost_utils.process_allgather(leaf, tiled=True))
    return np.asarray(jax.device_get(leaf))

  return jax.tree_util.tree_map(fetch, tree)


@jax.jit
def _finite(leaves: list) -> jax.Array:
  """[L] bool: whether each array of ``leaves`` is finite everywhere (True for integers)."""
  return jnp.stack(
    [jnp.all(jnp.isfinite(x)) if jnp.issubdtype(x.dtype, jnp.inexact) else jnp.asarray(True) for x in leaves]
  )


def finite_leaves(tree) -> np.ndarray:
  """[L] bool: whether each leaf of ``tree`` (``tree_leaves`` order) is finite everywhere,
  over every process. One reduction per device; with several processes each reduces its
  own shards and the flags are gathered (a collective: every process must call it)."""
  leaves = jax.tree_util.tree_leaves(tree)
  if all(not isinstance(x, jax.Array) or x.is_fully_addressable for x in leaves):
    return np.asarray(_finite(leaves))
  local = np.ones(len(leaves), bool)
  for i, leaf in enumerate(leaves):
    shards = [s.data for s in leaf.addressable_shards] if isinstance(leaf, jax.Array) else [leaf]
    local[i] = all(bool(_finite([x])[0]) for x in shards)
  return np.asarray(multihost_utils.process_allgather(local)).reshape(-1, len(leaves)).all(0)
