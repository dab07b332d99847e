//! Kaneko & Bollegala (2022), "Unmasking the Mask – Evaluating Social Biases in Masked Language
//! Models" (AAAI), end to end: every table and figure of the paper over the models given,
//! through the same library function as `bias reproduce kaneko2022`
//! (`bias_papers::reproduce_kaneko2022`), then a summary.
//!
//! ```sh
//! cargo run --release -p bias-examples --example kaneko2022_aul_aula -- \
//!     [--model DIR]... [--out DIR] [--max-pairs N] [--data-dir DIR] [--threads N] \
//!     [--pairs-in-n all|scored] [--label-rule matching|any]
//! ```
//!
//! Each model scores CrowS-Pairs and StereoSet (intrasentence dev) once with SSS, CPS, AUL,
//! AULA and the all-masked baseline. Written to `--out` (default
//! `target/kaneko2022-reproduction`), numbered as in the paper: Table 1 (token-prediction
//! accuracy of CPS, AUL (CP), SSS, AUL (SS), with McNemar's marks), Table 2 (on substitute data:
//! wordfreq's frequencies and the words CrowS-Pairs modifies; out of reach without
//! `data/wordfreq`), Table 3 (bias scores of the advantaged and
//! disadvantaged groups under All Masked, AUL, AULA), Table 4 (accuracy on shuffled and unrelated
//! sentences), Table 5 (the bias scores of Eq. 6), Figure 1 (ROC of each scorer against the
//! CrowS-Pairs human annotations, with `figure-1-auc`), and the count of StereoSet items whose
//! candidates have equal subtoken counts, with `index.html`. The summary printed here is Tables
//! 5 and 3 and the AUCs of Figure 1.
//!
//! `--pairs-in-n` chooses N of Eq. (6): `all` (default; the paper and the authors' code count
//! pairs a scorer leaves out, identical tokenisations and SSS without a modified token, as not
//! stereotypical) or `scored`. `--label-rule` chooses which annotations make a pair "biased" in
//! Figure 1: `matching` (default; the paper: ≥ 3 validators naming the pair's bias type) or `any`
//! (the authors' preprocess.py: ≥ 3 non-empty annotations).
//!
//! `--model` may be repeated (the paper compares BERT, RoBERTa and ALBERT). The default model is
//! `data/demo-mlm`, the small demonstration masked LM that `make demo` builds (it shows the
//! pipeline on a model that predicts words, not the biases of a real one); without it the
//! example says so and falls back to `fixtures/models/bert`, a tiny *random* checkpoint whose
//! numbers mean nothing. Pass Hugging Face folders (`config.json`, `model.safetensors`,
//! `tokenizer.json`), e.g. `bert-base-cased`, `roberta-large`, `albert-large-v2`, to reproduce
//! the paper. Relative paths are tried from the current directory, then from the repository
//! root. `--max-pairs N` studies only the first N pairs of each data set (a quick check).

use std::error::Error;
use std::path::PathBuf;
use std::time::Instant;

use bias_metrics::PairsInN;
use bias_papers::{reproduce_kaneko2022, Kaneko2022Options, Paper, Reproduction, Study};
use bias_plm::{DeviceSpec, LanguageModel, ScoringOptions, StudiedLm};
use bias_robust::LabelRule;

#[path = "common/mod.rs"]
mod common;
use common::{default_model, resolve};

const USAGE: &str = "usage: kaneko2022_aul_aula [--model DIR]... [--out DIR] [--max-pairs N] \
                     [--data-dir DIR] [--threads N] [--pairs-in-n all|scored] \
                     [--label-rule matching|any]";

fn main() -> Result<(), Box<dyn Error>> {
    let mut model_dirs: Vec<PathBuf> = Vec::new();
    let mut out_dir = PathBuf::from("target/kaneko2022-reproduction");
    let mut data_dir = PathBuf::from("data");
    let mut max_pairs: Option<usize> = None;
    let mut options = Kaneko2022Options::default();
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
            "--pairs-in-n" => {
                options.pairs_in_n = match value()?.as_str() {
                    "all" => PairsInN::All,
                    "scored" => PairsInN::Scored,
                    other => return Err(format!("--pairs-in-n {other:?}\n{USAGE}").into()),
                }
            }
            "--label-rule" => {
                options.label_rule = match value()?.as_str() {
                    "matching" => LabelRule::MatchingBiasType,
                    "any" => LabelRule::AnyAnnotation,
                    other => return Err(format!("--label-rule {other:?}\n{USAGE}").into()),
                }
            }
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
    let mut models = Vec::new();
    for dir in model_dirs {
        let lm = LanguageModel::open(resolve(dir), DeviceSpec::Auto, tch::Kind::Float)?;
        // The scorer conventions of the authors' evaluate.py (matrix SSS, CPS rounded), as
        // `bias reproduce kaneko2022` uses by default.
        let options =
            ScoringOptions::default().with_conventions(Paper::Kaneko2022.scoring_conventions());
        models.push(StudiedLm::new(lm).with_options(options));
    }
    let scores = out_dir.join("scores");
    let mut study = Study::new(models, resolve(data_dir), &scores)?.with_max_pairs(max_pairs);
    let mut out = Reproduction::create(Paper::Kaneko2022, &out_dir)?;
    let result = reproduce_kaneko2022(&mut study, &mut out, options);
    let artifacts = out.finish()?;
    result?;
    println!(
        "# {} — {} model(s): {} ({:.1} s)\n",
        Paper::Kaneko2022.citation(),
        study.len(),
        study.model_names().join(", "),
        started.elapsed().as_secs_f64()
    );
    for a in &artifacts {
        println!("- {} ({}): {}", a.id, a.status.label(), a.title);
    }
    for id in ["table-5", "table-3", "figure-1-auc"] {
        let path = out_dir.join(format!("{id}.md"));
        if let Ok(text) = std::fs::read_to_string(&path) {
            println!("\n{text}");
        }
    }
    println!("index: {}", out_dir.join("index.html").display());
    Ok(())
}
