//! McNemar's test for paired binary outcomes.

use statrs::function::beta::beta_reg;
use statrs::function::erf::erfc;

use super::validate;
use crate::MetricsError;

/// Result of a McNemar test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct McNemar {
    /// The statistic: min(b, c) for the exact test, the corrected χ² for the asymptotic one.
    pub statistic: f64,
    /// Two-sided p-value of the hypothesis that both kinds of discordant pair are equally likely.
    pub p_value: f64,
}

/// The 2×2 table of paired outcomes:
/// `[[both true, first only], [second only, both false]]`.
///
/// The discordant cells `b = table[0][1]` and `c = table[1][0]` are what
/// [`mcnemar_exact`] and [`mcnemar_chi2`] use.
///
/// # Errors
///
/// * [`MetricsError::LengthMismatch`] if `first` and `second` differ in length;
/// * [`MetricsError::Empty`] if they are empty.
pub fn mcnemar_table(first: &[bool], second: &[bool]) -> Result<[[u64; 2]; 2], MetricsError> {
    validate::same_len("mcnemar_table: first, second", first.len(), second.len())?;
    if first.is_empty() {
        return Err(MetricsError::Empty {
            what: "mcnemar_table: first, second".to_owned(),
        });
    }
    let mut table = [[0u64; 2]; 2];
    for (&a, &b) in first.iter().zip(second) {
        table[usize::from(!a)][usize::from(!b)] += 1;
    }
    Ok(table)
}

/// Exact (binomial) McNemar test on a 2×2 table.
///
/// With discordant counts `b = table[0][1]`, `c = table[1][0]` and `n = b + c`, under the null
/// `b ~ Binomial(n, ½)`, so
///
/// ```text
/// statistic = min(b, c),   p = min(1, 2 P(Bin(n, ½) ≤ min(b, c)))
/// ```
///
/// (p = 1 when there is no discordant pair). The binomial CDF is the regularized incomplete beta
/// `I_{1/2}(n − k, k + 1)`. Matches `statsmodels.stats.contingency_tables.mcnemar(table,
/// exact=True)`.
///
/// Reference: Q. McNemar (1947), "Note on the sampling error of the difference between correlated
/// proportions or percentages", *Psychometrika* 12(2), 153–157.
///
/// # Errors
///
/// None: every table has an exact p-value (unlike [`mcnemar_chi2`], which fails on b + c = 0).
pub fn mcnemar_exact(table: [[u64; 2]; 2]) -> McNemar {
    let (b, c) = (table[0][1], table[1][0]);
    let n = b + c;
    let k = b.min(c);
    let cdf = if k >= n {
        1.0
    } else {
        beta_reg((n - k) as f64, k as f64 + 1.0, 0.5)
    };
    McNemar {
        statistic: k as f64,
        p_value: (2.0 * cdf).min(1.0),
    }
}

/// McNemar's χ² test with continuity correction on a 2×2 table.
///
/// With discordant counts `b = table[0][1]`, `c = table[1][0]`,
///
/// ```text
/// χ² = (|b − c| − 1)² / (b + c),   p = P(χ²₁ ≥ χ²) = erfc(√(χ²/2))
/// ```
///
/// The correction is applied as written even when |b − c| < 1 (b = c gives χ² = 1/(b + c)), as
/// `statsmodels.stats.contingency_tables.mcnemar(table, exact=False, correction=True)` does.
///
/// Reference: A. L. Edwards (1948), "Note on the 'correction for continuity' in testing the
/// significance of the difference between correlated proportions", *Psychometrika* 13(3),
/// 185–187.
///
/// # Errors
///
/// [`MetricsError::TooFew`] when `b + c = 0`: with no discordant pair the statistic is 1/0
/// (statsmodels reports χ² = ∞, p = 0, which is meaningless).
pub fn mcnemar_chi2(table: [[u64; 2]; 2]) -> Result<McNemar, MetricsError> {
    let (b, c) = (table[0][1], table[1][0]);
    let n = b + c;
    validate::at_least("mcnemar_chi2: discordant pairs", 1, n as usize)?;
    let diff = b.abs_diff(c) as f64 - 1.0;
    let statistic = diff * diff / n as f64;
    let p_value = erfc((statistic / 2.0).sqrt());
    Ok(McNemar { statistic, p_value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn table_orientation() {
        let t = mcnemar_table(
            &[true, true, false, false, true],
            &[true, false, true, false, false],
        )
        .unwrap();
        assert_eq!(t, [[1, 2], [1, 1]]);
    }

    #[test]
    fn errors() {
        assert!(matches!(
            mcnemar_chi2([[4, 0], [0, 7]]),
            Err(MetricsError::TooFew {
                needed: 1,
                got: 0,
                ..
            })
        ));
        assert!(matches!(
            mcnemar_table(&[true], &[true, false]),
            Err(MetricsError::LengthMismatch {
                left: 1,
                right: 2,
                ..
            })
        ));
        assert!(matches!(
            mcnemar_table(&[], &[]),
            Err(MetricsError::Empty { .. })
        ));
    }

    #[test]
    fn exact_small_by_hand() {
        // b = 0, c = 9: p = 2 · 2⁻⁹.
        let r = mcnemar_exact([[20, 0], [9, 4]]);
        assert_eq!(r.statistic, 0.0);
        assert_abs_diff_eq!(r.p_value, 2.0 / 512.0, epsilon = 1e-15);
    }
}
