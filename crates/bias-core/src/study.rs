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

    /// The scorer conventions its scores are computed with (how SSS averages, whether CPS
    /// rounds: [`crate::ScoringConventions`]), which a reproduction records and which keep the
    /// score tables of other conventions apart. `None` when the runtime has none of the scorers
    /// concerned (the default).
    fn conventions(&self) -> Option<crate::ScoringConventions> {
        None
    }

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

    /// Fine-tunes a copy of the model with the masked-LM objective on `sentences` and returns
    /// it as a model under study (the bias-controlled models of Kaneko, Bollegala & Okazaki
    /// 2023, §2: one per rate of bias). A folder that already holds the same run is reused.
    /// `Ok(None)` when the runtime cannot fine-tune (the default).
    ///
    /// # Errors
    /// The runtime's error, boxed (no sentences, a write failure, ...).
    fn fine_tune(
        &mut self,
        sentences: &[String],
        request: &FineTuning,
    ) -> Result<Option<Box<dyn StudyModel>>, BoxError> {
        let _ = (sentences, request);
        Ok(None)
    }

    /// The template measures of Kaneko, Bollegala & Okazaki (2023) on `targets` (occupations):
    /// TBS per target (Kurita et al. 2019; Appendix A) and the mean probabilities of *he* and
    /// *she* at the mask of `"[MASK] is a/an [occupation]."` (§3.4, Figure 2). `Ok(None)` when
    /// the runtime has no masked-LM head (the default).
    ///
    /// # Errors
    /// The runtime's error, boxed (a target that produces no token, ...).
    fn gender_templates(
        &mut self,
        targets: &[String],
    ) -> Result<Option<GenderTemplates>, BoxError> {
        let _ = targets;
        Ok(None)
    }

    /// The probability (softmax over the vocabulary) of each of `words` at the one `[MASK]` of
    /// `sentence` (Kaneko, Bollegala & Okazaki 2023, Figure 3: `"[MASK] doesn't have time for
    /// the family due to work obligations."`). `Ok(None)` when the runtime has no masked-LM head
    /// (the default).
    ///
    /// # Errors
    /// The runtime's error, boxed (no or several `[MASK]`, a word that is not one token, ...).
    fn mask_probabilities(
        &mut self,
        sentence: &str,
        words: &[String],
    ) -> Result<Option<Vec<f64>>, BoxError> {
        let _ = (sentence, words);
        Ok(None)
    }

    /// The token ids of `sentence`, special tokens included (the first and last id are the
    /// tokenizer's special tokens, as the masked-LM scorers of Kaneko & Bollegala 2022 assume),
    /// for the token-level analyses of Kaneko & Bollegala (2022, §4.2 and Table 4: shuffled
    /// tokens, unmodified and modified tokens of a pair). `Ok(None)` when the runtime does not
    /// expose token ids (the default).
    ///
    /// # Errors
    /// The runtime's error, boxed.
    fn token_ids(&mut self, sentence: &str) -> Result<Option<Vec<i64>>, BoxError> {
        let _ = sentence;
        Ok(None)
    }

    /// Arg-max outcomes of each query (Kaneko & Bollegala 2022, §4.2): for each
    /// [`TokenQuery`], one `bool` per target position, `true` when the model's most likely
    /// token there, with the query's masked positions replaced by the mask token, is the
    /// query's original id. `Ok(None)` when the runtime cannot predict tokens (the default).
    ///
    /// # Errors
    /// The runtime's error, boxed (a position outside its query's ids, for one).
    fn predict_tokens(
        &mut self,
        queries: &[TokenQuery],
    ) -> Result<Option<Vec<Vec<bool>>>, BoxError> {
        let _ = queries;
        Ok(None)
    }

    /// Sentence embeddings of `texts`, one row each (Schröder et al. 2024 §4.3.4 embed the
    /// masked CrowS-Pairs sentences and the defining-set terms with the model under study).
    /// `Ok(None)` when the runtime cannot embed (the default).
    ///
    /// # Errors
    /// The runtime's error, boxed.
    fn embed(&mut self, texts: &[&str]) -> Result<Option<ndarray::Array2<f32>>, BoxError> {
        let _ = texts;
        Ok(None)
    }

    /// `more` with every token that differs from `less` replaced by the mask token, one mask
    /// per token, decoded without the outer special tokens: the neutral CrowS-Pairs target of
    /// Schröder et al. (2024, §4.3.4). `Ok(None)` when the runtime has no tokenizer with a mask
    /// token (the default).
    ///
    /// # Errors
    /// The runtime's error, boxed.
    fn mask_differing_tokens(
        &mut self,
        more: &str,
        less: &str,
    ) -> Result<Option<String>, BoxError> {
        let _ = (more, less);
        Ok(None)
    }
}

/// One input of [`StudyModel::predict_tokens`]: token ids (special tokens included), the
/// positions to replace by the mask token (none for AUL's unmasked pass; each unmodified token
/// alone for CPS; all modified tokens at once for SSS — Kaneko & Bollegala 2022, Eqs. 2–4), and
/// the positions whose arg-max prediction is compared with `ids`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TokenQuery {
    /// Token ids, special tokens included.
    pub ids: Vec<i64>,
    /// Positions replaced by the mask token.
    pub masked: Vec<usize>,
    /// Positions whose prediction is read, in the order of the outcomes.
    pub targets: Vec<usize>,
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
    fn conventions(&self) -> Option<crate::ScoringConventions> {
        (**self).conventions()
    }
    fn token_outcomes(&mut self, sentences: &[&str]) -> Result<Option<Vec<Vec<bool>>>, BoxError> {
        (**self).token_outcomes(sentences)
    }
    fn fine_tune(
        &mut self,
        sentences: &[String],
        request: &FineTuning,
    ) -> Result<Option<Box<dyn StudyModel>>, BoxError> {
        (**self).fine_tune(sentences, request)
    }
    fn gender_templates(
        &mut self,
        targets: &[String],
    ) -> Result<Option<GenderTemplates>, BoxError> {
        (**self).gender_templates(targets)
    }
    fn mask_probabilities(
        &mut self,
        sentence: &str,
        words: &[String],
    ) -> Result<Option<Vec<f64>>, BoxError> {
        (**self).mask_probabilities(sentence, words)
    }
    fn token_ids(&mut self, sentence: &str) -> Result<Option<Vec<i64>>, BoxError> {
        (**self).token_ids(sentence)
    }
    fn predict_tokens(
        &mut self,
        queries: &[TokenQuery],
    ) -> Result<Option<Vec<Vec<bool>>>, BoxError> {
        (**self).predict_tokens(queries)
    }
    fn embed(&mut self, texts: &[&str]) -> Result<Option<ndarray::Array2<f32>>, BoxError> {
        (**self).embed(texts)
    }
    fn mask_differing_tokens(
        &mut self,
        more: &str,
        less: &str,
    ) -> Result<Option<String>, BoxError> {
        (**self).mask_differing_tokens(more, less)
    }
}

/// What [`StudyModel::fine_tune`] trains (Kaneko, Bollegala & Okazaki 2023, §2–3.1).
#[derive(Debug, Clone, PartialEq)]
pub struct FineTuning {
    /// Optimiser and objective settings.
    pub options: crate::TrainingOptions,
    /// Longest training sequence in tokens (special tokens included).
    pub max_length: usize,
    /// The folder the fine-tuned model is saved to (reused when it holds the same run).
    pub dir: std::path::PathBuf,
    /// The fine-tuned model's name (its score tables' `model` column).
    pub name: String,
}

/// The template measures of one model ([`StudyModel::gender_templates`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GenderTemplates {
    /// TBS per target, in order (positive: male-leaning; Kurita et al. 2019).
    pub tbs: Vec<f64>,
    /// Mean probability of *he* over the targets (Kaneko et al. 2023, Figure 2).
    pub he: f64,
    /// Mean probability of *she* over the targets.
    pub she: f64,
}
