//! liu2024's Figures 4 (correlation and mutual information between measures) and 5 (the sub-sampling study).

use super::*;
use crate::PaperError;

/// Figure 5 and Table 5: the sub-sampling study on CrowS-Pairs.
pub(super) fn write_figure_5(
    m: &Measured,
    options: &Liu2024Options,
    indicator: &Indicator,
    kls: &Kls,
    jss: &Jss,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let (models, measures) = (&m.models, &m.measures);
    // Figure 5 and Table 5: the sub-sampling study on CrowS-Pairs.
    let cps_tables: Vec<(String, ScoreTable)> = models
        .iter()
        .zip(&m.cp_tables)
        .map(|(m, t)| (m.clone(), t.for_scorer(Scorer::Cps.name())))
        .collect();
    let aul_tables: Vec<(String, ScoreTable)> = models
        .iter()
        .zip(measures)
        .map(|(m, s)| (m.clone(), s[1].aul_table.clone()))
        .collect();
    let cps_study = bias_robust::subsample_study(&cps_tables, &[indicator], &options.robustness)?;
    let aul_measures: [SyncMeasure<'_>; 3] = [indicator, kls, jss];
    let aul_study = bias_robust::subsample_study(&aul_tables, &aul_measures, &options.robustness)?;
    let panels: [(&str, &RobustnessReport, &str); 4] = [
        ("CPS", &cps_study, "indicator"),
        ("AUL", &aul_study, "indicator"),
        ("KLS", &aul_study, "kls"),
        ("JSS", &aul_study, jss.name()),
    ];
    let mut f5 = figure_5_table();
    for (label, report, measure) in panels {
        figure_5_rows(&mut f5, label, report, measure);
        let id = format!("figure-5-{}", label.to_lowercase());
        // The figure is titled with the paper's name of the measure (CPS, AUL, KLS, JSS).
        draw::robustness_curves(
            &relabelled(report, measure, label),
            label,
            out.figure_stem(&id),
        )?;
        out.figure(
            &id,
            &format!(
                "{label} on CrowS-Pairs sub-samples, per model and rate (order changes ringed red)"
            ),
            Status::Reproduced,
        );
    }
    let repeats = options.robustness.repeats;
    f5.note(format!(
        "CrowS-Pairs sub-sampled at each rate, stratified by bias type, {repeats} seeded draws per \
         rate (seed {}). Models ordered most biased first by |value − no bias| (`=`: equally \
         far, a tie); an order \"changed\" where it differs from the full-data order, a tie \
         broken or made included (the paper's red circles). Two views of the same {repeats} \
         draws: averaged (\"draws averaged\": the order of the mean over the draws, as the paper's \
         text describes, \"the average of the results of multiple sampling experiments\") and \
         single draws (\"single draws\": how many of the draws, each on its own, change the order; \
         the authors' sampling script draws once per rate, so a figure from it shows one such \
         draw). The averaged view depends on the number of draws. CPS and AUL are Eq. 2 on their \
         scorers; KLS and JSS on AUL.",
        options.robustness.seed
    ));
    f5.note(
        "\"paper: order changed\": Liu et al. (2024) Figure 5's red circles as its Robustness \
         Study lists them (CPS at 30 % and 60 %, AUL at every rate but 80 %, KLS and JSS never), \
         for its models BERT, RoBERTa and ALBERT.",
    );
    if models.len() < 2 {
        f5.note("With a single model every order is kept: give two or more models.");
    }
    m.note(&mut f5);
    out.table(
        "figure-5",
        "Order of the models per measure and sampling rate on CrowS-Pairs (the data of figures 5-*)",
        Status::Reproduced,
        &f5,
    )?;

    let mut t5 = table_5(models, &aul_study);
    t5.note(format!(
        "|Δst| − |Δat| (Table 4) on CrowS-Pairs sub-samples (AUL). Rows \"this run\", per model \
         and rate, two views of {repeats} seeded draws: averaged (\"|Δst| − |Δat|\" is the mean \
         over the draws, \"Δsp\" = that mean − \"full\", signed, and \"|Δsp|\" its size) and single \
         draws (\"mean |Δsp| of single draws\": each draw's own |Δsp|, averaged; how far one draw \
         moves, the scale of the paper's 0.01 thresholds). Averaging cancels shifts of opposite \
         signs, so the averaged |Δsp| shrinks as draws are added while the per-draw one does not."
    ));
    t5.note(
        "Rows \"paper\": Liu et al. (2024) Table 5 for its models (\"full\" is its Table 4); the \
         paper prints |Δsp| with ↑ for a positive and ↓ for a negative Δsp, kept here as the \
         sign of \"Δsp\". Its number of draws is unstated (the authors' script draws once per \
         rate).",
    );
    m.note(&mut t5);
    out.table(
        "table-5",
        "|Δst| − |Δat| per sampling rate on CrowS-Pairs and its shift Δsp",
        Status::Reproduced,
        &t5,
    )?;
    Ok(())
}

/// The columns of the `figure-5` table: the averaged and the per-draw view of the order
/// changes, each with its number of draws, and the paper's red circles.
pub(super) fn figure_5_table() -> Table {
    Table::new(&[
        "measure",
        "rate",
        "full-data order",
        "draws averaged",
        "order of the mean",
        "mean order changed",
        "Kendall τ-b (mean)",
        "single draws",
        "single draws changing the order",
        "share of single draws changing the order",
        "paper: order changed",
    ])
}

/// The rows of `measure` (labelled `label`: CPS, AUL, KLS, JSS) in the `figure-5` table, one per
/// rate of `report`: Liu et al. (2024) Figure 5's question, whether the order of the models
/// changes, asked of the mean over the draws (averaged view) and of each draw on its own
/// (per-draw view), beside the paper's answer ([`published::figure_5_order_changed`]).
pub(super) fn figure_5_rows(t: &mut Table, label: &str, report: &RobustnessReport, measure: &str) {
    for a in report
        .rank_agreement
        .iter()
        .filter(|a| a.measure == measure)
    {
        let changing = a.repeats - a.agreeing;
        t.row(vec![
            label.into(),
            Cell::num(a.rate, 1),
            order_text(&a.full_order, |m| {
                report
                    .measure_at(m, measure, a.rate)
                    .map(|v| (v.full - a.no_bias).abs())
            })
            .into(),
            a.repeats.into(),
            order_text(&a.mean_order, |m| {
                report
                    .measure_at(m, measure, a.rate)
                    .map(|v| (v.summary.mean - a.no_bias).abs())
            })
            .into(),
            yes_no(!a.mean_order_kept),
            a.kendall_tau.map_or(Cell::Missing, |t| Cell::num(t, 3)),
            a.repeats.into(),
            changing.into(),
            Cell::num(changing as f64 / a.repeats as f64, 2),
            published::figure_5_order_changed(label, a.rate).map_or(Cell::Missing, yes_no),
        ]);
    }
}

/// Figure 4 and its numbers: per data set, Pearson's r and, with at least `k + 1` models, the
/// mutual information with `k` neighbours between SSS/CPS, AUL, KLS and JSS over the models,
/// beside the values the paper's text prints ([`published::figure_4_pearson`],
/// [`published::figure_4_mi`]).
pub(super) fn figure_4(
    out: &mut Reproduction,
    models: &[String],
    measures: &[[SetMeasures; 2]],
    k: usize,
) -> Result<(), PaperError> {
    let title =
        "Pearson correlations (and mutual information) between the measures over the models";
    let n = models.len();
    let mi_models = min_models_mi(k);
    if n < MIN_MODELS_PEARSON {
        out.out_of_reach(
            "figure-4",
            title,
            format!(
                "{n} model(s) with AUL scores: Pearson's r over models needs at least \
                 {MIN_MODELS_PEARSON} (with 2 it is ±1 by construction), the mutual information \
                 (KSG, k = {k}) at least {mi_models}; the paper has 3"
            ),
        );
        return Ok(());
    }
    let mut t = Table::new(&[
        "data set",
        "measure a",
        "measure b",
        "models",
        "Pearson r",
        "p-value",
        "MI (nats)",
        "paper r",
        "paper MI",
    ]);
    let mut problems = Vec::new();
    for spec in &SETS {
        let set = set_index(spec.set);
        let labels = [spec.prior_label, "AUL", "KLS", "JSS"];
        let rows: Vec<(String, BTreeMap<String, f64>)> = models
            .iter()
            .zip(measures)
            .map(|(model, m)| {
                let values = labels
                    .iter()
                    .zip(m[set].values())
                    .map(|(l, v)| ((*l).to_owned(), v.value))
                    .collect();
                (model.clone(), values)
            })
            .collect();
        let corr = if n >= mi_models {
            correlate_measures(
                &rows,
                &CorrelateOptions {
                    k,
                    standardise: true,
                },
            )
        } else {
            correlate_pearson(&rows)
        };
        match corr {
            Ok(c) => {
                for p in &c.pairs {
                    let mi = c
                        .measures
                        .iter()
                        .position(|m| *m == p.a)
                        .zip(c.measures.iter().position(|m| *m == p.b))
                        .and_then(|(i, j)| c.mutual_info[i][j]);
                    let paper = |v: Option<f64>| v.map_or(Cell::Missing, |v| Cell::num(v, 2));
                    t.row(vec![
                        spec.short.into(),
                        p.a.as_str().into(),
                        p.b.as_str().into(),
                        n.into(),
                        Cell::num(p.r, 3),
                        Cell::num(p.p_value, 3),
                        mi.map_or(Cell::Missing, |v| Cell::num(v, 3)),
                        paper(published::figure_4_pearson(spec.short, &p.a, &p.b)),
                        paper(published::figure_4_mi(spec.short, &p.a, &p.b)),
                    ]);
                }
                let id = format!("figure-4-{}", spec.set.name());
                draw::correlation_heatmap(&c, out.figure_stem(&id))?;
                out.figure(
                    &id,
                    &format!(
                        "Pearson r between the measures over the models ({})",
                        spec.short
                    ),
                    Status::Reproduced,
                );
            }
            Err(e) => problems.push(format!("{}: {e}", spec.short)),
        }
    }
    if !problems.is_empty() {
        if t.rows.is_empty() {
            out.out_of_reach("figure-4", title, problems.join("; "));
            return Ok(());
        }
        t.note(format!("Not computed: {}.", problems.join("; ")));
    }
    let mi_note = if n >= mi_models {
        format!(
            "the mutual information is the Kraskov–Stögbauer–Grassberger estimate with k = {k} \
             neighbours, each measure scaled to unit variance, in nats (as scikit-learn's \
             `mutual_info_regression(x, y, n_neighbors={k})`)"
        )
    } else {
        format!(
            "the mutual information with k = {k} neighbours needs at least {mi_models} models \
             and is printed – (--liu2024-mi-neighbors 1, the paper's, needs 2)"
        )
    };
    t.note(format!(
        "Pearson's r and its two-sided p-value over the {n} models; {mi_note}. With so few \
         models both are very noisy (the paper has 3): with 3 models and k = 1 the estimate is \
         ψ(3) + ψ(1) − ⟨ψ(n_x + 1)⟩ − ⟨ψ(n_y + 1)⟩ with counts of 0 to 2, a multiple of 1/6 \
         between 0 and 1.5. The measures' values are \
         correlated as they are, as in the paper, whose three models all score above 50: a model \
         below 50 on SSS, CPS, AUL or KLS is less biased the higher it scores, so with such \
         models the correlations mix directions."
    ));
    t.note(format!(
        "\"paper r\" / \"paper MI\": the values the text of Liu et al. (2024) Figure 4 prints for \
         its three models: r = 0.84 for KLS–SSS on StereoSet (0.8497 from its Table 2, \
         truncated), MI 0.17 between SSS and the other measures on StereoSet and 0.50 between \
         all others; scikit-learn's mutual_info_regression with n_neighbors = {} gives exactly \
         these (1/6 and 1/2) from the paper's Table 2.",
        published::FIGURE_4_MI_NEIGHBORS
    ));
    out.table("figure-4", title, Status::Reproduced, &t)?;
    Ok(())
}
