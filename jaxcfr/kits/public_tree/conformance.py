"""The public tree kit's conformance: a profile's shapes and probabilities (``check_profile``)
and the check of a loaded game (``check_game``)."""

from __future__ import annotations

import numpy as np

from jaxcfr.kits.public_tree import values
from jaxcfr.kits.public_tree.checks import check

__all__ = ["check_profile", "check_game"]


def check_profile(tensors, profile, *, tolerance: float = 1e-6) -> None:
  """Raises ValueError unless ``profile`` holds one ``[N_p, A, H, *B]`` table of probabilities
  per player, summing to one over each decision node's legal actions for every hand."""
  for p, strategy in enumerate(profile):
    strategy = np.asarray(strategy, np.float64)
    legal = np.asarray(tensors.legal[p])
    if strategy.shape[:3] != legal.shape + (tensors.num_hands,):
      raise ValueError(f"player {p}'s strategy has shape {strategy.shape}, not {legal.shape + (tensors.num_hands,)}")
    legal = legal.reshape(legal.shape + (1,) * (strategy.ndim - 2))
    if not np.all(np.isfinite(strategy)) or np.any(strategy < -tolerance):
      raise ValueError(f"player {p}'s strategy holds negative or non-finite probabilities")
    if np.any(np.abs(np.where(legal, 0, strategy)) > tolerance) or not np.allclose(strategy.sum(1), 1, atol=tolerance):
      raise ValueError(f"player {p}'s strategy does not sum to one over the legal actions")


def check_game(game) -> None:
  """The kit's conformance check of a loaded game: its tree passes ``check``, the device tree
  agrees with it, and the uniform profile is valid with a finite, non-negative
  exploitability (AssertionError naming what failed)."""
  check(game.tree)
  tensors = game.tensors
  np.testing.assert_array_equal(np.asarray(tensors.kind), game.tree.kind, err_msg=f"{game.name}: node kinds")
  assert tensors.num_hands == game.tree.num_hands, f"{game.name}: hands"
  uniform = values.uniform_profile(tensors)
  check_profile(tensors, uniform)
  start = float(values.exploitability(tensors, uniform))
  assert np.isfinite(start) and start >= -1e-6, f"{game.name}: the uniform profile's exploitability is {start}"
