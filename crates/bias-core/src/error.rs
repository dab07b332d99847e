//! The error type shared by every layer.

use std::path::PathBuf;

/// Errors raised by the shared types (reading and writing score tables, validating input).
///
/// Every variant names where the problem is (file, 1-based line) and what was expected, so a user
/// can fix the input. An underlying error (I/O, CSV, JSON) is kept as the variant's
/// [`source`](std::error::Error::source), not repeated in its message: print the chain to see
/// it. Other crates wrap this enum in their own (`#[from]`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoreError {
    /// A file could not be opened, read or written.
    #[error("{path}: cannot open, read or write it (check that the file exists and is readable)")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A CSV record could not be read (malformed quoting, invalid UTF-8, wrong field count).
    #[error("{source_name}, line {line}: unreadable CSV record (check the quoting, the UTF-8 encoding, and that every row has as many fields as the header)")]
    Csv {
        /// File name (or another label for the input).
        source_name: String,
        /// 1-based line of the record, 0 if unknown.
        line: u64,
        /// The underlying CSV error.
        #[source]
        source: csv::Error,
    },
    /// A required column is absent from a CSV header.
    #[error(
        "{source_name}: missing column `{column}` in the header (expected columns: {expected})"
    )]
    MissingColumn {
        /// File name (or another label for the input).
        source_name: String,
        /// The absent column.
        column: String,
        /// All the columns the format needs, comma-separated.
        expected: String,
    },
    /// A field holds a value of the wrong kind (for example a non-numeric score).
    #[error("{source_name}, line {line}, column `{column}`: invalid value {value:?}: expected {expected}")]
    InvalidField {
        /// File name (or another label for the input).
        source_name: String,
        /// 1-based line.
        line: u64,
        /// Column name.
        column: String,
        /// The offending text.
        value: String,
        /// What the column must hold.
        expected: String,
    },
    /// A sentence field is empty (after trimming white space).
    #[error("{source_name}, line {line}: column `{column}` is empty; every pair needs two non-empty sentences")]
    EmptySentence {
        /// File name (or another label for the input).
        source_name: String,
        /// 1-based line.
        line: u64,
        /// Column name.
        column: String,
    },
    /// The same pair appears twice for one (dataset, scorer, model).
    #[error("{source_name}, line {line}: pair `{pair_id}` ({slice}) repeats line {first_line}; remove the repeated row")]
    DuplicateRow {
        /// File name (or another label for the input).
        source_name: String,
        /// 1-based line of the repeat.
        line: u64,
        /// 1-based line of the first occurrence.
        first_line: u64,
        /// The repeated pair id.
        pair_id: String,
        /// Its data set, scorer and model, as text.
        slice: String,
    },
    /// JSON could not be parsed or written. The message names the line and column (when
    /// parsing) and the kind of problem; serde's own message is the source.
    #[error("{source_name}{}: {}", json_position(.source), json_problem(.source))]
    Json {
        /// File name (or another label for the input).
        source_name: String,
        /// The underlying serde_json error (carries line and column).
        #[source]
        source: serde_json::Error,
    },
    /// An argument is outside its allowed domain (empty input, a negative count, a NaN score...).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A scorer name that is none of [`crate::Scorer::ALL`].
    #[error(
        "unknown scorer `{0}`: use aul, aula, cps, sss, all-masked or pll (masked LMs), or \
         ll-sum or ll-mean (causal LMs)"
    )]
    UnknownScorer(String),
    /// A name that is none of an option's values ([`crate::Choice`]).
    #[error("{what} `{value}`: expected one of {expected}")]
    UnknownChoice {
        /// What the option is.
        what: &'static str,
        /// The name given.
        value: String,
        /// Every name the option takes.
        expected: String,
    },
}

/// Where a JSON error is (`, line 4, column 32`), or nothing for an error of serialisation.
fn json_position(e: &serde_json::Error) -> String {
    if e.line() == 0 {
        String::new()
    } else {
        format!(", line {}, column {}", e.line(), e.column())
    }
}

/// What a JSON error means, in words (serde's own message is the source).
fn json_problem(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Syntax => "malformed JSON",
        serde_json::error::Category::Eof => "the JSON ends early",
        serde_json::error::Category::Data => "the JSON does not have the expected structure",
        serde_json::error::Category::Io => "the JSON could not be read or written",
    }
}

impl CoreError {
    /// A [`CoreError::InvalidField`]: `value` in `column` at `line` of `source_name` is not
    /// what the column must hold (`expected`).
    pub fn invalid_field(
        source_name: &str,
        line: u64,
        column: &str,
        value: &str,
        expected: &str,
    ) -> Self {
        CoreError::InvalidField {
            source_name: source_name.to_owned(),
            line,
            column: column.to_owned(),
            value: value.to_owned(),
            expected: expected.to_owned(),
        }
    }

    /// Builds an [`CoreError::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CoreError::Io {
            path: path.into(),
            source,
        }
    }
}
