"""The declared settings of a solver: one ``Param`` per static option or batchable
hyperparameter, with its type, default, allowed values and help.

Each solver module declares its ``Param`` tuples once, next to its factory, and passes
them to ``registry.register``. Everything else reads them: ``registry.get`` checks the
options and fills their defaults, a solver's ``init`` checks its hyperparameters (once,
on concrete values, before any work), the driver splits settings into options and
hyperparameters, and the command line generates one flag per declared name
(jaxcfr.run.cli), with help that names the solvers it applies to.

    >>> p = Param("alpha", float, 1.5, "positive regrets' discount exponent", batchable=True, low=-inf)
    >>> p.check(2.0, "dcfr")
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

__all__ = ["Param", "KINDS", "SEED", "concrete"]

# The kinds of value a setting takes: a Python type, "ints" for a tuple of integers, or
# object for arrays and pytrees that only Python can pass (a model profile, a magnet).
KINDS = (float, int, bool, str, "ints", object)


def concrete(value) -> np.ndarray | None:
  """``value`` as a NumPy array, or None when it is traced (under ``jit`` or ``vmap``):
  argument checks run on concrete values and are skipped inside transformations."""
  import jax  # pylint: disable=import-outside-toplevel

  try:
    return np.asarray(value)
  except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
    return None


@dataclasses.dataclass(frozen=True)
class Param:
  """One setting of a solver.

  Attributes:
    name: the keyword (``get(name, **options)`` or ``init(tensors, **hyperparameters)``);
      the command line's flag is ``--name`` with dashes.
    kind: float, int, bool, str, "ints" (a tuple of integers) or object (an array or pytree,
      checked by the solver itself; never on the command line).
    default: the value when the setting is not given (None: "the solver decides", said in
      ``help``).
    help: one line for the command line's help.
    batchable: True for a hyperparameter of ``init`` (an array; shape ``B`` makes a batch of
      runs), False for a static option of ``get`` (it changes the program).
    choices: the allowed values, if a closed set.
    low, high: inclusive bounds of a number (may be infinite).
    cli: False for settings that are arrays or objects (a model profile, a magnet), which
      the command line cannot express.
    below_iterations: the value must be less than the run's number of iterations (checked by
      the driver, which knows it).
    finite: infinities are refused (NaN always is).
  """

  name: str
  kind: Any
  default: Any
  help: str
  batchable: bool = False
  choices: tuple = ()
  low: float | None = None
  high: float | None = None
  cli: bool = True
  below_iterations: bool = False
  finite: bool = False

  def __post_init__(self):
    if self.kind not in KINDS:
      raise ValueError(f"Param {self.name}: kind must be one of {KINDS}, got {self.kind!r}")
    if self.kind is object and self.cli:
      raise ValueError(f"Param {self.name}: an object setting cannot be given on the command line (cli=False)")

  @property
  def flag(self) -> str:
    return "--" + self.name.replace("_", "-")

  def describe_range(self) -> str:
    text = self._range()
    return f"finite and {text}" if self.finite else text

  def _range(self) -> str:
    if self.choices:
      return "one of " + ", ".join(map(str, self.choices))
    if self.low is not None and self.high is not None:
      return f"in [{self.low}, {self.high}]"
    if self.low is not None:
      return f">= {self.low}"
    if self.high is not None:
      return f"<= {self.high}"
    names = {float: "a number", int: "an integer", bool: "True or False", str: "a string", "ints": "integers"}
    return names.get(self.kind, "an array")

  def check(self, value, solver: str):
    """Returns ``value`` (an option: converted to its kind; a hyperparameter: unchanged)
    or raises ValueError naming the solver, the setting and its allowed range. Traced
    values pass unchecked; non-CLI settings (arrays, models) are the solver's to check."""
    if value is None or not self.cli:
      return value
    where = f"{self.name} of solver {solver!r} must be {self.describe_range()}"
    if self.batchable:
      array = concrete(value)
      if array is None:
        return value
      if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise ValueError(f"{where}, got {value!r}")
      values = array.astype(float).reshape(-1)
      if np.any(np.isnan(values)):
        raise ValueError(f"{where}, got NaN")
      if self.finite and not np.all(np.isfinite(values)):
        raise ValueError(f"{where}, got {value!r}")
      if self.kind is int and np.any(values != np.round(values)):
        raise ValueError(f"{where} (an integer), got {value!r}")
      self._check_bounds(values, where, value)
      return value
    converted = self._convert(value, where)
    if self.choices and converted not in self.choices:
      raise ValueError(f"{where}, got {value!r}")
    if self.kind in (int, float):
      self._check_bounds(np.array([converted], float), where, value)
    return converted

  def _check_bounds(self, values: np.ndarray, where: str, value) -> None:
    if (self.low is not None and np.any(values < self.low)) or (self.high is not None and np.any(values > self.high)):
      shown = value if np.size(value) <= 8 else f"an array from {values.min()} to {values.max()}"
      raise ValueError(f"{where}, got {shown}")

  def _convert(self, value, where: str):
    kind = self.kind
    if kind == "ints":
      items = value.split(",") if isinstance(value, str) else value
      try:
        out = tuple(int(v) for v in items)
      except (TypeError, ValueError):
        raise ValueError(f"{where}, got {value!r}") from None
      if any(v < (self.low if self.low is not None else -math.inf) for v in out):
        raise ValueError(f"{where}, got {value!r}")
      return out
    if kind is bool:
      if isinstance(value, (bool, np.bool_)):
        return bool(value)
      raise ValueError(f"{where}, got {value!r}")
    if kind is int:
      if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{where} (an integer), got {value!r}")
      return int(value)
    if kind is float:
      if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{where}, got {value!r}")
      if math.isnan(value):
        raise ValueError(f"{where}, got NaN")
      if self.finite and math.isinf(value):
        raise ValueError(f"{where}, got {value!r}")
      return float(value)
    if not isinstance(value, str):
      raise ValueError(f"{where}, got {value!r}")
    return value


SEED = Param(
  "seed", int, 0, "PRNG seed of the run (a list runs the seeds as one batch)", batchable=True, low=0, high=2**32 - 1
)
