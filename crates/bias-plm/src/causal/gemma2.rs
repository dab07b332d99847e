//! Gemma 2 (Gemma Team 2024, "Gemma 2: Improving Open Language Models at a Practical Size"),
//! laid out like `transformers`' `Gemma2ForCausalLM` so that its weights load by name.
//!
//! Llama's grouped-query attention and gated MLP (GeLU-tanh), with: token embeddings scaled by
//! `√hidden_size`; RMSNorms that scale by `1 + w` in float32; a norm after attention and after
//! the MLP as well as before each (`h = x + N₂(Attn(N₁(x)))`, `y = h + N₄(MLP(N₃(h)))`);
//! attention scores scaled by `query_pre_attn_scalar^−½` and soft-capped, `c·tanh(s/c)`, before
//! the mask; a sliding window on the layers `layer_types` marks `sliding_attention` (every other
//! layer, from the first, by default); the vocabulary logits soft-capped too; a tied LM head.

use serde_json::Value;
use tch::Tensor;

use crate::causal::cache::Pass;
use crate::causal::config::{CausalConfig, FamilySettings, LlamaFamily, Raw, LLAMA};
use crate::causal::decoder::{Attention, DecoderStack, GatedMlp};
use crate::causal::layers::{softcap, RmsNorm, RmsWeight, LayerContext, RotaryLayer, Scores};
use crate::causal::registry::{CausalArchitecture, CausalNet};
use crate::model::Weights;
use crate::PlmError;

/// One `Gemma2DecoderLayer`.
#[derive(Debug)]
struct Layer {
    input_norm: RmsNorm,
    attention: Attention,
    post_attention_norm: RmsNorm,
    pre_feedforward_norm: RmsNorm,
    mlp: GatedMlp,
    post_feedforward_norm: RmsNorm,
    window: Option<i64>,
}

impl Layer {
    /// Loads layer `i` from `{p}` (`model.layers.{i}.`), its scores scaled and capped as
    /// `scores` says.
    fn load(
        w: &Weights,
        config: &CausalConfig,
        scores: Scores,
        p: &str,
        i: usize,
    ) -> Result<Self, PlmError> {
        let (h, eps) = (config.hidden_size, config.norm_eps);
        let norm = |n: &str| RmsNorm::load_as(w, &format!("{p}{n}"), h, eps, RmsWeight::Gemma);
        let bias = config.qkv_bias;
        let attention = Attention::load(w, &format!("{p}self_attn"), config, (bias, bias))?;
        Ok(Layer {
            input_norm: norm("input_layernorm")?,
            attention: attention.with_scores(scores),
            post_attention_norm: norm("post_attention_layernorm")?,
            pre_feedforward_norm: norm("pre_feedforward_layernorm")?,
            mlp: GatedMlp::load(w, &format!("{p}mlp"), config, false)?,
            post_feedforward_norm: norm("post_feedforward_layernorm")?,
            window: config.sliding_window.get(i).copied().flatten(),
        })
    }
}

impl RotaryLayer for Layer {
    fn window(&self) -> Option<i64> {
        self.window
    }

    fn forward(&self, x: &Tensor, at: &LayerContext<'_>) -> Result<Tensor, PlmError> {
        let n = self.input_norm.forward(x)?;
        let attn = self.attention.forward(&n, at)?;
        let h = x.f_add(&self.post_attention_norm.forward(&attn)?)?;
        let m = self.pre_feedforward_norm.forward(&h)?;
        let mlp = self.post_feedforward_norm.forward(&self.mlp.forward(&m)?)?;
        Ok(h.f_add(&mlp)?)
    }
}

/// `Gemma2ForCausalLM` in eval mode.
#[derive(Debug)]
struct Gemma2 {
    stack: DecoderStack<Layer>,
    /// `√hidden_size`, as the float32 buffer `Gemma2ScaledWordEmbedding.embed_scale` holds it.
    embed_scale: f32,
    final_softcap: Option<f64>,
}

impl Gemma2 {
    fn load(w: &Weights, config: &CausalConfig) -> Result<Self, PlmError> {
        let FamilySettings::Gemma2 {
            query_pre_attn_scalar,
            attn_logit_softcapping,
            final_logit_softcapping,
        } = config.family
        else {
            unreachable!("gemma2's configuration has Gemma 2 settings")
        };
        let scores = Scores {
            scaling: query_pre_attn_scalar.powf(-0.5),
            softcap: attn_logit_softcapping,
            softmax_f32: true,
        };
        Ok(Gemma2 {
            stack: DecoderStack::load(w, config, RmsWeight::Gemma, |p, i| {
                Layer::load(w, config, scores, p, i)
            })?,
            embed_scale: (config.hidden_size as f64).sqrt() as f32,
            final_softcap: final_logit_softcapping,
        })
    }
}

impl CausalNet for Gemma2 {
    fn forward(&self, ids: &Tensor, pass: &Pass<'_>) -> Result<Tensor, PlmError> {
        let embedded = self.stack.embed(ids)?;
        let kind = embedded.kind();
        // `embed_scale.to(weight.dtype)`: the scale is rounded to the weights' kind first.
        let scale = Tensor::from(self.embed_scale)
            .f_to_kind(kind)?
            .f_to_device(embedded.device())?;
        self.stack.decode(embedded.f_mul(&scale)?, pass)
    }

    fn layers(&self) -> usize {
        self.stack.layers()
    }

    fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        let logits = self.stack.head(hidden)?;
        match self.final_softcap {
            Some(cap) => softcap(&logits, cap),
            None => Ok(logits),
        }
    }
}

/// `Gemma2Config`'s defaults (Gemma 2 2B): 8 query and 4 key-value heads of 256 dimensions,
/// a 9216-wide MLP, 8192 positions, a tied head.
const GEMMA2: LlamaFamily = LlamaFamily {
    vocab_size: 256000,
    hidden_size: 2304,
    intermediate_size: 9216,
    num_hidden_layers: 26,
    num_attention_heads: 8,
    num_key_value_heads: Some(4),
    head_dim: Some(256),
    max_position_embeddings: 8192,
    rms_norm_eps: 1e-6,
    bos_token_id: Some(2),
    eos_token_id: Some(1),
    tie_word_embeddings: true,
    biases: |raw| {
        let a = raw.boolean("attention_bias")?.unwrap_or(false);
        Ok((a, a, false))
    },
    sliding_windows,
    ..LLAMA
};

/// The sliding window of each layer: `sliding_window` on the layers `layer_types` marks
/// `sliding_attention`, by default the even-numbered ones (`Gemma2Config.__post_init__`).
fn sliding_windows(raw: &Raw<'_>, layers: i64) -> Result<Vec<Option<i64>>, PlmError> {
    let w = raw.sliding_window()?;
    let types = raw.get("layer_types").and_then(Value::as_array);
    Ok((0..layers.max(0) as usize)
        .map(|i| {
            let sliding = match types {
                Some(types) => types.get(i).and_then(Value::as_str) == Some("sliding_attention"),
                None => (i + 1) % 2 == 1,
            };
            if sliding {
                w
            } else {
                None
            }
        })
        .collect())
}

/// Gemma 2's configuration: Llama's keys with [`GEMMA2`]'s defaults, the activation named by
/// `hidden_activation`, and the attention scalar and soft caps.
fn config(raw: &Raw<'_>) -> Result<CausalConfig, PlmError> {
    let base = raw.llama_style(&ARCHITECTURE, &GEMMA2)?;
    let cap = |key: &str, default: f64| -> Result<Option<f64>, PlmError> {
        match raw.value.get(key) {
            None => Ok(Some(default)),
            Some(Value::Null) => Ok(None),
            Some(_) => raw.float(key),
        }
    };
    Ok(CausalConfig {
        hidden_act: raw.activation("hidden_activation", "gelu_pytorch_tanh")?,
        family: FamilySettings::Gemma2 {
            query_pre_attn_scalar: raw.float("query_pre_attn_scalar")?.unwrap_or(256.0),
            attn_logit_softcapping: cap("attn_logit_softcapping", 50.0)?,
            final_logit_softcapping: cap("final_logit_softcapping", 30.0)?,
        },
        ..base
    })
}

/// Gemma 2 in the registry.
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "gemma2",
    rotary: true,
    mlp_matrices: 3.0,
    config,
    load: |w, config| Ok(Box::new(Gemma2::load(w, config)?)),
};

#[cfg(test)]
mod tests {
    use crate::causal::config::FamilySettings;
    use crate::CausalConfig;

    /// The class defaults: 256-dimensional heads whatever the hidden size, alternating sliding
    /// windows from layer 0, soft caps 50 and 30; `null` turns a cap off.
    #[test]
    fn gemma2_defaults_and_layer_types() {
        let c = CausalConfig::from_json_str(
            r#"{"model_type": "gemma2", "num_hidden_layers": 4, "sliding_window": 16,
            "final_logit_softcapping": null}"#,
            "config.json",
        )
        .unwrap();
        assert_eq!((c.head_dim, c.rotary_dim), (256, 256));
        assert_eq!(c.sliding_window, vec![Some(16), None, Some(16), None]);
        assert!(c.tie_word_embeddings);
        assert_eq!(
            c.family,
            FamilySettings::Gemma2 {
                query_pre_attn_scalar: 256.0,
                attn_logit_softcapping: Some(50.0),
                final_logit_softcapping: None
            }
        );
        let c = CausalConfig::from_json_str(
            r#"{"model_type": "gemma2", "num_hidden_layers": 2, "sliding_window": 8,
            "layer_types": ["full_attention", "sliding_attention"]}"#,
            "config.json",
        )
        .unwrap();
        assert_eq!(c.sliding_window, vec![None, Some(8)]);
    }
}
