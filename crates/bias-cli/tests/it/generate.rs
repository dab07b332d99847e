//! `bias generate` on the fixtures: one JSON line per prompt whose token ids are
//! `transformers`' `generate(do_sample=False)` (fixtures/plm/greedy_generation.json, written by
//! scripts/fixtures/greedy_generation.py), plain and under `--apply-chat-template`; a rerun
//! generates nothing again; bad input is named.

use std::path::Path;

use bias_testkit::{fixture_model as model, root, Run};
use serde_json::Value;

use crate::support::bias;

fn reference() -> Value {
    bias_testkit::json::at_root("fixtures/plm/greedy_generation.json")
}

/// The prompts of `cases` as a JSON-lines prompt file in `dir`.
fn prompt_file(dir: &Path, cases: &Value) -> String {
    let lines: Vec<String> = cases
        .as_array()
        .unwrap()
        .iter()
        .map(|c| serde_json::json!({ "prompt": c["prompt"] }).to_string() + "\n")
        .collect();
    let path = dir.join("prompts.jsonl");
    std::fs::write(&path, lines.concat()).unwrap();
    path.display().to_string()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn generate(m: &str, prompts: &str, out: &Path, extra: &[&str]) -> String {
    let o = out.display().to_string();
    let m = model(m);
    let mut args = vec![
        "generate",
        "--model",
        &m,
        "--prompts",
        prompts,
        "--max-new-tokens",
        "40",
        "--device",
        "cpu",
        "--out",
        &o,
    ];
    args.extend(extra);
    let done = bias().args(&args).succeeds();
    String::from_utf8(done.stderr).unwrap()
}

fn assert_matches(got: &[Value], cases: &Value, what: &str) {
    let cases = cases.as_array().unwrap();
    assert_eq!(got.len(), cases.len(), "{what}");
    for (g, c) in got.iter().zip(cases) {
        assert_eq!(g["prompt"], c["prompt"], "{what}");
        assert_eq!(g["token_ids"], c["token_ids"], "{what}: {}", c["prompt"]);
        assert_eq!(g["finish"], "length", "{what}");
        assert!(g["text"].is_string());
    }
}

#[test]
fn generate_writes_transformers_greedy_tokens_and_resumes() {
    let reference = reference();
    let dir = bias_testkit::scratch("generate-cli");
    let cases = &reference["families"]["gpt2"];
    let prompts = prompt_file(&dir, cases);
    let out = dir.join("gpt2.jsonl");
    let said = generate("gpt2", &prompts, &out, &["--chunk", "2"]);
    assert!(said.contains("5 prompts (0 resumed)"), "{said}");
    assert_matches(&lines(&out), cases, "gpt2");
    let before = std::fs::read(&out).unwrap();
    let said = generate("gpt2", &prompts, &out, &["--chunk", "2"]);
    assert!(said.contains("5 prompts (5 resumed)"), "{said}");
    assert_eq!(std::fs::read(&out).unwrap(), before);

    // Another token limit on the same output is refused, naming the file.
    let o = out.display().to_string();
    let m = model("gpt2");
    let refused = bias()
        .args([
            "generate",
            "--model",
            &m,
            "--prompts",
            &prompts,
            "--max-new-tokens",
            "8",
        ])
        .args(["--device", "cpu", "--out", &o])
        .fails();
    let e = String::from_utf8(refused.stderr).unwrap();
    assert!(e.contains("gpt2.jsonl: not resuming"), "{e}");
}

#[test]
fn generate_under_a_chat_template_equals_transformers_on_the_rendered_prompt() {
    let reference = reference();
    let dir = bias_testkit::scratch("generate-chat");
    let chat = &reference["chat"];
    let cases = &chat["cases"];
    let prompts = prompt_file(&dir, cases);
    let out = dir.join("chat.jsonl");
    generate(
        chat["model"].as_str().unwrap(),
        &prompts,
        &out,
        &["--apply-chat-template"],
    );
    assert_matches(&lines(&out), cases, "chat");
}

#[test]
fn a_masked_lm_or_a_bad_prompt_file_is_refused_by_name() {
    let dir = bias_testkit::scratch("generate-refused");
    let prompts = dir.join("p.jsonl");
    std::fs::write(&prompts, "{\"prompt\": \"a\"}\n{\"text\": \"b\"}\n").unwrap();
    let p = prompts.display().to_string();
    let o = dir.join("o.jsonl").display().to_string();
    let m = model("gpt2");
    let out = bias()
        .args(["generate", "--model", &m, "--prompts", &p, "--out", &o])
        .fails();
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(e.contains("p.jsonl, line 2"), "{e}");
    std::fs::write(&prompts, "{\"prompt\": \"a\"}\n").unwrap();
    let bert = root().join("fixtures/models/bert").display().to_string();
    let out = bias()
        .args(["generate", "--model", &bert, "--prompts", &p, "--out", &o])
        .fails();
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(e.contains("a masked LM (bert)"), "{e}");
}
