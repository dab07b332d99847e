//! Kernel densities of the two sentence scores with the fitted normals (liu2024 Fig. 2).

use std::path::Path;

use bias_core::ScoreTable;
use bias_metrics::stats::{gaussian_kde, scott_bandwidth};
use bias_metrics::Gaussian;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{
    dashed_swatch, decimals, finite_range, legend, linspace, swatch, Frame, ANTI_COLOUR,
    STEREO_COLOUR,
};

use crate::ReportError;

/// One curve: label, colour, density on the grid, dashed or not.
type DensitySeries = (String, RGBColor, Vec<f64>, bool);

struct DensityData {
    title: String,
    grid: Vec<f64>,
    series: Vec<DensitySeries>,
    y_max: f64,
}

/// Kernel densities (Gaussian KDE with Scott's bandwidth, [`bias_metrics::stats::gaussian_kde`])
/// of `score_stereo` and `score_anti` of all rows of `table`, with the normals fitted by
/// [`Gaussian::fit`] dashed (liu2024 Fig. 2). Writes `OUT_STEM.png` and `OUT_STEM.svg`.
///
/// # Errors
/// [`RobustError::Metrics`](bias_robust::RobustError::Metrics) with fewer than 2 rows, non-finite scores or scores that are all
/// equal (no bandwidth), or if a normal cannot be fitted; [`ReportError::Io`] if the output
/// folder cannot be created; [`ReportError::Draw`] if a file cannot be drawn or written.
pub fn score_densities(
    table: &ScoreTable,
    title: &str,
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    let stereo: Vec<f64> = table.rows().iter().map(|r| r.score_stereo).collect();
    let anti: Vec<f64> = table.rows().iter().map(|r| r.score_anti).collect();
    let h = scott_bandwidth(&stereo)?.max(scott_bandwidth(&anti)?);
    let g_stereo = Gaussian::fit(&stereo)?;
    let g_anti = Gaussian::fit(&anti)?;
    let (lo, hi) = finite_range(stereo.iter().chain(&anti).copied())
        .ok_or_else(|| input_error("score densities", "no finite scores"))?;
    let grid = linspace(lo - 3.0 * h, hi + 3.0 * h, 400);
    let pdf = |g: &Gaussian| -> Vec<f64> { grid.iter().map(|&x| g.ln_pdf(x).exp()).collect() };
    let n = stereo.len();
    let series = vec![
        (
            format!("stereotypical, KDE (n = {n})"),
            STEREO_COLOUR,
            gaussian_kde(&stereo, &grid)?,
            false,
        ),
        (
            format!("anti-stereotypical, KDE (n = {n})"),
            ANTI_COLOUR,
            gaussian_kde(&anti, &grid)?,
            false,
        ),
        (
            format!(
                "stereotypical, normal fit (μ = {:.2}, σ = {:.2})",
                g_stereo.mean, g_stereo.std
            ),
            STEREO_COLOUR,
            pdf(&g_stereo),
            true,
        ),
        (
            format!(
                "anti-stereotypical, normal fit (μ = {:.2}, σ = {:.2})",
                g_anti.mean, g_anti.std
            ),
            ANTI_COLOUR,
            pdf(&g_anti),
            true,
        ),
    ];
    let y_max = series
        .iter()
        .flat_map(|s| s.2.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let data = DensityData {
        title: title.to_owned(),
        grid,
        series,
        y_max: if y_max > 0.0 { y_max * 1.1 } else { 1.0 },
    };
    render(out_stem.as_ref(), &data)
}

impl Figure for DensityData {
    fn size(&self) -> (u32, u32) {
        (1000, 640)
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let d = self;
        let (x0, x1) = (d.grid[0], d.grid[d.grid.len() - 1]);
        let frame = Frame::figure((56, 84));
        let mut chart = frame.chart(root, &d.title, x0..x1, 0.0..d.y_max)?;
        frame
            .mesh(&mut chart)
            .x_desc("sentence score (log-likelihood)")
            .y_desc("density")
            .x_label_formatter(&|v| format!("{v:.*}", decimals(x0, x1)))
            .y_label_formatter(&|v| format!("{v:.*}", decimals(0.0, d.y_max)))
            .draw()?;
        for (label, c, ys, dashed) in &d.series {
            let points: Vec<(f64, f64)> = d.grid.iter().copied().zip(ys.iter().copied()).collect();
            if *dashed {
                chart
                    .draw_series(DashedLineSeries::new(points, 9, 6, c.stroke_width(2)))?
                    .label(label.as_str())
                    .legend(dashed_swatch(*c));
            } else {
                chart
                    .draw_series(LineSeries::new(points, c.stroke_width(3)))?
                    .label(label.as_str())
                    .legend(swatch(*c));
            }
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    }
}
