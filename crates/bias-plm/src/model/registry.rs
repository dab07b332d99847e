//! The masked-LM architectures this crate loads, one entry each.
//!
//! An architecture lives in one file of `model/` that holds its layers, its `transformers`
//! parameter names, and its [`Architecture`]: the `model_type` names of its `config.json`, how
//! that file maps onto [`ModelConfig`] with its configuration class's defaults, and how its
//! weights load. The `architectures!` line of `model/mod.rs` declares its module and registers
//! it in [`super::ARCHITECTURES`]; nothing else dispatches on the architecture. Adding one (see
//! `docs/architecture.md`): a file `model/<name>.rs` with its `pub(crate) static ARCHITECTURE`,
//! and its name in that line.

use std::path::Path;

use super::layers::{MlmHead, Weights};
use super::Backbone;
use crate::config::RawConfig;
use crate::{ModelConfig, PlmError};

/// What the loader builds from an architecture's weights: its encoder stack and, when asked
/// for, its MLM head.
pub(crate) type Loaded = (Box<dyn Backbone>, Option<MlmHead>);

/// Everything the loader knows about one masked-LM architecture.
pub(crate) struct Architecture {
    /// The `model_type` values of `config.json` it reads, the first naming the architecture
    /// (RoBERTa's layout also serves `xlm-roberta` and `camembert`).
    pub(crate) model_types: &'static [&'static str],
    /// How the message of an unknown `model_type` lists it (`roberta (also xlm-roberta,
    /// camembert)`).
    pub(crate) listed_as: &'static str,
    /// The attribute name `transformers` gives the base model inside `*ForMaskedLM`, which
    /// prefixes every encoder parameter (`bert.`, `roberta.`, ...).
    pub(crate) base_prefix: &'static str,
    /// The word-embedding parameter (under the base prefix or not) whose presence tells a
    /// `*ForMaskedLM` checkpoint from a bare encoder.
    pub(crate) embeddings_probe: &'static str,
    /// The configuration: `config.json`'s keys with the configuration class's defaults
    /// (`model_type`, the name as written; `text`, the whole file, for options of its own).
    pub(crate) config: ConfigFn,
    /// The first position id (`pad_token_id + 1` for RoBERTa, 0 for BERT).
    pub(crate) position_offset: fn(&ModelConfig) -> i64,
    /// The MLM head projects from `embedding_size` rather than `hidden_size` (ALBERT's and
    /// ELECTRA's factorised embeddings), for the cost estimate.
    pub(crate) factorised_head: bool,
    /// Builds the encoder (and, if asked, the head) from weights read under the base prefix.
    pub(crate) load: LoadFn,
}

/// An architecture's [`Architecture::config`].
pub(crate) type ConfigFn =
    fn(raw: &RawConfig, model_type: &str, text: &str, path: &Path) -> Result<ModelConfig, PlmError>;

/// An architecture's [`Architecture::load`].
pub(crate) type LoadFn = fn(LoadSource<'_>) -> Result<Loaded, PlmError>;

/// What an architecture's `load` reads its encoder (and head) from.
#[derive(Clone, Copy)]
pub(crate) struct LoadSource<'a> {
    /// The checkpoint's parameters.
    pub(crate) w: &'a Weights,
    /// The parsed configuration.
    pub(crate) config: &'a ModelConfig,
    /// The base model's parameter prefix: `"bert."` (and the like) in a `*ForMaskedLM`
    /// checkpoint, `""` in a bare encoder.
    pub(crate) base: &'a str,
    /// Whether the MLM head is wanted.
    pub(crate) with_head: bool,
}

/// BERT's word-embedding parameter, where most architectures keep theirs.
const WORD_EMBEDDINGS: &str = "embeddings.word_embeddings.weight";

impl Architecture {
    /// An architecture reading `model_types` (the first names it in messages and prefixes its
    /// parameters, `bert.`), its word embeddings where BERT keeps them, positions from 0, its
    /// head projecting from `hidden_size`; the methods below change what differs.
    pub(crate) const fn new(
        model_types: &'static [&'static str],
        config: ConfigFn,
        load: LoadFn,
    ) -> Self {
        Architecture {
            model_types,
            listed_as: model_types[0],
            base_prefix: model_types[0],
            embeddings_probe: WORD_EMBEDDINGS,
            config,
            position_offset: no_offset,
            factorised_head: false,
            load,
        }
    }

    /// Listed as `listed_as` in messages.
    pub(crate) const fn listed_as(mut self, listed_as: &'static str) -> Self {
        self.listed_as = listed_as;
        self
    }

    /// Its parameters prefixed by `base_prefix.`, its word embeddings at `embeddings_probe`.
    pub(crate) const fn base(
        mut self,
        base_prefix: &'static str,
        embeddings_probe: &'static str,
    ) -> Self {
        self.base_prefix = base_prefix;
        self.embeddings_probe = embeddings_probe;
        self
    }

    /// Its first position id as `offset` gives it.
    pub(crate) const fn position_offset(mut self, offset: fn(&ModelConfig) -> i64) -> Self {
        self.position_offset = offset;
        self
    }

    /// Its MLM head projects from `embedding_size` (factorised embeddings).
    pub(crate) const fn factorised(mut self) -> Self {
        self.factorised_head = true;
        self
    }
}

impl std::fmt::Debug for Architecture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.model_types[0])
    }
}

/// Position ids from 0 (BERT and most architectures).
pub(crate) fn no_offset(_: &ModelConfig) -> i64 {
    0
}

/// The architecture whose `config.json` names `model_type`, if any.
pub(crate) fn find(model_type: &str) -> Option<&'static Architecture> {
    super::ARCHITECTURES
        .iter()
        .copied()
        .find(|a| a.model_types.contains(&model_type))
}

#[cfg(test)]
mod tests {
    use crate::config::supported_model_types;
    use crate::{ModelConfig, ModelType};

    /// Every registered architecture is found by each of its `model_type`s and reads a
    /// `config.json` naming only that (its class's defaults); the message of an unknown
    /// `model_type` lists them as it did when it was written by hand.
    #[test]
    fn every_registered_architecture_is_found_read_and_listed() {
        let message = supported_model_types();
        // The list the message spelled out by hand before the registry built it.
        assert_eq!(
            message,
            "bert, roberta (also xlm-roberta, camembert), albert, distilbert, electra, mpnet, \
             deberta-v2 (also DeBERTa-v3) and modernbert (masked LMs); gpt2, llama, mistral, qwen2, \
             gpt_neox, opt, gemma2, phi3 and olmo2 (causal LMs)"
        );
        for arch in super::super::ARCHITECTURES {
            for &name in arch.model_types {
                let found = ModelType::from_model_type(name).expect(name);
                assert_eq!(found.name(), arch.model_types[0]);
                let json = format!(r#"{{"model_type": "{name}"}}"#);
                let config = ModelConfig::from_json_str(&json, "config.json").expect(name);
                assert_eq!(config.model_type, found);
                assert_eq!(config.model_type_name, name);
                assert!(config.max_tokens() > 0, "{name}");
            }
        }
        assert!(ModelType::from_model_type("gpt2").is_none());
        assert!(ModelType::supported().contains(&"camembert"));
    }
}
