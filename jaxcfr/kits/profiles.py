"""Exact evaluation of a profile in any kit's representation: the functions the library's front
door exports, dispatched to the kit whose solvers take the tensors (``registry.of_tensors``).
Each takes strategies with trailing batch axes and returns ``[*B]`` (``[2, *B]`` for both
players' best-response values); traceable, so they run under ``jit`` and ``grad``.

    >>> import jaxcfr
    >>> game = jaxcfr.load("kuhn_poker")
    >>> uniform = jaxcfr.uniform_profile(game.tensors)
    >>> round(float(jaxcfr.exploitability(game.tensors, uniform)), 4)
    0.4583
    >>> tree = jaxcfr.load("kuhn_poker", representation="public_tree").tensors
    >>> round(float(jaxcfr.exploitability(tree, jaxcfr.uniform_profile(tree))), 4)
    0.4583
"""

from __future__ import annotations

import jax

from jaxcfr.kits import registry

__all__ = ["best_response_values", "nash_conv", "exploitability", "expected_value", "uniform_profile", "check_profile"]


def _exact(tensors, what: str):
  kit = registry.of_tensors(tensors)
  found = getattr(kit, what)
  if found is None:
    raise ValueError(f"the {kit.name} representation has no exact {what.replace('_', ' ')} (its evaluator scores it)")
  return found


def best_response_values(tensors, profile) -> jax.Array:
  """[2, *B] each player's best-response value against the other's strategy in ``profile``."""
  return _exact(tensors, "best_response_values")(tensors, profile)


def nash_conv(tensors, profile) -> jax.Array:
  """[*B] NashConv ``= BR0(sigma1) + BR1(sigma0)`` (the game is zero-sum)."""
  return best_response_values(tensors, profile).sum(0)


def exploitability(tensors, profile) -> jax.Array:
  """[*B] ``nash_conv / 2``, OpenSpiel's ``exploitability``."""
  return nash_conv(tensors, profile) / 2


def expected_value(tensors, profile) -> jax.Array:
  """[*B] player 0's expected payoff under ``profile``."""
  return _exact(tensors, "expected_value")(tensors, profile)


def uniform_profile(tensors) -> tuple:
  """Both players' uniform strategies in the kit's layout (``[I, A]`` on the sequence form,
  ``[N, A, H]`` on the public tree, ``[I, 3]`` on the card abstraction)."""
  return registry.of_tensors(tensors).uniform_profile(tensors)


def check_profile(tensors, profile, *, tolerance: float = 1e-6) -> None:
  """Raises ValueError naming the first problem of a profile (shapes, NaN or negative
  probabilities, weight on illegal actions, rows not summing to one). Eager: call it before
  handing a profile to jitted code."""
  registry.of_tensors(tensors).check_profile(tensors, profile, tolerance=tolerance)
