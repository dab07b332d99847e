//! kaneko2022's Tables 2, 3 and 5 (bias scores, frequency ranks, advantaged groups).

use super::*;
use crate::PaperError;

/// Table 2 on substitute data: wordfreq's English frequencies for Wikipedia + BookCorpus and
/// group words rebuilt from the words CrowS-Pairs modifies ([`bias_robust::frequency_rank`]). Needs no
/// model, so it always uses every CrowS-Pairs pair (also under `--max-pairs`). Without the
/// wordfreq file under the data directory the table is listed as out of reach, saying how to
/// fetch it; a damaged file is an error.
pub(super) fn table_2<M: DatasetScorer + MaybeTokenPredictor>(
    study: &Study<M>,
    out: &mut Reproduction,
    options: FrequencyRankOptions,
) -> Result<(), PaperError> {
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

/// The rows of one scorer, or `None` if the model has no such scorer.
pub(super) fn slice(table: &ScoreTable, scorer: &str) -> Option<ScoreTable> {
    let t = table.for_scorer(scorer);
    (!t.is_empty()).then_some(t)
}

/// The pairs of `pairs` without a row in `table` (one scorer's slice), as [`UnscoredPair`]s.
pub(super) fn unscored(pairs: &[SentencePair], table: &ScoreTable) -> Vec<UnscoredPair> {
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
pub(super) fn bias_score(
    pairs: &[SentencePair],
    table: &ScoreTable,
    n: PairsInN,
) -> Result<(f64, usize, usize), PaperError> {
    let (m, left) = bias_measurement(pairs, table, n)?;
    Ok((m.value, m.n, left))
}

/// Eq. (6) of one scorer's slice, overall and per bias type, with `N` as chosen; and how many
/// pairs are unscored.
pub(super) fn bias_measurement(
    pairs: &[SentencePair],
    table: &ScoreTable,
    n: PairsInN,
) -> Result<(bias_core::Measurement, usize), PaperError> {
    let left = unscored(pairs, table);
    let r = Indicator::default().report_with_unscored(table, &left, n)?;
    Ok((r.measurement, left.len()))
}

/// Table 3: Eq. (6) over the advantaged (`antistereo`) and disadvantaged (`stereo`) pairs.
pub(super) fn table_3<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: Kaneko2022Options,
) -> Result<(), PaperError> {
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

pub(super) fn n_rule(n: PairsInN) -> &'static str {
    match n {
        PairsInN::All => "in N as not stereotypical, as the paper and the authors' code count them",
        PairsInN::Scored => "left out of N",
    }
}

/// Table 5: the bias scores of Eq. (6).
pub(super) fn table_5<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: Kaneko2022Options,
) -> Result<(), PaperError> {
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
