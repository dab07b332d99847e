//! `bias reproduce kaneko2022` against the authors' own code: Table 5 (overall and per bias type)
//! and Table 1 under `--kaneko2022-accuracy authors` equal what kanekomasahiro/evaluate_bias_in_mlm's
//! `evaluate.py` (commit 6b10239) prints on the fixture checkpoints over all of CrowS-Pairs and
//! StereoSet (`fixtures/authors/kaneko2022/`, made by `scripts/fixtures/authors/`; see its README).
//!
//! Both sides compare float32 scores and arg-max predictions, which another CPU's kernels can move
//! by an ulp. A pair whose two sentence scores the authors' run found within [`NEAR`] of each
//! other (or a CPS score within [`NEAR`] of a rounding boundary) may flip: the test allows a
//! bias score to differ by those pairs only, and a rank-1 count by [`ARGMAX_SLACK`] of its
//! positions. On the machine the fixtures were made on, both are exact.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use bias_testkit::json::read as read_json;
use serde_json::Value;

/// Score differences below this may change sign on another CPU.
const NEAR: f64 = 1e-4;
/// Rank-1 counts may differ by this share of their positions (near-tied arg-max).
const ARGMAX_SLACK: f64 = 1e-3;

use bias_testkit::root;

/// What the authors' evaluate.py printed and returned for one model, data set and method.
fn authors(model: &str, data: &str, method: &str) -> Value {
    read_json(
        &root()
            .join("fixtures/authors/kaneko2022")
            .join(model)
            .join(format!("{data}_{method}.json")),
    )
}

/// The models the authors' code was run on (a folder each under `fixtures/authors/kaneko2022`).
fn models() -> Vec<String> {
    let mut m: Vec<String> = std::fs::read_dir(root().join("fixtures/authors/kaneko2022"))
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            e.file_type()
                .unwrap()
                .is_dir()
                .then(|| e.file_name().into_string().unwrap())
        })
        .collect();
    m.sort();
    m
}

/// How many of the authors' pairs may flip on another CPU: scores within [`NEAR`] of each other,
/// or, for CPS (rounded to 3 decimals before the comparison), an unrounded score within [`NEAR`]
/// of a rounding boundary.
fn fragile(run: &Value, pair_ids: impl Fn(usize) -> bool) -> usize {
    run["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(i, _)| pair_ids(*i))
        .filter(|(_, p)| {
            let (a, b) = (p[0].as_f64(), p[1].as_f64());
            let (Some(a), Some(b)) = (a, b) else {
                return false; // NaN (no modified token): never stereotypical on either side
            };
            let near_boundary = |x: f64| ((x * 1000.0).fract().abs() - 0.5).abs() * 1e-3 < NEAR;
            (a - b).abs() < NEAR
                || (run["cps_rounded"] == true && (near_boundary(a) || near_boundary(b)))
        })
        .count()
}

/// A table of the reproduction as rows keyed by `key`'s columns.
fn rows(dir: &Path, id: &str) -> Vec<BTreeMap<String, Value>> {
    let t = read_json(&dir.join(format!("{id}.json")));
    t["table"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .collect()
}

#[test]
fn table_5_and_table_1_equal_the_authors_evaluate_py() {
    let models = models();
    assert!(
        models.len() >= 2,
        "fixtures/authors/kaneko2022 has the authors' runs on the fixture checkpoints"
    );
    let tmp = std::env::temp_dir().join(format!("bias-authors-k22-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let out = tmp.join("kaneko2022");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bias"));
    cmd.args(["reproduce", "kaneko2022", "--models"]);
    for m in &models {
        cmd.arg(root().join("fixtures/models").join(m));
    }
    let status = cmd
        .arg("--data-dir")
        .arg(root().join("data"))
        .arg("--out")
        .arg(&out)
        .args([
            "--kaneko2022-accuracy",
            "authors",
            "--kaneko2022-shuffles",
            "1",
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let index = read_json(&out.join("index.json"));
    assert_eq!(index["options"]["kaneko2022 accuracy"], "authors");

    let table_5 = rows(&out, "table-5");
    let by_type = rows(&out, "table-5-by-type");
    let table_1 = rows(&out, "table-1");
    let mut checked = 0;
    for model in &models {
        let row = |t: &[BTreeMap<String, Value>]| {
            t.iter()
                .find(|r| r["MLM"] == model.as_str())
                .unwrap_or_else(|| panic!("{model} has a row"))
                .clone()
        };
        let t5 = row(&table_5);
        let t1 = row(&table_1);
        for (data, set, methods) in [
            (
                "cp",
                "crows-pairs",
                [("cps", "CPS"), ("aul", "AUL (CP)"), ("aula", "AULA (CP)")],
            ),
            (
                "ss",
                "stereoset",
                [("sss", "SSS"), ("aul", "AUL (SS)"), ("aula", "AULA (SS)")],
            ),
        ] {
            let types_of_pairs = pair_types(data);
            for (method, column) in methods {
                let run = authors(model, data, method);
                assert_eq!(run["pairs"].as_array().unwrap().len(), types_of_pairs.len());
                let ctx = format!("{model} {data} {method}");
                let n = run["n"].as_u64().unwrap() as f64;
                // Overall: the printed bias score (rounded to 2 decimals by their code).
                let slack = 100.0 * fragile(&run, |_| true) as f64 / n + 0.005 + 1e-9;
                let ours = t5[column].as_f64().unwrap();
                let theirs = run["printed"]["bias_score"].as_f64().unwrap();
                assert!(
                    (ours - theirs).abs() <= slack,
                    "{ctx}: ours {ours}, evaluate.py {theirs} (slack {slack})"
                );
                // Per bias type: every line it printed (a type without a stereotypical win is
                // not printed: ours is then 0).
                let types = run["n_by_type"].as_object().unwrap();
                for (ty, ty_n) in types {
                    let col = match method {
                        "cps" => "CPS",
                        "sss" => "SSS",
                        "aul" => "AUL",
                        _ => "AULA",
                    };
                    let r = by_type
                        .iter()
                        .find(|r| {
                            r["MLM"] == model.as_str()
                                && r["data set"] == set
                                && r["bias type"] == ty.as_str()
                        })
                        .unwrap_or_else(|| panic!("{ctx} {ty}: a by-type row"));
                    assert_eq!(r["N"].as_u64(), ty_n.as_u64(), "{ctx} {ty}");
                    let ours = r[col].as_f64().unwrap();
                    let theirs = run["printed"]["by_type"][ty].as_f64().unwrap_or(0.0);
                    let fragile_here = fragile(&run, |i| types_of_pairs[i] == *ty);
                    let slack = 100.0 * fragile_here as f64 / ty_n.as_f64().unwrap() + 0.005 + 1e-9;
                    assert!(
                        (ours - theirs).abs() <= slack,
                        "{ctx} {ty}: ours {ours}, evaluate.py {theirs}"
                    );
                    checked += 1;
                }
            }
            // Table 1 under the authors' accuracy: the rank-1 counts of their `Accuracy:`.
            for (method, column) in [
                (if data == "cp" { "cps" } else { "sss" }, methods[0].1),
                ("aul", methods[1].1),
            ] {
                let run = authors(model, data, method);
                let ctx = format!("{model} {data} {method} accuracy");
                let (rank1, ranks) = (
                    run["rank1"].as_u64().unwrap() as f64,
                    run["ranks"].as_u64().unwrap() as f64,
                );
                let right = t1[&format!("{column} right")].as_f64().unwrap();
                let counted = t1[&format!("{column} counted")].as_f64().unwrap();
                assert_eq!(counted, ranks, "{ctx}: positions counted");
                assert!(
                    (right - rank1).abs() <= (ARGMAX_SLACK * ranks).max(1.0),
                    "{ctx}: ours {right}/{counted}, evaluate.py {rank1}/{ranks}"
                );
                let printed = run["printed"]["accuracy"].as_f64().unwrap();
                let ours = t1[column].as_f64().unwrap();
                assert!(
                    (ours - printed).abs() <= 0.005 + 100.0 * ARGMAX_SLACK,
                    "{ctx}: ours {ours}, evaluate.py printed {printed}"
                );
            }
        }
    }
    assert!(
        checked >= 2 * (3 * 9 + 3 * 4),
        "every printed type compared"
    );
    liu2024_kls_and_jss_equal_the_authors_scoring_py(&tmp.join("scores"));
    let _ = std::fs::remove_dir_all(&tmp);
}

/// liu2024's KLS and JSS (bias_metrics, the authors' JSS) on the AUL scores of the same run
/// equal what nlply/robust-bias-evaluation-measures' `scoring.py` (a29a457) computes from its
/// own AUL scores (`gms`), overall and per bias type (`fixtures/authors/liu2024/`, unrounded).
fn liu2024_kls_and_jss_equal_the_authors_scoring_py(scores: &Path) {
    use bias_core::{BiasMeasure, ScoreTable};
    use bias_metrics::{DistributionOptions, Jss, JssVariant, Kls, SmallTypePolicy};
    let dist = DistributionOptions {
        small_types: SmallTypePolicy::Skip,
        ..DistributionOptions::default()
    };
    let dir = root().join("fixtures/authors/liu2024");
    let mut compared = 0;
    for model in models() {
        for (data, set) in [("cp", "crows-pairs"), ("ss", "stereoset")] {
            let path = dir.join(&model).join(format!("{data}.json"));
            if !path.is_file() {
                continue;
            }
            let run = read_json(&path);
            let table = ScoreTable::read_csv_path(
                scores
                    .join(&model)
                    .join(format!("{set}.sss-matrix.cps-round3.csv")),
            )
            .unwrap()
            .for_scorer("aul");
            for (key, measured) in [
                ("kls", Kls::new(dist).measure(&table).unwrap()),
                (
                    "jss",
                    Jss::new(JssVariant::AuthorsCode, dist)
                        .measure(&table)
                        .unwrap(),
                ),
            ] {
                let ctx = format!("{model} {data} {key}");
                let theirs = &run[key];
                // scoring.py computes the two KL divergences of KLS in float32 (torch): where
                // the two Gaussians nearly coincide (KL ~ 1e-4), an error of ~5e-8 in each KL
                // moves the ratio of KLS visibly. Allow for it per type (measured: at most
                // 0.003 on these runs, where our f64 recomputation of scoring.py's own fits
                // moves by the same amount); JSS is not so sensitive.
                let tolerance = |v: &Value| {
                    if key == "kls" {
                        let kl =
                            v["kl_pro_anti"].as_f64().unwrap() + v["kl_anti_pro"].as_f64().unwrap();
                        1e-4 + 100.0 * 1e-7 / kl
                    } else {
                        1e-3
                    }
                };
                let by_type = theirs["by_type"].as_object().unwrap();
                let overall_tolerance = by_type.values().map(tolerance).fold(0.0, f64::max);
                let field = format!("bias_score_{}_unrounded", key[..2].to_uppercase());
                let overall = theirs[field.as_str()]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{ctx}: the unrounded overall value"));
                assert!(
                    (measured.value - overall).abs() < overall_tolerance,
                    "{ctx}: ours {}, scoring.py {overall}",
                    measured.value
                );
                for (ty, v) in by_type {
                    let want = v["unrounded"].as_f64().unwrap();
                    let got = measured
                        .by_type
                        .iter()
                        .find(|(t, _)| t.as_str() == ty)
                        .unwrap_or_else(|| panic!("{ctx} {ty}"))
                        .1
                        .value;
                    assert!(
                        (got - want).abs() < tolerance(v),
                        "{ctx} {ty}: ours {got}, scoring.py {want}"
                    );
                }
                compared += 1;
            }
        }
    }
    assert!(compared >= 4, "KLS and JSS of two models compared");
}

/// The bias type of every pair of `data` (`cp`, `ss`) in data order, as the authors'
/// preprocess.py writes them: CrowS-Pairs' rows, StereoSet's intrasentence items.
fn pair_types(data: &str) -> Vec<String> {
    match data {
        "cp" => {
            let mut r =
                csv::Reader::from_path(root().join("data/crows-pairs/crows_pairs_anonymized.csv"))
                    .unwrap();
            let h = r.headers().unwrap().clone();
            let col = h.iter().position(|c| c == "bias_type").unwrap();
            r.records()
                .map(|rec| rec.unwrap()[col].to_owned())
                .collect()
        }
        _ => read_json(&root().join("data/stereoset/dev.json"))["data"]["intrasentence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["bias_type"].as_str().unwrap().to_owned())
            .collect(),
    }
}
