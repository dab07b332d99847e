//! The integration tests of `bias-robust`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file.

mod correlate;
mod crows_pairs_paraphrases;
mod error_chain;
mod human;
mod kaneko2022_table2;
mod orientation_sign;
mod paraphrase;
mod paraphrase_group_sizes;
mod retest;
mod robustness;
