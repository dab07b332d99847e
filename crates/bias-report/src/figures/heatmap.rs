//! Heat map of Pearson's r between measures.

use crate::ReportError;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{font, CAPTION_SIZE, LABEL_SIZE, TICK_SIZE};
use bias_robust::MeasureCorrelation;

/// Diverging blue–white–red colour of `r ∈ [−1, 1]` (grey for a non-finite value).
fn diverging(r: f64) -> RGBColor {
    if !r.is_finite() {
        return RGBColor(200, 200, 200);
    }
    let r = r.clamp(-1.0, 1.0);
    let (end, t) = if r < 0.0 {
        ((33.0, 102.0, 172.0), -r)
    } else {
        ((178.0, 24.0, 43.0), r)
    };
    let mix = |a: f64| (255.0 + (a - 255.0) * t).round() as u8;
    RGBColor(mix(end.0), mix(end.1), mix(end.2))
}

struct Heatmap<'a> {
    corr: &'a MeasureCorrelation,
    /// Pixels left for the measure names below and left of the cells.
    label_area: u32,
    size: (u32, u32),
}

/// Heat map of Pearson's r between the measures of `corr`, each cell's value written in it
/// (blue −1, white 0, red +1), with a colour bar. Writes `OUT_STEM.png` and `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::FigureInput`] with no measures or an `r` that is not `measures × measures`;
/// [`ReportError::Io`] if the output folder cannot be created; [`ReportError::Draw`] if a file
/// cannot be drawn or written.
pub fn correlation_heatmap(
    corr: &MeasureCorrelation,
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    let n = corr.measures.len();
    let problem = if n == 0 {
        Some("no measures".to_owned())
    } else if corr.r.len() != n {
        Some(format!("r has {} rows for {n} measures", corr.r.len()))
    } else {
        corr.r.iter().position(|row| row.len() != n).map(|j| {
            format!(
                "row {j} of r has {} values for {n} measures",
                corr.r[j].len()
            )
        })
    };
    if let Some(problem) = problem {
        return Err(input_error("correlation heat map", problem));
    }
    let longest = corr
        .measures
        .iter()
        .map(|m| m.chars().count())
        .max()
        .unwrap_or(1) as u32;
    let label_area = (longest * 10 + 24).clamp(60, 260);
    let cell = if n <= 8 { 90 } else { 60 };
    let side = cell * n as u32;
    let size = (side + label_area + 190, side + label_area + 90);
    render(
        out_stem.as_ref(),
        &Heatmap {
            corr,
            label_area,
            size,
        },
    )
}

impl Figure for Heatmap<'_> {
    fn size(&self) -> (u32, u32) {
        self.size
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let (corr, label_area) = (self.corr, self.label_area);
        let n = corr.measures.len();
        let nf = n as f64;
        let title = format!("Pearson r between measures ({} models)", corr.models.len());
        let root = root.titled(&title, font(CAPTION_SIZE))?;
        let (width, _) = root.dim_in_pixel();
        let (main, bar) = root.split_horizontally(width.saturating_sub(150));
        let mut chart = ChartBuilder::on(&main)
            .margin(16)
            .x_label_area_size(label_area)
            .y_label_area_size(label_area)
            .build_cartesian_2d(0.0..nf, 0.0..nf)?;
        // Row j (measure j) is drawn from the top: y = n − 1 − j.
        let mut cells = Vec::with_capacity(n * n);
        for (j, row) in corr.r.iter().enumerate() {
            for (i, &r) in row.iter().enumerate() {
                let y = (n - 1 - j) as f64;
                cells.push((i as f64, y, r));
            }
        }
        chart.draw_series(cells.iter().map(|&(x, y, r)| {
            Rectangle::new([(x, y), (x + 1.0, y + 1.0)], diverging(r).filled())
        }))?;
        chart.draw_series(cells.iter().map(|&(x, y, _)| {
            Rectangle::new([(x, y), (x + 1.0, y + 1.0)], WHITE.stroke_width(2))
        }))?;
        let value_size = if n <= 8 { 20 } else { 15 };
        chart.draw_series(cells.iter().map(|&(x, y, r)| {
            let ink: &'static RGBColor = if r.is_finite() && r.abs() > 0.55 {
                &WHITE
            } else {
                &BLACK
            };
            let text = if r.is_finite() {
                format!("{r:.2}")
            } else {
                "–".to_owned()
            };
            Text::new(
                text,
                (x + 0.5, y + 0.5),
                font(value_size)
                    .color(ink)
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            )
        }))?;
        // Measure names: below the columns and left of the rows, drawn on the undivided area.
        // `backend_coord` is in backend pixels; `main` draws relative to its own origin.
        let (ox, oy) = main.get_base_pixel();
        for (k, name) in corr.measures.iter().enumerate() {
            let (cx, bottom) = chart.backend_coord(&(k as f64 + 0.5, 0.0));
            let (cx, bottom) = (cx - ox, bottom - oy);
            main.draw(&Text::new(
                name.clone(),
                (cx, bottom + 10),
                font(TICK_SIZE + 2).pos(Pos::new(HPos::Center, VPos::Top)),
            ))?;
            let (left, cy) = chart.backend_coord(&(0.0, nf - k as f64 - 0.5));
            let (left, cy) = (left - ox, cy - oy);
            main.draw(&Text::new(
                name.clone(),
                (left - 10, cy),
                font(TICK_SIZE + 2).pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        // Colour bar.
        let mut bar_chart = ChartBuilder::on(&bar)
            .margin_top(16 + 10)
            .margin_bottom(label_area as i32 + 16)
            .margin_right(10)
            .y_label_area_size(56)
            .right_y_label_area_size(0)
            .build_cartesian_2d(0.0..1.0, -1.0..1.0)?;
        bar_chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .disable_y_mesh()
            .y_labels(5)
            .y_desc("r")
            .axis_desc_style(font(LABEL_SIZE))
            .label_style(font(TICK_SIZE))
            .y_label_formatter(&|v| format!("{v:.1}"))
            .draw()?;
        let steps = 100;
        bar_chart.draw_series((0..steps).map(|s| {
            let lo = -1.0 + 2.0 * s as f64 / steps as f64;
            let hi = lo + 2.0 / steps as f64;
            Rectangle::new([(0.0, lo), (0.35, hi)], diverging((lo + hi) / 2.0).filled())
        }))?;
        Ok(())
    }
}
