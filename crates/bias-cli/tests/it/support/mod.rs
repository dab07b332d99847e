//! Helpers shared by integration tests (not a test target of its own: Cargo only builds the
//! `.rs` files directly under `tests/` as tests).

pub mod browser;
