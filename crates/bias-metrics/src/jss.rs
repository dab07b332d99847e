//! JSS, the Jensen–Shannon divergence score (liu2024 Eqs. 7–9), in the two readings that exist:
//! the authors' code (which produced the published numbers) and the paper's text.

use std::f64::consts::LN_2;

use bias_core::{BiasMeasure, Measurement, ScoreTable};
use serde::{Deserialize, Serialize};

use crate::distribution::{measure_distribution, DistributionOptions};
use crate::gaussian::Gaussian;
use crate::MetricsError;

bias_core::choice! {
    /// Which computation of JSS.
    #[derive(Default, Serialize, Deserialize)]
    pub enum JssVariant: "JSS variant" {
        /// The authors' code (default; it produced the paper's numbers), [`jss_authors`]: the
        /// mixture `(P+A)/2` is replaced by the single Gaussian
        /// `M = N((μ_st+μ_at)/2, sqrt((σ_st²+σ_at²)/2))`, the divergence is in nats and folded
        /// (`J' = J` if `J ≤ 1` else `1/J`), and so is `Δσ`.
        #[default]
        AuthorsCode = "authors" =>
            "The authors' closed form (default; produced the published numbers)",
        /// The paper's text, [`jss_paper`]: Eq. 9 with the true Jensen–Shannon divergence of the
        /// two Gaussians against their mixture, in bits ([`jensen_shannon_bits`], in `[0, 1]`), and
        /// the unfolded `Δσ = |σ_st − σ_at|`.
        PaperText = "paper" => "The paper's text: the true Jensen–Shannon divergence in bits",
    }
}

/// JSS as the authors' code computes it (liu2024):
///
/// - `M = N((μ_st+μ_at)/2, sqrt((σ_st²+σ_at²)/2))` (a Gaussian, not the mixture);
/// - `J = (KL(P_st‖M) + KL(P_at‖M))/2` in nats (closed-form KL); `J' = J` if `J ≤ 1` else `1/J`;
/// - `C = |σ_st − σ_at|`; `C' = C` if `C ≤ 1` else `1/C`;
/// - `JSS = 100 · (1 − J') / (1 + C')`.
///
/// Value in `[0, 100]`, 100 = no bias. The folding is not monotone: `J = 0.5` and `J = 2` give the
/// same score (see the test vectors `(−2, .5, −3, .5)` and `(−2, .5, −4, .5)`, both 50).
///
/// Degenerate input, never NaN: when a standard deviation is 0 and the distributions differ,
/// `J = +∞`, and the value is the formula's limit `J' = 1/J → 0`, i.e. `100/(1 + C')` (the
/// folding makes an infinite divergence look like none: a property of the authors' formula,
/// kept for fidelity). Identical distributions (σ = 0 included) give `J = 0`, `C = 0`: 100.
///
/// # Errors
/// None: the function is total on valid [`Gaussian`]s.
pub fn jss_authors(p_st: &Gaussian, p_at: &Gaussian) -> f64 {
    let m = Gaussian {
        mean: 0.5 * (p_st.mean + p_at.mean),
        std: (0.5 * (p_st.std * p_st.std + p_at.std * p_at.std)).sqrt(),
    };
    let j = 0.5 * (p_st.kl_divergence(&m) + p_at.kl_divergence(&m));
    let j = if j <= 1.0 { j } else { 1.0 / j };
    let c = (p_st.std - p_at.std).abs();
    let c = if c <= 1.0 { c } else { 1.0 / c };
    (100.0 * (1.0 - j) / (1.0 + c)).clamp(0.0, 100.0)
}

/// JSS as the paper's text defines it (liu2024 Eqs. 8–9), this crate's mapping:
///
/// `JSS = 100 · (1 − JS(P_st‖P_at)) / (1 + Δσ)`, `Δσ = |σ_st − σ_at|`,
///
/// with `JS` the true Jensen–Shannon divergence **in bits** ([`jensen_shannon_bits`], in
/// `[0, 1]`, as the paper states), so the value lies in `[0, 100]` with 100 = no bias, like the
/// authors' variant. `Δσ` is used as written in Eq. 9, without the authors' folding.
///
/// Degenerate input: exact, since the JSD of measures is defined for point masses (see
/// [`jensen_shannon_bits`]): one σ = 0 gives `JS = 1` and the value 0; two equal point masses 100;
/// two different point masses 0.
///
/// # Errors
/// None: the function is total on valid [`Gaussian`]s.
pub fn jss_paper(p_st: &Gaussian, p_at: &Gaussian) -> f64 {
    let js = jensen_shannon_bits(p_st, p_at);
    let ds = (p_st.std - p_at.std).abs();
    (100.0 * (1.0 - js) / (1.0 + ds)).clamp(0.0, 100.0)
}

/// JSS of two Gaussians in the chosen variant ([`jss_authors`] or [`jss_paper`]).
///
/// # Errors
/// None.
pub fn jss(p_st: &Gaussian, p_at: &Gaussian, variant: JssVariant) -> f64 {
    match variant {
        JssVariant::AuthorsCode => jss_authors(p_st, p_at),
        JssVariant::PaperText => jss_paper(p_st, p_at),
    }
}

/// The Jensen–Shannon divergence of two Gaussians, in bits (liu2024 Eqs. 7–8 with `M = (P+A)/2`,
/// the mixture):
///
/// `JS(P‖A) = ½ ∫ p log₂(p/m) dx + ½ ∫ a log₂(a/m) dx`, `m = (p + a)/2`,
///
/// in `[0, 1]`; 0 iff `P = A`. It has no closed form and is integrated numerically:
///
/// - the integrand is evaluated in log space (`ln m = ln ½ + logsumexp(ln p, ln a)`), so tails
///   neither underflow to `0·ln 0` nor lose precision;
/// - the range `[min(μ − 12σ), max(μ + 12σ)]` over both Gaussians (outside it each density has
///   mass below `2·10⁻³²`) is cut at `μ + kσ`, `k = −12…12`, of both, so every piece is at most
///   one standard deviation of each density it carries;
/// - each piece is integrated by adaptive Gauss–Kronrod (7–15 points, QUADPACK's `qk15`
///   nodes), bisecting until `|K15 − G7| ≤ 1e−13` per piece (depth ≤ 40).
///
/// The result is accurate to about `1e−12` absolute and is clamped to `[0, 1]` (rounding can
/// otherwise give `−1e−16` for identical inputs).
///
/// Point masses (σ = 0) are handled exactly, not by limits: one point mass against a continuous
/// density, or two point masses at different means, are mutually singular (`JS = 1`); two point
/// masses at the same mean are identical (`JS = 0`).
///
/// # Errors
/// None: the function is total on valid [`Gaussian`]s.
pub fn jensen_shannon_bits(p: &Gaussian, a: &Gaussian) -> f64 {
    if p.std == 0.0 || a.std == 0.0 {
        return if p.std == 0.0 && a.std == 0.0 && p.mean == a.mean {
            0.0
        } else {
            1.0
        };
    }
    if p == a {
        return 0.0;
    }
    let mut cuts: Vec<f64> = Vec::with_capacity(50);
    for g in [p, a] {
        for k in -12..=12 {
            cuts.push(g.mean + f64::from(k) * g.std);
        }
    }
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    let integrand = |x: f64| {
        let lp = p.ln_pdf(x);
        let la = a.ln_pdf(x);
        let hi = lp.max(la);
        if hi == f64::NEG_INFINITY {
            return 0.0;
        }
        let lm = -LN_2 + hi + ((lp - hi).exp() + (la - hi).exp()).ln();
        0.5 * (lp.exp() * (lp - lm) + la.exp() * (la - lm))
    };
    let nats: f64 = cuts
        .windows(2)
        .map(|w| adaptive_gk15(&integrand, w[0], w[1], 1e-13, 40))
        .sum();
    (nats / LN_2).clamp(0.0, 1.0)
}

/// Kronrod nodes (abscissae ≥ 0) of QUADPACK's 15-point rule; odd indices are the Gauss nodes.
const XGK: [f64; 8] = [
    0.991_455_371_120_812_6,
    0.949_107_912_342_758_5,
    0.864_864_423_359_769_1,
    0.741_531_185_599_394_4,
    0.586_087_235_467_691_1,
    0.405_845_151_377_397_2,
    0.207_784_955_007_898_5,
    0.0,
];
/// Kronrod weights.
const WGK: [f64; 8] = [
    0.022_935_322_010_529_22,
    0.063_092_092_629_978_55,
    0.104_790_010_322_250_18,
    0.140_653_259_715_525_92,
    0.169_004_726_639_267_9,
    0.190_350_578_064_785_4,
    0.204_432_940_075_298_9,
    0.209_482_141_084_727_83,
];
/// Gauss weights of the 7-point rule, for nodes XGK[1], XGK[3], XGK[5], XGK[7].
const WG: [f64; 4] = [
    0.129_484_966_168_869_7,
    0.279_705_391_489_276_7,
    0.381_830_050_505_118_9,
    0.417_959_183_673_469_4,
];

/// (K15, G7) estimates of `∫_a^b f`.
fn gk15(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let c = 0.5 * (a + b);
    let h = 0.5 * (b - a);
    let fc = f(c);
    let mut k = WGK[7] * fc;
    let mut g = WG[3] * fc;
    for i in 0..7 {
        let dx = h * XGK[i];
        let s = f(c - dx) + f(c + dx);
        k += WGK[i] * s;
        if i % 2 == 1 {
            g += WG[i / 2] * s;
        }
    }
    (k * h, g * h)
}

/// Adaptive Gauss–Kronrod: bisects until `|K15 − G7| ≤ tol` (tolerance halved per level).
pub(crate) fn adaptive_gk15(f: &impl Fn(f64) -> f64, a: f64, b: f64, tol: f64, depth: u32) -> f64 {
    let (k, g) = gk15(f, a, b);
    if (k - g).abs() <= tol || depth == 0 || !(b - a).is_normal() {
        return k;
    }
    let m = 0.5 * (a + b);
    adaptive_gk15(f, a, m, 0.5 * tol, depth - 1) + adaptive_gk15(f, m, b, 0.5 * tol, depth - 1)
}

/// The JSS bias measure (liu2024 Eqs. 9 and 11): Gaussians fitted to the stereotypical and the
/// anti-stereotypical scores (ddof = 1), JSS within each bias type in the chosen
/// [`JssVariant`], and by default the weighted sum `Σ_k (n_k/N)·JSS_k` as the overall value (the
/// paper's choice; [`DistributionOptions`] offers the pooled fit and the authors' rounding).
/// `no_bias` = 100. Its name is `jss` for [`JssVariant::AuthorsCode`] and `jss-paper` for
/// [`JssVariant::PaperText`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Jss {
    /// Which JSS.
    pub variant: JssVariant,
    /// Aggregation, rounding and small-type policy.
    pub options: DistributionOptions,
}

impl Jss {
    /// JSS in `variant` with `options`.
    ///
    /// # Errors
    /// None.
    pub fn new(variant: JssVariant, options: DistributionOptions) -> Self {
        Jss { variant, options }
    }
}

impl BiasMeasure for Jss {
    type Error = MetricsError;

    fn name(&self) -> &str {
        match self.variant {
            JssVariant::AuthorsCode => "jss",
            JssVariant::PaperText => "jss-paper",
        }
    }

    /// # Errors
    /// [`MetricsError::Empty`] for an empty table; [`MetricsError::TooFew`] for a bias type with
    /// a single pair (unless [`crate::SmallTypePolicy::Skip`]);
    /// [`MetricsError::InvalidParameter`] for a non-finite score.
    fn measure(&self, table: &ScoreTable) -> Result<Measurement, MetricsError> {
        let variant = self.variant;
        measure_distribution(table, self.name(), 100.0, &self.options, |p, a| {
            jss(p, a, variant)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::{abs_diff_eq, assert_abs_diff_eq};

    fn g(m: f64, s: f64) -> Gaussian {
        Gaussian::new(m, s).unwrap()
    }

    #[test]
    fn reference_vectors_authors() {
        let cases = [
            ((-2.0, 0.8, -2.1, 0.85), 94.975892),
            ((-2.0, 0.5, -3.0, 0.5), 50.0),
            ((-2.0, 0.5, -4.0, 0.5), 50.0),
            ((0.0, 1.0, 0.0, 3.5), 48.639736),
        ];
        for ((mp, sp, ma, sa), want) in cases {
            let v = jss_authors(&g(mp, sp), &g(ma, sa));
            assert!(abs_diff_eq!(v, want, epsilon = 1e-6), "{v} vs {want}");
        }
    }

    #[test]
    fn kronrod_rule_integrates_polynomials_and_a_density() {
        // K15 is exact for degree ≤ 22, G7 for degree ≤ 13: ∫_0^1 x^12 = 1/13.
        let (k, gg) = gk15(&|x: f64| x.powi(12), 0.0, 1.0);
        assert_abs_diff_eq!(k, 1.0 / 13.0, epsilon = 1e-15);
        assert_abs_diff_eq!(gg, 1.0 / 13.0, epsilon = 1e-15);
        // Weight sums: Σ over all 15 Kronrod nodes = 2, over the 7 Gauss nodes = 2.
        let ks: f64 = 2.0 * WGK[..7].iter().sum::<f64>() + WGK[7];
        let gs: f64 = 2.0 * WG[..3].iter().sum::<f64>() + WG[3];
        assert_abs_diff_eq!(ks, 2.0, epsilon = 1e-15);
        assert_abs_diff_eq!(gs, 2.0, epsilon = 1e-15);
        // A unit normal density over ±12σ integrates to 1 (1 − 2Φ(−12) = 1 − 3.6e-33).
        let n = g(0.3, 0.7);
        let total = adaptive_gk15(&|x| n.ln_pdf(x).exp(), 0.3 - 8.4, 0.3 + 8.4, 1e-14, 40);
        assert_abs_diff_eq!(total, 1.0, epsilon = 1e-13);
    }

    #[test]
    fn degenerate_values() {
        // One σ = 0: authors' limit 100/(1 + C').
        let v = jss_authors(&g(0.0, 0.0), &g(0.0, 0.5));
        assert_abs_diff_eq!(v, 100.0 / 1.5, epsilon = 1e-12);
        assert_eq!(jss_authors(&g(1.0, 0.0), &g(1.0, 0.0)), 100.0);
        assert_eq!(jss_authors(&g(1.0, 0.0), &g(2.0, 0.0)), 100.0);
        assert_eq!(jss_paper(&g(0.0, 0.0), &g(0.0, 0.5)), 0.0);
        assert_eq!(jss_paper(&g(1.0, 0.0), &g(1.0, 0.0)), 100.0);
        assert_eq!(jss_paper(&g(1.0, 0.0), &g(2.0, 0.0)), 0.0);
        assert_eq!(jensen_shannon_bits(&g(1.0, 0.3), &g(1.0, 0.3)), 0.0);
    }
}
