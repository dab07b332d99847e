//! What the workspace's integration tests share, so that each crate's one test binary
//! (`tests/it/main.rs`) does not copy it: where the repository is, how an error's `source()`
//! chain reads, and the byte mutations of the no-panic property tests.
//!
//! Repository-only (`publish = false`): the tests that use it read the repository's `fixtures/`
//! and `data/`, which no published package carries.

use std::error::Error;
use std::path::{Path, PathBuf};

pub mod json;
pub mod mutation;
pub mod standin;

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

/// Asserts that no message of a library error's chain (as [`chain`] lists it) repeats the text
/// of one below it, and that none names a CLI flag (`--…`: flags are the CLI's to name).
pub fn assert_library_chain(messages: &[String]) {
    for (i, outer) in messages.iter().enumerate() {
        assert!(!outer.contains("--"), "{outer:?} names a CLI flag");
        for inner in &messages[i + 1..] {
            assert!(
                !outer.contains(inner.as_str()),
                "{outer:?} repeats its cause {inner:?}"
            );
        }
    }
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

/// `data/<rel>` of the repository, asserting it is there (the real data sets are unpacked by
/// `scripts/setup.sh`).
pub fn real_data(rel: &str) -> PathBuf {
    let path = root().join("data").join(rel);
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup.sh (or make test) first",
        path.display()
    );
    path
}

/// CrowS-Pairs' pairs per bias type, as Nangia et al. (2020, Table 1) count them (1,508 in all).
pub const CROWS_PAIRS_BY_TYPE: [(&str, usize); 9] = [
    ("race-color", 516),
    ("gender", 262),
    ("socioeconomic", 172),
    ("nationality", 159),
    ("religion", 105),
    ("age", 87),
    ("sexual-orientation", 84),
    ("physical-appearance", 63),
    ("disability", 60),
];

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
    /// Runs the command, asserts that it exits non-zero and that its stderr says each of
    /// `needles`, and returns the stderr.
    fn fails_saying(&mut self, needles: &[&str]) -> String;
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

            #[track_caller]
            fn fails_saying(&mut self, needles: &[&str]) -> String {
                let err = String::from_utf8_lossy(&self.fails().stderr).into_owned();
                for needle in needles {
                    assert!(err.contains(needle), "{needle:?} not in: {err}");
                }
                err
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

/// Deterministic standard normals (Box–Muller on a 64-bit LCG).
pub fn normals(seed: u64, n: usize) -> Vec<f64> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let (u, v) = (uniform(), uniform());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        })
        .collect()
}

/// Mean and sample standard deviation (ddof = 1) of `x`, by hand, for references.
pub fn mean_sd(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, v.sqrt())
}

/// The score table of data set `set` in a model's score folder: `<set>.csv`, or with a suffix
/// such as `<set>.first30.csv` for a run limited to its first pairs.
pub fn score_file(folder: &Path, set: &str) -> PathBuf {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(&format!("{set}.")) && name.ends_with(".csv")
        })
        .unwrap_or_else(|| panic!("no score table of {set} in {}", folder.display()))
}
