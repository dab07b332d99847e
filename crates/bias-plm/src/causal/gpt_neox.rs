//! GPT-NeoX (Black et al. 2022, "GPT-NeoX-20B: An Open-Source Autoregressive Language Model"),
//! the architecture of Pythia (Biderman et al. 2023), laid out like `transformers`'
//! `GPTNeoXForCausalLM` so that its weights load by name.
//!
//! A layer computes one fused projection `W_qkv·LN₁(x)`, viewed per head as `[q | k | v]`;
//! rotary embeddings turn the first `rotary_pct · head_dim` dimensions of `q` and `k` (a quarter
//! by default); with `use_parallel_residual` (all Pythia models) the block is
//! `y = x + Attn(LN₁(x)) + MLP(LN₂(x))`, otherwise `h = x + Attn(LN₁(x))`, `y = h + MLP(LN₂(h))`.
//! Layer norms have biases, and so (by `attention_bias`, true by default) do the projections.

use tch::Tensor;

use crate::causal::cache::Pass;
use crate::causal::config::{rotary_dim, CausalConfig, CausalType, FamilySettings, Raw};
use crate::causal::layers::{attend, decode, linear, Rotary, LayerContext, RotaryLayer, Scores};
use crate::causal::registry::{CausalArchitecture, CausalNet};
use crate::config::Activation;
use crate::model::{activate, LayerNorm, Linear, Weights};
use crate::PlmError;

/// One `GPTNeoXLayer`.
#[derive(Debug)]
struct Layer {
    input_norm: LayerNorm,
    post_norm: LayerNorm,
    qkv: Linear,
    dense: Linear,
    fc_in: Linear,
    fc_out: Linear,
    act: Activation,
    heads: i64,
    head_dim: i64,
    parallel: bool,
}

impl RotaryLayer for Layer {
    fn window(&self) -> Option<i64> {
        None
    }

    fn forward(&self, x: &Tensor, at: &LayerContext<'_>) -> Result<Tensor, PlmError> {
        let size = x.size();
        let (b, l) = (size[0], size[1]);
        // `view(..., heads, 3 · head_dim)`, then `chunk(3)`: q, k and v interleave per head.
        let qkv = self
            .qkv
            .forward(&self.input_norm.forward(x)?)?
            .f_view([b, l, self.heads, 3 * self.head_dim])?
            .f_transpose(1, 2)?;
        let parts = qkv.f_chunk(3, -1)?;
        let q = at.rotate(&parts[0])?;
        let (k, v) = at.cached(at.rotate(&parts[1])?, parts[2].shallow_clone())?;
        let scaling = (self.head_dim as f64).powf(-0.5);
        let context = attend(&q, &k, &v, at.mask, Scores::scaled(scaling))?;
        let attn = self.dense.forward(&context)?;
        let mlp = |h: &Tensor| -> Result<Tensor, PlmError> {
            let inner = activate(&self.fc_in.forward(&self.post_norm.forward(h)?)?, self.act)?;
            self.fc_out.forward(&inner)
        };
        if self.parallel {
            Ok(mlp(x)?.f_add(&attn)?.f_add(x)?)
        } else {
            let h = attn.f_add(x)?;
            Ok(mlp(&h)?.f_add(&h)?)
        }
    }
}

/// `GPTNeoXForCausalLM` in eval mode.
#[derive(Debug)]
struct GptNeox {
    embed: Tensor,
    layers: Vec<Layer>,
    norm: LayerNorm,
    /// `embed_out` `[vocab, hidden]` (the input embeddings when tied).
    head: Tensor,
    rotary: Rotary,
}

impl GptNeox {
    fn load(w: &Weights, config: &CausalConfig) -> Result<Self, PlmError> {
        let FamilySettings::GptNeox { parallel_residual } = config.family else {
            unreachable!("gpt_neox's configuration has GPT-NeoX settings")
        };
        let h = config.hidden_size;
        let (d, heads) = (config.head_dim, config.num_attention_heads);
        let inter = config.intermediate_size;
        let eps = config.norm_eps;
        let bias = config.qkv_bias;
        let embed = w.get("gpt_neox.embed_in.weight", &[config.vocab_size, h])?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers as usize);
        for i in 0..config.num_hidden_layers {
            let p = |n: &str| format!("gpt_neox.layers.{i}.{n}");
            layers.push(Layer {
                input_norm: LayerNorm::load(w, &p("input_layernorm"), h, eps)?,
                post_norm: LayerNorm::load(w, &p("post_attention_layernorm"), h, eps)?,
                qkv: linear(w, &p("attention.query_key_value"), h, 3 * h, bias)?,
                dense: linear(w, &p("attention.dense"), h, h, bias)?,
                fc_in: linear(w, &p("mlp.dense_h_to_4h"), h, inter, true)?,
                fc_out: linear(w, &p("mlp.dense_4h_to_h"), inter, h, true)?,
                act: config.hidden_act,
                heads,
                head_dim: d,
                parallel: parallel_residual,
            });
        }
        let head = if config.tie_word_embeddings {
            embed.shallow_clone()
        } else {
            // transformers 5 saves the head under its old name `embed_out` and reads both.
            w.get_any(
                &["embed_out.weight".into(), "lm_head.weight".into()],
                &[config.vocab_size, h],
            )?
        };
        Ok(GptNeox {
            embed,
            layers,
            norm: LayerNorm::load(w, "gpt_neox.final_layer_norm", h, eps)?,
            head,
            rotary: Rotary::of(config, w.device())?,
        })
    }
}

impl CausalNet for GptNeox {
    fn forward(&self, ids: &Tensor, pass: &Pass<'_>) -> Result<Tensor, PlmError> {
        let hidden = Tensor::f_embedding(&self.embed, ids, -1, false, false)?;
        let hidden = decode(hidden, pass, &self.rotary, &self.layers)?;
        self.norm.forward(&hidden)
    }

    fn layers(&self) -> usize {
        self.layers.len()
    }

    fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        Ok(hidden.f_linear::<Tensor>(&self.head, None)?)
    }
}

/// `GPTNeoXConfig`'s keys and defaults (GPT-NeoX-20B): the rotary base from `rope_parameters`,
/// else `rotary_emb_base`, else `rope_theta`, else 10000; the rotated fraction from
/// `rope_parameters.partial_rotary_factor`, else `rotary_pct`, else 0.25.
fn config(raw: &Raw<'_>) -> Result<CausalConfig, PlmError> {
    let hidden = raw.int("hidden_size")?.unwrap_or(6144);
    let heads = raw.int("num_attention_heads")?.unwrap_or(64);
    let layers = raw.layer_count("num_hidden_layers", 44)?;
    if heads > 0 && hidden % heads != 0 {
        return Err(raw.unsupported(
            "num_attention_heads",
            heads.to_string(),
            "must divide hidden_size",
        ));
    }
    let head_dim = if heads > 0 { hidden / heads } else { 0 };
    let max_position_embeddings = raw.int("max_position_embeddings")?.unwrap_or(2048);
    let rope = raw.rope(max_position_embeddings, None)?;
    let in_params = |key: &str| {
        raw.get("rope_parameters")
            .or_else(|| raw.get("rope_scaling"))
            .and_then(|p| p.get(key))
            .is_some_and(|v| !v.is_null())
    };
    let theta = match raw.float("rotary_emb_base")? {
        Some(base) if !in_params("rope_theta") => base,
        _ => rope.theta,
    };
    let partial = match rope.partial_rotary_factor {
        Some(p) => p,
        None => raw.float("rotary_pct")?.unwrap_or(0.25),
    };
    let bias = raw.boolean("attention_bias")?.unwrap_or(true);
    Ok(CausalConfig {
        model_type: CausalType::GptNeox,
        architectures: raw.architectures(),
        vocab_size: raw.int("vocab_size")?.unwrap_or(50432),
        hidden_size: hidden,
        num_hidden_layers: layers,
        num_attention_heads: heads,
        num_key_value_heads: heads,
        head_dim,
        intermediate_size: raw.int("intermediate_size")?.unwrap_or(24576),
        max_position_embeddings,
        norm_eps: raw.float("layer_norm_eps")?.unwrap_or(1e-5),
        hidden_act: raw.activation("hidden_act", "gelu")?,
        rope_theta: theta,
        rope_scaling: rope.scaling,
        rotary_dim: rotary_dim(head_dim, partial),
        qkv_bias: bias,
        attention_out_bias: bias,
        mlp_bias: true,
        sliding_window: vec![None; layers.max(0) as usize],
        scale_attn_weights: true,
        scale_attn_by_inverse_layer_idx: false,
        tie_word_embeddings: raw.boolean("tie_word_embeddings")?.unwrap_or(false),
        bos_token_id: Some(raw.token_id("bos_token_id")?.unwrap_or(0)),
        eos_token_id: Some(raw.token_id("eos_token_id")?.unwrap_or(2)),
        family: FamilySettings::GptNeox {
            parallel_residual: raw.boolean("use_parallel_residual")?.unwrap_or(true),
        },
    })
}

/// GPT-NeoX in the registry.
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "gpt_neox",
    rotary: true,
    mlp_matrices: 2.0,
    config,
    load: |w, config| Ok(Box::new(GptNeox::load(w, config)?)),
};

#[cfg(test)]
mod tests {
    use crate::{CausalConfig, CausalType};

    /// Pythia's `config.json` keys (transformers 4): `rotary_pct`, `rotary_emb_base`.
    #[test]
    fn pythia_keys_set_the_rotated_fraction_and_base() {
        let c = CausalConfig::from_json_str(
            r#"{"model_type": "gpt_neox", "hidden_size": 512, "num_attention_heads": 8,
            "rotary_pct": 0.25, "rotary_emb_base": 10000, "use_parallel_residual": true}"#,
            "config.json",
        )
        .unwrap();
        assert_eq!(c.model_type, CausalType::GptNeox);
        assert_eq!((c.head_dim, c.rotary_dim, c.rope_theta), (64, 16, 10000.0));
        let c = CausalConfig::from_json_str(
            r#"{"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4,
            "rope_parameters": {"rope_type": "default", "rope_theta": 500.0,
            "partial_rotary_factor": 0.5}, "rotary_emb_base": 10000}"#,
            "config.json",
        )
        .unwrap();
        assert_eq!((c.rotary_dim, c.rope_theta), (8, 500.0));
    }
}
