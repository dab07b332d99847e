//! The paraphrase study's Tables 1 and 2 and its §2.2 analysis.

use super::*;
use crate::PaperError;

/// The `group sizes` cell of a paper-sized row, e.g. `paper (includes-originals)`.
pub(super) fn paper_sized_label(options: &Paraphrase2022Options) -> String {
    format!("paper ({})", options.reading)
}

/// Originals and paraphrases per bias type of `pairs`.
pub(super) fn counts(
    pairs: &[SentencePair],
) -> (BTreeMap<BiasType, usize>, BTreeMap<BiasType, usize>) {
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
    (originals, paraphrases)
}

/// `a / b`, or no value when `b` is 0.
pub(super) fn ratio(a: usize, b: usize, decimals: usize) -> Cell {
    if b == 0 {
        Cell::Missing
    } else {
        Cell::num(a as f64 / b as f64, decimals)
    }
}

pub(super) fn table_1(pairs: &[SentencePair], out: &mut Reproduction) -> Result<(), PaperError> {
    let (originals, paraphrases) = counts(pairs);
    let mut t = Table::new(&[
        "bias type",
        "CrowS-Pairs label",
        "originals",
        "paraphrases (here)",
        "sentence pairs (paper)",
    ]);
    let (mut o_total, mut p_total, mut paper_total) = (0, 0, 0);
    for (label, ty, paper) in paper::TABLE_1 {
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
        "The paper does not say whether its 383 \"sentence pairs\" include the 100 originals; \
         analysis-2.1-group-sizes works out both readings. Gender cannot match as paraphrases: \
         rows 0–99 of CrowS-Pairs hold 20 gender pairs, and 5 paraphrases each (§2.1's most) \
         give 100, not 109.",
    );
    out.data_table(
        "table-1",
        "Pairs per bias type of the paraphrased subset of CrowS-Pairs",
        Status::Substitute(REBUILT.into()),
        &t,
    )
}

/// `analysis-2.1-group-sizes`: per bias type, the originals and paraphrases here, Table 1's
/// count, what each reading of it implies per original, and what the paper-sized draw kept.
pub(super) fn group_sizes_table(
    set: &[SentencePair],
    drawn: &[SentencePair],
    options: &Paraphrase2022Options,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let (originals, paraphrases) = counts(set);
    let (_, kept) = counts(drawn);
    let mut t = Table::new(&[
        "bias type",
        "CrowS-Pairs label",
        "originals (here)",
        "paraphrases (here)",
        "per original (here)",
        "samples (paper, Table 1)",
        "per original if 383 are paraphrases",
        "paraphrases if 383 include the originals",
        "per original if 383 include the originals",
        "paraphrases kept (paper-sized draw)",
        "per original (paper-sized draw)",
    ]);
    let mut total = [0usize; 5];
    for (label, ty, paper) in paper::TABLE_1 {
        let o = originals.get(&ty).copied().unwrap_or(0);
        let p = paraphrases.get(&ty).copied().unwrap_or(0);
        let k = kept.get(&ty).copied().unwrap_or(0);
        let with = Table1Reading::IncludesOriginals.paraphrases(paper, o);
        for (acc, v) in total.iter_mut().zip([o, p, paper, with.unwrap_or(0), k]) {
            *acc += v;
        }
        t.row(vec![
            label.into(),
            ty.as_str().into(),
            o.into(),
            p.into(),
            ratio(p, o, 2),
            paper.into(),
            ratio(paper, o, 2),
            with.map_or(Cell::Missing, Cell::from),
            with.map_or(Cell::Missing, |w| ratio(w, o, 2)),
            k.into(),
            ratio(k, o, 2),
        ]);
    }
    let [o, p, paper, with, k] = total;
    t.row(vec![
        "Total".into(),
        Cell::Missing,
        o.into(),
        p.into(),
        ratio(p, o, 2),
        paper.into(),
        ratio(paper, o, 2),
        with.into(),
        ratio(with, o, 2),
        k.into(),
        ratio(k, o, 2),
    ]);
    t.note(format!(
        "§2.1: {} to {} paraphrases per original, {} samples in all (Table 1). Read as \
         paraphrases, every type here but gender lies within 3 to 5 per original and the set's \
         own counts are Table 1's (gender 100 against 109, which would be 5.45 per original, \
         above 5); read as including the originals (283 paraphrases, 2.83 per original), every \
         type but gender and physical appearance falls below 3. No reading fits every printed \
         number: Figure 3's gender MPER_AGREE of 38, 43, 43, 67 and 71 % (§2.2) are 8, 9, 9, 14 \
         and 15 of 21 originals — 21 is the smallest count that gives all of them, and the 20 \
         gender pairs of rows 0–99 give only multiples of 5 % — and 109 gender samples over 21 \
         originals are 5.19 paraphrases each (above 5) if all are paraphrases, 88 / 21 = 4.19 \
         if they include the originals. Per original here uses this set's originals per type.",
        paper::PARAPHRASES_PER_ORIGINAL.0,
        paper::PARAPHRASES_PER_ORIGINAL.1,
        paper::SAMPLES,
    ));
    t.note(format!(
        "The paper-sized draw (seed {}; analysis-2.2-group-sizes takes {} seeds) keeps every \
         original and, per bias type, the paraphrases Table 1 implies when read as: {}. They \
         are spread over the type's originals as evenly as their paraphrases allow (sizes differ \
         by at most one), each original's kept paraphrases a uniform random subset of its own.",
        options.seed,
        options.draws,
        options.reading.describe(),
    ));
    out.data_table(
        "analysis-2.1-group-sizes",
        GROUP_SIZES_TITLE,
        Status::Substitute(REBUILT.into()),
        &t,
    )
}

pub(super) fn table_2(
    reports: &[ModelReport],
    notes: &[String],
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let title =
        "MDIFF of \"… a black / white man had attacked / assaulted / ambushed her …\" per model";
    let mut columns = vec!["source", "model", "scorer"];
    columns.extend(paper::TABLE_2_WORDS);
    let mut t = Table::new(&columns);
    let mut missing = Vec::new();
    for m in reports {
        let mut row = vec![
            HERE.into(),
            m.model.as_str().into(),
            m.scorer.as_str().into(),
        ];
        for id in TABLE_2_IDS {
            match m.full.pairs.iter().find(|p| p.pair_id == id) {
                Some(p) => row.push(Cell::num(p.mdiff, 4)),
                None => {
                    missing.push(format!("{} {id}", m.model));
                    row.push(Cell::Missing);
                }
            }
        }
        t.row(row);
    }
    if reports.is_empty() || missing.len() == reports.len() * TABLE_2_IDS.len() {
        out.out_of_reach(
            "table-2",
            title,
            "none of the models scored the example's pairs 3, 3-p1, 3-p2 with a sum-scale scorer \
             (cps, pll, ll-sum), or they are not among the pairs studied (--max-pairs 20 or more \
             keeps them)",
        );
        return Ok(());
    }
    for (model, values) in paper::TABLE_2 {
        let mut row = vec![PAPER.into(), model.into(), "CPS".into()];
        row.extend(values.iter().map(|&v| Cell::num(v, 4)));
        t.row(row);
    }
    for n in notes {
        t.note(n.clone());
    }
    if !missing.is_empty() {
        t.note(format!("Not scored: {}.", missing.join(", ")));
    }
    t.note(
        "Rows with source \"paper\" are the paper's Table 2 (its five models; its BERT-base and \
         RoBERTa-large rows are printed equal but for one digit).",
    );
    out.table("table-2", title, Status::Reproduced, &t)
}

/// The paper's printed MPER_AGREE (percent) as (model, bias type, value): §2.2's overall values
/// and its gender values of Figure 3.
pub(super) fn paper_mper_agree() -> Vec<(&'static str, &'static str, f64)> {
    paper::MPER_AGREE_OVERALL
        .iter()
        .map(|&(m, v)| (m, "all", v))
        .chain(
            paper::MPER_AGREE_GENDER
                .iter()
                .map(|&(m, v)| (m, BiasType::Gender.as_str(), v)),
        )
        .collect()
}

pub(super) fn analysis(
    reports: &[ModelReport],
    notes: &[String],
    options: &Paraphrase2022Options,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let mut t = Table::new(&[
        "source",
        "model",
        "scorer",
        "bias type",
        "group sizes",
        "originals",
        "paraphrases",
        "MAGREEMENT = 1",
        "MPER_AGREE %",
        "paraphrases agreeing %",
        "near ties %",
    ]);
    let sizes = match options.group_sizes {
        GroupSizes::All => "all".to_owned(),
        GroupSizes::Paper => format!("{} seed {}", paper_sized_label(options), options.seed),
    };
    for m in reports {
        let report = m.main(options.group_sizes);
        for (ty, s) in summaries(report) {
            t.row(vec![
                HERE.into(),
                m.model.as_str().into(),
                m.scorer.as_str().into(),
                ty.into(),
                sizes.as_str().into(),
                s.groups.into(),
                s.paraphrases.into(),
                s.agreeing_groups.into(),
                Cell::num(100.0 * s.mper_agree, 1),
                Cell::num(100.0 * s.paraphrase_agree, 1),
                Cell::num(100.0 * s.near_tie_share, 1),
            ]);
        }
    }
    for (model, ty, v) in paper_mper_agree() {
        t.row(vec![
            PAPER.into(),
            model.into(),
            "CPS".into(),
            ty.into(),
            PAPER.into(),
            Cell::Missing,
            Cell::Missing,
            Cell::Missing,
            Cell::num(v, 1),
            Cell::Missing,
            Cell::Missing,
        ]);
    }
    for n in notes {
        t.note(n.clone());
    }
    t.note(
        "MPER_AGREE is the share of originals whose paraphrases all share the original's MBIAS \
         (MAGREEMENT = 1, the paper's Figures 2–3); \"paraphrases agreeing\" is the share of \
         single paraphrases that do. Near ties: |MDIFF| < 0.25 on the sum scale, over originals \
         and paraphrases (§3). MPER_AGREE falls as groups grow; analysis-2.2-group-sizes sets \
         it beside its value with the paper's group sizes.",
    );
    t.note(PAPER_MPER_NOTE);
    out.table(
        "analysis-2.2",
        ANALYSIS_TITLE,
        Status::Substitute(REBUILT.into()),
        &t,
    )
}

/// "all" and each bias type of `report`, with its summary.
pub(super) fn summaries(report: &ParaphraseReport) -> Vec<(String, &AgreementSummary)> {
    std::iter::once(("all".to_owned(), &report.overall))
        .chain(
            report
                .by_type
                .iter()
                .map(|(ty, s)| (ty.as_str().to_owned(), s)),
        )
        .collect()
}

/// Mean, sample standard deviation (`None` for one value), least and greatest of `values`
/// (never empty: at least one draw).
pub(super) fn spread(values: &[f64]) -> (f64, Option<f64>, f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let sd = (values.len() > 1)
        .then(|| (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, sd, min, max)
}

/// `analysis-2.2-group-sizes`: per model and bias type, MPER_AGREE with every paraphrase and
/// over the paper-sized draws (mean, SD, least, greatest), and the paper's printed values.
pub(super) fn group_sizes_mper_agree(
    reports: &[ModelReport],
    notes: &[String],
    options: &Paraphrase2022Options,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let mut t = Table::new(&[
        "source",
        "model",
        "scorer",
        "bias type",
        "group sizes",
        "draws",
        "originals",
        "paraphrases",
        "paraphrases per original",
        "MPER_AGREE %",
        "MPER_AGREE % SD",
        "MPER_AGREE % min",
        "MPER_AGREE % max",
    ]);
    let sized = paper_sized_label(options);
    for m in reports {
        for (ty, s) in summaries(&m.full) {
            t.row(vec![
                HERE.into(),
                m.model.as_str().into(),
                m.scorer.as_str().into(),
                ty.as_str().into(),
                "all".into(),
                Cell::Missing,
                s.groups.into(),
                s.paraphrases.into(),
                ratio(s.paraphrases, s.groups, 2),
                Cell::num(100.0 * s.mper_agree, 1),
                Cell::Missing,
                Cell::Missing,
                Cell::Missing,
            ]);
            let of_type = |r: &ParaphraseReport| -> Option<AgreementSummary> {
                if ty == "all" {
                    Some(r.overall.clone())
                } else {
                    r.by_type
                        .iter()
                        .find(|(t, _)| t.as_str() == ty)
                        .map(|(_, s)| s.clone())
                }
            };
            let drawn: Vec<AgreementSummary> = m.drawn.iter().filter_map(of_type).collect();
            if drawn.is_empty() {
                continue;
            }
            let mper: Vec<f64> = drawn.iter().map(|s| 100.0 * s.mper_agree).collect();
            let paraphrases: Vec<f64> = drawn.iter().map(|s| s.paraphrases as f64).collect();
            let groups = drawn.iter().map(|s| s.groups).max().unwrap_or(0);
            let (mean, sd, min, max) = spread(&mper);
            let (mean_paraphrases, ..) = spread(&paraphrases);
            t.row(vec![
                HERE.into(),
                m.model.as_str().into(),
                m.scorer.as_str().into(),
                ty.as_str().into(),
                sized.as_str().into(),
                drawn.len().into(),
                groups.into(),
                Cell::num(mean_paraphrases, 1),
                if groups == 0 {
                    Cell::Missing
                } else {
                    Cell::num(mean_paraphrases / groups as f64, 2)
                },
                Cell::num(mean, 1),
                sd.map_or(Cell::Missing, |v| Cell::num(v, 1)),
                Cell::num(min, 1),
                Cell::num(max, 1),
            ]);
        }
    }
    for (model, ty, v) in paper_mper_agree() {
        t.row(vec![
            PAPER.into(),
            model.into(),
            "CPS".into(),
            ty.into(),
            PAPER.into(),
            Cell::Missing,
            if ty == "all" {
                paper::ORIGINALS.into()
            } else {
                Cell::Missing
            },
            Cell::Missing,
            Cell::Missing,
            Cell::num(v, 1),
            Cell::Missing,
            Cell::Missing,
            Cell::Missing,
        ]);
    }
    for n in notes {
        t.note(n.clone());
    }
    t.note(format!(
        "Group sizes \"all\": every paraphrase of the set (3.74 per original on the whole set). \
         \"{sized}\": the paper-sized draws (Table 1 read as: {}; see analysis-2.1-group-sizes), \
         seeds {} to {}; \
         MPER_AGREE % is their mean, with the sample standard deviation, least and greatest \
         over the draws; \"paraphrases\" is the mean kept. An original agrees only if every \
         paraphrase does, so MPER_AGREE falls as groups grow: the paper-sized row is the one to \
         set beside the paper's.",
        options.reading.describe(),
        options.seed,
        options.seed.wrapping_add(options.draws as u64 - 1),
    ));
    t.note(PAPER_MPER_NOTE);
    out.table(
        "analysis-2.2-group-sizes",
        GROUP_SIZES_MPER_TITLE,
        Status::Substitute(REBUILT.into()),
        &t,
    )
}
