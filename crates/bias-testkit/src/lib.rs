//! What the workspace's integration tests share, so that each crate's one test binary
//! (`tests/it/main.rs`) does not copy it: where the repository is, how an error's `source()`
//! chain reads, and the byte mutations of the no-panic property tests.
//!
//! Repository-only (`publish = false`): the tests that use it read the repository's `fixtures/`
//! and `data/`, which no published package carries.

use std::error::Error;
use std::path::PathBuf;

pub mod mutation;

/// The repository's root (the workspace folder holding `fixtures/`, `data/` and `crates/`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The messages of `err` and of every error in its `source()` chain, outermost first.
pub fn chain(err: &dyn Error) -> Vec<String> {
    let mut messages = vec![err.to_string()];
    let mut next = err.source();
    while let Some(e) = next {
        messages.push(e.to_string());
        next = e.source();
    }
    messages
}

/// Asserts that `err` has a cause and that no message repeats the text of one below it (each
/// cause is printed once: the CLI prints the chain as `caused by:` lines); returns the chain.
pub fn assert_each_cause_once(err: &dyn Error) -> Vec<String> {
    let messages = chain(err);
    assert!(messages.len() >= 2, "no source: {messages:?}");
    for (i, outer) in messages.iter().enumerate() {
        for inner in &messages[i + 1..] {
            assert!(
                !outer.contains(inner.as_str()),
                "{outer:?} repeats its cause {inner:?}"
            );
        }
    }
    messages
}

/// A fresh, empty folder `bias-<tag>-<pid>` under the system's temporary folder (removed first
/// if a previous run left it). Each test module gives its own tag: the modules of one test
/// binary share the process id.
pub fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bias-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fixture checkpoint `fixtures/models/<arch>`, as a command-line argument.
pub fn fixture_model(arch: &str) -> String {
    root()
        .join("fixtures/models")
        .join(arch)
        .display()
        .to_string()
}

/// The repository's `data/` folder, as a command-line argument; fails naming
/// `scripts/setup.sh` when the data sets are not there.
pub fn data_dir() -> String {
    let d = root().join("data");
    assert!(
        d.join("crows-pairs/crows_pairs_anonymized.csv").is_file(),
        "data missing: run scripts/setup.sh"
    );
    d.display().to_string()
}
