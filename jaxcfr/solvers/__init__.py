"""Every algorithm as one kind of object, registered by name.

    solver = jaxcfr.solvers.get("dcfr")            # or "mccfr-os", "rnr", ... (names())
    state = solver.init(tensors, alpha=jnp.array([1.0, 1.5, 2.0]))   # a batch of 3 runs
    state = solver.run(tensors, state, 1000)
    profile = solver.average_strategy(tensors, state)              # [I, A, 3] per player

See jaxcfr.solvers.registry for the protocol and the batch convention. Importing this
package registers: the CFR family (cfr, cfr+, lcfr, dcfr, pcfr+, rm, rm+), sampled CFR
(mccfr-os, mccfr-es, cfr-cs), the restricted solvers (rnr, dbr, mcrnr), information-set MCTS
(mcts, Smooth UCT as its option), regression CFR (rcfr) and magnetic mirror descent (mmd).
"""

from jaxcfr.solvers import cfr, mccfr, mcrnr, mcts, mmd, rcfr, rnr  # noqa: F401  (each registers its solvers)
from jaxcfr.solvers.registry import Solver, batch_shape, get, names, option_names

__all__ = [
  "Solver",
  "batch_shape",
  "get",
  "names",
  "option_names",
  "cfr",
  "mccfr",
  "mcrnr",
  "mcts",
  "mmd",
  "rcfr",
  "rnr",
]
# Solvers of sampled games (limit hold'em's abstraction, no tensors): their own registry,
# jaxcfr.solvers.sampled_games.get; sampled_search registers mcts and mcrnr there.
from jaxcfr.solvers import sampled_games, sampled_search  # noqa: E402,F401
