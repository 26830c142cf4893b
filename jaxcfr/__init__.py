"""jaxcfr: sequence-form solvers for two-player zero-sum imperfect-information games.

Layers, each importing only those above it in this list (docs/design.md):

    jaxcfr.games     the rules of every native game (NumPy only)
    jaxcfr.game      a game built once: arrays, builders, device tensors, loading, cache
    jaxcfr.core      pure sequence-form operations: plans, values, best response, regret matching, sampling
    jaxcfr.solvers   every algorithm behind one protocol and registry (``solvers.get``, ``solvers.names``)
    jaxcfr.diff      differentiable solving: gradients through runs, of equilibrium values and of QREs
    jaxcfr.evaluate  strategy files, opponent models, counter-strategy scoring, experts
    jaxcfr.run       the driver (``solve``), checkpoints, sharding, the command line

Importing jaxcfr raises XLA:CPU's size limit for loops compiled into one kernel, before JAX
starts (jaxcfr.xla_setup says why and how to opt out).
"""

from jaxcfr import xla_setup

xla_setup.configure()

# pylint: disable=wrong-import-position
from jaxcfr import base, diff, evaluate, games, kits, run, solvers  # noqa: F401  (the layers)
from jaxcfr.kits.sequence_form.evaluation import (
  best_response,
  best_response_values,
  check_profile,
  counterfactual_values,
  expected_value,
  exploitability,
  nash_conv,
  realization_plan,
  sequence_values,
  uniform_profile,
  uniform_strategy,
)
from jaxcfr.kits.strategy_files import load_strategy, save_strategy
from jaxcfr.kits.sequence_form.build import GameBuildError
from jaxcfr.base.game_strings import UnknownGameError, parse_game_string
from jaxcfr.kits import load
from jaxcfr.kits.sequence_form import Game
from jaxcfr.kits.sequence_form.tensors import GameTensors, with_payoff_from_tree
from jaxcfr.run.driver import SolveResult, solve

__version__ = "0.1.0"

__all__ = [
  # layers
  "core",
  "diff",
  "evaluate",
  "game",
  "games",
  "run",
  "solvers",
  # games
  "Game",
  "GameBuildError",
  "GameTensors",
  "UnknownGameError",
  "load",
  "parse_game_string",
  "with_payoff_from_tree",
  # exact evaluation
  "best_response",
  "best_response_values",
  "check_profile",
  "counterfactual_values",
  "expected_value",
  "exploitability",
  "nash_conv",
  "realization_plan",
  "sequence_values",
  "uniform_profile",
  "uniform_strategy",
  # running
  "SolveResult",
  "solve",
  "load_strategy",
  "save_strategy",
]
