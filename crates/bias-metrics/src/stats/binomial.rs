//! The exact binomial (sign) test against ½, its power, and the smallest deviation from ½ that a
//! number of pairs can detect.
//!
//! An indicator measure (Kaneko & Bollegala 2022 Eq. 6; liu2024 Eq. 2) counts the pairs `k` of
//! `n` whose stereotypical sentence scores higher. A model without bias prefers either sentence
//! with probability ½, so `k ~ Binomial(n, ½)` under the null and the exact two-sided binomial
//! test is the test of the measure (Conover 1999, *Practical Nonparametric Statistics*, § 3.4,
//! the sign test).

use statrs::function::beta::beta_reg;

use crate::MetricsError;

/// `P(X ≤ k)` for `X ~ Binomial(n, p)`, as the regularized incomplete beta
/// `I_{1−p}(n − k, k + 1)` (1 for `k ≥ n`).
fn binomial_cdf(k: u64, n: u64, p: f64) -> f64 {
    if k >= n {
        return 1.0;
    }
    if p <= 0.0 {
        return 1.0;
    }
    if p >= 1.0 {
        return 0.0;
    }
    beta_reg((n - k) as f64, k as f64 + 1.0, 1.0 - p)
}

/// `P(X ≤ k)` for `X ~ Binomial(n, ½)` and `k < n/2`, as the sum `Σ_{i ≤ k} C(n, i) · 2⁻ⁿ`.
///
/// The binomial coefficients come from the recurrence `C(n, i) = C(n, i − 1) · (n − i + 1) / i`,
/// summed with a binary exponent carried aside (both scaled by 2⁻⁵⁰⁰ whenever the sum passes
/// 2⁵⁰⁰), so nothing overflows and the result is exact up to two roundings per term: far closer
/// to scipy's `binom.cdf` than the continued fraction of the incomplete beta, which drifts by
/// 1e-12 at CrowS-Pairs' 1,508 pairs. Only IEEE basic operations, so every CPU gives the same
/// bits.
fn half_binomial_lower_tail(k: u64, n: u64) -> f64 {
    const SCALE_EXP: i64 = 500;
    let scale = 2f64.powi(-(SCALE_EXP as i32));
    let (mut term, mut sum, mut exp) = (1.0f64, 1.0f64, 0i64);
    for i in 1..=k {
        term = term * (n - i + 1) as f64 / i as f64;
        sum += term;
        if sum > 1.0 / scale {
            term *= scale;
            sum *= scale;
            exp += SCALE_EXP;
        }
    }
    // P = sum · 2^(exp − n), applied in steps a power of two can take exactly.
    let mut shift = exp - n as i64;
    while shift < -SCALE_EXP {
        sum *= scale;
        shift += SCALE_EXP;
    }
    sum * 2f64.powi(shift as i32)
}

/// The exact two-sided binomial test of `k` successes in `n` trials against a success
/// probability of ½: the sign test.
///
/// The null distribution is symmetric, so the two-sided p-value (the probability of an outcome
/// at most as likely as `k`) is
///
/// ```text
/// p = min(1, 2 · P(Bin(n, ½) ≤ min(k, n − k)))
/// ```
///
/// and 1 when `n = 0`. Equals `scipy.stats.binomtest(k, n, 0.5, alternative="two-sided")`
/// (checked to 1e-12 against scipy in `fixtures/stats/significance.json`).
///
/// ```
/// use bias_metrics::stats::sign_test;
///
/// // 8 of 10 pairs prefer the stereotype: p = 2·P(X ≤ 2) = 2·56/1024.
/// assert!((sign_test(8, 10)? - 112.0 / 1024.0).abs() < 1e-13);
/// assert_eq!(sign_test(5, 10)?, 1.0);
/// # Ok::<(), bias_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::InvalidParameter`] when `k > n`.
pub fn sign_test(k: u64, n: u64) -> Result<f64, MetricsError> {
    if k > n {
        return Err(MetricsError::InvalidParameter {
            name: "sign_test: k".to_owned(),
            value: format!("{k} of {n}"),
            expected: "at most n successes".to_owned(),
        });
    }
    let low = k.min(n - k);
    if 2 * low == n {
        return Ok(1.0);
    }
    Ok((2.0 * half_binomial_lower_tail(low, n)).min(1.0))
}

/// The largest `c < n/2` whose two-sided sign-test p-value is at most `alpha`: the test at level
/// `alpha` rejects exactly when `k ≤ c` or `k ≥ n − c`. `None` when no outcome is that extreme
/// (`2 · 2⁻ⁿ > alpha`).
fn critical_count(n: u64, alpha: f64) -> Option<u64> {
    if n == 0 || 2.0 * binomial_cdf(0, n, 0.5) > alpha {
        return None;
    }
    // P(X ≤ c) grows with c: bisect for the largest c with 2·P(X ≤ c) ≤ alpha.
    let (mut lo, mut hi) = (0u64, n.div_ceil(2));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let rejects = 2 * mid < n && 2.0 * binomial_cdf(mid, n, 0.5) <= alpha;
        if rejects {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

/// The power of the two-sided sign test at level `alpha` with `n` pairs when each pair prefers
/// the stereotype with probability `p`: `P(K ≤ c) + P(K ≥ n − c)` for `K ~ Binomial(n, p)`, with
/// `c` the test's critical count (the exact power; no simulation). 0 when no outcome of `n`
/// pairs can reach `alpha`.
///
/// # Errors
/// [`MetricsError::InvalidParameter`] for `alpha` outside (0, 1) or `p` outside [0, 1].
pub fn sign_test_power(n: u64, alpha: f64, p: f64) -> Result<f64, MetricsError> {
    check_unit("sign_test_power: alpha", alpha, false)?;
    check_unit("sign_test_power: p", p, true)?;
    let Some(c) = critical_count(n, alpha) else {
        return Ok(0.0);
    };
    let lower = binomial_cdf(c, n, p);
    let upper = 1.0 - binomial_cdf(n - c - 1, n, p);
    Ok((lower + upper).min(1.0))
}

/// The smallest deviation from 50 %, in percentage points, that the two-sided sign test at level
/// `alpha` detects with probability `power` on `n` pairs: the `d` for which
/// [`sign_test_power`]`(n, alpha, ½ + d/100) = power` (found by bisection to 1e-10 in `p`; the
/// power rises with `d`). `None` when even a model that always prefers one side (`d = 50`) is
/// detected with a lower probability: `n` pairs cannot tell any bias from none at that level.
///
/// This is what a reader needs beside a "not significant": CrowS-Pairs' 60 disability pairs at
/// α = 0.05 detect only deviations of about 19 points or more with power 0.8.
///
/// ```
/// use bias_metrics::stats::detectable_deviation;
///
/// // Four pairs can never reach p ≤ 0.05 (the smallest two-sided p is 2/16).
/// assert_eq!(detectable_deviation(4, 0.05, 0.8)?, None);
/// let d = detectable_deviation(60, 0.05, 0.8)?.unwrap();
/// assert!(d > 19.0 && d < 19.3);
/// # Ok::<(), bias_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::InvalidParameter`] for `alpha` or `power` outside (0, 1).
pub fn detectable_deviation(n: u64, alpha: f64, power: f64) -> Result<Option<f64>, MetricsError> {
    check_unit("detectable_deviation: alpha", alpha, false)?;
    check_unit("detectable_deviation: power", power, false)?;
    if sign_test_power(n, alpha, 1.0)? < power {
        return Ok(None);
    }
    let (mut lo, mut hi) = (0.5f64, 1.0f64);
    while hi - lo > 1e-10 {
        let mid = 0.5 * (lo + hi);
        if sign_test_power(n, alpha, mid)? >= power {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(100.0 * (hi - 0.5)))
}

/// `value` in (0, 1), or in [0, 1] when `closed`.
fn check_unit(name: &str, value: f64, closed: bool) -> Result<(), MetricsError> {
    let ok = if closed {
        (0.0..=1.0).contains(&value)
    } else {
        value > 0.0 && value < 1.0
    };
    if ok {
        Ok(())
    } else {
        Err(MetricsError::InvalidParameter {
            name: name.to_owned(),
            value: value.to_string(),
            expected: if closed { "in [0, 1]" } else { "in (0, 1)" }.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand calculation: n = 10, P(X ≤ 1) = 11/1024, P(X ≤ 2) = 56/1024; at α = 0.05 the
    /// critical count is 1 (2·56/1024 = 0.109 > 0.05, 2·11/1024 = 0.0215 ≤ 0.05).
    #[test]
    fn hand_calculated_sign_test_and_power() {
        assert!((sign_test(2, 10).unwrap() - 112.0 / 1024.0).abs() < 1e-13);
        assert!((sign_test(9, 10).unwrap() - 22.0 / 1024.0).abs() < 1e-13);
        assert_eq!(sign_test(0, 0).unwrap(), 1.0);
        assert_eq!(critical_count(10, 0.05), Some(1));
        // Power at p = 0.9: P(K ≤ 1) + P(K ≥ 9) = (1e-10 + 90e-10) + (10·0.9⁹·0.1 + 0.9¹⁰).
        let want = 91e-10 + 10.0 * 0.9f64.powi(9) * 0.1 + 0.9f64.powi(10);
        assert!((sign_test_power(10, 0.05, 0.9).unwrap() - want).abs() < 1e-12);
        // The size at p = ½ is 2·11/1024, below α.
        let size = sign_test_power(10, 0.05, 0.5).unwrap();
        assert!((size - 22.0 / 1024.0).abs() < 1e-13);
    }

    #[test]
    fn refuses_impossible_counts_and_levels() {
        assert!(sign_test(11, 10).is_err());
        assert!(sign_test_power(10, 0.0, 0.5).is_err());
        assert!(detectable_deviation(10, 0.05, 1.0).is_err());
    }

    #[test]
    fn detectable_deviation_shrinks_with_n() {
        let d = |n| detectable_deviation(n, 0.05, 0.8).unwrap().unwrap();
        assert!(d(1500) < d(300) && d(300) < d(60));
    }
}
