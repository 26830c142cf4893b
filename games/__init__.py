"""Rules of every native game, in plain Python (no JAX).

``GAMES`` maps a name to a factory taking the game's parameters as keywords. ``GameInfo``
is what a game declares about itself (its payoff unit, poker or not, its OpenSpiel twin, its
metrics and RCFR features); ``PLAYER_0``, ``PLAYER_1``, ``CHANCE_NODE`` and
``TERMINAL_NODE`` are the node kinds of the built arrays. ``CHANCE`` and ``TERMINAL`` are
OpenSpiel's player ids, which ``current_player()`` returns.
"""

from ._base import (
  CHANCE,
  CHANCE_NODE,
  PLAYER_0,
  PLAYER_1,
  TERMINAL,
  TERMINAL_NODE,
  GameBuildError,
  GameError,
  GameInfo,
  OpenSpielVariant,
)
from .coin_toss import CoinToss
from .goofspiel import Goofspiel
from . import hunl_subgame as _hunl  # the module keeps its name (jaxcfr.games.hunl_subgame)
from .latent_tic_tac_toe import LatentTicTacToe
from .leduc_poker import LeducPoker
from .liars_dice import LiarsDice
from .limit_holdem import LimitHoldem
from .matrix_games import rps, rps_plus
from .no_limit_leduc_poker import NoLimitLeducPoker
from .one_card_poker import OneCardPoker, kuhn_poker
from .princess_and_monster import PrincessAndMonster

GAMES = {
  "kuhn_poker": kuhn_poker,
  "leduc_poker": LeducPoker,
  "one_card_poker": OneCardPoker,
  "rps": rps,
  "rps_plus": rps_plus,
  "coin_toss": CoinToss,
  "goofspiel": Goofspiel,
  "liars_dice": LiarsDice,
  "princess_and_monster": PrincessAndMonster,
  "latent_tic_tac_toe": LatentTicTacToe,
  "no_limit_leduc_poker": NoLimitLeducPoker,
  "hunl_subgame": _hunl.hunl_subgame,
  "limit_holdem": LimitHoldem,
}

__all__ = [
  "CHANCE",
  "TERMINAL",
  "PLAYER_0",
  "PLAYER_1",
  "CHANCE_NODE",
  "TERMINAL_NODE",
  "GAMES",
  "GameBuildError",
  "GameError",
  "GameInfo",
  "OpenSpielVariant",
]
