"""Kuhn poker's Nash equilibria in closed form, and the two metrics of Ponsen, de Jong and
Lanctot, "Computing Approximate Nash Equilibria and Robust Best-Responses Using Sampling",
2011 (section 3.3.1, Figure 4 left): the squared error to the equilibrium family and the
dominated-action error.

Cards 0, 1, 2 are J, Q, K; action 0 is pass (check / fold), action 1 is bet (bet / call).
An infoset is (card, betting history): player 0 acts at ``""`` and ``"pb"``, player 1 at
``"p"`` and ``"b"``. A profile is described by its bet probabilities ``b(I) = sigma(I, bet)``.

**The equilibria** (Kuhn, "A simplified two-person poker", 1950). Player 0's equilibrium
strategies form a one-parameter family, ``alpha`` in [0, 1/3]:

    b(J, "") = alpha      b(Q, "") = 0      b(K, "") = 3 alpha
    b(J, pb) = 0          b(Q, pb) = alpha + 1/3    b(K, pb) = 1

and player 1's equilibrium strategy is unique:

    b(J, p) = 1/3   b(Q, p) = 0   b(K, p) = 1
    b(J, b) = 0     b(Q, b) = 1/3 b(K, b) = 1

(game value -1/18 for player 0, whatever alpha).

**Squared error** (Ponsen et al. 2011: "the correct NE probability minus our current learned
probability squared"): ``sum_I (b(I) - b*(I))^2`` over the 12 infosets, against the nearest
member of the family (one bet probability per infoset; summing over both actions would
double it). Only three terms depend on alpha, ``(b(J,"") - alpha)^2 + (b(K,"") - 3 alpha)^2 +
(b(Q,pb) - alpha - 1/3)^2``, a convex quadratic, so the nearest member is its minimiser
``(b(J,"") + 3 b(K,"") + b(Q,pb) - 1/3) / 11`` clipped to [0, 1/3].

**Dominated error** (Ponsen et al. 2011, section 3.3.1: "the summed probabilities for
selecting dominated actions"): the sum, over the listed (infoset, action) pairs, of the
probability the profile puts on that action at that infoset (not weighted by reach),
derived in docs/kuhn.md. By default the list is ``DOMINATED``, the paper's seven (section
2.2: "There are in total seven possible dominated actions"; its tree without them keeps five
free parameters, alpha, beta, gamma for player 0 and eta, xi for player 1, so each of the
other seven infosets loses one action): player 0 betting Q first, calling with J and folding
with K after pass-bet; player 1 betting Q after a pass, calling with J and folding with K
facing a bet, and checking K after a pass. Five of them
(``DOMINATED_ONE_ROUND``) are weakly dominated outright; the two Q bets are dominated once
the opponent's five are removed (a second round of iterated dominance). The uniform
profile's dominated error is 7 / 2 (5 / 2 with ``actions=DOMINATED_ONE_ROUND``).

Every function takes strategies with trailing batch axes ``[I, A, *B]`` and returns ``[*B]``.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

__all__ = [
  "PASS",
  "BET",
  "DOMINATED",
  "DOMINATED_ONE_ROUND",
  "is_kuhn",
  "infoset_rows",
  "equilibrium",
  "nearest_alpha",
  "squared_error",
  "dominated_error",
  "metrics",
  "metrics_function",
]

PASS, BET = 0, 1
_CARDS = "JQK"
_HISTORIES = (("", "pb"), ("p", "b"))  # each player's betting histories

# (player, card, history, action): the dominated actions (docs/kuhn.md). One round of weak
# dominance removes five: a call with J or a fold with K facing a bet (either player), and
# player 1's check with K after a pass.
DOMINATED_ONE_ROUND = (
  (0, "J", "pb", BET),
  (0, "K", "pb", PASS),
  (1, "J", "b", BET),
  (1, "K", "b", PASS),
  (1, "K", "p", PASS),
)
# Ponsen et al. 2011's seven: the five and the two Q bets that they leave dominated.
DOMINATED = (*DOMINATED_ONE_ROUND, (0, "Q", "", BET), (1, "Q", "p", BET))


def _parse(key: str) -> tuple[str, str]:
  """(card letter, history) of an infoset key: ``"0:pb"`` (native) or ``"0pb"`` (OpenSpiel)."""
  key = str(key)
  return _CARDS[int(key[0])], key[1:].lstrip(":")


def is_kuhn(game) -> bool:
  """True when ``game`` (a loaded jaxcfr.kits.sequence_form.Game) declares Kuhn poker's metrics (its GameInfo's
  ``metrics == "kuhn"``: native kuhn_poker, OpenSpiel's two-player kuhn_poker)."""
  return game.info.metrics == "kuhn"


def _has_kuhn_keys(keys_by_player) -> bool:
  """True when the infoset keys are Kuhn poker's: cards J, Q, K at each player's histories."""
  try:
    keys = [{_parse(k) for k in keys} for keys in keys_by_player]
  except (ValueError, IndexError):
    return False
  return all(keys[p] == {(c, h) for c in _CARDS for h in _HISTORIES[p]} for p in (0, 1))


@functools.cache
def _rows(keys: tuple) -> dict:
  return {_parse(k): i for i, k in enumerate(keys)}


def infoset_rows(game, player: int) -> dict:
  """{(card letter, history): row of ``player``'s [I, A] strategy} from the game's keys
  (``game``: a loaded jaxcfr.kits.sequence_form.Game, or the ``(keys0, keys1)`` tuple of its infoset keys)."""
  keys = game[player] if isinstance(game, tuple) else game.arrays.players[player].keys
  return _rows(tuple(str(k) for k in keys))


@functools.cache
def _metrics_of(keys: tuple):
  return lambda profile: metrics(keys, profile)


def metrics_function(game):
  """``profile -> metrics(game, profile)``, one object per set of infoset keys (so a jitted
  caller that takes it as a static argument compiles once per game, not per load). Raises
  ValueError if the game's infoset keys are not Kuhn poker's."""
  keys = tuple(tuple(str(k) for k in p.keys) for p in game.arrays.players)
  if not _has_kuhn_keys(keys):
    raise ValueError(f"game {game.name} declares Kuhn poker's metrics but its infoset keys are not Kuhn poker's")
  return _metrics_of(keys)


def equilibrium(game, alpha: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
  """The equilibrium profile with parameter ``alpha`` in [0, 1/3]: ([I0, 2], [I1, 2]) float64."""
  if not 0 <= alpha <= 1 / 3 + 1e-12:
    raise ValueError(f"alpha must lie in [0, 1/3], got {alpha}")
  bets = (
    {
      ("J", ""): alpha,
      ("Q", ""): 0.0,
      ("K", ""): 3 * alpha,
      ("J", "pb"): 0.0,
      ("Q", "pb"): alpha + 1 / 3,
      ("K", "pb"): 1.0,
    },
    {("J", "p"): 1 / 3, ("Q", "p"): 0.0, ("K", "p"): 1.0, ("J", "b"): 0.0, ("Q", "b"): 1 / 3, ("K", "b"): 1.0},
  )
  profile = []
  for player in (0, 1):
    rows = infoset_rows(game, player)
    strategy = np.zeros((len(rows), 2))
    for infoset, row in rows.items():
      strategy[row] = (1 - bets[player][infoset], bets[player][infoset])
    profile.append(strategy)
  return tuple(profile)


def _bet(game, profile, player: int, card: str, history: str):
  return jnp.asarray(profile[player])[infoset_rows(game, player)[(card, history)], BET]


def nearest_alpha(game, profile):
  """[*B] the alpha of the family member nearest to ``profile`` (each strategy [I, 2, *B])
  in squared error."""
  b = functools.partial(_bet, game, profile, 0)
  return jnp.clip((b("J", "") + 3 * b("K", "") + b("Q", "pb") - 1 / 3) / 11, 0, 1 / 3)


def squared_error(game, profile):
  """[*B] ``sum_I (b(I) - b*(I))^2`` over the 12 infosets, to the nearest equilibrium."""
  alpha = nearest_alpha(game, profile)
  error = 0.0
  for player in (0, 1):
    for (card, history), row in infoset_rows(game, player).items():
      target = (
        {("J", ""): alpha, ("K", ""): 3 * alpha, ("Q", "pb"): alpha + 1 / 3}.get((card, history))
        if player == 0
        else None
      )
      if target is None:
        target = _fixed_bet(player, card, history)
      error = error + (jnp.asarray(profile[player])[row, BET] - target) ** 2
  return error


def _fixed_bet(player: int, card: str, history: str) -> float:
  """Equilibrium bet probability at the infosets that do not depend on alpha."""
  return {
    (0, "Q", ""): 0.0,
    (0, "J", "pb"): 0.0,
    (0, "K", "pb"): 1.0,
    (1, "J", "p"): 1 / 3,
    (1, "Q", "p"): 0.0,
    (1, "K", "p"): 1.0,
    (1, "J", "b"): 0.0,
    (1, "Q", "b"): 1 / 3,
    (1, "K", "b"): 1.0,
  }[(player, card, history)]


def dominated_error(game, profile, actions=DOMINATED):
  """[*B] the summed probability of the dominated ``actions``: by default ``DOMINATED``,
  Ponsen et al. 2011's seven (0 to 7); ``actions=DOMINATED_ONE_ROUND`` gives the five of one
  round of weak dominance (0 to 5)."""
  total = 0.0
  for player, card, history, action in actions:
    total = total + jnp.asarray(profile[player])[infoset_rows(game, player)[(card, history)], action]
  return total


def metrics(game, profile) -> dict:
  """{"squared_error", "dominated_error"} of a profile (each [*B]; the dominated error over
  the paper's seven actions); traceable."""
  return {"squared_error": squared_error(game, profile), "dominated_error": dominated_error(game, profile)}
