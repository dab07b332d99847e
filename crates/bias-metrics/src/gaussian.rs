//! Gaussian fit of a score set and the closed-form KL divergence of two Gaussians.
//!
//! liu2024 (Eqs. 3–4) represents the stereotypical and the anti-stereotypical PLL scores as
//! `P_st ~ N(μ_st, σ_st²)` and `P_at ~ N(μ_at, σ_at²)`, with the sample mean and the sample
//! standard deviation (**ddof = 1**, as the authors' code). Everything is computed in `f64`.

use serde::{Deserialize, Serialize};

use crate::MetricsError;

/// A univariate normal distribution `N(mean, std²)`, `std ≥ 0`.
///
/// `std = 0` (a point mass at `mean`) is allowed: it is what a score set whose values are all
/// equal fits to, and every measure of this crate gives it a documented value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Gaussian {
    /// The mean μ.
    pub mean: f64,
    /// The standard deviation σ (≥ 0).
    pub std: f64,
}

impl Gaussian {
    /// `N(mean, std²)`.
    ///
    /// # Errors
    /// [`MetricsError::InvalidParameter`] when `mean` is not finite or `std` is negative or not
    /// finite.
    pub fn new(mean: f64, std: f64) -> Result<Self, MetricsError> {
        if !mean.is_finite() {
            return Err(invalid("mean", mean, "a finite number"));
        }
        if !(std.is_finite() && std >= 0.0) {
            return Err(invalid("std", std, "a finite number ≥ 0"));
        }
        Ok(Gaussian { mean, std })
    }

    /// Fits `N(μ, σ²)` to `values` (liu2024 Eqs. 3–4): `μ = Σx/n`,
    /// `σ = sqrt(Σ(x − μ)² / (n − 1))` (sample standard deviation, ddof = 1, as the authors'
    /// code). The mean is computed with a second, corrective pass (`μ += Σ(x − μ)/n`) so that
    /// constant inputs give exactly `σ = 0`.
    ///
    /// # Errors
    /// [`MetricsError::TooFew`] for fewer than 2 values (ddof = 1 leaves the standard deviation
    /// undefined for one value); [`MetricsError::InvalidParameter`] when a value is not finite or
    /// the sums overflow.
    pub fn fit(values: &[f64]) -> Result<Self, MetricsError> {
        if values.len() < 2 {
            return Err(MetricsError::TooFew {
                what: "Gaussian fit (standard deviation with ddof = 1)".to_owned(),
                needed: 2,
                got: values.len(),
            });
        }
        if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
            return Err(invalid("score", *bad, "a finite number"));
        }
        let n = values.len() as f64;
        let mut mean = values.iter().sum::<f64>() / n;
        mean += values.iter().map(|v| v - mean).sum::<f64>() / n;
        let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        let std = (ss / (n - 1.0)).sqrt();
        Gaussian::new(mean, std)
    }

    /// Natural logarithm of the density at `x`; `−∞` off the point mass when `std = 0`, `+∞` on
    /// it.
    pub fn ln_pdf(&self, x: f64) -> f64 {
        if self.std == 0.0 {
            return if x == self.mean {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
        }
        let z = (x - self.mean) / self.std;
        -0.5 * z * z - self.std.ln() - 0.5 * (2.0 * std::f64::consts::PI).ln()
    }

    /// `KL(self ‖ other)` in nats, closed form (liu2024 Eq. 5 for two Gaussians):
    ///
    /// `KL(N(m1,s1) ‖ N(m2,s2)) = ln(s2/s1) + (s1² + (m1 − m2)²)/(2·s2²) − 1/2`.
    ///
    /// Degenerate standard deviations get the value of the divergence of the measures, never
    /// NaN: `+∞` when exactly one side is a point mass (the two are mutually singular), and for
    /// two point masses `0` at equal means and `+∞` otherwise. The result is clamped at 0 from
    /// below (rounding can produce `−1e−17` for equal parameters).
    pub fn kl_divergence(&self, other: &Gaussian) -> f64 {
        let (m1, s1, m2, s2) = (self.mean, self.std, other.mean, other.std);
        if s1 == 0.0 || s2 == 0.0 {
            return if s1 == 0.0 && s2 == 0.0 && m1 == m2 {
                0.0
            } else {
                f64::INFINITY
            };
        }
        let d = m1 - m2;
        let kl = (s2 / s1).ln() + (s1 * s1 + d * d) / (2.0 * s2 * s2) - 0.5;
        if kl.is_nan() {
            // Only reachable through overflow of s1² or d² (ratios beyond 1e154).
            f64::INFINITY
        } else {
            kl.max(0.0)
        }
    }
}

pub(crate) fn invalid(name: &str, value: f64, expected: &str) -> MetricsError {
    MetricsError::InvalidParameter {
        name: name.to_owned(),
        value: value.to_string(),
        expected: expected.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn fit_uses_ddof_one() {
        // values 1, 2, 3, 4: mean 2.5, Σ(x−μ)² = 2.25+0.25+0.25+2.25 = 5, /3 → σ = sqrt(5/3).
        let g = Gaussian::fit(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_abs_diff_eq!(g.mean, 2.5, epsilon = 1e-15);
        assert_abs_diff_eq!(g.std, (5.0f64 / 3.0).sqrt(), epsilon = 1e-15);
    }

    #[test]
    fn fit_degenerate_inputs() {
        assert!(matches!(
            Gaussian::fit(&[1.0]),
            Err(MetricsError::TooFew {
                needed: 2,
                got: 1,
                ..
            })
        ));
        assert!(matches!(
            Gaussian::fit(&[]),
            Err(MetricsError::TooFew { got: 0, .. })
        ));
        assert!(Gaussian::fit(&[1.0, f64::NAN]).is_err());
        let c = Gaussian::fit(&[0.1, 0.1, 0.1]).unwrap();
        assert_eq!(c.std, 0.0);
        assert_eq!(c.mean, 0.1);
    }

    #[test]
    fn kl_closed_form_by_hand() {
        // KL(N(0,1) ‖ N(1,2)) = ln 2 + (1 + 1)/(2·4) − 1/2 = ln 2 − 0.25.
        let p = Gaussian::new(0.0, 1.0).unwrap();
        let q = Gaussian::new(1.0, 2.0).unwrap();
        assert_abs_diff_eq!(p.kl_divergence(&q), 2f64.ln() - 0.25, epsilon = 1e-15);
        assert_eq!(p.kl_divergence(&p), 0.0);
    }

    #[test]
    fn kl_degenerate_is_never_nan() {
        let p = Gaussian::new(0.0, 0.0).unwrap();
        let q = Gaussian::new(0.0, 1.0).unwrap();
        let r = Gaussian::new(1.0, 0.0).unwrap();
        assert_eq!(p.kl_divergence(&q), f64::INFINITY);
        assert_eq!(q.kl_divergence(&p), f64::INFINITY);
        assert_eq!(p.kl_divergence(&p), 0.0);
        assert_eq!(p.kl_divergence(&r), f64::INFINITY);
        assert!(Gaussian::new(0.0, -1.0).is_err());
        assert!(Gaussian::new(f64::INFINITY, 1.0).is_err());
    }
}
