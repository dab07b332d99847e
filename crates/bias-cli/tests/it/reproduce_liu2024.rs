//! `bias reproduce liu2024` end to end on the tiny fixture checkpoints (three masked LMs and a
//! causal one, which liu2024's tables leave out): every table and figure of the paper is listed,
//! the files exist, Table 2 agrees with the score tables by recount and a hand KLS, and the
//! liu2024 flags change what they say they change.

use approx::abs_diff_eq;
use bias_testkit::score_file;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use bias_core::ScoreTable;
use serde_json::Value;

use bias_testkit::root;
use bias_testkit::Run;

fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("repro-liu-{name}"))
}

const MODELS: [&str; 4] = ["bert", "roberta", "albert", "gpt2"];

fn reproduce(dir: &Path, out: &str, extra: &[&str]) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bias"));
    cmd.current_dir(root())
        .args(["reproduce", "liu2024", "--models"])
        .args(MODELS.map(|m| format!("fixtures/models/{m}")))
        .args(["--max-pairs", "20", "--data-dir", "data", "--device", "cpu"])
        .arg("--out")
        .arg(dir.join(out))
        .arg("--scores")
        .arg(dir.join("scores"))
        .args(["--liu2024-repeats", "5"])
        .args(extra);
    cmd.succeeds();
    serde_json::from_str(&std::fs::read_to_string(dir.join(out).join("index.json")).unwrap())
        .unwrap()
}

fn rows(dir: &Path, id: &str) -> Vec<Value> {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{id}.json"))).unwrap())
            .unwrap();
    v["table"]["rows"].as_array().unwrap().clone()
}

/// The rows computed here (not the paper's printed values).
fn this_run(rows: Vec<Value>) -> Vec<Value> {
    rows.into_iter()
        .filter(|r| r["source"] == "this run")
        .collect()
}

/// KL between two normals, closed form.
fn kl(a: (f64, f64), b: (f64, f64)) -> f64 {
    (b.1 / a.1).ln() + (a.1 * a.1 + (a.0 - b.0).powi(2)) / (2.0 * b.1 * b.1) - 0.5
}

/// liu2024 Eqs. 6 and 10 by hand on the types with at least two pairs.
fn kls_by_hand(t: &ScoreTable) -> f64 {
    let rows = t.rows().iter();
    let rows = rows.map(|r| (r.bias_type.to_string(), r.score_stereo, r.score_anti));
    bias_testkit::weighted_by_type(rows, |p, q| {
        let (x, y) = (kl(p, q), kl(q, p));
        100.0 * x.max(y) / (x + y)
    })
}

#[test]
fn reproduce_liu2024_on_fixture_models() {
    let dir = scratch("main");
    let index = reproduce(&dir, "liu2024", &[]);
    let out = dir.join("liu2024");
    let status: BTreeMap<String, String> = index["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            for f in a["files"].as_array().unwrap() {
                assert!(out.join(f.as_str().unwrap()).is_file(), "{f}");
            }
            (
                a["id"].as_str().unwrap().to_owned(),
                a["status"]["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for id in [
        "table-1",
        "table-2",
        "table-3",
        "table-4",
        "table-5",
        "analysis-pll-score-analysis",
        "figure-2-bert",
        "figure-2-roberta",
        "figure-2-albert",
        "figure-4",
        "figure-4-stereoset",
        "figure-4-crows-pairs",
        "figure-5",
        "figure-5-cps",
        "figure-5-aul",
        "figure-5-kls",
        "figure-5-jss",
    ] {
        assert_eq!(
            status.get(id).map(String::as_str),
            Some("method-only"),
            "{id}"
        );
    }
    assert_eq!(status["figure-1"], "out-of-reach");
    assert_eq!(status["figure-3"], "out-of-reach");
    assert!(!status.contains_key("figure-2-gpt2"));

    // Table 2: three masked LMs per data set (gpt2 left out and said so); AUL and KLS against
    // the score tables.
    let t2 = this_run(rows(&out, "table-2"));
    assert_eq!(t2.len(), 6);
    let md = std::fs::read_to_string(out.join("table-2.md")).unwrap();
    assert!(md.contains("Left out") && md.contains("gpt2"), "{md}");
    for row in &t2 {
        let set = if row["data set"] == "SS (SSS)" {
            "stereoset"
        } else {
            "crows-pairs"
        };
        let model = row["model"].as_str().unwrap();
        let scores = ScoreTable::read_csv_path(score_file(&dir.join("scores").join(model), set))
            .unwrap()
            .for_scorer("aul");
        let stereo = scores
            .rows()
            .iter()
            .filter(|r| r.score_stereo > r.score_anti)
            .count();
        let aul = 100.0 * stereo as f64 / scores.len() as f64;
        assert!(
            abs_diff_eq!(row["AUL"].as_f64().unwrap(), aul, epsilon = 1e-9),
            "{row}"
        );
        let kls = kls_by_hand(&scores);
        assert!(
            abs_diff_eq!(row["KLS"].as_f64().unwrap(), kls, epsilon = 1e-6 * kls),
            "{row} vs {kls}"
        );
    }
    // Figure 4 on 3 models: Pearson and, with the paper's k = 1, the mutual information (3
    // points, k = 1: a multiple of 1/6 between 0 and 1.5), beside the paper's values.
    let f4 = rows(&out, "figure-4");
    assert_eq!(f4.len(), 12);
    for r in &f4 {
        assert_eq!(r["models"], 3);
        let mi = r["MI (nats)"].as_f64().unwrap_or_else(|| panic!("{r}"));
        assert!((0.0..=1.5).contains(&mi), "{r}");
        assert!(((mi * 6.0) - (mi * 6.0).round()).abs() < 1e-9, "{r}");
        assert!(r["paper MI"].is_f64(), "{r}");
    }

    // --liu2024-jss paper changes JSS, not KLS; --liu2024-seed changes Table 5's sub-sample
    // means; --liu2024-mi-neighbors 3 (scikit-learn's default) leaves 3 models without MI.
    let _ = reproduce(
        &dir,
        "liu2024-options",
        &[
            "--liu2024-jss",
            "paper",
            "--liu2024-seed",
            "7",
            "--liu2024-mi-neighbors",
            "3",
        ],
    );
    let other = dir.join("liu2024-options");
    let t2b = this_run(rows(&other, "table-2"));
    for (a, b) in t2.iter().zip(&t2b) {
        assert_eq!(a["KLS"], b["KLS"]);
        assert_ne!(a["JSS"], b["JSS"]);
    }
    let (t5, t5b) = (
        this_run(rows(&out, "table-5")),
        this_run(rows(&other, "table-5")),
    );
    assert_eq!(
        (&t5[0]["model"], &t5[0]["rate"]),
        (&t5b[0]["model"], &t5b[0]["rate"])
    );
    assert_eq!(t5[0]["full"], t5b[0]["full"]);
    assert_ne!(t5[0]["|Δst| − |Δat|"], t5b[0]["|Δst| − |Δat|"]);
    let f4b = rows(&other, "figure-4");
    assert!(f4b.iter().all(|r| r["MI (nats)"].is_null()), "{f4b:?}");
    let md = std::fs::read_to_string(other.join("figure-4.md")).unwrap();
    assert!(md.contains("needs at least 4 models"), "{md}");

    // --liu2024-mi-neighbors 0 is refused by the parser.
    let output = Command::new(env!("CARGO_BIN_EXE_bias"))
        .current_dir(root())
        .args(["reproduce", "liu2024", "--models", "fixtures/models/bert"])
        .arg("--out")
        .arg(dir.join("k0"))
        .args(["--liu2024-mi-neighbors", "0"])
        .fails();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("--liu2024-mi-neighbors"), "{err}");
}
