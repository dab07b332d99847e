"""The Python package against the command line and lm-evaluation-harness.

Run by scripts/python_test.sh (`make python-test`, part of `make test`) in a fresh virtual
environment where the built wheel is installed, from the repository root (fixtures/, data/ and
target/debug/bias, built by `cargo test`, are read from there).
"""
import json
import math
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import bias_lm

ROOT = Path(os.environ.get("BIAS_ROOT", Path(__file__).resolve().parents[3]))
BIAS = Path(os.environ.get("BIAS_BIN", ROOT / "target" / "debug" / "bias"))
BERT = ROOT / "fixtures" / "models" / "bert"
GPT2 = ROOT / "fixtures" / "models" / "gpt2"
LM_EVAL = ROOT / "fixtures" / "lm_eval" / "gpt2_crows_pairs_english"
DATA = ROOT / "data"


def read_cli_table(path):
    """`bias score`'s CSV, read exactly: scores by Python's float() (correctly rounded on any
    pandas), labels as text."""
    text = {c: str for c in ("pair_id", "dataset", "bias_type", "direction", "stereo", "anti",
                             "scorer", "model", "group_id")}
    frame = pd.read_csv(path, dtype=text, keep_default_na=False,
                        converters={"score_stereo": float, "score_anti": float},
                        na_values={"tokens_stereo": [""], "tokens_anti": [""]})
    for c in ("tokens_stereo", "tokens_anti"):
        frame[c] = frame[c].astype("Int64")
    frame["group_id"] = frame["group_id"].replace("", None)
    return frame


def test_fixture_bert_on_50_crows_pairs_equals_bias_score(tmp_path):
    cli = tmp_path / "cli.csv"
    subprocess.run([str(BIAS), "score", "--model", str(BERT), "--dataset", "crows-pairs",
                    "--data-dir", str(DATA), "--limit", "50", "--device", "cpu",
                    "--out", str(cli)], check=True, capture_output=True)
    ours = bias_lm.score(BERT, "crows-pairs", limit=50, data_dir=DATA, device="cpu",
                         progress=False)
    assert list(ours.columns) == bias_lm.COLUMNS
    assert len(ours) == 50 * 5  # five scorers
    theirs = read_cli_table(cli)
    pd.testing.assert_frame_equal(ours.reset_index(drop=True), theirs[bias_lm.COLUMNS],
                                  check_exact=True, check_dtype=False)


def test_a_pair_dataframe_and_a_resumed_run(tmp_path):
    pairs = pd.DataFrame({
        "id": ["a", "b", "c"],
        "stereo": ["The poor are lazy.", "She is bad at math.", "Old people are slow."],
        "anti": ["The rich are lazy.", "He is bad at math.", "Young people are slow."],
        "bias_type": ["socioeconomic", "gender", "age"],
    })
    out = tmp_path / "gpt2.csv"
    first = bias_lm.score(GPT2, pairs=pairs, out=out, device="cpu", progress=False)
    assert set(first["scorer"]) == {"ll-sum", "ll-mean"}
    assert first["pair_id"].drop_duplicates().tolist() == ["a", "b", "c"]
    # The same run again resumes from its file (nothing is scored twice) and gives the same table.
    again = bias_lm.score(GPT2, pairs=pairs, out=out, device="cpu", progress=False)
    pd.testing.assert_frame_equal(first, again, check_exact=True)
    # Other settings against the same file are refused with the library's message.
    with pytest.raises(bias_lm.BiasError, match="resum"):
        bias_lm.score(GPT2, pairs=pairs, out=out, scorers=["ll-sum"], device="cpu",
                      progress=False)


def test_measures_match_the_indicator_by_hand():
    table = bias_lm.score(GPT2, "crows-pairs", limit=40, data_dir=DATA, device="cpu",
                          progress=False)
    m = bias_lm.measures(table, small_types="skip")
    row = m[(m.scorer == "ll-sum") & (m.measure == "indicator") & (m.bias_type == "all")]
    sums = table[table.scorer == "ll-sum"]
    by_hand = 100.0 * (sums.score_stereo > sums.score_anti).mean()
    assert row["value"].item() == pytest.approx(by_hand, abs=1e-12)
    assert set(m.measure) == {"indicator", "kls", "jss"}
    assert (m[m.measure == "jss"].no_bias == 100).all()
    # Intervals as `bias measure --bootstrap` gives them.
    table.to_csv(TMP_CSV := Path(os.environ.get("TMPDIR", "/tmp")) / "bias_lm_measure.csv",
                 index=False)
    cli = json.loads(subprocess.run(
        [str(BIAS), "measure", "--scores", str(TMP_CSV), "--scorer", "ll-sum", "--measures",
         "indicator", "--bootstrap", "200", "--format", "json"],
        check=True, capture_output=True, text=True).stdout)
    ours = bias_lm.measures(table[table.scorer == "ll-sum"], measures=["indicator"],
                            bootstrap=200)
    overall = ours[ours.bias_type == "all"].iloc[0]
    assert (overall["lower"], overall["upper"]) == (cli[0]["bootstrap"]["lower"],
                                                    cli[0]["bootstrap"]["upper"])


def test_compare_equals_bias_compare_and_refuses_other_pairs():
    sig = ROOT / "fixtures" / "significance"
    a, b = read_cli_table(sig / "bert.csv"), read_cli_table(sig / "bert-trained.csv")
    ours = bias_lm.compare(a, b, measures=["indicator"], bootstrap=200)
    cli = json.loads(subprocess.run(
        [str(BIAS), "compare", "--scores", str(sig / "bert.csv"), str(sig / "bert-trained.csv"),
         "--measures", "indicator", "--bootstrap", "200", "--format", "json"],
        check=True, capture_output=True, text=True).stdout)
    assert len(ours) == len(cli) == 20
    for row, theirs in zip(ours.to_dict("records"), cli):
        for key in ("scorer", "model_a", "model_b", "bias_type", "test", "significant",
                    "family_size", "p_value", "p_adjusted", "ci_low", "ci_high", "difference"):
            assert row[key] == theirs[key], key
    # statsmodels' McNemar p, committed beside the tables.
    reference = json.loads((sig / "reference.json").read_text())
    want = {(c["scorer"], c["bias_type"]): c for c in reference["compare"]}
    for row in ours.to_dict("records"):
        assert row["p_value"] == pytest.approx(want[(row["scorer"], row["bias_type"])]["p"],
                                               abs=1e-12)
    with pytest.raises(bias_lm.BiasError, match="not on the same pairs"):
        bias_lm.compare(a, b[b.pair_id != "17"], measures=["indicator"], bootstrap=10)


def test_lm_eval_log_gives_back_lm_eval_s_numbers():
    samples = LM_EVAL / "samples_crows_pairs_english_local.jsonl"
    table = bias_lm.from_lm_eval(samples, model="gpt2")
    assert len(table) == 1508
    results = json.loads((LM_EVAL / "results.json").read_text())["results"]
    task = results["crows_pairs_english_local"]
    got = bias_lm.lm_eval_crows(table)
    assert got["pct_stereotype"] == task["pct_stereotype,none"]
    assert got["likelihood_diff"] == task["likelihood_diff,none"]
    assert not math.isnan(bias_lm.measures(table).value.iloc[0])


def test_errors_carry_the_library_message():
    with pytest.raises(bias_lm.BiasError, match="no such model folder"):
        bias_lm.score(ROOT / "fixtures" / "models" / "nope", "crows-pairs", data_dir=DATA,
                      progress=False)
    with pytest.raises(bias_lm.BiasError, match="either"):
        bias_lm.score(BERT, progress=False)
    with pytest.raises(bias_lm.BiasError, match="dtype"):
        bias_lm.score(BERT, "crows-pairs", data_dir=DATA, dtype="f8", progress=False)


def test_subsample_study_of_two_models():
    tables = [bias_lm.score(m, "crows-pairs", limit=120, data_dir=DATA, device="cpu",
                            scorers=["ll-sum"], progress=False)
              for m in (GPT2, ROOT / "fixtures" / "models" / "llama")]
    study = bias_lm.subsample(pd.concat(tables), rates=[0.5, 0.8], repeats=5,
                              kls_jss_scorer="ll-sum", measures=["indicator"])
    stats = study["measure_stats"]
    assert set(stats.model) == {"gpt2", "llama"}
    assert sorted(set(stats.rate)) == [0.5, 0.8]
    assert len(study["rank_agreement"]) == 2


def test_weat_and_same_by_hand():
    import numpy as np
    rng = np.random.default_rng(0)
    x, y, a, b = (rng.normal(size=(4, 6)) for _ in range(4))

    def cos(u, v):
        return u @ v / np.linalg.norm(u) / np.linalg.norm(v)

    def s(w):
        return np.mean([cos(w, v) for v in a]) - np.mean([cos(w, v) for v in b])

    sx, sy = [s(w) for w in x], [s(w) for w in y]
    d = (np.mean(sx) - np.mean(sy)) / np.std(sx + sy)  # ddof 0
    got = bias_lm.weat(x, y, a, b)
    assert got["effect_size"] == pytest.approx(d, abs=1e-12)
    assert got["s_x"] == pytest.approx(sx, abs=1e-12)

    unit = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)  # noqa: E731
    direction = unit(a).mean(axis=0) - unit(b).mean(axis=0)
    per = [cos(t, direction) for t in x]
    got = bias_lm.same(x, a, b)
    assert got["per_target"] == pytest.approx(per, abs=1e-12)
    assert got["value"] == pytest.approx(np.mean(np.abs(per)), abs=1e-12)


def test_word_vectors_from_a_glove_file(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_text("he 1 0 0\nshe 0 1 0\ndoctor 0.5 0.2 0.1\n")
    vectors, missing = bias_lm.word_vectors(path, ["he", "she", "nurse"])
    assert vectors.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert missing == ["nurse"]


def test_reproduce_liu2024_writes_its_index(tmp_path):
    models = [ROOT / "fixtures" / "models" / m for m in ("bert", "roberta", "albert")]
    artifacts = bias_lm.reproduce("liu2024", models, tmp_path / "liu", data_dir=DATA,
                                  max_pairs=40, device="cpu")
    assert {"id", "title", "status", "files"} <= set(artifacts.columns)
    assert (tmp_path / "liu" / "index.html").exists()
    # The same as `bias reproduce liu2024` with the same models and pairs: the artifacts and
    # every table (CSV) they wrote.
    subprocess.run([str(BIAS), "reproduce", "liu2024", "--models", *map(str, models),
                    "--out", str(tmp_path / "cli"), "--data-dir", str(DATA), "--max-pairs", "40",
                    "--device", "cpu"], check=True, capture_output=True)
    index = lambda d: json.loads((tmp_path / d / "index.json").read_text())["artifacts"]  # noqa: E731
    assert index("liu") == index("cli")
    assert artifacts["id"].tolist() == [a["id"] for a in index("cli")]
    tables = sorted(p.name for p in (tmp_path / "cli").glob("*.csv"))
    assert tables
    for name in tables:
        assert (tmp_path / "liu" / name).read_text() == (tmp_path / "cli" / name).read_text()
    with pytest.raises(bias_lm.BiasError, match="paper"):
        bias_lm.reproduce("nope", models, tmp_path / "x", data_dir=DATA)


def cli_json(*args):
    done = subprocess.run([str(BIAS), *map(str, args), "--data-dir", str(DATA), "--device", "cpu",
                           "--json"], check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def test_tasks_equal_bias_task(tmp_path):
    got = bias_lm.bbq(GPT2, data_dir=DATA, per_category=3, device="cpu", progress=False)
    assert got == cli_json("task", "bbq", "--model", GPT2, "--per-category", 3)
    got = bias_lm.stereoset(ROOT / "fixtures" / "models" / "bert-nsp", data_dir=DATA, limit=8,
                            device="cpu", out=tmp_path / "ss", progress=False)
    assert got["intersentence"] == "next-sentence-head"
    assert got == cli_json("task", "stereoset", "--model", ROOT / "fixtures" / "models" / "bert-nsp",
                           "--limit", 8)
    assert (tmp_path / "ss" / "stereoset-dev.jsonl").exists()
    with pytest.raises(bias_lm.BiasError, match="causal LM"):
        bias_lm.winogender(BERT, data_dir=DATA, device="cpu", progress=False)


@pytest.mark.parametrize("folder", ["bert", "gpt2"])
def test_a_transformers_model_object_scores_as_its_folder(folder):
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer
    path = ROOT / "fixtures" / "models" / folder
    auto = AutoModelForMaskedLM if folder == "bert" else AutoModelForCausalLM
    model = auto.from_pretrained(str(path), dtype="float32").eval()
    tokenizer = AutoTokenizer.from_pretrained(str(path))
    from_object = bias_lm.score_model(model, tokenizer, "crows-pairs", limit=30, data_dir=DATA,
                                      device="cpu", progress=False)
    from_folder = bias_lm.score(path, "crows-pairs", limit=30, data_dir=DATA, device="cpu",
                                progress=False)
    assert (from_object.model == folder).all()
    for column in ("score_stereo", "score_anti"):
        assert from_object[column].tolist() == pytest.approx(from_folder[column].tolist(),
                                                              abs=1e-5)
    pd.testing.assert_frame_equal(from_object, from_folder, check_exact=True)
    # The engine read the model's own memory: a change to a weight changes the scores.
    with __import__("torch").no_grad():
        next(model.parameters()).mul_(1.5)
    moved = bias_lm.score_model(model, tokenizer, "crows-pairs", limit=30, data_dir=DATA,
                                device="cpu", progress=False)
    assert moved.score_stereo.tolist() != from_folder.score_stereo.tolist()


def test_a_served_model_scores_as_the_command_line_scores_it(tmp_path):
    """A served model (scripts/standin_server.py: an OpenAI-compatible stand-in whose
    log-probabilities are a hand formula, in a process of its own since the package's calls
    hold the interpreter) scores through the package as through `bias score`."""
    import sys
    import time
    url_file = tmp_path / "url"
    server = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "standin_server.py"),
                               str(url_file)])
    try:
        for _ in range(100):
            if url_file.exists() and url_file.read_text().strip():
                break
            time.sleep(0.1)
        url = url_file.read_text().strip()
        tokenizer = ROOT / "fixtures" / "models" / "llama"
        frame = bias_lm.score(url, "crows-pairs", tokenizer=tokenizer, limit=12,
                              data_dir=DATA, progress=False)
        out = tmp_path / "served.csv"
        subprocess.run([str(BIAS), "score", "--model", url, "--tokenizer", str(tokenizer),
                        "--dataset", "crows-pairs", "--limit", "12", "--data-dir", str(DATA),
                        "--out", str(out)], check=True, capture_output=True)
        cli = read_cli_table(out)
        assert list(frame["model"].unique()) == ["standin"]
        # Every column equal (CrowS-Pairs has no group ids: missing on both sides).
        columns = [c for c in bias_lm.COLUMNS if c != "group_id"]
        pd.testing.assert_frame_equal(frame.reset_index(drop=True)[columns], cli[columns],
                                      check_exact=True, check_dtype=False)
        assert frame["group_id"].isna().all() and cli["group_id"].isna().all()
        # ll-sum adds the stand-in's log-probabilities, multiples of 1/16.
        sums = frame.loc[frame["scorer"] == "ll-sum", "score_stereo"] * 16
        assert len(sums) == 12 and (sums == sums.round()).all()
        with pytest.raises(bias_lm.BiasError, match="needs its tokenizer"):
            bias_lm.score(url, "crows-pairs", limit=2, data_dir=DATA, progress=False)
    finally:
        server.kill()
        server.wait()


def test_generate_equals_bias_generate(tmp_path):
    ref = json.loads((ROOT / "fixtures" / "plm" / "greedy_generation.json").read_text())
    cases = ref["chat"]["cases"]
    prompts = [c["prompt"] for c in cases]
    model = ROOT / "fixtures" / "models" / "llama-served"
    got = bias_lm.generate(model, prompts, max_new_tokens=40, apply_chat_template=True,
                           device="cpu", out=tmp_path / "g.jsonl", progress=False)
    assert [g["token_ids"] for g in got] == [c["token_ids"] for c in cases]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps({"prompt": p}) + "\n" for p in prompts))
    subprocess.run([str(BIAS), "generate", "--model", str(model), "--prompts",
                    str(tmp_path / "p.jsonl"), "--max-new-tokens", "40", "--apply-chat-template",
                    "--device", "cpu", "--out", str(tmp_path / "cli.jsonl")],
                   check=True, capture_output=True)
    cli = [json.loads(l) for l in (tmp_path / "cli.jsonl").read_text().splitlines()]
    assert got == cli
    with pytest.raises(bias_lm.BiasError, match="causal LM"):
        bias_lm.generate(BERT, ["a"], device="cpu", progress=False)
