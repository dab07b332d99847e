//! Correlation and mutual information between measures (liu2024 Fig. 4).

use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::collections::BTreeMap;

use bias_core::{BiasType, ScoreRow, ScoreTable};
use bias_robust::{
    correlate_measures, correlate_pair_scores, correlate_pearson, CorrelateOptions, RobustError,
};

fn table(rows: &[(&str, &[(&str, f64)])]) -> Vec<(String, BTreeMap<String, f64>)> {
    rows.iter()
        .map(|(m, vals)| {
            (
                m.to_string(),
                vals.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            )
        })
        .collect()
}

#[test]
fn hand_computed_pearson_on_four_models() {
    // A = 1, 2, 3, 4 (mean 2.5, deviations −1.5, −0.5, 0.5, 1.5; Σd² = 5);
    // B = 2, 4, 5, 9 (mean 5, deviations −3, −1, 0, 4; Σd² = 26);
    // Σ dA·dB = 4.5 + 0.5 + 0 + 6 = 11, so r = 11 / √130 = 0.964763...
    // With n = 4 the t-test has 2 df: t = r √(2 / (1 − r²)) = 11√2 / 3 and the two-sided
    // p = 1 − |t| / √(t² + 2) = 1 − 11/√130 = 1 − r.
    // C = 4, 3, 2, 1 is A reversed: r(A, C) = −1, p = 0.
    let t = table(&[
        ("m1", &[("A", 1.0), ("B", 2.0), ("C", 4.0)]),
        ("m2", &[("A", 2.0), ("B", 4.0), ("C", 3.0)]),
        ("m3", &[("A", 3.0), ("B", 5.0), ("C", 2.0)]),
        ("m4", &[("A", 4.0), ("B", 9.0), ("C", 1.0)]),
    ]);
    let rep = correlate_measures(&t, &CorrelateOptions::default()).unwrap();
    assert_eq!(rep.measures, ["A", "B", "C"]);
    assert_eq!(rep.models, ["m1", "m2", "m3", "m4"]);
    let r_ab = 11.0 / 130f64.sqrt();
    assert_abs_diff_eq!(rep.r[0][1], r_ab, epsilon = 1e-12);
    assert_eq!(rep.r[0][1], rep.r[1][0]);
    assert_abs_diff_eq!(rep.p_value[0][1], 1.0 - r_ab, epsilon = 1e-9);
    assert_abs_diff_eq!(rep.r[0][2], -1.0, epsilon = 1e-12);
    assert!(rep.p_value[0][2] < 1e-12);
    for i in 0..3 {
        assert_eq!(rep.r[i][i], 1.0);
        assert_eq!(rep.p_value[i][i], 0.0);
        assert_eq!(rep.mutual_info[i][i], None);
    }
    assert_eq!(rep.pairs.len(), 3);
    assert_eq!(
        (rep.pairs[0].a.as_str(), rep.pairs[0].b.as_str()),
        ("A", "B")
    );
    let json = serde_json::to_string(&rep).unwrap();
    assert!(json.contains("\"mutual_info\""));
}

#[test]
fn mutual_information_is_symmetric() {
    let xs: Vec<f64> = (0..12)
        .map(|i| ((i as f64) * 0.9).sin() + i as f64 * 0.1)
        .collect();
    let ys: Vec<f64> = (0..12)
        .map(|i| ((i as f64) * 0.4).cos() * 2.0 + 0.05 * i as f64)
        .collect();
    let build = |first: &[f64], second: &[f64]| {
        (0..12)
            .map(|i| {
                (
                    format!("m{i}"),
                    BTreeMap::from([("a".to_string(), first[i]), ("b".to_string(), second[i])]),
                )
            })
            .collect::<Vec<_>>()
    };
    for standardise in [true, false] {
        let opts = CorrelateOptions { k: 3, standardise };
        let xy = correlate_measures(&build(&xs, &ys), &opts).unwrap();
        let yx = correlate_measures(&build(&ys, &xs), &opts).unwrap();
        let (m1, m2) = (xy.mutual_info[0][1].unwrap(), yx.mutual_info[0][1].unwrap());
        assert!(abs_diff_eq!(m1, m2, epsilon = 1e-12), "{m1} vs {m2}");
        assert_eq!(xy.mutual_info[0][1], xy.mutual_info[1][0]);
        assert!(m1 >= 0.0);
        assert_abs_diff_eq!(xy.r[0][1], yx.r[0][1], epsilon = 1e-12);
    }
}

#[test]
fn too_few_models_and_bad_tables_are_errors() {
    let three = table(&[
        ("m1", &[("A", 1.0), ("B", 2.0)]),
        ("m2", &[("A", 2.0), ("B", 1.0)]),
        ("m3", &[("A", 3.0), ("B", 5.0)]),
    ]);
    // k = 3 needs k + 1 = 4 models.
    assert!(matches!(
        correlate_measures(&three, &CorrelateOptions::default()),
        Err(RobustError::InvalidParameter { .. })
    ));
    // k = 2 works on 3 models.
    let ok = CorrelateOptions {
        k: 2,
        ..CorrelateOptions::default()
    };
    // By hand: A = (1, 2, 3), B = (2, 1, 5); deviations (−1, 0, 1) and (−2/3, −5/3, 7/3):
    // Σ dA·dB = 3, Σ dA² = 2, Σ dB² = 26/3 → r = 3 / √(52/3).
    let c = correlate_measures(&three, &ok).unwrap();
    let want = 3.0 / (52.0f64 / 3.0).sqrt();
    assert!(
        abs_diff_eq!(c.r[0][1], want, epsilon = 1e-12),
        "{} vs {want}",
        c.r[0][1]
    );
    // Pearson needs 3 models even with k = 1.
    let k1 = CorrelateOptions {
        k: 1,
        ..CorrelateOptions::default()
    };
    assert!(correlate_measures(&three[..2], &k1).is_err());
    assert!(correlate_measures(
        &three,
        &CorrelateOptions {
            k: 0,
            ..CorrelateOptions::default()
        }
    )
    .is_err());
    // A model lacking a measure.
    let mut missing = three.clone();
    missing[1].1.remove("B");
    assert!(correlate_measures(&missing, &ok).is_err());
    // Pearson alone works on the 3 models k = 3 refuses: the same r, no mutual information.
    let p = correlate_pearson(&three).unwrap();
    assert_abs_diff_eq!(p.r[0][1], want, epsilon = 1e-12);
    assert_eq!(p.p_value[0][1], c.p_value[0][1]);
    assert_eq!(p.mutual_info[0][1], None);
    assert!(p.pairs[0].mutual_info.is_nan());
    assert!(matches!(
        correlate_pearson(&three[..2]),
        Err(RobustError::InvalidParameter { ref name, .. }) if name == "models"
    ));
    assert!(matches!(
        correlate_pearson(&missing),
        Err(RobustError::InvalidParameter { ref name, .. }) if name == "measure"
    ));
    // A constant measure has no correlation.
    let constant = table(&[
        ("m1", &[("A", 1.0), ("B", 2.0)]),
        ("m2", &[("A", 1.0), ("B", 1.0)]),
        ("m3", &[("A", 1.0), ("B", 5.0)]),
    ]);
    assert!(matches!(
        correlate_measures(&constant, &ok),
        Err(RobustError::Metrics(_))
    ));
    // One measure only.
    let single = table(&[
        ("m1", &[("A", 1.0)]),
        ("m2", &[("A", 2.0)]),
        ("m3", &[("A", 3.0)]),
    ]);
    assert!(correlate_measures(&single, &ok).is_err());
    // A repeated model.
    let mut twice = three.clone();
    twice[2].0 = "m1".into();
    assert!(correlate_measures(&twice, &ok).is_err());
}

fn row(pair: usize, scorer: &str, stereo: f64, anti: f64) -> ScoreRow {
    ScoreRow::builder(pair.to_string(), BiasType::Gender, stereo, anti)
        .dataset("crows")
        .sentences("s", "a")
        .scorer(scorer)
        .model("m")
        .build()
}

#[test]
fn pair_score_differences_join_by_pair_id() {
    // aul differences d = 1, 2, 3, 4 on pairs 0–3 plus an unmatched pair 9; cps rows are in
    // another order and hold differences 2d + 1 (r = 1) plus an unmatched pair 7.
    let mut rows = Vec::new();
    for p in 0..4 {
        rows.push(row(p, "aul", (p + 1) as f64, 0.0));
    }
    rows.push(row(9, "aul", 1.0, 0.0));
    for p in (0..4).rev() {
        rows.push(row(p, "cps", 2.0 * (p + 1) as f64 + 1.0, 0.0));
    }
    rows.push(row(7, "cps", 0.0, 5.0));
    let t = ScoreTable::new(rows);
    let c = correlate_pair_scores(&t, "aul", "cps", &CorrelateOptions::default()).unwrap();
    assert_eq!(c.n_pairs, 4);
    assert_eq!((c.unmatched_a, c.unmatched_b), (1, 1));
    assert_abs_diff_eq!(c.r, 1.0, epsilon = 1e-12);
    assert!(c.p_value < 1e-12);
    assert!(correlate_pair_scores(&t, "aul", "aul", &CorrelateOptions::default()).is_err());
    // k = 4 needs 5 joined pairs.
    let k4 = CorrelateOptions {
        k: 4,
        ..CorrelateOptions::default()
    };
    assert!(correlate_pair_scores(&t, "aul", "cps", &k4).is_err());
    // A duplicated pair id within one scorer.
    let mut dup = t.clone().into_rows();
    dup.push(row(0, "aul", 3.0, 0.0));
    assert!(correlate_pair_scores(
        &ScoreTable::new(dup),
        "aul",
        "cps",
        &CorrelateOptions::default()
    )
    .is_err());
}
