//! The paraphrase-robustness study (Kwon & Mihindukulasooriya 2022) drawn and reported: its
//! Figures 2–4 ([`draw_paper_figures`]) and the section of `bias report`
//! ([`report_section`]), on the reports of [`bias_robust::paraphrase_agreement`].

use crate::ReportError;
use std::collections::BTreeMap;

use bias_robust::paraphrase::{has_paraphrases, ScoreScale};
use bias_robust::{paraphrase_agreement, ParaphraseOptions, ParaphraseReport};

/// The stems [`draw_paper_figures`] drew (each with `.png` and `.svg`).
#[derive(Debug, Clone, PartialEq)]
pub struct PaperFigures {
    /// Figure 2: MAGREEMENT counts per model ([`crate::figures::agreement_counts`]).
    pub figure_2: std::path::PathBuf,
    /// Figure 3: the same per bias type ([`crate::figures::agreement_by_type`]).
    pub figure_3: std::path::PathBuf,
    /// Figure 4: MDIFF per sample and model ([`crate::figures::mdiff_by_sample`]).
    pub figure_4: std::path::PathBuf,
}

/// Draws Figures 2, 3 and 4 of the paraphrase-robustness study (§2.2) for `reports` (model label,
/// that model's report on the same pairs and scorer) into `dir`, as
/// `<prefix>figure-2.{png,svg}`, `<prefix>figure-3.…` and `<prefix>figure-4.…`. `bias robust
/// paraphrase --figures`, `bias report` and the reproduction all draw them through here.
///
/// # Errors
/// As the three figure functions: [`ReportError::FigureInput`] with no report or no finite
/// MDIFF, [`ReportError::Io`] / [`ReportError::Draw`] if a file cannot be written.
pub fn draw_paper_figures(
    reports: &[(&str, &ParaphraseReport)],
    dir: &std::path::Path,
    prefix: &str,
) -> Result<PaperFigures, ReportError> {
    let figures = PaperFigures {
        figure_2: dir.join(format!("{prefix}figure-2")),
        figure_3: dir.join(format!("{prefix}figure-3")),
        figure_4: dir.join(format!("{prefix}figure-4")),
    };
    crate::figures::agreement_counts(reports, &figures.figure_2)?;
    crate::figures::agreement_by_type(reports, &figures.figure_3)?;
    crate::figures::mdiff_by_sample(reports, &figures.figure_4)?;
    Ok(figures)
}

/// The paraphrase section of a report (`bias report`): for every (data set, scorer) whose score
/// tables hold paraphrases ([`has_paraphrases`]) and whose scale is known
/// ([`ScoreScale::of_scorer`]), MPER_AGREE (originals whose paraphrases all agree), the
/// per-paraphrase share and the near-tie share per model and bias type, and the paper's
/// Figures 2–4 across the models of that scorer ([`draw_paper_figures`], drawn into `fig_dir`
/// as `paraphrase_<data set>_<scorer>_figure-N`). `None` when no slice holds paraphrases.
///
/// # Errors
/// Those of [`paraphrase_agreement`] (an incomplete group, a bias type that differs within a
/// group, …) and of the figures.
pub fn report_section(
    slices: &[bias_core::ScoreSlice],
    fig_dir: &std::path::Path,
    options: &ParaphraseOptions,
) -> Result<Option<crate::report::Section>, ReportError> {
    let mut by_key: BTreeMap<(&str, &str), Vec<(&str, ParaphraseReport)>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for s in slices.iter().filter(|s| has_paraphrases(&s.table)) {
        if options.scale.is_none() && ScoreScale::of_scorer(&s.scorer).is_none() {
            unknown.push(format!("{} · {} · {}", s.model, s.scorer, s.dataset));
            continue;
        }
        let report = paraphrase_agreement(&s.table, options)?;
        by_key
            .entry((s.dataset.as_str(), s.scorer.as_str()))
            .or_default()
            .push((s.model.as_str(), report));
    }
    if by_key.is_empty() && unknown.is_empty() {
        return Ok(None);
    }
    let pct = |v: f64| format!("{:.1}", 100.0 * v);
    let mut rows = Vec::new();
    for ((dataset, scorer), reports) in &by_key {
        for (model, r) in reports {
            let all = std::iter::once(("all".to_owned(), &r.overall));
            for (ty, s) in all.chain(r.by_type.iter().map(|(t, s)| (t.to_string(), s))) {
                rows.push(vec![
                    format!("{model} · {scorer} · {dataset}"),
                    ty,
                    format!("{} / {}", s.agreeing_groups, s.groups),
                    pct(s.mper_agree),
                    pct(s.paraphrase_agree),
                    pct(s.near_tie_share),
                ]);
            }
        }
    }
    let mut section = crate::report::Section::new("Paraphrase agreement").text(
        "The paraphrase-robustness study of PLL bias scores (§2): MBIAS = the stereotypical \
         sentence is the more likely (MDIFF > 0); an original with all its paraphrases sharing its \
         MBIAS has MAGREEMENT = 1; MPER_AGREE is the share of such originals (the paper's \
         Figures 2–3), beside the share of single paraphrases that agree with their original. \
         Near ties: |MDIFF| inside the paper's ±0.25 on the sum scale (divided by the mean \
         token count on a per-token scale).",
    );
    section = section.table(
        &[
            "scores",
            "bias type",
            "MAGREEMENT = 1",
            "MPER_AGREE %",
            "paraphrases agreeing %",
            "near ties %",
        ],
        rows,
    );
    if !unknown.is_empty() {
        section = section.text(format!(
            "Left out, the scale of their scores being unknown (so the near-tie band cannot be \
             placed): {}.",
            unknown.join(", ")
        ));
    }
    for ((dataset, scorer), reports) in &by_key {
        let labelled: Vec<(&str, &ParaphraseReport)> =
            reports.iter().map(|(m, r)| (*m, r)).collect();
        let prefix = format!(
            "paraphrase_{}_",
            crate::report::file_part(&format!("{dataset}_{scorer}"))
        );
        let f = draw_paper_figures(&labelled, fig_dir, &prefix)?;
        section = section
            .figure(
                f.figure_2,
                format!(
                    "{scorer} on {dataset}: originals whose paraphrases fully agree (Figure 2)"
                ),
            )
            .figure(
                f.figure_3,
                format!("{scorer} on {dataset}: the same per bias type (Figure 3)"),
            )
            .figure(
                f.figure_4,
                format!("{scorer} on {dataset}: MDIFF of every pair by model (Figure 4)"),
            );
    }
    Ok(Some(section))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bias_core::{BiasType, ScoreRow, ScoreTable};

    fn row(id: &str, scorer: &str, mdiff: f64, tokens: Option<(usize, usize)>) -> ScoreRow {
        ScoreRow::builder(id, BiasType::Gender, mdiff, 0.0)
            .dataset("d")
            .sentences("s", "a")
            .scorer(scorer)
            .model("m")
            .tokens(tokens.map(|t| t.0), tokens.map(|t| t.1))
            .group(Some("o1".into()))
            .build()
    }

    #[test]
    fn report_section_counts_and_draws_per_scorer() {
        use crate::report::Block;
        let slice = |model: &str, mdiffs: [f64; 5]| {
            let ids = ["g1", "g1-p1", "g1-p2", "g2", "g2-p1"];
            let rows = ids
                .iter()
                .zip(mdiffs)
                .map(|(id, d)| ScoreRow {
                    model: model.into(),
                    group_id: Some(id.split('-').next().unwrap_or(id).into()),
                    ..row(id, "cps", d, None)
                })
                .collect();
            bias_core::ScoreSlice {
                dataset: "hand".into(),
                scorer: "cps".into(),
                model: model.into(),
                table: ScoreTable::new(rows),
            }
        };
        // m1: g1 (+1; +0.5, +0.2) agrees fully, g2 (−1; +0.3) does not: 1 of 2 originals, 2 of
        // 3 paraphrases; near ties |MDIFF| < 0.25: 0.2 → 1 of 5. m2: g1-p1 flips too: 0 of 2,
        // 1 of 3.
        let slices = [
            slice("m1", [1.0, 0.5, 0.2, -1.0, 0.3]),
            slice("m2", [1.0, -0.5, 0.2, -1.0, 0.3]),
        ];
        let dir = std::env::temp_dir().join(format!("para-section-{}", std::process::id()));
        let section = report_section(&slices, &dir, &ParaphraseOptions::default())
            .unwrap()
            .unwrap();
        let rows = section
            .blocks
            .iter()
            .find_map(|b| match b {
                Block::Table(table) => Some(table.text_rows()),
                _ => None,
            })
            .unwrap();
        assert_eq!(
            rows[0],
            ["m1 · cps · hand", "all", "1 / 2", "50.0", "66.7", "20.0"]
        );
        assert_eq!(rows[2][..4], ["m2 · cps · hand", "all", "0 / 2", "0.0"]);
        for n in 2..=4 {
            let stem = dir.join(format!("paraphrase_hand_cps_figure-{n}"));
            assert!(crate::figures::with_extension(&stem, "svg").is_file());
        }
        // A table without paraphrases has no section.
        let plain = bias_core::ScoreSlice {
            table: ScoreTable::new(vec![ScoreRow {
                group_id: None,
                ..row("x", "cps", 1.0, None)
            }]),
            ..slices[0].clone()
        };
        assert!(
            report_section(&[plain], &dir, &ParaphraseOptions::default())
                .unwrap()
                .is_none()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
