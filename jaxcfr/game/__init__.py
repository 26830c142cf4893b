"""A game, built once: host arrays (``arrays``), the builders (``build`` for the small-game
protocol, ``vectorized`` for level-synchronous rules, ``openspiel`` for any OpenSpiel
game), the device pytree (``tensors``), loading by name with the disk cache (``loading``)
and statistics (``statistics``). The rules themselves are in jaxcfr.games."""

from jaxcfr.game import arrays, build, loading, openspiel, row_sums, statistics, tensors, vectorized

__all__ = ["arrays", "build", "loading", "openspiel", "row_sums", "statistics", "tensors", "vectorized"]
