#!/usr/bin/env bash
# How far bf16 keeps the verdicts of f32 on this CPU: every fixture model scores the whole of
# CrowS-Pairs (1,508 pairs) with `bias score --dtype f32` and `--dtype bf16` (weights and
# activations in bf16; log-softmax, logsumexp and sums in f32 and f64), and
# scripts/compare_scores.py prints, per scorer, the share of pairs whose verdict (which sentence
# scores higher) bf16 keeps, and the largest score difference. A benchmark: it prints figures,
# asserts nothing. docs/precision.md holds a run's table.
#
# Usage: [LIMIT=N] scripts/precision_agreement.sh [BIAS_BINARY] [MODEL ...]
#   (default target/release/bias if built, else target/debug/bias; a MODEL is a fixture's name
#   or a model folder; default: every masked and causal fixture; LIMIT: the first N pairs only)
set -euo pipefail
cd "$(dirname "$0")/.."
bias=${1:-}
[ -n "$bias" ] && shift
if [ -z "$bias" ]; then
  bias=target/debug/bias
  [ -x target/release/bias ] && bias=target/release/bias
fi
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(bert roberta albert distilbert electra xlm-roberta camembert deberta-v2 modernbert mpnet
          gpt2 llama mistral qwen2 gpt_neox opt gemma2 phi3 olmo2)
fi
work=$(mktemp -d /tmp/bias-precision.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "| model | scorer | pairs | verdicts kept by bf16 | largest score difference |"
echo "| --- | --- | ---: | ---: | ---: |"
limit=(); [ -n "${LIMIT:-}" ] && limit=(--limit "$LIMIT")
for spec in "${models[@]}"; do
  dir=$spec; [ -d "$dir" ] || dir=fixtures/models/$spec
  m=$(basename "$dir")
  for dt in f32 bf16; do
    "$bias" score --model "$dir" --dataset crows-pairs --data-dir data --device cpu \
      "${limit[@]}" --dtype "$dt" --out "$work/$m-$dt.csv" 2>"$work/$m-$dt.err" \
      || { echo "$m $dt failed: $(tail -3 "$work/$m-$dt.err")" >&2; exit 1; }
  done
  python3 scripts/compare_scores.py "$work/$m-f32.csv" "$work/$m-bf16.csv" --json "$work/$m.json" >/dev/null
  python3 - "$m" "$work/$m.json" <<'PY'
import json, sys
m, path = sys.argv[1], sys.argv[2]
for scorer, r in sorted(json.load(open(path)).items()):
    print(f"| {m} | {scorer} | {r['pairs']} | {100 * r['verdict_agreement']:.2f} % "
          f"| {r['max_abs_diff']:.3g} |")
PY
done
