//! The paraphrase-robustness study's figures across models: MAGREEMENT counts per model
//! (Figure 2) and per model and bias type (Figure 3), MDIFF per sample (Figure 4).

use crate::ReportError;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{
    box_swatch, colour, finite_range, font, legend, padded, Frame, CAPTION_SIZE, GREY, PALETTE,
    TICK_SIZE,
};
use bias_robust::ParaphraseReport;

/// The colour of MAGREEMENT = 1 and of MAGREEMENT = 0 bars.
const AGREE: RGBColor = PALETTE[2];
const DISAGREE: RGBColor = PALETTE[3];

/// A model's label on a category axis, shortened to 14 characters.
fn short(label: &str) -> String {
    let chars: Vec<char> = label.chars().collect();
    if chars.len() <= 14 {
        label.to_owned()
    } else {
        format!("{}…", chars[..13].iter().collect::<String>())
    }
}

fn check_models(
    figure: &'static str,
    reports: &[(&str, &ParaphraseReport)],
) -> Result<(), ReportError> {
    if reports.is_empty() {
        return Err(input_error(
            figure,
            "no model's paraphrase report was given",
        ));
    }
    Ok(())
}

/// One panel of stacked bars: per model, groups with MAGREEMENT = 1 and = 0.
struct Bars {
    title: String,
    models: Vec<String>,
    /// (agreeing groups, groups) per model.
    counts: Vec<(usize, usize)>,
}

struct BarPanels {
    caption: &'static str,
    panels: Vec<Bars>,
    grid: (usize, usize),
    panel_size: (u32, u32),
}

/// The paper's Figure 2 (paraphrase-robustness study §2.2): per model, the number of originals
/// whose paraphrases all share the original's MBIAS (MAGREEMENT = 1) and the number that do not
/// (MAGREEMENT = 0), stacked, with MPER_AGREE written above each bar. `reports` are (model
/// label, that model's report on the same pairs and scorer). Writes `OUT_STEM.png` and
/// `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::FigureInput`] with no report; [`ReportError::Io`] / [`ReportError::Draw`] if
/// a file cannot be written.
pub fn agreement_counts(
    reports: &[(&str, &ParaphraseReport)],
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    check_models("MAGREEMENT counts per model", reports)?;
    let panel = Bars {
        title: String::new(),
        models: reports.iter().map(|(l, _)| (*l).to_owned()).collect(),
        counts: reports
            .iter()
            .map(|(_, r)| (r.overall.agreeing_groups, r.overall.groups))
            .collect(),
    };
    let width = (220 + 130 * reports.len() as u32).max(700);
    render(
        out_stem.as_ref(),
        &BarPanels {
            caption: "Originals whose paraphrases fully agree (MAGREEMENT = 1) or not",
            panels: vec![panel],
            grid: (1, 1),
            panel_size: (width, 600),
        },
    )
}

/// The paper's Figure 3 (paraphrase-robustness study §2.2): Figure 2 per bias type, one panel
/// per bias type (the original's), models side by side. Writes `OUT_STEM.png` and
/// `OUT_STEM.svg`.
///
/// # Errors
/// As [`agreement_counts`]; also [`ReportError::FigureInput`] when the reports hold no bias
/// type.
pub fn agreement_by_type(
    reports: &[(&str, &ParaphraseReport)],
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    check_models("MAGREEMENT counts per model and bias type", reports)?;
    let mut types = std::collections::BTreeSet::new();
    for (_, r) in reports {
        types.extend(r.by_type.keys().cloned());
    }
    if types.is_empty() {
        return Err(input_error(
            "MAGREEMENT counts per model and bias type",
            "the reports hold no group",
        ));
    }
    let models: Vec<String> = reports.iter().map(|(l, _)| (*l).to_owned()).collect();
    let panels: Vec<Bars> = types
        .iter()
        .map(|ty| Bars {
            title: ty.to_string(),
            models: models.clone(),
            counts: reports
                .iter()
                .map(|(_, r)| {
                    r.by_type
                        .get(ty)
                        .map_or((0, 0), |s| (s.agreeing_groups, s.groups))
                })
                .collect(),
        })
        .collect();
    let cols = panels.len().min(3);
    let rows = panels.len().div_ceil(cols);
    let width = (120 + 90 * reports.len() as u32).max(420);
    render(
        out_stem.as_ref(),
        &BarPanels {
            caption:
                "Originals whose paraphrases fully agree (MAGREEMENT = 1) or not, by bias type",
            panels,
            grid: (rows, cols),
            panel_size: (width, 380),
        },
    )
}

impl Figure for BarPanels {
    fn size(&self) -> (u32, u32) {
        let (rows, cols) = self.grid;
        (
            cols as u32 * self.panel_size.0,
            rows as u32 * self.panel_size.1 + 50,
        )
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let root = root.titled(self.caption, font(CAPTION_SIZE))?;
        for (area, panel) in root.split_evenly(self.grid).iter().zip(&self.panels) {
            draw_bars(area, panel)?;
        }
        Ok(())
    }
}

fn draw_bars<DB: Backend>(area: &DrawingArea<DB, Shift>, p: &Bars) -> DrawResult {
    let n = p.models.len();
    let top = p.counts.iter().map(|c| c.1).max().unwrap_or(0).max(1) as f64 * 1.3;
    let frame = Frame::panel((40, 60));
    let mut chart = frame.chart(area, &p.title, -0.5..n as f64 - 0.5, 0.0..top)?;
    let models = &p.models;
    frame
        .mesh(&mut chart)
        .disable_x_mesh()
        .x_labels(n.max(1))
        .y_desc("originals")
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < models.len() {
                short(&models[i as usize])
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| {
            if (v - v.round()).abs() < 1e-9 {
                format!("{v:.0}")
            } else {
                String::new()
            }
        })
        .draw()?;
    let (agree_fill, disagree_fill) = (AGREE.mix(0.85).filled(), DISAGREE.mix(0.85).filled());
    let bars: Vec<(f64, f64, f64)> = p
        .counts
        .iter()
        .enumerate()
        .map(|(i, &(a, g))| (i as f64, a as f64, g as f64))
        .collect();
    chart
        .draw_series(
            bars.iter()
                .map(|&(x, a, _)| Rectangle::new([(x - 0.3, 0.0), (x + 0.3, a)], agree_fill)),
        )?
        .label("MAGREEMENT = 1")
        .legend(box_swatch(agree_fill));
    chart
        .draw_series(
            bars.iter()
                .map(|&(x, a, g)| Rectangle::new([(x - 0.3, a), (x + 0.3, g)], disagree_fill)),
        )?
        .label("MAGREEMENT = 0")
        .legend(box_swatch(disagree_fill));
    chart.draw_series(p.counts.iter().enumerate().filter(|(_, c)| c.1 > 0).map(
        |(i, &(a, g))| {
            Text::new(
                format!("{a}/{g} ({:.0} %)", 100.0 * a as f64 / g as f64),
                (i as f64 - 0.3, g as f64 + top * 0.04),
                font(TICK_SIZE),
            )
        },
    ))?;
    legend(&mut chart, SeriesLabelPosition::UpperRight)
}

/// One model's MDIFFs in report order, its colour and its near-tie half-width.
struct Samples {
    label: String,
    points: Vec<(f64, f64)>,
    band: f64,
}

struct Scatter {
    models: Vec<Samples>,
    x: (f64, f64),
    y: (f64, f64),
}

/// The paper's Figure 4 (paraphrase-robustness study §2.2): the MDIFF of every pair (originals
/// and paraphrases, in table order along the x axis) for each model, one colour per model, with
/// the near-tie band |MDIFF| < τ (each report's [`bias_robust::paraphrase::NearTieBand::half_width`]) shaded when
/// the models share one band and dashed in each model's colour otherwise. Writes
/// `OUT_STEM.png` and `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::FigureInput`] with no report or no finite MDIFF; [`ReportError::Io`] /
/// [`ReportError::Draw`] if a file cannot be written.
pub fn mdiff_by_sample(
    reports: &[(&str, &ParaphraseReport)],
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    check_models("MDIFF per sample", reports)?;
    let models: Vec<Samples> = reports
        .iter()
        .map(|(l, r)| Samples {
            label: (*l).to_owned(),
            points: r
                .pairs
                .iter()
                .enumerate()
                .filter(|(_, p)| p.mdiff.is_finite())
                .map(|(i, p)| (i as f64, p.mdiff))
                .collect(),
            band: r.band.half_width,
        })
        .collect();
    let y = finite_range(
        models
            .iter()
            .flat_map(|m| m.points.iter().map(|p| p.1).chain([-m.band, m.band])),
    )
    .filter(|_| models.iter().any(|m| !m.points.is_empty()))
    .ok_or_else(|| input_error("MDIFF per sample", "the reports have no finite MDIFF"))?;
    let n = reports
        .iter()
        .map(|(_, r)| r.pairs.len())
        .max()
        .unwrap_or(1);
    render(
        out_stem.as_ref(),
        &Scatter {
            models,
            x: (-1.0, n as f64),
            y: padded(y, 0.05),
        },
    )
}

impl Figure for Scatter {
    fn size(&self) -> (u32, u32) {
        (1100, 640)
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let frame = Frame::figure((56, 80));
        let mut chart = frame.chart(
            root,
            "MDIFF of every pair by model",
            self.x.0..self.x.1,
            self.y.0..self.y.1,
        )?;
        frame
            .mesh(&mut chart)
            .x_desc("pair (originals and paraphrases, in table order)")
            .y_desc("MDIFF = score(stereo) − score(anti)")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .draw()?;
        let shared = self
            .models
            .iter()
            .all(|m| (m.band - self.models[0].band).abs() <= 1e-12 * m.band.abs().max(1.0));
        if shared {
            let b = self.models[0].band;
            let band = RGBColor(200, 200, 200).mix(0.5).filled();
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(self.x.0, -b), (self.x.1, b)],
                    band,
                )))?
                .label(format!("near tie |MDIFF| < {b:.4}"))
                .legend(box_swatch(band));
        } else {
            for (i, m) in self.models.iter().enumerate() {
                for y in [-m.band, m.band] {
                    chart.draw_series(DashedLineSeries::new(
                        [(self.x.0, y), (self.x.1, y)],
                        8,
                        6,
                        colour(i).stroke_width(1),
                    ))?;
                }
            }
        }
        chart.draw_series(LineSeries::new(
            [(self.x.0, 0.0), (self.x.1, 0.0)],
            GREY.stroke_width(1),
        ))?;
        for (i, m) in self.models.iter().enumerate() {
            let c = colour(i);
            let band = if shared {
                String::new()
            } else {
                format!(", near tie < {:.4}", m.band)
            };
            chart
                .draw_series(
                    m.points
                        .iter()
                        .map(|&p| Circle::new(p, 3, c.mix(0.8).filled())),
                )?
                .label(format!("{}{band}", m.label))
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bias_core::{BiasType, ScoreRow, ScoreTable};
    use bias_robust::{paraphrase_agreement, ParaphraseOptions};

    fn row(id: &str, group: &str, ty: BiasType, mdiff: f64) -> ScoreRow {
        ScoreRow::builder(id, ty, mdiff, 0.0)
            .dataset("d")
            .sentences("s", "a")
            .scorer("cps")
            .model("m")
            .group(Some(group.into()))
            .build()
    }

    /// Model A: g1 (gender) agrees fully (+, +, +), g2 (gender) does not (−, +), g3 (age)
    /// agrees (−, −): 2 of 3 originals fully agree; gender 1/2, age 1/1.
    /// Model B: every MDIFF of A negated but g3-p1's: g1 (−, −, −) agrees, g2 (+, −) does not,
    /// g3 (+, −) does not: 1 of 3; gender 1/2, age 0/1.
    fn report(flip: bool) -> ParaphraseReport {
        use BiasType::{Age, Gender};
        let s = if flip { -1.0 } else { 1.0 };
        let t = ScoreTable::new(vec![
            row("g1", "g1", Gender, s * 0.5),
            row("g1-p1", "g1", Gender, s * 0.3),
            row("g1-p2", "g1", Gender, s * 0.1),
            row("g2", "g2", Gender, s * -0.4),
            row("g2-p1", "g2", Gender, s * 0.2),
            row("g3", "g3", Age, -s),
            row("g3-p1", "g3", Age, -0.6),
        ]);
        paraphrase_agreement(&t, &ParaphraseOptions::default()).unwrap()
    }

    #[test]
    fn figures_2_to_4_write_their_counts() {
        let (a, b) = (report(false), report(true));
        assert_eq!((a.overall.agreeing_groups, a.overall.groups), (2, 3));
        assert_eq!((b.overall.agreeing_groups, b.overall.groups), (1, 3));
        let dir = std::env::temp_dir().join(format!("agreement-fig-{}", std::process::id()));
        let reports = [("model-a", &a), ("model-b", &b)];
        agreement_counts(&reports, dir.join("f2")).unwrap();
        agreement_by_type(&reports, dir.join("f3")).unwrap();
        mdiff_by_sample(&reports, dir.join("f4")).unwrap();
        for f in ["f2", "f3", "f4"] {
            for ext in ["png", "svg"] {
                let p = dir.join(format!("{f}.{ext}"));
                assert!(std::fs::metadata(&p).unwrap().len() > 0, "{}", p.display());
            }
        }
        // Figure 2: 2/3 and 1/3 above the bars, by hand.
        let f2 = std::fs::read_to_string(dir.join("f2.svg")).unwrap();
        assert!(
            f2.contains("2/3 (67 %)") && f2.contains("1/3 (33 %)"),
            "{f2}"
        );
        // Figure 3: gender 1/2 for both models, age 1/1 (A) and 0/1 (B).
        let f3 = std::fs::read_to_string(dir.join("f3.svg")).unwrap();
        assert_eq!(f3.matches("1/2 (50 %)").count(), 2);
        assert!(f3.contains("1/1 (100 %)") && f3.contains("0/1 (0 %)"));
        assert!(f3.contains("\ngender\n") && f3.contains("\nage\n"));
        // Figure 4: one shared band (both on the sum scale: τ = 0.25).
        let f4 = std::fs::read_to_string(dir.join("f4.svg")).unwrap();
        assert!(
            f4.contains("near tie |MDIFF| &lt; 0.2500") || f4.contains("near tie |MDIFF| < 0.2500")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn no_report_is_a_clear_error() {
        let e = agreement_counts(&[], std::env::temp_dir().join("never")).unwrap_err();
        assert!(
            e.to_string().contains("no model's paraphrase report"),
            "{e}"
        );
    }
}
