//! `bias evaluate` on StereoSet prints StereoSet's own SS, LMS and ICAT (Nadeem et al. 2021):
//! checked against a Python computation of the authors' aggregation over `transformers`' AUL on
//! the fixture BERT (`scripts/fixtures/stereoset_scores.py`,
//! `fixtures/plm/stereoset_scores_bert.json`).

use approx::abs_diff_eq;
use std::collections::HashMap;

use assert_cmd::Command;
use serde_json::Value;

use bias_testkit::root;
use bias_testkit::Run;

/// Two sentence scores within this of each other may order differently here and in the
/// reference (libtorch kernels differ by CPU); the reference lists such near ties.
const SENTENCE_TOL: f64 = 1e-4;

#[test]
fn evaluate_on_stereoset_prints_the_authors_ss_lms_icat() {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/plm/stereoset_scores_bert.json")).unwrap(),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("bias-stereoset-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("stereoset.csv");
    let output = Command::cargo_bin("bias")
        .unwrap()
        .current_dir(root())
        .args([
            "evaluate",
            "--model",
            "fixtures/models/bert",
            "--dataset",
            "stereoset",
        ])
        .args([
            "--scorers",
            "aul",
            "--format",
            "json",
            "--device",
            "cpu",
            "--out",
        ])
        .arg(&out)
        .succeeds();
    assert!(dir.join("stereoset.unrelated.csv").is_file());
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let ours = &json["stereoset"]["aul"];
    assert_eq!(ours["excluded"].as_array().unwrap().len(), 0);

    // How far a near tie flipping could move a score: each near-tie item moves SS (or LMS)
    // by at most 100 / (items of its target) / (targets in the scope), and ICAT by at most
    // twice that. Items not near a tie must give exactly the reference's verdicts.
    let items: Vec<Value> = serde_json::from_str::<Value>(
        &std::fs::read_to_string(root().join("data/stereoset/dev.json")).unwrap(),
    )
    .unwrap()["data"]["intrasentence"]
        .as_array()
        .unwrap()
        .clone();
    let mut per_target: HashMap<&str, usize> = HashMap::new();
    for it in &items {
        *per_target
            .entry(it["target"].as_str().unwrap())
            .or_default() += 1;
    }
    let near: Vec<&str> = fixture["smallest_gaps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["gap"].as_f64().unwrap() <= 2.0 * SENTENCE_TOL)
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    let slack = |domain: Option<&str>, n_targets: f64| -> f64 {
        items
            .iter()
            .filter(|it| near.contains(&it["id"].as_str().unwrap()))
            .filter(|it| domain.is_none_or(|d| it["bias_type"] == d))
            .map(|it| 2.0 * 100.0 / per_target[it["target"].as_str().unwrap()] as f64 / n_targets)
            .sum::<f64>()
            + 1e-9
    };
    let check = |what: &str, got: &Value, want: &Value, tol: f64| {
        assert_eq!(got["n_items"], want["n_items"], "{what}");
        assert_eq!(got["n_targets"], want["n_targets"], "{what}");
        for key in ["ss", "lms", "icat"] {
            let (g, w) = (got[key].as_f64().unwrap(), want[key].as_f64().unwrap());
            assert!(
                abs_diff_eq!(g, w, epsilon = tol),
                "{what} {key}: bias {g} vs Python {w} (tolerance {tol})"
            );
        }
    };
    let want = &fixture["overall"];
    check(
        "overall",
        &ours["overall"],
        want,
        slack(None, want["n_targets"].as_f64().unwrap()),
    );
    let domains = fixture["by_domain"].as_object().unwrap();
    assert_eq!(ours["by_domain"].as_object().unwrap().len(), domains.len());
    for (d, want) in domains {
        let tol = slack(Some(d), want["n_targets"].as_f64().unwrap());
        check(d, &ours["by_domain"][d], want, tol);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
