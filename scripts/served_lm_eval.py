#!/usr/bin/env python3
"""lm-evaluation-harness's `bbq` task through its `local-completions` model on a served model,
for scripts/served_test.sh to compare `bias task bbq --model URL` with.

    python scripts/served_lm_eval.py URL MODEL TOKENIZER_DIR PER_CATEGORY OUT.json

URL is the server's `http://HOST:PORT/v1`, MODEL the served name. The task and its documents are
those of scripts/fixtures/lm_eval_bbq_winogender.py (lm-eval 0.4.13's own bbq YAML and utils,
the first PER_CATEGORY lines of each data/bbq/<Category>.jsonl through the task's
`custom_dataset` hook); the model is `lm_eval.models.openai_completions.LocalCompletionsAPI(
base_url=URL/completions, model=MODEL, tokenizer=TOKENIZER_DIR, tokenizer_backend="huggingface",
tokenized_requests=True, add_bos_token=True, max_length=512, num_concurrent=8, batch_size=16)`,
which sends each request as token ids with echo and logprobs. `add_bos_token=True`: in lm-eval
0.4.13 `HFLM` encodes a context with the tokenizer's special tokens (`add_bos_token=None`: the
Llama fixture's `<s>` first) while `local-completions` leaves them out unless told
(`add_bos_token=False`); `bias` (locally and served) encodes as `HFLM` does, so the comparison
asks `local-completions` for the same ids. Writes the metrics, per document the requests'
log-likelihoods and greedy flags, and the wall time of `simple_evaluate`.
"""
import json
import math
import os
import sys
import time
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures"))
import lm_eval  # noqa: E402
import lm_eval_bbq_winogender as fixture  # noqa: E402
from lm_eval.models.openai_completions import LocalCompletionsAPI  # noqa: E402


def main():
    url, model, tokenizer, per_category, out = sys.argv[1:6]
    fixture.BBQ_PER_CATEGORY = int(per_category)
    docs = fixture.bbq_documents()
    bbq_task, config = fixture.task(
        Path(fixture.bbq_utils.__file__).parent / "bbq_multiple_choice.yaml",
        fixture.bbq_utils.__file__, docs)
    assert config["task"] == "bbq"
    lm = LocalCompletionsAPI(base_url=f"{url}/completions", model=model, tokenizer=tokenizer,
                             tokenizer_backend="huggingface", tokenized_requests=True,
                             add_bos_token=True, max_length=512, num_concurrent=8, batch_size=16)
    start = time.perf_counter()
    results = lm_eval.simple_evaluate(model=lm, tasks=[bbq_task], num_fewshot=0,
                                      log_samples=True, bootstrap_iters=0)
    seconds = time.perf_counter() - start
    metrics = {k.removesuffix(",none"): (None if isinstance(v, float) and math.isnan(v) else v)
               for k, v in results["results"]["bbq"].items()
               if k.endswith(",none") and "_stderr" not in k}
    samples = sorted(results["samples"]["bbq"], key=lambda s: s["doc_id"])
    documents = [{"doc_id": s["doc_id"],
                  "loglikelihoods": [r[0][0] for r in s["resps"]],
                  "is_greedy": [r[0][1] for r in s["resps"]]} for s in samples]
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"metrics": metrics, "documents": documents, "seconds": seconds,
                   "requests": sum(len(d["loglikelihoods"]) for d in documents)}, f)
    print(f"lm-eval local-completions: {len(documents)} documents in {seconds:.1f} s")


if __name__ == "__main__":
    main()
