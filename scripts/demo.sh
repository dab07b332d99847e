#!/usr/bin/env bash
# The main job end to end on the real data, with a small demonstration masked LM that the
# project builds itself (run through `make demo`, which runs setup and builds the release binary).
#
# 1. Data-set statistics of CrowS-Pairs and StereoSet.
# 2. The demo model, data/demo-mlm/: the real all-MiniLM-L6-v2 encoder (6 layers, hidden 384)
#    with a new masked-LM head, fine-tuned by `bias finetune` on BUG sentences (480 steps of 32
#    sentences, ~10 minutes on 2 CPU cores the first time; reused afterwards). Its random-head
#    starting point (0 steps) is kept as the baseline: of token-prediction accuracy, and as the
#    second model of the report.
# 3. `bias evaluate` of the demo model and its baseline on CrowS-Pairs and StereoSet with every
#    scorer (AUL, AULA, CPS, SSS, all-masked) and measure (indicator, KLS, JSS).
#    Then StereoSet's two tasks on the demo model (`bias task stereoset`), and BBQ and
#    Winogender as lm-evaluation-harness runs them on a tiny causal LM (`bias task`).
# 4. Embedding measures (SAME, WEAT, gWEAT, DirectBias per bias type) on all-MiniLM-L6-v2.
# 5. `bias report` on the score tables of the demo model and of its random-head baseline, side by
#    side.
# 6. `bias reproduce` of each of the five papers on the demo model at 480, 120 and 0 steps.
#
# Every step resumes or reuses its output, so a second run takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
BIAS=${BIAS:-target/release/bias}
OUT=${OUT:-out/demo}
DEMO=data/demo-mlm
BASELINE=data/demo-mlm-random-head
EARLY=data/demo-mlm-120
mkdir -p "$OUT"

step() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

# The demo model's recipe; changing it retrains (the folder records its settings).
TRAIN=(--base data/all-MiniLM-L6-v2 --new-mlm-head --corpus data/bug/full_BUG.csv
       --batch-size 32 --learning-rate 3e-4 --warmup-ratio 0.06
       --max-length 64 --seed 42 --checkpoint-every 100)

step "CrowS-Pairs" "$BIAS" data stats data/crows-pairs/crows_pairs_anonymized.csv
step "StereoSet (dev)" "$BIAS" data stats data/stereoset/dev.json
step "Demo model: all-MiniLM-L6-v2 + new MLM head, fine-tuned on BUG (resumable, then reused)" \
  "$BIAS" finetune "${TRAIN[@]}" --max-steps 480 --out "$DEMO"
step "Baseline: the same model with its random head (0 steps)" \
  "$BIAS" finetune "${TRAIN[@]}" --max-steps 0 --out "$BASELINE"
step "The same recipe stopped at 120 steps (a third model for the comparisons of the papers)" \
  "$BIAS" finetune "${TRAIN[@]}" --max-steps 120 --out "$EARLY"
step "Baseline (the random head) on CrowS-Pairs: every scorer, and its token-prediction accuracy" \
  "$BIAS" evaluate --model "$BASELINE" --dataset crows-pairs --out "$OUT/random_head/crows_pairs.csv"
step "Baseline on StereoSet (the report's second model)" \
  "$BIAS" evaluate --model "$BASELINE" --dataset stereoset --out "$OUT/random_head/stereoset.csv"
step "Demo model on CrowS-Pairs: every scorer and measure" \
  "$BIAS" evaluate --model "$DEMO" --dataset crows-pairs --out "$OUT/crows_pairs.csv"
step "Demo model on StereoSet (intrasentence dev): every scorer and measure" \
  "$BIAS" evaluate --model "$DEMO" --dataset stereoset --out "$OUT/stereoset.csv"
step "StereoSet's two tasks (intrasentence and intersentence, first 300 items each) on the demo model" \
  "$BIAS" task stereoset --model "$DEMO" --split dev --limit 300 --out "$OUT/tasks/demo-mlm"
# BBQ and Winogender score answers with a causal LM; no real one ships in a package here, so the
# tiny random GPT-2 of the test fixtures shows the commands and their output (its numbers mean
# nothing). Give --model a Hugging Face causal-LM folder (gpt2, Llama, Mistral, Qwen2) instead.
step "BBQ (20 examples per category) as lm-evaluation-harness's bbq task, with the authors' scores" \
  "$BIAS" task bbq --model fixtures/models/gpt2 --per-category 20 --out "$OUT/tasks/gpt2-fixture"
step "Winogender as lm-evaluation-harness's winogender tasks" \
  "$BIAS" task winogender --model fixtures/models/gpt2 --out "$OUT/tasks/gpt2-fixture"
step "Embedding measures on all-MiniLM-L6-v2 (CrowS-Pairs protocol of schroeder2024)" \
  "$BIAS" embed --model data/all-MiniLM-L6-v2 --dataset crows-pairs
step "Report (HTML and Markdown, with figures): the demo model beside its random-head baseline" \
  "$BIAS" report --scores "$OUT/crows_pairs.csv" "$OUT/stereoset.csv" \
  "$OUT/random_head/crows_pairs.csv" "$OUT/random_head/stereoset.csv" --out "$OUT/report"

# 6. Every table and figure of the five papers on the demo model, its 120-step and random-head
#    versions
#    (`bias reproduce`; docs/reproduction.md is the matrix). Each (model, data set) is scored
#    once into $OUT/scores and shared by the five reproductions. REPRO_PAIRS pairs per data set
#    keep this to minutes on 2 CPU cores; REPRO_PAIRS=all runs the full data sets.
REPRO_PAIRS=${REPRO_PAIRS:-200}
LIMIT=(--max-pairs "$REPRO_PAIRS")
[ "$REPRO_PAIRS" = all ] && LIMIT=()
for paper in kaneko2022 liu2024 paraphrase schroeder2024; do
  step "Reproduction of $paper" "$BIAS" reproduce "$paper" --models "$DEMO" "$EARLY" "$BASELINE" \
    --out "$OUT/reproduce/$paper" --scores "$OUT/scores" "${LIMIT[@]}"
done
# kaneko2023 fine-tunes one model per rate of bias and corpus: here the demo model only, three
# rates and 320 sentences per rate for one epoch (the paper: eleven rates of 2 M sentences; the
# defaults of --kaneko2023-* are the paper's).
step "Reproduction of kaneko2023 (reduced fine-tuning)" "$BIAS" reproduce kaneko2023 \
  --models "$DEMO" --out "$OUT/reproduce/kaneko2023" --scores "$OUT/scores" "${LIMIT[@]}" \
  --kaneko2023-rates 0,0.5,1 --kaneko2023-sentences 320 --kaneko2023-epochs 1 \
  --kaneko2023-batch-size 32 --kaneko2023-learning-rate 1e-4

printf '\nThe demo model is a small demonstration (a sentence encoder given an MLM head and 480\n'
printf 'steps of training), not a model whose biases mean anything. Run the same commands with\n'
printf '`--model path/to/your-model` (a Hugging Face folder) to measure a real one.\n'
printf '\nReport: %s\n' "$OUT/report/index.html"
printf 'Reproductions: %s\n' "$OUT/reproduce/*/index.html"
