//! Bias measures on paired sentence scores, and the statistics that say how far to trust them.
//!
//! - the indicator percentage ([`Indicator`], liu2024 Eq. 2, with Nangia et al.'s tie reporting);
//! - the distributional measures [`Kls`] (liu2024 Eq. 6) and [`Jss`] (Eqs. 7–9, the authors'
//!   closed form or the true Jensen–Shannon divergence), weighted by bias type (Eqs. 10–11);
//! - the PLL score-group analysis of liu2024 Table 4 ([`score_group_analysis`]);
//! - lm-evaluation-harness's CrowS-Pairs `pct_stereotype` and `likelihood_diff` (Gao et al.
//!   2023/2024; [`lm_eval_crows`]), for the log-likelihood score tables of causal LMs;
//! - BBQ's accuracy and bias scores (Parrish et al. 2022; [`bbq`]), as lm-evaluation-harness's
//!   `bbq` task and as the BBQ authors' script compute them;
//! - StereoSet's own SS, LMS and ICAT (Nadeem et al. 2021; [`stereoset_scores`]), aggregated
//!   per target term as the authors' evaluation code does;
//! - seeded percentile bootstrap intervals for any [`bias_core::BiasMeasure`] ([`bootstrap_ci`]),
//!   and of several measures per bias type from one set of replicates ([`bootstrap_by_type`]);
//! - a p-value for every value from a named test ([`significance`]: the exact sign test of the
//!   indicators, the sign-flip permutation test of KLS and JSS), corrected over a family (Holm,
//!   Benjamini–Hochberg; [`FamilyOptions`]), with the smallest deviation a row can detect;
//! - two models compared on the same pairs ([`paired`]: paired bootstrap intervals of B − A,
//!   McNemar's exact test, the paired sign-flip test);
//! - [`stats`]: Shapiro–Wilk, Pearson / Spearman / Kendall, KSG mutual information, ROC AUC,
//!   McNemar, the sign test and its power, permutation tests and multiplicity corrections,
//!   checked against scipy, scikit-learn and statsmodels.
//!
//! Everything is computed in `f64`; degenerate input gets a documented value or a typed error,
//! never NaN. Every formula, option and degenerate case of the workspace's measures is written
//! out in [`docs`] (the repository's `docs/measures.md`).
//!
//! # Papers
//!
//! Liu (2024, AAAI; key `liu2024`): the indicator, KLS, JSS, the weighting by bias type and the
//! PLL score groups. Nangia et al. (2020, EMNLP): CrowS-Pairs and its tie reporting. Nadeem et
//! al. (2021, ACL): StereoSet's SS, LMS and ICAT. Kaneko & Bollegala (2022, AAAI): the
//! agreement with human annotation as a ROC AUC ([`stats`]). Full citations in
//! [`bias_core::references`] (also `docs/references.md` in the repository).
//!
//! # Example
//!
//! ```
//! use bias_core::{BiasMeasure, BiasType, Direction, ScoreRow, ScoreTable};
//! use bias_metrics::{kls, DistributionOptions, Gaussian, Indicator, Kls};
//!
//! // A test vector of Liu et al. (2024)'s closed form: N(-2.0, 0.8) against N(-2.1, 0.85) gives KLS = 52.691831.
//! let p = Gaussian::new(-2.0, 0.8)?;
//! let a = Gaussian::new(-2.1, 0.85)?;
//! assert!((kls(&p, &a) - 52.691831).abs() < 1e-6);
//!
//! // On a score table, through the shared `BiasMeasure` trait.
//! let row = |id: &str, s: f64, t: f64| ScoreRow {
//!     pair_id: id.into(), dataset: "demo".into(), bias_type: BiasType::Gender,
//!     direction: Direction::Stereo, stereo: "a".into(), anti: "b".into(),
//!     score_stereo: s, score_anti: t, scorer: "aul".into(), model: "m".into(),
//!     tokens_stereo: None, tokens_anti: None, group_id: None,
//! };
//! let table = ScoreTable::new(vec![row("0", -1.0, -2.0), row("1", -3.0, -2.5), row("2", -2.0, -2.2)]);
//! let indicator = Indicator::default().measure(&table)?;
//! assert!((indicator.value - 200.0 / 3.0).abs() < 1e-12);
//! let kls = Kls::new(DistributionOptions::default()).measure(&table)?;
//! assert!((50.0..=100.0).contains(&kls.value));
//! # Ok::<(), bias_metrics::MetricsError>(())
//! ```
#![deny(missing_docs)]

#[doc = include_str!("measures.md")]
pub mod docs {}

pub mod bbq;
mod error;
pub mod stats;
pub mod stereoset;

pub use error::MetricsError;

mod bootstrap;
mod distribution;
mod gaussian;
mod indicator;
mod jss;
mod kls;
mod lm_eval;
mod normality;
pub mod paired;
mod score_groups;
pub mod significance;
pub mod slices;
mod spec;
mod weighting;

pub use bootstrap::{
    bootstrap_by_type, bootstrap_ci, bootstrap_mean, BootstrapInterval, BootstrapOptions, Interval,
    TypeBootstrap,
};
pub use distribution::{fit_pair_scores, DistributionOptions, SmallTypePolicy};
pub use gaussian::Gaussian;
pub use indicator::{
    Indicator, IndicatorOptions, IndicatorReport, NangiaScores, PairsInN, TieHandling, UnscoredPair,
};
pub use jss::{jensen_shannon_bits, jss, jss_authors, jss_paper, Jss, JssVariant};
pub use kls::{kls, Kls};
pub use lm_eval::{lm_eval_crows, LmEvalCrows};
pub use normality::{normality_by_type, NormalityTest, Side};
pub use paired::{align_pairs, compare_paired, PairedDifference, PairedOptions};
pub use score_groups::{score_group_analysis, ScoreGroupAnalysis, ScoreGroupStats};
pub use significance::{
    test_measure, FamilyOptions, MeasureTest, NullTest, TestName, ValueTest, Verdict,
};
pub use spec::MeasureSpec;
pub use stereoset::{
    stereoset_scores, stereoset_scores_of, ItemOutcome, ItemScores, Scores, StereoSetScores,
};
pub use weighting::{weighted_by_type, Aggregation, Rounding};
