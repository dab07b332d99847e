//! `bias stats normality`: Shapiro–Wilk on each side's scores (liu2024, Normality Test).

use std::io::Write;
use std::path::PathBuf;

use bias_metrics::{normality_by_type, NormalityTest, Side};
use bias_report::report::format_p_value;
use clap::Args;
use serde::Serialize;

use crate::error::CliError;
use crate::output::{fixed, write_json, Format, Grid};
use crate::tables::read_all_slices;

/// Arguments of `bias stats normality`.
#[derive(Debug, Args)]
pub struct NormalityArgs {
    /// Score tables (CSV); each (dataset, scorer, model) slice is analysed.
    #[arg(long, required = true, num_args = 1..)]
    scores: Vec<PathBuf>,
    /// Only the rows of this scorer (default: every scorer).
    #[arg(long)]
    scorer: Option<String>,
    /// Significance level used to flag rejections of normality.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// One row of the normality table: a library result and the slice it belongs to.
#[derive(Debug, Serialize)]
struct NormalityRow {
    dataset: String,
    scorer: String,
    model: String,
    bias_type: String,
    #[serde(flatten)]
    test: NormalityTest,
    normal_at_alpha: Option<bool>,
}

/// Runs `bias stats normality`.
pub fn run(args: &NormalityArgs, out: &mut impl Write) -> Result<(), CliError> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(CliError::Usage(format!(
            "--alpha {} must lie in (0, 1)",
            args.alpha
        )));
    }
    let mut results = Vec::new();
    for (_, slice) in read_all_slices(&args.scores, args.scorer.as_deref())? {
        for test in normality_by_type(&slice.table) {
            results.push(NormalityRow {
                dataset: slice.dataset.clone(),
                scorer: slice.scorer.clone(),
                model: slice.model.clone(),
                bias_type: test
                    .bias_type
                    .as_ref()
                    .map_or_else(|| "all".to_owned(), ToString::to_string),
                normal_at_alpha: test.normal_at(args.alpha),
                test,
            });
        }
    }
    match args.format {
        Format::Json => write_json(&results, out),
        Format::Table => normality_grid(&results).write_table(out),
        Format::Csv => normality_grid(&results).write_csv(out),
    }
}

fn normality_grid(results: &[NormalityRow]) -> Grid {
    let mut g = Grid::new([
        "dataset",
        "scorer",
        "model",
        "bias_type",
        "side",
        "n",
        "W",
        "p",
        "normal",
    ]);
    for r in results {
        let t = &r.test;
        g.push(vec![
            r.dataset.clone(),
            r.scorer.clone(),
            r.model.clone(),
            r.bias_type.clone(),
            match t.side {
                Side::Stereo => "stereo",
                Side::Anti => "anti",
            }
            .to_owned(),
            t.n.to_string(),
            t.w.map_or_else(|| t.undefined.clone().unwrap_or_default(), |w| fixed(w, 4)),
            t.p_value.map_or_else(String::new, format_p_value),
            r.normal_at_alpha
                .map_or_else(String::new, |b| if b { "yes" } else { "no" }.to_owned()),
        ]);
    }
    g
}
