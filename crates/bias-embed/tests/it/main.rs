//! The integration tests of `bias-embed`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file.

mod debias;
mod direct_bias;
mod error_chain;
mod no_panic;
mod same_weat;
mod same_weat_reference;
mod schroeder2024_protocol;
mod tpr;
mod vectors;
