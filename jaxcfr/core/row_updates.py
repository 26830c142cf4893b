"""Adding sampled rows into a table: the update every sampled solver ends its step with.

A sampled step (outcome or external sampling, chance-sampled CFR) produces a few dozen rows
``rows[r]`` to add at rows ``index[r]`` of an [I, A] table, ``table.at[index].add(rows,
mode="drop")``. On XLA:CPU a scatter is a kernel of its own, and it keeps the loop around it
from being compiled into one kernel (``jaxcfr.xla_setup``): a step then runs as hundreds
of separately dispatched kernels, each doing a few dozen operations. Written as a loop of
row updates (``dynamic_update_slice``), the same sum compiles into the surrounding kernel,
and a sampled solver's whole ``run`` becomes one kernel. Under ``vmap`` (a batch of runs,
which may be split over devices), above ``ROW_LOOP_ROWS`` rows and off the CPU,
``add_rows`` is the scatter.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["add_rows"]

# Above this many rows, a scatter even on a CPU: a large update (external sampling's frontiers
# on Goof(7) or latent tic-tac-toe, outcome sampling's large minibatches) is no small step,
# so a loop of row updates would only serialise it.
ROW_LOOP_ROWS = 1024


def _scatter(table: jax.Array, index: jax.Array, rows: jax.Array) -> jax.Array:
  index = jnp.where(index < 0, table.shape[0], index)  # dropped, where indexing would wrap it
  return table.at[index].add(rows.astype(table.dtype), mode="drop")


@jax.custom_batching.custom_vmap
def _row_loop(table: jax.Array, index: jax.Array, rows: jax.Array) -> jax.Array:
  """``_scatter`` as a loop over the rows, in their order (rows of one index add up in
  order, as the scatter adds them on a CPU)."""
  rows = rows.astype(table.dtype)

  def add(r, out):
    inside = (index[r] >= 0) & (index[r] < table.shape[0])
    at = jnp.where(inside, index[r], 0)
    row = jax.lax.dynamic_index_in_dim(out, at, 0, keepdims=True)
    return jax.lax.dynamic_update_index_in_dim(out, row + jnp.where(inside, rows[r], 0), at, 0)

  return jax.lax.fori_loop(0, index.shape[0], add, table)


@_row_loop.def_vmap
def _row_loop_batched(axis_size, in_batched, table, index, rows):
  """A batch of runs: the scatter. (One loop over every run's rows of the flattened
  [B * I, A] tables compiles into the step's kernel too, but it merges the batch axis into
  the rows, and a batch split over devices would then exchange the tables every step.)"""
  del axis_size
  in_axes = tuple(0 if batched else None for batched in in_batched)
  return jax.vmap(_scatter, in_axes=in_axes)(table, index, rows), True


def add_rows(table: jax.Array, index: jax.Array, rows: jax.Array) -> jax.Array:
  """``table.at[index].add(rows, mode="drop")``, except that every row whose index is
  outside ``[0, I)`` is dropped (negative ones too).

  Args:
    table: [I, A].
    index: [R] int, the row of each update.
    rows: [R, A], the values to add.
  Returns:
    [I, A]. On a CPU a loop of row updates in the order of the rows (a scatter under
    ``vmap`` or above ``ROW_LOOP_ROWS`` rows); a scatter elsewhere.
  """
  if index.shape[0] == 0:
    return table
  if index.shape[0] > ROW_LOOP_ROWS:
    return _scatter(table, index, rows)
  return jax.lax.platform_dependent(table, index, rows, cpu=_row_loop, default=_scatter)
