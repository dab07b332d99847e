//! Loading any supported pair file by recognising its format.
//!
//! [`load_pairs`] recognises
//!
//! - a CrowS-Pairs CSV (a `.csv` whose header has `sent_more`, `sent_less` and
//!   `stereo_antistereo`): every row, `stereo` = `sent_more`, `anti` = `sent_less`;
//! - a StereoSet file (a `.json` holding an object with a `data` key): the intrasentence
//!   (stereotype, anti-stereotype) pairs, with both sections' counts kept for [`Dataset::stats`];
//! - otherwise the generic format of [`crate::pairs`] (`.csv`, `.jsonl`, `.ndjson`, `.json`).

use std::fmt;
use std::path::{Path, PathBuf};

use bias_core::SentencePair;
use serde::{Deserialize, Serialize};

use crate::counts::{counts, DatasetStats, SectionStats};
use crate::stereoset::Section;
use crate::util::{read_file, source_name};
use crate::{crows_pairs, pairs, stereoset, DataError};

/// Which format a file was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DatasetKind {
    /// The CrowS-Pairs CSV.
    CrowsPairs,
    /// The StereoSet JSON (intrasentence pairs).
    StereoSet,
    /// The generic pair format, CSV.
    GenericCsv,
    /// The generic pair format, JSON lines.
    GenericJsonLines,
    /// WinoBias's aligned pro- and anti-stereotyped files ([`crate::winobias`]).
    WinoBias,
}

impl DatasetKind {
    /// A short label (`crows-pairs`, `stereoset`, `generic-csv`, `generic-json-lines`).
    pub fn as_str(self) -> &'static str {
        match self {
            DatasetKind::CrowsPairs => "crows-pairs",
            DatasetKind::StereoSet => "stereoset",
            DatasetKind::GenericCsv => "generic-csv",
            DatasetKind::GenericJsonLines => "generic-json-lines",
            DatasetKind::WinoBias => "winobias",
        }
    }
}

impl fmt::Display for DatasetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The pairs of a file, with the data set's name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dataset {
    /// `crows-pairs`, `stereoset`, or (generic files) the file stem; use it as the score
    /// table's `dataset` column.
    pub name: String,
    /// The format the file was read as.
    pub kind: DatasetKind,
    /// The pairs, in file order.
    pub pairs: Vec<SentencePair>,
    /// Per-section counts of the file (StereoSet's intrasentence and intersentence); empty for
    /// files without sections.
    pub sections: Vec<SectionStats>,
    /// Where each pair's sentences are in the files read, one per pair in the same order (for
    /// errors that name the file and line: [`Dataset::origin`]).
    #[serde(default)]
    pub origins: Vec<PairOrigin>,
}

/// A place in a data file: the file and, where its format has lines, the (first) line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The file.
    pub file: PathBuf,
    /// The 1-based line (`None` for a JSON document such as StereoSet's).
    pub line: Option<u64>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}, line {line}", self.file.display()),
            None => write!(f, "{}", self.file.display()),
        }
    }
}

/// Where a pair's two sentences are (WinoBias reads them from two files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairOrigin {
    /// The stereotypical sentence's place.
    pub stereo: Origin,
    /// The anti-stereotypical sentence's place.
    pub anti: Origin,
}

impl PairOrigin {
    /// Both sentences at `line` of `file` (one row of a pair file), or in the JSON document
    /// `file` when `line` is `None`.
    pub fn row(file: &Path, line: Option<u64>) -> Self {
        let at = Origin {
            file: file.to_path_buf(),
            line,
        };
        PairOrigin {
            stereo: at.clone(),
            anti: at,
        }
    }

    /// The place of `side` (`stereo` or `anti`, as scorers name a sentence).
    pub fn side(&self, side: &str) -> &Origin {
        if side == "anti" {
            &self.anti
        } else {
            &self.stereo
        }
    }
}

impl Dataset {
    /// Counts of the pairs (see [`counts`]) plus the file's sections.
    pub fn stats(&self) -> DatasetStats {
        DatasetStats {
            sections: self.sections.clone(),
            ..counts(&self.pairs)
        }
    }

    /// Where the pair numbered `number` (1-based, in file order, as
    /// `bias_core::run::RunError::Unscorable` numbers it) came from.
    pub fn origin(&self, number: usize) -> Option<&PairOrigin> {
        self.origins.get(number.checked_sub(1)?)
    }
}

/// The pairs a data-set argument names: `winobias-type{1,2}-{dev,test}` (WinoBias, read from
/// `data_dir` by [`crate::winobias::read_winobias_pairs`]), or any name
/// [`crate::layout::resolve_dataset`] resolves (`crows-pairs`, `stereoset`, `stereoset-test`, a
/// path), read by [`load_pairs`].
///
/// ```no_run
/// let set = bias_data::load_named("winobias-type1-dev", "data")?;
/// assert_eq!(set.pairs.len(), 396);
/// # Ok::<(), bias_data::DataError>(())
/// ```
///
/// # Errors
/// Those of the reader concerned.
pub fn load_named(name: &str, data_dir: impl AsRef<Path>) -> Result<Dataset, DataError> {
    if name.starts_with("winobias-") {
        let set: crate::winobias::WinoBiasSet = name.parse()?;
        let (pairs, origins) = crate::winobias::read_winobias_pairs_at(data_dir, set)?;
        return Ok(Dataset {
            name: set.to_string(),
            kind: DatasetKind::WinoBias,
            pairs,
            sections: Vec::new(),
            origins,
        });
    }
    load_pairs(crate::layout::resolve_dataset(name, data_dir))
}

/// Loads the sentence pairs of a CrowS-Pairs CSV, a StereoSet JSON or a generic pair file (see
/// the module docs).
///
/// # Errors
/// [`bias_core::CoreError::Io`] if the file cannot be read, [`DataError::UnsupportedFormat`] for
/// an extension other than `.csv`, `.json`, `.jsonl`, `.ndjson`, otherwise the errors of the
/// loader chosen.
pub fn load_pairs(path: impl AsRef<Path>) -> Result<Dataset, DataError> {
    let path = path.as_ref();
    let format =
        pairs::PairFormat::from_path(path).ok_or_else(|| DataError::UnsupportedFormat {
            path: path.to_owned(),
            message: "expected a CrowS-Pairs .csv, a StereoSet .json, or a generic pair file \
                  (.csv, .jsonl, .ndjson, .json)"
                .to_owned(),
        })?;
    let bytes = read_file(path)?;
    let name = source_name(path);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let json_ext = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let rows = |located: Vec<(SentencePair, u64)>| -> (Vec<SentencePair>, Vec<PairOrigin>) {
        located
            .into_iter()
            .map(|(pair, line)| (pair, PairOrigin::row(path, Some(line))))
            .unzip()
    };
    let (name, kind, (pairs, origins), sections) = match format {
        pairs::PairFormat::Csv if csv_header_is_crows(&bytes) => {
            let located = crows_pairs::read_crows_pairs_at(&bytes, &name)?;
            let located = located.into_iter().map(|(r, l)| (SentencePair::from(r), l));
            let pairs = rows(located.collect());
            (
                "crows-pairs".to_owned(),
                DatasetKind::CrowsPairs,
                pairs,
                Vec::new(),
            )
        }
        pairs::PairFormat::Csv => {
            let pairs = rows(pairs::read_pairs_csv_at(&bytes, &name)?);
            (stem, DatasetKind::GenericCsv, pairs, Vec::new())
        }
        pairs::PairFormat::JsonLines if json_ext && looks_like_stereoset(&bytes) => {
            let set = stereoset::read_stereoset(bytes.as_slice(), &name)?;
            let pairs = set.pairs(Section::Intrasentence)?;
            let origins = vec![PairOrigin::row(path, None); pairs.len()];
            let sections = set.section_stats();
            (
                "stereoset".to_owned(),
                DatasetKind::StereoSet,
                (pairs, origins),
                sections,
            )
        }
        pairs::PairFormat::JsonLines => {
            let pairs = rows(pairs::read_pairs_jsonl_at(&bytes, &name)?);
            (stem, DatasetKind::GenericJsonLines, pairs, Vec::new())
        }
    };
    Ok(Dataset {
        name,
        kind,
        pairs,
        sections,
        origins,
    })
}

/// `true` if the first CSV record of `bytes` is a CrowS-Pairs header.
fn csv_header_is_crows(bytes: &[u8]) -> bool {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(bytes);
    reader
        .headers()
        .is_ok_and(|h| crows_pairs::is_crows_pairs_header(h.iter()))
}

/// `true` if the first JSON value of `bytes` is an object with a `data` key (StereoSet), or if
/// its first 64 KiB name StereoSet's `intrasentence` section (so that a damaged StereoSet file
/// gets StereoSet's parse error, with its position, rather than the generic format's).
fn looks_like_stereoset(bytes: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(default)]
        data: Option<serde::de::IgnoredAny>,
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let head = &bytes[..bytes.len().min(1 << 16)];
    if head.windows(15).any(|w| w == b"\"intrasentence\"") {
        return true;
    }
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Probe>();
    matches!(stream.next(), Some(Ok(Probe { data: Some(_) })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes() {
        assert!(looks_like_stereoset(br#"{"version": "1", "data": {}}"#));
        assert!(!looks_like_stereoset(
            br#"{"id": 1, "stereo": "a", "anti": "b", "bias_type": "age"}"#
        ));
        assert!(!looks_like_stereoset(b"not json"));
        // A truncated StereoSet file is still recognised as one.
        assert!(looks_like_stereoset(
            br#"{"version": "1.0-dev", "data": {"intrasentence": [{"id": "#
        ));
        assert!(csv_header_is_crows(
            b",sent_more,sent_less,stereo_antistereo,bias_type\n"
        ));
        assert!(!csv_header_is_crows(b"id,stereo,anti,bias_type\n"));
    }
}
