//! The seeded percentile bootstrap on hand-made tables.

use approx::assert_abs_diff_eq;
use bias_core::{AnyMeasure, BiasMeasure, BiasType, Measurement, ScoreRow, ScoreTable};
use bias_metrics::{
    bootstrap_by_type, bootstrap_ci, BootstrapOptions, Indicator, Jss, Kls, MetricsError,
};

fn row(id: usize, ty: BiasType, st: f64, at: f64) -> ScoreRow {
    ScoreRow::builder(id.to_string(), ty, st, at)
        .scorer("aul")
        .model("m")
        .build()
}

/// 30 gender pairs and 10 age pairs with deterministic, varied scores; 2 of every 3 prefer
/// the stereotypical sentence.
fn table() -> ScoreTable {
    (0..40)
        .map(|i| {
            let ty = if i < 30 {
                BiasType::Gender
            } else {
                BiasType::Age
            };
            let base = -1.0 - 0.05 * ((i * 7) % 13) as f64;
            let d = if i % 3 == 0 {
                -0.2
            } else {
                0.1 + 0.01 * i as f64
            };
            row(i, ty, base + d, base)
        })
        .collect()
}

/// A test measure: the number of gender rows in the table.
#[derive(Debug)]
struct GenderCount;

impl BiasMeasure for GenderCount {
    type Error = MetricsError;
    fn name(&self) -> &str {
        "gender-count"
    }
    fn measure(&self, table: &ScoreTable) -> Result<Measurement, MetricsError> {
        Ok(Measurement {
            measure: "gender-count".into(),
            value: table
                .rows()
                .iter()
                .filter(|r| r.bias_type == BiasType::Gender)
                .count() as f64,
            no_bias: 0.0,
            n: table.len(),
            by_type: Default::default(),
        })
    }
}

#[derive(Debug)]
struct Failing;

impl BiasMeasure for Failing {
    type Error = std::io::Error;
    fn name(&self) -> &str {
        "failing"
    }
    fn measure(&self, _: &ScoreTable) -> Result<Measurement, std::io::Error> {
        Err(std::io::Error::other("no"))
    }
}

#[test]
fn same_seed_same_result_other_seed_other_values() {
    let opts = BootstrapOptions {
        replicates: 200,
        level: 0.95,
        seed: 7,
        stratified: true,
    };
    let a = bootstrap_ci(&Indicator::default(), &table(), &opts).unwrap();
    let b = bootstrap_ci(&Indicator::default(), &table(), &opts).unwrap();
    assert_eq!(a, b);
    let c = bootstrap_ci(
        &Indicator::default(),
        &table(),
        &BootstrapOptions { seed: 8, ..opts },
    )
    .unwrap();
    assert_ne!(a.values, c.values);
    // Point estimate: 26 of 40 pairs (i % 3 != 0) prefer the stereotype → 65.
    assert_eq!(a.estimate, 65.0);
    assert!(a.lower <= a.estimate && a.estimate <= a.upper);
    assert!(a.lower < a.upper);
    assert_eq!((a.replicates, a.level, a.seed), (200, 0.95, 7));
    // lower/upper are numpy-linear percentiles of the sorted replicate values.
    let q = |p: f64| {
        let h = 199.0 * p;
        let l = h.floor() as usize;
        a.values[l] + (h - l as f64) * (a.values[l + 1] - a.values[l])
    };
    assert_abs_diff_eq!(a.lower, q(0.025), epsilon = 1e-12);
    assert_abs_diff_eq!(a.upper, q(0.975), epsilon = 1e-12);
}

#[test]
fn stratification_keeps_type_sizes() {
    let strat = BootstrapOptions {
        replicates: 100,
        level: 0.9,
        seed: 1,
        stratified: true,
    };
    let s = bootstrap_ci(&GenderCount, &table(), &strat).unwrap();
    assert!(s.values.iter().all(|&v| v == 30.0));
    assert_eq!((s.lower, s.upper), (30.0, 30.0));
    let free = bootstrap_ci(
        &GenderCount,
        &table(),
        &BootstrapOptions {
            stratified: false,
            ..strat
        },
    )
    .unwrap();
    assert!(free.values.iter().any(|&v| v != 30.0));
}

#[test]
fn constant_measure_gives_a_point_interval() {
    // Every pair prefers the stereotype: every replicate is 100.
    let t: ScoreTable = (0..10)
        .map(|i| row(i, BiasType::Gender, -1.0, -2.0 - i as f64))
        .collect();
    let r = bootstrap_ci(&Indicator::default(), &t, &BootstrapOptions::default()).unwrap();
    assert_eq!((r.estimate, r.lower, r.upper), (100.0, 100.0, 100.0));
    assert_eq!(r.values.len(), 1000);
}

#[test]
fn works_for_kls_and_jss() {
    let opts = BootstrapOptions {
        replicates: 100,
        ..Default::default()
    };
    let k = bootstrap_ci(&Kls::default(), &table(), &opts).unwrap();
    assert!(k.lower >= 50.0 && k.upper <= 100.0 && k.lower <= k.upper);
    assert_eq!(k.estimate, Kls::default().measure(&table()).unwrap().value);
    let j = bootstrap_ci(&Jss::default(), &table(), &opts).unwrap();
    assert!(j.lower >= 0.0 && j.upper <= 100.0 && j.lower <= j.upper);
    assert_eq!(j.measure, "jss");
}

#[test]
fn invalid_options_and_failing_measures() {
    let t = table();
    let bad_b = BootstrapOptions {
        replicates: 0,
        ..Default::default()
    };
    assert!(matches!(
        bootstrap_ci(&Indicator::default(), &t, &bad_b),
        Err(MetricsError::InvalidParameter { .. })
    ));
    for level in [0.0, 1.0, f64::NAN, 1.5] {
        let o = BootstrapOptions {
            level,
            ..Default::default()
        };
        assert!(bootstrap_ci(&Indicator::default(), &t, &o).is_err());
    }
    assert!(matches!(
        bootstrap_ci(&Failing, &t, &BootstrapOptions::default()),
        Err(MetricsError::Measure { .. })
    ));
    assert!(matches!(
        bootstrap_ci(
            &Indicator::default(),
            &ScoreTable::default(),
            &BootstrapOptions::default()
        ),
        Err(MetricsError::Measure { .. })
    ));
}

/// [`bootstrap_by_type`] draws the replicates of [`bootstrap_ci`]: the same overall interval
/// for every measure, computed on one set of tables.
#[test]
fn by_type_overall_equals_bootstrap_ci() {
    let t = table();
    let options = BootstrapOptions {
        replicates: 200,
        seed: 7,
        ..BootstrapOptions::default()
    };
    let (ind, kls, jss) = (Indicator::default(), Kls::default(), Jss::default());
    let measures: [&dyn AnyMeasure; 3] = [&ind, &kls, &jss];
    let by_type = bootstrap_by_type(&measures, &t, &options).unwrap();
    let singles = [
        bootstrap_ci(&ind, &t, &options).unwrap(),
        bootstrap_ci(&kls, &t, &options).unwrap(),
        bootstrap_ci(&jss, &t, &options).unwrap(),
    ];
    for (b, single) in by_type.iter().zip(&singles) {
        assert_eq!(b.estimate.measure, single.measure);
        assert_eq!(b.estimate.value, single.estimate);
        assert_eq!(b.overall.lower, single.lower);
        assert_eq!(b.overall.upper, single.upper);
        // One interval per bias type of the estimate.
        let types: Vec<_> = b.by_type.keys().collect();
        assert_eq!(types, b.estimate.by_type.keys().collect::<Vec<_>>());
    }
}

/// Per type: a type whose every pair prefers the stereotype keeps indicator 100 in every
/// replicate (a point interval); a mixed type gets an interval of positive width around its
/// share, inside [0, 100].
#[test]
fn by_type_intervals_follow_each_type() {
    let mut rows: Vec<ScoreRow> = (0..12)
        .map(|i| {
            row(
                i,
                BiasType::Age,
                -1.0 - 0.1 * i as f64 + 0.5,
                -1.0 - 0.1 * i as f64,
            )
        })
        .collect();
    // Gender: 3 of 6 pairs prefer the stereotype (indicator 50).
    rows.extend((0..6).map(|i| {
        let d = if i % 2 == 0 { 0.3 } else { -0.3 };
        row(100 + i, BiasType::Gender, -2.0 + d - 0.05 * i as f64, -2.0)
    }));
    let t = ScoreTable::new(rows);
    let ind = Indicator::default();
    let measures: [&dyn AnyMeasure; 1] = [&ind];
    let b = &bootstrap_by_type(&measures, &t, &BootstrapOptions::default()).unwrap()[0];
    let age = b.by_type[&BiasType::Age];
    assert_eq!((age.lower, age.upper), (100.0, 100.0));
    let gender = b.by_type[&BiasType::Gender];
    assert_eq!(b.estimate.by_type[&BiasType::Gender].value, 50.0);
    assert!(gender.lower < 50.0 && gender.upper > 50.0, "{gender:?}");
    assert!(gender.lower >= 0.0 && gender.upper <= 100.0, "{gender:?}");
}

#[test]
fn by_type_refuses_unstratified_resampling() {
    let ind = Indicator::default();
    let measures: [&dyn AnyMeasure; 1] = [&ind];
    let options = BootstrapOptions {
        stratified: false,
        ..BootstrapOptions::default()
    };
    let err = bootstrap_by_type(&measures, &table(), &options).unwrap_err();
    assert!(
        matches!(&err, MetricsError::InvalidParameter { name, .. } if name == "stratified"),
        "{err}"
    );
}
