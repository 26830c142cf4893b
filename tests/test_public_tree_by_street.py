"""benchmarks/public_tree_by_street.py: the whole tree's step against a loop over the dealt
subgames, each mode in its own process (a small game; the figures are the benchmark's)."""

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import public_tree_by_street as by_street  # noqa: E402  pylint: disable=wrong-import-position


def test_unknown_modes_are_refused_before_any_run(tmp_path):
  with pytest.raises(SystemExit, match=r"--modes: unknown \['depth_first'\]"):
    by_street.main(["--modes", "whole,depth_first", "--out", str(tmp_path / "x.json")])
  assert not (tmp_path / "x.json").exists()


@pytest.mark.slow
def test_every_mode_runs_the_same_game_and_is_recorded(tmp_path):
  out = tmp_path / "by_street.json"
  core = max(os.sched_getaffinity(0))
  by_street.main(["--game", "leduc_poker", "--repeats", "1", "--core", str(core), "--out", str(out)])
  record = json.loads(out.read_text())
  assert record["configuration"]["core"] == core and "leduc_poker" in record["description"]
  results = record["results"]["modes"]
  assert list(results) == list(by_street.MODES)
  whole, side, one = (results[m] for m in by_street.MODES)
  assert whole["leaf_subgames"] == 0 and side["leaf_subgames"] == one["leaf_subgames"] > 0
  assert whole["hands"] == side["hands"] == one["hands"]
  assert side["public_nodes"] == one["public_nodes"] < whole["public_nodes"]
  # the lookahead's nodes above its leaves and the leaves' subgames make up the whole tree
  above = side["public_nodes"] - side["leaf_subgames"]
  assert above + side["leaf_subgame_nodes"]["total"] == whole["public_nodes"]
  assert whole["over_whole"] == 1.0 and all(r["ms_per_step"] > 0 and r["step_temp_bytes"] > 0 for r in results.values())
