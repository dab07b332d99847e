//! Lines against the rate of bias, one panel per fine-tuned family, with the base model dashed
//! (kaneko2023 Figures 2 and 3).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{
    colour, decimals, finite_range, font, legend, padded, swatch, Frame, CAPTION_SIZE,
};

use crate::ReportError;

/// One line of a [`RatePanel`]: a label, its `(r, value)` points, and the base model's value
/// (drawn as a dashed level of the same colour).
#[derive(Debug, Clone, PartialEq)]
pub struct RateSeries {
    /// Legend label.
    pub label: String,
    /// `(rate of bias, value)` points.
    pub points: Vec<(f64, f64)>,
    /// The value of the model before fine-tuning, if known.
    pub baseline: Option<f64>,
}

/// One panel of [`rate_lines`]: a title, the y axis label, and its lines.
#[derive(Debug, Clone, PartialEq)]
pub struct RatePanel {
    /// Panel title (the base model and corpus).
    pub title: String,
    /// The y axis label.
    pub y_desc: String,
    /// The lines.
    pub series: Vec<RateSeries>,
}

struct RateFigure<'a> {
    title: &'a str,
    panels: &'a [RatePanel],
    grid: (usize, usize),
}

/// Small multiples of values against the rate of bias `r` of bias-controlled models
/// (kaneko2023 Figure 2: mean P(he) and P(she) in `"[MASK] is a/an [occupation]."`; Figure 3:
/// P(he) and P(she) at the mask of one sentence), one panel per base model and corpus, each
/// line with the base model's value dashed in its colour. Writes `OUT_STEM.png` and
/// `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::FigureInput`] for no panels or a panel without a finite point;
/// [`ReportError::Io`] / [`ReportError::Draw`] if the files cannot be written.
pub fn rate_lines(
    title: &str,
    panels: &[RatePanel],
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    if panels.is_empty() {
        return Err(input_error("rate lines", "no panel to draw"));
    }
    for p in panels {
        let values = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.1));
        if finite_range(values).is_none() {
            return Err(input_error(
                "rate lines",
                format!("panel {:?} has no finite point", p.title),
            ));
        }
    }
    let cols = panels.len().min(2);
    let rows = panels.len().div_ceil(cols);
    render(
        out_stem.as_ref(),
        &RateFigure {
            title,
            panels,
            grid: (rows, cols),
        },
    )
}

impl Figure for RateFigure<'_> {
    fn size(&self) -> (u32, u32) {
        let (rows, cols) = self.grid;
        (cols as u32 * 520, rows as u32 * 380 + 50)
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let root = root.titled(self.title, font(CAPTION_SIZE))?;
        for (area, panel) in root.split_evenly(self.grid).iter().zip(self.panels) {
            draw_panel(area, panel)?;
        }
        Ok(())
    }
}

fn draw_panel<DB: Backend>(area: &DrawingArea<DB, Shift>, p: &RatePanel) -> DrawResult {
    let x = finite_range(
        p.series
            .iter()
            .flat_map(|s| s.points.iter().map(|q| q.0))
            .chain([0.0, 1.0]),
    )
    .map_or((-0.05, 1.05), |x| padded(x, 0.05));
    let y = finite_range(
        p.series
            .iter()
            .flat_map(|s| s.points.iter().map(|q| q.1).chain(s.baseline)),
    )
    .map_or((0.0, 1.0), |y| padded(y, 0.1));
    let frame = Frame::panel((48, 90));
    let mut chart = frame.chart(area, &p.title, x.0..x.1, y.0..y.1)?;
    frame
        .mesh(&mut chart)
        .x_desc("rate of bias r (share of male sentences)")
        .y_desc(p.y_desc.as_str())
        .y_label_formatter(&|v| {
            let d = decimals(y.0, y.1);
            if v.abs() < (y.1 - y.0).abs() * 1e-9 {
                "0".to_owned()
            } else if d > 4 {
                format!("{v:.1e}")
            } else {
                format!("{v:.d$}")
            }
        })
        .draw()?;
    for (i, s) in p.series.iter().enumerate() {
        let c = colour(i);
        let label = match s.baseline {
            Some(b) => format!("{} (base {}, dashed)", s.label, short(b)),
            None => s.label.clone(),
        };
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(3)))?
            .label(label)
            .legend(swatch(c));
        chart.draw_series(s.points.iter().map(|&pt| Circle::new(pt, 4, c.filled())))?;
        if let Some(b) = s.baseline.filter(|b| b.is_finite()) {
            chart.draw_series(DashedLineSeries::new(
                [(x.0, b), (x.1, b)],
                8,
                6,
                c.stroke_width(2),
            ))?;
        }
    }
    legend(&mut chart, SeriesLabelPosition::UpperMiddle)
}

/// A value in three significant figures: fixed below 1000 and above 0.01, else scientific.
fn short(v: f64) -> String {
    if v == 0.0 || (0.01..1000.0).contains(&v.abs()) {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}
