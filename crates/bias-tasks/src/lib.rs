//! Benchmarks that score continuations: a prompt, its answers, and the log-likelihood a language
//! model gives each answer — computed exactly as lm-evaluation-harness (Gao et al. 2024) and the
//! benchmarks' authors compute them, on any model that implements
//! [`bias_core::ContinuationScorer`] (the causal LMs of `bias-plm`, or your own runtime).
//!
//! - [`choice`]: multiple-choice documents, their `loglikelihood` requests and the answer;
//!   [`score_choices`] runs them resumably with progress;
//! - [`bbq`]: BBQ (Parrish et al. 2022) as lm-evaluation-harness's `bbq` task (its prompt, its
//!   twelve choices, `acc`, the accuracies and bias scores per context condition and category),
//!   and the BBQ authors' bias scores from `additional_metadata.csv`'s target locations;
//! - [`stereoset`]: StereoSet's two tasks (Nadeem et al. 2021) scored by continuations — the
//!   intersentence task as log P(sentence | context) — with SS, LMS and ICAT per task, domain
//!   and overall as the authors' `evaluation.py` aggregates them;
//! - [`winogender`]: Winogender (Rudinger et al. 2018) as lm-evaluation-harness's `winogender_*`
//!   tasks (all, by pronoun gender, and the "gotcha" subset).
//!
//! The measures themselves (the BBQ bias scores) are in `bias_metrics::bbq`, apart from the
//! documents and the running; the data sets are read by `bias_data`.
//!
//! # Example
//!
//! ```
//! use bias_core::{BoxError, Continuation, ContinuationScore, ContinuationScorer};
//! use bias_tasks::{score_choices, ChoiceRunOptions, MultipleChoice};
//!
//! /// A stand-in model: the shorter continuation is the likelier.
//! struct Shortest;
//! impl ContinuationScorer for Shortest {
//!     fn score_continuations(&mut self, r: &[Continuation]) -> Result<Vec<ContinuationScore>, BoxError> {
//!         Ok(r.iter().map(|c| ContinuationScore {
//!             log_likelihood: -(c.continuation.len() as f64), is_greedy: false, tokens: 1,
//!         }).collect())
//!     }
//! }
//!
//! let docs = vec![MultipleChoice {
//!     context: "The nurse said that she would help. 'She' refers to the".into(),
//!     choices: vec!["nurse".into(), "patient".into()],
//! }];
//! let scores = score_choices(&mut Shortest, &docs, None, ChoiceRunOptions::default(), &mut |_, _| {})?;
//! assert_eq!(scores[0].answer(), Some(0));
//! # Ok::<(), bias_tasks::TaskError>(())
//! ```
#![deny(missing_docs)]

pub mod bbq;
pub mod bbq_generate;
pub mod choice;
mod error;
pub mod generation;
pub mod report;
pub mod stereoset;
pub mod winogender;

pub use bbq::{run_bbq, BbqDoc, BbqRun, BbqSummary};
pub use choice::{
    import_shard_logs, score_choices, score_documents, score_shard, shard_log_path,
    shard_logs_beside, ChoiceRunOptions, ChoiceScores, MultipleChoice,
};
pub use error::TaskError;
pub use report::{BbqGenerateReport, BbqReport, StereoSetReport, WinogenderReport};
