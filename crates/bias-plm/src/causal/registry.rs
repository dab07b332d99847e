//! The causal-LM families this crate loads, one entry each.
//!
//! A family lives in one file of `causal/` that holds its [`CausalArchitecture`]: its
//! `model_type`, how its `config.json` maps onto [`CausalConfig`] with its configuration
//! class's defaults, and how its weights load (its own layers, or those of a family it shares
//! them with: Mistral and Qwen2 load as Llama). The `causal_architectures!` line of
//! `causal/mod.rs` declares its module and registers it in [`super::ARCHITECTURES`]; nothing
//! else dispatches on the family.

use tch::Tensor;

use super::cache::Pass;
use super::config::{CausalConfig, Raw};
use crate::model::Weights;
use crate::PlmError;

/// A loaded causal LM's network: final hidden states, and the LM head on them.
pub(crate) trait CausalNet: std::fmt::Debug + Send {
    /// The final hidden states `[batch, new, hidden]` of validated `ids` `[batch, new]` (int64,
    /// on the model's device): a whole right-padded batch, or a decoding step whose tokens follow
    /// those in `pass.cache`. `pass.mask` covers the cached tokens and the new ones.
    fn forward(&self, ids: &Tensor, pass: &Pass<'_>) -> Result<Tensor, PlmError>;

    /// Attention layers, the slots of a [`super::cache::KvCache`].
    fn layers(&self) -> usize;

    /// Vocabulary logits `[n, vocab]` of hidden states `[n, hidden]`.
    fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError>;
}

/// Builds a family's network from its weights ([`CausalArchitecture::load`]).
pub(crate) type LoadFn = fn(&Weights, &CausalConfig) -> Result<Box<dyn CausalNet>, PlmError>;

/// Everything the loader knows about one causal-LM family.
pub(crate) struct CausalArchitecture {
    /// The `model_type` of its `config.json`.
    pub(crate) model_type: &'static str,
    /// Rotary position embeddings (their head dimension must be even); learned absolute
    /// positions otherwise (GPT-2, whose heads must divide the hidden size).
    pub(crate) rotary: bool,
    /// Weight matrices of the MLP (2 for GPT-2's, 3 for SwiGLU), for the cost estimate.
    pub(crate) mlp_matrices: f64,
    /// The configuration: `config.json`'s keys with the configuration class's defaults.
    pub(crate) config: fn(&Raw<'_>) -> Result<CausalConfig, PlmError>,
    /// Builds the network from its weights.
    pub(crate) load: LoadFn,
}

impl std::fmt::Debug for CausalArchitecture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.model_type)
    }
}

/// The family whose `config.json` names `model_type`, if any.
pub(crate) fn find(model_type: &str) -> Option<&'static CausalArchitecture> {
    super::ARCHITECTURES
        .iter()
        .copied()
        .find(|a| a.model_type == model_type)
}

#[cfg(test)]
mod tests {
    use crate::{CausalConfig, CausalType};

    /// Every registered causal family is found by its `model_type`, reads a `config.json` naming
    /// only that (its class's defaults), and is listed for messages.
    #[test]
    fn every_registered_family_is_found_read_and_listed() {
        let list = CausalType::supported_list();
        assert_eq!(
            list,
            "gpt2, llama, mistral, qwen2, gpt_neox, opt, gemma2, phi3 and olmo2"
        );
        for family in CausalType::all() {
            let name = family.name();
            assert_eq!(CausalType::from_model_type(name), Some(family));
            let json = format!(r#"{{"model_type": "{name}"}}"#);
            let config = CausalConfig::from_json_str(&json, "config.json").expect(name);
            assert_eq!(config.model_type, family);
            assert!(list.contains(name));
        }
        assert!(CausalType::from_model_type("bert").is_none());
    }
}
