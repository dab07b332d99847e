//! ModernBERT (Warner et al. 2024, "Smarter, Better, Faster, Longer: A Modern Bidirectional
//! Encoder for Fast, Memory Efficient, and Long Context Finetuning and Inference",
//! arXiv:2412.13663), as `transformers.models.modernbert.modeling_modernbert.ModernBertForMaskedLM`
//! computes it in eval mode with eager attention:
//!
//! - embeddings `model.embeddings.tok_embeddings` (no positions, no token types), then
//!   `model.embeddings.norm` (a LayerNorm, without bias unless `norm_bias`);
//! - pre-norm layers `model.layers.{i}`: `x += Wo(attn(attn_norm(x)))` with `attn_norm` the
//!   identity on layer 0, then `x += mlp.Wo(act(a) · g)` with `[a, g] = mlp.Wi(mlp_norm(x))` split
//!   in two halves (GeGLU for `hidden_activation = gelu`);
//! - attention from the fused `attn.Wqkv` (`[q; k; v]`, heads of `hidden_size / heads`), rotary
//!   position embeddings on `q` and `k` (`rotate_half`, computed in f32), scores `q·kᵀ/√d`;
//!   layers whose `layer_types` entry is `full_attention` attend to every token with RoPE base
//!   `rope_parameters.full_attention.rope_theta` (the older `global_rope_theta`), and
//!   `sliding_attention` layers only to keys with `|i − j| ≤ local_attention / 2` with base
//!   `sliding_attention.rope_theta` (`local_rope_theta`); without `layer_types`, every
//!   `global_attn_every_n_layers`-th layer (0, n, 2n, …) is global;
//! - `model.final_norm`, then the MLM head: `head.dense` → `classifier_activation` → `head.norm`
//!   → `decoder` (tied to the token embeddings when `tie_word_embeddings`, bias when
//!   `decoder_bias`). `sparse_prediction` only selects labelled positions when training with
//!   labels, so it changes nothing here.
//!
//! `transformers` 5 runs ModernBERT on the padded batch with a bidirectional mask (older versions
//! unpadded it first for flash attention; the values at the tokens are the same). Here the batch
//! stays padded: padded keys get `finfo.min` added to their scores in every layer and the window
//! is a band mask, so padding changes no value at a token.

use crate::model::EncoderInput;
use crate::model::Trace;
use std::path::Path;

use serde::Deserialize;
use tch::{Kind, Tensor};

use super::layers::{activate, finfo_min, LayerNorm, Linear, MlmHead, Weights};
use super::Dropout;
use crate::config::Activation;
use crate::{EncoderOutput, ModelConfig, PlmError};
use super::{boxed_load, LoadSource};
use super::registry::Architecture;
use crate::config::ClassDefaults;

/// ModernBERT in the registry: `ModernBertConfig`'s names (`hidden_activation`, `norm_eps`,
/// `mlp_dropout`, `attention_dropout`) and defaults (8192 positions, no dropout), and its
/// options ([`ModernBertOptions`]).
pub(crate) static ARCHITECTURE: Architecture = Architecture::new(
    &["modernbert"],
    |raw, name, text, path| {
        let renamed = crate::config::RawConfig {
            layer_norm_eps: raw.norm_eps,
            hidden_dropout_prob: raw.mlp_dropout,
            attention_probs_dropout_prob: raw.attention_dropout,
            ..raw.clone()
        };
        let defaults = ClassDefaults {
            vocab_size: 50368,
            intermediate_size: 1152,
            num_hidden_layers: 22,
            type_vocab_size: 0,
            pad_token_id: 50283,
            max_position_embeddings: 8192,
            layer_norm_eps: 1e-5,
            hidden_dropout: 0.0,
            attention_dropout: 0.0,
            ..ClassDefaults::BERT
        };
        let activation = ("hidden_activation", raw.hidden_activation.as_ref());
        let mut config =
            ModelConfig::bert_style(&ARCHITECTURE, name, &renamed, &defaults, activation, path)?
                .validated(path)?;
        config.modernbert = Some(ModernBertOptions::from_json_str(text, &config, path)?);
        Ok(config)
    },
    boxed_load!(load),
)
    .base("model", "embeddings.tok_embeddings.weight");

/// The settings of a ModernBERT `config.json` that [`ModelConfig`]'s common fields do not hold,
/// with `ModernBertConfig`'s defaults filled in (`transformers` 5.23; the names of older files
/// are read too: `global_attn_every_n_layers`, `global_rope_theta`, `local_rope_theta`).
///
/// The common fields come from ModernBERT's own keys: `hidden_activation` (default `gelu`),
/// `norm_eps` (1e-5), `mlp_dropout` and `attention_dropout` (0) as the hidden and attention
/// dropout, and `ModernBertConfig`'s sizes (vocabulary 50 368, hidden 768, intermediate 1152,
/// 22 layers, 12 heads, 8192 positions, padding id 50 283).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ModernBertOptions {
    /// Per layer, whether it attends within the local window (`sliding_attention`) rather than
    /// to the whole sequence (`full_attention`). From `layer_types`, else from
    /// `global_attn_every_n_layers` (default 3): layer `i` is local unless `n` divides `i`.
    pub sliding_layers: Vec<bool>,
    /// `local_attention` (default 128): the window's full width; a local layer's query `i` sees
    /// the keys `j` with `|i − j| ≤ local_attention / 2` (integer division).
    pub local_attention: i64,
    /// RoPE base of the global layers (`rope_parameters.full_attention.rope_theta`, or
    /// `global_rope_theta`; default 160 000).
    pub global_rope_theta: f64,
    /// RoPE base of the local layers (`rope_parameters.sliding_attention.rope_theta`, or
    /// `local_rope_theta`; default 10 000; a `null` `local_rope_theta` means the global base, as
    /// the first `transformers` implementation read it).
    pub local_rope_theta: f64,
    /// `norm_bias` (default false): whether the LayerNorms have a bias.
    pub norm_bias: bool,
    /// `attention_bias` (default false): biases of `Wqkv` and the attention's `Wo`.
    pub attention_bias: bool,
    /// `mlp_bias` (default false): biases of `Wi` and the MLP's `Wo`.
    pub mlp_bias: bool,
    /// `classifier_bias` (default false): bias of the head's dense layer.
    pub classifier_bias: bool,
    /// `classifier_activation` (default `gelu`): the head's activation.
    pub classifier_activation: Activation,
    /// `decoder_bias` (default true): bias of the vocabulary projection.
    pub decoder_bias: bool,
    /// `embedding_dropout` (default 0), applied only when fine-tuning.
    pub embedding_dropout: f64,
}

impl ModernBertOptions {
    /// `local_attention / 2`: the largest `|i − j|` a local layer lets query `i` see.
    pub fn half_window(&self) -> i64 {
        self.local_attention / 2
    }
}

/// The ModernBERT keys of a `config.json` besides the common ones.
#[derive(Debug, Deserialize)]
struct RawModernBert {
    head_dim: Option<i64>,
    norm_bias: Option<bool>,
    attention_bias: Option<bool>,
    layer_types: Option<Vec<String>>,
    global_attn_every_n_layers: Option<i64>,
    rope_parameters: Option<serde_json::Value>,
    rope_scaling: Option<serde_json::Value>,
    global_rope_theta: Option<f64>,
    local_rope_theta: Option<f64>,
    local_attention: Option<i64>,
    embedding_dropout: Option<f64>,
    mlp_bias: Option<bool>,
    decoder_bias: Option<bool>,
    classifier_bias: Option<bool>,
    classifier_activation: Option<serde_json::Value>,
}

impl ModernBertOptions {
    /// Reads the ModernBERT keys of a `config.json` whose common keys are already in `config`;
    /// `path` names the file in errors.
    ///
    /// # Errors
    /// [`PlmError::ConfigJson`] for malformed values; [`PlmError::UnsupportedConfig`] for a
    /// `classifier_activation` this crate does not implement, a RoPE type other than `default`
    /// (or any `rope_scaling`), `rope_parameters` not keyed by layer type, `layer_types` of
    /// another length than `num_hidden_layers` or with another entry, a non-positive
    /// `global_attn_every_n_layers`, a negative `local_attention`, or a `head_dim` other than
    /// `hidden_size / num_attention_heads` (the attention always uses the latter, so another
    /// value would only change the width of the rotary tables).
    pub(crate) fn from_json_str(
        text: &str,
        config: &ModelConfig,
        path: &Path,
    ) -> Result<Self, PlmError> {
        let json_error = |source| PlmError::ConfigJson {
            path: path.to_path_buf(),
            source,
        };
        let raw: RawModernBert = serde_json::from_str(text).map_err(json_error)?;
        // serde reads `null` as an absent key, but `"local_rope_theta": null` has a meaning.
        let json: serde_json::Value = serde_json::from_str(text).map_err(json_error)?;
        let local_rope_theta_null = json.get("local_rope_theta") == Some(&serde_json::Value::Null);
        let unsupported = |key: &str, value: String, reason: &str| PlmError::UnsupportedConfig {
            key: key.into(),
            value,
            reason: reason.into(),
            path: path.to_path_buf(),
        };

        if let Some(d) = raw.head_dim {
            if d != config.head_dim() {
                return Err(unsupported(
                    "head_dim",
                    d.to_string(),
                    "ModernBERT's attention uses hidden_size / num_attention_heads; another \
                     head_dim would only change the width of its rotary tables",
                ));
            }
        }

        let layers = config.num_hidden_layers;
        let sliding_layers = match &raw.layer_types {
            Some(types) => {
                if types.len() as i64 != layers {
                    return Err(unsupported(
                        "layer_types",
                        format!("{} entries", types.len()),
                        "needs one entry per layer (num_hidden_layers)",
                    ));
                }
                types
                    .iter()
                    .map(|t| match t.as_str() {
                        "full_attention" => Ok(false),
                        "sliding_attention" => Ok(true),
                        other => Err(unsupported(
                            "layer_types",
                            format!("{other:?}"),
                            "entries must be \"full_attention\" or \"sliding_attention\"",
                        )),
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
            None => {
                let every = raw.global_attn_every_n_layers.unwrap_or(3);
                if every <= 0 {
                    return Err(unsupported(
                        "global_attn_every_n_layers",
                        every.to_string(),
                        "must be positive",
                    ));
                }
                (0..layers).map(|i| i % every != 0).collect()
            }
        };
        let local_attention = raw.local_attention.unwrap_or(128);
        if local_attention < 0 {
            return Err(unsupported(
                "local_attention",
                local_attention.to_string(),
                "must not be negative",
            ));
        }

        if let Some(scaling) = raw.rope_scaling.as_ref().filter(|v| !v.is_null()) {
            return Err(unsupported(
                "rope_scaling",
                scaling.to_string(),
                "only the default rotary embeddings are implemented",
            ));
        }
        let global_default = raw.global_rope_theta.unwrap_or(160_000.0);
        let local_default = match raw.local_rope_theta {
            Some(theta) => theta,
            None if local_rope_theta_null => global_default,
            None => 10_000.0,
        };
        let (global_rope_theta, local_rope_theta) = match &raw.rope_parameters {
            None => (global_default, local_default),
            Some(serde_json::Value::Object(map)) => {
                if let Some(key) = map
                    .keys()
                    .find(|k| !matches!(k.as_str(), "full_attention" | "sliding_attention"))
                {
                    return Err(unsupported(
                        "rope_parameters",
                        format!("{key:?}"),
                        "ModernBERT's rope_parameters has one entry per layer type \
                         (full_attention, sliding_attention)",
                    ));
                }
                let theta = |layer_type: &str, default: f64| -> Result<f64, PlmError> {
                    let Some(entry) = map.get(layer_type).filter(|v| !v.is_null()) else {
                        return Ok(default);
                    };
                    let key = format!("rope_parameters.{layer_type}");
                    let entry = entry
                        .as_object()
                        .ok_or_else(|| unsupported(&key, entry.to_string(), "must be an object"))?;
                    match entry.get("rope_type").and_then(|t| t.as_str()) {
                        None | Some("default") => {}
                        Some(other) => {
                            return Err(unsupported(
                                &format!("{key}.rope_type"),
                                format!("{other:?}"),
                                "only the default rotary embeddings are implemented",
                            ))
                        }
                    }
                    match entry.get("rope_theta") {
                        None | Some(serde_json::Value::Null) => Ok(default),
                        Some(v) => v.as_f64().filter(|t| *t > 0.0).ok_or_else(|| {
                            unsupported(
                                &format!("{key}.rope_theta"),
                                v.to_string(),
                                "must be a positive number",
                            )
                        }),
                    }
                };
                (
                    theta("full_attention", global_default)?,
                    theta("sliding_attention", local_default)?,
                )
            }
            Some(other) => {
                return Err(unsupported(
                    "rope_parameters",
                    other.to_string(),
                    "must be an object",
                ))
            }
        };

        let classifier_activation = match &raw.classifier_activation {
            None => Activation::Gelu,
            Some(serde_json::Value::String(s)) => Activation::from_name(s).ok_or_else(|| {
                unsupported(
                    "classifier_activation",
                    format!("{s:?}"),
                    "supported activations are gelu, gelu_new (gelu_pytorch_tanh, gelu_fast), \
                     relu, silu and quick_gelu",
                )
            })?,
            Some(other) => {
                return Err(unsupported(
                    "classifier_activation",
                    other.to_string(),
                    "the activation must be named by a string",
                ))
            }
        };
        Ok(ModernBertOptions {
            sliding_layers,
            local_attention,
            global_rope_theta,
            local_rope_theta,
            norm_bias: raw.norm_bias.unwrap_or(false),
            attention_bias: raw.attention_bias.unwrap_or(false),
            mlp_bias: raw.mlp_bias.unwrap_or(false),
            classifier_bias: raw.classifier_bias.unwrap_or(false),
            classifier_activation,
            decoder_bias: raw.decoder_bias.unwrap_or(true),
            embedding_dropout: raw.embedding_dropout.unwrap_or(0.0),
        })
    }
}

/// Applies dropout with probability `p` (training), or returns `x` when `p = 0`.
fn drop(x: Tensor, p: f64) -> Result<Tensor, PlmError> {
    Ok(if p > 0.0 { x.f_dropout(p, true)? } else { x })
}

/// `nn.Linear(in, out, bias=bias)` under `name`.
fn linear(
    w: &Weights,
    name: &str,
    in_dim: i64,
    out_dim: i64,
    bias: bool,
) -> Result<Linear, PlmError> {
    let weight = w.get(&format!("{name}.weight"), &[out_dim, in_dim])?;
    let bias = if bias {
        Some(w.get(&format!("{name}.bias"), &[out_dim])?)
    } else {
        None
    };
    Ok(Linear::new(weight, bias))
}

/// `nn.LayerNorm(dim, eps, bias=bias)` under `name`.
fn norm(w: &Weights, name: &str, dim: i64, eps: f64, bias: bool) -> Result<LayerNorm, PlmError> {
    let weight = w.get(&format!("{name}.weight"), &[dim])?;
    let bias = if bias {
        Some(w.get(&format!("{name}.bias"), &[dim])?)
    } else {
        None
    };
    LayerNorm::new(weight, bias, dim, eps)
}

/// One `ModernBertEncoderLayer`.
#[derive(Debug)]
struct Layer {
    /// `attn_norm`; `None` on layer 0 (`nn.Identity`).
    attn_norm: Option<LayerNorm>,
    wqkv: Linear,
    wo: Linear,
    mlp_norm: LayerNorm,
    wi: Linear,
    mlp_wo: Linear,
    sliding: bool,
}

/// The ModernBERT encoder stack (`ModernBertModel`): embeddings, layers and `final_norm`.
#[derive(Debug)]
pub(crate) struct ModernBertEncoder {
    tok_embeddings: Tensor,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    final_norm: LayerNorm,
    /// RoPE inverse frequencies `1 / θ^(2k/d)` of the global and the local layers, `[d/2]`, f32.
    global_inv_freq: Tensor,
    local_inv_freq: Tensor,
    heads: i64,
    head_dim: i64,
    half_window: i64,
    act: Activation,
    /// `embedding_dropout`, applied when fine-tuning.
    embedding_dropout: f64,
    kind: Kind,
}

/// `ModernBertRotaryEmbedding.compute_default_rope_parameters`:
/// `1 / base^(arange(0, d, 2) / d)` in f32.
fn inv_freq(base: f64, dim: i64, device: tch::Device) -> Result<Tensor, PlmError> {
    let exponent =
        Tensor::f_arange_start_step(0, dim, 2, (Kind::Float, device))?.f_div_scalar(dim as f64)?;
    Ok(Tensor::f_pow_scalar(base, &exponent)?.f_reciprocal()?)
}

/// `rotate_half`: `[x₁, x₂] → [−x₂, x₁]` over the last dimension.
fn rotate_half(x: &Tensor) -> Result<Tensor, PlmError> {
    let d = *x.size().last().expect("a head dimension");
    let x1 = x.f_narrow(-1, 0, d / 2)?;
    let x2 = x.f_narrow(-1, d / 2, d - d / 2)?;
    Ok(Tensor::f_cat(&[x2.f_neg()?, x1], -1)?)
}

/// The cosine and sine tables `[length, d]` of one RoPE base, as `ModernBertRotaryEmbedding`
/// gives them: f32 angles `position · inv_freq`, duplicated over both halves, rounded to the
/// model's kind (the attention then applies them in f32).
fn rope_tables(inv_freq: &Tensor, length: i64, kind: Kind) -> Result<(Tensor, Tensor), PlmError> {
    let positions = Tensor::f_arange(length, (Kind::Float, inv_freq.device()))?.f_unsqueeze(1)?;
    let freqs = positions.f_mul(&inv_freq.f_unsqueeze(0)?)?;
    let angles = Tensor::f_cat(&[&freqs, &freqs], -1)?;
    let round =
        |t: Tensor| -> Result<Tensor, PlmError> { Ok(t.f_to_kind(kind)?.f_to_kind(Kind::Float)?) };
    Ok((round(angles.f_cos()?)?, round(angles.f_sin()?)?))
}

/// `apply_rotary_pos_emb` on `x` `[batch, heads, length, d]`, in f32, back to `x`'s kind.
fn apply_rotary(x: &Tensor, cos: &Tensor, sin: &Tensor) -> Result<Tensor, PlmError> {
    let x32 = x.f_to_kind(Kind::Float)?;
    Ok(x32
        .f_mul(cos)?
        .f_add(&rotate_half(&x32)?.f_mul(sin)?)?
        .f_to_kind(x.kind())?)
}

impl ModernBertEncoder {
    /// Runs one layer; returns the new hidden states and, if asked, the attention probabilities
    /// `[batch, heads, length, length]`.
    #[allow(clippy::too_many_arguments)]
    fn layer(
        &self,
        layer: &Layer,
        x: &Tensor,
        mask: &Tensor,
        rope: &(Tensor, Tensor),
        want_probs: bool,
        dropout: Dropout,
    ) -> Result<(Tensor, Option<Tensor>), PlmError> {
        let size = x.size();
        let (b, l) = (size[0], size[1]);
        let normed = match &layer.attn_norm {
            Some(n) => n.forward(x)?,
            None => x.shallow_clone(),
        };
        // Wqkv → [batch, length, 3, heads, d] → q, k, v as [batch, heads, length, d].
        let qkv = layer
            .wqkv
            .forward(&normed)?
            .f_view([b, l, 3, self.heads, self.head_dim])?;
        let part =
            |i: i64| -> Result<Tensor, PlmError> { Ok(qkv.f_select(2, i)?.f_transpose(1, 2)?) };
        let (cos, sin) = rope;
        let q = apply_rotary(&part(0)?, cos, sin)?;
        let k = apply_rotary(&part(1)?, cos, sin)?;
        let v = part(2)?;
        let scaling = (self.head_dim as f64).powf(-0.5);
        let scores = q
            .f_matmul(&k.f_transpose(2, 3)?)?
            .f_mul_scalar(scaling)?
            .f_add(mask)?;
        let probs = scores.f_softmax(-1, Kind::Float)?.f_to_kind(self.kind)?;
        // transformers returns the probabilities before dropout.
        let attended = drop(probs.shallow_clone(), dropout.attention)?
            .f_matmul(&v)?
            .f_transpose(1, 2)?
            .f_contiguous()?
            .f_reshape([b, l, self.heads * self.head_dim])?;
        let attn_out = drop(layer.wo.forward(&attended)?, dropout.attention)?;
        let x = x.f_add(&attn_out)?;
        let inner = layer.wi.forward(&layer.mlp_norm.forward(&x)?)?;
        let halves = inner.f_chunk(2, -1)?;
        let gated = activate(&halves[0], self.act)?.f_mul(&halves[1])?;
        let mlp_out = layer.mlp_wo.forward(&drop(gated, dropout.hidden)?)?;
        Ok((x.f_add(&mlp_out)?, want_probs.then_some(probs)))
    }
}

impl super::Backbone for ModernBertEncoder {
    /// `ModernBertModel.forward`. When fine-tuning, `dropout.attention` (`attention_dropout`)
    /// applies to the attention probabilities and output, `dropout.hidden` (`mlp_dropout`)
    /// inside the MLP, and `embedding_dropout` to the embeddings unless `dropout` is
    /// [`Dropout::NONE`]. The returned hidden states follow `output_hidden_states=True`: the
    /// embeddings, then each layer's output, the last one after `final_norm`.
    fn forward(&self, input: EncoderInput<'_>) -> Result<EncoderOutput, PlmError> {
        let (ids, attention_mask, request, dropout) = input.parts();
        let size = ids.size();
        let (b, l) = (size[0], size[1]);
        let device = ids.device();
        let embedded = Tensor::f_embedding(&self.tok_embeddings, ids, -1, false, false)?;
        let embedding_dropout = if dropout == Dropout::NONE {
            0.0
        } else {
            self.embedding_dropout
        };
        let mut hidden = drop(self.embedding_norm.forward(&embedded)?, embedding_dropout)?;

        // Additive masks (0 where a key is seen, finfo.min where not), as transformers' eager
        // masks: padded keys everywhere, and outside the band |i − j| ≤ local_attention / 2 in
        // the local layers.
        let min = finfo_min(self.kind);
        let key_seen = attention_mask.f_ne(0)?.f_view([b, 1, 1, l])?;
        let additive = |seen: &Tensor| -> Result<Tensor, PlmError> {
            Ok(Tensor::f_zeros(seen.size(), (self.kind, device))?
                .f_masked_fill(&seen.f_logical_not()?, min)?)
        };
        let global_mask = additive(&key_seen)?;
        let any_local = self.layers.iter().any(|layer| layer.sliding);
        let local_mask = if any_local {
            let pos = Tensor::f_arange(l, (Kind::Int64, device))?;
            let distance = pos.f_unsqueeze(1)?.f_sub(&pos.f_unsqueeze(0)?)?.f_abs()?;
            let band = distance.f_le(self.half_window)?.f_view([1, 1, l, l])?;
            Some(additive(&band.f_logical_and(&key_seen)?)?)
        } else {
            None
        };
        let global_rope = rope_tables(&self.global_inv_freq, l, self.kind)?;
        let local_rope = if any_local {
            Some(rope_tables(&self.local_inv_freq, l, self.kind)?)
        } else {
            None
        };

        let mut trace = Trace::new(request, &hidden);
        for layer in &self.layers {
            let (mask, rope) = match (layer.sliding, &local_mask, &local_rope) {
                (true, Some(mask), Some(rope)) => (mask, rope),
                _ => (&global_mask, &global_rope),
            };
            let (next, probs) =
                self.layer(layer, &hidden, mask, rope, request.attentions, dropout)?;
            hidden = next;
            trace.layer(&hidden, probs);
        }
        // transformers replaces the last layer's output by `last_hidden_state`.
        Ok(trace.finish(self.final_norm.forward(&hidden)?, true))
    }
}

/// Loads `ModernBertModel` under `base` (`"model."`, or `""` for a bare `ModernBertModel`
/// checkpoint) and, if `with_head`, the MLM head (`head.*`, `decoder.*`).
///
/// # Errors
/// [`PlmError::MissingMlmHead`] without `head.dense.weight` when the head is wanted;
/// [`PlmError::MissingWeight`] / [`PlmError::WeightShape`] for a parameter absent or of another
/// shape than the configuration implies (a bias is looked for exactly when its `*_bias` setting
/// is true).
pub(crate) fn load(src: LoadSource<'_>) -> Result<(ModernBertEncoder, Option<MlmHead>), PlmError> {
    let LoadSource { w, config, base, with_head } = src;
    let options = config
        .modernbert
        .as_ref()
        .ok_or_else(|| PlmError::UnsupportedConfig {
            key: "model_type".into(),
            value: format!("{:?}", config.model_type_name),
            reason: "the configuration lacks its ModernBERT options".into(),
            path: w.path().to_path_buf(),
        })?;
    let h = config.hidden_size;
    let i = config.intermediate_size;
    let eps = config.layer_norm_eps;
    let nb = options.norm_bias;
    let tok_embeddings = w.get(
        &format!("{base}embeddings.tok_embeddings.weight"),
        &[config.vocab_size, h],
    )?;
    let layers = options
        .sliding_layers
        .iter()
        .enumerate()
        .map(|(n, &sliding)| {
            let p = |name: &str| format!("{base}layers.{n}.{name}");
            Ok(Layer {
                attn_norm: if n == 0 {
                    None
                } else {
                    Some(norm(w, &p("attn_norm"), h, eps, nb)?)
                },
                wqkv: linear(w, &p("attn.Wqkv"), h, 3 * h, options.attention_bias)?,
                wo: linear(w, &p("attn.Wo"), h, h, options.attention_bias)?,
                mlp_norm: norm(w, &p("mlp_norm"), h, eps, nb)?,
                wi: linear(w, &p("mlp.Wi"), h, 2 * i, options.mlp_bias)?,
                mlp_wo: linear(w, &p("mlp.Wo"), i, h, options.mlp_bias)?,
                sliding,
            })
        })
        .collect::<Result<Vec<_>, PlmError>>()?;
    let head_dim = config.head_dim();
    let device = w.device();
    let head = if with_head {
        if !w.contains("head.dense.weight") {
            return Err(PlmError::MissingMlmHead {
                path: w.path().to_path_buf(),
                expected: "head.dense.weight".into(),
            });
        }
        let vocab = config.vocab_size;
        // Tied: transformers points the decoder at the token embeddings whatever the file holds.
        let decoder_weight = if config.tie_word_embeddings {
            tok_embeddings.shallow_clone()
        } else {
            w.get("decoder.weight", &[vocab, h])?
        };
        let decoder_bias = if options.decoder_bias {
            Some(w.get("decoder.bias", &[vocab])?)
        } else {
            None
        };
        Some(MlmHead {
            dense: linear(w, "head.dense", h, h, options.classifier_bias)?,
            act: options.classifier_activation,
            norm: norm(w, "head.norm", h, eps, nb)?,
            decoder: Linear::new(decoder_weight, decoder_bias),
        })
    } else {
        None
    };
    let encoder = ModernBertEncoder {
        embedding_norm: norm(w, &format!("{base}embeddings.norm"), h, eps, nb)?,
        tok_embeddings,
        layers,
        final_norm: norm(w, &format!("{base}final_norm"), h, eps, nb)?,
        global_inv_freq: inv_freq(options.global_rope_theta, head_dim, device)?,
        local_inv_freq: inv_freq(options.local_rope_theta, head_dim, device)?,
        heads: config.num_attention_heads,
        head_dim,
        half_window: options.half_window(),
        act: config.hidden_act,
        embedding_dropout: options.embedding_dropout,
        kind: w.kind(),
    };
    Ok((encoder, head))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ModelType;

    fn parse(json: &str) -> Result<ModelConfig, PlmError> {
        ModelConfig::from_json_str(json, "config.json")
    }

    #[test]
    fn defaults_are_modernbert_base() {
        let c = parse(r#"{"model_type": "modernbert"}"#).unwrap();
        assert_eq!(c.model_type, ModelType::ModernBert);
        assert_eq!(
            (
                c.vocab_size,
                c.hidden_size,
                c.intermediate_size,
                c.num_hidden_layers
            ),
            (50368, 768, 1152, 22)
        );
        assert_eq!((c.max_position_embeddings, c.pad_token_id), (8192, 50283));
        assert_eq!(c.layer_norm_eps, 1e-5);
        assert_eq!(c.hidden_act, Activation::Gelu);
        assert_eq!(
            (c.hidden_dropout_prob, c.attention_probs_dropout_prob),
            (0.0, 0.0)
        );
        assert_eq!(c.type_vocab_size, 0);
        let s = c.modernbert.unwrap();
        // Every third layer is global, from layer 0.
        let globals: Vec<usize> = (0..22).filter(|&i| !s.sliding_layers[i]).collect();
        assert_eq!(globals, vec![0, 3, 6, 9, 12, 15, 18, 21]);
        assert_eq!((s.local_attention, s.half_window()), (128, 64));
        assert_eq!(
            (s.global_rope_theta, s.local_rope_theta),
            (160_000.0, 10_000.0)
        );
        assert!(!s.norm_bias && !s.attention_bias && !s.mlp_bias && !s.classifier_bias);
        assert!(s.decoder_bias);
    }

    #[test]
    fn reads_old_and_new_names() {
        let old = parse(
            r#"{"model_type": "modernbert", "num_hidden_layers": 4,
                "global_attn_every_n_layers": 2, "global_rope_theta": 5000.0,
                "local_rope_theta": null, "hidden_activation": "gelu_pytorch_tanh"}"#,
        )
        .unwrap();
        let s = old.modernbert.unwrap();
        assert_eq!(s.sliding_layers, vec![false, true, false, true]);
        assert_eq!((s.global_rope_theta, s.local_rope_theta), (5000.0, 5000.0));
        assert_eq!(old.hidden_act, Activation::GeluTanh);
        let new = parse(
            r#"{"model_type": "modernbert", "num_hidden_layers": 2,
                "global_attn_every_n_layers": 2,
                "layer_types": ["sliding_attention", "full_attention"],
                "rope_parameters": {"full_attention": {"rope_theta": 7.0, "rope_type": "default"},
                                    "sliding_attention": {"rope_theta": 3.0}}}"#,
        )
        .unwrap();
        let s = new.modernbert.unwrap();
        assert_eq!(s.sliding_layers, vec![true, false]);
        assert_eq!((s.global_rope_theta, s.local_rope_theta), (7.0, 3.0));
    }

    #[test]
    fn refuses_what_it_does_not_implement() {
        let key = |json: &str| match parse(json) {
            Err(PlmError::UnsupportedConfig { key, .. }) => key,
            other => panic!("{json}: {other:?}"),
        };
        assert_eq!(
            key(
                r#"{"model_type": "modernbert", "rope_scaling": {"rope_type": "linear", "factor": 2.0}}"#
            ),
            "rope_scaling"
        );
        assert_eq!(
            key(
                r#"{"model_type": "modernbert", "rope_parameters": {"full_attention": {"rope_type": "yarn"}}}"#
            ),
            "rope_parameters.full_attention.rope_type"
        );
        assert_eq!(
            key(
                r#"{"model_type": "modernbert", "num_hidden_layers": 2, "layer_types": ["full_attention"]}"#
            ),
            "layer_types"
        );
        assert_eq!(
            key(r#"{"model_type": "modernbert", "classifier_activation": "tanh"}"#),
            "classifier_activation"
        );
        assert_eq!(
            key(r#"{"model_type": "modernbert", "global_attn_every_n_layers": 0}"#),
            "global_attn_every_n_layers"
        );
        assert_eq!(
            key(r#"{"model_type": "modernbert", "head_dim": 32}"#),
            "head_dim"
        );
    }

    #[test]
    fn rotate_half_swaps_and_negates() {
        let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]);
        let r = Vec::<f32>::try_from(rotate_half(&x).unwrap()).unwrap();
        assert_eq!(r, vec![-3.0, -4.0, 1.0, 2.0]);
    }
}
