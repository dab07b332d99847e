//! `bias score` / `evaluate` / `bench` on causal-LM folders (fixtures/models/{gpt2,qwen2}): the
//! default scorers are ll-sum and ll-mean, the table's ll-sum is lm-evaluation-harness's
//! log-likelihood (fixtures/plm/lm_eval_crows_gpt2.json), every measure applies unchanged, and a
//! scorer of the other family is a usage error naming the model type and its scorers.

use crate::support::bias_on;
use crate::support::scorer_measures;
use approx::abs_diff_eq;
use std::path::PathBuf;

use serde_json::Value;

use bias_testkit::root;
use bias_testkit::Run;

fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("causal-{name}"))
}

#[test]
fn score_writes_ll_sum_and_ll_mean_as_lm_eval_computes_them() {
    let dir = scratch("score");
    let out = dir.join("gpt2.csv");
    bias_on("score", "gpt2", "crows-pairs")
        .args(["--limit", "40", "--out", &out.display().to_string()])
        .succeeds();
    let table = bias_core::ScoreTable::read_csv_path(&out).unwrap();
    assert_eq!(table.len(), 80);
    assert_eq!(
        table.scorers().into_iter().collect::<Vec<_>>(),
        ["ll-mean", "ll-sum"]
    );
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/plm/lm_eval_crows_gpt2.json")).unwrap(),
    )
    .unwrap();
    let docs = fixture["documents"].as_array().unwrap();
    for r in table.rows() {
        let doc = &docs[r.pair_id.parse::<usize>().unwrap()];
        let (more, less) = (
            doc["ll_sent_more"].as_f64().unwrap(),
            doc["ll_sent_less"].as_f64().unwrap(),
        );
        let tokens = (
            r.tokens_stereo.unwrap() as f64,
            r.tokens_anti.unwrap() as f64,
        );
        let (want_s, want_a) = if r.scorer == "ll-sum" {
            (more, less)
        } else {
            (more / tokens.0, less / tokens.1)
        };
        assert!(
            abs_diff_eq!(r.score_stereo, want_s, epsilon = 1e-4)
                && abs_diff_eq!(r.score_anti, want_a, epsilon = 1e-4),
            "{} {}: {} {} vs {want_s} {want_a}",
            r.pair_id,
            r.scorer,
            r.score_stereo,
            r.score_anti
        );
    }
}

#[test]
fn evaluate_and_bench_run_on_a_causal_model() {
    let dir = scratch("evaluate");
    let out = dir.join("qwen2.csv");
    let res = bias_on("evaluate", "qwen2", "crows-pairs")
        .args([
            "--limit",
            "200",
            "--format",
            "json",
            "--out",
            &out.display().to_string(),
        ])
        .succeeds();
    let v: Value = serde_json::from_slice(&res.stdout).unwrap();
    assert_eq!(v["model"], "qwen2");
    let got = scorer_measures(&v);
    let want: Vec<(String, String)> = ["ll-mean", "ll-sum"]
        .iter()
        .flat_map(|s| {
            ["indicator", "kls", "jss"]
                .iter()
                .map(move |m| (s.to_string(), m.to_string()))
        })
        .collect();
    assert_eq!(got, want);
    assert!(v["accuracy"]["ll-sum"]["total"].as_u64().unwrap() > 0);
    // The accuracy tally counts every scored position of both sentences: the sum of the token
    // columns of the score table written alongside (200 pairs, two scorers), the same for ll-sum
    // and ll-mean (they score the same positions), with rate = correct / total.
    let table = bias_core::ScoreTable::read_csv_path(&out).unwrap();
    assert_eq!(table.len(), 400);
    for scorer in ["ll-sum", "ll-mean"] {
        let tokens: u64 = table
            .rows()
            .iter()
            .filter(|r| r.scorer == scorer)
            .map(|r| (r.tokens_stereo.unwrap() + r.tokens_anti.unwrap()) as u64)
            .sum();
        let acc = &v["accuracy"][scorer];
        let (correct, total) = (
            acc["correct"].as_u64().unwrap(),
            acc["total"].as_u64().unwrap(),
        );
        assert_eq!(total, tokens, "{scorer}: {acc}");
        assert!(correct <= total, "{scorer}: {acc}");
        let rate = acc["rate"].as_f64().unwrap();
        assert!(
            abs_diff_eq!(rate, correct as f64 / total as f64, epsilon = 1e-12),
            "{scorer}: {acc}"
        );
    }
    // Pairs 0 and 100 are in the transformers reference (fixtures/plm/causal_qwen2.json): their
    // token counts and log-likelihoods are its figures.
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/plm/causal_qwen2.json")).unwrap(),
    )
    .unwrap();
    for id in [0u64, 100] {
        let reference = fixture["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["source"] == "crows-pairs" && p["id"] == id)
            .unwrap();
        let row = table
            .rows()
            .iter()
            .find(|r| r.scorer == "ll-sum" && r.pair_id == id.to_string())
            .unwrap();
        let n = |side: &str| reference[side]["token_logprobs"].as_array().unwrap().len();
        assert_eq!(row.tokens_stereo, Some(n("stereo")), "pair {id}");
        assert_eq!(row.tokens_anti, Some(n("anti")), "pair {id}");
        let ll = |side: &str| reference[side]["ll_sum"].as_f64().unwrap();
        assert!(
            abs_diff_eq!(row.score_stereo, ll("stereo"), epsilon = 1e-3)
                && abs_diff_eq!(row.score_anti, ll("anti"), epsilon = 1e-3),
            "pair {id}: {} {} vs {} {}",
            row.score_stereo,
            row.score_anti,
            ll("stereo"),
            ll("anti")
        );
    }

    let res = bias_on("bench", "llama", "crows-pairs")
        .args(["--limit", "20", "--format", "csv"])
        .succeeds();
    let stdout = String::from_utf8_lossy(&res.stdout);
    assert!(
        stdout.lines().nth(1).unwrap().starts_with("ll-sum,"),
        "{stdout}"
    );
    // The share of the matmul peak (measured in the same run) and memory against the weights:
    // numbers, not `n/a`, for a model whose weights are here.
    let res = bias_on("bench", "llama", "crows-pairs")
        .args(["--limit", "8", "--format", "json"])
        .succeeds();
    let rows: Value = serde_json::from_slice(&res.stdout).unwrap();
    let number = |key: &str| -> f64 { rows[0][key].as_str().unwrap().parse().unwrap() };
    assert!(number("% of peak") > 0.0, "{rows}");
    assert!(number("RSS / weights") > 1.0, "{rows}");
}

#[test]
fn a_scorer_of_the_other_family_is_a_usage_error() {
    let dir = scratch("mismatch");
    let run = |arch: &str, scorers: &str| {
        let res = bias_on("score", arch, "crows-pairs")
            .args([
                "--scorers",
                scorers,
                "--out",
                &dir.join("x.csv").display().to_string(),
            ])
            .output()
            .unwrap();
        assert_eq!(res.status.code(), Some(2));
        String::from_utf8_lossy(&res.stderr).into_owned()
    };
    let err = run("gpt2", "ll-sum,cps");
    assert!(
        err.contains("scorer cps")
            && err.contains("\"gpt2\"")
            && err.contains("ll-sum, ll-mean")
            && err.contains("hint: pass --scorers ll-sum,ll-mean"),
        "{err}"
    );
    let err = run("bert", "ll-mean");
    assert!(
        err.contains("scorer ll-mean") && err.contains("\"bert\"") && err.contains("aula"),
        "{err}"
    );
    assert!(!dir.join("x.csv").exists());
}
