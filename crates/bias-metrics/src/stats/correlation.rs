//! Pearson, Spearman and Kendall (τ-b) correlation with two-sided p-values.

use statrs::function::beta::beta_reg;
use statrs::function::erf::erfc;

use super::{ranks::average_ranks, validate};
use crate::MetricsError;

/// A correlation coefficient with its two-sided p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Correlation {
    /// The coefficient, in [−1, 1].
    pub statistic: f64,
    /// Two-sided p-value of the hypothesis of no association.
    pub p_value: f64,
}

/// How the p-value of [`kendall_tau_b`] was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KendallPMethod {
    /// Exact null distribution of the number of discordant pairs (no ties).
    Exact,
    /// Normal approximation with the tie-corrected variance.
    Asymptotic,
}

/// Result of [`kendall_tau_b`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KendallTau {
    /// Kendall's τ-b, in [−1, 1].
    pub tau: f64,
    /// Two-sided p-value of the hypothesis of no association.
    pub p_value: f64,
    /// Which null distribution gave `p_value`.
    pub method: KendallPMethod,
}

/// Smallest sample the correlations accept.
const MIN_N: usize = 3;

/// Shared checks: equal lengths, at least three pairs, finite, neither input constant.
fn check_pairs(what: &str, x: &[f64], y: &[f64]) -> Result<(), MetricsError> {
    validate::same_len(&format!("{what}: x, y"), x.len(), y.len())?;
    validate::at_least(&format!("{what}: x, y"), MIN_N, x.len())?;
    validate::finite(&format!("{what}: x"), x)?;
    validate::finite(&format!("{what}: y"), y)?;
    validate::not_constant(&format!("{what}: x"), x)?;
    validate::not_constant(&format!("{what}: y"), y)?;
    Ok(())
}

/// Sample correlation of two checked, non-constant vectors, clipped to [−1, 1].
fn correlation_coefficient(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (&xi, &yi) in x.iter().zip(y) {
        let dx = xi - mx;
        let dy = yi - my;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    // √(sxx·syy) is exact when x and y are equal up to scale (|r| = 1 exactly); the split form
    // only guards against overflow of the product.
    let product = sxx * syy;
    let norm = if product.is_finite() {
        product.sqrt()
    } else {
        sxx.sqrt() * syy.sqrt()
    };
    (sxy / norm).clamp(-1.0, 1.0)
}

/// Two-sided p-value of a correlation `r` from `n` pairs under the null of independent normals:
/// Pearson's test, and the t-approximation that `scipy.stats.spearmanr` applies to a rank
/// correlation (Kaneko, Bollegala & Okazaki 2023 test their Spearman ρ over 11 rates with it).
///
/// `(r + 1) / 2 ~ Beta(n/2 − 1, n/2 − 1)`, so `p = 2 I_{(1 − |r|)/2}(n/2 − 1, n/2 − 1)`; this is
/// the Student-t test `t = r √((n − 2) / (1 − r²))` with n − 2 degrees of freedom. For n = 3,
/// `p = 2 I_{(1 − |r|)/2}(½, ½) = (4/π) asin √((1 − |r|)/2)`: r = 0.5 gives exactly 2/3.
///
/// # Errors
///
/// * [`MetricsError::TooFew`] for fewer than 3 pairs (no degree of freedom is left);
/// * [`MetricsError::InvalidParameter`] for `r` outside [−1, 1] or NaN.
pub fn correlation_p_value(r: f64, n: usize) -> Result<f64, MetricsError> {
    if n < 3 {
        return Err(MetricsError::TooFew {
            what: "a correlation's p-value (pairs)".into(),
            needed: 3,
            got: n,
        });
    }
    if !(-1.0..=1.0).contains(&r) {
        return Err(MetricsError::InvalidParameter {
            name: "r".into(),
            value: r.to_string(),
            expected: "a correlation in [-1, 1]".into(),
        });
    }
    Ok(p_value_of(r, n))
}

/// [`correlation_p_value`] for a valid `r` and `n ≥ 3`.
fn p_value_of(r: f64, n: usize) -> f64 {
    let ab = n as f64 / 2.0 - 1.0;
    let x = (1.0 - r.abs()) / 2.0;
    if x <= 0.0 {
        return 0.0;
    }
    (2.0 * beta_reg(ab, ab, x)).min(1.0)
}

/// Pearson's product-moment correlation and its two-sided p-value.
///
/// `r = Σ (xᵢ − x̄)(yᵢ − ȳ) / √(Σ (xᵢ − x̄)² Σ (yᵢ − ȳ)²)`, and
/// `p = 2 I_{(1 − |r|)/2}(n/2 − 1, n/2 − 1)` (the exact null distribution of r for bivariate
/// normal data, equivalently a t-test with n − 2 degrees of freedom). Matches
/// `scipy.stats.pearsonr(x, y)` (two-sided).
///
/// Reference: R. A. Fisher (1915), "Frequency distribution of the values of the correlation
/// coefficient in samples from an indefinitely large population", *Biometrika* 10(4), 507–521.
///
/// # Errors
///
/// * [`MetricsError::LengthMismatch`] if `x` and `y` differ in length;
/// * [`MetricsError::TooFew`] for fewer than 3 pairs;
/// * [`MetricsError::InvalidParameter`] for a NaN or infinite value, or when `x` or `y` is
///   constant (the coefficient is undefined; scipy returns NaN).
pub fn pearson(x: &[f64], y: &[f64]) -> Result<Correlation, MetricsError> {
    check_pairs("pearson", x, y)?;
    let r = correlation_coefficient(x, y);
    Ok(Correlation {
        statistic: r,
        p_value: p_value_of(r, x.len()),
    })
}

/// Spearman's rank correlation ρ and its two-sided p-value.
///
/// ρ is Pearson's r of the average ranks (ties share their mean rank, see
/// [`average_ranks`](super::average_ranks)); the p-value uses
/// `t = ρ √((n − 2) / ((1 + ρ)(1 − ρ)))` with n − 2 degrees of freedom, as
/// `scipy.stats.spearmanr(x, y)` does (two-sided).
///
/// Reference: C. Spearman (1904), "The proof and measurement of association between two
/// things", *American Journal of Psychology* 15(1), 72–101.
///
/// # Errors
///
/// * [`MetricsError::LengthMismatch`] if `x` and `y` differ in length;
/// * [`MetricsError::TooFew`] for fewer than 3 pairs;
/// * [`MetricsError::InvalidParameter`] for a NaN or infinite value, or when `x` or `y` is
///   constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Result<Correlation, MetricsError> {
    check_pairs("spearman", x, y)?;
    let rx = average_ranks(x)?;
    let ry = average_ranks(y)?;
    let rho = correlation_coefficient(&rx, &ry);
    Ok(Correlation {
        statistic: rho,
        p_value: p_value_of(rho, x.len()),
    })
}

/// Σ t(t − 1)/2, Σ t(t − 1)(t − 2) and Σ t(t − 1)(2t + 5) over the runs `t` of equal values of a
/// sorted slice.
fn tie_sums(sorted: &[f64]) -> (u128, u128, u128) {
    let (mut pairs, mut s0, mut s1) = (0u128, 0u128, 0u128);
    let mut start = 0;
    while start < sorted.len() {
        let mut end = start + 1;
        while end < sorted.len() && sorted[end] == sorted[start] {
            end += 1;
        }
        let t = (end - start) as u128;
        if t > 1 {
            pairs += t * (t - 1) / 2;
            s0 += t * (t - 1) * (t - 2);
            s1 += t * (t - 1) * (2 * t + 5);
        }
        start = end;
    }
    (pairs, s0, s1)
}

/// Number of pairs i < j with `v[i] > v[j]` (strictly), by merge sort; sorts `v`.
fn count_inversions(v: &mut [f64], buf: &mut Vec<f64>) -> u128 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut count = {
        let (left, right) = v.split_at_mut(mid);
        count_inversions(left, buf) + count_inversions(right, buf)
    };
    buf.clear();
    let (mut i, mut j) = (0, mid);
    while i < mid && j < n {
        if v[j] < v[i] {
            count += (mid - i) as u128;
            buf.push(v[j]);
            j += 1;
        } else {
            buf.push(v[i]);
            i += 1;
        }
    }
    buf.extend_from_slice(&v[i..mid]);
    buf.extend_from_slice(&v[j..n]);
    v.copy_from_slice(buf);
    count
}

/// Two-sided exact p-value of Kendall's statistic without ties: `n` observations, `c`
/// concordant pairs. Mirrors `scipy.stats._mstats_basic._kendall_p_exact`.
fn kendall_exact_p(n: usize, c: u128) -> f64 {
    let total = (n * (n - 1) / 2) as u128;
    let c = c.min(total - c);
    if n <= 2 {
        return 1.0;
    }
    let factorial = |m: usize| (1..=m).fold(1.0f64, |acc, k| acc * k as f64);
    let p = if c == 0 {
        if n < 171 {
            2.0 / factorial(n)
        } else {
            0.0
        }
    } else if c == 1 {
        if n < 172 {
            2.0 / factorial(n - 1)
        } else {
            0.0
        }
    } else if 4 * c == total * 2 {
        1.0
    } else {
        // counts[i] = number of permutations of 1..j with i inversions, i ≤ c (Mahonian
        // numbers), built by the recursion over j; only n ≤ 33 gets here.
        let c = c as usize;
        let mut counts = vec![0.0f64; c + 1];
        counts[0] = 1.0;
        counts[1] = 1.0;
        for j in 3..=n {
            for i in 1..=c {
                counts[i] += counts[i - 1];
            }
            if j <= c {
                for i in (j..=c).rev() {
                    counts[i] -= counts[i - j];
                }
            }
        }
        2.0 * counts.iter().sum::<f64>() / factorial(n)
    };
    p.clamp(0.0, 1.0)
}

/// Kendall's τ-b and its two-sided p-value, as `scipy.stats.kendalltau(x, y)` computes them
/// (`method="auto"`, `variant="b"`).
///
/// With n_c concordant and n_d discordant pairs, n₀ = n(n − 1)/2, and n₁, n₂ the pairs tied in
/// x and in y,
///
/// ```text
/// τ_b = (n_c − n_d) / √((n₀ − n₁)(n₀ − n₂))
/// ```
///
/// The pairs are counted in O(n log n) (Knight 1966). The p-value is **exact** (the null
/// distribution of n_d over all n! orderings) when there are no ties and either n ≤ 33 or
/// min(n_d, n₀ − n_d) ≤ 1; otherwise it is **asymptotic**, z = (n_c − n_d)/√v with the
/// tie-corrected variance
///
/// ```text
/// v = (m(2n + 5) − Σt(t−1)(2t+5) − Σu(u−1)(2u+5)) / 18
///     + 2 n₁ n₂ / m + Σt(t−1)(t−2) Σu(u−1)(u−2) / (9 m (n − 2)),   m = n(n − 1)
/// ```
///
/// (t, u the sizes of tied groups in x and y) and p = 2 Φᶜ(|z|).
///
/// References: M. G. Kendall (1945), "The treatment of ties in ranking problems", *Biometrika*
/// 33(3), 239–251; M. G. Kendall, *Rank Correlation Methods* (4th ed., 1970); W. R. Knight
/// (1966), "A computer method for calculating Kendall's tau with ungrouped data", *JASA* 61,
/// 436–439.
///
/// # Errors
///
/// * [`MetricsError::LengthMismatch`] if `x` and `y` differ in length;
/// * [`MetricsError::TooFew`] for fewer than 3 pairs;
/// * [`MetricsError::InvalidParameter`] for a NaN or infinite value, or when `x` or `y` is
///   constant.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Result<KendallTau, MetricsError> {
    check_pairs("kendall_tau_b", x, y)?;
    let n = x.len();
    let mut order: Vec<usize> = (0..n).collect();
    // Values are finite; `partial_cmp` (unlike `total_cmp`) keeps −0 and +0 in one tie group.
    let cmp = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal);
    order.sort_by(|&a, &b| cmp(x[a], x[b]).then(cmp(y[a], y[b])));
    let xs: Vec<f64> = order.iter().map(|&i| x[i]).collect();
    let mut ys: Vec<f64> = order.iter().map(|&i| y[i]).collect();

    // Pairs tied in both x and y.
    let mut joint = 0u128;
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && xs[end] == xs[start] && ys[end] == ys[start] {
            end += 1;
        }
        let t = (end - start) as u128;
        joint += t * (t - 1) / 2;
        start = end;
    }
    let (x_ties, x0, x1) = tie_sums(&xs);
    // Within a run of equal x, y ascends, so strict inversions are exactly the discordant pairs.
    let mut buf = Vec::with_capacity(n);
    let discordant = count_inversions(&mut ys, &mut buf);
    let (y_ties, y0, y1) = tie_sums(&ys);

    let total = (n as u128) * (n as u128 - 1) / 2;
    // total = con + dis + x_ties + y_ties − joint.
    let con_minus_dis =
        total as f64 - x_ties as f64 - y_ties as f64 + joint as f64 - 2.0 * discordant as f64;
    let tau = (con_minus_dis / ((total - x_ties) as f64).sqrt() / ((total - y_ties) as f64).sqrt())
        .clamp(-1.0, 1.0);

    let no_ties = x_ties == 0 && y_ties == 0;
    if no_ties && (n <= 33 || discordant.min(total - discordant) <= 1) {
        let p_value = kendall_exact_p(n, total - discordant);
        return Ok(KendallTau {
            tau,
            p_value,
            method: KendallPMethod::Exact,
        });
    }
    let nf = n as f64;
    let m = nf * (nf - 1.0);
    let var = (m * (2.0 * nf + 5.0) - x1 as f64 - y1 as f64) / 18.0
        + (2.0 * x_ties as f64 * y_ties as f64) / m
        + x0 as f64 * y0 as f64 / (9.0 * m * (nf - 2.0));
    let z = con_minus_dis / var.sqrt();
    let p_value = erfc(z.abs() / std::f64::consts::SQRT_2).min(1.0);
    Ok(KendallTau {
        tau,
        p_value,
        method: KendallPMethod::Asymptotic,
    })
}

/// Kendall's τ-b of two vectors without a p-value, for as few as two pairs (where
/// [`kendall_tau_b`] needs three to give a p-value): `(C − D) / sqrt((n₀ − n₁)(n₀ − n₂))` over
/// the `n₀ = n(n − 1)/2` pairs, `C` / `D` the concordant / discordant pairs and `n₁` / `n₂` the
/// pairs tied in `x` / in `y` (Kendall 1945; `scipy.stats.kendalltau`, variant "b"). Compares the
/// first `min(len)` values. `None` when the denominator is 0 (fewer than 2 values, or one side
/// all tied).
pub fn kendall_tau_b_value(x: &[f64], y: &[f64]) -> Option<f64> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let (mut concordant, mut discordant, mut tied_x, mut tied_y) = (0u64, 0u64, 0u64, 0u64);
    let n = x.len().min(y.len());
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[i].partial_cmp(&x[j]).unwrap_or(Equal);
            let dy = y[i].partial_cmp(&y[j]).unwrap_or(Equal);
            tied_x += u64::from(dx == Equal);
            tied_y += u64::from(dy == Equal);
            match (dx, dy) {
                (Less, Less) | (Greater, Greater) => concordant += 1,
                (Less, Greater) | (Greater, Less) => discordant += 1,
                _ => {}
            }
        }
    }
    let pairs = (n * n.saturating_sub(1) / 2) as u64;
    let denominator = (((pairs - tied_x) as f64) * ((pairs - tied_y) as f64)).sqrt();
    (denominator > 0.0)
        .then(|| ((concordant as f64 - discordant as f64) / denominator).clamp(-1.0, 1.0))
}

/// Kendall's τ-a: `(C − D) / (n(n − 1)/2)`, a pair tied in either vector counting 0 (Kendall
/// 1938). Compares the first `min(len)` values; `None` for fewer than 2.
pub fn kendall_tau_a(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            s += ((x[i] - x[j]).signum() * (y[i] - y[j]).signum()).clamp(-1.0, 1.0);
        }
    }
    Some(s / (n * (n - 1) / 2) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::{abs_diff_eq, assert_abs_diff_eq};

    #[test]
    fn inversions_by_brute_force() {
        let v = [3.0, 1.0, 2.0, 2.0, 5.0, 0.0, 2.0];
        let mut brute = 0u128;
        for i in 0..v.len() {
            for j in i + 1..v.len() {
                if v[i] > v[j] {
                    brute += 1;
                }
            }
        }
        let mut w = v.to_vec();
        assert_eq!(count_inversions(&mut w, &mut Vec::new()), brute);
        assert!(w.windows(2).all(|p| p[0] <= p[1]));
    }

    #[test]
    fn exact_kendall_small_n_by_enumeration() {
        // n = 4: inversion counts of the 24 permutations are 1,3,5,6,5,3,1 for 0..=6.
        // c = 2 concordant → min(2, 4) = 2 → P(≤ 2) = 9/24, two-sided 18/24.
        assert_abs_diff_eq!(kendall_exact_p(4, 2), 0.75, epsilon = 1e-15);
        assert_abs_diff_eq!(kendall_exact_p(4, 0), 2.0 / 24.0, epsilon = 1e-15);
        assert_abs_diff_eq!(kendall_exact_p(4, 5), 2.0 * 4.0 / 24.0, epsilon = 1e-15);
    }

    /// n = 3: `p = (4/π) asin √((1 − |r|)/2)`, by hand 2/3 at r = ½; and the p-value of
    /// `pearson` is `correlation_p_value` of its r.
    #[test]
    fn correlation_p_value_by_hand_and_as_pearson_gives_it() {
        assert!((correlation_p_value(0.5, 3).unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert!((correlation_p_value(-0.5, 3).unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(correlation_p_value(1.0, 11).unwrap(), 0.0);
        let (x, y) = ([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 1.0, 4.0, 3.0, 5.0]);
        let c = pearson(&x, &y).unwrap();
        assert_eq!(correlation_p_value(c.statistic, 5).unwrap(), c.p_value);
        assert!(matches!(
            correlation_p_value(0.5, 2),
            Err(MetricsError::TooFew {
                needed: 3,
                got: 2,
                ..
            })
        ));
        assert!(matches!(
            correlation_p_value(1.5, 11),
            Err(MetricsError::InvalidParameter { .. })
        ));
        assert!(correlation_p_value(f64::NAN, 11).is_err());
    }

    #[test]
    fn perfect_rank_agreement_has_zero_p() {
        let s = spearman(&[0.3, 1.0, 2.0], &[5.0, 6.0, 7.5]).unwrap();
        assert_eq!((s.statistic, s.p_value), (1.0, 0.0));
    }

    #[test]
    fn signed_zeros_tie() {
        // −0 and +0 are one tied group: x = (0, 0, 1, 2), y = (1, 0, 2, 3) → n_c = 5, n_d = 0,
        // one pair tied in x: τ_b = 5 / √(5 · 6).
        let k = kendall_tau_b(&[-0.0, 0.0, 1.0, 2.0], &[1.0, 0.0, 2.0, 3.0]).unwrap();
        assert!(
            abs_diff_eq!(k.tau, 5.0 / 30f64.sqrt(), epsilon = 1e-15),
            "{}",
            k.tau
        );
        assert_eq!(k.method, KendallPMethod::Asymptotic);
    }

    #[test]
    fn errors() {
        assert!(matches!(
            pearson(&[1.0, 2.0], &[1.0, 3.0]),
            Err(MetricsError::TooFew {
                needed: 3,
                got: 2,
                ..
            })
        ));
        assert!(matches!(
            spearman(&[1.0, 2.0, 3.0], &[1.0, 3.0]),
            Err(MetricsError::LengthMismatch {
                left: 3,
                right: 2,
                ..
            })
        ));
        assert!(matches!(
            kendall_tau_b(&[1.0, 2.0, 3.0], &[4.0, 4.0, 4.0]),
            Err(MetricsError::InvalidParameter { .. })
        ));
        assert!(matches!(
            pearson(&[1.0, f64::NAN, 3.0], &[4.0, 5.0, 4.0]),
            Err(MetricsError::InvalidParameter { .. })
        ));
    }

    #[test]
    fn the_three_kendall_forms_agree_where_they_should() {
        // With ties: τ-b without its p-value is the full function's τ; τ-a counts ties as 0, so
        // it is smaller in size: x = [1, 2, 2, 3], y = [1, 3, 2, 2]: C = 3, D = 1, n₀ = 6, one tie
        // in each (a different pair) → τ-b = 2/5, τ-a = 2/6.
        let (x, y) = ([1.0, 2.0, 2.0, 3.0], [1.0, 3.0, 2.0, 2.0]);
        let full = kendall_tau_b(&x, &y).unwrap().tau;
        assert_abs_diff_eq!(kendall_tau_b_value(&x, &y).unwrap(), full, epsilon = 1e-15);
        assert_abs_diff_eq!(full, 0.4, epsilon = 1e-15);
        assert_abs_diff_eq!(kendall_tau_a(&x, &y).unwrap(), 2.0 / 6.0, epsilon = 1e-15);
        // Two pairs: only the p-value-free forms answer.
        assert_eq!(kendall_tau_b_value(&[1.0, 2.0], &[6.0, 5.0]), Some(-1.0));
        assert_eq!(kendall_tau_a(&[1.0, 2.0], &[6.0, 5.0]), Some(-1.0));
        assert!(kendall_tau_b(&[1.0, 2.0], &[6.0, 5.0]).is_err());
        assert_eq!(kendall_tau_b_value(&[1.0, 2.0], &[5.0, 5.0]), None);
    }
}
