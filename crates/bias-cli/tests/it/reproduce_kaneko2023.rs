//! `bias reproduce kaneko2023` on the tiny fixture BERT (Kaneko, Bollegala & Okazaki 2023):
//! every table and figure is listed and written, and the numbers are checked against
//! computations made here from the files the run leaves (the rate models' score tables), by hand
//! (the Appendix A share, Spearman's ρ), and against `transformers`
//! (scripts/fixtures/kaneko2023_mask_probe.py: Figure 3's mask probabilities of the base model).

use crate::support::kaneko2023_genders;
use approx::abs_diff_eq;
use bias_testkit::json;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use bias_testkit::json::read as json;
use bias_testkit::root;

fn run(out: &Path, extra: &[&str]) {
    let r = root();
    let status = Command::new(env!("CARGO_BIN_EXE_bias"))
        .current_dir(&r)
        .args(["reproduce", "kaneko2023", "--models"])
        .arg(r.join("fixtures/models/bert"))
        .args(["--max-pairs", "16", "--data-dir"])
        .arg(r.join("data"))
        .arg("--out")
        .arg(out)
        .args([
            "--kaneko2023-rates",
            "0,0.5,1",
            "--kaneko2023-sentences",
            "16",
            "--kaneko2023-max-steps",
            "2",
            "--kaneko2023-learning-rate",
            "0.01",
            "--kaneko2023-max-length",
            "32",
            "--kaneko2023-bootstrap",
            "10",
            "--kaneko2023-dev-per-side",
            "5",
            "--kaneko2023-models",
        ])
        .arg(out.parent().unwrap().join("k23-models"))
        .args(extra)
        .status()
        .expect("run bias");
    assert!(status.success(), "bias reproduce kaneko2023 failed");
}

/// Spearman's ρ with average ranks, by hand.
fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let ranks = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .map(|a| {
                let less = v.iter().filter(|b| *b < a).count() as f64;
                let equal = v.iter().filter(|b| *b == a).count() as f64;
                less + (equal + 1.0) / 2.0
            })
            .collect()
    };
    let (rx, ry) = (ranks(x), ranks(y));
    let n = x.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    (vx > 0.0 && vy > 0.0).then(|| cov / (vx * vy).sqrt())
}

/// 100 × the share of a scorer's rows whose stereo score is higher, from a score table file.
fn stereo_share(csv_path: &Path, scorer: &str) -> f64 {
    let mut reader = csv::Reader::from_path(csv_path).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (s, a, sc) = (col("score_stereo"), col("score_anti"), col("scorer"));
    let (mut n, mut wins) = (0usize, 0usize);
    for rec in reader.records() {
        let rec = rec.unwrap();
        if &rec[sc] != scorer {
            continue;
        }
        n += 1;
        if rec[s].parse::<f64>().unwrap() > rec[a].parse::<f64>().unwrap() {
            wins += 1;
        }
    }
    assert!(n > 0, "no {scorer} rows in {}", csv_path.display());
    100.0 * wins as f64 / n as f64
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

#[test]
fn reproduce_kaneko2023_on_the_fixture_bert() {
    let tmp = std::env::temp_dir().join(format!("k23-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let out = tmp.join("kaneko2023");
    run(&out, &[]);

    // Every table and figure of the paper is listed; those computed have their files.
    let index = json(&out.join("index.json"));
    let artifacts = index["artifacts"].as_array().unwrap();
    let status = |id: &str| -> String {
        let a = artifacts
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("{id}"));
        for f in a["files"].as_array().unwrap() {
            assert!(out.join(f.as_str().unwrap()).is_file(), "{id}: {f}");
        }
        a["status"]["status"].as_str().unwrap().to_owned()
    };
    assert_eq!(status("figure-1"), "out-of-reach");
    for id in [
        "table-1",
        "table-1-per-rate",
        "analysis-3.3",
        "figure-2",
        "figure-3",
    ] {
        assert_eq!(status(id), "substitute", "{id}");
    }

    // The per-rate shares (Appendix A reading) equal the share recomputed from the score tables.
    let models = tmp.join("k23-models").join("seed-42").join("bert");
    let per_rate = json(&out.join("table-1-per-rate.json"))["table"].clone();
    let rows = per_rate["rows"].as_array().unwrap();
    let measures = [
        ("sss", "SSS"),
        ("cps", "CPS"),
        ("aul", "AUL"),
        ("aula", "AULA"),
    ];
    let mut differ = 0;
    for corpus in ["bug-wikipedia", "bug-pubmed"] {
        let fam: Vec<&Value> = rows.iter().filter(|r| r["corpus"] == corpus).collect();
        assert_eq!(fam.len(), 3, "{corpus}");
        for r in &fam {
            let rate = num(&r["rate"]).unwrap();
            assert_eq!(
                r["male"].as_i64().unwrap() + r["female"].as_i64().unwrap(),
                16
            );
            assert_eq!(r["male"].as_i64().unwrap(), (rate * 16.0).round() as i64);
            let csv = models
                .join(corpus)
                .join(format!("rate-{rate:.2}.crows-pairs-gender.csv"));
            for (scorer, label) in measures {
                let got = num(&r[format!("{label} (stereo)").as_str()]).unwrap();
                let want = stereo_share(&csv, scorer);
                assert!(
                    abs_diff_eq!(got, want, epsilon = 1e-9),
                    "{corpus} r={rate} {label}: {got} vs {want}"
                );
                if num(&r[format!("{label} (male)").as_str()]) != Some(got) {
                    differ += 1;
                }
            }
        }
        // Table 1's ρ equals Spearman's ρ of the per-rate values, by hand.
        let table1 = json(&out.join("table-1.json"))["table"].clone();
        let column = format!("bert {corpus}");
        for (label, key) in [
            ("TBS", "TBS".to_owned()),
            ("SSS", "SSS (male)".to_owned()),
            ("AULA", "AULA (male)".to_owned()),
            ("CPS, stereo vs anti (App. A)", "CPS (stereo)".to_owned()),
        ] {
            let values: Vec<f64> = fam.iter().map(|r| num(&r[key.as_str()]).unwrap()).collect();
            let want = spearman(&[0.0, 0.5, 1.0], &values);
            let row = table1["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["measure"] == label)
                .unwrap();
            let got = num(&row[column.as_str()]);
            match (got, want) {
                (Some(g), Some(w)) => {
                    assert!(abs_diff_eq!(g, w, epsilon = 1e-9), "{label}: {g} vs {w}")
                }
                (g, w) => assert_eq!(g, w, "{label} {corpus}"),
            }
        }
    }
    // The two readings of the pair score differ somewhere (the orientation touches pairs).
    assert!(differ > 0);

    // Figure 3's base-model probabilities equal transformers'.
    let reference = json(&root().join("fixtures/kaneko2023/mask_probe.json"));
    let want = reference["models"]["bert"]["probabilities"]
        .as_array()
        .unwrap();
    let base = rows.iter().find(|r| r["rate"] == "base").unwrap();
    for (k, w) in ["he", "she"].iter().enumerate() {
        let got = num(&base[format!("P({w}) Figure 3").as_str()]).unwrap();
        let want = want[k].as_f64().unwrap();
        assert!(
            abs_diff_eq!(got, want, epsilon = 1e-4 * want.abs()),
            "P({w}): {got} vs {want}"
        );
    }

    // The development split: 5 male and 5 female sentences (§3.1's words, read here), none of
    // them in any rate's training set, and every training set has the male share its rate
    // says, counted from its sentences.
    let gender = kaneko2023_genders;
    for corpus in ["bug-wikipedia", "bug-pubmed"] {
        let dev = std::fs::read_to_string(tmp.join(format!("k23-models/seed-42/{corpus}-dev.txt")))
            .unwrap();
        let dev: std::collections::HashSet<&str> = dev.lines().collect();
        assert_eq!(dev.len(), 10, "{corpus}: 5 per side, all distinct");
        let male = dev.iter().filter(|s| gender(s) == (true, false)).count();
        let female = dev.iter().filter(|s| gender(s) == (false, true)).count();
        assert_eq!((male, female), (5, 5), "{corpus}");
        for rate in ["0.00", "0.50", "1.00"] {
            let train =
                std::fs::read_to_string(models.join(corpus).join(format!("rate-{rate}.train.txt")))
                    .unwrap();
            let lines: Vec<&str> = train.lines().collect();
            assert_eq!(lines.len(), 16, "{corpus} r={rate}");
            let male = lines.iter().filter(|s| gender(s) == (true, false)).count();
            let female = lines.iter().filter(|s| gender(s) == (false, true)).count();
            let want = (rate.parse::<f64>().unwrap() * 16.0).round() as usize;
            assert_eq!((male, female), (want, 16 - want), "{corpus} r={rate}");
            for l in &lines {
                assert!(
                    !dev.contains(l),
                    "{l:?}: dev sentence trained on at r={rate}"
                );
            }
        }
    }

    // Table 1: each ρ with its interval and p-value. With 3 rates the p-value of Spearman's ρ
    // has 1 degree of freedom: p = 1 − (2/π) atan(|t|), t = ρ √(1 / (1 − ρ²)); |ρ| = 1 gives
    // 0 and |ρ| = 0.5 gives 2/3.
    let table1 = json(&out.join("table-1.json"));
    let status_detail = table1["status"]["detail"].as_str().unwrap().to_owned();
    for reduction in [
        "16 on bug-wikipedia",
        "rates [0.0, 0.5, 1.0]",
        "blocks of 32 tokens",
        "at most 2 steps",
        "learning rate 1e-2 (5e-5)",
    ] {
        assert!(
            status_detail.contains(reduction),
            "{reduction} not in {status_detail}"
        );
    }
    let t1 = table1["table"].clone();
    let mut checked = 0;
    for row in t1["rows"].as_array().unwrap() {
        for c in ["bert bug-wikipedia", "bert bug-pubmed"] {
            let Some(rho) = num(&row[c]) else {
                assert!(row[format!("{c} p").as_str()].is_null());
                continue;
            };
            let p = num(&row[format!("{c} p").as_str()]).unwrap();
            let want = if rho.abs() > 1.0 - 1e-9 {
                0.0
            } else {
                let t = rho.abs() * (1.0 / (1.0 - rho * rho)).sqrt();
                1.0 - 2.0 / std::f64::consts::PI * t.atan()
            };
            assert!(
                abs_diff_eq!(p, want, epsilon = 1e-3),
                "{c}: ρ {rho}, p {p} vs {want}"
            );
            let (lo, hi) = (
                num(&row[format!("{c} CI low").as_str()]).unwrap(),
                num(&row[format!("{c} CI high").as_str()]).unwrap(),
            );
            assert!((-1.0..=hi).contains(&lo) && hi <= 1.0, "{c}: [{lo}, {hi}]");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} cells with a ρ");
    // The sign note names exactly the measures whose ρ has opposite signs in the two readings.
    let notes: Vec<String> = json::strings(&t1["notes"]);
    let sign = notes
        .iter()
        .find(|n| n.starts_with("The reading sets the sign"))
        .unwrap();
    let rows1 = t1["rows"].as_array().unwrap();
    let cell = |m: &str, c: &str| -> Option<f64> {
        rows1
            .iter()
            .find(|r| r["measure"] == m)
            .and_then(|r| num(&r[c]))
    };
    for c in ["bert bug-wikipedia", "bert bug-pubmed"] {
        for label in ["SSS", "CPS", "AUL", "AULA"] {
            let male = cell(label, c);
            let stereo = cell(&format!("{label}, stereo vs anti (App. A)"), c);
            let flips = matches!((male, stereo), (Some(a), Some(b)) if a * b < 0.0);
            let named = sign.contains(&format!(
                "{label} {:+.2} (male) vs {:+.2} (stereo)",
                male.unwrap_or(0.0),
                stereo.unwrap_or(0.0)
            ));
            assert_eq!(flips, named, "{c} {label}: {sign}");
        }
    }
    assert!(notes
        .iter()
        .any(|n| n.contains("conditions on the gender word")));

    // --kaneko2023-score stereo: Table 1's main rows become the Appendix A reading (the models
    // and score tables are reused).
    let default_table = json(&out.join("table-1.json"))["table"].clone();
    let out2 = tmp.join("kaneko2023-stereo");
    run(&out2, &["--kaneko2023-score", "stereo"]);
    let stereo_table = json(&out2.join("table-1.json"))["table"].clone();
    let find = |t: &Value, m: &str| -> Value {
        t["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["measure"] == m)
            .cloned()
            .unwrap()
    };
    for label in ["SSS", "CPS", "AUL", "AULA"] {
        let a = find(&default_table, &format!("{label}, stereo vs anti (App. A)"));
        let b = find(&stereo_table, label);
        for c in ["bert bug-wikipedia", "bert bug-pubmed"] {
            assert_eq!(a[c], b[c], "{label} {c}");
        }
        let a = find(&default_table, label);
        let b = find(&stereo_table, &format!("{label}, male vs female"));
        for c in ["bert bug-wikipedia", "bert bug-pubmed"] {
            assert_eq!(a[c], b[c], "{label} {c}");
        }
    }

    // --kaneko2023-seeds 2: seed 42's models are reused, seed 43's are trained; Table 1 adds
    // ρ's mean, SD, minimum and maximum over the two seeds, each seed's ρ recomputed by hand
    // from the per-rate table.
    let out3 = tmp.join("kaneko2023-seeds");
    run(&out3, &["--kaneko2023-seeds", "2"]);
    assert!(tmp
        .join("k23-models/seed-43/bert/bug-pubmed/rate-1.00.crows-pairs-gender.csv")
        .is_file());
    let per_rate = json(&out3.join("table-1-per-rate.json"))["table"].clone();
    let t3 = json(&out3.join("table-1.json"))["table"].clone();
    let mut spreads = 0;
    for corpus in ["bug-wikipedia", "bug-pubmed"] {
        let column = format!("bert {corpus}");
        for (label, key) in [("TBS", "TBS"), ("AUL", "AUL (male)"), ("CPS", "CPS (male)")] {
            let rhos: Vec<f64> = [42, 43]
                .iter()
                .filter_map(|seed| {
                    let values: Vec<f64> = per_rate["rows"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|r| r["corpus"] == corpus && r["seed"] == *seed)
                        .map(|r| num(&r[key]).unwrap())
                        .collect();
                    assert_eq!(values.len(), 3, "{corpus} seed {seed}");
                    spearman(&[0.0, 0.5, 1.0], &values)
                })
                .collect();
            let row = find(&t3, label);
            assert_eq!(
                row[format!("{column} seeds n").as_str()].as_i64(),
                Some(rhos.len() as i64)
            );
            if rhos.len() == 2 {
                let mean = (rhos[0] + rhos[1]) / 2.0;
                let sd = (rhos[0] - rhos[1]).abs() / 2f64.sqrt();
                let got = |k: &str| num(&row[format!("{column} seeds {k}").as_str()]).unwrap();
                assert!(abs_diff_eq!(got("mean"), mean, epsilon = 1e-9), "{label}");
                assert!(abs_diff_eq!(got("SD"), sd, epsilon = 1e-9), "{label}");
                assert!(abs_diff_eq!(
                    got("min"),
                    rhos[0].min(rhos[1]),
                    epsilon = 1e-9
                ));
                assert!(abs_diff_eq!(
                    got("max"),
                    rhos[0].max(rhos[1]),
                    epsilon = 1e-9
                ));
                spreads += 1;
            }
        }
    }
    assert!(spreads > 0, "no measure had a ρ under both seeds");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// docs/kaneko2023_cps.md starts from the pair reading and its sign, states that CPS conditions
/// on the gender word, and no longer quotes the HA column as CPS's ρ.
#[test]
fn the_cps_page_starts_from_the_reading() {
    let page = std::fs::read_to_string(root().join("docs/kaneko2023_cps.md")).unwrap();
    let first_section = page.split("\n## ").nth(1).unwrap_or("");
    assert!(
        first_section.starts_with("1. The reading sets the sign"),
        "{first_section:.80}"
    );
    assert!(page.contains("in 70 of those 108 the stereotypical sentence is the **female** one"));
    assert!(page.contains("## 2. CPS conditions on the gender word"));
    assert!(page.contains("A pure shift in gender-word frequency\nis invisible to it"));
    assert!(!page.contains("CPS at +0.22 to +0.57"));
    // The command it shows is the one whose table it quotes.
    assert!(page.contains("--kaneko2023-sentences 400 --kaneko2023-seeds 3"));
}
