//! lm-evaluation-harness's `loglikelihood` requests on a causal LM: `log P(continuation |
//! context)` and whether the continuation is the greedy one.
//!
//! The tokens are those lm-evaluation-harness 0.4 gives a Hugging Face causal LM (`HFLM`; Gao et
//! al. 2024, `lm_eval/api/model.py`, `TemplateLM.loglikelihood` and `_encode_pair`, and
//! `lm_eval/models/huggingface.py`, `tok_encode` and `_loglikelihood_tokens`, read at 0.4.13):
//!
//! 1. **Empty context**: the continuation is encoded without special tokens and conditioned on
//!    the prefix token ([`crate::CausalLm::prefix_token_id`]); when its encoding already starts
//!    with that token, the first token is the context instead.
//! 2. **Otherwise** the context's trailing whitespace moves to the front of the continuation
//!    (`"Answer:" + " yes"`, never `"Answer: " + "yes"`), then `context + continuation` and
//!    `context` are each encoded **with** the tokenizer's special tokens (a Llama tokenizer adds
//!    `<s>`, GPT-2's adds nothing) — unless the text already starts with the prefix token's
//!    text — and the continuation's tokens are those of the whole past the context's length.
//! 3. The sequence `context + continuation` keeps its last `max_length + 1` tokens (the context
//!    cut from the left); the model reads all but the last, and the continuation's tokens are
//!    scored at the positions that predict them. The log-probabilities (the model's float32
//!    `log_softmax`) are summed; `is_greedy` is whether every continuation token is the arg-max.
//!
//! `max_length` is the model's window ([`crate::CausalConfig::max_tokens`]:
//! `max_position_embeddings`, GPT-2's `n_positions`), what `HFLM.max_length` reads from the same
//! configuration. Requests run batched, deduplicated and length-sorted through the engine of
//! the sentence scorers ([`CausalScorer`]).

use std::collections::HashMap;

use bias_core::{BoxError, Continuation, ContinuationScore, ContinuationScorer};

use super::scorer::{CausalScorer, Span};
use crate::{PlmError, PlmTokenizer};

/// The tokens of one request: the context's (conditioning only) and the continuation's
/// (scored).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EncodedContinuation {
    /// Context tokens, special tokens included where the tokenizer adds them.
    pub context: Vec<i64>,
    /// Continuation tokens.
    pub continuation: Vec<i64>,
}

/// Encodes `request` as lm-evaluation-harness does (the module's steps 1 and 2).
///
/// # Errors
/// [`PlmError::Tokenizer`] if the library fails; [`PlmError::BadContinuation`] (as request
/// `index`) when the continuation has no token of its own.
pub(crate) fn encode_continuation(
    tokenizer: &PlmTokenizer,
    prefix: i64,
    request: &Continuation,
    index: usize,
) -> Result<EncodedContinuation, PlmError> {
    let encode = |text: &str, special: bool| -> Result<Vec<i64>, PlmError> {
        let enc =
            tokenizer
                .inner()
                .encode(text, special)
                .map_err(|source| PlmError::Tokenizer {
                    path: tokenizer.path().to_path_buf(),
                    source,
                })?;
        Ok(enc.get_ids().iter().map(|&i| i64::from(i)).collect())
    };
    let encoded = if request.context.is_empty() {
        let continuation = encode(&request.continuation, false)?;
        match continuation.split_first() {
            Some((&first, rest)) if first == prefix => EncodedContinuation {
                context: vec![first],
                continuation: rest.to_vec(),
            },
            _ => EncodedContinuation {
                context: vec![prefix],
                continuation,
            },
        }
    } else {
        let (context, continuation) = move_trailing_space(&request.context, &request.continuation);
        // `tok_encode`: special tokens unless the text starts with the prefix token's text.
        let prefix_text = tokenizer.decode(&[prefix], false)?;
        let special = |text: &str| prefix_text.is_empty() || !text.starts_with(&prefix_text);
        let whole_text = format!("{context}{continuation}");
        let whole = encode(&whole_text, special(&whole_text))?;
        let context_ids = encode(context, special(context))?;
        let split = context_ids.len().min(whole.len());
        EncodedContinuation {
            continuation: whole[split..].to_vec(),
            context: context_ids,
        }
    };
    if encoded.continuation.is_empty() {
        return Err(bad_request(
            request,
            index,
            "the continuation has no token of its own (it is empty, or the tokenizer merges it \
             into the context's last token); give it text that starts a new token",
        ));
    }
    Ok(encoded)
}

/// lm-evaluation-harness's `_encode_pair`: the context's trailing whitespace (Python's
/// `str.rstrip()`) moves to the front of the continuation.
fn move_trailing_space<'a>(context: &'a str, continuation: &str) -> (&'a str, String) {
    let trimmed = context.trim_end();
    let spaces = &context[trimmed.len()..];
    (trimmed, format!("{spaces}{continuation}"))
}

fn bad_request(request: &Continuation, index: usize, reason: &str) -> PlmError {
    let cut = |s: &str| -> String {
        let mut out: String = s.chars().take(80).collect();
        if out.len() < s.len() {
            out.push('…');
        }
        out
    };
    PlmError::BadContinuation {
        index,
        context: cut(&request.context),
        continuation: cut(&request.continuation),
        reason: reason.to_owned(),
    }
}

/// A continuation of 1 to `max` tokens (the model's window), or [`PlmError::BadContinuation`].
fn check_window(r: &EncodedContinuation, index: usize, max: usize) -> Result<(), PlmError> {
    if r.continuation.is_empty() || r.continuation.len() > max {
        return Err(PlmError::BadContinuation {
            index,
            context: format!("{} tokens", r.context.len()),
            continuation: format!("{} tokens", r.continuation.len()),
            reason: format!(
                "a continuation must have between 1 and {max} tokens (the model's window); \
                 shorten it"
            ),
        });
    }
    Ok(())
}

impl CausalScorer<'_> {
    /// Encodes `request` as lm-evaluation-harness does ([`CausalScorer::loglikelihood`] lists
    /// the rules).
    ///
    /// # Errors
    /// As [`CausalScorer::score_encoded_continuations`], for a request at index 0.
    pub fn encode_continuation(
        &self,
        request: &Continuation,
    ) -> Result<EncodedContinuation, PlmError> {
        encode_continuation(self.tokenizer(), self.prefix(), request, 0)
    }

    /// Scores requests already encoded ([`CausalScorer::encode_continuation`]): the sequence
    /// keeps its last `max_length + 1` tokens and the continuation's are scored.
    ///
    /// # Errors
    /// [`PlmError::BadContinuation`] for a continuation longer than the model's window (or
    /// empty); [`PlmError::Torch`] and the model's errors.
    pub fn score_encoded_continuations(
        &mut self,
        requests: &[EncodedContinuation],
    ) -> Result<Vec<ContinuationScore>, PlmError> {
        let max = self.max_tokens();
        let mut sequences: Vec<(Vec<i64>, usize)> = Vec::with_capacity(requests.len());
        for (index, r) in requests.iter().enumerate() {
            check_window(r, index, max)?;
            let mut ids = Vec::with_capacity(r.context.len() + r.continuation.len());
            ids.extend_from_slice(&r.context);
            ids.extend_from_slice(&r.continuation);
            // The context is cut from the left: the last `max + 1` tokens stay.
            let keep = ids.len().min(max + 1);
            let ids = ids.split_off(ids.len() - keep);
            let first = ids.len() - r.continuation.len();
            sequences.push((ids, first));
        }
        // Every distinct request once.
        let mut index: HashMap<(&[i64], usize), usize> = HashMap::new();
        let mut unique: Vec<Span<'_>> = Vec::new();
        let slots: Vec<usize> = sequences
            .iter()
            .map(|(ids, first)| {
                *index.entry((ids.as_slice(), *first)).or_insert_with(|| {
                    unique.push(Span { ids, first: *first });
                    unique.len() - 1
                })
            })
            .collect();
        let results = self.score_spans(&unique)?;
        Ok(slots
            .into_iter()
            .map(|slot| {
                let r = &results[slot];
                ContinuationScore {
                    // Summed in order, as `logits.sum()` adds the float32 values.
                    log_likelihood: r.log_probs.iter().sum(),
                    is_greedy: r.correct.iter().all(|&c| c),
                    tokens: r.log_probs.len(),
                }
            })
            .collect())
    }

    /// Encodes and scores `requests` (lm-evaluation-harness's `loglikelihood`):
    ///
    /// lm-evaluation-harness's `loglikelihood` requests on a causal LM: `log P(continuation |
    /// context)` and whether the continuation is the greedy one.
    ///
    /// The tokens are those lm-evaluation-harness 0.4 gives a Hugging Face causal LM (`HFLM`; Gao et
    /// al. 2024, `lm_eval/api/model.py`, `TemplateLM.loglikelihood` and `_encode_pair`, and
    /// `lm_eval/models/huggingface.py`, `tok_encode` and `_loglikelihood_tokens`, read at 0.4.13):
    ///
    /// 1. **Empty context**: the continuation is encoded without special tokens and conditioned on
    ///    the prefix token ([`crate::CausalLm::prefix_token_id`]); when its encoding already starts
    ///    with that token, the first token is the context instead.
    /// 2. **Otherwise** the context's trailing whitespace moves to the front of the continuation
    ///    (`"Answer:" + " yes"`, never `"Answer: " + "yes"`), then `context + continuation` and
    ///    `context` are each encoded **with** the tokenizer's special tokens (a Llama tokenizer adds
    ///    `<s>`, GPT-2's adds nothing) — unless the text already starts with the prefix token's
    ///    text — and the continuation's tokens are those of the whole past the context's length.
    /// 3. The sequence `context + continuation` keeps its last `max_length + 1` tokens (the context
    ///    cut from the left); the model reads all but the last, and the continuation's tokens are
    ///    scored at the positions that predict them. The log-probabilities (the model's float32
    ///    `log_softmax`) are summed; `is_greedy` is whether every continuation token is the arg-max.
    ///
    /// `max_length` is the model's window ([`crate::CausalConfig::max_tokens`]:
    /// `max_position_embeddings`, GPT-2's `n_positions`), what `HFLM.max_length` reads from the same
    /// configuration. Requests run batched, deduplicated and length-sorted through the engine of
    /// the sentence scorers ([`CausalScorer`]).
    ///
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`]; [`PlmError::BadContinuation`] naming the request;
    /// [`PlmError::Torch`] and the model's errors.
    pub fn loglikelihood(
        &mut self,
        requests: &[Continuation],
    ) -> Result<Vec<ContinuationScore>, PlmError> {
        let encoded = requests
            .iter()
            .enumerate()
            .map(|(i, r)| encode_continuation(self.tokenizer(), self.prefix(), r, i))
            .collect::<Result<Vec<_>, _>>()?;
        self.score_encoded_continuations(&encoded)
    }
}

impl ContinuationScorer for CausalScorer<'_> {
    fn score_continuations(
        &mut self,
        requests: &[Continuation],
    ) -> Result<Vec<ContinuationScore>, BoxError> {
        Ok(self.loglikelihood(requests)?)
    }

    /// Encodes each request and checks its continuation against the model's window.
    fn check_continuations(&mut self, requests: &[Continuation]) -> Result<(), BoxError> {
        let max = self.max_tokens();
        for (i, r) in requests.iter().enumerate() {
            let encoded = encode_continuation(self.tokenizer(), self.prefix(), r, i)?;
            check_window(&encoded, i, max)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::move_trailing_space;

    #[test]
    fn trailing_whitespace_moves_to_the_continuation() {
        assert_eq!(
            move_trailing_space("Q: who?\nA: ", "yes"),
            ("Q: who?\nA:", " yes".to_owned())
        );
        assert_eq!(
            move_trailing_space("A:\n\t ", " x"),
            ("A:", "\n\t  x".to_owned())
        );
        assert_eq!(move_trailing_space("A:", " x"), ("A:", " x".to_owned()));
    }
}
