//! The pseudo-log-likelihood of a continuation given its context, with a masked LM: the
//! [`ContinuationScorer`] of masked LMs, for StereoSet's intersentence task (Nadeem et al. 2021)
//! on a model without a next-sentence head.
//!
//! `context + continuation` is encoded with the tokenizer's special tokens (`[CLS] … [SEP]`);
//! the continuation's tokens are the last of the non-special ones, as many as `context +
//! continuation` has more than `context` alone (both encoded without special tokens). Each of
//! them is masked in turn (one copy of the sequence per token, the context never masked), and
//! `log P(token | the rest)` is summed: the PLL of Salazar et al. (2020, "Masked language model
//! scoring", ACL), restricted to the continuation. `is_greedy` is whether every masked token is
//! the model's arg-max. An empty context gives the PLL of the whole text.
//!
//! This is *a* conditional score for masked LMs, stated as such: StereoSet's own evaluation of
//! BERT reads its next-sentence head instead (`eval_discriminative_models.py`), which
//! [`crate::NextSentenceModel`] reads where the checkpoint carries it.

use bias_core::{BoxError, Continuation, ContinuationScore, ContinuationScorer};

use crate::engine::{Engine, Job, Target};
use crate::scorer::SpecialIds;
use crate::{EngineStats, MaskedLm, PlmError, PlmTokenizer, ScoringOptions};

/// The pseudo-log-likelihood of a continuation given its context, with a masked LM: the
/// [`ContinuationScorer`] of masked LMs, for StereoSet's intersentence task (Nadeem et al. 2021)
/// on a model without a next-sentence head.
///
/// `context + continuation` is encoded with the tokenizer's special tokens (`[CLS] … [SEP]`);
/// the continuation's tokens are the last of the non-special ones, as many as `context +
/// continuation` has more than `context` alone (both encoded without special tokens). Each of
/// them is masked in turn (one copy of the sequence per token, the context never masked), and
/// `log P(token | the rest)` is summed: the PLL of Salazar et al. (2020, "Masked language model
/// scoring", ACL), restricted to the continuation. `is_greedy` is whether every masked token is
/// the model's arg-max. An empty context gives the PLL of the whole text.
///
/// This is *a* conditional score for masked LMs, stated as such: StereoSet's own evaluation of
/// BERT reads its next-sentence head instead (`eval_discriminative_models.py`), which
/// [`crate::NextSentenceModel`] reads where the checkpoint carries it.
///
/// Build it with [`MaskedLm::continuation_scorer`].
#[derive(Debug)]
pub struct MaskedContinuationScorer<'m> {
    engine: Engine<'m>,
    tokenizer: &'m PlmTokenizer,
    special: SpecialIds,
}

impl MaskedLm {
    /// A scorer of continuations on this model (it reads `options.batch`).
    pub fn continuation_scorer(&self, options: ScoringOptions) -> MaskedContinuationScorer<'_> {
        let special = self.special();
        MaskedContinuationScorer {
            engine: Engine::new(
                self.model(),
                special.mask,
                special.pad,
                self.device(),
                options.batch,
            ),
            tokenizer: self.tokenizer(),
            special,
        }
    }
}

/// The ids of one request and the positions of its continuation.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Encoded {
    ids: Vec<i64>,
    positions: Vec<usize>,
}

impl MaskedContinuationScorer<'_> {
    /// Work counters so far.
    pub fn stats(&self) -> EngineStats {
        self.engine.stats()
    }

    fn encode(&self, request: &Continuation, index: usize) -> Result<Encoded, PlmError> {
        let inner = self.tokenizer.inner();
        let error = |source| PlmError::Tokenizer {
            path: self.tokenizer.path().to_path_buf(),
            source,
        };
        let whole_text = format!("{}{}", request.context, request.continuation);
        let plain_context = inner
            .encode(request.context.as_str(), false)
            .map_err(error)?;
        let plain_whole = inner.encode(whole_text.as_str(), false).map_err(error)?;
        let n = plain_whole
            .get_ids()
            .len()
            .saturating_sub(plain_context.get_ids().len());
        let whole = inner.encode(whole_text.as_str(), true).map_err(error)?;
        let content: Vec<usize> = whole
            .get_special_tokens_mask()
            .iter()
            .enumerate()
            .filter(|(_, &m)| m == 0)
            .map(|(i, _)| i)
            .collect();
        let bad = |reason: String| PlmError::BadContinuation {
            index,
            context: request.context.chars().take(80).collect(),
            continuation: request.continuation.chars().take(80).collect(),
            reason,
        };
        if n == 0 || n > content.len() {
            return Err(bad(
                "the continuation has no token of its own; give it text that starts a new token"
                    .into(),
            ));
        }
        let ids: Vec<i64> = whole.get_ids().iter().map(|&i| i64::from(i)).collect();
        if ids.len() > self.special.max_tokens {
            return Err(bad(format!(
                "{} tokens with the special tokens, more than the model's {}; shorten the context",
                ids.len(),
                self.special.max_tokens
            )));
        }
        Ok(Encoded {
            positions: content[content.len() - n..].to_vec(),
            ids,
        })
    }

    /// The PLL of each continuation given its context.
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`]; [`PlmError::BadContinuation`] naming the request (no token of
    /// its own, or longer than the model accepts); [`PlmError::Torch`].
    pub fn loglikelihood(
        &mut self,
        requests: &[Continuation],
    ) -> Result<Vec<ContinuationScore>, PlmError> {
        let encoded = requests
            .iter()
            .enumerate()
            .map(|(i, r)| self.encode(r, i))
            .collect::<Result<Vec<_>, _>>()?;
        let jobs: Vec<Job> = encoded
            .iter()
            .flat_map(|e| {
                e.positions.iter().map(|&p| Job {
                    ids: e.ids.clone(),
                    masked: vec![p],
                    targets: vec![Target {
                        position: p,
                        tokens: vec![e.ids[p]],
                    }],
                    attention: false,
                })
            })
            .collect();
        let results = self.engine.run(&jobs)?;
        let mut next = results.into_iter();
        Ok(encoded
            .iter()
            .map(|e| {
                let of: Vec<_> = next.by_ref().take(e.positions.len()).collect();
                ContinuationScore {
                    log_likelihood: of.iter().map(|r| r.log_probs[0][0]).sum(),
                    is_greedy: of.iter().all(|r| r.correct[0]),
                    tokens: e.positions.len(),
                }
            })
            .collect())
    }
}

impl ContinuationScorer for MaskedContinuationScorer<'_> {
    fn score_continuations(
        &mut self,
        requests: &[Continuation],
    ) -> Result<Vec<ContinuationScore>, BoxError> {
        Ok(self.loglikelihood(requests)?)
    }
}
