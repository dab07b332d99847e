//! `bias robust human`: agreement with CrowS-Pairs' human annotations (kaneko2022).

use std::io::Write;
use std::path::PathBuf;

use bias_papers::AccuracyDefinition;
use bias_robust::{
    advantaged_split, human_agreement_by, records_scored_in, LabelRule, DEFAULT_MIN_MATCHING,
};
use clap::Args;
use serde::Serialize;

use crate::choice::choice;
use crate::data_args::CrowsArgs;
use crate::error::CliError;
use crate::output::{fixed, write_rows, Format, TableRow};
use crate::tables::read_slices;

/// Arguments of `bias robust human`.
#[derive(Debug, Args)]
pub struct HumanArgs {
    /// Score tables of CrowS-Pairs.
    #[arg(long, required = true, num_args = 1..)]
    scores: Vec<PathBuf>,
    /// CrowS-Pairs with its annotations.
    #[command(flatten)]
    crows: CrowsArgs,
    /// Validators (of 5) who must name the pair's bias type for it to count as biased.
    #[arg(long, default_value_t = DEFAULT_MIN_MATCHING)]
    min_matching: usize,
    /// Which annotations count towards --min-matching (Kaneko & Bollegala 2022, "Biases in
    /// MLMs"): `matching` (default, the paper) counts validators naming the pair's own bias
    /// type; `any` (the initial commit of the authors' preprocess.py, 6a7ab8c; removed in
    /// 8defce5) counts every non-empty annotation. On the
    /// published file 132 pairs change label (1346 vs 1478 biased).
    #[arg(long, value_parser = choice::<LabelRule>(), default_value = "matching")]
    label_rule: LabelRule,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// The kaneko2022 options of `bias reproduce` ([`bias_papers::Kaneko2022Options`]).
#[derive(Debug, Args)]
pub struct Kaneko2022Args {
    /// kaneko2022: N of the bias score (Eq. 6): `all` (default; the paper and the authors'
    /// evaluate.py) counts the pairs a scorer leaves out of its table (both sentences tokenise
    /// identically; SSS without a modified token) as not stereotypical; `scored` drops them.
    /// Tables 3 and 5 say how many pairs this touches.
    #[arg(
        long = "kaneko2022-pairs-in-n",
        id = "kaneko2022-pairs-in-n",
        value_parser = choice::<bias_metrics::PairsInN>(),
        default_value = "all"
    )]
    pub pairs_in_n: bias_metrics::PairsInN,
    /// kaneko2022: which annotations make a CrowS-Pairs pair "biased" in Figure 1 (at least 3
    /// of the five validators): `matching` (default; the paper) those naming the pair's bias
    /// type, `any` (the initial commit of the authors' preprocess.py, 6a7ab8c, removed in
    /// 8defce5) every non-empty one.
    #[arg(
        long = "kaneko2022-label-rule",
        id = "kaneko2022-label-rule",
        value_parser = choice::<LabelRule>(),
        default_value = "matching"
    )]
    pub label_rule: LabelRule,
    /// kaneko2022 Table 2: how many of each group's most frequent words are ranked together
    /// (default 4, the paper's caption: four high-frequency words of each group).
    #[arg(long = "kaneko2022-table2-words", id = "kaneko2022-table2-words", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub table2_words: u32,
    /// kaneko2022 Table 2: `drop` (default) removes function words (articles, prepositions,
    /// auxiliaries...; pronouns are kept) from the group words, `keep` ranks them too.
    #[arg(
        long = "kaneko2022-stop-words",
        id = "kaneko2022-stop-words",
        value_parser = choice::<bias_robust::frequency_rank::StopWords>(),
        default_value = "drop"
    )]
    pub stop_words: bias_robust::frequency_rank::StopWords,
    /// kaneko2022 Table 1: `paper` (default) counts token-prediction accuracy as the paper's
    /// §4.2 reads (AUL on the masked scorer's tokens, StereoSet by items); `authors` as the
    /// authors' evaluate.py prints it (`Accuracy:`: every position a method scores, special
    /// tokens included for AUL, tokens on both data sets).
    #[arg(
        long = "kaneko2022-accuracy",
        id = "kaneko2022-accuracy",
        default_value = "paper",
        value_parser = |s: &str| s.parse::<AccuracyDefinition>().map_err(|e| e.to_string())
    )]
    pub accuracy: AccuracyDefinition,
    /// kaneko2022 Table 4: how many seeded shuffles are averaged (mean and SD).
    #[arg(long = "kaneko2022-shuffles", id = "kaneko2022-shuffles",
          default_value_t = bias_papers::DEFAULT_SHUFFLES as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub shuffles: u32,
}

impl Kaneko2022Args {
    /// The library's options.
    pub fn options(&self) -> bias_papers::Kaneko2022Options {
        bias_papers::Kaneko2022Options {
            pairs_in_n: self.pairs_in_n,
            label_rule: self.label_rule,
            frequency_rank: bias_robust::frequency_rank::FrequencyRankOptions {
                words_per_group: self.table2_words as usize,
                stop_words: self.stop_words,
            },
            accuracy: self.accuracy,
            shuffles: self.shuffles as usize,
        }
    }
}

#[derive(Debug, Serialize)]
struct HumanRow {
    scorer: String,
    model: String,
    biased: usize,
    not_biased: usize,
    auc: f64,
    advantaged_bias_score: f64,
    advantaged_n: usize,
    disadvantaged_bias_score: f64,
    disadvantaged_n: usize,
    abs_diff: f64,
}

/// Runs `bias robust human`.
pub fn run(a: &HumanArgs, out: &mut impl Write) -> Result<(), CliError> {
    let crows = bias_data::crows_pairs::read_crows_pairs_path(a.crows.path())?;
    let mut rows = Vec::new();
    let mut slices = Vec::new();
    for path in &a.scores {
        slices.extend(read_slices(path, None)?);
    }
    for slice in slices {
        let records = records_scored_in(&crows, &slice.table);
        let h = human_agreement_by(&records, &slice.table, a.min_matching, a.label_rule)?;
        let split = advantaged_split(&slice.table)?;
        rows.push(HumanRow {
            scorer: slice.scorer.clone(),
            model: slice.model.clone(),
            biased: h.biased,
            not_biased: h.not_biased,
            auc: h.auc,
            advantaged_bias_score: split.advantaged.bias_score,
            advantaged_n: split.advantaged.n,
            disadvantaged_bias_score: split.disadvantaged.bias_score,
            disadvantaged_n: split.disadvantaged.n,
            abs_diff: split.abs_diff,
        });
    }
    write_rows(a.format, out, &rows)
}

impl TableRow for HumanRow {
    const HEADER: &'static str =
        "scorer | model | biased / not | AUC | advantaged | disadvantaged | abs diff";

    fn cells(&self) -> Vec<String> {
        vec![
            self.scorer.clone(),
            self.model.clone(),
            format!("{} / {}", self.biased, self.not_biased),
            fixed(self.auc, 4),
            format!(
                "{} (n={})",
                fixed(self.advantaged_bias_score, 2),
                self.advantaged_n
            ),
            format!(
                "{} (n={})",
                fixed(self.disadvantaged_bias_score, 2),
                self.disadvantaged_n
            ),
            fixed(self.abs_diff, 2),
        ]
    }
}
