//! OLMo 2 (OLMo et al. 2024, "2 OLMo 2 Furious"), laid out like `transformers`'
//! `Olmo2ForCausalLM` so that its weights load by name.
//!
//! Llama's attention and gated MLP with the norms moved after each sublayer
//! (`h = x + N₁(Attn(x))`, `y = h + N₂(MLP(h))`), RMSNorms over the whole query and key
//! projections before they are split into heads (`q_norm`, `k_norm`), and RMSNorms that apply
//! their weight in float32 (`Olmo2RMSNorm`).

use tch::Tensor;

use crate::causal::config::{LlamaFamily, LLAMA};
use crate::causal::decoder::{Attention, DecoderStack, GatedMlp};
use crate::causal::layers::{RmsNorm, RmsWeight, LayerContext, RotaryLayer};
use crate::causal::registry::CausalArchitecture;
use crate::model::Weights;
use crate::{CausalConfig, PlmError};

/// One `Olmo2DecoderLayer`.
#[derive(Debug)]
struct Layer {
    attention: Attention,
    post_attention_norm: RmsNorm,
    mlp: GatedMlp,
    post_feedforward_norm: RmsNorm,
}

impl Layer {
    /// Loads a layer from `{p}` (`model.layers.{i}.`).
    fn load(w: &Weights, config: &CausalConfig, p: &str) -> Result<Self, PlmError> {
        let (h, eps) = (config.hidden_size, config.norm_eps);
        let norm = |n: &str| RmsNorm::load_as(w, &format!("{p}{n}"), h, eps, RmsWeight::Olmo2);
        let bias = config.qkv_bias;
        let attention = Attention::load(w, &format!("{p}self_attn"), config, (bias, bias))?
            .with_qk_norm(w, &format!("{p}self_attn"), eps, RmsWeight::Olmo2)?;
        Ok(Layer {
            attention,
            post_attention_norm: norm("post_attention_layernorm")?,
            mlp: GatedMlp::load(w, &format!("{p}mlp"), config, false)?,
            post_feedforward_norm: norm("post_feedforward_layernorm")?,
        })
    }
}

impl RotaryLayer for Layer {
    fn window(&self) -> Option<i64> {
        None
    }

    fn forward(&self, x: &Tensor, at: &LayerContext<'_>) -> Result<Tensor, PlmError> {
        let attn = self.attention.forward(x, at)?;
        let h = x.f_add(&self.post_attention_norm.forward(&attn)?)?;
        let mlp = self.post_feedforward_norm.forward(&self.mlp.forward(&h)?)?;
        Ok(h.f_add(&mlp)?)
    }
}

/// `Olmo2Config`'s defaults (OLMo 2 7B): 32 heads, an 11008-wide MLP, 2048 positions, no BOS
/// token, EOS 50279, biases only with `attention_bias`.
const OLMO2: LlamaFamily = LlamaFamily {
    vocab_size: 50304,
    hidden_size: 4096,
    intermediate_size: 11008,
    num_hidden_layers: 32,
    num_attention_heads: 32,
    num_key_value_heads: None,
    head_dim: None,
    max_position_embeddings: 2048,
    rms_norm_eps: 1e-5,
    bos_token_id: None,
    eos_token_id: Some(50279),
    tie_word_embeddings: false,
    biases: |raw| {
        let a = raw.boolean("attention_bias")?.unwrap_or(false);
        Ok((a, a, false))
    },
    ..LLAMA
};

/// OLMo 2 in the registry (`Olmo2ForCausalLM` in eval mode).
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "olmo2",
    rotary: true,
    mlp_matrices: 3.0,
    config: |raw| raw.llama_style(&ARCHITECTURE, &OLMO2),
    load: |w, config| {
        let stack = DecoderStack::load(w, config, RmsWeight::Olmo2, |p, _| {
            Layer::load(w, config, p)
        })?;
        Ok(Box::new(stack))
    },
};
