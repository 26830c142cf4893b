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
#   7. the turn endgames' curves, with what time is left.
# Usage (repository root, on the GPU machine): bash benchmarks/gpu_runs.sh OUTDIR
# The library is run from the tree without installing it (the machine has no package index):
# a link jaxcfr/games -> ../games gives games/ its installed name, jaxcfr.games.
set -u
out=${1:?usage: gpu_runs.sh OUTDIR}
deadline=$(($(date +%s) + ${SECONDS_TOTAL:-520}))  # the H200 run of 2026-11-27 took 500 s for steps 1-6
export PYTHONUNBUFFERED=1 JAXCFR_MAX_MEMORY=4T
ln -sfn ../games jaxcfr/games || exit 1  # the package layout pyproject installs
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
python3 -c "import jax, jaxcfr; print(jax.__version__, jax.devices())" || exit 1

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

step 200 endgames public_tree --parts endgames --iterations 1000 --every 50 --turn-iterations 20 \
  --out "$out/public_tree_gpu.json"
step 140 flop_dcfr public_tree --parts flop --flop-algorithms dcfr --every 10 --iterations 3000 --max-minutes 1.5 \
  --out "$out/public_tree_flop_gpu.json"
step 80 accelerator accelerator --sections batches,profile --batches 1,64,1024,4096 \
  --out "$out/accelerator_gpu.json"
step 70 range_batch public_tree --parts range_batch --batches 1,1024 --iterations 200 --every 100 \
  --out "$out/public_tree_range_batch_gpu.json"
step 150 leduc public_tree --parts leduc --leduc-batches 64,1024 --out "$out/public_tree_leduc_gpu.json"
step 80 flop_pcfr public_tree --parts flop --flop-algorithms pcfr+ --every 10 --iterations 3000 --max-minutes 1 \
  --out "$out/public_tree_flop_pcfr_gpu.json"
step 200 turn_curves public_tree --parts turn_curves --turn-endgames 2,1 --iterations 1000 --every 50 \
  --max-minutes 0.25 --out "$out/public_tree_turn_curves_gpu.json"
nvidia-smi --query-gpu=name,memory.used --format=csv
