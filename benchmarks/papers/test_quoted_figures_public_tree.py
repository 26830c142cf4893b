"""The figures quoted from the results of the library's public-tree benchmarks (benchmarks/README.md
and the docs): see quoted_figures.py."""

from quoted_figures import quoted_test


PT = "public_tree.json"
LEDUC = "results/leduc_cfr_plus_float32/one_run"
ENDGAMES = "results/libratus_endgames_float32"
LIARS = "results/liars_dice_cfr_plus_float32"
TURN = "results/turn_curves_float32/endgame2"
TURN1 = "results/turn_curves_float32/endgame1"


QUOTES = [
  # README.md, the turn endgames on this CPU
  (
    "benchmarks/README.md",
    "cost {} s and {} s per CFR+ iteration there (one core)",
    PT,
    [
      (f"{ENDGAMES}/endgame2/cfr+/ms_per_iteration", lambda ms: f"{ms / 1000:.2f}"),
      (f"{ENDGAMES}/endgame1/cfr+/ms_per_iteration", lambda ms: f"{ms / 1000:.1f}"),
    ],
  ),
  # README.md, the public tree on one H200
  (
    "benchmarks/README.md",
    "river endgame 3 costs {} ms per CFR+ iteration (after 1,000 iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {}); "
    "the turn endgames 2 and 1 cost {} and {} ms per CFR+ iteration",
    "public_tree_endgames_nvidia_h200.json",
    [
      (f"{ENDGAMES}/endgame3/cfr+/ms_per_iteration", "{:.2f}"),
      (f"{ENDGAMES}/endgame3/dcfr_after_1000/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/cfr+_after_1000/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/pcfr+_after_1000/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame2/cfr+/ms_per_iteration", "{:.1f}"),
      (f"{ENDGAMES}/endgame1/cfr+/ms_per_iteration", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "costs {} ms per iteration, {} ms per subgame against {} ms for one alone, and every one is within 0.5% of its "
    "pot after {} CFR+ iterations, {} s of run time",
    "public_tree_range_batch_nvidia_h200.json",
    [
      ("results/range_batch_endgame4_float32/batches/batch_1024/ms_per_iteration", "{:.1f}"),
      ("results/range_batch_endgame4_float32/batches/batch_1024/ms_per_iteration_per_subgame", "{:.4f}"),
      ("results/range_batch_endgame4_float32/batches/batch_1/ms_per_iteration", "{:.2f}"),
      ("results/range_batch_endgame4_float32/curve/-1/iteration", "{}"),
      ("results/range_batch_endgame4_float32/curve/-1/run_seconds", "{:.2f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "{} public nodes; `python -m benchmarks public_tree --parts flop`) builds in {} s and reaches {}% of the pot "
    "with DCFR after {} iterations, {} s of run time ({} s with an evaluation every 10 iterations; {} ms per "
    "iteration), at a peak of {} GB of device memory",
    "public_tree_flop_nvidia_h200.json",
    [
      ("results/flop_float32/statistics/public_nodes", "{:,}"),
      ("results/flop_float32/build_and_load_s", "{:.0f}"),
      ("results/flop_float32/dcfr_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      ("results/flop_float32/dcfr_curve/reached_half_percent_of_pot/iteration", "{}"),
      ("results/flop_float32/dcfr_curve/reached_half_percent_of_pot/run_seconds", "{:.1f}"),
      ("results/flop_float32/dcfr_curve/reached_half_percent_of_pot/wall_seconds", "{:.1f}"),
      ("results/flop_float32/dcfr_curve/ms_per_iteration", "{:.0f}"),
      ("results/flop_float32/dcfr_curve/peak_device_bytes", lambda b: f"{b / 1e9:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "so this is {}x its time on a different tree, at {} times its memory",
    "public_tree_flop_nvidia_h200.json",
    [
      ("results/flop_float32/dcfr_curve/reached_half_percent_of_pot/run_seconds", lambda s: f"{s / 13.9:.1f}"),
      ("results/flop_float32/dcfr_curve/peak_device_bytes", lambda b: f"{b / 1.22e9:.0f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "Turn endgame 2 runs 1,000 iterations in {} s of run time with each of CFR+, DCFR and PCFR+ and ends at DCFR {} mbb/g, "
    "CFR+ {}, PCFR+ {}",
    "public_tree_turn_curves_nvidia_h200.json",
    [
      ("results/turn_curves_float32/endgame2/cfr+_curve/curve/-1/run_seconds", "{:.1f}"),
      ("results/turn_curves_float32/endgame2/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      ("results/turn_curves_float32/endgame2/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      ("results/turn_curves_float32/endgame2/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "the showdowns, {} ms of each player's values pass (two passes a step), are two thirds of it; the folds take {} ms a pass, the ranges {} ms",
    "public_tree_profile_nvidia_h200.json",
    [
      ("results/parts/showdowns_step_bytes_268435456/ms", "{:.0f}"),
      ("results/parts/folds/ms", "{:.1f}"),
      ("results/parts/ranges/ms", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "one run costs {} ms per CFR+ iteration on the sequence form, {} ms on the public tree with dense terminals",
    "public_tree_leduc_nvidia_h200.json",
    [
      ("results/leduc_cfr_plus_float32/one_run/sequence_form/ms_per_iteration", "{:.3f}"),
      ("results/leduc_cfr_plus_float32/one_run/public_tree_dense/ms_per_iteration", "{:.2f}"),
    ],
  ),
  # README.md, the public tree
  (
    "benchmarks/README.md",
    "Leduc CFR+ costs {} ms per iteration on the public tree against {} ms on the sparse sequence form",
    PT,
    [(f"{LEDUC}/public_tree_sorted/ms_per_iteration", "{:.3f}"), (f"{LEDUC}/sequence_form/ms_per_iteration", "{:.3f}")],
  ),
  (
    "benchmarks/README.md",
    "tree costs {}x the sequence form's time for a batch of 64 runs and {}x for 1,024 ({}x for one run)",
    "public_tree_liars_dice.json",
    [
      (f"{LIARS}/batch_64/public_tree_sorted/over_sequence_form", "{:.2f}"),
      (f"{LIARS}/batch_1024/public_tree_sorted/over_sequence_form", "{:.2f}"),
      (f"{LIARS}/one_run/public_tree_sorted/over_sequence_form", "{:.2f}"),
    ],
  ),
  (
    "benchmarks/README.md",
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
    "benchmarks/README.md",
    "{} ms per iteration, 0.5% of the pot in {} s with DCFR (after 1,000 iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {})",
    PT,
    [
      (f"{ENDGAMES}/endgame3/cfr+/ms_per_iteration", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/dcfr_curve/reached_half_percent_of_pot/run_seconds", "{:.2f}"),
      (f"{ENDGAMES}/endgame3/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "{} ms per subgame and iteration against {} ms for one alone",
    "public_tree_range_batch.json",
    [
      ("results/range_batch_endgame4_float32/batches/batch_1024/ms_per_iteration_per_subgame", "{:.2f}"),
      ("results/range_batch_endgame4_float32/batches/batch_1/ms_per_iteration_per_subgame", "{:.2f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "{} s per CFR+ iteration then, another CPU), turn endgame 2 reaches 0.5% of the pot in {} s of run time with "
    "DCFR (after 1,000 iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {})",
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
    "benchmarks/README.md",
    "turn endgame 1 costs {} s per CFR+ iteration on two cores (`public_tree_turn_curves_endgame1.json`)",
    "public_tree_turn_curves_endgame1.json",
    [(f"{TURN1}/cfr+_ms_per_iteration", lambda ms: f"{ms / 1000:.2f}")],
  ),
  (
    "benchmarks/README.md",
    "DCFR reaches 0.5% of the pot after {} s of run time ({} iterations) and ends at {} mbb/g ({}% of the pot) "
    "after {} s",
    "public_tree_turn_endgame1_dcfr.json",
    [
      (f"{TURN1}/dcfr_curve/reached_half_percent_of_pot/run_seconds", lambda s: f"{s:,.0f}"),
      (f"{TURN1}/dcfr_curve/reached_half_percent_of_pot/iteration", "{}"),
      (f"{TURN1}/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN1}/dcfr_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      (f"{TURN1}/dcfr_curve/curve/-1/run_seconds", lambda s: f"{s:,.0f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "CFR+ at {} ({}%) after {} s",
    "public_tree_turn_endgame1_cfr+.json",
    [
      (f"{TURN1}/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN1}/cfr+_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      (f"{TURN1}/cfr+_curve/curve/-1/run_seconds", lambda s: f"{s:,.0f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "PCFR+ at {} ({}%) after {} s",
    "public_tree_turn_endgame1_pcfr+.json",
    [
      (f"{TURN1}/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN1}/pcfr+_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      (f"{TURN1}/pcfr+_curve/curve/-1/run_seconds", lambda s: f"{s:,.0f}"),
    ],
  ),
  (
    "docs/limit_holdem.md",
    "takes {} s of CPU and {} s of wall time on one idle core (the former build, which ranked every river board of "
    "every turn, takes about {} s of CPU by its first chunks",
    "strength_tables.json",
    [
      ("results/build_tables/cpu_seconds", "{:.1f}"),
      ("results/build_tables/wall_seconds", "{:.1f}"),
      ("results/former_turn_table/cpu_seconds_extrapolated", "{:.0f}"),
    ],
  ),
]

test_a_quoted_figure_is_the_results_file_s = quoted_test(QUOTES)
