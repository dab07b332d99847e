//! Output paths and the drawing of one figure on a PNG and an SVG.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::ensure_font;

use crate::ReportError;

/// What a drawing step returns: plotters' error, boxed (its type depends on the backend).
pub(super) type DrawResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// A figure that can be drawn on any plotters backend.
pub(super) trait Figure {
    /// The figure's size in pixels, `(width, height)`.
    fn size(&self) -> (u32, u32);

    /// Draws the figure on `root` (already filled white).
    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult;
}

/// A plotters backend whose errors are `'static` (so that a draw error can be boxed): the PNG
/// and SVG backends a figure is drawn on.
pub(super) trait Backend: DrawingBackend<ErrorType: 'static> {}

impl<B: DrawingBackend<ErrorType: 'static>> Backend for B {}

/// `STEM.ext` (the extension is appended, never substituted).
pub fn with_extension(stem: &Path, ext: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    PathBuf::from(name)
}

/// Draws `figure` on `STEM.png` and `STEM.svg`, creating the missing parent folders.
pub(super) fn render(stem: &Path, figure: &impl Figure) -> Result<(), ReportError> {
    ensure_font();
    if let Some(parent) = stem.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| ReportError::Io {
            action: "create",
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let size = figure.size();
    let png = with_extension(stem, "png");
    draw_on(BitMapBackend::new(&png, size).into_drawing_area(), figure)
        .map_err(|source| ReportError::Draw { path: png, source })?;
    let svg = with_extension(stem, "svg");
    draw_on(SVGBackend::new(&svg, size).into_drawing_area(), figure)
        .map_err(|source| ReportError::Draw { path: svg, source })
}

fn draw_on<DB>(root: DrawingArea<DB, Shift>, figure: &impl Figure) -> DrawResult
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    figure.draw(&root)?;
    root.present()?;
    Ok(())
}

/// [`ReportError::FigureInput`]: `figure` cannot be drawn from its input, because of `problem`.
pub(super) fn input_error(figure: &'static str, problem: impl Into<String>) -> ReportError {
    ReportError::FigureInput {
        figure,
        problem: problem.into(),
    }
}
