"""Sharding a batch of runs over the local devices.

A batched solver state of any family carries trailing batch axes ``[..., B]``
(jaxcfr.solvers.registry). Runs never
interact, so splitting the last batch axis across devices needs no communication: XLA's
partitioner keeps every step local, and the game tensors are replicated. On a CPU, expose
the cores as devices with ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` set before
JAX starts.
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec


def batch_mesh(devices=None) -> Mesh:
  return Mesh(np.array(devices if devices is not None else jax.local_devices()), ("batch",))


def shard_trailing_batch(state, batch_size: int, devices=None):
  """Places ``state`` so that every leaf's last axis (of length ``batch_size``) is split
  over ``devices`` (default: all local devices). Returns ``state`` unchanged when there is
  one device or ``batch_size`` is not a multiple of the device count."""
  mesh = batch_mesh(devices)
  if mesh.size == 1 or batch_size % mesh.size:
    return state

  def place(leaf):
    if leaf.ndim == 0 or leaf.shape[-1] != batch_size:
      raise ValueError(f"a batched state leaf has shape {leaf.shape}; expected a trailing batch axis {batch_size}")
    return jax.device_put(leaf, NamedSharding(mesh, PartitionSpec(*([None] * (leaf.ndim - 1)), "batch")))

  return jax.tree_util.tree_map(place, state)
