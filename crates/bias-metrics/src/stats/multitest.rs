//! Multiplicity control: p-values adjusted over a family of tests.
//!
//! One table of bias values (every measure × bias type × model of one data set) is many tests at
//! once; at α = 0.05, 140 cells without any bias carry about seven "significant" cells by chance.
//! Holm (1979) bounds the family-wise error rate (the chance of even one false star) under any
//! dependence between the tests, which is why it is the default; Benjamini & Hochberg (1995)
//! bound the expected share of false stars instead (valid for independent or positively
//! dependent tests), a weaker promise with more power for large families.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::MetricsError;

/// How the p-values of one family are adjusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Correction {
    /// Holm's step-down procedure (S. Holm 1979, "A simple sequentially rejective multiple test
    /// procedure", *Scand. J. Statist.* 6, 65–70): family-wise error rate. The default.
    #[default]
    Holm,
    /// Benjamini–Hochberg's step-up procedure (Y. Benjamini, Y. Hochberg 1995, "Controlling the
    /// false discovery rate", *J. R. Statist. Soc. B* 57, 289–300): false discovery rate.
    Bh,
    /// No adjustment: each test at level α on its own.
    None,
}

impl Correction {
    /// `holm`, `bh` or `none`, as the CLI and the outputs spell it.
    pub fn name(self) -> &'static str {
        match self {
            Correction::Holm => "holm",
            Correction::Bh => "bh",
            Correction::None => "none",
        }
    }

    /// The adjusted p-values of `p_values`, in their order.
    ///
    /// With the p-values sorted ascending, `p₍₁₎ ≤ … ≤ p₍ₘ₎`:
    ///
    /// ```text
    /// Holm: p̃₍ᵢ₎ = min(1, max_{j ≤ i} (m − j + 1) · p₍ⱼ₎)
    /// BH:   p̃₍ᵢ₎ = min(1, min_{j ≥ i} m/j · p₍ⱼ₎)
    /// ```
    ///
    /// as `statsmodels.stats.multitest.multipletests(p, method="holm" | "fdr_bh")` computes
    /// them (checked to 1e-12 in `fixtures/stats/significance.json`); a test is significant at
    /// level α when its adjusted p is at most α, which is Holm's and BH's rejection rule.
    ///
    /// ```
    /// use bias_metrics::stats::Correction;
    ///
    /// // Holm by hand: sorted 0.01, 0.02, 0.04 → 3·0.01, max(0.03, 2·0.02), max(0.04, 1·0.04).
    /// let adjusted = Correction::Holm.adjust(&[0.04, 0.01, 0.02])?;
    /// assert_eq!(adjusted, vec![0.04, 0.03, 0.04]);
    /// # Ok::<(), bias_metrics::MetricsError>(())
    /// ```
    ///
    /// # Errors
    /// [`MetricsError::InvalidParameter`] for a p-value outside [0, 1] (a NaN included), naming
    /// its position.
    pub fn adjust(self, p_values: &[f64]) -> Result<Vec<f64>, MetricsError> {
        if let Some((i, p)) = p_values
            .iter()
            .enumerate()
            .find(|(_, p)| !(0.0..=1.0).contains(*p))
        {
            return Err(MetricsError::InvalidParameter {
                name: format!("p-value {i} of the family"),
                value: p.to_string(),
                expected: "a probability in [0, 1]".to_owned(),
            });
        }
        let m = p_values.len();
        let mut order: Vec<usize> = (0..m).collect();
        // A stable sort: equal p-values keep their order, as numpy's mergesort does.
        order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
        let sorted: Vec<f64> = order.iter().map(|&i| p_values[i]).collect();
        let adjusted_sorted: Vec<f64> = match self {
            Correction::None => sorted,
            Correction::Holm => {
                let mut running = 0.0f64;
                sorted
                    .iter()
                    .enumerate()
                    .map(|(j, p)| {
                        running = running.max((m - j) as f64 * p);
                        running.min(1.0)
                    })
                    .collect()
            }
            Correction::Bh => {
                let mut out = vec![0.0; m];
                let mut running = f64::INFINITY;
                for j in (0..m).rev() {
                    running = running.min(sorted[j] * m as f64 / (j + 1) as f64);
                    out[j] = running.min(1.0);
                }
                out
            }
        };
        let mut adjusted = vec![0.0; m];
        for (rank, &i) in order.iter().enumerate() {
            adjusted[i] = adjusted_sorted[rank];
        }
        Ok(adjusted)
    }

    /// The level the most extreme test of a family of `m` must reach to be significant: α/m for
    /// Holm and BH (their first step), α without correction. What a detectable deviation is
    /// computed at ([`crate::stats::detectable_deviation`]).
    pub fn first_step_level(self, alpha: f64, m: usize) -> f64 {
        match self {
            Correction::None => alpha,
            Correction::Holm | Correction::Bh => alpha / m.max(1) as f64,
        }
    }
}

impl fmt::Display for Correction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Correction {
    type Err = MetricsError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "holm" => Ok(Correction::Holm),
            "bh" | "fdr_bh" | "benjamini-hochberg" => Ok(Correction::Bh),
            "none" => Ok(Correction::None),
            other => Err(MetricsError::InvalidParameter {
                name: "correction".to_owned(),
                value: other.to_owned(),
                expected: "holm, bh or none".to_owned(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Holm's steps by hand on five p-values (m = 5): sorted 0.001, 0.01, 0.02, 0.03, 0.2 are
    /// multiplied by 5, 4, 3, 2, 1 → 0.005, 0.04, 0.06, 0.06, 0.2, made non-decreasing.
    #[test]
    fn holm_by_hand() {
        let p = [0.03, 0.001, 0.2, 0.01, 0.02];
        let got = Correction::Holm.adjust(&p).unwrap();
        let want = [0.06, 0.005, 0.2, 0.04, 0.06];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-15, "{got:?}");
        }
    }

    /// BH by hand: m/j · p = 5·0.001, 5/2·0.01, 5/3·0.02, 5/4·0.03, 0.2 → 0.005, 0.025, 0.0333,
    /// 0.0375, 0.2, made non-decreasing from the top (already so).
    #[test]
    fn bh_by_hand() {
        let p = [0.03, 0.001, 0.2, 0.01, 0.02];
        let got = Correction::Bh.adjust(&p).unwrap();
        let want = [0.0375, 0.005, 0.2, 0.025, 0.1 / 3.0];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-15, "{got:?}");
        }
    }

    #[test]
    fn refuses_a_nan() {
        let err = Correction::Holm.adjust(&[0.1, f64::NAN]).unwrap_err();
        assert!(err.to_string().contains("p-value 1"), "{err}");
        assert!(Correction::Bh.adjust(&[]).unwrap().is_empty());
    }
}
