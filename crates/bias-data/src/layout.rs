//! Where the benchmark files sit under a data directory, as `scripts/fetch_data.py` lays them
//! out (`scripts/data-manifest.tsv`). Library, CLI and examples find the files through these
//! names only.
//!
//! ```
//! use std::path::Path;
//! use bias_data::bbq::BbqCategory;
//! use bias_data::winobias::WinoBiasSet;
//!
//! assert_eq!(
//!     bias_data::layout::crows_pairs("data"),
//!     Path::new("data/crows-pairs/crows_pairs_anonymized.csv"),
//! );
//! assert_eq!(
//!     bias_data::layout::stereoset_dev("data"),
//!     Path::new("data/stereoset/dev.json"),
//! );
//! assert_eq!(
//!     bias_data::layout::bbq_category("data", BbqCategory::RaceXSes),
//!     Path::new("data/bbq/Race_x_SES.jsonl"),
//! );
//! assert_eq!(
//!     bias_data::layout::winogender_templates("data"),
//!     Path::new("data/winogender/templates.tsv"),
//! );
//! let set: WinoBiasSet = "winobias-type2-test".parse()?;
//! assert_eq!(
//!     bias_data::layout::winobias_file("data", set, false),
//!     Path::new("data/winobias/anti_stereotyped_type2.txt.test"),
//! );
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::util::invalid;
use crate::DataError;

/// The data directory the CLI reads when none is given (`data`, relative to the working
/// directory).
pub const DEFAULT_DATA_DIR: &str = "data";

/// The CrowS-Pairs CSV (Nangia et al. 2020), relative to the data directory.
pub const CROWS_PAIRS: &str = "crows-pairs/crows_pairs_anonymized.csv";

/// The StereoSet dev JSON (Nadeem et al. 2021), relative to the data directory.
pub const STEREOSET_DEV: &str = "stereoset/dev.json";

/// The CrowS-Pairs CSV under `data_dir` (`<data_dir>/crows-pairs/crows_pairs_anonymized.csv`),
/// read by [`crate::load_pairs`] or [`crate::crows_pairs::read_crows_pairs_path`].
pub fn crows_pairs(data_dir: impl AsRef<Path>) -> PathBuf {
    data_dir.as_ref().join(CROWS_PAIRS)
}

/// The StereoSet dev JSON under `data_dir` (`<data_dir>/stereoset/dev.json`), read by
/// [`crate::load_pairs`] or [`crate::stereoset::read_stereoset_path`].
pub fn stereoset_dev(data_dir: impl AsRef<Path>) -> PathBuf {
    data_dir.as_ref().join(STEREOSET_DEV)
}

/// StereoSet's test split (Nadeem et al. 2021), relative to the data directory.
pub const STEREOSET_TEST: &str = "stereoset/test.json";

/// The folder of BBQ's category files and metadata (Parrish et al. 2022).
pub const BBQ: &str = "bbq";

/// The folder of Winogender's files (Rudinger et al. 2018).
pub const WINOGENDER: &str = "winogender";

/// The folder of WinoBias's files (Zhao et al. 2018).
pub const WINOBIAS: &str = "winobias";

/// The StereoSet test JSON under `data_dir` (`<data_dir>/stereoset/test.json`; Nadeem et al.
/// 2021), read by [`crate::stereoset::read_stereoset_path`] (both sections).
pub fn stereoset_test(data_dir: impl AsRef<Path>) -> PathBuf {
    data_dir.as_ref().join(STEREOSET_TEST)
}

/// BBQ's `additional_metadata.csv` (the authors' target locations), relative to BBQ's folder.
pub const BBQ_METADATA_FILE: &str = "additional_metadata.csv";

/// BBQ's folder (`<data_dir>/bbq`: the eleven `<Category>.jsonl` files and
/// `additional_metadata.csv`; Parrish et al. 2022), read by [`crate::bbq::read_bbq_dir`].
pub fn bbq_dir(data_dir: impl AsRef<Path>) -> PathBuf {
    data_dir.as_ref().join(BBQ)
}

/// A BBQ category file (`<data_dir>/bbq/<Category>.jsonl`), read by
/// [`crate::bbq::read_bbq_category`] or [`crate::bbq::read_bbq_path`].
pub fn bbq_category(data_dir: impl AsRef<Path>, category: crate::bbq::BbqCategory) -> PathBuf {
    bbq_dir(data_dir).join(category.file_name())
}

/// BBQ's `additional_metadata.csv` (`<data_dir>/bbq/additional_metadata.csv`), read by
/// [`crate::bbq::read_bbq_metadata_path`].
pub fn bbq_metadata(data_dir: impl AsRef<Path>) -> PathBuf {
    bbq_dir(data_dir).join(BBQ_METADATA_FILE)
}

/// Winogender's sentences (Rudinger et al. 2018), relative to its folder.
pub const WINOGENDER_SENTENCES_FILE: &str = "all_sentences.tsv";

/// Winogender's templates, relative to its folder.
pub const WINOGENDER_TEMPLATES_FILE: &str = "templates.tsv";

/// Winogender's occupation statistics (Bergsma & Lin 2006 and the U.S. Bureau of Labor
/// Statistics), relative to its folder.
pub const WINOGENDER_STATS_FILE: &str = "occupations-stats.tsv";

/// Winogender's folder (`<data_dir>/winogender`), read by
/// [`crate::winogender::read_winogender_dir`].
pub fn winogender_dir(data_dir: impl AsRef<Path>) -> PathBuf {
    data_dir.as_ref().join(WINOGENDER)
}

/// Winogender's `all_sentences.tsv` (`<data_dir>/winogender/all_sentences.tsv`).
pub fn winogender_sentences(data_dir: impl AsRef<Path>) -> PathBuf {
    winogender_dir(data_dir).join(WINOGENDER_SENTENCES_FILE)
}

/// Winogender's `templates.tsv` (`<data_dir>/winogender/templates.tsv`).
pub fn winogender_templates(data_dir: impl AsRef<Path>) -> PathBuf {
    winogender_dir(data_dir).join(WINOGENDER_TEMPLATES_FILE)
}

/// Winogender's `occupations-stats.tsv` (`<data_dir>/winogender/occupations-stats.tsv`).
pub fn winogender_stats(data_dir: impl AsRef<Path>) -> PathBuf {
    winogender_dir(data_dir).join(WINOGENDER_STATS_FILE)
}

/// A WinoBias file (Zhao et al. 2018):
/// `<data_dir>/winobias/{pro,anti}_stereotyped_type{1,2}.txt.{dev,test}`, the pro-stereotyped one
/// if `pro`, else the anti-stereotyped one; read by [`crate::winobias::read_winobias_lines`], and
/// paired by [`crate::winobias::read_winobias_pairs`].
pub fn winobias_file(
    data_dir: impl AsRef<Path>,
    set: crate::winobias::WinoBiasSet,
    pro: bool,
) -> PathBuf {
    data_dir.as_ref().join(WINOBIAS).join(format!(
        "{}_stereotyped_{}.txt.{}",
        if pro { "pro" } else { "anti" },
        set.kind.name(),
        set.split.name()
    ))
}

/// The file a data-set argument names: `crows-pairs`, `stereoset` (the intrasentence dev set) and
/// `stereoset-test` under `data_dir`, anything else a path to a pair file (CrowS-Pairs CSV, StereoSet JSON, or a
/// generic CSV / JSONL pair file).
///
/// ```
/// use std::path::Path;
/// use bias_data::layout::resolve_dataset;
///
/// assert_eq!(resolve_dataset("stereoset", "d"), Path::new("d/stereoset/dev.json"));
/// assert_eq!(resolve_dataset("mine.csv", "d"), Path::new("mine.csv"));
/// ```
pub fn resolve_dataset(name: &str, data_dir: impl AsRef<Path>) -> PathBuf {
    match name {
        "crows-pairs" => crows_pairs(data_dir),
        "stereoset" => stereoset_dev(data_dir),
        "stereoset-test" => stereoset_test(data_dir),
        other => PathBuf::from(other),
    }
}

/// A split of StereoSet (Nadeem et al. 2021): the public dev set or the test set that the
/// StereoSet leaderboard and bias-bench report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StereoSetSplit {
    /// `dev.json`: 2,106 intrasentence and 2,123 intersentence items.
    Dev,
    /// `test.json`.
    Test,
}

impl StereoSetSplit {
    /// Both splits.
    pub const ALL: [StereoSetSplit; 2] = [StereoSetSplit::Dev, StereoSetSplit::Test];

    /// `dev` or `test`: the name in results, run logs (`stereoset-dev`) and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            StereoSetSplit::Dev => "dev",
            StereoSetSplit::Test => "test",
        }
    }

    /// The split's JSON under `data_dir` ([`stereoset_dev`], [`stereoset_test`]).
    pub fn path(self, data_dir: impl AsRef<Path>) -> PathBuf {
        match self {
            StereoSetSplit::Dev => stereoset_dev(data_dir),
            StereoSetSplit::Test => stereoset_test(data_dir),
        }
    }
}

impl fmt::Display for StereoSetSplit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StereoSetSplit {
    type Err = DataError;

    /// `dev` or `test`, case-insensitively.
    fn from_str(s: &str) -> Result<Self, DataError> {
        StereoSetSplit::ALL
            .into_iter()
            .find(|x| x.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                invalid(
                    "StereoSet split",
                    format!("`{s}`"),
                    "not a StereoSet split; use dev or test",
                )
            })
    }
}
