//! Property tests of the measures and the bootstrap.

use approx::abs_diff_eq;
use std::collections::BTreeMap;

use bias_core::{BiasMeasure, BiasType, ScoreRow, ScoreTable, TypeValue};
use bias_metrics::{
    bootstrap_ci, jss, kls, weighted_by_type, BootstrapOptions, DistributionOptions, Gaussian,
    Indicator, Jss, JssVariant, Kls,
};
use proptest::prelude::*;

fn row(id: usize, ty: BiasType, st: f64, at: f64) -> ScoreRow {
    ScoreRow::builder(id.to_string(), ty, st, at)
        .scorer("aul")
        .model("m")
        .build()
}

fn swapped(t: &ScoreTable) -> ScoreTable {
    t.rows()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            std::mem::swap(&mut r.score_stereo, &mut r.score_anti);
            r
        })
        .collect()
}

/// Two bias types with 2..12 pairs each, scores in [−6, 0] (AUL-like).
fn tables() -> impl Strategy<Value = ScoreTable> {
    let pairs = |n| prop::collection::vec((-6.0f64..0.0, -6.0f64..0.0), n);
    (pairs(2..12), pairs(2..12)).prop_map(|(g, a)| {
        let mut rows = Vec::new();
        for (i, (s, t)) in g.into_iter().enumerate() {
            rows.push(row(i, BiasType::Gender, s, t));
        }
        for (i, (s, t)) in a.into_iter().enumerate() {
            rows.push(row(100 + i, BiasType::Age, s, t));
        }
        ScoreTable::new(rows)
    })
}

fn gaussians() -> impl Strategy<Value = Gaussian> {
    (-5.0f64..5.0, 0.0f64..4.0).prop_map(|(m, s)| Gaussian::new(m, s).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn kls_range_and_symmetry(p in gaussians(), a in gaussians()) {
        let v = kls(&p, &a);
        prop_assert!((50.0..=100.0).contains(&v));
        prop_assert!(abs_diff_eq!(v, kls(&a, &p), epsilon = 1e-9));
    }

    #[test]
    fn jss_range_and_symmetry(p in gaussians(), a in gaussians()) {
        for variant in [JssVariant::AuthorsCode, JssVariant::PaperText] {
            let v = jss(&p, &a, variant);
            prop_assert!((0.0..=100.0).contains(&v), "{variant:?} {v}");
            prop_assert!(abs_diff_eq!(v, jss(&a, &p, variant), epsilon = 1e-8));
        }
    }

    #[test]
    fn measures_on_tables(t in tables()) {
        let k = Kls::default().measure(&t).unwrap();
        prop_assert!((50.0..=100.0).contains(&k.value));
        let ks = Kls::default().measure(&swapped(&t)).unwrap();
        prop_assert!(abs_diff_eq!(k.value, ks.value, epsilon = 1e-9));
        for variant in [JssVariant::AuthorsCode, JssVariant::PaperText] {
            let j = Jss::new(variant, DistributionOptions::default()).measure(&t).unwrap();
            prop_assert!((0.0..=100.0).contains(&j.value));
        }
        // The weighted value lies between the smallest and largest per-type value.
        let lo = k.by_type.values().map(|v| v.value).fold(f64::INFINITY, f64::min);
        let hi = k.by_type.values().map(|v| v.value).fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(k.value >= lo - 1e-9 && k.value <= hi + 1e-9);
    }

    #[test]
    fn indicator_of_swapped_sides(t in tables()) {
        prop_assume!(t.rows().iter().all(|r| r.score_stereo != r.score_anti));
        let x = Indicator::default().measure(&t).unwrap().value;
        let y = Indicator::default().measure(&swapped(&t)).unwrap().value;
        prop_assert!(abs_diff_eq!(x + y, 100.0, epsilon = 1e-9));
        prop_assert!((0.0..=100.0).contains(&x));
    }

    #[test]
    fn weighting_single_type(value in -1e3f64..1e3, n in 1usize..10_000) {
        let mut m = BTreeMap::new();
        m.insert(BiasType::Religion, TypeValue { value, n });
        prop_assert!(abs_diff_eq!(weighted_by_type(&m).unwrap(), value, epsilon = 1e-12 * value.abs().max(1.0)));
    }

    #[test]
    fn single_type_table_weighted_equals_type(t in tables()) {
        let g = t.filter(|r| r.bias_type == BiasType::Gender);
        let k = Kls::default().measure(&g).unwrap();
        prop_assert_eq!(k.value, k.by_type[&BiasType::Gender].value);
    }

    #[test]
    fn bootstrap_is_seeded_and_ordered(t in tables(), seed in any::<u64>()) {
        let opts = BootstrapOptions { replicates: 40, level: 0.9, seed, stratified: true };
        let a = bootstrap_ci(&Kls::default(), &t, &opts).unwrap();
        let b = bootstrap_ci(&Kls::default(), &t, &opts).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert!(a.lower <= a.upper);
        prop_assert!(a.lower >= a.values[0] && a.upper <= a.values[a.values.len() - 1]);
        prop_assert_eq!(a.values.len(), 40);
        let i = bootstrap_ci(&Indicator::default(), &t, &opts).unwrap();
        prop_assert!(i.lower <= i.upper && i.lower >= 0.0 && i.upper <= 100.0);
    }
}
