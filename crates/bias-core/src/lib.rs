//! Shared types and traits for measuring social bias in language models.
//!
//! Every other crate of the workspace speaks through the items here:
//!
//! - [`SentencePair`]: one benchmark item (a stereotypical and an anti-stereotypical sentence),
//!   produced by `bias-data`, consumed by scorers;
//! - [`PairScorer`]: pairs in, per-scorer sentence scores (or a skip with its reason) out
//!   (pseudo-log-likelihood variants in `bias-plm`, or your own model runtime);
//! - [`run`]: resumable, fingerprinted scoring of a data set into a score-table CSV, for any
//!   [`PairScorer`];
//! - [`ScoreTable`]: the per-pair scores, the contract between the expensive scoring half and the
//!   cheap analysis half, with CSV and JSON round trips;
//! - [`BiasMeasure`]: a score table in, a [`Measurement`] out (`bias-metrics`);
//! - [`Embedder`]: texts in, one vector each out (`bias-plm`, static word vectors in `bias-embed`);
//! - [`capability`]: what a model under study can do, one trait per verb ([`DatasetScorer`],
//!   [`TokenPredictor`], [`MaskFiller`], [`FineTuner`], [`DifferenceMasker`]), so that a
//!   reproduction states in its signature what it needs;
//! - [`MaskedLmTrainer`]: sentences in, a fine-tuned model out (bias-controlled experiments);
//! - [`ScorerName`], [`DatasetName`], [`ModelName`]: a score table's identities as types, and
//!   [`Scorer`], the one spelling of the workspace's scorer names;
//! - [`Choice`]: options with named values (names, aliases, help), named once where they are
//!   defined, so that every front end parses and lists them alike.
//!
//! The crate implements no measure itself: a [`SentencePair`] is the stereotypical /
//! anti-stereotypical pair of CrowS-Pairs (Nangia et al. 2020) and StereoSet (Nadeem et al.
//! 2021), and a [`ScoreTable`] holds what the measures of Kaneko & Bollegala (2022), Liu (2024),
//! Kwon & Mihindukulasooriya (2022) and Kaneko, Bollegala & Okazaki (2023) are computed from.
//!
//! # References
//!
//! [`references`] is the bibliography of the whole workspace: the full citation of every paper
//! the crates implement or cite, under the short keys (`kaneko2022`, `liu2024 Eq. 6`,
//! `schroeder2024 §3`, …) the documentation uses.
//!
//! # Example
//!
//! ```
//! use bias_core::{BiasType, Direction, ScoreRow, ScoreTable};
//!
//! let row = ScoreRow {
//!     pair_id: "0".into(),
//!     dataset: "crows-pairs".into(),
//!     bias_type: BiasType::Gender,
//!     direction: Direction::Stereo,
//!     stereo: "She can't drive.".into(),
//!     anti: "He can't drive.".into(),
//!     score_stereo: -2.5,
//!     score_anti: -2.9,
//!     scorer: "aul".into(),
//!     model: "bert-base-uncased".into(),
//!     tokens_stereo: None,
//!     tokens_anti: None,
//!     group_id: None,
//! };
//! let table = ScoreTable::new(vec![row]);
//! let mut csv = Vec::new();
//! table.write_csv(&mut csv)?;
//! let back = ScoreTable::read_csv(csv.as_slice(), "memory")?;
//! assert_eq!(back, table);
//! assert!(back.rows()[0].prefers_stereo());
//! # Ok::<(), bias_core::CoreError>(())
//! ```
#![deny(missing_docs)]

#[doc = include_str!("references.md")]
pub mod references {}

mod bias_type;
pub mod capability;
mod choice;
pub mod conventions;
mod error;
pub mod generation;
mod measurement;
mod names;
mod pair;
pub mod progress;
pub mod run;
mod score_table;
mod scorer_name;
mod scoring;
mod traits;

pub use bias_type::{BiasType, Direction};
pub use capability::{
    BoxError, Continuation, ContinuationScore, ContinuationScorer, DatasetScorer, DifferenceMasker,
    FineTuner, FineTuning, GenderTemplates, IntoMaskedLm, MaskFiller, MaybeTokenPredictor,
    ScoringRun, SplitByContext, TokenPredictor, TokenQuery,
};
pub use choice::{Choice, Named};
pub use conventions::{CpsRounding, ScoringConventions, SssAverage};
pub use error::CoreError;
pub use generation::{Finish, Generation, GenerationOptions, TextGenerator};
pub use measurement::{Measurement, TypeValue};
pub use names::{DatasetName, ModelName, ScorerName};
pub use pair::SentencePair;
pub use run::RunError;
pub use score_table::{
    ScoreRow, ScoreRowBuilder, ScoreSlice, ScoreTable, ScoreTableWriter, SCORE_TABLE_COLUMNS,
    SCORE_TABLE_HEADER,
};
pub use scorer_name::Scorer;
pub use scoring::{PairOutcome, PairScore, PairScorer, SentenceScore, SkipReason, Unscorable};
pub use traits::{AnyMeasure, BiasMeasure, Embedder, MaskedLmTrainer, TextLayout, TrainingOptions};
