//! A small report writer: sections of text, tables and figures, written as a self-contained
//! `index.html` (inline CSS, figures embedded as inline SVG) and a Markdown copy `report.md`
//! (linking the PNGs), each with a provenance block.
//!
//! ```no_run
//! use bias_report::report::{Report, Section};
//!
//! let report = Report::new("Robustness of CrowS-Pairs measures")
//!     .provenance("bias robust --rates 0.1,0.3", &[("bias-report", "0.1.0")])
//!     .section(
//!         Section::new("Sub-sampling")
//!             .text("Mean over 100 repeats.")
//!             .table(&["model", "CPS"], vec![vec!["bert".into(), "60.5".into()]])
//!             .figure("out/cps_curves", "CPS across sampling rates"),
//!     );
//! report.write("out/report")?;
//! # Ok::<(), bias_report::ReportError>(())
//! ```
//!
//! The HTML page opens with a table of contents (one anchor per section), puts long tables in
//! collapsible `<details>` blocks ([`Section::details`]), draws heat maps as tables with shaded
//! cells ([`HeatTable`]), embeds every figure's SVG inline and links its PNG and SVG files for
//! download. It needs no script and loads nothing from the network.
//!
//! [`subsample_for_report`] and [`subsample_sections`] build the report's sub-sampling sections
//! (liu2024, Robustness Study, Fig. 5): one study per (data set, scorer) through
//! [`bias_robust::subsample_by_scorer`], and per study the order of the models by the mean over the
//! draws at each rate, whether it is the full-data order, and the share of single draws keeping
//! it. [`summary_section`] builds the summary that opens `bias report`: per data set a heat map
//! of bias type × measure, one column per model, from [`bias_robust::summary`]; [`models_section`]
//! ranks the models by each measure.

mod heat;
mod html;
mod markdown;
mod stereoset;
mod subsample;
mod summary;

use std::path::{Path, PathBuf};

use crate::figures::with_extension;

use crate::ReportError;

pub use heat::{HeatCell, HeatRow, HeatTable, Shade};
pub use html::escape_html;
pub use markdown::write_markdown_table;
pub use stereoset::{stereoset_heat, StereoSetColumn};
pub use subsample::{
    subsample_figure_stem, subsample_for_report, subsample_sections, SubsampleRun,
    SUBSAMPLE_ORDER_HEADERS,
};
pub use summary::{
    how_to_read, models_section, p_text, summary_heat, summary_section, FULL_COLOUR_AT,
};

/// One block of a section, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A paragraph of plain text (escaped; blank lines separate paragraphs).
    Text(String),
    /// A table (its cells escaped; [`Section::table`] builds one of text cells).
    Table(crate::table::Table),
    /// A figure written by [`crate::figures`]: `STEM.svg` is embedded in the HTML (or, when
    /// absent, `STEM.png` is linked), `STEM.png` is linked from the Markdown.
    Figure {
        /// The figure's stem (without `.png` / `.svg`).
        stem: PathBuf,
        /// The caption (plain text).
        caption: String,
    },
    /// A heat map drawn as a table with shaded cells.
    Heat(HeatTable),
    /// Blocks shown only when the reader opens them (`<details>` in HTML; in Markdown, the
    /// summary as a bold line and the blocks as usual).
    Details {
        /// The line shown while closed (plain text).
        summary: String,
        /// The hidden blocks.
        blocks: Vec<Block>,
    },
}

/// A titled section of a [`Report`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Section {
    /// The heading.
    pub title: String,
    /// The HTML anchor (`id`) of the section; `None` derives one from the title.
    pub anchor: Option<String>,
    /// The content, in order.
    pub blocks: Vec<Block>,
}

impl Section {
    /// An empty section with a heading.
    pub fn new(title: impl Into<String>) -> Self {
        Section {
            title: title.into(),
            anchor: None,
            blocks: Vec::new(),
        }
    }

    /// Sets the section's anchor (the `id` its table-of-contents link points at).
    pub fn anchor(mut self, anchor: impl Into<String>) -> Self {
        self.anchor = Some(anchor.into());
        self
    }

    /// Appends a heat map.
    pub fn heat(mut self, table: HeatTable) -> Self {
        self.blocks.push(Block::Heat(table));
        self
    }

    /// Appends the blocks of `inner` (its title unused) behind a collapsible `summary` line.
    pub fn details(mut self, summary: impl Into<String>, inner: Section) -> Self {
        self.blocks.push(Block::Details {
            summary: summary.into(),
            blocks: inner.blocks,
        });
        self
    }

    /// Appends a paragraph of plain text.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.blocks.push(Block::Text(text.into()));
        self
    }

    /// Appends a table.
    pub fn table<H: AsRef<str>>(mut self, headers: &[H], rows: Vec<Vec<String>>) -> Self {
        self.blocks
            .push(Block::Table(crate::table::Table::of_text(headers, rows)));
        self
    }

    /// Appends a figure by its stem (the path given to a [`crate::figures`] function).
    pub fn figure(mut self, stem: impl Into<PathBuf>, caption: impl Into<String>) -> Self {
        self.blocks.push(Block::Figure {
            stem: stem.into(),
            caption: caption.into(),
        });
        self
    }
}

/// Where a report came from: the command line and the versions of the crates involved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Provenance {
    /// The command line that produced the report.
    pub command_line: String,
    /// `(crate or tool, version)` pairs.
    pub versions: Vec<(String, String)>,
}

/// A report under construction: a title, sections and provenance.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// The report's title.
    pub title: String,
    /// The sections, in order.
    pub sections: Vec<Section>,
    /// The provenance block.
    pub provenance: Provenance,
}

/// The files [`Report::write`] produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportFiles {
    /// `DIR/index.html`.
    pub html: PathBuf,
    /// `DIR/report.md`.
    pub markdown: PathBuf,
    /// Figure files (PNG and SVG) copied to `DIR/figures/` (figures outside `DIR`).
    pub copied_figures: Vec<PathBuf>,
}

pub use bias_robust::text::format_p_value;

fn io_err(action: &'static str, path: &Path, source: std::io::Error) -> ReportError {
    ReportError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

impl Report {
    /// An empty report.
    pub fn new(title: impl Into<String>) -> Self {
        Report {
            title: title.into(),
            ..Report::default()
        }
    }

    /// Records the command line and `(name, version)` pairs for the provenance block.
    pub fn provenance<N: AsRef<str>, V: AsRef<str>>(
        mut self,
        command_line: impl Into<String>,
        versions: &[(N, V)],
    ) -> Self {
        self.provenance = Provenance {
            command_line: command_line.into(),
            versions: versions
                .iter()
                .map(|(n, v)| (n.as_ref().to_owned(), v.as_ref().to_owned()))
                .collect(),
        };
        self
    }

    /// Appends a section.
    pub fn section(mut self, section: Section) -> Self {
        self.sections.push(section);
        self
    }

    /// Appends a section (by reference, for reports built in a loop).
    pub fn push(&mut self, section: Section) -> &mut Self {
        self.sections.push(section);
        self
    }

    /// Writes `DIR/index.html` and `DIR/report.md` (creating `DIR`). The PNG and SVG files of
    /// figures outside `DIR` are copied to `DIR/figures/` so that the relative links of both
    /// files resolve.
    ///
    /// # Errors
    /// [`ReportError::Io`] if a folder cannot be created or a file cannot be read, copied or
    /// written.
    pub fn write(&self, dir: impl AsRef<Path>) -> Result<ReportFiles, ReportError> {
        let dir = dir.as_ref();
        std::fs::create_dir_all(dir).map_err(|e| io_err("create", dir, e))?;
        let mut copied = Vec::new();
        // Relative links of each figure's files, in block order (depth first).
        let mut stems = Vec::new();
        for section in &self.sections {
            figure_stems(&section.blocks, &mut stems);
        }
        let mut links = Vec::new();
        for stem in stems {
            links.push(FigureLinks {
                png: file_link(dir, &with_extension(stem, "png"), &mut copied)?,
                svg: file_link(dir, &with_extension(stem, "svg"), &mut copied)?,
            });
        }
        let anchors = self.anchors();
        let html = html::render(self, &anchors, &links)?;
        let markdown = markdown::render(self, &anchors, &links);
        let html_path = dir.join("index.html");
        let md_path = dir.join("report.md");
        std::fs::write(&html_path, html).map_err(|e| io_err("write", &html_path, e))?;
        std::fs::write(&md_path, markdown).map_err(|e| io_err("write", &md_path, e))?;
        Ok(ReportFiles {
            html: html_path,
            markdown: md_path,
            copied_figures: copied,
        })
    }

    /// The anchor of every section, in order: its own, or a slug of its title (lowercase
    /// letters and digits, other runs as `-`), made unique by `-2`, `-3`, … in order.
    pub fn anchors(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.sections
            .iter()
            .map(|s| {
                let base = s.anchor.clone().unwrap_or_else(|| slug(&s.title));
                let mut anchor = base.clone();
                let mut k = 2;
                while !seen.insert(anchor.clone()) {
                    anchor = format!("{base}-{k}");
                    k += 1;
                }
                anchor
            })
            .collect()
    }
}

/// The links of one figure's files, relative to the report folder (`None`: file absent).
#[derive(Debug, Clone, Default)]
struct FigureLinks {
    png: Option<String>,
    svg: Option<String>,
}

/// The stems of the figures of `blocks`, depth first (the order both renderers meet them).
fn figure_stems<'a>(blocks: &'a [Block], out: &mut Vec<&'a Path>) {
    for block in blocks {
        match block {
            Block::Figure { stem, .. } => out.push(stem),
            Block::Details { blocks, .. } => figure_stems(blocks, out),
            _ => {}
        }
    }
}

/// `text` as an HTML id: lowercase ASCII letters and digits, every other run as one `-`.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "section".to_owned()
    } else {
        out
    }
}

/// The link to `file` relative to `dir`, copying it into `dir/figures/` if it lies outside.
fn file_link(
    dir: &Path,
    file: &Path,
    copied: &mut Vec<PathBuf>,
) -> Result<Option<String>, ReportError> {
    if !file.is_file() {
        return Ok(None);
    }
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let (dir_c, file_c) = (canon(dir), canon(file));
    if let Ok(rel) = file_c.strip_prefix(&dir_c) {
        return Ok(Some(slash_path(rel)));
    }
    let figures = dir.join("figures");
    std::fs::create_dir_all(&figures).map_err(|e| io_err("create", &figures, e))?;
    let name = file
        .file_name()
        .map_or_else(|| "figure".to_owned(), |n| n.to_string_lossy().into_owned());
    // Avoid clobbering a different figure with the same file name.
    let mut target = figures.join(&name);
    let mut k = 1;
    while copied.contains(&target) {
        target = figures.join(format!("{k}-{name}"));
        k += 1;
    }
    std::fs::copy(file, &target).map_err(|e| io_err("copy", file, e))?;
    let rel = target
        .strip_prefix(dir)
        .map_or_else(|_| target.clone(), Path::to_path_buf);
    copied.push(target);
    Ok(Some(slash_path(&rel)))
}

/// A relative path with `/` separators (for links).
fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// `text` with every character outside `[A-Za-z0-9-]` replaced by `_` (for file names; also the
/// density figures' stems in `bias report`).
pub fn file_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
