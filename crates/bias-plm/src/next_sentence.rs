//! BERT's next-sentence head (Devlin et al. 2019, "BERT: Pre-training of deep bidirectional
//! transformers for language understanding", NAACL, §3.1 "Task #2"): the probability that
//! sentence B follows sentence A, which StereoSet's own evaluation of BERT reads for the
//! intersentence task (Nadeem et al. 2021; `evaluate_intersentence` in
//! `code/eval_discriminative_models.py`, moinnadeem/StereoSet at ead7d08, with the model of
//! `BertNextSentence` = `transformers.BertForNextSentencePrediction`).
//!
//! The input is StereoSet's `IntersentenceDataset._tokenize` for a `BertTokenizer`:
//! `[CLS] A [SEP] B [SEP]`, A and B tokenized apart without special tokens, token type 0 up to
//! and including the first `[SEP]` and 1 after it; one pair per forward pass there (batch size
//! 1, no truncation), padded batches here (padding changes no value: the pooler reads `[CLS]`
//! and padding is masked out). The head is `BertPooler` (`tanh(dense(h_[CLS]))`) and then
//! `cls.seq_relationship`, a linear layer to two logits, index 0 = "B is next".

use crate::model::EncoderInput;
use std::path::{Path, PathBuf};

use bias_core::{BoxError, Continuation, ContinuationScore, ContinuationScorer};
use tch::{Device, Kind, Tensor};

use crate::adapter::ModelFolder;
use crate::model::{bert_encoder, checkpoint_files, read_weights, require_folder, TensorSource};
use crate::model::{Dropout, Encoder, Linear};
use crate::{BatchOptions, DeviceSpec, EncodeRequest, ModelConfig, PlmError};
use crate::{PlmTokenizer, ScoringOptions};

/// The pooler's parameters in a `BertForPreTraining` / `BertForNextSentencePrediction`
/// checkpoint.
const POOLER: &str = "bert.pooler.dense";
/// The next-sentence classifier's parameters.
const HEAD: &str = "cls.seq_relationship";

/// A BERT checkpoint with its next-sentence head, loaded for [`NextSentenceModel::log_probs`].
#[derive(Debug)]
pub struct NextSentenceModel {
    encoder: Encoder,
    pooler: Linear,
    head: Linear,
    tokenizer: PlmTokenizer,
    cls: i64,
    sep: i64,
    pad: i64,
    max_tokens: usize,
    type_vocab_size: i64,
    device: Device,
    dir: PathBuf,
}

/// Whether the checkpoint in `dir` is a BERT with a next-sentence head (`model_type` `bert` and
/// a parameter `cls.seq_relationship.weight`), read from `config.json` and the safetensors
/// headers only.
///
/// # Errors
/// [`PlmError::MissingFile`] for a folder that is not there; [`PlmError::Io`] /
/// [`PlmError::ConfigJson`] for a `config.json` that cannot be read or parsed;
/// [`PlmError::Io`] / [`PlmError::Checkpoint`] for a checkpoint file that cannot be read or
/// whose header is not safetensors.
pub fn has_next_sentence_head(dir: impl AsRef<Path>) -> Result<bool, PlmError> {
    let dir = dir.as_ref();
    require_folder(dir)?;
    let dir = &ModelFolder::of(dir)?.model;
    if model_type_of(dir)?.as_deref() != Some("bert") {
        return Ok(false);
    }
    let (files, _) = checkpoint_files(dir)?;
    head_in_checkpoint(&files)
}

/// Whether a safetensors header of `files` names the head's weight.
fn head_in_checkpoint(files: &[PathBuf]) -> Result<bool, PlmError> {
    for file in files {
        if header_names(file)?
            .iter()
            .any(|n| n == &format!("{HEAD}.weight"))
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The `model_type` of `dir/config.json`, read alone (a causal LM's configuration is not a
/// masked LM's, so [`ModelConfig::from_dir`] would refuse it).
fn model_type_of(dir: &Path) -> Result<Option<String>, PlmError> {
    let path = dir.join("config.json");
    let text = std::fs::read_to_string(&path).map_err(|source| PlmError::Io {
        path: path.clone(),
        source,
    })?;
    let config: serde_json::Value =
        serde_json::from_str(&text).map_err(|source| PlmError::ConfigJson { path, source })?;
    Ok(config
        .get("model_type")
        .and_then(|t| t.as_str())
        .map(str::to_owned))
}

/// The tensor names in a safetensors file's header, without reading the tensors.
fn header_names(file: &Path) -> Result<Vec<String>, PlmError> {
    let (entries, _) = crate::model::tensor_file::header(file)?;
    Ok(entries.into_iter().map(|(k, _)| k).collect())
}

impl NextSentenceModel {
    /// Loads the BERT encoder, pooler and next-sentence head of the checkpoint in `dir`
    /// (`BertForPreTraining` or `BertForNextSentencePrediction`; `config.json`,
    /// `model.safetensors`, `tokenizer.json` with `[CLS]`, `[SEP]` and `[PAD]`) on `device` in
    /// `kind`.
    ///
    /// # Errors
    /// [`PlmError::UnsupportedConfig`] for a `model_type` other than `bert`;
    /// [`PlmError::Checkpoint`] naming `cls.seq_relationship.weight` for a checkpoint without
    /// the head (a `BertForMaskedLM`); [`PlmError::MissingWeight`] for one without the pooler;
    /// [`PlmError::MissingSpecialToken`] for a tokenizer without `[CLS]` or `[SEP]`; those of
    /// [`crate::PlmModel::load`] and [`PlmTokenizer::from_dir`].
    pub fn open(dir: impl AsRef<Path>, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        let given = dir.as_ref();
        require_folder(given)?;
        // A LoRA adapter folder: its base model's configuration and weights, merged below.
        let folder = ModelFolder::of(given)?;
        let dir = folder.model.as_path();
        let model_type = model_type_of(dir)?;
        if model_type.as_deref() != Some("bert") {
            return Err(PlmError::UnsupportedConfig {
                key: "model_type".into(),
                value: model_type.unwrap_or_else(|| "(none)".into()),
                reason: "only BERT checkpoints carry the next-sentence head StereoSet reads; \
                         score intersentence by the conditional log-likelihood instead \
                         (`--intersentence conditional`)"
                    .into(),
                path: dir.join("config.json"),
            });
        }
        let config = ModelConfig::from_dir(dir)?;
        let (files, _) = checkpoint_files(dir)?;
        if !head_in_checkpoint(&files)? {
            return Err(PlmError::Checkpoint {
                path: dir.to_path_buf(),
                reason: format!(
                    "no next-sentence head ({HEAD}.weight): a BertForMaskedLM checkpoint? Score \
                     StereoSet's intersentence task by the conditional log-likelihood instead \
                     (`Intersentence::Conditional`; `--intersentence conditional` in the CLI), \
                     or give a BertForPreTraining / BertForNextSentencePrediction checkpoint"
                ),
            });
        }
        let tokenizer = PlmTokenizer::from_dir(given)?;
        let special = |role: &'static str, token: &str| {
            tokenizer
                .token_to_id(token)
                .ok_or_else(|| PlmError::MissingSpecialToken {
                    role,
                    candidates: token.into(),
                    path: tokenizer.path().to_path_buf(),
                })
        };
        let (cls, sep) = (special("cls", "[CLS]")?, special("sep", "[SEP]")?);
        let pad = tokenizer.pad_id()?;
        let w = read_weights(
            TensorSource::Folder(dir),
            folder.adapter.as_ref(),
            device,
            kind,
        )?;
        let _guard = tch::no_grad_guard();
        let device = w.device();
        let hidden = config.hidden_size;
        let base = crate::PlmModel::base_prefix_in(&config, &w)?;
        Ok(NextSentenceModel {
            head: Linear::load(&w, HEAD, hidden, 2)?,
            pooler: Linear::load(&w, POOLER, hidden, hidden)?,
            encoder: bert_encoder(&w, &config, &base)?,
            cls,
            sep,
            pad,
            max_tokens: config.max_tokens().max(0) as usize,
            type_vocab_size: config.type_vocab_size,
            tokenizer,
            device,
            dir: given.to_path_buf(),
        })
    }

    /// The folder the model was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `[CLS] A [SEP] B [SEP]` and its token types, or why the pair cannot be scored.
    fn encode(&self, a: &str, b: &str, index: usize) -> Result<(Vec<i64>, Vec<i64>), PlmError> {
        let bad = |reason: String| PlmError::BadContinuation {
            index,
            context: a.chars().take(80).collect(),
            continuation: b.chars().take(80).collect(),
            reason,
        };
        if self.type_vocab_size < 2 {
            return Err(bad(format!(
                "the model has {} token type(s); a sentence pair needs 2",
                self.type_vocab_size
            )));
        }
        let plain = |text: &str| -> Result<Vec<i64>, PlmError> {
            let encoding = self
                .tokenizer
                .inner()
                .encode(text, false)
                .map_err(|source| PlmError::Tokenizer {
                    path: self.tokenizer.path().to_path_buf(),
                    source,
                })?;
            Ok(encoding.get_ids().iter().map(|&i| i64::from(i)).collect())
        };
        let (a_ids, b_ids) = (plain(a)?, plain(b)?);
        let mut ids = Vec::with_capacity(a_ids.len() + b_ids.len() + 3);
        ids.push(self.cls);
        ids.extend(&a_ids);
        ids.push(self.sep);
        let first = ids.len();
        ids.extend(&b_ids);
        ids.push(self.sep);
        if ids.len() > self.max_tokens {
            return Err(bad(format!(
                "{} tokens with the special tokens, more than the model's {}; shorten the pair",
                ids.len(),
                self.max_tokens
            )));
        }
        let types = (0..ids.len()).map(|i| i64::from(i >= first)).collect();
        Ok((ids, types))
    }

    /// `[log P(B follows A), log P(B does not follow A)]` for every pair `(A, B)`, in order,
    /// batched by length within `batch`.
    ///
    /// # Errors
    /// [`PlmError::BadContinuation`] naming a pair longer than the model's window;
    /// [`PlmError::Tokenizer`]; [`PlmError::Torch`].
    pub fn log_probs(
        &self,
        pairs: &[(&str, &str)],
        batch: BatchOptions,
    ) -> Result<Vec<[f64; 2]>, PlmError> {
        let encoded = pairs
            .iter()
            .enumerate()
            .map(|(i, (a, b))| self.encode(a, b, i))
            .collect::<Result<Vec<_>, _>>()?;
        let mut order: Vec<usize> = (0..encoded.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(encoded[i].0.len()));
        let mut out = vec![[0.0; 2]; encoded.len()];
        let _guard = tch::no_grad_guard();
        let mut start = 0;
        while start < order.len() {
            // Longest first: the first sequence of a group sets its padded width.
            let width = encoded[order[start]].0.len();
            let fits = (batch.max_tokens.max(1) / width.max(1)).max(1);
            let end = (start + batch.max_batch.max(1).min(fits)).min(order.len());
            let group = &order[start..end];
            let logits = self.forward(group.iter().map(|&i| &encoded[i]), width)?;
            let log_probs = logits.f_log_softmax(-1, Kind::Double)?;
            let values = Vec::<f64>::try_from(log_probs.f_flatten(0, -1)?)?;
            for (k, &i) in group.iter().enumerate() {
                out[i] = [values[2 * k], values[2 * k + 1]];
            }
            start = end;
        }
        Ok(out)
    }

    /// The two next-sentence logits of each sequence, right-padded to `width`.
    fn forward<'e>(
        &self,
        group: impl Iterator<Item = &'e (Vec<i64>, Vec<i64>)>,
        width: usize,
    ) -> Result<Tensor, PlmError> {
        let (mut ids, mut types, mut mask) = (Vec::new(), Vec::new(), Vec::new());
        let mut rows = 0i64;
        for (i, t) in group {
            let pad = width - i.len();
            ids.extend(i.iter().copied().chain(std::iter::repeat_n(self.pad, pad)));
            types.extend(t.iter().copied().chain(std::iter::repeat_n(0, pad)));
            mask.extend(std::iter::repeat_n(1i64, i.len()).chain(std::iter::repeat_n(0, pad)));
            rows += 1;
        }
        let shape = [rows, width as i64];
        let to = |v: &[i64]| -> Result<Tensor, PlmError> {
            Ok(Tensor::from_slice(v)
                .f_reshape(shape)?
                .f_to_device(self.device)?)
        };
        let hidden = self
            .encoder
            .forward_typed(
                EncoderInput {
                    ids: &to(&ids)?,
                    attention_mask: &to(&mask)?,
                    request: EncodeRequest::default(),
                    dropout: Dropout::NONE,
                },
                Some(&to(&types)?),
            )?
            .last_hidden;
        let pooled = self.pooler.forward(&hidden.f_select(1, 0)?)?.f_tanh()?;
        self.head.forward(&pooled)
    }

    /// A [`ContinuationScorer`] reading this head (batched within `options.batch`).
    pub fn scorer(&self, options: ScoringOptions) -> NextSentenceScorer<'_> {
        NextSentenceScorer {
            model: self,
            batch: options.batch,
        }
    }
}

/// The next-sentence head as a [`ContinuationScorer`]: a request's context is sentence A and
/// its continuation sentence B (neither gets a space or a full stop added); its
/// `log_likelihood` is `log P(B follows A)`, `tokens` is 1 (one decision, so a per-token mean
/// leaves it unchanged), and `is_greedy` is whether "follows" has the larger probability.
///
/// Build it with [`NextSentenceModel::scorer`].
#[derive(Debug)]
pub struct NextSentenceScorer<'m> {
    model: &'m NextSentenceModel,
    batch: BatchOptions,
}

impl ContinuationScorer for NextSentenceScorer<'_> {
    fn score_continuations(
        &mut self,
        requests: &[Continuation],
    ) -> Result<Vec<ContinuationScore>, BoxError> {
        let pairs: Vec<(&str, &str)> = requests
            .iter()
            .map(|r| (r.context.as_str(), r.continuation.as_str()))
            .collect();
        Ok(self
            .model
            .log_probs(&pairs, self.batch)?
            .into_iter()
            .map(|[next, not_next]| ContinuationScore {
                log_likelihood: next,
                is_greedy: next >= not_next,
                tokens: 1,
            })
            .collect())
    }
}
