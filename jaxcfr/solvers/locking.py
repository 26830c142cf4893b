"""Node locking: one player's strategy fixed at chosen rows (public nodes, or infosets), for the
whole range or for given hands, while CFR solves the rest (PioSOLVER's "lock full range" and
"combo lock"). Registered as ``locked`` on every exact kit, on any CFR preset (option ``base``).

A ``Lock`` is the locking player, a mask of the locked entries ``[N, *E]`` (rows, and the public
tree's hands) and the locked strategy ``[N, A, *E]`` (read where the mask is set). The solver is
CFR with one hook: the locking player's strategy, in the initial state and after each of its
updates, is the locked one at the locked entries, so its reach below them, its average there
(the average of one strategy is itself) and the other player's best answer all follow the lock.
The other entries learn as in CFR. Locking a row to an equilibrium's strategy there leaves the
equilibrium an equilibrium of the locked game; locking an exploitable strategy lets the other
player exploit it, as far as the rest of the locking player's strategy cannot make up for it.

The lock is an array leaf of the state (``lock``; trailing batch axes make a batch of locks),
so ``jax.grad`` reaches the locked frequencies through an unrolled solve
(``jaxcfr.diff.unrolled``): the gradient of the locking player's value with respect to them.

    >>> import jax.numpy as jnp
    >>> import jaxcfr
    >>> from jaxcfr.solvers import locking
    >>> game = jaxcfr.load("kuhn_poker", representation="public_tree")
    >>> uniform = jaxcfr.uniform_profile(game.tensors)[0]
    >>> mask = jnp.zeros(uniform.shape[:1] + uniform.shape[2:], bool).at[0].set(True)  # player 0's first node
    >>> always_bet = jnp.zeros_like(uniform).at[0, 1].set(1.0)
    >>> lock = locking.Lock(player=0, mask=mask, strategy=always_bet)
    >>> solver = jaxcfr.solvers.get("locked", "public_tree")
    >>> state = solver.run(game.tensors, solver.init(game.tensors, lock=lock), 200)
    >>> float(solver.average_strategy(game.tensors, state)[0][0, 1].min())  # the locked node bets always
    1.0
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import kits
from jaxcfr.solvers import cfr, cfr_schedule, registry

__all__ = ["Lock", "LockedState", "apply_lock", "check_lock", "solver", "LOCK"]


class Lock(NamedTuple):
  """What is locked.

  Attributes:
    player: the locking player (0 or 1), a Python int.
    mask: [N, *E] bool, the locked entries: rows (infosets; public decision nodes of the
      player) and, on the public tree, hands (all of a node's hands: "lock full range"; some:
      "combo lock").
    strategy: [N, A, *E] the locked strategy, a probability distribution over the legal
      actions at each locked entry (read there only).
  """

  player: int
  mask: jax.Array
  strategy: jax.Array


class LockedState(NamedTuple):
  """One locked solve or a batch (trailing axes ``B``).

  Attributes:
    inner_state: the CFRState of both players.
    mask: [N, *E, *B] the locking player's locked entries.
    strategy: [N, A, *E, *B] its locked strategy.
  """

  inner_state: cfr.CFRState
  mask: jax.Array
  strategy: jax.Array

  @property
  def iteration(self) -> jax.Array:
    return self.inner_state.iteration


def apply_lock(strategy: jax.Array, mask: jax.Array, locked: jax.Array) -> jax.Array:
  """[N, A, *E, *B] ``locked`` at the entries of ``mask`` ([N, *E, *B]), ``strategy`` elsewhere."""
  return jnp.where(jnp.expand_dims(mask, 1), locked.astype(strategy.dtype), strategy)


def check_lock(tensors, lock: Lock) -> None:
  """ValueError naming the problem of a concrete lock: the player, the shapes, and the locked
  strategy a distribution over the legal actions at the locked entries (skipped when traced)."""
  if lock.player not in (0, 1):
    raise ValueError(f"the locking player must be 0 or 1, got {lock.player!r}")
  kit = kits.of_tensors(tensors)
  uniform = kit.uniform_profile(tensors)[lock.player]
  rows = uniform.shape[:1] + uniform.shape[2:]
  mask, strategy = registry.concrete(lock.mask), registry.concrete(lock.strategy)
  if mask is not None and mask.shape[: len(rows)] != rows:
    raise ValueError(f"the lock's mask has shape {mask.shape}; player {lock.player}'s entries are {rows}")
  if strategy is not None and strategy.shape[: uniform.ndim] != uniform.shape:
    raise ValueError(f"the locked strategy has shape {strategy.shape}; player {lock.player}'s is {uniform.shape}")
  if mask is not None and strategy is not None:
    kept = np.where(
      np.expand_dims(mask.astype(bool), 1),
      strategy,
      np.expand_dims(np.asarray(uniform), tuple(range(uniform.ndim, strategy.ndim))),
    )
    profile = [np.asarray(u) for u in kit.uniform_profile(tensors)]
    profile[lock.player] = kept
    kit.check_profile(tensors, profile, tolerance=1e-5)


def _init(tensors, *, lock: Lock | None = None, base: str, operations, **hyperparameters) -> LockedState:
  if lock is None:
    raise ValueError("locked needs lock=Lock(player, mask, strategy): the entries to fix and their strategy")
  check_lock(tensors, lock)
  defaults = cfr.preset_hyperparameters(base)
  given, neutral = cfr_schedule.split_neutral({**defaults, **hyperparameters})
  hyper = {k: jnp.asarray(v) for k, v in given.items()}
  uniform = operations.uniform(tensors, lock.player)
  rows = uniform.ndim - 1
  mask, strategy = jnp.asarray(lock.mask, bool), jnp.asarray(lock.strategy, tensors.dtype)
  batch = jnp.broadcast_shapes(*(h.shape for h in hyper.values()), mask.shape[rows:], strategy.shape[uniform.ndim :])
  state = cfr.init(
    tensors,
    **{k: jnp.broadcast_to(h, batch) for k, h in hyper.items()},
    **neutral,
    predictive=cfr.PRESETS[base].predictive,
    operations=operations,
  )
  mask = jnp.broadcast_to(
    mask.reshape(mask.shape + (1,) * (rows + len(batch) - mask.ndim)), uniform.shape[:1] + uniform.shape[2:] + batch
  )
  strategy = jnp.broadcast_to(
    strategy.reshape(strategy.shape + (1,) * (uniform.ndim + len(batch) - strategy.ndim)), uniform.shape + batch
  )
  strategies = list(state.strategy)
  strategies[lock.player] = apply_lock(strategies[lock.player], mask, strategy)
  return LockedState(state._replace(strategy=tuple(strategies)), mask, strategy)


def _step(tensors, state: LockedState, *, player: int, base_step) -> LockedState:
  def locked(p, update, carry):
    if p == player:
      update = update._replace(strategy=apply_lock(update.strategy, state.mask, state.strategy))
    return update, carry

  inner = base_step(tensors, state.inner_state, hooks=cfr.Hooks(next_strategy=locked))
  return state._replace(inner_state=inner)


def solver(
  *, kit: str = "sequence_form", base: str = "dcfr", updates: str | None = None, player: int = 0
) -> registry.Solver:
  """The registered ``locked`` solver on the CFR preset ``base`` for the lock of ``player``
  (a static option: the program differs by seat).

  ``init(tensors, *, lock, **base hyperparameters)``: ``lock`` a ``Lock`` of ``player``."""
  operations = kits.get(kit).operations()
  base_step = cfr.preset_step(base, updates, operations=operations)

  def init(tensors, **kwargs):
    lock = kwargs.get("lock")
    if lock is not None and lock.player != player:
      raise ValueError(
        f"this locked solver locks player {player}'s strategy; the lock is player {lock.player}'s (option player)"
      )
    return _init(tensors, base=base, operations=operations, **kwargs)

  def average(tensors, state):
    return cfr.average_strategy(tensors, state.inner_state, operations)

  return registry.Solver(
    name="locked",
    init=init,
    step=functools.partial(_step, player=player, base_step=base_step),
    average_strategy=average,
    current_strategy=lambda tensors, state: cfr.current_strategy(tensors, state.inner_state),
    hyperparameters=cfr.preset_hyperparameters(base),
    options={"base": base, "updates": updates, "player": player},
    requires=("lock",),
  )


LOCK = registry.Param("lock", object, None, "the node lock: jaxcfr.solvers.locking.Lock", batchable=True, cli=False)
for _kit in kits.names():
  if kits.get(_kit).operations is None:
    continue
  registry.register(
    "locked",
    functools.partial(solver, kit=_kit),
    summary="CFR with one player's strategy locked at chosen nodes and hands (node locking)",
    representation=_kit,
    options=(
      registry.Param("base", str, "dcfr", "the CFR preset the locked solve runs on", choices=cfr.ALGORITHMS),
      cfr.UPDATES,
      registry.Param("player", int, 0, "the locking player", low=0, high=1),
    ),
    hyperparameters=(LOCK, *cfr.declared_hyperparameters(None)),
    requires=("lock",),
  )
