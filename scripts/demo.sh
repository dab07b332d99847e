#!/usr/bin/env bash
# The main job end to end on the real data, with a small demonstration masked LM that the
# project builds itself. Two sizes (run through the Makefile, which runs setup and builds the
# release binary first):
#
#   make demo       (scripts/demo.sh)         the main job in minutes, into out/demo-quick/
#   make demo-full  (scripts/demo.sh --full)  everything, into out/demo/ (about an hour cold)
#
# Both:
# 1. data-set statistics of CrowS-Pairs and StereoSet;
# 2. the demo model: the real all-MiniLM-L6-v2 encoder (6 layers, hidden 384) with a new
#    masked-LM head, fine-tuned by `bias finetune` on BUG sentences (batches of 32; reused once
#    trained), and its random-head starting point (0 steps) as the baseline;
# 3. `bias evaluate` of the demo model and of its baseline on CrowS-Pairs and StereoSet with every
#    scorer (AUL, AULA, CPS, SSS, all-masked) and measure (indicator, KLS, JSS, intervals);
#    StereoSet's two tasks on the demo model (`bias task stereoset`); BBQ and Winogender as
#    lm-evaluation-harness runs them, on a tiny causal LM (`bias task`);
# 4. embedding measures (SAME, WEAT, gWEAT, DirectBias per bias type) on all-MiniLM-L6-v2;
# 5. `bias report`: the demo model beside its baseline;
# 6. `bias reproduce`: one paper (quick) or all five (full).
#
# What the quick run cuts, to finish in about 15 minutes on a fresh clone of an idle 2-core
# machine (setup and release build included): the demo model is trained 120 steps (full: 480, and
# the 120-step model is kept as a third model); `bias evaluate` scores the first QUICK_PAIRS pairs
# (default 200) of each data set (full: all 1,508 CrowS-Pairs and 2,106 StereoSet pairs, plus
# StereoSet's unrelated comparisons); `bias task stereoset` the first 100 items of each task (full:
# 300); one reproduction, liu2024, on two models and 200 pairs (full: all five papers on three
# models). Every subset is named in the command that makes it and in the output.
#
# Every step reuses its output (score tables resume, trained models are kept), so a rerun takes
# seconds. Each step prints, before it starts, what it does and about how long it takes on 2 CPU
# cores (measured on this project's machine, 2026-11-28; a first run, nothing cached).
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=quick
case "${1:-}" in
  --full) MODE=full ;;
  "" | --quick) ;;
  *) printf 'usage: scripts/demo.sh [--quick | --full]\n' >&2; exit 2 ;;
esac
BIAS=${BIAS:-target/release/bias}
DEMO=data/demo-mlm
EARLY=data/demo-mlm-120
BASELINE=data/demo-mlm-random-head
if [ "$MODE" = quick ]; then
  OUT=${OUT:-out/demo-quick}
  MODEL=$EARLY
else
  OUT=${OUT:-out/demo}
  MODEL=$DEMO
fi
mkdir -p "$OUT"
START=$SECONDS

# step TITLE ESTIMATE COMMAND...: says what runs and for about how long, then runs it.
step() {
  printf '\n== %s  [about %s on 2 cores; %s elapsed]\n$ %s\n' "$1" "$2" \
    "$(elapsed)" "${*:3}"
  "${@:3}"
}
elapsed() { printf '%dm%02ds' $(((SECONDS - START) / 60)) $(((SECONDS - START) % 60)); }

# The demo model's recipe; changing it retrains (the folder records its settings).
TRAIN=(--base data/all-MiniLM-L6-v2 --new-mlm-head --corpus data/bug/full_BUG.csv
       --batch-size 32 --learning-rate 3e-4 --warmup-ratio 0.06
       --max-length 64 --seed 42 --checkpoint-every 100)

step "CrowS-Pairs" "1 s" "$BIAS" data stats data/crows-pairs/crows_pairs_anonymized.csv
step "StereoSet (dev)" "1 s" "$BIAS" data stats data/stereoset/dev.json
if [ "$MODE" = full ]; then
  step "Demo model: all-MiniLM-L6-v2 + new MLM head, fine-tuned 480 steps on BUG (resumable, then reused)" \
    "9 min" "$BIAS" finetune "${TRAIN[@]}" --max-steps 480 --out "$DEMO"
fi
step "The same recipe stopped at 120 steps ($([ "$MODE" = quick ] && echo "the quick demo's model" || echo "a third model for the papers' comparisons"))" \
  "2.5 min" "$BIAS" finetune "${TRAIN[@]}" --max-steps 120 --out "$EARLY"
step "Baseline: the same model with its random head (0 steps)" \
  "10 s" "$BIAS" finetune "${TRAIN[@]}" --max-steps 0 --out "$BASELINE"

# 3. Scores with every scorer and measure: a subset in the quick run.
if [ "$MODE" = quick ]; then
  QUICK_PAIRS=${QUICK_PAIRS:-200}
  SUBSET=(--limit "$QUICK_PAIRS")
  WHICH="first $QUICK_PAIRS pairs"
  TIMES=("30 s" "40 s")
  TASK_ITEMS=100
else
  SUBSET=()
  WHICH="all pairs"
  TIMES=("3.5 min" "7 min")
  TASK_ITEMS=300
fi
step "Baseline (the random head) on CrowS-Pairs ($WHICH): every scorer, and its token-prediction accuracy" \
  "${TIMES[0]}" "$BIAS" evaluate --model "$BASELINE" --dataset crows-pairs "${SUBSET[@]}" \
  --out "$OUT/random_head/crows_pairs.csv"
step "Baseline on StereoSet ($WHICH; the report's second model)" \
  "${TIMES[1]}" "$BIAS" evaluate --model "$BASELINE" --dataset stereoset "${SUBSET[@]}" \
  --out "$OUT/random_head/stereoset.csv"
step "Demo model on CrowS-Pairs ($WHICH): every scorer and measure" \
  "${TIMES[0]}" "$BIAS" evaluate --model "$MODEL" --dataset crows-pairs "${SUBSET[@]}" \
  --out "$OUT/crows_pairs.csv"
step "Demo model on StereoSet (intrasentence dev, $WHICH): every scorer and measure" \
  "${TIMES[1]}" "$BIAS" evaluate --model "$MODEL" --dataset stereoset "${SUBSET[@]}" \
  --out "$OUT/stereoset.csv"
step "StereoSet's two tasks (intrasentence and intersentence, first $TASK_ITEMS items each) on the demo model" \
  "$([ "$MODE" = quick ] && echo "20 s" || echo "50 s")" \
  "$BIAS" task stereoset --model "$MODEL" --split dev --limit "$TASK_ITEMS" \
  --out "$OUT/tasks/$(basename "$MODEL")"
# BBQ and Winogender score answers with a causal LM; no real one ships in a package here, so the
# tiny random GPT-2 of the test fixtures shows the commands and their output (its numbers mean
# nothing). Give --model a Hugging Face causal-LM folder (gpt2, Llama, Mistral, Qwen2) instead.
step "BBQ (20 examples per category) as lm-evaluation-harness's bbq task, with the authors' scores" \
  "2 s" "$BIAS" task bbq --model fixtures/models/gpt2 --per-category 20 --out "$OUT/tasks/gpt2-fixture"
step "Winogender as lm-evaluation-harness's winogender tasks" \
  "1 s" "$BIAS" task winogender --model fixtures/models/gpt2 --out "$OUT/tasks/gpt2-fixture"
step "Embedding measures on all-MiniLM-L6-v2 (CrowS-Pairs protocol of schroeder2024)" \
  "15 s" "$BIAS" embed --model data/all-MiniLM-L6-v2 --dataset crows-pairs
# The random head is the baseline of the report's paired differences: B − A is what training
# added beyond what any head prefers.
step "Report (HTML and Markdown, with figures): the demo model beside its random-head baseline, their paired differences tested" \
  "10 s" "$BIAS" report --scores "$OUT/crows_pairs.csv" "$OUT/stereoset.csv" \
  "$OUT/random_head/crows_pairs.csv" "$OUT/random_head/stereoset.csv" \
  --baseline demo-mlm-random-head --out "$OUT/report"

# 6. The papers' tables and figures (`bias reproduce`; docs/reproduction.md is the matrix). Each
#    (model, data set) is scored once into $OUT/scores and shared by the reproductions.
#    REPRO_PAIRS pairs per data set keep this to minutes on 2 CPU cores; REPRO_PAIRS=all runs
#    the full data sets.
REPRO_PAIRS=${REPRO_PAIRS:-200}
LIMIT=(--max-pairs "$REPRO_PAIRS")
[ "$REPRO_PAIRS" = all ] && LIMIT=()
if [ "$MODE" = quick ]; then
  step "Reproduction of liu2024 (KLS, JSS, robustness to sub-sampling) on the demo model and its baseline, first $REPRO_PAIRS pairs" \
    "1.5 min" "$BIAS" reproduce liu2024 --models "$MODEL" "$BASELINE" \
    --out "$OUT/reproduce/liu2024" --scores "$OUT/scores" "${LIMIT[@]}"
else
  declare -A REPRO_TIME=([kaneko2022]="5 min" [liu2024]="1.5 min" [paraphrase]="1 min" [schroeder2024]="1 min")
  for paper in kaneko2022 liu2024 paraphrase schroeder2024; do
    step "Reproduction of $paper" "${REPRO_TIME[$paper]}" "$BIAS" reproduce "$paper" \
      --models "$DEMO" "$EARLY" "$BASELINE" \
      --out "$OUT/reproduce/$paper" --scores "$OUT/scores" "${LIMIT[@]}"
  done
  # kaneko2023 fine-tunes one model per rate of bias and corpus: here the demo model only, three
  # rates and 320 sentences per rate for one epoch (the paper: eleven rates of 2 M sentences; the
  # defaults of --kaneko2023-* are the paper's).
  step "Reproduction of kaneko2023 (reduced fine-tuning)" "5 min" "$BIAS" reproduce kaneko2023 \
    --models "$DEMO" --out "$OUT/reproduce/kaneko2023" --scores "$OUT/scores" "${LIMIT[@]}" \
    --kaneko2023-rates 0,0.5,1 --kaneko2023-sentences 320 --kaneko2023-epochs 1 \
    --kaneko2023-batch-size 32 --kaneko2023-learning-rate 1e-4
fi

printf '\nThe demo model is a small demonstration (a sentence encoder given an MLM head and %s\n' \
  "$([ "$MODE" = quick ] && echo 120 || echo 480)"
printf 'steps of training), not a model whose biases mean anything. Run the same commands with\n'
printf '`--model path/to/your-model` (a Hugging Face folder) to measure a real one.\n'
if [ "$MODE" = quick ]; then
  printf '\nThis was the quick demo (%s): a 120-step model, the first %s pairs of each data set,\n' \
    "$(elapsed)" "$QUICK_PAIRS"
  printf 'one reproduction. `make demo-full` runs everything (about an hour on 2 cores) into out/demo/.\n'
fi
printf '\nReport: %s\n' "$OUT/report/index.html"
printf 'Reproductions: %s\n' "$OUT/reproduce/*/index.html"
