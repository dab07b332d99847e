//! kaneko2023 in miniature: bias-controlled fine-tuning (Kaneko, Bollegala & Okazaki 2023, §2)
//! and the meta-evaluation of intrinsic gender-bias measures by their rank correlation with the
//! rate of bias r (§3.3, Table 1), with the he/she probe (§3.4, Figure 2) and the mask
//! probabilities of one CrowS-Pairs sentence (Figure 3), on a reduced grid. It calls the library
//! function `bias reproduce kaneko2023` calls (`bias_papers::reproduce_kaneko2023`)
//! and prints a summary.
//!
//! ```sh
//! cargo run --release -p bias-examples --example kaneko2023_bias_controlled -- \
//!     [--model DIR]... [--data-dir data] [--out out/kaneko2023_example] \
//!     [--sentences 320] [--max-pairs N] [--score male|stereo] [--threads N]
//! ```
//!
//! For each model and each of the two substitute corpora (BUG's Wikipedia and PubMed sentences,
//! standing in for News Crawl and BookCorpus), sentences with male or with female words of §3.1's
//! lists (never both) are mined and balanced; for each rate r ∈ {0, 0.5, 1} a set of
//! `--sentences` of them, a share r male, fine-tunes one copy of the model with the masked-LM
//! objective (1 epoch, batch 32, learning rate 1e-4, 64 tokens, seed 0). Each copy scores the
//! CrowS-Pairs gender pairs with SSS, CPS, AUL and AULA (male-oriented by default; Appendix A's
//! stereotypical-vs-anti-stereotypical reading beside it), and gives TBS and the probes. Printed:
//! Table 1 (ρ per measure and corpus beside the AUC against human annotations), the order
//! comparison of §3.3 and every value per rate. With three rates ρ takes only a handful of values
//! (±1, ±0.5, 0): this walks through the method, it does not replicate the paper; the 11-rate
//! grid is `bias reproduce kaneko2023 --models DIR...` (see its `--kaneko2023-*` options).
//!
//! The default model is the demonstration masked LM built by `make demo` (`data/demo-mlm`),
//! else the tiny random `fixtures/models/bert` (which checks the pipeline only). Models are
//! saved under `--out` (`models/<model>/<corpus>/rate-0.50`, ...) and reused by a rerun with the
//! same settings. Relative paths are tried from the current directory, then from the repository
//! root.

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bias_core::TrainingOptions;
use bias_papers::{
    reproduce_kaneko2023, Kaneko2023Options, PairReading, Paper, Reproduction, Study,
};
use bias_plm::{DeviceSpec, MaskedLm, StudiedMlm};

#[path = "common/mod.rs"]
mod common;
use common::{default_model, resolve};

const USAGE: &str = "usage: kaneko2023_bias_controlled [--model DIR]... [--data-dir DIR] \
                     [--out DIR] [--sentences N] [--max-pairs N] [--score male|stereo] \
                     [--threads N]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let mut model_dirs: Vec<PathBuf> = Vec::new();
    let mut data_dir = PathBuf::from("data");
    let mut out_dir = PathBuf::from("out/kaneko2023_example");
    let mut max_pairs = None;
    let mut options = Kaneko2023Options {
        rates: vec![0.0, 0.5, 1.0],
        sentences: Some(320),
        training: TrainingOptions {
            epochs: 1,
            batch_size: 32,
            learning_rate: 1e-4,
            seed: 0,
            ..TrainingOptions::kaneko2023()
        },
        max_length: 64,
        bootstrap: 200,
        ..Kaneko2023Options::default()
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let number = |v: String| {
            v.parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{flag} needs a positive whole number, not {v:?}"))
        };
        match flag.as_str() {
            "--model" => model_dirs.push(value()?.into()),
            "--data-dir" => data_dir = value()?.into(),
            "--out" => out_dir = value()?.into(),
            "--sentences" => options.sentences = Some(number(value()?)?),
            "--max-pairs" => max_pairs = Some(number(value()?)?),
            "--score" => options.score = value()?.parse::<PairReading>()?,
            "--threads" => tch::set_num_threads(number(value()?)?.clamp(1, 1024) as i32),
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
    let out_dir = resolve(out_dir);
    let started = Instant::now();
    let mut models = Vec::new();
    for dir in model_dirs {
        let lm = MaskedLm::open(resolve(dir), DeviceSpec::Auto, tch::Kind::Float)?;
        models.push(StudiedMlm::new(lm));
    }
    let mut study =
        Study::new(models, resolve(data_dir), out_dir.join("scores"))?.with_max_pairs(max_pairs);
    let mut out = Reproduction::create(Paper::Kaneko2023, &out_dir)?;
    let result = reproduce_kaneko2023(&mut study, &mut out, &options);
    let artifacts = out.finish()?;
    result?;
    let t = &options.training;
    println!(
        "# {} — {} model(s): {}; rates {:?}, {} sentences per rate, {} epoch, batch {}, lr {:e}, \
         {} tokens, seed {} ({:.1} s)\n",
        Paper::Kaneko2023.citation(),
        study.len(),
        study.model_names().join(", "),
        options.rates,
        options.sentences.unwrap_or(bias_papers::PAPER_SENTENCES),
        t.epochs,
        t.batch_size,
        t.learning_rate,
        options.max_length,
        t.seed,
        started.elapsed().as_secs_f64()
    );
    for a in &artifacts {
        println!("- {} ({}): {}", a.id, a.status.label(), a.title);
    }
    for id in ["table-1", "analysis-3.3", "table-1-per-rate"] {
        if let Ok(text) = std::fs::read_to_string(out_dir.join(format!("{id}.md"))) {
            println!("\n{text}");
        }
    }
    println!("index: {}", out_dir.join("index.html").display());
    Ok(())
}
