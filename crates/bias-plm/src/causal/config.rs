//! The configuration of a causal language model, read from a Hugging Face `config.json`.
//!
//! `transformers` may leave out values equal to its configuration class's defaults, so every
//! field absent from the file takes the default of the matching class (`GPT2Config`,
//! `LlamaConfig`, `MistralConfig`, `Qwen2Config`, `GPTNeoXConfig`, `OPTConfig`, `Gemma2Config`,
//! `Phi3Config`, `Olmo2Config`). Both spellings of the rotary settings are
//! read: `rope_theta` and `rope_scaling` (transformers 4) and `rope_parameters` (transformers 5).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::registry::CausalArchitecture;
use crate::config::{read_config_json, refuse_if, require_positive};
use crate::{Activation, PlmError};

/// The family a causal `config.json` names in `model_type`: one of the causal-LM families
/// registered in `causal/mod.rs` (each defined, config and weights, in its own file there).
#[derive(Clone, Copy)]
pub struct CausalType(&'static CausalArchitecture);

#[allow(non_upper_case_globals)]
impl CausalType {
    /// `gpt2` (`GPT2LMHeadModel`; Radford et al. 2019, "Language Models are Unsupervised
    /// Multitask Learners"): learned absolute positions, pre-layer-norm blocks, `Conv1D` weights
    /// stored `[in, out]`, the LM head tied to the token embeddings.
    pub const Gpt2: CausalType = CausalType(&super::gpt2::ARCHITECTURE);
    /// `llama` (`LlamaForCausalLM`; Touvron et al. 2023, "LLaMA: Open and Efficient Foundation
    /// Language Models", and Llama 2/3): rotary positions (Su et al. 2021), RMSNorm, SwiGLU MLP,
    /// grouped-query attention (`num_key_value_heads`; Ainslie et al. 2023).
    pub const Llama: CausalType = CausalType(&super::llama::ARCHITECTURE);
    /// `mistral` (`MistralForCausalLM`; Jiang et al. 2023, "Mistral 7B"): Llama's blocks with
    /// sliding-window attention (`sliding_window`) and no biases.
    pub const Mistral: CausalType = CausalType(&super::mistral::ARCHITECTURE);
    /// `qwen2` (`Qwen2ForCausalLM`; Yang et al. 2024, "Qwen2 Technical Report"): Llama's blocks
    /// with biases on the query, key and value projections.
    pub const Qwen2: CausalType = CausalType(&super::qwen2::ARCHITECTURE);
    /// `gpt_neox` (`GPTNeoXForCausalLM`; Black et al. 2022; Pythia, Biderman et al. 2023):
    /// fused per-head q/k/v, partial rotary embeddings, parallel attention and MLP residuals.
    pub const GptNeox: CausalType = CausalType(&super::gpt_neox::ARCHITECTURE);
    /// `opt` (`OPTForCausalLM`; Zhang et al. 2022): learned positions offset by 2, optional
    /// embedding projections, pre- or post-layer-norm blocks.
    pub const Opt: CausalType = CausalType(&super::opt::ARCHITECTURE);
    /// `gemma2` (`Gemma2ForCausalLM`; Gemma Team 2024): scaled embeddings, `1 + w` RMSNorms
    /// around each sublayer, soft-capped attention scores and logits, alternating sliding
    /// windows.
    pub const Gemma2: CausalType = CausalType(&super::gemma2::ARCHITECTURE);
    /// `phi3` (`Phi3ForCausalLM`; Abdin et al. 2024): fused q/k/v and gate/up projections,
    /// partial rotary embeddings, LongRoPE.
    pub const Phi3: CausalType = CausalType(&super::phi3::ARCHITECTURE);
    /// `olmo2` (`Olmo2ForCausalLM`; OLMo et al. 2024): post-sublayer RMSNorms and query/key
    /// norms.
    pub const Olmo2: CausalType = CausalType(&super::olmo2::ARCHITECTURE);

    /// Every registered causal family, in the order messages list them.
    pub fn all() -> Vec<CausalType> {
        super::ARCHITECTURES.iter().map(|a| CausalType(a)).collect()
    }

    /// Maps a `model_type` string to the family, or `None` when it is not a causal LM this crate
    /// implements.
    pub fn from_model_type(name: &str) -> Option<Self> {
        super::registry::find(name).map(CausalType)
    }

    /// The `model_type` string.
    pub fn name(self) -> &'static str {
        self.0.model_type
    }

    /// `gpt2, llama, mistral, ..., phi3 and olmo2`, for messages.
    pub fn supported_list() -> String {
        let names: Vec<&str> = super::ARCHITECTURES.iter().map(|a| a.model_type).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.join(""),
        }
    }
}

family_handle!(CausalType, CausalArchitecture);

/// How the rotary frequencies are scaled (`rope_parameters.rope_type`; `transformers`'
/// `ROPE_INIT_FUNCTIONS`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RopeScaling {
    /// `default`: `inv_freq_k = θ^(−2k/d)` (Su et al. 2021).
    None,
    /// `linear`: every frequency divided by `factor` (position interpolation; Chen et al. 2023).
    Linear {
        /// `factor`.
        factor: f64,
    },
    /// `llama3`: low frequencies divided by `factor`, high ones kept, the band between
    /// interpolated (Llama 3.1, `_compute_llama3_parameters`).
    Llama3 {
        /// `factor`.
        factor: f64,
        /// `low_freq_factor`.
        low_freq_factor: f64,
        /// `high_freq_factor`.
        high_freq_factor: f64,
        /// `original_max_position_embeddings`.
        original_max_position_embeddings: f64,
    },
    /// `longrope` (Ding et al. 2024, "LongRoPE"; Phi-3): `inv_freq_k = 1 / (f_k · θ^(2k/d))`
    /// with the `short_factor`s for sequences of at most `original_max_position_embeddings`
    /// tokens and the `long_factor`s beyond, and `cos`, `sin` multiplied by `attention_factor`
    /// (`_compute_longrope_parameters`, `longrope_frequency_update`). The choice is made per
    /// sequence on its own length, as `transformers` makes it for one unpadded sequence.
    LongRope {
        /// `short_factor`, one per rotated frequency.
        short_factor: Vec<f64>,
        /// `long_factor`, one per rotated frequency.
        long_factor: Vec<f64>,
        /// `original_max_position_embeddings`: the longest sequence scored with `short_factor`.
        original_max_position_embeddings: i64,
        /// `attention_factor` (default `√(1 + ln s / ln L)` with `s = max_position_embeddings /
        /// L`, `L = original_max_position_embeddings`; 1 when `s ≤ 1`).
        attention_factor: f64,
    },
}

/// What only some families have, read from their `config.json` by their own file of `causal/`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FamilySettings {
    /// Nothing beyond the shared fields (GPT-2 and the Llama family).
    None,
    /// GPT-NeoX (Pythia): `use_parallel_residual`, `x + Attn(LN₁(x)) + MLP(LN₂(x))` when true,
    /// GPT-2's sequential residual otherwise.
    GptNeox {
        /// `use_parallel_residual`.
        parallel_residual: bool,
    },
    /// OPT (Zhang et al. 2022).
    Opt {
        /// `do_layer_norm_before`: pre-layer-norm blocks with a final layer norm (all OPT models
        /// but 350m), or post-layer-norm blocks without one.
        layer_norm_before: bool,
        /// `word_embed_proj_dim`: the width of the token embeddings, projected to and from the
        /// hidden size (`project_in`, `project_out`) when it differs.
        word_embed_proj_dim: i64,
        /// A final layer norm after the last block (`do_layer_norm_before` and not
        /// `_remove_final_layer_norm`).
        final_layer_norm: bool,
    },
    /// Gemma 2 (Gemma Team 2024, "Gemma 2: Improving Open Language Models at a Practical Size").
    Gemma2 {
        /// `query_pre_attn_scalar`: attention scores are scaled by its inverse square root.
        query_pre_attn_scalar: f64,
        /// `attn_logit_softcapping`: scores `s` become `c · tanh(s / c)` before the mask.
        attn_logit_softcapping: Option<f64>,
        /// `final_logit_softcapping`: the vocabulary logits, likewise.
        final_logit_softcapping: Option<f64>,
    },
}

/// The configuration of a supported causal language model, with the `transformers` class
/// defaults filled in and GPT-2's names (`n_embd`, `n_layer`, `n_head`, `n_inner`,
/// `n_positions`, `layer_norm_epsilon`, `activation_function`) mapped onto the Llama ones.
#[derive(Debug, Clone, PartialEq)]
pub struct CausalConfig {
    /// The architecture family.
    pub model_type: CausalType,
    /// `architectures`, when the file lists them (e.g. `LlamaForCausalLM`).
    pub architectures: Vec<String>,
    /// `vocab_size`.
    pub vocab_size: i64,
    /// `hidden_size` (GPT-2: `n_embd`).
    pub hidden_size: i64,
    /// `num_hidden_layers` (GPT-2: `n_layer`).
    pub num_hidden_layers: i64,
    /// `num_attention_heads` (GPT-2: `n_head`).
    pub num_attention_heads: i64,
    /// `num_key_value_heads` (grouped-query attention; GPT-2: `num_attention_heads`).
    pub num_key_value_heads: i64,
    /// `head_dim` (default `hidden_size / num_attention_heads`).
    pub head_dim: i64,
    /// `intermediate_size` (GPT-2: `n_inner`, default `4 · n_embd`).
    pub intermediate_size: i64,
    /// `max_position_embeddings` (GPT-2: `n_positions`): the longest sequence scored.
    pub max_position_embeddings: i64,
    /// `rms_norm_eps` (GPT-2: `layer_norm_epsilon`).
    pub norm_eps: f64,
    /// `hidden_act` (GPT-2: `activation_function`).
    pub hidden_act: Activation,
    /// `rope_theta` (Llama family; 10000 by default).
    pub rope_theta: f64,
    /// The rotary scaling (Llama family).
    pub rope_scaling: RopeScaling,
    /// How many dimensions of each head rotate: `partial_rotary_factor · head_dim` (GPT-NeoX's
    /// `rotary_pct`, 0.25 by default; Phi-3's `partial_rotary_factor`), the whole head
    /// elsewhere, 0 without rotary embeddings (GPT-2, OPT).
    pub rotary_dim: i64,
    /// Biases on the query, key and value projections (Qwen2; Llama's `attention_bias`).
    pub qkv_bias: bool,
    /// A bias on the attention output projection (Llama's `attention_bias`).
    pub attention_out_bias: bool,
    /// Biases in the MLP (Llama's `mlp_bias`).
    pub mlp_bias: bool,
    /// Per layer, the sliding attention window (a query sees the `w` most recent positions, itself
    /// included, as `transformers.masking_utils.sliding_window_overlay`), or `None` for full
    /// causal attention.
    pub sliding_window: Vec<Option<i64>>,
    /// GPT-2's `scale_attn_weights`: divide the attention scores by `√head_dim` (true elsewhere).
    pub scale_attn_weights: bool,
    /// GPT-2's `scale_attn_by_inverse_layer_idx`: also divide layer `i`'s scores by `i + 1`.
    pub scale_attn_by_inverse_layer_idx: bool,
    /// `tie_word_embeddings`: the LM head is the token-embedding matrix.
    pub tie_word_embeddings: bool,
    /// `bos_token_id`, if set.
    pub bos_token_id: Option<i64>,
    /// `eos_token_id` (the first, when a list), if set.
    pub eos_token_id: Option<i64>,
    /// What only this family has.
    pub family: FamilySettings,
}

impl CausalConfig {
    /// Reads `config.json` from a model folder.
    ///
    /// # Errors
    /// [`PlmError::MissingFile`] if the folder has no `config.json`, and those of
    /// [`CausalConfig::from_json_str`].
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Self, PlmError> {
        let (text, path) = read_config_json(dir.as_ref())?;
        Self::from_json_str(&text, path)
    }

    /// Parses and validates the text of a `config.json`; `path` names it in errors.
    ///
    /// # Errors
    /// [`PlmError::ConfigJson`] for invalid JSON; [`PlmError::UnsupportedModel`] for a missing
    /// `model_type` or one that is not a causal LM of [`CausalType`];
    /// [`PlmError::UnsupportedConfig`] for an activation, a rotary scaling or a size this crate
    /// does not implement.
    pub fn from_json_str(text: &str, path: impl AsRef<Path>) -> Result<Self, PlmError> {
        let path = path.as_ref().to_path_buf();
        let raw: Value = serde_json::from_str(text).map_err(|source| PlmError::ConfigJson {
            path: path.clone(),
            source,
        })?;
        let name = raw
            .get("model_type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let model_type =
            CausalType::from_model_type(&name).ok_or_else(|| PlmError::UnsupportedModel {
                model_type: name.clone(),
                path: path.clone(),
            })?;
        let r = Raw {
            value: &raw,
            path: &path,
        };
        let config = (model_type.architecture().config)(&r)?;
        config.validate(&path)?;
        Ok(config)
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
                ("num_key_value_heads", self.num_key_value_heads),
                ("head_dim", self.head_dim),
                ("intermediate_size", self.intermediate_size),
                ("max_position_embeddings", self.max_position_embeddings),
            ],
        )?;
        let rotary = self.model_type.architecture().rotary;
        refuse(
            !rotary && self.hidden_size % self.num_attention_heads != 0,
            "n_head",
            self.num_attention_heads,
            "must divide the hidden size",
        )?;
        refuse(
            self.num_attention_heads % self.num_key_value_heads != 0,
            "num_key_value_heads",
            self.num_key_value_heads,
            "must divide num_attention_heads",
        )?;
        refuse(
            rotary && (self.rotary_dim % 2 != 0 || self.rotary_dim <= 0),
            "head_dim",
            self.head_dim,
            "rotary embeddings need an even, positive number of rotated dimensions \
                 (head_dim times partial_rotary_factor)",
        )?;
        refuse(
            self.rotary_dim > self.head_dim,
            "partial_rotary_factor",
            self.rotary_dim,
            "rotates more dimensions than a head has",
        )?;
        if let RopeScaling::LongRope {
            short_factor,
            long_factor,
            ..
        } = &self.rope_scaling
        {
            let n = self.rotary_dim / 2;
            refuse(
                short_factor.len() as i64 != n || long_factor.len() as i64 != n,
                "rope_parameters",
                short_factor.len().min(long_factor.len()) as i64,
                &format!(
                    "longrope needs one short_factor and one long_factor per rotated frequency \
                     ({n})"
                ),
            )?;
        }
        let windows = self.sliding_window.iter().flatten();
        let windows: Vec<(&str, i64)> = windows.map(|&w| ("sliding_window", w)).collect();
        require_positive(path, &windows)
    }

    /// The longest sequence, the prefix token included, that is scored:
    /// `max_position_embeddings` (GPT-2's `n_positions`).
    pub fn max_tokens(&self) -> i64 {
        self.max_position_embeddings
    }

    /// Query heads per key-value head (1 without grouped-query attention).
    pub fn kv_groups(&self) -> i64 {
        self.num_attention_heads / self.num_key_value_heads
    }
}

/// The most layers a configuration may declare (the largest released models have under 200).
pub(crate) const MAX_LAYERS: i64 = 4096;

/// Reads a family's biases ([`LlamaFamily::biases`]).
pub(crate) type BiasesFn = fn(&Raw<'_>) -> Result<(bool, bool, bool), PlmError>;

/// Reads a family's sliding windows ([`LlamaFamily::sliding_windows`]).
pub(crate) type SlidingWindowsFn = fn(&Raw<'_>, i64) -> Result<Vec<Option<i64>>, PlmError>;

/// What a Llama-family configuration class (`LlamaConfig`, `MistralConfig`, `Qwen2Config`, ...)
/// does: its defaults, its biases and its sliding windows ([`Raw::llama_style`]).
pub(crate) struct LlamaFamily {
    pub(crate) vocab_size: i64,
    pub(crate) hidden_size: i64,
    pub(crate) intermediate_size: i64,
    pub(crate) num_hidden_layers: i64,
    pub(crate) num_attention_heads: i64,
    /// `None`: as many as the attention heads.
    pub(crate) num_key_value_heads: Option<i64>,
    /// `None`: `hidden_size / num_attention_heads`.
    pub(crate) head_dim: Option<i64>,
    pub(crate) max_position_embeddings: i64,
    pub(crate) rms_norm_eps: f64,
    pub(crate) bos_token_id: Option<i64>,
    pub(crate) eos_token_id: Option<i64>,
    pub(crate) tie_word_embeddings: bool,
    /// Biases on (the query, key and value projections; the attention output; the MLP).
    pub(crate) biases: BiasesFn,
    /// Per layer, the sliding attention window or `None` (the number of layers given).
    pub(crate) sliding_windows: SlidingWindowsFn,
    /// `partial_rotary_factor` below 1 is implemented (Phi-3's rotary embedding); Llama's
    /// rotates whole heads.
    pub(crate) partial_rotary: bool,
    /// `original_max_position_embeddings` read from the top level of `config.json`, where it
    /// takes precedence over `rope_parameters`' (Phi-3; `standardize_rope_params`), and its
    /// default.
    pub(crate) top_level_original_max: Option<i64>,
}

/// `LlamaConfig`'s defaults (Llama 7B): no biases unless `attention_bias` / `mlp_bias`, full
/// attention.
pub(crate) const LLAMA: LlamaFamily = LlamaFamily {
    vocab_size: 32000,
    hidden_size: 4096,
    intermediate_size: 11008,
    num_hidden_layers: 32,
    num_attention_heads: 32,
    num_key_value_heads: None,
    head_dim: None,
    max_position_embeddings: 2048,
    rms_norm_eps: 1e-6,
    bos_token_id: Some(1),
    eos_token_id: Some(2),
    tie_word_embeddings: false,
    biases: |raw| {
        let a = raw.boolean("attention_bias")?.unwrap_or(false);
        Ok((a, a, raw.boolean("mlp_bias")?.unwrap_or(false)))
    },
    sliding_windows: |_, layers| Ok(vec![None; layers.max(0) as usize]),
    partial_rotary: false,
    top_level_original_max: None,
};

/// The parsed `config.json` with typed accessors that name the key in errors: what a family's
/// [`CausalArchitecture::config`] reads.
pub(crate) struct Raw<'a> {
    pub(crate) value: &'a Value,
    path: &'a PathBuf,
}

impl Raw<'_> {
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.value.get(key).filter(|v| !v.is_null())
    }

    pub(crate) fn unsupported(&self, key: &str, value: String, reason: &str) -> PlmError {
        PlmError::UnsupportedConfig {
            key: key.into(),
            value,
            reason: reason.into(),
            path: self.path.clone(),
        }
    }

    pub(crate) fn int(&self, key: &str) -> Result<Option<i64>, PlmError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| self.unsupported(key, v.to_string(), "must be an integer")),
        }
    }

    /// The number of layers under `key` (`default` when absent), refused above [`MAX_LAYERS`]:
    /// per-layer settings are allocated from it before any weight is read.
    pub(crate) fn layer_count(&self, key: &str, default: i64) -> Result<i64, PlmError> {
        let n = self.int(key)?.unwrap_or(default);
        if n > MAX_LAYERS {
            return Err(self.unsupported(
                key,
                n.to_string(),
                &format!("more than {MAX_LAYERS} layers: the configuration is damaged"),
            ));
        }
        Ok(n)
    }

    pub(crate) fn float(&self, key: &str) -> Result<Option<f64>, PlmError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.unsupported(key, v.to_string(), "must be a number")),
        }
    }

    pub(crate) fn boolean(&self, key: &str) -> Result<Option<bool>, PlmError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| self.unsupported(key, v.to_string(), "must be true or false")),
        }
    }

    /// A token id that may be written as a list (`eos_token_id: [1, 2]`): the first.
    pub(crate) fn token_id(&self, key: &str) -> Result<Option<i64>, PlmError> {
        match self.get(key) {
            Some(Value::Array(ids)) => Ok(ids.first().and_then(Value::as_i64)),
            _ => self.int(key),
        }
    }

    pub(crate) fn activation(&self, key: &str, default: &str) -> Result<Activation, PlmError> {
        match self.get(key) {
            None => Ok(Activation::from_name(default).expect("default activation")),
            Some(Value::String(s)) => Activation::from_name(s).ok_or_else(|| {
                self.unsupported(
                    key,
                    format!("{s:?}"),
                    "supported activations are gelu, gelu_new (gelu_pytorch_tanh, gelu_fast), \
                     relu, silu and quick_gelu",
                )
            }),
            Some(other) => Err(self.unsupported(
                key,
                other.to_string(),
                "the activation must be named by a string",
            )),
        }
    }

    pub(crate) fn architectures(&self) -> Vec<String> {
        self.get("architectures")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `sliding_window`: 4096 when absent, `None` when `null` (Mistral's and Qwen2's classes).
    pub(crate) fn sliding_window(&self) -> Result<Option<i64>, PlmError> {
        match self.value.get("sliding_window") {
            None => Ok(Some(4096)),
            Some(Value::Null) => Ok(None),
            Some(_) => self.int("sliding_window"),
        }
    }

    /// A Llama-family configuration (`LlamaConfig`'s keys) with `family`'s defaults, biases and
    /// sliding windows.
    pub(crate) fn llama_style(
        &self,
        architecture: &'static CausalArchitecture,
        family: &LlamaFamily,
    ) -> Result<CausalConfig, PlmError> {
        let f = family;
        let hidden = self.int("hidden_size")?.unwrap_or(f.hidden_size);
        let heads = self
            .int("num_attention_heads")?
            .unwrap_or(f.num_attention_heads);
        let layers = self.layer_count("num_hidden_layers", f.num_hidden_layers)?;
        let kv_default = f.num_key_value_heads.unwrap_or(heads);
        let (qkv_bias, attention_out_bias, mlp_bias) = (f.biases)(self)?;
        let head_dim = match self.int("head_dim")?.or(f.head_dim) {
            Some(d) => d,
            None if heads > 0 => hidden / heads,
            None => 0,
        };
        let max_position_embeddings = self
            .int("max_position_embeddings")?
            .unwrap_or(f.max_position_embeddings);
        let original_max = match f.top_level_original_max {
            Some(default) => Some(
                self.int("original_max_position_embeddings")?
                    .unwrap_or(default),
            ),
            None => None,
        };
        let rope = self.rope(max_position_embeddings, original_max)?;
        let partial = rope.partial_rotary_factor.unwrap_or(1.0);
        if partial != 1.0 && !f.partial_rotary {
            return Err(self.unsupported(
                "partial_rotary_factor",
                partial.to_string(),
                &format!(
                    "{} rotates whole heads; partial rotary embeddings are implemented for \
                     gpt_neox and phi3",
                    architecture.model_type
                ),
            ));
        }
        Ok(CausalConfig {
            model_type: CausalType(architecture),
            architectures: self.architectures(),
            vocab_size: self.int("vocab_size")?.unwrap_or(f.vocab_size),
            hidden_size: hidden,
            num_hidden_layers: layers,
            num_attention_heads: heads,
            num_key_value_heads: self.int("num_key_value_heads")?.unwrap_or(kv_default),
            head_dim,
            intermediate_size: self
                .int("intermediate_size")?
                .unwrap_or(f.intermediate_size),
            max_position_embeddings,
            norm_eps: self.float("rms_norm_eps")?.unwrap_or(f.rms_norm_eps),
            hidden_act: self.activation("hidden_act", "silu")?,
            rope_theta: rope.theta,
            rope_scaling: rope.scaling,
            rotary_dim: rotary_dim(head_dim, partial),
            qkv_bias,
            attention_out_bias,
            mlp_bias,
            sliding_window: (f.sliding_windows)(self, layers)?,
            scale_attn_weights: true,
            scale_attn_by_inverse_layer_idx: false,
            tie_word_embeddings: self
                .boolean("tie_word_embeddings")?
                .unwrap_or(f.tie_word_embeddings),
            bos_token_id: self.token_id("bos_token_id")?.or(f.bos_token_id),
            eos_token_id: self.token_id("eos_token_id")?.or(f.eos_token_id),
            family: FamilySettings::None,
        })
    }

    /// The rotary settings, from `rope_parameters` (transformers 5) or `rope_theta`,
    /// `rope_scaling` and `partial_rotary_factor` (transformers 4). `max_position_embeddings`
    /// and `original_max` (a top-level `original_max_position_embeddings` that takes precedence,
    /// as Phi-3's does) serve `longrope`.
    pub(crate) fn rope(
        &self,
        max_position_embeddings: i64,
        original_max: Option<i64>,
    ) -> Result<Rope, PlmError> {
        let params = self
            .get("rope_parameters")
            .or_else(|| self.get("rope_scaling"));
        let field = |key: &str| params.and_then(|p| p.get(key)).filter(|v| !v.is_null());
        let theta = match field("rope_theta") {
            Some(v) => v
                .as_f64()
                .ok_or_else(|| self.unsupported("rope_theta", v.to_string(), "must be a number"))?,
            None => self.float("rope_theta")?.unwrap_or(10_000.0),
        };
        let partial_rotary_factor = match field("partial_rotary_factor") {
            Some(v) => Some(v.as_f64().ok_or_else(|| {
                self.unsupported("partial_rotary_factor", v.to_string(), "must be a number")
            })?),
            None => self.float("partial_rotary_factor")?,
        };
        let kind = field("rope_type")
            .or_else(|| field("type"))
            .and_then(Value::as_str)
            .unwrap_or("default")
            .to_owned();
        let bad = |reason: String| {
            self.unsupported(
                "rope_parameters",
                params.map_or_else(String::new, Value::to_string),
                &reason,
            )
        };
        let number = |key: &str| -> Result<f64, PlmError> {
            field(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| bad(format!("rope_type {kind:?} needs a number `{key}`")))
        };
        let numbers = |key: &str| -> Result<Vec<f64>, PlmError> {
            field(key)
                .and_then(Value::as_array)
                .and_then(|a| a.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>())
                .ok_or_else(|| {
                    bad(format!(
                        "rope_type {kind:?} needs a list of numbers `{key}`"
                    ))
                })
        };
        let scaling = match kind.as_str() {
            "default" => RopeScaling::None,
            "linear" => RopeScaling::Linear {
                factor: number("factor")?,
            },
            "llama3" => RopeScaling::Llama3 {
                factor: number("factor")?,
                low_freq_factor: number("low_freq_factor")?,
                high_freq_factor: number("high_freq_factor")?,
                original_max_position_embeddings: number("original_max_position_embeddings")?,
            },
            // `su` is LongRoPE's older name in Phi-3 configurations
            // (`Phi3Config.convert_rope_params_to_dict`).
            "longrope" | "su" => {
                let original = match original_max {
                    Some(n) => n,
                    None => match field("original_max_position_embeddings") {
                        Some(_) => number("original_max_position_embeddings")? as i64,
                        None => max_position_embeddings,
                    },
                };
                if original <= 1 {
                    return Err(bad(format!(
                        "original_max_position_embeddings {original} must be above 1"
                    )));
                }
                let factor = match field("factor") {
                    Some(_) => number("factor")?,
                    None => max_position_embeddings as f64 / original as f64,
                };
                let attention_factor = match field("attention_factor") {
                    Some(_) => number("attention_factor")?,
                    None if factor <= 1.0 => 1.0,
                    None => (1.0 + factor.ln() / (original as f64).ln()).sqrt(),
                };
                RopeScaling::LongRope {
                    short_factor: numbers("short_factor")?,
                    long_factor: numbers("long_factor")?,
                    original_max_position_embeddings: original,
                    attention_factor,
                }
            }
            other => {
                return Err(self.unsupported(
                    "rope_type",
                    format!("{other:?}"),
                    "implemented rotary types are default, linear, llama3 and longrope",
                ))
            }
        };
        Ok(Rope {
            theta,
            scaling,
            partial_rotary_factor,
        })
    }
}

/// The rotary settings of a `config.json` ([`Raw::rope`]).
pub(crate) struct Rope {
    pub(crate) theta: f64,
    pub(crate) scaling: RopeScaling,
    /// `partial_rotary_factor`, when the file gives one.
    pub(crate) partial_rotary_factor: Option<f64>,
}

/// The rotated dimensions of a head: `int(head_dim · partial_rotary_factor)`, as
/// `transformers` truncates it.
pub(crate) fn rotary_dim(head_dim: i64, partial_rotary_factor: f64) -> i64 {
    (head_dim as f64 * partial_rotary_factor) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CausalConfig, PlmError> {
        CausalConfig::from_json_str(text, "config.json")
    }

    #[test]
    fn gpt2_defaults_are_gpt2_small() {
        let c = parse(r#"{"model_type": "gpt2"}"#).unwrap();
        assert_eq!(
            (c.hidden_size, c.num_hidden_layers, c.num_attention_heads),
            (768, 12, 12)
        );
        assert_eq!(
            (c.intermediate_size, c.max_position_embeddings, c.vocab_size),
            (3072, 1024, 50257)
        );
        assert_eq!(c.hidden_act, Activation::GeluTanh);
        assert!(c.tie_word_embeddings);
        assert_eq!(c.bos_token_id, Some(50256));
    }

    #[test]
    fn llama_family_defaults_and_legacy_rope_keys() {
        let c = parse(
            r#"{"model_type": "llama", "rope_theta": 500000.0,
            "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
            "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}"#,
        )
        .unwrap();
        assert_eq!(c.rope_theta, 500000.0);
        assert!(matches!(c.rope_scaling, RopeScaling::Llama3 { factor, .. } if factor == 8.0));
        assert_eq!((c.num_key_value_heads, c.head_dim), (32, 128));
        assert!(!c.tie_word_embeddings);
        let m = parse(r#"{"model_type": "mistral"}"#).unwrap();
        assert_eq!(m.num_key_value_heads, 8);
        assert_eq!(m.sliding_window, vec![Some(4096); 32]);
        let m = parse(r#"{"model_type": "mistral", "sliding_window": null}"#).unwrap();
        assert_eq!(m.sliding_window, vec![None; 32]);
        let q = parse(
            r#"{"model_type": "qwen2", "num_hidden_layers": 4,
            "use_sliding_window": true, "sliding_window": 16, "max_window_layers": 2}"#,
        )
        .unwrap();
        assert_eq!(q.sliding_window, vec![None, None, Some(16), Some(16)]);
        assert!(q.qkv_bias && !q.attention_out_bias);
    }

    #[test]
    fn unknown_rope_types_and_models_are_refused() {
        let e = parse(r#"{"model_type": "llama", "rope_scaling": {"type": "yarn", "factor": 4}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("yarn"), "{e}");
        let e = parse(r#"{"model_type": "bert"}"#).unwrap_err();
        assert!(matches!(e, PlmError::UnsupportedModel { .. }), "{e:?}");
        let e = parse(
            r#"{"model_type": "llama", "num_attention_heads": 6,
            "num_key_value_heads": 4}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("num_key_value_heads"), "{e}");
    }
}
