//! `bias data …`: what a data set holds.

use std::io::Write;
use std::path::{Path, PathBuf};

use bias_data::{load_pairs, CountEntry, DatasetStats};
use clap::{Args, Subcommand};

use crate::error::CliError;
use crate::output::{write_json, Format, Grid};

/// The `bias data` subcommands.
#[derive(Debug, Subcommand)]
pub enum DataCommand {
    /// Counts of pairs per bias type and direction.
    Stats(DataStatsArgs),
}

impl DataCommand {
    /// Runs the subcommand.
    pub fn run(&self, out: &mut impl Write) -> Result<(), CliError> {
        match self {
            DataCommand::Stats(a) => stats(&a.file, a.format, out),
        }
    }
}

/// Arguments of `bias data stats`.
#[derive(Debug, Args)]
pub struct DataStatsArgs {
    /// CrowS-Pairs CSV, StereoSet JSON, or a pair file in the generic CSV / JSONL format.
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Runs `bias data stats`: pairs, per-bias-type counts, directions (and StereoSet's sections).
pub fn stats(file: &Path, format: Format, out: &mut impl Write) -> Result<(), CliError> {
    let dataset = load_pairs(file)?;
    let stats = dataset.stats();
    match format {
        Format::Json => {
            #[derive(serde::Serialize)]
            struct Report<'a> {
                file: String,
                dataset: &'a str,
                #[serde(flatten)]
                stats: &'a DatasetStats,
                detectable: Detectable,
            }
            let report = Report {
                file: file.display().to_string(),
                dataset: &dataset.name,
                stats: &stats,
                detectable: detectable(&stats)?,
            };
            write_json(&report, out)
        }
        Format::Table | Format::Csv => {
            let g = grid(&stats)?;
            if format == Format::Csv {
                return g.write_csv(out);
            }
            writeln!(
                out,
                "{}: {} ({} pairs)\n",
                file.display(),
                dataset.name,
                stats.n_pairs
            )?;
            g.write_table(out)?;
            let size = 1 + stats.by_bias_type.len();
            writeln!(
                out,
                "mde: the smallest deviation from 50 % (points) an indicator on these pairs \
                 detects with power 0.8 by the exact sign test at the first Holm step over {size} \
                 values (α = 0.05 / {size}); none: no deviation can reach it."
            )?;
            Ok(())
        }
    }
}

/// What an indicator measured on the data set could detect: per row of pairs, the smallest
/// deviation from 50 % (points) the sign test detects with power 0.8 at the first step of Holm
/// over the family of the overall value and every bias type's (α = 0.05); `None` where no
/// deviation can be.
#[derive(serde::Serialize)]
struct Detectable {
    alpha: f64,
    power: f64,
    correction: &'static str,
    family_size: usize,
    all: Option<f64>,
    by_bias_type: std::collections::BTreeMap<String, Option<f64>>,
}

fn detectable(stats: &DatasetStats) -> Result<Detectable, CliError> {
    let family = bias_metrics::FamilyOptions::default();
    let size = 1 + stats.by_bias_type.len();
    let by_bias_type = stats
        .by_bias_type
        .iter()
        .map(|e| Ok((e.label.clone(), family.detectable(e.count, size)?)))
        .collect::<Result<_, bias_metrics::MetricsError>>()?;
    Ok(Detectable {
        alpha: family.alpha,
        power: family.power,
        correction: family.correction.name(),
        family_size: size,
        all: family.detectable(stats.n_pairs, size)?,
        by_bias_type,
    })
}

fn mde_cell(d: Option<f64>) -> String {
    d.map_or_else(|| "none".to_owned(), |d| format!("{d:.1}"))
}

fn grid(stats: &DatasetStats) -> Result<Grid, CliError> {
    let mde = detectable(stats)?;
    let mut g = Grid::new(["section", "group", "label", "count", "mde"]);
    let section = if stats.sections.is_empty() {
        "pairs".to_owned()
    } else {
        "intrasentence pairs".to_owned()
    };
    g.push(vec![
        section.clone(),
        "total".into(),
        String::new(),
        stats.n_pairs.to_string(),
        mde_cell(mde.all),
    ]);
    let mut add = |section: &str, group: &str, entries: &[CountEntry]| {
        for e in entries {
            let d =
                (group == "bias_type").then(|| mde.by_bias_type.get(&e.label).copied().flatten());
            g.push(vec![
                section.to_owned(),
                group.to_owned(),
                e.label.clone(),
                e.count.to_string(),
                d.map_or_else(String::new, mde_cell),
            ]);
        }
    };
    add(&section, "bias_type", &stats.by_bias_type);
    add(&section, "direction", &stats.by_direction);
    if stats.n_groups > 0 {
        add(
            &section,
            "paraphrase groups",
            &[CountEntry {
                label: "groups".into(),
                count: stats.n_groups,
            }],
        );
    }
    for s in &stats.sections {
        g.push(vec![
            s.name.clone(),
            "total".into(),
            String::new(),
            s.n_items.to_string(),
            String::new(),
        ]);
        for e in &s.by_bias_type {
            g.push(vec![
                s.name.clone(),
                "bias_type".into(),
                e.label.clone(),
                e.count.to_string(),
                String::new(),
            ]);
        }
    }
    Ok(g)
}
