//! Liu et al. (2024) Figure 4 from the paper's own Table 2: the Pearson r and the mutual
//! information its text prints ("Correlation Analysis": KLS–SSS r = 0.84 on StereoSet; MI 0.17
//! between SSS and the other measures on StereoSet, 0.50 between all others), computed by
//! `correlate_measures` with the reproduction's default neighbours, against
//!
//! - the paper's printed values (to its 2 decimals), and
//! - scikit-learn 1.9.1 / scipy 1.17.1 on the same inputs, exactly
//!   (`fixtures/liu2024/figure4_mi.json`, written by `scripts/fixtures/liu2024_figure4_mi.py`:
//!   `mutual_info_regression(x.reshape(-1, 1), y, n_neighbors=k, random_state=0)`,
//!   `numpy.corrcoef`, `scipy.stats.pearsonr`).

use std::collections::BTreeMap;
use std::path::Path;

use bias_papers::liu2024_published as published;
use bias_papers::{min_models_mi, Liu2024Options};
use bias_robust::{correlate_measures, CorrelateOptions, MeasureCorrelation, RobustError};
use serde_json::Value;

fn fixture() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/liu2024/figure4_mi.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Table 2 of the paper for one data set (`SS` or `CP`), one entry per model.
fn table_2(data_set: &str) -> Vec<(String, BTreeMap<String, f64>)> {
    let prior = if data_set == "SS" { "SSS" } else { "CPS" };
    published::TABLE_2
        .iter()
        .filter(|r| r.data_set == data_set)
        .map(|r| {
            let values = [
                (prior, r.prior),
                ("AUL", r.aul),
                ("KLS", r.kls),
                ("JSS", r.jss),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
            (published::MODELS[r.model].name.to_owned(), values)
        })
        .collect()
}

fn correlate(
    data_set: &str,
    k: usize,
    standardise: bool,
) -> Result<MeasureCorrelation, RobustError> {
    correlate_measures(&table_2(data_set), &CorrelateOptions { k, standardise })
}

/// MI of the pair (a, b) in `c`.
fn mi_of(c: &MeasureCorrelation, a: &str, b: &str) -> f64 {
    let i = c.measures.iter().position(|m| m == a).unwrap();
    let j = c.measures.iter().position(|m| m == b).unwrap();
    c.mutual_info[i][j].unwrap()
}

fn r_of(c: &MeasureCorrelation, a: &str, b: &str) -> (f64, f64) {
    let i = c.measures.iter().position(|m| m == a).unwrap();
    let j = c.measures.iter().position(|m| m == b).unwrap();
    (c.r[i][j], c.p_value[i][j])
}

#[test]
fn the_fixture_reads_the_same_table_2() {
    let f = fixture();
    assert_eq!(f["versions"]["scikit-learn"], "1.9.1");
    for set in ["SS", "CP"] {
        for (model, values) in table_2(set) {
            let m = published::MODELS
                .iter()
                .position(|p| p.name == model)
                .unwrap();
            for (measure, v) in values {
                assert_eq!(
                    f["table_2"][set][&measure][m].as_f64(),
                    Some(v),
                    "{set} {model}"
                );
            }
        }
    }
}

#[test]
fn paper_table_2_gives_figure_4_mi_with_the_default_neighbours() {
    let k = Liu2024Options::default().mi_neighbors;
    assert_eq!(k, 1);
    // Three models suffice for k = 1.
    assert_eq!(min_models_mi(k), 2);
    let f = fixture();
    let pairs = f["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 12);
    let mut seen = BTreeMap::new();
    for p in pairs {
        let (set, a, b) = (
            p["data_set"].as_str().unwrap(),
            p["a"].as_str().unwrap(),
            p["b"].as_str().unwrap(),
        );
        let c = correlate(set, k, true).unwrap();
        let mi = mi_of(&c, a, b);
        // The paper, to its 2 decimals.
        let paper = published::figure_4_mi(set, a, b).unwrap();
        assert!(
            (mi - paper).abs() < 0.005,
            "{set} {a}–{b}: {mi} vs the paper's {paper}"
        );
        // scikit-learn, exactly (to rounding of the digamma sum): every random_state gives
        // the same value up to the last ulp, and so does the estimator without its jitter.
        let sk = p["mi"]["1"].as_f64().unwrap();
        assert!(
            (mi - sk).abs() < 1e-12,
            "{set} {a}–{b}: {mi} vs sklearn {sk}"
        );
        for v in p["mi_seeds"]["1"].as_array().unwrap() {
            assert!((mi - v.as_f64().unwrap()).abs() < 1e-12, "{set} {a}–{b}");
        }
        *seen.entry(format!("{paper:.2}")).or_insert(0) += 1;
    }
    // 3 SS pairs with SSS at 0.17 (1/6), the other 9 at 0.50 (1/2).
    assert_eq!(
        seen,
        BTreeMap::from([("0.17".into(), 3), ("0.50".into(), 9)])
    );
    // 1/6 and 1/2 as the KSG formula gives them for 3 points and k = 1:
    // ψ(3) + ψ(1) − ⟨ψ(n_x + 1)⟩ − ⟨ψ(n_y + 1)⟩ = 3/2 − (Σ H(n_x) + Σ H(n_y)) / 3 (harmonic
    // numbers H(0) = 0, H(1) = 1), n_x / n_y counting the other points strictly closer than
    // the nearest neighbour's max-norm distance ε in x / y alone. SSS–KLS on SS, scaled to unit
    // variance: SSS ≈ (29.307, 31.717, 30.136), KLS ≈ (45.017, 47.294, 46.936) for BERT,
    // RoBERTa, ALBERT.
    // - BERT: ε = 1.920 (ALBERT; RoBERTa is 2.411 away); SSS gaps 2.411, 0.829 → n_x = 1;
    //   KLS gaps 2.277, 1.920 (not below ε) → n_y = 0.
    // - RoBERTa: ε = 1.582 (ALBERT); SSS gaps 2.411, 1.582 → n_x = 0; KLS gaps 2.277, 0.358
    //   → n_y = 1.
    // - ALBERT: ε = 1.582 (RoBERTa); SSS gaps 0.829, 1.582 → n_x = 1; KLS gaps 1.920, 0.358
    //   → n_y = 1.
    // Σ H = 1 + 0 + 0 + 1 + 1 + 1 = 4: MI = 3/2 − 4/3 = 1/6.
    let c = correlate("SS", 1, true).unwrap();
    assert!((mi_of(&c, "KLS", "SSS") - 1.0 / 6.0).abs() < 1e-12);
}

#[test]
fn paper_table_2_gives_pearson_as_numpy_and_scipy_and_the_papers_0_84() {
    let f = fixture();
    for p in f["pairs"].as_array().unwrap() {
        let (set, a, b) = (
            p["data_set"].as_str().unwrap(),
            p["a"].as_str().unwrap(),
            p["b"].as_str().unwrap(),
        );
        let c = correlate(set, 1, true).unwrap();
        let (r, pv) = r_of(&c, a, b);
        let want = p["pearson_r"].as_f64().unwrap();
        assert!(
            (r - want).abs() < 1e-12,
            "{set} {a}–{b}: {r} vs numpy {want}"
        );
        let want = p["pearson_p"].as_f64().unwrap();
        assert!(
            (pv - want).abs() < 1e-9,
            "{set} {a}–{b}: p {pv} vs scipy {want}"
        );
    }
    // The paper's one printed r: KLS–SSS on SS, "r = 0.84". From Table 2's rounded values it is
    // 0.8497, which the paper truncates to 2 decimals (rounding would print 0.85).
    let c = correlate("SS", 1, true).unwrap();
    let (r, _) = r_of(&c, "KLS", "SSS");
    let paper = published::figure_4_pearson("SS", "KLS", "SSS").unwrap();
    assert_eq!((r * 100.0).floor() / 100.0, paper);
    assert!((r - 0.8497).abs() < 5e-5, "{r}");
    // "KLS has the lowest correlation with SSS": of KLS's three |r| on SS, SSS's is the least.
    let others = [
        r_of(&c, "AUL", "KLS").0.abs(),
        r_of(&c, "JSS", "KLS").0.abs(),
    ];
    assert!(others.iter().all(|o| *o > r.abs()), "{others:?} vs {r}");
}

#[test]
fn other_neighbour_counts_and_no_scaling_match_sklearn_and_not_the_paper() {
    let f = fixture();
    for p in f["pairs"].as_array().unwrap() {
        let (set, a, b) = (
            p["data_set"].as_str().unwrap(),
            p["a"].as_str().unwrap(),
            p["b"].as_str().unwrap(),
        );
        // k = 2: about 0 everywhere, as scikit-learn.
        let mi = mi_of(&correlate(set, 2, true).unwrap(), a, b);
        let sk = p["mi"]["2"].as_f64().unwrap();
        assert!((mi - sk).abs() < 1e-12, "{set} {a}–{b} k = 2: {mi} vs {sk}");
        // k = 1 on the raw values: scikit-learn's estimator without its scaling.
        let mi = mi_of(&correlate(set, 1, false).unwrap(), a, b);
        let sk = p["mi_unscaled"]["1"].as_f64().unwrap();
        assert!(
            (mi - sk).abs() < 1e-12,
            "{set} {a}–{b} unscaled: {mi} vs {sk}"
        );
    }
    // k = 3 (scikit-learn's default) cannot run on three models, here or in scikit-learn.
    assert!(f["default_n_neighbors_error"]
        .as_str()
        .unwrap()
        .contains("n_neighbors = 3, n_samples_fit = 3"));
    match correlate("SS", 3, true) {
        Err(RobustError::InvalidParameter { name, expected, .. }) => {
            assert_eq!(name, "models");
            assert!(expected.contains("k + 1"), "{expected}");
        }
        other => panic!("{other:?}"),
    }
}
