//! The one error type of the crate.

use std::path::PathBuf;

/// What can go wrong running a task.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// The model failed to score continuations.
    #[error("scoring documents {first}..{end}: {source}")]
    Model {
        /// The first document of the failed chunk.
        first: usize,
        /// One past its last document.
        end: usize,
        /// The runtime's error.
        #[source]
        source: bias_core::BoxError,
    },
    /// The model failed to generate.
    #[error("generating for prompts {} to {end} (of the run's, from 1): {source}", first + 1)]
    Generation {
        /// The first prompt of the failed chunk (from 0).
        first: usize,
        /// One past its last prompt.
        end: usize,
        /// The runtime's error.
        #[source]
        source: bias_core::BoxError,
    },
    /// A document has a request the model cannot score (a continuation longer than its
    /// window, say), found by [`bias_core::ContinuationScorer::check_continuations`] before
    /// anything was scored.
    #[error("{what}: a request of it cannot be scored (the cause says which and why)")]
    Document {
        /// The document's index among the run's documents.
        doc: usize,
        /// The document, as its task names it (`document 7`; BBQ: `BBQ example_id 16 of
        /// Age.jsonl`).
        what: String,
        /// The runtime's error.
        #[source]
        source: bias_core::BoxError,
    },
    /// The model answered a different number of requests than it was asked.
    #[error("the model answered {got} of {asked} requests")]
    AnswerCount {
        /// Requests asked.
        asked: usize,
        /// Answers received.
        got: usize,
    },
    /// A log-likelihood that is not a finite number.
    #[error("document {doc}, choice {choice}: log-likelihood {value} is not finite (weights holding NaN or inf, or half precision overflowing); nothing of its chunk was written. Try --dtype f32 if the model ran in half precision; else check the checkpoint (a diverged fine-tune?)")]
    NonFinite {
        /// The document.
        doc: usize,
        /// The choice.
        choice: usize,
        /// The value.
        value: f64,
    },
    /// A document without choices.
    #[error("document {doc}: no choices to score")]
    NoChoices {
        /// The document.
        doc: usize,
    },
    /// A run log that cannot be resumed.
    #[error("{path}: not resuming: {reason}; delete the file to start over, or write elsewhere")]
    NotResuming {
        /// The log file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Reading or writing a file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A data set that does not fit the task.
    #[error(transparent)]
    Data(#[from] bias_data::DataError),
    /// A document the task cannot use, with the reason and what to do.
    #[error("{what}: {reason}")]
    InvalidDocument {
        /// The document (its data set and id).
        what: String,
        /// Why.
        reason: String,
    },
}
