//! The tables and figures of Kaneko & Bollegala (2022), "Unmasking the Mask – Evaluating Social
//! Biases in Masked Language Models" (AAAI), over every model of the study (see
//! [`super::Paper`]):
//!
//! * Table 1: token-prediction accuracy of CPS and AUL on CrowS-Pairs, SSS and AUL on StereoSet,
//!   with McNemar's marks, and Table 4 (accuracy on shuffled and unrelated sentences): written by
//!   the token-prediction part ([`super::kaneko2022_tokens`]);
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

use bias_core::Scorer;
use std::collections::HashSet;

use bias_core::{DatasetScorer, MaybeTokenPredictor, ScoreTable, SentencePair};
use bias_data::wordfreq::{self, WordFrequencies};
use bias_metrics::{Indicator, PairsInN, UnscoredPair};

use super::kaneko2022_tokens::AccuracyDefinition;
use super::published_kaneko2022 as published;
use super::{Cell, DataSet, Reproduction, Status, Study, Table};
use crate::report::file_part;
use bias_robust::frequency_rank::{self, FrequencyRankOptions, StopWords};
use bias_robust::human::{human_agreement_by, records_scored_in, LabelRule, DEFAULT_MIN_MATCHING};
use bias_robust::RobustError;

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
) -> Result<(), RobustError> {
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
/// use bias_report::reproduce::{reproduce_kaneko2022, Paper, Reproduction, Study};
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
/// # Ok::<(), bias_robust::RobustError>(())
/// ```
///
/// The same runtime with token predictions compiles:
///
/// ```no_run
/// # use std::path::Path;
/// # use bias_core::{run::RunSummary, BoxError, DatasetScorer, SentencePair};
/// use bias_core::{TokenPredictor, TokenQuery};
/// use bias_report::reproduce::{reproduce_kaneko2022, Paper, Reproduction, Study};
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
/// # Ok::<(), bias_robust::RobustError>(())
/// ```
///
/// # Errors
/// The first error of a data set, a model or a file.
pub fn reproduce_with<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: Kaneko2022Options,
) -> Result<(), RobustError> {
    out.set_study(study);
    out.option("kaneko2022 pairs in N", options.pairs_in_n.name());
    out.option("kaneko2022 label rule", options.label_rule.name());
    // Table 1 (accuracies and McNemar marks) and Table 4: the token-prediction part.
    super::kaneko2022_tokens::table_1(study, out, options.accuracy)?;
    table_2(study, out, options.frequency_rank)?;
    table_3(study, out, options)?;
    super::kaneko2022_tokens::table_4(study, out, options.shuffles)?;
    table_5(study, out, options)?;
    figure_1(study, out, options)?;
    equal_subtokens(study, out)?;
    Ok(())
}

const TABLE_2_TITLE: &str = "Mean frequency rank of the advantaged / disadvantaged words of \
    each CrowS-Pairs bias type, and the most frequent words of both groups";

/// Table 2 on substitute data: wordfreq's English frequencies for Wikipedia + BookCorpus and
/// group words rebuilt from the words CrowS-Pairs modifies ([`bias_robust::frequency_rank`]). Needs no
/// model, so it always uses every CrowS-Pairs pair (also under `--max-pairs`). Without the
/// wordfreq file under the data directory the table is listed as out of reach, saying how to
/// fetch it; a damaged file is an error.
fn table_2<M: DatasetScorer + MaybeTokenPredictor>(
    study: &Study<M>,
    out: &mut Reproduction,
    options: FrequencyRankOptions,
) -> Result<(), RobustError> {
    let crows = bias_data::layout::crows_pairs(study.data_dir());
    let records = bias_data::crows_pairs::read_crows_pairs_path(&crows)?;
    let list = wordfreq::default_path(study.data_dir());
    if !list.is_file() {
        out.out_of_reach(
            "table-2",
            TABLE_2_TITLE,
            format!(
                "needs wordfreq's English frequencies (the substitute for Wikipedia + \
                 BookCorpus) at {}; run `bash scripts/setup.sh` (it fetches them with the other \
                 data sets) or pass the --data-dir that holds wordfreq/large_en.msgpack.gz",
                list.display()
            ),
        );
        return Ok(());
    }
    let freqs = WordFrequencies::read_path(&list)?;
    let groups = frequency_rank::group_words(&records, &options);
    let k = options.words_per_group;
    let mut columns: Vec<String> = ["bias type", "Adv", "Dis"].map(String::from).to_vec();
    columns.extend((1..=2 * k).map(|r| r.to_string()));
    columns.extend(
        [
            "pairs",
            "Adv words",
            "Dis words",
            "in both groups",
            "ties dropped",
            "unknown to wordfreq",
            "stop words dropped",
            "non-letter words dropped",
        ]
        .map(String::from),
    );
    let mut t = Table::new(&columns);
    let empty = frequency_rank::GroupWords::default();
    for ty in frequency_rank::TABLE_2_ORDER {
        let g = groups.get(ty.as_str()).unwrap_or(&empty);
        let r = frequency_rank::rank_groups(
            &g.advantaged,
            &g.disadvantaged,
            |w| freqs.bucket(w),
            &options,
        );
        let mean = |m: Option<f64>| m.map_or(Cell::Missing, |v| Cell::num(v, 2));
        let mut row = vec![
            Cell::Text(ty.as_str().to_owned()),
            mean(r.advantaged_mean_rank),
            mean(r.disadvantaged_mean_rank),
        ];
        row.extend((0..2 * k).map(|i| {
            r.top.get(i).map_or(Cell::Missing, |w| {
                Cell::Text(format!("{} ({})", w.word, w.group.mark()))
            })
        }));
        row.extend(
            [
                g.pairs,
                g.advantaged.len(),
                g.disadvantaged.len(),
                g.in_both,
                g.ties.len(),
                r.unknown,
                g.stop_words_dropped,
                g.non_letters_dropped,
            ]
            .map(|n| Cell::Int(i64::try_from(n).unwrap_or(i64::MAX))),
        );
        t.row(row);
    }
    t.note(format!(
        "Substitute data. Frequencies: wordfreq 3.1.1 `large_en` (Speer 2022; Wikipedia, \
         subtitles, news, books, web text; CC BY-SA 4.0), not the paper's Wikipedia (2018-09) + \
         BookCorpus counts. Group words: not the paper's lists (unpublished, filtered by hand for \
         non-stereotypical senses such as colours, which cannot be repeated) but the words that \
         differ between the two sentences of each of the {} CrowS-Pairs pairs (difflib opcodes \
         over whitespace tokens, lowercased, punctuation stripped from both ends, a final 's \
         removed); the `sent_more` words go to Dis for `stereo` pairs and to Adv for \
         `antistereo` pairs, the `sent_less` words to the other group (the split of Table 3). \
         Only words of letters a-z count.",
        records.len()
    ));
    t.note(match options.stop_words {
        StopWords::Drop => format!(
            "Stop words dropped ({} function words: articles, determiners, quantifiers, \
             prepositions, conjunctions, auxiliaries, modals, negation, common adverbs, \
             interrogatives; personal, possessive and reflexive pronouns kept since the paper's \
             gender row lists he, his, her, she): {}.",
            frequency_rank::STOP_WORDS.len(),
            frequency_rank::STOP_WORDS.join(", ")
        ),
        StopWords::Keep => "Stop words kept (--kaneko2022-stop-words keep).".to_owned(),
    });
    t.note(format!(
        "A word modified on both sides goes to the group where it is modified more often (the \
         paper: \"the group with the higher frequency\"); a tie drops it. Ranked: the {k} most \
         frequent words of each group (equal frequencies alphabetically), ordered by frequency; \
         Adv / Dis = the mean rank of each group's words (lower = more frequent). (A) \
         advantaged, (D) disadvantaged. Every pair is used, also under --max-pairs (no model is \
         involved). Expect ordinary words among the top words (on the full data set: people, \
         good, new, man), not only group terms: a rough stand-in."
    ));
    out.data_table(
        "table-2",
        TABLE_2_TITLE,
        Status::Substitute(
            "wordfreq 3.1.1 large_en frequencies for Wikipedia + BookCorpus; group words = the \
             words each CrowS-Pairs pair modifies (function words dropped), not the paper's \
             hand-filtered lists"
                .to_owned(),
        ),
        &t,
    )
}

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

/// The rows of one scorer, or `None` if the model has no such scorer.
fn slice(table: &ScoreTable, scorer: &str) -> Option<ScoreTable> {
    let t = table.for_scorer(scorer);
    (!t.is_empty()).then_some(t)
}

/// The pairs of `pairs` without a row in `table` (one scorer's slice), as [`UnscoredPair`]s.
fn unscored(pairs: &[SentencePair], table: &ScoreTable) -> Vec<UnscoredPair> {
    let ids: HashSet<&str> = table.rows().iter().map(|r| r.pair_id.as_str()).collect();
    pairs
        .iter()
        .filter(|p| !ids.contains(p.id.as_str()))
        .map(|p| UnscoredPair {
            pair_id: p.id.clone(),
            bias_type: p.bias_type.clone(),
        })
        .collect()
}

/// Eq. (6) of one scorer's slice with `N` as chosen: (bias score, N, pairs unscored).
fn bias_score(
    pairs: &[SentencePair],
    table: &ScoreTable,
    n: PairsInN,
) -> Result<(f64, usize, usize), RobustError> {
    let (m, left) = bias_measurement(pairs, table, n)?;
    Ok((m.value, m.n, left))
}

/// Eq. (6) of one scorer's slice, overall and per bias type, with `N` as chosen; and how many
/// pairs are unscored.
fn bias_measurement(
    pairs: &[SentencePair],
    table: &ScoreTable,
    n: PairsInN,
) -> Result<(bias_core::Measurement, usize), RobustError> {
    let left = unscored(pairs, table);
    let r = Indicator::default().report_with_unscored(table, &left, n)?;
    Ok((r.measurement, left.len()))
}

/// Table 3: Eq. (6) over the advantaged (`antistereo`) and disadvantaged (`stereo`) pairs.
fn table_3<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: Kaneko2022Options,
) -> Result<(), RobustError> {
    let scorers = [
        (Scorer::AllMasked.name(), "All Masked (CP)"),
        (Scorer::Aul.name(), "AUL (CP)"),
        (Scorer::Aula.name(), "AULA (CP)"),
    ];
    let mut columns = vec!["MLM".to_owned()];
    for (_, label) in scorers {
        for part in ["Adv", "Dis", "|Diff|"] {
            columns.push(format!("{label} {part}"));
        }
    }
    let mut t = Table::new(&columns);
    let pairs = study.pairs(DataSet::CrowsPairs)?.to_vec();
    let split: [Vec<SentencePair>; 2] = [
        bias_core::Direction::Antistereo,
        bias_core::Direction::Stereo,
    ]
    .map(|d| pairs.iter().filter(|p| p.direction == d).cloned().collect());
    for i in 0..study.len() {
        let name = study.model_names()[i].clone();
        let table = study.scores(i, DataSet::CrowsPairs)?.clone();
        let mut row = vec![Cell::Text(name.clone())];
        let mut touched = Vec::new();
        for (scorer, label) in scorers {
            let Some(sl) = slice(&table, scorer) else {
                row.extend([Cell::Missing, Cell::Missing, Cell::Missing]);
                continue;
            };
            let mut values = [0.0; 2];
            for (k, group) in split.iter().enumerate() {
                if group.is_empty() {
                    values[k] = f64::NAN;
                    continue;
                }
                let ids: HashSet<&str> = group.iter().map(|p| p.id.as_str()).collect();
                let rows: Vec<_> = (sl.rows().iter())
                    .filter(|r| ids.contains(r.pair_id.as_str()))
                    .cloned()
                    .collect();
                let part = ScoreTable::new(rows);
                let left = unscored(group, &part);
                values[k] = if part.is_empty() && options.pairs_in_n == PairsInN::Scored {
                    f64::NAN
                } else if part.is_empty() {
                    0.0
                } else {
                    bias_score(group, &part, options.pairs_in_n)?.0
                };
                if !left.is_empty() {
                    touched.push(format!("{label} {}: {}", ["Adv", "Dis"][k], left.len()));
                }
            }
            row.push(Cell::num(values[0], 2));
            row.push(Cell::num(values[1], 2));
            row.push(Cell::num((values[0] - values[1]).abs(), 2));
        }
        t.row(row);
        if !touched.is_empty() {
            t.note(format!(
                "{name}: unscored pairs ({}): {}.",
                n_rule(options.pairs_in_n),
                touched.join(", ")
            ));
        }
    }
    for (m, values) in published::TABLE_3.iter().enumerate() {
        let mut row = vec![Cell::Text(published::row_label(published::MODELS[m]))];
        row.extend(values.iter().map(|v| Cell::num(*v, 2)));
        t.row(row);
    }
    t.note(
        "The `paper:` rows are the paper's Table 3 (bert-base-cased, roberta-large, \
         albert-large-v2).",
    );
    t.note(format!(
        "Adv: the {} `antistereo` pairs (biased towards the advantaged group); Dis: the {} \
         `stereo` pairs. Bias score = 100/N Σ 𝕀(f(sent_more) > f(sent_less)) (Eq. 6); \
         |Diff| = |Adv − Dis|.",
        split[0].len(),
        split[1].len()
    ));
    out.table(
        "table-3",
        "Bias score of the advantaged (Adv) and disadvantaged (Dis) groups in CrowS-Pairs under \
         All Masked, AUL and AULA, and |Diff|",
        Status::Reproduced,
        &t,
    )
}

fn n_rule(n: PairsInN) -> &'static str {
    match n {
        PairsInN::All => "in N as not stereotypical, as the paper and the authors' code count them",
        PairsInN::Scored => "left out of N",
    }
}

/// Table 5: the bias scores of Eq. (6).
fn table_5<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: Kaneko2022Options,
) -> Result<(), RobustError> {
    let mut columns = vec!["MLM"];
    columns.extend(CP_SCORERS.iter().chain(&SS_SCORERS).map(|(_, l)| *l));
    let mut t = Table::new(&columns);
    let mut by_type = Table::new(&[
        "MLM",
        "data set",
        "bias type",
        "N",
        "CPS",
        "SSS",
        "AUL",
        "AULA",
    ]);
    let other = match options.pairs_in_n {
        PairsInN::All => PairsInN::Scored,
        PairsInN::Scored => PairsInN::All,
    };
    for i in 0..study.len() {
        let name = study.model_names()[i].clone();
        let mut row = vec![Cell::Text(name.clone())];
        let mut touched = Vec::new();
        for (set, scorers) in [
            (DataSet::CrowsPairs, CP_SCORERS),
            (DataSet::StereoSet, SS_SCORERS),
        ] {
            let pairs = study.pairs(set)?.to_vec();
            let table = study.scores(i, set)?.clone();
            // Per bias type: one row per type, the scorers in the columns CPS, SSS, AUL, AULA.
            let mut types: std::collections::BTreeMap<String, (usize, [Option<f64>; 4])> =
                std::collections::BTreeMap::new();
            for ty in pairs.iter().map(|p| p.bias_type.as_str().to_owned()) {
                types.entry(ty).or_insert((0, [None; 4])).0 += 1;
            }
            for (scorer, label) in scorers {
                match slice(&table, scorer) {
                    Some(sl) => {
                        let (m, left) = bias_measurement(&pairs, &sl, options.pairs_in_n)?;
                        let (v, n) = (m.value, m.n);
                        let column = [
                            Scorer::Cps.name(),
                            Scorer::Sss.name(),
                            Scorer::Aul.name(),
                            Scorer::Aula.name(),
                        ]
                        .iter()
                        .position(|s| *s == scorer)
                        .expect("a scorer of Table 5");
                        for (ty, tv) in &m.by_type {
                            if let Some(e) = types.get_mut(ty.as_str()) {
                                e.1[column] = Some(tv.value);
                            }
                        }
                        row.push(Cell::num(v, 2));
                        if left > 0 {
                            let (w, m, _) = bias_score(&pairs, &sl, other)?;
                            touched.push(format!(
                                "{label}: {left} unscored (N = {n}; with N = {m}, {}: {w:.2})",
                                other.name()
                            ));
                        }
                    }
                    None => row.push(Cell::Missing),
                }
            }
            for (ty, (n, values)) in types {
                let mut r = vec![
                    Cell::Text(name.clone()),
                    Cell::Text(set.name().to_owned()),
                    Cell::Text(ty),
                    n.into(),
                ];
                r.extend(values.map(|v| v.map_or(Cell::Missing, |v| Cell::num(v, 2))));
                by_type.row(r);
            }
        }
        t.row(row);
        if !touched.is_empty() {
            t.note(format!(
                "{name}: pairs a scorer left out (identical tokenisation; SSS without a \
                 modified token), {}: {}.",
                n_rule(options.pairs_in_n),
                touched.join("; ")
            ));
        }
    }
    for (m, values) in published::TABLE_5.iter().enumerate() {
        let mut row = vec![Cell::Text(published::row_label(published::MODELS[m]))];
        row.extend(values.iter().map(|v| Cell::num(*v, 2)));
        t.row(row);
    }
    t.note(
        "The `paper:` rows are the paper's Table 5 (bert-base-cased, roberta-large, \
         albert-large-v2), computed by the authors' evaluate.py: the matrix SSS, CPS rounded to \
         3 decimals.",
    );
    if let Some(n) = study.conventions_note() {
        t.note(n);
    }
    t.note(
        "Bias score = 100/N Σ 𝕀(f(S_st) > f(S_at)) (Eq. 6), 50 = unbiased; CrowS-Pairs compares \
         sent_more with sent_less, StereoSet (intrasentence dev) the stereotype with the \
         anti-stereotype. `–`: the model has no such scorer (a causal LM).",
    );
    out.table(
        "table-5",
        "Bias scores of CPS, AUL, AULA on CrowS-Pairs and SSS, AUL, AULA on StereoSet",
        Status::Reproduced,
        &t,
    )?;
    by_type.note(format!(
        "Table 5 per bias type: Eq. (6) over the pairs of each type, N = the type's pairs ({}); \
         the authors' evaluate.py prints these lines (it omits a type without a stereotypical \
         win). CPS is CrowS-Pairs' masked scorer, SSS StereoSet's.",
        n_rule(options.pairs_in_n)
    ));
    if let Some(n) = study.conventions_note() {
        by_type.note(n);
    }
    out.table(
        "table-5-by-type",
        "Table 5's bias scores per bias type",
        Status::Reproduced,
        &by_type,
    )
}

/// Figure 1: ROC of each scorer's score difference against the human "biased" label, per model
/// (`figure-1` for the first model, `figure-1-<model>` for the others), and their AUCs.
fn figure_1<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: Kaneko2022Options,
) -> Result<(), RobustError> {
    let path = bias_data::layout::crows_pairs(study.data_dir());
    let records = bias_data::crows_pairs::read_crows_pairs_path(&path)?;
    let mut aucs = Table::new(&["MLM", "scorer", "pairs", "biased", "not biased", "AUC"]);
    let title = "ROC curves and AUC of AUL, AULA, CPS and SSS against the CrowS-Pairs human \
                 annotations";
    let mut drawn = 0;
    for i in 0..study.len() {
        let name = study.model_names()[i].clone();
        let table = study.scores(i, DataSet::CrowsPairs)?.clone();
        let mut curves = Vec::new();
        for (scorer, label) in [
            (Scorer::Aul.name(), "AUL"),
            (Scorer::Aula.name(), "AULA"),
            (Scorer::Cps.name(), "CPS"),
            (Scorer::Sss.name(), "SSS"),
        ] {
            let Some(sl) = slice(&table, scorer) else {
                continue;
            };
            let kept = records_scored_in(&records, &sl);
            match human_agreement_by(&kept, &sl, DEFAULT_MIN_MATCHING, options.label_rule) {
                Ok(h) => {
                    aucs.row(vec![
                        Cell::Text(name.clone()),
                        Cell::Text(label.into()),
                        h.n.into(),
                        h.biased.into(),
                        h.not_biased.into(),
                        Cell::num(h.auc, 4),
                    ]);
                    curves.push((format!("{label} ({name})"), h));
                }
                // Every pair with one label (a short --max-pairs run): no curve.
                Err(RobustError::Metrics(e)) => {
                    aucs.note(format!("{name} {label}: no ROC curve ({e})."));
                }
                Err(e) => return Err(e),
            }
        }
        if curves.is_empty() {
            continue;
        }
        let id = if drawn == 0 {
            "figure-1".to_owned()
        } else {
            format!("figure-1-{}", file_part(&name))
        };
        let refs: Vec<(&str, &bias_metrics::stats::RocCurve, f64)> = curves
            .iter()
            .map(|(l, h)| (l.as_str(), &h.roc, h.auc))
            .collect();
        crate::figures::roc_curves(&refs, out.figure_stem(&id))?;
        out.figure(&id, &format!("{title} ({name})"), Status::Reproduced);
        drawn += 1;
    }
    aucs.note(format!(
        "A pair is biased when at least {DEFAULT_MIN_MATCHING} of its five validators' \
         annotations {} (label rule `{}`); the score of a pair is f(sent_more) − f(sent_less). \
         Pairs a scorer left out of its table are not in its curve.",
        match options.label_rule {
            LabelRule::MatchingBiasType => "name its bias type, as the paper counts them",
            LabelRule::AnyAnnotation => {
                "are non-empty, as the initial commit of the authors' preprocess.py (6a7ab8c, \
                 removed in 8defce5) counted them"
            }
        },
        options.label_rule.name()
    ));
    if let Some(n) = study.conventions_note() {
        aucs.note(n);
    }
    if drawn == 0 {
        out.out_of_reach(
            "figure-1",
            title,
            "no model has a masked-LM scorer with both human labels among its scored pairs",
        );
    }
    out.table(
        "figure-1-auc",
        "The AUCs of Figure 1, every model",
        Status::Reproduced,
        &aucs,
    )
}

/// The count of StereoSet items whose candidates have the same number of subtokens: the two
/// sentences differ only in the candidate, so the items whose AUL rows score as many tokens in
/// both sentences (plus the items skipped because both sentences tokenise identically).
fn equal_subtokens<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
) -> Result<(), RobustError> {
    let mut t = Table::new(&["MLM", "items", "equal subtokens", "different"]);
    let items = study.pairs(DataSet::StereoSet)?.len();
    for i in 0..study.len() {
        let name = study.model_names()[i].clone();
        let table = study.scores(i, DataSet::StereoSet)?.clone();
        let tally = study.tally(i, DataSet::StereoSet)?;
        let rows = table.for_scorer(Scorer::Aul.name());
        let counted: Option<Vec<bool>> = rows
            .rows()
            .iter()
            .map(|r| Some(r.tokens_stereo? == r.tokens_anti?))
            .collect();
        match counted {
            Some(c) if !rows.is_empty() => {
                let equal = c.iter().filter(|&&e| e).count() + tally.skipped_identical.len();
                t.row(vec![
                    Cell::Text(name),
                    items.into(),
                    equal.into(),
                    (items - equal).into(),
                ]);
            }
            _ => {
                t.row(vec![
                    Cell::Text(name),
                    items.into(),
                    Cell::Missing,
                    Cell::Missing,
                ]);
                t.note("`–`: the model has no AUL rows with token counts (not a masked LM).");
            }
        }
    }
    for (m, equal) in published::EQUAL_SUBTOKENS.iter().enumerate() {
        t.row(vec![
            Cell::Text(published::row_label(published::MODELS[m])),
            published::STEREOSET_ITEMS.into(),
            (*equal).into(),
            (published::STEREOSET_ITEMS - equal).into(),
        ]);
    }
    t.note(
        "An item's two candidates have the same number of subtokens exactly when its \
         stereotype and anti-stereotype sentences do (the context is shared): counted from the \
         AUL rows' token counts, plus the items whose sentences tokenise identically.",
    );
    out.table(
        "analysis-equal-subtokens",
        "StereoSet intrasentence items whose two candidates have the same number of subtokens \
         (section \"Token Prediction Accuracy\")",
        Status::Reproduced,
        &t,
    )
}
