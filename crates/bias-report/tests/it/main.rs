//! The integration tests of `bias-report`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file.

mod controlled;
mod error_chain;
mod figure_grids;
mod figures;
mod report;
mod summary;
mod svg;
