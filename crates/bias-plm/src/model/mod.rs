//! Masked-language models on libtorch, laid out like the Hugging Face modules so that weights
//! load by their parameter names.
//!
//! Every architecture implements [`MaskedLanguageModel`]: the encoder runs once per batch, and the
//! vocabulary projection (the MLM head) is applied only to the hidden states a scorer needs, so
//! that a scorer reading a few masked positions never pays for `[batch, length, vocab]` logits.

use std::path::{Path, PathBuf};

use tch::{Device, Kind, Tensor};

use crate::checkpoint::Checkpoint;
use crate::{DeviceSpec, ModelConfig, ModelParts, PlmError};

mod layers;
mod registry;
pub(crate) mod tensor_file;

pub(crate) use registry::Architecture;
pub(crate) use registry::{find as find_architecture, LoadSource, Loaded};

/// Declares each architecture's module (`model/<name>.rs`, which defines its
/// `pub(crate) static ARCHITECTURE`) and lists them in [`ARCHITECTURES`].
macro_rules! architectures {
    ($($module:ident),+ $(,)?) => {
        $(pub(crate) mod $module;)+
        /// Every masked-LM architecture, in the order messages list them.
        pub(crate) static ARCHITECTURES: &[&Architecture] = &[$(&$module::ARCHITECTURE),+];
    };
}

// The registry: one name per architecture (`docs/architecture.md`: adding one).
architectures![bert, roberta, albert, distilbert, electra, mpnet, deberta, modernbert];

pub(crate) use bert::load_plain_encoder as bert_encoder;
pub use deberta::DebertaOptions;
pub(crate) use layers::Encoder;
use layers::MlmHead;
pub(crate) use layers::{activate, finfo_min, Dropout, LayerNorm, Linear, Weights};
pub use modernbert::ModernBertOptions;
pub use mpnet::MpnetOptions;

/// What the encoder returns for a batch `[batch, length]`.
#[derive(Debug)]
pub struct EncoderOutput {
    /// Last layer's hidden states, `[batch, length, hidden]`.
    pub last_hidden: Tensor,
    /// Every layer's hidden states as `transformers` returns them with
    /// `output_hidden_states=True`: the embedding output first, then one per layer
    /// (`num_layers + 1` tensors of `[batch, length, hidden]`). Present when asked for.
    pub all_hidden: Option<Vec<Tensor>>,
    /// Post-softmax attention probabilities per layer, `[batch, heads, length, length]`,
    /// as `transformers` returns them with `output_attentions=True` (eager attention). Present
    /// when asked for.
    pub attentions: Option<Vec<Tensor>>,
}

/// What an encoder keeps of its layers while it runs, as [`EncodeRequest`] asks: each layer's
/// hidden states (the embedding output first) and attention probabilities.
pub(crate) struct Trace {
    all_hidden: Option<Vec<Tensor>>,
    attentions: Option<Vec<Tensor>>,
}

impl Trace {
    /// A trace starting from the embedding output `embedded`.
    pub(crate) fn new(request: EncodeRequest, embedded: &Tensor) -> Self {
        let mut all_hidden = request.all_hidden.then(Vec::new);
        if let Some(all) = all_hidden.as_mut() {
            all.push(embedded.shallow_clone());
        }
        Trace {
            all_hidden,
            attentions: request.attentions.then(Vec::new),
        }
    }

    /// Keeps a layer's attention probabilities (when asked for and computed).
    pub(crate) fn attention(&mut self, probs: Option<Tensor>) {
        if let (Some(list), Some(p)) = (self.attentions.as_mut(), probs) {
            list.push(p);
        }
    }

    /// Keeps a layer's output.
    pub(crate) fn hidden(&mut self, hidden: &Tensor) {
        if let Some(all) = self.all_hidden.as_mut() {
            all.push(hidden.shallow_clone());
        }
    }

    /// Keeps a layer's attention probabilities and output.
    pub(crate) fn layer(&mut self, hidden: &Tensor, probs: Option<Tensor>) {
        self.attention(probs);
        self.hidden(hidden);
    }

    /// The output, `last_hidden` the stack's last hidden states; with `replace_last`, the
    /// last layer's kept output is replaced by them (ModernBERT's final norm, as
    /// `transformers` returns `last_hidden_state`).
    pub(crate) fn finish(mut self, last_hidden: Tensor, replace_last: bool) -> EncoderOutput {
        if replace_last {
            if let Some(last) = self.all_hidden.as_mut().and_then(|all| all.last_mut()) {
                *last = last_hidden.shallow_clone();
            }
        }
        EncoderOutput {
            last_hidden,
            all_hidden: self.all_hidden,
            attentions: self.attentions,
        }
    }
}

/// An architecture's encoder stack (embeddings and layers: token ids to hidden states), which
/// [`PlmModel`] holds boxed. The shared post-layer-norm [`Encoder`] of `layers.rs` serves the
/// BERT family; an architecture whose layers differ (DeBERTa's disentangled attention) brings
/// its own.
pub(crate) trait Backbone: std::fmt::Debug + Send {
    /// Runs the stack on validated inputs on the model's device (int64 `ids` and 0/1
    /// `attention_mask`, both `[batch, length]`), with the given dropout ([`Dropout::NONE`] for
    /// scoring). Padding must not change any value at a non-padding position.
    fn forward(&self, input: EncoderInput<'_>) -> Result<EncoderOutput, PlmError>;
}

/// What an encoder runs on: token ids and their 0/1 attention mask (both `[batch, length]`),
/// what to return besides the last hidden states, and the dropout of the pass.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EncoderInput<'a> {
    pub(crate) ids: &'a Tensor,
    pub(crate) attention_mask: &'a Tensor,
    pub(crate) request: EncodeRequest,
    pub(crate) dropout: Dropout,
}

impl<'a> EncoderInput<'a> {
    /// Its ids, attention mask, request and dropout.
    pub(crate) fn parts(self) -> (&'a Tensor, &'a Tensor, EncodeRequest, Dropout) {
        (self.ids, self.attention_mask, self.request, self.dropout)
    }
}

impl Backbone for Encoder {
    fn forward(&self, input: EncoderInput<'_>) -> Result<EncoderOutput, PlmError> {
        Encoder::forward_typed(self, input, None)
    }
}

/// An architecture's [`Architecture::load`] from its family's `load`, which returns its own
/// encoder type.
macro_rules! boxed_load {
    ($load:path) => {
        |src| Ok($crate::model::boxed($load(src)?))
    };
}
pub(crate) use boxed_load;

/// Boxes the encoder an architecture's `load` returns (for its [`Architecture::load`]).
pub(crate) fn boxed<B: Backbone + 'static>((encoder, head): (B, Option<MlmHead>)) -> Loaded {
    (Box::new(encoder), head)
}

/// What a caller wants from [`MaskedLanguageModel::encode`] besides the last hidden states.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EncodeRequest {
    /// Return every layer's attention probabilities (AULA).
    pub attentions: bool,
    /// Return every layer's hidden states (embeddings of a chosen layer).
    pub all_hidden: bool,
}

/// A masked-language model: an encoder and its MLM head.
pub trait MaskedLanguageModel: std::fmt::Debug + Send {
    /// Runs the encoder (eval mode, no dropout) on `input_ids` `[batch, length]` (int64) with
    /// `attention_mask` `[batch, length]` (1 = token, 0 = padding). Padding must not change any
    /// value at a non-padding position.
    ///
    /// # Errors
    /// [`PlmError::Torch`] on a libtorch failure.
    fn encode(
        &self,
        input_ids: &Tensor,
        attention_mask: &Tensor,
        request: EncodeRequest,
    ) -> Result<EncoderOutput, PlmError>;

    /// Applies the MLM head to hidden states `[n, hidden]` (any selection of positions), giving
    /// vocabulary logits `[n, vocab]`.
    ///
    /// # Errors
    /// [`PlmError::Torch`] on a libtorch failure.
    fn mlm_logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError>;

    /// The model's configuration.
    fn config(&self) -> &crate::ModelConfig;

    /// The device the weights live on (inputs are moved there).
    fn device(&self) -> Device;

    /// The floating-point kind of the weights and activations.
    fn kind(&self) -> Kind;
}

/// A loaded BERT, RoBERTa (XLM-RoBERTa, CamemBERT), ALBERT, DistilBERT or ELECTRA (generator)
/// model from a local Hugging Face folder (`config.json` + `model.safetensors`), in eval mode,
/// on one device, in one floating-point kind.
///
/// [`PlmModel::load`] needs the masked-LM head (`*ForMaskedLM` checkpoints) and is what the
/// pseudo-log-likelihood scorers of kaneko2022 use; [`PlmModel::load_encoder`] also accepts a
/// bare encoder (`BertModel`, a sentence-transformers folder) for embeddings.
#[derive(Debug)]
pub struct PlmModel {
    config: ModelConfig,
    encoder: Box<dyn Backbone>,
    head: Option<MlmHead>,
    device: Device,
    kind: Kind,
    dir: PathBuf,
    weight_bytes: u64,
}

/// Loads a masked-language model as a trait object; see [`PlmModel::load`].
///
/// # Errors
/// Those of [`PlmModel::load`].
pub fn load_model(
    dir: impl AsRef<Path>,
    device: DeviceSpec,
    kind: Kind,
) -> Result<Box<dyn MaskedLanguageModel>, PlmError> {
    Ok(Box::new(PlmModel::load(dir, device, kind)?))
}

impl PlmModel {
    /// Loads a masked-language model (encoder and MLM head) from `dir`, dispatching on the
    /// `model_type` of its `config.json`, converting floating-point weights to `kind`
    /// (`Kind::Float` for reference results; `Kind::Half` / `Kind::BFloat16` on GPU) on the
    /// resolved `device`. Parameters are found by their `transformers` names with the
    /// base-model prefix (`bert.`, `roberta.`, `albert.`, `distilbert.`) or without it.
    ///
    /// # Errors
    /// [`PlmError::MissingFile`] if the folder, `config.json` or `model.safetensors` is absent
    /// (with the conversion command when only `pytorch_model.bin` exists: pickles are never
    /// read); those of [`ModelConfig::from_file`]; [`PlmError::MissingMlmHead`] for a bare
    /// encoder; [`PlmError::MissingWeight`] / [`PlmError::WeightShape`] for a parameter that is
    /// absent or disagrees with the configuration; [`PlmError::UnsupportedConfig`] for a `kind`
    /// that is not floating point; [`PlmError::Torch`] if libtorch fails.
    pub fn load(dir: impl AsRef<Path>, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        Self::load_inner(dir.as_ref(), device, kind, true)
    }

    /// Loads only the encoder from `dir` (the MLM head, if any, is not read), for embeddings:
    /// [`MaskedLanguageModel::encode`] works, [`MaskedLanguageModel::mlm_logits`] returns
    /// [`PlmError::MissingMlmHead`].
    ///
    /// # Errors
    /// As [`PlmModel::load`], except that a missing head is no error.
    pub fn load_encoder(
        dir: impl AsRef<Path>,
        device: DeviceSpec,
        kind: Kind,
    ) -> Result<Self, PlmError> {
        Self::load_inner(dir.as_ref(), device, kind, false)
    }

    fn load_inner(
        dir: &Path,
        device: DeviceSpec,
        kind: Kind,
        with_head: bool,
    ) -> Result<Self, PlmError> {
        Self::from_checkpoint(Checkpoint::from_folder(dir, device, kind)?, with_head)
    }

    /// Builds the masked LM (encoder and head) of parts held in memory, through the same steps
    /// as [`PlmModel::load`]: the configuration parsed from [`ModelParts::config_json`], the
    /// parameters taken from [`ModelParts::tensors`] (see [`crate::MaskedLm::from_parts`]).
    pub(crate) fn from_parts(
        parts: &ModelParts,
        device: DeviceSpec,
        kind: Kind,
    ) -> Result<Self, PlmError> {
        Self::from_checkpoint(Checkpoint::from_parts(parts, device, kind)?, true)
    }

    /// The architecture's loader ([`PlmModel::from_weights`]) on a checkpoint read.
    fn from_checkpoint(c: Checkpoint<ModelConfig>, with_head: bool) -> Result<Self, PlmError> {
        let _guard = tch::no_grad_guard();
        Self::from_weights(&c.model_dir, c.config, &c.weights, with_head)
    }

    /// Builds the model from parameters already read (`weights` knows the device and kind).
    pub(crate) fn from_weights(
        dir: &Path,
        config: ModelConfig,
        weights: &Weights,
        with_head: bool,
    ) -> Result<Self, PlmError> {
        let base = Self::base_prefix_in(&config, weights)?;
        let load = config.model_type.architecture().load;
        let (encoder, head) = load(LoadSource {
            w: weights,
            config: &config,
            base: &base,
            with_head,
        })?;
        Ok(PlmModel {
            config,
            encoder,
            head,
            device: weights.device(),
            kind: weights.kind(),
            dir: dir.to_path_buf(),
            weight_bytes: weights.bytes(),
        })
    }

    /// The prefix of the base model's parameters in `weights`: `"bert."` (and the like) in a
    /// `*ForMaskedLM` checkpoint, `""` in a bare encoder.
    pub(crate) fn base_prefix_in(
        config: &ModelConfig,
        weights: &Weights,
    ) -> Result<String, PlmError> {
        let prefixed = format!("{}.", config.model_type.base_prefix());
        let probe = config.model_type.architecture().embeddings_probe;
        if weights.contains(&format!("{prefixed}{probe}")) {
            Ok(prefixed)
        } else if weights.contains(probe) {
            Ok(String::new())
        } else {
            Err(PlmError::MissingWeight {
                name: format!("{prefixed}{probe}"),
                path: weights.path().to_path_buf(),
            })
        }
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

    /// Whether the MLM head was loaded ([`PlmModel::load`] always loads it;
    /// [`PlmModel::load_encoder`] never does).
    pub fn has_mlm_head(&self) -> bool {
        self.head.is_some()
    }

    /// The last hidden states `[batch, length, hidden]` with gradients tracked and the given
    /// dropout (fine-tuning); `input_ids` and `attention_mask` as for
    /// [`MaskedLanguageModel::encode`].
    pub(crate) fn train_hidden(
        &self,
        input_ids: &Tensor,
        attention_mask: &Tensor,
        dropout: Dropout,
    ) -> Result<Tensor, PlmError> {
        let (ids, mask) = self.prepare(input_ids, attention_mask)?;
        let out = self.encoder.forward(EncoderInput {
            ids: &ids,
            attention_mask: &mask,
            request: EncodeRequest::default(),
            dropout,
        })?;
        Ok(out.last_hidden)
    }

    /// Vocabulary logits of `hidden` `[n, hidden]` with gradients tracked (fine-tuning).
    pub(crate) fn train_logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        self.head_or_error()?.forward(hidden)
    }

    fn head_or_error(&self) -> Result<&MlmHead, PlmError> {
        self.head.as_ref().ok_or_else(|| PlmError::MissingMlmHead {
            path: self.dir.clone(),
            expected: "a masked-LM head (the model was loaded with `PlmModel::load_encoder`)"
                .into(),
        })
    }

    /// Checks a batch and moves it to the model's device as int64 ([`prepare_batch`]).
    fn prepare(
        &self,
        input_ids: &Tensor,
        attention_mask: &Tensor,
    ) -> Result<(Tensor, Tensor), PlmError> {
        let limits = BatchLimits {
            max_tokens: self.config.max_tokens(),
            vocab_size: self.config.vocab_size,
            empty: "input_ids has length 0 (every sequence needs at least its special tokens)",
        };
        prepare_batch(input_ids, attention_mask, self.device, &limits)
    }
}

impl MaskedLanguageModel for PlmModel {
    fn encode(
        &self,
        input_ids: &Tensor,
        attention_mask: &Tensor,
        request: EncodeRequest,
    ) -> Result<EncoderOutput, PlmError> {
        let _guard = tch::no_grad_guard();
        let (ids, mask) = self.prepare(input_ids, attention_mask)?;
        self.encoder.forward(EncoderInput {
            ids: &ids,
            attention_mask: &mask,
            request,
            dropout: Dropout::NONE,
        })
    }

    fn mlm_logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        let _guard = tch::no_grad_guard();
        let head = self.head_or_error()?;
        let size = hidden.size();
        if size.last() != Some(&self.config.hidden_size) {
            return Err(PlmError::Shape(format!(
                "hidden states {size:?} do not end in the hidden size {}",
                self.config.hidden_size
            )));
        }
        head.forward(&hidden.f_to_device(self.device)?.f_to_kind(self.kind)?)
    }

    fn config(&self) -> &ModelConfig {
        &self.config
    }

    fn device(&self) -> Device {
        self.device
    }

    fn kind(&self) -> Kind {
        self.kind
    }
}

/// [`PlmError::MissingFile`] unless `dir` is a folder (checked before its `config.json` is read).
pub(crate) fn require_folder(dir: &Path) -> Result<(), PlmError> {
    if !dir.is_dir() {
        return Err(PlmError::MissingFile {
            path: dir.to_path_buf(),
            hint: "no such model folder; it must hold config.json, model.safetensors and \
                   tokenizer.json"
                .into(),
        });
    }
    Ok(())
}

/// The checks a loader makes after reading the configuration, in this order: `kind` is floating
/// point ([`PlmError::UnsupportedConfig`]), the checkpoint files of `dir` (see
/// [`checkpoint_files`]), the resolved device, and no half precision on CPU
/// ([`PlmError::HalfOnCpu`]). Returns the files, the path that names them, and the device.
pub(crate) fn checkpoint_on(
    dir: &Path,
    device: DeviceSpec,
    kind: Kind,
) -> Result<(Vec<PathBuf>, PathBuf, Device), PlmError> {
    check_kind(dir, kind)?;
    let (files, path) = checkpoint_files(dir)?;
    let device = device_for(device, kind)?;
    Ok((files, path, device))
}

/// [`PlmError::UnsupportedConfig`] (naming `dir`) unless `kind` is a floating-point kind a
/// model runs in.
fn check_kind(dir: &Path, kind: Kind) -> Result<(), PlmError> {
    if !matches!(
        kind,
        Kind::Float | Kind::Double | Kind::Half | Kind::BFloat16
    ) {
        return Err(PlmError::UnsupportedConfig {
            key: "kind".into(),
            value: format!("{kind:?}"),
            reason: "models run in Float, Double, Half or BFloat16".into(),
            path: dir.to_path_buf(),
        });
    }
    Ok(())
}

/// The resolved device ([`DeviceSpec::resolve_checked`]), [`PlmError::HalfOnCpu`] for f16 on the
/// CPU (bf16 runs there: it halves a model's memory, and its matmuls have CPU kernels; the
/// scorers take log-softmax and sums in f32 and f64 either way).
fn device_for(device: DeviceSpec, kind: Kind) -> Result<Device, PlmError> {
    let device = device.resolve_checked()?;
    if device == Device::Cpu && kind == Kind::Half {
        return Err(PlmError::HalfOnCpu(format!("{kind:?}")));
    }
    Ok(device)
}

/// Where a model's parameters come from: the safetensors files of a folder, or a `state_dict`
/// held in memory ([`ModelParts::tensors`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum TensorSource<'a> {
    /// The folder holding `model.safetensors` or its shards ([`checkpoint_files`]).
    Folder(&'a Path),
    /// The tensors, and the name of the model they belong to (for the pseudo-paths of errors:
    /// `<in-memory model of NAME>`, `<in-memory state_dict of NAME>`).
    Memory(&'a [(String, Tensor)], &'a str),
}

/// The parameters of `source` for a model on `device` in `kind`, after the checks every loader
/// makes once the configuration is read, in this order: `kind` ([`check_kind`]), the checkpoint
/// files of a folder ([`checkpoint_files`]), the device ([`device_for`]). A folder's files are
/// read ([`Weights::read`]); tensors in memory are used as they are ([`Weights::from_tensors`]),
/// moved and converted parameter by parameter only where the device or kind differs
/// ([`Weights::get`]).
/// With a LoRA `adapter` (of a folder), its update is merged into the parameters read, so that
/// no architecture's loader knows about adapters.
pub(crate) fn read_weights(
    source: TensorSource<'_>,
    adapter: Option<&crate::LoraAdapter>,
    device: DeviceSpec,
    kind: Kind,
) -> Result<Weights, PlmError> {
    let _guard = tch::no_grad_guard();
    let mut weights = match source {
        TensorSource::Folder(dir) => {
            let (files, path, device) = checkpoint_on(dir, device, kind)?;
            Weights::read(&files, path, device, kind)?
        }
        TensorSource::Memory(tensors, name) => {
            check_kind(&crate::parts::pseudo_path("model", name), kind)?;
            let device = device_for(device, kind)?;
            let path = crate::parts::pseudo_path("state_dict", name);
            Weights::from_tensors(tensors, path, device, kind)?
        }
    };
    if let Some(adapter) = adapter {
        weights.merge_adapter(adapter)?;
    }
    Ok(weights)
}

/// The safetensors files of the checkpoint in `dir` and the path that names it in errors.
pub(crate) fn checkpoint_files(dir: &Path) -> Result<(Vec<PathBuf>, PathBuf), PlmError> {
    let single = dir.join("model.safetensors");
    if single.is_file() {
        return Ok((vec![single.clone()], single));
    }
    let index = dir.join("model.safetensors.index.json");
    if index.is_file() {
        let text = std::fs::read_to_string(&index).map_err(|source| PlmError::Io {
            path: index.clone(),
            source,
        })?;
        let parsed: serde_json::Value =
            serde_json::from_str(&text).map_err(|source| PlmError::ConfigJson {
                path: index.clone(),
                source,
            })?;
        let mut files: Vec<PathBuf> = parsed
            .get("weight_map")
            .and_then(|m| m.as_object())
            .map(|m| {
                m.values()
                    .filter_map(|v| v.as_str())
                    .map(|f| dir.join(f))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files.dedup();
        if let Some(missing) = files.iter().find(|f| !f.is_file()) {
            return Err(PlmError::MissingFile {
                path: missing.clone(),
                hint: format!("listed as a shard in {}", index.display()),
            });
        }
        return Ok((files, index));
    }
    let hint = if dir.join("pytorch_model.bin").is_file()
        || dir.join("pytorch_model.bin.index.json").is_file()
    {
        format!(
            "only pytorch_model.bin was found, and pickled checkpoints are not read; convert it \
             to safetensors with `python -c \"from transformers import AutoModelForMaskedLM as M; \
             M.from_pretrained('{d}').save_pretrained('{d}', safe_serialization=True)\"`",
            d = dir.display()
        )
    } else {
        "the model weights must be in model.safetensors (save them with \
         `save_pretrained(..., safe_serialization=True)`)"
            .into()
    };
    Err(PlmError::MissingFile { path: single, hint })
}

/// What a model accepts in a batch, for [`prepare_batch`].
pub(crate) struct BatchLimits {
    /// The longest sequence (the position table's size).
    pub(crate) max_tokens: i64,
    /// Token ids must lie in `0..vocab_size`.
    pub(crate) vocab_size: i64,
    /// The message for a batch of length 0.
    pub(crate) empty: &'static str,
}

/// Checks `input_ids` and `attention_mask` (`[batch, length]` both, a length between 1 and
/// `max_tokens`, ids in the vocabulary) and moves them to `device` as int64.
///
/// # Errors
/// [`PlmError::Shape`], [`PlmError::SequenceTooLong`], [`PlmError::TokenOutOfVocabulary`],
/// [`PlmError::Torch`].
pub(crate) fn prepare_batch(
    input_ids: &Tensor,
    attention_mask: &Tensor,
    device: Device,
    limits: &BatchLimits,
) -> Result<(Tensor, Tensor), PlmError> {
    let size = input_ids.size();
    if size.len() != 2 || attention_mask.size() != size {
        return Err(PlmError::Shape(format!(
            "input_ids {size:?} and attention_mask {:?} must both be [batch, length]",
            attention_mask.size()
        )));
    }
    if size[1] == 0 {
        return Err(PlmError::Shape(limits.empty.into()));
    }
    let max = limits.max_tokens;
    if size[1] > max {
        return Err(PlmError::SequenceTooLong {
            length: size[1],
            max,
        });
    }
    let ids = input_ids.f_to_device(device)?.f_to_kind(Kind::Int64)?;
    let mask = attention_mask.f_to_device(device)?.f_to_kind(Kind::Int64)?;
    if size[0] > 0 {
        let lo = ids.f_min()?.f_int64_value(&[])?;
        let hi = ids.f_max()?.f_int64_value(&[])?;
        let vocab_size = limits.vocab_size;
        if let Some(id) = [lo, hi].into_iter().find(|&t| t < 0 || t >= vocab_size) {
            return Err(PlmError::TokenOutOfVocabulary { id, vocab_size });
        }
    }
    Ok((ids, mask))
}
