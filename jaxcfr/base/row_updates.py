"""Adding sampled rows into a table: the update every sampled solver ends its step with.

A sampled step (outcome or external sampling, chance-sampled CFR) produces a few dozen rows
``rows[r]`` to add at rows ``index[r]`` of an [I, A] table, ``table.at[index].add(rows,
mode="drop")``. On XLA:CPU a scatter is a kernel of its own, and it keeps the loop around it
from being compiled into one kernel (``jaxcfr.xla_setup``): a step then runs as hundreds
of separately dispatched kernels, each doing a few dozen operations. Written as a loop of
row updates (``dynamic_update_slice``), the same sum compiles into the surrounding kernel,
and a sampled solver's whole ``run`` becomes one kernel. Above ``ROW_LOOP_ROWS`` rows and
off the CPU, ``add_rows`` is the scatter.

Under ``vmap`` (a batch of runs) a batch's rows are a batched scatter, which XLA's
partitioner keeps local when a sharding splits the batch over devices. With
``stack_batches=True`` (outcome sampling: a few rows per run) and inside ``local_batches()``
(``Solver.run`` enters it: its batch lives on one device, or runs per device under
``shard_map``) they are one loop over the runs' tables stacked as one table instead, so that
the batch's step compiles into one kernel too.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools

import jax
import jax.numpy as jnp

__all__ = ["add_rows", "max_rows", "local_batches"]

# Above this many rows, a scatter even on a CPU: a large update (external sampling's frontiers
# on Goof(7) or latent tic-tac-toe, outcome sampling's large minibatches) is no small step,
# so a loop of row updates would only serialise it.
ROW_LOOP_ROWS = 1024

_LOCAL_BATCHES = contextvars.ContextVar("jaxcfr_local_batches", default=False)


@contextlib.contextmanager
def local_batches():
  """While tracing inside it, ``add_rows(..., stack_batches=True)`` under ``vmap`` adds a
  batch's rows as one loop over the runs' stacked tables, which is right when the batch
  lives on one device (or on each device of a ``shard_map``): on a CPU the batch's step then
  compiles into one kernel (outcome sampling on Leduc, 64 vmapped seeds of one trajectory on
  one core: 7.0x OpenSpiel's C++ solver in benchmarks/results/mccfr_speed.json; 5.5x with
  the batched scatter in an earlier run, on another CPU)."""
  token = _LOCAL_BATCHES.set(True)
  try:
    yield
  finally:
    _LOCAL_BATCHES.reset(token)


def _scatter(combine: str, table: jax.Array, index: jax.Array, rows: jax.Array) -> jax.Array:
  index = jnp.where(index < 0, table.shape[0], index)  # dropped, where indexing would wrap it
  return getattr(table.at[index], combine)(rows.astype(table.dtype), mode="drop")


_COMBINE = {"add": jnp.add, "max": jnp.maximum}


def _make_row_loop(combine: str, stack_batches: bool):
  """``_scatter`` as a loop over the rows, in their order (rows of one index combine in
  order, as the scatter combines them on a CPU); under ``vmap`` the batched scatter unless
  ``stack_batches`` inside ``local_batches()``."""
  op = _COMBINE[combine]

  @jax.custom_batching.custom_vmap
  def row_loop(table: jax.Array, index: jax.Array, rows: jax.Array) -> jax.Array:
    rows = rows.astype(table.dtype)

    def update(r, out):
      inside = (index[r] >= 0) & (index[r] < table.shape[0])
      at = jnp.where(inside, index[r], 0)
      row = jax.lax.dynamic_index_in_dim(out, at, 0, keepdims=True)
      return jax.lax.dynamic_update_index_in_dim(out, jnp.where(inside, op(row, rows[r]), row), at, 0)

    return jax.lax.fori_loop(0, index.shape[0], update, table)

  @row_loop.def_vmap
  def _row_loop_batched(axis_size, in_batched, table, index, rows):
    """A batch of runs: one loop over every run's rows on the runs' tables stacked as one
    [B * I, ...] table (run ``b``'s rows offset by ``b * I``), or the batched scatter."""
    if not (stack_batches and _LOCAL_BATCHES.get()):
      in_axes = tuple(0 if batched else None for batched in in_batched)
      return jax.vmap(functools.partial(_scatter, combine), in_axes=in_axes)(table, index, rows), True
    table, index, rows = (
      x if batched else jnp.broadcast_to(x, (axis_size,) + x.shape)
      for x, batched in zip((table, index, rows), in_batched)
    )
    num = table.shape[1]
    inside = (index >= 0) & (index < num)
    offset = num * jnp.arange(axis_size, dtype=index.dtype)[:, None]
    stacked = row_loop(
      table.reshape((axis_size * num,) + table.shape[2:]),
      jnp.where(inside, index + offset, -1).reshape(-1),
      rows.reshape((-1,) + rows.shape[2:]),
    )
    return stacked.reshape(table.shape), True

  return row_loop


_ROW_LOOPS = {(c, stack): _make_row_loop(c, stack) for c in _COMBINE for stack in (False, True)}


def _update_rows(combine: str, table, index, rows, stack_batches: bool) -> jax.Array:
  if index.shape[0] == 0:
    return table
  scatter = functools.partial(_scatter, combine)
  if index.shape[0] > ROW_LOOP_ROWS:
    return scatter(table, index, rows)
  loop = _ROW_LOOPS[combine, stack_batches]
  return jax.lax.platform_dependent(table, index, rows, cpu=loop, default=scatter)


def add_rows(table: jax.Array, index: jax.Array, rows: jax.Array, *, stack_batches: bool = False) -> jax.Array:
  """``table.at[index].add(rows, mode="drop")``, except that every row whose index is
  outside ``[0, I)`` is dropped (negative ones too).

  Args:
    table: [I, ...], e.g. [I, A].
    index: [R] int, the row of each update.
    rows: [R, ...], the values to add.
    stack_batches: under ``vmap`` inside ``local_batches()``, add the batch's rows as one loop
      over the stacked tables; else the batched scatter. Worth it for a few rows per run
      (outcome sampling); external and chance sampling, with hundreds, were not measured
      faster so, and MCTS's stacked loops took XLA 12 minutes to compile for 64 seeds.
  Returns:
    [I, ...]. On a CPU a loop of row updates in the order of the rows (under ``vmap`` a
    scatter, or with ``stack_batches`` inside ``local_batches()`` one loop over the batch's
    rows; a scatter above ``ROW_LOOP_ROWS`` rows); a scatter elsewhere.
  """
  return _update_rows("add", table, index, rows, stack_batches)


def max_rows(table: jax.Array, index: jax.Array, rows: jax.Array, *, stack_batches: bool = False) -> jax.Array:
  """``table.at[index].max(rows, mode="drop")`` as ``add_rows`` does it (for a bool table, a
  logical or: setting flags)."""
  return _update_rows("max", table, index, rows, stack_batches)
