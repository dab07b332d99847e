#!/usr/bin/env python3
"""Causal LMs side by side: `bias score` against lm-evaluation-harness's `hf` backend on the same
CrowS-Pairs requests, in one run on this machine, with the share of the matmul peak.

    python3 scripts/bench_causal.py                      # GPT-2-small-sized random model, 300 pairs
    python3 scripts/bench_causal.py --pairs 100 --threads 2 --bias target/release/bias

It prints figures and asserts nothing (a benchmark, not a test). Three whole processes, model
load included, one after the other on the same threads:
1. `bias score --scorers ll-sum --limit N` on data/crows-pairs/crows_pairs_anonymized.csv;
2. lm-eval 0.4.13's own `crows_pairs_english` task (its YAML, `!function` entries resolved to
   lm_eval.tasks.crows_pairs.utils) on the first N rows of the same CSV through the task
   config's `custom_dataset` hook (the hub is not reached), `HFLM(pretrained=MODEL,
   device="cpu", dtype="float32", batch_size=B)`, `simple_evaluate(num_fewshot=0,
   bootstrap_iters=0)`;
3. `bias bench --scorers ll-sum --limit N --format json`: the share of this machine's matmul
   peak (measured in that process at the model's feed-forward shape) the scorer reached.
pct_stereotype is lm-eval's (the mean of 1[ll(sent_more) > ll(sent_less)]) and, from the score
table, the share of pairs whose `score_stereo` (ll(sent_more)) exceeds `score_anti`.

The model (default out/gpt2-small-random) is made by scripts/random_causal.py --shape gpt2-small
when absent. Needs the Python requirements of scripts/requirements-fixtures.txt (lm-eval).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CROWS = ROOT / "data" / "crows-pairs" / "crows_pairs_anonymized.csv"
TASK = "crows_pairs_english"


def lm_eval_worker(model, pairs, threads, batch):
    """Runs lm-eval in this process and prints its pct_stereotype as JSON."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    import datasets
    import lm_eval
    import torch
    import transformers
    from lm_eval.api.task import ConfigurableTask
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks._yaml_loader import load_yaml
    from lm_eval.tasks.crows_pairs import utils as crows_utils

    transformers.utils.logging.set_verbosity_error()
    torch.set_num_threads(threads)
    with open(CROWS, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[:pairs]
    docs = [{"id": int(r[""]), "sent_more": r["sent_more"], "sent_less": r["sent_less"],
             "stereo_antistereo": r["stereo_antistereo"], "bias_type": r["bias_type"]}
            for r in rows]
    config = load_yaml(Path(crows_utils.__file__).parent / f"{TASK}.yaml")
    config["custom_dataset"] = lambda **_: datasets.DatasetDict(
        {config["test_split"]: datasets.Dataset.from_list(docs)})
    task = ConfigurableTask(config=config)
    lm = HFLM(pretrained=str(model), device="cpu", dtype="float32", batch_size=batch)
    results = lm_eval.simple_evaluate(model=lm, tasks=[task], num_fewshot=0,
                                      bootstrap_iters=0)
    print(json.dumps({"pct_stereotype": results["results"][TASK]["pct_stereotype,none"]}))


def timed(cmd, env):
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{done.stderr[-4000:]}")
    return seconds, done.stdout


def pct_from_table(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["scorer"] == "ll-sum"]
    return sum(float(r["score_stereo"]) > float(r["score_anti"]) for r in rows) / len(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(ROOT / "out" / "gpt2-small-random"))
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32, help="lm-eval's batch_size")
    ap.add_argument("--bias", default=str(ROOT / "target" / "release" / "bias"))
    ap.add_argument("--lm-eval-worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.lm_eval_worker:
        return lm_eval_worker(a.model, a.pairs, a.threads, a.batch)
    model = Path(a.model)
    if not (model / "config.json").exists():
        subprocess.run([sys.executable, str(ROOT / "scripts" / "random_causal.py"),
                        "--shape", "gpt2-small", "--out", str(model)], check=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), TOKENIZERS_PARALLELISM="false")
    common = ["--model", str(model), "--dataset", "crows-pairs", "--data-dir",
              str(ROOT / "data"), "--device", "cpu", "--threads", str(a.threads),
              "--scorers", "ll-sum", "--limit", str(a.pairs)]
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "scores.csv"
        ours, _ = timed([a.bias, "score", *common, "--out", str(table)], env)
        ours_pct = pct_from_table(table)
    theirs, out = timed([sys.executable, __file__, "--lm-eval-worker", "--model", str(model),
                         "--pairs", str(a.pairs), "--threads", str(a.threads),
                         "--batch", str(a.batch)], env)
    theirs_pct = json.loads(out.strip().splitlines()[-1])["pct_stereotype"]
    _, bench = timed([a.bias, "bench", *common, "--format", "json"], env)
    row = json.loads(bench)[0]
    print(f"model {model.name}, first {a.pairs} CrowS-Pairs pairs, {a.threads} threads")
    print("| work | seconds | pct_stereotype |")
    print("|---|---:|---:|")
    print(f"| bias score (ll-sum) | {ours:.1f} | {ours_pct:.4f} |")
    print(f"| lm-eval hf, batch {a.batch} | {theirs:.1f} | {theirs_pct:.4f} |")
    print(f"speed-up {theirs / ours:.2f}x; pct_stereotype "
          f"{'equal' if abs(ours_pct - theirs_pct) < 1e-9 else 'DIFFERENT'}; "
          f"bias bench: {row['% of peak']} % of the matmul peak "
          f"({row['GMAC/s']} GMAC/s, {row['seconds']} s scoring)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
