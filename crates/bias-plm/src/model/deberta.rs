//! DeBERTa-v2 and DeBERTa-v3 masked LMs (`model_type` `deberta-v2`):
//! `transformers.models.deberta_v2.modeling_deberta_v2.DebertaV2ForMaskedLM` in eval mode.
//!
//! DeBERTa (He, Liu, Gao & Chen 2021, "DeBERTa: Decoding-enhanced BERT with Disentangled
//! Attention", ICLR) keeps a token's content and its relative position apart: the attention
//! score of query `i` and key `j` is the content-to-content term `q_i·k_j` plus
//! content-to-position `q_i·k^r_{δ(i,j)}` (`c2p`) plus position-to-content `k_j·q^r_{δ(j,i)}`
//! (`p2c`), all divided by `√(3d)` (`√(d·scale_factor)`, the factor counting the terms in use),
//! where `k^r`, `q^r` project a table of relative-position embeddings (`rel_embeddings`).
//! DeBERTa-v2 adds log-bucketed relative positions (`position_buckets`), a LayerNorm on that
//! table (`norm_rel_ebd = "layer_norm"`), position projections shared with the content ones
//! (`share_att_key`) and an optional convolution after the first layer (`conv_kernel_size`);
//! DeBERTaV3 (He, Gao & Chen 2023, "DeBERTaV3: Improving DeBERTa using ELECTRA-Style
//! Pre-Training with Gradient-Disentangled Embedding Sharing", ICLR) keeps the v2 architecture
//! (256 buckets, shared keys, no convolution, no absolute positions) and changes the
//! pre-training, so its checkpoints load here too. Its objective is ELECTRA's replaced-token
//! detection, and the released `microsoft/deberta-v3-*` checkpoints are the discriminators:
//! pseudo-log-likelihoods need a masked-LM head that was trained as one (a DeBERTa-v2 checkpoint,
//! a v3 generator, a v3 model fine-tuned on MLM), which is worth checking before scoring.
//!
//! Everything follows `transformers` 5.23's `modeling_deberta_v2.py` operation by operation:
//! `DebertaV2Embeddings` (word embeddings, absolute positions only when
//! `position_biased_input`, token type 0 when `type_vocab_size > 0`, `embed_proj` when
//! `embedding_size ≠ hidden_size`, LayerNorm, then multiplication by the attention mask),
//! `build_relative_position` / `make_log_bucket_position` (in float32, as `torch` computes
//! them), `DisentangledSelfAttention` (the scale `sqrt(d·scale_factor)` rounded to the model's
//! kind; scores of masked query/key pairs filled with `finfo.min`), `DebertaV2Layer`
//! (post-layer-norm residual blocks), `ConvLayer`, and the masked-LM heads: the default
//! `legacy = true` head `cls.predictions.*` (`LegacyDebertaV2LMPredictionHead`: dense to
//! `embedding_size`, `hidden_act`, LayerNorm, decoder tied to the word embeddings when
//! `tie_word_embeddings`, else `cls.predictions.decoder.*` with its own bias) and the
//! `legacy = false` head `lm_predictions.lm_head.*` (`DebertaV2LMPredictionHead`: dense,
//! `hidden_act`, LayerNorm, then always the word-embedding matrix and `lm_head.bias`), the
//! layout of Microsoft's original checkpoints (their `config.json` does not set `legacy`, so
//! `transformers` gives them a randomly initialised `cls.predictions` head unless
//! `"legacy": false` is added; a checkpoint converted to safetensors through
//! `AutoModelForMaskedLM` without it has lost its head, which no loader can notice).
//!
//! Padding: relative positions depend only on `i − j`, absolute positions start at 0 on the
//! left, padded keys are filled with `finfo.min` and the embeddings of padded positions are
//! zeroed (so the convolution reads zeros past a sequence's end, as it does at the end of an
//! unpadded one); a padded batch therefore gives every real position what the unpadded
//! sequence gives it.
//!
//! The content-to-position products are taken against only the rows of the relative-position
//! table that a batch's length can reach (for a 20-token batch of DeBERTa-v3, 39 of its 512
//! rows): each gathered entry is the same dot product `transformers` computes, without the
//! `[length × 2·buckets]` products it throws away.

use crate::model::EncoderInput;
use crate::model::Trace;
use serde::Deserialize;
use tch::{Device, Kind, Tensor};

use super::layers::{activate, finfo_min, Dropout, HeadNames, LayerNorm, Linear, MlmHead, Weights};
use super::Backbone;
use crate::config::Activation;
use crate::{EncoderOutput, ModelConfig, PlmError};
use super::{boxed_load, LoadSource};
use super::registry::Architecture;
use crate::config::ClassDefaults;

/// DeBERTa-v2 (and -v3) in the registry: `DebertaV2Config`'s defaults (deberta-v2-xlarge's
/// sizes, epsilon 1e-7, no token types), embeddings of `embedding_size` (the hidden size by
/// default), and its options ([`DebertaOptions`]).
pub(crate) static ARCHITECTURE: Architecture = Architecture::new(
    &["deberta-v2"],
    |raw, name, text, path| {
        let defaults = ClassDefaults {
            vocab_size: 128100,
            hidden_size: 1536,
            num_hidden_layers: 24,
            num_attention_heads: 24,
            intermediate_size: 6144,
            type_vocab_size: 0,
            layer_norm_eps: 1e-7,
            ..ClassDefaults::BERT
        };
        let activation = ("hidden_act", raw.hidden_act.as_ref());
        let mut config =
            ModelConfig::bert_style(&ARCHITECTURE, name, raw, &defaults, activation, path)?;
        config.embedding_size = raw.embedding_size.unwrap_or(config.hidden_size);
        let mut config = config.validated(path)?;
        config.deberta = Some(DebertaOptions::from_json_str(text, &config, path)?);
        Ok(config)
    },
    boxed_load!(load),
)
    .listed_as("deberta-v2 (also DeBERTa-v3)")
    .base("deberta", "embeddings.word_embeddings.weight");

/// The DeBERTa-v2 settings of a `config.json`, with `transformers`' defaults
/// (`DebertaV2Config`, and the `getattr` defaults of `modeling_deberta_v2.py` for the keys the
/// configuration class does not declare) filled in; [`ModelConfig::deberta`] holds them for
/// `deberta-v2` models.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DebertaOptions {
    /// `relative_attention` (default false; true in every released DeBERTa-v2/v3 checkpoint).
    pub relative_attention: bool,
    /// `max_relative_positions`, a value below 1 replaced by `max_position_embeddings` as
    /// `transformers` does.
    pub max_relative_positions: i64,
    /// `position_buckets` (default -1: no log buckets; 256 in DeBERTa-v3).
    pub position_buckets: i64,
    /// `position_biased_input`: absolute position embeddings are added to the word embeddings
    /// (default true; false in DeBERTa-v2/v3 checkpoints).
    pub position_biased_input: bool,
    /// `pos_att_type` names `c2p` (content-to-position attention).
    pub c2p: bool,
    /// `pos_att_type` names `p2c` (position-to-content attention).
    pub p2c: bool,
    /// `share_att_key`: the relative-position table goes through the content `query_proj` /
    /// `key_proj` (default false; true in DeBERTa-v2/v3), else through `pos_query_proj` /
    /// `pos_key_proj`.
    pub share_att_key: bool,
    /// `norm_rel_ebd` lists `layer_norm`: the relative-position table is layer-normalised.
    pub norm_rel_embeddings: bool,
    /// `conv_kernel_size` (0: no convolution layer; 3 in DeBERTa-v2 xlarge/xxlarge).
    pub conv_kernel_size: i64,
    /// `conv_groups` (default 1).
    pub conv_groups: i64,
    /// `conv_act` (default `tanh`).
    pub conv_act: String,
    /// `legacy` (default true): the `cls.predictions.*` head, else `lm_predictions.lm_head.*`.
    pub legacy: bool,
}

/// The DeBERTa keys of a `config.json`.
#[derive(Debug, Deserialize)]
struct RawDeberta {
    relative_attention: Option<bool>,
    max_relative_positions: Option<i64>,
    position_buckets: Option<i64>,
    position_biased_input: Option<bool>,
    pos_att_type: Option<serde_json::Value>,
    share_att_key: Option<bool>,
    norm_rel_ebd: Option<String>,
    conv_kernel_size: Option<i64>,
    conv_groups: Option<i64>,
    conv_act: Option<String>,
    legacy: Option<bool>,
    attention_head_size: Option<i64>,
}

/// An activation of the convolution layer: `ACT2FN[conv_act]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConvAct {
    Tanh,
    Other(Activation),
}

impl ConvAct {
    fn from_name(name: &str) -> Option<Self> {
        match name {
            "tanh" => Some(ConvAct::Tanh),
            other => Activation::from_name(other).map(ConvAct::Other),
        }
    }

    fn apply(self, x: &Tensor) -> Result<Tensor, PlmError> {
        match self {
            ConvAct::Tanh => Ok(x.f_tanh()?),
            ConvAct::Other(act) => activate(x, act),
        }
    }
}

impl DebertaOptions {
    /// Reads the DeBERTa keys of a `config.json` whose shared keys are already in `config`;
    /// `path` names the file in errors.
    ///
    /// # Errors
    /// [`PlmError::ConfigJson`] for malformed values; [`PlmError::UnsupportedConfig`] for a
    /// `pos_att_type` that is neither a string nor a list of strings, an `attention_head_size`
    /// other than `hidden_size / num_attention_heads` (`DebertaV2SelfOutput` maps
    /// `hidden_size` back to itself, so `transformers` cannot run any other), a single position
    /// bucket, an even `conv_kernel_size` (`ConvLayer`'s padding `(k − 1) / 2` then shortens
    /// the sequence and `transformers` fails), `conv_groups` not dividing the hidden size, an
    /// unknown `conv_act`, or `legacy = false` with `embedding_size ≠ hidden_size`
    /// (`DebertaV2LMPredictionHead` multiplies hidden states by the word embeddings).
    pub(crate) fn from_json_str(
        text: &str,
        config: &ModelConfig,
        path: &std::path::Path,
    ) -> Result<Self, PlmError> {
        let raw: RawDeberta =
            serde_json::from_str(text).map_err(|source| PlmError::ConfigJson {
                path: path.to_path_buf(),
                source,
            })?;
        let unsupported = |key: &str, value: String, reason: &str| PlmError::UnsupportedConfig {
            key: key.into(),
            value,
            reason: reason.into(),
            path: path.to_path_buf(),
        };
        // DebertaV2Config.__post_init__: a string is split at `|`, lower-cased and trimmed.
        let kinds: Vec<String> = match &raw.pos_att_type {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::String(s)) => s
                .to_lowercase()
                .split('|')
                .map(|x| x.trim().to_owned())
                .collect(),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str().map(str::to_owned).ok_or_else(|| {
                        unsupported(
                            "pos_att_type",
                            raw.pos_att_type.as_ref().map(|v| v.to_string()).unwrap(),
                            "must be a string such as \"p2c|c2p\" or a list of strings",
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(unsupported(
                    "pos_att_type",
                    other.to_string(),
                    "must be a string such as \"p2c|c2p\" or a list of strings",
                ))
            }
        };
        if let Some(size) = raw.attention_head_size {
            if size != config.head_dim() {
                return Err(unsupported(
                    "attention_head_size",
                    size.to_string(),
                    "must equal hidden_size / num_attention_heads (the attention output \
                     projection maps hidden_size to hidden_size)",
                ));
            }
        }
        let max_relative_positions = match raw.max_relative_positions.unwrap_or(-1) {
            m if m < 1 => config.max_position_embeddings,
            m => m,
        };
        let position_buckets = raw.position_buckets.unwrap_or(-1);
        if position_buckets == 1 {
            return Err(unsupported(
                "position_buckets",
                "1".into(),
                "log-bucketed relative positions need at least 2 buckets (or -1 for none)",
            ));
        }
        let conv_kernel_size = raw.conv_kernel_size.unwrap_or(0);
        let conv_groups = raw.conv_groups.unwrap_or(1);
        let conv_act = raw.conv_act.unwrap_or_else(|| "tanh".to_owned());
        if conv_kernel_size > 0 {
            if conv_kernel_size % 2 == 0 {
                return Err(unsupported(
                    "conv_kernel_size",
                    conv_kernel_size.to_string(),
                    "an even kernel with ConvLayer's padding (k - 1) / 2 shortens the sequence \
                     by one, which transformers cannot run either; DeBERTa-v2 uses 3",
                ));
            }
            if conv_groups <= 0 || config.hidden_size % conv_groups != 0 {
                return Err(unsupported(
                    "conv_groups",
                    conv_groups.to_string(),
                    "must be positive and divide the hidden size",
                ));
            }
            if ConvAct::from_name(&conv_act).is_none() {
                return Err(unsupported(
                    "conv_act",
                    format!("{conv_act:?}"),
                    "supported are tanh, gelu, gelu_new (gelu_pytorch_tanh, gelu_fast), relu, \
                     silu and quick_gelu",
                ));
            }
        }
        let legacy = raw.legacy.unwrap_or(true);
        if !legacy && config.embedding_size != config.hidden_size {
            return Err(unsupported(
                "legacy",
                "false".into(),
                "the non-legacy head multiplies hidden states by the word embeddings, so \
                 embedding_size must equal hidden_size",
            ));
        }
        let norm_rel_embeddings = raw
            .norm_rel_ebd
            .as_deref()
            .unwrap_or("none")
            .to_lowercase()
            .split('|')
            .any(|x| x.trim() == "layer_norm");
        Ok(DebertaOptions {
            relative_attention: raw.relative_attention.unwrap_or(false),
            max_relative_positions,
            position_buckets,
            position_biased_input: raw.position_biased_input.unwrap_or(true),
            // Other entries (the original code's `p2p`) are ignored, as in transformers.
            c2p: kinds.iter().any(|k| k == "c2p"),
            p2c: kinds.iter().any(|k| k == "p2c"),
            share_att_key: raw.share_att_key.unwrap_or(false),
            norm_rel_embeddings,
            conv_kernel_size,
            conv_groups,
            conv_act,
            legacy,
        })
    }

    /// Rows on each side of the relative-position table's centre: `position_buckets` when
    /// positive, else `max_relative_positions` (`pos_ebd_size` / `att_span` in `transformers`).
    pub fn attention_span(&self) -> i64 {
        if self.position_buckets > 0 {
            self.position_buckets
        } else {
            self.max_relative_positions
        }
    }

    /// `1 + [c2p] + [p2c]`: attention scores are divided by `√(head_dim · scale_factor)`.
    pub fn scale_factor(&self) -> i64 {
        1 + i64::from(self.c2p) + i64::from(self.p2c)
    }
}

/// `make_log_bucket_position(build_relative_position(...))`: the relative position `i − j` of
/// query `i` and key `j` for a sequence of `length` tokens, `[length, length]` int64 on the CPU,
/// log-bucketed when `buckets > 0` exactly as `torch` computes it (float32 `log`, `ceil`).
pub(crate) fn relative_positions(
    length: i64,
    buckets: i64,
    max_position: i64,
) -> Result<Tensor, PlmError> {
    let ids = Tensor::f_arange(length, (Kind::Int64, Device::Cpu))?;
    let rel = ids.f_unsqueeze(1)?.f_sub(&ids.f_unsqueeze(0)?)?;
    if buckets > 0 && max_position > 0 {
        log_bucket(&rel, buckets, max_position)
    } else {
        Ok(rel)
    }
}

/// `make_log_bucket_position(relative_pos, bucket_size, max_position)`, op for op.
fn log_bucket(rel: &Tensor, bucket_size: i64, max_position: i64) -> Result<Tensor, PlmError> {
    let sign = rel.f_sign()?;
    let mid = bucket_size / 2;
    let inside = rel.f_lt(mid)?.f_logical_and(&rel.f_gt(-mid)?)?;
    let abs_pos = rel.f_abs()?.f_masked_fill(&inside, mid - 1)?;
    // torch.log(torch.tensor((max_position - 1) / mid)): a float32 0-dim tensor.
    let ratio = ((max_position - 1) as f64 / mid as f64) as f32;
    let denominator =
        Tensor::f_scalar_tensor(f64::from(ratio), (Kind::Float, Device::Cpu))?.f_log()?;
    let log_pos = abs_pos
        .f_true_divide_scalar(mid)?
        .f_log()?
        .f_div(&denominator)?
        .f_mul_scalar(mid - 1)?
        .f_ceil()?
        .f_add_scalar(mid)?;
    let near = abs_pos.f_le(mid)?;
    let bucket = rel
        .f_to_kind(Kind::Float)?
        .f_where_self(&near, &log_pos.f_mul(&sign)?)?;
    Ok(bucket.f_to_kind(Kind::Int64)?)
}

/// Applies dropout with probability `p` (training), or returns `x` when `p = 0`.
fn drop(x: Tensor, p: f64) -> Result<Tensor, PlmError> {
    Ok(if p > 0.0 { x.f_dropout(p, true)? } else { x })
}

/// `DebertaV2Embeddings`.
#[derive(Debug)]
struct DebertaEmbeddings {
    /// `word_embeddings.weight`, `[vocab, embedding_size]` (also the tied decoder).
    word: Tensor,
    /// `position_embeddings.weight`, when `position_biased_input`.
    position: Option<Tensor>,
    /// Row 0 of `token_type_embeddings.weight`, when `type_vocab_size > 0`.
    token_type0: Option<Tensor>,
    /// `embed_proj` (no bias), when `embedding_size ≠ hidden_size`.
    proj: Option<Linear>,
    norm: LayerNorm,
}

impl DebertaEmbeddings {
    fn load(
        w: &Weights,
        prefix: &str,
        config: &ModelConfig,
        options: &DebertaOptions,
    ) -> Result<Self, PlmError> {
        let e = config.embedding_size;
        let p = |n: &str| format!("{prefix}.{n}");
        let position = if options.position_biased_input {
            Some(w.get(
                &p("position_embeddings.weight"),
                &[config.max_position_embeddings, e],
            )?)
        } else {
            None
        };
        let token_type0 = if config.type_vocab_size > 0 {
            Some(
                w.get(
                    &p("token_type_embeddings.weight"),
                    &[config.type_vocab_size, e],
                )?
                .f_get(0)?,
            )
        } else {
            None
        };
        let proj = if e != config.hidden_size {
            Some(Linear::new(
                w.get(&p("embed_proj.weight"), &[config.hidden_size, e])?,
                None,
            ))
        } else {
            None
        };
        Ok(DebertaEmbeddings {
            word: w.get(&p("word_embeddings.weight"), &[config.vocab_size, e])?,
            position,
            token_type0,
            proj,
            norm: LayerNorm::load(
                w,
                &p("LayerNorm"),
                config.hidden_size,
                config.layer_norm_eps,
            )?,
        })
    }

    /// Embeds `ids` `[batch, length]`; `mask` is the attention mask `[batch, length, 1]` in the
    /// model's kind. Before dropout.
    fn forward(&self, ids: &Tensor, mask: &Tensor) -> Result<Tensor, PlmError> {
        let l = ids.size()[1];
        // Summed in transformers' order: words, positions, token types.
        let mut sum = Tensor::f_embedding(&self.word, ids, -1, false, false)?;
        if let Some(position) = &self.position {
            sum = sum.f_add(&position.f_narrow(0, 0, l)?.f_unsqueeze(0)?)?;
        }
        if let Some(tt) = &self.token_type0 {
            sum = sum.f_add(tt)?;
        }
        if let Some(proj) = &self.proj {
            sum = proj.forward(&sum)?;
        }
        Ok(self.norm.forward(&sum)?.f_mul(mask)?)
    }
}

/// The relative-position inputs of one forward pass, shared by every layer.
#[derive(Debug)]
struct RelativeInputs {
    /// The rows of the (layer-normalised) `rel_embeddings` a batch can reach, `[rows, hidden]`.
    table: Tensor,
    /// `clamp(δ(i, j) + span, 0, 2·span − 1)` minus the first row kept, `[1, 1, L, L]`.
    c2p_index: Tensor,
    /// `clamp(−δ(i, j) + span, 0, 2·span − 1)` minus the first row kept, `[1, 1, L, L]`.
    p2c_index: Tensor,
}

/// `DisentangledSelfAttention` + `DebertaV2SelfOutput`, `DebertaV2Intermediate`,
/// `DebertaV2Output`: one `DebertaV2Layer`.
#[derive(Debug)]
struct DebertaLayer {
    query: Linear,
    key: Linear,
    value: Linear,
    /// `pos_key_proj`, without `share_att_key` when `c2p` is on.
    pos_key: Option<Linear>,
    /// `pos_query_proj`, without `share_att_key` when `p2c` is on.
    pos_query: Option<Linear>,
    attn_out: Linear,
    attn_norm: LayerNorm,
    ffn_in: Linear,
    ffn_out: Linear,
    out_norm: LayerNorm,
    act: Activation,
    heads: i64,
    head_dim: i64,
    /// `√(head_dim · scale_factor)` in float32, as `scaled_size_sqrt` computes it.
    scale: f32,
    c2p: bool,
    p2c: bool,
}

impl DebertaLayer {
    fn load(
        w: &Weights,
        prefix: &str,
        config: &ModelConfig,
        options: &DebertaOptions,
    ) -> Result<Self, PlmError> {
        let h = config.hidden_size;
        let i = config.intermediate_size;
        let eps = config.layer_norm_eps;
        let p = |n: &str| format!("{prefix}.{n}");
        let separate = options.relative_attention && !options.share_att_key;
        let pos_key = if separate && options.c2p {
            Some(Linear::load(w, &p("attention.self.pos_key_proj"), h, h)?)
        } else {
            None
        };
        let pos_query = if separate && options.p2c {
            Some(Linear::load(w, &p("attention.self.pos_query_proj"), h, h)?)
        } else {
            None
        };
        let head_dim = config.head_dim();
        Ok(DebertaLayer {
            query: Linear::load(w, &p("attention.self.query_proj"), h, h)?,
            key: Linear::load(w, &p("attention.self.key_proj"), h, h)?,
            value: Linear::load(w, &p("attention.self.value_proj"), h, h)?,
            pos_key,
            pos_query,
            attn_out: Linear::load(w, &p("attention.output.dense"), h, h)?,
            attn_norm: LayerNorm::load(w, &p("attention.output.LayerNorm"), h, eps)?,
            ffn_in: Linear::load(w, &p("intermediate.dense"), h, i)?,
            ffn_out: Linear::load(w, &p("output.dense"), i, h)?,
            out_norm: LayerNorm::load(w, &p("output.LayerNorm"), h, eps)?,
            act: config.hidden_act,
            heads: config.num_attention_heads,
            head_dim,
            scale: (head_dim as f32 * options.scale_factor() as f32).sqrt(),
            c2p: options.c2p,
            p2c: options.p2c,
        })
    }

    /// `[batch, length, heads·d]` → `[batch, heads, length, d]`.
    fn split(&self, t: &Tensor) -> Result<Tensor, PlmError> {
        let size = t.size();
        Ok(t.f_view([size[0], size[1], self.heads, self.head_dim])?
            .f_transpose(1, 2)?)
    }

    /// Runs the layer on `x` `[batch, length, hidden]`; `blocked` `[batch, 1, L, L]` is true
    /// where a query or its key is padding. Returns the new hidden states and, if asked, the
    /// attention probabilities `[batch, heads, L, L]`.
    fn forward(
        &self,
        x: &Tensor,
        blocked: &Tensor,
        relative: Option<&RelativeInputs>,
        want_probs: bool,
        dropout: Dropout,
    ) -> Result<(Tensor, Option<Tensor>), PlmError> {
        let size = x.size();
        let (b, l) = (size[0], size[1]);
        let kind = x.kind();
        // scale.to(dtype=query_layer.dtype): a 0-dim tensor of the model's kind.
        let scale = Tensor::f_scalar_tensor(f64::from(self.scale), (Kind::Float, x.device()))?
            .f_to_kind(kind)?;
        let q = self.split(&self.query.forward(x)?)?;
        let k = self.split(&self.key.forward(x)?)?;
        let v = self.split(&self.value.forward(x)?)?;
        let mut scores = q.f_matmul(&k.f_transpose(-1, -2)?.f_div(&scale)?)?;
        if let Some(rel) = relative {
            let table = drop(rel.table.shallow_clone(), dropout.hidden)?;
            if let Some(bias) = self.disentangled_bias(&q, &k, rel, &table, &scale, b, l)? {
                scores = scores.f_add(&bias)?;
            }
        }
        let scores = scores.f_masked_fill(blocked, finfo_min(kind))?;
        let probs = scores.f_softmax(-1, kind)?;
        let context = drop(probs.shallow_clone(), dropout.attention)?
            .f_matmul(&v)?
            .f_transpose(1, 2)?
            .f_contiguous()?
            .f_view([b, l, self.heads * self.head_dim])?;
        let attn = drop(self.attn_out.forward(&context)?, dropout.hidden)?;
        let h = self.attn_norm.forward(&attn.f_add(x)?)?;
        let inner = activate(&self.ffn_in.forward(&h)?, self.act)?;
        let out = drop(self.ffn_out.forward(&inner)?, dropout.hidden)?;
        let y = self.out_norm.forward(&out.f_add(&h)?)?;
        Ok((y, want_probs.then_some(probs)))
    }

    /// `disentangled_attention_bias`: `c2p/scale + p2c/scale`, `[batch, heads, L, L]`, or
    /// `None` when `pos_att_type` names neither.
    #[allow(clippy::too_many_arguments)]
    fn disentangled_bias(
        &self,
        q: &Tensor,
        k: &Tensor,
        rel: &RelativeInputs,
        table: &Tensor,
        scale: &Tensor,
        b: i64,
        l: i64,
    ) -> Result<Option<Tensor>, PlmError> {
        let table = table.f_unsqueeze(0)?; // [1, rows, hidden]
        let expand = |index: &Tensor| index.f_expand([b, self.heads, l, l], false);
        let mut score: Option<Tensor> = None;
        if self.c2p {
            let proj = self.pos_key.as_ref().unwrap_or(&self.key);
            let pos_key = self.split(&proj.forward(&table)?)?; // [1, heads, rows, d]
            let c2p = q.f_matmul(&pos_key.f_transpose(-1, -2)?)?.f_gather(
                -1,
                &expand(&rel.c2p_index)?,
                false,
            )?;
            score = Some(c2p.f_div(scale)?);
        }
        if self.p2c {
            let proj = self.pos_query.as_ref().unwrap_or(&self.query);
            let pos_query = self.split(&proj.forward(&table)?)?;
            let p2c = k
                .f_matmul(&pos_query.f_transpose(-1, -2)?)?
                .f_gather(-1, &expand(&rel.p2c_index)?, false)?
                .f_transpose(-1, -2)?
                .f_div(scale)?;
            score = Some(match score {
                Some(s) => s.f_add(&p2c)?,
                None => p2c,
            });
        }
        Ok(score)
    }
}

/// `ConvLayer`: after the first layer, `LN(layer output + act(conv(embeddings)))`, zero at
/// padding.
#[derive(Debug)]
struct ConvLayer {
    weight: Tensor,
    bias: Tensor,
    padding: i64,
    groups: i64,
    act: ConvAct,
    norm: LayerNorm,
}

impl ConvLayer {
    /// `embeddings` is the encoder's input, `residual` the first layer's output, `mask` the
    /// attention mask `[batch, length, 1]` in the model's kind.
    fn forward(
        &self,
        embeddings: &Tensor,
        residual: &Tensor,
        mask: &Tensor,
        dropout: Dropout,
    ) -> Result<Tensor, PlmError> {
        let out = embeddings
            .f_permute([0, 2, 1])?
            .f_contiguous()?
            .f_conv1d(
                &self.weight,
                Some(&self.bias),
                [1],
                [self.padding],
                [1],
                self.groups,
            )?
            .f_permute([0, 2, 1])?
            .f_contiguous()?;
        let out = out.f_masked_fill(&mask.f_eq(0.0)?, 0.0)?;
        let out = self.act.apply(&drop(out, dropout.hidden)?)?;
        Ok(self.norm.forward(&residual.f_add(&out)?)?.f_mul(mask)?)
    }
}

/// `DebertaV2Model`: embeddings and `DebertaV2Encoder`.
#[derive(Debug)]
pub(crate) struct DebertaEncoder {
    embeddings: DebertaEmbeddings,
    layers: Vec<DebertaLayer>,
    /// `rel_embeddings.weight`, `[2·span, hidden]`, when `relative_attention`.
    rel_embeddings: Option<Tensor>,
    /// The encoder's `LayerNorm` on the relative-position table (`norm_rel_ebd`).
    rel_norm: Option<LayerNorm>,
    conv: Option<ConvLayer>,
    options: DebertaOptions,
    kind: Kind,
}

impl DebertaEncoder {
    /// The relative-position inputs of a batch of `length` tokens on `device`.
    fn relative_inputs(
        &self,
        length: i64,
        device: Device,
    ) -> Result<Option<RelativeInputs>, PlmError> {
        let Some(table) = &self.rel_embeddings else {
            return Ok(None);
        };
        let o = &self.options;
        let span = o.attention_span();
        let rel = relative_positions(length, o.position_buckets, o.max_relative_positions)?;
        let reach = rel.f_abs()?.f_max()?.f_int64_value(&[])?;
        // Rows clamp(±δ + span, 0, 2·span − 1) can reach.
        let first = (span - reach).max(0);
        let last = (span + reach).min(2 * span - 1);
        let index = |r: &Tensor| -> Result<Tensor, PlmError> {
            Ok(r.f_add_scalar(span)?
                .f_clamp(0, 2 * span - 1)?
                .f_sub_scalar(first)?
                .f_view([1, 1, length, length])?
                .f_to_device(device)?)
        };
        let rows = table.f_narrow(0, first, last - first + 1)?;
        let rows = match &self.rel_norm {
            Some(norm) => norm.forward(&rows)?,
            None => rows,
        };
        Ok(Some(RelativeInputs {
            table: rows,
            c2p_index: index(&rel)?,
            p2c_index: index(&rel.f_neg()?)?,
        }))
    }
}

impl Backbone for DebertaEncoder {
    fn forward(&self, input: EncoderInput<'_>) -> Result<EncoderOutput, PlmError> {
        let (ids, attention_mask, request, dropout) = input.parts();
        let l = ids.size()[1];
        let mask = attention_mask.f_to_kind(self.kind)?.f_unsqueeze(2)?; // [B, L, 1]
        let embedded = drop(self.embeddings.forward(ids, &mask)?, dropout.hidden)?;
        // get_attention_mask: m[:, None, None, :] · m[:, None, :, None]; zero = blocked.
        let keys = attention_mask.f_unsqueeze(1)?.f_unsqueeze(2)?;
        let queries = attention_mask.f_unsqueeze(1)?.f_unsqueeze(3)?;
        let blocked = keys.f_mul(&queries)?.f_eq(0)?;
        let relative = self.relative_inputs(l, ids.device())?;
        let mut trace = Trace::new(request, &embedded);
        let mut hidden = embedded.shallow_clone();
        for (i, layer) in self.layers.iter().enumerate() {
            let (mut out, probs) = layer.forward(
                &hidden,
                &blocked,
                relative.as_ref(),
                request.attentions,
                dropout,
            )?;
            if i == 0 {
                if let Some(conv) = &self.conv {
                    out = conv.forward(&embedded, &out, &mask, dropout)?;
                }
            }
            trace.layer(&out, probs);
            hidden = out;
        }
        Ok(trace.finish(hidden, false))
    }
}

/// `LegacyDebertaV2OnlyMLMHead` (`legacy = true`) with its decoder tied to the word embeddings.
const LEGACY_HEAD_TIED: HeadNames = HeadNames {
    dense: "cls.predictions.transform.dense",
    norm: "cls.predictions.transform.LayerNorm",
    decoder_weight: "cls.predictions.decoder.weight",
    bias: &["cls.predictions.bias", "cls.predictions.decoder.bias"],
};

/// `LegacyDebertaV2OnlyMLMHead` untied: the decoder keeps its own weight and bias, and
/// `cls.predictions.bias` is unused (`transformers` ties the two biases only with the weights).
const LEGACY_HEAD_UNTIED: HeadNames = HeadNames {
    bias: &["cls.predictions.decoder.bias"],
    ..LEGACY_HEAD_TIED
};

/// `DebertaV2OnlyMLMHead` (`legacy = false`).
const LM_HEAD: &str = "lm_predictions.lm_head";

/// Loads a DeBERTa-v2 encoder under `base` (`"deberta."`, or `""` for a bare
/// `DebertaV2Model`) and, if `with_head`, the masked-LM head `legacy` selects.
pub(crate) fn load(src: LoadSource<'_>) -> Result<(DebertaEncoder, Option<MlmHead>), PlmError> {
    let LoadSource { w, config, base, with_head } = src;
    let options = config
        .deberta
        .clone()
        .ok_or_else(|| PlmError::UnsupportedConfig {
            key: "model_type".into(),
            value: format!("{:?}", config.model_type_name),
            reason: "the configuration was not read as a DeBERTa-v2 one".into(),
            path: config_path(w),
        })?;
    let h = config.hidden_size;
    let embeddings = DebertaEmbeddings::load(w, &format!("{base}embeddings"), config, &options)?;
    let layers = (0..config.num_hidden_layers)
        .map(|i| DebertaLayer::load(w, &format!("{base}encoder.layer.{i}"), config, &options))
        .collect::<Result<Vec<_>, _>>()?;
    let (rel_embeddings, rel_norm) = if options.relative_attention {
        let rows = 2 * options.attention_span();
        let table = w.get(&format!("{base}encoder.rel_embeddings.weight"), &[rows, h])?;
        let norm = if options.norm_rel_embeddings {
            Some(LayerNorm::load(
                w,
                &format!("{base}encoder.LayerNorm"),
                h,
                config.layer_norm_eps,
            )?)
        } else {
            None
        };
        (Some(table), norm)
    } else {
        (None, None)
    };
    let conv = if options.conv_kernel_size > 0 {
        let k = options.conv_kernel_size;
        let prefix = format!("{base}encoder.conv");
        Some(ConvLayer {
            weight: w.get(
                &format!("{prefix}.conv.weight"),
                &[h, h / options.conv_groups, k],
            )?,
            bias: w.get(&format!("{prefix}.conv.bias"), &[h])?,
            padding: (k - 1) / 2,
            groups: options.conv_groups,
            act: ConvAct::from_name(&options.conv_act).expect("checked when the config was read"),
            norm: LayerNorm::load(w, &format!("{prefix}.LayerNorm"), h, config.layer_norm_eps)?,
        })
    } else {
        None
    };
    let head = if with_head {
        Some(load_head(w, config, &options, &embeddings.word)?)
    } else {
        None
    };
    Ok((
        DebertaEncoder {
            embeddings,
            layers,
            rel_embeddings,
            rel_norm,
            conv,
            options,
            kind: w.kind(),
        },
        head,
    ))
}

/// The `config.json` next to the checkpoint, for messages.
fn config_path(w: &Weights) -> std::path::PathBuf {
    w.path().with_file_name("config.json")
}

/// The head `legacy` selects; a legacy configuration over a checkpoint that holds only the
/// non-legacy head (Microsoft's original checkpoints, whose `config.json` does not set
/// `legacy`) is refused rather than run with the randomly initialised head `transformers`
/// would build.
fn load_head(
    w: &Weights,
    config: &ModelConfig,
    options: &DebertaOptions,
    word: &Tensor,
) -> Result<MlmHead, PlmError> {
    let lm_dense = format!("{LM_HEAD}.dense.weight");
    if options.legacy {
        if !w.contains("cls.predictions.transform.dense.weight") && w.contains(&lm_dense) {
            return Err(PlmError::UnsupportedConfig {
                key: "legacy".into(),
                value: "true".into(),
                reason: "the checkpoint holds the non-legacy masked-LM head \
                         lm_predictions.lm_head.* and no cls.predictions.*, so transformers \
                         would score with a randomly initialised head; set \"legacy\": false \
                         in config.json to use the checkpoint's head"
                    .into(),
                path: config_path(w),
            });
        }
        let names = if config.tie_word_embeddings {
            &LEGACY_HEAD_TIED
        } else {
            &LEGACY_HEAD_UNTIED
        };
        return MlmHead::load(
            w,
            names,
            config,
            config.hidden_act,
            config.embedding_size,
            word,
        );
    }
    if !w.contains(&lm_dense) {
        return Err(PlmError::MissingMlmHead {
            path: w.path().to_path_buf(),
            expected: lm_dense,
        });
    }
    let h = config.hidden_size;
    Ok(MlmHead {
        dense: Linear::load(w, &format!("{LM_HEAD}.dense"), h, h)?,
        act: config.hidden_act,
        norm: LayerNorm::load(w, &format!("{LM_HEAD}.LayerNorm"), h, config.layer_norm_eps)?,
        // torch.matmul(hidden, word_embeddings.weight.t()) + bias, whatever
        // tie_word_embeddings says.
        decoder: Linear::new(
            word.shallow_clone(),
            Some(w.get(&format!("{LM_HEAD}.bias"), &[config.vocab_size])?),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(extra: &str) -> Result<ModelConfig, PlmError> {
        let json = format!(
            r#"{{"model_type": "deberta-v2", "hidden_size": 16, "num_attention_heads": 2,
                 "intermediate_size": 32, "num_hidden_layers": 2, "vocab_size": 50{extra}}}"#
        );
        ModelConfig::from_json_str(&json, "config.json")
    }

    #[test]
    fn reads_deberta_v3_settings_and_class_defaults() {
        let c = config(
            r#", "relative_attention": true, "position_buckets": 256,
                "pos_att_type": "p2c|c2p", "share_att_key": true, "norm_rel_ebd": "layer_norm",
                "position_biased_input": false, "max_relative_positions": -1"#,
        )
        .unwrap();
        let d = c.deberta.as_ref().unwrap();
        assert!(d.relative_attention && d.c2p && d.p2c && d.share_att_key);
        assert!(d.norm_rel_embeddings && !d.position_biased_input && d.legacy);
        assert_eq!(d.max_relative_positions, 512);
        assert_eq!(d.attention_span(), 256);
        assert_eq!(d.scale_factor(), 3);
        assert_eq!(c.layer_norm_eps, 1e-7);
        assert_eq!(c.type_vocab_size, 0);
        assert_eq!(c.embedding_size, 16);
        let list = config(r#", "pos_att_type": ["C2P"]"#).unwrap();
        let d = list.deberta.unwrap();
        assert!(!d.relative_attention && !d.c2p && !d.p2c && d.position_biased_input);
        let list = config(r#", "pos_att_type": ["c2p"], "max_relative_positions": 64"#).unwrap();
        let d = list.deberta.unwrap();
        assert!(d.c2p && !d.p2c && d.max_relative_positions == 64 && d.attention_span() == 64);
        assert_eq!(config("").unwrap().deberta.unwrap().scale_factor(), 1);
    }

    #[test]
    fn refuses_what_transformers_cannot_run() {
        for (extra, key) in [
            (r#", "attention_head_size": 4"#, "attention_head_size"),
            (r#", "conv_kernel_size": 2"#, "conv_kernel_size"),
            (
                r#", "conv_kernel_size": 3, "conv_groups": 3"#,
                "conv_groups",
            ),
            (r#", "conv_kernel_size": 3, "conv_act": "mish""#, "conv_act"),
            (r#", "position_buckets": 1"#, "position_buckets"),
            (r#", "pos_att_type": 3"#, "pos_att_type"),
            (r#", "legacy": false, "embedding_size": 8"#, "legacy"),
        ] {
            match config(extra) {
                Err(PlmError::UnsupportedConfig { key: k, .. }) => assert_eq!(k, key, "{extra}"),
                other => panic!("{extra}: {other:?}"),
            }
        }
        let ok = config(r#", "conv_kernel_size": 3, "conv_act": "gelu", "attention_head_size": 8"#);
        assert_eq!(ok.unwrap().deberta.unwrap().conv_kernel_size, 3);
    }

    /// Values of `make_log_bucket_position` from transformers 5.23 (torch 2.11, CPU).
    #[test]
    fn log_buckets_match_transformers() {
        let at = |length: i64, buckets: i64, max: i64, i: i64, j: i64| {
            let t = relative_positions(length, buckets, max).unwrap();
            t.int64_value(&[i, j])
        };
        // DeBERTa-v3: 256 buckets, 512 positions.
        assert_eq!(at(512, 256, 512, 511, 0), 255);
        assert_eq!(at(512, 256, 512, 0, 511), -255);
        assert_eq!(at(512, 256, 512, 129, 0), 129);
        assert_eq!(at(512, 256, 512, 0, 129), -129);
        assert_eq!(at(512, 256, 512, 128, 0), 128);
        assert_eq!(at(512, 256, 512, 3, 4), -1);
        // The fixture's 16 buckets over 128 positions.
        assert_eq!(at(128, 16, 128, 32, 0), 12);
        assert_eq!(at(128, 16, 128, 127, 0), 15);
        assert_eq!(at(128, 16, 128, 0, 127), -15);
        assert_eq!(at(128, 16, 128, 9, 0), 9);
        assert_eq!(at(128, 16, 128, 0, 9), -9);
        // No buckets: plain i − j.
        assert_eq!(at(8, -1, 512, 2, 7), -5);
    }

    /// Every entry of the `[m, m]` table against `make_log_bucket_position(i − j)` from
    /// fixtures/plm/deberta-v2-variants.json (scripts/fixtures/plm_deberta.py).
    #[test]
    fn full_log_bucket_tables_match_transformers() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/plm/deberta-v2-variants.json");
        if !path.is_file() {
            eprintln!(
                "SKIPPED: {} missing (a repository fixture the published package does not ship)",
                path.display()
            );
            return;
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for (key, want) in doc["log_buckets"].as_object().unwrap() {
            let (b, m) = key.split_once('/').unwrap();
            let (b, m): (i64, i64) = (b.parse().unwrap(), m.parse().unwrap());
            let want: Vec<i64> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            let table = relative_positions(m, b, m).unwrap();
            let got = Vec::<i64>::try_from(&table.reshape([-1])).unwrap();
            for i in 0..m {
                for j in 0..m {
                    let expected = want[(i - j + m - 1) as usize];
                    assert_eq!(got[(i * m + j) as usize], expected, "{key}: ({i}, {j})");
                }
            }
        }
    }
}
