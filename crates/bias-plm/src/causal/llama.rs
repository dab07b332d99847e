//! The Llama family — Llama (Touvron et al. 2023, "LLaMA: Open and Efficient Foundation
//! Language Models"; "Llama 2"), Mistral (Jiang et al. 2023, "Mistral 7B") and Qwen2 (Yang et
//! al. 2024, "Qwen2 Technical Report") — laid out like `transformers`' `LlamaForCausalLM`,
//! `MistralForCausalLM` and `Qwen2ForCausalLM` so that weights load by name.
//!
//! A decoder layer is `h = x + W_o·Attn(RoPE(W_q·n), RoPE(W_k·n), W_v·n)` with
//! `n = RMSNorm(x)`, then `y = h + W_down·(act(W_gate·m) ⊙ W_up·m)` with `m = RMSNorm(h)`
//! (SwiGLU; Shazeer 2020). Attention has `num_attention_heads` query heads sharing
//! `num_key_value_heads` key-value heads (grouped-query attention; Ainslie et al. 2023).
//! The three differ only in configuration: biases (Qwen2's on q, k and v; Llama's
//! `attention_bias` and `mlp_bias`) and sliding-window attention (Mistral; Qwen2 with
//! `use_sliding_window`), which [`crate::CausalConfig::sliding_window`] resolves per layer.

use tch::Tensor;

use crate::causal::config::{CausalConfig, LLAMA};
use crate::causal::decoder::{Attention, DecoderStack, GatedMlp};
use crate::causal::layers::{RmsNorm, RmsWeight, LayerContext, RotaryLayer};
use crate::causal::registry::{CausalArchitecture, CausalNet};
use crate::model::Weights;
use crate::PlmError;

/// One decoder layer (`LlamaDecoderLayer`).
#[derive(Debug)]
struct Layer {
    input_norm: RmsNorm,
    attention: Attention,
    post_norm: RmsNorm,
    mlp: GatedMlp,
    window: Option<i64>,
}

impl Layer {
    /// Loads layer `i` from `{p}` (`model.layers.{i}.`).
    fn load(w: &Weights, config: &CausalConfig, p: &str, i: usize) -> Result<Self, PlmError> {
        let (h, eps) = (config.hidden_size, config.norm_eps);
        let biases = (config.qkv_bias, config.attention_out_bias);
        Ok(Layer {
            input_norm: RmsNorm::load(w, &format!("{p}input_layernorm"), h, eps)?,
            attention: Attention::load(w, &format!("{p}self_attn"), config, biases)?,
            post_norm: RmsNorm::load(w, &format!("{p}post_attention_layernorm"), h, eps)?,
            mlp: GatedMlp::load(w, &format!("{p}mlp"), config, config.mlp_bias)?,
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
        let h = x.f_add(&self.attention.forward(&n, at)?)?;
        let m = self.post_norm.forward(&h)?;
        Ok(h.f_add(&self.mlp.forward(&m)?)?)
    }
}

/// Llama in the registry: `LlamaConfig`'s keys and defaults ([`LLAMA`]).
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "llama",
    rotary: true,
    mlp_matrices: 3.0,
    config: |raw| raw.llama_style(&ARCHITECTURE, &LLAMA),
    load: load_llama,
};

/// The Llama network of `config` (`LlamaForCausalLM`, also Mistral's and Qwen2's: their
/// layers are Llama's), in eval mode.
pub(crate) fn load_llama(
    w: &Weights,
    config: &CausalConfig,
) -> Result<Box<dyn CausalNet>, PlmError> {
    let stack = DecoderStack::load(w, config, RmsWeight::Llama, |p, i| {
        Layer::load(w, config, p, i)
    })?;
    Ok(Box::new(stack))
}

