//! liu2024's Tables 1–5 and the notes they carry.

use super::*;
use crate::PaperError;

/// Table 1: Shapiro–Wilk on the AUL scores per model and data set, beside the paper's rows.
pub(super) fn write_table_1(m: &Measured, out: &mut Reproduction) -> Result<(), PaperError> {
    let (models, measures) = (&m.models, &m.measures);
    // Table 1: Shapiro–Wilk on the AUL scores per model × data set.
    let mut t1 = Table::new(&[
        "source", "data set", "model", "side", "n", "W", "p-value", "mark",
    ]);
    for spec in &SETS {
        for (model, m) in models.iter().zip(measures) {
            let sm = &m[set_index(spec.set)];
            for test in normality_by_type(&sm.aul_table)
                .into_iter()
                .filter(|t| t.bias_type.is_none())
            {
                let mark = match test.p_value {
                    Some(p) if p > 0.05 => "♭",
                    Some(p) if p > 0.01 => "‡",
                    Some(_) => "",
                    None => test.undefined.as_deref().unwrap_or("undefined"),
                };
                t1.row(vec![
                    THIS_RUN.into(),
                    spec.short.into(),
                    model.as_str().into(),
                    match test.side {
                        Side::Stereo => "stereotypical",
                        Side::Anti => "anti-stereotypical",
                    }
                    .into(),
                    test.n.into(),
                    test.w.map_or(Cell::Missing, |w| Cell::num(w, 3)),
                    test.p_value.map_or(Cell::Missing, |p| Cell::num(p, 3)),
                    mark.into(),
                ]);
            }
        }
        for c in published::TABLE_1
            .iter()
            .filter(|c| c.data_set == spec.short)
        {
            t1.row(vec![
                PAPER.into(),
                spec.short.into(),
                published::MODELS[c.model].name.into(),
                "stereotypical".into(),
                Cell::Missing,
                Cell::num(c.w, 3),
                Cell::num(c.p_value, 3),
                c.mark.into(),
            ]);
        }
    }
    t1.note(paper_rows_note());
    t1.note(
        "Shapiro–Wilk (1965) on the AUL scores of all pairs (the paper's PLL score), each side \
         separately (the paper prints the stereotypical side: \"similar for anti-stereotypes\"). \
         ♭: p > 0.05; ‡: 0.01 < p ≤ 0.05 (normality not rejected at that level).",
    );
    m.note(&mut t1);
    out.table(
        "table-1",
        "Shapiro–Wilk test on PLL (AUL) scores per model and data set",
        Status::Reproduced,
        &t1,
    )?;

    Ok(())
}

/// Table 2: SSS / CPS, AUL, KLS and JSS per model and data set, with the models' ranks.
pub(super) fn write_table_2(
    m: &Measured,
    conventions: Option<String>,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let (models, measures) = (&m.models, &m.measures);
    // Table 2: the measures per model, and the models ranked per measure.
    let mut t2 = Table::new(&[
        "source",
        "data set",
        "model",
        "n",
        "SSS / CPS",
        "AUL",
        "KLS",
        "JSS",
        "rank SSS / CPS",
        "rank AUL",
        "rank KLS",
        "rank JSS",
    ]);
    for spec in &SETS {
        let k = set_index(spec.set);
        let rank_cols: Vec<Vec<usize>> = (0..4)
            .map(|c| {
                ranks(
                    &measures
                        .iter()
                        .map(|m| m[k].values()[c].deviation())
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        for (j, (model, m)) in models.iter().zip(measures).enumerate() {
            let mut row: Vec<Cell> = vec![
                THIS_RUN.into(),
                format!("{} ({})", spec.short, spec.prior_label).into(),
                model.as_str().into(),
                m[k].aul.n.into(),
            ];
            row.extend(m[k].values().iter().map(|v| Cell::num(v.value, 2)));
            row.extend(rank_cols.iter().map(|r| Cell::from(r[j])));
            t2.row(row);
        }
        for p in published::TABLE_2
            .iter()
            .filter(|p| p.data_set == spec.short)
        {
            let mut row: Vec<Cell> = vec![
                PAPER.into(),
                format!("{} ({})", spec.short, spec.prior_label).into(),
                published::MODELS[p.model].name.into(),
                Cell::Missing,
            ];
            row.extend([p.prior, p.aul, p.kls, p.jss].map(|v| Cell::num(v, 2)));
            row.extend((0..4).map(|_| Cell::Missing));
            t2.row(row);
        }
    }
    t2.note(paper_rows_note());
    t2.note(
        "SSS (on StereoSet) and CPS (on CrowS-Pairs) and AUL are Eq. 2, the percentage of pairs \
         whose stereotypical sentence scores higher (no bias: 50); KLS (Eq. 6, no bias: 50) and \
         JSS (Eq. 9, no bias: 100, the authors' code unless --liu2024-jss paper) are fitted to the AUL \
         scores and weighted by bias type (Eqs. 10–11). Ranks: 1 = most biased by |value − no \
         bias| (the paper's underline), the last rank = least biased (its bold); ties share a \
         rank.",
    );
    t2.note(
        "SSS: the paper's numbers came from the authors' evaluation.py (a29a457), which averages \
         the whole k×k matrix of modified positions × modified tokens (`--sss matrix`, the \
         default of `bias reproduce liu2024`), not Eq. 12's diagonal (each modified position's \
         own token: `--sss diagonal`); the two agree on every pair whose modified span is a \
         single token and differ on the others. CPS is unrounded, as in evaluation.py.",
    );
    if let Some(n) = conventions {
        t2.note(n);
    }
    t2.note(format!(
        "StereoSet pairs with more than one modified token on a side (where the two SSS forms \
         differ), per model: {}.",
        m.sss_multi.join(", ")
    ));
    if m.skipped_small.iter().any(|&n| n > 0) {
        t2.note(format!(
            "KLS/JSS leave out bias types with a single pair (SS: {} pairs, CP: {} pairs at most \
             per model; only with --max-pairs).",
            m.skipped_small[0], m.skipped_small[1]
        ));
    }
    m.note(&mut t2);
    out.table(
        "table-2",
        "SSS / CPS, AUL, KLS and JSS on StereoSet and CrowS-Pairs, the models ranked per measure",
        Status::Reproduced,
        &t2,
    )?;

    Ok(())
}

/// Table 3: KLS and JSS per bias type, beside the paper's.
pub(super) fn write_table_3(m: &Measured, out: &mut Reproduction) -> Result<(), PaperError> {
    let (models, measures) = (&m.models, &m.measures);
    // Table 3: KLS / JSS per bias type.
    let mut cols: Vec<String> = vec!["data set".into(), "bias type".into(), "n".into()];
    for model in models {
        cols.push(format!("{model} KLS"));
        cols.push(format!("{model} JSS"));
    }
    cols.push("most biased (KLS)".into());
    cols.push("least biased (KLS)".into());
    for pm in &published::MODELS {
        cols.push(format!("paper {} KLS", pm.name));
        cols.push(format!("paper {} JSS", pm.name));
    }
    let mut t3 = Table::new(&cols);
    for spec in &SETS {
        let k = set_index(spec.set);
        // Every bias type any model has a KLS for, in `BiasType` order.
        let mut types: BTreeMap<bias_core::BiasType, usize> = BTreeMap::new();
        for m in measures {
            for (ty, v) in &m[k].kls.by_type {
                types.entry(ty.clone()).or_insert(v.n);
            }
        }
        for (ty, n) in &types {
            let mut row: Vec<Cell> = vec![spec.short.into(), ty.to_string().into(), (*n).into()];
            let mut devs = Vec::new();
            for m in measures {
                let kv = m[k].kls.by_type.get(ty).map(|v| v.value);
                let jv = m[k].jss.by_type.get(ty).map(|v| v.value);
                row.push(kv.map_or(Cell::Missing, |v| Cell::num(v, 2)));
                row.push(jv.map_or(Cell::Missing, |v| Cell::num(v, 2)));
                devs.push(kv.map_or(f64::NAN, |v| (v - 50.0).abs()));
            }
            let best = |most: bool| -> String {
                let finite: Vec<(usize, f64)> = devs
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|(_, d)| d.is_finite())
                    .collect();
                let target = finite.iter().map(|&(_, d)| d).fold(
                    if most { f64::MIN } else { f64::MAX },
                    |a, d| {
                        if most {
                            a.max(d)
                        } else {
                            a.min(d)
                        }
                    },
                );
                finite
                    .iter()
                    .filter(|&&(_, d)| d == target)
                    .map(|&(j, _)| models[j].clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            row.push(best(true).into());
            row.push(best(false).into());
            let paper = published::TABLE_3
                .iter()
                .find(|p| p.data_set == spec.short && p.bias_type == ty.as_str());
            for j in 0..published::MODELS.len() {
                match paper {
                    Some(p) => row.extend([Cell::num(p.kls[j], 2), Cell::num(p.jss[j], 2)]),
                    None => row.extend([Cell::Missing, Cell::Missing]),
                }
            }
            t3.row(row);
        }
    }
    t3.note(
        "KLS / JSS (Eqs. 6 and 9) within each bias type on the AUL scores. \"most biased\": the \
         model whose KLS is farthest from 50 (the paper's underline); \"least biased\": closest \
         (its bold).",
    );
    t3.note(
        "\"paper <model> KLS / JSS\": Liu et al. (2024) Table 3 for its models BERT \
         (bert-base-cased), RoBERTa (roberta-large), ALBERT (albert-large-v2) on the same bias \
         type (its CrowS-Pairs \"race\" is race-color), to the paper's 2 decimals.",
    );
    m.note(&mut t3);
    out.table(
        "table-3",
        "KLS / JSS per bias type on StereoSet and CrowS-Pairs",
        Status::Reproduced,
        &t3,
    )?;

    Ok(())
}

/// Table 4: the stereotype and anti-stereotype sample groups on CrowS-Pairs (AUL).
pub(super) fn write_table_4(m: &Measured, out: &mut Reproduction) -> Result<(), PaperError> {
    let (models, measures) = (&m.models, &m.measures);
    // Table 4: score groups on CrowS-Pairs (AUL).
    let mut t4 = Table::new(&[
        "source",
        "model",
        "st group n",
        "st group avg stere-score",
        "st group avg anti-score",
        "|Δst|",
        "at group n",
        "at group avg stere-score",
        "at group avg anti-score",
        "|Δat|",
        "|Δst| − |Δat|",
    ]);
    for (model, m) in models.iter().zip(measures) {
        let g = score_group_analysis(&m[1].aul_table)
            .map_err(|e| measure_err(model, DataSet::CrowsPairs, e))?;
        let mut row: Vec<Cell> = vec![THIS_RUN.into(), model.as_str().into()];
        for s in [g.stereotype_group, g.anti_stereotype_group] {
            match s {
                Some(s) => row.extend([
                    s.n.into(),
                    Cell::num(s.mean_stereo, 4),
                    Cell::num(s.mean_anti, 4),
                    Cell::num(s.abs_delta, 4),
                ]),
                None => row.extend([0usize.into(), Cell::Missing, Cell::Missing, Cell::Missing]),
            }
        }
        row.push(Cell::num(g.delta_difference, 4));
        t4.row(row);
    }
    for p in &published::TABLE_4 {
        t4.row(vec![
            PAPER.into(),
            published::MODELS[p.model].name.into(),
            Cell::Missing,
            Cell::num(p.st_mean_stereo, 4),
            Cell::num(p.st_mean_anti, 4),
            Cell::num(p.st_abs_delta, 4),
            Cell::Missing,
            Cell::num(p.at_mean_stereo, 4),
            Cell::num(p.at_mean_anti, 4),
            Cell::num(p.at_abs_delta, 4),
            Cell::num(p.delta_difference, 4),
        ]);
    }
    t4.note(paper_rows_note());
    t4.note(
        "AUL scores on CrowS-Pairs. Stereotype sample group: pairs with f(S_st) > f(S_at) (Eq. \
         2); anti-stereotype sample group: the others. |Δ| is the absolute difference of the \
         group's mean stereotypical and mean anti-stereotypical score.",
    );
    m.note(&mut t4);
    out.table(
        "table-4",
        "Stereotype vs anti-stereotype sample groups on CrowS-Pairs (AUL)",
        Status::Reproduced,
        &t4,
    )?;

    Ok(())
}

pub(super) fn pll_example(
    out: &mut Reproduction,
    indicator: &Indicator,
    kls: &Kls,
    jss: &Jss,
) -> Result<(), PaperError> {
    let rows = PLL_EXAMPLE
        .iter()
        .enumerate()
        .map(|(i, &(s, a))| bias_core::ScoreRow {
            pair_id: format!("example-{}", i + 1),
            dataset: "liu2024-example".into(),
            bias_type: bias_core::BiasType::Other("example".into()),
            direction: bias_core::Direction::Stereo,
            stereo: String::new(),
            anti: String::new(),
            score_stereo: s,
            score_anti: a,
            scorer: "example".into(),
            model: "example".into(),
            tokens_stereo: None,
            tokens_anti: None,
            group_id: None,
        })
        .collect();
    let table = ScoreTable::new(rows);
    let err = |e: bias_metrics::MetricsError| RobustError::Measure {
        what: "liu2024: the PLL Score Analysis example".into(),
        source: Box::new(e),
    };
    let g = score_group_analysis(&table).map_err(err)?;
    let abs = |s: Option<bias_metrics::ScoreGroupStats>| s.map_or(0.0, |s| s.abs_delta);
    let mut t = Table::new(&["quantity", "value", "the paper"]);
    let paper = |v: f64| Cell::num(v, 1);
    t.row(vec![
        "Eq. 2 (indicator)".into(),
        Cell::num(indicator.measure(&table).map_err(err)?.value, 2),
        paper(50.0),
    ]);
    t.row(vec![
        "|Δst|".into(),
        Cell::num(abs(g.stereotype_group), 4),
        paper(0.7),
    ]);
    t.row(vec![
        "|Δat|".into(),
        Cell::num(abs(g.anti_stereotype_group), 4),
        paper(0.1),
    ]);
    t.row(vec![
        "|Δst| − |Δat|".into(),
        Cell::num(g.delta_difference, 4),
        paper(0.6),
    ]);
    t.row(vec![
        "KLS (Eq. 6)".into(),
        Cell::num(kls.measure(&table).map_err(err)?.value, 2),
        Cell::Missing,
    ]);
    t.row(vec![
        "JSS (Eq. 9)".into(),
        Cell::num(jss.measure(&table).map_err(err)?.value, 2),
        Cell::Missing,
    ]);
    t.note(
        "S_st = {0.4, 0.3, 0.9, 0.8}, S_at = {0.5, 0.4, 0.1, 0.2} (one bias type): Eq. 2 reads \
         \"no bias\" while the two sample groups are unbalanced; KLS and JSS see the different \
         spreads of the two sides.",
    );
    out.table(
        "analysis-pll-score-analysis",
        "The PLL Score Analysis example: Eq. 2 at 50 with unbalanced sample groups",
        Status::Reproduced,
        &t,
    )
}

/// The note of a table with rows of the paper's values.
pub(super) fn paper_rows_note() -> String {
    let models = published::MODELS
        .iter()
        .map(|m| format!("{} ({})", m.name, m.checkpoint))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "Rows with source \"paper\": the values Liu et al. (2024) print for its models {models}, \
         to the paper's decimals; a dash where the paper prints nothing."
    )
}

pub(super) fn yes_no(changed: bool) -> Cell {
    if changed { "yes (red circle)" } else { "no" }.into()
}

/// Liu et al. (2024) Table 5 in long form, one row per model and rate: `|Δst| − |Δat|` on the
/// sub-samples of `study` averaged over the draws with its shift `Δsp` from the full data
/// (signed, and its size), beside the mean of each single draw's `|Δsp|`; then the paper's
/// rows ([`published::TABLE_5`], "full" from [`published::TABLE_4`]).
pub(super) fn table_5(models: &[String], study: &RobustnessReport) -> Table {
    let mut t = Table::new(&[
        "source",
        "model",
        "rate",
        "n",
        "draws",
        "full",
        "|Δst| − |Δat|",
        "Δsp",
        "|Δsp|",
        "mean |Δsp| of single draws",
    ]);
    for model in models {
        for &rate in &study.options.rates {
            let Some(g) = study.score_groups_at(model, rate) else {
                continue;
            };
            t.row(vec![
                THIS_RUN.into(),
                model.as_str().into(),
                Cell::num(rate, 1),
                g.n.into(),
                study.options.repeats.into(),
                Cell::num(g.full, 4),
                Cell::num(g.delta_difference.mean, 4),
                Cell::num(g.shift, 4),
                Cell::num(g.shift.abs(), 4),
                Cell::num(g.mean_abs_shift, 4),
            ]);
        }
    }
    for c in &published::TABLE_5 {
        t.row(vec![
            PAPER.into(),
            published::MODELS[c.model].name.into(),
            Cell::num(c.rate, 1),
            Cell::Missing,
            Cell::Missing,
            Cell::num(published::TABLE_4[c.model].delta_difference, 4),
            Cell::num(c.value, 4),
            Cell::num(c.shift, 4),
            Cell::num(c.shift.abs(), 4),
            Cell::Missing,
        ]);
    }
    t
}

/// `report` with `measure` renamed `label` (the indicator on CPS scores is liu2024's CPS).
pub(super) fn relabelled(
    report: &RobustnessReport,
    measure: &str,
    label: &str,
) -> RobustnessReport {
    let mut r = report.clone();
    let rename = |m: &mut String| {
        if m == measure {
            *m = label.to_owned();
        }
    };
    r.measures.iter_mut().for_each(rename);
    r.measure_stats
        .iter_mut()
        .for_each(|m| rename(&mut m.measure));
    r.rank_agreement
        .iter_mut()
        .for_each(|a| rename(&mut a.measure));
    r
}

/// Models most biased first, joined by `>`, or by `=` where two neighbours deviate equally
/// from no bias (a tie the order comparison of [`bias_robust::RankAgreement`] keeps apart).
pub(super) fn order_text(order: &[String], deviation: impl Fn(&str) -> Option<f64>) -> String {
    let mut text = String::new();
    for (i, m) in order.iter().enumerate() {
        if i > 0 {
            let tied = deviation(&order[i - 1]).is_some_and(|d| Some(d) == deviation(m));
            text.push_str(if tied { " = " } else { " > " });
        }
        text.push_str(m);
    }
    text
}

/// Index of `set` in [`SETS`].
pub(super) fn set_index(set: DataSet) -> usize {
    SETS.iter()
        .position(|s| s.set == set)
        .unwrap_or_else(|| unreachable!("liu2024 uses StereoSet and CrowS-Pairs only"))
}
