//! Small multiples of a bias-controlled study (kaneko2023 §3.3–3.4, Figure 2).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{
    colour, decimals, finite_range, font, legend, padded, swatch, Frame, ANTI_COLOUR, CAPTION_SIZE,
    GREY, STEREO_COLOUR,
};
use bias_robust::controlled::{ControlledReport, Probe};

use crate::ReportError;

/// One named line of a [`TrendPanel`]: label, colour, `(r, value)` points.
type TrendSeries = (String, RGBColor, Vec<(f64, f64)>);

/// One panel of [`controlled_trends`].
struct TrendPanel {
    title: String,
    y_desc: String,
    /// The no-bias value, drawn dashed.
    reference: Option<f64>,
    series: Vec<TrendSeries>,
    x: (f64, f64),
    y: (f64, f64),
}

/// The panels, laid out on a grid of `(rows, cols)`.
struct TrendPanels {
    panels: Vec<TrendPanel>,
    grid: (usize, usize),
}

/// Small multiples of a bias-controlled study (kaneko2023 §3.3–3.4): one panel per row of
/// `report`, its value against the rate of bias `r` with the no-bias value dashed and ρ in the
/// title, then, when probes were measured, a panel with the mean P(he) and P(she) against `r`
/// (kaneko2023 Figure 2). Measures live on different scales (indicator and KLS around 50, JSS
/// up to 100, TBS around 0), so each panel has its own y axis instead of standardised values:
/// the values stay readable and the shape of each trend is what matters. Writes
/// `OUT_STEM.png` and `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::FigureInput`] for a report with no rates, or with neither rows nor probes;
/// [`ReportError::Io`] if the output folder cannot be created; [`ReportError::Draw`] if a file
/// cannot be drawn or written.
pub fn controlled_trends(
    report: &ControlledReport,
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    let panels = trend_panels(report)?;
    let cols = panels.len().min(3);
    let rows = panels.len().div_ceil(cols);
    render(
        out_stem.as_ref(),
        &TrendPanels {
            panels,
            grid: (rows, cols),
        },
    )
}

fn trend_panels(report: &ControlledReport) -> Result<Vec<TrendPanel>, ReportError> {
    let x = finite_range(report.rates.iter().copied())
        .map(|x| padded(x, 0.05))
        .ok_or_else(|| input_error("controlled trends", "the controlled report has no rates"))?;
    let mut panels: Vec<TrendPanel> = report
        .rows
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let points: Vec<(f64, f64)> = report
                .rates
                .iter()
                .copied()
                .zip(t.values.iter().copied())
                .collect();
            let y = finite_range(t.values.iter().copied().chain([t.no_bias]))?;
            let rho = t.rho.map_or("undefined".to_owned(), |r| format!("{r:.2}"));
            let unsigned = if t.signed { "" } else { ", unsigned" };
            Some(TrendPanel {
                title: format!("{} (ρ = {rho}{unsigned})", t.measure),
                y_desc: t.measure.clone(),
                reference: Some(t.no_bias),
                series: vec![(t.measure.clone(), colour(i), points)],
                x,
                y: padded(y, 0.1),
            })
        })
        .collect();
    panels.extend(probe_panel(report, x));
    if panels.is_empty() {
        return Err(input_error(
            "controlled trends",
            "the controlled report has neither measures nor probes to plot",
        ));
    }
    Ok(panels)
}

/// The he/she panel (kaneko2023 Figure 2), if any rate has a probe.
fn probe_panel(report: &ControlledReport, x: (f64, f64)) -> Option<TrendPanel> {
    let line = |pick: fn(&Probe) -> f64| -> Vec<(f64, f64)> {
        report
            .rates
            .iter()
            .zip(&report.probe)
            .filter_map(|(r, p)| p.as_ref().map(|p| (*r, pick(p))))
            .collect()
    };
    let (he, she) = (line(|p| p.he), line(|p| p.she));
    let y = finite_range(he.iter().chain(&she).map(|p| p.1))?;
    let verdict = match report.probe_he_monotonic {
        Some(true) => "monotone",
        Some(false) => "not monotone",
        None => "incomplete",
    };
    Some(TrendPanel {
        title: format!("he/she probe ({verdict})"),
        y_desc: "mean probability".to_owned(),
        reference: None,
        series: vec![
            ("P(he)".to_owned(), ANTI_COLOUR, he),
            ("P(she)".to_owned(), STEREO_COLOUR, she),
        ],
        x,
        y: padded(y, 0.1),
    })
}

impl Figure for TrendPanels {
    fn size(&self) -> (u32, u32) {
        let (rows, cols) = self.grid;
        (cols as u32 * 470, rows as u32 * 360 + 50)
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let root = root.titled(
            "Bias-controlled models: measures against the rate of bias r",
            font(CAPTION_SIZE),
        )?;
        for (area, panel) in root.split_evenly(self.grid).iter().zip(&self.panels) {
            draw_trend_panel(area, panel)?;
        }
        Ok(())
    }
}

fn draw_trend_panel<DB: Backend>(area: &DrawingArea<DB, Shift>, p: &TrendPanel) -> DrawResult {
    let frame = Frame::panel((48, 70));
    let mut chart = frame.chart(area, &p.title, p.x.0..p.x.1, p.y.0..p.y.1)?;
    frame
        .mesh(&mut chart)
        .x_desc("rate of bias r")
        .y_desc(p.y_desc.as_str())
        .x_label_formatter(&|v| rate_label(*v))
        .y_label_formatter(&|v| signless_zero(format!("{v:.*}", decimals(p.y.0, p.y.1))))
        .draw()?;
    if let Some(level) = p.reference {
        chart.draw_series(DashedLineSeries::new(
            [(p.x.0, level), (p.x.1, level)],
            8,
            6,
            GREY.stroke_width(2),
        ))?;
    }
    for (label, c, points) in &p.series {
        chart
            .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(3)))?
            .label(label.as_str())
            .legend(swatch(*c));
        chart.draw_series(points.iter().map(|&pt| Circle::new(pt, 4, c.filled())))?;
    }
    if p.series.len() < 2 {
        return Ok(());
    }
    // The he/she lines cross near r = 0.5, P = 0.5: the top centre stays clear.
    legend(&mut chart, SeriesLabelPosition::UpperMiddle)
}

/// A tick label of the rate axis: one decimal (`0.3`), or as many as the tick needs, up to 4
/// (`0.45` where close rates give ticks 0.05 apart, which one decimal would misstate).
fn rate_label(v: f64) -> String {
    let label = format!("{v:.4}");
    let label = label.trim_end_matches('0');
    signless_zero(if label.ends_with('.') {
        format!("{label}0")
    } else {
        label.to_owned()
    })
}

/// `"-0.0"` → `"0.0"`: a tick at zero computed as a tiny negative number.
fn signless_zero(label: String) -> String {
    match label.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_owned(),
        _ => label,
    }
}
