"""Evaluation and opponent exploitation above the solvers: strategy files, opponent models
(``opponent``), counter-strategy scoring and trade-off curves (``exploitation``), restricted
Nash experts (``experts``), Kuhn poker's equilibria and metrics (``kuhn``), game-specific
metrics chosen by game (``game_metrics``) and head-to-head matches (``head_to_head``)."""

from jaxcfr.evaluate import experts, exploitation, game_metrics, kuhn, opponent
from jaxcfr.kits import strategy_files

__all__ = ["experts", "exploitation", "game_metrics", "kuhn", "opponent", "strategy_files"]
