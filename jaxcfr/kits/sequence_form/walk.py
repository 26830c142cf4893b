"""One step down the tree arrays, shared by every sampled walk of the library.

A walk starts at some histories and, once per step, reads each history's entries of the
tree arrays (jaxcfr.kits.sequence_form.tensors.Tree: ``kind``, ``infoset``, ``first_child``,
``num_children``), asks a policy which of its children to take, and moves there; a terminal
stays put. The behaviour is passed in as a typed function (a ``Policy``, as mctx passes its
``recurrent_fn``), and what a walk records per step is the policy's own output. The steps
are one ``lax.scan`` over per-step inputs (uniforms, keys), so a walk of a jitted loop
compiles like a hand-written one; or, ``by_depth``, one traced step per depth, each told its
depth, so that a policy reads only what the tree holds there (MCTS).

Walks of the library: outcome sampling's K trajectories (jaxcfr.solvers.outcome_sampling,
inverse-CDF draws), an MCTS simulation (jaxcfr.solvers.mcts, UCT), and games played by a
profile (``play``: opponent models, sampled head-to-head matches, experts).
"""

from __future__ import annotations

from typing import Any, NamedTuple
from collections.abc import Callable

import jax
import jax.numpy as jnp

from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, TERMINAL_NODE
from jaxcfr.kits.sequence_form.tensors import GameTensors, Tree

__all__ = ["Node", "Policy", "Walk", "walk", "children", "Step", "Probability", "play"]


class Node(NamedTuple):
  """Histories and their entries of the tree arrays, each ``[...]`` int32 (the shape of the
  walk's histories: ``[]`` for one walk, ``[K]`` for K at once).

  Attributes:
    history: the histories.
    kind: 0, 1 (the acting player), 2 (chance) or 3 (terminal).
    infoset: the acting player's infoset.
    first_child: the first of the contiguous children.
    num_children: the number of children (0 at terminals).
    depth: the step's static index in a walk ``by_depth`` from the root (the histories are at
      this depth or terminals reached earlier), else None.
  """

  history: jax.Array
  kind: jax.Array
  infoset: jax.Array
  first_child: jax.Array
  num_children: jax.Array
  depth: int | None = None

  @property
  def alive(self) -> jax.Array:
    """``[...]`` bool, the histories that are not terminal."""
    return self.kind != TERMINAL_NODE


Policy = Callable[[Node, Any, Any], tuple[jax.Array, Any, Any]]
"""``policy(node, x, carry) -> (slot, carry, output)``: at ``node`` (a Node), with this step's
input ``x`` (a slice of the walk's ``xs``) and the carry of the previous step, ``slot``
``[...]`` int is the position of the child to take (ignored at terminals), ``carry`` goes to
the next step and ``output`` (any pytree) is stacked over the steps."""


class Walk(NamedTuple):
  """A finished walk of ``D`` steps.

  Attributes:
    last: ``[...]`` int32, the histories reached after the last step.
    carry: the policy's carry after the last step.
    path: ``[D, ...]`` int32, the histories after each step (a terminal repeats once reached).
    outputs: the policy's outputs, each leaf stacked to ``[D, ...]``.
  """

  last: jax.Array
  carry: Any
  path: jax.Array
  outputs: Any


def _reader(tree: Tree, stacked: bool) -> Callable[[jax.Array], Node]:
  """``history -> Node``. ``stacked``: one gather of a stacked [H, 4] table per step, faster
  than four on small trees; building the table costs a pass over [H] per call of a jitted
  loop, so it is built once, here, outside the steps. (For the same reason the int8 kinds are
  widened after the gather, not before: a widened copy of ``kind`` cost 0.17 s per call of
  outcome sampling on goofspiel(7).)"""
  columns = (tree.kind, tree.infoset, tree.first_child, tree.num_children)
  if stacked:
    table = jnp.stack([c.astype(jnp.int32) for c in columns], -1)
    return lambda h: Node(h, *jnp.moveaxis(table[h], -1, 0))
  return lambda h: Node(h, *[c[h].astype(jnp.int32) for c in columns])


def walk(
  tree: Tree,
  policy: Policy,
  xs: Any,
  *,
  root: jax.Array,
  carry: Any = None,
  stacked: bool = False,
  unroll: int | bool = 1,
  by_depth: bool = False,
) -> Walk:
  """Walks from ``root`` down the tree, one step per leading entry of ``xs``.

  Each step reads the Node of the current histories, calls ``policy(node, x, carry)`` and
  moves every live history to its child ``first_child + slot`` (clipped to the tree);
  terminals stay put.

  Args:
    tree: the tree arrays.
    policy: a Policy.
    xs: the per-step inputs, a pytree of ``[D, ...]`` arrays (e.g. uniforms or PRNG keys).
    root: ``[...]`` int32, the starting histories (0 is the root).
    carry: the policy's initial carry (None: none).
    stacked: read the tree's four columns as one stacked table (see ``_reader``).
    unroll: ``lax.scan``'s unroll (True: a loop over few, static steps fully unrolled).
    by_depth: trace each step on its own (a Python loop) and give the policy the step's
      index as ``Node.depth``, so that it can specialise to what the tree holds at that
      depth (jaxcfr.kits.sequence_form.tensors.TreeStatics.level_kinds); for walks from the root.
  Returns:
    a Walk.
  """
  num_histories = tree.kind.shape[0]
  read = _reader(tree, stacked)

  def step(state, x, depth=None):
    h, inner = state
    node = read(h)._replace(depth=depth)
    slot, inner, output = policy(node, x, inner)
    child = jnp.minimum(node.first_child + slot.astype(node.first_child.dtype), num_histories - 1)
    child = jnp.where(node.alive, child, h)
    return (child, inner), (child, output)

  if not by_depth:
    (last, carry), (path, outputs) = jax.lax.scan(step, (root, carry), xs, unroll=unroll)
    return Walk(last=last, carry=carry, path=path, outputs=outputs)
  state, stacked_outputs = (root, carry), []
  for depth in range(jax.tree_util.tree_leaves(xs)[0].shape[0]):
    state, output = step(state, jax.tree_util.tree_map(lambda x, d=depth: x[d], xs), depth)
    stacked_outputs.append(output)
  path, outputs = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *stacked_outputs)
  return Walk(last=state[0], carry=state[1], path=path, outputs=outputs)


def children(node: Node, width: int) -> tuple[jax.Array, jax.Array]:
  """The node's child slots ``[..., width]``: (valid bool, the slots that exist at a live
  node; child int32, the history of each valid slot, 0 elsewhere). ``width`` is static, at
  least the tree's largest ``num_children`` (jaxcfr.kits.sequence_form.tensors.TreeStatics.max_children)."""
  slots = jnp.arange(width, dtype=jnp.int32)
  valid = (slots < node.num_children[..., None]) & node.alive[..., None]
  return valid, jnp.where(valid, node.first_child[..., None] + slots, 0)


class Step(NamedTuple):
  """The decisions of ``play``, each ``[D, G]`` (per step and game).

  Attributes:
    kind: the kind of the history the game was at.
    infoset: its infoset.
    action: the action index taken (jaxcfr.kits.sequence_form.tensors.Tree.action_index of the child).
    active: bool, the game was not over yet.
  """

  kind: jax.Array
  infoset: jax.Array
  action: jax.Array
  active: jax.Array


Probability = Callable[[int, jax.Array, jax.Array, jax.Array], jax.Array]
"""``probability(player, game [G, 1], infoset [G, 1], action [G, K]) -> [G, K]``: the
probability that ``player`` takes ``action`` at ``infoset`` in each game (indices are clipped
to the player's shapes; rows of other players are ignored)."""


def play(
  tensors: GameTensors, probability: Probability, key: jax.Array, *, num_games: int, max_children: int
) -> tuple[jax.Array, Step]:
  """Plays ``num_games`` games from the root, all at once, one depth per step (traceable):
  chance by ``chance_prob``, the players by ``probability`` (a categorical draw per step and
  game, the step's key split from ``key``).

  Args:
    probability: a Probability.
    max_children: the tree's largest ``num_children`` (static).
  Returns:
    (terminals [G], steps): the history each game ended at and the Step of every depth.
  """
  tree = tensors.tree
  games = jnp.arange(num_games)

  def policy(node: Node, key_d, carry):
    valid, child = children(node, max_children)  # [G, K]
    action = tree.action_index[child]
    prob = jnp.where(node.kind[:, None] == CHANCE_NODE, tree.chance_prob[child], 0)
    for player, tp in enumerate(tensors.players):
      row = jnp.clip(node.infoset, 0, tp.num_infosets - 1)[:, None]
      col = jnp.clip(action, 0, tp.max_actions - 1)
      prob = jnp.where(node.kind[:, None] == player, probability(player, games[:, None], row, col), prob)
    prob = jnp.where(valid, prob, 0)
    choice = jax.random.categorical(key_d, jnp.log(prob), axis=1)
    return choice, carry, Step(node.kind, node.infoset, action[games, choice], node.alive)

  keys = jax.random.split(key, len(tree.depth_slices))
  done = walk(tree, policy, keys, root=jnp.zeros(num_games, jnp.int32), unroll=True)
  return done.last, done.outputs
