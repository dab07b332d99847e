//! liu2024's reproduction (`bias_papers::reproduce_liu2024`) on models whose scores
//! are known in advance: every table and figure is listed, and Tables 2 and 4 and Figure 4 are
//! checked against hand computations written here (Gaussian KL in closed form, counts, means,
//! Pearson's r from its definition).

use approx::assert_relative_eq;
use approx::{abs_diff_eq, assert_abs_diff_eq};
use bias_testkit::{mean_sd, score_file};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bias_core::{
    DatasetScorer, PairOutcome, PairScore, PairScorer, ScoreTable, ScoringRun, SentencePair,
    SentenceScore,
};
use bias_papers::{reproduce_liu2024, Liu2024Options, Paper, Reproduction, Study};
use bias_robust::RobustnessOptions;
use serde_json::Value;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("liu2024-repro-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// splitmix64: a fixed pseudo-random stream, so that the scores are known to the test.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A number in about (−1.5, 1.5), the sum of three uniforms (bell-shaped).
fn noise(seed: u64) -> f64 {
    (0..3)
        .map(|k| (mix(seed.wrapping_mul(7).wrapping_add(k)) >> 11) as f64 / (1u64 << 53) as f64)
        .sum::<f64>()
        - 1.5
}

/// The score of `side` (0 stereo, 1 anti) of pair `id` by scorer `s` of model `m`: noise plus
/// the model's bias on the stereotypical side.
fn score(m: u64, id: &str, s: u64, side: u64, bias: f64) -> f64 {
    let h = id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let base = -2.0 + 0.4 * noise(h ^ (m << 40) ^ (s << 50) ^ (side << 60));
    if side == 0 {
        base + bias
    } else {
        base
    }
}

/// A model that "scores" with `aul`, `cps` and `sss` by [`score`], biased by `bias` towards the
/// stereotypical sentence.
struct Fake {
    seed: u64,
    bias: f64,
}

impl PairScorer for Fake {
    type Error = std::io::Error;
    fn scorer_names(&self) -> Vec<String> {
        vec!["aul".into(), "cps".into(), "sss".into()]
    }
    fn score_pairs(&mut self, pairs: &[SentencePair]) -> Result<Vec<PairOutcome>, Self::Error> {
        Ok(pairs
            .iter()
            .map(|p| PairOutcome::Scored {
                scores: (0..3u64)
                    .map(|s| PairScore {
                        scorer: self.scorer_names()[s as usize].clone().into(),
                        stereo: sentence(score(self.seed, &p.id, s, 0, self.bias)),
                        anti: sentence(score(self.seed, &p.id, s, 1, self.bias)),
                    })
                    .collect(),
                unscorable: Vec::new(),
            })
            .collect())
    }
}

fn sentence(score: f64) -> SentenceScore {
    SentenceScore {
        score,
        scored_tokens: 5,
        correct_predictions: None,
    }
}

fn models(biases: &[f64]) -> Vec<Box<dyn DatasetScorer>> {
    biases
        .iter()
        .enumerate()
        .map(|(i, &bias)| {
            let fake = Fake {
                seed: i as u64 + 1,
                bias,
            };
            Box::new(ScoringRun::new(format!("m{i}"), "fake", fake)) as Box<dyn DatasetScorer>
        })
        .collect()
}

fn quick() -> Liu2024Options {
    Liu2024Options {
        robustness: RobustnessOptions {
            repeats: 10,
            ..RobustnessOptions::default()
        },
        ..Liu2024Options::default()
    }
}

fn run(biases: &[f64], max_pairs: usize, name: &str) -> (PathBuf, Value) {
    let dir = scratch(name);
    let mut study = Study::new(models(biases), data_dir(), dir.join("scores"))
        .unwrap()
        .with_max_pairs(Some(max_pairs));
    let mut out = Reproduction::create(Paper::Liu2024, dir.join("liu2024")).unwrap();
    out.set_models(study.model_names());
    reproduce_liu2024(&mut study, &mut out, &quick()).unwrap();
    out.finish().unwrap();
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("liu2024/index.json")).unwrap())
            .unwrap();
    (dir, index)
}

fn statuses(index: &Value) -> BTreeMap<String, String> {
    index["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap().to_owned(),
                a["status"]["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn table(dir: &Path, id: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("liu2024/{id}.json"))).unwrap(),
    )
    .unwrap();
    v["table"]["rows"].as_array().unwrap().clone()
}

/// The rows of `rows` whose source is `source` ("this run" or "paper").
fn from(rows: &[Value], source: &str) -> Vec<Value> {
    rows.iter()
        .filter(|r| r["source"] == source)
        .cloned()
        .collect()
}

/// The KSG mutual information (Kraskov et al. 2004, algorithm 1) of 3 points with k = 1, by
/// hand: each variable divided by its population standard deviation (as scikit-learn's
/// mutual_info_regression), ε_i the max-norm distance to the nearest other point, n_x / n_y the
/// other points strictly closer than ε_i in x / y alone; ψ(3) + ψ(1) − ⟨ψ(n_x + 1)⟩ −
/// ⟨ψ(n_y + 1)⟩ = 3/2 − Σ (H(n_x) + H(n_y)) / 3 with H(0) = 0, H(1) = 1, H(2) = 3/2; at
/// least 0.
fn ksg_three_points(x: &[f64], y: &[f64]) -> f64 {
    let scaled = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / 3.0;
        let sd = (v.iter().map(|a| (a - m).powi(2)).sum::<f64>() / 3.0).sqrt();
        v.iter().map(|a| a / sd).collect::<Vec<_>>()
    };
    let (x, y) = (scaled(x), scaled(y));
    let harmonic = [0.0, 1.0, 1.5];
    let mut sum = 0.0f64;
    for i in 0..3 {
        let others: Vec<usize> = (0..3).filter(|&j| j != i).collect();
        let eps = others
            .iter()
            .map(|&j| (x[j] - x[i]).abs().max((y[j] - y[i]).abs()))
            .fold(f64::INFINITY, f64::min);
        let nx = others
            .iter()
            .filter(|&&j| (x[j] - x[i]).abs() < eps)
            .count();
        let ny = others
            .iter()
            .filter(|&&j| (y[j] - y[i]).abs() < eps)
            .count();
        sum += harmonic[nx] + harmonic[ny];
    }
    (1.5 - sum / 3.0).max(0.0)
}

/// KL(N(m1, s1²) ‖ N(m2, s2²)) in closed form.
fn kl(a: (f64, f64), b: (f64, f64)) -> f64 {
    (b.1 / a.1).ln() + (a.1 * a.1 + (a.0 - b.0).powi(2)) / (2.0 * b.1 * b.1) - 0.5
}

/// KLS by hand: Eq. 6 within each bias type (≥ 2 pairs), weighted by n_t / N (Eq. 10).
fn kls_by_hand(t: &ScoreTable) -> f64 {
    weighted_by_hand(t, |p, q| {
        let (x, y) = (kl(p, q), kl(q, p));
        100.0 * x.max(y) / (x + y)
    })
}

/// JSS as the authors' code computes it, by hand: M = N((μ1+μ2)/2, sqrt((σ1²+σ2²)/2)),
/// J = (KL(P‖M) + KL(A‖M))/2 folded to 1/J above 1, Δσ = |σ1 − σ2| folded the same way,
/// 100 (1 − J) / (1 + Δσ); weighted by type (Eq. 11).
fn jss_by_hand(t: &ScoreTable) -> f64 {
    weighted_by_hand(t, |p, q| {
        let m = ((p.0 + q.0) / 2.0, ((p.1 * p.1 + q.1 * q.1) / 2.0).sqrt());
        let fold = |v: f64| if v <= 1.0 { v } else { 1.0 / v };
        let j = fold((kl(p, m) + kl(q, m)) / 2.0);
        let c = fold((p.1 - q.1).abs());
        100.0 * (1.0 - j) / (1.0 + c)
    })
}

/// `f(P_st, P_at)` within each bias type with at least 2 pairs, weighted by n_t / N.
fn weighted_by_hand(t: &ScoreTable, f: impl Fn((f64, f64), (f64, f64)) -> f64) -> f64 {
    let rows = t.rows().iter();
    let rows = rows.map(|r| (r.bias_type.to_string(), r.score_stereo, r.score_anti));
    bias_testkit::weighted_by_type(rows, f)
}

fn pct_stereo(t: &ScoreTable) -> f64 {
    let c = t
        .rows()
        .iter()
        .filter(|r| r.score_stereo > r.score_anti)
        .count();
    100.0 * c as f64 / t.len() as f64
}

#[test]
fn every_table_and_figure_is_listed_and_tables_2_4_and_figure_4_match_hand_computations() {
    let (dir, index) = run(&[0.0, 0.15, 0.4], 60, "three");
    let s = statuses(&index);
    for id in [
        "table-1",
        "table-2",
        "table-3",
        "table-4",
        "table-5",
        "figure-4",
        "figure-5",
        "analysis-pll-score-analysis",
        "figure-2-m0",
        "figure-2-m1",
        "figure-2-m2",
        "figure-4-stereoset",
        "figure-4-crows-pairs",
        "figure-5-cps",
        "figure-5-aul",
        "figure-5-kls",
        "figure-5-jss",
    ] {
        assert_eq!(
            s.get(id).map(String::as_str),
            Some("method-only"),
            "{id}: {s:?}"
        );
    }
    for id in ["figure-1", "figure-3"] {
        assert_eq!(s[id], "out-of-reach");
    }
    for a in index["artifacts"].as_array().unwrap() {
        for f in a["files"].as_array().unwrap() {
            let p = dir.join("liu2024").join(f.as_str().unwrap());
            assert!(p.is_file(), "{} missing", p.display());
        }
    }

    // The PLL Score Analysis example: the paper's inputs and numbers; KLS and JSS by hand.
    let ex = table(&dir, "analysis-pll-score-analysis");
    let value = |q: &str| {
        ex.iter().find(|r| r["quantity"] == q).unwrap()["value"]
            .as_f64()
            .unwrap()
    };
    assert_abs_diff_eq!(value("Eq. 2 (indicator)"), 50.0, epsilon = 1e-12);
    assert_abs_diff_eq!(value("|Δst|"), 0.7, epsilon = 1e-12);
    assert_abs_diff_eq!(value("|Δat|"), 0.1, epsilon = 1e-12);
    assert_abs_diff_eq!(value("|Δst| − |Δat|"), 0.6, epsilon = 1e-12);
    let (st, at) = (
        mean_sd(&[0.4, 0.3, 0.9, 0.8]),
        mean_sd(&[0.5, 0.4, 0.1, 0.2]),
    );
    let (x, y) = (kl(st, at), kl(at, st));
    assert_abs_diff_eq!(
        value("KLS (Eq. 6)"),
        100.0 * x.max(y) / (x + y),
        epsilon = 1e-9
    );
    let m = (
        (st.0 + at.0) / 2.0,
        ((st.1 * st.1 + at.1 * at.1) / 2.0).sqrt(),
    );
    let j = (kl(st, m) + kl(at, m)) / 2.0;
    let j = if j <= 1.0 { j } else { 1.0 / j };
    let jss = 100.0 * (1.0 - j) / (1.0 + (st.1 - at.1).abs());
    assert_abs_diff_eq!(value("JSS (Eq. 9)"), jss, epsilon = 1e-9);

    // Table 2 against the score tables and the hand computations; the paper's rows beside.
    let t2_all = table(&dir, "table-2");
    let t2 = from(&t2_all, "this run");
    assert_eq!(t2.len(), 6);
    let p2 = from(&t2_all, "paper");
    assert_eq!(p2.len(), 6);
    let roberta_cp = p2
        .iter()
        .find(|r| r["data set"] == "CP (CPS)" && r["model"] == "RoBERTa")
        .unwrap();
    assert_eq!(
        [
            &roberta_cp["SSS / CPS"],
            &roberta_cp["AUL"],
            &roberta_cp["KLS"],
            &roberta_cp["JSS"]
        ]
        .map(|v| v.as_f64().unwrap()),
        [65.45, 62.40, 63.86, 86.60]
    );
    assert!(roberta_cp["rank KLS"].is_null() && roberta_cp["n"].is_null());
    for (k, (set, prior)) in [("stereoset", "sss"), ("crows-pairs", "cps")]
        .into_iter()
        .enumerate()
    {
        let mut kls_dev = Vec::new();
        for m in 0..3 {
            let scores = ScoreTable::read_csv_path(score_file(
                &dir.join("scores").join(format!("m{m}")),
                set,
            ))
            .unwrap();
            let row = &t2[k * 3 + m];
            assert_eq!(row["model"], format!("m{m}"));
            let aul = scores.for_scorer("aul");
            assert_eq!(row["n"], 60);
            assert_relative_eq!(
                row["AUL"].as_f64().unwrap(),
                pct_stereo(&aul),
                epsilon = 1e-9,
                max_relative = 1e-9
            );
            assert_relative_eq!(
                row["SSS / CPS"].as_f64().unwrap(),
                pct_stereo(&scores.for_scorer(prior)),
                epsilon = 1e-9,
                max_relative = 1e-9
            );
            let kls = kls_by_hand(&aul);
            assert!(
                abs_diff_eq!(row["KLS"].as_f64().unwrap(), kls, epsilon = 1e-9),
                "{set} m{m}: {} vs {kls}",
                row["KLS"]
            );
            kls_dev.push((kls - 50.0).abs());
            let jss = jss_by_hand(&aul);
            assert!(
                abs_diff_eq!(row["JSS"].as_f64().unwrap(), jss, epsilon = 1e-9),
                "{set} m{m}: {} vs {jss}",
                row["JSS"]
            );
        }
        // Ranks: 1 = farthest from 50.
        for m in 0..3 {
            let rank = 1 + kls_dev.iter().filter(|d| **d > kls_dev[m]).count();
            assert_eq!(t2[k * 3 + m]["rank KLS"], rank);
        }
    }

    // The fake scorer records 5 tokens for every sentence: every StereoSet pair is one where
    // the diagonal and the matrix SSS differ.
    let md = std::fs::read_to_string(dir.join("liu2024/table-2.md")).unwrap();
    assert!(md.contains("m0 60 of 60, m1 60 of 60, m2 60 of 60"), "{md}");

    // Table 1: Shapiro–Wilk of the right scores (AUL, stereotypical side of m1 on StereoSet).
    let aul_ss = ScoreTable::read_csv_path(score_file(&dir.join("scores").join("m1"), "stereoset"))
        .unwrap()
        .for_scorer("aul");
    let x: Vec<f64> = aul_ss.rows().iter().map(|r| r.score_stereo).collect();
    let sw = bias_metrics::stats::shapiro_wilk(&x).unwrap();
    let t1_all = table(&dir, "table-1");
    let t1 = from(&t1_all, "this run");
    let row = t1
        .iter()
        .find(|r| r["data set"] == "SS" && r["model"] == "m1" && r["side"] == "stereotypical")
        .unwrap();
    assert_abs_diff_eq!(row["W"].as_f64().unwrap(), sw.w, epsilon = 1e-12);
    assert_abs_diff_eq!(
        row["p-value"].as_f64().unwrap(),
        sw.p_value,
        epsilon = 1e-12
    );
    let mark = if sw.p_value > 0.05 {
        "♭"
    } else if sw.p_value > 0.01 {
        "‡"
    } else {
        ""
    };
    assert_eq!(row["mark"], mark);
    assert_eq!(t1.len(), 12);
    // The paper's Table 1: statistic, p-value and mark in their own cells.
    let p1 = from(&t1_all, "paper");
    assert_eq!(p1.len(), 6);
    let bert_ss = p1
        .iter()
        .find(|r| r["data set"] == "SS" && r["model"] == "BERT")
        .unwrap();
    assert_eq!(bert_ss["W"].as_f64(), Some(0.994));
    assert_eq!(bert_ss["p-value"].as_f64(), Some(0.034));
    assert_eq!(bert_ss["mark"], "‡");

    // Table 4: the score groups of m2's AUL scores on CrowS-Pairs.
    let aul = ScoreTable::read_csv_path(score_file(&dir.join("scores").join("m2"), "crows-pairs"))
        .unwrap()
        .for_scorer("aul");
    let (st, at): (Vec<_>, Vec<_>) = aul
        .rows()
        .iter()
        .partition(|r| r.score_stereo > r.score_anti);
    let mean = |rows: &[&bias_core::ScoreRow], f: fn(&bias_core::ScoreRow) -> f64| {
        rows.iter().map(|r| f(r)).sum::<f64>() / rows.len() as f64
    };
    let d_st = (mean(&st, |r| r.score_stereo) - mean(&st, |r| r.score_anti)).abs();
    let d_at = (mean(&at, |r| r.score_stereo) - mean(&at, |r| r.score_anti)).abs();
    let t4_all = table(&dir, "table-4");
    let t4 = from(&t4_all, "this run");
    assert_eq!(t4.len(), 3);
    assert_eq!(t4[2]["st group n"], st.len());
    assert_eq!(t4[2]["at group n"], at.len());
    assert_relative_eq!(
        t4[2]["|Δst| − |Δat|"].as_f64().unwrap(),
        d_st - d_at,
        epsilon = 1e-9,
        max_relative = 1e-9
    );

    let p4 = from(&t4_all, "paper");
    assert_eq!(p4.len(), 3);
    assert_eq!(p4[0]["model"], "BERT");
    assert_eq!(p4[0]["|Δst| − |Δat|"].as_f64(), Some(0.0192));

    // Table 5: per model and rate (6 rates), its full-data column is Table 4's last one; the
    // shift of the mean and the mean of the single draws' |shift| side by side; the paper's 18
    // cells after.
    let t5_all = table(&dir, "table-5");
    let t5 = from(&t5_all, "this run");
    assert_eq!(t5.len(), 3 * 6);
    for (i, b) in t5.iter().enumerate() {
        let a = &t4[i / 6];
        assert_eq!(a["model"], b["model"]);
        assert_eq!(a["|Δst| − |Δat|"], b["full"]);
        assert_eq!(b["draws"], 10);
        let (mean, full) = (
            b["|Δst| − |Δat|"].as_f64().unwrap(),
            b["full"].as_f64().unwrap(),
        );
        assert_abs_diff_eq!(b["Δsp"].as_f64().unwrap(), mean - full, epsilon = 1e-12);
        // The mean of |Δsp| over the draws is at least |mean Δsp| (triangle inequality).
        assert!(
            b["mean |Δsp| of single draws"].as_f64().unwrap()
                >= b["|Δsp|"].as_f64().unwrap() - 1e-12
        );
    }
    assert_eq!(from(&t5_all, "paper").len(), 18);

    // Table 3: KLS and JSS of m1 within each CrowS-Pairs bias type with 2 or more pairs.
    let t3 = table(&dir, "table-3");
    let aul = ScoreTable::read_csv_path(score_file(&dir.join("scores").join("m1"), "crows-pairs"))
        .unwrap()
        .for_scorer("aul");
    let mut checked = 0;
    for row in t3.iter().filter(|r| r["data set"] == "CP") {
        let ty = row["bias type"].as_str().unwrap();
        let rows = aul.filter(|r| r.bias_type.to_string() == ty);
        assert_eq!(row["n"], rows.len());
        assert_abs_diff_eq!(
            row["m1 KLS"].as_f64().unwrap(),
            kls_by_hand(&rows),
            epsilon = 1e-9
        );
        assert_abs_diff_eq!(
            row["m1 JSS"].as_f64().unwrap(),
            jss_by_hand(&rows),
            epsilon = 1e-9
        );
        checked += 1;
    }
    assert!(checked >= 3, "{t3:?}");
    // The paper's Table 3 beside, by bias type (its CrowS-Pairs "race" is race-color).
    let race = t3
        .iter()
        .find(|r| r["data set"] == "CP" && r["bias type"] == "race-color")
        .unwrap();
    assert_eq!(race["paper BERT KLS"].as_f64(), Some(50.44));
    assert_eq!(race["paper RoBERTa JSS"].as_f64(), Some(94.20));
    assert_eq!(race["paper ALBERT KLS"].as_f64(), Some(53.30));

    // Figure 4: Pearson's r of AUL and KLS over the three models on CrowS-Pairs, by definition,
    // and their mutual information with the paper's k = 1, by hand.
    let f4 = table(&dir, "figure-4");
    let cp: Vec<&Value> = t2[3..].iter().collect();
    let x: Vec<f64> = cp.iter().map(|r| r["AUL"].as_f64().unwrap()).collect();
    let y: Vec<f64> = cp.iter().map(|r| r["KLS"].as_f64().unwrap()).collect();
    let (mx, my) = (x.iter().sum::<f64>() / 3.0, y.iter().sum::<f64>() / 3.0);
    let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    let r = sxy / (sxx * syy).sqrt();
    let row = f4
        .iter()
        .find(|r| r["data set"] == "CP" && r["measure a"] == "AUL" && r["measure b"] == "KLS")
        .unwrap();
    assert_abs_diff_eq!(row["Pearson r"].as_f64().unwrap(), r, epsilon = 1e-9);
    assert_abs_diff_eq!(
        row["MI (nats)"].as_f64().unwrap(),
        ksg_three_points(&x, &y),
        epsilon = 1e-12
    );
    assert_eq!(row["paper MI"].as_f64(), Some(0.5));
    assert_eq!(f4.len(), 12);
    assert!(f4.iter().all(|r| r["MI (nats)"].is_f64()));

    // Figure 5's order table: full-data order of AUL = Table 2's AUL ranks on CP; both views
    // labelled with their 10 draws.
    let f5 = table(&dir, "figure-5");
    let aul_rows: Vec<&Value> = f5.iter().filter(|r| r["measure"] == "AUL").collect();
    assert_eq!(aul_rows.len(), 6);
    for r in &f5 {
        let kept = r["full-data order"] == r["order of the mean"];
        assert_eq!(r["mean order changed"] == "no", kept, "{r}");
        assert_eq!(r["draws averaged"], 10);
        assert_eq!(r["single draws"], 10);
        let changing = r["single draws changing the order"].as_u64().unwrap();
        assert!(changing <= 10);
        assert_eq!(
            r["share of single draws changing the order"].as_f64(),
            Some(changing as f64 / 10.0)
        );
    }
    let paper_rings: Vec<(&str, f64)> = f5
        .iter()
        .filter(|r| r["paper: order changed"] == "yes (red circle)")
        .map(|r| (r["measure"].as_str().unwrap(), r["rate"].as_f64().unwrap()))
        .collect();
    assert_eq!(
        paper_rings,
        [
            ("CPS", 0.3),
            ("CPS", 0.6),
            ("AUL", 0.3),
            ("AUL", 0.4),
            ("AUL", 0.5),
            ("AUL", 0.6),
            ("AUL", 0.7)
        ]
    );
    let first = aul_rows[0]["full-data order"]
        .as_str()
        .unwrap()
        .split(" > ")
        .next()
        .unwrap();
    let top = cp.iter().find(|r| r["rank AUL"] == 1).unwrap();
    assert_eq!(top["model"], first);
}

#[test]
fn two_models_list_figure_4_as_out_of_reach_with_the_minimum() {
    let dir = scratch("two");
    let mut study = Study::new(models(&[0.0, 0.3]), data_dir(), dir.join("scores"))
        .unwrap()
        .with_max_pairs(Some(30));
    let mut out = Reproduction::create(Paper::Liu2024, dir.join("liu2024")).unwrap();
    // The paper's defaults (100 repeats).
    reproduce_liu2024(&mut study, &mut out, &Liu2024Options::default()).unwrap();
    let artifacts = out.finish().unwrap();
    let f4 = artifacts.iter().find(|a| a.id == "figure-4").unwrap();
    assert_eq!(f4.status.label(), "out of reach");
    assert!(
        f4.status.detail().contains("at least 3"),
        "{}",
        f4.status.detail()
    );
    assert!(!artifacts.iter().any(|a| a.id.starts_with("figure-4-")));
    assert!(artifacts.iter().any(|a| a.id == "table-5"));
}

#[test]
fn four_models_give_mutual_information_with_the_chosen_neighbours() {
    // The k = 3 of scikit-learn's default runs from 4 models; its MI is the library's
    // correlate_measures with k = 3 on Table 2's values (the estimator itself is checked
    // against scikit-learn in tests/it/liu2024_figure4.rs and bias-metrics).
    let dir = scratch("four");
    let mut study = Study::new(
        models(&[0.0, 0.1, 0.2, 0.5]),
        data_dir(),
        dir.join("scores"),
    )
    .unwrap()
    .with_max_pairs(Some(40));
    let mut out = Reproduction::create(Paper::Liu2024, dir.join("liu2024")).unwrap();
    let options = Liu2024Options {
        mi_neighbors: 3,
        ..quick()
    };
    reproduce_liu2024(&mut study, &mut out, &options).unwrap();
    out.finish().unwrap();
    let f4 = table(&dir, "figure-4");
    assert!(f4.iter().all(|r| r["models"] == 4));
    let t2 = from(&table(&dir, "table-2"), "this run");
    let cp: Vec<(String, BTreeMap<String, f64>)> = t2
        .iter()
        .filter(|r| r["data set"] == "CP (CPS)")
        .map(|r| {
            let v = ["AUL", "KLS", "JSS"]
                .iter()
                .map(|m| ((*m).to_owned(), r[*m].as_f64().unwrap()))
                .chain([("CPS".to_owned(), r["SSS / CPS"].as_f64().unwrap())])
                .collect();
            (r["model"].as_str().unwrap().to_owned(), v)
        })
        .collect();
    let want = bias_robust::correlate_measures(
        &cp,
        &bias_robust::CorrelateOptions {
            k: 3,
            standardise: true,
        },
    )
    .unwrap();
    for p in &want.pairs {
        let row = f4
            .iter()
            .find(|r| r["data set"] == "CP" && r["measure a"] == p.a && r["measure b"] == p.b)
            .unwrap();
        assert_eq!(row["MI (nats)"].as_f64(), Some(p.mutual_info), "{row}");
    }
    let md = std::fs::read_to_string(dir.join("liu2024/figure-4.md")).unwrap();
    assert!(md.contains("k = 3 neighbours"), "{md}");
}

#[test]
fn jss_variant_changes_the_jss_column() {
    let dir = scratch("jss");
    let mut values = Vec::new();
    for (k, variant) in [
        bias_metrics::JssVariant::AuthorsCode,
        bias_metrics::JssVariant::PaperText,
    ]
    .into_iter()
    .enumerate()
    {
        let mut study = Study::new(models(&[0.0, 0.3]), data_dir(), dir.join("scores"))
            .unwrap()
            .with_max_pairs(Some(30));
        let out_dir = dir.join(format!("out{k}"));
        let mut out = Reproduction::create(Paper::Liu2024, &out_dir).unwrap();
        let options = Liu2024Options {
            jss: variant,
            ..quick()
        };
        reproduce_liu2024(&mut study, &mut out, &options).unwrap();
        out.finish().unwrap();
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("table-2.json")).unwrap())
                .unwrap();
        values.push(v["table"]["rows"][0]["JSS"].as_f64().unwrap());
        // KLS does not depend on the JSS variant.
        values.push(v["table"]["rows"][0]["KLS"].as_f64().unwrap());
    }
    assert!((values[0] - values[2]).abs() > 1e-6, "{values:?}");
    assert_eq!(values[1], values[3]);
}
