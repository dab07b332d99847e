//! OLMo 2 (OLMo et al. 2024, "2 OLMo 2 Furious"), laid out like `transformers`'
//! `Olmo2ForCausalLM` so that its weights load by name.
//!
//! Llama's attention and gated MLP with the norms moved after each sublayer
//! (`h = x + N₁(Attn(x))`, `y = h + N₂(MLP(h))`), RMSNorms over the whole query and key
//! projections before they are split into heads (`q_norm`, `k_norm`), and RMSNorms that apply
//! their weight in float32 (`Olmo2RMSNorm`).

use tch::Tensor;

use crate::causal::config::{LlamaFamily, LLAMA};
use crate::causal::layers::{apply_rotary, attend, decode, linear, lm_head, model_prefix, RmsNorm, RmsWeight, Rotary, RotaryLayer, Scores};
use crate::causal::registry::{CausalArchitecture, CausalNet};
use crate::config::Activation;
use crate::model::{activate, Linear, Weights};
use crate::{CausalConfig, PlmError};

/// One `Olmo2DecoderLayer`.
#[derive(Debug)]
struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    q_norm: RmsNorm,
    k_norm: RmsNorm,
    post_attention_norm: RmsNorm,
    gate: Linear,
    up: Linear,
    down: Linear,
    post_feedforward_norm: RmsNorm,
    act: Activation,
    heads: i64,
    kv_heads: i64,
    head_dim: i64,
}

impl RotaryLayer for Layer {
    fn window(&self) -> Option<i64> {
        None
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
        let split = |t: Tensor, heads: i64| -> Result<Tensor, PlmError> {
            Ok(t.f_view([b, l, heads, self.head_dim])?.f_transpose(1, 2)?)
        };
        let q = self.q_norm.forward(&self.q.forward(x)?)?;
        let k = self.k_norm.forward(&self.k.forward(x)?)?;
        let q = apply_rotary(&split(q, self.heads)?, cos, sin)?;
        let k = apply_rotary(&split(k, self.kv_heads)?, cos, sin)?;
        let v = split(self.v.forward(x)?, self.kv_heads)?;
        let scaling = (self.head_dim as f64).powf(-0.5);
        let context = attend(&q, &k, &v, mask, Scores::scaled(scaling))?;
        let attn = self
            .post_attention_norm
            .forward(&self.o.forward(&context)?)?;
        let h = x.f_add(&attn)?;
        let gated = activate(&self.gate.forward(&h)?, self.act)?.f_mul(&self.up.forward(&h)?)?;
        let mlp = self
            .post_feedforward_norm
            .forward(&self.down.forward(&gated)?)?;
        Ok(h.f_add(&mlp)?)
    }
}

/// `Olmo2ForCausalLM` in eval mode.
#[derive(Debug)]
struct Olmo2 {
    embed: Tensor,
    layers: Vec<Layer>,
    norm: RmsNorm,
    head: Tensor,
    rotary: Rotary,
}

impl Olmo2 {
    fn load(w: &Weights, config: &CausalConfig) -> Result<Self, PlmError> {
        let base = model_prefix(w)?;
        let h = config.hidden_size;
        let d = config.head_dim;
        let (nh, nkv) = (config.num_attention_heads, config.num_key_value_heads);
        let inter = config.intermediate_size;
        let eps = config.norm_eps;
        let bias = config.qkv_bias;
        let norm =
            |name: &str, dim: i64| RmsNorm::load_as(w, name, dim, eps, RmsWeight::Olmo2);
        let embed = w.get(
            &format!("{base}embed_tokens.weight"),
            &[config.vocab_size, h],
        )?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers as usize);
        for i in 0..config.num_hidden_layers {
            let p = |n: &str| format!("{base}layers.{i}.{n}");
            layers.push(Layer {
                q: linear(w, &p("self_attn.q_proj"), h, nh * d, bias)?,
                k: linear(w, &p("self_attn.k_proj"), h, nkv * d, bias)?,
                v: linear(w, &p("self_attn.v_proj"), h, nkv * d, bias)?,
                o: linear(w, &p("self_attn.o_proj"), nh * d, h, bias)?,
                q_norm: norm(&p("self_attn.q_norm"), nh * d)?,
                k_norm: norm(&p("self_attn.k_norm"), nkv * d)?,
                post_attention_norm: norm(&p("post_attention_layernorm"), h)?,
                gate: linear(w, &p("mlp.gate_proj"), h, inter, false)?,
                up: linear(w, &p("mlp.up_proj"), h, inter, false)?,
                down: linear(w, &p("mlp.down_proj"), inter, h, false)?,
                post_feedforward_norm: norm(&p("post_feedforward_layernorm"), h)?,
                act: config.hidden_act,
                heads: nh,
                kv_heads: nkv,
                head_dim: d,
            });
        }
        let head = lm_head(w, config, &embed)?;
        Ok(Olmo2 {
            embed,
            layers,
            norm: norm(&format!("{base}norm"), h)?,
            head,
            rotary: Rotary::of(config, w.device())?,
        })
    }
}

impl CausalNet for Olmo2 {
    fn forward(&self, ids: &Tensor, attention_mask: &Tensor) -> Result<Tensor, PlmError> {
        let hidden = Tensor::f_embedding(&self.embed, ids, -1, false, false)?;
        let hidden = decode(hidden, attention_mask, &self.rotary, &self.layers)?;
        self.norm.forward(&hidden)
    }

    fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        Ok(hidden.f_linear::<Tensor>(&self.head, None)?)
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

/// OLMo 2 in the registry.
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "olmo2",
    rotary: true,
    mlp_matrices: 3.0,
    config: |raw| raw.llama_style(&ARCHITECTURE, &OLMO2),
    load: |w, config| Ok(Box::new(Olmo2::load(w, config)?)),
};
