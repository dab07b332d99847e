//! What every figure shares: the embedded font, the colours, text sizes, legend helpers and
//! axis helpers.

use std::sync::Once;

use plotters::chart::MeshStyle;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::drawing::DrawingAreaErrorKind;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::FontStyle;

use super::output::{Backend, DrawResult};

use crate::ReportError;

/// DejaVu Sans (the copy matplotlib ships), embedded in the crate: the font figures are drawn
/// with unless [`use_font`] picked another. Its licence (the Bitstream Vera licence with the
/// DejaVu public-domain changes) is `fonts/LICENSE-DejaVu.txt` of this crate.
pub const DEJAVU_SANS: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

/// The plotters font family every text of the figures is drawn in (the name the SVGs carry).
const FAMILY: &str = "sans-serif";

/// Registers [`DEJAVU_SANS`] with plotters the first time a figure is drawn (or a font chosen).
static EMBEDDED: Once = Once::new();

/// Makes sure the figures' font family is registered with plotters.
pub(super) fn ensure_font() {
    EMBEDDED.call_once(|| {
        // The embedded file is a valid TrueType font (`use_font(DEJAVU_SANS)` is tested); were
        // it not, drawing text would fail with plotters' `FontUnavailable`, not silently.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS);
    });
}

/// Draws the text of every figure with `font` (the bytes of a TrueType/OpenType file) from now
/// on, in place of [`DEJAVU_SANS`]. The choice holds for the whole process (plotters keeps one
/// font table); `&'static` bytes are what plotters keeps: `include_bytes!`, or a buffer read at
/// run time and leaked once (`Box::leak(std::fs::read(path)?.into_boxed_slice())`).
///
/// # Errors
/// [`ReportError::InvalidFont`] if the bytes are not a TrueType/OpenType font; the font in use
/// is then unchanged.
pub fn use_font(font: &'static [u8]) -> Result<(), ReportError> {
    // Register the embedded font first, so that it cannot replace this one later.
    ensure_font();
    plotters::style::register_font(FAMILY, FontStyle::Normal, font)
        .map_err(|_| ReportError::InvalidFont { len: font.len() })
}

// Colours: the matplotlib "tab10" palette.
pub(super) const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
pub(super) const STEREO_COLOUR: RGBColor = PALETTE[3];
pub(super) const ANTI_COLOUR: RGBColor = PALETTE[0];
pub(super) const GREY: RGBColor = RGBColor(110, 110, 110);

pub(super) const CAPTION_SIZE: u32 = 26;
pub(super) const LABEL_SIZE: u32 = 20;
pub(super) const TICK_SIZE: u32 = 16;
pub(super) const LEGEND_SIZE: u32 = 16;

/// The figures' font at `size` pixels.
pub(super) fn font(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().into()
}

/// A curve's band as a filled polygon: its `(x, mean, low, high)` points along the highs and
/// back along the lows, in `c` at 18 % (liu2024 Figs. 2 and 5's 2.5–97.5 % bands).
pub(super) fn band(points: &[(f64, f64, f64, f64)], c: RGBColor) -> Polygon<(f64, f64)> {
    let outline: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.0, p.3))
        .chain(points.iter().rev().map(|p| (p.0, p.2)))
        .collect();
    Polygon::new(outline, c.mix(0.18).filled())
}

/// The `i`-th colour of the palette (cycling).
pub(super) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Draws the series labels of `chart` at `position` in the style every figure shares.
pub(super) fn legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> DrawResult
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .label_font(font(LEGEND_SIZE))
        .background_style(WHITE.mix(0.85))
        .border_style(GREY)
        .draw()?;
    Ok(())
}

/// A solid legend swatch.
pub(super) fn swatch(c: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], c.stroke_width(3))
}

/// A dashed legend swatch (two dashes).
pub(super) fn dashed_swatch(
    c: RGBColor,
) -> impl Fn((i32, i32)) -> DashedPathElement<std::vec::IntoIter<(i32, i32)>, i32> {
    move |(x, y)| DashedPathElement::new(vec![(x, y), (x + 22, y)], 7, 5, c.stroke_width(2))
}

/// A filled legend swatch.
pub(super) fn box_swatch(style: ShapeStyle) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 6), (x + 22, y + 6)], style)
}

/// The smallest and largest finite value, if any.
pub(super) fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// `(lo, hi)` widened by `share` of its width on each side (by ±0.5, or `share`·|lo|, when
/// the width is 0).
pub(super) fn padded((lo, hi): (f64, f64), share: f64) -> (f64, f64) {
    let width = hi - lo;
    if width > 0.0 {
        (lo - share * width, hi + share * width)
    } else {
        let d = if lo == 0.0 {
            0.5
        } else {
            (share * lo.abs()).max(1e-9)
        };
        (lo - d, hi + d)
    }
}

/// Decimals for tick labels of an axis spanning `lo..hi` (about 3 significant digits of the span).
pub(super) fn decimals(lo: f64, hi: f64) -> usize {
    let span = (hi - lo).abs();
    if !(span.is_finite() && span > 0.0) {
        return 2;
    }
    (1.0 - span.log10().floor()).clamp(0.0, 8.0) as usize
}

/// `n ≥ 2` evenly spaced points from `lo` to `hi`, both included.
pub(super) fn linspace(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
        .collect()
}

/// A plot's chart: `f64` axes on a drawing area.
pub(super) type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// How a plot is framed: the caption's size, the margin and the label areas `(x, y)` in
/// pixels, and the size of the axis titles.
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame {
    caption: u32,
    margin: u32,
    label_areas: (u32, u32),
    axis_titles: u32,
}

impl Frame {
    /// A figure of its own: caption [`CAPTION_SIZE`], margin 16, axis titles [`LABEL_SIZE`].
    pub(super) const fn figure(label_areas: (u32, u32)) -> Self {
        Frame {
            caption: CAPTION_SIZE,
            margin: 16,
            label_areas,
            axis_titles: LABEL_SIZE,
        }
    }

    /// One panel of a grid: caption [`LABEL_SIZE`], margin 12, axis titles [`TICK_SIZE`].
    pub(super) const fn panel(label_areas: (u32, u32)) -> Self {
        Frame {
            caption: LABEL_SIZE,
            margin: 12,
            label_areas,
            axis_titles: TICK_SIZE,
        }
    }

    /// The same frame with a margin of `margin` pixels.
    pub(super) const fn margin(self, margin: u32) -> Self {
        Frame { margin, ..self }
    }

    /// The chart of `caption` over `x` × `y` on `area`.
    pub(super) fn chart<'a, DB: Backend>(
        &self,
        area: &'a DrawingArea<DB, Shift>,
        caption: &str,
        x: std::ops::Range<f64>,
        y: std::ops::Range<f64>,
    ) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
        ChartBuilder::on(area)
            .caption(caption, font(self.caption))
            .margin(self.margin)
            .x_label_area_size(self.label_areas.0)
            .y_label_area_size(self.label_areas.1)
            .build_cartesian_2d(x, y)
    }

    /// The chart's mesh in the figures' style: no light grid lines, axis titles in the frame's
    /// size, tick labels in [`TICK_SIZE`]; the caller adds its titles and formatters.
    pub(super) fn mesh<'a, 'b, DB: Backend>(
        &self,
        chart: &'b mut Chart<'a, DB>,
    ) -> MeshStyle<'a, 'b, RangedCoordf64, RangedCoordf64, DB> {
        let mut mesh = chart.configure_mesh();
        mesh.light_line_style(WHITE.mix(0.0))
            .axis_desc_style(font(self.axis_titles))
            .label_style(font(TICK_SIZE));
        mesh
    }
}
