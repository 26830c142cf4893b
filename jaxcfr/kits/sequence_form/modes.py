"""How the sequence form's passes compute (the values are the same either way): whether sums
over pairs and child infosets gather their entries or scatter-add them (``gathers``), and
whether reverse passes are hand-written (``hand_written_reverse``)."""

from __future__ import annotations

import contextlib
import math
import threading

import jax
import numpy as np

__all__ = ["expand_to", "hand_written_reverse", "hand_written", "gathers", "integer_zeros"]


def expand_to(x: jax.Array, ndim: int) -> jax.Array:
  """``x`` with trailing unit axes up to ``ndim`` dimensions (for trailing batch axes)."""
  return x.reshape(x.shape + (1,) * (ndim - x.ndim))


_REVERSE = threading.local()


@contextlib.contextmanager
def hand_written_reverse(enabled: bool = True):
  """Within the block, ``sequence_values_for`` and ``counterfactual_values`` traced for
  differentiation use hand-written reverse passes (``jax.custom_vjp``): the payoff product's
  cotangent is the other player's sorted segment sum (``A^T g`` for ``A y``) and the
  counterfactual values' bottom-up sums transpose into one top-down pass, where plain
  autodiff scatter-adds through unsorted indices. Faster reverse mode
  (benchmarks/results/diff_speed.json), but forward mode (``jax.jvp``) is unavailable
  inside; ``jaxcfr.diff.unrolled`` turns it on. The switch acts when the functions are traced."""
  previous = getattr(_REVERSE, "enabled", False)
  _REVERSE.enabled = bool(enabled)
  try:
    yield
  finally:
    _REVERSE.enabled = previous


def hand_written() -> bool:
  return getattr(_REVERSE, "enabled", False)


_GATHER_BATCH = 8


def gathers(batch: tuple) -> bool:
  """Whether the sums over pairs and child infosets gather their entries
  (jaxcfr.kits.sequence_form.row_sums) rather than scatter-add them: from ``_GATHER_BATCH`` runs on. A
  row gathering its padded entries streams ``B`` contiguous values per entry, which beats
  XLA's serial scatter loop on batches: Leduc CFR+ on one core, 64 runs 0.43 ms per
  iteration and 512 runs 2.8 ms, against 0.87 and 6.8 ms with scatters in the previous
  version of benchmarks/results/cfr_speed_cpu.json. One run pays for the padding and the
  extra indirection instead (slower than the scatters on liars_dice), so it scatters, except
  within ``hand_written_reverse()``: there the reverse passes gather too, so that the loops of
  a differentiated run hold no scatter and each compiles into one kernel (jaxcfr.xla_setup;
  Leduc, DCFR, gradient of 500 iterations against the forward run: about 4.1x against 5.3x
  with scatters, one core, ad hoc)."""
  return math.prod(batch) >= _GATHER_BATCH or hand_written()


def integer_zeros(tree):
  """float0 cotangents of a pytree of integer arrays."""
  return jax.tree.map(lambda i: np.zeros(i.shape, jax.dtypes.float0), tree)
