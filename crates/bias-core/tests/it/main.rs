//! The integration tests of `bias-core`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file.

mod error_chain;
mod no_panic;
mod score_table;
