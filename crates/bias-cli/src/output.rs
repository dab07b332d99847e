//! Printing results as Markdown tables, JSON or CSV.

use std::io::Write;

use comfy_table::{presets::ASCII_MARKDOWN, Table};
use serde::Serialize;

use crate::error::CliError;

/// How a command prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A Markdown table, for people (and papers).
    Table,
    /// JSON, for programs.
    Json,
    /// CSV, for spreadsheets and data frames.
    Csv,
}

/// A rectangular result: a header and rows of cells.
#[derive(Debug, Default)]
pub struct Grid {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Grid {
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Self {
        Grid {
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(
            row.len(),
            self.header.len(),
            "row width differs from the header"
        );
        self.rows.push(row);
    }

    /// Writes the grid as a Markdown table.
    pub fn write_table(&self, out: &mut impl Write) -> Result<(), CliError> {
        let mut t = Table::new();
        t.load_preset(ASCII_MARKDOWN).set_header(&self.header);
        for r in &self.rows {
            t.add_row(r);
        }
        writeln!(out, "{t}")?;
        Ok(())
    }

    /// Writes the grid as CSV for [`Format::Csv`], else as a Markdown table (JSON output is the
    /// caller's, from its own serialisable result).
    pub fn write(&self, format: Format, out: &mut impl Write) -> Result<(), CliError> {
        match format {
            Format::Csv => self.write_csv(out),
            _ => self.write_table(out),
        }
    }

    /// The rows as JSON objects keyed by the header (for a grid that is the whole result).
    pub fn records(&self) -> Vec<serde_json::Map<String, serde_json::Value>> {
        self.rows
            .iter()
            .map(|r| {
                self.header
                    .iter()
                    .cloned()
                    .zip(r.iter().map(|c| serde_json::Value::from(c.as_str())))
                    .collect()
            })
            .collect()
    }

    /// Writes the grid as CSV with its header.
    pub fn write_csv(&self, out: &mut impl Write) -> Result<(), CliError> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(&self.header)?;
        for r in &self.rows {
            w.write_record(r)?;
        }
        w.flush()?;
        Ok(())
    }
}

/// A result row that prints as one line of a table: its cells under [`TableRow::HEADER`]
/// (its JSON is the row itself, serialised).
pub trait TableRow: Serialize {
    /// The column names, separated by ` | ` as in the table's Markdown header.
    const HEADER: &'static str;

    /// The row's cells, one per column.
    fn cells(&self) -> Vec<String>;
}

/// Writes `value` as JSON for [`Format::Json`]; else the grid that `fill` builds under
/// `header` (column names separated by ` | `), as a table or CSV.
pub fn write_result(
    format: Format,
    out: &mut impl Write,
    value: &(impl Serialize + ?Sized),
    header: &str,
    fill: impl FnOnce(&mut Grid),
) -> Result<(), CliError> {
    if format == Format::Json {
        return write_json(value, out);
    }
    let mut g = Grid::new(header.split(" | "));
    fill(&mut g);
    g.write(format, out)
}

/// Writes `rows` as a JSON array for [`Format::Json`], else one table line per row.
pub fn write_rows<T: TableRow>(
    format: Format,
    out: &mut impl Write,
    rows: &[T],
) -> Result<(), CliError> {
    write_result(format, out, rows, T::HEADER, |g| {
        for r in rows {
            g.push(r.cells());
        }
    })
}

/// Writes `row` as a JSON object for [`Format::Json`], else a table of that one line.
pub fn write_row<T: TableRow>(
    format: Format,
    out: &mut impl Write,
    row: &T,
) -> Result<(), CliError> {
    write_result(format, out, row, T::HEADER, |g| g.push(row.cells()))
}

/// Writes `value` as pretty JSON followed by a newline.
pub fn write_json(value: &(impl Serialize + ?Sized), out: &mut impl Write) -> Result<(), CliError> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Formats a value for a table cell with `digits` decimals.
pub fn fixed(x: f64, digits: usize) -> String {
    format!("{x:.digits$}")
}
