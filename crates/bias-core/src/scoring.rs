//! Scoring pairs: the trait every model runtime implements, and what it returns.
//!
//! A [`PairScorer`] receives pairs in batches and returns one [`PairOutcome`] per pair: the scores
//! of each of its scorers, or the reason the pair could not be scored. The resumable run of
//! [`crate::run`] drives any implementation — the pseudo-log-likelihood scorers of `bias-plm`,
//! an ONNX or candle model, a remote API, or a count-based language model.

use std::fmt;

use crate::{ScorerName, SentencePair};

/// A sentence's score and the token counts behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SentenceScore {
    /// The score (a log-likelihood variant: higher = the model finds the sentence more likely).
    pub score: f64,
    /// Number of token positions that contributed to the score.
    pub scored_tokens: usize,
    /// How many of those positions the model predicted correctly (arg-max = original token), for
    /// the token-prediction accuracy of Kaneko & Bollegala (2022, Table 1); `None` when the
    /// runtime does not know (an API that returns only log-probabilities).
    pub correct_predictions: Option<usize>,
}

/// The scores of one pair under one scorer.
#[derive(Debug, Clone, PartialEq)]
pub struct PairScore {
    /// The scorer's name, as written to the score table's `scorer` column (`aul`, `cps`, ...);
    /// one of [`PairScorer::scorer_names`].
    pub scorer: ScorerName,
    /// Score of the stereotypical sentence.
    pub stereo: SentenceScore,
    /// Score of the anti-stereotypical sentence.
    pub anti: SentenceScore,
}

/// A scorer that could not score one pair, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unscorable {
    /// The scorer's name.
    pub scorer: ScorerName,
    /// Why, in words (for example "a sentence without modified tokens" for SSS).
    pub reason: String,
}

/// Why no scorer could score a pair.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// Both sentences tokenise to the same ids: no model can tell them apart.
    IdenticalTokens,
    /// Another reason, in words.
    Other(String),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::IdenticalTokens => f.write_str("both sentences tokenise identically"),
            SkipReason::Other(why) => f.write_str(why),
        }
    }
}

/// What became of one pair.
#[derive(Debug, Clone, PartialEq)]
pub enum PairOutcome {
    /// Scored under the scorer's scorers, in their order.
    Scored {
        /// One entry per scorer that could score the pair.
        scores: Vec<PairScore>,
        /// Scorers that could not score this pair (reported, never a NaN).
        unscorable: Vec<Unscorable>,
    },
    /// No scorer could score the pair. Counted, never dropped silently.
    Skipped(SkipReason),
}

/// Scores sentence pairs in batches: the pseudo-log-likelihood scorers of `bias-plm` (SSS, CPS,
/// AUL, AULA, all-masked, PLL), a causal LM's log-likelihood, or any runtime of your own.
///
/// A batch is scored at once so that an implementation can share work across pairs (one padded
/// forward pass for many sentences, a forward pass used by two scorers). An implementation
/// tokenises with its own tokenizer; scorers that compare the two sentences of a pair (CPS, SSS)
/// align them themselves.
///
/// # Contract
///
/// [`PairScorer::score_pairs`] returns exactly one outcome per input pair, in order, and every
/// [`PairScore::scorer`] is one of [`PairScorer::scorer_names`]. The runs of [`crate::run`]
/// check both and fail with [`crate::RunError::Contract`] otherwise, so nothing is dropped
/// silently.
///
/// # Example
///
/// A scorer that prefers shorter sentences:
///
/// ```
/// use bias_core::{PairOutcome, PairScore, PairScorer, SentencePair, SentenceScore};
///
/// struct Shorter;
///
/// impl PairScorer for Shorter {
///     type Error = std::convert::Infallible;
///     fn scorer_names(&self) -> Vec<String> {
///         vec!["shorter".into()]
///     }
///     fn score_pairs(&mut self, pairs: &[SentencePair]) -> Result<Vec<PairOutcome>, Self::Error> {
///         let score = |s: &str| SentenceScore {
///             score: -(s.len() as f64),
///             scored_tokens: s.split_whitespace().count(),
///             correct_predictions: None,
///         };
///         Ok(pairs
///             .iter()
///             .map(|p| PairOutcome::Scored {
///                 scores: vec![PairScore {
///                     scorer: "shorter".into(),
///                     stereo: score(&p.stereo),
///                     anti: score(&p.anti),
///                 }],
///                 unscorable: Vec::new(),
///             })
///             .collect())
///     }
/// }
/// ```
pub trait PairScorer {
    /// The scorer's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The names written to the score table's `scorer` column, in the order outcomes list them.
    fn scorer_names(&self) -> Vec<String>;

    /// Every setting that can change a number, as text (part of a run's fingerprint, so that a
    /// run is not resumed with other settings). Empty by default.
    fn settings(&self) -> String {
        String::new()
    }

    /// Scores a batch of pairs: one outcome per pair, in order.
    ///
    /// # Errors
    /// Implementation-defined (a sentence too long for the model, a device error, ...); the
    /// error should name the offending pair.
    fn score_pairs(&mut self, pairs: &[SentencePair]) -> Result<Vec<PairOutcome>, Self::Error>;

    /// Refuses, before anything is scored, the first pair that [`PairScorer::score_pairs`]
    /// would fail on for what it holds rather than for the machine (a sentence longer than the
    /// model accepts, with truncation off), as `Err((index in pairs, error))`, so that a long run
    /// does not stop half-way on a bad line. Accepts everything by default.
    ///
    /// # Errors
    /// The first pair that cannot be scored, and why.
    fn check_pairs(&mut self, pairs: &[SentencePair]) -> Result<(), (usize, Self::Error)> {
        let _ = pairs;
        Ok(())
    }
}

impl<S: PairScorer + ?Sized> PairScorer for &mut S {
    type Error = S::Error;
    fn scorer_names(&self) -> Vec<String> {
        (**self).scorer_names()
    }
    fn settings(&self) -> String {
        (**self).settings()
    }
    fn score_pairs(&mut self, pairs: &[SentencePair]) -> Result<Vec<PairOutcome>, Self::Error> {
        (**self).score_pairs(pairs)
    }
    fn check_pairs(&mut self, pairs: &[SentencePair]) -> Result<(), (usize, Self::Error)> {
        (**self).check_pairs(pairs)
    }
}
