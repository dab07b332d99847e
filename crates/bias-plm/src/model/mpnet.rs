//! MPNet (Song et al. 2020, "MPNet: Masked and Permuted Pre-training for Language
//! Understanding", NeurIPS; `transformers.models.mpnet.modeling_mpnet.MPNetForMaskedLM`).
//!
//! Parameters: `mpnet.embeddings.*` (words and absolute positions, no token types, LayerNorm;
//! position ids as RoBERTa's `create_position_ids_from_input_ids` with the padding index fixed
//! at 1 by `MPNetEmbeddings`, so positions start at 2), post-layer-norm layers under
//! `mpnet.encoder.layer.{i}` (`attention.attn.{q,k,v,o}`, `attention.LayerNorm`,
//! `intermediate.dense`, `output.dense`, `output.LayerNorm`), and one relative-position bias
//! `mpnet.encoder.relative_attention_bias` (`[relative_attention_num_buckets, heads]`) shared by
//! every layer and added to the scaled attention scores before the padding mask. The head
//! `lm_head.*` is RoBERTa's: dense, the exact (erf) GELU, LayerNorm, decoder tied to the word
//! embeddings, bias `lm_head.bias`.
//!
//! The bucket of a key at relative distance `k − q` is T5's bidirectional log bucketing as
//! `MPNetEncoder.relative_position_bucket` computes it: 32 buckets (half per direction), exact
//! up to 8, logarithmic up to 128. `MPNetEncoder.compute_position_bias` always passes its
//! default of 32 buckets, whatever `relative_attention_num_buckets` says, so this does too (and
//! refuses a table with fewer rows, on which `transformers` fails).

use crate::model::EncoderInput;
use crate::model::Trace;
use serde::Deserialize;
use tch::{Kind, Tensor};

use super::layers::{
    activate, finfo_min, Embeddings, HeadNames, LayerNorm, Linear, MlmHead, PositionIds,
    Weights,
};
use super::Backbone;
use crate::config::Activation;
use crate::{EncoderOutput, ModelConfig, PlmError};
use super::{boxed_load, LoadSource};
use super::registry::Architecture;
use crate::config::ClassDefaults;

/// MPNet in the registry: `MPNetConfig`'s defaults, no token types, position ids after its
/// fixed padding index, and its options ([`MpnetOptions`]).
pub(crate) static ARCHITECTURE: Architecture = Architecture::new(
    &["mpnet"],
    |raw, name, text, path| {
        let defaults = ClassDefaults {
            vocab_size: 30527,
            pad_token_id: 1,
            ..ClassDefaults::BERT
        };
        let activation = ("hidden_act", raw.hidden_act.as_ref());
        let mut config =
            ModelConfig::bert_style(&ARCHITECTURE, name, raw, &defaults, activation, path)?;
        config.type_vocab_size = 0;
        let mut config = config.validated(path)?;
        config.mpnet = Some(MpnetOptions::from_json_str(text, path)?);
        Ok(config)
    },
    boxed_load!(load),
)
    // `MPNetEmbeddings` fixes its padding index at 1, whatever `pad_token_id` says.
    .position_offset(|_| PADDING_IDX + 1);

/// Buckets `MPNetEncoder.compute_position_bias` uses (its `num_buckets` default).
const BUCKETS: i64 = 32;
/// `relative_position_bucket`'s `max_distance`.
const MAX_DISTANCE: i64 = 128;
/// `MPNetEmbeddings.padding_idx`, fixed whatever `pad_token_id` says.
pub(crate) const PADDING_IDX: i64 = 1;

/// Parameter names of `MPNetLMHead`; the decoder bias is tied to `lm_head.bias`.
const HEAD: HeadNames = HeadNames {
    dense: "lm_head.dense",
    norm: "lm_head.layer_norm",
    decoder_weight: "lm_head.decoder.weight",
    bias: &["lm_head.bias", "lm_head.decoder.bias"],
};

/// The MPNet settings of a `config.json` (`MPNetConfig`); [`ModelConfig::mpnet`] holds them for
/// `mpnet` models.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MpnetOptions {
    /// `relative_attention_num_buckets` (default 32): rows of the relative-position bias table
    /// shared by every layer (at least 32; see the module documentation).
    pub relative_attention_num_buckets: i64,
}

#[derive(Debug, Deserialize)]
struct RawMpnet {
    relative_attention_num_buckets: Option<i64>,
}

impl MpnetOptions {
    /// Reads the MPNet keys of a `config.json`; `path` names the file in errors.
    ///
    /// # Errors
    /// [`PlmError::ConfigJson`] for malformed values; [`PlmError::UnsupportedConfig`] for fewer
    /// than 32 buckets.
    pub(crate) fn from_json_str(text: &str, path: &std::path::Path) -> Result<Self, PlmError> {
        let raw: RawMpnet = serde_json::from_str(text).map_err(|source| PlmError::ConfigJson {
            path: path.to_path_buf(),
            source,
        })?;
        let buckets = raw.relative_attention_num_buckets.unwrap_or(BUCKETS);
        if buckets < BUCKETS {
            return Err(PlmError::UnsupportedConfig {
                key: "relative_attention_num_buckets".into(),
                value: buckets.to_string(),
                reason: "must be at least 32: transformers' MPNetEncoder always computes 32 \
                         relative-position buckets and looks them up in this table"
                    .into(),
                path: path.to_path_buf(),
            });
        }
        Ok(MpnetOptions {
            relative_attention_num_buckets: buckets,
        })
    }
}

/// `MPNetEncoder.relative_position_bucket(relative, num_buckets=32, max_distance=128)` for
/// `relative = key position − query position`, in the single-precision arithmetic `torch` uses
/// (`log(n / 8) / log(16) · 8`, truncated).
pub(crate) fn relative_position_bucket(relative: i64) -> i64 {
    let half = BUCKETS / 2;
    let max_exact = half / 2;
    let n = -relative;
    let base = if n < 0 { half } else { 0 };
    let n = n.abs();
    if n < max_exact {
        return base + n;
    }
    let scale = (MAX_DISTANCE as f64 / max_exact as f64).ln() as f32;
    let log = ((n as f32 / max_exact as f32).ln() / scale * (half - max_exact) as f32) as i64;
    base + (max_exact + log).min(half - 1)
}

/// One `MPNetLayer`: `h = LN(x + o(Attn(x) + bias))`, `y = LN(h + W₂·act(W₁·h))`.
#[derive(Debug)]
struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    attn_norm: LayerNorm,
    ffn_in: Linear,
    ffn_out: Linear,
    out_norm: LayerNorm,
}

impl Layer {
    fn load(w: &Weights, prefix: &str, config: &ModelConfig) -> Result<Self, PlmError> {
        let (h, i, eps) = (
            config.hidden_size,
            config.intermediate_size,
            config.layer_norm_eps,
        );
        let p = |n: &str| format!("{prefix}.{n}");
        Ok(Layer {
            q: Linear::load(w, &p("attention.attn.q"), h, h)?,
            k: Linear::load(w, &p("attention.attn.k"), h, h)?,
            v: Linear::load(w, &p("attention.attn.v"), h, h)?,
            o: Linear::load(w, &p("attention.attn.o"), h, h)?,
            attn_norm: LayerNorm::load(w, &p("attention.LayerNorm"), h, eps)?,
            ffn_in: Linear::load(w, &p("intermediate.dense"), h, i)?,
            ffn_out: Linear::load(w, &p("output.dense"), i, h)?,
            out_norm: LayerNorm::load(w, &p("output.LayerNorm"), h, eps)?,
        })
    }
}

/// `MPNetModel` without its pooler: embeddings, layers and the shared relative-position bias.
#[derive(Debug)]
pub(crate) struct MpnetEncoder {
    embeddings: Embeddings,
    layers: Vec<Layer>,
    /// `encoder.relative_attention_bias.weight`, `[relative_attention_num_buckets, heads]`.
    relative_bias: Tensor,
    /// Bucket of every (query, key) pair of the longest accepted sequence,
    /// `[max_tokens, max_tokens]` int64 on the model's device; a batch of length `l` reads its
    /// top-left `l × l` block (the bucket depends only on `key − query`).
    buckets: Tensor,
    heads: i64,
    head_dim: i64,
    act: Activation,
    kind: Kind,
}

/// Applies dropout with probability `p` (training), or returns `x` unchanged when `p = 0`.
fn drop(x: Tensor, p: f64) -> Result<Tensor, PlmError> {
    Ok(if p > 0.0 { x.f_dropout(p, true)? } else { x })
}

impl Backbone for MpnetEncoder {
    fn forward(&self, input: EncoderInput<'_>) -> Result<EncoderOutput, PlmError> {
        let (ids, attention_mask, request, dropout) = input.parts();
        let size = ids.size();
        let (b, l) = (size[0], size[1]);
        // `(1 − mask)·finfo.min`, `[batch, 1, 1, length]` (transformers' eager bidirectional mask).
        let additive = attention_mask
            .f_unsqueeze(1)?
            .f_unsqueeze(1)?
            .f_to_kind(self.kind)?
            .f_neg()?
            .f_add_scalar(1.0)?
            .f_mul_scalar(finfo_min(self.kind))?;
        // `compute_position_bias`: `[1, heads, l, l]`, shared by every layer.
        let buckets = self.buckets.f_narrow(0, 0, l)?.f_narrow(1, 0, l)?;
        let bias = Tensor::f_embedding(&self.relative_bias, &buckets, -1, false, false)?
            .f_permute([2, 0, 1])?
            .f_unsqueeze(0)?;
        let mut hidden = drop(self.embeddings.forward(ids)?, dropout.hidden)?;
        let mut trace = Trace::new(request, &hidden);
        let scale = (self.head_dim as f64).sqrt();
        for layer in &self.layers {
            let split = |t: Tensor| -> Result<Tensor, PlmError> {
                Ok(t.f_view([b, l, self.heads, self.head_dim])?
                    .f_transpose(1, 2)?)
            };
            let q = split(layer.q.forward(&hidden)?)?;
            let k = split(layer.k.forward(&hidden)?)?;
            let v = split(layer.v.forward(&hidden)?)?;
            // In transformers' order: scaled scores, + position bias, + padding mask.
            let scores = q
                .f_matmul(&k.f_transpose(-1, -2)?)?
                .f_div_scalar(scale)?
                .f_add(&bias)?
                .f_add(&additive)?;
            let probs = scores.f_softmax(-1, scores.kind())?;
            let context = drop(probs.shallow_clone(), dropout.attention)?
                .f_matmul(&v)?
                .f_permute([0, 2, 1, 3])?
                .f_contiguous()?
                .f_view([b, l, self.heads * self.head_dim])?;
            let attn = drop(layer.o.forward(&context)?, dropout.hidden)?;
            let h = layer.attn_norm.forward(&attn.f_add(&hidden)?)?;
            let inner = activate(&layer.ffn_in.forward(&h)?, self.act)?;
            let out = drop(layer.ffn_out.forward(&inner)?, dropout.hidden)?;
            hidden = layer.out_norm.forward(&out.f_add(&h)?)?;
            trace.layer(&hidden, request.attentions.then_some(probs));
        }
        Ok(trace.finish(hidden, false))
    }
}

/// Loads an MPNet encoder under `base` (`"mpnet."`, or `""` for a bare `MPNetModel`
/// checkpoint) and, if `with_head`, `MPNetLMHead`.
pub(crate) fn load(src: LoadSource<'_>) -> Result<(MpnetEncoder, Option<MlmHead>), PlmError> {
    let LoadSource { w, config, base, with_head } = src;
    let buckets_rows = config
        .mpnet
        .as_ref()
        .map_or(BUCKETS, |o| o.relative_attention_num_buckets);
    let embeddings = Embeddings::load(
        w,
        &format!("{base}embeddings"),
        config,
        config.hidden_size,
        PositionIds::RobertaOffset { pad: PADDING_IDX },
    )?;
    let layers = (0..config.num_hidden_layers)
        .map(|i| Layer::load(w, &format!("{base}encoder.layer.{i}"), config))
        .collect::<Result<Vec<_>, _>>()?;
    let relative_bias = w.get(
        &format!("{base}encoder.relative_attention_bias.weight"),
        &[buckets_rows, config.num_attention_heads],
    )?;
    let n = config.max_tokens().max(1);
    let table: Vec<i64> = (0..n)
        .flat_map(|q| (0..n).map(move |k| relative_position_bucket(k - q)))
        .collect();
    let buckets = Tensor::from_slice(&table)
        .f_view([n, n])?
        .f_to_device(w.device())?;
    let head = MlmHead::load_if(with_head, w, &HEAD, config, (Activation::Gelu, config.hidden_size), &embeddings.word)?;
    Ok((
        MpnetEncoder {
            embeddings,
            layers,
            relative_bias,
            buckets,
            heads: config.num_attention_heads,
            head_dim: config.head_dim(),
            act: config.hidden_act,
            kind: w.kind(),
        },
        head,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_relative_position_bucket() {
        // Values of transformers' MPNetEncoder.relative_position_bucket (torch 2.11), at the
        // edges of the exact range and of each logarithmic bucket.
        let cases = [
            (0, 0),
            (-1, 1),
            (-7, 7),
            (-8, 8),
            (-11, 8),
            (-12, 9),
            (-16, 10),
            (-32, 12),
            (-45, 12),
            (-46, 13),
            (-64, 14),
            (-90, 14),
            (-91, 15),
            (-127, 15),
            (-128, 15),
            (-1000, 15),
            (1, 17),
            (7, 23),
            (8, 24),
            (16, 26),
            (64, 30),
            (128, 31),
            (1000, 31),
        ];
        for (relative, bucket) in cases {
            assert_eq!(relative_position_bucket(relative), bucket, "{relative}");
        }
    }

    #[test]
    fn buckets_match_transformers_table() {
        // fixtures/plm/mpnet.json (scripts/fixtures/plm_more.py): every distance within ±600.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/plm/mpnet.json");
        if !std::path::Path::new(path).is_file() {
            eprintln!("SKIPPED: {path} missing (a repository fixture the published package does not ship)");
            return;
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let table = &doc["relative_position_buckets"];
        let from = table["relative_from"].as_i64().unwrap();
        let buckets = table["buckets"].as_array().unwrap();
        assert!(buckets.len() > 1000);
        for (i, want) in buckets.iter().enumerate() {
            let relative = from + i as i64;
            assert_eq!(
                Some(relative_position_bucket(relative)),
                want.as_i64(),
                "{relative}"
            );
        }
    }

    #[test]
    fn config_takes_mpnet_config_defaults() {
        let config = ModelConfig::from_json_str(r#"{"model_type": "mpnet"}"#, "c.json").unwrap();
        assert_eq!(config.model_type, crate::ModelType::Mpnet);
        assert_eq!(
            (
                config.vocab_size,
                config.pad_token_id,
                config.type_vocab_size
            ),
            (30527, 1, 0)
        );
        assert_eq!(
            config
                .mpnet
                .as_ref()
                .unwrap()
                .relative_attention_num_buckets,
            32
        );
        // Positions start after the fixed padding index 1: 512 tokens for mpnet-base's 514.
        let base = ModelConfig::from_json_str(
            r#"{"model_type": "mpnet", "max_position_embeddings": 514}"#,
            "c.json",
        )
        .unwrap();
        assert_eq!(base.max_tokens(), 512);
        let err = ModelConfig::from_json_str(
            r#"{"model_type": "mpnet", "relative_attention_num_buckets": 16}"#,
            "c.json",
        )
        .unwrap_err();
        assert!(err.to_string().contains("relative_attention_num_buckets"));
    }
}
