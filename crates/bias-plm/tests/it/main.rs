//! The integration tests of `bias-plm`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file.

mod causal_parity;
mod chat_templates;
mod deberta_variants;
mod embedder;
mod generation;
mod hostile_folders;
mod libtorch;
mod lm_eval_continuations;
mod lm_eval_crows;
mod model_config;
mod model_encoder;
mod model_errors;
mod model_parity;
mod model_parts;
mod modernbert_variant;
mod schroeder2024_neutral;
mod scorer_parity;
mod served;
mod stereoset_scores;
mod support;
mod template_parity;
mod tokenizer_parity;
mod train_parity;
