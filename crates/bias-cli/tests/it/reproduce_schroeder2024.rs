//! `bias reproduce schroeder2024` end to end on the fixture BERT and RoBERTa (first 60
//! CrowS-Pairs pairs): every table and figure of Schröder, Schulz & Hammer (2024) is listed with
//! its status and files, the options are recorded in the index and stated in the notes, Table 1
//! has the paper's counts, Figure 1's r is recomputed by hand from the per-sample file under
//! both readings, Table 3 follows the 1-SD rule (two models never deviate by more than one SD),
//! and Figure 3 has the authors' grid. The numbers themselves are checked against the authors'
//! code in `authors_schroeder2024.rs`.

use approx::assert_relative_eq;
use bias_testkit::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use bias_testkit::root;
use bias_testkit::Run;

fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("bias-repro-sch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    sxy / (sxx * syy).sqrt()
}

#[test]
fn every_table_and_figure_is_listed_with_its_settings() {
    let dir = scratch();
    let out = dir.join("schroeder2024");
    Command::new(env!("CARGO_BIN_EXE_bias"))
        .current_dir(root())
        .args(["reproduce", "schroeder2024", "--models"])
        .args(["fixtures/models/bert", "fixtures/models/roberta"])
        .args(["--max-pairs", "60", "--data-dir", "data", "--device", "cpu"])
        .args(["--schroeder2024-retest-repeats", "20"])
        // 60 pairs keep 4 gender targets: the authors' 1–20 % would be empty subsets.
        .args(["--schroeder2024-retest-shares", "0.5", "1"])
        .arg("--out")
        .arg(&out)
        .arg("--scores")
        .arg(dir.join("scores"))
        .succeeds();

    // The index: every table, figure and numbered analysis, with its status and files.
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("index.json")).unwrap()).unwrap();
    assert_eq!(index["models"], serde_json::json!(["bert", "roberta"]));
    let status: BTreeMap<String, (String, Vec<String>)> = index["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let label = a["status"]["status"].as_str().unwrap().to_owned();
            let files = json::strings(&a["files"]);
            (a["id"].as_str().unwrap().to_owned(), (label, files))
        })
        .collect();
    let expect = [
        ("table-1", "method-only"),
        ("table-2", "out-of-reach"),
        ("table-3", "substitute"),
        ("figure-1", "substitute"),
        ("figure-2", "substitute"),
        ("figure-3", "substitute"),
        ("analysis-4.3.4", "substitute"),
        ("analysis-5.3", "out-of-reach"),
    ];
    assert_eq!(status.len(), expect.len(), "{status:?}");
    for (id, want) in expect {
        let (label, files) = &status[id];
        assert_eq!(label, want, "{id}");
        for f in files {
            assert!(out.join(f).is_file(), "{id}: {f} missing");
        }
    }
    for f in [
        "figure-1.csv",
        "figure-2.csv",
        "figure-3.csv",
        "analysis-4.3.4-samples.csv",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }

    // Table 1: the paper's numbers of defining sets (race 15, religion 14, gender 25, age 8).
    let t1 = csv_rows(&out.join("table-1.csv"));
    let sets: Vec<&str> = t1.iter().map(|r| r["# defining sets"].as_str()).collect();
    assert_eq!(sets, ["15", "14", "25", "8"]);

    // Every option is recorded in the index, and the notes state the settings (item 5).
    let options = &index["options"];
    assert_eq!(options["schroeder2024 SAME"], "authors-code", "{options}");
    assert_eq!(options["schroeder2024 labels"], "authors-code");
    assert_eq!(options["schroeder2024 subspace"], "raw");
    let t434 = std::fs::read_to_string(out.join("analysis-4.3.4.md")).unwrap();
    assert!(t434.contains("SAME as the authors' code"), "{t434}");
    assert!(t434.contains("PCA of raw term vectors"), "{t434}");
    let agg = csv_rows(&out.join("analysis-4.3.4.csv"));
    let samples = csv_rows(&out.join("analysis-4.3.4-samples.csv"));
    // Figure 1: the authors' reading, r of |per-pair score| with |PLL difference|, by hand.
    let figure1 =
        |samples: &[BTreeMap<String, String>], f: &BTreeMap<String, String>, abs: bool| {
            let rows: Vec<_> = samples
                .iter()
                .filter(|s| s["model"] == f["model"] && s["attribute"] == f["attribute"])
                .collect();
            let col = match (f["score"].as_str(), abs) {
                ("SAME", true) => "same_pair",
                ("WEAT", true) => "weat_pair",
                (_, true) => "direct_bias_pair",
                ("SAME", false) => "same",
                ("WEAT", false) => "weat",
                _ => "direct_bias",
            };
            let v = |s: &BTreeMap<String, String>, c: &str| -> Option<f64> {
                let x: f64 = s[c].parse().ok()?;
                Some(if abs { x.abs() } else { x })
            };
            let x: Option<Vec<f64>> = rows.iter().map(|s| v(s, col)).collect();
            let y: Vec<f64> = rows
                .iter()
                .map(|s| v(s, "pll_difference").unwrap())
                .collect();
            x.map(|x| pearson(&x, &y))
        };
    let f1 = csv_rows(&out.join("figure-1.csv"));
    assert!(!f1.is_empty());
    for f in &f1 {
        assert_eq!(f["reading"], "authors-code");
        match figure1(&samples, f, true) {
            Some(r) if r.is_finite() => assert_relative_eq!(
                f["r"].parse::<f64>().unwrap(),
                r,
                epsilon = 1e-6,
                max_relative = 1e-6
            ),
            _ => assert_eq!(f["r"], "", "{f:?}"),
        }
        let p: Option<f64> = f["p"].parse().ok();
        assert_eq!(f["drawn"] == "true", p.is_some_and(|p| p < 0.05), "{f:?}");
    }
    // CPS bias: the percentage of kept pairs with a positive PLL difference.
    for r in agg.iter().filter(|r| r["SAME"] != "–") {
        let d: Vec<f64> = samples
            .iter()
            .filter(|s| s["model"] == r["model"] && s["attribute"] == r["attribute"])
            .map(|s| s["pll_difference"].parse().unwrap())
            .collect();
        let pct = 100.0 * d.iter().filter(|v| **v > 0.0).count() as f64 / d.len() as f64;
        assert_relative_eq!(
            r["CPS bias (%)"].parse::<f64>().unwrap(),
            pct,
            epsilon = 1e-4,
            max_relative = 1e-4
        );
    }
    // Table 3: with two models each deviates by exactly one SD, so none is selected.
    for r in csv_rows(&out.join("table-3.csv")) {
        assert_eq!(r["BIOS gender"], "out of reach");
        for c in ["race", "religion", "gender", "age"] {
            assert_eq!(r[&format!("CrowS-Pairs {c}")], "–", "{r:?}");
        }
    }
    // Figure 3: SAME and DirectBias at the shares asked for, per model and pooled; at 100 % a
    // subset is the full set, so the deviation is 0.
    let f3 = csv_rows(&out.join("figure-3.csv"));
    for score in ["SAME", "DirectBias"] {
        for model in ["bert", "roberta", "all models"] {
            let rows: Vec<_> = f3
                .iter()
                .filter(|r| r["score"] == score && r["model"] == model)
                .collect();
            let shares: Vec<&str> = rows.iter().map(|r| r["share"].as_str()).collect();
            assert_eq!(shares, ["0.5", "1"], "{score} {model}");
            assert_eq!(rows[1]["mean abs deviation"], "0", "{score} {model}");
        }
    }
    std::fs::remove_dir_all(dir).ok();
}
