//! `bias reproduce schroeder2024` against the authors' own code: HammerLabML/
//! PLMBiasMeasureBenchmark (branch `ijcnn24`, 4e8c2ed) `mlm_experiment.py` and the evaluation cells
//! of `crowspairs.ipynb`, run unmodified on four fixture MLMs over all of CrowS-Pairs
//! (`fixtures/authors/schroeder2024/`, made by `scripts/fixtures/authors/schroeder2024.sh`; see its
//! README). With the defaults (the authors' code throughout) every aggregated score of §4.3.4,
//! every per-sample and per-pair (`_cs`) score, every PLL difference and CPS bias, Figure 1
//! (right)'s r, p and the models it draws, and Table 3's selection and accuracies equal theirs.
//!
//! Tolerances: the cosine scores are float32 on their side (1e-4); their PLL runs on copies of the
//! checkpoints padded to 512 positions (their code pads every input to 512), which moves a
//! log-probability by up to 1.5e-5 (a PLL difference by 1e-3); a pair whose difference is that
//! close to 0 could change sign on another CPU, and the CPS bias may differ by such pairs only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use bias_testkit::json::read as read_json;
use bias_testkit::Run;
use serde_json::Value;

/// The checkpoints the authors' code ran on (deberta-v2 and mpnet fail in their `split_mlm`).
const MODELS: [&str; 4] = ["roberta", "albert", "xlm-roberta", "camembert"];
/// Cosine scores: float32 on the authors' side.
const COSINE: f64 = 1e-4;
/// PLL differences: their 512-position copies of the checkpoints.
const PLL: f64 = 1e-3;

use bias_testkit::root;

fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

fn close(ours: &str, theirs: &Value, tol: f64, what: &str) {
    match theirs.as_f64() {
        None => assert!(
            ours.is_empty() || ours == "–",
            "{what}: ours {ours}, theirs null"
        ),
        Some(b) => {
            let a: f64 = ours.parse().unwrap_or_else(|_| panic!("{what}: {ours:?}"));
            assert!((a - b).abs() <= tol, "{what}: ours {a}, theirs {b}");
        }
    }
}

#[test]
fn the_mlm_experiment_figure_1_and_table_3_equal_the_authors_code() {
    let fixtures = root().join("fixtures/authors/schroeder2024");
    let mlm = read_json(&fixtures.join("mlm.json"));
    let evaluation = read_json(&fixtures.join("evaluation.json"));
    let dir = std::env::temp_dir().join(format!("bias-authors-sch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("schroeder2024");
    let models: Vec<PathBuf> = MODELS
        .iter()
        .map(|m| root().join("fixtures/models").join(m))
        .collect();
    Command::new(env!("CARGO_BIN_EXE_bias"))
        .current_dir(root())
        .args(["reproduce", "schroeder2024", "--models"])
        .args(&models)
        .args(["--data-dir", "data", "--device", "cpu", "--threads", "1"])
        .args(["--schroeder2024-retest-repeats", "3"])
        .arg("--out")
        .arg(&out)
        .arg("--scores")
        .arg(dir.join("scores"))
        .succeeds();

    // §4.3.4: the aggregated scores and the CPS bias (their `extrinsic`, a share).
    let types = |m: &str| &mlm["models"][m]["bias_types"];
    let mut compared = 0;
    for r in csv_rows(&out.join("analysis-4.3.4.csv")) {
        let t = &types(&r["model"])[&r["attribute"]];
        let what = format!("{} {}", r["model"], r["attribute"]);
        assert_eq!(
            r["pairs"],
            t["pair_ids"].as_array().unwrap().len().to_string(),
            "{what}"
        );
        for key in ["SAME", "WEAT", "DirectBias"] {
            close(&r[key], &t[key], COSINE, &format!("{what} {key}"));
        }
        if t["WEAT"].is_null() {
            close(&r["gWEAT"], &t["gWEAT"], COSINE, &format!("{what} gWEAT"));
        }
        // Pairs whose PLL difference is within PLL of 0 may flip between machines.
        let diffs = t["extrinsic_individual"].as_array().unwrap();
        let near = diffs
            .iter()
            .filter(|d| d.as_f64().unwrap().abs() < PLL)
            .count();
        let slack = 100.0 * near as f64 / diffs.len() as f64 + 1e-6;
        close(
            &r["CPS bias (%)"],
            &Value::from(100.0 * t["extrinsic"].as_f64().unwrap()),
            slack.max(1e-3),
            &format!("{what} CPS bias"),
        );
        compared += 1;
    }
    assert_eq!(compared, 16, "four models × four bias types");

    // Every kept pair: per-sample, per-pair (`_cs`) scores and the PLL difference, whose sign is
    // their code's (every pair read as antistereo).
    let mut samples = 0;
    for s in csv_rows(&out.join("analysis-4.3.4-samples.csv")) {
        let t = &types(&s["model"])[&s["attribute"]];
        let id: i64 = s["pair_id"].parse().unwrap();
        let i = t["pair_ids"]
            .as_array()
            .unwrap()
            .iter()
            .position(|p| p.as_i64() == Some(id))
            .unwrap_or_else(|| {
                panic!(
                    "{} {} pair {id} not kept by the authors",
                    s["model"], s["attribute"]
                )
            });
        let what = format!("{} {} pair {id}", s["model"], s["attribute"]);
        for (col, key, tol) in [
            ("same", "SAME_individual", COSINE),
            ("weat", "WEAT_individual", COSINE),
            ("direct_bias", "DirectBias_individual", COSINE),
            ("same_pair", "SAME_cs", COSINE),
            ("weat_pair", "WEAT_cs", COSINE),
            ("direct_bias_pair", "DirectBias_cs", COSINE),
            ("pll_difference", "extrinsic_individual", PLL),
        ] {
            let theirs = if t[key].is_null() {
                &Value::Null
            } else {
                &t[key][i]
            };
            close(&s[col], theirs, tol, &format!("{what} {col}"));
        }
        samples += 1;
    }
    let expected: usize = MODELS
        .iter()
        .map(|m| {
            ["race-color", "religion", "gender", "age"]
                .iter()
                .map(|t| types(m)[*t]["pair_ids"].as_array().unwrap().len())
                .sum::<usize>()
        })
        .sum();
    assert_eq!(samples, expected);

    // Figure 1 (right): r and p of every model and score, and which the notebook keeps.
    let mut rs = 0;
    for f in csv_rows(&out.join("figure-1.csv")) {
        let theirs = evaluation["per_bias_type"][&f["attribute"]]["figure1_right_all"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["mlm"] == f["model"].as_str() && x["score"] == f["score"].as_str())
            .unwrap_or_else(|| panic!("{f:?} not in the notebook's output"));
        let what = format!("{} {} {}", f["attribute"], f["model"], f["score"]);
        close(&f["r"], &theirs["r"], COSINE, &format!("{what} r"));
        close(&f["p"], &theirs["p"], COSINE, &format!("{what} p"));
        assert_eq!(f["drawn"] == "true", theirs["kept"] == true, "{what}");
        rs += 1;
    }
    let theirs_total: usize = evaluation["per_bias_type"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t["figure1_right_all"].as_array().unwrap().len())
        .sum();
    assert_eq!(rs, theirs_total);

    // Table 3: the low/high selection and, where the notebook has both, the accuracies.
    let t3 = std::fs::read_to_string(out.join("table-3.md")).unwrap();
    let rows = csv_rows(&out.join("table-3.csv"));
    for (ty, column) in [
        ("race-color", "CrowS-Pairs race"),
        ("religion", "CrowS-Pairs religion"),
        ("gender", "CrowS-Pairs gender"),
        ("age", "CrowS-Pairs age"),
    ] {
        let theirs = &evaluation["per_bias_type"][ty]["table3"];
        let names = |k: &str| -> String {
            let v: Vec<&str> = theirs[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            if v.is_empty() {
                "none".into()
            } else {
                v.join(", ")
            }
        };
        let line = format!(
            "{ty}: low-bias models (CPS bias below mean − 1 SD): {}; high-bias (above mean + 1 SD): {}",
            names("exp_low_bias_mlm"),
            names("exp_high_bias_mlm")
        );
        assert!(t3.contains(&line), "{line}\n{t3}");
        for r in &rows {
            let score = theirs["scores"][&r["cosine score"]]["accuracy_score"].as_f64();
            match score {
                Some(acc) => assert!(
                    r[column].starts_with(&format!("{acc:.2} (")),
                    "{ty} {}: ours {}, theirs {acc}",
                    r["cosine score"],
                    r[column]
                ),
                None => assert_eq!(r[column], "–", "{ty} {}", r["cosine score"]),
            }
        }
    }
    // Figure 3: the authors' grid (robustness.py: 1/3/5/10/20 %, nested prefixes) per model,
    // and the failures reported: 1 % of the 100 gender targets is one target, too few for WEAT.
    let f3 = csv_rows(&out.join("figure-3.csv"));
    for score in ["SAME", "WEAT", "DirectBias"] {
        for model in MODELS {
            let rows: Vec<_> = f3
                .iter()
                .filter(|r| r["score"] == score && r["model"] == model)
                .collect();
            let shares: Vec<&str> = rows.iter().map(|r| r["share"].as_str()).collect();
            assert_eq!(
                shares,
                ["0.01", "0.03", "0.05", "0.1", "0.2"],
                "{score} {model}"
            );
            assert_eq!(rows[0]["subset size"], "1", "{score} {model}");
            let failed = if score == "WEAT" { "3" } else { "0" };
            assert_eq!(rows[0]["failed"], failed, "{score} {model}");
        }
    }
    let index = read_json(&out.join("index.json"));
    let f3_status = index["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "figure-3")
        .unwrap()["status"]
        .to_string();
    assert!(
        f3_status.contains("WEAT at 1 %: 12 of 12 subsets failed"),
        "{f3_status}"
    );
    std::fs::remove_dir_all(dir).ok();
}
