//! Panels of points, optionally joined by lines: the scatter, strip and curve plots of
//! Schröder, Schulz & Hammer (2024) Figures 1–3.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{
    colour, finite_range, font, legend, padded, swatch, CAPTION_SIZE, LABEL_SIZE, TICK_SIZE,
};

use crate::ReportError;

/// One series of a [`PointPanel`]: a name for the legend and its `(x, y)` points.
#[derive(Debug, Clone, PartialEq)]
pub struct PointSeries {
    /// The legend entry.
    pub name: String,
    /// The points, in drawing order (joined in this order when the panel has lines).
    pub points: Vec<(f64, f64)>,
    /// The palette colour (`None`: the series' position in its panel), so that a series keeps
    /// its colour across panels.
    pub colour: Option<usize>,
}

/// One panel of [`point_panels`].
#[derive(Debug, Clone, PartialEq)]
pub struct PointPanel {
    /// The panel's caption.
    pub title: String,
    /// The x axis label.
    pub x_label: String,
    /// The y axis label.
    pub y_label: String,
    /// The series, one colour each.
    pub series: Vec<PointSeries>,
    /// Whether each series' points are joined by a line.
    pub lines: bool,
}

struct Panels<'a> {
    panels: &'a [PointPanel],
}

impl Figure for Panels<'_> {
    fn size(&self) -> (u32, u32) {
        (640 * self.panels.len() as u32, 520)
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let areas = root.split_evenly((1, self.panels.len()));
        for (panel, area) in self.panels.iter().zip(&areas) {
            let all = || panel.series.iter().flat_map(|s| s.points.iter());
            let x = padded(finite_range(all().map(|p| p.0)).unwrap_or((0.0, 1.0)), 0.05);
            let y = padded(finite_range(all().map(|p| p.1)).unwrap_or((0.0, 1.0)), 0.08);
            // Room above the points for the legend.
            let y = (y.0, y.1 + 0.35 * (y.1 - y.0));
            let mut chart = ChartBuilder::on(area)
                .caption(&panel.title, font(CAPTION_SIZE))
                .margin(12)
                .x_label_area_size(48)
                .y_label_area_size(64)
                .build_cartesian_2d(x.0..x.1, y.0..y.1)?;
            chart
                .configure_mesh()
                .x_desc(&panel.x_label)
                .y_desc(&panel.y_label)
                .axis_desc_style(font(LABEL_SIZE))
                .label_style(font(TICK_SIZE))
                .draw()?;
            for (i, s) in panel.series.iter().enumerate() {
                let c = colour(s.colour.unwrap_or(i));
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|p| p.0.is_finite() && p.1.is_finite())
                    .collect();
                if panel.lines {
                    chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?;
                }
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 5, c.filled())))?
                    .label(s.name.clone())
                    .legend(swatch(c));
            }
            legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    }
}

/// Panels side by side, each a set of point series (scatter, strip or curve plot). Writes
/// `OUT_STEM.png` and `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::FigureInput`] with no panel or a panel without a finite point;
/// [`ReportError::Io`] if the output folder cannot be created; [`ReportError::Draw`] if a file
/// cannot be drawn or written.
pub fn point_panels(panels: &[PointPanel], out_stem: impl AsRef<Path>) -> Result<(), ReportError> {
    if panels.is_empty() {
        return Err(input_error("point panels", "no panel"));
    }
    for p in panels {
        let finite = p
            .series
            .iter()
            .flat_map(|s| &s.points)
            .any(|q| q.0.is_finite() && q.1.is_finite());
        if !finite {
            return Err(input_error(
                "point panels",
                format!("panel `{}` has no finite point", p.title),
            ));
        }
    }
    render(out_stem.as_ref(), &Panels { panels })
}
