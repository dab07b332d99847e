//! Sentence log-likelihoods of a causal LM: `ll-sum` and `ll-mean`.
//!
//! A sentence's log-likelihood is what lm-evaluation-harness (Gao et al. 2023/2024) computes for
//! a `loglikelihood` request with an empty context — the request of its `crows_pairs` task
//! (Nangia et al. 2020), which compares the two sentences of a pair by it: the sentence is encoded
//! without special tokens, conditioned on the prefix token ([`crate::CausalLm::prefix_token_id`])
//! and `Σ log P(tᵢ | t₀ … tᵢ₋₁)` is taken over its tokens. Sequences run in length-sorted,
//! right-padded batches with an attention mask (positions count from 0 in every row, so padding
//! changes nothing), and the vocabulary projection is applied only to the positions that predict
//! a sentence token, a slice at a time.

use std::collections::HashMap;
use std::fmt;

use bias_core::{PairOutcome, PairScore, SentencePair, SentenceScore, SkipReason, Unscorable};
use tch::{Device, Kind, Tensor};

use crate::causal::CausalModel;
use crate::scorer::{check_length, chosen_kinds, fit_length, Cut};
use crate::served::ServedModel;
use crate::{EngineStats, PlmError, PlmTokenizer, ScoringOptions};

/// Positions projected onto the vocabulary at once (about 80 MB of float32 logits for Qwen2's
/// 152k vocabulary).
const PROJECTION_SLICE: usize = 128;

/// A sentence score of a causal LM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CausalScorerKind {
    /// `ll-sum`: the sentence log-likelihood `Σᵢ log P(tᵢ | prefix, t₁ … tᵢ₋₁)` over the
    /// sentence's tokens — lm-evaluation-harness's `loglikelihood` of the sentence with an empty
    /// context, which its `crows_pairs` task compares (Nangia et al. 2020's metric on a causal
    /// LM). On the sum scale (like CPS and PLL).
    LlSum,
    /// `ll-mean`: `ll-sum` divided by the number of sentence tokens — the per-token mean (like
    /// AUL), which does not favour the shorter sentence of a pair.
    LlMean,
}

impl CausalScorerKind {
    /// Every causal scorer, in the order tables list them.
    pub const ALL: [CausalScorerKind; 2] = [CausalScorerKind::LlSum, CausalScorerKind::LlMean];

    /// The name written to a score table's `scorer` column: `ll-sum` or `ll-mean`.
    pub const fn name(self) -> &'static str {
        self.scorer().name()
    }

    /// The causal scorer `scorer` is; `None` for a masked LM's.
    pub fn of(scorer: bias_core::Scorer) -> Option<CausalScorerKind> {
        CausalScorerKind::ALL
            .into_iter()
            .find(|k| k.scorer() == scorer)
    }

    /// The scorer's identity, shared with every crate that reads score tables.
    pub const fn scorer(self) -> bias_core::Scorer {
        match self {
            CausalScorerKind::LlSum => bias_core::Scorer::LlSum,
            CausalScorerKind::LlMean => bias_core::Scorer::LlMean,
        }
    }
}

impl fmt::Display for CausalScorerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Per-token log-probabilities of one sequence.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenLogProbs {
    /// `log P(ids[i] | ids[..i])` for `i = 1 … n − 1`, in float64 (the float32 values of the
    /// model, widened).
    pub log_probs: Vec<f64>,
    /// For each of them, whether the arg-max next token was `ids[i]`.
    pub correct: Vec<bool>,
}

/// The ids a sentence is scored on: `prefix` then the sentence encoded without special tokens,
/// or the encoding alone when it already starts with `prefix` (lm-evaluation-harness,
/// `TemplateLM.loglikelihood` with an empty context).
pub(crate) fn encode_with_prefix(
    tokenizer: &PlmTokenizer,
    prefix: i64,
    text: &str,
) -> Result<Vec<i64>, PlmError> {
    let content = tokenizer.encode_plain(text)?;
    if content.first() == Some(&prefix) {
        return Ok(content);
    }
    let mut ids = Vec::with_capacity(content.len() + 1);
    ids.push(prefix);
    ids.extend(content);
    Ok(ids)
}

/// Scores pairs with `ll-sum` and `ll-mean` on one causal LM, both from one forward pass per
/// sentence; implements the core [`bias_core::PairScorer`] trait.
///
/// Build it with [`crate::CausalLm::scorer`], or with [`CausalScorer::new`] from a model, its
/// tokenizer and prefix token. Of the [`ScoringOptions`] it reads `batch` and `truncate` (a
/// sentence longer than the model accepts keeps its first tokens); the others are for masked LMs.
#[derive(Debug)]
pub struct CausalScorer<'m> {
    backend: Backend<'m>,
    tokenizer: &'m PlmTokenizer,
    prefix: i64,
    kinds: Vec<CausalScorerKind>,
    options: ScoringOptions,
    stats: EngineStats,
}

impl<'m> CausalScorer<'m> {
    /// A scorer for `kinds` on `model`, whose sentences `tokenizer` encodes and are conditioned
    /// on `prefix`.
    ///
    /// # Errors
    /// [`PlmError::UnknownScorer`] if `kinds` is empty.
    pub fn new(
        model: &'m CausalModel,
        tokenizer: &'m PlmTokenizer,
        prefix: i64,
        kinds: &[CausalScorerKind],
        options: ScoringOptions,
    ) -> Result<Self, PlmError> {
        Self::on(Backend::Local(model), tokenizer, prefix, kinds, options)
    }

    /// A scorer for `kinds` whose log-probabilities come from `backend`.
    pub(crate) fn on(
        backend: Backend<'m>,
        tokenizer: &'m PlmTokenizer,
        prefix: i64,
        kinds: &[CausalScorerKind],
        options: ScoringOptions,
    ) -> Result<Self, PlmError> {
        let kinds = chosen_kinds(kinds)?;
        Ok(CausalScorer {
            backend,
            tokenizer,
            prefix,
            kinds,
            options,
            stats: EngineStats::default(),
        })
    }

    pub(crate) fn tokenizer(&self) -> &PlmTokenizer {
        self.tokenizer
    }

    pub(crate) fn prefix(&self) -> i64 {
        self.prefix
    }

    /// The model's window in tokens (`max_length` of lm-evaluation-harness).
    pub(crate) fn max_tokens(&self) -> usize {
        match self.backend {
            Backend::Local(model) => model.config().max_tokens().max(0) as usize,
            Backend::Served(served) => served.max_tokens(),
        }
    }

    /// The scorers, in order.
    pub fn kinds(&self) -> &[CausalScorerKind] {
        &self.kinds
    }

    /// Work counters so far.
    pub fn stats(&self) -> EngineStats {
        self.stats
    }

    /// The ids `text` is scored on ([`crate::CausalLm::encode`]).
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`] if the library fails.
    pub fn encode(&self, text: &str) -> Result<Vec<i64>, PlmError> {
        encode_with_prefix(self.tokenizer, self.prefix, text)
    }

    /// Scores pairs already encoded (`(stereo ids, anti ids)` as [`CausalScorer::encode`] gives
    /// them: the first token is the context, every later one is scored).
    ///
    /// # Errors
    /// [`PlmError::TooLong`] naming the pair when a sentence exceeds the model's maximum and
    /// truncation is off; [`PlmError::Torch`] on a libtorch failure.
    pub fn score_tokenised(
        &mut self,
        pairs: &[(&SentencePair, Vec<i64>, Vec<i64>)],
    ) -> Result<Vec<PairOutcome>, PlmError> {
        let max = self.max_tokens();
        let cut = self.options.truncate.then_some(Cut::KeepFirst);
        let fit = |pair, side, ids: &[i64]| fit_length(pair, side, ids, max, cut);
        let mut fitted = Vec::with_capacity(pairs.len());
        for (pair, s, a) in pairs {
            fitted.push((fit(pair, "stereo", s)?, fit(pair, "anti", a)?));
        }
        // Every distinct sequence once.
        let mut index: HashMap<&[i64], usize> = HashMap::new();
        let mut unique: Vec<&[i64]> = Vec::new();
        for (s, a) in &fitted {
            if s == a {
                continue;
            }
            for seq in [s.as_slice(), a.as_slice()] {
                index.entry(seq).or_insert_with(|| {
                    unique.push(seq);
                    unique.len() - 1
                });
            }
        }
        let results = self.log_likelihoods(&unique)?;
        let mut outcomes = Vec::with_capacity(fitted.len());
        for (s, a) in &fitted {
            if s == a {
                outcomes.push(PairOutcome::Skipped(SkipReason::IdenticalTokens));
                continue;
            }
            let rs = &results[index[s.as_slice()]];
            let ra = &results[index[a.as_slice()]];
            if rs.log_probs.is_empty() || ra.log_probs.is_empty() {
                outcomes.push(PairOutcome::Scored {
                    scores: Vec::new(),
                    unscorable: self
                        .kinds
                        .iter()
                        .map(|k| Unscorable {
                            scorer: k.name().to_owned().into(),
                            reason: "a sentence without tokens to score".to_owned(),
                        })
                        .collect(),
                });
                continue;
            }
            let scores = self
                .kinds
                .iter()
                .map(|&kind| PairScore {
                    scorer: kind.name().to_owned().into(),
                    stereo: combine(kind, rs),
                    anti: combine(kind, ra),
                })
                .collect();
            outcomes.push(PairOutcome::Scored {
                scores,
                unscorable: Vec::new(),
            });
        }
        Ok(outcomes)
    }

    /// `log P(ids[i] | ids[..i])` for `i ≥ 1` of every sequence, with arg-max hits, in
    /// length-sorted, right-padded batches within [`ScoringOptions::batch`]; results in input
    /// order.
    ///
    /// # Errors
    /// Those of [`CausalModel::hidden`] (a sequence too long, an id outside the vocabulary);
    /// [`PlmError::Torch`].
    pub fn log_likelihoods(
        &mut self,
        sequences: &[&[i64]],
    ) -> Result<Vec<TokenLogProbs>, PlmError> {
        let spans: Vec<Span<'_>> = sequences
            .iter()
            .map(|&ids| Span { ids, first: 1 })
            .collect();
        self.score_spans(&spans)
    }

    /// `log P(ids[i] | ids[..i])` for `i ≥ first` of every span (the tokens before `first` are
    /// context only, and only the positions that predict a scored token are projected onto the
    /// vocabulary), with arg-max hits; results in input order. The last token of each span is
    /// never fed to the model (nothing reads its prediction), so a span may be one token longer
    /// than the model's window, as lm-evaluation-harness's `max_length + 1` cut allows.
    ///
    /// # Errors
    /// As [`CausalScorer::log_likelihoods`].
    pub(crate) fn score_spans(
        &mut self,
        spans: &[Span<'_>],
    ) -> Result<Vec<TokenLogProbs>, PlmError> {
        if let Backend::Served(served) = self.backend {
            for span in spans {
                self.stats.tokens += span.ids.len() as u64;
                self.stats.sequences += 1;
            }
            return served.score_spans(spans);
        }
        let mut results: Vec<TokenLogProbs> = vec![
            TokenLogProbs {
                log_probs: Vec::new(),
                correct: Vec::new(),
            };
            spans.len()
        ];
        // Spans that score nothing are left empty; the rest longest first (the first batch shows
        // the memory peak early; the sort is stable).
        let mut order: Vec<usize> = (0..spans.len())
            .filter(|&i| spans[i].first.max(1) < spans[i].ids.len())
            .collect();
        order.sort_by_key(|&i| std::cmp::Reverse(spans[i].ids.len()));
        let batch = self.options.batch;
        let mut start = 0;
        while start < order.len() {
            let width = spans[order[start]].ids.len() - 1;
            let size = (batch.max_tokens / width.max(1))
                .max(1)
                .min(batch.max_batch.max(1));
            let end = (start + size).min(order.len());
            let rows: Vec<Span<'_>> = order[start..end].iter().map(|&i| spans[i]).collect();
            let out = self.run_batch(&rows)?;
            for (&i, r) in order[start..end].iter().zip(out) {
                results[i] = r;
            }
            start = end;
        }
        Ok(results)
    }

    fn run_batch(&mut self, rows: &[Span<'_>]) -> Result<Vec<TokenLogProbs>, PlmError> {
        let Backend::Local(model) = self.backend else {
            unreachable!("score_spans sends a served model's spans to the server")
        };
        let _guard = tch::no_grad_guard();
        // Every row is fed without its last token.
        let width = rows.iter().map(|r| r.ids.len() - 1).max().unwrap_or(0);
        let b = rows.len();
        let mut ids = vec![self.prefix; b * width];
        let mut mask = vec![0i64; b * width];
        let mut positions: Vec<i64> = Vec::new();
        let mut targets: Vec<i64> = Vec::new();
        for (row, span) in rows.iter().enumerate() {
            let fed = &span.ids[..span.ids.len() - 1];
            let base = row * width;
            ids[base..base + fed.len()].copy_from_slice(fed);
            mask[base..base + fed.len()].fill(1);
            for t in span.first.max(1)..span.ids.len() {
                positions.push((base + t - 1) as i64);
                targets.push(span.ids[t]);
            }
            self.stats.tokens += fed.len() as u64;
        }
        self.stats.forward_passes += 1;
        self.stats.sequences += b as u64;
        self.stats.padded_tokens += (b * width) as u64;
        self.stats.projected += positions.len() as u64;

        let device = model.device();
        let shape = [b as i64, width as i64];
        let input = Tensor::from_slice(&ids).reshape(shape).to_device(device);
        let attn = Tensor::from_slice(&mask).reshape(shape).to_device(device);
        let hidden = model.hidden(&input, &attn)?;
        let h = hidden.size()[2];
        let picked = hidden
            .f_reshape([(b * width) as i64, h])?
            .f_index_select(0, &Tensor::from_slice(&positions).to_device(device))?;
        let vocab = model.config().vocab_size;
        if let Some(&bad) = targets.iter().find(|&&t| t < 0 || t >= vocab) {
            return Err(PlmError::TokenOutOfVocabulary {
                id: bad,
                vocab_size: vocab,
            });
        }
        let mut log_probs = Vec::with_capacity(targets.len());
        let mut argmax = Vec::with_capacity(targets.len());
        for start in (0..targets.len()).step_by(PROJECTION_SLICE) {
            let end = (start + PROJECTION_SLICE).min(targets.len());
            let slice = picked.f_narrow(0, start as i64, (end - start) as i64)?;
            let logits = crate::logprob::at_least_f32(model.lm_logits(&slice)?)?;
            // log P(t) = logit_t − logsumexp(logits), log_softmax's value.
            let lse = logits.f_logsumexp(&[-1i64][..], true)?;
            let index = Tensor::from_slice(&targets[start..end])
                .to_device(device)
                .f_unsqueeze(1)?;
            let picked_lp = logits
                .f_gather(1, &index, false)?
                .f_sub(&lse)?
                .f_to_kind(Kind::Double)?
                .f_to_device(Device::Cpu)?
                .f_reshape([-1])?;
            log_probs.extend(Vec::<f64>::try_from(&picked_lp)?);
            argmax.extend(Vec::<i64>::try_from(
                &logits.f_argmax(-1, false)?.f_to_device(Device::Cpu)?,
            )?);
        }
        let mut out = Vec::with_capacity(b);
        let mut k = 0;
        for span in rows {
            let scored = &span.ids[span.first.max(1)..];
            let n = scored.len();
            out.push(TokenLogProbs {
                log_probs: log_probs[k..k + n].to_vec(),
                correct: argmax[k..k + n]
                    .iter()
                    .zip(scored)
                    .map(|(a, t)| a == t)
                    .collect(),
            });
            k += n;
        }
        Ok(out)
    }
}

/// Where a [`CausalScorer`]'s log-probabilities come from: a model on libtorch, or a server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Backend<'m> {
    Local(&'m CausalModel),
    Served(&'m ServedModel),
}

/// A sequence whose tokens from `first` on are scored (`first ≥ 1`: the tokens before it are
/// context).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span<'a> {
    pub(crate) ids: &'a [i64],
    pub(crate) first: usize,
}

/// The score of one sentence under `kind`.
fn combine(kind: CausalScorerKind, r: &TokenLogProbs) -> SentenceScore {
    let n = r.log_probs.len();
    let sum: f64 = r.log_probs.iter().sum();
    SentenceScore {
        score: match kind {
            CausalScorerKind::LlSum => sum,
            CausalScorerKind::LlMean => sum / n as f64,
        },
        scored_tokens: n,
        correct_predictions: Some(r.correct.iter().filter(|&&c| c).count()),
    }
}

impl bias_core::PairScorer for CausalScorer<'_> {
    type Error = PlmError;

    fn scorer_names(&self) -> Vec<String> {
        self.kinds.iter().map(|k| k.name().to_owned()).collect()
    }

    /// The prefix token, truncation, and batching and floating-point kind of a local model or
    /// the name of a served one (its endpoints may change between runs).
    fn settings(&self) -> String {
        let (prefix, truncate) = (self.prefix, self.options.truncate);
        match self.backend {
            Backend::Local(model) => format!(
                "causal, prefix token {prefix}, truncate {truncate}, {:?}, dtype {:?}",
                self.options.batch,
                model.kind()
            ),
            Backend::Served(served) => format!(
                "causal, prefix token {prefix}, truncate {truncate}, served model {}",
                served.served_name()
            ),
        }
    }

    /// Encodes both sentences of each pair ([`CausalScorer::encode`]) and scores them with
    /// [`CausalScorer::score_tokenised`].
    fn score_pairs(&mut self, pairs: &[SentencePair]) -> Result<Vec<PairOutcome>, PlmError> {
        let encoded = pairs
            .iter()
            .map(|p| Ok((p, self.encode(&p.stereo)?, self.encode(&p.anti)?)))
            .collect::<Result<Vec<_>, PlmError>>()?;
        self.score_tokenised(&encoded)
    }

    /// Refuses the first pair with a sentence longer than the model's window (truncation off),
    /// encoding every sentence once before anything runs on the model.
    fn check_pairs(&mut self, pairs: &[SentencePair]) -> Result<(), (usize, PlmError)> {
        let max = self.max_tokens();
        let cut = self.options.truncate.then_some(Cut::KeepFirst);
        for (i, p) in pairs.iter().enumerate() {
            let fits = |side, text: &str| -> Result<(), PlmError> {
                let len = self.encode(text)?.len();
                check_length(p, side, len, max, cut)
            };
            fits("stereo", &p.stereo)
                .and_then(|()| fits("anti", &p.anti))
                .map_err(|e| (i, e))?;
        }
        Ok(())
    }
}
