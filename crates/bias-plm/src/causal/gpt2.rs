//! GPT-2 (Radford et al. 2019, "Language Models are Unsupervised Multitask Learners"), laid out
//! like `transformers.models.gpt2.modeling_gpt2.GPT2LMHeadModel` so that its weights load by
//! name: learned absolute position embeddings, pre-layer-norm blocks
//! (`h = x + Attn(LN₁(x))`, `y = h + MLP(LN₂(h))`), `Conv1D` projections stored `[in, out]`, a
//! final layer norm, and an LM head without bias that is the token-embedding matrix unless
//! `tie_word_embeddings` is false.

use tch::{Kind, Tensor};

use crate::causal::config::{CausalConfig, CausalType, FamilySettings, RopeScaling};
use crate::causal::cache::{remember, KvSlot, Pass};
use crate::causal::layers::{attend, causal_mask, Conv1d, Scores};
use crate::causal::registry::{CausalArchitecture, CausalNet};
use crate::config::Activation;
use crate::model::{activate, LayerNorm, Weights};
use crate::PlmError;

/// One `GPT2Block`.
#[derive(Debug)]
struct Block {
    ln_1: LayerNorm,
    c_attn: Conv1d,
    c_proj: Conv1d,
    ln_2: LayerNorm,
    c_fc: Conv1d,
    mlp_proj: Conv1d,
    act: Activation,
    heads: i64,
    head_dim: i64,
    /// `head_dim^−½` (if `scale_attn_weights`), divided by `layer + 1` with
    /// `scale_attn_by_inverse_layer_idx`.
    scaling: f64,
}

impl Block {
    fn forward(
        &self,
        x: &Tensor,
        mask: &Tensor,
        slot: Option<&KvSlot>,
    ) -> Result<Tensor, PlmError> {
        let size = x.size();
        let (b, l, h) = (size[0], size[1], size[2]);
        let qkv = self.c_attn.forward(&self.ln_1.forward(x)?)?;
        let parts = qkv.f_split(h, 2)?;
        let heads = |t: &Tensor| -> Result<Tensor, PlmError> {
            Ok(t.f_view([b, l, self.heads, self.head_dim])?
                .f_transpose(1, 2)?)
        };
        let (k, v) = remember(slot, heads(&parts[1])?, heads(&parts[2])?)?;
        let context = attend(
            &heads(&parts[0])?,
            &k,
            &v,
            mask,
            Scores {
                scaling: self.scaling,
                softcap: None,
                softmax_f32: false,
            },
        )?;
        let h1 = self.c_proj.forward(&context)?.f_add(x)?;
        let inner = activate(&self.c_fc.forward(&self.ln_2.forward(&h1)?)?, self.act)?;
        Ok(h1.f_add(&self.mlp_proj.forward(&inner)?)?)
    }
}

/// `GPT2LMHeadModel` in eval mode.
#[derive(Debug)]
pub(crate) struct Gpt2 {
    wte: Tensor,
    wpe: Tensor,
    blocks: Vec<Block>,
    ln_f: LayerNorm,
    /// The LM head `[vocab, hidden]` (`wte` when tied).
    head: Tensor,
    kind: Kind,
}

impl Gpt2 {
    /// Loads the model; parameters are found with the `transformer.` prefix of
    /// `GPT2LMHeadModel` or without it (a bare `GPT2Model` checkpoint such as the original
    /// `gpt2` repository's, whose head is the tied embedding matrix).
    pub(crate) fn load(w: &Weights, config: &CausalConfig) -> Result<Self, PlmError> {
        let base = if w.contains("transformer.wte.weight") {
            "transformer."
        } else if w.contains("wte.weight") {
            ""
        } else {
            return Err(PlmError::MissingWeight {
                name: "transformer.wte.weight".into(),
                path: w.path().to_path_buf(),
            });
        };
        let h = config.hidden_size;
        let eps = config.norm_eps;
        let wte = w.get(&format!("{base}wte.weight"), &[config.vocab_size, h])?;
        let mut blocks = Vec::with_capacity(config.num_hidden_layers as usize);
        for i in 0..config.num_hidden_layers {
            let p = |n: &str| format!("{base}h.{i}.{n}");
            let mut scaling = 1.0;
            if config.scale_attn_weights {
                scaling = (config.head_dim as f64).powf(-0.5);
            }
            if config.scale_attn_by_inverse_layer_idx {
                scaling /= (i + 1) as f64;
            }
            blocks.push(Block {
                ln_1: LayerNorm::load(w, &p("ln_1"), h, eps)?,
                c_attn: Conv1d::load(w, &p("attn.c_attn"), h, 3 * h)?,
                c_proj: Conv1d::load(w, &p("attn.c_proj"), h, h)?,
                ln_2: LayerNorm::load(w, &p("ln_2"), h, eps)?,
                c_fc: Conv1d::load(w, &p("mlp.c_fc"), h, config.intermediate_size)?,
                mlp_proj: Conv1d::load(w, &p("mlp.c_proj"), config.intermediate_size, h)?,
                act: config.hidden_act,
                heads: config.num_attention_heads,
                head_dim: config.head_dim,
                scaling,
            });
        }
        let head = if config.tie_word_embeddings {
            wte.shallow_clone()
        } else {
            w.get("lm_head.weight", &[config.vocab_size, h])?
        };
        Ok(Gpt2 {
            wpe: w.get(
                &format!("{base}wpe.weight"),
                &[config.max_position_embeddings, h],
            )?,
            wte,
            blocks,
            ln_f: LayerNorm::load(w, &format!("{base}ln_f"), h, eps)?,
            head,
            kind: w.kind(),
        })
    }

    /// The final hidden states `[batch, new, hidden]` (after `ln_f`) of `ids` of a pass;
    /// positions count from 0 in every row (from the cached length when decoding).
    pub(crate) fn forward(&self, ids: &Tensor, pass: &Pass<'_>) -> Result<Tensor, PlmError> {
        let l = ids.size()[1];
        let start = pass.offset();
        let positions = Tensor::f_arange_start(start, start + l, (Kind::Int64, ids.device()))?;
        let mut hidden = Tensor::f_embedding(&self.wte, ids, -1, false, false)?.f_add(
            &Tensor::f_embedding(&self.wpe, &positions, -1, false, false)?,
        )?;
        let mask = causal_mask(pass.mask, l, None, self.kind)?;
        for (i, block) in self.blocks.iter().enumerate() {
            hidden = block.forward(&hidden, &mask, pass.slot(i))?;
        }
        self.ln_f.forward(&hidden)
    }

    /// Vocabulary logits of hidden states `[n, hidden]`.
    pub(crate) fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        Ok(hidden.f_linear::<Tensor>(&self.head, None)?)
    }
}

/// GPT-2 in the registry: `GPT2Config`'s names (`n_embd`, `n_layer`, `n_head`, `n_inner`,
/// `n_positions`, `layer_norm_epsilon`, `activation_function`) and defaults (`gpt2`, the 124M
/// model), learned absolute positions, decoder-only.
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "gpt2",
    rotary: false,
    mlp_matrices: 2.0,
    config: |raw| {
        let hidden = raw.int("n_embd")?.unwrap_or(768);
        let heads = raw.int("n_head")?.unwrap_or(12);
        let layers = raw.layer_count("n_layer", 12)?;
        if raw.boolean("add_cross_attention")? == Some(true) {
            return Err(raw.unsupported(
                "add_cross_attention",
                "true".into(),
                "only decoder-only GPT-2 models are implemented",
            ));
        }
        Ok(CausalConfig {
            model_type: CausalType::Gpt2,
            architectures: raw.architectures(),
            vocab_size: raw.int("vocab_size")?.unwrap_or(50257),
            hidden_size: hidden,
            num_hidden_layers: layers,
            num_attention_heads: heads,
            num_key_value_heads: heads,
            head_dim: if heads > 0 { hidden / heads } else { 0 },
            intermediate_size: raw.int("n_inner")?.unwrap_or(4 * hidden),
            max_position_embeddings: raw.int("n_positions")?.unwrap_or(1024),
            norm_eps: raw.float("layer_norm_epsilon")?.unwrap_or(1e-5),
            hidden_act: raw.activation("activation_function", "gelu_new")?,
            rope_theta: 0.0,
            rope_scaling: RopeScaling::None,
            rotary_dim: 0,
            qkv_bias: true,
            attention_out_bias: true,
            mlp_bias: true,
            sliding_window: vec![None; layers.max(0) as usize],
            scale_attn_weights: raw.boolean("scale_attn_weights")?.unwrap_or(true),
            scale_attn_by_inverse_layer_idx: raw
                .boolean("scale_attn_by_inverse_layer_idx")?
                .unwrap_or(false),
            tie_word_embeddings: raw.boolean("tie_word_embeddings")?.unwrap_or(true),
            bos_token_id: Some(raw.token_id("bos_token_id")?.unwrap_or(50256)),
            eos_token_id: Some(raw.token_id("eos_token_id")?.unwrap_or(50256)),
            family: FamilySettings::None,
        })
    },
    load: |w, config| Ok(Box::new(Gpt2::load(w, config)?)),
};

impl CausalNet for Gpt2 {
    fn forward(&self, ids: &Tensor, pass: &Pass<'_>) -> Result<Tensor, PlmError> {
        Gpt2::forward(self, ids, pass)
    }

    fn layers(&self) -> usize {
        self.blocks.len()
    }

    fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        Gpt2::logits(self, hidden)
    }
}
