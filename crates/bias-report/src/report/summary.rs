//! The sections that open `bias report`: the summary heat maps of [`bias_robust::summary`] and, with
//! several models, the models ranked by each measure and how well sub-sampling keeps that order
//! (liu2024, Robustness Study).

use bias_core::Measurement;

use super::heat::{model_columns, HeatCell, HeatRow, HeatTable, Shade};
use super::{Section, SubsampleRun};
use bias_robust::summary::{scorer_rank, DatasetSummary, SummaryEntry};

/// Points from "no bias" at which a summary cell reaches full colour.
pub const FULL_COLOUR_AT: f64 = 25.0;

/// One line on how to read `measure` (what its no-bias value and its ends mean), for the
/// measures of the summary; `None` for another measure.
pub fn how_to_read(measure: &str) -> Option<&'static str> {
    Some(match measure {
        "indicator" => {
            "Indicator (CPS, SSS, AUL, AULA, all-masked columns; Kaneko & Bollegala 2022 Eq. 6, \
             liu2024 Eq. 2): the percentage of pairs whose stereotypical sentence scores higher. \
             50 = no preference; 100 = the stereotype always preferred; 0 = the \
             anti-stereotype always preferred."
        }
        "kls" => {
            "KLS (liu2024 Eq. 6, weighted by bias type, Eq. 10): how far apart the Gaussians \
             fitted to the stereotypical and anti-stereotypical scores are, by KL divergence. \
             50 = identical distributions (no bias); it rises towards 100 as they separate, \
             whichever side is higher."
        }
        "jss" | "jss-paper" => {
            "JSS (liu2024 Eq. 9, weighted by bias type, Eq. 11): the same by Jensen–Shannon \
             divergence, turned around. 100 = identical distributions (no bias); lower = \
             further apart, whichever side is higher."
        }
        _ => return None,
    })
}

/// The header of a summary column: the scorer's name for the indicator (the papers call the
/// indicator on CPS scores "CPS"), `MEASURE (SCORER)` otherwise.
fn column_label(measure: &str, scorer: &str) -> String {
    if measure == "indicator" {
        scorer.to_uppercase()
    } else {
        format!("{} ({})", measure.to_uppercase(), scorer.to_uppercase())
    }
}

/// Whether a measure has a direction (above no bias: the stereotype preferred).
fn signed(measure: &str) -> bool {
    measure == "indicator"
}

fn shade(measure: &str, value: f64, no_bias: f64) -> Shade {
    let d = (value - no_bias) / FULL_COLOUR_AT;
    if signed(measure) {
        Shade::Diverging(d)
    } else {
        Shade::Sequential(d.abs())
    }
}

/// One cell: the value (marked `*` when a signed measure's interval excludes no bias), the
/// interval under it, and a tooltip saying all of it in words.
fn cell(
    m: &Measurement,
    value: f64,
    n: usize,
    interval: Option<bias_metrics::Interval>,
    what: &str,
) -> HeatCell {
    let beyond = interval
        .is_some_and(|i| signed(&m.measure) && (i.lower > m.no_bias || i.upper < m.no_bias));
    let mark = if beyond { " *" } else { "" };
    let ci = interval.map(|i| format!("{:.1}–{:.1}", i.lower, i.upper));
    let tooltip = format!(
        "{what}: {value:.2}{}; n = {n}; no bias = {}",
        ci.as_ref()
            .map_or_else(String::new, |c| format!(" (95 % interval {c})")),
        m.no_bias
    );
    HeatCell {
        value: format!("{value:.2}{mark}"),
        detail: ci,
        tooltip: Some(tooltip),
        shade: shade(&m.measure, value, m.no_bias),
    }
}

/// The heat map of one data set: overall on top, then each bias type; one column per
/// (measure, scorer), split into one column per model when there are several.
pub fn summary_heat(summary: &DatasetSummary) -> HeatTable {
    let columns = summary.columns();
    let models = &summary.models;
    let mut keys: Vec<(&str, &str, &str)> = Vec::new();
    for (measure, scorer) in &columns {
        for model in models {
            keys.push((measure, scorer, model));
        }
    }
    let entries: Vec<Option<&SummaryEntry>> = keys
        .iter()
        .map(|(m, s, model)| summary.entry(m, s, model))
        .collect();
    let n_all = entries.iter().flatten().map(|e| e.measurement.n).max();
    let mut rows = vec![HeatRow {
        label: format!("overall (n = {})", n_all.unwrap_or(0)),
        cells: entries
            .iter()
            .zip(&keys)
            .map(|(e, (_, s, model))| {
                e.map(|e| {
                    let m = &e.measurement;
                    let what = format!("{} on {s}, {model}, all pairs", m.measure);
                    cell(m, m.value, m.n, e.overall, &what)
                })
            })
            .collect(),
        emphasis: true,
    }];
    for ty in summary.bias_types() {
        let n = entries
            .iter()
            .flatten()
            .filter_map(|e| e.measurement.by_type.get(&ty).map(|t| t.n))
            .max()
            .unwrap_or(0);
        rows.push(HeatRow {
            label: format!("{ty} (n = {n})"),
            cells: entries
                .iter()
                .zip(&keys)
                .map(|(e, (_, s, model))| {
                    let e = (*e)?;
                    let t = e.measurement.by_type.get(&ty)?;
                    let what = format!("{} on {s}, {model}, {ty}", e.measurement.measure);
                    Some(cell(
                        &e.measurement,
                        t.value,
                        t.n,
                        e.by_type.get(&ty).copied(),
                        &what,
                    ))
                })
                .collect(),
            emphasis: false,
        });
    }
    let labels: Vec<String> = columns.iter().map(|(m, s)| column_label(m, s)).collect();
    let (groups, columns, words) = model_columns(labels, models);
    HeatTable {
        corner: "bias type".to_owned(),
        groups,
        columns,
        rows,
        caption: Some(format!("{}: {words}.", summary.dataset)),
    }
}

/// The summary section (anchor `summary`): a paragraph on the colours and intervals, a line on
/// how to read each measure shown, and per data set its [`summary_heat`] and notes.
/// `interval_text` says how the intervals were drawn (or that there are none).
pub fn summary_section(summaries: &[DatasetSummary], interval_text: &str) -> Section {
    let mut section = Section::new("Summary").anchor("summary").text(format!(
        "Each measure per data set, overall (top row) and per bias type. Colour = distance from \
         no bias, full at {FULL_COLOUR_AT} points: red where the stereotype is preferred, blue \
         where the anti-stereotype is; purple for KLS and JSS, which say how far and not which \
         way. {interval_text}"
    ));
    let mut measures: Vec<String> = Vec::new();
    for s in summaries {
        for (m, _) in s.columns() {
            if !measures.contains(&m) {
                measures.push(m);
            }
        }
    }
    for m in &measures {
        if let Some(line) = how_to_read(m) {
            section = section.text(line);
        }
    }
    for s in summaries {
        section = section.heat(summary_heat(s));
        for note in &s.notes {
            section = section.text(note.clone());
        }
    }
    section
}

/// With two or more models on a data set, the section comparing them (anchor `models`): per
/// data set the models ordered by each measure, how many different orders the measures give,
/// and, from `subsample`, the share of single sub-sampling draws keeping each study's
/// full-data order at each rate (liu2024's robustness question). `None` with a single model
/// everywhere.
pub fn models_section(
    summaries: &[DatasetSummary],
    subsample: Option<&SubsampleRun>,
) -> Option<Section> {
    if summaries.iter().all(|s| s.models.len() < 2) {
        return None;
    }
    let mut section = Section::new("Models compared").anchor("models").text(
        "Per measure, the models from most to least biased (by distance from the measure's \
         no-bias value, as liu2024 Table 2 ranks them).",
    );
    for s in summaries.iter().filter(|s| s.models.len() >= 2) {
        let rankings = s.rankings();
        let rows: Vec<Vec<String>> = rankings
            .iter()
            .map(|r| {
                vec![
                    column_label(&r.measure, &r.scorer),
                    r.order
                        .iter()
                        .map(|(m, v)| format!("{m} ({v:.2})"))
                        .collect::<Vec<_>>()
                        .join(" > "),
                ]
            })
            .collect();
        let mut orders: Vec<Vec<&str>> = rankings
            .iter()
            .map(|r| r.order.iter().map(|(m, _)| m.as_str()).collect())
            .collect();
        orders.sort();
        orders.dedup();
        let agree = match orders.len() {
            1 => format!("all {} measures give the same order", rankings.len()),
            k => format!("the {} measures give {k} different orders", rankings.len()),
        };
        section = section
            .text(format!("On {}, {agree}.", s.dataset))
            .table(&["measure", "models, most biased first"], rows);
    }
    if let Some(run) = subsample {
        if let Some(table) = order_agreement_heat(run) {
            section = section
                .text(
                    "Robustness of these orders to sub-sampling (liu2024, Robustness Study): the \
                     share of single draws keeping the full-data order at each sampling rate; \
                     darker = less robust; † = the order of the means over the draws differs \
                     from the full-data order (liu2024 Fig. 5's red circles).",
                )
                .heat(table);
        }
    }
    Some(section)
}

/// The share of single draws keeping the full-data order, per (study, measure) and rate, for
/// the studies with two or more models.
fn order_agreement_heat(run: &SubsampleRun) -> Option<HeatTable> {
    let rates = &run.options.rates;
    // As the summary's columns: by data set, then measure (the indicator first), then scorer.
    let mut keyed = Vec::new();
    for study in run.studies.iter().filter(|s| s.report.models.len() >= 2) {
        for (m, measure) in study.report.measures.iter().enumerate() {
            let scorer = study.scorers.join(" + ");
            let key = (study.dataset.clone(), m, scorer_rank(&scorer));
            let cells = rates
                .iter()
                .map(|&rate| {
                    let r = study.report.agreement_at(measure, rate)?;
                    let mark = if r.mean_order_kept { "" } else { " †" };
                    Some(HeatCell {
                        value: format!("{:.0} %{mark}", 100.0 * r.agreement),
                        detail: Some(format!("{}/{}", r.agreeing, r.repeats)),
                        tooltip: Some(format!(
                            "{measure}, {} on {}, rate {rate:.2}: {} of {} draws keep {}; order \
                             of the means: {}",
                            study.scorers.join(" + "),
                            study.dataset,
                            r.agreeing,
                            r.repeats,
                            r.full_order.join(" > "),
                            r.mean_order.join(" > ")
                        )),
                        shade: Shade::Sequential(1.0 - r.agreement),
                    })
                })
                .collect();
            let row = HeatRow {
                label: format!("{} on {}", column_label(measure, &scorer), study.dataset),
                cells,
                emphasis: false,
            };
            keyed.push((key, row));
        }
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let rows: Vec<HeatRow> = keyed.into_iter().map(|(_, row)| row).collect();
    if rows.is_empty() {
        return None;
    }
    Some(HeatTable {
        corner: "measure on data set".to_owned(),
        groups: Vec::new(),
        columns: rates.iter().map(|r| format!("rate {r:.2}")).collect(),
        rows,
        caption: Some(format!(
            "{} draws per rate, seed {}.",
            run.options.repeats, run.options.seed
        )),
    })
}
