//! The sections that open `bias report`: the summary heat maps of [`bias_robust::summary`] and, with
//! several models, the models ranked by each measure and how well sub-sampling keeps that order
//! (liu2024, Robustness Study).

use bias_core::Measurement;
use bias_metrics::Verdict;

use super::heat::{model_columns, HeatCell, HeatRow, HeatTable, Shade};
use super::{Section, SubsampleRun};
use bias_robust::compare::ModelComparison;
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

/// One cell: the value (marked `*` when its adjusted p is at most α in the data set's family),
/// the interval under it, and a tooltip saying all of it in words.
fn cell(
    m: &Measurement,
    value: f64,
    n: usize,
    interval: Option<bias_metrics::Interval>,
    verdict: Option<&Verdict>,
    what: &str,
) -> HeatCell {
    let mark = if verdict.is_some_and(|v| v.significant) {
        " *"
    } else {
        ""
    };
    let ci = interval.map(|i| format!("{:.1}–{:.1}", i.lower, i.upper));
    let tooltip = format!(
        "{what}: {value:.2}{}; n = {n}; no bias = {}{}",
        ci.as_ref()
            .map_or_else(String::new, |c| format!(" (95 % interval {c})")),
        m.no_bias,
        verdict.map_or_else(String::new, |v| format!(
            "; p = {}, adjusted p = {}",
            p_text(v.p_value),
            p_text(v.p_adjusted)
        ))
    );
    HeatCell {
        value: format!("{value:.2}{mark}"),
        detail: ci,
        tooltip: Some(tooltip),
        shade: shade(&m.measure, value, m.no_bias),
    }
}

/// A p-value in words: four decimals, or two significant digits below 0.001.
pub fn p_text(p: f64) -> String {
    if p >= 1e-3 {
        format!("{p:.4}")
    } else {
        format!("{p:.1e}")
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
                    cell(m, m.value, m.n, e.overall, Some(&e.tests.overall), &what)
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
                        e.tests.by_type.get(&ty),
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
        caption: Some(format!(
            "{}: {words}. * = {}; {} of {} cells significant.",
            summary.dataset,
            summary.family.options.describe(summary.family.size),
            summary.family.significant,
            summary.family.size,
        )),
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
    section = section.text(
        "A star marks a value that differs from no bias after multiplicity control: every cell \
         of a data set's map (each measure, scorer, model and bias type) is one family, its \
         p-values adjusted together (Holm unless stated). Indicators are tested by the exact \
         two-sided binomial (sign) test against 50 %; KLS and JSS by a sign-flip permutation \
         test (the pairs' two scores swapped at random). A star says the model's scores prefer \
         one side more than chance; whether that is social bias beyond what any head prefers is \
         what the comparison with a baseline model below answers.",
    );
    for s in summaries {
        section = section.text(format!("{}: {}", s.dataset, s.family.describe()));
    }
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

/// With two or more models on a data set, the section comparing them (anchor `models`): the
/// paired differences of every model against the baseline ([`bias_robust::compare`]; or why
/// there are none), per data set the models ordered by each measure, how many different orders the measures give,
/// and, from `subsample`, the share of single sub-sampling draws keeping each study's
/// full-data order at each rate (liu2024's robustness question). `None` with a single model
/// everywhere.
pub fn models_section(
    summaries: &[DatasetSummary],
    comparisons: Result<&[ModelComparison], &str>,
    subsample: Option<&SubsampleRun>,
) -> Option<Section> {
    if summaries.iter().all(|s| s.models.len() < 2) {
        return None;
    }
    let mut section = Section::new("Models compared").anchor("models");
    section = match comparisons {
        Ok(rows) => paired_differences(section, rows),
        Err(why) => section.text(format!("No paired differences: {why}")),
    };
    section = section.text(
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

/// The paired differences B − A of every measure (`bias compare`), per data set: a one-line
/// verdict and a heat map of bias type × (measure, scorer, model B), each cell the difference
/// with its paired interval, starred when its Holm-adjusted p is at most α.
fn paired_differences(mut section: Section, comparisons: &[ModelComparison]) -> Section {
    if comparisons.is_empty() {
        return section;
    }
    section = section.text(
        "Paired differences B − A on the same pairs (bias compare): under each difference its \
         paired percentile bootstrap interval (the same resampled pairs for both models); \
         McNemar's exact test for the indicators, the paired sign-flip permutation test for KLS \
         and JSS; * = significant after the correction over the data set's comparisons. Against a \
         random-head baseline this is what training added beyond what any head prefers.",
    );
    let mut datasets: Vec<&str> = Vec::new();
    for c in comparisons {
        if !datasets.contains(&c.dataset.as_str()) {
            datasets.push(&c.dataset);
        }
    }
    for dataset in datasets {
        let rows: Vec<&ModelComparison> = comparisons
            .iter()
            .filter(|c| c.dataset == dataset)
            .collect();
        section = section
            .text(paired_verdict(dataset, &rows))
            .heat(paired_heat(dataset, &rows));
    }
    section
}

/// `"On crows-pairs, 12 of 60 paired differences are significant (Holm, α = 0.05); B is less
/// biased than A on …; more biased on …."`
fn paired_verdict(dataset: &str, rows: &[&ModelComparison]) -> String {
    let significant: Vec<&&ModelComparison> = rows.iter().filter(|c| c.significant).collect();
    let label = |c: &ModelComparison| {
        format!(
            "{} {}",
            column_label(&c.difference.measure, &c.scorer),
            c.difference
                .bias_type
                .as_ref()
                .map_or("overall".to_owned(), |t| t.to_string())
        )
    };
    let mut text = format!(
        "On {dataset}, {} of {} paired differences are significant.",
        significant.len(),
        rows.len()
    );
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for c in rows {
        if !pairs.contains(&(c.model_a.as_str(), c.model_b.as_str())) {
            pairs.push((&c.model_a, &c.model_b));
        }
    }
    for (a, b) in pairs {
        let of = |less: bool| {
            significant
                .iter()
                .filter(|c| {
                    c.model_a == a && c.model_b == b && c.difference.b_less_biased() == less
                })
                .map(|c| label(c))
                .collect::<Vec<_>>()
        };
        let (less, more) = (of(true), of(false));
        if less.is_empty() && more.is_empty() {
            text.push_str(&format!(" {b} and {a} differ significantly nowhere."));
            continue;
        }
        if !less.is_empty() {
            text.push_str(&format!(
                " {b} is less biased than {a} on {}.",
                less.join(", ")
            ));
        }
        if !more.is_empty() {
            text.push_str(&format!(
                " {b} is more biased than {a} on {}.",
                more.join(", ")
            ));
        }
    }
    text
}

fn paired_heat(dataset: &str, rows: &[&ModelComparison]) -> HeatTable {
    let mut columns: Vec<(String, String, String)> = Vec::new();
    let mut types: Vec<Option<bias_core::BiasType>> = vec![None];
    for c in rows {
        let key = (
            c.difference.measure.clone(),
            c.scorer.clone(),
            c.model_b.clone(),
        );
        if !columns.contains(&key) {
            columns.push(key);
        }
        if c.difference.bias_type.is_some() && !types.contains(&c.difference.bias_type) {
            types.push(c.difference.bias_type.clone());
        }
    }
    types[1..].sort();
    let heat_rows = types
        .iter()
        .map(|ty| HeatRow {
            label: ty.as_ref().map_or("overall".to_owned(), |t| t.to_string()),
            cells: columns
                .iter()
                .map(|(measure, scorer, model_b)| {
                    let c = rows.iter().find(|c| {
                        &c.difference.measure == measure
                            && &c.scorer == scorer
                            && &c.model_b == model_b
                            && &c.difference.bias_type == ty
                    })?;
                    let d = &c.difference;
                    let mark = if c.significant { " *" } else { "" };
                    Some(HeatCell {
                        value: format!("{:+.2}{mark}", d.difference),
                        detail: Some(format!("{:.1}–{:.1}", d.interval.lower, d.interval.upper)),
                        tooltip: Some(format!(
                            "{} on {scorer}, {} − {}: {:.2} − {:.2} = {:+.2}; n = {}; {:.0} % \
                             paired interval {:.2} to {:.2}; {} p = {}, Holm-adjusted p = {}",
                            d.measure,
                            c.model_b,
                            c.model_a,
                            d.value_b,
                            d.value_a,
                            d.difference,
                            d.n,
                            100.0 * d.level,
                            d.interval.lower,
                            d.interval.upper,
                            d.test.name(),
                            p_text(d.p_value),
                            p_text(c.p_adjusted)
                        )),
                        shade: if signed(measure) {
                            Shade::Diverging(d.difference / FULL_COLOUR_AT)
                        } else {
                            Shade::Sequential((d.difference / FULL_COLOUR_AT).abs())
                        },
                    })
                })
                .collect(),
            emphasis: ty.is_none(),
        })
        .collect();
    let model_a = rows.first().map_or("", |c| c.model_a.as_str());
    let family = rows
        .first()
        .map_or_else(String::new, |c| c.family.describe(c.family_size));
    HeatTable {
        corner: "bias type".to_owned(),
        groups: Vec::new(),
        columns: columns
            .iter()
            .map(|(m, s, b)| format!("{} {b} − {model_a}", column_label(m, s)))
            .collect(),
        rows: heat_rows,
        caption: Some(format!(
            "{dataset}: B − A with A = {model_a}; * = {family} (paired tests)."
        )),
    }
}
