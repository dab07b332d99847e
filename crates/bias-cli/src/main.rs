//! `bias`: measure social bias in language models, and test how far the measures can be trusted.
//!
//! The binary is thin: it parses arguments, reads files through `bias-data` / `bias-core`,
//! calls the library measures of `bias-metrics`, and prints tables (Markdown), JSON or CSV.
//!
//! ```text
//! bias evaluate --model path/to/bert-base-uncased --dataset crows-pairs --out out/bert_crows.csv
//! bias reproduce kaneko2022 --models path/to/bert-base-uncased --out out/kaneko2022
//! ```
//!
//! `bias reproduce` takes the five papers by key: `kaneko2022` (Kaneko & Bollegala 2022, AAAI),
//! `liu2024` (Liu 2024, AAAI), `paraphrase` (Kwon & Mihindukulasooriya 2022, TrustNLP),
//! `kaneko2023` (Kaneko, Bollegala & Okazaki 2023, EACL) and `schroeder2024` (Schröder, Schulz &
//! Hammer 2024, IJCNN); full citations in `bias_core::references` (`docs/references.md`).

mod chat_args;
mod choice;
mod commands;
mod data_args;
mod embed_source;
mod error;
mod model_args;
mod output;
mod progress;
mod tables;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands::data::DataCommand;
use crate::commands::import::ImportCommand;
use crate::commands::robust::RobustCommand;
use crate::commands::stats::StatsCommand;
use crate::commands::*;
use crate::error::CliError;

/// Measure social bias in language models, and how far the measurement can be trusted.
#[derive(Debug, Parser)]
#[command(name = "bias", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Inspect benchmark data sets (CrowS-Pairs, StereoSet, your own pairs).
    #[command(subcommand)]
    Data(DataCommand),
    /// Score a data set with a masked LM into a score table (resumable).
    Score(score::ScoreArgs),
    /// Score, then print the indicator, KLS and JSS of every scorer, overall and per bias type.
    Evaluate(evaluate::EvaluateArgs),
    /// Time the scorers on a model (sentences/s, forward passes, memory).
    Bench(bench::BenchArgs),
    /// Join the shards of a `bias score --shard I/N` run into the table one run writes.
    Merge(merge::MergeArgs),
    /// Bias measures (indicator, KLS, JSS) on a score table, each value with its test, its
    /// adjusted p and the deviation its pairs can detect.
    Measure(measure::MeasureArgs),
    /// Models compared on the same pairs: every measure's difference B − A with a paired
    /// bootstrap interval, a paired test (McNemar, sign-flip) and Holm across the family.
    Compare(compare::CompareArgs),
    /// How far a bias number can be trusted: sub-sampling, paraphrase, human agreement,
    /// correlation between measures.
    #[command(subcommand)]
    Robust(RobustCommand),
    /// Every table and figure of a paper (kaneko2022, liu2024, paraphrase, kaneko2023,
    /// schroeder2024) on the given models, numbered as in the paper, with an index of their status.
    Reproduce(Box<reproduce::ReproduceArgs>),
    /// An HTML report (and Markdown copy) with measures, figures and robustness analyses.
    Report(report::ReportArgs),
    /// Embedding measures (SAME, WEAT, gWEAT, DirectBias) on word vectors or a model.
    Embed(embed::EmbedArgs),
    /// Hard debiasing (Bolukbasi et al.) of word vectors.
    Debias(debias::DebiasArgs),
    /// Statistics on a score table.
    #[command(subcommand)]
    Stats(StatsCommand),
    /// Fine-tune a masked LM on a corpus (MLM objective; resumable).
    Finetune(finetune::FinetuneArgs),
    /// The bias-controlled meta-evaluation of kaneko2023: fine-tune one model per rate of male
    /// sentences, score each, and rank-correlate every measure with the rate.
    Controlled(Box<controlled::ControlledArgs>),
    /// A benchmark scored by continuations with a causal LM, as lm-evaluation-harness runs it:
    /// BBQ (with the BBQ authors' bias scores) or Winogender.
    #[command(subcommand)]
    Task(task::TaskCommand),
    /// Greedy continuations of a prompt file with a causal LM (local or served, plain or in its
    /// chat format), one JSON line per prompt (resumable).
    Generate(generate::GenerateArgs),
    /// Another tool's saved per-sample output as a score table: lm-evaluation-harness's
    /// `--log_samples` of its CrowS-Pairs tasks, re-scored without running the model again.
    #[command(subcommand)]
    Import(ImportCommand),
}

fn run(cli: Cli) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Data(c) => c.run(&mut out),
        Command::Score(a) => score::run(&a),
        Command::Evaluate(a) => evaluate::run(&a, &mut out),
        Command::Bench(a) => bench::run(&a, &mut out),
        Command::Measure(a) => measure::run(&a, &mut out),
        Command::Compare(a) => compare::run(&a, &mut out),
        Command::Merge(a) => merge::run(&a, &mut out),
        Command::Robust(c) => c.run(&mut out),
        Command::Report(a) => report::run(&a, &mut out),
        Command::Reproduce(a) => reproduce::run(&a, &mut out),
        Command::Embed(a) => embed::run(&a, &mut out),
        Command::Debias(a) => debias::run(&a, &mut out),
        Command::Stats(c) => c.run(&mut out),
        Command::Finetune(a) => finetune::run(&a, &mut out),
        Command::Controlled(a) => controlled::run(&a, &mut out),
        Command::Task(c) => task::run(&c),
        Command::Generate(a) => generate::run(&a),
        Command::Import(c) => c.run(&mut out),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`bias ... | head`) is the reader's choice, not a failure.
        Err(CliError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                eprintln!("  caused by: {s}");
                source = s.source();
            }
            if let Some(hint) = e.hint() {
                eprintln!("  hint: {hint}");
            }
            ExitCode::from(e.exit_code())
        }
    }
}
