"""Restricted Nash experts (Johanson, Zinkevich and Bowling, "Computing Robust
Counter-Strategies", 2007, section 6): UCB1 (Auer, Cesa-Bianchi & Fischer 2002)
chooses, hand by hand, which of a set of counter-strategies ("experts", e.g. RNRs to
several opponent models) the adaptive player uses against an unknown opponent, from the
payoffs of the hands played. Many independent matches run as one program.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form import evaluation, walk
from jaxcfr.kits.sequence_form.arrays import TERMINAL_NODE
from jaxcfr.kits.sequence_form.tensors import GameTensors, tree_statics

__all__ = ["expert_values", "ucb1_matches"]


def expert_values(tensors: GameTensors, player: int, experts: jax.Array, strategy: jax.Array) -> jax.Array:
  """[E] exact expected value for ``player`` of each expert [E, I, A] against the opponent's ``strategy``."""
  batch = jnp.moveaxis(experts, 0, -1)  # [I, A, E]
  fixed = jnp.broadcast_to(evaluation.expand_to(strategy, 3), strategy.shape + batch.shape[-1:])
  profile = (batch, fixed) if player == 0 else (fixed, batch)
  value0 = evaluation.expected_value(tensors, profile)
  return value0 if player == 0 else -value0


@functools.partial(jax.jit, static_argnames=("player", "num_hands", "num_matches", "max_children"))
def _ucb1(tensors, experts, strategy, key, *, player, num_hands, num_matches, max_children):
  num_experts = experts.shape[0]
  terminal = tensors.tree.kind == TERMINAL_NODE
  utility = jnp.where(player == 0, 1.0, -1.0) * tensors.tree.utility
  low = jnp.where(terminal, utility, jnp.inf).min()
  high = jnp.where(terminal, utility, -jnp.inf).max()
  span = jnp.where(high > low, high - low, 1.0)

  def hand(carry, key_t):
    pulls, total, t = carry  # [M, E], [M, E], []
    mean = total / jnp.maximum(pulls, 1)
    bonus = jnp.sqrt(2 * jnp.log(jnp.maximum(t, 1)) / jnp.maximum(pulls, 1))
    score = jnp.where(pulls == 0, jnp.inf, mean + bonus)  # every expert once first
    arm = jnp.argmax(score, axis=1)  # [M]

    def probability(p, game, row, col):
      if p == player:
        return experts[arm[game], row, col]
      return strategy[row, col]

    terminals, _ = walk.play(tensors, probability, key_t, num_games=num_matches, max_children=max_children)
    payoff = utility[terminals]
    reward = (payoff - low) / span
    one_hot = jax.nn.one_hot(arm, num_experts, dtype=total.dtype)
    return (pulls + one_hot, total + one_hot * reward[:, None], t + 1), (arm, payoff)

  dtype = tensors.dtype
  carry = (
    jnp.zeros((num_matches, num_experts), dtype),
    jnp.zeros((num_matches, num_experts), dtype),
    jnp.asarray(0, dtype),
  )
  (pulls, _, _), (arms, payoffs) = jax.lax.scan(hand, carry, jax.random.split(key, num_hands))
  return pulls, arms.T, payoffs.T


def ucb1_matches(tensors: GameTensors, player: int, experts, strategy, key, *, num_hands: int, num_matches: int = 1):
  """Plays ``num_matches`` independent matches of ``num_hands`` hands: ``player`` picks an
  expert each hand by UCB1 on its rewards (payoffs rescaled to [0, 1] by the game's
  utility range) and plays it against the opponent's fixed ``strategy``.

  Args:
    experts: [E, I, A] the counter-strategies of ``player``.
    strategy: [I', A'] the opponent's strategy.
  Returns:
    (pulls [M, E], arms [M, T], payoffs [M, T]): how often each expert was chosen, the
    expert of each hand, and ``player``'s payoff of each hand.
  """
  experts = jnp.asarray(np.asarray(experts), tensors.dtype)
  strategy = jnp.asarray(np.asarray(strategy), tensors.dtype)
  return _ucb1(
    tensors,
    experts,
    strategy,
    key,
    player=int(player),
    num_hands=int(num_hands),
    num_matches=int(num_matches),
    max_children=tree_statics(tensors.tree).max_children,
  )
