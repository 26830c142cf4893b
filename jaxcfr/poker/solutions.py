"""Solved poker spots, saved with their spot and read back without solving again.

A ``Solution`` is a spot (jaxcfr.games.spots.Spot: board, pot, stacks, ranges, bet tree), its
public tree and both players' average strategies. ``save`` writes it as one checksummed ``.npz``
(the spot as JSON, the strategies in float32 or, with ``compact``, 16 bits per probability, and a
fingerprint of the tree); ``load`` verifies the file, rebuilds the tree from the spot (seconds)
and checks that it is the tree the strategies were solved on.

    >>> from jaxcfr.games.spots import Spot
    >>> from jaxcfr.poker import solutions
    >>> spot = Spot.from_endgame(4)
    >>> solved = solutions.solve(spot, "dcfr", 100)
    >>> round(solved.exploitability_pot_percent, 1) < 1.0
    True
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import jax
import numpy as np

from jaxcfr import solvers
from jaxcfr.base import integrity, units
from jaxcfr.games import GameInfo
from jaxcfr.games.spots import Spot
from jaxcfr.kits import public_tree
from jaxcfr.kits.public_tree import values as ops

__all__ = ["FORMAT", "POKER_DEFAULT", "Solution", "game_of", "exploitability_of", "solve", "save", "load"]

FORMAT = "jaxcfr-solution"
_VERSION = 1
# The poker tools' solver: postflop-solver's DCFR, the fewest iterations to 0.5, 0.3 and 0.1% of
# the pot on Libratus endgames 2, 3 and 4 of the four presets compared (benchmarks/dcfr_presets.py)
POKER_DEFAULT = "dcfr-pfs"
_SCALE = 65535  # 16-bit probabilities: round(p * 65535), renormalised when read


@dataclasses.dataclass(frozen=True)
class Solution:
  """A solved spot.

  Attributes:
    spot: the Spot.
    game: the PublicTreeGame (its tree and device tensors).
    profile: both players' average strategies, ``[N_p, A, H]`` NumPy arrays.
    algorithm, iterations: how it was solved.
    exploitability: NashConv / 2 of the profile, in chips.
  """

  spot: Spot
  game: public_tree.PublicTreeGame
  profile: tuple
  algorithm: str
  iterations: int
  exploitability: float

  @property
  def exploitability_pot_percent(self) -> float:
    return float(units.pot_percent(self.exploitability, self.game.info))


def game_of(spot: Spot, dtype=None, *, hands_in_play: bool = True) -> public_tree.PublicTreeGame:
  """The spot's game on the public tree (named by a digest of the spot, which identifies it).
  ``hands_in_play``: the tree holds only the hands in either range (smaller and faster: the
  solver's arrays cover ``tree.hands``, and ``tree.on_deck`` spreads them over the 1,326);
  False keeps every hand, so that the trees of several boards stack as one batch."""
  text = json.dumps(spot.to_dict(), sort_keys=True)
  name = f"spot:{hashlib.sha256(text.encode()).hexdigest()[:16]}"
  info = GameInfo(
    payoff_unit="chips",
    is_poker=True,
    big_blind=float(spot.big_blind),
    pot=float(spot.pot),
    representations=("public_tree",),
  )
  tree = public_tree.build(spot.rules(hands_in_play))
  return public_tree.PublicTreeGame(name=name, info=info, tree=tree, tensors=public_tree.to_device(tree, dtype))


def exploitability_of(game, profile) -> float:
  """NashConv / 2 of ``profile`` on ``game``'s public tree, in chips."""
  return float(jax.jit(ops.exploitability)(game.tensors, tuple(np.asarray(s, game.tensors.dtype) for s in profile)))


def solve(
  spot: Spot,
  algorithm: str = POKER_DEFAULT,
  iterations: int = 1000,
  *,
  target: float | None = None,
  check_every: int = 50,
  on_check=None,
  dtype=None,
  settings=None,
  game=None,
) -> Solution:
  """Solves ``spot`` with ``algorithm`` (a registered solver of the public tree: the CFR family,
  or ``locked`` with ``settings={"lock": ...}``) for ``iterations`` iterations, or until the
  exploitability is at most ``target`` % of the pot, checked every ``check_every`` iterations
  (then ``on_check(iterations done, exploitability in % of the pot)`` is called). ``game``: the
  spot's ``game_of``, when it is built already."""
  if iterations < 1 or check_every < 1:
    raise ValueError(f"iterations and check_every must be >= 1, got {iterations} and {check_every}")
  if target is not None and not target > 0:
    raise ValueError(f"target must be a positive percentage of the pot, got {target}")
  game = game_of(spot, dtype) if game is None else game
  settings = dict(settings or {})
  options, hyperparameters = solvers.split_settings(algorithm, "public_tree", settings)
  solver = solvers.get(algorithm, "public_tree", **options)
  state = solver.init(game.tensors, **hyperparameters)
  checked = target is not None or on_check is not None
  done = 0
  while done < iterations:
    chunk = min(check_every, iterations - done) if checked else iterations
    state = solver.run(game.tensors, state, chunk)
    done += chunk
    profile = tuple(np.asarray(s) for s in solver.average_strategy(game.tensors, state))
    if not checked:
      break
    percent = float(units.pot_percent(exploitability_of(game, profile), game.info))
    if on_check is not None:
      on_check(done, percent)
    if target is not None and percent <= target:
      break
  return Solution(spot, game, profile, algorithm, done, exploitability_of(game, profile))


def _fingerprint(tree) -> str:
  """A digest of the tree's shape and actions: what the stored strategies' rows mean."""
  digest = hashlib.sha256()
  for array in (tree.kind, tree.player, tree.parent, tree.action, tree.action_ids, tree.contribution):
    digest.update(np.ascontiguousarray(array).tobytes())
  return digest.hexdigest()[:32]


def save(path, solution: Solution, *, compact: bool = False) -> None:
  """Writes ``solution`` to ``path`` (checksummed ``.npz``); ``compact``: 16 bits a probability."""
  arrays = {
    "format": np.array(FORMAT),
    "version": np.array(_VERSION),
    "spot": np.array(json.dumps(solution.spot.to_dict(), sort_keys=True)),
    "tree": np.array(_fingerprint(solution.game.tree)),
    "algorithm": np.array(solution.algorithm),
    "iterations": np.array(solution.iterations),
    "exploitability": np.array(solution.exploitability),
    "compact": np.array(compact),
    "hands_in_play": np.array(bool(solution.game.tree.rules.hands_in_play)),
  }
  for p, strategy in enumerate(solution.profile):
    strategy = np.asarray(strategy, np.float64)
    arrays[f"player{p}"] = np.round(strategy * _SCALE).astype(np.uint16) if compact else strategy.astype(np.float32)
  with open(path, "wb") as file:
    np.savez(file, **integrity.with_checksum(arrays))


def load(path, *, dtype=None) -> Solution:
  """The Solution saved at ``path``: checksum, format, the spot, and the tree it rebuilds all
  verified (ValueError naming the file and the problem)."""
  data = integrity.read_arrays(path, "solution file")
  if str(data.get("format")) != FORMAT:
    raise ValueError(f"{path} is not a solution file (format {data.get('format')!r})")
  if int(data["version"]) != _VERSION:
    raise ValueError(f"{path} is a solution file of version {int(data['version'])}; this jaxcfr reads {_VERSION}")
  try:
    spot = Spot.from_dict(json.loads(str(data["spot"])), str(path))
  except (ValueError, json.JSONDecodeError) as error:
    raise ValueError(f"{path}: its spot does not read back: {error}") from None
  game = game_of(spot, dtype, hands_in_play=bool(data.get("hands_in_play", False)))  # absent: every hand
  if str(data["tree"]) != _fingerprint(game.tree):
    raise ValueError(f"{path} was solved on another tree than its spot builds (another jaxcfr version's betting?)")
  profile = []
  for p in (0, 1):
    stored = np.asarray(data[f"player{p}"])
    if stored.shape != game.tree.action_ids[game.tree.decision_nodes(p)].shape + (game.tree.num_hands,):
      raise ValueError(f"{path}: player {p}'s strategy has shape {stored.shape}, not the tree's")
    if bool(data["compact"]):
      stored = stored.astype(np.float64) / _SCALE
      total = stored.sum(1, keepdims=True)
      stored = np.where(total > 0, stored / np.where(total > 0, total, 1), stored)
    profile.append(stored.astype(np.float32 if dtype in (None, "float32", np.float32) else np.float64))
  public_tree.check_profile(game.tensors, profile, tolerance=1e-3)
  return Solution(
    spot, game, tuple(profile), str(data["algorithm"]), int(data["iterations"]), float(data["exploitability"])
  )
