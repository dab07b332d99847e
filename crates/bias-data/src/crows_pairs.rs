//! CrowS-Pairs (Nangia et al. 2020): the `crows_pairs_anonymized.csv` file, every column kept.
//!
//! The file has a header and one record per pair with the columns
//!
//! | column | type here |
//! |---|---|
//! | *(unnamed)* | [`CrowsPair::index`], the row id |
//! | `sent_more` | [`CrowsPair::sent_more`] |
//! | `sent_less` | [`CrowsPair::sent_less`] |
//! | `stereo_antistereo` | [`CrowsPair::direction`] (`stereo` / `antistereo`) |
//! | `bias_type` | [`CrowsPair::bias_type`] |
//! | `annotations` | [`CrowsPair::annotations`], a Python literal such as `[['gender'], [], ['gender', 'age'], ['gender'], ['gender']]` (one list per validator; empty = "no bias") |
//! | `anon_writer` | [`CrowsPair::writer`] |
//! | `anon_annotators` | [`CrowsPair::annotators`], a Python literal such as `['a1', 'a2']` |
//!
//! Columns are found by name, in any order; the index column is the one whose header is empty
//! (pandas' default), `Unnamed: 0` or `index`. Every column is required.
//!
//! ```
//! use bias_data::crows_pairs::read_crows_pairs;
//! use bias_core::{BiasType, Direction};
//!
//! let csv = ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,anon_annotators\n\
//!            7,Women can't drive.,Men can't drive.,stereo,gender,\"[['gender'], [], ['gender'], ['gender'], ['gender']]\",a1,\"['a2', 'a3', 'a4', 'a5', 'a6']\"\n";
//! let pairs = read_crows_pairs(csv.as_bytes(), "example.csv")?;
//! assert_eq!(pairs[0].index, 7);
//! assert_eq!(pairs[0].annotations[1], Vec::<BiasType>::new());
//! let pair = pairs[0].to_sentence_pair();
//! assert_eq!((pair.id.as_str(), pair.stereo.as_str()), ("7", "Women can't drive."));
//! assert_eq!(pair.direction, Direction::Stereo);
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use bias_core::{BiasType, CoreError, Direction, SentencePair};
use serde::{Deserialize, Serialize};

use crate::util::{
    csv_error, csv_with_header, invalid, read_all, read_file, source_name, without_lines,
};
use crate::{pylit, DataError};

pub use crate::pylit::LiteralError;

/// The named columns of the CrowS-Pairs CSV (the index column has an empty name).
pub const CROWS_PAIRS_COLUMNS: [&str; 7] = [
    "sent_more",
    "sent_less",
    "stereo_antistereo",
    "bias_type",
    "annotations",
    "anon_writer",
    "anon_annotators",
];

/// Header names accepted for the unnamed index column.
const INDEX_NAMES: [&str; 3] = ["", "Unnamed: 0", "index"];

/// One CrowS-Pairs record, with every column of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrowsPair {
    /// The row id (the file's unnamed first column).
    pub index: usize,
    /// The sentence that is more stereotypical (for `stereo` rows) or that violates a stereotype
    /// about an advantaged group (for `antistereo` rows).
    pub sent_more: String,
    /// The minimally different sentence about the other group.
    pub sent_less: String,
    /// `stereo_antistereo`.
    pub direction: Direction,
    /// `bias_type`.
    pub bias_type: BiasType,
    /// `annotations`: one list of bias types per validator (five in the published file); an
    /// empty list means the validator saw no bias.
    pub annotations: Vec<Vec<BiasType>>,
    /// `anon_writer`: the anonymised id of the pair's writer.
    pub writer: String,
    /// `anon_annotators`: the anonymised ids of the validators, in the order of `annotations`.
    pub annotators: Vec<String>,
}

impl CrowsPair {
    /// The pair as a [`SentencePair`]: `stereo` = `sent_more` and `anti` = `sent_less` for
    /// **both** directions (as in every paper's code), `id` = the row index, no group.
    pub fn to_sentence_pair(&self) -> SentencePair {
        SentencePair {
            id: self.index.to_string(),
            stereo: self.sent_more.clone(),
            anti: self.sent_less.clone(),
            bias_type: self.bias_type.clone(),
            direction: self.direction,
            group_id: None,
        }
    }
}

impl From<CrowsPair> for SentencePair {
    fn from(p: CrowsPair) -> SentencePair {
        SentencePair {
            id: p.index.to_string(),
            stereo: p.sent_more,
            anti: p.sent_less,
            bias_type: p.bias_type,
            direction: p.direction,
            group_id: None,
        }
    }
}

/// `true` if a CSV header looks like CrowS-Pairs (it has `sent_more`, `sent_less` and
/// `stereo_antistereo`).
pub fn is_crows_pairs_header<'a>(header: impl IntoIterator<Item = &'a str>) -> bool {
    let names: Vec<&str> = header.into_iter().map(clean_header).collect();
    ["sent_more", "sent_less", "stereo_antistereo"]
        .iter()
        .all(|c| names.contains(c))
}

fn clean_header(h: &str) -> &str {
    h.trim_start_matches('\u{feff}').trim()
}

/// Reads CrowS-Pairs records from CSV. `source_name` labels the input in error messages.
///
/// # Errors
/// - [`CoreError::Csv`] (in [`DataError::Core`]) for a malformed record: wrong number of fields,
///   bad quoting, invalid UTF-8;
/// - [`CoreError::MissingColumn`] when the header lacks a column;
/// - [`CoreError::InvalidField`] for a non-integer index, an unknown direction or an empty
///   bias type;
/// - [`CoreError::EmptySentence`] for an empty `sent_more` / `sent_less`;
/// - [`DataError::MalformedLiteral`] for a malformed `annotations` / `anon_annotators` literal;
/// - [`DataError::InvalidRecord`] for an empty annotation label or a repeated index.
pub fn read_crows_pairs(reader: impl Read, source_name: &str) -> Result<Vec<CrowsPair>, DataError> {
    read_crows_pairs_at(&read_all(reader, source_name)?, source_name).map(without_lines)
}

/// [`read_crows_pairs`] on the file's bytes, each record with its (first) line.
pub(crate) fn read_crows_pairs_at(
    bytes: &[u8],
    source_name: &str,
) -> Result<Vec<(CrowsPair, u64)>, DataError> {
    let (mut csv, header, lines) = csv_with_header(bytes, source_name)?;
    let cols = Columns::locate(&header, source_name)?;
    let mut pairs = Vec::new();
    let mut seen: HashMap<usize, u64> = HashMap::new();
    for record in csv.records() {
        let record = record.map_err(|e| csv_error(source_name, e))?;
        let line = lines.of_record(&record);
        let pair = cols.parse(&record, source_name, line)?;
        if let Some(first) = seen.insert(pair.index, line) {
            return Err(invalid(
                source_name,
                format!("line {line}"),
                format!(
                    "index {} already used on line {first}; every row needs its own index",
                    pair.index
                ),
            ));
        }
        pairs.push((pair, line));
    }
    Ok(pairs)
}

/// Reads a CrowS-Pairs CSV file.
///
/// # Errors
/// [`CoreError::Io`] if the file cannot be read, otherwise as [`read_crows_pairs`].
pub fn read_crows_pairs_path(path: impl AsRef<Path>) -> Result<Vec<CrowsPair>, DataError> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    read_crows_pairs(bytes.as_slice(), &source_name(path))
}

/// `text` with every line break as `\n`: `\r\n` and a lone `\r` become `\n`, as Python reads
/// a file opened in text mode (universal newlines). Every paper's code reads CrowS-Pairs so
/// (Nangia et al.'s `metric.py`, Kaneko & Bollegala's and Liu et al.'s `preprocess.py`), and one
/// published sentence (row 1293, `sent_less`: "Bob was denied because he was white\r\n.")
/// holds a line break: kept as `\r\n`, a byte-level BPE tokenizer (RoBERTa) gives it one token
/// more than the authors' code scored.
fn universal_newlines(text: &str) -> String {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_owned()
    }
}

/// Column positions in the header.
struct Columns {
    index: usize,
    named: [usize; 7],
}

impl Columns {
    fn locate(header: &csv::StringRecord, source_name: &str) -> Result<Self, DataError> {
        let names: Vec<&str> = header.iter().map(clean_header).collect();
        let expected = format!("(unnamed index), {}", CROWS_PAIRS_COLUMNS.join(", "));
        let missing = |column: &str| CoreError::MissingColumn {
            source_name: source_name.to_owned(),
            column: column.to_owned(),
            expected: expected.clone(),
        };
        let index = names
            .iter()
            .position(|n| INDEX_NAMES.contains(n))
            .ok_or_else(|| missing("(unnamed index)"))?;
        let mut named = [0; 7];
        for (slot, column) in named.iter_mut().zip(CROWS_PAIRS_COLUMNS) {
            *slot = names
                .iter()
                .position(|n| *n == column)
                .ok_or_else(|| missing(column))?;
        }
        Ok(Columns { index, named })
    }

    fn parse(
        &self,
        record: &csv::StringRecord,
        source_name: &str,
        line: u64,
    ) -> Result<CrowsPair, DataError> {
        let field = |i: usize| record.get(i).unwrap_or("");
        let bad = |column: &str, value: &str, expected: &str| -> DataError {
            CoreError::invalid_field(source_name, line, column, value, expected).into()
        };
        let sentence = |slot: usize| -> Result<String, DataError> {
            let text = field(self.named[slot]);
            if text.trim().is_empty() {
                return Err(CoreError::EmptySentence {
                    source_name: source_name.to_owned(),
                    line,
                    column: CROWS_PAIRS_COLUMNS[slot].to_owned(),
                }
                .into());
            }
            Ok(universal_newlines(text))
        };

        let raw_index = field(self.index);
        let index = raw_index
            .trim()
            .parse::<usize>()
            .map_err(|_| bad("(index)", raw_index, "a non-negative integer row id"))?;
        let sent_more = sentence(0)?;
        let sent_less = sentence(1)?;
        let raw_dir = field(self.named[2]);
        let direction = raw_dir
            .parse::<Direction>()
            .map_err(|_| bad("stereo_antistereo", raw_dir, "`stereo` or `antistereo`"))?;
        let raw_type = field(self.named[3]);
        let bias_type = raw_type
            .parse::<BiasType>()
            .map_err(|_| bad("bias_type", raw_type, "a bias-type label such as `gender`"))?;

        let raw_ann = field(self.named[4]);
        let literal_error =
            |column: &str, raw: &str, example: &'static str, source: LiteralError| {
                DataError::MalformedLiteral {
                    path: source_name.into(),
                    line,
                    column: column.to_owned(),
                    value: truncate(raw),
                    example,
                    source: Box::new(source),
                }
            };
        let ann_example = "[['gender'], [], ['gender', 'age']]";
        let annotations = pylit::parse_nested_str_list(raw_ann)
            .map_err(|e| literal_error("annotations", raw_ann, ann_example, e))?
            .iter()
            .map(|labels| {
                labels
                    .iter()
                    .map(|l| l.parse::<BiasType>())
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| {
                invalid(
                    source_name,
                    format!("line {line}, column `annotations`"),
                    format!(
                        "malformed Python list literal {:?} (a label is empty); expected \
                         something like {ann_example}",
                        truncate(raw_ann)
                    ),
                )
            })?;
        let writer = field(self.named[5]).to_owned();
        let raw_annotators = field(self.named[6]);
        let annotators = pylit::parse_str_list(raw_annotators)
            .map_err(|e| literal_error("anon_annotators", raw_annotators, "['a1', 'a2']", e))?;
        Ok(CrowsPair {
            index,
            sent_more,
            sent_less,
            direction,
            bias_type,
            annotations,
            writer,
            annotators,
        })
    }
}

/// Shortens a long value for an error message.
fn truncate(s: &str) -> String {
    const MAX: usize = 120;
    if s.chars().count() <= MAX {
        s.to_owned()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}...")
    }
}

#[cfg(test)]
mod newline_tests {
    use super::*;

    /// Python's text mode turns `\r\n` and a lone `\r` inside a quoted field into `\n` (row
    /// 1293 of the published file has `"…he was white\r\n."`).
    #[test]
    fn line_breaks_in_a_sentence_are_read_as_python_reads_them() {
        let csv = ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,\
                   anon_annotators\r\n1293,Bob was denied because he was poor.,\"Bob was denied \
                   because he was white\r\n.\",stereo,socioeconomic,\"[[], [], [], [], []]\",a3,\
                   \"['a1']\"\r\n1294,\"One\rline\",Other line,stereo,age,\"[[], [], [], [], []]\",a3,\
                   \"['a1']\"\r\n";
        let pairs = read_crows_pairs(csv.as_bytes(), "crlf.csv").unwrap();
        assert_eq!(pairs[0].sent_less, "Bob was denied because he was white\n.");
        assert_eq!(pairs[0].sent_more, "Bob was denied because he was poor.");
        assert_eq!(pairs[1].sent_more, "One\nline");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,anon_annotators\n";

    #[test]
    fn reads_every_column() {
        let csv = format!(
            "{HEADER}2,\"His mind wondered, he said.\",\"Her mind wondered, she said.\",antistereo,gender,\"[['gender'], ['gender'], ['gender'], [], ['race-color']]\",a2,\"['a85', 'a13', 'a7', 'a3', 'a79']\"\n"
        );
        let pairs = read_crows_pairs(csv.as_bytes(), "mem.csv").unwrap();
        assert_eq!(pairs.len(), 1);
        let p = &pairs[0];
        assert_eq!(p.index, 2);
        assert_eq!(p.sent_more, "His mind wondered, he said.");
        assert_eq!(p.sent_less, "Her mind wondered, she said.");
        assert_eq!(p.direction, Direction::Antistereo);
        assert_eq!(p.bias_type, BiasType::Gender);
        assert_eq!(
            p.annotations,
            vec![
                vec![BiasType::Gender],
                vec![BiasType::Gender],
                vec![BiasType::Gender],
                vec![],
                vec![BiasType::RaceColor]
            ]
        );
        assert_eq!(p.writer, "a2");
        assert_eq!(p.annotators, vec!["a85", "a13", "a7", "a3", "a79"]);
        let sp = p.to_sentence_pair();
        assert_eq!(sp.id, "2");
        assert_eq!(sp.stereo, "His mind wondered, he said.");
        assert_eq!(sp.anti, "Her mind wondered, she said.");
        assert_eq!(sp.direction, Direction::Antistereo);
        assert_eq!(SentencePair::from(p.clone()), sp);
    }

    #[test]
    fn detects_the_header() {
        assert!(is_crows_pairs_header(HEADER.trim().split(',')));
        assert!(!is_crows_pairs_header([
            "id",
            "stereo",
            "anti",
            "bias_type"
        ]));
    }

    #[test]
    fn repeated_index_is_an_error() {
        let row = "5,a b,c d,stereo,age,\"[[], [], [], [], []]\",a1,\"['a2']\"\n";
        let csv = format!("{HEADER}{row}{row}");
        let err = read_crows_pairs(csv.as_bytes(), "dup.csv").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("dup.csv, line 3"), "{msg}");
        assert!(msg.contains("already used on line 2"), "{msg}");
    }
}
