//! The workspace's runnable examples, one per paper, as this member's example targets (their
//! sources are the repository's `examples/` folder): `cargo run --release -p bias-examples
//! --example NAME`. The library itself is empty; it exists because a package needs one target
//! besides its examples, and it keeps the examples' dependencies off the library crates.
