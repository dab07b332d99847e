//! `bias evaluate`: score (resumably), then the indicator, KLS and JSS of every scorer.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use bias_core::ScoreTable;
use bias_robust::reproduce::stereoset_unrelated_pairs;
use bias_robust::{stereoset_by_scorer, ScorerStereoSet};

use bias_core::run::Accuracy;
use bias_core::Measurement;
use bias_metrics::MeasureSpec;
use clap::Args;
use serde::Serialize;

use crate::commands::score::{score_with, ScoreArgs, ScoreRun};
use crate::error::CliError;
use crate::output::{fixed, write_json, Format, Grid};
use crate::tables::{in_slice, read_slices};

/// Arguments of `bias evaluate`.
#[derive(Debug, Args)]
pub struct EvaluateArgs {
    #[command(flatten)]
    score: ScoreArgs,
    /// Output format of the measure table.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// One measure of one scorer.
#[derive(Debug, Serialize)]
struct ScorerMeasure {
    scorer: String,
    #[serde(flatten)]
    measurement: Measurement,
}

/// What `bias evaluate --format json` prints.
#[derive(Debug, Serialize)]
struct Evaluation<'a> {
    model: &'a str,
    dataset: &'a str,
    /// Token-prediction accuracy per scorer (kaneko2022 §4.2).
    accuracy: BTreeMap<&'a str, AccuracyJson>,
    measures: Vec<ScorerMeasure>,
    /// StereoSet's own SS, LMS and ICAT per scorer (Nadeem et al. 2021), on StereoSet only.
    #[serde(skip_serializing_if = "Option::is_none")]
    stereoset: Option<BTreeMap<String, ScorerStereoSet>>,
}

#[derive(Debug, Serialize)]
struct AccuracyJson {
    correct: u64,
    total: u64,
    rate: f64,
}

impl From<&Accuracy> for AccuracyJson {
    fn from(a: &Accuracy) -> Self {
        AccuracyJson {
            correct: a.correct,
            total: a.total,
            rate: a.rate(),
        }
    }
}

/// Runs `bias evaluate`: scores (resumably), then prints the indicator, KLS and JSS (liu2024) of
/// every scorer, overall and per bias type, and each scorer's token-prediction accuracy
/// (kaneko2022 §4.2).
pub fn run(args: &EvaluateArgs, out: &mut impl Write) -> Result<(), CliError> {
    let lm = args.score.model.open()?;
    let scored = score_with(&args.score, &lm)?;
    let path = &args.score.out;
    let stereoset = if scored.dataset == "stereoset" && args.score.shard.is_none() {
        Some(stereoset_scores(args, &lm)?)
    } else {
        None
    };
    let mut results: Vec<ScorerMeasure> = Vec::new();
    for slice in read_slices(path, None)? {
        for m in MeasureSpec::liu2024() {
            results.push(ScorerMeasure {
                scorer: slice.scorer.clone(),
                measurement: m.measure(&slice.table).map_err(in_slice(path, &slice))?,
            });
        }
    }
    let accuracy = &scored.summary.progress.tally.accuracy;
    if args.format == Format::Json {
        let evaluation = Evaluation {
            model: &scored.model,
            dataset: &scored.dataset,
            accuracy: accuracy
                .iter()
                .map(|(s, a)| (s.as_str(), a.into()))
                .collect(),
            measures: results,
            stereoset,
        };
        return write_json(&evaluation, out);
    }
    let mut g = Grid::new(["scorer", "measure", "bias_type", "n", "value", "no_bias"]);
    for ScorerMeasure {
        scorer,
        measurement: m,
    } in &results
    {
        g.push(vec![
            scorer.clone(),
            m.measure.clone(),
            "all".into(),
            m.n.to_string(),
            fixed(m.value, 2),
            fixed(m.no_bias, 0),
        ]);
        for (ty, v) in &m.by_type {
            g.push(vec![
                scorer.clone(),
                m.measure.clone(),
                ty.to_string(),
                v.n.to_string(),
                fixed(v.value, 2),
                fixed(m.no_bias, 0),
            ]);
        }
    }
    g.write(args.format, out)?;
    if let Some(by_scorer) = &stereoset {
        if args.format == Format::Table {
            writeln!(
                out,
                "\nThe indicator above is the per-pair share of stereotype over anti-stereotype \
                 (Kaneko & Bollegala 2022). StereoSet's own scores (Nadeem et al. 2021: per \
                 target term, then the mean; ICAT from the means), written to {}:",
                stereoset_out(path).display()
            )?;
        }
        stereoset_grid(by_scorer).write(args.format, out)?;
    }
    if args.format == Format::Table {
        writeln!(out, "\nToken-prediction accuracy (kaneko2022 §4.2):")?;
        for (scorer, acc) in accuracy {
            writeln!(
                out,
                "  {scorer}: {:.4} ({} of {} positions)",
                acc.rate(),
                acc.correct,
                acc.total
            )?;
        }
    }
    Ok(())
}

/// The score table of StereoSet's comparisons with the unrelated sentence, next to `out`:
/// `stereoset.csv` → `stereoset.unrelated.csv`.
pub fn stereoset_out(out: &Path) -> PathBuf {
    out.with_extension("unrelated.csv")
}

/// Scores StereoSet's comparisons with the unrelated sentence (resumable) and computes SS, LMS
/// and ICAT per scorer.
fn stereoset_scores(
    args: &EvaluateArgs,
    lm: &bias_plm::LanguageModel,
) -> Result<BTreeMap<String, ScorerStereoSet>, CliError> {
    let m = &args.score.model;
    let data = bias_data::layout::resolve_dataset(&m.dataset, &m.data_dir);
    let mut pairs = stereoset_unrelated_pairs(&data)?;
    let mut triples = bias_data::stereoset::read_stereoset_triples(
        &data,
        bias_data::stereoset::Section::Intrasentence,
    )?;
    if let Some(n) = m.limit {
        pairs.truncate(2 * n);
        triples.truncate(n);
    }
    let unrelated_out = stereoset_out(&args.score.out);
    let run = ScoreRun {
        scorers: &crate::model_args::scorer_names(&args.score.scorers, lm),
        options: m.options(),
        dataset: "stereoset-unrelated",
        chunk: args.score.chunk,
        shard: None,
    };
    run.write(lm, &pairs, &unrelated_out)?;
    let table = ScoreTable::read_csv_path(&args.score.out)?;
    let unrelated = ScoreTable::read_csv_path(&unrelated_out)?;
    Ok(stereoset_by_scorer(&triples, &table, &unrelated))
}

/// SS, LMS and ICAT per scorer, overall and per domain.
pub fn stereoset_grid(by_scorer: &BTreeMap<String, ScorerStereoSet>) -> Grid {
    let mut g = Grid::new([
        "scorer", "domain", "items", "targets", "ss", "lms", "icat", "excluded",
    ]);
    for (scorer, s) in by_scorer {
        let rows = std::iter::once(("overall", &s.scores.overall))
            .chain(s.scores.by_domain.iter().map(|(d, v)| (d.as_str(), v)));
        for (domain, v) in rows {
            g.push(vec![
                scorer.clone(),
                domain.to_owned(),
                v.n_items.to_string(),
                v.n_targets.to_string(),
                fixed(v.ss, 2),
                fixed(v.lms, 2),
                fixed(v.icat, 2),
                if domain == "overall" {
                    s.excluded.len().to_string()
                } else {
                    String::new()
                },
            ]);
        }
    }
    g
}
