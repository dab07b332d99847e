//! `bias evaluate`: score (resumably), then the indicator, KLS and JSS of every scorer.

use bias_core::Scorer;
use std::collections::BTreeMap;
use std::io::Write;

use bias_papers::{
    scorer_accuracy, AccuracyOptions, AccuracySet, AulTokens, ScorerAccuracy, StereoSetAccuracy,
};
use bias_plm::LanguageModel;
use bias_robust::ScorerStereoSet;

use bias_core::run::Accuracy;
use bias_core::Measurement;
use bias_metrics::MeasureSpec;
use bias_metrics::PairsInN;
use clap::Args;
use serde::Serialize;

use crate::choice::choice;
use crate::commands::score::{score_with, ScoreArgs};
use crate::error::CliError;
use crate::output::{fixed, write_json, Format, Grid};
use crate::tables::{in_slice, read_slices};

mod stereoset;
pub use stereoset::stereoset_out;
use stereoset::{stereoset_grid, stereoset_scores};

/// Arguments of `bias evaluate`.
#[derive(Debug, Args)]
pub struct EvaluateArgs {
    #[command(flatten)]
    score: ScoreArgs,
    /// Output format of the measure table.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Also compute Kaneko & Bollegala (2022) Table 1's token-prediction accuracy: the masked
    /// scorer (CPS on CrowS-Pairs, SSS on StereoSet) against AUL's unmasked prediction on the
    /// same tokens or items, with McNemar's test. Masked LMs only; it costs one unmasked pass per
    /// sentence plus the masked scorer's passes again, and is not cached (`bias reproduce
    /// kaneko2022` writes it as Table 1).
    #[arg(long)]
    token_accuracy: bool,
    /// Which tokens AUL's token-prediction accuracy counts (Kaneko & Bollegala 2022, §4.2):
    /// `paper` = those its masked counterpart predicts (the unmodified tokens on CrowS-Pairs, as
    /// CPS; the candidate's tokens on StereoSet, as SSS), `sentence` = every non-special token,
    /// `with-special` = every token, `[CLS]` / `[SEP]` included. Masked LMs only.
    #[arg(long, value_parser = choice::<AulTokens>(), default_value = "paper")]
    aul_accuracy_tokens: AulTokens,
    /// What StereoSet's token-prediction accuracy counts (Kaneko & Bollegala 2022, §4.2):
    /// `item` = test cases, right when the predicted subtokens match one of the two candidates
    /// exactly; `token` = token positions, as on CrowS-Pairs.
    #[arg(long, value_parser = choice::<StereoSetAccuracy>(), default_value = "item")]
    stereoset_accuracy: StereoSetAccuracy,
    /// N of the indicator (Kaneko & Bollegala 2022, Eq. 6): `all` (default; the paper's "total
    /// number of test instances" and the authors' evaluate.py) counts the pairs a scorer leaves
    /// out of the table (both sentences tokenise identically; SSS without a modified token) as
    /// not stereotypical; `scored` keeps N to the scored pairs (the table alone). Not applied
    /// to a --shard run (its table holds one part of the data set).
    #[arg(long, value_parser = choice::<PairsInN>(), default_value = "all")]
    indicator_n: PairsInN,
}

impl EvaluateArgs {
    fn accuracy_options(&self) -> AccuracyOptions {
        AccuracyOptions {
            aul_tokens: self.aul_accuracy_tokens,
            stereoset: self.stereoset_accuracy,
        }
    }
}

/// Table 1 of Kaneko & Bollegala (2022) for the evaluated model and data set.
#[derive(Debug, Serialize)]
struct TokenAccuracyJson {
    /// `cps` or `sss`.
    masked_scorer: &'static str,
    /// `token` or `item`.
    unit: &'static str,
    aul_tokens: String,
    stereoset_accuracy: String,
    masked: CountJson,
    aul: CountJson,
    mcnemar_exact_p: Option<f64>,
    mcnemar_chi2_p: Option<f64>,
    /// McNemar's exact p < 0.01 (the paper's †).
    significant: bool,
    pairs: usize,
    skipped_identical: usize,
    skipped_empty: usize,
}

#[derive(Debug, Serialize)]
struct CountJson {
    correct: usize,
    total: usize,
    percent: Option<f64>,
}

impl TokenAccuracyJson {
    fn new(a: &ScorerAccuracy, options: AccuracyOptions) -> Self {
        let count = |o: &bias_papers::Outcomes| CountJson {
            correct: o.correct(),
            total: o.total(),
            percent: Some(o.percent()).filter(|p| p.is_finite()),
        };
        TokenAccuracyJson {
            masked_scorer: a.masked_scorer,
            unit: a.unit,
            aul_tokens: options.aul_tokens.to_string(),
            stereoset_accuracy: options.stereoset.to_string(),
            masked: count(&a.masked),
            aul: count(&a.aul),
            mcnemar_exact_p: a.test.map(|t| t.exact.p_value),
            mcnemar_chi2_p: a.test.and_then(|t| t.chi2).map(|c| c.p_value),
            significant: a.test.is_some_and(|t| t.significant()),
            pairs: a.pairs,
            skipped_identical: a.skipped_identical,
            skipped_empty: a.skipped_empty,
        }
    }
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
    /// Arg-max = original token over the positions each scorer scored (the run's tally).
    accuracy: BTreeMap<&'a str, AccuracyJson>,
    /// Table 1 of Kaneko & Bollegala (2022): the masked scorer's and AUL's token-prediction
    /// accuracy as the paper counts it, with McNemar's test (masked LMs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    token_accuracy: Option<TokenAccuracyJson>,
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
    let mut lm = args.score.model.open()?;
    crate::commands::score::log_requests(&mut lm, &args.score.out)?;
    let scored = score_with(&args.score, &lm)?;
    let path = &args.score.out;
    let stereoset = if scored.dataset == "stereoset" && args.score.shard.is_none() {
        Some(stereoset_scores(args, &lm)?)
    } else {
        None
    };
    let mut results: Vec<ScorerMeasure> = Vec::new();
    // The pairs of the data set, for the indicator's N over every test instance.
    let all_pairs = match (args.indicator_n, args.score.shard.is_none()) {
        (PairsInN::All, true) => Some(args.score.model.pairs()?.1),
        _ => None,
    };
    for slice in read_slices(path, None)? {
        for m in MeasureSpec::liu2024() {
            let measurement = match (&m, &all_pairs) {
                (MeasureSpec::Indicator { options }, Some(pairs)) => {
                    let scored: std::collections::HashSet<&str> = slice
                        .table
                        .rows()
                        .iter()
                        .map(|r| r.pair_id.as_str())
                        .collect();
                    let unscored: Vec<bias_metrics::UnscoredPair> = pairs
                        .iter()
                        .filter(|p| !scored.contains(p.id.as_str()))
                        .map(|p| bias_metrics::UnscoredPair {
                            pair_id: p.id.clone(),
                            bias_type: p.bias_type.clone(),
                        })
                        .collect();
                    bias_metrics::Indicator::new(*options)
                        .report_with_unscored(&slice.table, &unscored, bias_metrics::PairsInN::All)
                        .map_err(in_slice(path, &slice))?
                        .measurement
                }
                _ => m.measure(&slice.table).map_err(in_slice(path, &slice))?,
            };
            results.push(ScorerMeasure {
                scorer: slice.scorer.clone(),
                measurement,
            });
        }
    }
    let options = args.accuracy_options();
    let token_accuracy = match lm {
        LanguageModel::Masked(m) if args.token_accuracy && args.score.shard.is_none() => {
            let set = if scored.dataset == "stereoset" {
                AccuracySet::StereoSet
            } else {
                AccuracySet::CrowsPairs
            };
            let (_, pairs) = args.score.model.pairs()?;
            let mut model = bias_plm::StudiedMlm::new(m).with_options(args.score.model.options());
            Some(scorer_accuracy(&mut model, set, &pairs, options)?)
        }
        _ => None,
    };
    let accuracy = &scored.summary.progress.tally.accuracy;
    if args.format == Format::Json {
        let evaluation = Evaluation {
            model: &scored.model,
            dataset: &scored.dataset,
            accuracy: accuracy
                .iter()
                .map(|(s, a)| (s.as_str(), a.into()))
                .collect(),
            token_accuracy: token_accuracy
                .as_ref()
                .map(|a| TokenAccuracyJson::new(a, options)),
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
    if let (Some(a), Format::Table) = (&token_accuracy, args.format) {
        write_token_accuracy(out, a, options)?;
    }
    if args.format == Format::Table {
        writeln!(
            out,
            "\nArg-max = original token over the positions each scorer scored (the run's tally):"
        )?;
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

/// Prints Table 1 of Kaneko & Bollegala (2022) for one model and data set.
fn write_token_accuracy(
    out: &mut impl Write,
    a: &ScorerAccuracy,
    options: AccuracyOptions,
) -> Result<(), CliError> {
    writeln!(
        out,
        "\nToken-prediction accuracy (Kaneko & Bollegala 2022, Table 1; --aul-accuracy-tokens {}, \
         --stereoset-accuracy {}; per {}):",
        options.aul_tokens, options.stereoset, a.unit
    )?;
    let mark = if a.test.is_some_and(|t| t.significant()) {
        " †"
    } else {
        ""
    };
    for (name, o, m) in [
        (a.masked_scorer, &a.masked, ""),
        (Scorer::Aul.name(), &a.aul, mark),
    ] {
        writeln!(
            out,
            "  {name}: {}%{m} ({} of {} {}s)",
            fixed(o.percent(), 2),
            o.correct(),
            o.total(),
            a.unit
        )?;
    }
    if let Some(t) = &a.test {
        writeln!(
            out,
            "  McNemar, AUL vs {} on the same {}s: exact p = {:.3e}, χ² p = {} († p < 0.01)",
            a.masked_scorer,
            a.unit,
            t.exact.p_value,
            t.chi2
                .map_or("–".to_owned(), |c| format!("{:.3e}", c.p_value))
        )?;
    }
    writeln!(
        out,
        "  {} pairs counted; left out: {} tokenise identically, {} with a sentence without a \
         token for {}",
        a.pairs, a.skipped_identical, a.skipped_empty, a.masked_scorer
    )?;
    Ok(())
}
