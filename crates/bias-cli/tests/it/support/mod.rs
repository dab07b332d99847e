//! Helpers shared by integration tests (not a test target of its own: Cargo only builds the
//! `.rs` files directly under `tests/` as tests).

pub mod browser;

use assert_cmd::Command;
use serde_json::Value;

/// The `bias` command of this build.
pub fn bias() -> Command {
    Command::cargo_bin("bias").unwrap()
}

/// `bias COMMAND --model <fixture ARCH> --dataset DATASET --data-dir <data> --device cpu`, for
/// the test to add its own arguments.
pub fn bias_on(command: &str, arch: &str, dataset: &str) -> Command {
    let mut cmd = bias();
    let (model, data) = (bias_testkit::fixture_model(arch), bias_testkit::data_dir());
    cmd.args([command, "--model", &model, "--dataset", dataset])
        .args(["--data-dir", &data, "--device", "cpu"]);
    cmd
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

/// A score table's `model` column, and its rows without that column.
pub fn rows_without_model(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let column = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "model")
        .unwrap();
    let mut models = Vec::new();
    let rows = reader
        .records()
        .map(|r| {
            let mut fields: Vec<String> = r.unwrap().iter().map(str::to_owned).collect();
            models.push(fields.remove(column));
            fields
        })
        .collect();
    (models, rows)
}

/// The `(scorer, measure)` of each entry of a JSON result's `measures`.
pub fn scorer_measures(v: &Value) -> Vec<(String, String)> {
    v["measures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["scorer"].as_str().unwrap().into(),
                m["measure"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// Whether a sentence holds a male and a female word of kaneko2023's lists (§3.1), classified
/// here on the lists as the paper gives them.
pub fn kaneko2023_genders(sentence: &str) -> (bool, bool) {
    let words = bias_data::corpus::GenderWords::kaneko2023();
    let ws: Vec<String> = sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    (
        ws.iter().any(|w| words.male().contains(w)),
        ws.iter().any(|w| words.female().contains(w)),
    )
}

/// `bias reproduce kaneko2022` on the BERT fixture with the first `max_pairs` pairs of `data`,
/// into `out` (returned), asserting it succeeds.
pub fn kaneko2022_on_bert(
    data: &std::path::Path,
    out: &std::path::Path,
    max_pairs: usize,
    extra: &[&str],
) -> std::path::PathBuf {
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_bias"))
        .args(["reproduce", "kaneko2022", "--models"])
        .arg(bias_testkit::root().join("fixtures/models/bert"))
        .args(["--max-pairs", &max_pairs.to_string(), "--data-dir"])
        .arg(data)
        .arg("--out")
        .arg(out)
        .args(extra)
        .status()
        .unwrap();
    assert!(status.success(), "{}", out.display());
    out.to_path_buf()
}
