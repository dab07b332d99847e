//! `bias merge`: the shards of a sharded `bias score` run joined into the table one run writes.

use std::io::Write;
use std::path::PathBuf;

use bias_core::run::merge_shards;
use clap::Args;
use serde::Serialize;

use crate::error::CliError;
use crate::output::{write_row, Format, TableRow};

/// Arguments of `bias merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The merged score table to write (with a progress file recording a complete run).
    #[arg(long)]
    out: PathBuf,
    /// The shards' score tables (`bias score --shard I/N --out ...`), in any order.
    #[arg(required = true, num_args = 1..)]
    shards: Vec<PathBuf>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(Debug, Serialize)]
struct Merged<'a> {
    out: String,
    shards: usize,
    pairs: usize,
    skipped: usize,
    model: &'a str,
    dataset: &'a str,
    scorers: &'a [String],
}

/// Runs `bias merge`: checks that the shards are one run's and cover every pair once, then
/// writes the merged table.
pub fn run(a: &MergeArgs, out: &mut impl Write) -> Result<(), CliError> {
    let summary = merge_shards(&a.shards, &a.out)?;
    let p = &summary.progress;
    let merged = Merged {
        out: a.out.display().to_string(),
        shards: summary.shards,
        pairs: p.pairs_done,
        skipped: p.tally.skipped(),
        model: &p.fingerprint.model,
        dataset: &p.fingerprint.dataset,
        scorers: &p.fingerprint.scorers,
    };
    write_row(a.format, out, &merged)
}

impl TableRow for Merged<'_> {
    const HEADER: &'static str = "out | shards | pairs | skipped | model | dataset | scorers";

    fn cells(&self) -> Vec<String> {
        vec![
            self.out.clone(),
            self.shards.to_string(),
            self.pairs.to_string(),
            self.skipped.to_string(),
            self.model.to_owned(),
            self.dataset.to_owned(),
            self.scorers.join(","),
        ]
    }
}
