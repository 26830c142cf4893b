"""A solved spot's nodes by their betting line, and what poker players read at a node: each
hand's strategy, each action's frequency over the range, each hand's EV and equity, and the
same over the range.

A line is the actions from the spot's root, separated by commas: ``check``, ``call``, ``fold``,
``bet 75%`` (of the pot), ``bet 120`` (chips this street), ``raise 2.5x`` (of the bet faced),
``allin``, and the dealt cards (``turn Kd``, ``river 2c``, or just ``Kd``). A bet, raise or
all-in takes the tree's action nearest to the amount asked for (the bet tree's sizes are the
only ones solved; the report names the chips).

    >>> from jaxcfr.games.spots import Spot
    >>> from jaxcfr.poker import queries, solutions
    >>> solved = solutions.solve(Spot.from_endgame(4), "dcfr", 50)
    >>> at = queries.report(solved, queries.node_at(solved, "check"))
    >>> at["player"], at["actions"][:2]
    (1, ['Check', 'Bet(1875)'])
"""

from __future__ import annotations

import itertools
import re

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.games.bet_trees import action_label
from jaxcfr.games.hunl_subgame import format_cards, parse_cards
from jaxcfr.games.poker_rules import CHANCE, DECISION
from jaxcfr.kits.public_tree import tree as tree_lib
from jaxcfr.kits.public_tree import values as ops

__all__ = ["node_at", "step", "children", "actions", "report", "equity", "line_of"]

_AMOUNT = re.compile(r"^(bet|raise|allin|all-in|all in)\s*([\d.]+)?\s*(%|x|bb)?$")


def actions(solution, node: int) -> list[str]:
  """The names of a decision node's actions, in slot order (``"Bet(120)"``: chips this street)."""
  tree = solution.game.tree
  state = tree.states[node]
  return [action_label(tree.rules, state, int(a)) for a in tree.action_ids[node] if a >= 0]


def children(tree, node: int) -> np.ndarray:
  """[K] the children of ``node`` in the public tree ``tree``, in action slot order."""
  return np.arange(tree.first_child[node], tree.first_child[node] + tree.num_children[node])


def _chips(tree, node: int, child: int) -> int:
  """Chips the acting player puts in this street by the action to ``child`` (a bet-to amount)."""
  state = tree.states[child]
  return int(max(state.chips) - tree.states[node].start)


def step(solution, node: int, token: str) -> int:
  """The child of ``node`` that one token of a line (module doc) names; ValueError naming the
  token and the actions there."""
  tree = solution.game.tree
  token = token.strip().lower()
  kids = children(tree, node)
  if tree.kind[node] == CHANCE:
    cards = parse_cards(token.split()[-1])
    for child in kids:
      new = set(tree.board_cards(child)) - set(tree.board_cards(node))
      if new == set(cards):
        return int(child)
    raise ValueError(f"{token!r}: no deal of {format_cards(cards)} at this point (cards on the board or held?)")
  if tree.kind[node] != DECISION:
    raise ValueError(f"{token!r}: the line has ended (a terminal)")
  names = [n.lower() for n in actions(solution, node)]
  for name, child in zip(names, kids):
    if token == name:  # check, call, fold
      return int(child)
  match = _AMOUNT.match(token)
  if not match:
    raise ValueError(f"{token!r} is not an action here; the actions are {', '.join(actions(solution, node))}")
  sized = [(i, child) for i, (name, child) in enumerate(zip(names, kids)) if "(" in name]
  if not sized:
    raise ValueError(f"{token!r}: nobody can bet or raise here; the actions are {', '.join(actions(solution, node))}")
  if match.group(1).startswith("all"):
    return int(sized[-1][1])
  state = tree.states[node]
  facing = max(state.chips) > min(state.chips)
  if (match.group(1) == "raise") != facing:
    what = "raise: nothing to raise" if not facing else "bet: facing a bet, raise"
    raise ValueError(f"{token!r}: no {what}; the actions are {', '.join(actions(solution, node))}")
  if match.group(2) is None:
    if len(sized) > 1:
      raise ValueError(f"{token!r}: which size? the actions are {', '.join(actions(solution, node))}")
    return int(sized[0][1])
  value, unit = float(match.group(2)), match.group(3)
  if unit == "%":
    owed = max(state.chips) - min(state.chips)
    pot = sum(state.chips) + owed
    want = max(state.chips) - state.start + value / 100 * pot
  elif unit == "x":
    want = value * (max(state.chips) - state.start)
  else:
    want = value
  return int(min(sized, key=lambda item: abs(_chips(tree, node, item[1]) - want))[1])


def node_at(solution, line: str) -> int:
  """The node the betting ``line`` reaches from the root (module doc); ValueError naming the
  first token that does not fit."""
  node = 0
  for token in filter(None, (t.strip() for t in line.split(","))):
    node = step(solution, node, token)
  return node


def line_of(solution, node: int) -> str:
  """The line (module doc's names) from the root to ``node``."""
  tree = solution.game.tree
  steps = []
  while tree.parent[node] >= 0:
    parent = int(tree.parent[node])
    if tree.kind[parent] == CHANCE:
      steps.append(format_cards(sorted(set(tree.board_cards(node)) - set(tree.board_cards(parent)))))
    else:
      steps.append(actions(solution, parent)[int(np.flatnonzero(children(tree, parent) == node)[0])])
    node = parent
  return ", ".join(reversed(steps))


@jax.jit
def _versus(strength: jax.Array, compatible: jax.Array, reach: jax.Array) -> tuple:
  """Wins, ties and total weight of each hand against ``reach`` [H] over boards ``strength``
  [B, H] (-1: impossible there)."""
  valid = strength >= 0
  weight = compatible[None] * (valid[:, :, None] & valid[:, None, :]) * reach[None, None, :]
  wins = (weight * (strength[:, :, None] > strength[:, None, :])).sum((0, 2))
  ties = (weight * (strength[:, :, None] == strength[:, None, :])).sum((0, 2))
  return wins, ties, weight.sum((0, 2))


def equity(solution, node: int, player: int, opponent_range: np.ndarray, *, chunk: int = 8) -> np.ndarray:
  """[H] each hand's share of the pot at showdown against ``opponent_range`` [H] at ``node``, over
  every runout of the remaining board cards (win 1, tie 1/2); NaN where the hand cannot be held."""
  del player
  tree = solution.game.tree
  rules, hands = tree.rules, tree.hands
  board = tree.board_cards(node)
  missing = rules.final_board - len(board) if hasattr(rules, "final_board") else 5 - len(board)
  rest = [c for c in range(rules.num_cards) if c not in board]
  runouts = np.array([board + extra for extra in itertools.combinations(rest, missing)], np.int32)
  valid = ~(hands[None, :, :, None] == runouts[:, None, None, :]).any((-1, -2))  # [R, H]: no card on the board
  compatible = jnp.asarray(~(hands[:, None, :, None] == hands[None, :, None, :]).any((-1, -2)), jnp.float32)
  reach = jnp.asarray(opponent_range, jnp.float32)
  totals = np.zeros((3, len(hands)))
  for lo in range(0, len(runouts), chunk):
    strength = tree_lib.strengths(rules, hands, runouts[lo : lo + chunk], valid[lo : lo + chunk])
    totals += np.asarray(jnp.stack(_versus(jnp.asarray(strength), compatible, reach)))
  wins, ties, total = totals
  with np.errstate(invalid="ignore", divide="ignore"):
    return np.where(total > 0, (wins + ties / 2) / total, np.nan)


@jax.jit
def _ranges(tensors, profile) -> jax.Array:
  """[2, N, H] both players' ranges at every node."""
  return jnp.stack([ops.ranges(tensors, p, profile[p]) for p in (0, 1)])


@jax.jit
def _values(tensors, profile, ranges) -> tuple:
  """([2, N, H] each player's counterfactual values, [2, N, H] the opponent's reach compatible
  with each hand)."""
  values = jnp.stack([ops.counterfactual_values(tensors, p, profile[p], ranges[1 - p]) for p in (0, 1)])
  return values, jnp.stack([ops.compatible_reach(tensors, ranges[1 - p]) for p in (0, 1)])


def report(solution, node: int, *, with_equity: bool = True) -> dict:
  """What a decision node shows (``node_at`` finds it): ``player`` (who acts), ``line``,
  ``actions``, ``range`` [D] (the player's reach: its weight of each hand here, over the ``D``
  hands of the deck, hold'em's 1,326, even where the tree holds only the hands in play),
  ``strategy`` [D, A] (NaN where the range is empty), ``frequencies`` [A] (each action's
  probability here, the hands weighted by their probability given the node), ``ev`` [D]
  (chips, each hand's expected payoff given the node is reached with it, zero-sum from the
  root: the pot's shares counted as already paid; NaN where the hand cannot be here) and
  ``equity`` [D], with their averages ``range_ev`` and ``range_equity``."""
  tree, tensors = solution.game.tree, solution.game.tensors
  if tree.kind[node] != DECISION:
    raise ValueError(f"node {node} ({line_of(solution, node)!r}) is not a decision")
  player = int(tree.player[node])
  profile = tuple(jnp.asarray(s, tensors.dtype) for s in solution.profile)
  ranges = _ranges(tensors, profile)
  all_values, all_against = _values(tensors, profile, ranges)
  reach = np.asarray(ranges[:, node])
  row = int(np.flatnonzero(tree.decision_nodes(player) == node)[0])
  values, against = np.asarray(all_values[player, node]), np.asarray(all_against[player, node])
  mine = reach[player] * tree.valid[tree.board[node]]
  legal = tree.action_ids[node] >= 0
  strategy = np.asarray(solution.profile[player])[row][legal].T  # [H, A]
  with np.errstate(invalid="ignore", divide="ignore"):
    ev = np.where((mine > 0) & (against > 0), values / against, np.nan)
  weight = mine * against / (mine * against).sum()  # each hand's probability here: its reach and the opponent's
  out = {
    "player": player,
    "line": line_of(solution, node),
    "actions": actions(solution, node),
    "range": tree.on_deck(mine),
    "strategy": tree.on_deck(np.where(mine[:, None] > 0, strategy, np.nan), fill=np.nan),
    "frequencies": (weight[:, None] * strategy).sum(0),
    "ev": tree.on_deck(ev, fill=np.nan),
    "range_ev": float(np.nansum(weight * np.nan_to_num(ev))),
  }
  if with_equity:
    share = np.where(mine > 0, equity(solution, node, player, reach[1 - player] * tree.valid[tree.board[node]]), np.nan)
    out["equity"] = tree.on_deck(share, fill=np.nan)
    out["range_equity"] = float(np.nansum(weight * np.nan_to_num(share)))
  return out
