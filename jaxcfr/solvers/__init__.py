"""Every algorithm as one kind of object, registered by name and representation.

    >>> import jax.numpy as jnp
    >>> import jaxcfr
    >>> tensors = jaxcfr.load("kuhn_poker").tensors
    >>> solver = jaxcfr.solvers.get("dcfr")  # or "mccfr-os", "rnr", ... (names())
    >>> state = solver.init(tensors, alpha=jnp.array([1.0, 1.5, 2.0]))  # a batch of 3 runs
    >>> state = solver.run(tensors, state, 100)
    >>> [s.shape for s in solver.average_strategy(tensors, state)]  # [I, A, 3] per player
    [(6, 2, 3), (6, 2, 3)]
    >>> jaxcfr.solvers.representations("mccfr-os")  # the same algorithm on a sampled game too
    ('sequence_form', 'card_abstraction')

See jaxcfr.solvers.registry for the protocol, the batch convention and the declarations
(``registration(name)``: summary, options and hyperparameters with types, defaults and
ranges). Importing this package registers, on the sequence form: the CFR family (cfr, cfr+,
lcfr, dcfr, pcfr+, rm, rm+), sampled CFR (mccfr-os, mccfr-es, cfr-cs), the restricted
solvers (rnr, dbr, mcrnr), information-set MCTS (mcts, Smooth UCT as its option), regression
CFR (rcfr), neural CFR (deep-cfr, sd-cfr, escher) and magnetic mirror descent (mmd); on the public tree: the CFR family, rnr and dbr;
on the card abstraction (limit hold'em): mccfr-os, cfr-cs, mcts and mcrnr.
"""

from jaxcfr.solvers import (  # noqa: F401  (each registers its solvers)
  cfr,
  deep_cfr,
  escher,
  holdem_cfr,
  holdem_search,
  mccfr,
  mcrnr,
  mcts,
  locking,
  mmd,
  rcfr,
  rnr,
)
from jaxcfr.base.params import Param
from jaxcfr.solvers.registry import (
  Registration,
  Solver,
  batch_shape,
  check_settings,
  get,
  names,
  option_names,
  registration,
  registrations,
  representations,
  split_settings,
)

__all__ = [
  "Param",
  "Registration",
  "Solver",
  "batch_shape",
  "check_settings",
  "get",
  "names",
  "option_names",
  "registration",
  "registrations",
  "representations",
  "split_settings",
]
