//! The Shapiro–Wilk test of normality, after Royston's algorithm AS R94.

use statrs::distribution::{ContinuousCDF, Normal};
use statrs::function::erf::erfc;

use super::validate;
use crate::MetricsError;

/// Result of [`shapiro_wilk`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapiroWilk {
    /// The statistic W in (0, 1]; values near 1 are compatible with normality.
    pub w: f64,
    /// Probability, under normality, of a W at most as large as the one observed.
    pub p_value: f64,
}

/// Smallest sample the test accepts.
const MIN_N: usize = 3;
/// Largest sample for which Royston's p-value approximation is calibrated.
const MAX_N: usize = 5000;

// Polynomial coefficients of AS R94 (lowest order first).
const C1: [f64; 6] = [0.0, 0.221157, -0.147981, -2.071190, 4.434685, -2.706056];
const C2: [f64; 6] = [0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633];
const C3: [f64; 4] = [0.5440, -0.39978, 0.025054, -6.714e-4];
const C4: [f64; 4] = [1.3822, -0.77857, 0.062767, -0.0020322];
const C5: [f64; 4] = [-1.5861, -0.31082, -0.083751, 0.0038915];
const C6: [f64; 3] = [-0.4803, -0.082676, 0.0030302];
const G: [f64; 2] = [-2.273, 0.459];

/// `c[0] + c[1] x + c[2] x² + …` by Horner's rule.
fn poly(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ci| acc * x + ci)
}

/// Upper tail of the standard normal at `z`.
fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The `n / 2` Shapiro–Wilk coefficients a_1 ≥ a_2 ≥ … > 0 of the largest order statistics.
fn coefficients(n: usize) -> Vec<f64> {
    let half = n / 2;
    if n == 3 {
        return vec![std::f64::consts::FRAC_1_SQRT_2];
    }
    let std_normal = Normal::standard();
    let an = n as f64;
    let an25 = an + 0.25;
    // Blom-type approximation to the expected normal order statistics (negative here).
    let m: Vec<f64> = (1..=half)
        .map(|i| std_normal.inverse_cdf((i as f64 - 0.375) / an25))
        .collect();
    let summ2 = 2.0 * m.iter().map(|v| v * v).sum::<f64>();
    let ssumm2 = summ2.sqrt();
    let rsn = 1.0 / an.sqrt();
    let a1 = poly(&C1, rsn) - m[0] / ssumm2;
    let mut a = vec![0.0; half];
    a[0] = a1;
    let (first_plain, fac) = if n > 5 {
        let a2 = -m[1] / ssumm2 + poly(&C2, rsn);
        a[1] = a2;
        let num = summ2 - 2.0 * m[0] * m[0] - 2.0 * m[1] * m[1];
        let den = 1.0 - 2.0 * a1 * a1 - 2.0 * a2 * a2;
        (2, (num / den).sqrt())
    } else {
        (
            1,
            ((summ2 - 2.0 * m[0] * m[0]) / (1.0 - 2.0 * a1 * a1)).sqrt(),
        )
    };
    for i in first_plain..half {
        a[i] = -m[i] / fac;
    }
    a
}

/// Shapiro–Wilk W statistic and p-value of the sample `x`.
///
/// With `x₍₁₎ ≤ … ≤ x₍ₙ₎` the ordered sample and `a` the antisymmetric coefficient vector,
///
/// ```text
/// W = (Σ aᵢ x₍ᵢ₎)² / Σ (xᵢ − x̄)²
/// ```
///
/// computed, as in AS R94, as the squared correlation of `a` with the ordered sample so that
/// `1 − W` keeps its precision when W is close to 1. The coefficients are Royston's polynomial
/// approximations built on the normal scores `Φ⁻¹((i − 3/8) / (n + 1/4))`. The p-value is
///
/// * n = 3: exact, `p = (6/π) (asin √W − π/3)` (clipped at 0);
/// * 4 ≤ n ≤ 11: with γ = −2.273 + 0.459 n, `p = Φᶜ((−ln(γ − ln(1 − W)) − μ) / σ)`,
///   μ, ln σ cubic polynomials in n (p = 1e-99 when ln(1 − W) ≥ γ, as R does);
/// * n ≥ 12: `p = Φᶜ((ln(1 − W) − μ) / σ)`, μ cubic and ln σ quadratic in ln n.
///
/// This follows `scipy.stats.shapiro` (which wraps the same algorithm) for complete samples.
///
/// References: J. P. Royston (1995), "Remark AS R94: A remark on algorithm AS 181: The W-test for
/// normality", *Applied Statistics* 44(4), 547–551; J. P. Royston (1992), "Approximating the
/// Shapiro–Wilk W-test for non-normality", *Statistics and Computing* 2, 117–119.
///
/// # Errors
///
/// * [`MetricsError::TooFew`] if `x` has fewer than 3 values;
/// * [`MetricsError::InvalidParameter`] if it has more than 5000 (the p-value approximation is
///   not calibrated there), holds a NaN or infinite value, or all its values are equal.
pub fn shapiro_wilk(x: &[f64]) -> Result<ShapiroWilk, MetricsError> {
    let n = x.len();
    validate::at_least("shapiro_wilk: x", MIN_N, n)?;
    if n > MAX_N {
        return Err(MetricsError::InvalidParameter {
            name: "shapiro_wilk: x.len()".to_owned(),
            value: n.to_string(),
            expected: format!("at most {MAX_N} observations"),
        });
    }
    validate::finite("shapiro_wilk: x", x)?;
    validate::not_constant("shapiro_wilk: x", x)?;

    let mut sorted = x.to_vec();
    sorted.sort_by(f64::total_cmp);
    // Centre on a middle value first (as scipy does) to keep the scaled values small.
    let centre = sorted[n / 2];
    for v in &mut sorted {
        *v -= centre;
    }
    let range = sorted[n - 1] - sorted[0];
    if !range.is_finite() {
        return Err(MetricsError::InvalidParameter {
            name: "Shapiro-Wilk: x".to_owned(),
            value: format!("range {range}"),
            expected: "values whose range is a finite f64 (rescale values near ±1e308)".to_owned(),
        });
    }

    let a = coefficients(n);
    let half = n / 2;
    // Full antisymmetric coefficient vector matched to the ascending order statistics.
    let mut full = vec![0.0; n];
    for (i, &ai) in a.iter().enumerate() {
        full[i] = -ai;
        full[n - 1 - i] = ai;
    }
    debug_assert!(n.is_multiple_of(2) || full[half] == 0.0);

    let nf = n as f64;
    let mean_a = full.iter().sum::<f64>() / nf;
    let scaled: Vec<f64> = sorted.iter().map(|v| v / range).collect();
    let mean_x = scaled.iter().sum::<f64>() / nf;
    let (mut ssa, mut ssx, mut sax) = (0.0, 0.0, 0.0);
    for (&ai, &xi) in full.iter().zip(&scaled) {
        let da = ai - mean_a;
        let dx = xi - mean_x;
        ssa += da * da;
        ssx += dx * dx;
        sax += da * dx;
    }
    let ssassx = (ssa * ssx).sqrt();
    // 1 − W, the squared sine of the angle between the two vectors.
    let one_minus_w = ((ssassx - sax) * (ssassx + sax) / (ssa * ssx)).max(0.0);
    let w = 1.0 - one_minus_w;

    let p_value = if n == 3 {
        let pi = std::f64::consts::PI;
        ((6.0 / pi) * (w.sqrt().min(1.0).asin() - pi / 3.0)).clamp(0.0, 1.0)
    } else {
        let y = one_minus_w.ln();
        if n <= 11 {
            let gamma = poly(&G, nf);
            if y >= gamma {
                1e-99
            } else {
                let y = -(gamma - y).ln();
                let m = poly(&C3, nf);
                let s = poly(&C4, nf).exp();
                normal_sf((y - m) / s)
            }
        } else {
            let ln_n = nf.ln();
            let m = poly(&C5, ln_n);
            let s = poly(&C6, ln_n).exp();
            normal_sf((y - m) / s)
        }
    };
    Ok(ShapiroWilk { w, p_value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::abs_diff_eq;
    use approx::assert_abs_diff_eq;

    #[test]
    fn coefficients_are_normalised() {
        // Σ aᵢ² over the full antisymmetric vector is 1 by construction (Royston 1992).
        for n in [4, 5, 6, 11, 12, 50, 5000] {
            let s: f64 = coefficients(n).iter().map(|a| 2.0 * a * a).sum();
            assert!(abs_diff_eq!(s, 1.0, epsilon = 1e-12), "n = {n}: Σa² = {s}");
        }
    }

    #[test]
    fn too_few_too_many_constant() {
        assert!(matches!(
            shapiro_wilk(&[1.0, 2.0]),
            Err(MetricsError::TooFew {
                needed: 3,
                got: 2,
                ..
            })
        ));
        assert!(matches!(
            shapiro_wilk(&vec![0.5; 5001]),
            Err(MetricsError::InvalidParameter { .. })
        ));
        assert!(matches!(
            shapiro_wilk(&[2.0, 2.0, 2.0, 2.0]),
            Err(MetricsError::InvalidParameter { .. })
        ));
    }

    #[test]
    fn overflowing_range_is_an_error_not_nan() {
        assert!(matches!(
            shapiro_wilk(&[-1.5e308, 0.0, 1.0, 1.5e308]),
            Err(MetricsError::InvalidParameter { .. })
        ));
    }

    #[test]
    fn n3_bounds() {
        // Equally spaced: W = 1, p = 1 exactly.
        let r = shapiro_wilk(&[1.0, 2.0, 3.0]).unwrap();
        assert_abs_diff_eq!(r.w, 1.0, epsilon = 1e-15);
        assert_abs_diff_eq!(r.p_value, 1.0, epsilon = 1e-12);
    }
}
