//! The per-pair score table: the contract between scoring and analysis.
//!
//! # CSV format
//!
//! One header line, then one record per (pair, scorer). Required columns, in any order:
//!
//! | column | meaning |
//! |---|---|
//! | `pair_id` | the pair's id in its data set |
//! | `dataset` | `crows-pairs`, `stereoset`, or a user's label |
//! | `bias_type` | the pair's category ([`BiasType`] label) |
//! | `direction` | `stereo` or `antistereo` ([`Direction`]) |
//! | `stereo`, `anti` | the two sentences (non-empty) |
//! | `score_stereo`, `score_anti` | the scorer's value for each sentence (finite `f64`) |
//! | `scorer` | `aul`, `aula`, `cps`, `sss`, ... |
//! | `model` | the model's name or folder |
//!
//! Optional columns: `tokens_stereo`, `tokens_anti` (number of scored tokens) and `group_id`
//! (the original pair a paraphrase belongs to); an empty cell means absent. Unknown columns are
//! ignored, so tables written by newer versions stay readable.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{BiasType, CoreError, DatasetName, Direction, ModelName, ScorerName};

/// Every column of the score-table CSV, in the order this crate writes them: the required
/// [`SCORE_TABLE_COLUMNS`], then the optional token counts and paraphrase group.
pub const SCORE_TABLE_HEADER: [&str; 13] = [
    "pair_id",
    "dataset",
    "bias_type",
    "direction",
    "stereo",
    "anti",
    "score_stereo",
    "score_anti",
    "scorer",
    "model",
    "tokens_stereo",
    "tokens_anti",
    "group_id",
];

/// The required columns of the score-table CSV: the first ten of [`SCORE_TABLE_HEADER`].
pub const SCORE_TABLE_COLUMNS: [&str; 10] = {
    let mut required = [""; 10];
    let mut i = 0;
    while i < required.len() {
        required[i] = SCORE_TABLE_HEADER[i];
        i += 1;
    }
    required
};

/// The optional columns: the last three of [`SCORE_TABLE_HEADER`].
const OPTIONAL_COLUMNS: [&str; 3] = [
    SCORE_TABLE_HEADER[10],
    SCORE_TABLE_HEADER[11],
    SCORE_TABLE_HEADER[12],
];

/// One scored pair: both sentences, both scores, and where they came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreRow {
    /// The pair's id in its data set.
    pub pair_id: String,
    /// Data set label (`crows-pairs`, `stereoset`, ...).
    pub dataset: DatasetName,
    /// The pair's social category.
    pub bias_type: BiasType,
    /// The pair's direction.
    pub direction: Direction,
    /// The stereotypical sentence.
    pub stereo: String,
    /// The anti-stereotypical sentence.
    pub anti: String,
    /// Score of the stereotypical sentence (a log-likelihood: higher = more likely).
    pub score_stereo: f64,
    /// Score of the anti-stereotypical sentence.
    pub score_anti: f64,
    /// The scorer that produced both scores.
    pub scorer: ScorerName,
    /// The model that was scored.
    pub model: ModelName,
    /// Number of tokens scored in the stereotypical sentence, if recorded.
    #[serde(default)]
    pub tokens_stereo: Option<usize>,
    /// Number of tokens scored in the anti-stereotypical sentence, if recorded.
    #[serde(default)]
    pub tokens_anti: Option<usize>,
    /// The original pair this pair paraphrases, if any.
    #[serde(default)]
    pub group_id: Option<String>,
}

impl ScoreRow {
    /// `true` when the model prefers the stereotypical sentence: `score_stereo > score_anti`
    /// (strict, as in liu2024 Eq. 2; a tie is not stereotypical).
    pub fn prefers_stereo(&self) -> bool {
        self.score_stereo > self.score_anti
    }

    /// `score_stereo − score_anti`.
    pub fn difference(&self) -> f64 {
        self.score_stereo - self.score_anti
    }

    /// A row of pair `pair_id` of `bias_type` with both scores; the builder's setters fill the
    /// rest (defaults: data set `pairs`, direction stereo, empty sentences, scorer `score`, model
    /// `model`, no token counts, no group). For scorers written outside this workspace and for
    /// tests.
    ///
    /// ```
    /// use bias_core::{BiasType, ScoreRow};
    /// let row = ScoreRow::builder("7", BiasType::Gender, -10.0, -12.5).scorer("aul").build();
    /// assert_eq!(row.difference(), 2.5);
    /// assert_eq!((row.scorer.as_str(), row.model.as_str()), ("aul", "model"));
    /// ```
    pub fn builder(
        pair_id: impl Into<String>,
        bias_type: BiasType,
        score_stereo: f64,
        score_anti: f64,
    ) -> ScoreRowBuilder {
        ScoreRowBuilder(ScoreRow {
            pair_id: pair_id.into(),
            dataset: "pairs".into(),
            bias_type,
            direction: Direction::Stereo,
            stereo: String::new(),
            anti: String::new(),
            score_stereo,
            score_anti,
            scorer: "score".into(),
            model: "model".into(),
            tokens_stereo: None,
            tokens_anti: None,
            group_id: None,
        })
    }
}

/// Builds a [`ScoreRow`] ([`ScoreRow::builder`]).
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct ScoreRowBuilder(ScoreRow);

impl ScoreRowBuilder {
    /// The data set label.
    pub fn dataset(mut self, dataset: impl Into<DatasetName>) -> Self {
        self.0.dataset = dataset.into();
        self
    }

    /// The pair's direction.
    pub fn direction(mut self, direction: Direction) -> Self {
        self.0.direction = direction;
        self
    }

    /// The stereotypical and anti-stereotypical sentences.
    pub fn sentences(mut self, stereo: impl Into<String>, anti: impl Into<String>) -> Self {
        self.0.stereo = stereo.into();
        self.0.anti = anti.into();
        self
    }

    /// The scorer's name.
    pub fn scorer(mut self, scorer: impl Into<ScorerName>) -> Self {
        self.0.scorer = scorer.into();
        self
    }

    /// The model's name.
    pub fn model(mut self, model: impl Into<ModelName>) -> Self {
        self.0.model = model.into();
        self
    }

    /// The number of tokens scored in each sentence.
    pub fn tokens(mut self, stereo: Option<usize>, anti: Option<usize>) -> Self {
        self.0.tokens_stereo = stereo;
        self.0.tokens_anti = anti;
        self
    }

    /// The original pair this one paraphrases.
    pub fn group(mut self, group_id: Option<String>) -> Self {
        self.0.group_id = group_id;
        self
    }

    /// The row.
    pub fn build(self) -> ScoreRow {
        self.0
    }
}

/// A table of scored pairs (one row per pair and scorer).
///
/// Analyses receive a table and never re-read files. Rows keep the order they were read or
/// produced in.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ScoreTable {
    rows: Vec<ScoreRow>,
}

impl ScoreTable {
    /// Wraps rows.
    pub fn new(rows: Vec<ScoreRow>) -> Self {
        ScoreTable { rows }
    }

    /// The rows, in order.
    pub fn rows(&self) -> &[ScoreRow] {
        &self.rows
    }

    /// Consumes the table, returning its rows.
    pub fn into_rows(self) -> Vec<ScoreRow> {
        self.rows
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// `true` if the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The distinct scorer names, sorted.
    pub fn scorers(&self) -> BTreeSet<&str> {
        self.rows.iter().map(|r| r.scorer.as_str()).collect()
    }

    /// The distinct model names, sorted.
    pub fn models(&self) -> BTreeSet<&str> {
        self.rows.iter().map(|r| r.model.as_str()).collect()
    }

    /// The rows of one scorer, as a new table.
    pub fn for_scorer(&self, scorer: &str) -> ScoreTable {
        self.filter(|r| r.scorer == scorer)
    }

    /// The rows for which `keep` is true, as a new table.
    pub fn filter(&self, mut keep: impl FnMut(&ScoreRow) -> bool) -> ScoreTable {
        ScoreTable::new(self.rows.iter().filter(|r| keep(r)).cloned().collect())
    }

    /// The table split into its (dataset, scorer, model) slices, sorted by that key.
    ///
    /// A measure is only meaningful within one slice: pooling two scorers, two models or two
    /// data sets would mix incomparable scores and distort the per-type weights.
    pub fn slices(&self) -> Vec<ScoreSlice> {
        let mut groups: BTreeMap<(&str, &str, &str), Vec<ScoreRow>> = BTreeMap::new();
        for r in &self.rows {
            groups
                .entry((&r.dataset, &r.scorer, &r.model))
                .or_default()
                .push(r.clone());
        }
        groups
            .into_iter()
            .map(|((dataset, scorer, model), rows)| ScoreSlice {
                dataset: dataset.to_owned(),
                scorer: scorer.to_owned(),
                model: model.to_owned(),
                table: ScoreTable::new(rows),
            })
            .collect()
    }

    /// Rows grouped by bias type (types sorted by label order of [`BiasType`]).
    pub fn by_bias_type(&self) -> BTreeMap<&BiasType, Vec<&ScoreRow>> {
        let mut groups: BTreeMap<&BiasType, Vec<&ScoreRow>> = BTreeMap::new();
        for r in &self.rows {
            groups.entry(&r.bias_type).or_default().push(r);
        }
        groups
    }

    /// Reads a table from CSV (see the module docs for the format).
    ///
    /// `source_name` labels the input in error messages (use the file name).
    ///
    /// # Errors
    /// [`CoreError::Csv`] for malformed records (including invalid UTF-8 and a wrong number of
    /// fields), [`CoreError::MissingColumn`], [`CoreError::InvalidField`] for an unparsable
    /// score, direction or count, [`CoreError::EmptySentence`] for an empty sentence.
    pub fn read_csv(reader: impl Read, source_name: &str) -> Result<Self, CoreError> {
        let mut csv = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(reader);
        let csv_err = |source: csv::Error| {
            let line = source.position().map_or(0, |p| p.line());
            CoreError::Csv {
                source_name: source_name.to_owned(),
                line,
                source,
            }
        };
        let header = csv.headers().map_err(csv_err)?.clone();
        let columns = Columns::locate(&header, source_name)?;
        let mut rows = Vec::new();
        let mut seen: HashMap<(DatasetName, ScorerName, ModelName, String), u64> = HashMap::new();
        for record in csv.records() {
            let record = record.map_err(csv_err)?;
            let line = record.position().map_or(0, |p| p.line());
            let row = columns.parse(&record, source_name, line)?;
            let key = (
                row.dataset.clone(),
                row.scorer.clone(),
                row.model.clone(),
                row.pair_id.clone(),
            );
            if let Some(&first_line) = seen.get(&key) {
                return Err(CoreError::DuplicateRow {
                    source_name: source_name.to_owned(),
                    line,
                    first_line,
                    slice: format!(
                        "dataset `{}`, scorer `{}`, model `{}`",
                        row.dataset, row.scorer, row.model
                    ),
                    pair_id: row.pair_id,
                });
            }
            seen.insert(key, line);
            rows.push(row);
        }
        Ok(ScoreTable { rows })
    }

    /// Reads a table from a CSV file.
    ///
    /// # Errors
    /// [`CoreError::Io`] if the file cannot be opened, otherwise as [`ScoreTable::read_csv`].
    pub fn read_csv_path(path: impl AsRef<Path>) -> Result<Self, CoreError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| CoreError::io(path, e))?;
        Self::read_csv(BufReader::new(file), &path.display().to_string())
    }

    /// Writes the table as CSV, with every column (required and optional).
    ///
    /// # Errors
    /// [`CoreError::Csv`] if writing fails.
    pub fn write_csv(&self, writer: impl Write) -> Result<(), CoreError> {
        let mut w = ScoreTableWriter::new(writer)?;
        for row in &self.rows {
            w.append(row)?;
        }
        w.flush()
    }

    /// Writes the table to a CSV file (created or truncated).
    ///
    /// # Errors
    /// [`CoreError::Io`] if the file cannot be created, [`CoreError::Csv`] if writing fails.
    pub fn write_csv_path(&self, path: impl AsRef<Path>) -> Result<(), CoreError> {
        let path = path.as_ref();
        let file = File::create(path).map_err(|e| CoreError::io(path, e))?;
        self.write_csv(BufWriter::new(file))
    }

    /// Serialises the table as a JSON array of row objects.
    ///
    /// # Errors
    /// [`CoreError::Json`] if serialisation fails (it does not for finite scores).
    pub fn to_json(&self) -> Result<String, CoreError> {
        serde_json::to_string_pretty(self).map_err(|source| CoreError::Json {
            source_name: "score table".to_owned(),
            source,
        })
    }

    /// Parses a table from the JSON written by [`ScoreTable::to_json`].
    ///
    /// # Errors
    /// [`CoreError::Json`] with the line and column of the problem.
    pub fn from_json(json: &str, source_name: &str) -> Result<Self, CoreError> {
        serde_json::from_str(json).map_err(|source| CoreError::Json {
            source_name: source_name.to_owned(),
            source,
        })
    }
}

/// The rows of one (dataset, scorer, model) combination ([`ScoreTable::slices`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreSlice {
    /// The data set label.
    pub dataset: String,
    /// The scorer.
    pub scorer: String,
    /// The model.
    pub model: String,
    /// The rows (never empty).
    pub table: ScoreTable,
}

impl FromIterator<ScoreRow> for ScoreTable {
    fn from_iter<I: IntoIterator<Item = ScoreRow>>(iter: I) -> Self {
        ScoreTable::new(iter.into_iter().collect())
    }
}

/// Streams score rows to CSV one at a time, so a long scoring run loses nothing when stopped.
#[derive(Debug)]
pub struct ScoreTableWriter<W: Write> {
    csv: csv::Writer<W>,
}

impl<W: Write> ScoreTableWriter<W> {
    /// Writes the header and returns the writer.
    ///
    /// # Errors
    /// [`CoreError::Csv`] if the header cannot be written.
    pub fn new(writer: W) -> Result<Self, CoreError> {
        let mut csv = csv::Writer::from_writer(writer);
        csv.write_record(SCORE_TABLE_HEADER).map_err(write_err)?;
        Ok(ScoreTableWriter { csv })
    }

    /// Appends a header-less writer (for appending to a file that already has a header).
    pub fn without_header(writer: W) -> Self {
        ScoreTableWriter {
            csv: csv::Writer::from_writer(writer),
        }
    }

    /// Appends one row. Scores are written with Rust's shortest round-trip formatting, so a
    /// table read back is bit-identical.
    ///
    /// # Errors
    /// [`CoreError::Csv`] if writing fails.
    pub fn append(&mut self, r: &ScoreRow) -> Result<(), CoreError> {
        let opt = |v: Option<usize>| v.map(|n| n.to_string()).unwrap_or_default();
        self.csv
            .write_record([
                r.pair_id.as_str(),
                r.dataset.as_str(),
                r.bias_type.as_str(),
                r.direction.as_str(),
                r.stereo.as_str(),
                r.anti.as_str(),
                &r.score_stereo.to_string(),
                &r.score_anti.to_string(),
                r.scorer.as_str(),
                r.model.as_str(),
                &opt(r.tokens_stereo),
                &opt(r.tokens_anti),
                r.group_id.as_deref().unwrap_or(""),
            ])
            .map_err(write_err)
    }

    /// Flushes buffered rows to the underlying writer.
    ///
    /// # Errors
    /// [`CoreError::Csv`] if flushing fails.
    pub fn flush(&mut self) -> Result<(), CoreError> {
        self.csv.flush().map_err(|e| write_err(e.into()))
    }
}

fn write_err(source: csv::Error) -> CoreError {
    CoreError::Csv {
        source_name: "score table output".to_owned(),
        line: 0,
        source,
    }
}

/// Column positions in a header.
struct Columns {
    required: [usize; 10],
    optional: [Option<usize>; 3],
}

impl Columns {
    fn locate(header: &csv::StringRecord, source_name: &str) -> Result<Self, CoreError> {
        let find = |name: &str| header.iter().position(|h| h.trim() == name);
        let mut required = [0; 10];
        for (slot, name) in required.iter_mut().zip(SCORE_TABLE_COLUMNS) {
            *slot = find(name).ok_or_else(|| CoreError::MissingColumn {
                source_name: source_name.to_owned(),
                column: name.to_owned(),
                expected: SCORE_TABLE_COLUMNS.join(","),
            })?;
        }
        Ok(Columns {
            required,
            optional: OPTIONAL_COLUMNS.map(find),
        })
    }

    fn parse(
        &self,
        rec: &csv::StringRecord,
        source_name: &str,
        line: u64,
    ) -> Result<ScoreRow, CoreError> {
        let field = |i: usize| rec.get(self.required[i]).unwrap_or("");
        let invalid = |i: usize, expected: &str| CoreError::InvalidField {
            source_name: source_name.to_owned(),
            line,
            column: SCORE_TABLE_COLUMNS[i].to_owned(),
            value: field(i).to_owned(),
            expected: expected.to_owned(),
        };
        let sentence = |i: usize| {
            let s = field(i);
            if s.trim().is_empty() {
                Err(CoreError::EmptySentence {
                    source_name: source_name.to_owned(),
                    line,
                    column: SCORE_TABLE_COLUMNS[i].to_owned(),
                })
            } else {
                Ok(s.to_owned())
            }
        };
        let score = |i: usize| match field(i).trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(invalid(i, "a finite number")),
        };
        let optional = |k: usize| {
            self.optional[k]
                .and_then(|i| rec.get(i))
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let count = |k: usize| -> Result<Option<usize>, CoreError> {
            optional(k)
                .map(|s| {
                    s.parse::<usize>().map_err(|_| CoreError::InvalidField {
                        source_name: source_name.to_owned(),
                        line,
                        column: OPTIONAL_COLUMNS[k].to_owned(),
                        value: s.to_owned(),
                        expected: "a non-negative integer or an empty cell".to_owned(),
                    })
                })
                .transpose()
        };
        Ok(ScoreRow {
            pair_id: field(0).to_owned(),
            dataset: field(1).into(),
            bias_type: field(2)
                .parse()
                .map_err(|_| invalid(2, "a bias type label"))?,
            direction: field(3)
                .parse()
                .map_err(|_| invalid(3, "`stereo` or `antistereo`"))?,
            stereo: sentence(4)?,
            anti: sentence(5)?,
            score_stereo: score(6)?,
            score_anti: score(7)?,
            scorer: field(8).into(),
            model: field(9).into(),
            tokens_stereo: count(0)?,
            tokens_anti: count(1)?,
            group_id: optional(2).map(str::to_owned),
        })
    }
}
