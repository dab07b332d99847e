//! `bias reproduce schroeder2024` end to end on the fixture BERT and RoBERTa (first 60
//! CrowS-Pairs pairs): every table and figure of Schröder, Schulz & Hammer (2024) is listed with
//! its status and files, the per-model and per-sample scores equal the Python fixture of the
//! authors' procedure (`scripts/fixtures/schroeder2024_crows.py`, `transformers`), Table 1 has the
//! paper's counts, Figure 1's r is recomputed by hand from the per-sample file, and Table 3
//! follows the 1-SD rule (two models never deviate by more than one SD).

use approx::assert_relative_eq;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

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
fn every_table_and_figure_is_listed_and_the_scores_match_the_authors_procedure() {
    let dir = scratch();
    let out = dir.join("schroeder2024");
    let output = Command::new(env!("CARGO_BIN_EXE_bias"))
        .current_dir(root())
        .args(["reproduce", "schroeder2024", "--models"])
        .args(["fixtures/models/bert", "fixtures/models/roberta"])
        .args(["--max-pairs", "60", "--data-dir", "data", "--device", "cpu"])
        .args(["--schroeder2024-retest-repeats", "20"])
        .arg("--out")
        .arg(&out)
        .arg("--scores")
        .arg(dir.join("scores"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

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
            let files = a["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_owned())
                .collect();
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

    // §4.3.4 against the fixture: aggregated scores and every sample.
    let fx: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/embed/schroeder2024_crows.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(fx["max_pairs"], 60);
    let agg = csv_rows(&out.join("analysis-4.3.4.csv"));
    let mut compared = 0;
    for r in &agg {
        let t = &fx["models"][&r["model"]]["types"][&r["attribute"]];
        if t.is_null() {
            assert_eq!(r["SAME"], "–", "{r:?}");
            continue;
        }
        assert_eq!(r["pairs"], t["pairs"].as_array().unwrap().len().to_string());
        assert_relative_eq!(
            r["SAME"].parse::<f64>().unwrap(),
            t["same"].as_f64().unwrap(),
            epsilon = 1e-4,
            max_relative = 1e-4
        );
        assert_relative_eq!(
            r["DirectBias"].parse::<f64>().unwrap(),
            t["direct_bias"].as_f64().unwrap(),
            epsilon = 1e-4,
            max_relative = 1e-4
        );
        match t["weat"].as_f64() {
            Some(w) => assert_relative_eq!(
                r["WEAT"].parse::<f64>().unwrap(),
                w,
                epsilon = 1e-4,
                max_relative = 1e-4
            ),
            None => assert_eq!(r["WEAT"], "–"),
        }
        compared += 1;
    }
    assert_eq!(compared, 4, "bert and roberta on race-color and gender");
    let samples = csv_rows(&out.join("analysis-4.3.4-samples.csv"));
    for s in &samples {
        let m = &fx["models"][&s["model"]];
        assert_eq!(s["target"], m["masked"][&s["pair_id"]].as_str().unwrap());
        let t = &m["types"][&s["attribute"]];
        let i = t["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .position(|p| p == &s["pair_id"])
            .unwrap();
        for k in ["same", "direct_bias"] {
            let want = t["samples"][k][i].as_f64().unwrap();
            assert_relative_eq!(
                s[k].parse::<f64>().unwrap(),
                want,
                epsilon = 1e-4,
                max_relative = 1e-4
            );
        }
    }

    // Figure 1: r of each model's sample scores with its PLL differences, by hand.
    for f in csv_rows(&out.join("figure-1.csv")) {
        let rows: Vec<_> = samples
            .iter()
            .filter(|s| s["model"] == f["model"] && s["attribute"] == f["attribute"])
            .collect();
        let col = match f["score"].as_str() {
            "SAME" => "same",
            "WEAT" => "weat",
            _ => "direct_bias",
        };
        let x: Vec<f64> = rows.iter().map(|s| s[col].parse().unwrap()).collect();
        let y: Vec<f64> = rows
            .iter()
            .map(|s| s["pll_difference"].parse().unwrap())
            .collect();
        assert_relative_eq!(
            f["r"].parse::<f64>().unwrap(),
            pearson(&x, &y),
            epsilon = 1e-4,
            max_relative = 1e-4
        );
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
    // Figure 3: the three scores at the six shares of the paper.
    let f3 = csv_rows(&out.join("figure-3.csv"));
    for score in ["SAME", "WEAT", "DirectBias"] {
        let shares: Vec<&str> = f3
            .iter()
            .filter(|r| r["score"] == score)
            .map(|r| r["share"].as_str())
            .collect();
        assert_eq!(
            shares,
            ["0.01", "0.02", "0.05", "0.1", "0.15", "0.2"],
            "{score}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}
