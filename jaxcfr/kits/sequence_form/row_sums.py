"""Sums of grouped entries as gathers: the sparse products of the sequence form without scatters.

The sequence-form passes sum many entries into each of a few rows: the payoff pairs of a
sequence (``A y``), the child infosets of a sequence (the bottom-up counterfactual values).
A segment sum does it with a scatter-add, which XLA runs as a serial loop on CPU and which
keeps a loop holding it from being compiled into one kernel. Here every row instead
*gathers* its entries from a padded table and adds them, the ELLPACK layout of sparse
matrices (Kincaid, Oppe & Young, "ITPACKV 2D User's Guide", 1989): row ``r`` reads
``entries[r, 0..W-1]``, the padding reading an entry that contributes zero. Rows are
grouped into buckets by width rounded up to a power of two, so padding at most doubles the
entries; the bucket sums are concatenated and one gather (``position``) puts each row back
in its place, rows without entries reading a zero row.

jaxcfr.kits.sequence_form.evaluation uses them for batches of 8 runs or more (its ``_gathers`` says
why, with the measured figures).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["RowSums", "build_row_sums", "sum_rows", "padded"]


@functools.partial(jax.tree_util.register_dataclass, data_fields=["entries", "position"], meta_fields=[])
@dataclasses.dataclass(frozen=True)
class RowSums:
  """Which entries each of ``R`` rows sums, for ``N`` entries.

  Attributes:
    entries: tuple of int32 [R_b, W_b] arrays, one per bucket of rows of width ``W_b``
      (a power of two); each row lists its entry ids, padded with ``N`` (an entry that
      must contribute zero).
    position: [R] int32, each row's index in the concatenated buckets; rows without
      entries point one past the last bucket row (a zero row).
  """

  entries: tuple
  position: jax.Array

  @property
  def num_rows(self) -> int:
    return self.position.shape[0]


def build_row_sums(row_of_entry: np.ndarray, num_rows: int) -> RowSums:
  """The table of rows summing entries ``0..N-1``, where entry ``e`` belongs to row
  ``row_of_entry[e]`` (host NumPy; within a row, entries keep their order).

  Args:
    row_of_entry: [N] int, each in ``0..num_rows-1``.
    num_rows: R.
  """
  row_of_entry = np.asarray(row_of_entry)
  n = row_of_entry.shape[0]
  if n and (row_of_entry.min() < 0 or row_of_entry.max() >= num_rows):
    raise ValueError(f"row ids must lie in 0..{num_rows - 1}")
  id_dtype = np.int32 if n < 2**31 else np.int64
  ordered = n == 0 or bool(np.all(row_of_entry[1:] >= row_of_entry[:-1]))
  order = None if ordered else np.argsort(row_of_entry, kind="stable").astype(id_dtype)
  count = np.bincount(row_of_entry, minlength=num_rows)
  start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
  width = np.zeros(num_rows, np.int64)
  filled = count > 0
  width[filled] = 1 << np.ceil(np.log2(count[filled])).astype(np.int64)
  entries, position, offset = [], np.empty(num_rows, id_dtype), 0
  for w in np.unique(width[filled]):
    rows = np.flatnonzero(width == w)
    slot = np.arange(w)
    used = slot < count[rows, None]
    table = np.full((len(rows), int(w)), n, id_dtype)
    sorted_ids = (start[rows, None] + slot)[used]
    table[used] = sorted_ids if order is None else order[sorted_ids]
    entries.append(jax.device_put(table))
    position[rows] = offset + np.arange(len(rows))
    offset += len(rows)
  position[~filled] = offset
  return RowSums(tuple(entries), jax.device_put(position))


def sum_rows(table: RowSums, term: Callable[[jax.Array], jax.Array], batch: tuple, dtype) -> jax.Array:
  """[R, *B] each row's sum of ``term`` over its entries.

  Args:
    term: ``term(ids [R_b]) -> [R_b, *B]``, the contribution of the entries ``ids``; it must
      be zero for the padding id ``N`` (e.g. read from an array with a zero appended).
    batch: the trailing batch shape B of the terms; dtype: their dtype.
  """
  sums = []
  for entries in table.entries:
    total = term(entries[:, 0])
    for slot in range(1, entries.shape[1]):
      total = total + term(entries[:, slot])
    sums.append(total.astype(dtype))
  sums.append(jnp.zeros((1,) + tuple(batch), dtype))
  return jnp.concatenate(sums)[table.position]


def padded(values: jax.Array) -> jax.Array:
  """``values`` [N, ...] with a zero row appended (index N reads zero)."""
  return jnp.concatenate([values, jnp.zeros((1,) + values.shape[1:], values.dtype)])
