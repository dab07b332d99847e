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

/// Bias types and pair counts of [`hand_scores`]: 11 pairs of four types.
pub const HAND_TYPES: [(&str, usize); 4] = [
    ("age", 2),
    ("disability", 2),
    ("gender", 2),
    ("race-color", 5),
];

/// The (bias type, stereo score, anti score) of the 11 [`HAND_TYPES`] pairs on which a model
/// prefers the stereotypical sentence exactly on the pairs of the types `stereo_types` (indices
/// into [`HAND_TYPES`]): every draw of `c_k` pairs of each type `k` gives the indicator
/// `100 · Σ_{k ∈ stereo_types} c_k / Σ_k c_k`, whichever pairs it takes.
pub fn hand_scores(stereo_types: &[usize]) -> Vec<(&'static str, f64, f64)> {
    let mut rows = Vec::new();
    for (k, &(ty, n)) in HAND_TYPES.iter().enumerate() {
        for j in 0..n {
            let base = -3.0 - 0.1 * rows.len() as f64 - 0.03 * j as f64;
            let (s, a) = if stereo_types.contains(&k) {
                (base + 0.5, base)
            } else {
                (base, base + 0.5)
            };
            rows.push((ty, s, a));
        }
    }
    rows
}

/// liu2024's per-type weighting by hand (Eqs. 6 and 10): `f` of the (mean, sample sd) of the
/// stereotypical and the anti-stereotypical scores within each bias type of at least two pairs,
/// weighted by the type's share n_t / N of those pairs. `rows` are (bias type, stereo, anti).
pub fn weighted_by_type(
    rows: impl IntoIterator<Item = (String, f64, f64)>,
    f: impl Fn((f64, f64), (f64, f64)) -> f64,
) -> f64 {
    let mut by: std::collections::BTreeMap<String, (Vec<f64>, Vec<f64>)> = Default::default();
    for (ty, stereo, anti) in rows {
        let e = by.entry(ty).or_default();
        e.0.push(stereo);
        e.1.push(anti);
    }
    let kept: Vec<_> = by.values().filter(|(s, _)| s.len() >= 2).collect();
    let n: usize = kept.iter().map(|(s, _)| s.len()).sum();
    kept.iter()
        .map(|(s, a)| s.len() as f64 / n as f64 * f(mean_sd(s), mean_sd(a)))
        .sum()
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
