#!/usr/bin/env bash
# The most informative paper-scale points, on one GPU within 8 minutes of wall time in all (one H200, 16 cores):
#
#   * BHive, the Renamer comparison: vanilla and renamer (tiny, the paper's learning rate 3e-4) on all of BHive's
#     training split, for as many epochs as the budget holds; test MAPE on original and renamed blocks
#     (bench_learning_curve.py). Needs llvm-mca (labels); without it the study is skipped and its row says so.
#   * LTL, dual-part with the interchangeable-token paper's authors' recipe (8 heads, post-LN blocks, inputs scaled by
#     sqrt(d), one random draw per batch, batches of 768, AdamW weight decay 0.1 and beta 2 0.95) on formulas up to
#     size 35 over 5 APs (LTLRandom35's distribution, 100,000 generated), and the same without the sqrt(d) scaling
#     (bench_ltl_train.py): correct, exact and alpha-covariance on 1,000 audited test formulas.
#   * The lexinvariant LM against a standard one, `small` at 512 characters of context, cosine schedule to its cap
#     (bench_lm_curves.py): perplexity by context position and their ratio.
#
# Phase 1 prepares the data on the CPUs (side by side), phase 2 trains and scores the six models side by side on
# the GPU, each stopped after its first epoch that ends past TRAIN_SECONDS, and bench/gpu_table.py prints every
# figure beside the paper's (OUT/gpu-studies.md). The epoch caps are guesses of what the budget holds; the table
# says how far each run got and what stopped it.
#
#   bench/gpu_studies.sh [--out DIR] [--device cuda]     # the studies (default OUT: gpu-studies)
#   bench/gpu_studies.sh --tiny [--out DIR]               # the same pipeline on the CPU in well under a minute:
#                                                         # fixtures, tiny sizes, a step or two (tests/bench)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python}"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
TINY=0
OUT=gpu-studies
DEVICE=cuda
while [ $# -gt 0 ]; do
  case "$1" in
    --tiny) TINY=1 ;;
    --out) OUT="$2"; shift ;;
    --device) DEVICE="$2"; shift ;;
    *) echo "usage: bench/gpu_studies.sh [--tiny] [--out DIR] [--device cuda|cpu]" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
LOGS="$OUT/logs"
mkdir -p "$LOGS"
BHIVE_SOURCE="$ROOT/../shared/data/bhive"

if [ "$TINY" = 1 ]; then
  DEVICE=cpu
  TRAIN_SECONDS=600    # never reached: the epoch caps end the tiny runs
  THREADS=1
  BHIVE=(--test-limit 12 --max-epochs 1 --batch-size 32)
  BLOCKS=64  # of the fixture's training split
  LTL_DATA=(--num 160 --max-size 5 --jobs 1)
  LTL=(--size tiny --epochs 1 --batch-size 32 --audit 6 --variants 2)
  LM_DATA=(--source "$ROOT/fixtures" --files 0 --seq-len 64)
  LM=(--size tiny --epochs 1 --train-windows 16 --test-windows 6 --window 20 --batch-size 16)
else
  TRAIN_SECONDS=180
  THREADS=2
  BHIVE=(--test-limit 2000 --max-epochs 30 --batch-size 64)
  BLOCKS=all
  LTL_DATA=(--num 100000 --max-size 35 --jobs 4 --valid-limit 2000)
  LTL=(--size tiny --epochs 20 --batch-size 768 --audit 1000 --variants 4)
  LM_DATA=(--files 800 --seq-len 512)
  LM=(--size small --epochs 5 --train-windows 16000 --test-windows 100 --window 50 --batch-size 32 --precision bf16)
fi
RECIPE=(--set n_head=8 --set norm_position=post --set random_draw=batch --weight-decay 0.1 --beta2 0.95)
COMMON=(--device "$DEVICE" --threads "$THREADS" --time-limit "$TRAIN_SECONDS")
SECONDS=0

# ------------------------------------------------------------------ phase 1: data, side by side on the CPUs
pids=()
if command -v llvm-mca >/dev/null; then
  if [ "$TINY" = 1 ]; then
    mkdir -p "$OUT/bhive-data"  # a copy: training caches its encodings beside the data
    cp "$ROOT"/fixtures/blocks/{train,valid,test}.csv "$ROOT/fixtures/blocks/meta.json" "$OUT/bhive-data/"
  else
    "$PYTHON" -m invar data bhive --source "$BHIVE_SOURCE" --out "$OUT/bhive-data" --jobs 11 \
      >"$LOGS/bhive-data.log" 2>&1 &
    pids+=($!)
  fi
else
  echo "llvm-mca not found: the BHive study is skipped" | tee "$LOGS/bhive-data.log"
fi
"$PYTHON" bench/bench_ltl_train.py --out "$OUT/ltl" --general 0 "${LTL_DATA[@]}" --prepare-only \
  >"$LOGS/ltl-data.log" 2>&1 &
pids+=($!)
"$PYTHON" bench/bench_lm_curves.py --out "$OUT/lm-learned" "${LM_DATA[@]}" --prepare-only \
  >"$LOGS/lm-data.log" 2>&1 &
pids+=($!)
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done  # a study without its data is a row that says so
mkdir -p "$OUT/lm-lexinvariant"
[ -e "$OUT/lm-lexinvariant/data" ] || ln -s ../lm-learned/data "$OUT/lm-lexinvariant/data"
echo "data ready after ${SECONDS} s ($failed failed: see $LOGS)"

# ------------------------------------------------------ phase 2: six models side by side on the device
pids=()
if [ -f "$OUT/bhive-data/train.csv" ]; then
  blocks=$BLOCKS
  if [ "$blocks" = all ]; then blocks=$(($(wc -l <"$OUT/bhive-data/train.csv") - 1)); fi  # the whole training split
  for arch in vanilla renamer; do
    "$PYTHON" bench/bench_learning_curve.py --data "$OUT/bhive-data" --out "$OUT/bhive" --archs "$arch" \
      --sizes "$blocks" --seeds 0 --lr 3e-4 --patience 1000 "${BHIVE[@]}" "${COMMON[@]}" \
      >"$LOGS/bhive-$arch.log" 2>&1 &
    pids+=($!)
  done
fi
for variant in recipe recipe-unscaled; do
  extra=()
  if [ "$variant" = recipe-unscaled ]; then extra=(--set embed_scaling=none); fi
  "$PYTHON" bench/bench_ltl_train.py --out "$OUT/ltl" --general 0 "${LTL_DATA[@]}" "${LTL[@]}" --archs dualpart \
    --label "$variant" "${RECIPE[@]}" "${extra[@]}" "${COMMON[@]}" >"$LOGS/ltl-$variant.log" 2>&1 &
  pids+=($!)
done
for model in learned lexinvariant; do
  # the lexinvariant paper's unit-variance vectors: the recipe at the scale it was made for
  "$PYTHON" bench/bench_lm_curves.py --out "$OUT/lm-$model" "${LM_DATA[@]}" "${LM[@]}" --models "$model" \
    --random-vectors unit \
    "${COMMON[@]}" >"$LOGS/lm-$model.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
echo "studies done after ${SECONDS} s ($failed failed: see $LOGS)"

# ------------------------------------------------------------------------- the table
"$PYTHON" bench/gpu_table.py "$OUT"
echo "wall time ${SECONDS} s; reports under $OUT"
exit "$failed"
