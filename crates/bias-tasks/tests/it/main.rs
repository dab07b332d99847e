//! The integration tests of `bias-tasks`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file.

mod bbq_authors_script;
mod bbq_ten_examples;
