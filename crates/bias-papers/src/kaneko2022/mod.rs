//! The tables and figures of Kaneko & Bollegala (2022), "Unmasking the Mask – Evaluating Social
//! Biases in Masked Language Models" (AAAI), over every model of the study (see
//! [`super::Paper`]):
//!
//! * Table 1: token-prediction accuracy of CPS and AUL on CrowS-Pairs, SSS and AUL on StereoSet,
//!   with McNemar's marks, and Table 4 (accuracy on shuffled and unrelated sentences): written by
//!   the token-prediction part ([`tokens`]);
//! * Table 2: mean frequency rank of the advantaged / disadvantaged words (out of reach: no
//!   corpus frequencies or word lists here);
//! * Table 3: bias score of the pairs biased towards the advantaged (`antistereo`) and the
//!   disadvantaged (`stereo`) group under All Masked, AUL and AULA on CrowS-Pairs, and |Diff|;
//! * Table 5: the bias scores (Eq. 6) of CPS, AUL, AULA on CrowS-Pairs and SSS, AUL, AULA on
//!   StereoSet;
//! * Figure 1: ROC curves of AUL, AULA, CPS and SSS against the CrowS-Pairs human annotations;
//! * the count of StereoSet items whose two candidates have the same number of subtokens
//!   ("Token Prediction Accuracy" section: 1,298 / 1,509 / 1,490 for BERT / RoBERTa / ALBERT).
//!
//! `N` of Eq. (6) is every test instance ([`PairsInN::All`], the paper and the authors'
//! `evaluate.py` at 6b10239, whose `total_score` counts every pair):
//! pairs a scorer left out of its table (identical tokenisation, SSS without a modified token)
//! count as not stereotypical; [`Kaneko2022Options`] chooses otherwise, and every table says how
//! many pairs the choice touches.

use crate::PaperError;
use bias_core::Scorer;
use std::collections::HashSet;

use bias_core::{DatasetScorer, MaybeTokenPredictor, ScoreTable, SentencePair};
use bias_data::wordfreq::{self, WordFrequencies};
use bias_metrics::{Indicator, PairsInN, UnscoredPair};

pub mod published;
pub(super) mod tokens;

use super::{Cell, DataSet, Reproduction, Status, Study, Table};
use bias_report::report::file_part;
use bias_robust::frequency_rank::{self, FrequencyRankOptions, StopWords};
use bias_robust::human::{human_agreement_by, records_scored_in, LabelRule, DEFAULT_MIN_MATCHING};
use bias_robust::RobustError;
use tokens::AccuracyDefinition;

mod figures;
mod tables;
use figures::*;
use tables::*;

/// The choices where the paper, the authors' code and this workspace can differ (Kaneko &
/// Bollegala 2022); the defaults are the paper's. (How SSS averages and whether CPS rounds are
/// the models' [`bias_core::ScoringConventions`]: [`super::Paper::scoring_conventions`] gives
/// the authors' code's, which produced the published bias scores.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kaneko2022Options {
    /// `N` of Eq. (6): every test instance (default) or only the scored pairs.
    pub pairs_in_n: PairsInN,
    /// Which validator annotations make a CrowS-Pairs pair "biased" for Figure 1 (default: those
    /// naming the pair's bias type, the paper; `any` annotation, as the initial commit of the
    /// authors' preprocess.py, 6a7ab8c, counted them before 8defce5 removed the count).
    pub label_rule: LabelRule,
    /// Table 2: how many words of each group are ranked and whether function words are dropped
    /// (defaults: 4, the paper's caption, and dropped).
    pub frequency_rank: FrequencyRankOptions,
    /// Table 1: the paper's §4.2 reading of the token-prediction accuracy (default) or the
    /// `Accuracy:` line of the authors' `evaluate.py`.
    pub accuracy: AccuracyDefinition,
    /// Table 4: how many seeded shuffles are averaged (default [`DEFAULT_SHUFFLES`]).
    pub shuffles: usize,
}

/// Table 4's default number of shuffles: the paper shuffles once, without a seed; one seed's
/// accuracy can move by chance, so the table shows the mean and the spread over five.
pub const DEFAULT_SHUFFLES: usize = 5;

impl Default for Kaneko2022Options {
    fn default() -> Self {
        Kaneko2022Options {
            pairs_in_n: PairsInN::default(),
            label_rule: LabelRule::default(),
            frequency_rank: FrequencyRankOptions::default(),
            accuracy: AccuracyDefinition::default(),
            shuffles: DEFAULT_SHUFFLES,
        }
    }
}

/// Writes kaneko2022's tables and figures into `out` with the paper's choices.
pub(super) fn reproduce<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    reproduce_with(study, out, Kaneko2022Options::default())
}

/// Writes kaneko2022's tables and figures into `out` with `options` ([`Kaneko2022Options`]).
///
/// Tables 1 and 4 count token predictions, so the models must say whether they predict tokens
/// ([`MaybeTokenPredictor`]: every [`bias_core::TokenPredictor`] does; a list mixing masked and
/// causal LMs, such as `bias_plm::StudiedLm`, names the ones that do, and the tables leave the
/// others out with a note). A runtime that only scores pairs is refused when the program is
/// compiled:
///
/// ```compile_fail
/// # use std::path::Path;
/// # use bias_core::{run::RunSummary, BoxError, DatasetScorer, SentencePair};
/// use bias_papers::{reproduce_kaneko2022, Paper, Reproduction, Study};
///
/// /// Scores pairs, predicts no tokens.
/// struct ScoresOnly;
/// impl DatasetScorer for ScoresOnly {
///     fn name(&self) -> &str { "scores-only" }
///     fn conventions(&self) -> Option<bias_core::ScoringConventions> { None }
///     fn score_into(&mut self, _: &str, _: &[SentencePair], _: &Path)
///         -> Result<RunSummary, BoxError> { Err("no".into()) }
/// }
///
/// let mut study = Study::new(vec![ScoresOnly], "data", "scores")?;
/// let mut out = Reproduction::create(Paper::Kaneko2022, "out")?;
/// // error[E0277]: the trait bound `ScoresOnly: TokenPredictor` is not satisfied
/// reproduce_kaneko2022(&mut study, &mut out, Default::default())?;
/// # Ok::<(), bias_papers::PaperError>(())
/// ```
///
/// The same runtime with token predictions compiles:
///
/// ```no_run
/// # use std::path::Path;
/// # use bias_core::{run::RunSummary, BoxError, DatasetScorer, SentencePair};
/// use bias_core::{TokenPredictor, TokenQuery};
/// use bias_papers::{reproduce_kaneko2022, Paper, Reproduction, Study};
///
/// struct Predicts;
/// impl DatasetScorer for Predicts {
///     fn name(&self) -> &str { "predicts" }
///     fn conventions(&self) -> Option<bias_core::ScoringConventions> { None }
///     fn score_into(&mut self, _: &str, _: &[SentencePair], _: &Path)
///         -> Result<RunSummary, BoxError> { Err("no".into()) }
/// }
/// impl TokenPredictor for Predicts {
///     fn token_ids(&mut self, _: &str) -> Result<Vec<i64>, BoxError> { Ok(vec![1, 2]) }
///     fn predict_tokens(&mut self, q: &[TokenQuery]) -> Result<Vec<Vec<bool>>, BoxError> {
///         Ok(q.iter().map(|q| vec![true; q.targets.len()]).collect())
///     }
/// }
///
/// let mut study = Study::new(vec![Predicts], "data", "scores")?;
/// let mut out = Reproduction::create(Paper::Kaneko2022, "out")?;
/// reproduce_kaneko2022(&mut study, &mut out, Default::default())?;
/// # Ok::<(), bias_papers::PaperError>(())
/// ```
///
/// # Errors
/// The first error of a data set, a model or a file.
pub fn reproduce_with<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: Kaneko2022Options,
) -> Result<(), PaperError> {
    out.set_study(study);
    out.option("kaneko2022 pairs in N", options.pairs_in_n.name());
    out.option("kaneko2022 label rule", options.label_rule.name());
    // Table 1 (accuracies and McNemar marks) and Table 4: the token-prediction part.
    tokens::table_1(study, out, options.accuracy)?;
    table_2(study, out, options.frequency_rank)?;
    table_3(study, out, options)?;
    tokens::table_4(study, out, options.shuffles)?;
    table_5(study, out, options)?;
    figure_1(study, out, options)?;
    equal_subtokens(study, out)?;
    Ok(())
}

const TABLE_2_TITLE: &str = "Mean frequency rank of the advantaged / disadvantaged words of \
    each CrowS-Pairs bias type, and the most frequent words of both groups";

/// The scorers of Table 5 on CrowS-Pairs and on StereoSet (the paper's column order).
const CP_SCORERS: [(&str, &str); 3] = [
    (Scorer::Cps.name(), "CPS"),
    (Scorer::Aul.name(), "AUL (CP)"),
    (Scorer::Aula.name(), "AULA (CP)"),
];
const SS_SCORERS: [(&str, &str); 3] = [
    (Scorer::Sss.name(), "SSS"),
    (Scorer::Aul.name(), "AUL (SS)"),
    (Scorer::Aula.name(), "AULA (SS)"),
];
