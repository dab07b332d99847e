//! StereoSet's own scores (Nadeem et al. 2021) as a report heat map.

use super::heat::{model_columns, HeatCell, HeatRow, HeatTable, Shade};
use super::summary::FULL_COLOUR_AT;
use bias_robust::summary::scorer_rank;

/// StereoSet's own scores of one (model, scorer) (Nadeem et al. 2021), for [`stereoset_heat`].
#[derive(Debug, Clone, Copy)]
pub struct StereoSetColumn<'a> {
    /// The model.
    pub model: &'a str,
    /// The scorer.
    pub scorer: &'a str,
    /// SS, LMS and ICAT overall and per domain.
    pub scores: &'a bias_metrics::StereoSetScores,
}

/// StereoSet's scores as a heat map: overall then each domain; one column per scorer (in the
/// papers' order), split into one per model when there are several; each cell SS coloured by
/// its distance from 50 (red: the stereotype preferred), with LMS and ICAT under it.
pub fn stereoset_heat(columns: &[StereoSetColumn<'_>]) -> HeatTable {
    let mut models: Vec<&str> = Vec::new();
    let mut scorers: Vec<&str> = Vec::new();
    let mut domains: Vec<&str> = Vec::new();
    for c in columns {
        if !models.contains(&c.model) {
            models.push(c.model);
        }
        if !scorers.contains(&c.scorer) {
            scorers.push(c.scorer);
        }
        for d in c.scores.by_domain.keys() {
            if !domains.contains(&d.as_str()) {
                domains.push(d);
            }
        }
    }
    scorers.sort_by_key(|s| scorer_rank(s));
    domains.sort_unstable();
    let keys: Vec<(&str, &str)> = scorers
        .iter()
        .flat_map(|s| models.iter().map(move |m| (*s, *m)))
        .collect();
    let find = |scorer: &str, model: &str| {
        columns
            .iter()
            .find(|c| c.scorer == scorer && c.model == model)
    };
    let cell = |v: &bias_metrics::Scores, what: String| HeatCell {
        value: format!("{:.2}", v.ss),
        detail: Some(format!("LMS {:.1} · ICAT {:.1}", v.lms, v.icat)),
        tooltip: Some(format!(
            "{what}: SS {:.2}, LMS {:.2}, ICAT {:.2}; {} items, {} target terms",
            v.ss, v.lms, v.icat, v.n_items, v.n_targets
        )),
        shade: Shade::Diverging((v.ss - 50.0) / FULL_COLOUR_AT),
    };
    let mut rows = vec![HeatRow {
        label: "overall".to_owned(),
        cells: keys
            .iter()
            .map(|(s, m)| find(s, m).map(|c| cell(&c.scores.overall, format!("{s}, {m}"))))
            .collect(),
        emphasis: true,
    }];
    for d in domains {
        rows.push(HeatRow {
            label: d.to_owned(),
            cells: keys
                .iter()
                .map(|(s, m)| {
                    let v = find(s, m)?.scores.by_domain.get(d)?;
                    Some(cell(v, format!("{s}, {m}, {d}")))
                })
                .collect(),
            emphasis: false,
        });
    }
    let labels: Vec<String> = scorers.iter().map(|s| s.to_uppercase()).collect();
    let (groups, columns, words) = model_columns(labels, &models);
    HeatTable {
        corner: "domain".to_owned(),
        groups,
        columns,
        rows,
        caption: Some(format!("StereoSet SS (LMS and ICAT under it): {words}.")),
    }
}
