//! One handle for both families of language model: a masked LM scored by pseudo-log-likelihood
//! ([`MaskedLm`], [`MlmScorer`]) or a causal LM scored by its sentence log-likelihood
//! ([`CausalLm`], [`CausalScorer`]), opened from a folder by the `model_type` of its
//! `config.json` and scored through one trait object, so that a command (`bias score`,
//! `evaluate`, `bench`) needs no second code path and writes the same score table.

use std::path::{Path, PathBuf};

use bias_core::run::RunFingerprint;
use bias_core::{PairOutcome, PairScorer, SentencePair};
use serde_json::Value;
use tch::Kind;

use crate::adapter::ModelFolder;
use crate::{
    multiply_adds, CausalLm, CausalScorer, CausalScorerKind, CausalType, DeviceSpec, EngineStats,
    MaskedLanguageModel, MaskedLm, MlmScorer, ModelParts, PlmError, PlmTokenizer, ScorerKind,
    ScoringOptions,
};

/// A scorer built by [`LanguageModel::scorer`]: a [`PairScorer`] with work counters that also
/// scores pairs already encoded (for `bias bench`, which times scoring without tokenisation).
pub trait LmScorer: PairScorer<Error = PlmError> + std::fmt::Debug {
    /// Work counters so far (forward passes, sequences, tokens, projected positions).
    fn stats(&self) -> EngineStats;

    /// Scores pairs whose sentences are already encoded by [`LanguageModel::encode`].
    ///
    /// # Errors
    /// The scorer's: [`PlmError::TooLong`], [`PlmError::Torch`], ...
    fn score_tokenised(
        &mut self,
        pairs: &[(&SentencePair, Vec<i64>, Vec<i64>)],
    ) -> Result<Vec<PairOutcome>, PlmError>;
}

impl LmScorer for MlmScorer<'_> {
    fn stats(&self) -> EngineStats {
        MlmScorer::stats(self)
    }

    fn score_tokenised(
        &mut self,
        pairs: &[(&SentencePair, Vec<i64>, Vec<i64>)],
    ) -> Result<Vec<PairOutcome>, PlmError> {
        MlmScorer::score_tokenised(self, pairs)
    }
}

impl LmScorer for CausalScorer<'_> {
    fn stats(&self) -> EngineStats {
        CausalScorer::stats(self)
    }

    fn score_tokenised(
        &mut self,
        pairs: &[(&SentencePair, Vec<i64>, Vec<i64>)],
    ) -> Result<Vec<PairOutcome>, PlmError> {
        CausalScorer::score_tokenised(self, pairs)
    }
}

/// A masked or a causal language model, opened by the `model_type` of its folder's
/// `config.json`.
///
/// ```no_run
/// use bias_core::run::score_to_table;
/// use bias_plm::{DeviceSpec, LanguageModel, ScoringOptions};
///
/// let lm = LanguageModel::open("path/to/model", DeviceSpec::Auto, tch::Kind::Float)?;
/// let pairs = bias_data::load_pairs("data/crows-pairs/crows_pairs_anonymized.csv")?.pairs;
/// // aul, aula, cps, sss, all-masked for a masked LM; ll-sum, ll-mean for a causal one.
/// let mut scorer = lm.scorer(&lm.default_scorers(), ScoringOptions::default())?;
/// let (table, _) = score_to_table(&mut *scorer, &pairs, "crows-pairs", lm.name())?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
// One value per loaded model: the size difference of the variants costs nothing, and boxing
// would change every `LanguageModel::Masked(m)` pattern.
#[allow(clippy::large_enum_variant)]
pub enum LanguageModel {
    /// BERT, RoBERTa, ALBERT, DistilBERT and the other masked LMs of [`crate::ModelType`],
    /// scored by the pseudo-log-likelihood scorers of [`ScorerKind`].
    Masked(MaskedLm),
    /// GPT-2, Llama, Mistral, Qwen2, GPT-NeoX, OPT, Gemma 2, Phi-3 and OLMo 2 ([`CausalType`]), scored by [`CausalScorerKind`].
    Causal(CausalLm),
}

impl LanguageModel {
    /// Opens a model argument as every command takes it ([`crate::resolve_model`]): a folder (a
    /// LoRA adapter folder included), or a Hugging Face id `org/name[@revision]` from the cache
    /// or downloaded, named after the id (a folder keeps its folder's name).
    ///
    /// # Errors
    /// Those of [`crate::resolve_model`] and [`LanguageModel::open`].
    pub fn open_spec(spec: &str, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        let resolved = crate::resolve_model(spec)?;
        let lm = Self::open(&resolved.dir, device, kind)?;
        Ok(match resolved.name() {
            Some(name) => lm.with_name(name),
            None => lm,
        })
    }

    /// Opens a model argument as every front end takes it: one or more endpoints of a served
    /// model ([`crate::endpoints_of`]: `http://HOST:PORT/v1[,…]`), served as `served` says (the
    /// tokenizer folder among them; `None` is an error naming what to give), or else a folder
    /// or Hugging Face id ([`LanguageModel::open_spec`]).
    ///
    /// # Errors
    /// [`PlmError::Served`] for endpoints without `served`; those of [`LanguageModel::serve`]
    /// and [`LanguageModel::open_spec`].
    pub fn open_any(
        spec: &str,
        device: DeviceSpec,
        kind: Kind,
        served: Option<&crate::ServedOptions>,
    ) -> Result<Self, PlmError> {
        match (crate::endpoints_of(spec), served) {
            (Some(endpoints), Some(options)) => Self::serve(&endpoints, options),
            (Some(_), None) => Err(PlmError::Served {
                request: format!("connect to {spec}"),
                reason: "a served model needs its tokenizer (a folder or Hugging Face id): \
                         give it (--tokenizer, or tokenizer= in Python)"
                    .into(),
            }),
            (None, _) => Self::open_spec(spec, device, kind),
        }
    }

    /// For a served model, keeps its answers in the request log at `path` and reuses them
    /// ([`CausalLm::log_requests`]: `Some` with the prompts the log held); `None` otherwise.
    ///
    /// # Errors
    /// Those of [`crate::ServedModel::log_requests`].
    pub fn log_requests(&mut self, path: &Path) -> Result<Option<usize>, PlmError> {
        match self {
            LanguageModel::Masked(_) => Ok(None),
            LanguageModel::Causal(m) => m.log_requests(path),
        }
    }

    /// The causal LM served at `endpoints` ([`CausalLm::serve`]).
    ///
    /// # Errors
    /// Those of [`CausalLm::serve`].
    pub fn serve(endpoints: &[String], options: &crate::ServedOptions) -> Result<Self, PlmError> {
        CausalLm::serve(endpoints, options).map(LanguageModel::Causal)
    }

    /// Opens the model in `dir`: a [`CausalLm`] when `config.json`'s `model_type` is one of
    /// [`CausalType`], a [`MaskedLm`] otherwise.
    ///
    /// # Errors
    /// [`PlmError::MissingFile`] without a folder or `config.json`; [`PlmError::ConfigJson`];
    /// [`PlmError::UnsupportedModel`] for a `model_type` of neither family (the message lists
    /// both); those of [`MaskedLm::open`] and [`CausalLm::open`].
    pub fn open(dir: impl AsRef<Path>, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        let dir = dir.as_ref();
        let path = ModelFolder::of(dir)?.model.join("config.json");
        if !path.is_file() {
            // MaskedLm::open names what is missing (the folder or its config.json).
            return MaskedLm::open(dir, device, kind).map(LanguageModel::Masked);
        }
        let text = std::fs::read_to_string(&path).map_err(|source| PlmError::Io {
            path: path.clone(),
            source,
        })?;
        if is_causal(&text, path)? {
            CausalLm::open(dir, device, kind).map(LanguageModel::Causal)
        } else {
            MaskedLm::open(dir, device, kind).map(LanguageModel::Masked)
        }
    }

    /// Builds the model of `parts` held in memory — the text of its Hugging Face `config.json`
    /// and `tokenizer.json` and the tensors of its `state_dict` ([`ModelParts`]) — as
    /// [`LanguageModel::open`] opens a folder holding the same: a [`CausalLm`]
    /// ([`CausalLm::from_parts`]) when the configuration's `model_type` is one of
    /// [`CausalType`], a [`MaskedLm`] ([`MaskedLm::from_parts`]) otherwise. It scores as the
    /// folder's model does (the same configuration parser, parameters, tokenizer and special
    /// tokens: equal tables), so that a Python binding can measure a `transformers` model
    /// object during training without saving it.
    ///
    /// The model's name is [`ModelParts::name`]; its digest ([`LanguageModel::digest`], used
    /// by [`LanguageModel::fingerprint`]) is [`ModelParts::digest`], computed on first use from
    /// the tensors as they are then (it reads every byte once).
    ///
    /// # Tensors are shared, not copied
    /// A tensor already on the resolved `device` in `kind` (or not floating point) is used as
    /// it is: `Tensor::to_device` and `Tensor::to_kind` return the same storage when nothing
    /// changes, so a float32 `state_dict` on the CPU, loaded with [`DeviceSpec::Cpu`] and
    /// `Kind::Float`, is not copied at all (each tensor is only detached from autograd, a new
    /// handle on the same storage). Only a tensor on another device or in another floating
    /// kind is copied, by the move or the conversion. Hence, on the shared path, changing the
    /// tensors in place afterwards (an optimiser step) changes what the model scores, while its
    /// digest, once computed, stays: build the model again after each training step when runs
    /// are to be fingerprinted.
    ///
    /// # Errors
    /// [`PlmError::ConfigJson`] for a configuration that is not JSON; those of
    /// [`MaskedLm::from_parts`] and [`CausalLm::from_parts`] (the folder loaders' errors, a
    /// part named by its pseudo-path [`ModelParts::pseudo_path`]).
    pub fn from_parts(parts: ModelParts, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        if is_causal(&parts.config_json, parts.pseudo_path("config.json"))? {
            CausalLm::from_parts(parts, device, kind).map(LanguageModel::Causal)
        } else {
            MaskedLm::from_parts(parts, device, kind).map(LanguageModel::Masked)
        }
    }

    /// Sets the name written to the score table's `model` column.
    pub fn with_name(self, name: impl Into<String>) -> Self {
        match self {
            LanguageModel::Masked(m) => LanguageModel::Masked(m.with_name(name)),
            LanguageModel::Causal(m) => LanguageModel::Causal(m.with_name(name)),
        }
    }

    /// The folder the model was opened from (an adapter's folder for an adapter).
    pub fn dir(&self) -> &Path {
        match self {
            LanguageModel::Masked(m) => m.dir(),
            LanguageModel::Causal(m) => m.dir(),
        }
    }

    /// The name written to the score table's `model` column (the folder's name by default).
    pub fn name(&self) -> &str {
        match self {
            LanguageModel::Masked(m) => m.name(),
            LanguageModel::Causal(m) => m.name(),
        }
    }

    /// `masked` or `causal`.
    pub fn family(&self) -> &'static str {
        match self {
            LanguageModel::Masked(_) => "masked",
            LanguageModel::Causal(_) => "causal",
        }
    }

    /// The `model_type` of the configuration (`bert`, `gpt2`, ...).
    pub fn model_type(&self) -> &str {
        match self {
            LanguageModel::Masked(m) => &m.model().config().model_type_name,
            LanguageModel::Causal(m) => m.model_type(),
        }
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &PlmTokenizer {
        match self {
            LanguageModel::Masked(m) => m.tokenizer(),
            LanguageModel::Causal(m) => m.tokenizer(),
        }
    }

    /// `(layers, hidden size, vocabulary size)`, for reports.
    pub fn shape(&self) -> (i64, i64, i64) {
        match self {
            LanguageModel::Masked(m) => {
                let c = m.model().config();
                (c.num_hidden_layers, c.hidden_size, c.vocab_size)
            }
            LanguageModel::Causal(m) => m.model().map_or((0, 0, 0), |m| {
                let c = m.config();
                (c.num_hidden_layers, c.hidden_size, c.vocab_size)
            }),
        }
    }

    /// SHA-256 of the files that define the model (see [`MaskedLm::digest`]), or of the parts
    /// of a model built from them ([`ModelParts::digest`]).
    ///
    /// # Errors
    /// [`PlmError::Core`] if a file cannot be read; [`PlmError::Torch`] if a tensor cannot.
    pub fn digest(&self) -> Result<&str, PlmError> {
        match self {
            LanguageModel::Masked(m) => m.digest(),
            LanguageModel::Causal(m) => m.digest(),
        }
    }

    /// The scorers this model has, in table order: `aul`, `aula`, `cps`, `sss`, `all-masked`,
    /// `pll` for a masked LM; `ll-sum`, `ll-mean` for a causal LM.
    pub fn scorer_names(&self) -> Vec<&'static str> {
        match self {
            LanguageModel::Masked(_) => ScorerKind::ALL.iter().map(|k| k.name()).collect(),
            LanguageModel::Causal(_) => CausalScorerKind::ALL.iter().map(|k| k.name()).collect(),
        }
    }

    /// The scorers to use when none are named: kaneko2022's `aul`, `aula`, `cps`, `sss`,
    /// `all-masked` for a masked LM (PLL, one pass per token, only when asked); `ll-sum`,
    /// `ll-mean` for a causal LM.
    pub fn default_scorers(&self) -> Vec<&'static str> {
        match self {
            LanguageModel::Masked(_) => Self::default_masked_scorers(),
            LanguageModel::Causal(_) => self.scorer_names(),
        }
    }

    /// The masked LM's part of [`LanguageModel::default_scorers`]: every [`ScorerKind`] but PLL.
    pub fn default_masked_scorers() -> Vec<&'static str> {
        ScorerKind::ALL
            .iter()
            .filter(|&&k| k != ScorerKind::Pll)
            .map(|k| k.name())
            .collect()
    }

    /// The ids a sentence is scored on: with the masked LM's special tokens
    /// ([`PlmTokenizer::encode`]), or the causal LM's prefix token and the sentence
    /// ([`CausalLm::encode`]) — what [`LmScorer::score_tokenised`] takes.
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`] if the library fails.
    pub fn encode(&self, text: &str) -> Result<Vec<i64>, PlmError> {
        match self {
            LanguageModel::Masked(m) => m.tokenizer().encode(text),
            LanguageModel::Causal(m) => m.encode(text),
        }
    }

    /// A scorer for the scorers named in `names` (`aul`, `cps`, ... or `ll-sum`, `ll-mean`;
    /// case-insensitive, `_` for `-`), in that order.
    ///
    /// # Errors
    /// [`PlmError::ScorerNotForModel`] for a scorer of the other family (naming the model type
    /// and the scorers it has); [`PlmError::UnknownScorer`] for a name of neither, or none.
    pub fn scorer(
        &self,
        names: &[impl AsRef<str>],
        options: ScoringOptions,
    ) -> Result<Box<dyn LmScorer + '_>, PlmError> {
        match self {
            LanguageModel::Masked(m) => {
                let kinds = masked_kinds(self.model_type(), names)?;
                Ok(Box::new(m.scorer(&kinds, options)?))
            }
            LanguageModel::Causal(m) => {
                let kinds = causal_kinds(self.model_type(), names)?;
                Ok(Box::new(m.scorer(&kinds, options)?))
            }
        }
    }

    /// A scorer of continuations given contexts: lm-evaluation-harness's `loglikelihood` for a
    /// causal LM ([`crate::CausalScorer::loglikelihood`]), the PLL of the continuation given
    /// the context for a masked LM ([`crate::MaskedContinuationScorer`]).
    ///
    /// # Errors
    /// [`PlmError::UnknownScorer`] never in practice (the causal scorer is built with `ll-sum`).
    pub fn continuation_scorer(
        &self,
        options: ScoringOptions,
    ) -> Result<Box<dyn bias_core::ContinuationScorer + '_>, PlmError> {
        Ok(match self {
            LanguageModel::Masked(m) => Box::new(m.continuation_scorer(options)),
            LanguageModel::Causal(m) => {
                Box::new(m.scorer(&[crate::CausalScorerKind::LlSum], options)?)
            }
        })
    }

    /// The scorer of StereoSet in full (Nadeem et al. 2021): every request by
    /// [`LanguageModel::continuation_scorer`], except, when `head` is given, the requests with a
    /// context (the intersentence task) by that BERT next-sentence head
    /// ([`crate::NextSentenceModel::scorer`], through [`bias_core::SplitByContext`]).
    ///
    /// # Errors
    /// Those of [`LanguageModel::continuation_scorer`].
    pub fn stereoset_scorer<'a>(
        &'a self,
        head: Option<&'a crate::NextSentenceModel>,
        options: ScoringOptions,
    ) -> Result<Box<dyn bias_core::ContinuationScorer + 'a>, PlmError> {
        let sentences = self.continuation_scorer(options)?;
        Ok(match head {
            None => sentences,
            Some(head) => Box::new(WithHead {
                sentences,
                pairs: head.scorer(options),
            }),
        })
    }

    /// The fingerprint of a resumable run of `scorer` (built from this model) over `pairs` of
    /// `dataset`, `chunk_pairs` pairs at a time; for a model opened from a snapshot of the
    /// Hugging Face cache, with its `org/name@<commit>` ([`RunFingerprint::model_revision`]).
    ///
    /// # Errors
    /// As [`LanguageModel::digest`].
    pub fn fingerprint(
        &self,
        scorer: &(impl PairScorer + ?Sized),
        dataset: &str,
        pairs: &[SentencePair],
        chunk_pairs: usize,
    ) -> Result<RunFingerprint, PlmError> {
        let id = match self {
            LanguageModel::Masked(m) => m.id(),
            LanguageModel::Causal(m) => m.id(),
        };
        id.fingerprint(scorer, dataset, pairs, chunk_pairs)
    }

    /// Multiply-adds of the work counted in `stats` ([`crate::multiply_adds`] for a masked
    /// LM, [`crate::CausalModel::multiply_adds`] for a causal one).
    pub fn multiply_adds(&self, stats: &EngineStats) -> f64 {
        match self {
            LanguageModel::Masked(m) => multiply_adds(m.model().config(), stats),
            LanguageModel::Causal(m) => m.multiply_adds(stats),
        }
    }

    /// The bytes the loaded weights take in memory ([`crate::PlmModel::weight_bytes`]); `None`
    /// for a causal model behind a server.
    pub fn weight_bytes(&self) -> Option<u64> {
        match self {
            LanguageModel::Masked(m) => Some(m.model().weight_bytes()),
            LanguageModel::Causal(m) => m.model().map(crate::CausalModel::weight_bytes),
        }
    }
}

/// The masked scorers named in `names` (`aul`, `cps`, ...; case-insensitive, `_` for `-`), in
/// order, for a model of `model_type`.
///
/// # Errors
/// [`PlmError::ScorerNotForModel`] for a causal scorer's name, [`PlmError::UnknownScorer`] for a
/// name of neither family.
pub(crate) fn masked_kinds(
    model_type: &str,
    names: &[impl AsRef<str>],
) -> Result<Vec<ScorerKind>, PlmError> {
    let not_for = |name: &str| PlmError::ScorerNotForModel {
        scorer: name.to_owned(),
        model_type: model_type.to_owned(),
        family: "masked",
        supported: names_of(ScorerKind::ALL.iter().map(|k| k.name())),
    };
    names
        .iter()
        .map(|n| {
            let n = n.as_ref();
            let scorer = known_scorer(n)?;
            ScorerKind::of(scorer).ok_or_else(|| not_for(n))
        })
        .collect()
}

/// The workspace scorer named `name` ([`bias_core::Scorer`]'s `FromStr`: case and `_`/`-`
/// aside), the one place a scorer's name is read.
fn known_scorer(name: &str) -> Result<bias_core::Scorer, PlmError> {
    name.parse()
        .map_err(|_| PlmError::UnknownScorer(name.to_owned()))
}

/// The causal scorers named in `names` (`ll-sum`, `ll-mean`), in order, for a model of
/// `model_type`.
///
/// # Errors
/// [`PlmError::ScorerNotForModel`] for a masked scorer's name, [`PlmError::UnknownScorer`] for a
/// name of neither family.
pub(crate) fn causal_kinds(
    model_type: &str,
    names: &[impl AsRef<str>],
) -> Result<Vec<CausalScorerKind>, PlmError> {
    let not_for = |name: &str| PlmError::ScorerNotForModel {
        scorer: name.to_owned(),
        model_type: model_type.to_owned(),
        family: "causal",
        supported: names_of(CausalScorerKind::ALL.iter().map(|k| k.name())),
    };
    names
        .iter()
        .map(|n| {
            let n = n.as_ref();
            let scorer = known_scorer(n)?;
            CausalScorerKind::of(scorer).ok_or_else(|| not_for(n))
        })
        .collect()
}

/// Whether the `config.json` text names a causal LM of [`CausalType`] in `model_type`; `path`
/// names it in errors.
///
/// # Errors
/// [`PlmError::ConfigJson`] if it is not JSON.
fn is_causal(config_json: &str, path: PathBuf) -> Result<bool, PlmError> {
    let raw: Value = serde_json::from_str(config_json)
        .map_err(|source| PlmError::ConfigJson { path, source })?;
    let model_type = raw.get("model_type").and_then(Value::as_str).unwrap_or("");
    Ok(CausalType::from_model_type(model_type).is_some())
}

fn names_of<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

/// A model's sentence scorer beside a next-sentence head ([`LanguageModel::stereoset_scorer`]).
struct WithHead<'a> {
    sentences: Box<dyn bias_core::ContinuationScorer + 'a>,
    pairs: crate::NextSentenceScorer<'a>,
}

impl std::fmt::Debug for WithHead<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WithHead")
    }
}

impl bias_core::ContinuationScorer for WithHead<'_> {
    fn score_continuations(
        &mut self,
        requests: &[bias_core::Continuation],
    ) -> Result<Vec<bias_core::ContinuationScore>, bias_core::BoxError> {
        bias_core::SplitByContext {
            alone: &mut *self.sentences,
            with_context: &mut self.pairs,
        }
        .score_continuations(requests)
    }

    fn check_continuations(
        &mut self,
        requests: &[bias_core::Continuation],
    ) -> Result<(), bias_core::BoxError> {
        bias_core::SplitByContext {
            alone: &mut *self.sentences,
            with_context: &mut self.pairs,
        }
        .check_continuations(requests)
    }
}
