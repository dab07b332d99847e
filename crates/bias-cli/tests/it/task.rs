//! `bias task bbq|winogender|stereoset` and `--dataset winobias-*` on the tiny fixtures: each
//! prints its table with the direction line, writes its JSON, resumes from its log without
//! scoring again, and equals the library's numbers (which tests/it/lm_eval_tasks.rs and
//! tests/it/stereoset_full.rs check against lm-evaluation-harness and StereoSet's code).

use crate::support::bias;
use std::path::PathBuf;

use serde_json::Value;

use bias_testkit::Run;
use bias_testkit::{data_dir, fixture_model as model};

fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("task-{name}"))
}

/// `bias task KIND --model fixtures/models/MODEL --data-dir data --device cpu` and then `extra`.
fn task_args(kind: &str, m: &str, extra: &[&str]) -> Vec<String> {
    let (m, d) = (model(m), data_dir());
    let common = [
        "task",
        kind,
        "--model",
        &m,
        "--data-dir",
        &d,
        "--device",
        "cpu",
    ];
    common.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// [`run`] of [`task_args`].
fn task(kind: &str, m: &str, extra: &[&str]) -> String {
    run(&task_args(kind, m, extra))
}

fn run(args: &[impl AsRef<std::ffi::OsStr> + std::fmt::Debug]) -> String {
    let out = bias().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn bbq_prints_both_definitions_with_directions_and_resumes() {
    let dir = scratch("bbq");
    let out = dir.display().to_string();
    let args = task_args(
        "bbq",
        "gpt2",
        &[
            "--categories",
            "Age,SES",
            "--per-category",
            "6",
            "--chunk",
            "4",
            "--out",
            &out,
        ],
    );
    let text = run(&args);
    assert!(
        text.contains("lm-evaluation-harness's `bbq` task"),
        "{text}"
    );
    assert!(text.contains("BBQ_calculate_bias_score.R"), "{text}");
    assert_eq!(text.matches("Direction:").count(), 2, "{text}");
    let log = std::fs::read_to_string(dir.join("bbq.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1 + 12, "a header and 12 examples");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bbq.json")).unwrap()).unwrap();
    assert_eq!(json["examples"], 12);
    assert_eq!(json["lm_eval"]["n"], 12);
    // Every defined bias score, overall and per category, and every row of the authors'
    // tables has an interval and a p (issue 35).
    let stats = &json["statistics"];
    for (category, cells) in stats["lm_eval"].as_object().unwrap() {
        for (i, c) in cells.as_array().unwrap().iter().enumerate() {
            let defined = if i == 0 {
                category == "all" && !json["lm_eval"]["amb_bias_score"].is_null()
                    || !json["lm_eval"]["by_category"][category]["ambiguous"].is_null()
            } else {
                category == "all" && !json["lm_eval"]["disamb_bias_score"].is_null()
                    || !json["lm_eval"]["by_category"][category]["disambiguated"].is_null()
            };
            assert_eq!(!c.is_null(), defined, "{category} {i}: {c}");
            if defined {
                assert!(
                    c["verdict"]["p_value"].as_f64().unwrap() <= 1.0,
                    "{category}"
                );
                assert_eq!(c["test"], "binomial");
            }
        }
    }
    assert_eq!(
        stats["lm_eval"].as_object().unwrap().len(),
        3,
        "all, Age, SES"
    );
    let authors = json["authors"].as_array().unwrap();
    assert_eq!(stats["authors"].as_array().unwrap().len(), authors.len());
    for (row, st) in authors.iter().zip(stats["authors"].as_array().unwrap()) {
        assert_eq!(row["bias_score"].is_null(), st.is_null(), "{row}");
    }
    assert!(
        text.contains("p (adjusted p): the exact two-sided binomial"),
        "{text}"
    );
    // A second run reads every example from the log: same output, log untouched.
    assert_eq!(run(&args), text);
    assert_eq!(std::fs::read_to_string(dir.join("bbq.jsonl")).unwrap(), log);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn winogender_prints_every_task() {
    let text = task("winogender", "llama", &[]);
    for task in [
        "winogender_all",
        "winogender_male",
        "winogender_female",
        "winogender_neutral",
        "winogender_gotcha",
        "winogender_gotcha_male",
        "winogender_gotcha_female",
    ] {
        assert!(text.contains(&format!("| {task} ")), "{task}: {text}");
    }
    assert!(text.contains("| 720 "), "{text}");
    assert!(text.contains("Direction:"), "{text}");
    // Every row has a p (issue 35): seven tasks, each with `p (adjusted p)`.
    let rows = text.lines().filter(|l| l.starts_with("| winogender_"));
    assert_eq!(
        rows.filter(|l| l.trim_end().ends_with(") |") && l.contains(" ("))
            .count(),
        7,
        "{text}"
    );
}

#[test]
fn stereoset_on_a_masked_lm_gives_both_tasks_as_json() {
    let text = task(
        "stereoset",
        "bert",
        &["--split", "test", "--limit", "8", "--json"],
    );
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["split"], "test");
    assert_eq!(json["family"], "masked");
    for task in ["intrasentence", "intersentence"] {
        assert_eq!(json["scores"][task]["overall"]["n_items"], 8, "{task}");
    }
    assert_eq!(json["scores"]["overall"]["n_items"], 16);
    assert_eq!(json["intersentence"], "conditional");
    // Every row (each task's domains and overall, and both tasks) has intervals and a p.
    let rows = json["statistics"].as_array().unwrap();
    let domains = |task: &str| json["scores"][task]["by_domain"].as_object().unwrap().len();
    assert_eq!(
        rows.len(),
        domains("intrasentence") + domains("intersentence") + 3
    );
    for r in rows {
        let p = r["verdict"]["p_value"].as_f64().unwrap();
        assert!(p > 0.0 && p <= 1.0, "{r}");
        let ss = &r["intervals"]["ss"];
        assert!(
            ss["lower"].as_f64().unwrap() <= ss["upper"].as_f64().unwrap(),
            "{r}"
        );
    }
}

/// The checkpoint with BERT's next-sentence head reads it by default (StereoSet's evaluation of
/// BERT) and equals the library's run, which tests/it/stereoset_full.rs checks against
/// StereoSet's own code; `conditional` is still there on request, and asking a checkpoint
/// without the head for it is an error that says what to do.
#[test]
fn stereoset_reads_the_next_sentence_head_where_the_checkpoint_has_one() {
    let args = |m: &str, extra: &[&str]| {
        let mut a = task_args("stereoset", m, &["--limit", "10", "--json"]);
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let json = |a: Vec<String>| -> Value { serde_json::from_str(&run(&a)).unwrap() };
    let head = json(args("bert-nsp", &[]));
    assert_eq!(head["intersentence"], "next-sentence-head");
    let conditional = json(args("bert-nsp", &["--intersentence", "conditional"]));
    assert_eq!(conditional["intersentence"], "conditional");
    assert_eq!(
        head["scores"]["intrasentence"], conditional["scores"]["intrasentence"],
        "the intrasentence task does not depend on the choice"
    );
    assert_ne!(
        head["scores"]["intersentence"],
        conditional["scores"]["intersentence"]
    );
    bias()
        .args(args("bert", &["--intersentence", "next-sentence-head"]))
        .fails_saying(&["cls.seq_relationship.weight", "--intersentence conditional"]);
}

#[test]
fn a_causal_model_is_required_for_bbq() {
    bias()
        .args(task_args("bbq", "bert", &[]))
        .fails_saying(&["a masked LM (bert)", "causal LM"]);
}

/// An answer of 60,000 characters (issue 40): refused before anything is scored, naming the
/// example and its file, not a request index of a chunk.
#[test]
fn an_over_long_bbq_answer_is_refused_naming_its_example_and_file() {
    let dir = scratch("bbq-long");
    let bbq = dir.join("data/bbq");
    std::fs::create_dir_all(&bbq).unwrap();
    let real = std::path::Path::new(&data_dir()).join("bbq");
    std::fs::copy(
        real.join("additional_metadata.csv"),
        bbq.join("additional_metadata.csv"),
    )
    .unwrap();
    let text = std::fs::read_to_string(real.join("Age.jsonl")).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .take(6)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[4]["ans0"] = Value::from("very ".repeat(12_000));
    let damaged: String = lines.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(bbq.join("Age.jsonl"), damaged).unwrap();
    let out_dir = dir.join("out");
    let out = bias()
        .args(["task", "bbq", "--model", &model("gpt2"), "--data-dir"])
        .arg(dir.join("data"))
        .args([
            "--device",
            "cpu",
            "--categories",
            "Age",
            "--chunk",
            "2",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    let id = lines[4]["example_id"].as_u64().unwrap();
    assert!(
        err.contains(&format!("BBQ example_id {id} of Age.jsonl"))
            && err.contains("a continuation must have between 1 and"),
        "{err}"
    );
    // Nothing was scored: the run log holds no document.
    let log = std::fs::read_to_string(out_dir.join("bbq.jsonl")).unwrap_or_default();
    assert!(log.lines().count() <= 1, "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn winobias_is_a_pair_data_set() {
    let text = run(&[
        "evaluate",
        "--model",
        &model("gpt2"),
        "--dataset",
        "winobias-type1-dev",
        "--data-dir",
        &data_dir(),
        "--device",
        "cpu",
        "--limit",
        "30",
        "--out",
        &scratch("winobias").join("t.csv").display().to_string(),
    ]);
    // The 30 pairs of type 1, dev, scored pro against anti, every measure per scorer.
    assert!(
        text.contains("| ll-sum  | indicator | gender    | 30 "),
        "{text}"
    );
    assert!(text.contains("| ll-mean | jss "), "{text}");
}

#[test]
fn bbq_shards_then_a_gathering_run_equal_one_run() {
    let one = scratch("bbq-one");
    let sharded = scratch("bbq-sharded");
    let args = |out: &str| {
        let shards = ["--categories", "Religion,SES", "--per-category", "5"];
        task_args(
            "bbq",
            "gpt2",
            &[&shards[..], &["--chunk", "2", "--out", out]].concat(),
        )
    };
    let (one_s, sharded_s) = (one.display().to_string(), sharded.display().to_string());
    let expected = run(&args(&one_s));
    for shard in ["1/3", "2/3", "3/3"] {
        let mut a = args(&sharded_s);
        a.extend(["--shard".to_owned(), shard.to_owned()]);
        let out = bias().args(&a).succeeds();
        assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("shard {shard}")));
    }
    assert!(!sharded.join("bbq.jsonl").exists());
    let gathered = bias().args(args(&sharded_s)).output().unwrap();
    assert!(gathered.status.success());
    assert!(String::from_utf8_lossy(&gathered.stderr)
        .contains("gathered 10 documents from 3 shard logs"));
    assert_eq!(String::from_utf8(gathered.stdout).unwrap(), expected);
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&sharded);
}

#[test]
fn the_report_gets_a_section_per_benchmark() {
    let dir = scratch("report");
    let tasks = dir.join("tasks");
    let (m, d) = (model("gpt2"), data_dir());
    let t = tasks.display().to_string();
    let bbq = ["--categories", "Age", "--per-category", "8", "--out", &t];
    task("bbq", "gpt2", &bbq);
    task("winogender", "gpt2", &["--out", &t]);
    task("stereoset", "gpt2", &["--limit", "6", "--out", &t]);
    let scores = dir.join("crows.csv").display().to_string();
    run(&[
        "score",
        "--model",
        &m,
        "--dataset",
        "crows-pairs",
        "--data-dir",
        &d,
        "--device",
        "cpu",
        "--limit",
        "300",
        "--out",
        &scores,
    ]);
    let report = dir.join("report").display().to_string();
    run(&[
        "report",
        "--scores",
        &scores,
        "--out",
        &report,
        "--data-dir",
        &d,
        "--repeats",
        "3",
        "--bootstrap",
        "20",
        "--tasks",
        &t,
    ]);
    let md = std::fs::read_to_string(dir.join("report/report.md")).unwrap();
    for needle in [
        "BBQ (Parrish et al. 2022)",
        "BBQ, gpt2: 8 examples",
        "the BBQ authors' script",
        "Winogender (Rudinger et al. 2018)",
        "| winogender_gotcha_female | 120 |",
        "StereoSet dev, gpt2",
        "Direction: SS 50 = no bias",
    ] {
        assert!(
            md.contains(needle),
            "{needle} missing from the report:\n{md}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--apply-chat-template` through the command line gives lm-eval's `--apply_chat_template`
/// metrics (the library comparison is tests/it/lm_eval_tasks.rs); a model without a template,
/// or a system instruction without one, is a usage error saying what to give.
#[test]
fn bbq_applies_the_models_chat_template() {
    let fixture = bias_testkit::json::at_root("fixtures/plm/lm_eval_bbq_chat_llama-served.json");
    let system = fixture["system_instruction"].as_str().unwrap();
    let per = fixture["per_category"].to_string();
    let chat = ["--apply-chat-template", "--system-instruction", system];
    let text = task(
        "bbq",
        "llama-served",
        &[&chat[..], &["--per-category", &per, "--json"]].concat(),
    );
    let json: Value = serde_json::from_str(&text).unwrap();
    for key in [
        "acc",
        "accuracy_amb",
        "accuracy_disamb",
        "amb_bias_score",
        "disamb_bias_score",
    ] {
        let (ours, theirs) = (
            json["lm_eval"][key].as_f64(),
            fixture["metrics"][key].as_f64(),
        );
        assert!(
            (ours.unwrap() - theirs.unwrap()).abs() < 1e-12,
            "{key}: {ours:?} {theirs:?}"
        );
    }
    bias()
        .args(task_args("bbq", "gpt2", &["--apply-chat-template"]))
        .fails_saying(&["has no chat_template", "--chat-template FILE"]);
    bias()
        .args(task_args("bbq", "gpt2", &["--system-instruction", "x"]))
        .fails_saying(&["--system-instruction needs --apply-chat-template"]);
}

/// `bias task bbq --generate` on the Llama fixture writes lm-eval's `bbq_generate` numbers
/// (fixtures/plm/lm_eval_bbq_generate_llama.json), keeps every generation in its log, and a
/// rerun reads them back instead of generating again.
#[test]
fn bbq_generate_writes_lm_evals_numbers_and_resumes_from_its_log() {
    let reference = bias_testkit::json::at_root("fixtures/plm/lm_eval_bbq_generate_llama.json");
    let dir = scratch("bbq-generate");
    let out = dir.display().to_string();
    let max = reference["max_gen_toks"].to_string();
    let args = task_args(
        "bbq",
        "llama",
        &[
            "--per-category",
            "24",
            "--generate",
            "--max-new-tokens",
            &max,
            "--out",
            &out,
        ],
    );
    let first = bias().args(&args).succeeds();
    let said = String::from_utf8(first.stderr).unwrap();
    assert!(said.contains("264 examples (0 read back"), "{said}");
    let report: Value = bias_testkit::json::read(&dir.join("bbq_generate.json"));
    assert_eq!(report["task"], "bbq_generate");
    let m = &reference["metrics"];
    for key in [
        "acc",
        "accuracy_amb",
        "accuracy_disamb",
        "amb_bias_score",
        "disamb_bias_score",
    ] {
        let (ours, theirs) = (report["lm_eval"][key].as_f64(), m[key].as_f64());
        assert!(
            (ours.unwrap() - theirs.unwrap()).abs() < 1e-12,
            "{key}: {ours:?} {theirs:?}"
        );
    }
    let log = std::fs::read_to_string(dir.join("bbq_generate.jsonl")).unwrap();
    let texts: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let docs = reference["documents"].as_array().unwrap();
    assert_eq!(texts.len(), docs.len());
    for (t, d) in texts.iter().zip(docs) {
        assert_eq!(t["text"], d["generated"]);
    }
    let named = report["answers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| !a["answer"].is_null());
    assert!(named.count() >= 7);
    let again = bias().args(&args).succeeds();
    let said = String::from_utf8(again.stderr).unwrap();
    assert!(said.contains("264 examples (264 read back"), "{said}");
    assert_eq!(
        std::fs::read_to_string(dir.join("bbq_generate.jsonl")).unwrap(),
        log
    );
}
