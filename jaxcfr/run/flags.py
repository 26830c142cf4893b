"""The command line's settings, declared once per subcommand and turned into flags here.

Every setting of every subcommand is a ``Flag``: a ``jaxcfr.base.params.Param`` (name, kind,
default, allowed values or bounds, help; a batchable number is a comma-separated list), as
the solvers declare theirs, and how the command line spells it (positional or not, metavar,
the settings it needs, whether it names an output file). ``add_flags`` makes the argparse
arguments from the declarations, with types that check kinds and bounds as the text is read;
``settings`` turns the parsed arguments into one settings object (a namespace: every setting
by its declared name) that the command hands on (as ``driver.RunSettings``, a job's settings); ``check_needs`` and ``check_outputs`` check the
settings that depend on each other, and the output files, before any work. The solvers' own
settings become flags too (``solver_flags``, ``solver_settings``), from their registrations.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import types
from collections.abc import Callable

from jaxcfr import solvers
from jaxcfr.base.params import Param

__all__ = [
  "Flag",
  "Command",
  "Formatter",
  "add_flags",
  "settings",
  "check_needs",
  "check_outputs",
  "integer",
  "floats",
  "ints",
  "declared_solver_flags",
  "solver_flags",
  "solver_settings",
]


@dataclasses.dataclass(frozen=True)
class Flag:
  """One setting of a subcommand.

  Attributes:
    param: what the setting is: its name (the attribute of the settings object), kind, default,
      choices or bounds, and help (a batchable number: a comma-separated list of them).
    flag: how it is spelled ("--iters" for ``iterations``); default ``param.flag``; None for
      a positional argument.
    nargs: a positional argument's count: "?" (optional, the default when absent) or "+".
    metavar: the value's name in the help.
    const: the value of an optional flag given without one (``info --json``: standard output).
    needs: the name of a setting this one needs (``resume`` needs ``checkpoint``).
    output: the setting names a file the command writes: checked writable, and not named by
      another output, before any work.
    required: the flag must be given.
    parse: ``parse(text) -> value`` for a kind the declaration cannot check alone (a memory
      size); ValueError on bad text.
  """

  param: Param
  flag: str | None = ""
  nargs: str | None = None
  metavar: str | None = None
  const: object = None
  needs: str | None = None
  output: bool = False
  required: bool = False
  parse: Callable | None = None

  @property
  def name(self) -> str:
    return self.param.name

  @property
  def spelled(self) -> str:
    """The flag as written (a positional argument: its name)."""
    if self.flag is None:
      return self.param.name
    return self.flag or self.param.flag


@dataclasses.dataclass(frozen=True)
class Command:
  """A subcommand: its name, one line of help, its declared flags (in groups: title -> flags,
  the title "" for the main group), its handler ``handler(settings) -> exit status``, and an
  optional ``extend(parser)`` that adds flags generated from other declarations (the solvers')."""

  name: str
  help: str
  groups: dict
  handler: Callable
  epilog: str | None = None
  extend: Callable | None = None

  @property
  def flags(self) -> tuple:
    return tuple(flag for group in self.groups.values() for flag in group)


class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
  """Shows an argument's default where it has one worth showing."""

  def _get_help_string(self, action):
    if action.default in (None, False, argparse.SUPPRESS) or "(default" in (action.help or ""):
      return action.help
    return super()._get_help_string(action)


def floats(text: str) -> list[float]:
  """An argparse type: comma-separated finite numbers."""
  try:
    values = [float(v) for v in text.split(",")]
  except ValueError:
    raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
  if not all(math.isfinite(v) for v in values):
    raise argparse.ArgumentTypeError(f"expected finite numbers, got {text!r}")
  return values


def ints(text: str) -> list[int]:
  """An argparse type: comma-separated integers."""
  try:
    return [int(v) for v in text.split(",")]
  except ValueError:
    raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def integer(minimum: int | None, maximum: int | None = None) -> Callable[[str], int]:
  """An argparse type: an integer of at least ``minimum`` (and at most ``maximum``)."""
  if minimum is None:
    kind = "an integer"
  elif maximum is not None:
    kind = f"an integer in [{minimum}, {maximum:,}]"
  else:
    kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"

  def parse(text: str) -> int:
    try:
      value = int(text)
    except ValueError:
      raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
      raise argparse.ArgumentTypeError(f"expected {kind}, got {value}")
    return value

  return parse


def _number(param: Param) -> Callable[[str], float]:
  """An argparse type: a finite number within the declared bounds."""
  low = -math.inf if param.low is None else param.low
  high = math.inf if param.high is None else param.high
  bounds = "" if (param.low, param.high) == (None, None) else f" in [{low}, {high}]"

  def parse(text: str) -> float:
    try:
      value = float(text)
    except ValueError:
      raise argparse.ArgumentTypeError(f"expected a number{bounds}, got {text!r}") from None
    if not math.isfinite(value) or not low <= value <= high:
      raise argparse.ArgumentTypeError(f"expected a finite number{bounds}, got {text!r}")
    return value

  return parse


def _parsed(parse: Callable) -> Callable[[str], object]:
  def typed(text: str):
    try:
      return parse(text)
    except ValueError as error:
      raise argparse.ArgumentTypeError(str(error)) from None

  return typed


def _type(flag: Flag):
  param = flag.param
  if flag.parse is not None:
    return _parsed(flag.parse)
  if param.batchable:
    return ints if param.kind is int else floats
  if param.kind == "ints":
    return ints
  if param.kind is int:
    return integer(None if param.low is None else int(param.low), None if param.high is None else int(param.high))
  if param.kind is float:
    return _number(param)
  return None


def add_flags(parser, flags) -> None:
  """One argparse argument per declared ``Flag``, typed and checked by its declaration."""
  for flag in flags:
    param = flag.param
    default = list(param.default) if isinstance(param.default, tuple) else param.default
    options = {"help": param.help.replace("%", "%%")}
    if flag.metavar:
      options["metavar"] = flag.metavar
    if param.kind is bool:
      action = "store_true" if param.default is False else argparse.BooleanOptionalAction
      options.pop("metavar", None)
      parser.add_argument(flag.spelled, dest=param.name, action=action, default=param.default, **options)
      continue
    kind = _type(flag)
    if kind is not None:
      options["type"] = kind
    if param.choices:
      options["choices"] = list(param.choices)
    if flag.flag is None:
      parser.add_argument(param.name, nargs=flag.nargs, default=default, **options)
      continue
    if flag.const is not None:
      options.update(nargs="?", const=flag.const)
    parser.add_argument(flag.spelled, dest=param.name, default=default, required=flag.required, **options)


def settings(args: argparse.Namespace, **more) -> types.SimpleNamespace:
  """The one settings object of a command: every declared setting by its name (a batchable
  setting's as a list, the solvers' generated flags None when not given), and ``more`` (the
  command line itself, as ``argv``)."""
  return types.SimpleNamespace(**vars(args), **more)


def check_needs(values, flags) -> None:
  """ValueError naming the first setting given without one it needs (``--resume`` without
  ``--checkpoint``)."""
  by_name = {flag.name: flag for flag in flags}
  for flag in flags:
    if flag.needs and getattr(values, flag.name) not in (None, False) and getattr(values, flag.needs) is None:
      other = by_name[flag.needs]
      raise ValueError(f"{flag.spelled} needs {other.spelled} {other.metavar or other.name.upper()}")


def check_outputs(values, flags) -> None:
  """Each output file given can be written, and no two flags name the same file."""
  from jaxcfr.run.checkpoint import check_writable  # pylint: disable=import-outside-toplevel

  seen = {}
  for flag in flags:
    path = getattr(values, flag.name)
    if not flag.output or not path or path == flag.const:
      continue
    check_writable(path, flag.spelled)
    resolved = os.path.realpath(path)
    if resolved in seen:
      raise ValueError(f"{seen[resolved]} and {flag.spelled} name the same file {path}; give each its own")
    seen[resolved] = flag.spelled


def declared_solver_flags(registrations=None) -> dict[str, list]:
  """Every command-line setting declared by the registered solvers (all, or ``registrations``):
  name -> [(registration, Param)]."""
  found: dict[str, list] = {}
  for declared in solvers.registrations() if registrations is None else registrations:
    for param in declared.params:
      if param.cli:
        found.setdefault(param.name, []).append((declared, param))
  return found


def _flag_help(uses: list) -> str:
  """One help text naming the solvers a flag applies to, grouped by what it means to them."""
  groups: dict[tuple, list] = {}
  for declared, param in uses:
    default = "the solver's" if param.default is None else param.default
    key = (param.help, str(default), param.describe_range())
    where = (
      declared.name if declared.representation == "sequence_form" else (f"{declared.name} ({declared.representation})")
    )
    if where not in groups.setdefault(key, []):
      groups[key].append(where)
  parts = [
    f"{', '.join(names)}: {text} ({allowed}; default {default})" for (text, default, allowed), names in groups.items()
  ]
  if any(param.batchable for _, param in uses):
    parts.append("a comma-separated list runs a batch over the grid of all lists")
  return "; ".join(parts).replace("%", "%%")


def solver_flags(group, registrations=None, *, leave_out=()) -> None:
  """One flag per setting that the solvers (all, or ``registrations``) declare, typed by the
  declaration (``None`` when not given: the solver's default), except the names ``leave_out``
  (those the command declares itself)."""
  for name, uses in declared_solver_flags(registrations).items():
    if name in leave_out:
      continue
    params = [param for _, param in uses]
    kind = params[0].kind
    flag = params[0].flag
    if any(p.kind != kind for p in params):
      raise TypeError(f"solvers declare {name} with different kinds: {sorted({str(p.kind) for p in params})}")
    help_text = _flag_help(uses)
    if any(p.batchable for p in params):
      group.add_argument(flag, type=ints if kind is int else floats, metavar="LIST", help=help_text)
    elif kind is bool:
      group.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=help_text)
    elif kind == "ints":
      group.add_argument(flag, type=ints, metavar="N,N,...", help=help_text)
    else:
      choices = sorted({c for p in params for c in p.choices}) if all(p.choices for p in params) else None
      group.add_argument(flag, type={int: int, float: float, str: str}[kind], choices=choices, help=help_text)


def solver_settings(values, declared, registrations=None, *, leave_out=()) -> tuple[dict, dict]:
  """(options, hyperparameter lists) given for the solver ``declared`` among the flags that
  ``solver_flags(registrations)`` made; a flag of another solver is an error naming the
  solvers it applies to (among all registered)."""
  options, lists = {}, {}
  everywhere = declared_solver_flags()
  for name in declared_solver_flags(registrations):
    value = getattr(values, name, None)
    if value is None or name in leave_out:
      continue
    param = declared.param(name)
    if param is None or not param.cli:
      owners = ", ".join(dict.fromkeys(d.name for d, _ in everywhere[name]))
      raise ValueError(
        f"{everywhere[name][0][1].flag} does not apply to --algo {declared.name} on {declared.representation} "
        f"games (it applies to: {owners})"
      )
    if param.batchable:
      lists[name] = value
    else:
      options[name] = tuple(value) if param.kind == "ints" else value
  return options, lists
