"""The jaxcfr command line: game statistics, solving with any registered solver, restricted
Nash responses to an opponent model, head-to-head matches of strategy files, and
depth-limited solving with value networks, and poker spots solved, saved and queried.

Each subcommand declares its settings once (jaxcfr.run.flags: ``info``, ``solve`` and ``rnr`` in
jaxcfr.run.solve_cli, ``match`` in jaxcfr.run.match_cli, ``value-data``, ``value-train`` and
``resolve`` in jaxcfr.run.resolving_cli, the poker spots' ``spot``, ``show`` and ``export`` in
jaxcfr.run.poker_cli); the solvers' flags come from their registrations.
Here the flags are made, the command line parsed into one settings object, the settings that
depend on each other and the output files checked before any work, and the command run with
its memory limit and progress setting (``memory.limited``, ``progress.bars``); an error is one
line and exit status 2, Ctrl-C exit status 130.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from jaxcfr.base import memory, progress
from jaxcfr.run import common_flags, flags, match_cli, poker_cli, resolving_cli, solve_cli
from jaxcfr.run.records import Interrupted
from jaxcfr.run.solve_cli import solve_settings

__all__ = ["main", "parser", "commands", "solve_settings"]


def _version() -> str:
  from jaxcfr import __version__  # pylint: disable=import-outside-toplevel

  return f"jaxcfr {__version__}"


def commands() -> dict[str, flags.Command]:
  """Every subcommand by name, in the order of the help (made afresh: a solver registered
  since has its flags)."""
  found = solve_cli.commands() + match_cli.commands() + resolving_cli.commands() + poker_cli.commands()
  return {command.name: command for command in found}


def parser(found: dict | None = None) -> argparse.ArgumentParser:
  """The command line's argument parser: every flag made from its declaration (of the
  subcommands ``found``, default ``commands()``)."""
  top = argparse.ArgumentParser(prog="jaxcfr", description=__doc__, formatter_class=flags.Formatter)
  top.add_argument("--version", action="version", version=_version())
  subparsers = top.add_subparsers(dest="command", required=True)
  for command in (found or commands()).values():
    sub = subparsers.add_parser(command.name, help=command.help, formatter_class=flags.Formatter, epilog=command.epilog)
    for title, declared in command.groups.items():
      flags.add_flags(sub.add_argument_group(title) if title else sub, declared)
    if command.extend is not None:
      command.extend(sub)
    flags.add_flags(sub, (common_flags.MAX_MEMORY, common_flags.COMPILATION_CACHE))
  return top


COMPILATION_CACHE_ENV = common_flags.COMPILATION_CACHE_ENV
# Every program is written to the compilation cache, the small ones too: a solve also runs a
# score of one-operation programs (its start, its checks), each faster to read back than to
# compile (benchmarks/results/public_tree_startup.json measures a warm start).
COMPILATION_CACHE_MIN_SECONDS = 0.0


def compilation_cache(enabled: bool | None, environ=os.environ) -> str | None:
  """Turns on JAX's persistent compilation cache for this command and returns its folder, or
  None when it stays off: ``enabled`` (``--compilation-cache``; None: ``$JAXCFR_COMPILATION_CACHE``,
  where 0, false, no or off turn it off, default on). The folder is ``$JAX_COMPILATION_CACHE_DIR``
  when the user sets it (JAX reads it itself), else ``xla/`` under the game cache
  (jaxcfr.base.cache.cache_dir). A river endgame's DCFR compiles in seconds and loads from the
  cache in a fraction of that (benchmarks/results/public_tree_startup.json)."""
  if enabled is None:
    enabled = environ.get(COMPILATION_CACHE_ENV, "1").strip().lower() not in ("0", "false", "no", "off")
  if not enabled:
    return None
  import jax  # pylint: disable=import-outside-toplevel

  from jaxcfr.base import cache  # pylint: disable=import-outside-toplevel

  folder = environ.get("JAX_COMPILATION_CACHE_DIR") or str(cache.cache_dir() / "xla")
  jax.config.update("jax_compilation_cache_dir", folder)
  if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in environ:
    jax.config.update("jax_persistent_cache_min_compile_time_secs", COMPILATION_CACHE_MIN_SECONDS)
  return folder


def _negative_values(argv: list[str]) -> list[str]:
  """``--flag -1,0`` as ``--flag=-1,0``: argparse takes a value that starts with a dash
  for an option unless it is one plain negative number."""
  out = []
  for token in argv:
    if out and out[-1].startswith("--") and "=" not in out[-1] and re.match(r"^-(\d|\.\d|inf)", token):
      out[-1] = f"{out[-1]}={token}"
    else:
      out.append(token)
  return out


def main(argv: list[str] | None = None) -> int:
  argv = sys.argv[1:] if argv is None else list(argv)
  settings = flags.settings(parser().parse_args(_negative_values(argv)), argv=argv)
  # the command's memory limit and progress setting reach the builds it starts (not the environment)
  with memory.limited(settings.max_memory), progress.bars(getattr(settings, "progress", None)):
    return _run(settings)


def _run(settings) -> int:
  try:
    command = commands()[settings.command]
    flags.check_needs(settings, command.flags)
    flags.check_outputs(settings, command.flags)
    compilation_cache(settings.compilation_cache)
    return command.handler(settings)
  except (ValueError, ImportError) as error:
    print(f"jaxcfr: error: {error}", file=sys.stderr)
    return 2
  except BrokenPipeError:  # the reader of standard output left (``| head``): stop quietly, as a Unix tool
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's final flush must not fail
    return 141
  except Interrupted as interrupt:
    message = interrupt.describe(resume="the same command with --resume", save="use --checkpoint FILE")
    print(f"jaxcfr: {message}", file=sys.stderr)
    return 130
  except KeyboardInterrupt:
    print("jaxcfr: interrupted", file=sys.stderr)
    return 130


if __name__ == "__main__":
  sys.exit(main())
