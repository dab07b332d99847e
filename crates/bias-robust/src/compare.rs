//! Models compared on the same pairs, every difference tested and corrected: `bias compare`,
//! `bias_lm.compare` and the report's "Models compared" section.
//!
//! For every data set and scorer, each model is compared with a baseline (the first model, or
//! the one named) on the same pairs ([`bias_metrics::paired`]): the difference B − A of every
//! measure overall and per bias type, its paired bootstrap interval and its paired test
//! (McNemar's exact test for the indicators, the paired sign-flip permutation test for KLS and
//! JSS). A family is one data set's comparison table (every model, scorer, measure and bias
//! type), corrected by Holm unless the options say otherwise.
//!
//! ```
//! use bias_core::{BiasType, ScoreRow, ScoreSlice, ScoreTable};
//! use bias_metrics::MeasureSpec;
//! use bias_robust::compare::{compare_models, CompareOptions};
//!
//! let slice = |model: &str, stereo: usize| ScoreSlice {
//!     dataset: "toy".into(), scorer: "cps".into(), model: model.into(),
//!     table: ScoreTable::new((0..40).map(|i| {
//!         let st = if i < stereo { -1.0 } else { -3.0 };
//!         ScoreRow::builder(i.to_string(), BiasType::Gender, st, -2.0).model(model).build()
//!     }).collect()),
//! };
//! let rows = compare_models(
//!     &[slice("original", 30), slice("debiased", 20)],
//!     &[MeasureSpec::INDICATOR],
//!     None,
//!     &CompareOptions::default(),
//! )?;
//! let overall = &rows[0];
//! assert_eq!((overall.model_a.as_str(), overall.model_b.as_str()), ("original", "debiased"));
//! assert_eq!(overall.difference.difference, -25.0); // 50 % − 75 %
//! assert!(overall.significant); // 10 discordant pairs, all one way: McNemar p = 2/1024
//! # Ok::<(), bias_robust::RobustError>(())
//! ```

use bias_core::{AnyMeasure, ScoreSlice};
use bias_metrics::{
    align_pairs, compare_paired, FamilyOptions, MeasureSpec, NullTest, PairedDifference,
    PairedOptions,
};
use serde::{Deserialize, Serialize};

use crate::RobustError;

/// Settings of [`compare_models`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CompareOptions {
    /// The paired bootstrap and permutation settings.
    pub paired: PairedOptions,
    /// The correction over each data set's family, and α.
    pub family: FamilyOptions,
    /// Model A of every comparison; `None`: the first model met.
    pub baseline: Option<String>,
}

/// One difference B − A, corrected within its family.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelComparison {
    /// The data set.
    pub dataset: String,
    /// The scorer.
    pub scorer: String,
    /// Model A (the baseline).
    pub model_a: String,
    /// Model B.
    pub model_b: String,
    /// The difference, its interval and its paired test.
    pub difference: PairedDifference,
    /// The p-value adjusted over the data set's family.
    pub p_adjusted: f64,
    /// `p_adjusted ≤ α`.
    pub significant: bool,
    /// The number of tests in the family.
    pub family_size: usize,
    /// The correction and α of the family.
    pub family: FamilyOptions,
}

/// Every model against the baseline on every (data set, scorer) the baseline has: every
/// `measures` on every scorer, except that distributional measures (KLS, JSS) run only on
/// `distribution_scorer` when one is given (liu2024 fits them to AUL). Rows come by data set,
/// scorer (in the order met), model B and measure, overall first.
///
/// # Errors
/// [`RobustError::InvalidConfig`] for fewer than two models, a baseline that is not among them,
/// or no slice of another model that shares a (data set, scorer) with the baseline;
/// [`RobustError::Metrics`] when two tables are not on the same pairs (naming the first pair),
/// a measure fails, or the options are invalid.
pub fn compare_models(
    slices: &[ScoreSlice],
    measures: &[MeasureSpec],
    distribution_scorer: Option<&str>,
    options: &CompareOptions,
) -> Result<Vec<ModelComparison>, RobustError> {
    let mut models: Vec<&str> = Vec::new();
    for s in slices {
        if !models.contains(&s.model.as_str()) {
            models.push(&s.model);
        }
    }
    if models.len() < 2 {
        return Err(RobustError::InvalidConfig(format!(
            "a comparison needs score tables of at least two models; found {}",
            if models.is_empty() {
                "none".to_owned()
            } else {
                format!("only `{}`", models[0])
            }
        )));
    }
    let baseline = match &options.baseline {
        Some(b) if !models.contains(&b.as_str()) => {
            return Err(RobustError::InvalidConfig(format!(
                "baseline `{b}` is not a model of the score tables (they hold: {})",
                models.join(", ")
            )))
        }
        Some(b) => b.as_str(),
        None => models[0],
    };
    let mut rows: Vec<ModelComparison> = Vec::new();
    for a in slices.iter().filter(|s| s.model == baseline) {
        let specs: Vec<(&(dyn AnyMeasure + Sync), NullTest)> = measures
            .iter()
            .filter(|m| !m.is_distributional() || distribution_scorer.is_none_or(|d| d == a.scorer))
            .map(|m| (m as &(dyn AnyMeasure + Sync), m.null_test()))
            .collect();
        if specs.is_empty() {
            continue;
        }
        for b in slices
            .iter()
            .filter(|b| b.model != baseline && b.dataset == a.dataset && b.scorer == a.scorer)
        {
            let what = format!(
                "`{}` (A) and `{}` (B), scorer `{}` on `{}`",
                a.model, b.model, a.scorer, a.dataset
            );
            let aligned = align_pairs(&a.table, &b.table, &what)?;
            let differences =
                compare_paired(&specs, &a.table, &aligned, &options.paired).map_err(|e| {
                    RobustError::Measure {
                        what: format!("the comparison of {what}"),
                        source: Box::new(e),
                    }
                })?;
            rows.extend(differences.into_iter().map(|difference| ModelComparison {
                dataset: a.dataset.clone(),
                scorer: a.scorer.clone(),
                model_a: a.model.clone(),
                model_b: b.model.clone(),
                difference,
                p_adjusted: f64::NAN,
                significant: false,
                family_size: 0,
                family: options.family,
            }));
        }
    }
    if rows.is_empty() {
        return Err(RobustError::InvalidConfig(format!(
            "no other model shares a data set and scorer with the baseline `{baseline}`"
        )));
    }
    let families: Vec<&str> = rows.iter().map(|r| r.dataset.as_str()).collect();
    let p: Vec<f64> = rows.iter().map(|r| r.difference.p_value).collect();
    let verdicts = options.family.verdicts_by_family(&families, &p)?;
    for (row, (v, size)) in rows.iter_mut().zip(verdicts) {
        row.p_adjusted = v.p_adjusted;
        row.significant = v.significant;
        row.family_size = size;
    }
    Ok(rows)
}
