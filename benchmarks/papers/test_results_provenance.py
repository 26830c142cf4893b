"""Every results file (benchmarks/papers/results and benchmarks/results) says how to run it again: what
was run (its ``configuration``), from which code (a ``git_commit`` of this repository without
"-dirty", and so every commit recorded inside it), and with which seeds (a ``seed`` key in its
configuration), unless its benchmark draws no random numbers (DETERMINISTIC, checked against the
script). A file that lacks any of them is listed in ALLOWLIST with the reason its re-run is out of
reach; the test fails on a file missing from the list and on a listed file that no longer lacks
anything, so the list shrinks as files are re-run."""

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
  [*(ROOT / "benchmarks" / "papers" / "results").glob("*.json"), *(ROOT / "benchmarks" / "results").glob("*.json")]
)

# Benchmarks that draw no random numbers (exact solvers, timings of deterministic CFR, builds), so they have no
# seed to record; the test reads each script and fails if it mentions a seed or a random generator.
DETERMINISTIC = {
  "chelarescu_poker": "CFR, CFR+ and LCFR on Kuhn and Leduc",
  "chelarescu_kuhn_readings": "CFR, CFR+ and LCFR on Kuhn under four readings",
  "no_limit_leduc": "builds and CFR+",
  "build_speed": "game builds",
  "cfr_speed": "CFR+ timings, jaxcfr's and OpenSpiel's",
  "dcfr_presets": "DCFR presets and CFR+ on the Libratus endgames",
  "diff_speed": "gradients through unrolled CFR and QREs",
  "mmd_schedules": "magnetic mirror descent",
  "mmd_speed": "magnetic mirror descent timings",
  "peers": "CFR and CFR+ timings of jaxcfr and its peers",
  "poker_boards": "CFR+ on river boards",
  "poker_peer": "CFR+ timings against postflop-solver's",
  "profile_iteration": "one CFR+ step's parts",
  "public_tree_compile": "compile times",
  "public_tree_by_street": "a CFR step over the whole public tree and over its river subgames",
  "public_tree_profile": "one CFR step's parts on the public tree",
  "public_tree_startup": "start-up timings of jaxcfr solve with a DCFR preset",
  "refusals": "the command line's refusals",
  "resolving_errors": "re-solving with exact leaves",
  "strength_tables": "the exact hand-strength tables",
}
# public_tree.py draws only the range batch's noise (its RANGE_NOISE_SEED); its other parts are exact.
RANDOM_PARTS = {"public_tree": "range_batch"}
SCRIPTS = {"peers": "peers.py", "chelarescu_poker": "papers/chelarescu_poker.py"}

OUT_OF_REACH_HOURS = "hours of CPU on this 2-core machine"
GPU = "measured on a GPU, which this machine does not have"
ALLOWLIST = {
  # the papers' experiments
  "figure4_holdem.json": f"10^8 iterations per limit hold'em agent: {OUT_OF_REACH_HOURS}",
  "figure6_tradeoff.json": f"MCRNR to 10^7 iterations on four games: {OUT_OF_REACH_HOURS}",
  "full_size_games.json": "the full-size games (samplers timed with their default seed) need up to 16 GiB and "
  "minutes each on a machine shared with other jobs",
  "full_size_games_gpu.json": GPU,
  "holdem_learned_model.json": f"10^7 iterations per limit hold'em agent: {OUT_OF_REACH_HOURS}",
  "rcfr_figures.json": f"10^5 iterations for each of about twenty RCFR agents: {OUT_OF_REACH_HOURS}",
  "rnr_convergence.json": f"RNR and MCRNR curves on four games: {OUT_OF_REACH_HOURS}",
  # speed and peers
  "accelerator_nvidia_h100_80gb_hbm3.json": GPU,
  "accelerator_nvidia_h200.json": GPU,
  "holdem_speed.json": "three repeats of 200,000 iterations with 64-rollout strengths: more than ten minutes",
  "public_tree_compile_08ee955.json": "measures the library at 08ee955 with a later benchmark script, so no one commit "
  "holds both",
  "public_tree_range_batch_nvidia_h200.json": GPU,
  "resolving_exact_warm.json": "exact warm-started leaves with 30,000 iterations per re-solve at every decision of "
  f"both seats (resolving.py, whose other parts draw with seeds it did not record): {OUT_OF_REACH_HOURS}",
  "rcfr_speed.json": "OpenSpiel's RCFR takes 100 s an iteration on Leduc: about fifteen minutes",
  **{
    f"{name}.json": f"value networks trained for up to 300,000 steps: {OUT_OF_REACH_HOURS}"
    for name in (
      "resolving",
      "resolving_3600",
      "resolving_networks",
      "resolving_networks_100000",
      "resolving_networks_100000_iterations_10000",
      "resolving_networks_3600",
      "resolving_networks_ensemble",
    )
  },
}


def _commits(value, path="") -> list:
  """(path, commit) of every ``git_commit`` in a record, the top level's first."""
  found = []
  if isinstance(value, dict):
    for key, item in value.items():
      found += [(path, item)] if key == "git_commit" else _commits(item, f"{path}/{key}")
  elif isinstance(value, list):
    for i, item in enumerate(value):
      found += _commits(item, f"{path}/{i}")
  return found


def _has_seed(value) -> bool:
  if isinstance(value, dict):
    return any("seed" in key.lower() or _has_seed(item) for key, item in value.items())
  return isinstance(value, list) and any(_has_seed(item) for item in value)


def _draws_nothing(record: dict) -> bool:
  benchmark = record["benchmark"]
  if benchmark in RANDOM_PARTS:
    return RANDOM_PARTS[benchmark] not in str(record["configuration"].get("parts", ""))
  return benchmark in DETERMINISTIC


def _lacks(record: dict) -> list:
  """What a record lacks of its configuration, a clean commit and its seeds."""
  missing = [] if record.get("configuration") else ["configuration"]
  missing += [f"clean commit{path or ''}" for path, commit in _commits(record) if not commit or "-dirty" in commit]
  if not _has_seed(record.get("configuration")) and not _draws_nothing(record):
    missing.append("seeds")
  return missing


RECORDS = {path.name: json.loads(path.read_text()) for path in FILES}


def test_every_results_file_lacking_provenance_is_listed_with_its_reason():
  lacking = {name: _lacks(record) for name, record in RECORDS.items() if _lacks(record)}
  unlisted = {name: what for name, what in lacking.items() if name not in ALLOWLIST}
  assert not unlisted, f"re-run these from committed code (or list them with a reason): {unlisted}"
  stale = sorted(set(ALLOWLIST) - set(lacking))
  assert not stale, f"no longer lacking anything: take them off ALLOWLIST: {stale}"


def _full_history() -> bool:
  """Whether this checkout has git and its whole history (a shallow clone lacks the older commits)."""
  try:
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True, text=True)
  except OSError:
    return False
  return shallow.returncode == 0 and shallow.stdout.strip() == "false"


@pytest.mark.skipif(not _full_history(), reason="needs git and the repository's whole history")
def test_the_recorded_commits_are_this_repository_s():
  commits = {c.removesuffix("-dirty") for record in RECORDS.values() for _, c in _commits(record) if c}
  missing = [
    c for c in sorted(commits) if subprocess.run(["git", "cat-file", "-e", f"{c}^{{commit}}"], cwd=ROOT).returncode
  ]
  assert not missing, missing


@pytest.mark.parametrize("benchmark", sorted(DETERMINISTIC))
def test_a_deterministic_benchmark_draws_no_random_numbers(benchmark):
  name = SCRIPTS.get(benchmark, f"{benchmark}.py")
  script = (
    ROOT / "benchmarks" / name if (ROOT / "benchmarks" / name).exists() else ROOT / "benchmarks" / "papers" / name
  )
  text = script.read_text().replace("deterministic (no seed)", "")
  assert not re.search(r"seed|random|rng|prngkey", text, re.I), f"{script} draws random numbers: record its seeds"


def test_the_checks_see_a_dirty_commit_and_a_missing_seed():
  record = {"benchmark": "mcts_speed", "configuration": {"batch": 8}, "git_commit": "abc-dirty", "results": {}}
  assert _lacks(record) == ["clean commit", "seeds"]
  record = {"benchmark": "cfr_speed", "configuration": {"x": 1}, "git_commit": "abc", "results": [{"git_commit": ""}]}
  assert _lacks(record) == ["clean commit/results/0"]
