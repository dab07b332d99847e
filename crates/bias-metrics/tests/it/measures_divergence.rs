//! KLS / JSS on Gaussians: test vectors of Liu et al. (2024)'s closed form, and the true Jensen–Shannon divergence
//! checked against an independent computation.

use approx::{abs_diff_eq, assert_abs_diff_eq};
use bias_metrics::{jensen_shannon_bits, jss, jss_authors, jss_paper, kls, Gaussian, JssVariant};

fn g(m: f64, s: f64) -> Gaussian {
    Gaussian::new(m, s).unwrap()
}

/// Liu et al. (2024): (μp, σp, μa, σa) → KLS, JSS (authors' computation, f64).
type Vector = ((f64, f64, f64, f64), f64, f64);

/// The vectors of Liu et al. (2024)'s closed form.
const VECTORS: [Vector; 4] = [
    ((-2.0, 0.8, -2.1, 0.85), 52.691831, 94.975892),
    ((-2.0, 0.5, -3.0, 0.5), 50.0, 50.0),
    ((-2.0, 0.5, -4.0, 0.5), 50.0, 50.0),
    ((0.0, 1.0, 0.0, 3.5), 84.637872, 48.639736),
];

#[test]
fn reference_vectors() {
    for ((mp, sp, ma, sa), want_kls, want_jss) in VECTORS {
        let (p, a) = (g(mp, sp), g(ma, sa));
        assert!(
            abs_diff_eq!(kls(&p, &a), want_kls, epsilon = 1e-6),
            "KLS {mp} {sp} {ma} {sa}"
        );
        assert!(
            abs_diff_eq!(jss_authors(&p, &a), want_jss, epsilon = 1e-6),
            "JSS {mp} {sp} {ma} {sa}"
        );
        assert_eq!(jss(&p, &a, JssVariant::AuthorsCode), jss_authors(&p, &a));
        // Both are symmetric in (P, A).
        assert_abs_diff_eq!(kls(&a, &p), want_kls, epsilon = 1e-6);
        assert_abs_diff_eq!(jss_authors(&a, &p), want_jss, epsilon = 1e-6);
    }
}

/// Independent JSD: the entropy form `JS = H(M) − (H(P) + H(A))/2` (nats), with the Gaussian
/// entropies in closed form `½ ln(2πeσ²)` and `H(M) = −∫ m ln m` by composite Simpson on a
/// uniform grid of step 1e-4 over [lo, hi] (a different formula and a different rule from the
/// library's log-space Gauss–Kronrod over the KL form). Returned in bits.
fn jsd_bits_by_entropy(p: (f64, f64), a: (f64, f64), lo: f64, hi: f64) -> f64 {
    let pdf = |x: f64, (m, s): (f64, f64)| {
        (-(x - m) * (x - m) / (2.0 * s * s)).exp() / (s * (2.0 * std::f64::consts::PI).sqrt())
    };
    let f = |x: f64| {
        let m = 0.5 * (pdf(x, p) + pdf(x, a));
        if m > 0.0 {
            -m * m.ln()
        } else {
            0.0
        }
    };
    let n = (((hi - lo) / 1e-4).round() as usize) & !1; // even number of intervals
    let h = (hi - lo) / n as f64;
    let mut s = f(lo) + f(hi);
    for i in 1..n {
        s += f(lo + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    let hm = s * h / 3.0;
    let ent = |sd: f64| 0.5 * (2.0 * std::f64::consts::PI * std::f64::consts::E * sd * sd).ln();
    (hm - 0.5 * (ent(p.1) + ent(a.1))) / std::f64::consts::LN_2
}

#[test]
fn true_jsd_matches_entropy_form() {
    let cases: [((f64, f64), (f64, f64)); 4] = [
        ((0.0, 1.0), (1.0, 1.0)),
        ((0.0, 1.0), (0.0, 2.0)),
        ((0.0, 0.5), (3.0, 2.0)),
        ((-2.0, 0.8), (-2.1, 0.85)),
    ];
    for (p, a) in cases {
        let lo = (p.0 - 14.0 * p.1).min(a.0 - 14.0 * a.1);
        let hi = (p.0 + 14.0 * p.1).max(a.0 + 14.0 * a.1);
        let want = jsd_bits_by_entropy(p, a, lo, hi);
        let got = jensen_shannon_bits(&g(p.0, p.1), &g(a.0, a.1));
        assert!(
            abs_diff_eq!(got, want, epsilon = 1e-9),
            "{p:?} {a:?}: {got} vs {want}"
        );
    }
}

#[test]
fn true_jsd_invariants() {
    // 0 for identical Gaussians.
    assert_eq!(jensen_shannon_bits(&g(0.3, 1.7), &g(0.3, 1.7)), 0.0);
    // Symmetric, in [0, 1].
    let (p, a) = (g(-1.0, 0.4), g(0.5, 1.3));
    let (x, y) = (jensen_shannon_bits(&p, &a), jensen_shannon_bits(&a, &p));
    assert_abs_diff_eq!(x, y, epsilon = 1e-14);
    assert!((0.0..=1.0).contains(&x));
    // Far-apart means: the supports are numerically disjoint, JS → 1 bit (the overlap at
    // d = 60σ is of order exp(−450)).
    assert_abs_diff_eq!(
        jensen_shannon_bits(&g(0.0, 1.0), &g(60.0, 1.0)),
        1.0,
        epsilon = 1e-12
    );
    // Monotone in the shift for equal σ.
    let mut prev = 0.0;
    for d in [0.1, 0.5, 1.0, 2.0, 4.0, 8.0] {
        let v = jensen_shannon_bits(&g(0.0, 1.0), &g(d, 1.0));
        assert!(v > prev);
        prev = v;
    }
    // Small shifts: JS ≈ I·δ²/8 nats with the Fisher information I = 1/σ² of a location
    // family (second-order expansion of any f-divergence; JS has f''(1) = 1/4).
    let (d, s) = (1e-3, 0.7);
    let want = d * d / (8.0 * s * s) / std::f64::consts::LN_2;
    let got = jensen_shannon_bits(&g(0.0, s), &g(d, s));
    // Relative to the closed form: |got − want| ≤ 1e-4·|want|.
    assert_abs_diff_eq!(got, want, epsilon = 1e-4 * want.abs());
    // Very different scales stay finite and ≤ 1.
    let v = jensen_shannon_bits(&g(0.0, 1e-6), &g(0.0, 1e3));
    assert!(v.is_finite() && v > 0.99 && v <= 1.0);
}

#[test]
fn paper_text_jss_uses_eq9_with_bits() {
    // Equal σ: Δσ = 0, JSS = 100·(1 − JS).
    let (p, a) = (g(0.0, 1.0), g(1.0, 1.0));
    let js = jsd_bits_by_entropy((0.0, 1.0), (1.0, 1.0), -14.0, 15.0);
    assert_abs_diff_eq!(jss_paper(&p, &a), 100.0 * (1.0 - js), epsilon = 1e-7);
    // Δσ = 1: divided by 2.
    let (p, a) = (g(0.0, 1.0), g(0.0, 2.0));
    let js = jsd_bits_by_entropy((0.0, 1.0), (0.0, 2.0), -28.0, 28.0);
    assert_abs_diff_eq!(
        jss(&p, &a, JssVariant::PaperText),
        100.0 * (1.0 - js) / 2.0,
        epsilon = 1e-7
    );
    // Identical: 100.
    assert_eq!(jss_paper(&p, &p), 100.0);
}

#[test]
fn degenerate_gaussians_never_nan() {
    let zero = g(-1.0, 0.0);
    let zero2 = g(-2.0, 0.0);
    let one = g(-1.0, 0.5);
    for (p, a) in [
        (zero, one),
        (one, zero),
        (zero, zero),
        (zero, zero2),
        (one, one),
    ] {
        for v in [
            kls(&p, &a),
            jss_authors(&p, &a),
            jss_paper(&p, &a),
            jensen_shannon_bits(&p, &a),
        ] {
            assert!(v.is_finite(), "{p:?} {a:?}");
        }
    }
    assert_eq!(kls(&zero, &one), 100.0);
    assert_eq!(kls(&zero, &zero2), 50.0);
    assert_eq!(kls(&one, &one), 50.0);
    // Authors' JSS, one σ = 0: J' → 0, C = 0.5 → 100/1.5.
    assert_abs_diff_eq!(jss_authors(&zero, &one), 100.0 / 1.5, epsilon = 1e-12);
    // ... and that is the limit of the formula as σ → 0, approached slowly (J grows like
    // ln(1/σ)/2, so 1 − J' = 1 − 1/J): increasing towards 100/1.5 from below.
    let mut prev = 0.0;
    for s in [1e-3, 1e-9, 1e-50, 1e-300] {
        let v = jss_authors(&g(-1.0, s), &one);
        assert!(v > prev && v < 100.0 / 1.5);
        prev = v;
    }
    assert!(100.0 / 1.5 - prev < 0.2);
    assert_eq!(jss_authors(&zero, &zero2), 100.0);
    assert_eq!(jensen_shannon_bits(&zero, &one), 1.0);
    assert_eq!(jensen_shannon_bits(&zero, &zero2), 1.0);
    assert_eq!(jensen_shannon_bits(&zero, &zero), 0.0);
}
