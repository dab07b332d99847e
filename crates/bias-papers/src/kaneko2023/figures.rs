//! kaneko2023's Figures 2 and 3: the he/she probes against the rate of bias.

use super::*;
use crate::PaperError;

pub(super) fn figure2(
    out: &mut Reproduction,
    families: &[Family],
    bases: &[Base],
    status: Status,
) -> Result<(), PaperError> {
    let panels: Vec<RatePanel> = families
        .iter()
        .map(|f| {
            let base = bases.iter().find(|b| b.model == f.model);
            let line = |label: &str, pick: fn(&bias_core::GenderTemplates) -> f64| RateSeries {
                label: label.to_owned(),
                points: f
                    .rates
                    .iter()
                    .map(|r| (r.rate, pick(&r.measured.templates)))
                    .collect(),
                baseline: base.map(|b| pick(&b.templates)),
            };
            RatePanel {
                title: format!("{} fine-tuned on {}", f.model, f.corpus),
                y_desc: "mean probability".into(),
                series: vec![line("P(he)", |g| g.he), line("P(she)", |g| g.she)],
            }
        })
        .collect();
    rate_lines(
        "he/she in \"[MASK] is a/an [occupation].\" (kaneko2023 Figure 2)",
        &panels,
        out.figure_stem("figure-2"),
    )?;
    out.figure("figure-2", FIGURE2_TITLE, status);
    Ok(())
}

pub(super) fn figure3(
    out: &mut Reproduction,
    families: &[Family],
    bases: &[Base],
    options: &Kaneko2023Options,
    status: Status,
) -> Result<(), PaperError> {
    let panels: Vec<RatePanel> = families
        .iter()
        .map(|f| {
            let base = bases.iter().find(|b| b.model == f.model);
            let series = options
                .mask_words
                .iter()
                .enumerate()
                .map(|(k, w)| RateSeries {
                    label: format!("P({w})"),
                    points: f
                        .rates
                        .iter()
                        .filter_map(|r| r.measured.mask.get(k).map(|p| (r.rate, *p)))
                        .collect(),
                    baseline: base.and_then(|b| b.mask.get(k).copied()),
                })
                .collect();
            RatePanel {
                title: format!("{} fine-tuned on {}", f.model, f.corpus),
                y_desc: "probability at the mask".into(),
                series,
            }
        })
        .collect();
    rate_lines(
        &format!("\"{}\" (kaneko2023 Figure 3)", options.mask_sentence),
        &panels,
        out.figure_stem("figure-3"),
    )?;
    let title = if options.mask_sentence == FIGURE3_SENTENCE {
        FIGURE3_TITLE.to_owned()
    } else {
        format!(
            "P({}) at the mask of {:?} against the rate of bias",
            options.mask_words.join("), P("),
            options.mask_sentence
        )
    };
    out.figure("figure-3", &title, status);
    Ok(())
}
