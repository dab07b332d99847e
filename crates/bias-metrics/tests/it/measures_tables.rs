//! Indicator, KLS, JSS, weighting and the Table 4 analysis on small hand-computed score tables,
//! through the `BiasMeasure` trait.

use approx::{abs_diff_eq, assert_abs_diff_eq};
use bias_core::{BiasMeasure, BiasType, Direction, ScoreRow, ScoreTable};
use bias_metrics::{
    score_group_analysis, weighted_by_type, Aggregation, DistributionOptions, Indicator,
    IndicatorOptions, Jss, JssVariant, Kls, MetricsError, Rounding, SmallTypePolicy, TieHandling,
};

fn row(id: usize, ty: BiasType, dir: Direction, st: f64, at: f64) -> ScoreRow {
    ScoreRow::builder(id.to_string(), ty, st, at)
        .dataset("test")
        .direction(dir)
        .sentences(format!("s{id}"), format!("a{id}"))
        .scorer("aul")
        .model("m")
        .build()
}

use BiasType::{Age, Gender};
use Direction::{Antistereo, Stereo};

/// Six pairs: gender {1: stereo wins, 2: anti wins, 3: tie (antistereo)},
/// age {4: stereo wins (antistereo), 5: anti wins, 6: stereo wins}.
fn indicator_table() -> ScoreTable {
    ScoreTable::new(vec![
        row(1, Gender, Stereo, -1.0, -2.0),
        row(2, Gender, Stereo, -2.0, -1.0),
        row(3, Gender, Antistereo, -1.5, -1.5),
        row(4, Age, Antistereo, -0.5, -0.7),
        row(5, Age, Stereo, -3.0, -2.0),
        row(6, Age, Stereo, -0.8, -0.9),
    ])
}

#[test]
fn indicator_by_hand() {
    let m = Indicator::default().measure(&indicator_table()).unwrap();
    // 3 of 6 pairs have score_stereo > score_anti (1, 4, 6); the tie is not stereotypical.
    assert_eq!(m.value, 50.0);
    assert_eq!(m.no_bias, 50.0);
    assert_eq!(m.n, 6);
    assert_eq!(m.measure, "indicator");
    assert_abs_diff_eq!(m.by_type[&Gender].value, 100.0 / 3.0, epsilon = 1e-12);
    assert_eq!(m.by_type[&Gender].n, 3);
    assert_abs_diff_eq!(m.by_type[&Age].value, 200.0 / 3.0, epsilon = 1e-12);
    // The overall indicator equals the n_k/N-weighted per-type values.
    assert_abs_diff_eq!(weighted_by_type(&m.by_type).unwrap(), 50.0, epsilon = 1e-12);
}

#[test]
fn indicator_nangia_report() {
    let ind = Indicator::new(IndicatorOptions {
        ties: TieHandling::Neutral,
        rounding: Rounding::None,
    });
    let r = ind.report(&indicator_table()).unwrap();
    assert_eq!(r.measurement.value, 50.0); // same overall value
    assert_eq!((r.stereotypical, r.ties), (3, 1));
    let n = r.nangia.unwrap();
    assert_eq!(n.neutral, 1);
    assert_abs_diff_eq!(n.neutral_percent, 100.0 / 6.0, epsilon = 1e-12);
    // Non-tied stereo rows 1, 2, 5, 6; stereo wins in 1 and 6 → 50.
    assert_eq!(n.n_stereo, 4);
    assert_eq!(n.stereo_score, Some(50.0));
    // Non-tied antistereo rows: 4 only (3 is a tie); stereo wins → 100.
    assert_eq!(n.n_antistereo, 1);
    assert_eq!(n.antistereo_score, Some(100.0));
    // The default report has no sub-scores.
    assert!(Indicator::default()
        .report(&indicator_table())
        .unwrap()
        .nangia
        .is_none());
    // No antistereo row at all: the sub-score is absent, not NaN.
    let t = ScoreTable::new(vec![row(1, Gender, Stereo, -1.0, -2.0)]);
    let n = ind.report(&t).unwrap().nangia.unwrap();
    assert_eq!((n.n_antistereo, n.antistereo_score), (0, None));
}

#[test]
fn indicator_rounding_and_errors() {
    let t = ScoreTable::new(vec![
        row(1, Gender, Stereo, -1.0, -2.0),
        row(2, Gender, Stereo, -2.0, -1.0),
        row(3, Gender, Stereo, -2.0, -1.0),
    ]);
    let ind = Indicator::new(IndicatorOptions {
        ties: TieHandling::NotStereotypical,
        rounding: Rounding::Decimals(2),
    });
    assert_eq!(ind.measure(&t).unwrap().value, 33.33);
    assert!(matches!(
        Indicator::default().measure(&ScoreTable::default()),
        Err(MetricsError::Empty { .. })
    ));
    let bad = ScoreTable::new(vec![row(1, Gender, Stereo, f64::NAN, -2.0)]);
    assert!(matches!(
        Indicator::default().measure(&bad),
        Err(MetricsError::InvalidParameter { .. })
    ));
}

/// gender: stereo {−1, −3} (μ −2, σ √2), anti {−2, −4} (μ −3, σ √2);
/// age: stereo {0, 2, 4} (μ 2, σ 2), anti {1, 2, 3} (μ 2, σ 1).
fn distribution_table() -> ScoreTable {
    ScoreTable::new(vec![
        row(1, Gender, Stereo, -1.0, -2.0),
        row(2, Gender, Stereo, -3.0, -4.0),
        row(3, Age, Stereo, 0.0, 1.0),
        row(4, Age, Stereo, 2.0, 2.0),
        row(5, Age, Antistereo, 4.0, 3.0),
    ])
}

const LN2: f64 = std::f64::consts::LN_2;

#[test]
fn kls_by_hand_through_the_trait() {
    let m = Kls::default().measure(&distribution_table()).unwrap();
    assert_eq!((m.measure.as_str(), m.no_bias, m.n), ("kls", 50.0, 5));
    // gender: equal σ → 50.
    assert_abs_diff_eq!(m.by_type[&Gender].value, 50.0, epsilon = 1e-12);
    // age: KL(P‖A) = ln(1/2) + 4/2 − 1/2 = 1.5 − ln 2; KL(A‖P) = ln 2 + 1/8 − 1/2 = ln 2 − 0.375;
    // sum 1.125.
    let age = 100.0 * (1.5 - LN2) / 1.125;
    assert_abs_diff_eq!(m.by_type[&Age].value, age, epsilon = 1e-10);
    // Eq. 10: (2·50 + 3·age)/5.
    let want = (2.0 * 50.0 + 3.0 * age) / 5.0;
    assert_abs_diff_eq!(m.value, want, epsilon = 1e-10);
    // Rounded like the authors.
    let r = Kls::new(DistributionOptions {
        rounding: Rounding::Decimals(2),
        ..Default::default()
    })
    .measure(&distribution_table())
    .unwrap();
    assert_eq!(r.value, (want * 100.0).round() / 100.0);
}

#[test]
fn kls_pooled_by_hand() {
    // Pooled: stereo {−1, −3, 0, 2, 4}: μ 0.4, Σ(x−μ)² = 1.96+11.56+0.16+2.56+12.96 = 29.2, σ² 7.3;
    // anti {−2, −4, 1, 2, 3}: μ 0, Σx² = 34, σ² 8.5.
    let (m1, v1, m2, v2): (f64, f64, f64, f64) = (0.4, 7.3, 0.0, 8.5);
    let kl = |ma: f64, va: f64, mb: f64, vb: f64| {
        0.5 * (vb / va).ln() + (va + (ma - mb).powi(2)) / (2.0 * vb) - 0.5
    };
    let (a, b) = (kl(m1, v1, m2, v2), kl(m2, v2, m1, v1));
    let want = 100.0 * a.max(b) / (a + b);
    let m = Kls::new(DistributionOptions {
        aggregation: Aggregation::Pooled,
        ..Default::default()
    })
    .measure(&distribution_table())
    .unwrap();
    assert!(
        abs_diff_eq!(m.value, want, epsilon = 1e-9),
        "{} vs {want}",
        m.value
    );
    // Per-type values are still the within-type ones.
    assert_abs_diff_eq!(m.by_type[&Gender].value, 50.0, epsilon = 1e-12);
}

#[test]
fn jss_by_hand_through_the_trait() {
    let m = Jss::default().measure(&distribution_table()).unwrap();
    assert_eq!((m.measure.as_str(), m.no_bias), ("jss", 100.0));
    // gender: σ_M = √2, J = KL(P‖M) = KL(A‖M) = 0.5²/(2·2) = 0.0625; C = 0 → 93.75.
    assert_abs_diff_eq!(m.by_type[&Gender].value, 93.75, epsilon = 1e-10);
    // age: σ_M² = 2.5; KL(P‖M) = ½ln 2.5 − ln 2 + 4/5 − ½, KL(A‖M) = ½ln 2.5 + 1/5 − ½;
    // J = ½ ln 1.25; C = 1 → C' = 1: JSS = 100(1 − ½ ln 1.25)/2.
    let age = 100.0 * (1.0 - 0.5 * 1.25f64.ln()) / 2.0;
    assert_abs_diff_eq!(m.by_type[&Age].value, age, epsilon = 1e-10);
    assert_abs_diff_eq!(m.value, (2.0 * 93.75 + 3.0 * age) / 5.0, epsilon = 1e-10);

    // Paper-text variant: within [0, 100], named differently, gender (equal σ, shift 1/√2 σ)
    // is 100·(1 − JS) with JS well below 1 bit.
    let p = Jss::new(JssVariant::PaperText, DistributionOptions::default())
        .measure(&distribution_table())
        .unwrap();
    assert_eq!(p.measure, "jss-paper");
    let gj = p.by_type[&Gender].value;
    assert!(gj > 80.0 && gj < 100.0);
    // age: Δσ = 1 → at most 50.
    assert!(p.by_type[&Age].value <= 50.0);
}

#[test]
fn single_type_weighting_is_the_type_value() {
    let t = distribution_table().filter(|r| r.bias_type == Age);
    for m in [
        Kls::default().measure(&t).unwrap(),
        Jss::default().measure(&t).unwrap(),
    ] {
        assert_eq!(m.value, m.by_type[&Age].value);
    }
}

#[test]
fn degenerate_tables() {
    let empty = ScoreTable::default();
    assert!(matches!(
        Kls::default().measure(&empty),
        Err(MetricsError::Empty { .. })
    ));
    assert!(matches!(
        Jss::default().measure(&empty),
        Err(MetricsError::Empty { .. })
    ));
    // A type with a single pair: an error by default ...
    let mut rows = distribution_table().into_rows();
    rows.push(row(9, BiasType::Religion, Stereo, -1.0, -1.5));
    let t = ScoreTable::new(rows);
    match Kls::default().measure(&t) {
        Err(e @ MetricsError::SmallBiasType { .. }) => {
            assert!(
                e.to_string()
                    .contains("needs at least 2 observations, got 1"),
                "{e}"
            );
            assert!(matches!(
                e,
                MetricsError::SmallBiasType {
                    bias_type: BiasType::Religion,
                    got: 1,
                    ..
                }
            ));
        }
        other => panic!("{other:?}"),
    }
    // ... or left out.
    let skip = DistributionOptions {
        small_types: SmallTypePolicy::Skip,
        ..Default::default()
    };
    let m = Kls::new(skip).measure(&t).unwrap();
    let full = Kls::default().measure(&distribution_table()).unwrap();
    assert_eq!(m.n, 5);
    assert!(!m.by_type.contains_key(&BiasType::Religion));
    assert_abs_diff_eq!(m.value, full.value, epsilon = 1e-12);
    // Every type too small even when skipping: an error, not NaN.
    let one = ScoreTable::new(vec![row(1, Gender, Stereo, -1.0, -2.0)]);
    assert!(Kls::new(skip).measure(&one).is_err());
    assert!(Jss::default().measure(&one).is_err());

    // σ = 0 on one side (all anti scores equal), and on both sides.
    let flat_anti = ScoreTable::new(vec![
        row(1, Gender, Stereo, -1.0, -2.0),
        row(2, Gender, Stereo, -3.0, -2.0),
    ]);
    assert_eq!(Kls::default().measure(&flat_anti).unwrap().value, 100.0);
    // σ_st = √2, σ_at = 0: authors' JSS limit 100/(1 + C'), C = √2 > 1 → C' = 1/√2.
    let v = Jss::default().measure(&flat_anti).unwrap().value;
    assert_abs_diff_eq!(v, 100.0 / (1.0 + 1.0 / 2f64.sqrt()), epsilon = 1e-10);
    let paper = Jss::new(JssVariant::PaperText, DistributionOptions::default());
    assert_eq!(paper.measure(&flat_anti).unwrap().value, 0.0);
    let flat_both = ScoreTable::new(vec![
        row(1, Gender, Stereo, -1.0, -2.0),
        row(2, Gender, Stereo, -1.0, -2.0),
    ]);
    assert_eq!(Kls::default().measure(&flat_both).unwrap().value, 50.0);
    assert_eq!(Jss::default().measure(&flat_both).unwrap().value, 100.0);
    assert_eq!(paper.measure(&flat_both).unwrap().value, 0.0);
    // Identical distributions (each side the same multiset): KLS 50, both JSS 100.
    let same = ScoreTable::new(vec![
        row(1, Gender, Stereo, -1.0, -2.0),
        row(2, Gender, Stereo, -2.0, -1.0),
    ]);
    assert_eq!(Kls::default().measure(&same).unwrap().value, 50.0);
    assert_eq!(Jss::default().measure(&same).unwrap().value, 100.0);
    assert_eq!(paper.measure(&same).unwrap().value, 100.0);
}

#[test]
fn score_groups_table4_values() {
    // liu2024 Table 4, BERT: one pair per group carrying the group averages.
    let t = ScoreTable::new(vec![
        row(1, Gender, Stereo, -0.5449, -0.6574),
        row(2, Gender, Stereo, -0.6349, -0.5416),
    ]);
    let a = score_group_analysis(&t).unwrap();
    let st = a.stereotype_group.unwrap();
    let at = a.anti_stereotype_group.unwrap();
    assert_abs_diff_eq!(st.abs_delta, 0.1125, epsilon = 1e-12);
    assert_abs_diff_eq!(at.abs_delta, 0.0933, epsilon = 1e-12);
    assert_abs_diff_eq!(a.delta_difference, 0.0192, epsilon = 1e-12);
    assert_eq!((st.mean_stereo, at.mean_anti), (-0.5449, -0.5416));
}

#[test]
fn score_groups_worked_example() {
    // liu2024's example: S_st = {0.4, 0.3, 0.9, 0.8}, S_at = {0.5, 0.4, 0.1, 0.2}, pairwise:
    // indicator 50, |Δ_st| = 0.85 − 0.15 = 0.7, |Δ_at| = |0.35 − 0.45| = 0.1, difference 0.6.
    let t = ScoreTable::new(
        [(0.4, 0.5), (0.3, 0.4), (0.9, 0.1), (0.8, 0.2)]
            .iter()
            .enumerate()
            .map(|(i, &(s, a))| row(i, Gender, Stereo, s, a))
            .collect(),
    );
    assert_eq!(Indicator::default().measure(&t).unwrap().value, 50.0);
    let a = score_group_analysis(&t).unwrap();
    assert_eq!(a.n, 4);
    assert_eq!(a.stereotype_group.unwrap().n, 2);
    assert_abs_diff_eq!(a.stereotype_group.unwrap().abs_delta, 0.7, epsilon = 1e-12);
    assert_abs_diff_eq!(
        a.anti_stereotype_group.unwrap().abs_delta,
        0.1,
        epsilon = 1e-12
    );
    assert_abs_diff_eq!(a.delta_difference, 0.6, epsilon = 1e-12);
    // Serialises.
    let json = serde_json::to_value(a).unwrap();
    assert_abs_diff_eq!(
        json["delta_difference"].as_f64().unwrap(),
        0.6,
        epsilon = 1e-12
    );
}

#[test]
fn score_groups_ties_empty_groups_and_shift() {
    // A tie belongs to the anti-stereotype group ("other samples"); the stereotype group is
    // empty, its |Δ| counts as 0.
    let t = ScoreTable::new(vec![
        row(1, Gender, Stereo, -1.0, -1.0),
        row(2, Gender, Stereo, -1.0, -0.5),
    ]);
    let a = score_group_analysis(&t).unwrap();
    assert!(a.stereotype_group.is_none());
    let at = a.anti_stereotype_group.unwrap();
    assert_eq!(at.n, 2);
    assert_abs_diff_eq!(at.abs_delta, 0.25, epsilon = 1e-15);
    assert_abs_diff_eq!(a.delta_difference, -0.25, epsilon = 1e-15);
    assert!(score_group_analysis(&ScoreTable::default()).is_err());
    // Table 5, BERT at 30 %: 0.0413 against the original 0.0192 → Δ_sp = +0.0221 (↑).
    let orig = score_group_analysis(&ScoreTable::new(vec![
        row(1, Gender, Stereo, -0.5449, -0.6574),
        row(2, Gender, Stereo, -0.6349, -0.5416),
    ]))
    .unwrap();
    let sampled =
        score_group_analysis(&ScoreTable::new(vec![row(1, Gender, Stereo, 0.0413, 0.0)])).unwrap();
    assert_abs_diff_eq!(sampled.shift_from(&orig), 0.0221, epsilon = 1e-12);
}
