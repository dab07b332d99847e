//! The paraphrase-robustness study end to end ("an empirical study on log-likelihood MLM
//! scoring … sensitive to the choice of contextual words", §2): every table and figure of the
//! paper over the models given, through the same library function as `bias reproduce
//! paraphrase` (`bias_robust::reproduce::reproduce(Paper::Paraphrase, …)`), then a summary.
//!
//! ```sh
//! cargo run --release -p bias-plm --example paraphrase_agreement -- \
//!     [--model DIR]... [--out DIR] [--max-pairs N] [--data-dir DIR] [--threads N]
//! ```
//!
//! Each model scores the shipped paraphrase set once (the first 100 CrowS-Pairs pairs with 3 to
//! 5 hand-written paraphrases each, 474 pairs: `bias_robust::paraphrase::crows_pairs_first100`),
//! and the paper's scorer, CPS, gives each pair's MDIFF. Written to `--out` (default
//! `target/paraphrase-reproduction`): Table 1 (pairs per bias type), Table 2 (MDIFF of the
//! "attacked / assaulted / ambushed" example per model), Figure 1 (an original and its
//! paraphrases), Figures 2–4 (originals whose paraphrases fully agree, per model and per bias
//! type; MDIFF of every pair per model) and `analysis-2.2` (MPER_AGREE per model and bias
//! type, the paper's §2.2 numbers), with `index.html`. The summary printed here is Table 2 and
//! the overall rows of `analysis-2.2`.
//!
//! `--model` may be repeated (the paper compares five models). The default model is
//! `data/demo-mlm`, the small demonstration masked LM that `make demo` builds; without it the
//! example says so and falls back to `fixtures/models/bert`, a tiny *random* checkpoint whose
//! numbers mean nothing. Pass any Hugging Face folders (`config.json`, `model.safetensors`,
//! `tokenizer.json`). Relative paths are tried from the current directory, then from the
//! repository root. `--max-pairs N` scores only the leading whole groups within N pairs (a quick
//! check). `--pairs FILE` (another pair file) is `bias robust paraphrase --model DIR --pairs
//! FILE`'s job.

use std::error::Error;
use std::path::PathBuf;
use std::time::Instant;

use bias_core::StudyModel;
use bias_plm::{DeviceSpec, LanguageModel, StudiedLm};
use bias_robust::reproduce::{reproduce, Paper, Reproduction, Study};

#[path = "common/mod.rs"]
mod common;
use common::{default_model, resolve};

const USAGE: &str = "usage: paraphrase_agreement [--model DIR]... [--out DIR] [--max-pairs N] \
                     [--data-dir DIR] [--threads N]";

fn main() -> Result<(), Box<dyn Error>> {
    let mut model_dirs: Vec<PathBuf> = Vec::new();
    let mut out_dir = PathBuf::from("target/paraphrase-reproduction");
    let mut data_dir = PathBuf::from("data");
    let mut max_pairs: Option<usize> = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--model" | "--models" => model_dirs.push(value()?.into()),
            "--out" => out_dir = value()?.into(),
            "--data-dir" => data_dir = value()?.into(),
            "--max-pairs" => max_pairs = Some(value()?.parse()?),
            "--threads" => tch::set_num_threads(value()?.parse::<i32>()?.max(1)),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}").into()),
        }
    }
    if model_dirs.is_empty() {
        model_dirs.push(default_model());
    }
    let started = Instant::now();
    let mut models: Vec<Box<dyn StudyModel>> = Vec::new();
    for dir in model_dirs {
        let lm = LanguageModel::open(resolve(dir), DeviceSpec::Auto, tch::Kind::Float)?;
        models.push(Box::new(StudiedLm::new(lm)));
    }
    let scores = out_dir.join("scores");
    let mut study = Study::new(models, resolve(data_dir), &scores)?.with_max_pairs(max_pairs);
    let mut out = Reproduction::create(Paper::Paraphrase, &out_dir)?;
    let result = reproduce(Paper::Paraphrase, &mut study, &mut out);
    let artifacts = out.finish()?;
    result?;
    println!(
        "# {} — {} model(s): {} ({:.1} s)\n",
        Paper::Paraphrase.citation(),
        study.len(),
        study.model_names().join(", "),
        started.elapsed().as_secs_f64()
    );
    for a in &artifacts {
        println!("- {} ({}): {}", a.id, a.status.label(), a.title);
    }
    for id in ["table-2", "analysis-2.2"] {
        let path = out_dir.join(format!("{id}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let json: serde_json::Value = serde_json::from_str(&text)?;
        println!("\n## {id}: {}\n", json["title"].as_str().unwrap_or(""));
        let table = &json["table"];
        let columns: Vec<&str> = table["columns"]
            .as_array()
            .map(|c| c.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        println!("| {} |", columns.join(" | "));
        println!("|{}", "---|".repeat(columns.len()));
        for row in table["rows"].as_array().into_iter().flatten() {
            if id == "analysis-2.2" && row["bias type"] != "all" {
                continue;
            }
            let cells: Vec<String> = columns
                .iter()
                .map(|c| match &row[*c] {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => "–".into(),
                    v if v.is_f64() => {
                        let decimals = if c.ends_with('%') { 1 } else { 4 };
                        format!("{:.*}", decimals, v.as_f64().unwrap_or(f64::NAN))
                    }
                    v => v.to_string(),
                })
                .collect();
            println!("| {} |", cells.join(" | "));
        }
    }
    println!("\nindex: {}", out_dir.join("index.html").display());
    Ok(())
}
