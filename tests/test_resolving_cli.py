"""Re-solving from the command line: value-data, value-train, resolve and match, end to end
(a module of its own, so that the test processes share the re-solving tests between them)."""

import json

import pytest

from jaxcfr.kits.public_tree import values as ops
from jaxcfr.solvers import value_network as vn


def test_command_line_generates_trains_and_scores(tmp_path, capsys):
  from jaxcfr.base import integrity
  from jaxcfr.run import cli

  game = "no_limit_leduc_poker(betting=deepstack,stack=300,ante=100)"
  data, net, strategy = (str(tmp_path / name) for name in ("data.npz", "net.npz", "agent.npz"))
  assert cli.main(["value-data", game, "--count", "32", "--iters", "20", "--out", data]) == 0
  assert (
    cli.main(["value-train", data, "--game", game, "--steps", "40", "--out", net, "--json", str(tmp_path / "t.json")])
    == 0
  )
  asked = str(tmp_path / "asked.npz")
  argv = ["value-data", game, "--queries", net, "--query-iters", "3", "--every", "1", "--count", "16", "--iters", "20"]
  assert cli.main([*argv, "--out", asked]) == 0
  assert vn.load_data(asked).pot.shape == (16,)
  argv = ["value-train", data, asked, "--game", game, "--steps", "40", "--suit-permutations", "--cosine"]
  assert cli.main([*argv, "--out", net, "--json", str(tmp_path / "t2.json")]) == 0
  assert json.loads(open(tmp_path / "t2.json", encoding="utf-8").read())["situations"] == 2 * (32 + 16)
  report = str(tmp_path / "r.json")
  argv = ["resolve", game, "--leaf", f"{net},{net}", "--iters", "20", "--gadget", "rm", "--strategy-out", strategy]
  assert cli.main([*argv, "--json", report]) == 0
  record = json.loads(open(report, encoding="utf-8").read())  # the driver's record, as solve's
  assert record["exploitability"] > 0 and {"git_commit", "hardware", "timestamp", "command"} <= set(record)
  assert record["job"] == "resolve" and record["options"]["gadget"] == "rm" and record["algo"] == "cfr+"
  assert record["exploitability_mbb"] == pytest.approx(1000 * record["exploitability"] / 100)  # the ante, its big blind
  warm = str(tmp_path / "warm.json")
  assert cli.main(["resolve", game, "--leaf", "warm", "--iters", "20", "--json", warm]) == 0
  record_warm = json.loads(open(warm, encoding="utf-8").read())
  options = record_warm["options"]
  assert (options["leaf"], options["leaf_iters"]) == ("warm", 1) and record_warm["exploitability"] > 0
  assert "player0" in integrity.read_arrays(strategy, "strategy file")
  import jaxcfr

  loaded = jaxcfr.load(game, representation="public_tree", dtype="float64")
  agent = jaxcfr.load_strategy(strategy, loaded)
  assert abs(float(ops.exploitability(loaded.tensors, agent)) - record["exploitability"]) < 1e-5
  # the sequence form of the same game reads the agent's file infoset by infoset: the same
  # exploitability, and `jaxcfr match` plays it against the uniform strategy
  sequence = jaxcfr.load(game, representation="sequence_form", dtype="float64")
  mapped = jaxcfr.load_strategy(strategy, sequence)
  assert abs(float(jaxcfr.exploitability(sequence.tensors, mapped)) - record["exploitability"]) < 1e-5
  crosstable = str(tmp_path / "match.json")
  argv = ["match", game, "--agents", f"{strategy},uniform", "--dtype", "float64", "--json", crosstable]
  assert cli.main(argv) == 0
  uniform = ops.uniform_profile(loaded.tensors)
  seats = [
    ops.expected_value(loaded.tensors, (agent[0], uniform[1])),
    -ops.expected_value(loaded.tensors, (uniform[0], agent[1])),
  ]
  value = json.loads(open(crosstable, encoding="utf-8").read())["crosstable"][0][1]
  assert abs(value - float(sum(seats)) / 2) < 1e-9, (value, seats)
  with pytest.raises(ValueError, match="holds a strategy for no_limit_leduc_poker"):
    jaxcfr.load_strategy(strategy, jaxcfr.load("kuhn_poker"))
  capsys.readouterr()
  for argv, message in [
    (["resolve", game, "--leaf", data, "--iters", "2"], "not a value network"),
    (["resolve", "kuhn_poker", "--iters", "2"], "two betting rounds"),
    (["resolve", game, "--iters", "2", "--json", report, "--strategy-out", report], "name the same file"),
    (["value-train", net, "--game", game, "--out", net + "2"], "not value network data"),
    (["value-data", game, "--queries", data, "--out", net + "3"], "not a value network"),
  ]:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
