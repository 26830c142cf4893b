"""Evaluation and opponent exploitation above the solvers: strategy files, opponent models
(``opponent``), counter-strategy scoring and trade-off curves (``exploitation``), and
restricted Nash experts (``experts``)."""

from jaxcfr.evaluate import experts, exploitation, opponent, strategy_files

__all__ = ["experts", "exploitation", "opponent", "strategy_files"]
