//! Robustness of a measure to sub-sampling, per model (liu2024 Fig. 5).

use crate::ReportError;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{
    band, colour, dashed_swatch, decimals, finite_range, legend, padded, swatch, Frame,
};
use bias_robust::RobustnessReport;

/// One model's curve: name, full-data value, `(rate, mean, q025, q975)` by rate.
type ModelCurve = (String, f64, Vec<(f64, f64, f64, f64)>);

struct CurveData {
    measure: String,
    /// Per model: name, full-data value, (rate, mean, q025, q975) by rate.
    models: Vec<ModelCurve>,
    /// Rates at which the order of the models by the mean is not the full-data order.
    changed: Vec<f64>,
    x: (f64, f64),
    y: (f64, f64),
}

/// For each model of `report`, the mean of `measure` across the sampling rates with a shaded
/// 2.5–97.5 % band over the repeats, and the full-data value as a dashed horizontal line
/// (liu2024 Fig. 5). As the red circles of liu2024 Fig. 5 ("Red circles indicate the
/// occurrence of non-robustness"), every model's mean is ringed in red at each rate where the
/// report's [`bias_robust::RankAgreement`] says the order of the models by the mean is not their
/// full-data order (`mean_order_kept == false`). Writes `OUT_STEM.png` and `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::InvalidParameter`] if `measure` is not in the report;
/// [`ReportError::FigureInput`] if no rate or no value of `measure` is finite;
/// [`ReportError::Io`] if the output folder cannot be created; [`ReportError::Draw`] if a file
/// cannot be drawn or written.
pub fn robustness_curves(
    report: &RobustnessReport,
    measure: &str,
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    let mut models = Vec::new();
    for model in &report.models {
        let mut points: Vec<(f64, f64, f64, f64)> = report
            .measure_stats
            .iter()
            .filter(|s| s.model == *model && s.measure == measure)
            .map(|s| (s.rate, s.summary.mean, s.summary.q025, s.summary.q975))
            .collect();
        if points.is_empty() {
            continue;
        }
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let full = report
            .measure_stats
            .iter()
            .find(|s| s.model == *model && s.measure == measure)
            .map_or(f64::NAN, |s| s.full);
        models.push((model.clone(), full, points));
    }
    if models.is_empty() {
        return Err(ReportError::InvalidParameter {
            name: "measure".into(),
            value: measure.into(),
            expected: format!("one of the report's measures {:?}", report.measures),
        });
    }
    let x = finite_range(models.iter().flat_map(|m| m.2.iter().map(|p| p.0)))
        .ok_or_else(|| input_error("robustness curves", "no finite sampling rates"))?;
    let x = if x.1 > x.0 {
        padded(x, 0.04)
    } else {
        (x.0 - 0.05, x.1 + 0.05)
    };
    let y = finite_range(
        models
            .iter()
            .flat_map(|m| std::iter::once(m.1).chain(m.2.iter().flat_map(|p| [p.1, p.2, p.3]))),
    )
    .ok_or_else(|| {
        input_error(
            "robustness curves",
            format!("no finite values of {measure}"),
        )
    })?;
    // Only read through `contains` (which points get a red ring): order and repeats don't matter.
    let changed: Vec<f64> = report
        .rank_agreement
        .iter()
        .filter(|r| r.measure == measure && !r.mean_order_kept)
        .map(|r| r.rate)
        .collect();
    let data = CurveData {
        measure: measure.to_owned(),
        models,
        changed,
        x,
        y: padded(y, 0.08),
    };
    render(out_stem.as_ref(), &data)
}

impl Figure for CurveData {
    fn size(&self) -> (u32, u32) {
        (1000, 640)
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let d = self;
        let frame = Frame::figure((56, 84));
        let caption = format!("{}: robustness to sub-sampling", d.measure);
        let mut chart = frame.chart(root, &caption, d.x.0..d.x.1, d.y.0..d.y.1)?;
        frame
            .mesh(&mut chart)
            .x_desc("sampling rate (share of the pairs)")
            .y_desc(d.measure.as_str())
            .x_label_formatter(&|v| format!("{v:.*}", decimals(d.x.0, d.x.1).max(1)))
            .y_label_formatter(&|v| format!("{v:.*}", decimals(d.y.0, d.y.1)))
            .draw()?;
        for (i, (model, full, points)) in d.models.iter().enumerate() {
            let c = colour(i);
            chart.draw_series(std::iter::once(band(points, c)))?;
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|p| (p.0, p.1)),
                    c.stroke_width(3),
                ))?
                .label(format!("{model}: mean, 2.5–97.5 % band"))
                .legend(swatch(c));
            chart.draw_series(
                points
                    .iter()
                    .map(|p| Circle::new((p.0, p.1), 4, c.filled())),
            )?;
            if full.is_finite() {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(d.x.0, *full), (d.x.1, *full)],
                        9,
                        6,
                        c.stroke_width(2),
                    ))?
                    .label(format!("{model}: full data ({full:.3})"))
                    .legend(dashed_swatch(c));
            }
        }
        // liu2024 Fig. 5's red circles: the rates at which the order by mean changes.
        if !d.changed.is_empty() {
            let ring = RED.stroke_width(2);
            let rings: Vec<(f64, f64)> = d
                .models
                .iter()
                .flat_map(|(_, _, points)| points.iter())
                .filter(|p| d.changed.contains(&p.0))
                .map(|p| (p.0, p.1))
                .collect();
            chart
                .draw_series(rings.into_iter().map(|p| Circle::new(p, 9, ring)))?
                .label("order by mean differs from the full data")
                .legend(move |(x, y)| Circle::new((x + 11, y), 6, ring));
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)
    }
}
