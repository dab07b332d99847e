//! A model under study: what a reproduction of a paper's tables asks of a model.
//!
//! The papers compare models (Liu et al. 2024 rank three masked LMs, Kaneko et al. 2023 a grid of
//! fine-tuned ones), and several of their tables reuse one scoring of a data set. A
//! [`StudyModel`] names the model and scores a data set, resumably, into a score-table file;
//! the reproduction code (`bias_robust::reproduce`) scores each (model, data set) once and reuses
//! the table. `bias-plm` implements it for its masked and causal LMs; any runtime can
//! implement it through its [`PairScorer`](crate::PairScorer) and [`crate::run::run_scoring`].

use std::path::Path;

use crate::run::RunSummary;
use crate::SentencePair;

/// An error of a model runtime, boxed.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A model a paper's reproduction studies.
pub trait StudyModel {
    /// The model's name, as written to the score table's `model` column.
    fn name(&self) -> &str;

    /// Scores `pairs` (of the data set named `dataset`) with every scorer the model has into the
    /// score table `out`, resuming a run left there by the same model, data and scorers
    /// ([`crate::run::run_scoring`] does exactly this for any [`crate::PairScorer`]).
    ///
    /// # Errors
    /// The runtime's or the run's error, boxed.
    fn score_into(
        &mut self,
        dataset: &str,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, BoxError>;

    /// Per-token arg-max outcomes of each sentence, unmasked (the token-prediction accuracy of
    /// Kaneko & Bollegala 2022, §4.2): one `Vec<bool>` per sentence, one entry per scored token
    /// (`true` = the model's most likely token is the original). `Ok(None)` when the runtime
    /// cannot predict tokens (the default).
    ///
    /// # Errors
    /// The runtime's error, boxed.
    fn token_outcomes(&mut self, sentences: &[&str]) -> Result<Option<Vec<Vec<bool>>>, BoxError> {
        let _ = sentences;
        Ok(None)
    }
}

impl<M: StudyModel + ?Sized> StudyModel for Box<M> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn score_into(
        &mut self,
        dataset: &str,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, BoxError> {
        (**self).score_into(dataset, pairs, out)
    }
    fn token_outcomes(&mut self, sentences: &[&str]) -> Result<Option<Vec<Vec<bool>>>, BoxError> {
        (**self).token_outcomes(sentences)
    }
}
