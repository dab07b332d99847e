//! The bias-controlled meta-evaluation of kaneko2023: rank-correlate each bias measure with the
//! rate of bias of models fine-tuned on known shares of male sentences.
//!
//! kaneko2023 §2 fine-tunes one model per rate of bias `r ∈ [0, 1]` (the share of male
//! sentences in its training data; §3.1 uses r = 0, 0.1, …, 1), scores every model with every
//! measure, and reports Spearman's ρ between the rates and the scores (Table 1; the text says
//! "Pearson's rank correlation", Spearman's ρ is what a rank correlation of two lists is). A
//! measure that tracks the controlled bias gets a high ρ. §3.4 checks that the control worked:
//! the mean probabilities of *he* and *she* in `[MASK] is a/an [occupation].` should rise and
//! fall with `r`.
//!
//! [`measure_rate`] measures one rate's model (its score table, TBS and probes) through the
//! capabilities of `bias_core::capability`; the rest of this module is the analysis half, on
//! score tables:
//!
//! 1. [`orient_by_gender`] turns CrowS-Pairs gender pairs, whose male sentence is sometimes the
//!    stereotypical one and sometimes not, into male-vs-female pairs (`stereo` = the male
//!    sentence), so that the indicator reads "% of pairs where the male sentence scores higher"
//!    and rises with `r` for an accurate measure (kaneko2023 §1);
//! 2. [`controlled_study`] computes, per scorer and measure, the value at every rate, ρ with
//!    its p-value, and a seeded bootstrap interval of ρ over the evaluation items; the same for
//!    template scores (TBS, kaneko2023 Appendix A); and the he/she probe of §3.4;
//! 3. [`ControlledReport::to_markdown`], [`ControlledReport::to_csv`] and
//!    `bias_report::figures::controlled_trends` present the result.
//!
//! The code is split by concern: `orientation` (step 1, on the word lists of
//! [`bias_data::corpus::GenderWords`]), `study` (the inputs, options and checks of step 2),
//! `trend` (its outputs: values, ρ and intervals) and `presentation` (tables, Markdown, CSV).
//!
//! # Signed and unsigned measures
//!
//! The indicator on oriented pairs and a signed template score (male − female) say *which*
//! gender a model favours, so they should rise with `r`: ρ with `r` is their test. KLS and JSS
//! (liu2024) are symmetric in the two score distributions: they say *how far* male and female
//! scores differ, not which side is favoured, so across r = 0 … 1 they are expected to fall
//! and rise again (KLS: lowest, JSS: highest near r = 0.5). Their ρ with `r` is reported for
//! completeness and flagged by [`MeasureTrend::signed`] = `false`; read their values, or their
//! figure panel, instead.
//!
//! # Example
//!
//! ```
//! use bias_core::{BiasType, Direction, ScoreRow, ScoreTable};
//! use bias_robust::controlled::{controlled_study, ControlledOptions, RateEvaluation};
//!
//! // Ten pairs per model; the male sentence wins in 2, 5 and 8 of them.
//! let table = |rate: f64, wins: usize| -> ScoreTable {
//!     (0..10)
//!         .map(|i| ScoreRow {
//!             pair_id: i.to_string(), dataset: "crows-pairs".into(),
//!             bias_type: BiasType::Gender, direction: Direction::Stereo,
//!             stereo: "He cooks.".into(), anti: "She cooks.".into(),
//!             score_stereo: if i < wins { -1.0 } else { -3.0 },
//!             score_anti: -2.0 - 0.1 * i as f64,
//!             scorer: "aul".into(), model: format!("bert-r{rate}").into(),
//!             tokens_stereo: None, tokens_anti: None, group_id: None,
//!         })
//!         .collect()
//! };
//! let evals: Vec<RateEvaluation> = [(0.0, 2), (0.5, 5), (1.0, 8)]
//!     .into_iter()
//!     .map(|(rate, wins)| RateEvaluation {
//!         rate, model: format!("bert-r{rate}").into(), pairs: table(rate, wins),
//!         templates: vec![], probe: None,
//!     })
//!     .collect();
//! let report = controlled_study(&evals, &ControlledOptions::default())?;
//! let indicator = report.trend("AUL indicator").unwrap();
//! assert_eq!(indicator.values, vec![20.0, 50.0, 80.0]);
//! assert_eq!(indicator.rho, Some(1.0));
//! # Ok::<(), bias_robust::RobustError>(())
//! ```

mod orientation;
mod presentation;
mod rate;
mod study;
mod trend;

pub use orientation::{
    kaneko2023_word_lists, male_side, male_side_by_words, orient_by_gender, orient_by_gender_words,
    MaleSide, OrientationError, Unoriented,
};
pub use rate::{measure_rate, RateInputs, RateMeasurement};
pub use study::{
    controlled_study, controlled_study_with, ControlledOptions, Probe, RateEvaluation, StudyMeasure,
};
pub use trend::{ControlledReport, MeasureTrend};
