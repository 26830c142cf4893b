"""jaxcfr: sequence-form solvers for two-player zero-sum imperfect-information games."""

from jaxcfr import cfr, driver, evaluation, experts, mccfr, openspiel, opponent, rnr, sharding, tensors
from jaxcfr.build import GameBuildError
from jaxcfr.driver import SolveResult, solve
from jaxcfr.evaluation import (best_response, best_response_values, check_profile, counterfactual_values,
                               expected_value, exploitability, nash_conv, realization_plan,
                               sequence_values, uniform_profile, uniform_strategy)
from jaxcfr.loading import Game, UnknownGameError, load, parse_game_string
from jaxcfr.tensors import GameTensors, with_payoff_from_tree

__version__ = "0.1.0"

__all__ = [
    "Game", "GameBuildError", "SolveResult", "cfr", "driver", "evaluation", "experts", "mccfr", "openspiel",
    "opponent", "rnr", "sharding", "solve",
    "tensors", "GameTensors", "UnknownGameError", "best_response",
    "best_response_values", "check_profile", "counterfactual_values", "expected_value", "exploitability", "load",
    "nash_conv", "parse_game_string", "realization_plan", "sequence_values", "uniform_profile",
    "uniform_strategy", "with_payoff_from_tree",
]
