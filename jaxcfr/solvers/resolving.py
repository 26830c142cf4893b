"""Re-solving with the CFR-D gadget, and continual re-solving through a whole game.

**Re-solving** (Burch, Johanson and Bowling, "Solving Imperfect Information Games Using
Decomposition", 2014). A player who knows only its own range ``r`` at a public state and an
upper bound ``w`` on each of the opponent's hands' counterfactual values there (what the
opponent could earn against the player's earlier strategy) solves the subtree below the
state in a *gadget* game: the opponent first chooses, hand by hand, to *terminate* (and
receive ``w(h)``) or to *follow* into the subtree. The gadget's regrets make the opponent's
range at the root: ``follow(h)`` from regret matching+ over the two choices (DeepStack's
``CFRDGadget``; plain regret matching with ``gadget="rm"``, see GADGETS), each of the
opponent's possible hands weighted one. Equilibrium strategies
of the gadget game hold every opponent hand's value in the subtree to at most ``w(h)``, so
the re-solved strategy is no more exploitable than the one it replaces, up to the solve's
error. ``resolve`` runs it on a public tree or a depth-limited lookahead
(jaxcfr.solvers.lookahead): one ``cfr.step`` per iteration with the gadget's range at
the root (``root_ranges``), the gadget's regrets updated from the opponent's root values
the step reports.

**Continual re-solving** (Moravcik et al., "DeepStack: Expert-Level Artificial Intelligence
in Heads-Up No-Limit Poker", 2017, Algorithm 1). The agent keeps its range and the
opponent's counterfactual values, and re-solves a lookahead at each of its decisions:
after its own action the range is multiplied by the action's probability and the values are
the opponent's at the child in that solve; after the opponent's action or a deal, the values
are the opponent's at that node in the last solve (at a leaf, the value function's), and a
deal removes the hands its cards block from the range. When the opponent acts first in a
new round, the last solve ended at the round's start, and its values there are the bounds
(DeepStack-Leduc does the same). ``agent_strategy`` runs this at every public state a hand
can reach and returns the agent's whole strategy, which the exact best response of the
public tree scores.

Shapes: ``N`` nodes of the re-solved tree, ``H`` hands, ``*B`` trailing batch axes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.public_tree import values as ops
from jaxcfr.base import regret
from jaxcfr.base.params import concrete
from jaxcfr.kits import public_tree as public_tree
from jaxcfr.kits.public_tree import PublicTree, PublicTreeTensors
from jaxcfr.solvers import cfr, lookahead
from jaxcfr.kits.public_tree import LeafValueFn

__all__ = [
  "ResolveState",
  "Resolved",
  "CARRIES",
  "GADGETS",
  "resolve_init",
  "resolve_step",
  "resolve",
  "agent_strategy",
  "whole_tree",
  "resolves",
]


class ResolveState(NamedTuple):
  """The state of a re-solve.

  Attributes:
    inner_state: the cfr.CFRState of the solver on the tree (``keep_values``).
    gadget_regret: [2, H, *B] the opponent's gadget regrets of following and terminating.
    follow: [H, *B] the opponent's follow probabilities, averaged over the iterations.
    opponent_values: [N, H, *B] the opponent's counterfactual values at every node,
      averaged over the iterations (both with the average strategy's weights).
  """

  inner_state: cfr.CFRState
  gadget_regret: jax.Array
  follow: jax.Array
  opponent_values: jax.Array


class Resolved(NamedTuple):
  """A re-solved public state.

  Attributes:
    strategy: [N_p, A, H, *B] the re-solving player's average strategy on the tree.
    opponent_values: [N, H, *B] the values to carry to the next re-solve: the opponent's
      counterfactual values at every node averaged over the iterations (``carry="averaged"``,
      DeepStack's; at a lookahead's leaves the leaf function's), or its exact best-response
      values against ``strategy`` (``carry="best_response"``), to which the averages converge
      on a whole subgame, or the averages with the leaves' replaced by the leaf function's
      values at the average profile's ranges (``carry="final_leaves"``). At the root they
      stay within the bounds given when the re-solve succeeds.
    follow: [H, *B] the opponent's average follow probability in the gadget.
  """

  strategy: jax.Array
  opponent_values: jax.Array
  follow: jax.Array


def _root_ranges(tree: PublicTreeTensors, player: int, own_range: jax.Array, follow: jax.Array) -> jax.Array:
  """[2, H, *B] both players' root ranges: the player's own, the opponent's ``follow``."""
  valid = tree.valid[tree.board[0]].reshape((tree.num_hands,) + (1,) * (follow.ndim - 1))
  opponent = follow * valid.astype(follow.dtype)
  own = jnp.broadcast_to(own_range, opponent.shape).astype(opponent.dtype)
  return jnp.stack([own, opponent] if player == 0 else [opponent, own])


def resolve_init(
  tree: PublicTreeTensors, algorithm: str = "cfr+", batch: tuple = (), leaf_fn: LeafValueFn | None = None
) -> ResolveState:
  """A fresh re-solve of ``tree`` with ``algorithm`` (a CFR preset) and the leaf function
  ``leaf_fn`` of its steps: the gadget starts undecided (follow and terminate equally
  likely)."""
  inner = cfr.init(
    tree, **cfr.preset_hyperparameters(algorithm), keep_values=True, operations=public_tree.operations(leaf_fn=leaf_fn)
  )
  zeros = jnp.zeros((tree.num_hands,) + tuple(batch), tree.dtype)
  values = jnp.zeros((tree.kind.shape[0], tree.num_hands) + tuple(batch), tree.dtype)
  return ResolveState(inner, jnp.stack([zeros, zeros]), zeros, values)


def resolve_step(
  tree: PublicTreeTensors,
  state: ResolveState,
  own_range: jax.Array,
  opponent_values: jax.Array,
  *,
  player: int,
  step_fn: Callable,
  gadget: str = "rm+",
) -> ResolveState:
  """One iteration of the gadget game: the opponent's root range from its gadget regrets,
  one ``step_fn`` (a ``cfr.preset_step``) with that range, then the gadget's regret
  update from the opponent's root values.

  Args:
    own_range: [H, *B] the re-solving ``player``'s range at the root.
    opponent_values: [H, *B] the bounds ``w``: the opponent's counterfactual values at the
      root, in the units of ``own_range``.
    gadget: the opponent's regrets of following and terminating: "rm+", regret matching+
      (floored at zero each iteration, as DeepStack-Leduc's gadget), or "rm", regret
      matching (regrets summed). See GADGETS.
  """
  follow = regret.regret_matching(state.gadget_regret, jnp.ones((2, 1), bool), axis=0)[0]
  inner = step_fn(tree, state.inner_state, root=_root_ranges(tree, player, own_range, follow))
  values = inner.values[1 - player]  # [N, H, *B]
  bound = jnp.broadcast_to(opponent_values, values.shape[1:]).astype(values.dtype)
  gadget_value = follow * values[0] + (1 - follow) * bound
  gadget_regret = state.gadget_regret + jnp.stack([values[0] - gadget_value, bound - gadget_value])
  if gadget == "rm+":
    gadget_regret = jnp.maximum(gadget_regret, 0)
  average = functools.partial(cfr.running_average, inner.weight_ratio)
  return ResolveState(inner, gadget_regret, average(state.follow, follow), average(state.opponent_values, values))


CARRIES = ("averaged", "best_response", "final_leaves")
"""The opponent values a re-solve hands on (``resolve``'s ``carry``), the default first. On
no-limit Leduc (stack 1,200, 1,000 iterations per solve) neither alternative helps: without a
depth limit the best-response values leave the agent at 0.55 chips against the averages' 0.54
(``benchmarks/results/resolving_errors.json``); with exact leaves "final_leaves" makes it 3.66
against 1.16, its second-round re-solves losing more in both seats
(``benchmarks/results/resolving_split.json``)."""
GADGETS = ("rm+", "rm")
"""How the gadget's follow probabilities learn, the default first. With regret matching+ a
hand's follow probability jumps whenever its floored regrets cross, and a re-solve rooted at an
opponent's decision converges slowly: once at the opponent's first decision of no-limit Leduc
(stack 1,200), 1,000 CFR+ iterations from exact bounds left the opponent 0.70 chips above its
equilibrium value with "rm+" and 0.10 with "rm" (plain CFR+ on the whole game: 0.05), and the
agent re-solving without a depth limit is exploitable by 0.54 and 0.34. With depth-limited
lookaheads and fresh exact leaves the gadget matters little and "rm+" is slightly ahead (1.16
against 1.19 chips; ``benchmarks/results/resolving_errors.json``); with warm-started leaves
"rm+" is ahead at 1,000 iterations per solve (0.46 against 0.52) and "rm" from 3,000 on (0.036
against 0.065 at 30,000; ``benchmarks/results/resolving_warm_leaves.json``), so DeepStack's
choice stays the default of the default 1,000 iterations."""


def resolve(
  tree: PublicTreeTensors,
  own_range: jax.Array,
  opponent_values: jax.Array,
  *,
  player: int,
  iterations: int,
  algorithm: str = "cfr+",
  leaf_fn: LeafValueFn | None = None,
  carry: str = "averaged",
  gadget: str = "rm+",
) -> Resolved:
  """Re-solves ``tree`` (a subgame or a lookahead with ``leaf_fn``) for ``player`` from its
  range ``own_range`` [H, *B] and the opponent's value bounds ``opponent_values`` [H, *B]
  at the root: ``iterations`` of ``resolve_step``.

  Args:
    carry: the opponent values returned: "averaged" over the iterations (DeepStack's);
      "best_response", the opponent's exact best-response values against the re-solved
      strategy (the safe bounds of Burch, Johanson and Bowling 2014; a tree without leaves
      only); or "final_leaves", the averages except at the leaves, where ``leaf_fn`` is asked
      once more, at both players' ranges under the average profile (the opponent's from its
      average follow probabilities), and the opponent's values there are carried (the same
      as "averaged" on a tree without leaves).
    gadget: how the gadget's follow probabilities learn (GADGETS; ``resolve_step``).

  The settings and inputs are checked first (one-line ValueErrors), then the re-solve runs
  as one compiled program per tree shape and settings.
  """
  if carry not in CARRIES:
    raise ValueError(f"carry must be one of {', '.join(CARRIES)}, got {carry!r}")
  if gadget not in GADGETS:
    raise ValueError(f"gadget must be one of {', '.join(GADGETS)}, got {gadget!r}")
  if carry == "best_response" and leaf_fn is not None:
    raise ValueError("carry='best_response' needs a tree without leaves (its values below the leaves are unknown)")
  _check_inputs(tree, own_range, opponent_values, player, iterations)
  return _resolve(
    tree,
    own_range,
    opponent_values,
    player=player,
    iterations=iterations,
    algorithm=algorithm,
    leaf_fn=leaf_fn,
    carry=carry,
    gadget=gadget,
  )


@functools.partial(jax.jit, static_argnames=("player", "iterations", "algorithm", "leaf_fn", "carry", "gadget"))
def _resolve(tree, own_range, opponent_values, *, player, iterations, algorithm, leaf_fn, carry, gadget) -> Resolved:
  """``resolve``'s compiled program (its inputs checked)."""
  batch = jnp.broadcast_shapes(own_range.shape[1:], opponent_values.shape[1:])
  step_fn = cfr.preset_step(algorithm, operations=public_tree.operations(leaf_fn=leaf_fn))
  step = functools.partial(resolve_step, player=player, step_fn=step_fn, gadget=gadget)
  state = resolve_init(tree, algorithm, batch, leaf_fn)
  state = jax.lax.fori_loop(0, iterations, lambda _, s: step(tree, s, own_range, opponent_values), state)
  strategy = cfr.average_strategy(tree, state.inner_state)[player]
  values = state.opponent_values
  if carry == "best_response":
    reach = ops.ranges(tree, player, strategy, initial=own_range)
    values = ops.counterfactual_values(tree, 1 - player, None, reach)
  if carry == "final_leaves" and tree.leaf_nodes.shape[0]:
    profile = cfr.average_strategy(tree, state.inner_state)
    root = _root_ranges(tree, player, own_range, state.follow)
    reach = [ops.ranges(tree, p, profile[p], root[p]) for p in (0, 1)]
    leaves = public_tree.leaf_values(tree, leaf_fn, reach, state.inner_state.leaf_state)[1 - player]
    values = values.at[tree.leaf_nodes].set(leaves.astype(values.dtype))
  return Resolved(strategy, values, state.follow)


def whole_tree(game) -> PublicTree:
  """``game`` if it is a host PublicTree, else the public tree of the rules ``game``."""
  return game if isinstance(game, PublicTree) else public_tree.build(game)


def resolves(tree: PublicTree, player: int) -> int:
  """How many re-solves ``agent_strategy`` runs as ``player`` on the whole game ``tree``: one per
  decision node of the player (the walk reaches every node once)."""
  return len(tree.decision_nodes(player))


def _check_inputs(tree: PublicTreeTensors, own_range, opponent_values, player, iterations) -> None:
  """One-line ValueErrors for ``resolve``'s inputs: the player 0 or 1, at least one iteration,
  the range and the values ``[H, *B]`` of the tree's hands, finite, the range non-negative (an
  empty range is allowed: the agent re-solves at nodes it never reaches). Traced values pass."""
  if player not in (0, 1):
    raise ValueError(f"player must be 0 or 1, got {player!r}")
  if isinstance(iterations, (int, np.integer)) and iterations < 1:
    raise ValueError(f"iterations must be >= 1, got {iterations}")
  for name, x in (("own_range", own_range), ("opponent_values", opponent_values)):
    shape = jnp.shape(x)
    if not shape or shape[0] != tree.num_hands:
      raise ValueError(f"{name} must be [H, *B] with the tree's H = {tree.num_hands} hands, got shape {shape}")
    value = concrete(x)
    if value is not None and not np.all(np.isfinite(value)):
      raise ValueError(f"{name} holds values that are not finite (NaN or inf)")
  value = concrete(own_range)
  if value is not None and np.any(value < 0):
    raise ValueError("own_range holds negative weights")


LeafValuesOf = Callable[[PublicTree], LeafValueFn | public_tree.LeafSolver]
"""``leaf_values_of(lookahead)``: the value function of a depth-limited lookahead's leaves
(``functools.partial(lookahead.exact_leaf_values, iterations=...)``, the warm-started
``lookahead.warm_leaf_values``, or a value network's:
``lambda tree: fn`` with ``fn = value_network.leaf_fn(network)`` made once, so that the
re-solves of lookaheads of one shape share one compiled program)."""


def agent_strategy(
  game,
  player: int,
  *,
  iterations: int,
  leaf_values_of: LeafValuesOf,
  algorithm: str = "cfr+",
  rounds: int = 1,
  carry: str = "averaged",
  gadget: str = "rm+",
  dtype=None,
  progress: Callable[[int], None] | None = None,
) -> np.ndarray:
  """[N_p, A, H] the continual re-solving agent's strategy as ``player`` of the whole game
  (its public tree's decision nodes of ``player``): a first solve of the root's lookahead with
  both players' ranges, then a re-solve of a ``rounds``-round lookahead at each of the agent's
  decision nodes, ``iterations`` of ``algorithm`` each (module doc).

  Args:
    game: the whole game's public tree (a host ``PublicTree``, e.g. the ``tree`` of a game
      loaded on the public tree: built once, shared by both seats), or its rules (built here).
    leaf_values_of: the leaf value function of each lookahead (``LeafValuesOf``).
    carry, gadget: ``resolve``'s, for every re-solve.
    progress: called with the number of re-solves done.
  """
  whole = whole_tree(game)
  rules = whole.rules
  slots = whole.action_ids.shape[1]
  strategy = np.zeros((len(whole.decision_nodes(player)), slots, whole.num_hands))
  row_of = {int(n): i for i, n in enumerate(whole.decision_nodes(player))}

  def device(tree: PublicTree):
    leaf_fn = leaf_values_of(tree) if np.any(tree.kind == public_tree.LEAF) else None
    return public_tree.to_device(tree, dtype), leaf_fn

  first = lookahead.build(rules, rounds=rounds)
  tensors, leaf_fn = device(first)
  solved = lookahead.solve(tensors, iterations, algorithm, leaf_fn)
  opponent = 1 - player
  values = np.asarray(solved.values[opponent])
  done = 0
  # (node of the whole game, the agent's range, the last solve's tree, its opponent values, node there)
  stack = [(0, np.asarray(whole.initial_range[player]), first, values, 0)]
  while stack:
    node, own, tree, values, at = stack.pop()
    kind = whole.kind[node]
    kids = range(whole.first_child[node], whole.first_child[node] + whole.num_children[node])
    if kind == public_tree.DECISION and whole.player[node] == player:
      sub = lookahead.build(rules, whole.states[node], rounds=rounds)
      tensors, leaf_fn = device(sub)
      out = resolve(
        tensors,
        jnp.asarray(own, tensors.dtype),
        jnp.asarray(values[at], tensors.dtype),
        player=player,
        iterations=iterations,
        algorithm=algorithm,
        leaf_fn=leaf_fn,
        carry=carry,
        gadget=gadget,
      )
      here = np.asarray(out.strategy[0])  # the root is the agent's first decision node
      strategy[row_of[node], : here.shape[0]] = here
      done += 1
      if progress is not None:
        progress(done)
      carried = np.asarray(out.opponent_values)
      for slot, kid in enumerate(kids):
        stack.append((kid, own * here[slot], sub, carried, sub.find((int(whole.action[kid]),))))
    elif kind in (public_tree.DECISION, public_tree.CHANCE):
      for kid in kids:
        follow = tree.kind[at] != public_tree.LEAF
        child = tree.find((int(whole.action[kid]),), start=at) if follow else at
        mask = whole.valid[whole.board[kid]]
        stack.append((kid, own * mask, tree, values, child))
  return strategy
