//! Masked-language-model scoring on libtorch (`tch`): the pseudo-log-likelihood sentence scores
//! of Kaneko & Bollegala (2022), Nangia et al. (2020) and Salazar et al. (2020), on CPU or GPU,
//! equal to what the papers' Python code computes with `transformers` (checked to 1e-4 on tiny
//! checkpoints of every architecture) and much faster.
//!
//! - [`MaskedLm`]: BERT (cased and uncased), RoBERTa, XLM-RoBERTa, CamemBERT, ALBERT,
//!   DistilBERT, DeBERTa-v2/v3, ModernBERT, ELECTRA (the generator) and MPNet with their MLM heads,
//!   opened from a Hugging Face folder (`config.json`, `model.safetensors`, `tokenizer.json`)
//!   with its tokenizer ([`PlmTokenizer`], special tokens added as the model's tokenizer does),
//!   name and digest;
//! - [`MlmScorer`]: AUL, AULA, CPS, SSS, all-masked and PLL ([`ScorerKind`]) with
//!   token-prediction accuracy, all scorers of many pairs sharing batched forward passes
//!   ([`Engine`]); pairs are aligned with the exact difflib port of `bias-data`. It implements
//!   the core [`bias_core::PairScorer`] trait, so the resumable runs of [`bias_core::run`]
//!   drive it like any other runtime;
//! - [`PlmEmbedder`]: mean-pooled sentence embeddings (the core `Embedder` trait);
//! - [`MlmTrainer`]: masked-LM fine-tuning (the bias-controlled models of Kaneko et al. 2023);
//! - [`CausalLm`] and [`CausalScorer`]: GPT-2 (Radford et al. 2019), Llama (Touvron et al. 2023),
//!   Mistral (Jiang et al. 2023) and Qwen2 (Qwen2 technical report, Yang et al. 2024) with the
//!   sentence log-likelihoods `ll-sum` and `ll-mean` ([`CausalScorerKind`]) as
//!   lm-evaluation-harness computes them (Gao et al. 2023/2024), equal to `transformers` to 1e-4;
//! - [`LanguageModel`]: either family, opened by the `model_type` of a folder and scored through
//!   one [`LmScorer`] trait object; or built from [`ModelParts`] held in memory (a `config.json`
//!   text, a `tokenizer.json` text and a `state_dict`'s tensors, as a Python binding finds them
//!   in a `transformers` model: [`LanguageModel::from_parts`]);
//! - [`template`]: the template-based score TBS (Kurita et al. 2019) and the he/she probe of
//!   Kaneko, Bollegala & Okazaki (2023, §3.4); [`controlled`]: what a masked LM gives their
//!   bias-controlled meta-evaluation (a fine-tuned copy, TBS and the probes, cached);
//! - [`StudiedMlm`], [`StudiedCausal`] and [`StudiedLm`] (either): the models under study, each
//!   implementing the capabilities of `bias_core::capability` it has (a masked LM all of them,
//!   a causal LM `DatasetScorer`), which the reproductions of `bias-report` name.
//!
//! Each masked-LM architecture is one file of `model/` holding its layers, parameter names,
//! configuration (with its class's defaults) and registry entry, listed in one
//! `architectures![...]` line; each causal family likewise in `causal/` (see
//! `docs/architecture.md`, "Adding an architecture").
//!
//! # Papers
//!
//! AUL and AULA: Kaneko & Bollegala (2022, AAAI; key `kaneko2022`). CPS: Nangia et al. (2020,
//! EMNLP). SSS: Nadeem et al. (2021, ACL). PLL: Salazar et al. (2020, ACL). TBS: Kurita et al.
//! (2019). Bias-controlled fine-tuning: Kaneko, Bollegala & Okazaki (2023, EACL). Full citations
//! in [`bias_core::references`] (also `docs/references.md` in the repository).
//!
//! # Without libtorch
//!
//! The `doc-only` feature builds this crate's documentation without libtorch (as docs.rs does,
//! through `[package.metadata.docs.rs]`); it links nothing and its items cannot run.
//!
//! # Example
//!
//! ```no_run
//! use bias_core::run::score_to_table;
//! use bias_core::{BiasType, Direction, SentencePair};
//! use bias_plm::{DeviceSpec, MaskedLm, ScorerKind, ScoringOptions};
//!
//! let lm = MaskedLm::open("path/to/bert-base-uncased", DeviceSpec::Auto, tch::Kind::Float)?;
//! let mut scorer = lm.scorer(&[ScorerKind::Aul, ScorerKind::Cps], ScoringOptions::default())?;
//! let pair = SentencePair {
//!     id: "0".into(),
//!     stereo: "She can't drive.".into(),
//!     anti: "He can't drive.".into(),
//!     bias_type: BiasType::Gender,
//!     direction: Direction::Stereo,
//!     group_id: None,
//! };
//! let (table, _) = score_to_table(&mut scorer, &[pair], "mine", lm.name())?;
//! for row in table.rows() {
//!     println!("{}: stereo {:.3}, anti {:.3}", row.scorer, row.score_stereo, row.score_anti);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

/// What a registry handle ([`ModelType`], [`CausalType`]: a reference to its family's entry)
/// implements alike: its entry, and equality, hashing and `Debug` by its name.
macro_rules! family_handle {
    ($ty:ident, $arch:ty) => {
        impl $ty {
            pub(crate) fn architecture(self) -> &'static $arch {
                self.0
            }
        }

        impl PartialEq for $ty {
            fn eq(&self, other: &Self) -> bool {
                self.name() == other.name()
            }
        }

        impl Eq for $ty {}

        impl std::hash::Hash for $ty {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.name().hash(state);
            }
        }

        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!(stringify!($ty), "({:?})"), self.name())
            }
        }
    };
}

pub mod adapter;
pub mod bench;
mod causal;
mod chat;
mod checkpoint;
mod config;
mod continuation;
pub mod controlled;
mod cost;
mod device;
mod embedder;
mod engine;
mod error;
mod hub;
mod language_model;
mod logprob;
mod masked_lm;
mod model;
mod neutral;
mod next_sentence;
mod parts;
mod precision;
mod scorer;
mod served;
mod study;
pub mod template;
mod tokenizer;
mod train;

pub use adapter::{LoraAdapter, LoraConfig};
pub use bias_core::{Finish, Generation, GenerationOptions};
pub use causal::{
    CausalBackend, CausalConfig, CausalLm, CausalModel, CausalScorer, CausalScorerKind, CausalType,
    EncodedContinuation, FamilySettings, Greedy, RopeScaling, TokenLogProbs,
};
pub use chat::{ChatGenerator, ChatPrompt, ChatScorer, ChatTemplate, Message, ServerChat};
pub use config::{Activation, ModelConfig, ModelType};
pub use continuation::MaskedContinuationScorer;
pub use cost::multiply_adds;
pub use device::DeviceSpec;
pub use embedder::{EmbedOptions, Layer, PlmEmbedder, SpecialTokens};
pub use engine::{BatchOptions, Engine, EngineStats, Job, JobResult, Target};
pub use error::{DownloadError, PlmError};
pub use hub::{
    hf_home, hub_cache, resolve_model, resolve_model_in, resolve_model_with, HubId, HubOptions,
    ResolvedModel, DEFAULT_ENDPOINT,
};
pub use language_model::{LanguageModel, LmScorer};
pub use logprob::token_log_probs;
pub use masked_lm::{folder_name, model_digest, MaskedLm};
pub use model::ModernBertOptions;
pub use model::MpnetOptions;
pub use model::{
    load_model, DebertaOptions, EncodeRequest, EncoderOutput, MaskedLanguageModel, PlmModel,
};
pub use neutral::{clean_up_tokenization, mask_differing_tokens, NEUTRAL_PAD_WIDTH};
pub use next_sentence::{has_next_sentence_head, NextSentenceModel, NextSentenceScorer};
pub use parts::ModelParts;
pub use precision::{torch_dtype_kind, Precision};
pub use scorer::{AlignmentOrder, MlmScorer, ScorerKind, ScoringOptions, SpecialIds, SssAverage};
pub use served::{endpoints_of, ServedModel, ServedOptions};
pub use study::{ProgressFn, StudiedCausal, StudiedLm, StudiedMlm, WorkReport};
pub use tokenizer::{PlmTokenizer, TokenizedText};
pub use train::{MlmTrainer, StepReport, TrainedModel, TrainingBatch};
