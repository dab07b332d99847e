//! English word frequencies from the `wordfreq` package (Robyn Speer, 2022; PyPI `wordfreq`
//! 3.1.1, data CC BY-SA 4.0, code Apache-2.0), the stand-in this workspace uses for the
//! Wikipedia + BookCorpus counts of Kaneko & Bollegala (2022), Table 2.
//!
//! The file is wordfreq's "cBpack": a gzip'd MessagePack list whose first element is the header
//! `{"format": "cB", "version": 1}` and whose element `i + 1` lists the words whose frequency,
//! rounded to the nearest centibel, is `10^(-i/100)` (wordfreq's `read_cBpack` and
//! `get_frequency_dict`). `scripts/setup.sh` puts `large_en.msgpack.gz` under
//! `data/wordfreq/` ([`default_path`]), with the package's licence next to it.
//!
//! ```no_run
//! let freqs = bias_data::wordfreq::WordFrequencies::read_path(
//!     bias_data::wordfreq::default_path("data"),
//! )?;
//! assert!(freqs.frequency("the").unwrap() > freqs.frequency("tyrone").unwrap());
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use rmpv::Value;

use crate::DataError;

/// Where `scripts/setup.sh` puts wordfreq's large English list under a data directory:
/// `<data_dir>/wordfreq/large_en.msgpack.gz`.
pub fn default_path(data_dir: impl AsRef<Path>) -> PathBuf {
    data_dir
        .as_ref()
        .join("wordfreq")
        .join("large_en.msgpack.gz")
}

/// A wordfreq frequency list: each word's frequency bucket (its frequency is `10^(-bucket/100)`,
/// wordfreq's centibel scale).
#[derive(Debug, Clone, Default)]
pub struct WordFrequencies {
    buckets: HashMap<String, u32>,
}

impl WordFrequencies {
    /// Reads a gzip'd cBpack file (`large_en.msgpack.gz`).
    ///
    /// # Errors
    /// [`DataError::WordFrequencies`] naming the file if it cannot be opened, is not gzip, is not
    /// MessagePack, or is not wordfreq's cBpack version 1.
    pub fn read_path(path: impl AsRef<Path>) -> Result<Self, DataError> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| DataError::WordFrequencies {
            path: path.to_path_buf(),
            message: format!(
                "cannot open the word frequency list ({e}); run `bash scripts/setup.sh` to \
                 fetch wordfreq's data into data/wordfreq/"
            ),
        })?;
        Self::read_gzip(file, path)
    }

    /// Reads a gzip'd cBpack from `reader`; `path` names it in errors.
    ///
    /// # Errors
    /// As [`WordFrequencies::read_path`].
    pub fn read_gzip(reader: impl Read, path: &Path) -> Result<Self, DataError> {
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(reader)
            .read_to_end(&mut bytes)
            .map_err(|e| bad(path, format!("not a readable gzip file ({e})")))?;
        Self::from_msgpack(&bytes, path)
    }

    /// Decodes an uncompressed cBpack; `path` names it in errors.
    ///
    /// # Errors
    /// As [`WordFrequencies::read_path`].
    pub fn from_msgpack(bytes: &[u8], path: &Path) -> Result<Self, DataError> {
        let mut slice = bytes;
        let value = rmpv::decode::read_value(&mut slice)
            .map_err(|e| bad(path, format!("not MessagePack ({e})")))?;
        let Value::Array(items) = value else {
            return Err(bad(path, "the top level is not a list".into()));
        };
        let Some((header, buckets)) = items.split_first() else {
            return Err(bad(path, "the list is empty (no header)".into()));
        };
        let field = |name: &str| match header {
            Value::Map(m) => m
                .iter()
                .find(|(k, _)| k.as_str() == Some(name))
                .map(|(_, v)| v.clone()),
            _ => None,
        };
        if field("format").as_ref().and_then(Value::as_str) != Some("cB")
            || field("version").as_ref().and_then(Value::as_u64) != Some(1)
        {
            return Err(bad(
                path,
                format!(
                    "unexpected header {header}; expected {{\"format\": \"cB\", \"version\": 1}}"
                ),
            ));
        }
        let mut map = HashMap::new();
        for (index, bucket) in buckets.iter().enumerate() {
            let Value::Array(words) = bucket else {
                return Err(bad(path, format!("bucket {index} is not a list of words")));
            };
            let index = u32::try_from(index)
                .map_err(|_| bad(path, format!("too many buckets ({})", buckets.len())))?;
            for word in words {
                let Some(w) = word.as_str() else {
                    return Err(bad(
                        path,
                        format!("bucket {index} holds a non-string {word}"),
                    ));
                };
                // As wordfreq's get_frequency_dict: a later (rarer) bucket overwrites.
                map.insert(w.to_owned(), index);
            }
        }
        Ok(Self { buckets: map })
    }

    /// The word's bucket `i` (frequency `10^(-i/100)`), or `None` if the list lacks it. Smaller
    /// is more frequent.
    pub fn bucket(&self, word: &str) -> Option<u32> {
        self.buckets.get(word).copied()
    }

    /// The word's frequency `10^(-bucket/100)` (a probability per token), or `None`.
    pub fn frequency(&self, word: &str) -> Option<f64> {
        self.bucket(word).map(|i| 10f64.powf(-f64::from(i) / 100.0))
    }

    /// How many words the list has.
    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    /// `true` for an empty list.
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }
}

fn bad(path: &Path, message: String) -> DataError {
    DataError::WordFrequencies {
        path: path.to_path_buf(),
        message: format!("{message}; expected wordfreq's cBpack (run `bash scripts/setup.sh`)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    fn pack(items: Vec<Value>) -> Vec<u8> {
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &Value::Array(items)).unwrap();
        out
    }

    fn header() -> Value {
        Value::Map(vec![
            (Value::from("format"), Value::from("cB")),
            (Value::from("version"), Value::from(1)),
        ])
    }

    #[test]
    fn red_fish_blue_fish() {
        // wordfreq's own example: fish at -30 cB, blue and red at -60 cB.
        let mut items = vec![header()];
        items.extend((0..61).map(|i| match i {
            30 => Value::Array(vec!["fish".into()]),
            60 => Value::Array(vec!["blue".into(), "red".into()]),
            _ => Value::Array(vec![]),
        }));
        let f = WordFrequencies::from_msgpack(&pack(items), Path::new("x")).unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(f.bucket("fish"), Some(30));
        assert_eq!(f.bucket("red"), Some(60));
        assert_abs_diff_eq!(
            f.frequency("fish").unwrap(),
            10f64.powf(-0.3),
            epsilon = 1e-12
        );
        assert_abs_diff_eq!(f.frequency("blue").unwrap(), 0.251_188_643, epsilon = 1e-8);
        assert_eq!(f.frequency("cat"), None);
    }

    #[test]
    fn bad_files_name_the_file() {
        let p = Path::new("dir/freq.msgpack.gz");
        let wrong = pack(vec![Value::Map(vec![(
            Value::from("format"),
            Value::from("x"),
        )])]);
        for (bytes, what) in [
            (wrong, "unexpected header"),
            (pack(vec![]), "empty"),
            (pack(vec![header(), Value::from(3)]), "bucket 0"),
            (vec![0x92], "not MessagePack"),
            (vec![0x01], "not a list"),
        ] {
            let e = WordFrequencies::from_msgpack(&bytes, p)
                .unwrap_err()
                .to_string();
            assert!(e.contains("dir/freq.msgpack.gz") && e.contains(what), "{e}");
        }
        let e = WordFrequencies::read_gzip(&b"not gzip"[..], p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gzip"), "{e}");
        let e = WordFrequencies::read_path("/nonexistent/x.gz")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/nonexistent/x.gz") && e.contains("setup.sh"),
            "{e}"
        );
    }
}
