//! `bias stats score-groups`: the PLL score-group analysis of liu2024 Table 4.

use std::io::Write;
use std::path::PathBuf;

use bias_metrics::{score_group_analysis, ScoreGroupAnalysis};
use clap::Args;
use serde::Serialize;

use crate::error::CliError;
use crate::output::{fixed, write_result, Format};
use crate::tables::{in_slice, read_all_slices};

/// Arguments of `bias stats score-groups`.
#[derive(Debug, Args)]
pub struct ScoreGroupsArgs {
    /// Score tables (CSV); each (dataset, scorer, model) slice is analysed.
    #[arg(long, required = true, num_args = 1..)]
    scores: Vec<PathBuf>,
    /// Only the rows of this scorer (default: every scorer).
    #[arg(long)]
    scorer: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(Debug, Serialize)]
struct ScoreGroupsRow {
    dataset: String,
    scorer: String,
    model: String,
    #[serde(flatten)]
    analysis: ScoreGroupAnalysis,
}

/// Runs `bias stats score-groups` (liu2024 Table 4).
pub fn run(args: &ScoreGroupsArgs, out: &mut impl Write) -> Result<(), CliError> {
    let mut results = Vec::new();
    for (path, slice) in read_all_slices(&args.scores, args.scorer.as_deref())? {
        let analysis = score_group_analysis(&slice.table).map_err(in_slice(&path, &slice))?;
        results.push(ScoreGroupsRow {
            dataset: slice.dataset,
            scorer: slice.scorer,
            model: slice.model,
            analysis,
        });
    }
    let header =
        "dataset | scorer | model | group | n | avg_stereo_score | avg_anti_score | abs_delta";
    write_result(args.format, out, &results, header, |g| {
        for r in &results {
            let a = &r.analysis;
            for (name, group) in [
                ("stereotype", a.stereotype_group),
                ("anti-stereotype", a.anti_stereotype_group),
            ] {
                let cells = group.map_or_else(
                    || vec!["0".into(), String::new(), String::new(), String::new()],
                    |s| {
                        vec![
                            s.n.to_string(),
                            fixed(s.mean_stereo, 4),
                            fixed(s.mean_anti, 4),
                            fixed(s.abs_delta, 4),
                        ]
                    },
                );
                let mut row = vec![
                    r.dataset.clone(),
                    r.scorer.clone(),
                    r.model.clone(),
                    name.to_owned(),
                ];
                row.extend(cells);
                g.push(row);
            }
            g.push(vec![
                r.dataset.clone(),
                r.scorer.clone(),
                r.model.clone(),
                "difference: abs Δst − abs Δat".to_owned(),
                a.n.to_string(),
                String::new(),
                String::new(),
                fixed(a.delta_difference, 4),
            ]);
        }
    })
}
