//! How far a bias number can be trusted: sub-sampling robustness (Liu 2024), paraphrase
//! agreement (Kwon & Mihindukulasooriya 2022), agreement with human annotation (Kaneko &
//! Bollegala 2022), bias-controlled meta-evaluation (Kaneko, Bollegala & Okazaki 2023) and
//! test–retest reliability (Schröder, Schulz & Hammer 2024), and the reproduction of the five
//! papers' tables and figures from these pieces.
//!
//! Every analysis works on [`bias_core::ScoreTable`]s and the core traits, never on a model
//! directly, so it applies to any model a user can score (no libtorch here):
//!
//! - [`subsample_by_scorer`], [`subsample_study`]: stratified sub-sampling by bias type (liu2024
//!   Robustness Study), one study per scorer: spread of each measure per rate, whether the order
//!   of the models by the mean over the draws is the full-data order (Fig. 5), the share of
//!   single draws keeping it, Table 5;
//! - [`paraphrase_agreement`]: MDIFF, MBIAS, MAGREEMENT, MPER_AGREE and the near-tie band
//!   (paraphrase2022 §2), with [`paraphrase::crows_pairs_first100`], a paraphrase set of the
//!   first 100 CrowS-Pairs pairs rebuilt on that paper's protocol;
//! - [`human_agreement`], [`advantaged_split`]: kaneko2022's agreement with the CrowS-Pairs
//!   annotations (ROC AUC) and Table 3;
//! - [`frequency_rank`]: kaneko2022 Table 2, the frequency ranks of the group words;
//! - [`retest_study`]: test–retest reliability of embedding measures (schroeder2024 §4.1.3),
//!   WEAT re-sorted per subset ([`WeatSplit`]), and [`title_context_study`] (titles vs bios, §5.3);
//! - [`correlate_measures`]: Pearson correlation and mutual information between measures;
//! - [`controlled`]: kaneko2023's bias-controlled fine-tuning sets and the rank correlation of
//!   a measure with the rate of bias (the fine-tuning itself is `bias_plm::MlmTrainer`, or any
//!   [`bias_core::MaskedLmTrainer`]);
//! - [`summary`]: every measure of every (model, scorer) slice, overall and per bias type, with
//!   stratified bootstrap intervals, and the models ranked by each measure;
//! - [`figures`] and [`report`]: PNG/SVG figures and a self-contained HTML report that opens
//!   with the summary as heat maps (one column per model), with a table of contents;
//! - [`reproduce`]: every table and figure of the five papers from score tables and study
//!   models (what `bias reproduce PAPER` runs).
//!
//! Papers are cited by key (`liu2024`, `kaneko2022`, `paraphrase2022`, `kaneko2023`,
//! `schroeder2024`) with their own section, equation, table and figure numbers; the full
//! citations are in [`bias_core::references`] (also `docs/references.md` in the repository).
//!
//! # Example
//!
//! ```
//! use bias_robust::stratum_sizes;
//!
//! // CrowS-Pairs bias-type counts (Nangia et al. 2020); at rate 0.3 the study draws 456 pairs.
//! let counts = [516, 262, 172, 159, 105, 87, 84, 63, 60];
//! let sizes = stratum_sizes(&counts, 0.3)?;
//! assert_eq!(sizes.iter().sum::<usize>(), 456);
//! # Ok::<(), bias_robust::RobustError>(())
//! ```
#![deny(missing_docs)]

pub mod controlled;
mod correlate;
mod error;
pub mod figures;
pub mod frequency_rank;
pub mod human;
pub mod paraphrase;
pub mod report;
pub mod reproduce;
mod retest;
mod robustness;
mod stereoset;
mod subsample;
pub mod summary;

pub use correlate::{
    correlate_measures, correlate_pair_scores, correlate_pearson, CorrelateOptions,
    MeasureCorrelation, MeasurePair, PairScoreCorrelation,
};
pub use error::RobustError;
pub use human::{
    advantaged_split, counted_annotations, human_agreement, human_agreement_by, human_labels,
    human_labels_by, matching_annotations, records_scored_in, AdvantagedSplit, GroupBiasScore,
    HumanAgreement, HumanLabel, LabelRule, DEFAULT_MIN_MATCHING,
};
pub use paraphrase::{
    mbias, paraphrase_agreement, AgreementSummary, GroupAgreement, PairOutcome, ParaphraseOptions,
    ParaphraseReport, DEFAULT_NEAR_TIE,
};
pub use retest::{
    pool_deviations, retest_direct_bias, retest_same_binary, retest_study, retest_weat,
    subset_size, title_context_study, EmbedMeasure, PooledDeviation, RetestOptions, RetestReport,
    ScoreRange, ShareDeviation, TargetLabels, TitleContextReport, WeatSplit, WeatTargets,
    TITLE_CONTEXT_SHARE,
};
pub use robustness::{
    subsample_by_scorer, subsample_study, subsample_study_on_draws, ExplicitDraws, MeasureAtRate,
    RankAgreement, RepeatSummary, RobustnessOptions, RobustnessReport, ScoreGroupsAtRate,
    ScorerGrouping, ScorerStudy, SyncMeasure, LIU2024_DISTRIBUTION_SCORER,
};
pub use stereoset::{stereoset_by_scorer, ScorerStereoSet};
pub use subsample::{stratum_sizes, StratifiedSampler};
#[allow(deprecated)]
pub use {retest::RetestConfig, robustness::RobustnessConfig};
