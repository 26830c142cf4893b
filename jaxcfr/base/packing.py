"""16-bit storage of large solver tables: each row (the first axis: an infoset or a public
decision node) of a table such as the CFR family's cumulative regrets ``[N, A, *E, *B]`` is
kept as 16-bit integer codes and one scale per row and batch element, the largest ``|x|`` of
the row, so that ``x = codes * scale / top`` to within half a step of ``scale / top``.
Signed tables (regrets) take int16 (``top`` 32,767), non-negative ones (strategy sums)
uint16 (``top`` 65,535), rounded to nearest, as postflop-solver's compressed storage keeps
its regrets and strategy sums. A table is packed after each update and unpacked where it is
read, so the state holds half the bytes; the arithmetic stays in the table's dtype.

>>> import jax.numpy as jnp
>>> packed = pack(jnp.array([[0.5, -1.0], [0.0, 0.0]]), batch_ndim=0, signed=True)
>>> packed.codes.dtype, packed.scale.shape
(dtype('int16'), (2, 1))
>>> unpack(packed, jnp.float32).tolist()
[[0.5000152587890625, -1.0], [0.0, 0.0]]
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

__all__ = ["STORAGES", "Packed", "pack", "unpack", "repack_like"]

STORAGES = ("float", "16bit")  # the CFR family's ``storage`` option

_TOP = {True: 32767, False: 65535}


class Packed(NamedTuple):
  """A table ``[R, ...rest, *B]`` in 16 bits.

  Attributes:
    codes: [R, ...rest, *B] int16 (signed) or uint16 (non-negative) codes.
    scale: [R, 1, ..., 1, *B] the largest ``|x|`` of each row and batch element (dtype of
      the table).
  """

  codes: jax.Array
  scale: jax.Array

  @property
  def signed(self) -> bool:
    return self.codes.dtype == jnp.int16


def pack(x: jax.Array, batch_ndim: int, signed: bool) -> Packed:
  """``x`` [R, ...rest, *B] (``batch_ndim`` trailing batch axes; ``signed``: may be negative,
  else must be >= 0) in 16 bits, one scale per row and batch element."""
  axes = tuple(range(1, x.ndim - batch_ndim))
  scale = jnp.max(jnp.abs(x), axis=axes, keepdims=True)
  top = _TOP[signed]
  codes = jnp.round(x * (top / jnp.where(scale > 0, scale, 1)))
  codes = jnp.clip(codes, -top if signed else 0, top).astype(jnp.int16 if signed else jnp.uint16)
  return Packed(codes, scale)


def unpack(x, dtype) -> jax.Array:
  """The table ``x`` (``Packed``, or an array, returned as it is) in ``dtype``."""
  if not isinstance(x, Packed):
    return x
  return x.codes.astype(dtype) * (x.scale.astype(dtype) / _TOP[x.signed])


def repack_like(like, x: jax.Array, batch_ndim: int):
  """``x`` stored as ``like`` is: packed (with ``like``'s signedness) if ``like`` is, else as
  it is."""
  return pack(x, batch_ndim, like.signed) if isinstance(like, Packed) else x
