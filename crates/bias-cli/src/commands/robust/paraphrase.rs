//! `bias robust paraphrase`: whether a pair's verdict survives paraphrase (MDIFF, MBIAS,
//! MAGREEMENT, MPER_AGREE), and the paper's Figures 2–4 across the models given (`--figures`).

use std::io::Write;
use std::path::{Path, PathBuf};

use bias_core::run::score_to_table;
use bias_core::ScoreSlice;
use bias_plm::ScoringOptions;
use bias_report::paraphrase::draw_paper_figures;
use bias_report::report::file_part;
use bias_robust::paraphrase::{crows_pairs_first100, ScoreScale, CROWS_PAIRS_FIRST100_NAME};
use bias_robust::{paraphrase_agreement, ParaphraseOptions, ParaphraseReport};
use clap::{ArgGroup, Args};
use serde::Serialize;

use crate::error::CliError;
use bias_core::Scorer;

use crate::choice::choice;
use crate::model_args::{kinds, DeviceArgs};
use crate::output::{fixed, write_rows, Format, TableRow};
use crate::tables::read_all_slices;

/// Arguments of `bias robust paraphrase`.
///
/// Either `--scores` (a score table scored already) or `--model` (score the pair set now: by
/// default the paraphrase set of the first 100 CrowS-Pairs pairs that ships with bias-robust,
/// or `--pairs FILE`).
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("input").required(true).args(["scores", "model"])))]
pub struct ParaphraseArgs {
    /// A score table of pairs grouped by `group_id` (originals have pair_id = group_id).
    #[arg(long, num_args = 1.., conflicts_with_all = ["model", "pairs", "save_scores"])]
    scores: Vec<PathBuf>,
    /// A Hugging Face masked-LM folder (config.json, model.safetensors, tokenizer.json): score
    /// the pair set with `--scorers`, then analyse it.
    #[arg(long)]
    model: Option<PathBuf>,
    /// The pair set to score with `--model`: a pair file (CSV / JSON lines) whose `group_id`
    /// ties paraphrases to their original. Default: the 474-pair paraphrase set of the first
    /// 100 CrowS-Pairs pairs shipped with bias-robust (`paraphrase::crows_pairs_first100`).
    #[arg(long, requires = "model")]
    pairs: Option<PathBuf>,
    /// Scorers for `--model`, comma-separated.
    #[arg(
        long,
        value_parser = choice::<Scorer>(),
        ignore_case = true,
        value_delimiter = ',',
        default_value = "aul,cps"
    )]
    scorers: Vec<Scorer>,
    /// Where `--model` runs.
    #[command(flatten)]
    device: DeviceArgs,
    /// With `--model`: also write the score table here (CSV).
    #[arg(long, requires = "model")]
    save_scores: Option<PathBuf>,
    /// Only the rows of this scorer.
    #[arg(long)]
    scorer: Option<String>,
    /// τ, the half-width of the near-tie band |MDIFF| < τ on the sum scale of CPS / PLL (the
    /// paper's 0.25); on a per-token scorer (AUL, AULA, SSS, all-masked) the band is τ divided
    /// by the table's mean number of scored tokens per sentence.
    #[arg(long, default_value_t = bias_robust::DEFAULT_NEAR_TIE)]
    tau: f64,
    /// The scale of the scores, for a scorer bias-robust does not know (default: from the
    /// scorer's name).
    #[arg(long, value_parser = choice::<ScoreScale>())]
    scale: Option<ScoreScale>,
    /// Also draw the paraphrase study's Figures 2 (originals whose paraphrases fully agree,
    /// MAGREEMENT = 1, or not, per model), 3 (the same per bias type) and 4 (MDIFF of every pair
    /// per model) into this folder, one set per scorer, comparing every model given:
    /// `<scorer>_figure-2.png/.svg`, … (give several `--scores` tables for several models).
    #[arg(long)]
    figures: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(Debug, Serialize)]
struct AgreementRow {
    dataset: String,
    scorer: String,
    model: String,
    bias_type: String,
    groups: usize,
    /// Originals with MAGREEMENT = 1 (every paraphrase shares the original's MBIAS).
    agreeing_groups: usize,
    paraphrases: usize,
    agreeing_paraphrases: usize,
    /// MPER_AGREE as the paper's Figures 2–3 count it: `agreeing_groups / groups`.
    mper_agree: f64,
    /// The per-paraphrase reading: `agreeing_paraphrases / paraphrases` (`mper_agree` before
    /// issue 16).
    paraphrase_agree: f64,
    /// Deprecated: the same value as `mper_agree` (its old name).
    group_agree: f64,
    near_tie_share: f64,
    /// The half-width applied to MDIFF: τ on the sum scale, τ / mean tokens on a per-token one,
    /// τ / (mean tokens)² on AULA's.
    near_tie_band: f64,
    scale: &'static str,
    mean_tokens: Option<f64>,
}

/// Scores the pair set of `bias robust paraphrase --model` (the shipped set unless `--pairs`)
/// and returns its slices, one per scorer.
fn score_pair_set(a: &ParaphraseArgs, model: &Path) -> Result<Vec<ScoreSlice>, CliError> {
    let (dataset, pairs) = match &a.pairs {
        Some(path) => {
            let ds = bias_data::load_pairs(path)?;
            if ds.pairs.iter().all(|p| p.group_id.is_none()) {
                return Err(CliError::Usage(format!(
                    "{}: no pair has a group_id, so there are no paraphrases to compare; give \
                     each paraphrase the id of its original in a group_id column",
                    path.display()
                )));
            }
            (ds.name, ds.pairs)
        }
        None => (CROWS_PAIRS_FIRST100_NAME.to_owned(), crows_pairs_first100()),
    };
    let lm = a.device.open(model, None)?;
    let mut scorer = lm.scorer(&kinds(&a.scorers, &[])?, ScoringOptions::default())?;
    let (table, tally) = score_to_table(&mut scorer, &pairs, &dataset, lm.name())?;
    if !tally.skipped_identical.is_empty() {
        eprintln!(
            "{dataset}: {} pairs tokenise identically and were skipped: {}",
            tally.skipped_identical.len(),
            tally.skipped_identical.join(", ")
        );
    }
    for (scorer, ids) in &tally.unscorable {
        eprintln!(
            "{dataset}: {scorer} could not score {} pairs: {}",
            ids.len(),
            ids.join(", ")
        );
    }
    if let Some(out) = &a.save_scores {
        table.write_csv_path(out)?;
    }
    let slices: Vec<ScoreSlice> = table
        .slices()
        .into_iter()
        .filter(|s| a.scorer.as_deref().is_none_or(|name| s.scorer == name))
        .collect();
    if slices.is_empty() {
        return Err(CliError::Usage(format!(
            "{dataset}: no rows{} were scored",
            a.scorer
                .as_deref()
                .map_or(String::new(), |s| format!(" of scorer `{s}`"))
        )));
    }
    Ok(slices)
}

/// What `bias robust paraphrase` says when it has nothing to analyse (clap asks first).
const NEEDS_INPUT: &str = "bias robust paraphrase needs --scores FILE (a score table) or --model \
                           DIR (to score the paraphrase set)";

/// Runs `bias robust paraphrase`.
pub fn run(a: &ParaphraseArgs, out: &mut impl Write) -> Result<(), CliError> {
    let slices = match (a.scores.is_empty(), &a.model) {
        (false, _) => read_all_slices(&a.scores, a.scorer.as_deref())?
            .into_iter()
            .map(|(_, s)| s)
            .collect(),
        (true, Some(model)) => score_pair_set(a, model)?,
        (true, None) => return Err(CliError::Usage(NEEDS_INPUT.into())),
    };
    let options = ParaphraseOptions {
        near_tie: a.tau,
        scale: a.scale,
    };
    let mut rows = Vec::new();
    let mut reports = Vec::new();
    for slice in &slices {
        if options.scale.is_none() && ScoreScale::of_scorer(&slice.scorer).is_none() {
            return Err(CliError::Usage(format!(
                "scorer `{}`: the scale of its scores is unknown, so the near-tie band τ (on the \
                 sum scale of CPS) cannot be put on it; pass --scale sum (sums of token \
                 log-probabilities, like CPS and PLL) or --scale per-token (means per token, \
                 like AUL)",
                slice.scorer
            )));
        }
        let report = paraphrase_agreement(&slice.table, &options)?;
        let mut push = |ty: String, s: &bias_robust::AgreementSummary| {
            rows.push(AgreementRow {
                dataset: slice.dataset.clone(),
                scorer: slice.scorer.clone(),
                model: slice.model.clone(),
                bias_type: ty,
                groups: s.groups,
                agreeing_groups: s.agreeing_groups,
                paraphrases: s.paraphrases,
                agreeing_paraphrases: s.agreeing_paraphrases,
                mper_agree: s.mper_agree,
                paraphrase_agree: s.paraphrase_agree,
                group_agree: s.mper_agree,
                near_tie_share: s.near_tie_share,
                near_tie_band: report.band.half_width,
                scale: report.band.scale.as_str(),
                mean_tokens: report.band.mean_tokens,
            })
        };
        push("all".into(), &report.overall);
        for (ty, s) in &report.by_type {
            push(ty.to_string(), s);
        }
        reports.push((slice.scorer.clone(), slice.model.clone(), report));
    }
    if let Some(dir) = &a.figures {
        draw_figures(&reports, dir)?;
    }
    write_rows(a.format, out, &rows)
}

/// Draws Figures 2–4 of the paraphrase study per scorer, comparing the models of that scorer
/// (`bias_report::paraphrase::draw_paper_figures`), and says where they are on stderr (stdout
/// stays the table or one JSON document).
fn draw_figures(
    reports: &[(String, String, ParaphraseReport)],
    dir: &Path,
) -> Result<(), CliError> {
    let mut scorers: Vec<&str> = reports.iter().map(|r| r.0.as_str()).collect();
    scorers.sort_unstable();
    scorers.dedup();
    for scorer in scorers {
        let of_scorer: Vec<(&str, &ParaphraseReport)> = reports
            .iter()
            .filter(|r| r.0 == scorer)
            .map(|r| (r.1.as_str(), &r.2))
            .collect();
        let prefix = format!("{}_", file_part(scorer));
        let f = draw_paper_figures(&of_scorer, dir, &prefix)?;
        eprintln!(
            "{scorer}: Figures 2–4 of {} model(s): {}.png, {}.png, {}.png (and .svg)",
            of_scorer.len(),
            f.figure_2.display(),
            f.figure_3.display(),
            f.figure_4.display()
        );
    }
    Ok(())
}

impl TableRow for AgreementRow {
    const HEADER: &'static str = concat!(
        "scorer | model | bias_type | groups | paraphrases | MPER_AGREE (groups fully agreeing)",
        " | paraphrases agreeing | near-tie share | near-tie band"
    );

    fn cells(&self) -> Vec<String> {
        vec![
            self.scorer.clone(),
            self.model.clone(),
            self.bias_type.clone(),
            self.groups.to_string(),
            self.paraphrases.to_string(),
            format!(
                "{} ({}/{})",
                fixed(self.mper_agree, 3),
                self.agreeing_groups,
                self.groups
            ),
            format!(
                "{} ({}/{})",
                fixed(self.paraphrase_agree, 3),
                self.agreeing_paraphrases,
                self.paraphrases
            ),
            fixed(self.near_tie_share, 3),
            match (self.mean_tokens, self.scale) {
                (Some(n), "attention-weighted mean") => {
                    format!("±{} (τ / {}²)", fixed(self.near_tie_band, 5), fixed(n, 2))
                }
                (Some(n), _) => format!("±{} (τ / {})", fixed(self.near_tie_band, 4), fixed(n, 2)),
                (None, _) => format!("±{}", fixed(self.near_tie_band, 4)),
            },
        ]
    }
}
