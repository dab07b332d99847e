//! A generic format for your own sentence pairs, as CSV or JSON lines.
//!
//! # Fields
//!
//! | field | required | meaning |
//! |---|---|---|
//! | `id` | yes | unique, non-empty id of the pair (in JSON lines a string or an integer) |
//! | `stereo` | yes | the stereotypical sentence (non-empty) |
//! | `anti` | yes | the anti-stereotypical sentence (non-empty) |
//! | `bias_type` | yes | the category: a CrowS-Pairs / StereoSet label (`gender`, `race-color`, ...) or any other non-empty label (read case-insensitively, `_` and space as `-`) |
//! | `direction` | no | `stereo` (default) or `antistereo`: which group the stereotype concerns |
//! | `group_id` | no | ties paraphrases of one original pair together (in JSON lines a string, an integer or `null`) |
//!
//! Sentences are kept exactly as written (no trimming); a sentence that is empty or only white
//! space is an error. Other columns or keys are ignored. The file must be UTF-8.
//!
//! # CSV (`.csv`)
//!
//! A header line naming the columns (any order), then one record per pair; an empty `direction`
//! cell means `stereo`, an empty `group_id` cell means no group. Quote fields that contain commas.
//!
//! ```text
//! id,stereo,anti,bias_type,direction,group_id
//! 1,Women are bad at math.,Men are bad at math.,gender,stereo,
//! 1-p1,Women are poor at maths.,Men are poor at maths.,gender,stereo,1
//! 2,"The rich are kind, he said.","The poor are kind, he said.",socioeconomic,antistereo,
//! ```
//!
//! # JSON lines (`.jsonl`, `.ndjson`, `.json`)
//!
//! One JSON object per line; blank lines are skipped.
//!
//! ```text
//! {"id": "1", "stereo": "Women are bad at math.", "anti": "Men are bad at math.", "bias_type": "gender"}
//! {"id": "1-p1", "stereo": "Women are poor at maths.", "anti": "Men are poor at maths.", "bias_type": "gender", "group_id": "1"}
//! {"id": 2, "stereo": "The rich are kind.", "anti": "The poor are kind.", "bias_type": "socioeconomic", "direction": "antistereo"}
//! ```
//!
//! ```
//! use bias_data::pairs::read_pairs_jsonl;
//! use bias_core::Direction;
//!
//! let jsonl = r#"{"id": 2, "stereo": "The rich are kind.", "anti": "The poor are kind.", "bias_type": "socioeconomic", "direction": "antistereo"}"#;
//! let pairs = read_pairs_jsonl(jsonl.as_bytes(), "mine.jsonl")?;
//! assert_eq!(pairs[0].id, "2");
//! assert_eq!(pairs[0].direction, Direction::Antistereo);
//! # Ok::<(), bias_data::DataError>(())
//! ```
//!
//! # Errors
//!
//! Every error names the file and the 1-based line: a wrong number of CSV fields or invalid
//! UTF-8 ([`CoreError::Csv`] for CSV, [`DataError::InvalidRecord`] for JSON lines), a missing
//! column ([`CoreError::MissingColumn`]) or key ([`DataError::InvalidRecord`]), an empty sentence
//! ([`CoreError::EmptySentence`]), an unknown direction, empty id or bias type or a value of the
//! wrong JSON type ([`CoreError::InvalidField`]), a malformed JSON line
//! ([`DataError::MalformedJson`]) or a repeated id ([`DataError::InvalidRecord`]).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use bias_core::{BiasType, CoreError, Direction, SentencePair};
use serde_json::Value;

use crate::util::{
    csv_error, csv_with_header, invalid, read_all, read_file, source_name, utf8_lines,
    without_lines,
};
use crate::DataError;

/// The required fields of the generic format.
pub const PAIR_REQUIRED_FIELDS: [&str; 4] = ["id", "stereo", "anti", "bias_type"];

/// The optional fields of the generic format.
pub const PAIR_OPTIONAL_FIELDS: [&str; 2] = ["direction", "group_id"];

/// The two encodings of the generic format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PairFormat {
    /// CSV with a header line.
    Csv,
    /// One JSON object per line.
    JsonLines,
}

impl PairFormat {
    /// The format a file name implies: `.csv` → CSV; `.jsonl`, `.ndjson`, `.json` → JSON lines
    /// (case-insensitive); anything else → `None`.
    pub fn from_path(path: impl AsRef<Path>) -> Option<Self> {
        let ext = path.as_ref().extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "csv" => Some(PairFormat::Csv),
            "jsonl" | "ndjson" | "json" => Some(PairFormat::JsonLines),
            _ => None,
        }
    }
}

/// Reads pairs in the generic format from a file, choosing CSV or JSON lines by extension.
///
/// # Errors
/// [`DataError::UnsupportedFormat`] for another extension, [`CoreError::Io`] if the file cannot
/// be read, otherwise as [`read_pairs_csv`] / [`read_pairs_jsonl`].
pub fn read_pairs_path(path: impl AsRef<Path>) -> Result<Vec<SentencePair>, DataError> {
    let path = path.as_ref();
    let format = PairFormat::from_path(path).ok_or_else(|| DataError::UnsupportedFormat {
        path: path.to_owned(),
        message: "pair files must end in .csv, .jsonl, .ndjson or .json".to_owned(),
    })?;
    let bytes = read_file(path)?;
    let name = source_name(path);
    match format {
        PairFormat::Csv => read_pairs_csv(bytes.as_slice(), &name),
        PairFormat::JsonLines => read_pairs_jsonl(bytes.as_slice(), &name),
    }
}

/// Reads pairs from CSV in the generic format. `source_name` labels the input in errors.
///
/// # Errors
/// See the module docs.
pub fn read_pairs_csv(
    reader: impl Read,
    source_name: &str,
) -> Result<Vec<SentencePair>, DataError> {
    read_pairs_csv_at(&read_all(reader, source_name)?, source_name).map(without_lines)
}

/// Reads pairs from JSON lines in the generic format. `source_name` labels the input in errors.
///
/// # Errors
/// [`CoreError::Io`] if reading fails; otherwise see the module docs.
pub fn read_pairs_jsonl(
    reader: impl Read,
    source_name: &str,
) -> Result<Vec<SentencePair>, DataError> {
    read_pairs_jsonl_at(&read_all(reader, source_name)?, source_name).map(without_lines)
}

/// [`read_pairs_csv`] on the file's bytes, each pair with its (first) line.
pub(crate) fn read_pairs_csv_at(
    bytes: &[u8],
    source_name: &str,
) -> Result<Vec<(SentencePair, u64)>, DataError> {
    let (mut csv, header, lines) = csv_with_header(bytes, source_name)?;
    let names: Vec<&str> = header
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').trim())
        .collect();
    let find = |c: &str| names.iter().position(|n| *n == c);
    let mut required = [0usize; 4];
    for (slot, column) in required.iter_mut().zip(PAIR_REQUIRED_FIELDS) {
        *slot = find(column).ok_or_else(|| CoreError::MissingColumn {
            source_name: source_name.to_owned(),
            column: column.to_owned(),
            expected: format!(
                "{} (optional: {})",
                PAIR_REQUIRED_FIELDS.join(", "),
                PAIR_OPTIONAL_FIELDS.join(", ")
            ),
        })?;
    }
    let direction_col = find("direction");
    let group_col = find("group_id");

    let mut ids = IdChecker::default();
    let mut pairs = Vec::new();
    for record in csv.records() {
        let record = record.map_err(|e| csv_error(source_name, e))?;
        let line = lines.of_record(&record);
        let get = |i: usize| record.get(i).unwrap_or("");
        let raw = RawPair {
            id: get(required[0]).to_owned(),
            stereo: get(required[1]).to_owned(),
            anti: get(required[2]).to_owned(),
            bias_type: get(required[3]).to_owned(),
            direction: direction_col.map(|i| get(i).to_owned()),
            group_id: group_col.map(|i| get(i).to_owned()),
        };
        let pair = raw.into_pair(source_name, line)?;
        ids.check(&pair.id, source_name, line)?;
        pairs.push((pair, line));
    }
    Ok(pairs)
}

/// [`read_pairs_jsonl`] on the file's bytes, each pair with its (first) line.
pub(crate) fn read_pairs_jsonl_at(
    bytes: &[u8],
    source_name: &str,
) -> Result<Vec<(SentencePair, u64)>, DataError> {
    let mut ids = IdChecker::default();
    let mut pairs = Vec::new();
    let mut first_text: Option<String> = None;
    for item in utf8_lines(bytes, source_name) {
        let (line, text) = item?;
        if text.trim().is_empty() {
            continue;
        }
        let first = first_text.get_or_insert_with(|| text.trim_start().to_owned());
        let value: Value = serde_json::from_str(text).map_err(|source| {
            let expected = if first.starts_with('[') {
                "this format is JSON lines (one object per line), not a JSON array"
            } else {
                "each line must be one JSON object with keys id, stereo, anti, bias_type"
            };
            DataError::MalformedJson {
                path: source_name.into(),
                line,
                column: source.column(),
                expected: expected.to_owned(),
                source,
            }
        })?;
        let raw = RawPair::from_json(&value, source_name, line)?;
        let pair = raw.into_pair(source_name, line)?;
        ids.check(&pair.id, source_name, line)?;
        pairs.push((pair, line));
    }
    Ok(pairs)
}

/// The text fields of one record, before validation.
struct RawPair {
    id: String,
    stereo: String,
    anti: String,
    bias_type: String,
    direction: Option<String>,
    group_id: Option<String>,
}

impl RawPair {
    fn from_json(value: &Value, source_name: &str, line: u64) -> Result<Self, DataError> {
        let obj = value.as_object().ok_or_else(|| {
            let found = if value.is_array() {
                "found a JSON array; this format is JSON lines (one object per line), not a JSON \
                 array"
            } else {
                "found a JSON value that is not an object"
            };
            invalid(
                source_name,
                format!("line {line}"),
                format!("expected a JSON object with keys id, stereo, anti, bias_type; {found}"),
            )
        })?;
        let wrong_type = |key: &str, v: &Value, expected: &str| -> DataError {
            CoreError::invalid_field(source_name, line, key, &v.to_string(), expected).into()
        };
        let required = |key: &str| -> Result<&Value, DataError> {
            obj.get(key).ok_or_else(|| {
                invalid(
                    source_name,
                    format!("line {line}"),
                    format!(
                        "missing key `{key}`; every line needs {}",
                        PAIR_REQUIRED_FIELDS.join(", ")
                    ),
                )
            })
        };
        let string = |key: &str| -> Result<String, DataError> {
            match required(key)? {
                Value::String(s) => Ok(s.clone()),
                v => Err(wrong_type(key, v, "a string")),
            }
        };
        // An id or group id may be a string or an integer.
        let id_like = |key: &str, v: &Value| -> Result<String, DataError> {
            match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) if n.is_i64() || n.is_u64() => Ok(n.to_string()),
                v => Err(wrong_type(key, v, "a string or an integer")),
            }
        };
        let direction = match obj.get("direction") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => return Err(wrong_type("direction", v, "`stereo` or `antistereo`")),
        };
        let group_id = match obj.get("group_id") {
            None | Some(Value::Null) => None,
            Some(v) => Some(id_like("group_id", v)?),
        };
        Ok(RawPair {
            id: id_like("id", required("id")?)?,
            stereo: string("stereo")?,
            anti: string("anti")?,
            bias_type: string("bias_type")?,
            direction,
            group_id,
        })
    }

    fn into_pair(self, source_name: &str, line: u64) -> Result<SentencePair, DataError> {
        let bad = |column: &str, value: &str, expected: &str| -> DataError {
            CoreError::invalid_field(source_name, line, column, value, expected).into()
        };
        let id = self.id.trim();
        if id.is_empty() {
            return Err(bad("id", &self.id, "a non-empty id"));
        }
        for (column, text) in [("stereo", &self.stereo), ("anti", &self.anti)] {
            if text.trim().is_empty() {
                return Err(CoreError::EmptySentence {
                    source_name: source_name.to_owned(),
                    line,
                    column: column.to_owned(),
                }
                .into());
            }
        }
        let bias_type = self.bias_type.parse::<BiasType>().map_err(|_| {
            bad(
                "bias_type",
                &self.bias_type,
                "a non-empty bias-type label such as `gender`",
            )
        })?;
        let direction = match self.direction.as_deref().map(str::trim) {
            None | Some("") => Direction::Stereo,
            Some(d) => d.parse::<Direction>().map_err(|_| {
                bad(
                    "direction",
                    d,
                    "`stereo` or `antistereo` (or an empty cell for `stereo`)",
                )
            })?,
        };
        let group_id = self
            .group_id
            .map(|g| g.trim().to_owned())
            .filter(|g| !g.is_empty());
        Ok(SentencePair {
            id: id.to_owned(),
            stereo: self.stereo,
            anti: self.anti,
            bias_type,
            direction,
            group_id,
        })
    }
}

/// Rejects a repeated pair id, naming both lines.
#[derive(Default)]
struct IdChecker {
    seen: HashMap<String, u64>,
}

impl IdChecker {
    fn check(&mut self, id: &str, source_name: &str, line: u64) -> Result<(), DataError> {
        if let Some(first) = self.seen.insert(id.to_owned(), line) {
            return Err(invalid(
                source_name,
                format!("line {line}"),
                format!(
                    "id {id:?} already used on line {first}; give every pair its own id \
                     (use group_id to tie paraphrases together)"
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_with_optional_columns_and_defaults() {
        let csv = "\u{feff}bias_type,id,stereo,anti,direction,group_id,note\n\
                   gender,1,Women are bad at math.,Men are bad at math.,,,x\n\
                   Race_Color,1-p1,\"A, b.\",\"C, d.\",antistereo,1,y\n";
        let pairs = read_pairs_csv(csv.as_bytes(), "mine.csv").unwrap();
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[0].id, "1");
        assert_eq!(pairs[0].stereo, "Women are bad at math.");
        assert_eq!(pairs[0].anti, "Men are bad at math.");
        assert_eq!(pairs[0].bias_type, BiasType::Gender);
        assert_eq!(pairs[0].direction, Direction::Stereo);
        assert_eq!(pairs[0].group_id, None);
        assert_eq!(pairs[1].stereo, "A, b.");
        assert_eq!(pairs[1].bias_type, BiasType::RaceColor);
        assert_eq!(pairs[1].direction, Direction::Antistereo);
        assert_eq!(pairs[1].group_id.as_deref(), Some("1"));
    }

    #[test]
    fn csv_without_optional_columns() {
        let csv = "id,stereo,anti,bias_type\n7,a,b,caste\n";
        let pairs = read_pairs_csv(csv.as_bytes(), "mine.csv").unwrap();
        assert_eq!(pairs[0].bias_type, BiasType::Other("caste".into()));
        assert_eq!(pairs[0].direction, Direction::Stereo);
    }

    #[test]
    fn jsonl_accepts_integer_ids_nulls_and_blank_lines() {
        let jsonl = "{\"id\": 3, \"stereo\": \"a\", \"anti\": \"b\", \"bias_type\": \"age\", \"group_id\": 9}\r\n\
                     \n\
                     {\"id\": \"x\", \"stereo\": \"c\", \"anti\": \"d\", \"bias_type\": \"age\", \"direction\": null, \"group_id\": null, \"extra\": 1}\n";
        let pairs = read_pairs_jsonl(jsonl.as_bytes(), "m.jsonl").unwrap();
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[0].id, "3");
        assert_eq!(pairs[0].group_id.as_deref(), Some("9"));
        assert_eq!(pairs[1].id, "x");
        assert_eq!(pairs[1].direction, Direction::Stereo);
        assert_eq!(pairs[1].group_id, None);
    }

    #[test]
    fn jsonl_rejects_wrong_types_missing_keys_arrays_and_repeated_ids() {
        let e = read_pairs_jsonl(
            "{\"id\": 1, \"stereo\": 5, \"anti\": \"b\", \"bias_type\": \"age\"}".as_bytes(),
            "m.jsonl",
        )
        .unwrap_err();
        assert!(matches!(
            e,
            DataError::Core(CoreError::InvalidField { ref column, line: 1, .. }) if column == "stereo"
        ));
        let e = read_pairs_jsonl(
            "{\"id\": 1, \"stereo\": \"a\", \"bias_type\": \"age\"}".as_bytes(),
            "m.jsonl",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.jsonl, line 1: missing key `anti`; every line needs id, stereo, anti, bias_type"
        );
        let e = read_pairs_jsonl("[{\"id\": 1}]".as_bytes(), "m.json").unwrap_err();
        assert!(e.to_string().contains("not a JSON array"), "{e}");
        let two = "{\"id\": 1, \"stereo\": \"a\", \"anti\": \"b\", \"bias_type\": \"age\"}\n";
        let e = read_pairs_jsonl(format!("{two}{two}").as_bytes(), "m.jsonl").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("m.jsonl, line 2: id \"1\" already used on line 1"),
            "{e}"
        );
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(PairFormat::from_path("a/b.CSV"), Some(PairFormat::Csv));
        assert_eq!(
            PairFormat::from_path("b.jsonl"),
            Some(PairFormat::JsonLines)
        );
        assert_eq!(PairFormat::from_path("b.json"), Some(PairFormat::JsonLines));
        assert_eq!(
            PairFormat::from_path("b.ndjson"),
            Some(PairFormat::JsonLines)
        );
        assert_eq!(PairFormat::from_path("b.tsv"), None);
        assert_eq!(PairFormat::from_path("b"), None);
    }
}
