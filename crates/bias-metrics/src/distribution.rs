//! The machinery shared by the distribution measures KLS and JSS: fitting the two Gaussians of a
//! set of pairs, per bias type, and forming the overall value.

use std::collections::BTreeMap;

use bias_core::{BiasType, Measurement, ScoreRow, ScoreTable, TypeValue};
use serde::{Deserialize, Serialize};

use crate::gaussian::Gaussian;
use crate::weighting::{weighted_by_type, Aggregation, Rounding};
use crate::MetricsError;

bias_core::choice! {
    /// What a distribution measure does with a bias type that has fewer than 2 pairs (the
    /// standard deviation with ddof = 1 of a single score is undefined).
    #[derive(Default, Serialize, Deserialize)]
    pub enum SmallTypePolicy: "small-type policy" {
        /// Fail with [`MetricsError::TooFew`] naming the type (default: a silent choice would move
        /// the weighted value).
        #[default]
        Error = "error" => "A bias type with a single pair is an error",
        /// Leave the type out: it is absent from `by_type`, its pairs are not counted in `N` (nor
        /// in the pooled fit), and the weights are `n_k / Σ_{kept} n_k`.
        Skip = "skip" => "Leave such types out of KLS / JSS",
    }
}

/// Options of the distribution measures ([`crate::Kls`], [`crate::Jss`]).
///
/// [`Default`] is the paper's computation: weighted by type (Eqs. 10–11), no rounding, an error
/// for a type with a single pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DistributionOptions {
    /// Weighted by type (default, the paper's Eqs. 10–11) or pooled.
    pub aggregation: Aggregation,
    /// Rounding of the overall value only (the authors: 2 decimals; default: none).
    pub rounding: Rounding,
    /// Types with fewer than 2 pairs.
    pub small_types: SmallTypePolicy,
}

/// Fits `P_st` (to `score_stereo`) and `P_at` (to `score_anti`) on all rows of `table`
/// (liu2024 Eqs. 3–4, ddof = 1).
///
/// # Errors
/// [`MetricsError::Empty`] for an empty table, [`MetricsError::TooFew`] for a single row,
/// [`MetricsError::InvalidParameter`] for a non-finite score.
pub fn fit_pair_scores(table: &ScoreTable) -> Result<(Gaussian, Gaussian), MetricsError> {
    if table.is_empty() {
        return Err(MetricsError::Empty {
            what: "Gaussian fit: score table".to_owned(),
        });
    }
    let rows: Vec<&ScoreRow> = table.rows().iter().collect();
    fit_rows(&rows)
}

pub(crate) fn fit_rows(rows: &[&ScoreRow]) -> Result<(Gaussian, Gaussian), MetricsError> {
    let st: Vec<f64> = rows.iter().map(|r| r.score_stereo).collect();
    let at: Vec<f64> = rows.iter().map(|r| r.score_anti).collect();
    Ok((Gaussian::fit(&st)?, Gaussian::fit(&at)?))
}

/// Rejects an empty table and non-finite scores (naming the pair).
pub(crate) fn check_table(table: &ScoreTable, measure: &str) -> Result<(), MetricsError> {
    if table.is_empty() {
        return Err(MetricsError::Empty {
            what: format!("{measure}: score table"),
        });
    }
    for r in table.rows() {
        for (col, v) in [
            ("score_stereo", r.score_stereo),
            ("score_anti", r.score_anti),
        ] {
            if !v.is_finite() {
                return Err(MetricsError::InvalidParameter {
                    name: format!("{measure}: pair `{}` {col}", r.pair_id),
                    value: v.to_string(),
                    expected: "a finite score".to_owned(),
                });
            }
        }
    }
    Ok(())
}

/// Computes a distribution measure `f(P_st, P_at)` per bias type and overall.
pub(crate) fn measure_distribution(
    table: &ScoreTable,
    name: &str,
    no_bias: f64,
    options: &DistributionOptions,
    f: impl Fn(&Gaussian, &Gaussian) -> f64,
) -> Result<Measurement, MetricsError> {
    check_table(table, name)?;
    let mut by_type: BTreeMap<BiasType, TypeValue> = BTreeMap::new();
    let mut kept: Vec<&ScoreRow> = Vec::new();
    for (ty, rows) in table.by_bias_type() {
        if rows.len() < 2 {
            match options.small_types {
                SmallTypePolicy::Skip => continue,
                SmallTypePolicy::Error => {
                    return Err(MetricsError::SmallBiasType {
                        measure: name.to_owned(),
                        bias_type: ty.clone(),
                        got: rows.len(),
                    })
                }
            }
        }
        let (p, a) = fit_rows(&rows)?;
        by_type.insert(
            ty.clone(),
            TypeValue {
                value: f(&p, &a),
                n: rows.len(),
            },
        );
        kept.extend(rows);
    }
    if kept.is_empty() {
        return Err(MetricsError::TooFew {
            what: format!(
                "{name}: pairs in the largest bias type (every type was skipped; the standard \
                 deviation needs ddof = 1)"
            ),
            needed: 2,
            got: table
                .by_bias_type()
                .values()
                .map(Vec::len)
                .max()
                .unwrap_or(0),
        });
    }
    let value = match options.aggregation {
        Aggregation::WeightedByType => weighted_by_type(&by_type)?,
        Aggregation::Pooled => {
            let (p, a) = fit_rows(&kept)?;
            f(&p, &a)
        }
    };
    Ok(Measurement {
        measure: name.to_owned(),
        value: options.rounding.apply(value),
        no_bias,
        n: kept.len(),
        by_type,
    })
}
