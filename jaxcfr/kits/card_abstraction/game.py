"""Heads-up limit Texas hold'em as a sampled game: the betting tree on the device, deals
drawn in JAX, and the imperfect-recall card abstraction of Ponsen et al. 2011.

The game is too big for sequence-form tensors (about 10^17 histories), so it is played by
sampling: a batch of deals (``[n, 9]`` cards: player 0's two, player 1's two, five board
cards) and a batch of betting states (nodes of jaxcfr.games.limit_holdem's betting tree,
16,584 nodes of which 6,378 decisions) advanced with gathers. Payoffs are in chips (small
blind 1, big blind 2, small bet 2).

**The card abstraction** (Ponsen et al. 2011, sections 3.3.2 and 4.3.2; Billings 2006):
in each round a player sees only the bucket of their cards (imperfect recall: earlier
rounds' buckets are forgotten). The bucket is an interval of the hand's *expected hand
strength* E[HS] among all hands of that round: the probability of beating a uniformly
random opponent hand at the showdown, ties counting one half, over a uniformly random
completion of the board. We use E[HS], not its square, because the paper's buckets are
of Billings' effective hand strength, a winning probability; the square (E[HS^2]) would
favour drawing hands, which the paper does not do. As in the paper, the buckets cut [0, 1]
into equal-width intervals (``bucketing="width"``, the default); percentiles
(``"percentile"``) put equally many hands in every bucket.

- ``rollouts=0`` (the default): E[HS] exact, by enumeration (jaxcfr.kits.card_abstraction.hand_strength):
  on the river every opponent hand is ranked for each sampled deal (1,326 evaluations);
  the turn, flop and preflop values are read from tables built once over the boards up to
  suit symmetry (about a minute on a CPU core, its progress shown, then cached: a checksummed ``.npz`` of about
  98 MB in the game cache, jaxcfr.base.cache.cache_dir).
- ``rollouts=R > 0``: E[HS] estimated from ``R`` Monte Carlo completions (opponent hand and
  remaining board, drawn among the cards the player cannot see), the faster build for
  tests and sketches. The draws are keyed by a Zobrist hash of the player's visible cards,
  so the estimate, and so the bucket, is a fixed function of what the player sees; preflop
  the 169 classes are exact and their E[HS] is estimated once (``PREFLOP_ROLLOUTS`` per
  class at ``rollouts=64``).
- The percentile cuts of each round are quantiles of E[HS] over ``CUT_DEALS`` sampled deals
  (at ``rollouts=64``; both counts scale with ``rollouts``; exact strengths use
  ``CUT_DEALS``), computed once and cached (a checksummed ``.npz`` in the game cache).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.games import GameInfo, limit_holdem as rules

from jaxcfr.kits.card_abstraction import hand_eval, hand_strength
from jaxcfr.base import cache as cache_lib
from jaxcfr.base import memory, progress
from jaxcfr.kits.card_abstraction.hand_eval import hand_rank

NAME = "card_abstraction"

__all__ = [
  "NAME",
  "BettingArrays",
  "HoldemGame",
  "make",
  "sample_deals",
  "expected_strength",
  "deal_buckets",
  "terminal_utility",
  "showdown_sign",
  "preflop_class",
  "decision_levels",
  "Decision",
  "BettingPolicy",
  "max_depth",
  "walk_betting",
]

PREFLOP_ROLLOUTS = 4096  # per class, at rollouts=64 (scaled with the rollouts)
CUT_DEALS = 8192  # at rollouts=64 (scaled with the rollouts)
BUCKETINGS = rules.BUCKETINGS
_ROLLOUT_SEED = 7  # the abstraction's fixed Monte Carlo draws


class BettingArrays(NamedTuple):
  """The betting tree on the device (see jaxcfr.games.limit_holdem.BettingTree); ``N`` nodes.

  Attributes:
    player, round, terminal, folder: [N] int32.
    contribution: [N, 2] int32 chips.
    child: [N, 3] int32 (-1 illegal).
    legal: [N, 3] bool.
    decision: [N] int32, the node's index among its player's decision nodes (-1 at terminals).
  """

  player: jax.Array
  round: jax.Array
  terminal: jax.Array
  folder: jax.Array
  contribution: jax.Array
  child: jax.Array
  legal: jax.Array
  decision: jax.Array


@dataclasses.dataclass(frozen=True, eq=False)
class HoldemGame:
  """A loaded limit hold'em abstraction (what ``jaxcfr.load('limit_holdem(...)')`` returns).

  Infosets of player ``p`` are ``(decision node of p, current-round bucket)``: the row
  ``decision[node] * buckets + bucket`` of a ``[I_p, 3]`` table, ``I_p = (decision nodes
  of p) * buckets``. The betting node determines the round and the betting sequence.

  Attributes:
    name: the canonical game string.
    buckets, bucketing, rollouts: the abstraction's settings (``rollouts=0``: exact E[HS]).
    tree: host BettingTree; arrays: BettingArrays on the device.
    preflop_strength: [169] E[HS] of the preflop classes.
    cuts: [4, buckets - 1] E[HS] cut points of each round (bucket = cuts below the value).
    num_infosets: (I_0, I_1).
    strength: the exact E[HS] tables (jaxcfr.kits.card_abstraction.hand_strength.StrengthTables) when
      ``rollouts=0``, else None. The game is a pytree whose only leaves are these tables,
      so that jitted functions take them as arguments, not as constants of the program.
    info: (read-only) the GameInfo of the rules (jaxcfr.games.limit_holdem.INFO): poker, in
      small bets.
    representation: (read-only) "card_abstraction".
  """

  name: str
  buckets: int
  bucketing: str
  rollouts: int
  tree: rules.BettingTree
  arrays: BettingArrays
  preflop_strength: jax.Array
  cuts: jax.Array
  num_infosets: tuple
  strength: hand_strength.StrengthTables | None = None

  @property
  def info(self) -> GameInfo:
    return rules.INFO

  @property
  def representation(self) -> str:
    return NAME

  @property
  def tensors(self) -> HoldemGame:
    """The game itself stands in for the tensors the sampled solvers take."""
    return self

  def statistics(self) -> dict:
    t = self.tree
    return {
      "game": self.name,
      "betting_nodes": t.num_nodes,
      "decision_nodes": int((t.terminal == 0).sum()),
      "terminal_nodes": int((t.terminal != 0).sum()),
      "buckets": self.buckets,
      "bucketing": self.bucketing,
      "hand_strength": "exact" if self.rollouts == 0 else f"{self.rollouts} rollouts",
      "strength_table_bytes": sum(x.nbytes for x in self.strength) if self.strength is not None else 0,
      "infosets": list(self.num_infosets),
      "max_actions": 3,
    }

  def __hash__(self):
    return hash(self.name)

  def __eq__(self, other):
    return isinstance(other, HoldemGame) and other.name == self.name


jax.tree_util.register_pytree_node(
  HoldemGame,
  lambda game: ((game.strength,), dataclasses.replace(game, strength=None)),
  lambda shell, leaves: dataclasses.replace(shell, strength=leaves[0]),
)


def preflop_class(cards: jax.Array) -> jax.Array:
  """[...] class 0..168 of two hole cards [..., 2] (jaxcfr.games.limit_holdem.preflop_class in JAX)."""
  r0, r1 = cards[..., 0] // 4, cards[..., 1] // 4
  high, low = jnp.maximum(r0, r1), jnp.minimum(r0, r1)
  suited = (cards[..., 0] % 4) == (cards[..., 1] % 4)
  index = high * (high - 1) // 2 + low
  return jnp.where(high == low, high, jnp.where(suited, 13 + index, 91 + index)).astype(jnp.int32)


def sample_deals(key: jax.Array, num: int) -> jax.Array:
  """[num, 9] int32 deals (player 0's two cards, player 1's two, the five board cards),
  uniform without replacement."""
  u = jax.random.uniform(key, (num, rules.NUM_CARDS))
  return jax.lax.top_k(u, 9)[1].astype(jnp.int32)


_ZOBRIST = np.random.default_rng(20111).integers(0, 2**31 - 1, size=(rules.NUM_CARDS,), dtype=np.int64)


def expected_strength(
  hole: jax.Array,
  board: jax.Array,
  visible: int,
  key: jax.Array,
  rollouts: int,
  dead: jax.Array | None = None,
  by_view: bool = True,
) -> jax.Array:
  """[n] Monte Carlo E[HS] of ``hole`` [n, 2] seeing ``board[:, :visible]`` ([n, 5]; later
  cards ignored): the mean over ``rollouts`` completions (opponent's two cards and the
  unseen board, drawn among the cards not seen) of win + tie / 2.

  The draws are keyed by ``key`` folded with a Zobrist hash of the visible cards (order
  free), so equal views give equal estimates. ``dead`` [n, k], if given, are further cards
  excluded from the draws; with ``by_view=False`` the draws depend on ``key`` alone (tests
  compare two hands against the same completions).
  """
  seen = jnp.concatenate([hole, board[:, :visible]] + ([dead] if dead is not None else []), 1)
  zob = jnp.asarray(_ZOBRIST, jnp.uint32)
  hashed = jax.vmap(lambda row: jnp.bitwise_xor.reduce(zob[row]))(seen[:, : 2 + visible])

  def one(row_seen, h):
    k = jax.random.fold_in(key, visible)
    k = jax.random.fold_in(k, h) if by_view else k
    u = jax.random.uniform(k, (rollouts, rules.NUM_CARDS))
    u = u.at[:, row_seen].set(-1.0)
    return jax.lax.top_k(u, 7 - visible)[1]  # [R, 2 + 5 - visible]

  draws = jax.vmap(one)(seen, hashed).astype(jnp.int32)  # [n, R, 7 - visible]
  full_board = jnp.concatenate(
    [jnp.broadcast_to(board[:, None, :visible], draws.shape[:2] + (visible,)), draws[..., 2:]], -1
  )  # [n, R, 5]
  own = hand_rank(jnp.concatenate([jnp.broadcast_to(hole[:, None], draws.shape[:2] + (2,)), full_board], -1))
  opp = hand_rank(jnp.concatenate([draws[..., :2], full_board], -1))
  return ((own > opp) + 0.5 * (own == opp)).mean(-1)


def _bucket_of(strength: jax.Array, cuts: jax.Array, bucketing: str, buckets: int) -> jax.Array:
  if bucketing == "width":
    return jnp.clip((strength * buckets).astype(jnp.int32), 0, buckets - 1)
  return jnp.searchsorted(cuts, strength, side="right").astype(jnp.int32)


def _strength_rows(hole: jax.Array, board: jax.Array, visible: jax.Array, key: jax.Array, rollouts: int) -> jax.Array:
  """``expected_strength`` for rows that see different numbers of board cards (``visible``
  [M] int), in one call: the same draws (the first ``7 - visible`` of one top-7 draw of the
  same uniforms) and so the same values, with one copy of the evaluator in the program."""
  zob = jnp.asarray(_ZOBRIST, jnp.uint32)
  j = jnp.arange(5)

  def one(h2, b5, k):
    shown = j < k
    hashed = jnp.bitwise_xor.reduce(jnp.concatenate([zob[h2], jnp.where(shown, zob[b5], jnp.uint32(0))]))
    rng = jax.random.fold_in(jax.random.fold_in(key, k), hashed)
    u = jax.random.uniform(rng, (rollouts, rules.NUM_CARDS))
    u = u.at[:, jnp.concatenate([h2, jnp.where(shown, b5, h2[0])])].set(-1.0)
    draws = jax.lax.top_k(u, 7)[1].astype(jnp.int32)  # [R, 7]
    later = jnp.take_along_axis(draws, jnp.clip(2 + j - k, 2, 6)[None].repeat(rollouts, 0), 1)
    full = jnp.where(shown, b5, later)  # [R, 5]
    own = hand_rank(jnp.concatenate([jnp.broadcast_to(h2, (rollouts, 2)), full], -1))
    opp = hand_rank(jnp.concatenate([draws[:, :2], full], -1))
    return ((own > opp) + 0.5 * (own == opp)).mean()

  return jax.vmap(one)(hole, board, visible)


def _strengths(deals: jax.Array, rollouts: int, preflop_strength, tables) -> jax.Array:
  """[n, 2, 4] E[HS] of each player in each round: exact from ``tables`` when ``rollouts`` is
  0, else estimated from ``rollouts`` completions (preflop from ``preflop_strength`` [169])."""
  n = deals.shape[0]
  hole = jnp.stack([deals[:, 0:2], deals[:, 2:4]], 1)  # [n, 2, 2]
  if rollouts == 0:
    return hand_strength.round_strengths(tables, hole, deals[:, 4:])
  rows_hole = jnp.broadcast_to(hole[:, :, None], (n, 2, 3, 2)).reshape(-1, 2)
  rows_board = jnp.broadcast_to(deals[:, None, None, 4:], (n, 2, 3, 5)).reshape(-1, 5)
  visible = jnp.broadcast_to(jnp.asarray(rules.BOARD_CARDS[1:]), (n, 2, 3)).reshape(-1)
  key = jax.random.PRNGKey(_ROLLOUT_SEED)
  later = _strength_rows(rows_hole, rows_board, visible, key, rollouts).reshape(n, 2, 3)
  preflop = preflop_strength[preflop_class(hole)]  # [n, 2]
  return jnp.concatenate([preflop[..., None].astype(later.dtype), later], -1)


@jax.jit
def deal_buckets(game: HoldemGame, deals: jax.Array) -> jax.Array:
  """[n, 2, 4] int32 bucket of each player in each round of ``deals`` [n, 9]."""
  strength = _strengths(deals, game.rollouts, game.preflop_strength, game.strength)
  return jax.vmap(lambda s, c: _bucket_of(s, c, game.bucketing, game.buckets), in_axes=(-1, 0), out_axes=-1)(
    strength, game.cuts
  )


def terminal_utility(arrays: BettingArrays, node: jax.Array, showdown_sign: jax.Array) -> jax.Array:
  """[n] player 0's chips at terminal ``node`` [n]: a fold loses the folder's contribution;
  a showdown wins the opponent's (``showdown_sign`` [n] = sign(rank0 - rank1))."""
  c = arrays.contribution[node]
  folded = arrays.terminal[node] == rules.FOLDED
  fold_value = jnp.where(arrays.folder[node] == 0, -c[:, 0], c[:, 1])
  return jnp.where(folded, fold_value, showdown_sign * c[:, 1]).astype(jnp.float32)


def showdown_sign(deals: jax.Array) -> jax.Array:
  """[n] sign(rank of player 0's hand - player 1's) for deals [n, 9]."""
  board = deals[:, 4:]
  r0 = hand_rank(jnp.concatenate([deals[:, :2], board], -1))
  r1 = hand_rank(jnp.concatenate([deals[:, 2:4], board], -1))
  return jnp.sign(r0 - r1)


def building_bars() -> bool:
  """Whether the table builds draw progress bars: as ``jaxcfr.base.progress.bars`` sets it around
  the load (the command line's ``--progress``/``--no-progress``), else only on a terminal;
  elsewhere (a log) they print a line every few seconds (jaxcfr.base.progress.mode)."""
  return progress.mode() == "bar"


def _preflop_table(rollouts: int) -> np.ndarray:
  """[169] E[HS] of one representative hand of each preflop class."""
  reps = {}
  for a in range(rules.NUM_CARDS):
    for b in range(a + 1, rules.NUM_CARDS):
      reps.setdefault(int(rules.preflop_class(np.array([a, b]))), (a, b))
  hole = jnp.asarray([reps[c] for c in range(169)], jnp.int32)
  board = jnp.zeros((169, 5), jnp.int32)
  out = []
  step = max(1, rollouts // 8)
  for start in progress.steps(range(0, rollouts, step), desc="preflop E[HS]"):
    key = jax.random.PRNGKey(start)
    out.append(np.asarray(expected_strength(hole, board, 0, key, min(step, rollouts - start))))
  return np.mean(out, 0)


def _cuts(buckets: int, rollouts: int, preflop_strength: np.ndarray, tables, num_deals: int) -> np.ndarray:
  """[4, buckets - 1] quantiles of E[HS] per round over ``num_deals`` sampled deals."""
  strengths = []
  chunk = min(512, num_deals)
  run = jax.jit(lambda d, t: _strengths(d, rollouts, jnp.asarray(preflop_strength), t))
  for start in progress.steps(range(0, num_deals, chunk), desc="E[HS] percentiles"):
    deals = sample_deals(jax.random.PRNGKey(1000 + start), chunk)
    strengths.append(np.asarray(run(deals, tables)).reshape(-1, 4))  # [2 chunk, 4]
  values = np.concatenate(strengths)
  q = np.arange(1, buckets) / buckets
  return np.quantile(values, q, axis=0).T.astype(np.float32)


def _cached(name: str, make: Callable[[], dict], folder: str | None, sources: tuple, check=None) -> dict:
  """``make()``'s arrays through the one disk cache (jaxcfr.base.cache) in ``folder`` (None:
  no cache), identified by ``name`` and fingerprinted by the ``sources`` that compute them."""
  identity = {"kit": NAME, "table": name}
  fingerprint = cache_lib.source_hash(*sources)
  return cache_lib.cached(
    name, identity, fingerprint, make, use_cache=folder is not None, check=check, directory=folder
  )


def strength_tables(cache: str | None = None) -> hand_strength.StrengthTables:
  """The exact E[HS] tables (jaxcfr.kits.card_abstraction.hand_strength.build_tables), from the folder
  ``cache`` when intact, else built (about a minute of one core, its progress on a bar or in
  log lines, jaxcfr.base.progress) and written there.
  Raises GameTooLargeError first if three copies of them (host, device, the build's
  temporaries) exceed the memory limit (jaxcfr.base.memory)."""
  memory.check(
    3 * hand_strength.TABLE_BYTES,
    "limit_holdem",
    "its exact E[HS] tables, held three times while loaded; rollouts=R estimates E[HS] without them",
  )

  def build():
    return {k: np.asarray(v) for k, v in hand_strength.build_tables(progress=progress.steps)._asdict().items()}

  data = _cached("limit_holdem_strength", build, cache, (hand_eval, hand_strength), check=hand_strength.check_tables)
  return hand_strength.StrengthTables(**{k: jnp.asarray(data[k]) for k in hand_strength.StrengthTables._fields})


def _preflop_classes(per_hand: np.ndarray) -> np.ndarray:
  """[169] the E[HS] of each preflop class from the per-hand values [1326] (equal in a class)."""
  classes = np.asarray(preflop_class(jnp.asarray(hand_strength.HANDS)))
  return np.bincount(classes, per_hand, 169) / np.bincount(classes, minlength=169)


def _abstraction_tables(buckets: int, bucketing: str, rollouts: int, cache: str | None):
  """(preflop E[HS] [169], cuts [4, buckets - 1], exact tables or None), from the cache
  folder ``cache`` when intact."""
  tables = strength_tables(cache) if rollouts == 0 else None
  if tables is not None:
    preflop = _preflop_classes(np.asarray(tables.preflop))
  else:
    make = lambda: {"preflop": _preflop_table(PREFLOP_ROLLOUTS * rollouts // 64)}
    preflop = _cached(f"limit_holdem_preflop-r{rollouts}", make, cache, (rules, hand_eval, _preflop_table))["preflop"]
  if bucketing == "width":
    cuts = np.broadcast_to(np.arange(1, buckets, dtype=np.float32) / buckets, (4, buckets - 1))
  else:
    deals = CUT_DEALS if rollouts == 0 else CUT_DEALS * rollouts // 64
    make = lambda: {"cuts": _cuts(buckets, rollouts, preflop, tables, deals)}
    sources = (rules, hand_eval, hand_strength, _preflop_table)
    cuts = _cached(f"limit_holdem_cuts-b{buckets}-r{rollouts}", make, cache, sources)["cuts"]
  return preflop, np.asarray(cuts), tables


def betting_arrays(tree: rules.BettingTree) -> BettingArrays:
  """The device copy of the betting tree."""
  decision = np.full(tree.num_nodes, -1, np.int32)
  for p in (0, 1):
    nodes = np.flatnonzero(tree.player == p)
    decision[nodes] = np.arange(nodes.size)
  return BettingArrays(
    player=jnp.asarray(tree.player),
    round=jnp.asarray(tree.round),
    terminal=jnp.asarray(tree.terminal),
    folder=jnp.asarray(tree.folder),
    contribution=jnp.asarray(tree.contribution),
    child=jnp.asarray(tree.child),
    legal=jnp.asarray(tree.child >= 0),
    decision=jnp.asarray(decision),
  )


@functools.cache
def make(buckets: int = 10, bucketing: str = "width", rollouts: int = 0, cache: str | None = None) -> HoldemGame:
  """``limit_holdem(buckets=B, bucketing=..., rollouts=R)``: the abstract game (see module
  doc; ``rollouts=0``, the default, is exact E[HS]); its abstraction tables are read from
  and written to the folder ``cache`` if given (``jaxcfr.load`` passes the game cache,
  jaxcfr.base.cache.cache_dir)."""
  if not isinstance(buckets, int) or not 2 <= buckets <= 1000:
    raise ValueError(f"limit_holdem: buckets must be an integer in 2..1000, got {buckets!r}")
  if bucketing not in BUCKETINGS:
    raise ValueError(f"limit_holdem: bucketing must be one of {', '.join(BUCKETINGS)}, got {bucketing!r}")
  if not isinstance(rollouts, int) or not 0 <= rollouts <= 4096:
    raise ValueError(f"limit_holdem: rollouts must be an integer in 0..4096 (0: exact E[HS]), got {rollouts!r}")
  tree = rules.betting_tree()
  preflop, cuts, tables = _abstraction_tables(buckets, bucketing, rollouts, None if cache is None else str(cache))
  arrays = betting_arrays(tree)
  counts = tuple(int((tree.player == p).sum()) * buckets for p in (0, 1))
  params = {"buckets": buckets, "bucketing": bucketing, "rollouts": rollouts}
  name = "limit_holdem(" + ",".join(f"{k}={params[k]}" for k in sorted(params)) + ")"
  return HoldemGame(
    name=name,
    buckets=buckets,
    bucketing=bucketing,
    rollouts=rollouts,
    tree=tree,
    arrays=arrays,
    preflop_strength=jnp.asarray(preflop, jnp.float32),
    cuts=jnp.asarray(cuts, jnp.float32),
    num_infosets=counts,
    strength=tables,
  )


@functools.cache
def decision_levels(game: HoldemGame) -> tuple:
  """The decision nodes grouped by depth (actions from the root), shallowest first: host
  int arrays, the static levels of the top-down and bottom-up passes over the betting tree."""
  depth = np.array([len(h.replace("/", "")) for h in game.tree.history.tolist()])
  decisions = game.tree.terminal == rules.NOT_TERMINAL
  return tuple(
    np.flatnonzero(decisions & (depth == d)) for d in range(depth.max() + 1) if (decisions & (depth == d)).any()
  )


class Decision(NamedTuple):
  """A betting node that one deal's walk reached (each ``[]``, or ``[3]`` for ``legal``).

  Attributes:
    node: int32, the betting node.
    player: int32, its acting player as the tree records it (not 0 or 1 at terminals).
    seat: int32, ``player`` clipped to 0 or 1: whose table ``row`` indexes.
    alive: bool, the node is not terminal.
    row: int32, the acting player's infoset row ``decision[node] * buckets + bucket`` (the
      current round's bucket of the deal; meaningless at terminals).
    legal: [3] bool, fold, call, raise.
  """

  node: jax.Array
  player: jax.Array
  seat: jax.Array
  alive: jax.Array
  row: jax.Array
  legal: jax.Array


BettingPolicy = Callable[[Decision, Any], tuple[jax.Array, Any]]
"""``policy(decision, x) -> (action, output)``: at a Decision, with this step's input ``x``
(a slice of the walk's ``xs``), the action [] int32 (0 fold, 1 call, 2 raise; ignored at
terminals) and an output pytree stacked over the steps."""


def max_depth(tree: rules.BettingTree) -> int:
  """The most actions in one hand (the length of a walk that always ends at a terminal)."""
  return max(len(h.replace("/", "")) for h in tree.history.tolist())


def walk_betting(game: HoldemGame, buckets: jax.Array, policy: BettingPolicy, xs: Any) -> tuple[jax.Array, Any]:
  """One deal's walk from the root of the betting tree, one action per leading entry of
  ``xs`` (one ``lax.scan``; give ``max_depth(game.tree)`` steps to reach a terminal): each
  step reads the node's Decision, asks ``policy`` for the action and moves to that child;
  terminals stay put. The betting-tree counterpart of jaxcfr.kits.sequence_form.walk, shared by the
  sampled solvers (jaxcfr.solvers.holdem_cfr and sampled_search).

  Args:
    buckets: [2, 4] int32, each player's bucket in each round of the deal (``deal_buckets``).
    policy: a BettingPolicy.
    xs: the per-step inputs, a pytree of ``[D, ...]`` arrays (e.g. uniforms).
  Returns:
    (last, outputs): the node reached ([] int32) and the policy's outputs stacked to ``[D, ...]``.
  """
  arrays = game.arrays

  def step(h, x):
    player = arrays.player[h]
    seat = jnp.clip(player, 0, 1)
    row = jnp.maximum(arrays.decision[h], 0) * game.buckets + buckets[seat, arrays.round[h]]
    alive = arrays.terminal[h] == rules.NOT_TERMINAL
    action, output = policy(Decision(h, player, seat, alive, row, arrays.legal[h]), x)
    return jnp.where(alive, arrays.child[h, action], h), output

  return jax.lax.scan(step, jnp.int32(0), xs)
