"""jaxcfr: solvers for two-player zero-sum imperfect-information games in JAX.

The public face (this module's ``__all__``, and those of ``jaxcfr.solvers``, ``jaxcfr.kits``,
``jaxcfr.games``, ``jaxcfr.diff`` and ``jaxcfr.testing``); every other module is
implementation and may change. The layers, each importing only those before it
(docs/design.md):

    jaxcfr.games     the rules of every native game (NumPy only)
    jaxcfr.base      what every kit shares: checksums, the disk cache, the memory limit, settings
    jaxcfr.kits      one package per representation of games (sequence form, public tree, card abstraction)
    jaxcfr.solvers   every algorithm behind one protocol and registry (``solvers.get``, ``solvers.names``)
    jaxcfr.diff      differentiable solving: gradients through runs, of equilibrium values and of QREs
    jaxcfr.evaluate  opponent models, counter-strategy scoring, experts, matches
    jaxcfr.run       the driver (``solve``), checkpoints, sharding, the command line

    >>> import jaxcfr
    >>> game = jaxcfr.load("kuhn_poker")
    >>> result = jaxcfr.solve(game, "cfr+", 300, progress=False)
    >>> bool(result.summary()["exploitability"] < 1e-2)
    True

Importing jaxcfr raises XLA:CPU's size limit for loops compiled into one kernel, before JAX
starts (jaxcfr.xla_setup says why and how to opt out).
"""

from jaxcfr import xla_setup

xla_setup.configure()

# pylint: disable=wrong-import-position
from jaxcfr import base, diff, evaluate, games, kits, run, solvers  # noqa: F401  (the layers)
from jaxcfr.base.game_strings import UnknownGameError
from jaxcfr.base.integrity import DamagedFileError
from jaxcfr.base.memory import GameTooLargeError
from jaxcfr.games import GameBuildError, GameError
from jaxcfr.kits import load, representations_of
from jaxcfr.kits.profiles import (
  best_response_values,
  check_profile,
  expected_value,
  exploitability,
  nash_conv,
  uniform_profile,
)
from jaxcfr.kits.sequence_form.tensors import with_payoff_from_tree
from jaxcfr.kits.strategy_files import load_strategy, save_strategy
from jaxcfr.run.driver import Interrupted, NonFiniteError, SolveResult, hyperparameter_grid, solve

__version__ = "0.1.0"

__all__ = [
  # subpackages of the public face
  "diff",
  "games",
  "kits",
  "solvers",
  # games
  "load",
  "representations_of",
  "with_payoff_from_tree",
  # exact evaluation of any kit's profiles
  "best_response_values",
  "check_profile",
  "expected_value",
  "exploitability",
  "nash_conv",
  "uniform_profile",
  # running
  "solve",
  "SolveResult",
  "hyperparameter_grid",
  "save_strategy",
  "load_strategy",
  # errors
  "GameError",
  "GameBuildError",
  "UnknownGameError",
  "GameTooLargeError",
  "DamagedFileError",
  "NonFiniteError",
  "Interrupted",
]
