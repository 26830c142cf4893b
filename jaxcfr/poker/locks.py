"""Node locks written as poker players say them: at a line, an action mix, for the whole range or
for some hands, turned into the ``Lock`` of the solver ``locked`` (jaxcfr.solvers.locking).

A lock is ``LINE -> MIX`` or ``LINE -> MIX @ HANDS``: the line from the root (jaxcfr.poker.queries'
words; ``root`` for the root), the acting player's mix there (``bet 100%``, or ``bet 100%: 0.7,
check: 0.3``, weights summing to one), and the hands it holds for (a range string: a combo lock;
absent: the whole range). Several locks of the same player are separated by ``;``.

    >>> from jaxcfr.games.spots import Spot
    >>> from jaxcfr.poker import locks, solutions
    >>> spot = Spot.from_endgame(4)
    >>> lock = locks.parse(solutions.game_of(spot), "root -> check")
    >>> locked = solutions.solve(spot, "locked", 50, settings={"lock": lock})
    >>> in_range = locked.game.tree.on_deck(locked.profile[0][0, 0])[spot.ranges[0] > 0]  # over the 1,326 hands
    >>> round(float(in_range.min()), 6)  # the root checks with every hand of the range
    1.0
"""

from __future__ import annotations

import types

import jax.numpy as jnp
import numpy as np

from jaxcfr.games.poker_ranges import parse_range
from jaxcfr.games.poker_rules import DECISION
from jaxcfr.poker import queries
from jaxcfr.solvers.locking import Lock

__all__ = ["parse", "parse_mix"]


def parse_mix(game, node: int, text: str) -> np.ndarray:
  """[A] the mix ``text`` (``"bet 100%"``, ``"bet 100%: 0.7, check: 0.3"``) over the action
  slots of decision ``node``; ValueError naming the part that does not fit."""
  view = types.SimpleNamespace(game=game)
  names = queries.actions(view, node)
  kids = list(queries.children(game.tree, node))
  mix = np.zeros(game.tree.action_ids.shape[1])
  parts = [p.strip() for p in text.split(",") if p.strip()]
  if not parts:
    raise ValueError(f"lock {text!r}: no action given; the actions are {', '.join(names)}")
  for part in parts:
    action, _, weight = part.rpartition(":") if ":" in part else (part, "", "1")
    try:
      share = float(weight)
    except ValueError:
      raise ValueError(f"lock {part!r}: {weight.strip()!r} is not a probability") from None
    if not 0 <= share <= 1:
      raise ValueError(f"lock {part!r}: a probability lies in [0, 1], got {share}")
    mix[kids.index(queries.step(view, node, action))] += share
  if abs(mix.sum() - 1) > 1e-6:
    raise ValueError(f"lock {text!r}: the probabilities sum to {mix.sum():g}, not 1")
  return mix


def parse(game, text: str) -> Lock:
  """The Lock of ``text`` (module doc) on ``game``'s public tree (a PublicTreeGame,
  jaxcfr.poker.solutions.game_of): mask ``[N_p, H]`` and strategy ``[N_p, A, H]`` of the one
  player who acts at every locked line. ValueError, one line, on a malformed lock, a line that
  does not end at a decision, a mix that does not fit it, or locks of both players."""
  tree = game.tree
  view = types.SimpleNamespace(game=game)
  player, mask, strategy = None, None, None
  for item in (s.strip() for s in text.split(";") if s.strip()):
    line, arrow, rest = item.partition("->")
    if not arrow:
      raise ValueError(f"lock {item!r}: write LINE -> MIX [@ HANDS], e.g. 'check -> bet 100%'")
    mix_text, _, hands = rest.partition("@")
    line = "" if line.strip().lower() == "root" else line
    node = queries.node_at(view, line)
    if tree.kind[node] != DECISION:
      raise ValueError(f"lock {item!r}: the line ends at no decision")
    acting = int(tree.player[node])
    if player is None:
      player = acting
      rows = len(tree.decision_nodes(player))
      mask = np.zeros((rows, tree.num_hands), bool)
      strategy = np.zeros((rows, tree.action_ids.shape[1], tree.num_hands))
    elif acting != player:
      raise ValueError(f"lock {item!r}: player {acting} acts there; one player's strategy is locked at a time")
    row = int(np.flatnonzero(tree.decision_nodes(player) == node)[0])
    held = np.ones(tree.num_hands, bool) if not hands.strip() else parse_range(hands.strip())[tree.deck_rows] > 0
    mask[row] |= held
    strategy[row][:, held] = parse_mix(game, node, mix_text)[:, None]
  if player is None:
    raise ValueError("no lock given: write LINE -> MIX [@ HANDS]")
  dtype = game.tensors.dtype
  return Lock(player, jnp.asarray(mask), jnp.asarray(strategy, dtype))
