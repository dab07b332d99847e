//! What a reproduction writes: numbered tables (Markdown, CSV, JSON), figures (PNG, SVG), and an
//! index listing every table and figure of the paper with its status.

use crate::PaperError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Paper;
use bias_report::report::{escape_html, write_markdown_table};
pub use bias_report::table::{Cell, Table};
use bias_robust::RobustError;

/// How far a table or figure of a paper is reproduced here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "detail", rename_all = "kebab-case")]
pub enum Status {
    /// Computed as the paper computes it, on the paper's data (the models are whatever was
    /// given).
    Reproduced,
    /// Computed as the paper computes it, on substitute data: what stands in for what, and why.
    Substitute(String),
    /// Computed as the paper computes it on the paper's data, but not from the paper's inputs in
    /// full: other checkpoints than the paper's, or only the first pairs of each data set
    /// (`--max-pairs`). The method is reproduced; the numbers are not the paper's to compare.
    MethodOnly(String),
    /// Not computed: what is missing here.
    OutOfReach(String),
}

impl Status {
    /// This status under `scope`'s restrictions: [`Status::Reproduced`] becomes
    /// [`Status::MethodOnly`] when the models are not the paper's or the pairs were limited;
    /// [`Status::Substitute`] keeps its label and gains the restriction in its detail;
    /// [`Status::OutOfReach`] is unchanged.
    pub fn within(self, scope: &Scope) -> Status {
        let Some(why) = scope.restriction() else {
            return self;
        };
        let join = |d: String| {
            if d.is_empty() || d.contains(&why) {
                if d.is_empty() {
                    why.clone()
                } else {
                    d
                }
            } else {
                format!("{d}; {why}")
            }
        };
        match self {
            Status::Reproduced => Status::MethodOnly(why),
            Status::Substitute(d) => Status::Substitute(join(d)),
            Status::MethodOnly(d) => Status::MethodOnly(join(d)),
            s @ Status::OutOfReach(_) => s,
        }
    }

    /// `reproduced`, `substitute` or `out of reach`.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Reproduced => "reproduced",
            Status::Substitute(_) => "substitute",
            Status::MethodOnly(_) => "method only",
            Status::OutOfReach(_) => "out of reach",
        }
    }

    /// The detail in words (empty for [`Status::Reproduced`]).
    pub fn detail(&self) -> &str {
        match self {
            Status::Reproduced => "",
            Status::Substitute(d) | Status::MethodOnly(d) | Status::OutOfReach(d) => d,
        }
    }
}

/// What a reproduction was computed from, against what the paper used: the models studied, the
/// paper's checkpoints, and the limit on pairs. Decides whether a table may say
/// [`Status::Reproduced`] ([`Status::within`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Scope {
    /// The models studied (their names).
    pub models: Vec<String>,
    /// The paper's checkpoints (Hugging Face ids); empty when this workspace does not check them.
    pub paper_models: Vec<&'static str>,
    /// The limit on pairs per data set (`--max-pairs`).
    pub max_pairs: Option<usize>,
}

impl Scope {
    /// The models that are not among the paper's checkpoints: a model matches when its name, or
    /// the last `/`-separated part of it, is one of them (ASCII case ignored).
    pub fn other_models(&self) -> Vec<&str> {
        if self.paper_models.is_empty() {
            return Vec::new();
        }
        self.models
            .iter()
            .map(String::as_str)
            .filter(|m| {
                let last = m.rsplit('/').next().unwrap_or(m);
                !self
                    .paper_models
                    .iter()
                    .any(|p| p.eq_ignore_ascii_case(last))
            })
            .collect()
    }

    /// Why the numbers are not the paper's to compare (`None` when nothing restricts them).
    pub fn restriction(&self) -> Option<String> {
        let mut why = Vec::new();
        let other = self.other_models();
        if !other.is_empty() {
            why.push(format!(
                "{} {} not the paper's checkpoint{} ({})",
                other.join(", "),
                if other.len() == 1 { "is" } else { "are" },
                if other.len() == 1 { "" } else { "s" },
                self.paper_models.join(", ")
            ));
        }
        if let Some(n) = self.max_pairs {
            why.push(format!(
                "only the first {n} pairs of each data set (--max-pairs): not the paper's numbers"
            ));
        }
        (!why.is_empty()).then(|| why.join("; "))
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
    scope: Scope,
    options: std::collections::BTreeMap<String, String>,
}

fn io_err(action: &'static str, path: &Path, source: std::io::Error) -> PaperError {
    RobustError::Io {
        action,
        path: path.to_owned(),
        source,
    }
    .into()
}

fn write_file(path: &Path, text: &str) -> Result<(), PaperError> {
    std::fs::write(path, text).map_err(|e| io_err("write", path, e))
}

impl Reproduction {
    /// Starts a reproduction of `paper` in `dir` (created if absent).
    ///
    /// # Errors
    /// [`RobustError::Io`] if `dir` cannot be created.
    pub fn create(paper: Paper, dir: impl Into<PathBuf>) -> Result<Self, PaperError> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|e| io_err("create", &dir, e))?;
        Ok(Reproduction {
            paper,
            dir,
            artifacts: Vec::new(),
            scope: Scope {
                paper_models: paper.published_models().to_vec(),
                ..Scope::default()
            },
            options: std::collections::BTreeMap::new(),
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
    /// [`bias_report::figures`] add `.png` and `.svg`).
    pub fn figure_stem(&self, id: &str) -> PathBuf {
        self.dir.join(id)
    }

    /// Records the models studied, for the index and the [`Scope`].
    pub fn set_models(&mut self, models: Vec<String>) {
        self.scope.models = models;
    }

    /// Records what `study` holds: its models, its limit on pairs ([`Scope`]) and each model's
    /// scorer conventions (as options `scoring (<model>)`).
    pub fn set_study<M: bias_core::DatasetScorer>(&mut self, study: &super::Study<M>) {
        self.set_models(study.model_names());
        self.scope.max_pairs = study.max_pairs();
        for (i, name) in study.model_names().iter().enumerate() {
            if let Some(c) = study.conventions(i) {
                self.option(
                    &format!("scoring ({name})"),
                    format!(
                        "sss {}, cps {}",
                        c.sss.name(),
                        if c.cps_round_3 {
                            "rounded to 3 decimals"
                        } else {
                            "unrounded"
                        }
                    ),
                );
            }
        }
    }

    /// Records an option in force (listed in the index: `index.json`'s `options`).
    pub fn option(&mut self, name: &str, value: impl Into<String>) {
        self.options.insert(name.to_owned(), value.into());
    }

    /// The options recorded so far.
    pub fn options(&self) -> &std::collections::BTreeMap<String, String> {
        &self.options
    }

    /// What the reproduction is computed from ([`Scope`]).
    pub fn scope(&self) -> &Scope {
        &self.scope
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
    ) -> Result<(), PaperError> {
        let status = status.within(&self.scope);
        self.write_table(id, title, status, table)
    }

    /// [`Reproduction::table`] for a table computed from the data alone (no model, every pair
    /// also under `--max-pairs`): its status is not restricted by the [`Scope`].
    ///
    /// # Errors
    /// [`RobustError::Io`] if a file cannot be written.
    pub fn data_table(
        &mut self,
        id: &str,
        title: &str,
        status: Status,
        table: &Table,
    ) -> Result<(), PaperError> {
        self.write_table(id, title, status, table)
    }

    fn write_table(
        &mut self,
        id: &str,
        title: &str,
        status: Status,
        table: &Table,
    ) -> Result<(), PaperError> {
        let md = format!(
            "# {} {id}: {title}\n\n{}",
            self.paper.citation(),
            table.markdown()
        );
        write_file(&self.dir.join(format!("{id}.md")), &md)?;
        let csv_path = self.dir.join(format!("{id}.csv"));
        let mut w = csv::Writer::from_path(&csv_path).map_err(|e| csv_err(&csv_path, e))?;
        table.write_csv(&mut w).map_err(|e| csv_err(&csv_path, e))?;
        w.flush().map_err(|e| io_err("write", &csv_path, e))?;
        let json = serde_json::json!({
            "paper": self.paper.name(), "id": id, "title": title,
            "status": status, "table": table.json(),
        });
        write_file(
            &self.dir.join(format!("{id}.json")),
            &serde_json::to_string_pretty(&json).expect("a JSON value serialises"),
        )?;
        self.push_as_is(id, title, status, ["md", "csv", "json"]);
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
        let status = status.within(&self.scope);
        self.push_as_is(id, title, status, ext);
    }

    fn push_as_is<const N: usize>(
        &mut self,
        id: &str,
        title: &str,
        status: Status,
        ext: [&str; N],
    ) {
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
    pub fn finish(self) -> Result<Vec<Artifact>, PaperError> {
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
        let mut md = format!("# {title}\n\nModels: {}\n\n", self.scope.models.join(", "));
        if let Some(why) = self.scope.restriction() {
            let _ = write!(md, "Not the paper's inputs: {why}.\n\n");
        }
        if !self.options.is_empty() {
            md.push_str("Options in force:\n\n");
            for (k, v) in &self.options {
                let _ = writeln!(md, "- {k}: {v}");
            }
            md.push('\n');
        }
        write_markdown_table(&mut md, &header, &rows);
        write_file(&self.dir.join("index.md"), &md)?;
        let json = serde_json::json!({
            "paper": self.paper.name(), "citation": self.paper.citation(),
            "models": self.scope.models, "paper_models": self.scope.paper_models,
            "max_pairs": self.scope.max_pairs, "restriction": self.scope.restriction(),
            "options": self.options, "artifacts": self.artifacts,
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
             .method{{color:#0a58ca}}.out{{color:#888}}</style></head><body><h1>{t}</h1>\
             <p>Models: {m}</p>",
            t = escape_html(title),
            m = escape_html(&self.scope.models.join(", "))
        );
        if let Some(why) = self.scope.restriction() {
            let _ = write!(
                h,
                "<p class=\"method\">Not the paper's inputs: {}.</p>",
                escape_html(&why)
            );
        }
        if !self.options.is_empty() {
            h.push_str("<p>Options in force:</p><ul>");
            for (k, v) in &self.options {
                let _ = write!(h, "<li>{}: {}</li>", escape_html(k), escape_html(v));
            }
            h.push_str("</ul>");
        }
        h.push_str("<table><tr><th>id</th><th>title</th><th>status</th><th>files</th></tr>");
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

fn csv_err(path: &Path, e: csv::Error) -> PaperError {
    let source = match e.into_kind() {
        csv::ErrorKind::Io(io) => io,
        other => std::io::Error::other(format!("{other:?}")),
    };
    io_err("write", path, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_annotated_cell_prints_together_and_writes_separate_json_fields() {
        let mut t = Table::new(&["MLM", "AUL (CP) shuffled"]);
        t.row(vec![
            "bert".into(),
            Cell::Annotated {
                value: 69.634,
                decimals: 2,
                mark: Some("†"),
                change: Some(-13.126),
            },
        ]);
        assert_eq!(t.rows[0][1].text(), "69.63 † (-13.13)");
        let row = &t.json()["rows"][0];
        assert_eq!(row["AUL (CP) shuffled"], 69.634);
        assert_eq!(row["AUL (CP) shuffled mark"], "†");
        assert_eq!(row["AUL (CP) shuffled change"], -13.126);
        let plain = Cell::Annotated {
            value: 1.0,
            decimals: 1,
            mark: None,
            change: None,
        };
        assert_eq!(plain.text(), "1.0");
        let mut t = Table::new(&["x"]);
        t.row(vec![plain]);
        let row = t.json()["rows"][0].as_object().unwrap().clone();
        assert_eq!(row.keys().collect::<Vec<_>>(), ["x"]);
    }

    #[test]
    fn other_checkpoints_or_a_limit_make_a_reproduction_method_only() {
        let paper = Scope {
            models: vec!["bert-base-cased".into(), "google/roberta-large".into()],
            paper_models: Paper::Kaneko2022.published_models().to_vec(),
            max_pairs: None,
        };
        assert_eq!(paper.restriction(), None);
        assert_eq!(Status::Reproduced.within(&paper), Status::Reproduced);
        let other = Scope {
            models: vec!["bert".into(), "roberta-large".into()],
            ..paper.clone()
        };
        assert_eq!(other.other_models(), ["bert"]);
        let Status::MethodOnly(why) = Status::Reproduced.within(&other) else {
            panic!("not method only");
        };
        assert!(
            why.starts_with("bert is not the paper's checkpoint ("),
            "{why}"
        );
        let limited = Scope {
            max_pairs: Some(40),
            ..paper
        };
        assert_eq!(
            Status::Substitute("wordfreq".into()).within(&limited),
            Status::Substitute(
                "wordfreq; only the first 40 pairs of each data set (--max-pairs): not the \
                 paper's numbers"
                    .into()
            )
        );
        let out = Status::OutOfReach("no data".into());
        assert_eq!(out.clone().within(&limited), out);
    }
}
