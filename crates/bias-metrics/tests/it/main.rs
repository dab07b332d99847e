//! The integration tests of `bias-metrics`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file.

mod error_chain;
mod measures_bootstrap;
mod measures_divergence;
mod measures_props;
mod measures_reference;
mod measures_tables;
mod stats_reference;
