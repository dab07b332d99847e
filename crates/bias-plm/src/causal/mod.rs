//! Causal (decoder-only) language models on libtorch, and their sentence log-likelihoods.
//!
//! - [`CausalModel`]: GPT-2 (Radford et al. 2019), the Llama family — Llama (Touvron et al.
//!   2023), Mistral (Jiang et al. 2023), Qwen2 (Yang et al. 2024, Qwen2 technical report) —,
//!   GPT-NeoX (Black et al. 2022; Pythia), OPT (Zhang et al. 2022), Gemma 2 (Gemma Team 2024),
//!   Phi-3 (Abdin et al. 2024) and OLMo 2 (OLMo et al. 2024), one file each, loaded from a local Hugging Face folder and dispatched on `model_type`
//!   ([`CausalType`], [`CausalConfig`]); equal to `transformers` in float32 eager mode (checked
//!   to 1e-4 on tiny checkpoints of every family, batched and unbatched).
//! - [`CausalLm`]: a model with its tokenizer, the prefix token its sentences are conditioned
//!   on, a name and a digest — what [`crate::MaskedLm`] is for masked LMs.
//! - [`CausalScorer`]: `ll-sum` and `ll-mean` ([`CausalScorerKind`]), a sentence's
//!   log-likelihood as lm-evaluation-harness computes it (Gao et al. 2023/2024,
//!   `HFLM.loglikelihood` with an empty context — the request its `crows_pairs` task makes, after
//!   Nangia et al. 2020), implementing [`bias_core::PairScorer`].
//!
//! # The prefix token
//!
//! A causal LM cannot score the first token of a text without something before it. As
//! lm-evaluation-harness does, the sentence is encoded **without** special tokens and conditioned
//! on one prefix token: the tokenizer's BOS token (`<s>` for Llama and Mistral, `<|endoftext|>`
//! for GPT-2, whose tokenizer adds none itself), or its EOS token when it has no BOS (Qwen2:
//! `<|endoftext|>`); when the encoded sentence already starts with that token, the token is the
//! context and the rest is scored. For Llama and Mistral this is exactly what their tokenizer
//! gives with its special tokens (`[<s>] + sentence`).
//!
//! # Sliding windows
//!
//! Mistral's `sliding_window` (and Qwen2's with `use_sliding_window`) is implemented exactly as
//! `transformers` masks it — a query sees the `w` most recent positions, itself included — so it
//! changes nothing for sentences shorter than the window (4096 tokens for Mistral-7B-v0.1) and is
//! still right for longer ones (the fixture uses a window of 8).

use std::path::{Path, PathBuf};

use serde_json::Value;
use tch::{Device, Kind, Tensor};

use crate::adapter::ModelFolder;
use crate::checkpoint::Checkpoint;
use crate::masked_lm::ModelId;
use crate::model::{prepare_batch, BatchLimits};
use crate::{DeviceSpec, EngineStats, ModelParts, PlmError, PlmTokenizer, ScoringOptions};

mod cache;
mod config;
mod continuation;
mod decoder;
mod generate;
mod layers;
mod registry;
mod scorer;

use registry::{CausalArchitecture, CausalNet};

/// Declares each family's module (`causal/<name>.rs`, which defines its
/// `pub(crate) static ARCHITECTURE`) and lists them in [`ARCHITECTURES`].
macro_rules! causal_architectures {
    ($($module:ident),+ $(,)?) => {
        $(pub(crate) mod $module;)+
        /// Every causal-LM family, in the order messages list them.
        pub(crate) static ARCHITECTURES: &[&CausalArchitecture] = &[$(&$module::ARCHITECTURE),+];
    };
}

// The registry: one name per family (`docs/architecture.md`: adding one).
causal_architectures![gpt2, llama, mistral, qwen2, gpt_neox, opt, gemma2, phi3, olmo2];

pub(crate) use config::MAX_LAYERS;
pub use config::{CausalConfig, CausalType, FamilySettings, RopeScaling};
pub use continuation::EncodedContinuation;
pub use generate::Greedy;
pub(crate) use scorer::{Backend, Span};
pub use scorer::{CausalScorer, CausalScorerKind, TokenLogProbs};

/// A loaded causal LM of a registered family (`*ForCausalLM`: GPT-2, Llama, Mistral, Qwen2,
/// GPT-NeoX, OPT, Gemma 2, Phi-3, OLMo 2) from a local Hugging Face
/// folder (`config.json` + `model.safetensors`), in eval mode, on one device, in one
/// floating-point kind.
///
/// [`CausalModel::hidden`] runs the decoder once on a right-padded batch;
/// [`CausalModel::lm_logits`] projects chosen hidden states onto the vocabulary, so that a scorer
/// never holds `[batch, length, vocab]` logits at once.
#[derive(Debug)]
pub struct CausalModel {
    config: CausalConfig,
    arch: Box<dyn CausalNet>,
    device: Device,
    kind: Kind,
    dir: PathBuf,
    weight_bytes: u64,
}

impl CausalModel {
    /// Loads the causal LM in `dir`, dispatching on the `model_type` of its `config.json`,
    /// converting floating-point weights to `kind` (`Kind::Float` for reference results;
    /// `Kind::Half` / `Kind::BFloat16` on GPU) on the resolved `device`.
    ///
    /// # Errors
    /// [`PlmError::MissingFile`] if the folder, `config.json` or the safetensors weights are
    /// absent; those of [`CausalConfig::from_json_str`] (among them
    /// [`PlmError::UnsupportedModel`] for a `model_type` that is not a causal LM of
    /// [`CausalType`]); [`PlmError::MissingWeight`] / [`PlmError::WeightShape`] for a parameter
    /// that is absent or disagrees with the configuration; [`PlmError::UnsupportedConfig`] for a
    /// `kind` that is not floating point; [`PlmError::HalfOnCpu`]; [`PlmError::Torch`].
    pub fn load(dir: impl AsRef<Path>, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        let dir = dir.as_ref();
        Self::build(
            dir.to_path_buf(),
            Checkpoint::from_folder(dir, device, kind)?,
        )
    }

    /// Builds the causal LM of parts held in memory through the same steps as
    /// [`CausalModel::load`]: the configuration parsed from [`ModelParts::config_json`], the
    /// parameters taken from [`ModelParts::tensors`] (see [`CausalLm::from_parts`]).
    pub(crate) fn from_parts(
        parts: &ModelParts,
        device: DeviceSpec,
        kind: Kind,
    ) -> Result<Self, PlmError> {
        let c = Checkpoint::from_parts(parts, device, kind)?;
        Self::build(c.model_dir.clone(), c)
    }

    /// The family's loader on a checkpoint read; `dir` names the model.
    fn build(dir: PathBuf, c: Checkpoint<CausalConfig>) -> Result<Self, PlmError> {
        let Checkpoint {
            config, weights, ..
        } = c;
        let _guard = tch::no_grad_guard();
        let arch = (config.model_type.architecture().load)(&weights, &config)?;
        Ok(CausalModel {
            config,
            arch,
            device: weights.device(),
            kind: weights.kind(),
            dir,
            weight_bytes: weights.bytes(),
        })
    }

    /// The final hidden states `[batch, length, hidden]` (after the last norm) of `input_ids`
    /// `[batch, length]` (int64), right-padded, with `attention_mask` `[batch, length]`
    /// (1 = token, 0 = padding). Position ids count from 0 in every row, so right padding
    /// changes no value at a real position.
    ///
    /// # Errors
    /// [`PlmError::Shape`] for inputs that are not `[batch, length]` or of length 0;
    /// [`PlmError::SequenceTooLong`] beyond [`CausalConfig::max_tokens`];
    /// [`PlmError::TokenOutOfVocabulary`]; [`PlmError::Torch`].
    pub fn hidden(&self, input_ids: &Tensor, attention_mask: &Tensor) -> Result<Tensor, PlmError> {
        let _guard = tch::no_grad_guard();
        let limits = BatchLimits {
            max_tokens: self.config.max_tokens(),
            vocab_size: self.config.vocab_size,
            empty: "input_ids has length 0",
        };
        let (ids, mask) = prepare_batch(input_ids, attention_mask, self.device, &limits)?;
        self.arch.forward(
            &ids,
            &cache::Pass {
                mask: &mask,
                cache: None,
            },
        )
    }

    /// Vocabulary logits `[n, vocab]` of hidden states `[n, hidden]` (the LM head, without
    /// bias; the token embeddings when tied).
    ///
    /// # Errors
    /// [`PlmError::Shape`] when the last dimension is not the hidden size; [`PlmError::Torch`].
    pub fn lm_logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        let _guard = tch::no_grad_guard();
        let size = hidden.size();
        if size.last() != Some(&self.config.hidden_size) {
            return Err(PlmError::Shape(format!(
                "hidden states {size:?} do not end in the hidden size {}",
                self.config.hidden_size
            )));
        }
        let hidden = hidden.f_to_device(self.device)?.f_to_kind(self.kind)?;
        self.arch.logits(&hidden)
    }

    /// The model's configuration.
    pub fn config(&self) -> &CausalConfig {
        &self.config
    }

    /// The device the weights live on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The floating-point kind of the weights and activations.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The folder the model was loaded from (`<in-memory model of NAME>` for parts held in
    /// memory).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The bytes the loaded parameters take in memory (the checkpoint's tensors in the model's
    /// kind): what `bias bench` sets its peak resident memory against (issue 39's ≤ 1.3× goal).
    pub fn weight_bytes(&self) -> u64 {
        self.weight_bytes
    }

    /// Multiply-adds of the work counted in `stats` (for `bias bench`'s GMAC/s): per padded
    /// token and layer the query, key, value and output projections
    /// (`h·d·(2·heads + 2·kv_heads)`), the MLP (`2·h·i` for GPT-2, `3·h·i` for SwiGLU) and the
    /// attention products (`2·w·heads·d`, `w` the mean padded width); the LM head costs `h·v`
    /// per projected position.
    pub fn multiply_adds(&self, stats: &EngineStats) -> f64 {
        let c = &self.config;
        let h = c.hidden_size as f64;
        let d = c.head_dim as f64;
        let (nh, nkv) = (c.num_attention_heads as f64, c.num_key_value_heads as f64);
        let i = c.intermediate_size as f64;
        let mlp = c.model_type.architecture().mlp_matrices;
        let padded = stats.padded_tokens as f64;
        let width = padded / stats.sequences.max(1) as f64;
        let per_token_layer = h * d * (2.0 * nh + 2.0 * nkv) + mlp * h * i + 2.0 * width * nh * d;
        padded * c.num_hidden_layers as f64 * per_token_layer
            + stats.projected as f64 * h * c.vocab_size as f64
    }
}

/// A causal language model with its tokenizer and prefix token, ready to score.
///
/// ```no_run
/// use bias_core::run::score_to_table;
/// use bias_plm::{CausalLm, CausalScorerKind, DeviceSpec, ScoringOptions};
///
/// let lm = CausalLm::open("path/to/gpt2", DeviceSpec::Auto, tch::Kind::Float)?;
/// let pairs = bias_data::load_pairs("data/crows-pairs/crows_pairs_anonymized.csv")?.pairs;
/// let mut scorer = lm.scorer(&CausalScorerKind::ALL, ScoringOptions::default())?;
/// let (table, tally) = score_to_table(&mut scorer, &pairs, "crows-pairs", lm.name())?;
/// println!("{} rows, {} pairs skipped", table.len(), tally.skipped());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct CausalLm {
    backend: CausalBackend,
    tokenizer: PlmTokenizer,
    prefix: i64,
    /// What generation reads beside the model: the BOS token's text, the EOS ids.
    ends: generate::Ends,
    id: ModelId,
}

impl CausalLm {
    /// Opens the causal LM in `dir` (`config.json`, `model.safetensors`, `tokenizer.json`, and
    /// `tokenizer_config.json` for its BOS / EOS tokens) on `device` in the floating-point
    /// `kind`. Its name is the folder's name ([`CausalLm::with_name`] changes it).
    ///
    /// # Errors
    /// Those of [`CausalModel::load`] and [`PlmTokenizer::from_dir`];
    /// [`PlmError::MissingSpecialToken`] when no prefix token can be found
    /// ([`CausalLm::prefix_token_id`]).
    pub fn open(dir: impl AsRef<Path>, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        let dir = dir.as_ref();
        let model = CausalModel::load(dir, device, kind)?;
        let tokenizer_dir = ModelFolder::of(dir)?.tokenizer;
        let tokenizer = PlmTokenizer::from_dir(&tokenizer_dir)?;
        let read = |file: &str| read_json(&tokenizer_dir.join(file));
        let files = [
            read("tokenizer_config.json")?,
            read("special_tokens_map.json")?,
        ];
        let eos = generate::eos_ids(read_json(&dir.join("generation_config.json"))?.as_ref());
        let mut lm = Self::assemble(model, tokenizer, &files, ModelId::of(dir))?;
        if let Some(eos) = eos {
            lm.ends.eos = eos;
        }
        Ok(lm)
    }

    /// The causal LM served at `endpoints` (each `http://HOST:PORT/v1`, replicas of one
    /// model), with the tokenizer of `options.tokenizer` and its prefix token found as
    /// [`CausalLm::open`] finds it (`config.json`'s ids read as they are, so the folder may be
    /// of any architecture). Its name is the last component of the served name; its digest is
    /// the tokenizer folder's files' ([`crate::model_digest`]) with the served name.
    ///
    /// # Errors
    /// [`PlmError::Served`] (see [`crate::ServedModel`]); [`PlmError::MissingFile`] without
    /// `tokenizer.json`; [`PlmError::ConfigJson`]; [`PlmError::MissingSpecialToken`].
    pub fn serve(endpoints: &[String], options: &crate::ServedOptions) -> Result<Self, PlmError> {
        let dir = ModelFolder::of(&options.tokenizer)?.tokenizer;
        let tokenizer = PlmTokenizer::from_dir(&dir)?;
        let read = |file: &str| read_json(&dir.join(file));
        let config = read("config.json")?.unwrap_or(Value::Null);
        let id_of = |key: &str| config.get(key).and_then(Value::as_i64);
        let ids = (id_of("bos_token_id"), id_of("eos_token_id"));
        let window = id_of("max_position_embeddings").map(|n| n.max(0) as usize);
        let files = [
            read("tokenizer_config.json")?,
            read("special_tokens_map.json")?,
        ];
        let prefix = prefix_token(&files, &tokenizer, ids)?;
        let ends = generate::Ends {
            bos_text: named_token(&files, "bos_token"),
            eos: generate::eos_ids(read("generation_config.json")?.as_ref())
                .unwrap_or_else(|| ids.1.into_iter().collect()),
        };
        let served = crate::ServedModel::connect(endpoints, options, window)?;
        let name = served.served_name().trim_end_matches('/');
        let name = name.rsplit('/').next().unwrap_or(name).to_owned();
        let digest = format!(
            "{}:served:{}",
            crate::model_digest(&dir)?,
            served.served_name()
        );
        Ok(CausalLm {
            backend: CausalBackend::Served(served),
            tokenizer,
            prefix,
            ends,
            id: ModelId::known(name, &dir, digest),
        })
    }

    /// Builds the causal LM of `parts` (a `config.json` text, a `tokenizer.json` text, the
    /// tokenizer configuration files' texts when given, and a `state_dict`'s tensors: see
    /// [`ModelParts`]) on `device` in the floating-point `kind`, through the same steps as
    /// [`CausalLm::open`] and with the same checks and errors (a part is named by its
    /// pseudo-path, [`ModelParts::pseudo_path`]). Its name is [`ModelParts::name`], its
    /// [`CausalLm::dir`] the pseudo-path `<in-memory model of NAME>`, and its digest
    /// [`ModelParts::digest`], computed on first use.
    ///
    /// Tensors already on the device in `kind` are used in place, without a copy (a CPU
    /// float32 `state_dict` loaded on the CPU in `Kind::Float`): see
    /// [`crate::LanguageModel::from_parts`].
    ///
    /// # Errors
    /// As [`CausalLm::open`], but never [`PlmError::MissingFile`] or [`PlmError::Io`]:
    /// [`PlmError::ConfigJson`] and [`PlmError::UnsupportedModel`] /
    /// [`PlmError::UnsupportedConfig`] for the configuration (also for a tokenizer configuration
    /// file that is not JSON); [`PlmError::MissingWeight`] / [`PlmError::WeightShape`] for a
    /// parameter that is absent or disagrees with the configuration;
    /// [`PlmError::Tokenizer`]; [`PlmError::MissingSpecialToken`] without a prefix token;
    /// [`PlmError::HalfOnCpu`]; [`PlmError::Torch`].
    pub fn from_parts(parts: ModelParts, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        let model = CausalModel::from_parts(&parts, device, kind)?;
        let tokenizer = PlmTokenizer::from_json_str(&parts.tokenizer_json, &parts.name)?;
        let parse = |text: &Option<String>, file: &str| {
            text.as_deref()
                .map(|t| parse_json(t, parts.pseudo_path(file)))
                .transpose()
        };
        let files = [
            parse(&parts.tokenizer_config_json, "tokenizer_config.json")?,
            parse(&parts.special_tokens_map_json, "special_tokens_map.json")?,
        ];
        Self::assemble(model, tokenizer, &files, ModelId::in_memory(parts))
    }

    /// What [`CausalLm::open`] and [`CausalLm::from_parts`] share once the model and the
    /// tokenizer are loaded: the prefix token (from `tokenizer_config.json` and
    /// `special_tokens_map.json`, each `None` when absent), checked against the vocabulary.
    fn assemble(
        model: CausalModel,
        tokenizer: PlmTokenizer,
        token_files: &[Option<Value>; 2],
        id: ModelId,
    ) -> Result<Self, PlmError> {
        let ids = (model.config().bos_token_id, model.config().eos_token_id);
        let prefix = prefix_token(token_files, &tokenizer, ids)?;
        if prefix < 0 || prefix >= model.config().vocab_size {
            return Err(PlmError::TokenOutOfVocabulary {
                id: prefix,
                vocab_size: model.config().vocab_size,
            });
        }
        let ends = generate::Ends {
            bos_text: named_token(token_files, "bos_token"),
            eos: model.config().eos_token_id.into_iter().collect(),
        };
        Ok(CausalLm {
            backend: CausalBackend::Local(model),
            tokenizer,
            prefix,
            ends,
            id,
        })
    }

    /// The model on libtorch; `None` for a served model.
    pub fn model(&self) -> Option<&CausalModel> {
        match &self.backend {
            CausalBackend::Local(model) => Some(model),
            CausalBackend::Served(_) => None,
        }
    }

    /// The chat template of the model's tokenizer folder ([`crate::ChatTemplate::of_folder`]),
    /// `None` when it has none.
    ///
    /// # Errors
    /// Those of [`crate::ChatTemplate::of_folder`].
    pub fn chat_template(&self) -> Result<Option<crate::ChatTemplate>, PlmError> {
        crate::ChatTemplate::of_folder(&self.tokenizer_dir())
    }

    /// The folder of the model's tokenizer (where its configuration files are).
    pub fn tokenizer_dir(&self) -> PathBuf {
        let path = self.tokenizer.path();
        path.parent()
            .map_or_else(|| self.dir().to_path_buf(), Path::to_path_buf)
    }

    /// Where the log-probabilities come from.
    pub fn backend(&self) -> &CausalBackend {
        &self.backend
    }

    /// For a served model, [`crate::ServedModel::log_requests`] at `path` (`Some` with the
    /// prompts the log held); `None` for a local model, which asks no server.
    ///
    /// # Errors
    /// Those of [`crate::ServedModel::log_requests`].
    pub fn log_requests(&mut self, path: &Path) -> Result<Option<usize>, PlmError> {
        match &mut self.backend {
            CausalBackend::Local(_) => Ok(None),
            CausalBackend::Served(served) => served.log_requests(path).map(Some),
        }
    }

    /// The `model_type` of the configuration (`gpt2`, `llama`, ...), or `served`.
    pub fn model_type(&self) -> &str {
        match &self.backend {
            CausalBackend::Local(model) => model.config().model_type.name(),
            CausalBackend::Served(_) => "served",
        }
    }

    /// Multiply-adds of the work in `stats` ([`CausalModel::multiply_adds`]); 0 for a served
    /// model, whose work is the server's.
    pub fn multiply_adds(&self, stats: &EngineStats) -> f64 {
        self.model().map_or(0.0, |m| m.multiply_adds(stats))
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &PlmTokenizer {
        &self.tokenizer
    }

    /// The device the weights live on.
    pub fn device(&self) -> Device {
        self.model().map_or(Device::Cpu, CausalModel::device)
    }

    /// The token every sentence is conditioned on, as lm-evaluation-harness's
    /// `HFLM.prefix_token_id`: the tokenizer's BOS token, else its EOS token
    /// (`tokenizer_config.json`, then `special_tokens_map.json`); for a folder with neither
    /// file, `config.json`'s `bos_token_id`, else its `eos_token_id`.
    pub fn prefix_token_id(&self) -> i64 {
        self.prefix
    }

    /// The token ids a sentence is scored on: the prefix token, then the sentence encoded without
    /// special tokens (or, when that encoding starts with the prefix token, just the encoding).
    /// Every token after the first is scored.
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`] if the library fails.
    pub fn encode(&self, text: &str) -> Result<Vec<i64>, PlmError> {
        scorer::encode_with_prefix(&self.tokenizer, self.prefix, text)
    }

    /// A scorer for `kinds` on this model.
    ///
    /// # Errors
    /// [`PlmError::UnknownScorer`] if `kinds` is empty.
    pub fn scorer(
        &self,
        kinds: &[CausalScorerKind],
        options: ScoringOptions,
    ) -> Result<CausalScorer<'_>, PlmError> {
        let backend = match &self.backend {
            CausalBackend::Local(model) => Backend::Local(model),
            CausalBackend::Served(served) => Backend::Served(served),
        };
        CausalScorer::on(backend, &self.tokenizer, self.prefix, kinds, options)
    }
}

crate::masked_lm::model_identity!(CausalLm);

/// A special token of a tokenizer configuration: `"<s>"` or `{"content": "<s>", ...}`;
/// `Some(None)` when the key is present and `null`, `None` when absent.
pub(crate) fn special_token(config: &Value, key: &str) -> Option<Option<String>> {
    match config.get(key)? {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(s.clone())),
        Value::Object(o) => Some(o.get("content").and_then(Value::as_str).map(str::to_owned)),
        _ => Some(None),
    }
}

/// The special token `key` (`bos_token`, `eos_token`) of the tokenizer configuration files
/// (`tokenizer_config.json`, then `special_tokens_map.json`): the first file that names it
/// decides (null included), as `transformers`' tokenizer takes it.
fn named_token(token_files: &[Option<Value>; 2], key: &str) -> Option<String> {
    token_files
        .iter()
        .flatten()
        .find_map(|f| special_token(f, key))
        .flatten()
}

/// The JSON of a tokenizer configuration file; `path` names it in errors.
fn parse_json(text: &str, path: PathBuf) -> Result<Value, PlmError> {
    serde_json::from_str(text).map_err(|source| PlmError::ConfigJson { path, source })
}

/// Where a causal LM's log-probabilities come from.
#[derive(Debug)]
#[non_exhaustive]
// One value per loaded model: the size difference of the variants costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum CausalBackend {
    /// A model re-implemented here, on libtorch.
    Local(CausalModel),
    /// A model served by an OpenAI-compatible engine ([`crate::ServedModel`]).
    Served(crate::ServedModel),
}

/// The JSON of `path`, `None` when there is no such file.
pub(crate) fn read_json(path: &Path) -> Result<Option<Value>, PlmError> {
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(|source| PlmError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_json(&text, path.to_path_buf()).map(Some)
}

/// lm-evaluation-harness's `HFLM.prefix_token_id` from the tokenizer configuration files
/// (`tokenizer_config.json`, then `special_tokens_map.json`, each `None` when absent); see
/// [`CausalLm::prefix_token_id`].
fn prefix_token(
    token_files: &[Option<Value>; 2],
    tokenizer: &PlmTokenizer,
    (bos_token_id, eos_token_id): (Option<i64>, Option<i64>),
) -> Result<i64, PlmError> {
    if token_files.iter().any(Option::is_some) {
        let id = |key: &str| named_token(token_files, key).and_then(|t| tokenizer.token_to_id(&t));
        if let Some(id) = id("bos_token").or_else(|| id("eos_token")) {
            return Ok(id);
        }
    }
    bos_token_id
        .or(eos_token_id)
        .ok_or_else(|| PlmError::MissingSpecialToken {
            role: "prefix (beginning- or end-of-sequence)",
            candidates: "bos_token and eos_token of tokenizer_config.json or \
                         special_tokens_map.json, bos_token_id and eos_token_id of config.json"
                .into(),
            path: tokenizer.path().to_path_buf(),
        })
}
