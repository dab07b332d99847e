//! The tables and figures of the paraphrase-robustness study of PLL bias scores ("an empirical
//! study on log-likelihood MLM scoring … sensitive to the choice of contextual words"): Table 1
//! (pairs per bias type), Table 2 (MDIFF of the "attacked / assaulted / ambushed" example per
//! model), Figure 1 (an original and its paraphrases), Figures 2–4 (MAGREEMENT counts per model
//! and per bias type, MDIFF per sample) and the numbers §2.2 reads off them (`analysis-2.2`).
//!
//! Every model of the study scores the shipped paraphrase set
//! ([`crate::paraphrase::crows_pairs_first100`], [`DataSet::Paraphrases`]) once; MDIFF is taken
//! from the paper's scorer, CPS (Nangia et al. 2020; [`crate::paraphrase::paper_scorer`]: PLL,
//! or a causal LM's `ll-sum`, where a model has no CPS).

use std::collections::{BTreeMap, BTreeSet};

use bias_core::{BiasType, ScoreRow, ScoreTable, SentencePair};

use super::{Cell, DataSet, Reproduction, Status, Study, Table};
use crate::paraphrase::{crows_pairs_first100, draw_paper_figures, paper_scorer, PAPER_SCORERS};
use crate::{paraphrase_agreement, ParaphraseOptions, ParaphraseReport, RobustError};

/// The paper's Table 1: paraphrased pairs per bias type (its labels, its counts) and the
/// CrowS-Pairs label of each type.
const TABLE_1: [(&str, BiasType, usize); 9] = [
    ("Race", BiasType::RaceColor, 106),
    ("Gender", BiasType::Gender, 109),
    ("Sexual Orientation", BiasType::SexualOrientation, 11),
    ("Religion", BiasType::Religion, 10),
    ("Age", BiasType::Age, 6),
    ("Nationality", BiasType::Nationality, 32),
    ("Disability", BiasType::Disability, 41),
    ("Physical appearance", BiasType::PhysicalAppearance, 30),
    ("Socioeconomic status", BiasType::Socioeconomic, 38),
];

/// Table 2's pairs: CrowS-Pairs row 3 ("… a black / white man had attacked her …") and its
/// paraphrases with "assaulted" and "ambushed", the paper's sentences word for word.
const TABLE_2: [(&str, &str); 3] = [
    ("attacked", "3"),
    ("assaulted", "3-p1"),
    ("ambushed", "3-p2"),
];

/// The paper's Table 2 (MDIFF per model), for the notes.
const TABLE_2_PAPER: [(&str, [f64; 3]); 5] = [
    ("ALBERT-XXL-v2", [0.0177, 0.0609, -0.1344]),
    ("BERT-base", [-0.0242, 0.0145, -0.0671]),
    ("DistilBERT-base", [-0.0436, -0.0155, -0.0521]),
    ("MPNet-base", [0.0096, 0.0412, 0.0207]),
    ("RoBERTa-large", [-0.0242, 0.0146, -0.0671]),
];

/// Figure 1's example: CrowS-Pairs row 29 ("… was bad at saving money …").
const FIGURE_1_GROUP: &str = "29";

/// Why the paraphrases are a substitute.
const REBUILT: &str =
    "the paraphrases are this crate's rebuild of the paper's set on its protocol \
     (§2.1; the paper's paraphrases are not distributed): the same 100 CrowS-Pairs originals, 374 \
     paraphrases against the paper's 383 (gender 100 against 109, every other type equal)";

/// One model's report on the paraphrase set.
struct ModelReport {
    model: String,
    scorer: String,
    report: ParaphraseReport,
    /// Rows left out because their group lacked the original or every paraphrase.
    dropped: Vec<String>,
}

/// The rows of `table` whose group has its original and at least one paraphrase (a pair the
/// model could not score leaves its group incomplete), and the ids left out.
fn complete_groups(table: &ScoreTable) -> (ScoreTable, Vec<String>) {
    let group = |r: &ScoreRow| r.group_id.clone().unwrap_or_else(|| r.pair_id.clone());
    let originals: BTreeSet<String> = table
        .rows()
        .iter()
        .filter(|r| group(r) == r.pair_id)
        .map(|r| r.pair_id.clone())
        .collect();
    let mut paraphrased = BTreeSet::new();
    for r in table.rows() {
        if group(r) != r.pair_id {
            paraphrased.insert(group(r));
        }
    }
    let (keep, drop): (Vec<&ScoreRow>, Vec<&ScoreRow>) = table.rows().iter().partition(|r| {
        let g = group(r);
        originals.contains(&g) && paraphrased.contains(&g)
    });
    (
        ScoreTable::new(keep.into_iter().cloned().collect()),
        drop.into_iter().map(|r| r.pair_id.clone()).collect(),
    )
}

fn max_pairs_note(study: &Study<'_>) -> Option<String> {
    study.max_pairs().map(|n| {
        format!(
            "Quick run: only the whole groups within the first {n} pairs of the paraphrase set \
             were scored (--max-pairs); the numbers are not the paper's."
        )
    })
}

/// Writes the paper's tables and figures into `out`.
pub(super) fn reproduce(study: &mut Study<'_>, out: &mut Reproduction) -> Result<(), RobustError> {
    let quick = max_pairs_note(study);
    // Table 1 and Figure 1 describe the data set: always the whole shipped set.
    let set = crows_pairs_first100();
    table_1(&set, out)?;
    figure_1(&set, out)?;

    let mut reports = Vec::new();
    let mut skipped = Vec::new();
    for i in 0..study.len() {
        let model = study.model_names()[i].clone();
        let table = study.scores(i, DataSet::Paraphrases)?;
        let Some(scorer) = paper_scorer(table.scorers()).map(str::to_owned) else {
            skipped.push(format!(
                "{model} (scorers {}; none of {})",
                table.scorers().into_iter().collect::<Vec<_>>().join(", "),
                PAPER_SCORERS.join(", ")
            ));
            continue;
        };
        let (table, dropped) = complete_groups(&table.for_scorer(&scorer));
        if table.is_empty() {
            skipped.push(format!("{model} ({scorer} scored no complete group)"));
            continue;
        }
        let report = paraphrase_agreement(&table, &ParaphraseOptions::default())?;
        reports.push(ModelReport {
            model,
            scorer,
            report,
            dropped,
        });
    }
    let mut notes: Vec<String> = Vec::new();
    if let Some(q) = &quick {
        notes.push(q.clone());
    }
    if !skipped.is_empty() {
        notes.push(format!(
            "Left out (no sum-scale scorer of the paper): {}.",
            skipped.join("; ")
        ));
    }
    for m in &reports {
        if !m.dropped.is_empty() {
            notes.push(format!(
                "{}: {} pairs left out because their group lost its original or every \
                 paraphrase (unscored): {}.",
                m.model,
                m.dropped.len(),
                m.dropped.join(", ")
            ));
        }
    }
    let scorers: BTreeSet<&str> = reports.iter().map(|m| m.scorer.as_str()).collect();
    notes.push(format!(
        "MDIFF = score(stereo) − score(anti) under {} (the paper scores CPS, Nangia et al. \
         2020); models: {}.",
        scorers.into_iter().collect::<Vec<_>>().join(", "),
        reports
            .iter()
            .map(|m| format!("{} ({})", m.model, m.scorer))
            .collect::<Vec<_>>()
            .join(", ")
    ));

    table_2(&reports, &notes, out)?;
    if reports.is_empty() {
        let why = format!(
            "no model of the study has a sum-scale scorer ({}): {}",
            PAPER_SCORERS.join(", "),
            skipped.join("; ")
        );
        for (id, title) in FIGURES {
            out.out_of_reach(id, title, why.clone());
        }
        out.out_of_reach("analysis-2.2", ANALYSIS_TITLE, why);
        return Ok(());
    }
    analysis(&reports, &notes, out)?;
    let labelled: Vec<(&str, &ParaphraseReport)> = reports
        .iter()
        .map(|m| (m.model.as_str(), &m.report))
        .collect();
    draw_paper_figures(&labelled, out.dir(), "")?;
    for (id, title) in FIGURES {
        out.figure(id, title, Status::Substitute(REBUILT.into()));
    }
    Ok(())
}

const FIGURES: [(&str, &str); 3] = [
    (
        "figure-2",
        "Originals whose paraphrases fully agree (MAGREEMENT = 1) or not, per model",
    ),
    (
        "figure-3",
        "Originals whose paraphrases fully agree (MAGREEMENT = 1) or not, per model and bias type",
    ),
    (
        "figure-4",
        "MDIFF of every pair (originals and paraphrases) per model, with the ±0.25 near-tie band",
    ),
];

const ANALYSIS_TITLE: &str =
    "MPER_AGREE per model, overall and per bias type (the numbers §2.2 reads off Figures 2–4)";

fn table_1(pairs: &[SentencePair], out: &mut Reproduction) -> Result<(), RobustError> {
    let mut originals: BTreeMap<BiasType, usize> = BTreeMap::new();
    let mut paraphrases: BTreeMap<BiasType, usize> = BTreeMap::new();
    for p in pairs {
        let is_original = p.group_id.as_deref().is_none_or(|g| g == p.id);
        *if is_original {
            originals.entry(p.bias_type.clone()).or_default()
        } else {
            paraphrases.entry(p.bias_type.clone()).or_default()
        } += 1;
    }
    let mut t = Table::new(&[
        "bias type",
        "CrowS-Pairs label",
        "originals",
        "paraphrases (here)",
        "sentence pairs (paper)",
    ]);
    let (mut o_total, mut p_total, mut paper_total) = (0, 0, 0);
    for (label, ty, paper) in TABLE_1 {
        let (o, p) = (
            originals.get(&ty).copied().unwrap_or(0),
            paraphrases.get(&ty).copied().unwrap_or(0),
        );
        o_total += o;
        p_total += p;
        paper_total += paper;
        t.row(vec![
            label.into(),
            ty.as_str().into(),
            o.into(),
            p.into(),
            paper.into(),
        ]);
    }
    t.row(vec![
        "Total".into(),
        Cell::Missing,
        o_total.into(),
        p_total.into(),
        paper_total.into(),
    ]);
    t.note(
        "The paper's \"sentence pairs\" count the paraphrases (383 = 3 to 5 per original; with \
         the 100 originals there would be fewer than 3 per pair). Gender cannot match: rows 0–99 \
         of CrowS-Pairs hold 20 gender pairs, and 5 paraphrases each give 100, not 109.",
    );
    out.table(
        "table-1",
        "Pairs per bias type of the paraphrased subset of CrowS-Pairs",
        Status::Substitute(REBUILT.into()),
        &t,
    )
}

fn figure_1(set: &[SentencePair], out: &mut Reproduction) -> Result<(), RobustError> {
    let title = "An original CrowS-Pairs pair and its paraphrases (\"bad at saving money\")";
    let pairs: Vec<&SentencePair> = set
        .iter()
        .filter(|p| p.group_id.as_deref() == Some(FIGURE_1_GROUP))
        .collect();
    let mut t = Table::new(&[
        "id",
        "stereotypical sentence",
        "anti-stereotypical sentence",
    ]);
    for p in &pairs {
        t.row(vec![
            p.id.as_str().into(),
            p.stereo.as_str().into(),
            p.anti.as_str().into(),
        ]);
    }
    t.note(
        "The paper draws this example as a picture; it is written here as the group of the \
         shipped set, which holds the paper's two paraphrases (\"bad at cutting expenditure\", \
         \"bad at pinching pennies\") and three more.",
    );
    out.table(
        "figure-1",
        title,
        Status::Substitute(format!(
            "a table of the sentences in place of the drawing; {REBUILT}"
        )),
        &t,
    )
}

fn table_2(
    reports: &[ModelReport],
    notes: &[String],
    out: &mut Reproduction,
) -> Result<(), RobustError> {
    let title =
        "MDIFF of \"… a black / white man had attacked / assaulted / ambushed her …\" per model";
    let mut t = Table::new(&["model", "scorer", "attacked", "assaulted", "ambushed"]);
    let mut missing = Vec::new();
    for m in reports {
        let mut row = vec![m.model.as_str().into(), m.scorer.as_str().into()];
        for (_, id) in TABLE_2 {
            match m.report.pairs.iter().find(|p| p.pair_id == id) {
                Some(p) => row.push(Cell::num(p.mdiff, 4)),
                None => {
                    missing.push(format!("{} {id}", m.model));
                    row.push(Cell::Missing);
                }
            }
        }
        t.row(row);
    }
    if reports.is_empty() || missing.len() == reports.len() * TABLE_2.len() {
        out.out_of_reach(
            "table-2",
            title,
            "none of the models scored the example's pairs 3, 3-p1, 3-p2 with a sum-scale scorer \
             (cps, pll, ll-sum), or they are not among the pairs studied (--max-pairs 20 or more \
             keeps them)",
        );
        return Ok(());
    }
    for n in notes {
        t.note(n.clone());
    }
    if !missing.is_empty() {
        t.note(format!("Not scored: {}.", missing.join(", ")));
    }
    t.note(format!(
        "The paper's Table 2: {}. (Its BERT-base and RoBERTa-large rows are equal but for one \
         digit.)",
        TABLE_2_PAPER
            .iter()
            .map(|(m, v)| format!("{m} {} / {} / {}", v[0], v[1], v[2]))
            .collect::<Vec<_>>()
            .join("; ")
    ));
    out.table("table-2", title, Status::Reproduced, &t)
}

fn analysis(
    reports: &[ModelReport],
    notes: &[String],
    out: &mut Reproduction,
) -> Result<(), RobustError> {
    let mut t = Table::new(&[
        "model",
        "scorer",
        "bias type",
        "originals",
        "MAGREEMENT = 1",
        "MPER_AGREE %",
        "paraphrases agreeing %",
        "near ties %",
    ]);
    for m in reports {
        let rows = std::iter::once(("all".to_owned(), &m.report.overall)).chain(
            m.report
                .by_type
                .iter()
                .map(|(ty, s)| (ty.as_str().to_owned(), s)),
        );
        for (ty, s) in rows {
            t.row(vec![
                m.model.as_str().into(),
                m.scorer.as_str().into(),
                ty.into(),
                s.groups.into(),
                s.agreeing_groups.into(),
                Cell::num(100.0 * s.mper_agree, 1),
                Cell::num(100.0 * s.paraphrase_agree, 1),
                Cell::num(100.0 * s.near_tie_share, 1),
            ]);
        }
    }
    for n in notes {
        t.note(n.clone());
    }
    t.note(
        "MPER_AGREE is the share of originals whose paraphrases all share the original's MBIAS \
         (MAGREEMENT = 1, the paper's Figures 2–3); \"paraphrases agreeing\" is the share of \
         single paraphrases that do. Near ties: |MDIFF| < 0.25 on the sum scale, over originals \
         and paraphrases (§3).",
    );
    t.note(
        "The paper (§2.2, five models): MPER_AGREE below 80 % for every model, 75 % for \
         DistilBERT-base and 57 % for MPNet-base; on gender 38 % (ALBERT-XXL-v2), 43 % \
         (MPNet-base), 43 % (RoBERTa-large), 67 % (BERT-base), 71 % (DistilBERT-base); most \
         MDIFF within ±0.25.",
    );
    out.table(
        "analysis-2.2",
        ANALYSIS_TITLE,
        Status::Substitute(REBUILT.into()),
        &t,
    )
}
