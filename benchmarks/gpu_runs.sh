#!/usr/bin/env bash
# The GPU measurements in one run, most wanted first, each under its own time cap and the
# whole under SECONDS_TOTAL (default 520), so that a cut-short run keeps what it measured:
#   1. the Libratus endgames (public tree): rivers' CFR+/DCFR/PCFR+ curves to 1,000
#      iterations, the turns timed per iteration;
#   2. the flop subgame (benchmarks/public_tree.py FLOP) with DCFR to 0.5% of the pot;
#   3. the accelerator suite's Leduc batches (sequence form) and loop-body kernel count;
#   4. a batch of 1,024 river subgames with different ranges;
#   5. Leduc on the public tree and the sequence form, one run and batches of 64 and 1,024;
#   6. the flop subgame with PCFR+;
#   7. the turn endgames' curves, with what time is left;
#   8. (only when STEPS names it) profile: the flop subgame's step taken apart
#      (benchmarks/public_tree_profile.py), with the device's trace of two steps.
# Usage (repository root, on the GPU machine): bash benchmarks/gpu_runs.sh OUTDIR
# STEPS (default: steps 1-7) names the steps to run, in the order given, e.g.
# STEPS="profile flop_dcfr leduc".
# The library is run from the tree without installing it (the machine has no package index):
# a link jaxcfr/games -> ../games gives games/ its installed name, jaxcfr.games.
set -u
out=${1:?usage: gpu_runs.sh OUTDIR}
deadline=$(($(date +%s) + ${SECONDS_TOTAL:-520}))  # the H200 run of 2026-11-27 took 500 s for steps 1-6
export PYTHONUNBUFFERED=1 JAXCFR_MAX_MEMORY=4T
ln -sfn ../games jaxcfr/games || exit 1  # the package layout pyproject installs
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
python3 -c "import jax, jaxcfr; print(jax.__version__, jax.devices())" || exit 1

steps=${STEPS:-endgames flop_dcfr accelerator range_batch leduc flop_pcfr turn_curves}
flop="board=Td9d6h,pot=200,stack=1000,big_blind=10,first_bets=0.5;allin,raises=1;allin,max_raises=2"

step() { # step CAP NAME ARGS...: run one benchmark for at most CAP seconds (less if the deadline is near)
  local cap=$1 name=$2 left=$((deadline - $(date +%s)))
  shift 2
  ((left < cap)) && cap=$left
  ((cap < 20)) && { echo "skipped $name: ${left}s left"; return; }
  echo "== $name (at most ${cap}s)"
  local start=$(date +%s)
  timeout "$cap" python3 -m benchmarks "$@"
  echo "== $name: exit $?, $(($(date +%s) - start))s"
}

run_step() { # run_step NAME: one of the steps above
  case $1 in
  endgames) step 200 endgames public_tree --parts endgames --iterations 1000 --every 50 --turn-iterations 20 \
    --out "$out/public_tree_gpu.json" ;;
  flop_dcfr) step 140 flop_dcfr public_tree --parts flop --flop-algorithms dcfr --every 10 --iterations 3000 \
    --max-minutes 1.5 --out "$out/public_tree_flop_gpu.json" ;;
  accelerator) step 80 accelerator accelerator --sections batches,profile --batches 1,64,1024,4096 \
    --out "$out/accelerator_gpu.json" ;;
  range_batch) step 70 range_batch public_tree --parts range_batch --batches 1,1024 --iterations 200 --every 100 \
    --out "$out/public_tree_range_batch_gpu.json" ;;
  leduc) step 150 leduc public_tree --parts leduc --leduc-batches 64,1024 --out "$out/public_tree_leduc_gpu.json" ;;
  flop_pcfr) step 80 flop_pcfr public_tree --parts flop --flop-algorithms pcfr+ --every 10 --iterations 3000 \
    --max-minutes 1 --out "$out/public_tree_flop_pcfr_gpu.json" ;;
  turn_curves) step 200 turn_curves public_tree --parts turn_curves --turn-endgames 2,1 --iterations 1000 --every 50 \
    --max-minutes 0.25 --out "$out/public_tree_turn_curves_gpu.json" ;;
  profile) step 200 profile public_tree_profile --game "hunl_subgame($flop)" --trace --top 60 \
    --step-bytes 268435456,1073741824 --out "$out/public_tree_profile_gpu.json" ;;
  *) echo "unknown step $1" ;;
  esac
}
for name in $steps; do run_step "$name"; done
nvidia-smi --query-gpu=name,memory.used --format=csv
