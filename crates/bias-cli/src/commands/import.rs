//! `bias import`: another tool's saved per-sample output turned into a score table, so that its
//! runs get this project's measures, intervals, robustness studies and report without running
//! the model again.

use std::io::Write;
use std::path::PathBuf;

use bias_metrics::lm_eval_crows;
use clap::{Args, Subcommand};
use serde::Serialize;

use crate::error::CliError;
use crate::output::{write_row, Format, TableRow};

/// What `bias import` reads.
#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// lm-evaluation-harness's `--log_samples` output of a CrowS-Pairs task
    /// (`samples_crows_pairs_*_<time>.jsonl`): one row per document, `sent_more` against
    /// `sent_less`, the harness's log-likelihoods as the `ll-sum` scores.
    LmEval(LmEvalArgs),
}

/// Arguments of `bias import lm-eval`.
#[derive(Debug, Args)]
pub struct LmEvalArgs {
    /// The samples file lm-eval wrote (`--log_samples --output_path DIR`).
    samples: PathBuf,
    /// The score table to write (CSV), for `bias measure`, `bias robust`, `bias report`, ...
    #[arg(long)]
    out: PathBuf,
    /// The `model` column (default: the name of the folder lm-eval wrote the samples in, which
    /// it names after the model).
    #[arg(long)]
    model_name: Option<String>,
    /// The `dataset` column.
    #[arg(long, default_value = "crows-pairs")]
    dataset: String,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(Debug, Serialize)]
struct Imported {
    out: String,
    documents: usize,
    model: String,
    pct_stereotype: f64,
    likelihood_diff: f64,
}

impl ImportCommand {
    /// Runs the import.
    pub fn run(&self, out: &mut impl Write) -> Result<(), CliError> {
        match self {
            ImportCommand::LmEval(a) => lm_eval(a, out),
        }
    }
}

/// Reads the samples, writes the table, and prints lm-eval's two aggregates recomputed from it.
fn lm_eval(a: &LmEvalArgs, out: &mut impl Write) -> Result<(), CliError> {
    let model = a.model_name.clone().unwrap_or_else(|| {
        a.samples.parent().and_then(|p| p.file_name()).map_or_else(
            || "lm-eval".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        )
    });
    let table = bias_data::read_lm_eval_samples(&a.samples, &a.dataset, &model)?;
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| bias_core::CoreError::io(dir, e))?;
    }
    table.write_csv_path(&a.out)?;
    let crows = lm_eval_crows(&table)?;
    let imported = Imported {
        out: a.out.display().to_string(),
        documents: crows.n,
        model,
        pct_stereotype: crows.pct_stereotype,
        likelihood_diff: crows.likelihood_diff,
    };
    write_row(a.format, out, &imported)
}

impl TableRow for Imported {
    const HEADER: &'static str = "out | documents | model | pct_stereotype | likelihood_diff";

    fn cells(&self) -> Vec<String> {
        vec![
            self.out.clone(),
            self.documents.to_string(),
            self.model.clone(),
            format!("{}", self.pct_stereotype),
            format!("{}", self.likelihood_diff),
        ]
    }
}
