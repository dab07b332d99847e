//! The one table type of the crate ([`Table`] of [`Cell`]s), written as Markdown, CSV, JSON and
//! HTML: a reproduction's numbered tables and a report's tables alike.

use std::fmt::Write as _;

use crate::report::{escape_html, write_markdown_table};

/// One cell of a [`Table`]: text, a count, or a number printed with a fixed number of decimals
/// (written as a JSON number; NaN and infinities as `null`).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Text.
    Text(String),
    /// A count.
    Int(i64),
    /// A number and the decimals it is printed with in Markdown and CSV.
    Num(f64, usize),
    /// No value (printed `–`, JSON `null`).
    Missing,
    /// A number with a mark (the papers' `†`) and/or a change against a reference, printed
    /// together (`69.63 † (-13.13)`) but written to JSON as separate fields: the number under
    /// the column, the mark under `"<column> mark"`, the change under `"<column> change"`.
    Annotated {
        /// The number.
        value: f64,
        /// Its decimals (the change's too).
        decimals: usize,
        /// A mark such as `†`, if any.
        mark: Option<&'static str>,
        /// A change against a reference (e.g. the original sentences), if any.
        change: Option<f64>,
    },
}

impl Cell {
    /// A number printed with `decimals` decimals.
    pub fn num(value: f64, decimals: usize) -> Self {
        Cell::Num(value, decimals)
    }

    /// The cell as printed.
    pub fn text(&self) -> String {
        match self {
            Cell::Text(t) => t.clone(),
            Cell::Int(i) => i.to_string(),
            Cell::Num(v, _) if !v.is_finite() => "–".into(),
            Cell::Num(v, d) => format!("{v:.d$}"),
            Cell::Missing => "–".into(),
            Cell::Annotated {
                value,
                decimals,
                mark,
                change,
            } => {
                let mut t = Cell::Num(*value, *decimals).text();
                if let Some(m) = mark {
                    t = format!("{t} {m}");
                }
                if let Some(c) = change {
                    // + 0.0 turns −0 into 0.
                    t = format!("{t} ({:+.d$})", c + 0.0, d = *decimals);
                }
                t
            }
        }
    }

    /// The extra JSON fields of an annotated cell under `column`: its mark and its change.
    pub(crate) fn json_extras(&self, column: &str) -> Vec<(String, serde_json::Value)> {
        let Cell::Annotated { mark, change, .. } = self else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(m) = mark {
            out.push((format!("{column} mark"), (*m).into()));
        }
        if let Some(c) = change {
            out.push((format!("{column} change"), Cell::Num(*c, 0).json()));
        }
        out
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Cell::Text(t) => serde_json::Value::String(t.clone()),
            Cell::Int(i) => (*i).into(),
            Cell::Num(v, _) => {
                serde_json::Number::from_f64(*v).map_or(serde_json::Value::Null, Into::into)
            }
            Cell::Missing => serde_json::Value::Null,
            Cell::Annotated { value, .. } => Cell::Num(*value, 0).json(),
        }
    }
}

impl From<&str> for Cell {
    fn from(t: &str) -> Self {
        Cell::Text(t.to_owned())
    }
}
impl From<String> for Cell {
    fn from(t: String) -> Self {
        Cell::Text(t)
    }
}
impl From<usize> for Cell {
    fn from(n: usize) -> Self {
        Cell::Int(n as i64)
    }
}

/// A table: column names, rows of [`Cell`]s, and notes printed under it. The one table type of
/// the crate: a reproduction writes it as Markdown, CSV and JSON (`bias_papers::Reproduction::table`),
/// a report section as HTML and Markdown ([`crate::report::Section::table`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, one cell per column.
    pub rows: Vec<Vec<Cell>>,
    /// Notes printed under the table (what a mark means, what was substituted, counts).
    pub notes: Vec<String>,
}

impl Table {
    /// An empty table with these columns.
    pub fn new<S: AsRef<str>>(columns: &[S]) -> Self {
        Table {
            columns: columns.iter().map(|c| c.as_ref().to_owned()).collect(),
            ..Table::default()
        }
    }

    /// Appends a row.
    ///
    /// # Panics
    /// If the row's length is not the number of columns (a programming error of the table's
    /// author, not of the input).
    pub fn row(&mut self, cells: Vec<Cell>) -> &mut Self {
        assert_eq!(
            cells.len(),
            self.columns.len(),
            "row length of table {:?}",
            self.columns
        );
        self.rows.push(cells);
        self
    }

    /// Appends a note.
    pub fn note(&mut self, note: impl Into<String>) -> &mut Self {
        self.notes.push(note.into());
        self
    }

    /// A table of text cells (what a report section shows).
    pub fn of_text<H: AsRef<str>>(columns: &[H], rows: Vec<Vec<String>>) -> Self {
        Table {
            columns: columns.iter().map(|c| c.as_ref().to_owned()).collect(),
            rows: rows
                .into_iter()
                .map(|r| r.into_iter().map(Cell::Text).collect())
                .collect(),
            notes: Vec::new(),
        }
    }

    /// The rows as printed ([`Cell::text`]).
    pub fn text_rows(&self) -> Vec<Vec<String>> {
        self.rows
            .iter()
            .map(|r| r.iter().map(Cell::text).collect())
            .collect()
    }

    /// The table as Markdown (a `|` in a cell escaped), with its notes.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        write_markdown_table(&mut s, &self.columns, &self.text_rows());
        for n in &self.notes {
            let _ = write!(s, "\n{n}\n");
        }
        s
    }

    /// The table as CSV: the header, then the rows as printed ([`Cell::text`]).
    ///
    /// # Errors
    /// Those of the writer.
    pub fn write_csv<W: std::io::Write>(&self, w: &mut csv::Writer<W>) -> csv::Result<()> {
        w.write_record(&self.columns)?;
        for r in self.text_rows() {
            w.write_record(&r)?;
        }
        Ok(())
    }

    /// The table as an HTML `<table>` (every cell escaped; the notes are the caller's).
    pub fn html(&self) -> String {
        let mut h = String::from("<table>\n<thead><tr>");
        for c in &self.columns {
            let _ = write!(h, "<th>{}</th>", escape_html(c));
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for row in self.text_rows() {
            h.push_str("<tr>");
            for c in row {
                let _ = write!(h, "<td>{}</td>", escape_html(&c));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n</table>\n");
        h
    }

    /// The table as JSON: `{"columns": [...], "rows": [{column: value}], "notes": [...]}`; a
    /// value is a number, text or `null`, and an [`Cell::Annotated`] cell adds its mark and change
    /// as fields of their own.
    pub fn json(&self) -> serde_json::Value {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut row = serde_json::Map::new();
                for (column, cell) in self.columns.iter().zip(r) {
                    row.insert(column.clone(), cell.json());
                    row.extend(cell.json_extras(column));
                }
                row.into()
            })
            .collect();
        serde_json::json!({ "columns": self.columns, "rows": rows, "notes": self.notes })
    }
}
