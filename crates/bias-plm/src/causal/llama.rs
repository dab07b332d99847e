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
use crate::causal::layers::{apply_rotary, attend, decode, linear, lm_head, model_prefix, RmsNorm, Rotary, RotaryLayer, Scores};
use crate::causal::registry::{CausalArchitecture, CausalNet};
use crate::config::Activation;
use crate::model::{activate, Linear, Weights};
use crate::PlmError;

/// One decoder layer (`LlamaDecoderLayer`).
#[derive(Debug)]
struct Layer {
    input_norm: RmsNorm,
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    post_norm: RmsNorm,
    gate: Linear,
    up: Linear,
    down: Linear,
    act: Activation,
    heads: i64,
    kv_heads: i64,
    head_dim: i64,
    window: Option<i64>,
}

impl RotaryLayer for Layer {
    fn window(&self) -> Option<i64> {
        self.window
    }

    fn forward(
        &self,
        x: &Tensor,
        cos: &Tensor,
        sin: &Tensor,
        mask: &Tensor,
    ) -> Result<Tensor, PlmError> {
        let size = x.size();
        let (b, l) = (size[0], size[1]);
        let n = self.input_norm.forward(x)?;
        let split = |t: Tensor, heads: i64| -> Result<Tensor, PlmError> {
            Ok(t.f_view([b, l, heads, self.head_dim])?.f_transpose(1, 2)?)
        };
        let q = split(self.q.forward(&n)?, self.heads)?;
        let k = split(self.k.forward(&n)?, self.kv_heads)?;
        let v = split(self.v.forward(&n)?, self.kv_heads)?;
        let q = apply_rotary(&q, cos, sin)?;
        let k = apply_rotary(&k, cos, sin)?;
        let scaling = (self.head_dim as f64).powf(-0.5);
        let context = attend(&q, &k, &v, mask, Scores::scaled(scaling))?;
        let h = x.f_add(&self.o.forward(&context)?)?;
        let m = self.post_norm.forward(&h)?;
        let gated = activate(&self.gate.forward(&m)?, self.act)?.f_mul(&self.up.forward(&m)?)?;
        Ok(h.f_add(&self.down.forward(&gated)?)?)
    }
}

/// `LlamaForCausalLM` (and Mistral's, Qwen2's) in eval mode.
#[derive(Debug)]
pub(crate) struct Llama {
    embed: Tensor,
    layers: Vec<Layer>,
    norm: RmsNorm,
    /// The LM head `[vocab, hidden]` (the embedding matrix when tied).
    head: Tensor,
    rotary: Rotary,
}

impl Llama {
    /// Loads the model; parameters are found with the `model.` prefix of `*ForCausalLM` or
    /// without it.
    pub(crate) fn load(w: &Weights, config: &CausalConfig) -> Result<Self, PlmError> {
        let base = model_prefix(w)?;
        let h = config.hidden_size;
        let d = config.head_dim;
        let (nh, nkv) = (config.num_attention_heads, config.num_key_value_heads);
        let inter = config.intermediate_size;
        let eps = config.norm_eps;
        let embed = w.get(
            &format!("{base}embed_tokens.weight"),
            &[config.vocab_size, h],
        )?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers as usize);
        for i in 0..config.num_hidden_layers {
            let p = |n: &str| format!("{base}layers.{i}.{n}");
            layers.push(Layer {
                input_norm: RmsNorm::load(w, &p("input_layernorm"), h, eps)?,
                q: linear(w, &p("self_attn.q_proj"), h, nh * d, config.qkv_bias)?,
                k: linear(w, &p("self_attn.k_proj"), h, nkv * d, config.qkv_bias)?,
                v: linear(w, &p("self_attn.v_proj"), h, nkv * d, config.qkv_bias)?,
                o: linear(
                    w,
                    &p("self_attn.o_proj"),
                    nh * d,
                    h,
                    config.attention_out_bias,
                )?,
                post_norm: RmsNorm::load(w, &p("post_attention_layernorm"), h, eps)?,
                gate: linear(w, &p("mlp.gate_proj"), h, inter, config.mlp_bias)?,
                up: linear(w, &p("mlp.up_proj"), h, inter, config.mlp_bias)?,
                down: linear(w, &p("mlp.down_proj"), inter, h, config.mlp_bias)?,
                act: config.hidden_act,
                heads: nh,
                kv_heads: nkv,
                head_dim: d,
                window: config.sliding_window.get(i as usize).copied().flatten(),
            });
        }
        let head = lm_head(w, config, &embed)?;
        Ok(Llama {
            embed,
            layers,
            norm: RmsNorm::load(w, &format!("{base}norm"), h, eps)?,
            head,
            rotary: Rotary::of(config, w.device())?,
        })
    }

    /// The final hidden states `[batch, length, hidden]` (after the last RMSNorm) of
    /// right-padded `ids` with `attention_mask`; positions count from 0 in every row.
    pub(crate) fn forward(
        &self,
        ids: &Tensor,
        attention_mask: &Tensor,
    ) -> Result<Tensor, PlmError> {
        let hidden = Tensor::f_embedding(&self.embed, ids, -1, false, false)?;
        let hidden = decode(hidden, attention_mask, &self.rotary, &self.layers)?;
        self.norm.forward(&hidden)
    }

    /// Vocabulary logits of hidden states `[n, hidden]`.
    pub(crate) fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        Ok(hidden.f_linear::<Tensor>(&self.head, None)?)
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

/// The Llama network of `config` (also Mistral's and Qwen2's: their layers are Llama's).
pub(crate) fn load_llama(
    w: &Weights,
    config: &CausalConfig,
) -> Result<Box<dyn CausalNet>, PlmError> {
    Ok(Box::new(Llama::load(w, config)?))
}

impl CausalNet for Llama {
    fn forward(&self, ids: &Tensor, attention_mask: &Tensor) -> Result<Tensor, PlmError> {
        Llama::forward(self, ids, attention_mask)
    }

    fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        Llama::logits(self, hidden)
    }
}
