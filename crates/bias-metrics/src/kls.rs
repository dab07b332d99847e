//! KLS, the Kullback–Leibler divergence score (liu2024 Eq. 6).

use bias_core::{BiasMeasure, Measurement, ScoreTable};

use crate::distribution::{measure_distribution, DistributionOptions};
use crate::gaussian::Gaussian;
use crate::MetricsError;

/// KLS of two Gaussians (liu2024 Eq. 6):
///
/// `KLS(P_st, P_at) = 100 · max(KL(P_st‖P_at), KL(P_at‖P_st)) / (KL(P_st‖P_at) + KL(P_at‖P_st))`,
///
/// with the closed-form KL in nats ([`Gaussian::kl_divergence`]). The value lies in
/// `[50, 100]`; 50 means no bias. It is symmetric in its arguments, and exactly 50 whenever
/// `σ_st = σ_at` (both KLs then equal `(μ_st − μ_at)²/(2σ²)`), whatever the shift of the means.
///
/// Degenerate input, never NaN:
/// - identical distributions (both KLs 0, the ratio 0/0): **50** (no bias), by definition of
///   this crate;
/// - exactly one standard deviation 0: both KLs are infinite; the value is the limit as that
///   σ → 0, **100** (the KL towards the point mass grows like `1/σ²`, the other like `ln(1/σ)`);
/// - both standard deviations 0 with different means: **50**, the value for equal σ at any
///   shift (the limit along `σ_st = σ_at → 0`).
///
/// # Errors
/// None: the function is total on valid [`Gaussian`]s.
pub fn kls(p_st: &Gaussian, p_at: &Gaussian) -> f64 {
    if p_st.std == 0.0 || p_at.std == 0.0 {
        return if p_st.std == 0.0 && p_at.std == 0.0 {
            50.0
        } else {
            100.0
        };
    }
    let a = p_st.kl_divergence(p_at);
    let b = p_at.kl_divergence(p_st);
    let sum = a + b;
    if sum == 0.0 {
        return 50.0;
    }
    if !sum.is_finite() {
        // Overflow of the closed form for extreme parameter ratios: the larger side dominates.
        return if a == b { 50.0 } else { 100.0 };
    }
    (100.0 * a.max(b) / sum).clamp(50.0, 100.0)
}

/// The KLS bias measure (liu2024 Eqs. 6 and 10): Gaussians fitted to the stereotypical and the
/// anti-stereotypical scores (ddof = 1), KLS within each bias type, and by default the weighted
/// sum `Σ_k (n_k/N)·KLS_k` as the overall value (the paper's choice; [`DistributionOptions`]
/// offers the pooled fit instead, and the authors' 2-decimal rounding). `no_bias` = 50.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Kls {
    /// Aggregation, rounding and small-type policy.
    pub options: DistributionOptions,
}

impl Kls {
    /// KLS with the given options.
    ///
    /// # Errors
    /// None.
    pub fn new(options: DistributionOptions) -> Self {
        Kls { options }
    }
}

impl BiasMeasure for Kls {
    type Error = MetricsError;

    fn name(&self) -> &str {
        "kls"
    }

    /// # Errors
    /// [`MetricsError::Empty`] for an empty table; [`MetricsError::TooFew`] for a bias type with
    /// a single pair (unless [`crate::SmallTypePolicy::Skip`]);
    /// [`MetricsError::InvalidParameter`] for a non-finite score.
    fn measure(&self, table: &ScoreTable) -> Result<Measurement, MetricsError> {
        measure_distribution(table, "kls", 50.0, &self.options, kls)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::abs_diff_eq;

    fn g(m: f64, s: f64) -> Gaussian {
        Gaussian::new(m, s).unwrap()
    }

    #[test]
    fn reference_vectors() {
        // Test vectors of Liu et al. (2024), computed with the authors' closed form in f64.
        let cases = [
            ((-2.0, 0.8, -2.1, 0.85), 52.691831),
            ((-2.0, 0.5, -3.0, 0.5), 50.0),
            ((-2.0, 0.5, -4.0, 0.5), 50.0),
            ((0.0, 1.0, 0.0, 3.5), 84.637872),
        ];
        for ((mp, sp, ma, sa), want) in cases {
            let v = kls(&g(mp, sp), &g(ma, sa));
            assert!(abs_diff_eq!(v, want, epsilon = 1e-6), "{v} vs {want}");
        }
    }

    #[test]
    fn degenerate_values() {
        assert_eq!(kls(&g(1.0, 2.0), &g(1.0, 2.0)), 50.0);
        assert_eq!(kls(&g(1.0, 0.0), &g(1.0, 2.0)), 100.0);
        assert_eq!(kls(&g(1.0, 2.0), &g(3.0, 0.0)), 100.0);
        assert_eq!(kls(&g(1.0, 0.0), &g(3.0, 0.0)), 50.0);
        assert_eq!(kls(&g(1.0, 0.0), &g(1.0, 0.0)), 50.0);
        // The limit claimed for one σ → 0: KLS(σ_st = 1e-6) is already within 1e-6 of 100.
        assert!(100.0 - kls(&g(0.0, 1e-6), &g(0.0, 1.0)) < 1e-6);
    }
}
