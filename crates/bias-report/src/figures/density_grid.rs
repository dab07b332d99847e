//! Small multiples of liu2024 Fig. 2: the score densities of every (scorer, model) of one data
//! set, one row per scorer and one column per model.

use std::path::Path;

use bias_core::ScoreSlice;
use bias_metrics::stats::{gaussian_kde, scott_bandwidth};
use bias_metrics::{Gaussian, MetricsError};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::legend_strip::{legend_strip, strip_height, Key};
use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{
    decimals, finite_range, font, linspace, Frame, ANTI_COLOUR, CAPTION_SIZE, GREY, LABEL_SIZE,
    STEREO_COLOUR, TICK_SIZE,
};

use crate::ReportError;

const FIGURE: &str = "score density grid";
/// Width of one column (one model), height of one row (one scorer), the least figure width and
/// the room the title takes.
const COLUMN_WIDTH: u32 = 360;
const ROW_HEIGHT: u32 = 260;
const MIN_WIDTH: u32 = 800;
pub(super) const TITLE_HEIGHT: u32 = 50;
/// Points of the x grid the densities of one row are evaluated on.
const GRID_POINTS: usize = 300;

/// One panel: pairs, then the stereotypical and anti-stereotypical KDE and normal fit.
struct Panel {
    n: usize,
    kde: [Vec<f64>; 2],
    fit: [Vec<f64>; 2],
}

/// One scorer: the x grid and y maximum its panels share, and a panel per model (if scored).
struct Row {
    scorer: String,
    grid: Vec<f64>,
    y_max: f64,
    panels: Vec<Option<Panel>>,
}

struct DensityGrid {
    title: String,
    models: Vec<String>,
    rows: Vec<Row>,
}

/// Small multiples of liu2024 Fig. 2 for one data set: one row per scorer and one column per
/// model (both in order of first appearance in `slices`), each panel the Gaussian KDE (Scott's
/// bandwidth, [`gaussian_kde`]) of `score_stereo` and `score_anti` of one slice, solid, with the
/// normals fitted by [`Gaussian::fit`] dashed, as [`super::score_densities`] draws one table.
/// The panels of a row share their x range and y maximum (a scorer's scores are on one scale;
/// scorers differ, so rows do not share). One legend above the panels serves the whole figure; a
/// (scorer, model) without a slice gets an empty panel saying "no scores". Writes
/// `OUT_STEM.png` and `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::FigureInput`] for no slices, slices of more than one data set, two slices of
/// one (scorer, model), or a slice whose densities cannot be computed (fewer than 2 rows,
/// non-finite scores or scores that are all equal), naming the slice; [`ReportError::Io`] if the
/// output folder cannot be created; [`ReportError::Draw`] if a file cannot be drawn or written.
pub fn score_density_grid(
    slices: &[&ScoreSlice],
    title: &str,
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    let first = slices
        .first()
        .ok_or_else(|| input_error(FIGURE, "no score slices to draw"))?;
    if let Some(other) = slices.iter().find(|s| s.dataset != first.dataset) {
        return Err(input_error(
            FIGURE,
            format!(
                "slices of more than one data set: {:?} ({} · {}) and {:?} ({} · {})",
                first.dataset, first.model, first.scorer, other.dataset, other.model, other.scorer
            ),
        ));
    }
    for (i, s) in slices.iter().enumerate() {
        if slices[..i]
            .iter()
            .any(|t| t.scorer == s.scorer && t.model == s.model)
        {
            return Err(input_error(
                FIGURE,
                format!("two slices of {} · {}", s.model, s.scorer),
            ));
        }
    }
    let scorers = first_appearance(slices.iter().map(|s| s.scorer.as_str()));
    let models = first_appearance(slices.iter().map(|s| s.model.as_str()));
    let rows = scorers
        .iter()
        .map(|scorer| density_row(slices, scorer, &models))
        .collect::<Result<Vec<_>, _>>()?;
    let data = DensityGrid {
        title: title.to_owned(),
        models,
        rows,
    };
    render(out_stem.as_ref(), &data)
}

/// The distinct names, in order of first appearance.
pub(super) fn first_appearance<'s>(names: impl Iterator<Item = &'s str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    names.for_each(|n| {
        if !out.iter().any(|o| o == n) {
            out.push(n.to_owned())
        }
    });
    out
}

/// A slice's densities cannot be computed: the error names the slice.
fn slice_error(s: &ScoreSlice, e: MetricsError) -> ReportError {
    input_error(
        FIGURE,
        format!(
            "the densities of {} · {} cannot be computed: {e}",
            s.model, s.scorer
        ),
    )
}

/// The panels of `scorer`, one per model, on a grid shared by the row.
fn density_row(
    slices: &[&ScoreSlice],
    scorer: &str,
    models: &[String],
) -> Result<Row, ReportError> {
    let mut scores = Vec::new();
    for model in models {
        let slice = slices
            .iter()
            .find(|s| s.scorer == scorer && s.model == *model);
        scores.push(match slice {
            None => None,
            Some(s) => {
                let stereo: Vec<f64> = s.table.rows().iter().map(|r| r.score_stereo).collect();
                let anti: Vec<f64> = s.table.rows().iter().map(|r| r.score_anti).collect();
                let h = scott_bandwidth(&stereo)
                    .and_then(|a| Ok(a.max(scott_bandwidth(&anti)?)))
                    .map_err(|e| slice_error(s, e))?;
                Some((*s, stereo, anti, h))
            }
        });
    }
    let present = || scores.iter().flatten();
    let h = present().map(|p| p.3).fold(0.0, f64::max);
    let (lo, hi) = finite_range(present().flat_map(|p| p.1.iter().chain(&p.2).copied()))
        .ok_or_else(|| input_error(FIGURE, format!("no finite scores of {scorer}")))?;
    let grid = linspace(lo - 3.0 * h, hi + 3.0 * h, GRID_POINTS);
    let mut panels = Vec::new();
    for p in &scores {
        panels.push(match p {
            None => None,
            Some((s, stereo, anti, _)) => {
                Some(panel(stereo, anti, &grid).map_err(|e| slice_error(s, e))?)
            }
        });
    }
    let y_max = panels
        .iter()
        .flatten()
        .flat_map(|p| p.kde.iter().chain(&p.fit).flatten().copied())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    Ok(Row {
        scorer: scorer.to_owned(),
        grid,
        y_max: if y_max > 0.0 { y_max * 1.1 } else { 1.0 },
        panels,
    })
}

fn panel(stereo: &[f64], anti: &[f64], grid: &[f64]) -> Result<Panel, MetricsError> {
    let pdf = |values: &[f64]| -> Result<Vec<f64>, MetricsError> {
        let g = Gaussian::fit(values)?;
        Ok(grid.iter().map(|&x| g.ln_pdf(x).exp()).collect())
    };
    Ok(Panel {
        n: stereo.len(),
        kde: [gaussian_kde(stereo, grid)?, gaussian_kde(anti, grid)?],
        fit: [pdf(stereo)?, pdf(anti)?],
    })
}

impl Figure for DensityGrid {
    fn size(&self) -> (u32, u32) {
        let width = (self.models.len() as u32 * COLUMN_WIDTH).max(MIN_WIDTH);
        let body = self.rows.len() as u32 * ROW_HEIGHT;
        (
            width,
            body + TITLE_HEIGHT + strip_height(&KEYS.map(|k| k.1), width),
        )
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let (_, height) = self.size();
        let (head, body) = root.split_vertically(height - self.rows.len() as u32 * ROW_HEIGHT);
        legend_strip(&head.titled(&self.title, font(CAPTION_SIZE))?, &KEYS)?;
        let cells = body.split_evenly((self.rows.len(), self.models.len()));
        let mut cells = cells.iter();
        for row in &self.rows {
            for (model, panel) in self.models.iter().zip(&row.panels) {
                let area = cells.next().expect("one cell per panel");
                let caption = format!("{model} · {}", row.scorer);
                match panel {
                    Some(p) => draw_density_panel(area, &caption, row, p)?,
                    None => draw_missing(area, &caption, "no scores")?,
                }
            }
        }
        Ok(())
    }
}

/// The legend of the whole figure.
const KEYS: [(Key, &str); 3] = [
    (Key::Line(STEREO_COLOUR), "stereotypical, KDE"),
    (Key::Line(ANTI_COLOUR), "anti-stereotypical, KDE"),
    (Key::Dashed(GREY), "normal fit (dashed)"),
];

fn draw_density_panel<DB: Backend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    row: &Row,
    p: &Panel,
) -> DrawResult {
    let (x0, x1) = (row.grid[0], row.grid[row.grid.len() - 1]);
    let y_max = row.y_max;
    let frame = Frame::panel((44, 70)).margin(8);
    let mut chart = frame.chart(area, caption, x0..x1, 0.0..y_max)?;
    frame
        .mesh(&mut chart)
        .x_labels(5)
        .y_labels(5)
        .x_desc("sentence score (log-likelihood)")
        .y_desc("density")
        .x_label_formatter(&|v| format!("{v:.*}", decimals(x0, x1)))
        .y_label_formatter(&|v| format!("{v:.*}", decimals(0.0, y_max)))
        .draw()?;
    for (i, c) in [STEREO_COLOUR, ANTI_COLOUR].into_iter().enumerate() {
        let kde = row.grid.iter().copied().zip(p.kde[i].iter().copied());
        chart.draw_series(LineSeries::new(kde, c.stroke_width(2)))?;
        let fit = row.grid.iter().copied().zip(p.fit[i].iter().copied());
        chart.draw_series(DashedLineSeries::new(fit, 7, 5, c.stroke_width(2)))?;
    }
    let corner = (x0 + 0.03 * (x1 - x0), 0.97 * y_max);
    let style = font(TICK_SIZE).pos(Pos::new(HPos::Left, VPos::Top));
    chart
        .plotting_area()
        .draw(&Text::new(format!("n = {}", p.n), corner, style))?;
    Ok(())
}

/// A panel without data: its caption, a grey frame and `note` in the middle.
fn draw_missing<DB: Backend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    note: &str,
) -> DrawResult {
    let inner = area.titled(caption, font(LABEL_SIZE))?;
    let (w, h) = inner.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    inner.draw(&Rectangle::new(
        [(12, 4), (w - 12, h - 12)],
        GREY.stroke_width(1),
    ))?;
    let style = font(LABEL_SIZE)
        .color(&GREY)
        .pos(Pos::new(HPos::Center, VPos::Center));
    inner.draw(&Text::new(note.to_owned(), (w / 2, h / 2), style))?;
    Ok(())
}
