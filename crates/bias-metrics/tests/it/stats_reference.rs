//! `bias_metrics::stats` against the reference values in `fixtures/stats/*.json`, written by
//! `scripts/fixtures/stats_cases.py` from scipy, scikit-learn and statsmodels.

use approx::abs_diff_eq;
use bias_metrics::stats::{
    kendall_tau_b, mcnemar_chi2, mcnemar_exact, mcnemar_table, mutual_info_continuous,
    mutual_info_discrete_continuous, pearson, roc_auc, roc_curve, shapiro_wilk, spearman,
    KendallPMethod,
};
use bias_metrics::MetricsError;
use serde::Deserialize;

const STAT_TOL: f64 = 1e-6;
const P_ABS_TOL: f64 = 1e-6;
const P_REL_TOL: f64 = 1e-4;

#[derive(Deserialize)]
struct Fixture<C> {
    versions: std::collections::BTreeMap<String, String>,
    cases: Vec<C>,
}

fn load<C: for<'de> Deserialize<'de>>(text: &str) -> Fixture<C> {
    let fixture: Fixture<C> = serde_json::from_str(text).expect("fixture parses");
    assert!(
        fixture.versions.contains_key("scipy"),
        "fixture records library versions"
    );
    assert!(!fixture.cases.is_empty());
    fixture
}

fn assert_stat(label: &str, what: &str, got: f64, want: f64) {
    assert!(
        abs_diff_eq!(got, want, epsilon = STAT_TOL),
        "{label}: {what} = {got:e}, reference {want:e} (diff {:e})",
        (got - want).abs()
    );
}

/// A p-value within `P_ABS_TOL` of the reference, or within `P_REL_TOL` of it relatively
/// (whichever is looser: tiny p-values are compared relatively).
fn assert_p(label: &str, what: &str, got: f64, want: f64) {
    assert!(
        abs_diff_eq!(got, want, epsilon = P_ABS_TOL.max(P_REL_TOL * want.abs())),
        "{label}: {what} = {got:e}, reference {want:e} (diff {:e})",
        (got - want).abs()
    );
}

// ------------------------------------------------------------------------------ Shapiro–Wilk

#[derive(Deserialize)]
struct ShapiroCase {
    label: String,
    x: Vec<f64>,
    w: f64,
    p: f64,
}

#[test]
fn shapiro_wilk_matches_scipy() {
    let f: Fixture<ShapiroCase> = load(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/stats/shapiro.json"
    )));
    for c in &f.cases {
        let r = shapiro_wilk(&c.x).unwrap_or_else(|e| panic!("{}: {e}", c.label));
        assert_stat(&c.label, "W", r.w, c.w);
        assert_p(&c.label, "p", r.p_value, c.p);
    }
    assert!(f.cases.iter().any(|c| c.x.len() == 5000));
}

// ------------------------------------------------------------------------------ correlations

#[derive(Deserialize)]
struct Pearson {
    r: f64,
    p: f64,
}

#[derive(Deserialize)]
struct Spearman {
    rho: f64,
    p: f64,
}

#[derive(Deserialize)]
struct Kendall {
    tau: f64,
    p: f64,
}

#[derive(Deserialize)]
struct CorrelationCase {
    label: String,
    x: Vec<f64>,
    y: Vec<f64>,
    ties: bool,
    pearson: Pearson,
    spearman: Spearman,
    kendall: Kendall,
}

#[test]
fn correlations_match_scipy() {
    let f: Fixture<CorrelationCase> = load(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/stats/correlation.json"
    )));
    let (mut exact, mut asymptotic) = (0, 0);
    for c in &f.cases {
        let l = &c.label;
        let r = pearson(&c.x, &c.y).unwrap_or_else(|e| panic!("{l}: {e}"));
        assert_stat(l, "pearson r", r.statistic, c.pearson.r);
        assert_p(l, "pearson p", r.p_value, c.pearson.p);

        let s = spearman(&c.x, &c.y).unwrap_or_else(|e| panic!("{l}: {e}"));
        assert_stat(l, "spearman rho", s.statistic, c.spearman.rho);
        assert_p(l, "spearman p", s.p_value, c.spearman.p);

        let k = kendall_tau_b(&c.x, &c.y).unwrap_or_else(|e| panic!("{l}: {e}"));
        assert_stat(l, "kendall tau", k.tau, c.kendall.tau);
        assert_p(l, "kendall p", k.p_value, c.kendall.p);
        // scipy's method='auto' rule, restated from the fixture's own data.
        let n = c.x.len();
        let near_monotone = k.tau.abs() > 1.0 - 2.0 * 1.5 / (n * (n - 1) / 2) as f64;
        if c.ties {
            assert_eq!(k.method, KendallPMethod::Asymptotic, "{l}: method");
        } else if n <= 33 {
            assert_eq!(k.method, KendallPMethod::Exact, "{l}: method");
        } else if !near_monotone {
            assert_eq!(k.method, KendallPMethod::Asymptotic, "{l}: method");
        }
        match k.method {
            KendallPMethod::Exact => exact += 1,
            KendallPMethod::Asymptotic => asymptotic += 1,
        }
    }
    assert!(
        exact >= 20 && asymptotic >= 20,
        "both Kendall regimes covered: {exact} / {asymptotic}"
    );
    assert!(f
        .cases
        .iter()
        .any(|c| !c.ties && c.x.len() > 33 && c.label.contains("one_swap")));
}

// ------------------------------------------------------------------------------ mutual information

#[derive(Deserialize)]
struct MiCase {
    label: String,
    kind: String,
    k: usize,
    #[serde(default)]
    x: Vec<f64>,
    #[serde(default)]
    y: Vec<f64>,
    #[serde(default)]
    c: Vec<f64>,
    #[serde(default)]
    d: Vec<i64>,
    mi: f64,
}

#[test]
fn mutual_information_matches_sklearn() {
    let f: Fixture<MiCase> = load(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/stats/mutual_info.json"
    )));
    let mut positive = 0;
    for c in &f.cases {
        let l = &c.label;
        let got = match c.kind.as_str() {
            "cc" => mutual_info_continuous(&c.x, &c.y, c.k),
            "cd" => mutual_info_discrete_continuous(&c.c, &c.d, c.k),
            other => panic!("{l}: unknown kind {other}"),
        }
        .unwrap_or_else(|e| panic!("{l}: {e}"));
        assert_stat(l, "MI", got, c.mi);
        if c.mi > 0.0 {
            positive += 1;
        }
    }
    assert!(positive >= 10, "most cases have a positive estimate");
}

// ------------------------------------------------------------------------------ ROC

#[derive(Deserialize)]
struct RocCase {
    label: String,
    scores: Vec<f64>,
    labels: Vec<bool>,
    fpr: Vec<f64>,
    tpr: Vec<f64>,
    thresholds_after_first: Vec<f64>,
    auc: f64,
}

#[test]
fn roc_matches_sklearn() {
    let f: Fixture<RocCase> = load(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/stats/roc.json"
    )));
    for c in &f.cases {
        let l = &c.label;
        let curve = roc_curve(&c.scores, &c.labels).unwrap_or_else(|e| panic!("{l}: {e}"));
        assert_eq!(curve.fpr.len(), c.fpr.len(), "{l}: number of points");
        assert_eq!(curve.thresholds[0], f64::INFINITY, "{l}: first threshold");
        for i in 0..c.fpr.len() {
            assert_stat(l, &format!("fpr[{i}]"), curve.fpr[i], c.fpr[i]);
            assert_stat(l, &format!("tpr[{i}]"), curve.tpr[i], c.tpr[i]);
        }
        for (i, &t) in c.thresholds_after_first.iter().enumerate() {
            assert_eq!(curve.thresholds[i + 1], t, "{l}: thresholds[{}]", i + 1);
        }
        let auc = roc_auc(&c.scores, &c.labels).unwrap_or_else(|e| panic!("{l}: {e}"));
        assert_stat(l, "auc", auc, c.auc);
    }
}

// ------------------------------------------------------------------------------ McNemar

#[derive(Deserialize)]
struct TestValue {
    statistic: Option<f64>,
    p: f64,
}

#[derive(Deserialize)]
struct McNemarCase {
    label: String,
    table: [[u64; 2]; 2],
    exact: TestValue,
    chi2: TestValue,
    first: Option<Vec<bool>>,
    second: Option<Vec<bool>>,
}

#[test]
fn mcnemar_matches_statsmodels() {
    let f: Fixture<McNemarCase> = load(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/stats/mcnemar.json"
    )));
    for c in &f.cases {
        let l = &c.label;
        let table = match (&c.first, &c.second) {
            (Some(a), Some(b)) => {
                let t = mcnemar_table(a, b).unwrap_or_else(|e| panic!("{l}: {e}"));
                assert_eq!(t, c.table, "{l}: table from paired booleans");
                t
            }
            _ => c.table,
        };
        let e = mcnemar_exact(table);
        assert_stat(
            l,
            "exact statistic",
            e.statistic,
            c.exact.statistic.expect("exact statistic"),
        );
        assert_p(l, "exact p", e.p_value, c.exact.p);
        match c.chi2.statistic {
            Some(stat) => {
                let r = mcnemar_chi2(table).unwrap_or_else(|e| panic!("{l}: {e}"));
                assert_stat(l, "chi2 statistic", r.statistic, stat);
                assert_p(l, "chi2 p", r.p_value, c.chi2.p);
            }
            None => {
                // statsmodels divides by b + c = 0 here; this crate refuses instead.
                assert_eq!(table[0][1] + table[1][0], 0, "{l}");
                assert!(
                    matches!(mcnemar_chi2(table), Err(MetricsError::TooFew { .. })),
                    "{l}: expected TooFew"
                );
            }
        }
    }
}

// ------------------------------------------------------------------------------ error cases

#[test]
fn error_variants() {
    assert!(matches!(
        shapiro_wilk(&[1.0, 2.0]),
        Err(MetricsError::TooFew {
            needed: 3,
            got: 2,
            ..
        })
    ));
    assert!(matches!(
        shapiro_wilk(&[3.5; 10]),
        Err(MetricsError::InvalidParameter { .. })
    ));
    assert!(matches!(
        pearson(&[1.0, 2.0], &[2.0, 1.0]),
        Err(MetricsError::TooFew {
            needed: 3,
            got: 2,
            ..
        })
    ));
    assert!(matches!(
        spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 3.0]),
        Err(MetricsError::LengthMismatch {
            left: 4,
            right: 3,
            ..
        })
    ));
    assert!(matches!(
        kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 3.0]),
        Err(MetricsError::LengthMismatch {
            left: 4,
            right: 3,
            ..
        })
    ));
    assert!(matches!(
        pearson(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]),
        Err(MetricsError::InvalidParameter { .. })
    ));
    assert!(matches!(
        spearman(&[1.0, 2.0, 3.0], &[5.0, 5.0, 5.0]),
        Err(MetricsError::InvalidParameter { .. })
    ));
    assert!(matches!(
        kendall_tau_b(&[0.0, 0.0, 0.0], &[1.0, 2.0, 3.0]),
        Err(MetricsError::InvalidParameter { .. })
    ));
    assert!(matches!(
        mutual_info_continuous(&[0.1, 0.2, 0.3], &[0.1, 0.2], 1),
        Err(MetricsError::LengthMismatch {
            left: 3,
            right: 2,
            ..
        })
    ));
    assert!(matches!(
        mutual_info_discrete_continuous(&[0.1, 0.2, 0.3], &[1, 1], 1),
        Err(MetricsError::LengthMismatch {
            left: 3,
            right: 2,
            ..
        })
    ));
    assert!(matches!(
        roc_auc(&[0.1, 0.2, 0.3], &[true, false]),
        Err(MetricsError::LengthMismatch {
            left: 3,
            right: 2,
            ..
        })
    ));
    assert!(matches!(
        roc_curve(&[0.1, 0.2], &[false, false]),
        Err(MetricsError::InvalidParameter { .. })
    ));
    assert!(matches!(
        mcnemar_table(&[true, false], &[true]),
        Err(MetricsError::LengthMismatch {
            left: 2,
            right: 1,
            ..
        })
    ));
}

// ------------------------------------------------------- significance: sign test, Holm / BH,
// detectable deviation, sign-flip permutation (scripts/fixtures/significance_cases.py)

#[derive(Deserialize)]
struct Significance {
    versions: std::collections::BTreeMap<String, String>,
    binomtest: Vec<BinomCase>,
    multitest: Vec<MultitestCase>,
    detectable: Vec<DetectableCase>,
    permutation: Vec<PermutationCase>,
}

#[derive(Deserialize)]
struct BinomCase {
    k: u64,
    n: u64,
    p: f64,
}

#[derive(Deserialize)]
struct MultitestCase {
    p: Vec<f64>,
    holm: Vec<f64>,
    holm_reject: Vec<bool>,
    bh: Vec<f64>,
    bh_reject: Vec<bool>,
}

#[derive(Deserialize)]
struct DetectableCase {
    n: u64,
    alpha: f64,
    power: f64,
    deviation: Option<f64>,
}

#[derive(Deserialize)]
struct PermutationCase {
    statistic: String,
    alternative: String,
    x: Vec<f64>,
    y: Vec<f64>,
    observed: f64,
    p: f64,
}

fn significance() -> Significance {
    let s: Significance = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/stats/significance.json"
    )))
    .expect("fixture parses");
    assert!(s.versions.contains_key("statsmodels"));
    s
}

#[test]
fn sign_test_matches_scipy_binomtest() {
    let s = significance();
    assert!(s.binomtest.len() > 50 && s.binomtest.iter().any(|c| c.n == 1508));
    for c in &s.binomtest {
        let p = bias_metrics::stats::sign_test(c.k, c.n).unwrap();
        assert!(
            (p - c.p).abs() <= 1e-12,
            "binomtest({}, {}): {p:e} vs scipy {:e}",
            c.k,
            c.n,
            c.p
        );
    }
}

#[test]
fn holm_and_bh_match_statsmodels() {
    use bias_metrics::stats::Correction;
    use bias_metrics::FamilyOptions;
    for c in significance().multitest {
        for (correction, want, reject) in [
            (Correction::Holm, &c.holm, &c.holm_reject),
            (Correction::Bh, &c.bh, &c.bh_reject),
        ] {
            let got = correction.adjust(&c.p).unwrap();
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                assert!((g - w).abs() <= 1e-12, "{correction} p[{i}]: {g} vs {w}");
            }
            let options = FamilyOptions {
                correction,
                ..FamilyOptions::default()
            };
            let verdicts = options.verdicts(&c.p).unwrap();
            let significant: Vec<bool> = verdicts.iter().map(|v| v.significant).collect();
            assert_eq!(
                &significant, reject,
                "{correction}: rejections of {:?}",
                c.p
            );
        }
    }
}

#[test]
fn detectable_deviation_matches_scipy_binom() {
    for c in significance().detectable {
        let got = bias_metrics::stats::detectable_deviation(c.n, c.alpha, c.power).unwrap();
        match (got, c.deviation) {
            (None, None) => {}
            (Some(g), Some(w)) => assert!((g - w).abs() < 1e-6, "n = {}: {g} vs {w}", c.n),
            other => panic!("n = {}, alpha = {}: {other:?}", c.n, c.alpha),
        }
    }
}

/// Our sign-flip test equals scipy's exact enumeration; the indicator cases run through
/// `test_measure` on a score table (the sentences' scores swapped), so the table flipping is
/// checked too.
#[test]
fn sign_flip_test_matches_scipy_exact_enumeration() {
    use bias_core::{BiasType, ScoreRow, ScoreTable};
    use bias_metrics::stats::{sign_flip_test, Alternative, PermutationOptions};
    use bias_metrics::{test_measure, MeasureSpec, NullTest};
    let cases = significance().permutation;
    assert!(cases.iter().any(|c| c.x.len() == 12));
    for c in cases {
        let options = PermutationOptions::default();
        let (observed, p) = if c.statistic == "mean-difference" {
            let alternative = match c.alternative.as_str() {
                "two-sided" => Alternative::TwoSided,
                "greater" => Alternative::Greater,
                _ => Alternative::Less,
            };
            let d: Vec<f64> = c.x.iter().zip(&c.y).map(|(x, y)| x - y).collect();
            let stat = |flipped: &[bool]| {
                let s: f64 = d
                    .iter()
                    .zip(flipped)
                    .map(|(v, &f)| if f { -v } else { *v })
                    .sum();
                Ok(vec![s / d.len() as f64])
            };
            let t = sign_flip_test(d.len(), stat, alternative, &options).unwrap();
            assert!(t.exact);
            (t.observed[0], t.p_values[0])
        } else {
            let rows =
                c.x.iter()
                    .zip(&c.y)
                    .enumerate()
                    .map(|(i, (x, y))| {
                        ScoreRow::builder(i.to_string(), BiasType::Gender, *x, *y).build()
                    })
                    .collect();
            let table = ScoreTable::new(rows);
            let spec = MeasureSpec::INDICATOR;
            let t = test_measure(&spec, NullTest::SignFlip, &table, &options).unwrap();
            let value = spec.measure(&table).unwrap().value;
            ((value - 50.0).abs(), t.overall.p_value)
        };
        assert!(
            (observed - c.observed).abs() < 1e-9,
            "{}: observed",
            c.statistic
        );
        assert!(
            (p - c.p).abs() < 1e-12,
            "{} ({}, n = {}): p {p} vs scipy {}",
            c.statistic,
            c.alternative,
            c.x.len(),
            c.p
        );
    }
}
