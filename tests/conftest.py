"""Test configuration: float64 everywhere, a private, throw-away game cache, one
persistent cache of compiled programs for the session, and XLA's code generation unoptimised.

These settings must happen before jaxcfr (or anything that imports JAX arrays) is used, so
they run at import time of this file, which pytest imports before any test module. The
compilation cache is shared (through the environment) by the pytest-xdist workers, the
command-line subprocesses and the notebooks' kernels: a program compiled once, e.g. Leduc's
CFR+ step, is read back instead of compiled again after each module's ``clear_caches``
and in every other process. It changes what is compiled nowhere, only how often.
"""

import os
import tempfile

os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", tempfile.mkdtemp(prefix="jaxcfr-test-xla-cache-"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.1")
# LLVM's optimisation of the machine code is off in the tests (and the processes they start):
# the same XLA programs, compiled in about half the time, and compiling is most of a test's
# time. It can change a float result's last bits (e.g. where LLVM would fuse a multiply and an
# add); speed is measured in benchmarks/, never here. JAXCFR_TESTS_OPTIMISED_XLA=1 keeps
# XLA's default.
if not os.environ.get("JAXCFR_TESTS_OPTIMISED_XLA"):
  os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_backend_optimization_level=0".strip()

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
os.environ.setdefault("JAXCFR_CACHE_DIR", tempfile.mkdtemp(prefix="jaxcfr-test-cache-"))


import gc  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
  """Drops JAX's compiled programs after each test module. The suite compiles thousands of
  programs in one process; XLA:CPU keeps each one's machine code in its own memory mappings,
  and past the kernel's map-count limit (65,530 by default) a compilation aborts the process."""
  yield
  jax.clear_caches()
  gc.collect()


# The fast tier (``python -m pytest -q -m "not slow"``, a few minutes on two cores) leaves out
# what takes the longest: whole modules of end-to-end runs (notebooks, re-solving, processes,
# the docs' build, the hold'em tables) and the largest cases of parametrised checks. The
# README's test command runs everything.
SLOW_MODULES = (
  "test_notebooks.py",
  "test_notebooks_second_half.py",
  "test_resolving.py",
  "test_resolving_cli.py",
  "test_value_network.py",
  "test_distributed.py",
  "test_docs.py",
  "test_memory.py",
  "test_big_games.py",
  "test_fuzz.py",
  "test_sharding.py",
  "test_limit_holdem.py",
  "test_hand_strength.py",
  "test_chelarescu_figures.py",
  "test_benchmark_entry.py",
  "test_float32.py",
  "test_readme.py",
  "test_doc_snippets.py",
  "test_poker_tools.py",
  "test_hostile.py",
  "test_cli_matrix.py",
)
SLOW_TESTS = (
  "test_ctrl_c_saves_a_checkpoint",
  "conformance_kit_in_every_representation[no_limit_leduc_poker",
  "conformance_kit_in_every_representation[leduc_poker-public_tree",
  "conformance_kit_in_every_representation[hunl_subgame",
  "conformance_kit_in_every_representation[limit_holdem",
  "conformance_kit[mccfr-os-card_abstraction",
  "conformance_kit[cfr-cs-card_abstraction",
  "conformance_kit[mcrnr-card_abstraction",
  "conformance_kit[mcts-card_abstraction",
  "conformance_kit[deep-cfr-",  # the neural solvers' default options: 15 s each on Kuhn
  "conformance_kit[sd-cfr-",
  "conformance_kit[escher-",
  "test_leduc_strategies_are_zero_at_illegal_actions",
  "test_a_batch_of_seeds_equals_the_seeds_run_alone[deep-cfr",  # sd-cfr's stays in the fast tier
  "test_a_batch_of_seeds_equals_the_seeds_run_alone[escher",
  "test_presets_reproduce_openspiel_trajectories[leduc_poker",
  "test_sampled_estimates_are_unbiased[leduc_poker",
  "test_figure_7_script_runs",
  "test_tradeoff_script_runs",
  "test_small_deck_holdem",
  "test_a_batch_of_ranges_is_one_program",
  "iterate_by_iterate[no_limit_leduc_poker",
  "iterate_by_iterate[liars_dice",
  # float32 conformance of every registration (the float64 one stays), and the costliest cases
  "conformance_kit_in_float32",
  "conformance_kit[rcfr-",
  "conformance_kit[cfr-public_tree",
  "conformance_kit_in_every_representation[liars_dice",
  "conformance_kit_in_every_representation[kuhn_poker-public_tree",
  "compiles_into_one_kernel",
  "convergence_comparable_to_openspiel[mccfr-es-leduc",
  "frontiers_never_overflow_and_fill_their_capacity[leduc",
  "simultaneous_outcome_sampling_updates_both_players_from_one_walk",
  "batch_over_seeds_equals_runs_alone[cfr-cs",
  "optimistic_averaging_updates_each_visited_infoset_once",
  "test_cli_solve_sampled_batch",
  "chance_sampling_and_optimistic_averaging_converge",
  "test_regret_tolerance_keeps_the_ties",
  "test_two_card_hands_equal_a_sequence_form",
  "iterate_by_iterate[leduc_poker",
  "best_response_profile_attains_each_seats_best_response_value[leduc",
  "test_batched_cfr_iteration_holds_no_scatter",
  "update_rules_iterate_by_iterate[dcfr-pfs-leduc_poker-public_tree",
  "test_the_gradient_of_the_lockers_value",
  "quadratic_definition[endgame4",
  "test_the_command_line_reports_the_sizes",
  "test_cli_writes_rows",
  "conformance_kit[mccfr-es-",
  "conformance_kit[cfr-cs-",
  "conformance_kit[mcrnr-",
  "test_a_batch_of_one_run_equals_the_run[mcts",
  "test_abstraction_regressor_is_cfr_on_the_abstract_game",
  "test_a_checkpoint_policy_keeping_the_sequence_values",
  # the public tree's registrations but CFR+ (the family's iterates equal the sequence form's:
  # tests/test_public_tree.py, fast)
  *(f"conformance_kit[{name}-public_tree]" for name in ("cfr", "lcfr", "dcfr", "pcfr+", "rm", "rm+", "dcfr-pfs")),
  *(f"conformance_kit[{name}-public_tree]" for name in ("dcfr-ts", "rnr", "dbr", "locked")),
  "test_driver_runs_seeds_as_a_batch",
  "test_values_match_the_sequence_form[no_limit_leduc_poker",
  "test_gradients_through_cfr_plus_and_rnr",
  "test_p_zero_is_an_equilibrium",
  "test_with_initial_ranges_normalises_as_the_builder_does",
  "conformance_kit_in_every_representation[one_card_poker(num_cards=5)-public_tree",
  "test_the_doctested_examples_run[jaxcfr.poker.boards",
)


@pytest.hookimpl(tryfirst=True)  # before the -m selection reads the markers
def pytest_collection_modifyitems(config, items):
  del config
  for item in items:
    if item.nodeid.split("::")[0].endswith(SLOW_MODULES) or any(name in item.nodeid for name in SLOW_TESTS):
      item.add_marker(pytest.mark.slow)
