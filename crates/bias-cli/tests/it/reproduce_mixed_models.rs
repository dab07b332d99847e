//! `bias reproduce kaneko2022` on a masked and a causal LM: the token-prediction tables (Tables 1
//! and 4 of Kaneko & Bollegala 2022, which need a masked LM) leave the causal one out and say so,
//! instead of failing the whole reproduction.

use std::path::PathBuf;

use serde_json::Value;

use bias_testkit::root;
use bias_testkit::Run;

fn json(path: PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn a_causal_model_is_left_out_of_the_token_tables_with_a_note() {
    let out = std::env::temp_dir().join(format!("bias-repro-mixed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::process::Command::new(env!("CARGO_BIN_EXE_bias"))
        .current_dir(root())
        .args(["reproduce", "kaneko2022", "--models"])
        .args(["fixtures/models/bert", "fixtures/models/gpt2"])
        .args(["--max-pairs", "12", "--device", "cpu", "--out"])
        .arg(out.join("kaneko2022"))
        .succeeds();
    for id in ["table-1", "table-4"] {
        let t = json(out.join(format!("kaneko2022/{id}.json")));
        let first = t["table"]["columns"][0].as_str().unwrap();
        let models: Vec<&str> = t["table"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[first].as_str().unwrap())
            // The paper's own rows beside ours.
            .filter(|m| !m.starts_with("paper: "))
            .collect();
        assert_eq!(models, ["bert"], "{id}");
        let notes = t["table"]["notes"].as_array().unwrap();
        assert!(
            notes
                .iter()
                .any(|n| n.as_str().unwrap().starts_with("Left out: gpt2 ")),
            "{id}: {notes:?}"
        );
    }
    let index = json(out.join("kaneko2022/index.json"));
    assert_eq!(index["models"], serde_json::json!(["bert", "gpt2"]));
    let _ = std::fs::remove_dir_all(&out);
}

/// kaneko2023 fine-tunes its models and schroeder2024 embeds with their encoders: a causal LM in
/// the list is refused before anything is scored, naming it (bias_papers::reproduce_paper, the
/// one entry point of the CLI and bias_lm).
#[test]
fn the_masked_only_papers_refuse_a_causal_model_by_name() {
    for paper in ["kaneko2023", "schroeder2024"] {
        let out =
            std::env::temp_dir().join(format!("bias-repro-causal-{paper}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_bias"))
            .current_dir(root())
            .args(["reproduce", paper, "--models"])
            .args(["fixtures/models/bert", "fixtures/models/gpt2"])
            .args(["--max-pairs", "4", "--device", "cpu", "--out"])
            .arg(out.join(paper))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{paper}: {err}");
        assert!(
            err.contains(&format!("{paper} studies masked LMs"))
                && err.contains("gpt2 is a causal LM"),
            "{paper}: {err}"
        );
        assert!(!out.join("scores").exists(), "{paper}: nothing is scored");
        let _ = std::fs::remove_dir_all(&out);
    }
}
