//! A checkpoint whose weights hold NaN or inf (a diverged fine-tune, a half-precision overflow
//! saved to disk) is refused when it is scored: the error names the model, the data set, the
//! first pair and what to try, the command fails, and no score file is left. The checkpoints are
//! the tiny fixtures with one parameter overwritten in the safetensors file (byte surgery, so the
//! rest of the file is the fixture's own).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use bias_testkit::root;

fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("nonfinite-{name}"))
}

/// Copies the fixture `model` into `dir` with every float32 value of parameter `name` set to
/// `value`.
fn poisoned(model: &str, name: &str, value: f32, dir: &Path) -> PathBuf {
    let from = root().join("fixtures/models").join(model);
    let to = dir.join(format!("{model}-poisoned"));
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
    let file = to.join("model.safetensors");
    let mut bytes = std::fs::read(&file).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    let entry = &header[name];
    assert_eq!(entry["dtype"], "F32", "{name}");
    let offsets = entry["data_offsets"].as_array().unwrap();
    let (start, end) = (
        8 + n + offsets[0].as_u64().unwrap() as usize,
        8 + n + offsets[1].as_u64().unwrap() as usize,
    );
    for chunk in bytes[start..end].chunks_exact_mut(4) {
        chunk.copy_from_slice(&value.to_le_bytes());
    }
    std::fs::write(&file, bytes).unwrap();
    to
}

fn data_dir() -> String {
    root().join("data").display().to_string()
}

fn refused(model: &Path, dataset: &str, out: &Path) -> String {
    let output = Command::cargo_bin("bias")
        .unwrap()
        .args(["evaluate", "--model"])
        .arg(model)
        .args([
            "--dataset",
            dataset,
            "--data-dir",
            &data_dir(),
            "--device",
            "cpu",
        ])
        .args(["--limit", "20", "--out"])
        .arg(out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "scored a poisoned model: {err}");
    assert!(!out.exists(), "a score file was left: {}", out.display());
    let mut progress = out.as_os_str().to_owned();
    progress.push(".progress.json");
    assert!(!Path::new(&progress).exists(), "a progress file was left");
    err
}

#[test]
fn a_masked_lm_with_nan_weights_is_refused_and_leaves_no_score_file() {
    let dir = scratch("mlm");
    let model = poisoned(
        "bert",
        "bert.encoder.layer.1.output.dense.weight",
        f32::NAN,
        &dir,
    );
    let err = refused(&model, "crows-pairs", &dir.join("scores.csv"));
    assert!(
        err.contains("bert-poisoned")
            && err.contains("crows-pairs")
            && err.contains("pair 0")
            && err.contains("NaN")
            && err.contains("--dtype f32"),
        "{err}"
    );
}

#[test]
fn a_causal_lm_with_infinite_weights_is_refused_and_leaves_no_score_file() {
    let dir = scratch("causal");
    let model = poisoned("gpt2", "transformer.ln_f.weight", f32::INFINITY, &dir);
    let err = refused(&model, "stereoset", &dir.join("scores.csv"));
    assert!(
        err.contains("gpt2-poisoned") && err.contains("stereoset") && err.contains("not finite"),
        "{err}"
    );
}
