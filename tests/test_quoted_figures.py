"""The figures README.md and notebooks/README.md quote, read from the results files they come
from: each entry is a sentence of a document with ``{}`` where the figures stand, the results
file, and the figures' paths in it (``/``-separated keys; an int is a list index) with their
format (a format string, or a function of the value). The test formats each figure from the file and finds the sentence in the document
(whitespace normalised), so a re-run that changes a figure, or an edit that changes the text,
fails here until both agree."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

PT = "public_tree.json"
LEDUC = "results/leduc_cfr_plus_float32/one_run"
ENDGAMES = "results/libratus_endgames_float32"
LIARS = "results/liars_dice_cfr_plus_float32"
FIG4 = "results/final"
TURN = "results/turn_curves_float32/endgame2"
TURN1 = "results/turn_curves_float32/endgame1"

PEERS = "results/entries"


def _median_ms(fmt: str):
  """The median ms per iteration of a peers_leduc.json entry's rounds, formatted."""
  return lambda runs: fmt.format(sorted(r["timing"]["ms_per_iteration"] for r in runs)[len(runs) // 2])


QUOTES = [
  # README.md, the public tree
  (
    "README.md",
    "Leduc CFR+ costs {} ms per iteration on the public tree against {} ms on the sparse sequence form",
    PT,
    [(f"{LEDUC}/public_tree_sorted/ms_per_iteration", "{:.3f}"), (f"{LEDUC}/sequence_form/ms_per_iteration", "{:.3f}")],
  ),
  (
    "README.md",
    "tree costs {}x the sequence form's time for a batch of 64 runs and {}x for 1,024 ({}x for one run)",
    "public_tree_liars_dice.json",
    [
      (f"{LIARS}/batch_64/public_tree_sorted/over_sequence_form", "{:.2f}"),
      (f"{LIARS}/batch_1024/public_tree_sorted/over_sequence_form", "{:.2f}"),
      (f"{LIARS}/one_run/public_tree_sorted/over_sequence_form", "{:.2f}"),
    ],
  ),
  (
    "README.md",
    "costs {} ms per CFR+ iteration and reaches 0.5% of the pot in {} s of run time with DCFR ({} s with CFR+; "
    "after 1,000 iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {})",
    PT,
    [
      (f"{ENDGAMES}/endgame4/cfr+/ms_per_iteration", "{:.1f}"),
      (f"{ENDGAMES}/endgame4/dcfr_curve/reached_half_percent_of_pot/run_seconds", "{:.2f}"),
      (f"{ENDGAMES}/endgame4/cfr+_curve/reached_half_percent_of_pot/run_seconds", "{:.2f}"),
      (f"{ENDGAMES}/endgame4/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame4/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame4/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
    ],
  ),
  (
    "README.md",
    "{} ms per iteration, 0.5% of the pot in {} s with DCFR (after 1,000 iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {})",
    PT,
    [
      (f"{ENDGAMES}/endgame3/cfr+/ms_per_iteration", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/dcfr_curve/reached_half_percent_of_pot/run_seconds", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
    ],
  ),
  (
    "README.md",
    "{} ms per subgame and iteration against {} ms for one alone",
    "public_tree_range_batch.json",
    [
      ("results/range_batch_endgame4_float32/batches/batch_1024/ms_per_iteration_per_subgame", "{:.2f}"),
      ("results/range_batch_endgame4_float32/batches/batch_1/ms_per_iteration_per_subgame", "{:.2f}"),
    ],
  ),
  (
    "README.md",
    "2 costs {} s per CFR+ iteration and reaches 0.5% of the pot in {} s of run time with DCFR (after 1,000 "
    "iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {})",
    "public_tree_turn_curves.json",
    [
      (f"{TURN}/cfr+_ms_per_iteration", lambda ms: f"{ms / 1000:.2f}"),
      (f"{TURN}/dcfr_curve/reached_half_percent_of_pot/run_seconds", "{:.0f}"),
      (f"{TURN}/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN}/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN}/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
    ],
  ),
  (
    "README.md",
    "turn endgame 1 costs {} s per CFR+ iteration (`public_tree_turn_curves_endgame1.json`, each curve capped at 11 "
    "minutes of run time: {} iterations of CFR+ and DCFR, {} of PCFR+), where DCFR reaches {}% of the pot ({} mbb/g) "
    "and CFR+ and PCFR+ {}% and {}%",
    "public_tree_turn_curves_endgame1.json",
    [
      (f"{TURN1}/cfr+_ms_per_iteration", lambda ms: f"{ms / 1000:.2f}"),
      (f"{TURN1}/cfr+_curve/curve/-1/iteration", "{}"),
      (f"{TURN1}/pcfr+_curve/curve/-1/iteration", "{}"),
      (f"{TURN1}/dcfr_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      (f"{TURN1}/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN1}/cfr+_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      (f"{TURN1}/pcfr+_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
    ],
  ),
  # README.md, peers on Leduc as their authors run them
  (
    "README.md",
    "at its default one thread: CFR {} ms ({}x jaxcfr), CFR+ {} ms ({}x)",
    "peers_leduc.json",
    [
      (f"{PEERS}/liteefg_cfr_openspiel_leduc_1_thread/runs", _median_ms("{:.2f}")),
      ("results/ratios/liteefg_cfr_openspiel_leduc_1_thread", "{:.0f}"),
      (f"{PEERS}/liteefg_cfr_plus_openspiel_leduc_1_thread/runs", _median_ms("{:.2f}")),
      ("results/ratios/liteefg_cfr_plus_openspiel_leduc_1_thread", "{:.0f}"),
    ],
  ),
  (
    "README.md",
    "OpenSpiel's C++ CFRSolver {} ms ({}x) and CFRPlusSolver {} ms ({}x)",
    "peers_leduc.json",
    [
      (f"{PEERS}/openspiel_cpp_cfr/runs", _median_ms("{:.1f}")),
      ("results/ratios/openspiel_cpp_cfr", "{:.0f}"),
      (f"{PEERS}/openspiel_cpp_cfr_plus/runs", _median_ms("{:.1f}")),
      ("results/ratios/openspiel_cpp_cfr_plus", "{:.0f}"),
    ],
  ),
  # README.md and notebooks/README.md, Ponsen et al. 2011 Figure 4 (left)
  (
    "README.md",
    "after 10^6 iterations MCCFR's squared error is {} and exploitability {}, MCTS settles at squared error {} and "
    "exploitability {}",
    "figure4_kuhn.json",
    [
      (f"{FIG4}/MCCFR (outcome sampling, eps 0.6)/squared_error/mean", lambda x: f"{x:.1e}".replace("e-0", "e-")),
      (f"{FIG4}/MCCFR (outcome sampling, eps 0.6)/exploitability/mean", "{:.4f}"),
      (f"{FIG4}/MCTS (UCT, C = 2)/squared_error/mean", "{:.4f}"),
      (f"{FIG4}/MCTS (UCT, C = 2)/exploitability/mean", "{:.3f}"),
    ],
  ),
  (
    "notebooks/README.md",
    "MCTS's dominated error over the paper's seven actions falls from {} at half the run to {} at 10^6 iterations",
    "figure4_kuhn.json",
    [
      ("results/curves/MCTS (UCT, C = 2)/dominated_error/50", lambda seeds: f"{sum(seeds) / len(seeds):.3f}"),
      (f"{FIG4}/MCTS (UCT, C = 2)/dominated_error/mean", "{:.3f}"),
    ],
  ),
]


def _read(record: dict, path: str):
  value = record
  for key in path.split("/"):
    value = value[int(key)] if isinstance(value, list) else value[key]
  return value


def _normalised(text: str) -> str:
  return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("document, sentence, results, figures", QUOTES, ids=[q[1][:40] for q in QUOTES])
def test_a_quoted_figure_is_the_results_file_s(document, sentence, results, figures):
  record = json.loads((RESULTS / results).read_text())
  values = [fmt(_read(record, path)) if callable(fmt) else fmt.format(_read(record, path)) for path, fmt in figures]
  want = _normalised(sentence.format(*values))
  text = _normalised((ROOT / document).read_text())
  assert want in text, f"{document} should say: {want!r} (from benchmarks/results/{results})"
