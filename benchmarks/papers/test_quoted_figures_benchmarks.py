"""The figures quoted from the results of the library's own benchmarks (benchmarks/README.md, the
docs and the notebooks' rows that are no paper's): see quoted_figures.py."""

import json


from quoted_figures import (
  _results,
  _sci,
  quoted_test,
)


PEERS = "results/entries"


def _chips(seed: str, suffix: str) -> str:
  """The 10,000-situation network agent's chips in ``resolving_networks_<seed>.json``."""
  record = json.loads(_results(f"resolving_networks_{seed}.json").read_text())
  return f"{record['results']['stack_1200']['exploitability'][f'resolving_network_10000{suffix}']['chips']:.2f}"


def _seconds_or_not_reached(x) -> str:
  """A time to a target: '12 s', '0.0 s' under 10 s, or 'not reached' (null)."""
  if x is None:
    return "not reached"
  return f"{x:.1f} s" if x < 10 else f"{x:.0f} s"


def _median_ms(fmt: str):
  """The median ms per iteration of a peers_leduc.json entry's rounds, formatted."""
  return lambda runs: fmt.format(sorted(r["timing"]["ms_per_iteration"] for r in runs)[len(runs) // 2])


QUOTES = [
  # README.md, information-set MCTS against OpenSpiel's C++ ISMCTSBot
  (
    "benchmarks/README.md",
    "one MCTS run does {}x its simulations per second on Kuhn and {}x on Leduc, and a batch of 1,024 seeds as one "
    "program {}x and {}x",
    "mcts_speed.json",
    [
      ("results/games/kuhn_poker/ratio_single", "{:.2f}"),
      ("results/games/leduc_poker/ratio_single", "{:.2f}"),
      ("results/games/kuhn_poker/ratio_batch", "{:.1f}"),
      ("results/games/leduc_poker/ratio_batch", "{:.1f}"),
    ],
  ),
  # README.md, Leduc against OpenSpiel's C++ CFR+ in a later session
  (
    "benchmarks/README.md",
    "Leduc alone on one idle core, {} ms against the C++ solver's {} ms, {}x",
    "cfr_speed_leduc_cpu.json",
    [
      ("results/games/leduc_poker/jaxcfr_float32/ms_per_iteration", "{:.4f}"),
      ("results/games/leduc_poker/peers/openspiel_cpp/timing/ms_per_iteration", "{:.2f}"),
      ("results/games/leduc_poker/peers/openspiel_cpp/speedup_float32", "{:.0f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "a batch of 1,024 CFR+ runs costs {}x one run through the solver's run ({}x in a user's loop), {} kernels",
    "accelerator_nvidia_h200.json",
    [
      ("results/batches/library_1024/cost_vs_one_run", "{:.2f}"),
      ("results/batches/user_1024/cost_vs_one_run", "{:.1f}"),
      ("results/profile/leduc_poker/kernels_per_iteration", "{}"),
    ],
  ),
  # README.md, continual re-solving on no-limit Leduc
  (
    "benchmarks/papers/README.md",
    "the agent with warm-started exact leaves is exploitable by {} chips per game, below CFR+ on the whole game at "
    "1,000 iterations ({})",
    "resolving_exact_warm.json",
    [
      ("results/stack_1200/exploitability/resolving_exact_warm/chips", "{:.3f}"),
      ("results/stack_1200/exploitability/cfr+_1000/chips", "{:.3f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "by {} at 3,000 iterations per re-solve and {} at 1,000, as with exact leaves (`resolving_networks.json`",
    "resolving_networks.json",
    [
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/chips", "{:.2f}"),
      ("results/stack_1200/exploitability/resolving_network_10000/chips", "{:.2f}"),
    ],
  ),
  # docs/resolving.md, the agent with networks trained on its own queries
  (
    "docs/resolving.md",
    "at 3,000 iterations per re-solve ({} chips, {} mbb/g, with 10,000 situations)",
    "resolving_networks.json",
    [
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/chips", "{:.2f}"),
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/mbb_per_game", "{:.1f}"),
    ],
  ),
  (
    "docs/resolving.md",
    "{} and {} at 10,000, so the goal holds",
    "resolving_networks_10000_iterations_10000.json",
    [("results/seed_1/exploitability_chips", "{:.2f}"), ("results/seed_2/exploitability_chips", "{:.2f}")],
  ),
  (
    "docs/resolving.md",
    "and at 10,000 ({}, with 100,000)",
    "resolving_networks_100000_iterations_10000.json",
    [("results/exploitability_chips", "{:.2f}")],
  ),
  (
    "docs/resolving.md",
    "| 100,000 (50,000 + 3 x 16,667) | {} / {} |",
    "resolving_networks_100000.json",
    [
      ("results/stack_1200/value_network_data/100000/queries/0/error_on_them_before_training_on_them", "{:.3f}"),
      ("results/stack_1200/value_network_data/100000/queries/0/error_on_generated_held_out", "{:.3f}"),
    ],
  ),
  (
    "docs/resolving.md",
    "| the same, seeds 1 and 2 (`resolving_networks_seed1.json`, `_seed2.json`) | {} / {} | {} / {} |",
    "resolving_networks_seed1.json",
    [
      ("results/stack_1200/exploitability/resolving_network_10000/chips", "{:.2f}"),
      ("results/stack_1200/exploitability/resolving_network_10000/chips", lambda _: _chips("seed2", "")),
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/chips", "{:.2f}"),
      (
        "results/stack_1200/exploitability/resolving_network_10000/chips",
        lambda _: _chips("seed2", "_iterations_3000"),
      ),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "{} and {} at 3,000 with two other seeds",
    "resolving_networks_seed1.json",
    [
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/chips", "{:.2f}"),
      (
        "results/stack_1200/exploitability/resolving_network_10000/chips",
        lambda _: _chips("seed2", "_iterations_3000"),
      ),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "and {} with the mean of the three networks, `resolving_networks_ensemble.json`",
    "resolving_networks_ensemble.json",
    [("results/iterations_3000/exploitability_chips", "{:.2f}")],
  ),
  (
    "docs/resolving.md",
    "is better than any of them: {} chips at 3,000 iterations and {} at 10,000",
    "resolving_networks_ensemble.json",
    [
      ("results/iterations_3000/exploitability_chips", "{:.2f}"),
      ("results/iterations_10000/exploitability_chips", "{:.2f}"),
    ],
  ),
  # README.md, peers on Leduc as their authors run them
  (
    "benchmarks/README.md",
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
    "benchmarks/README.md",
    "OpenSpiel's C++ CFRSolver {} ms ({}x) and CFRPlusSolver {} ms ({}x)",
    "peers_leduc.json",
    [
      (f"{PEERS}/openspiel_cpp_cfr/runs", _median_ms("{:.1f}")),
      ("results/ratios/openspiel_cpp_cfr", "{:.0f}"),
      (f"{PEERS}/openspiel_cpp_cfr_plus/runs", _median_ms("{:.1f}")),
      ("results/ratios/openspiel_cpp_cfr_plus", "{:.0f}"),
    ],
  ),
  # README, the speed of the sampled solvers (ours[i]: K trajectories per update, B seeds, devices)
  (
    "benchmarks/README.md",
    "runs {}M trajectories/s, {}x OpenSpiel's C++ OutcomeSamplingMCCFRSolver ({}/s in that run); "
    "64 seeds {}x on one core "
    "and {}x over two (the goal is 30x); minibatches of K trajectories per update reach {}M/s on one core ({}x, "
    "K = {}) and {}M/s over two ({}x). External sampling on Leduc: {} ms per iteration, {}x OpenSpiel's C++ "
    "ExternalSamplingMCCFRSolver ({} ms in that run)",
    "mccfr_speed.json",
    [
      ("results/ours/0/trajectories_per_s", lambda x: f"{x / 1e6:.1f}"),
      ("results/ours/0/ratio_to_openspiel", "{:.1f}"),
      ("results/openspiel/trajectories_per_s", "{:,.0f}"),
      ("results/ours/1/ratio_to_openspiel", "{:.1f}"),
      ("results/ours/8/ratio_to_openspiel", "{:.1f}"),
      ("results/best_one_device/trajectories_per_s", lambda x: f"{x / 1e6:.1f}"),
      ("results/best_one_device/ratio_to_openspiel", "{:.1f}"),
      ("results/best_one_device/configuration/trajectories_per_update", "{:,}"),
      ("results/best/trajectories_per_s", lambda x: f"{x / 1e6:.1f}"),
      ("results/best/ratio_to_openspiel", "{:.1f}"),
      ("results/external_sampling/games/leduc_poker/ours/0/ms_per_iteration", "{:.4f}"),
      ("results/external_sampling/games/leduc_poker/es_speed_ratio_to_openspiel", "{:.1f}"),
      ("results/external_sampling/games/leduc_poker/openspiel/ms_per_iteration", "{:.4f}"),
    ],
  ),
  # docs/neural_cfr.md, Steinberger 2019's five-seed Leduc comparison
  (
    "docs/neural_cfr.md",
    "after {} iterations Deep CFR is at {} mbb/g [{}, {}] and SD-CFR at {} [{}, {}] (95% Student-t intervals over "
    "the seeds); the paired difference is {} [{}, {}], SD-CFR below in {} of 5 seeds",
    "neural_cfr_seeds.json",
    [
      ("results/evaluations/-1/iteration", "{}"),
      *(
        (f"results/evaluations/-1/{key}/{bound}", "{:.1f}")
        for key in ("deep_cfr_mbb", "sd_cfr_mbb")
        for bound in ("mean", "low", "high")
      ),
      *((f"results/evaluations/-1/deep_minus_sd_mbb/{bound}", "{:+.1f}") for bound in ("mean", "low", "high")),
      ("results/evaluations/-1/sd_cfr_below_in_seeds", "{}"),
    ],
  ),
  # docs/neural_cfr.md, the other games' table (three games, three methods each, in the file's order)
  (
    "docs/neural_cfr.md",
    " ".join(
      f"| {game} | `{method}` | {{}} | {{}} | {{}} | {{}} |"
      for game in ("liar's dice", "goofspiel(5)", "no-limit Leduc (stack 6)")
      for method in ("deep-cfr", "sd-cfr", "escher")
    ),
    "neural_cfr_games.json",
    [
      figure
      for row in range(9)
      for figure in (
        (f"results/curves/{row}/curve/-1/iteration", "{}"),
        (f"results/curves/{row}/seconds_per_iteration", "{:.2f}"),
        (f"results/curves/{row}/curve/-1/seconds", "{:.0f}"),
        (f"results/curves/{row}/final_mbb", "{:.1f}"),
      )
    ],
  ),
  # docs/neural_cfr.md, a batch of 8 seeds against one, with the fits and with the walks alone
  (
    "docs/neural_cfr.md",
    " ".join(
      f"| `{method}` | {{}} | {{}} | {{}}x | {{}} | {{}} | {{}}x | {{}} / {{}} |"
      for method in ("deep-cfr", "sd-cfr", "escher")
    ),
    "neural_cfr_batch.json",
    [
      figure
      for row in range(3)
      for figure in (
        *(
          (f"results/methods/{row}/{run}/{key}", fmt)
          for run in ("full", "walks_only")
          for key, fmt in (
            ("seconds_per_iteration_1_seeds", "{:.3f}"),
            ("seconds_per_iteration_8_seeds", "{:.3f}"),
            ("batch_over_one", "{:.2f}"),
          )
        ),
        (f"results/methods/{row}/fit_share_1_seeds", "{:.0%}"),
        (f"results/methods/{row}/fit_share_8_seeds", "{:.0%}"),
      )
    ],
  ),  # docs/neural_cfr.md, the longer Leduc runs' table (times to 100, 50 and 20 mbb/g; null: not reached)
  (
    "docs/neural_cfr.md",
    " ".join(
      f"| `{method}` | {{}} | {{}} | {{}} | {{}} | {{}} | {{}} | {{}} |"
      for method in ("deep-cfr", "sd-cfr", "cfr+", "escher")
    ),
    "neural_cfr_leduc.json",
    [
      figure
      for row in range(4)
      for figure in (
        (f"results/curves/{row}/curve/-1/iteration", "{}"),
        (f"results/curves/{row}/seconds_per_iteration", lambda x: f"{x:.3f}" if x >= 0.01 else _sci(x)),
        *((f"results/curves/{row}/seconds_to_{target}_mbb", _seconds_or_not_reached) for target in (100, 50, 20)),
        (f"results/curves/{row}/curve/-1/seconds", "{:.0f}"),
        (f"results/curves/{row}/final_mbb", "{:.1f}"),
      )
    ],
  ),
]

test_a_quoted_figure_is_the_results_file_s = quoted_test(QUOTES)
