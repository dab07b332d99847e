//! The integration tests of `bias-data`: one test binary (each file of this folder a module), so
//! the workspace links its dependencies once per crate rather than once per test file.

mod corpus;
mod counts;
mod damage;
mod difflib_reference;
mod errors;
mod no_panic;
mod real_data;
