//! What a model can do, one trait per verb: the capabilities a paper's reproduction asks of the
//! models it studies.
//!
//! The papers compare models (Liu et al. 2024 rank three masked LMs, Kaneko et al. 2023 a grid of
//! fine-tuned ones), and several of their tables reuse one scoring of a data set. A runtime
//! implements the capabilities it has; a study states in its signature the ones it needs, so that
//! handing it a model without one is a compile error, not a run-time surprise:
//!
//! | trait | verb | asked by |
//! |---|---|---|
//! | [`DatasetScorer`] | scores a data set into a resumable score table | every reproduction |
//! | [`TokenPredictor`] | predicts tokens at masked or unmasked positions | kaneko2022 §4.2 |
//! | [`MaskFiller`] | gives the probabilities of words at a mask | kaneko2023 §3.4, TBS |
//! | [`FineTuner`] | fine-tunes a copy with the masked-LM objective | kaneko2023 §2 |
//! | [`DifferenceMasker`] | masks the tokens where two sentences differ | schroeder2024 §4.3.4 |
//! | [`Embedder`](crate::Embedder) | embeds texts | schroeder2024 §4.3.4 |
//! | [`ContinuationScorer`] | log P(continuation \| context) | BBQ, Winogender, StereoSet intersentence |
//! | [`IntoMaskedLm`] | is taken as a masked LM out of a mixed list | kaneko2023, schroeder2024 |
//!
//! [`DatasetScorer`] is built on [`PairScorer`]: any runtime gets it from
//! its pair scorer through [`crate::run::run_scoring`].
//!
//! A list that mixes runtimes (masked and causal LMs in one reproduction of Kaneko & Bollegala
//! 2022, whose token tables leave the causal ones out with a note) says which of its members
//! predict tokens through [`MaybeTokenPredictor`]; every [`TokenPredictor`] is one.

use std::path::Path;

use crate::run::RunSummary;
use crate::{PairScorer, SentencePair};

/// An error of a model runtime, boxed.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Scores a data set into a resumable score-table file: the capability every reproduction needs.
pub trait DatasetScorer {
    /// The model's name, as written to the score table's `model` column.
    fn name(&self) -> &str;

    /// The scorer conventions its scores are computed with (how SSS averages, whether CPS
    /// rounds: [`crate::ScoringConventions`]), which a reproduction records and which keep the
    /// score tables of other conventions apart; `None` for a runtime with neither of the
    /// scorers concerned (a causal LM).
    fn conventions(&self) -> Option<crate::ScoringConventions>;

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
}

/// Predicts tokens with a masked LM: the token-prediction accuracy of Kaneko & Bollegala (2022,
/// §4.2 and Tables 1 and 4).
pub trait TokenPredictor {
    /// The token ids of `sentence`, special tokens included (the first and last id are the
    /// tokenizer's special tokens, as the masked-LM scorers of Kaneko & Bollegala 2022 assume).
    ///
    /// # Errors
    /// The runtime's error, boxed.
    fn token_ids(&mut self, sentence: &str) -> Result<Vec<i64>, BoxError>;

    /// Arg-max outcomes of each query: for each [`TokenQuery`], one `bool` per target position,
    /// `true` when the model's most likely token there, with the query's masked positions
    /// replaced by the mask token, is the query's original id.
    ///
    /// # Errors
    /// The runtime's error, boxed (a position outside its query's ids, for one).
    fn predict_tokens(&mut self, queries: &[TokenQuery]) -> Result<Vec<Vec<bool>>, BoxError>;

    /// Per-token arg-max outcomes of each sentence, unmasked: one `Vec<bool>` per sentence, one
    /// entry per non-special position (all but the first and last token, the positions AUL
    /// scores; Kaneko & Bollegala 2022, Eq. 4).
    ///
    /// # Errors
    /// Those of [`TokenPredictor::token_ids`] and [`TokenPredictor::predict_tokens`].
    fn token_outcomes(&mut self, sentences: &[&str]) -> Result<Vec<Vec<bool>>, BoxError> {
        let mut queries = Vec::with_capacity(sentences.len());
        for s in sentences {
            let ids = self.token_ids(s)?;
            let targets = (1..ids.len().saturating_sub(1)).collect();
            queries.push(TokenQuery {
                ids,
                masked: Vec::new(),
                targets,
            });
        }
        self.predict_tokens(&queries)
    }
}

/// A model type some of whose values predict tokens (a list mixing masked and causal LMs): the
/// token tables of Kaneko & Bollegala (2022) study those that do and name the others. Every
/// [`TokenPredictor`] is one; a type that is not one does not compile where a study needs it.
pub trait MaybeTokenPredictor {
    /// This model as a [`TokenPredictor`], if it is one.
    fn as_token_predictor(&mut self) -> Option<&mut dyn TokenPredictor>;
}

impl<T: TokenPredictor> MaybeTokenPredictor for T {
    fn as_token_predictor(&mut self) -> Option<&mut dyn TokenPredictor> {
        Some(self)
    }
}

/// Gives the probabilities of words at a mask: the template measures of Kaneko, Bollegala &
/// Okazaki (2023).
pub trait MaskFiller {
    /// TBS per target (occupations; Kurita et al. 2019, kaneko2023 Appendix A) and the mean
    /// probabilities of *he* and *she* at the mask of `"[MASK] is a/an [occupation]."`
    /// (kaneko2023 §3.4, Figure 2).
    ///
    /// # Errors
    /// The runtime's error, boxed (a target that produces no token, ...).
    fn gender_templates(&mut self, targets: &[String]) -> Result<GenderTemplates, BoxError>;

    /// The probability (softmax over the vocabulary) of each of `words` at the one `[MASK]` of
    /// `sentence` (kaneko2023 Figure 3: `"[MASK] doesn't have time for the family due to work
    /// obligations."`).
    ///
    /// # Errors
    /// The runtime's error, boxed (no or several `[MASK]`, a word that is not one token, ...).
    fn mask_probabilities(
        &mut self,
        sentence: &str,
        words: &[String],
    ) -> Result<Vec<f64>, BoxError>;
}

/// Fine-tunes a copy of the model with the masked-LM objective: the bias-controlled models of
/// Kaneko, Bollegala & Okazaki (2023, §2), one per rate of bias.
pub trait FineTuner {
    /// The fine-tuned model: scored and probed like its base.
    type Tuned: DatasetScorer + MaskFiller;

    /// Fine-tunes a copy on `sentences` as `request` says; a folder that already holds the same
    /// run is reused.
    ///
    /// # Errors
    /// The runtime's error, boxed (no sentences, a write failure, ...).
    fn fine_tune(
        &mut self,
        sentences: &[String],
        request: &FineTuning,
    ) -> Result<Self::Tuned, BoxError>;
}

/// Masks the tokens where two sentences differ: the neutral CrowS-Pairs target of Schröder et
/// al. (2024, §4.3.4).
pub trait DifferenceMasker {
    /// `more` with every token that differs from `less` replaced by the mask token, one mask per
    /// token, decoded without the outer special tokens.
    ///
    /// # Errors
    /// The runtime's error, boxed.
    fn mask_differing_tokens(&mut self, more: &str, less: &str) -> Result<String, BoxError>;
}

/// A model of a list that mixes runtimes, which a study of masked LMs only can take as one:
/// kaneko2023 fine-tunes its models and reads their mask predictions, schroeder2024 embeds with
/// their encoders, so a reproduction of either takes every model of the list as a masked LM
/// with those capabilities, and refuses the list when one is not.
pub trait IntoMaskedLm: DatasetScorer + MaybeTokenPredictor + Sized {
    /// The model as a masked LM.
    type Masked: DatasetScorer
        + MaybeTokenPredictor
        + MaskFiller
        + FineTuner
        + DifferenceMasker
        + crate::Embedder;

    /// The masked LM, or the model back when it is none (a causal LM).
    ///
    /// # Errors
    /// The model itself, unchanged, when it is not a masked LM.
    fn into_masked(self) -> Result<Self::Masked, Self>;
}

/// Scores continuations given contexts: lm-evaluation-harness's `loglikelihood` request (Gao et
/// al. 2024, `lm_eval.api.model.LM.loglikelihood`), on which its multiple-choice tasks (BBQ,
/// Winogender) pick an answer, and on which StereoSet's causal-LM evaluation (Nadeem et al. 2021)
/// scores an intersentence continuation.
pub trait ContinuationScorer {
    /// `log P(continuation | context)` and whether the continuation is the greedy one, for every
    /// request, in order. How the two texts become tokens (where a trailing space of the context
    /// goes, whether a beginning-of-sequence token is added, how a context longer than the model's
    /// window is cut) is the runtime's to document.
    ///
    /// # Errors
    /// The runtime's error, boxed.
    fn score_continuations(
        &mut self,
        requests: &[Continuation],
    ) -> Result<Vec<ContinuationScore>, BoxError>;

    /// Checks `requests` without running the model (their token counts against the model's
    /// window, say), so that a run refuses a request it cannot score before scoring anything,
    /// and can name the document it came from. The default checks nothing: such a request then
    /// fails in [`ContinuationScorer::score_continuations`].
    ///
    /// # Errors
    /// The runtime's error for the first request it cannot score, boxed.
    fn check_continuations(&mut self, requests: &[Continuation]) -> Result<(), BoxError> {
        let _ = requests;
        Ok(())
    }
}

/// One `loglikelihood` request: a continuation scored given a context (either may hold
/// leading or trailing spaces; an empty context conditions on the model's prefix token).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Continuation {
    /// The text the continuation is conditioned on.
    pub context: String,
    /// The text whose log-probability is taken.
    pub continuation: String,
}

impl Continuation {
    /// A request for `continuation` after `context`.
    pub fn new(context: impl Into<String>, continuation: impl Into<String>) -> Self {
        Continuation {
            context: context.into(),
            continuation: continuation.into(),
        }
    }
}

/// The answer to one [`Continuation`]: lm-evaluation-harness's `(log prob, is greedy)` pair,
/// with the number of tokens scored.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContinuationScore {
    /// `Σ log P(tᵢ | context, t₁ … tᵢ₋₁)` over the continuation's tokens.
    pub log_likelihood: f64,
    /// Whether every continuation token is the model's arg-max prediction at its position.
    pub is_greedy: bool,
    /// The continuation's tokens (the summands of `log_likelihood`).
    pub tokens: usize,
}

impl<M: ContinuationScorer + ?Sized> ContinuationScorer for Box<M> {
    fn score_continuations(
        &mut self,
        requests: &[Continuation],
    ) -> Result<Vec<ContinuationScore>, BoxError> {
        (**self).score_continuations(requests)
    }

    fn check_continuations(&mut self, requests: &[Continuation]) -> Result<(), BoxError> {
        (**self).check_continuations(requests)
    }
}

/// One input of [`TokenPredictor::predict_tokens`]: token ids (special tokens included), the
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

impl<M: DatasetScorer + ?Sized> DatasetScorer for Box<M> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn conventions(&self) -> Option<crate::ScoringConventions> {
        (**self).conventions()
    }
    fn score_into(
        &mut self,
        dataset: &str,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, BoxError> {
        (**self).score_into(dataset, pairs, out)
    }
}

/// A [`PairScorer`] as a [`DatasetScorer`]: each data set scored into its table by
/// [`crate::run::run_scoring`] (resumable), fingerprinted with the model's name and digest. A
/// scorer of one's own (or a test's fake) takes part in a study this way, without a runtime of
/// its own.
#[derive(Debug, Clone)]
pub struct ScoringRun<S> {
    name: String,
    model_sha256: String,
    scorer: S,
    conventions: Option<crate::ScoringConventions>,
    chunk_pairs: usize,
}

impl<S: PairScorer> ScoringRun<S> {
    /// `scorer` on the model `name` (its digest `model_sha256` goes into each run's
    /// fingerprint), 64 pairs to a chunk, with no SSS or CPS conventions.
    pub fn new(name: impl Into<String>, model_sha256: impl Into<String>, scorer: S) -> Self {
        ScoringRun {
            name: name.into(),
            model_sha256: model_sha256.into(),
            scorer,
            conventions: None,
            chunk_pairs: 64,
        }
    }

    /// The conventions its SSS and CPS scores follow.
    pub fn with_conventions(mut self, conventions: crate::ScoringConventions) -> Self {
        self.conventions = Some(conventions);
        self
    }

    /// The scorer.
    pub fn scorer(&self) -> &S {
        &self.scorer
    }
}

impl<S: PairScorer> DatasetScorer for ScoringRun<S> {
    fn name(&self) -> &str {
        &self.name
    }

    fn conventions(&self) -> Option<crate::ScoringConventions> {
        self.conventions
    }

    fn score_into(
        &mut self,
        dataset: &str,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, BoxError> {
        let fingerprint = crate::run::RunFingerprint::new(
            self.name.clone(),
            self.model_sha256.clone(),
            dataset,
            pairs,
            &self.scorer,
            self.chunk_pairs,
        );
        Ok(crate::run::run_scoring(
            &mut self.scorer,
            pairs,
            fingerprint,
            out,
            &mut |_, _| {},
        )?)
    }
}

/// What [`FineTuner::fine_tune`] trains (Kaneko, Bollegala & Okazaki 2023, §2–3.1).
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

/// The template measures of one model ([`MaskFiller::gender_templates`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GenderTemplates {
    /// TBS per target, in order (positive: male-leaning; Kurita et al. 2019).
    pub tbs: Vec<f64>,
    /// Mean probability of *he* over the targets (Kaneko et al. 2023, Figure 2).
    pub he: f64,
    /// Mean probability of *she* over the targets.
    pub she: f64,
}

/// A [`ContinuationScorer`] that sends requests without a context (StereoSet's intrasentence
/// sentences; Nadeem et al. 2021) to `alone` and those with one (intersentence pairs) to
/// `with_context`, answering in the requests' order: a masked LM beside its next-sentence head.
#[derive(Debug)]
pub struct SplitByContext<'a, A: ?Sized, B: ?Sized> {
    /// Scores requests whose context is empty.
    pub alone: &'a mut A,
    /// Scores the others.
    pub with_context: &'a mut B,
}

impl<A, B> ContinuationScorer for SplitByContext<'_, A, B>
where
    A: ContinuationScorer + ?Sized,
    B: ContinuationScorer + ?Sized,
{
    fn check_continuations(&mut self, requests: &[Continuation]) -> Result<(), BoxError> {
        let (alone, with): (Vec<Continuation>, Vec<Continuation>) =
            requests.iter().cloned().partition(|r| r.context.is_empty());
        self.alone.check_continuations(&alone)?;
        self.with_context.check_continuations(&with)
    }

    fn score_continuations(
        &mut self,
        requests: &[Continuation],
    ) -> Result<Vec<ContinuationScore>, BoxError> {
        let (alone, with): (Vec<usize>, Vec<usize>) =
            (0..requests.len()).partition(|&i| requests[i].context.is_empty());
        let pick = |idx: &[usize]| idx.iter().map(|&i| requests[i].clone()).collect::<Vec<_>>();
        let mut out: Vec<Option<ContinuationScore>> = vec![None; requests.len()];
        for (idx, scores) in [
            (&alone, self.alone.score_continuations(&pick(&alone))?),
            (&with, self.with_context.score_continuations(&pick(&with))?),
        ] {
            if scores.len() != idx.len() {
                return Err(format!(
                    "a scorer answered {} of {} requests",
                    scores.len(),
                    idx.len()
                )
                .into());
            }
            for (&i, score) in idx.iter().zip(scores) {
                out[i] = Some(score);
            }
        }
        Ok(out.into_iter().flatten().collect())
    }
}
