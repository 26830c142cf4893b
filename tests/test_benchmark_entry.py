"""``python -m benchmarks`` lists every benchmark and runs one by name; every results file
follows the one record schema (benchmarks/record.py) and every script writes through it."""

import ast
import functools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
sys.path[:0] = [str(BENCHMARKS), str(BENCHMARKS / "papers")]  # record, timing; the paper scripts

import record  # noqa: E402  pylint: disable=wrong-import-position


def _run(*argv):
  return subprocess.run(
    [sys.executable, "-m", "benchmarks", *argv], capture_output=True, text=True, cwd=ROOT, timeout=300
  )


@functools.lru_cache(maxsize=1)
def _scripts() -> dict[str, ast.Module]:
  paths = sorted([*BENCHMARKS.glob("*.py"), *(BENCHMARKS / "papers").glob("*.py")])
  trees = {p.stem: ast.parse(p.read_text()) for p in paths if not p.stem.startswith(("_", "test_"))}
  return {
    name: tree
    for name, tree in trees.items()
    if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body)
  }


def test_lists_every_benchmark_and_runs_one_by_name():
  listing = _run()
  assert listing.returncode == 0
  scripts = list(_scripts())
  assert scripts and all(name in listing.stdout for name in scripts)
  assert _run("rnr_tradeoff", "--help").returncode == 0
  unknown = _run("no_such_benchmark")
  assert unknown.returncode == 2 and "unknown benchmark" in unknown.stderr


def test_every_results_file_follows_the_record_schema():
  paths = sorted([*(BENCHMARKS / "results").glob("*.json"), *(BENCHMARKS / "papers" / "results").glob("*.json")])
  assert paths
  for path in paths:
    loaded = record.read_record(path)
    assert list(loaded) == list(record.KEYS), path.name
    assert loaded["benchmark"] in _scripts(), f"{path.name}: no script named {loaded['benchmark']!r}"


def test_every_script_writes_its_record_with_the_schema_keywords():
  for name, tree in _scripts().items():
    main = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "main")
    calls = [
      node
      for node in ast.walk(main)
      if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "write_record"
    ]
    assert calls, f"{name}.main does not call write_record"
    for call in calls:
      keywords = {k.arg for k in call.keywords}
      assert len(call.args) == 1 and keywords == {"benchmark", "description", "configuration", "results"}, (
        f"{name}.main: write_record(out, benchmark=, description=, configuration=, results=)"
      )
      benchmark = next(k.value for k in call.keywords if k.arg == "benchmark")
      assert isinstance(benchmark, ast.Constant) and benchmark.value == name, f"{name}: benchmark={name!r}"


def test_write_record_adds_the_provenance_and_rejects_other_keys(tmp_path):
  out = tmp_path / "sub" / "r.json"
  assert (
    record.write_record(
      out, benchmark="b", description="d", configuration={"game": "kuhn_poker"}, results=[{"ms": 1.0}]
    )
    == out
  )
  written = record.read_record(out)
  assert list(written) == list(record.KEYS) and written["results"] == [{"ms": 1.0}]
  assert written["date"].endswith("+00:00") and "cpu_count" in written["hardware"]
  with pytest.raises(TypeError, match=r"unexpected keywords \['game'\]"):
    record.write_record(
      tmp_path / "x.json", benchmark="b", description="d", configuration={}, results=[1], game="kuhn_poker"
    )
  with pytest.raises(ValueError, match="'configuration' must be an object"):
    record.write_record(tmp_path / "x.json", benchmark="b", description="d", configuration=None, results=[1])
  assert not (tmp_path / "x.json").exists()
  (tmp_path / "old.json").write_text(json.dumps({"date": None, "results": []}))
  with pytest.raises(ValueError, match=r"missing \['benchmark'"):
    record.read_record(tmp_path / "old.json")


def test_per_iteration_separates_the_fixed_cost_from_the_slope(monkeypatch):
  """On a fake clock (no wall time is asserted): a call of n iterations costs 2 ms + n x 0.1 ms."""
  import types  # pylint: disable=import-outside-toplevel
  import timing  # pylint: disable=import-outside-toplevel

  clock = [0.0]
  monkeypatch.setattr(timing, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))

  def run(state, n):
    clock[0] += (5.0 if state == 0 else 0.0) + 0.002 + 1e-4 * n  # the first call also compiles (5 s)
    return state + n

  measured = timing.per_iteration(run, 0, seconds=0.1, repeats=2)
  assert measured["iteration_s"] == pytest.approx(1e-4, rel=1e-6)
  assert measured["per_call_s"] == pytest.approx(0.002, rel=1e-6)
  assert measured["compile_s"] == pytest.approx(5.0, rel=1e-3)
  assert measured["iterations_per_call"] * 1e-4 + 0.002 >= 0.05  # grown to about seconds / 2 per call
  # A fixed cost as large as the time asked for: the count grows until the iterations show.
  slow = lambda state, n: (clock.__setitem__(0, clock[0] + 1.0 + 1e-5 * n), state + n)[1]
  measured = timing.per_iteration(slow, 1, seconds=2.0, repeats=1)
  assert measured["iteration_s"] == pytest.approx(1e-5, rel=1e-6)
  assert measured["iterations_per_call"] * 1e-5 >= 0.5
  assert timing.best_of(lambda: 3, repeats=2) == (0.0, 3)
  assert timing.seconds_per_call(lambda s: run(s, 10), 1, 0.01) == (pytest.approx(0.003), 4, 41)


def test_the_recorded_commit_is_marked_dirty_when_the_code_differs(tmp_path):
  """``git_commit`` names HEAD, with ``-dirty`` once the library, games or benchmarks differ
  from it; a changed results file or an untracked file does not count. Run on a copy of
  jaxcfr/run/hardware.py in a fresh repository."""
  import importlib.util  # pylint: disable=import-outside-toplevel

  git = lambda *argv: subprocess.run(
    ["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv],
    cwd=tmp_path,
    check=True,
    capture_output=True,
    text=True,
  ).stdout.strip()
  git("init", "-q")
  module = tmp_path / "jaxcfr" / "run" / "hardware.py"
  module.parent.mkdir(parents=True)
  module.write_text((ROOT / "jaxcfr" / "run" / "hardware.py").read_text())
  result = tmp_path / "benchmarks" / "results" / "r.json"
  result.parent.mkdir(parents=True)
  result.write_text("{}")
  git("add", "-A")
  git("commit", "-qm", "c")
  spec = importlib.util.spec_from_file_location("hardware_copy", module)
  hardware = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(hardware)
  head = git("rev-parse", "HEAD")
  result.write_text('{"changed": 1}')
  (tmp_path / "jaxcfr" / "new.py").write_text("")
  assert hardware.git_commit() == head
  module.write_text(module.read_text() + "\n# changed\n")
  assert hardware.git_commit() == head + "-dirty"


def test_accelerator_suite_counts_kernels_bytes_and_goals():
  """The accelerator suite's pieces on a CPU: the compiled loop body's operations, the bytes
  a CFR+ step must move, and the verdicts of the goals (<= and >= goals)."""
  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  import accelerator  # pylint: disable=import-outside-toplevel

  tensors = jaxcfr.load("kuhn_poker").tensors
  state = solvers.get("cfr+").init(tensors)
  body = accelerator.loop_body_operations(tensors, state)
  assert body["kernels_per_iteration"] == sum(body["opcodes"].values()) and body["opcodes"].get("fusion", 0) > 0
  moved = accelerator.step_bytes(tensors, state)
  assert moved["least_bytes"] == moved["tensor_bytes"] + 2 * moved["state_bytes"] > 0
  assert moved["xla_bytes_accessed"] > 0
  record = {
    "batches": {"user_1024": {"cost_vs_one_run": 5.0}, "library_1024": {"cost_vs_one_run": 3.0}},
    "cfr": {"g7": {"ms_per_iteration": 12.0}},
    "outcome_sampling": [{"trajectories_per_s": 2e8}],
    "bandwidth": {"least_bytes_fraction_of_copy": 0.4},
  }
  goals = accelerator.verdicts(record, "g7")
  assert {k: (v["measured"], v["met"]) for k, v in goals.items()} == {
    "leduc_batch_1024_vs_one_run": (3.0, True),
    "goofspiel7_cfr_plus_ms": (12.0, False),
    "outcome_sampling_trajectories_per_s": (2e8, True),
    "goofspiel7_bandwidth_fraction": (0.4, False),
  }


def test_figure1_records_the_seeds_of_each_curve(tmp_path):
  """Curves of one game drawn in runs with different ``--seeds``: the merged entry says how many
  seeds each sampled curve has (``seeds_per_algorithm``) and ``seeds`` is the most of any."""
  import figure1_nodes_touched as figure1  # pylint: disable=import-outside-toplevel
  from record import write_record  # pylint: disable=import-outside-toplevel

  def curve(per_seed):
    return [
      {"iteration": 1, "nodes_touched": 100, "nash_conv": sum(per_seed) / len(per_seed), "nash_conv_per_seed": per_seed}
    ]

  entry = lambda algorithms: {  # noqa: E731
    "histories": 5,
    "node_budget": 100.0,
    "dtype": "float64",
    "seeds": 1,
    "algorithms": algorithms,
    "measured_per_algorithm": {a: {"date": "d"} for a in algorithms},
    "dtype_per_algorithm": {a: "float64" for a in algorithms},
  }
  out = tmp_path / "figure1.json"
  old = entry({"mccfr-os": curve([0.3]), "cfr": [{"iteration": 1, "nodes_touched": 100, "nash_conv": 0.5}]})
  write_record(out, benchmark="figure1_nodes_touched", description="d", configuration={}, results={"games": {"g": old}})
  merged = figure1._merged(out, {"g": entry({"mccfr-es": curve([0.1, 0.2, 0.3, 0.2, 0.1])})})["games"]["g"]
  assert merged["seeds_per_algorithm"] == {"mccfr-os": 1, "mccfr-es": 5}
  assert merged["seeds"] == 5


def test_figure1_adds_seeds_to_a_curve_at_its_checkpoints(tmp_path):
  """``--more-seeds``: seeds drawn in a later run join the curve's own at its checkpoints; the
  earlier seeds' values stay, the means are over all seeds."""
  import figure1_nodes_touched as figure1  # pylint: disable=import-outside-toplevel

  out = str(tmp_path / "figure1.json")
  common = ["--games", "kuhn_poker", "--algorithms", "mccfr-os", "--scale", "1e-4", "--out", out]
  first = figure1.main([*common, "--seeds", "2"])["results"]["games"]["kuhn_poker"]
  both = figure1.main([*common, "--more-seeds", "3"])["results"]["games"]["kuhn_poker"]
  rows, more = first["algorithms"]["mccfr-os"], both["algorithms"]["mccfr-os"]
  assert [r["iteration"] for r in more] == [r["iteration"] for r in rows]
  assert all(len(r["nash_conv_per_seed"]) == 5 for r in more)
  assert [r["nash_conv_per_seed"][:2] for r in more] == [r["nash_conv_per_seed"] for r in rows]
  assert more[-1]["nash_conv"] == pytest.approx(np.mean(more[-1]["nash_conv_per_seed"]))
  assert both["seeds_per_algorithm"] == {"mccfr-os": 5}
  assert both["measured_per_algorithm"]["mccfr-os"]["seeds_added"][0]["first_seed"] == 2
  with pytest.raises(SystemExit):  # no such curve to add seeds to
    figure1.main(["--games", "kuhn_poker", "--algorithms", "mccfr-es", "--more-seeds", "1", "--out", out])


def test_figure1_redraws_chosen_seeds_of_a_curve_at_its_checkpoints(tmp_path):
  """``--redraw-seeds``: the seeds named are drawn again in place (the same values: a seed fixes
  its draws), the others stay; a redraw of the first run's seeds takes over its commit and keeps
  the replaced one under ``first_run``."""
  import figure1_nodes_touched as figure1  # pylint: disable=import-outside-toplevel

  out = str(tmp_path / "figure1.json")
  common = ["--games", "kuhn_poker", "--algorithms", "mccfr-os", "--scale", "1e-4", "--out", out]
  first = figure1.main([*common, "--seeds", "2"])["results"]["games"]["kuhn_poker"]
  figure1.main([*common, "--more-seeds", "1"])
  again = figure1.main([*common, "--redraw-seeds", "0,1"])["results"]["games"]["kuhn_poker"]
  rows, redrawn = first["algorithms"]["mccfr-os"], again["algorithms"]["mccfr-os"]
  assert [r["iteration"] for r in redrawn] == [r["iteration"] for r in rows]
  assert [r["nash_conv_per_seed"][:2] for r in redrawn] == [r["nash_conv_per_seed"] for r in rows]
  measured = again["measured_per_algorithm"]["mccfr-os"]
  assert [r["seeds"] for r in measured["seeds_redrawn"]] == [[0, 1]]
  assert measured["first_run"]["date"] == first["measured_per_algorithm"]["mccfr-os"]["date"]
  assert measured["date"] == measured["seeds_redrawn"][0]["date"]
  for bad in ("1,3", "3"):  # not consecutive; past the curve's seeds
    with pytest.raises(SystemExit):
      figure1.main([*common, "--redraw-seeds", bad])


def test_figure1_keeps_other_curves_when_one_is_redrawn_in_another_dtype():
  """``figure1_nodes_touched --dtype float64 --algorithms mccfr-os`` on a float32 game: the
  new curve replaces that algorithm's, the game's other curves stay, and each curve keeps
  its dtype (the plot labels the ones that differ from the game's)."""
  import figure1_nodes_touched as figure1  # pylint: disable=import-outside-toplevel

  curve = lambda nash_conv: [{"iteration": 1, "nodes_touched": 10, "nash_conv": nash_conv, "seconds": 0.1}]
  old = {
    "histories": 5,
    "node_budget": 100.0,
    "dtype": "float32",
    "algorithms": {"mccfr-os": curve(0.4), "mccfr-es": curve(0.05)},
    "measured_per_algorithm": {"mccfr-os": {"date": "d0"}, "mccfr-es": {"date": "d0"}},
  }
  earlier = {"date": "d0", "git_commit": "c0", "configuration": {"scale": 1.0}, "results": {"games": {"g": old}}}
  new = {
    "histories": 5,
    "node_budget": 100.0,
    "dtype": "float32",
    "algorithms": {"mccfr-os": curve(0.2)},
    "measured_per_algorithm": {"mccfr-os": {"date": "d1"}},
    "dtype_per_algorithm": {"mccfr-os": "float64"},
  }
  merged = figure1._merge_earlier({"g": new}, earlier)["g"]
  assert merged["algorithms"]["mccfr-os"][0]["nash_conv"] == 0.2
  assert merged["algorithms"]["mccfr-es"][0]["nash_conv"] == 0.05
  assert merged["dtype_per_algorithm"] == {"mccfr-os": "float64", "mccfr-es": "float32"}
  assert merged["measured_per_algorithm"]["mccfr-es"] == {"date": "d0"}


def test_neural_cfr_peers_times_our_defaults_to_openspiel_exploitability():
  """``neural_cfr_peers.to_target``: the curve stops at the first evaluation at or below the
  target; the solve to there, timed with compile and without, scores what the curve scored
  there; ``speedup`` divides OpenSpiel's time by each and says whether the goal is met."""
  import neural_cfr_peers  # pylint: disable=import-outside-toplevel

  tiny = dict(traversals=4, hidden=(8,), steps=2, policy_steps=2)
  ours = neural_cfr_peers.to_target("kuhn_poker", 1000.0, 60.0, every=2, options=tiny)  # uniform play: 458
  assert ours["reached"] and ours["iterations"] == 2 and len(ours["curve"]) == 1
  assert ours["mbb_with_compile"] == ours["mbb_without_compile"] == pytest.approx(ours["curve"][0]["mbb"], rel=1e-6)
  assert ours["seconds_with_compile"] > ours["seconds_without_compile"] > 0
  theirs = {"mbb": 1000.0, "seconds_with_policy_fit": 40 * ours["seconds_with_compile"]}
  ratio = neural_cfr_peers.speedup(theirs, ours)
  assert ratio["with_compile"] == pytest.approx(40) and ratio["goal_met"]
  missed = neural_cfr_peers.speedup(theirs, {"reached": False})
  assert missed["with_compile"] is None and not missed["goal_met"]
