//! What a reproduction writes: numbered tables (Markdown, CSV, JSON), figures (PNG, SVG), and an
//! index listing every table and figure of the paper with its status.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Paper;
use crate::report::{escape_html, write_markdown_table};
use crate::RobustError;

/// How far a table or figure of a paper is reproduced here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "detail", rename_all = "kebab-case")]
pub enum Status {
    /// Computed as the paper computes it, on the paper's data (the models are whatever was
    /// given).
    Reproduced,
    /// Computed as the paper computes it, on substitute data: what stands in for what, and why.
    Substitute(String),
    /// Not computed: what is missing here.
    OutOfReach(String),
}

impl Status {
    /// `reproduced`, `substitute` or `out of reach`.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Reproduced => "reproduced",
            Status::Substitute(_) => "substitute",
            Status::OutOfReach(_) => "out of reach",
        }
    }

    /// The detail in words (empty for [`Status::Reproduced`]).
    pub fn detail(&self) -> &str {
        match self {
            Status::Reproduced => "",
            Status::Substitute(d) | Status::OutOfReach(d) => d,
        }
    }
}

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
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Cell::Text(t) => serde_json::Value::String(t.clone()),
            Cell::Int(i) => (*i).into(),
            Cell::Num(v, _) => {
                serde_json::Number::from_f64(*v).map_or(serde_json::Value::Null, Into::into)
            }
            Cell::Missing => serde_json::Value::Null,
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

/// A table of a paper as computed here: column names, rows, and notes printed under it.
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

    fn text_rows(&self) -> Vec<Vec<String>> {
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

    /// The table as JSON: `{"columns": [...], "rows": [{column: value}], "notes": [...]}`.
    pub fn json(&self) -> serde_json::Value {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                self.columns
                    .iter()
                    .cloned()
                    .zip(r.iter().map(Cell::json))
                    .collect::<serde_json::Map<_, _>>()
                    .into()
            })
            .collect();
        serde_json::json!({ "columns": self.columns, "rows": rows, "notes": self.notes })
    }
}

/// One table or figure of a paper in the index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Artifact {
    /// The paper's number, as a file stem: `table-1`, `figure-2`, `analysis-3.3`.
    pub id: String,
    /// What it shows.
    pub title: String,
    /// How far it is reproduced.
    pub status: Status,
    /// The files written, relative to the reproduction's folder.
    pub files: Vec<String>,
}

/// A reproduction being written into a folder: each table and figure is added with its status,
/// and [`Reproduction::finish`] writes the index (`index.md`, `index.json`, `index.html`).
#[derive(Debug)]
pub struct Reproduction {
    paper: Paper,
    dir: PathBuf,
    artifacts: Vec<Artifact>,
    models: Vec<String>,
}

fn io_err(action: &'static str, path: &Path, source: std::io::Error) -> RobustError {
    RobustError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), RobustError> {
    std::fs::write(path, text).map_err(|e| io_err("write", path, e))
}

impl Reproduction {
    /// Starts a reproduction of `paper` in `dir` (created if absent).
    ///
    /// # Errors
    /// [`RobustError::Io`] if `dir` cannot be created.
    pub fn create(paper: Paper, dir: impl Into<PathBuf>) -> Result<Self, RobustError> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|e| io_err("create", &dir, e))?;
        Ok(Reproduction {
            paper,
            dir,
            artifacts: Vec::new(),
            models: Vec::new(),
        })
    }

    /// The folder written to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The paper.
    pub fn paper(&self) -> Paper {
        self.paper
    }

    /// The stem a figure `id` is drawn to (`DIR/figure-1`: the figure functions of
    /// [`crate::figures`] add `.png` and `.svg`).
    pub fn figure_stem(&self, id: &str) -> PathBuf {
        self.dir.join(id)
    }

    /// Records the models studied, for the index.
    pub fn set_models(&mut self, models: Vec<String>) {
        self.models = models;
    }

    /// The artifacts added so far.
    pub fn artifacts(&self) -> &[Artifact] {
        &self.artifacts
    }

    /// Writes `table` as `DIR/<id>.md`, `.csv` and `.json` and lists it.
    ///
    /// # Errors
    /// [`RobustError::Io`] if a file cannot be written.
    pub fn table(
        &mut self,
        id: &str,
        title: &str,
        status: Status,
        table: &Table,
    ) -> Result<(), RobustError> {
        let md = format!(
            "# {} {id}: {title}\n\n{}",
            self.paper.citation(),
            table.markdown()
        );
        write_file(&self.dir.join(format!("{id}.md")), &md)?;
        let csv_path = self.dir.join(format!("{id}.csv"));
        let mut w = csv::Writer::from_path(&csv_path).map_err(|e| csv_err(&csv_path, e))?;
        w.write_record(&table.columns)
            .map_err(|e| csv_err(&csv_path, e))?;
        for r in table.text_rows() {
            w.write_record(&r).map_err(|e| csv_err(&csv_path, e))?;
        }
        w.flush().map_err(|e| io_err("write", &csv_path, e))?;
        let json = serde_json::json!({
            "paper": self.paper.name(), "id": id, "title": title,
            "status": status, "table": table.json(),
        });
        write_file(
            &self.dir.join(format!("{id}.json")),
            &serde_json::to_string_pretty(&json).expect("a JSON value serialises"),
        )?;
        self.push(id, title, status, ["md", "csv", "json"]);
        Ok(())
    }

    /// Lists a figure drawn to [`Reproduction::figure_stem`]`(id)` (`.png` and `.svg`).
    pub fn figure(&mut self, id: &str, title: &str, status: Status) {
        self.push(id, title, status, ["png", "svg"]);
    }

    /// Lists a table or figure that is not computed here, and why.
    pub fn out_of_reach(&mut self, id: &str, title: &str, why: impl Into<String>) {
        self.push(id, title, Status::OutOfReach(why.into()), []);
    }

    fn push<const N: usize>(&mut self, id: &str, title: &str, status: Status, ext: [&str; N]) {
        let files = ext.iter().map(|e| format!("{id}.{e}")).collect();
        self.artifacts.retain(|a| a.id != id);
        self.artifacts.push(Artifact {
            id: id.into(),
            title: title.into(),
            status,
            files,
        });
    }

    /// Writes the index (`index.md`, `index.json`, `index.html`): every table and figure with its
    /// status and files. Returns the artifacts.
    ///
    /// # Errors
    /// [`RobustError::Io`] if a file cannot be written.
    pub fn finish(self) -> Result<Vec<Artifact>, RobustError> {
        let title = format!("Reproduction of {}", self.paper.citation());
        let header = ["id", "title", "status", "detail", "files"];
        let rows: Vec<Vec<String>> = self
            .artifacts
            .iter()
            .map(|a| {
                vec![
                    a.id.clone(),
                    a.title.clone(),
                    a.status.label().into(),
                    a.status.detail().into(),
                    a.files.join(" "),
                ]
            })
            .collect();
        let mut md = format!("# {title}\n\nModels: {}\n\n", self.models.join(", "));
        write_markdown_table(&mut md, &header, &rows);
        write_file(&self.dir.join("index.md"), &md)?;
        let json = serde_json::json!({
            "paper": self.paper.name(), "citation": self.paper.citation(),
            "models": self.models, "artifacts": self.artifacts,
        });
        write_file(
            &self.dir.join("index.json"),
            &serde_json::to_string_pretty(&json).expect("a JSON value serialises"),
        )?;
        write_file(&self.dir.join("index.html"), &self.html(&title))?;
        Ok(self.artifacts)
    }

    fn html(&self, title: &str) -> String {
        let mut h = format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title>\
             <style>body{{font-family:sans-serif;max-width:70em;margin:2em auto}}\
             table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.3em .6em;\
             vertical-align:top}}.reproduced{{color:#1a7f37}}.substitute{{color:#9a6700}}\
             .out{{color:#888}}</style></head><body><h1>{t}</h1><p>Models: {m}</p>\
             <table><tr><th>id</th><th>title</th><th>status</th><th>files</th></tr>",
            t = escape_html(title),
            m = escape_html(&self.models.join(", "))
        );
        for a in &self.artifacts {
            let class = a.status.label().split(' ').next().unwrap_or("");
            let files: Vec<String> = a
                .files
                .iter()
                .map(|f| format!("<a href=\"{0}\">{0}</a>", escape_html(f)))
                .collect();
            let _ = write!(
                h,
                "<tr id=\"{id}\"><td>{id}</td><td>{title}</td><td class=\"{class}\">{label}<br>\
                 <small>{detail}</small></td><td>{files}</td></tr>",
                id = escape_html(&a.id),
                title = escape_html(&a.title),
                label = a.status.label(),
                detail = escape_html(a.status.detail()),
                files = files.join(" ")
            );
        }
        h.push_str("</table></body></html>\n");
        h
    }
}

fn csv_err(path: &Path, e: csv::Error) -> RobustError {
    let source = match e.into_kind() {
        csv::ErrorKind::Io(io) => io,
        other => std::io::Error::other(format!("{other:?}")),
    };
    io_err("write", path, source)
}
