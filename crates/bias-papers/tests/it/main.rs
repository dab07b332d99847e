//! The integration tests of `bias-papers`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file.

mod liu2024_figure4;
mod reproduce_liu2024;
mod reproduce_paraphrase;
