"""Every Python block of the README runs as written, each in a fresh namespace."""

import re
from pathlib import Path

import numpy as np

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
