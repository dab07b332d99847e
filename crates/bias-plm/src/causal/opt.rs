//! OPT (Zhang et al. 2022, "OPT: Open Pre-trained Transformer Language Models"), laid out like
//! `transformers`' `OPTForCausalLM` so that its weights load by name.
//!
//! Learned absolute positions stored with an offset of 2 (`OPTLearnedPositionalEmbedding`);
//! token embeddings `word_embed_proj_dim` wide, projected to the hidden size (`project_in`) and
//! back before the LM head (`project_out`) when the two differ (OPT-350m); pre-layer-norm blocks
//! with a final layer norm (`do_layer_norm_before`, every OPT model but 350m) or post-layer-norm
//! blocks without one; the query scaled by `head_dim^−½` before `q kᵀ`, as OPT's attention does;
//! a ReLU MLP; an LM head tied to the token embeddings.

use tch::Tensor;

use crate::causal::config::{CausalConfig, CausalType, FamilySettings, Raw, RopeScaling};
use crate::causal::cache::{remember, KvSlot, Pass};
use crate::causal::layers::{attend, linear, Masks, Scores};
use crate::causal::registry::{CausalArchitecture, CausalNet};
use crate::config::Activation;
use crate::model::{activate, LayerNorm, Linear, Weights};
use crate::PlmError;

/// Position ids are looked up `OFFSET` rows down the position table.
const OFFSET: i64 = 2;

/// One `OPTDecoderLayer`.
#[derive(Debug)]
struct Layer {
    attn_norm: LayerNorm,
    q: Linear,
    k: Linear,
    v: Linear,
    out: Linear,
    ffn_norm: LayerNorm,
    fc1: Linear,
    fc2: Linear,
    act: Activation,
    heads: i64,
    head_dim: i64,
    norm_before: bool,
}

impl Layer {
    fn forward(
        &self,
        x: &Tensor,
        mask: &Tensor,
        slot: Option<&KvSlot>,
    ) -> Result<Tensor, PlmError> {
        let size = x.size();
        let (b, l) = (size[0], size[1]);
        let pre = |norm: &LayerNorm, t: &Tensor| -> Result<Tensor, PlmError> {
            if self.norm_before {
                norm.forward(t)
            } else {
                Ok(t.shallow_clone())
            }
        };
        let post = |norm: &LayerNorm, t: Tensor| -> Result<Tensor, PlmError> {
            if self.norm_before {
                Ok(t)
            } else {
                norm.forward(&t)
            }
        };
        let n = pre(&self.attn_norm, x)?;
        let heads = |t: Tensor| -> Result<Tensor, PlmError> {
            Ok(t.f_view([b, l, self.heads, self.head_dim])?
                .f_transpose(1, 2)?)
        };
        let scaling = (self.head_dim as f64).powf(-0.5);
        let q = heads(self.q.forward(&n)?.f_mul_scalar(scaling)?)?;
        let (k, v) = remember(
            slot,
            heads(self.k.forward(&n)?)?,
            heads(self.v.forward(&n)?)?,
        )?;
        let context = attend(&q, &k, &v, mask, Scores::scaled(1.0))?;
        let h = post(&self.attn_norm, x.f_add(&self.out.forward(&context)?)?)?;
        let m = pre(&self.ffn_norm, &h)?;
        let inner = activate(&self.fc1.forward(&m)?, self.act)?;
        post(&self.ffn_norm, h.f_add(&self.fc2.forward(&inner)?)?)
    }
}

/// `OPTForCausalLM` in eval mode.
#[derive(Debug)]
struct Opt {
    embed: Tensor,
    positions: Tensor,
    project_in: Option<Linear>,
    project_out: Option<Linear>,
    layers: Vec<Layer>,
    final_norm: Option<LayerNorm>,
    head: Tensor,
}

impl Opt {
    fn load(w: &Weights, config: &CausalConfig) -> Result<Self, PlmError> {
        let FamilySettings::Opt {
            layer_norm_before,
            word_embed_proj_dim: e,
            final_layer_norm,
        } = config.family
        else {
            unreachable!("opt's configuration has OPT settings")
        };
        let h = config.hidden_size;
        let eps = config.norm_eps;
        let bias = config.qkv_bias;
        let p = |n: &str| format!("model.decoder.{n}");
        let embed = w.get(&p("embed_tokens.weight"), &[config.vocab_size, e])?;
        let positions = w.get(
            &p("embed_positions.weight"),
            &[config.max_position_embeddings + OFFSET, h],
        )?;
        let (project_in, project_out) = if e == h {
            (None, None)
        } else {
            (
                Some(linear(w, &p("project_in"), e, h, false)?),
                Some(linear(w, &p("project_out"), h, e, false)?),
            )
        };
        let mut layers = Vec::with_capacity(config.num_hidden_layers as usize);
        for i in 0..config.num_hidden_layers {
            let p = |n: &str| format!("model.decoder.layers.{i}.{n}");
            let inter = config.intermediate_size;
            layers.push(Layer {
                attn_norm: LayerNorm::load(w, &p("self_attn_layer_norm"), h, eps)?,
                q: linear(w, &p("self_attn.q_proj"), h, h, bias)?,
                k: linear(w, &p("self_attn.k_proj"), h, h, bias)?,
                v: linear(w, &p("self_attn.v_proj"), h, h, bias)?,
                out: linear(w, &p("self_attn.out_proj"), h, h, bias)?,
                ffn_norm: LayerNorm::load(w, &p("final_layer_norm"), h, eps)?,
                fc1: linear(w, &p("fc1"), h, inter, bias)?,
                fc2: linear(w, &p("fc2"), inter, h, bias)?,
                act: config.hidden_act,
                heads: config.num_attention_heads,
                head_dim: config.head_dim,
                norm_before: layer_norm_before,
            });
        }
        let final_norm = if final_layer_norm {
            Some(LayerNorm::load(w, &p("final_layer_norm"), h, eps)?)
        } else {
            None
        };
        let head = if config.tie_word_embeddings {
            embed.shallow_clone()
        } else {
            w.get("lm_head.weight", &[config.vocab_size, e])?
        };
        Ok(Opt {
            embed,
            positions,
            project_in,
            project_out,
            layers,
            final_norm,
            head,
        })
    }
}

impl CausalNet for Opt {
    /// The decoder's output before `project_out` (`[batch, length, hidden]`); [`Self::logits`]
    /// projects it.
    fn forward(&self, ids: &Tensor, pass: &Pass<'_>) -> Result<Tensor, PlmError> {
        let l = ids.size()[1];
        let start = pass.offset();
        let mut hidden = Tensor::f_embedding(&self.embed, ids, -1, false, false)?;
        if let Some(project) = &self.project_in {
            hidden = project.forward(&hidden)?;
        }
        // `cumsum(mask) · mask − 1`: 0, 1, ... on a right-padded row's tokens (padding, which
        // no real token attends to, takes position 0 here).
        let position_ids =
            Tensor::f_arange_start(start, start + l, (tch::Kind::Int64, ids.device()))?
                .f_add_scalar(OFFSET)?
            .f_unsqueeze(0)?;
        let positions = Tensor::f_embedding(&self.positions, &position_ids, -1, false, false)?;
        hidden = hidden.f_add(&positions)?;
        let kind = hidden.kind();
        let mut masks = Masks::new(pass.mask, l, kind);
        for (i, layer) in self.layers.iter().enumerate() {
            hidden = layer.forward(&hidden, masks.get(None)?, pass.slot(i))?;
        }
        match &self.final_norm {
            Some(norm) => norm.forward(&hidden),
            None => Ok(hidden),
        }
    }

    fn layers(&self) -> usize {
        self.layers.len()
    }

    fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        let projected = match &self.project_out {
            Some(project) => project.forward(hidden)?,
            None => hidden.shallow_clone(),
        };
        Ok(projected.f_linear::<Tensor>(&self.head, None)?)
    }
}

/// `OPTConfig`'s keys and defaults (OPT-125m).
fn config(raw: &Raw<'_>) -> Result<CausalConfig, PlmError> {
    let hidden = raw.int("hidden_size")?.unwrap_or(768);
    let heads = raw.int("num_attention_heads")?.unwrap_or(12);
    let layers = raw.layer_count("num_hidden_layers", 12)?;
    if heads > 0 && hidden % heads != 0 {
        return Err(raw.unsupported(
            "num_attention_heads",
            heads.to_string(),
            "must divide hidden_size",
        ));
    }
    if raw.boolean("layer_norm_elementwise_affine")? == Some(false) {
        return Err(raw.unsupported(
            "layer_norm_elementwise_affine",
            "false".into(),
            "only layer norms with weights and biases are implemented",
        ));
    }
    let layer_norm_before = raw.boolean("do_layer_norm_before")?.unwrap_or(true);
    let removed = raw.boolean("_remove_final_layer_norm")?.unwrap_or(false);
    let word_embed_proj_dim = raw.int("word_embed_proj_dim")?.unwrap_or(hidden);
    if word_embed_proj_dim <= 0 {
        return Err(raw.unsupported(
            "word_embed_proj_dim",
            word_embed_proj_dim.to_string(),
            "must be positive",
        ));
    }
    let bias = raw.boolean("enable_bias")?.unwrap_or(true);
    Ok(CausalConfig {
        model_type: CausalType::Opt,
        architectures: raw.architectures(),
        vocab_size: raw.int("vocab_size")?.unwrap_or(50272),
        hidden_size: hidden,
        num_hidden_layers: layers,
        num_attention_heads: heads,
        num_key_value_heads: heads,
        head_dim: if heads > 0 { hidden / heads } else { 0 },
        intermediate_size: raw.int("ffn_dim")?.unwrap_or(3072),
        max_position_embeddings: raw.int("max_position_embeddings")?.unwrap_or(2048),
        // `nn.LayerNorm`'s default: OPT's configuration has no epsilon.
        norm_eps: 1e-5,
        hidden_act: raw.activation("activation_function", "relu")?,
        rope_theta: 0.0,
        rope_scaling: RopeScaling::None,
        rotary_dim: 0,
        qkv_bias: bias,
        attention_out_bias: bias,
        mlp_bias: bias,
        sliding_window: vec![None; layers.max(0) as usize],
        scale_attn_weights: true,
        scale_attn_by_inverse_layer_idx: false,
        tie_word_embeddings: raw.boolean("tie_word_embeddings")?.unwrap_or(true),
        bos_token_id: Some(raw.token_id("bos_token_id")?.unwrap_or(2)),
        eos_token_id: Some(raw.token_id("eos_token_id")?.unwrap_or(2)),
        family: FamilySettings::Opt {
            layer_norm_before,
            word_embed_proj_dim,
            final_layer_norm: layer_norm_before && !removed,
        },
    })
}

/// OPT in the registry.
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "opt",
    rotary: false,
    mlp_matrices: 2.0,
    config,
    load: |w, config| Ok(Box::new(Opt::load(w, config)?)),
};

#[cfg(test)]
mod tests {
    use crate::causal::config::FamilySettings;
    use crate::CausalConfig;

    /// OPT-350m: post-layer-norm blocks, no final layer norm, 512-wide embeddings.
    #[test]
    fn opt_350m_keys_give_post_norm_and_projections() {
        let c = CausalConfig::from_json_str(
            r#"{"model_type": "opt", "hidden_size": 1024, "num_attention_heads": 16,
            "do_layer_norm_before": false, "word_embed_proj_dim": 512, "ffn_dim": 4096}"#,
            "config.json",
        )
        .unwrap();
        assert_eq!(
            c.family,
            FamilySettings::Opt {
                layer_norm_before: false,
                word_embed_proj_dim: 512,
                final_layer_norm: false
            }
        );
        assert_eq!((c.head_dim, c.intermediate_size), (64, 4096));
        let e = CausalConfig::from_json_str(
            r#"{"model_type": "opt", "layer_norm_elementwise_affine": false}"#,
            "config.json",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("layer_norm_elementwise_affine"),
            "{e}"
        );
    }
}
