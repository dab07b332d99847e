//! The configuration of a masked-language model, read from a Hugging Face `config.json`.
//!
//! `transformers` writes only the values that differ from its configuration class's defaults
//! (`PretrainedConfig.to_diff_dict`), so every field absent from the file takes the default of
//! the matching class (`BertConfig`, `RobertaConfig`, `AlbertConfig`, `DistilBertConfig`,
//! `ElectraConfig`, `MPNetConfig`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::{Architecture, DebertaOptions};
use crate::PlmError;

/// The architecture a `config.json` names in `model_type`: one of the masked-LM architectures
/// registered in `model/mod.rs` (each defined, config and weights, in its own file there).
#[derive(Clone, Copy)]
pub struct ModelType(&'static Architecture);

#[allow(non_upper_case_globals)]
impl ModelType {
    /// `bert` (`transformers.models.bert.modeling_bert.BertForMaskedLM`).
    pub const Bert: ModelType = ModelType(&crate::model::bert::ARCHITECTURE);
    /// `roberta`, and the same layout under `xlm-roberta` and `camembert`
    /// (`transformers.models.roberta.modeling_roberta.RobertaForMaskedLM`).
    pub const Roberta: ModelType = ModelType(&crate::model::roberta::ARCHITECTURE);
    /// `albert` (`transformers.models.albert.modeling_albert.AlbertForMaskedLM`).
    pub const Albert: ModelType = ModelType(&crate::model::albert::ARCHITECTURE);
    /// `distilbert` (`transformers.models.distilbert.modeling_distilbert.DistilBertForMaskedLM`).
    pub const DistilBert: ModelType = ModelType(&crate::model::distilbert::ARCHITECTURE);
    /// `modernbert` (`transformers.models.modernbert.modeling_modernbert.ModernBertForMaskedLM`;
    /// Warner et al. 2024): pre-norm layers with rotary positions, alternating global and
    /// sliding-window attention and GeGLU; options in [`ModelConfig::modernbert`].
    pub const ModernBert: ModelType = ModelType(&crate::model::modernbert::ARCHITECTURE);
    /// `electra`: the generator (`transformers.models.electra.modeling_electra.ElectraForMaskedLM`;
    /// Clark et al. 2020), with factorised embeddings of width `embedding_size`.
    pub const Electra: ModelType = ModelType(&crate::model::electra::ARCHITECTURE);
    /// `mpnet` (`transformers.models.mpnet.modeling_mpnet.MPNetForMaskedLM`; Song et al. 2020):
    /// a relative-position attention bias shared by all layers, options in
    /// [`ModelConfig::mpnet`].
    pub const Mpnet: ModelType = ModelType(&crate::model::mpnet::ARCHITECTURE);
    /// `deberta-v2`, which DeBERTa-v3 checkpoints also name
    /// (`transformers.models.deberta_v2.modeling_deberta_v2.DebertaV2ForMaskedLM`; He et al.
    /// 2021, 2023): disentangled relative-position attention, options in
    /// [`ModelConfig::deberta`].
    pub const DebertaV2: ModelType = ModelType(&crate::model::deberta::ARCHITECTURE);

    /// The architecture whose `config.json` names `name` (`roberta`, `xlm-roberta` and
    /// `camembert` share one), or `None` when no registered architecture reads it.
    pub fn from_model_type(name: &str) -> Option<Self> {
        crate::model::find_architecture(name).map(ModelType)
    }

    /// The architecture's name: the first `model_type` it reads (`roberta` for XLM-RoBERTa).
    pub fn name(self) -> &'static str {
        self.0.model_types[0]
    }

    /// The attribute name `transformers` gives the base model inside `*ForMaskedLM`, which
    /// prefixes every encoder parameter (`bert`, `roberta`, `albert`, `distilbert`, `electra`).
    pub fn base_prefix(self) -> &'static str {
        self.0.base_prefix
    }

    /// Every `model_type` a registered architecture reads, for messages.
    pub fn supported() -> Vec<&'static str> {
        crate::model::ARCHITECTURES
            .iter()
            .flat_map(|a| a.model_types.iter().copied())
            .collect()
    }
}

family_handle!(ModelType, Architecture);

/// An activation function as `transformers.activations.ACT2FN` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Activation {
    /// `gelu` / `gelu_python`: the exact `x·Φ(x)` with the error function.
    Gelu,
    /// `gelu_new` / `gelu_pytorch_tanh` / `gelu_fast`: the tanh approximation
    /// `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))` (ALBERT's default).
    GeluTanh,
    /// `relu`.
    Relu,
    /// `silu` / `swish`: `x·σ(x)`.
    Silu,
    /// `quick_gelu`: `x·σ(1.702·x)`.
    QuickGelu,
}

impl Activation {
    /// Maps an `ACT2FN` name to the activation, or `None` when unsupported.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "gelu" | "gelu_python" => Some(Activation::Gelu),
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Some(Activation::GeluTanh),
            "relu" => Some(Activation::Relu),
            "silu" | "swish" => Some(Activation::Silu),
            "quick_gelu" => Some(Activation::QuickGelu),
            _ => None,
        }
    }
}

/// The configuration of a supported masked-language model, with the `transformers` class
/// defaults filled in and DistilBERT's names (`dim`, `n_layers`, `n_heads`, `hidden_dim`,
/// `activation`) mapped onto the BERT ones.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    /// The architecture family.
    pub model_type: ModelType,
    /// `model_type` exactly as written in the file (e.g. `xlm-roberta`).
    pub model_type_name: String,
    /// `architectures`, when the file lists them (e.g. `BertForMaskedLM`).
    pub architectures: Vec<String>,
    /// `vocab_size`.
    pub vocab_size: i64,
    /// `hidden_size` (DistilBERT: `dim`).
    pub hidden_size: i64,
    /// `num_hidden_layers` (DistilBERT: `n_layers`).
    pub num_hidden_layers: i64,
    /// `num_attention_heads` (DistilBERT: `n_heads`).
    pub num_attention_heads: i64,
    /// `intermediate_size` (DistilBERT: `hidden_dim`).
    pub intermediate_size: i64,
    /// `max_position_embeddings`: rows of the position-embedding table (RoBERTa's include its
    /// `pad_token_id + 1` offset; see [`ModelConfig::max_tokens`]).
    pub max_position_embeddings: i64,
    /// `type_vocab_size` (0 for DistilBERT, which has no token types).
    pub type_vocab_size: i64,
    /// `layer_norm_eps` (DistilBERT: fixed at 1e-12 in `transformers`; ModernBERT: `norm_eps`).
    pub layer_norm_eps: f64,
    /// `pad_token_id`.
    pub pad_token_id: i64,
    /// `hidden_act` (DistilBERT: `activation`; ModernBERT: `hidden_activation`).
    pub hidden_act: Activation,
    /// `embedding_size`: ALBERT's and ELECTRA's factorised embedding width; equals
    /// `hidden_size` elsewhere.
    pub embedding_size: i64,
    /// `num_hidden_groups` (ALBERT; 1 elsewhere).
    pub num_hidden_groups: i64,
    /// `inner_group_num` (ALBERT; 1 elsewhere).
    pub inner_group_num: i64,
    /// `tie_word_embeddings`: the MLM decoder reuses the word-embedding matrix.
    pub tie_word_embeddings: bool,
    /// `hidden_dropout_prob` (DistilBERT: `dropout`; ModernBERT: `mlp_dropout`), used only when
    /// fine-tuning.
    pub hidden_dropout_prob: f64,
    /// `attention_probs_dropout_prob` (DistilBERT and ModernBERT: `attention_dropout`), used
    /// only when fine-tuning.
    pub attention_probs_dropout_prob: f64,
    /// ModernBERT's options (layer types, sliding window, rotary bases, biases) for
    /// `modernbert`; `None` for the other architectures.
    pub modernbert: Option<crate::model::ModernBertOptions>,
    /// DeBERTa's settings (relative attention, position buckets, …) for `deberta-v2`; `None`
    /// for the other architectures.
    pub deberta: Option<DebertaOptions>,
    /// MPNet's settings (`relative_attention_num_buckets`) for `mpnet`; `None` for the other
    /// architectures.
    pub mpnet: Option<crate::model::MpnetOptions>,
}

/// The keys of the BERT family's configuration classes this crate reads, with DistilBERT's and
/// ModernBERT's names for them; absent keys take the class defaults. An architecture reads
/// options of its own from the file's text.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawConfig {
    pub(crate) model_type: Option<String>,
    #[serde(default)]
    pub(crate) architectures: Option<Vec<String>>,
    pub(crate) vocab_size: Option<i64>,
    pub(crate) hidden_size: Option<i64>,
    pub(crate) num_hidden_layers: Option<i64>,
    pub(crate) num_attention_heads: Option<i64>,
    pub(crate) intermediate_size: Option<i64>,
    pub(crate) max_position_embeddings: Option<i64>,
    pub(crate) type_vocab_size: Option<i64>,
    pub(crate) layer_norm_eps: Option<f64>,
    pub(crate) pad_token_id: Option<i64>,
    pub(crate) hidden_act: Option<serde_json::Value>,
    pub(crate) embedding_size: Option<i64>,
    pub(crate) num_hidden_groups: Option<i64>,
    pub(crate) inner_group_num: Option<i64>,
    pub(crate) tie_word_embeddings: Option<bool>,
    pub(crate) position_embedding_type: Option<String>,
    pub(crate) hidden_dropout_prob: Option<f64>,
    pub(crate) attention_probs_dropout_prob: Option<f64>,
    // ModernBERT names.
    pub(crate) hidden_activation: Option<serde_json::Value>,
    pub(crate) norm_eps: Option<f64>,
    pub(crate) mlp_dropout: Option<f64>,
    // DistilBERT names.
    pub(crate) dim: Option<i64>,
    pub(crate) n_layers: Option<i64>,
    pub(crate) n_heads: Option<i64>,
    pub(crate) hidden_dim: Option<i64>,
    pub(crate) activation: Option<serde_json::Value>,
    pub(crate) sinusoidal_pos_embds: Option<bool>,
    pub(crate) dropout: Option<f64>,
    pub(crate) attention_dropout: Option<f64>,
}

/// The defaults of a configuration class (`BertConfig`, `RobertaConfig`, ...) for the keys
/// [`ModelConfig::bert_style`] reads: what each field takes when `config.json` leaves it out
/// (`transformers` writes only the values that differ from them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClassDefaults {
    pub(crate) vocab_size: i64,
    pub(crate) hidden_size: i64,
    pub(crate) num_hidden_layers: i64,
    pub(crate) num_attention_heads: i64,
    pub(crate) intermediate_size: i64,
    pub(crate) type_vocab_size: i64,
    pub(crate) pad_token_id: i64,
    pub(crate) hidden_act: &'static str,
    pub(crate) max_position_embeddings: i64,
    pub(crate) layer_norm_eps: f64,
    pub(crate) hidden_dropout: f64,
    pub(crate) attention_dropout: f64,
}

impl ClassDefaults {
    /// `BertConfig`'s, which the other classes override in part.
    pub(crate) const BERT: ClassDefaults = ClassDefaults {
        vocab_size: 30522,
        hidden_size: 768,
        num_hidden_layers: 12,
        num_attention_heads: 12,
        intermediate_size: 3072,
        type_vocab_size: 2,
        pad_token_id: 0,
        hidden_act: "gelu",
        max_position_embeddings: 512,
        layer_norm_eps: 1e-12,
        hidden_dropout: 0.1,
        attention_dropout: 0.1,
    };
}

impl ModelConfig {
    /// Reads `config.json` from a model folder.
    ///
    /// # Errors
    /// [`PlmError::MissingFile`] if the folder has no `config.json`, and those of
    /// [`ModelConfig::from_file`].
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Self, PlmError> {
        let (text, path) = read_config_json(dir.as_ref())?;
        Self::from_json_str(&text, path)
    }

    /// Reads and validates a `config.json`.
    ///
    /// # Errors
    /// [`PlmError::Io`] if it cannot be read, and those of [`ModelConfig::from_json_str`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, PlmError> {
        let path = path.as_ref();
        Self::from_json_str(&read_text(path)?, path)
    }

    /// Parses and validates the text of a `config.json`; `path` names it in errors. The
    /// architecture its `model_type` names reads it (each with its class's defaults).
    ///
    /// # Errors
    /// [`PlmError::ConfigJson`] for invalid JSON; [`PlmError::UnsupportedModel`] for a missing
    /// or unknown `model_type`; [`PlmError::UnsupportedConfig`] for an activation, position
    /// embedding type, sinusoidal DistilBERT positions or a size this crate does not implement.
    pub fn from_json_str(text: &str, path: impl AsRef<Path>) -> Result<Self, PlmError> {
        let path = path.as_ref().to_path_buf();
        let raw: RawConfig = serde_json::from_str(text).map_err(|source| PlmError::ConfigJson {
            path: path.clone(),
            source,
        })?;
        let name = raw.model_type.clone().unwrap_or_default();
        let model_type =
            ModelType::from_model_type(&name).ok_or_else(|| PlmError::UnsupportedModel {
                model_type: name.clone(),
                path: path.clone(),
            })?;
        if let Some(kind) = &raw.position_embedding_type {
            if kind != "absolute" {
                return Err(unsupported_setting(
                    &path,
                    "position_embedding_type",
                    format!("{kind:?}"),
                    "only \"absolute\" position embeddings are implemented",
                ));
            }
        }
        (model_type.architecture().config)(&raw, &name, text, &path)
    }

    /// The configuration of `architecture` from the BERT family's keys of `raw` (`hidden_size`,
    /// `num_hidden_layers`, ..., the activation under `activation`'s key), each absent key
    /// taking its value in `defaults`; the embeddings as wide as the hidden states, one layer
    /// group, not yet validated ([`ModelConfig::validated`]). An architecture adjusts what its
    /// class does differently (ALBERT's factorised embeddings, DistilBERT's names, ...).
    ///
    /// # Errors
    /// [`PlmError::UnsupportedConfig`] for an activation this crate does not implement.
    pub(crate) fn bert_style(
        architecture: &'static Architecture,
        model_type_name: &str,
        raw: &RawConfig,
        defaults: &ClassDefaults,
        activation: (&str, Option<&serde_json::Value>),
        path: &Path,
    ) -> Result<Self, PlmError> {
        let d = defaults;
        let hidden_act = activation_of(activation, d.hidden_act, path)?;
        let hidden_size = raw.hidden_size.unwrap_or(d.hidden_size);
        Ok(ModelConfig {
            model_type: ModelType(architecture),
            model_type_name: model_type_name.to_owned(),
            architectures: raw.architectures.clone().unwrap_or_default(),
            vocab_size: raw.vocab_size.unwrap_or(d.vocab_size),
            hidden_size,
            num_hidden_layers: raw.num_hidden_layers.unwrap_or(d.num_hidden_layers),
            num_attention_heads: raw.num_attention_heads.unwrap_or(d.num_attention_heads),
            intermediate_size: raw.intermediate_size.unwrap_or(d.intermediate_size),
            max_position_embeddings: raw
                .max_position_embeddings
                .unwrap_or(d.max_position_embeddings),
            type_vocab_size: raw.type_vocab_size.unwrap_or(d.type_vocab_size),
            layer_norm_eps: raw.layer_norm_eps.unwrap_or(d.layer_norm_eps),
            pad_token_id: raw.pad_token_id.unwrap_or(d.pad_token_id),
            hidden_act,
            embedding_size: hidden_size,
            num_hidden_groups: 1,
            inner_group_num: 1,
            tie_word_embeddings: raw.tie_word_embeddings.unwrap_or(true),
            hidden_dropout_prob: raw.hidden_dropout_prob.unwrap_or(d.hidden_dropout),
            attention_probs_dropout_prob: raw
                .attention_probs_dropout_prob
                .unwrap_or(d.attention_dropout),
            modernbert: None,
            deberta: None,
            mpnet: None,
        })
    }

    /// `self` once its sizes are checked (positive, the heads dividing the hidden size, the
    /// padding id in the vocabulary, room for a token after the position offset).
    ///
    /// # Errors
    /// [`PlmError::UnsupportedConfig`] naming the first size that is not usable.
    pub(crate) fn validated(self, path: &Path) -> Result<Self, PlmError> {
        self.validate(path)?;
        Ok(self)
    }

    fn validate(&self, path: &Path) -> Result<(), PlmError> {
        let refuse = |broken: bool, key: &str, value: i64, reason: &str| {
            refuse_if(broken, path, key, value, reason)
        };
        require_positive(
            path,
            &[
                ("vocab_size", self.vocab_size),
                ("hidden_size", self.hidden_size),
                ("num_hidden_layers", self.num_hidden_layers),
                ("num_attention_heads", self.num_attention_heads),
                ("intermediate_size", self.intermediate_size),
                ("max_position_embeddings", self.max_position_embeddings),
                ("embedding_size", self.embedding_size),
                ("num_hidden_groups", self.num_hidden_groups),
                ("inner_group_num", self.inner_group_num),
            ],
        )?;
        refuse(
            self.num_hidden_layers > crate::causal::MAX_LAYERS,
            "num_hidden_layers",
            self.num_hidden_layers,
            "more layers than any model has: the configuration is damaged",
        )?;
        refuse(
            self.hidden_size % self.num_attention_heads != 0,
            "num_attention_heads",
            self.num_attention_heads,
            "must divide the hidden size",
        )?;
        refuse(
            self.num_hidden_groups > self.num_hidden_layers,
            "num_hidden_groups",
            self.num_hidden_groups,
            "cannot exceed num_hidden_layers",
        )?;
        refuse(
            self.pad_token_id < 0 || self.pad_token_id >= self.vocab_size,
            "pad_token_id",
            self.pad_token_id,
            "must be a token id of the vocabulary",
        )?;
        refuse(
            self.max_tokens() <= 0,
            "max_position_embeddings",
            self.max_position_embeddings,
            "leaves no room for a token after RoBERTa's pad_token_id + 1 position offset",
        )?;
        Ok(())
    }

    /// The first position id: `pad_token_id + 1` for RoBERTa-like models (whose position ids
    /// start after the padding index, `create_position_ids_from_input_ids` in `transformers`),
    /// 2 for MPNet (the same rule with its padding index fixed at 1), 0 otherwise.
    pub fn position_offset(&self) -> i64 {
        (self.model_type.architecture().position_offset)(self)
    }

    /// The longest sequence, special tokens included, the model accepts:
    /// `max_position_embeddings` minus [`ModelConfig::position_offset`] (512 for `roberta-base`,
    /// whose table has 514 rows).
    pub fn max_tokens(&self) -> i64 {
        self.max_position_embeddings - self.position_offset()
    }

    /// Width of one attention head, `hidden_size / num_attention_heads`.
    pub fn head_dim(&self) -> i64 {
        self.hidden_size / self.num_attention_heads
    }
}

/// The text of `dir/config.json` and its path.
///
/// # Errors
/// [`PlmError::MissingFile`] if it is absent; [`PlmError::Io`] if it cannot be read.
pub(crate) fn read_config_json(dir: &Path) -> Result<(String, PathBuf), PlmError> {
    let path = dir.join("config.json");
    if !path.is_file() {
        return Err(PlmError::MissingFile {
            path,
            hint: "a Hugging Face model folder needs config.json, model.safetensors and \
                   tokenizer.json (save them with `save_pretrained`)"
                .into(),
        });
    }
    let text = read_text(&path)?;
    Ok((text, path))
}

/// The text of the file at `path`, [`PlmError::Io`] if it cannot be read.
fn read_text(path: &Path) -> Result<String, PlmError> {
    std::fs::read_to_string(path).map_err(|source| PlmError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// [`PlmError::UnsupportedConfig`] for the integer `key` = `value` of the `config.json` at
/// `path`.
pub(crate) fn unsupported_size(path: &Path, key: &str, value: i64, reason: &str) -> PlmError {
    PlmError::UnsupportedConfig {
        key: key.into(),
        value: value.to_string(),
        reason: reason.into(),
        path: path.to_path_buf(),
    }
}

/// [`unsupported_size`] where `broken` holds: a check reads as the rule it enforces.
pub(crate) fn refuse_if(
    broken: bool,
    path: &Path,
    key: &str,
    value: i64,
    reason: &str,
) -> Result<(), PlmError> {
    match broken {
        true => Err(unsupported_size(path, key, value, reason)),
        false => Ok(()),
    }
}

/// [`unsupported_size`] "must be positive" for the first of `sizes` that is not.
pub(crate) fn require_positive(path: &Path, sizes: &[(&str, i64)]) -> Result<(), PlmError> {
    match sizes.iter().find(|(_, value)| *value <= 0) {
        Some(&(key, value)) => Err(unsupported_size(path, key, value, "must be positive")),
        None => Ok(()),
    }
}

/// [`PlmError::UnsupportedConfig`] for `key` = `value` of the `config.json` at `path`.
pub(crate) fn unsupported_setting(path: &Path, key: &str, value: String, reason: &str) -> PlmError {
    PlmError::UnsupportedConfig {
        key: key.into(),
        value,
        reason: reason.into(),
        path: path.to_path_buf(),
    }
}

/// The activation `config.json` names under `key` (`value`), or `default` when absent.
fn activation_of(
    (key, value): (&str, Option<&serde_json::Value>),
    default: &str,
    path: &Path,
) -> Result<Activation, PlmError> {
    match value {
        None => Ok(Activation::from_name(default).expect("default activation")),
        Some(serde_json::Value::String(s)) => Activation::from_name(s).ok_or_else(|| {
            unsupported_setting(
                path,
                key,
                format!("{s:?}"),
                "supported activations are gelu, gelu_new (gelu_pytorch_tanh, gelu_fast), \
                 relu, silu and quick_gelu",
            )
        }),
        Some(other) => Err(unsupported_setting(
            path,
            key,
            other.to_string(),
            "the activation must be named by a string",
        )),
    }
}

/// Every `model_type` this crate reads, for messages: the masked architectures as registered
/// (each as its [`Architecture::listed_as`] says), then the causal families.
pub(crate) fn supported_model_types() -> String {
    let masked: Vec<&str> = crate::model::ARCHITECTURES
        .iter()
        .map(|a| a.listed_as)
        .collect();
    let masked = match masked.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => masked.join(""),
    };
    format!(
        "{masked} (masked LMs); {} (causal LMs)",
        crate::causal::CausalType::supported_list()
    )
}
