//! The error type of bias-data.

use std::path::PathBuf;

use crate::corpus::Gender;

/// Errors raised while reading data sets and word lists.
///
/// Every variant names the file and, where it applies, the 1-based line (or JSON item) concerned.
/// An underlying error (I/O, JSON, a Python literal's parse error) is the variant's
/// [`source`](std::error::Error::source), not repeated in its message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// An error from the shared layer (I/O, CSV, JSON, invalid field).
    #[error(transparent)]
    Core(#[from] bias_core::CoreError),
    /// A record is structurally valid but its content is not (an unknown label, a malformed
    /// annotation list, a missing sentence).
    #[error("{path}, {location}: {message}")]
    InvalidRecord {
        /// The file concerned.
        path: PathBuf,
        /// Where in the file (`line 12`, `intrasentence item 3 (id ...)`).
        location: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// A line of a JSON-lines pair file is not valid JSON.
    #[error("{path}, line {line}: malformed JSON at column {column}; {expected}")]
    MalformedJson {
        /// The file concerned.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// 1-based column of the problem within the line.
        column: usize,
        /// What each line must hold.
        expected: String,
        /// The parser's error (its line and column count within the line).
        #[source]
        source: serde_json::Error,
    },
    /// A CrowS-Pairs column does not hold a valid Python list literal.
    #[error("{path}, line {line}, column `{column}`: malformed Python list literal {value:?}; expected something like {example}")]
    MalformedLiteral {
        /// The file concerned.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// The column (`annotations`, `anon_annotators`).
        column: String,
        /// The literal as written (shortened if long).
        value: String,
        /// A well-formed literal of that column.
        example: &'static str,
        /// What the parser found wrong, and where (boxed: the error stays small).
        #[source]
        source: Box<crate::crows_pairs::LiteralError>,
    },
    /// The groups of a labelled-target file do not fit: not exactly two, or a row's group is
    /// not one of the two given.
    #[error("{path}, {location}: {message}")]
    InvalidGroups {
        /// The file concerned.
        path: PathBuf,
        /// Where in the file (`line 12`, `column `group``).
        location: String,
        /// Which groups were found or given.
        message: String,
    },
    /// A file's name does not say which format it holds (an unknown extension).
    #[error("{path}: unsupported file type: {message}")]
    UnsupportedFormat {
        /// The file concerned.
        path: PathBuf,
        /// Which extensions are accepted.
        message: String,
    },
    /// A pair of gender word lists is unusable: a list is empty, an entry is not a single word,
    /// or a word is in both lists (kaneko2023 §2 needs two disjoint lists).
    #[error("{source_name}: {message}")]
    InvalidWords {
        /// The list concerned: a file, or `male word list` / `female word list`.
        source_name: String,
        /// What is wrong (naming the word) and what to do.
        message: String,
    },
    /// A wordfreq frequency list (`*.msgpack.gz`, the "cBpack" format of the `wordfreq`
    /// package) cannot be read or is not in that format.
    #[error("{path}: {message}")]
    WordFrequencies {
        /// The file concerned.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// A corpus file could not be opened or read.
    #[error("{path}: cannot read the corpus ({hint})")]
    CorpusUnreadable {
        /// The file concerned.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
        /// What to do (run `scripts/setup.sh` for the bundled data, or check the path).
        hint: String,
    },
    /// Corpus mining found no sentence for one gender, so the sides cannot be balanced
    /// (kaneko2023 §2).
    #[error("{source_name}: no {side} sentences among {lines} lines; use other word lists or a larger corpus")]
    EmptySide {
        /// The corpus concerned.
        source_name: String,
        /// The side without sentences.
        side: Gender,
        /// How many lines (records) were read.
        lines: usize,
    },
    /// A bias-controlled training set needs more sentences of one side than were mined.
    #[error("rate {rate}: needs {needed} {side} sentences but only {available} were mined; ask for fewer sentences or give a larger corpus")]
    NotEnoughSentences {
        /// The rate of bias of the set.
        rate: f64,
        /// The side that is short.
        side: Gender,
        /// Sentences the set needs from that side.
        needed: usize,
        /// Sentences mined for that side.
        available: usize,
    },
    /// A rate of bias, or a specification of rates, is invalid.
    #[error("invalid rates {spec:?}: {message}")]
    InvalidRates {
        /// The specification (or the single rate) as given.
        spec: String,
        /// What is wrong and what is expected.
        message: String,
    },
}
