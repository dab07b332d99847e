//! `bias compare`: models compared on the same pairs, every difference with a paired interval, a
//! paired test and Holm across the family (`bias_robust::compare`).

use std::io::Write;
use std::path::PathBuf;

use bias_core::ScoreSlice;
use bias_metrics::{BootstrapOptions, PairedOptions, Rounding};
use bias_robust::compare::{compare_models, CompareOptions, ModelComparison};
use clap::Args;
use serde::Serialize;

use crate::commands::measure::{p_cell, MeasureSettings, TestSettings};
use crate::error::CliError;
use crate::output::{fixed, write_json, Format, Grid};
use crate::tables::read_all_slices;

/// Arguments of `bias compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Score tables of two or more models on the same pairs (one file per model, or several
    /// models in one file); every (data set, scorer) of the baseline is compared.
    #[arg(long, required = true, num_args = 1..)]
    scores: Vec<PathBuf>,
    /// Model A of every comparison (its `model` column); default: the first model met.
    #[arg(long)]
    baseline: Option<String>,
    /// Only the rows of this scorer.
    #[arg(long)]
    scorer: Option<String>,
    #[command(flatten)]
    settings: MeasureSettings,
    #[command(flatten)]
    tests: TestSettings,
    /// Replicates of the paired bootstrap (the same resampled pairs for both models;
    /// stratified by bias type).
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Confidence level of the interval.
    #[arg(long, default_value_t = 0.95)]
    level: f64,
    /// Seed of the bootstrap and of the permutation test.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// One row of the output.
#[derive(Debug, Serialize)]
struct Row<'a> {
    dataset: &'a str,
    scorer: &'a str,
    model_a: &'a str,
    model_b: &'a str,
    measure: &'a str,
    bias_type: &'a str,
    n: usize,
    value_a: f64,
    value_b: f64,
    difference: f64,
    ci_low: f64,
    ci_high: f64,
    level: f64,
    p_value: f64,
    p_adjusted: f64,
    significant: bool,
    test: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    discordant: Option<[u64; 2]>,
    correction: &'a str,
    alpha: f64,
    family_size: usize,
}

impl CompareArgs {
    fn options(&self) -> CompareOptions {
        CompareOptions {
            paired: PairedOptions {
                bootstrap: BootstrapOptions {
                    replicates: self.bootstrap,
                    level: self.level,
                    seed: self.seed,
                    stratified: true,
                },
                permutation: self.tests.permutation(self.seed),
            },
            family: self.tests.family(),
            baseline: self.baseline.clone(),
        }
    }
}

/// Runs `bias compare`.
pub fn run(args: &CompareArgs, out: &mut impl Write) -> Result<(), CliError> {
    let slices: Vec<ScoreSlice> = read_all_slices(&args.scores, args.scorer.as_deref())?
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    let specs: Vec<_> = args
        .settings
        .measures
        .iter()
        .map(|&m| args.settings.configure(m, Rounding::None))
        .collect();
    let comparisons = compare_models(&slices, &specs, None, &args.options())?;
    let family = args.tests.family();
    let rows: Vec<Row<'_>> = comparisons.iter().map(row).collect();
    match args.format {
        Format::Json => write_json(&rows, out),
        Format::Csv => grid(&rows, true).write_csv(out),
        Format::Table => {
            grid(&rows, false).write_table(out)?;
            let mut seen: Vec<(&str, usize)> = Vec::new();
            for r in &rows {
                if !seen.contains(&(r.dataset, r.family_size)) {
                    seen.push((r.dataset, r.family_size));
                }
            }
            for (dataset, size) in seen {
                writeln!(out, "`{dataset}`: * = {}.", family.describe(size))?;
            }
            writeln!(
                out,
                "difference = B − A; interval: paired percentile bootstrap ({} replicates, {} %), \
                 the same resampled pairs for both models.",
                args.bootstrap,
                args.level * 100.0
            )?;
            let mut tests = Vec::new();
            for c in &comparisons {
                if !tests.contains(&c.difference.test) {
                    tests.push(c.difference.test);
                }
            }
            for t in tests {
                writeln!(out, "{}: {}.", t.name(), t.describe())?;
            }
            Ok(())
        }
    }
}

fn row(c: &ModelComparison) -> Row<'_> {
    let d = &c.difference;
    Row {
        dataset: &c.dataset,
        scorer: &c.scorer,
        model_a: &c.model_a,
        model_b: &c.model_b,
        measure: &d.measure,
        bias_type: d.bias_type.as_ref().map_or("all", |t| t.as_str()),
        n: d.n,
        value_a: d.value_a,
        value_b: d.value_b,
        difference: d.difference,
        ci_low: d.interval.lower,
        ci_high: d.interval.upper,
        level: d.level,
        p_value: d.p_value,
        p_adjusted: c.p_adjusted,
        significant: c.significant,
        test: d.test.name(),
        discordant: d.discordant,
        correction: c.family.correction.name(),
        alpha: c.family.alpha,
        family_size: c.family_size,
    }
}

fn grid(rows: &[Row<'_>], csv: bool) -> Grid {
    let mut header = vec![
        "dataset",
        "scorer",
        "model_a",
        "model_b",
        "measure",
        "bias_type",
        "n",
        "value_a",
        "value_b",
        "difference",
        "ci_low",
        "ci_high",
        "p_value",
        "p_adjusted",
        "significant",
        "test",
    ];
    if csv {
        header.extend(["correction", "alpha", "family_size"]);
    }
    let mut g = Grid::new(header);
    let p = |x: f64| if csv { x.to_string() } else { p_cell(x) };
    let v = |x: f64| if csv { x.to_string() } else { fixed(x, 2) };
    for r in rows {
        let mut cells = vec![
            r.dataset.to_owned(),
            r.scorer.to_owned(),
            r.model_a.to_owned(),
            r.model_b.to_owned(),
            r.measure.to_owned(),
            r.bias_type.to_owned(),
            r.n.to_string(),
            v(r.value_a),
            v(r.value_b),
            v(r.difference),
            v(r.ci_low),
            v(r.ci_high),
            p(r.p_value),
            p(r.p_adjusted),
            match (csv, r.significant) {
                (true, s) => s.to_string(),
                (false, true) => "*".to_owned(),
                (false, false) => String::new(),
            },
            r.test.to_owned(),
        ];
        if csv {
            cells.extend([
                r.correction.to_owned(),
                r.alpha.to_string(),
                r.family_size.to_string(),
            ]);
        }
        g.push(cells);
    }
    g
}
