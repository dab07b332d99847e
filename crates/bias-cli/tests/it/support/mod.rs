//! Helpers shared by integration tests (not a test target of its own: Cargo only builds the
//! `.rs` files directly under `tests/` as tests).

pub mod browser;

use assert_cmd::Command;
use serde_json::Value;

/// The `bias` command of this build.
pub fn bias() -> Command {
    Command::cargo_bin("bias").unwrap()
}

/// `bias args`, however it exits.
pub fn bias_output(args: &[&str]) -> std::process::Output {
    bias().args(args).output().unwrap()
}

/// The stdout of `bias args`, asserting it exits 0 (its arguments and stderr otherwise).
#[track_caller]
pub fn bias_stdout(args: &[&str]) -> Vec<u8> {
    let out = bias_output(args);
    assert!(
        out.status.success(),
        "bias {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The stdout of `bias args` as JSON, asserting it exits 0.
#[track_caller]
pub fn bias_json(args: &[&str]) -> Value {
    serde_json::from_slice(&bias_stdout(args)).unwrap()
}
