//! Properties of SAME, WEAT and the permutation test.

use approx::{abs_diff_eq, assert_abs_diff_eq};
use bias_embed::{
    same_binary, same_multi, weat, weat_permutation_test, Ddof, PermutationMethod,
    PermutationOptions, SameVariant,
};
use ndarray::Array2;
use proptest::prelude::*;

const DIM: usize = 6;

fn mat(rows: usize) -> impl Strategy<Value = Array2<f64>> {
    prop::collection::vec(
        prop::collection::vec(-1.0f64..1.0, DIM)
            .prop_filter("non-zero", |v| v.iter().map(|x| x * x).sum::<f64>() > 1e-3),
        rows,
    )
    .prop_map(|rows| {
        let n = rows.len();
        Array2::from_shape_vec((n, DIM), rows.concat()).unwrap()
    })
}

fn groups() -> impl Strategy<Value = Vec<Array2<f64>>> {
    prop::collection::vec((1usize..5).prop_flat_map(mat), 2..5)
}

fn direction_ok(a: &Array2<f64>, b: &Array2<f64>) -> bool {
    let m = |x: &Array2<f64>| {
        let mut s = ndarray::Array1::<f64>::zeros(DIM);
        for r in x.rows() {
            s = s + &r / r.dot(&r).sqrt();
        }
        s / x.nrows() as f64
    };
    let d = m(a) - m(b);
    d.dot(&d) > 1e-6
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn same_in_unit_interval_and_scale_invariant(
        t in (1usize..6).prop_flat_map(mat),
        g in groups(),
        scales in prop::collection::vec(0.01f64..100.0, 40),
    ) {
        prop_assume!(direction_ok(&g[0], &g[1]));
        let views: Vec<_> = g.iter().map(|m| m.view()).collect();
        let r = same_multi(t.view(), &views, SameVariant::Paper).unwrap();
        prop_assert!((0.0..=1.0 + 1e-12).contains(&r.value));
        for b in &r.per_target_bias {
            prop_assert!(*b <= 1.0 + 1e-12);
        }
        let bin = same_binary(t.view(), g[0].view(), g[1].view()).unwrap();
        prop_assert!((0.0..=1.0 + 1e-12).contains(&bin.value));

        // Rescale every vector (targets and attributes) by a positive factor.
        let mut k = 0;
        let mut scale = |m: &Array2<f64>| {
            let mut m = m.clone();
            for mut row in m.rows_mut() {
                row *= scales[k % scales.len()];
                k += 1;
            }
            m
        };
        let t2 = scale(&t);
        let g2: Vec<_> = g.iter().map(&mut scale).collect();
        let views2: Vec<_> = g2.iter().map(|m| m.view()).collect();
        let r2 = same_multi(t2.view(), &views2, SameVariant::Paper).unwrap();
        prop_assert!(abs_diff_eq!(r.value, r2.value, epsilon = 1e-9));
        let bin2 = same_binary(t2.view(), g2[0].view(), g2[1].view()).unwrap();
        prop_assert!(abs_diff_eq!(bin.value, bin2.value, epsilon = 1e-9));
        let a1 = same_multi(t.view(), &views, SameVariant::AuthorsCode).unwrap();
        let a2 = same_multi(t2.view(), &views2, SameVariant::AuthorsCode).unwrap();
        prop_assert!(abs_diff_eq!(a1.value, a2.value, epsilon = 1e-9));
    }

    #[test]
    fn same_zero_for_equidistant_targets(
        t in (1usize..6).prop_flat_map(mat),
        g in groups(),
    ) {
        prop_assume!(direction_ok(&g[0], &g[1]));
        // Project the targets onto the orthogonal complement of every direction â_g − â_0: then
        // cos(t, â_g) = cos(t, â_0) for all g (the target is equidistant from the groups).
        let unit_mean = |x: &Array2<f64>| {
            let mut s = ndarray::Array1::<f64>::zeros(DIM);
            for r in x.rows() {
                s = s + &r / r.dot(&r).sqrt();
            }
            s / x.nrows() as f64
        };
        let a0 = unit_mean(&g[0]);
        let mut basis: Vec<ndarray::Array1<f64>> = Vec::new();
        for m in &g[1..] {
            let mut v = unit_mean(m) - &a0;
            for b in &basis {
                let c = v.dot(b);
                v.scaled_add(-c, b);
            }
            let n = v.dot(&v).sqrt();
            if n > 1e-8 {
                basis.push(v / n);
            }
        }
        let mut t = t;
        for mut row in t.rows_mut() {
            for b in &basis {
                let c = row.dot(b);
                row.scaled_add(-c, b);
            }
        }
        prop_assume!(t.rows().into_iter().all(|r| r.dot(&r) > 1e-6));
        let views: Vec<_> = g.iter().map(|m| m.view()).collect();
        let r = same_multi(t.view(), &views, SameVariant::Paper).unwrap();
        prop_assert!(abs_diff_eq!(r.value, 0.0, epsilon = 1e-9), "{}", r.value);
        let a = same_multi(t.view(), &views, SameVariant::AuthorsCode).unwrap();
        prop_assert!(abs_diff_eq!(a.value, 0.0, epsilon = 1e-9), "{}", a.value);
        let bin = same_binary(t.view(), g[0].view(), g[1].view()).unwrap();
        prop_assert!(abs_diff_eq!(bin.value, 0.0, epsilon = 1e-9));
    }

    #[test]
    fn weat_sign_flips_and_p_in_unit_interval(
        x in (2usize..6).prop_flat_map(mat),
        y in (2usize..6).prop_flat_map(mat),
        a in (1usize..5).prop_flat_map(mat),
        b in (1usize..5).prop_flat_map(mat),
    ) {
        for ddof in [Ddof::Zero, Ddof::One] {
            let w = weat(x.view(), y.view(), a.view(), b.view(), ddof).unwrap();
            let v = weat(y.view(), x.view(), a.view(), b.view(), ddof).unwrap();
            prop_assert!(abs_diff_eq!(w.effect_size, -v.effect_size, epsilon = 1e-9));
        }
        let w = weat(x.view(), y.view(), a.view(), b.view(), Ddof::Zero).unwrap();
        let exact = w.permutation_test(&PermutationOptions::default()).unwrap();
        prop_assert_eq!(exact.method, PermutationMethod::Exact);
        prop_assert!(exact.p_value > 0.0 && exact.p_value <= 1.0);
        let mc = w.permutation_test(&PermutationOptions {
            exact_threshold: 0,
            permutations: 500,
            seed: 3,
            ..Default::default()
        }).unwrap();
        prop_assert_eq!(mc.method, PermutationMethod::MonteCarlo);
        prop_assert!(mc.p_value > 0.0 && mc.p_value <= 1.0);
    }
}

#[test]
fn monte_carlo_identical_on_one_and_two_threads() -> Result<(), Box<dyn std::error::Error>> {
    let s_x: Vec<f64> = (0..20)
        .map(|i| ((i * 37 % 17) as f64 * 0.013).sin())
        .collect();
    let s_y: Vec<f64> = (0..20)
        .map(|i| ((i * 11 % 13) as f64 * 0.017).cos() - 0.9)
        .collect();
    let options = PermutationOptions {
        exact_threshold: 1000,
        permutations: 20_000,
        seed: 42,
        ..Default::default()
    };
    let run = |n: usize| -> Result<_, Box<dyn std::error::Error>> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build()?;
        Ok(pool.install(|| weat_permutation_test(&s_x, &s_y, &options))?)
    };
    let one = run(1)?;
    let two = run(2)?;
    let four = run(4)?;
    assert_eq!(one.method, PermutationMethod::MonteCarlo);
    assert_eq!(one.permutations, 20_000);
    assert_eq!(one.p_value, two.p_value);
    assert_eq!(one.p_value, four.p_value);
    let se = one.standard_error.unwrap();
    assert_abs_diff_eq!(
        se,
        (one.p_value * (1.0 - one.p_value) / 20_000.0).sqrt(),
        epsilon = 1e-15
    );
    let other_seed = weat_permutation_test(
        &s_x,
        &s_y,
        &PermutationOptions {
            seed: 43,
            ..options
        },
    )?;
    // Another seed draws other re-partitions (a different estimate) of the same p, so the two
    // agree within sampling error.
    assert_ne!(other_seed.p_value, one.p_value);
    assert_abs_diff_eq!(
        other_seed.p_value,
        one.p_value,
        epsilon = 4.0 * se * 2f64.sqrt()
    );
    Ok(())
}
