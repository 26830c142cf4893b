"""Every block of the README runs: Python blocks as written, each in a fresh namespace;
shell commands at small sizes."""

import re
import shlex
from pathlib import Path

import numpy as np

from jaxcfr.run import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


def _run(code: str) -> dict:
  namespace = {}
  exec(compile(code, "README.md", "exec"), namespace)  # pylint: disable=exec-used
  return namespace


def test_readme_use_block_runs():
  namespace = _run(BLOCKS[0])
  assert float(namespace["result"].summary()["exploitability"]) < 1e-3
  assert namespace["batch"].alpha.shape == (3,)


def test_readme_sampled_block_runs():
  namespace = _run(BLOCKS[1])
  assert np.asarray(namespace["states"].iteration).tolist() == [1000] * 8
  assert len(BLOCKS) == 2, "a new README block needs a test here"


SHELL_BLOCKS = re.findall(r"```bash\n(.*?)```", README, re.S)


def _small(command: str) -> list[str]:
  """A README command line made small: fewer iterations, evaluated once at the end (limit
  hold'em's evaluation plays 512 deals per run), files in the current folder."""
  words = shlex.split(command)
  assert words[0] == "jaxcfr", command
  for i, word in enumerate(words[:-1]):
    if word == "--iters":
      words[i + 1] = str(min(int(words[i + 1]), 50))
  extra = ["--iters", "50"] if "--iters" not in words and words[1] in ("solve", "rnr") else []
  if words[1] == "solve" and "--eval-every" not in words:
    extra += ["--eval-every", "50"]
  return words[1:] + extra


def test_readme_shell_commands_run(tmp_path, monkeypatch, capsys):
  """Every command of the README's shell blocks runs (at small sizes); the set-up's pip
  installs and the test command itself are what CI runs, so they are only checked to be there."""
  monkeypatch.chdir(tmp_path)
  commands = [
    part.split("#")[0].strip()
    for block in SHELL_BLOCKS
    for line in block.splitlines()
    for part in line.split("&&")
    if part.strip()
  ]
  assert "pip install -e ." in commands and "pip install -e '.[test]'" in commands
  assert "python -m pytest -q" in commands
  ran = 0
  for command in commands:
    if command.startswith(("pip install", "python -m pytest")):
      continue
    assert cli.main(_small(command)) == 0, (command, capsys.readouterr().err)
    ran += 1
  assert ran >= 7
