//! lm-evaluation-harness's per-sample log re-scored: the log of its own command line
//! (`lm_eval --log_samples`, lm-eval 0.4.13, `crows_pairs_english` on the tiny GPT-2 and all
//! 1,508 CrowS-Pairs pairs; fixtures/lm_eval/gpt2_crows_pairs_english, written by
//! scripts/fixtures/lm_eval_log_samples.sh) read into a score table gives back the
//! `pct_stereotype` and `likelihood_diff` the harness reported in its results file — exactly,
//! since the table holds the harness's own log-likelihoods and both means add them in the same
//! order — through the library and through `bias import lm-eval`, and the table feeds
//! `bias measure`.

use std::path::PathBuf;

use assert_cmd::Command;
use bias_core::Direction;
use bias_testkit::Run;
use serde_json::Value;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/lm_eval/gpt2_crows_pairs_english")
}

fn samples() -> PathBuf {
    fixture().join("samples_crows_pairs_english_local.jsonl")
}

/// lm-eval's `pct_stereotype` and `likelihood_diff` from its results file.
fn reported() -> (f64, f64) {
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture().join("results.json")).unwrap())
            .unwrap();
    let task = &results["results"]["crows_pairs_english_local"];
    (
        task["pct_stereotype,none"].as_f64().unwrap(),
        task["likelihood_diff,none"].as_f64().unwrap(),
    )
}

#[test]
fn the_samples_give_back_lm_eval_s_aggregates() {
    let table = bias_data::read_lm_eval_samples(&samples(), "crows-pairs", "gpt2").unwrap();
    assert_eq!(table.len(), 1508);
    let (pct, diff) = reported();
    let ours = bias_metrics::lm_eval_crows(&table).unwrap();
    assert_eq!(ours.pct_stereotype, pct);
    assert_eq!(ours.likelihood_diff, diff);
    // Rows keep CrowS-Pairs' ids (the CSV's index column), directions and bias types.
    let first = &table.rows()[0];
    assert_eq!(first.pair_id, "0");
    assert_eq!(first.scorer, "ll-sum");
    let anti = table
        .rows()
        .iter()
        .filter(|r| r.direction == Direction::Antistereo)
        .count();
    assert_eq!(anti, 218, "CrowS-Pairs has 218 anti-stereotype pairs");
}

#[test]
fn bias_import_lm_eval_writes_a_table_for_the_other_commands() {
    let dir = std::env::temp_dir().join(format!("bias-lm-eval-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let table = dir.join("gpt2.csv");
    let output = Command::cargo_bin("bias")
        .unwrap()
        .args(["import", "lm-eval"])
        .arg(samples())
        .arg("--out")
        .arg(&table)
        .args(["--model-name", "gpt2", "--format", "json"])
        .succeeds();
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let (pct, diff) = reported();
    assert_eq!(summary["documents"], 1508);
    assert_eq!(summary["pct_stereotype"].as_f64().unwrap(), pct);
    assert_eq!(summary["likelihood_diff"].as_f64().unwrap(), diff);
    let measured = Command::cargo_bin("bias")
        .unwrap()
        .args(["measure", "--scores"])
        .arg(&table)
        .succeeds();
    let text = String::from_utf8_lossy(&measured.stdout);
    assert!(text.contains("ll-sum") && text.contains("49.34"), "{text}");

    // A samples file of another task is refused, naming the line and what it lacks.
    let other = dir.join("samples_bbq.jsonl");
    std::fs::write(
        &other,
        "{\"doc_id\": 0, \"doc\": {\"context\": \"c\"}, \"resps\": []}\n",
    )
    .unwrap();
    let refused = Command::cargo_bin("bias")
        .unwrap()
        .args(["import", "lm-eval"])
        .arg(&other)
        .arg("--out")
        .arg(dir.join("x.csv"))
        .fails();
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("line 1") && message.contains("sent_more"),
        "{message}"
    );
    assert!(!dir.join("x.csv").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A log-likelihood that cannot be one is refused with its file and line, and a likelihood_diff
/// that overflows is refused rather than printed as `inf` (or `null` in JSON).
#[test]
fn impossible_log_likelihoods_are_refused_not_written() {
    let dir = std::env::temp_dir().join(format!("bias-lm-eval-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(samples()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Line 5's first answer, `resps[0][0][0]`, becomes a positive number.
    let damaged = |value: &str| -> String {
        let mut out = lines.clone();
        let fifth = lines[4].replacen(
            "\"resps\": [[[\"-135.82135009765625\"",
            &format!("\"resps\": [[[\"{value}\""),
            1,
        );
        assert_ne!(fifth, lines[4], "the fixture's line 5 changed");
        out[4] = &fifth;
        out.join("\n") + "\n"
    };
    let import = |name: &str, content: &str| {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        Command::cargo_bin("bias")
            .unwrap()
            .args(["import", "lm-eval"])
            .arg(&path)
            .arg("--out")
            .arg(dir.join(format!("{name}.csv")))
            .args(["--format", "json"])
            .output()
            .unwrap()
    };
    for value in ["1.7e308", "0.5"] {
        let out = import("positive.jsonl", &damaged(value));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{value} accepted");
        assert!(
            message.contains("positive.jsonl")
                && message.contains("line 5")
                && message.contains("is positive"),
            "{message}"
        );
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // Every row finite and ≤ 0, but |differences| near f64::MAX: their sum overflows.
    let out = import("overflow.jsonl", &lines[..3].iter().map(|l| {
        l.replacen("\"resps\": [[[\"", "\"resps\": [[[\"-1.7e308\", \"False\"]], [[\"-0.0\", \"False\"]]], \"x\": [[[\"", 1)
    }).collect::<Vec<_>>().join("\n"));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "an overflowing likelihood_diff was written"
    );
    assert!(message.contains("likelihood_diff"), "{message}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("null"));
    let _ = std::fs::remove_dir_all(&dir);
}
