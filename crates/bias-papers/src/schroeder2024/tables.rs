//! schroeder2024's Tables 1 and 3 and the §4.3.4 analysis.

use super::*;
use crate::PaperError;

/// One sentence on the settings every number of the MLM experiment depends on.
pub(super) fn settings_note(options: &SchroederOptions) -> String {
    let same = match options.same {
        SameVariant::AuthorsCode => "the authors' code (geometrical_bias.SAME)",
        SameVariant::Paper => "the paper's Eq. 16",
    };
    let labels = match options.labels {
        StereoLabels::AuthorsCode => {
            "the authors' code (every pair read as antistereo: PLL(sent_less) − PLL(sent_more), \
             their 'stereotype' label test never matching the data's 'stereo')"
        }
        StereoLabels::Intended => {
            "the intended reading (stereotypical minus anti-stereotypical sentence)"
        }
    };
    let order = match options.group_order {
        GroupOrder::AuthorsCode => {
            "target groups numbered in the order they appear in the data, attribute sets in \
             the file's order (the authors' pairing)"
        }
        GroupOrder::File => "every target paired with its own group's terms",
    };
    format!(
        "Settings: SAME as {same}; WEAT ddof {}; DirectBias c = {}, PCA of {} term vectors; PLL \
         difference and CPS bias under {labels}; {order}.",
        match options.ddof {
            Ddof::Zero => 0,
            Ddof::One => 1,
        },
        options.c,
        options.subspace.name()
    )
}

pub(super) fn table1(
    pairs: &[SentencePair],
    sets: &[DefiningSets],
    options: &SchroederOptions,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let mut t1 = Table::new(&[
        "attribute",
        "groups",
        "# defining sets",
        "CrowS-Pairs pairs kept",
        "excluded",
        "groups in data order",
    ]);
    for s in sets {
        let (kept, excluded) = select_pairs(pairs, s, options.filter, options.split);
        let order: Vec<&str> = data_group_order(&kept)
            .into_iter()
            .map(|g| s.groups[g].as_str())
            .collect();
        t1.row(vec![
            Cell::Text(s.bias_type.to_string()),
            Cell::Text(s.groups.join(", ")),
            Cell::Int(s.tuples.len() as i64),
            Cell::Int(kept.len() as i64),
            Cell::Int(excluded.len() as i64),
            Cell::Text(order.join(", ")),
        ]);
    }
    t1.note(
        "Defining sets: data/protected_groups.json of the authors' code (shipped in \
         crates/bias-embed/data/). Paper: race 15, religion 14, gender 25, age 8. The last \
         column is the order in which the authors' dataset class numbers the target groups; \
         where it differs from the file's order, their code pairs targets with another group's \
         terms (--schroeder2024-group-order).",
    );
    out.table(
        "table-1",
        "Overview of protected groups used in the experiments",
        Status::Reproduced,
        &t1,
    )
}

pub(super) fn analysis_434(
    results: &[Vec<Option<TypeScores>>],
    names: &[String],
    sets: &[DefiningSets],
    settings: &str,
    models_note: &str,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let mut t434 = Table::new(&[
        "model",
        "attribute",
        "pairs",
        "targets per group",
        "SAME",
        "WEAT",
        "gWEAT",
        "DirectBias",
        "CPS bias (%)",
    ]);
    let mut sample_rows = Vec::new();
    let text = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x}"));
    for (m, per_type) in results.iter().enumerate() {
        for (t, r) in per_type.iter().enumerate() {
            let Some(r) = r else {
                let mut row = vec![
                    Cell::Text(names[m].clone()),
                    Cell::Text(sets[t].bias_type.to_string()),
                    Cell::Missing,
                    Cell::Text("fewer than 2 kept pairs, or the model cannot mask or embed".into()),
                ];
                row.extend((0..5).map(|_| Cell::Missing));
                t434.row(row);
                continue;
            };
            let opt = |v: Option<f64>| v.map_or(Cell::Missing, |x| Cell::num(x, 6));
            let sizes: Vec<String> = r.per_group.iter().map(ToString::to_string).collect();
            t434.row(vec![
                Cell::Text(names[m].clone()),
                Cell::Text(r.bias_type.clone()),
                Cell::Int(r.samples.len() as i64),
                Cell::Text(sizes.join("/")),
                Cell::num(r.same, 6),
                opt(r.weat),
                opt(r.gweat),
                Cell::num(r.direct_bias, 6),
                Cell::num(r.cps_bias, 4),
            ]);
            for s in &r.samples {
                sample_rows.push(vec![
                    names[m].clone(),
                    r.bias_type.clone(),
                    s.pair_id.clone(),
                    r.groups[s.target_group].clone(),
                    r.groups[s.other_group].clone(),
                    s.text.clone(),
                    format!("{}", s.same),
                    text(s.weat),
                    format!("{}", s.direct_bias),
                    text(s.same_pair),
                    format!("{}", s.weat_pair),
                    format!("{}", s.direct_bias_pair),
                    format!("{}", s.pll_difference),
                ]);
            }
        }
    }
    t434.note(settings);
    t434.note(
        "Per-sample scores and PLL differences: analysis-4.3.4-samples.csv (target_group and \
         attribute_group name the attribute sets a target is paired with; the *_pair columns \
         are the authors' per-pair `_cs` scores on those two sets; same_pair is empty where the two
         coincide, their SAME direction being zero).",
    );
    out.table(
        "analysis-4.3.4",
        "MLM experiment: aggregated cosine scores and CPS bias per model and attribute",
        Status::Substitute(models_note.to_owned()),
        &t434,
    )?;
    write_csv(
        &out.dir().join("analysis-4.3.4-samples.csv"),
        &[
            "model",
            "attribute",
            "pair_id",
            "target_group",
            "attribute_group",
            "target",
            "same",
            "weat",
            "direct_bias",
            "same_pair",
            "weat_pair",
            "direct_bias_pair",
            "pll_difference",
        ],
        &sample_rows,
    )
}

/// The CrowS-Pairs columns of Table 3: per type, the accuracy of each score and the models
/// compared.
pub(super) fn table3(
    results: &[Vec<Option<TypeScores>>],
    names: &[String],
    sets: &[DefiningSets],
    options: &SchroederOptions,
    settings: &str,
    models_note: &str,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let mut t3 = Table::new(&[
        "cosine score",
        "BIOS gender",
        "Jigsaw race",
        "Jigsaw religion",
        "Jigsaw gender",
        "CrowS-Pairs race",
        "CrowS-Pairs religion",
        "CrowS-Pairs gender",
        "CrowS-Pairs age",
        "avg. Rank (CrowS-Pairs)",
    ]);
    // accuracy[t][s]: type t, score s of SCORES.
    let mut accuracy: Vec<[Option<(f64, usize)>; 4]> = Vec::new();
    let mut notes = Vec::new();
    for (t, set) in sets.iter().enumerate() {
        let have: Vec<usize> = (0..results.len())
            .filter(|&m| results[m][t].is_some())
            .collect();
        let down: Vec<f64> = have
            .iter()
            .filter_map(|&m| results[m][t].as_ref().map(|r| r.cps_bias))
            .collect();
        let (low, high) = low_high(&down, options.sd_threshold);
        let selected = sd_selection(&down, options.sd_threshold);
        let listed = |idx: &[usize]| -> String {
            let v: Vec<String> = idx.iter().map(|&k| names[have[k]].clone()).collect();
            if v.is_empty() {
                "none".into()
            } else {
                v.join(", ")
            }
        };
        notes.push(format!(
            "{}: low-bias models (CPS bias below mean − {} SD): {}; high-bias (above mean + {} \
             SD): {}",
            set.bias_type,
            options.sd_threshold,
            listed(&low),
            options.sd_threshold,
            listed(&high)
        ));
        let mut row = [None; 4];
        for (s, score) in SCORES.iter().enumerate() {
            let cos: Vec<Option<f64>> = have
                .iter()
                .map(|&m| results[m][t].as_ref().and_then(|r| score_of(r, score)))
                .collect();
            row[s] = match options.table3 {
                Table3Pairs::LowHigh => low_high_accuracy(&low, &high, &down, &cos),
                Table3Pairs::AllSelected => pairwise_accuracy(&selected, &down, &cos),
            };
        }
        accuracy.push(row);
    }
    // The paper ranks SAME, WEAT-or-gWEAT and DirectBias per column.
    let columns: Vec<[Option<f64>; 3]> = accuracy
        .iter()
        .map(|a| {
            let acc = |s: usize| a[s].map(|(v, _)| v);
            [acc(0), acc(1).or(acc(2)), acc(3)]
        })
        .collect();
    let ranks = average_ranks(&columns);
    for (s, score) in SCORES.iter().enumerate() {
        let mut row = vec![Cell::Text((*score).into())];
        row.extend((0..4).map(|_| Cell::Text("out of reach".into())));
        for a in &accuracy {
            row.push(match a[s] {
                Some((acc, n)) => Cell::Text(format!("{acc:.2} ({n} comparisons)")),
                None => Cell::Missing,
            });
        }
        let rank_of = |k: usize| ranks.map_or(Cell::Missing, |r| Cell::num(r[k], 2));
        row.push(match s {
            0 => rank_of(0),
            1 => rank_of(1),
            2 => Cell::Text("with WEAT".into()),
            _ => rank_of(2),
        });
        t3.row(row);
    }
    for n in notes {
        t3.note(n);
    }
    t3.note(match options.table3 {
        Table3Pairs::LowHigh => {
            "Comparisons: every low-bias model against every high-bias model, both orders (the \
             authors' notebook); --schroeder2024-table3 all-selected counts every pair of \
             selected models once."
        }
        Table3Pairs::AllSelected => {
            "Comparisons: every pair of selected models with different CPS bias, once \
             (--schroeder2024-table3 all-selected; the authors compare low × high only)."
        }
    });
    t3.note(
        "avg. Rank: per column the scores ranked by accuracy (1 best, ties share the best \
         rank), WEAT and gWEAT as one score as in the paper, averaged over the CrowS-Pairs \
         columns with a value (the paper averages over its eight columns).",
    );
    t3.note(settings);
    t3.note(
        "Paper (26 models, computed with the authors' label reading), CrowS-Pairs \
         race/religion/gender/age: SAME .19/.83/.17/.75, WEAT –/–/1.0/0.0, gWEAT .47/.67/–/–, \
         DirectBias .56/.83/0.0/0.5; avg. Rank over all eight columns SAME 1.4, WEAT 2.3, \
         DirectBias 2.1.",
    );
    out.table(
        "table-3",
        "Accuracy of cosine scores predicting which of two models is more biased",
        Status::Substitute(format!(
            "CrowS-Pairs columns only, {models_note}; BIOS and Jigsaw columns out of reach: \
             {BIOS_JIGSAW}"
        )),
        &t3,
    )
}

pub(super) fn share_row(
    label: &str,
    model: &str,
    share: f64,
    d: &bias_robust::ShareDeviation,
) -> Vec<String> {
    vec![
        label.to_owned(),
        model.to_owned(),
        format!("{share}"),
        d.subset_size.to_string(),
        d.evaluated.to_string(),
        d.failed.to_string(),
        format!("{}", d.mean_abs_deviation),
        format!("{}", d.sd),
        String::new(),
    ]
}
