//! The paired sign-flip permutation test.
//!
//! A pair's two scores (the stereotypical and the anti-stereotypical sentence's, or one pair
//! under two models) are exchangeable under the null of no systematic difference: swapping them
//! leaves the distribution of the data unchanged. A permutation flips a set of pairs; the
//! statistic over all `2ⁿ` flip sets is its exact null distribution (Fisher 1935, *The Design of
//! Experiments*, § 21; Good 2005, *Permutation, Parametric, and Bootstrap Tests of Hypotheses*,
//! § 3.7), drawn at random when `2ⁿ` is too many.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::MetricsError;

/// Settings of [`sign_flip_test`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermutationOptions {
    /// Random flip sets drawn when `2ⁿ` exceeds this number; with `2ⁿ` or fewer the test
    /// enumerates every flip set instead (exact). At least 1.
    pub permutations: usize,
    /// Seed of the `ChaCha8Rng` (`seed_from_u64`) that draws them.
    pub seed: u64,
}

impl Default for PermutationOptions {
    /// 9,999 random flip sets (the smallest p is 1/10,000, small enough to survive Holm over a
    /// family of a few hundred cells at α = 0.05), seed 0.
    fn default() -> Self {
        PermutationOptions {
            permutations: 9_999,
            seed: 0,
        }
    }
}

/// Which values of the statistic count as extreme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Alternative {
    /// Either tail: twice the smaller one-sided p (capped at 1), as scipy does.
    TwoSided,
    /// Values at least as large as the observed one.
    Greater,
    /// Values at most as large as the observed one.
    Less,
}

/// What [`sign_flip_test`] gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermutationTest {
    /// The statistic on the data as given (no pair flipped), one per component.
    pub observed: Vec<f64>,
    /// One p-value per component of the statistic.
    pub p_values: Vec<f64>,
    /// Whether every flip set was enumerated.
    pub exact: bool,
    /// The number of null values: `2ⁿ` when exact, else the random flip sets drawn.
    pub permutations: usize,
}

/// The paired sign-flip permutation test of a vector-valued statistic of `n` pairs.
///
/// `statistic(flipped)` computes the statistic on the data with the pairs `i` where
/// `flipped[i]` swapped; it returns one value per component (an overall value and one per bias
/// type, say), all tested on the same flip sets. With `2ⁿ ≤ options.permutations` every flip set
/// is enumerated (the identity included) and a one-sided p is `#{null ≥ observed} / 2ⁿ`;
/// otherwise `options.permutations` random flip sets (each pair flipped with probability ½ by
/// `ChaCha8Rng::seed_from_u64(seed)`) give `p = (1 + #{null ≥ observed}) / (1 + R)`, which
/// never reaches 0 (the flip sets are drawn in order and their statistics computed in parallel
/// with rayon, so the p-values do not depend on the number of threads). A two-sided p is twice the smaller one-sided p, at most 1. Comparisons allow
/// a relative tolerance of 100 ε of the observed value, so that a null value equal to the
/// observed one up to rounding counts as extreme. All of this is
/// `scipy.stats.permutation_test(..., permutation_type="samples")` (checked against its exact
/// enumeration in `fixtures/stats/significance.json`).
///
/// ```
/// use bias_metrics::stats::{sign_flip_test, Alternative, PermutationOptions};
///
/// // Three pairs with differences 1, 2, 3: the mean difference 2 is reached or exceeded by the
/// // identity only, so the exact one-sided p is 1/8.
/// let d = [1.0, 2.0, 3.0];
/// let mean = |flipped: &[bool]| {
///     let s: f64 = d.iter().zip(flipped).map(|(x, &f)| if f { -x } else { *x }).sum();
///     Ok(vec![s / 3.0])
/// };
/// let test = sign_flip_test(3, mean, Alternative::Greater, &PermutationOptions::default())?;
/// assert!(test.exact);
/// assert_eq!(test.p_values, vec![0.125]);
/// # Ok::<(), bias_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::InvalidParameter`] for `permutations = 0`, a non-finite statistic, or one
/// whose number of components changes between flip sets; the statistic's own errors.
pub fn sign_flip_test(
    n: usize,
    statistic: impl Fn(&[bool]) -> Result<Vec<f64>, MetricsError> + Sync,
    alternative: Alternative,
    options: &PermutationOptions,
) -> Result<PermutationTest, MetricsError> {
    if options.permutations == 0 {
        return Err(MetricsError::InvalidParameter {
            name: "permutations".to_owned(),
            value: "0".to_owned(),
            expected: "at least 1".to_owned(),
        });
    }
    let observed = finite(statistic(&vec![false; n])?, None)?;
    let k = observed.len();
    let tolerance: Vec<f64> = observed
        .iter()
        .map(|o| (o * 100.0 * f64::EPSILON).abs())
        .collect();
    let mut at_least = vec![0usize; k];
    let mut at_most = vec![0usize; k];
    let exact = n < usize::BITS as usize - 1 && (1usize << n) <= options.permutations;
    let total = if exact {
        1usize << n
    } else {
        options.permutations
    };
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    // Flip sets are drawn (or enumerated) in order, a block at a time, and their statistics
    // computed in parallel: the counts, and so the p-values, do not depend on the threads.
    const BLOCK: usize = 256;
    let mut start = 0;
    while start < total {
        let end = (start + BLOCK).min(total);
        let masks: Vec<Vec<bool>> = (start..end)
            .map(|index| {
                if exact {
                    (0..n).map(|i| (index >> i) & 1 == 1).collect()
                } else {
                    (0..n).map(|_| rng.random::<bool>()).collect()
                }
            })
            .collect();
        let values: Vec<Vec<f64>> = masks
            .par_iter()
            .map(|m| statistic(m).and_then(|v| finite(v, Some(k))))
            .collect::<Result<_, _>>()?;
        for v in values {
            for j in 0..k {
                if v[j] >= observed[j] - tolerance[j] {
                    at_least[j] += 1;
                }
                if v[j] <= observed[j] + tolerance[j] {
                    at_most[j] += 1;
                }
            }
        }
        start = end;
    }
    let adjustment = usize::from(!exact);
    let tail = |c: usize| (c + adjustment) as f64 / (total + adjustment) as f64;
    let p_values = (0..k)
        .map(|j| match alternative {
            Alternative::Greater => tail(at_least[j]),
            Alternative::Less => tail(at_most[j]),
            Alternative::TwoSided => (2.0 * tail(at_least[j]).min(tail(at_most[j]))).min(1.0),
        })
        .collect();
    Ok(PermutationTest {
        observed,
        p_values,
        exact,
        permutations: total,
    })
}

/// `values` if every one is finite and (when `len` is given) there are `len` of them.
fn finite(values: Vec<f64>, len: Option<usize>) -> Result<Vec<f64>, MetricsError> {
    if let Some(len) = len.filter(|&l| l != values.len()) {
        return Err(MetricsError::InvalidParameter {
            name: "sign_flip_test: statistic".to_owned(),
            value: format!("{} components", values.len()),
            expected: format!("{len} components, as on the unflipped data"),
        });
    }
    if let Some(v) = values.iter().find(|v| !v.is_finite()) {
        return Err(MetricsError::InvalidParameter {
            name: "sign_flip_test: statistic".to_owned(),
            value: v.to_string(),
            expected: "a finite value on every flip set".to_owned(),
        });
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_statistic(d: &[f64]) -> impl Fn(&[bool]) -> Result<Vec<f64>, MetricsError> + Sync + '_ {
        move |flipped: &[bool]| {
            let s: f64 = d
                .iter()
                .zip(flipped)
                .map(|(x, &f)| if f { -x } else { *x })
                .sum();
            Ok(vec![s / d.len() as f64])
        }
    }

    /// By hand: differences 1, −2, 3, 4 (sum 6). Of the 16 sign patterns, the sums at least 6
    /// are 1+2+3+4 = 10, −1+2+3+4 = 8 and 1−2+3+4 = 6; at most −6 are their mirrors.
    /// Greater: 3/16; two-sided: 6/16.
    #[test]
    fn exact_by_hand() {
        let d = [1.0, -2.0, 3.0, 4.0];
        let o = PermutationOptions::default();
        let g = sign_flip_test(4, mean_statistic(&d), Alternative::Greater, &o).unwrap();
        assert_eq!(g.p_values, vec![3.0 / 16.0]);
        assert_eq!(g.permutations, 16);
        let t = sign_flip_test(4, mean_statistic(&d), Alternative::TwoSided, &o).unwrap();
        assert_eq!(t.p_values, vec![6.0 / 16.0]);
    }

    /// Random flips never give p = 0, and the same seed gives the same p.
    #[test]
    fn monte_carlo_is_seeded_and_positive() {
        let d: Vec<f64> = (0..40).map(|i| 1.0 + f64::from(i % 3)).collect();
        let o = PermutationOptions {
            permutations: 999,
            seed: 3,
        };
        let a = sign_flip_test(40, mean_statistic(&d), Alternative::Greater, &o).unwrap();
        let b = sign_flip_test(40, mean_statistic(&d), Alternative::Greater, &o).unwrap();
        assert!(!a.exact);
        assert_eq!(a.p_values, vec![1.0 / 1000.0]);
        assert_eq!(a, b);
    }

    #[test]
    fn refuses_a_changing_statistic() {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let stat = |_: &[bool]| {
            let first = calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
            Ok(vec![0.0; if first { 2 } else { 1 }])
        };
        let err = sign_flip_test(
            3,
            stat,
            Alternative::Greater,
            &PermutationOptions::default(),
        );
        assert!(err.is_err());
    }
}
