//! Weighting by bias type (liu2024 Eqs. 10–11), rounding, and how an overall value is formed.

use std::collections::BTreeMap;

use bias_core::{BiasType, TypeValue};
use serde::{Deserialize, Serialize};

use crate::MetricsError;

/// Rounding of a measure's final (overall) value.
///
/// The authors of liu2024 round only the final weighted KLS / JSS to 2 decimals
/// (`Rounding::Decimals(2)`); the default here is [`Rounding::None`], so that downstream
/// statistics (bootstrap intervals, differences between models) are not quantised. Per-type
/// values are never rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Rounding {
    /// Keep the full `f64` value (default).
    #[default]
    None,
    /// Round to this many decimals as numpy's `np.round` does: `rint(x·10^d)/10^d`, halves to
    /// even on the scaled value. (Python's built-in `round(x, d)` rounds the exact binary value
    /// and can differ from this in the last place for values that print as exact halves.)
    Decimals(u32),
}

impl Rounding {
    /// Applies the rounding to `x`. A value whose scaling overflows (or a non-finite `x`) is
    /// returned unchanged.
    ///
    /// # Errors
    /// None: this function is total.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Rounding::None => x,
            Rounding::Decimals(d) => {
                let scale = 10f64.powi(d.min(308) as i32);
                let scaled = x * scale;
                if !scaled.is_finite() || !scale.is_finite() {
                    return x;
                }
                scaled.round_ties_even() / scale
            }
        }
    }
}

bias_core::choice! {
    /// How the overall value of a distribution measure (KLS, JSS) is formed from a table with
    /// several bias types.
    #[derive(Default, Serialize, Deserialize)]
    pub enum Aggregation: "aggregation" {
        /// The paper's choice (liu2024 Eqs. 10–11, and the authors' code): fit the two Gaussians
        /// within each bias type, compute the measure within the type, and weight the per-type
        /// values by `n_k / N` ([`weighted_by_type`]). Default.
        #[default]
        WeightedByType = "weighted" => "Per-type values weighted by n_k / N (liu2024 Eqs. 10–11)",
        /// Fit the two Gaussians on all pairs pooled, ignoring bias types, and compute the measure
        /// once (Eqs. 6 / 9 applied to the whole table). Per-type values are still reported.
        Pooled = "pooled" => "One fit on all pairs pooled",
    }
}

/// The weighted form of liu2024 Eqs. 10–11:
///
/// `value = Σ_k (n_k / N) · value_k`, with `N = Σ_k n_k`,
///
/// where `value_k` is the measure computed within bias type `k` on its `n_k` pairs.
///
/// # Errors
/// [`MetricsError::Empty`] when `by_type` is empty or all its counts are 0;
/// [`MetricsError::InvalidParameter`] when a value is not finite.
pub fn weighted_by_type(by_type: &BTreeMap<BiasType, TypeValue>) -> Result<f64, MetricsError> {
    let total: usize = by_type.values().map(|t| t.n).sum();
    if total == 0 {
        return Err(MetricsError::Empty {
            what: "weighting by bias type: no pairs".to_owned(),
        });
    }
    let mut acc = 0.0;
    for (ty, tv) in by_type {
        if !tv.value.is_finite() {
            return Err(MetricsError::InvalidParameter {
                name: format!("value of bias type `{ty}`"),
                value: tv.value.to_string(),
                expected: "a finite number".to_owned(),
            });
        }
        acc += tv.n as f64 / total as f64 * tv.value;
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn rounding_like_numpy() {
        assert_eq!(Rounding::None.apply(52.691831), 52.691831);
        assert_eq!(Rounding::Decimals(2).apply(52.691831), 52.69);
        assert_eq!(Rounding::Decimals(2).apply(94.975892), 94.98);
        // 0.125·100 = 12.5 exactly → ties to even → 12 → 0.12 (np.round(0.125, 2) == 0.12).
        assert_eq!(Rounding::Decimals(2).apply(0.125), 0.12);
        assert_eq!(Rounding::Decimals(0).apply(2.5), 2.0);
        assert_eq!(Rounding::Decimals(400).apply(1.5), 1.5);
    }

    #[test]
    fn weights_by_counts() {
        let mut m = BTreeMap::new();
        m.insert(BiasType::Gender, TypeValue { value: 60.0, n: 1 });
        m.insert(BiasType::Age, TypeValue { value: 50.0, n: 3 });
        // (1·60 + 3·50)/4 = 52.5
        assert_abs_diff_eq!(weighted_by_type(&m).unwrap(), 52.5, epsilon = 1e-12);
        assert!(weighted_by_type(&BTreeMap::new()).is_err());
    }
}
