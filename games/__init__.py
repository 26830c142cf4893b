"""Rules of every native game, in plain Python (no JAX).

``GAMES`` maps a name to a factory taking the game's parameters as keywords.
"""

from games._base import CHANCE, TERMINAL, GameError
from games.coin_toss import CoinToss
from games.leduc_poker import LeducPoker
from games.matrix_games import rps, rps_plus
from games.one_card_poker import OneCardPoker, kuhn_poker

GAMES = {
    "kuhn_poker": kuhn_poker,
    "leduc_poker": LeducPoker,
    "one_card_poker": OneCardPoker,
    "rps": rps,
    "rps_plus": rps_plus,
    "coin_toss": CoinToss,
}

__all__ = ["CHANCE", "TERMINAL", "GAMES", "GameError"]
