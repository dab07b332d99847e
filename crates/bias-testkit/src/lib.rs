//! What the workspace's integration tests share, so that each crate's one test binary
//! (`tests/it/main.rs`) does not copy it: where the repository is, how an error's `source()`
//! chain reads, and the byte mutations of the no-panic property tests.
//!
//! Repository-only (`publish = false`): the tests that use it read the repository's `fixtures/`
//! and `data/`, which no published package carries.

use std::error::Error;
use std::path::PathBuf;

pub mod json;
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

/// Running a command in a test: its output once it has exited as the test expects, the
/// command's stderr in the failure message otherwise.
pub trait Run {
    /// Runs the command and asserts that it exits 0.
    fn succeeds(&mut self) -> std::process::Output;
    /// Runs the command and asserts that it exits non-zero.
    fn fails(&mut self) -> std::process::Output;
}

/// [`Run`] for each command type the tests build (`std`'s and `assert_cmd`'s).
macro_rules! run_for {
    ($($command:ty),+) => {$(
        impl Run for $command {
            #[track_caller]
            fn succeeds(&mut self) -> std::process::Output {
                let out = self.output().expect("the command starts");
                assert_success(&out);
                out
            }

            #[track_caller]
            fn fails(&mut self) -> std::process::Output {
                let out = self.output().expect("the command starts");
                assert!(
                    !out.status.success(),
                    "exited 0: {}",
                    String::from_utf8_lossy(&out.stdout)
                );
                out
            }
        }
    )+};
}

run_for!(std::process::Command, assert_cmd::Command);

/// Asserts that a command's `out` exited 0, showing its stderr otherwise.
#[track_caller]
pub fn assert_success(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
