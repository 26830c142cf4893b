"""The kits: one per representation of games, and the one place that knows their set.

A **kit** holds everything specific to one representation (its package under jaxcfr.kits):
how a game is built and cached, the device pytree its solvers take, its array operations, its
evaluator, its strategy file format and its conformance check. Everything above the kits
reaches them through this registry and the ``Kit`` record, never through ``if representation
== ...``: adding a representation is one new kit package and one ``register`` line in
jaxcfr/kits/__init__.py (docs/design.md shows a worked example).

A game's rules declare the kits that can build them (``GameInfo.representations``, default
first; OpenSpiel's games: the sequence form). ``load`` parses the game string once
(``source``), asks the rules, and calls the chosen kit's ``load``.

    >>> import jaxcfr
    >>> jaxcfr.kits.representations_of("leduc_poker")
    ('sequence_form', 'public_tree')
    >>> game = jaxcfr.load("kuhn_poker", representation="public_tree")
    >>> game.representation, jaxcfr.kits.of_game(game).name
    ('public_tree', 'public_tree')
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, Protocol

from jaxcfr.base import openspiel
from jaxcfr.base.game_strings import UnknownGameError, canonical_name, parse_game_string
from jaxcfr.games import GAMES, GameError, GameInfo, OpenSpielVariant

__all__ = [
  "Kit",
  "GameSource",
  "Evaluator",
  "CFROperations",
  "register",
  "get",
  "names",
  "of_game",
  "of_tensors",
  "source",
  "representations_of",
  "representation_of",
  "load",
]


@dataclasses.dataclass(frozen=True)
class GameSource:
  """A game string parsed once: what a kit builds from.

  Attributes:
    name: the canonical game string (parameters sorted; ``openspiel:...`` for OpenSpiel's).
    rules: the rules object (native rules, or ``jaxcfr.base.openspiel.OpenSpielRules``).
    info: what the rules declare (``rules.info``).
  """

  name: str
  rules: Any
  info: GameInfo


class Evaluator(Protocol):
  """What the driver measures on a schedule: ``evaluator(solver, tensors, state, iteration)
  -> {name: value}`` (each ``[*B]`` for a batch of runs), with ``headline`` (the metric the
  progress bar shows: the larger over a batch when ``worst`` is "max", the smaller when
  "min") and ``describe(solver) -> dict`` (what the record says was measured)."""

  headline: str
  worst: str

  def describe(self, solver) -> dict: ...

  def __call__(self, solver, tensors, state, iteration: int) -> dict: ...


class CFROperations(Protocol):
  """The array operations the CFR family is written against (jaxcfr.solvers.cfr), one
  implementation per exact kit. A strategy table of player ``i`` is ``[N_i, A, *E, *B]``: rows
  (infosets, or public decision nodes), action slots, the kit's extra axes ``E`` (the public
  tree's hands) and the runs' batch axes ``B``; a reach ``R`` is whatever the kit propagates
  (a realization plan ``[S, *B]``, ranges ``[N, H, *B]``).

  - ``batch_shape(tensors)``: the batch axes the tensors carry themselves (a batch of
    subgames' ranges), else ``()``.
  - ``uniform(tensors, player) -> [N, A, *E]``.
  - ``legal(tensors, player, ndim)``: the legal mask, broadcastable to a table of ``ndim`` axes.
  - ``reach(tensors, player, strategy, root=None) -> R``: the player's reach (``root``: its
    reach at the root, where the kit has one, e.g. the public tree's ranges).
  - ``decision_reach(tensors, player, reach) -> [N, *E, *B]``: the player's own reach of each row.
  - ``context(tensors, reaches, kit_state) -> (context, kit_state)``: what both players'
    reaches decide before a player's values (a depth-limited tree's leaf values), and the
    kit's state carried through a run (a leaf solver's).
  - ``values(tensors, player, strategy, opponent_reach, context) -> (q, v, node_values)``:
    action values ``[N, A, *E, *B]`` (0 at illegal slots), row values ``[N, *E, *B]``, and
    the values at every node that a run may keep (or None).
  - ``kept_values(tensors, batch, keep_values)``: the zeros of the values a run keeps (the
    public tree's, at the root or at every node), or ``()``.
  - ``init_leaf_state(tensors, batch)``: a leaf solver's state, or ``()``.
  """

  def batch_shape(self, tensors) -> tuple: ...

  def uniform(self, tensors, player: int): ...

  def legal(self, tensors, player: int, ndim: int): ...

  def reach(self, tensors, player: int, strategy, root=None): ...

  def decision_reach(self, tensors, player: int, reach): ...

  def context(self, tensors, reaches, kit_state) -> tuple: ...

  def values(self, tensors, player: int, strategy, opponent_reach, context) -> tuple: ...

  def kept_values(self, tensors, batch: tuple, keep_values: bool): ...

  def init_leaf_state(self, tensors, batch: tuple): ...


@dataclasses.dataclass(frozen=True)
class Kit:
  """One representation of games.

  Attributes:
    name: the representation's name (``jaxcfr.load(..., representation=name)``, the solvers'
      registrations, the command line's ``--representation``).
    summary: one line: what the representation is.
    load: ``load(source, *, dtype, use_cache) -> game``, a loaded game with ``name``,
      ``info``, ``representation`` (this kit's name), ``tensors`` and ``statistics()``.
    tensors_type: the type of ``game.tensors`` (the pytree the kit's solvers take).
    evaluator: ``evaluator(game, extra=None) -> Evaluator``; ``extra(profile) -> dict``, the
      game's own metrics, where the kit takes them.
    save_strategy: ``save_strategy(path, game, profile)``, or None when profiles of this
      kit cannot be saved (refused before any solve).
    load_strategy: ``load_strategy(path, data, game, batch_index)`` given the verified arrays
      ``data`` of a strategy file whose ``representation`` member is this kit's.
    check_game: the conformance check of a loaded game (jaxcfr.testing.check_game).
    check_profile: ``check_profile(tensors, profile)``: ValueError unless ``profile`` is a valid
      profile of the game (shapes, probabilities over the legal actions), batch axes allowed.
    uniform_profile: ``uniform_profile(tensors) -> profile``, each player uniform.
    example: a small game string of this kit, for conformance checks.
    best_response_values: ``(tensors, profile) -> [2, *B]`` each player's exact best-response
      value, or None for a kit without exact best responses.
    expected_value: ``(tensors, profile) -> [*B]`` player 0's exact expected payoff, or None.
    default_model: ``default_model(game) -> profile``, the opponent model that a restricted
      solver (one that requires ``model``, such as mcrnr) plays against when none is given
      (the card abstraction: its rule bot), or None where a model must be given (the command
      line's ``rnr``).
    operations: ``operations(**options) -> CFROperations`` for an exact kit, else None.
    operation_options: the declared options of ``operations`` (jaxcfr.solvers.Param).
  """

  name: str
  summary: str
  load: Callable
  tensors_type: type
  evaluator: Callable
  save_strategy: Callable | None
  load_strategy: Callable | None
  check_game: Callable
  check_profile: Callable
  uniform_profile: Callable
  example: str
  best_response_values: Callable | None = None
  expected_value: Callable | None = None
  default_model: Callable | None = None
  operations: Callable | None = None
  operation_options: tuple = ()


_KITS: dict[str, Kit] = {}


def register(kit: Kit) -> Kit:
  """Registers ``kit`` under its name (once)."""
  if kit.name in _KITS:
    raise ValueError(f"a kit named {kit.name!r} is already registered")
  _KITS[kit.name] = kit
  return kit


def names() -> tuple[str, ...]:
  """The registered representations, in registration order."""
  return tuple(_KITS)


def get(name) -> Kit:
  """The kit of representation ``name``; GameError naming the registered ones otherwise."""
  kit = _KITS.get(str(name))
  if kit is None:
    raise GameError(f"unknown representation {name!r}; choose one of {', '.join(_KITS)}")
  return kit


def of_game(game) -> Kit:
  """The kit of a loaded game."""
  return get(game.representation)


def of_tensors(tensors) -> Kit:
  """The kit whose solvers take ``tensors`` (found by the pytree's type)."""
  for kit in _KITS.values():
    if isinstance(tensors, kit.tensors_type):
      return kit
  raise TypeError(f"no kit takes tensors of type {type(tensors).__name__}")


def _native_rules(name: str, params: dict):
  """The rules object of a native game (GameError naming the parameters on a bad one)."""
  factory = GAMES[name]
  try:
    return factory(**params)
  except TypeError as error:
    allowed = list(inspect.signature(factory).parameters)
    raise GameError(f"unknown parameter for {name}: {sorted(params)}; its parameters are {allowed}") from error


def source(game_string: str) -> GameSource:
  """Parses ``game_string`` once and makes its rules: a native game's (``jaxcfr.games.GAMES``),
  or OpenSpiel's for another name (or any ``openspiel:NAME(...)``, or a native name whose
  parameters name an OpenSpiel variant)."""
  text = game_string.strip()
  force_openspiel = text.startswith("openspiel:")
  body = text[len("openspiel:") :] if force_openspiel else text
  name, params = parse_game_string(body)
  if not force_openspiel and name in GAMES:
    try:
      rules = _native_rules(name, params)
    except OpenSpielVariant as error:
      if not openspiel.available():
        raise GameError(f"{body} is OpenSpiel's variant: {error}; it needs OpenSpiel (pip install 'jaxcfr[openspiel]')")
      return source(f"openspiel:{body}")
    info = getattr(rules, "info", None) or GameInfo()
    if not isinstance(info, GameInfo):
      raise GameError(f"the rules of {name} declare info of type {type(info).__name__}, not a GameInfo")
    return GameSource(canonical_name(getattr(rules, "name", name), getattr(rules, "params", params)), rules, info)
  if force_openspiel and openspiel.available() and name not in openspiel.registered_names():
    raise UnknownGameError(f"unknown OpenSpiel game {name!r} in {text!r}")
  if force_openspiel or name in openspiel.registered_names():
    string = canonical_name(name, params)
    rules = openspiel.OpenSpielRules(string, f"openspiel:{string}", params)
    return GameSource(rules.name, rules, rules.info)
  hint = "" if openspiel.available() else " (other names resolve through OpenSpiel: pip install 'jaxcfr[openspiel]')"
  raise UnknownGameError(f"unknown game {name!r}; native games: {sorted(GAMES)}{hint}")


def _source(game) -> GameSource:
  return game if isinstance(game, GameSource) else source(game)


def representations_of(game) -> tuple[str, ...]:
  """The representations a game string (or GameSource) can be loaded in, its default first
  (the rules' declaration; nothing is built)."""
  return tuple(_source(game).info.representations)


def representation_of(game, requested=None, *, runs: int | None = None) -> str:
  """The representation ``load(game, representation=requested, runs=runs)`` returns (nothing
  is built); GameError naming the game's representations when it has not the one requested.
  With none requested: the first declared, or the public tree where the game has both exact
  representations and declares that the public tree is the faster for batches of ``runs``
  (``GameInfo.public_tree_runs``)."""
  found = _source(game)
  available = tuple(found.info.representations)
  if requested is None:
    threshold = found.info.public_tree_runs
    if runs is not None and threshold is not None and runs >= threshold and "public_tree" in available:
      return "public_tree"
    return available[0]
  get(requested)  # a known representation
  if str(requested) not in available:
    raise GameError(f"{found.name} has no {requested} representation; it has: {', '.join(available)}")
  return str(requested)


def load(game_string: str, *, dtype=None, use_cache: bool = True, representation=None, runs: int | None = None):
  """Loads a game by its OpenSpiel-style string, e.g. ``load("one_card_poker(num_cards=13)")``.

  Args:
    game_string: ``name``, ``name(key=value,...)`` or ``openspiel:name(...)``.
    dtype: float dtype of the tensors (default: jax's default float, float32 unless
      ``jax_enable_x64`` is on).
    use_cache: read and write the on-disk cache of built arrays (jaxcfr.base.cache).
    representation: a kit's name ("sequence_form", "public_tree", "card_abstraction"), or
      None for the game's default (``representation_of``).
    runs: the number of runs the game will be solved with as one batch, if known: with no
      ``representation`` given, a game with both exact representations loads the one that
      is faster for that many runs.
  Returns:
    the kit's game (jaxcfr.kits.sequence_form.Game, jaxcfr.kits.public_tree.PublicTreeGame,
    jaxcfr.kits.card_abstraction.HoldemGame): each has ``name``, ``info``,
    ``representation`` and ``tensors`` (what its solvers take).

  Examples:
    >>> import jaxcfr
    >>> jaxcfr.load("one_card_poker(num_cards=13)").name
    'one_card_poker(num_cards=13)'
    >>> game = jaxcfr.load("leduc_poker", representation="public_tree")
    >>> game.representation, game.tensors.num_hands
    ('public_tree', 6)
  """
  found = source(game_string)
  kit = get(representation_of(found, representation, runs=runs))
  return kit.load(found, dtype=dtype, use_cache=use_cache)
