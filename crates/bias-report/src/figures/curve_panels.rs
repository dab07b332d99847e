//! Robustness of a measure to sub-sampling, one panel per scorer (liu2024 Fig. 5 as small
//! multiples).

use crate::ReportError;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::density_grid::{first_appearance, TITLE_HEIGHT};
use super::legend_strip::{legend_strip, strip_height, Key};
use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::CAPTION_SIZE;
use super::style::{band, colour, decimals, finite_range, font, padded, Frame, GREY, LABEL_SIZE};
use bias_robust::RobustnessReport;

const FIGURE: &str = "robustness panels";
/// Size of one panel, and the most panels side by side.
const PANEL_WIDTH: u32 = 480;
const PANEL_HEIGHT: u32 = 360;
const MAX_COLUMNS: usize = 3;
const FULL_LABEL: &str = "full data (dashed)";
const BAND_LABEL: &str = "2.5–97.5 % band";
const RING_LABEL: &str = "order by mean differs from the full data";

/// One panel of [`robustness_panels`]: a title (the scorer, say), the sub-sampling study it
/// draws, and which of the study's models to draw.
#[derive(Debug, Clone)]
pub struct CurvePanel<'a> {
    /// The panel's title.
    pub title: String,
    /// The study the panel draws.
    pub report: &'a RobustnessReport,
    /// The models of `report` to draw, in this order; empty: all, in the report's order.
    pub models: Vec<String>,
}

/// One model's curve: colour index, full-data value, `(rate, mean, q025, q975)` by rate.
type ModelCurve = (usize, f64, Vec<(f64, f64, f64, f64)>);

struct PanelData {
    title: String,
    curves: Vec<ModelCurve>,
    /// Rates at which the report's order of the models by the mean is not the full-data order.
    changed: Vec<f64>,
}

struct CurvePanels {
    title: String,
    measure: String,
    panels: Vec<PanelData>,
    /// Model names, in order of first appearance: name `i` is drawn in `colour(i)`.
    names: Vec<String>,
    rings: bool,
    x: (f64, f64),
    y: (f64, f64),
    grid: (usize, usize),
}

/// liu2024 Fig. 5 as small multiples: one panel per [`CurvePanel`] (one per scorer, say), each
/// drawn as [`super::robustness_curves`] draws one report: per model, the mean of `measure`
/// across the sampling rates with a shaded 2.5–97.5 % band over the repeats, the full-data value
/// dashed, and every model's mean ringed in red at each rate where that panel's report says the
/// order of the models by the mean is not their full-data order (`mean_order_kept == false`).
/// A model has one colour in every panel; the panels (up to 3 a row) share the x and y ranges;
/// one legend above the panels serves the whole figure. Writes `OUT_STEM.png` and
/// `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::InvalidParameter`] if `measure` is in no panel's report;
/// [`ReportError::FigureInput`] for no panels, a panel naming a model its report does not have,
/// or no finite rate or value of `measure`; [`ReportError::Io`] if the output folder cannot be
/// created; [`ReportError::Draw`] if a file cannot be drawn or written.
pub fn robustness_panels(
    panels: &[CurvePanel<'_>],
    measure: &str,
    title: &str,
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    if panels.is_empty() {
        return Err(input_error(FIGURE, "no panel to draw"));
    }
    let mut names: Vec<String> = Vec::new();
    let mut data = Vec::new();
    for p in panels {
        data.push(panel_data(p, measure, &mut names)?);
    }
    if data.iter().all(|d| d.curves.is_empty()) {
        let measures = first_appearance(
            panels
                .iter()
                .flat_map(|p| p.report.measures.iter().map(String::as_str)),
        );
        return Err(ReportError::InvalidParameter {
            name: "measure".into(),
            value: measure.into(),
            expected: format!("one of the reports' measures {measures:?}"),
        });
    }
    let points = || data.iter().flat_map(|d| d.curves.iter().flat_map(|c| &c.2));
    let x = finite_range(points().map(|p| p.0))
        .ok_or_else(|| input_error(FIGURE, "no finite sampling rates"))?;
    let x = if x.1 > x.0 {
        padded(x, 0.04)
    } else {
        (x.0 - 0.05, x.1 + 0.05)
    };
    let values = data
        .iter()
        .flat_map(|d| d.curves.iter())
        .flat_map(|c| std::iter::once(c.1).chain(c.2.iter().flat_map(|p| [p.1, p.2, p.3])));
    let y = finite_range(values)
        .ok_or_else(|| input_error(FIGURE, format!("no finite values of {measure}")))?;
    let rings = data.iter().any(|d| {
        d.curves
            .iter()
            .any(|c| c.2.iter().any(|p| d.changed.contains(&p.0)))
    });
    let cols = data.len().min(MAX_COLUMNS);
    let figure = CurvePanels {
        title: title.to_owned(),
        measure: measure.to_owned(),
        grid: (data.len().div_ceil(cols), cols),
        panels: data,
        names,
        rings,
        x,
        y: padded(y, 0.08),
    };
    render(out_stem.as_ref(), &figure)
}

/// The curves of panel `p`, adding its model names to `names` (which gives their colours).
fn panel_data(
    p: &CurvePanel<'_>,
    measure: &str,
    names: &mut Vec<String>,
) -> Result<PanelData, ReportError> {
    let report = p.report;
    let models = if p.models.is_empty() {
        &report.models
    } else {
        &p.models
    };
    let mut curves = Vec::new();
    for model in models {
        if !report.models.contains(model) {
            return Err(input_error(
                FIGURE,
                format!("panel {:?}: its report has no model {model:?}", p.title),
            ));
        }
        let stats = || {
            report
                .measure_stats
                .iter()
                .filter(|s| s.model == *model && s.measure == measure)
        };
        let mut points: Vec<(f64, f64, f64, f64)> = stats()
            .map(|s| (s.rate, s.summary.mean, s.summary.q025, s.summary.q975))
            .collect();
        let Some(full) = stats().next().map(|s| s.full) else {
            continue;
        };
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let i = match names.iter().position(|n| n == model) {
            Some(i) => i,
            None => {
                names.push(model.clone());
                names.len() - 1
            }
        };
        curves.push((i, full, points));
    }
    let changed = report
        .rank_agreement
        .iter()
        .filter(|r| r.measure == measure && !r.mean_order_kept)
        .map(|r| r.rate)
        .collect();
    Ok(PanelData {
        title: p.title.clone(),
        curves,
        changed,
    })
}

impl CurvePanels {
    fn keys(&self) -> Vec<(Key, &str)> {
        let mut keys: Vec<(Key, &str)> = self
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| (Key::Line(colour(i)), n.as_str()))
            .collect();
        keys.push((Key::Dashed(GREY), FULL_LABEL));
        keys.push((Key::Band(GREY), BAND_LABEL));
        if self.rings {
            keys.push((Key::Ring, RING_LABEL));
        }
        keys
    }

    fn strip(&self, width: u32) -> u32 {
        let labels: Vec<&str> = self.keys().into_iter().map(|k| k.1).collect();
        strip_height(&labels, width)
    }
}

impl Figure for CurvePanels {
    fn size(&self) -> (u32, u32) {
        let (rows, cols) = self.grid;
        let width = cols as u32 * PANEL_WIDTH;
        (
            width,
            rows as u32 * PANEL_HEIGHT + TITLE_HEIGHT + self.strip(width),
        )
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let (width, _) = self.size();
        let (head, body) = root.split_vertically(TITLE_HEIGHT + self.strip(width));
        let strip = head.titled(&self.title, font(CAPTION_SIZE))?;
        legend_strip(&strip, &self.keys())?;
        for (area, panel) in body.split_evenly(self.grid).iter().zip(&self.panels) {
            self.draw_panel(area, panel)?;
        }
        Ok(())
    }
}

impl CurvePanels {
    fn draw_panel<DB: Backend>(&self, area: &DrawingArea<DB, Shift>, p: &PanelData) -> DrawResult {
        let (x, y) = (self.x, self.y);
        let frame = Frame::panel((48, 76));
        let mut chart = frame.chart(area, &p.title, x.0..x.1, y.0..y.1)?;
        frame
            .mesh(&mut chart)
            .x_labels(6)
            .x_desc("sampling rate (share of the pairs)")
            .y_desc(self.measure.as_str())
            .x_label_formatter(&|v| format!("{v:.*}", decimals(x.0, x.1).max(1)))
            .y_label_formatter(&|v| format!("{v:.*}", decimals(y.0, y.1)))
            .draw()?;
        if p.curves.is_empty() {
            let style = font(LABEL_SIZE)
                .color(&GREY)
                .pos(Pos::new(HPos::Center, VPos::Center));
            let middle = ((x.0 + x.1) / 2.0, (y.0 + y.1) / 2.0);
            let note = format!("no values of {}", self.measure);
            chart
                .plotting_area()
                .draw(&Text::new(note, middle, style))?;
        }
        for (i, full, points) in &p.curves {
            let c = colour(*i);
            chart.draw_series(std::iter::once(band(points, c)))?;
            let means = points.iter().map(|p| (p.0, p.1));
            chart.draw_series(LineSeries::new(means.clone(), c.stroke_width(3)))?;
            chart.draw_series(means.map(|m| Circle::new(m, 4, c.filled())))?;
            if full.is_finite() {
                let level = [(x.0, *full), (x.1, *full)];
                chart.draw_series(DashedLineSeries::new(level, 9, 6, c.stroke_width(2)))?;
            }
        }
        // liu2024 Fig. 5's red circles: the rates at which the order by mean changes.
        let rings = p
            .curves
            .iter()
            .flat_map(|c| c.2.iter())
            .filter(|q| p.changed.contains(&q.0))
            .map(|q| Circle::new((q.0, q.1), 9, RED.stroke_width(2)));
        chart.draw_series(rings)?;
        Ok(())
    }
}
