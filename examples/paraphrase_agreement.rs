//! The paraphrase-robustness study end to end: original pairs and their paraphrases scored with
//! AUL and CPS by a masked LM, then per scorer the agreement of each paraphrase's MBIAS with its
//! original's (MPER_AGREE), the share of groups whose paraphrases all agree (MAGREEMENT), and
//! the share of near ties (|MDIFF| < τ = 0.25), overall and per bias type.
//!
//! ```sh
//! cargo run --release -p bias-plm --example paraphrase_agreement -- \
//!     [--model DIR] [--pairs fixtures/paraphrase/pairs.csv] [--threads N]
//! ```
//!
//! The pair file needs a `group_id` column naming each pair's original (an original's
//! `group_id` is its own id). The default model is `data/demo-mlm`, the small demonstration
//! masked LM that `make demo` builds; without it the example says so and falls back to
//! `fixtures/models/bert`, a tiny *random* checkpoint that runs in a second but whose numbers
//! mean nothing. Pass any Hugging Face folder (`config.json`, `model.safetensors`,
//! `tokenizer.json`) with `--model`. Relative paths are tried from the current directory, then
//! from the repository root. `--data-dir` is accepted for symmetry with the other examples and
//! ignored.

use std::error::Error;
use std::path::PathBuf;
use std::time::Instant;

use bias_plm::{
    score_to_table, DeviceSpec, MaskedLanguageModel, PairScorer, PlmModel, PlmTokenizer,
    ScorerKind, ScoringOptions, SpecialIds,
};
use bias_robust::{paraphrase_agreement, AgreementSummary, ParaphraseOptions, DEFAULT_NEAR_TIE};

#[path = "common/mod.rs"]
mod common;
use common::{default_model, resolve};

const USAGE: &str =
    "usage: paraphrase_agreement [--model DIR] [--pairs FILE] [--data-dir DIR] [--threads N]";

const KINDS: [ScorerKind; 2] = [ScorerKind::Aul, ScorerKind::Cps];

fn row(label: &str, s: &AgreementSummary) -> String {
    format!(
        "| {label} | {} | {} | {}/{} | {:.3} | {}/{} | {:.3} | {:.3} |",
        s.groups,
        s.paraphrases,
        s.agreeing_paraphrases,
        s.paraphrases,
        s.mper_agree,
        s.agreeing_groups,
        s.groups,
        s.group_agree,
        s.near_tie_share
    )
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut model_dir: Option<PathBuf> = None;
    let mut pairs_path = PathBuf::from("fixtures/paraphrase/pairs.csv");
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--model" => model_dir = Some(value()?.into()),
            "--pairs" => pairs_path = value()?.into(),
            "--data-dir" => {
                value()?;
            }
            "--threads" => tch::set_num_threads(value()?.parse::<i32>()?.max(1)),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}").into()),
        }
    }
    let pairs_path = resolve(pairs_path);
    let model_dir = resolve(model_dir.unwrap_or_else(default_model));
    let data = bias_data::load_pairs(&pairs_path)?;
    let started = Instant::now();
    let model = PlmModel::load(&model_dir, DeviceSpec::Auto, tch::Kind::Float)?;
    let tok = PlmTokenizer::from_dir(&model_dir)?;
    let name = model_dir
        .canonicalize()?
        .file_name()
        .map_or("model".into(), |n| n.to_string_lossy().into_owned());
    let special = SpecialIds {
        mask: tok.mask_id()?,
        pad: tok.pad_id()?,
        max_tokens: model.config().max_tokens() as usize,
    };
    let mut scorer = PairScorer::new(
        &model,
        special,
        model.device(),
        &KINDS,
        ScoringOptions::default(),
    )?;
    let tokenize = |t: &str| tok.encode(t);
    let (table, tally) = score_to_table(&mut scorer, &tokenize, &data.pairs, &data.name, &name)?;
    for id in &tally.skipped_identical {
        eprintln!("pair {id} tokenises identically: skipped");
    }
    println!(
        "# Paraphrase agreement — model `{name}`, {} ({} pairs), scored in {:.2} s\n",
        pairs_path.display(),
        data.pairs.len(),
        started.elapsed().as_secs_f64()
    );

    let options = ParaphraseOptions {
        near_tie: DEFAULT_NEAR_TIE,
    };
    for kind in KINDS {
        let r = paraphrase_agreement(&table.for_scorer(kind.name()), &options)?;
        println!(
            "## {} (near tie: |MDIFF| < τ = {})\n",
            kind.name().to_uppercase(),
            r.near_tie
        );
        println!(
            "| bias type | groups | paraphrases | agreeing | MPER_AGREE | groups fully agreeing \
             | share | near-tie share |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (ty, s) in &r.by_type {
            println!("{}", row(&ty.to_string(), s));
        }
        println!("{}\n", row("**overall**", &r.overall));
    }
    Ok(())
}
