"""Rules of every native game, in plain Python (no JAX).

``GAMES`` maps a name to a factory taking the game's parameters as keywords.
"""

from games._base import CHANCE, TERMINAL, GameError, OpenSpielVariant
from games.coin_toss import CoinToss
from games.goofspiel import Goofspiel
from games.latent_tic_tac_toe import LatentTicTacToe
from games.leduc_poker import LeducPoker
from games.liars_dice import LiarsDice
from games.matrix_games import rps, rps_plus
from games.one_card_poker import OneCardPoker, kuhn_poker
from games.princess_and_monster import PrincessAndMonster

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
}

__all__ = ["CHANCE", "TERMINAL", "GAMES", "GameError", "OpenSpielVariant"]
