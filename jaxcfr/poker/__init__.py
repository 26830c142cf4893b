"""What poker players ask of a solver, on the public tree: spots solved and saved with their
spot (``solutions``), nodes found by their betting line and reported hand by hand
(``queries``), 13 x 13 grids (``grids``), and reports over many boards solved as one batched
program (``boards``). Node locking is the solver ``locked`` (jaxcfr.solvers.locking).
"""

from jaxcfr.poker import boards, grids, queries, solutions

__all__ = ["boards", "grids", "queries", "solutions"]
