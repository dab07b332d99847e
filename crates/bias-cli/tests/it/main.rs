//! The integration tests of `bias-cli`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file. Besides
//! the `bias` command, it holds the tests that run the library crates together on the fixture
//! checkpoints (`controlled_cps`, `lm_eval_tasks`, `scorer_scales`, `stereoset_full`): this is
//! the crate whose test binary gets libtorch's rpath and every layer as a dependency.

mod support;

mod authors_kaneko2022;
mod authors_schroeder2024;
mod causal;
mod cli;
mod controlled;
mod controlled_cps;
mod embed;
mod generate;
mod hub_cache;
mod hub_download;
mod kaneko2022_tokens;
mod lm_eval_import;
mod lm_eval_tasks;
mod non_finite;
mod report_browser;
mod reproduce_kaneko2022;
mod reproduce_kaneko2022_table2;
mod reproduce_kaneko2023;
mod reproduce_liu2024;
mod reproduce_mixed_models;
mod reproduce_paraphrase;
mod reproduce_schroeder2024;
mod robust;
mod robust_paraphrase;
mod score;
mod scorer_scales;
mod stereoset_full;
mod stereoset_scores;
mod task;
