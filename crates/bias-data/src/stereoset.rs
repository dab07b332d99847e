//! StereoSet (Nadeem et al. 2021): the `dev.json` and `test.json` files (one format).
//!
//! ```json
//! {"version": "1.0-dev",
//!  "data": {"intrasentence": [ITEM, ...], "intersentence": [ITEM, ...]}}
//! ```
//!
//! An ITEM is `{"id", "target", "bias_type", "context", "sentences": [S, S, S]}`, where the
//! intrasentence `context` contains the literal word `BLANK` and each S is
//! `{"id", "sentence", "labels": [{"label", "human_id"}, ...], "gold_label"}` with `gold_label`
//! one of `stereotype`, `anti-stereotype`, `unrelated`, in arbitrary order. Intrasentence
//! sentences are the full filled-in sentences; intersentence sentences are the continuation
//! only (the sentence that follows `context`).
//!
//! ```
//! use bias_data::stereoset::{read_stereoset, Section};
//!
//! let json = r#"{"version": "1.0-dev", "data": {"intersentence": [], "intrasentence": [
//!   {"id": "i1", "target": "chess player", "bias_type": "profession",
//!    "context": "The chess player was BLANK.",
//!    "sentences": [
//!      {"id": "s1", "sentence": "The chess player was fox.", "labels": [], "gold_label": "unrelated"},
//!      {"id": "s2", "sentence": "The chess player was asian.", "labels": [], "gold_label": "stereotype"},
//!      {"id": "s3", "sentence": "The chess player was hispanic.", "labels": [], "gold_label": "anti-stereotype"}]}]}}"#;
//! let set = read_stereoset(json.as_bytes(), "dev.json")?;
//! let pairs = set.pairs(Section::Intrasentence)?;
//! assert_eq!(pairs[0].id, "i1");
//! assert_eq!(pairs[0].stereo, "The chess player was asian.");
//! assert_eq!(pairs[0].anti, "The chess player was hispanic.");
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::fmt;
use std::io::Read;
use std::path::Path;

use bias_core::{BiasType, CoreError, Direction, SentencePair};
use serde::{Deserialize, Serialize};

use crate::counts::{count_entries, SectionStats};
use crate::util::{invalid, read_file, source_name};
use crate::DataError;

/// A whole StereoSet file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StereoSet {
    /// The `version` string (`1.0-dev` for the public dev set).
    pub version: String,
    /// The two task sections.
    pub data: StereoSetData,
    /// The label of the file the set was read from (used in error messages; not serialised).
    #[serde(skip)]
    pub source_name: String,
}

/// The `data` object: the two task sections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StereoSetData {
    /// Items whose context has a `BLANK` that each sentence fills in.
    pub intrasentence: Vec<StereoItem>,
    /// Items whose sentences continue the context sentence.
    pub intersentence: Vec<StereoItem>,
}

/// One StereoSet item: a context and its three candidate sentences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StereoItem {
    /// The item id.
    pub id: String,
    /// The target term (`chess player`, `Ethiopia`, ...).
    pub target: String,
    /// `gender`, `profession`, `race` or `religion`.
    pub bias_type: BiasType,
    /// The context (with `BLANK` in intrasentence items).
    pub context: String,
    /// The three sentences, in the file's (arbitrary) order.
    pub sentences: Vec<StereoSentence>,
}

/// One candidate sentence of an item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StereoSentence {
    /// The sentence id.
    pub id: String,
    /// The sentence text.
    pub sentence: String,
    /// The annotators' labels (`stereotype`, `anti-stereotype`, `unrelated`, `related`).
    pub labels: Vec<StereoLabel>,
    /// The gold label.
    pub gold_label: GoldLabel,
}

/// One annotator's label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StereoLabel {
    /// The label as written in the file.
    pub label: String,
    /// The anonymised annotator id.
    pub human_id: String,
}

/// The gold label of a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GoldLabel {
    /// `stereotype`.
    #[serde(rename = "stereotype")]
    Stereotype,
    /// `anti-stereotype`.
    #[serde(rename = "anti-stereotype")]
    AntiStereotype,
    /// `unrelated`.
    #[serde(rename = "unrelated")]
    Unrelated,
}

impl GoldLabel {
    /// The label as written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            GoldLabel::Stereotype => "stereotype",
            GoldLabel::AntiStereotype => "anti-stereotype",
            GoldLabel::Unrelated => "unrelated",
        }
    }
}

/// The two StereoSet sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    /// `intrasentence`.
    Intrasentence,
    /// `intersentence`.
    Intersentence,
}

impl Section {
    /// The section's key in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Intrasentence => "intrasentence",
            Section::Intersentence => "intersentence",
        }
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl StereoItem {
    /// The sentence with the given gold label, if exactly one has it.
    pub fn sentence_with(&self, gold: GoldLabel) -> Option<&StereoSentence> {
        let mut found = self.sentences.iter().filter(|s| s.gold_label == gold);
        match (found.next(), found.next()) {
            (Some(s), None) => Some(s),
            _ => None,
        }
    }

    /// The (stereotype, anti-stereotype) pair of this item: `id` = the item id, direction
    /// [`Direction::Stereo`], no group. `source_name` labels the file in error messages.
    ///
    /// # Errors
    /// [`DataError::InvalidRecord`] if the item does not have exactly one `stereotype` and one
    /// `anti-stereotype` sentence, or one of them is empty.
    pub fn sentence_pair(&self, source_name: &str) -> Result<SentencePair, DataError> {
        self.pair_at(source_name, &format!("item id {:?}", self.id))
    }

    /// The item's three sentences with their ids, target and domain. `source_name` labels the
    /// file in error messages.
    ///
    /// # Errors
    /// [`DataError::InvalidRecord`] if the item does not have exactly one sentence of each gold
    /// label, or one of them is empty.
    pub fn triple(&self, source_name: &str) -> Result<StereoSetTriple, DataError> {
        self.triple_at(source_name, &format!("item id {:?}", self.id))
    }

    fn triple_at(&self, source_name: &str, location: &str) -> Result<StereoSetTriple, DataError> {
        Ok(StereoSetTriple {
            id: self.id.clone(),
            target: self.target.clone(),
            domain: self.bias_type.as_str().to_owned(),
            stereo: self
                .pick(GoldLabel::Stereotype, source_name, location)?
                .to_owned(),
            anti: self
                .pick(GoldLabel::AntiStereotype, source_name, location)?
                .to_owned(),
            unrelated: self
                .pick(GoldLabel::Unrelated, source_name, location)?
                .to_owned(),
        })
    }

    /// The non-empty sentence with the given gold label, or an error naming `location`.
    fn pick(&self, gold: GoldLabel, source_name: &str, location: &str) -> Result<&str, DataError> {
        let n = self
            .sentences
            .iter()
            .filter(|s| s.gold_label == gold)
            .count();
        let s = self.sentence_with(gold).ok_or_else(|| {
            invalid(
                source_name,
                location,
                format!(
                    "expected exactly one sentence with gold_label `{}`, found {n}; \
                     fix or remove this item",
                    gold.as_str()
                ),
            )
        })?;
        if s.sentence.trim().is_empty() {
            return Err(invalid(
                source_name,
                location,
                format!(
                    "the `{}` sentence (id {:?}) is empty; every pair needs two non-empty \
                     sentences",
                    gold.as_str(),
                    s.id
                ),
            ));
        }
        Ok(&s.sentence)
    }

    fn pair_at(&self, source_name: &str, location: &str) -> Result<SentencePair, DataError> {
        Ok(SentencePair {
            id: self.id.clone(),
            stereo: self
                .pick(GoldLabel::Stereotype, source_name, location)?
                .to_owned(),
            anti: self
                .pick(GoldLabel::AntiStereotype, source_name, location)?
                .to_owned(),
            bias_type: self.bias_type.clone(),
            direction: Direction::Stereo,
            group_id: None,
        })
    }
}

/// One StereoSet item as StereoSet's own scores (SS, LMS, ICAT) need it: the item id, its
/// target term, its domain and its three sentences picked by gold label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StereoSetTriple {
    /// The item id.
    pub id: String,
    /// The target term (`chess player`, `Ethiopia`, ...), as written in the file.
    pub target: String,
    /// The domain: the item's `bias_type` as written (`gender`, `profession`, `race`,
    /// `religion`).
    pub domain: String,
    /// The `stereotype` sentence.
    pub stereo: String,
    /// The `anti-stereotype` sentence.
    pub anti: String,
    /// The `unrelated` sentence.
    pub unrelated: String,
}

impl StereoSet {
    /// The items of one section.
    pub fn items(&self, section: Section) -> &[StereoItem] {
        match section {
            Section::Intrasentence => &self.data.intrasentence,
            Section::Intersentence => &self.data.intersentence,
        }
    }

    /// The (stereotype, anti-stereotype) pairs of one section, in file order.
    ///
    /// # Errors
    /// [`DataError::InvalidRecord`] naming the file, the section and the item (0-based index and
    /// id) when an item lacks a gold label (see [`StereoItem::sentence_pair`]).
    pub fn pairs(&self, section: Section) -> Result<Vec<SentencePair>, DataError> {
        self.each_item(section, StereoItem::pair_at)
    }

    /// The (stereotype, anti-stereotype, unrelated) triples of one section, in file order.
    ///
    /// # Errors
    /// [`DataError::InvalidRecord`] naming the file, the section and the item (0-based index and
    /// id) when an item lacks a gold label or has an empty sentence (see
    /// [`StereoItem::triple`]).
    pub fn triples(&self, section: Section) -> Result<Vec<StereoSetTriple>, DataError> {
        self.each_item(section, StereoItem::triple_at)
    }

    /// `read(item, file, place)` of every item of `section`, the place naming the section, the
    /// item's 0-based index and its id, for an error to point at.
    fn each_item<T>(
        &self,
        section: Section,
        read: impl Fn(&StereoItem, &str, &str) -> Result<T, DataError>,
    ) -> Result<Vec<T>, DataError> {
        let items = self.items(section).iter().enumerate();
        items
            .map(|(i, item)| {
                let place = format!("{section} item {i} (id {:?})", item.id);
                read(item, &self.source_name, &place)
            })
            .collect()
    }

    /// Item counts of both sections, each with its per-bias-type counts.
    pub fn section_stats(&self) -> Vec<SectionStats> {
        [Section::Intrasentence, Section::Intersentence]
            .into_iter()
            .map(|section| {
                let items = self.items(section);
                SectionStats {
                    name: section.as_str().to_owned(),
                    n_items: items.len(),
                    by_bias_type: count_entries(items.iter().map(|it| it.bias_type.as_str())),
                }
            })
            .collect()
    }
}

/// Reads a StereoSet file from JSON. `source_name` labels the input in error messages.
///
/// # Errors
/// [`CoreError::Json`] (in [`DataError::Core`]) for malformed JSON, a missing key or an unknown
/// gold label; serde's message gives the line and column.
pub fn read_stereoset(mut reader: impl Read, source_name: &str) -> Result<StereoSet, DataError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| CoreError::io(source_name, e))?;
    // A UTF-8 byte-order mark is valid at the start of a file but not JSON.
    let json = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let mut set: StereoSet = serde_json::from_slice(json).map_err(|source| CoreError::Json {
        source_name: source_name.to_owned(),
        source,
    })?;
    set.source_name = source_name.to_owned();
    Ok(set)
}

/// Reads a StereoSet JSON file.
///
/// # Errors
/// [`CoreError::Io`] if the file cannot be read, otherwise as [`read_stereoset`].
pub fn read_stereoset_path(path: impl AsRef<Path>) -> Result<StereoSet, DataError> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    read_stereoset(bytes.as_slice(), &source_name(path))
}

/// The pairs of StereoSet's comparisons with the unrelated sentence, two per intrasentence item
/// in item order: `<id>/stereo-unrelated` (the stereotype against the unrelated sentence) and
/// `<id>/anti-unrelated` (the anti-stereotype against it), each with the item's bias type. What
/// Kaneko & Bollegala (2022, Table 4) score for their StereoSet token-prediction accuracy, and
/// what StereoSet's language-modeling score compares (Nadeem et al. 2021, §3).
///
/// # Errors
/// As [`read_stereoset_path`], or an [`DataError::InvalidRecord`] naming an item without its
/// three sentences.
pub fn unrelated_pairs(path: impl AsRef<Path>) -> Result<Vec<SentencePair>, DataError> {
    let path = path.as_ref();
    let set = read_stereoset_path(path)?;
    let source = path.display().to_string();
    let mut pairs = Vec::new();
    for item in set.items(Section::Intrasentence) {
        let base = item.sentence_pair(&source)?;
        let t = item.triple(&source)?;
        for (suffix, sentence) in [("stereo-unrelated", &t.stereo), ("anti-unrelated", &t.anti)] {
            pairs.push(SentencePair {
                id: format!("{}/{suffix}", t.id),
                stereo: sentence.clone(),
                anti: t.unrelated.clone(),
                ..base.clone()
            });
        }
    }
    Ok(pairs)
}

/// Reads the (stereotype, anti-stereotype, unrelated) triples of one section of a StereoSet JSON
/// file, in file order.
///
/// # Errors
/// As [`read_stereoset_path`], and as [`StereoSet::triples`].
pub fn read_stereoset_triples(
    path: impl AsRef<Path>,
    section: Section,
) -> Result<Vec<StereoSetTriple>, DataError> {
    read_stereoset_path(path)?.triples(section)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(golds: &[&str]) -> String {
        let sentences: Vec<String> = golds
            .iter()
            .enumerate()
            .map(|(i, g)| {
                format!(
                    r#"{{"id": "s{i}", "sentence": "Sentence {i}.", "labels": [{{"label": "related", "human_id": "h"}}], "gold_label": "{g}"}}"#
                )
            })
            .collect();
        format!(
            r#"{{"id": "x", "target": "t", "bias_type": "race", "context": "c", "sentences": [{}]}}"#,
            sentences.join(",")
        )
    }

    #[test]
    fn picks_gold_sentences_in_any_order() {
        let json = format!(
            r#"{{"version": "v", "data": {{"intrasentence": [], "intersentence": [{}]}}}}"#,
            item(&["anti-stereotype", "unrelated", "stereotype"])
        );
        let set = read_stereoset(json.as_bytes(), "s.json").unwrap();
        assert_eq!(set.version, "v");
        let pairs = set.pairs(Section::Intersentence).unwrap();
        assert_eq!(pairs.len(), 1);
        assert_eq!(pairs[0].stereo, "Sentence 2.");
        assert_eq!(pairs[0].anti, "Sentence 0.");
        assert_eq!(pairs[0].bias_type, BiasType::Race);
        assert_eq!(pairs[0].direction, Direction::Stereo);
        let item0 = &set.items(Section::Intersentence)[0];
        assert_eq!(item0.sentences[0].labels[0].label, "related");
        let stats = set.section_stats();
        assert_eq!(stats[0].n_items, 0);
        assert_eq!(stats[1].n_items, 1);
        assert_eq!(stats[1].by_bias_type[0].label, "race");
    }

    #[test]
    fn missing_gold_label_is_reported() {
        let json = format!(
            r#"{{"version": "v", "data": {{"intrasentence": [{}, {}], "intersentence": []}}}}"#,
            item(&["anti-stereotype", "unrelated", "stereotype"]),
            item(&["stereotype", "unrelated", "unrelated"])
        );
        let set = read_stereoset(json.as_bytes(), "s.json").unwrap();
        let msg = set.pairs(Section::Intrasentence).unwrap_err().to_string();
        assert!(msg.contains("s.json"), "{msg}");
        assert!(msg.contains("intrasentence item 1 (id \"x\")"), "{msg}");
        assert!(
            msg.contains("exactly one sentence with gold_label `anti-stereotype`, found 0"),
            "{msg}"
        );
        let mut twice = set.items(Section::Intrasentence)[1].clone();
        twice.sentences[2].gold_label = GoldLabel::Stereotype;
        let msg = twice.sentence_pair("s.json").unwrap_err().to_string();
        assert!(msg.contains("`stereotype`, found 2"), "{msg}");
    }

    #[test]
    fn triples_keep_target_domain_and_unrelated() {
        let json = format!(
            r#"{{"version": "v", "data": {{"intrasentence": [{}], "intersentence": []}}}}"#,
            item(&["unrelated", "stereotype", "anti-stereotype"])
        );
        let set = read_stereoset(json.as_bytes(), "s.json").unwrap();
        let t = set.triples(Section::Intrasentence).unwrap();
        assert_eq!(
            t,
            vec![StereoSetTriple {
                id: "x".into(),
                target: "t".into(),
                domain: "race".into(),
                stereo: "Sentence 1.".into(),
                anti: "Sentence 2.".into(),
                unrelated: "Sentence 0.".into(),
            }]
        );
        let mut bad = set.items(Section::Intrasentence)[0].clone();
        bad.sentences[0].gold_label = GoldLabel::Stereotype;
        let msg = bad.triple("s.json").unwrap_err().to_string();
        assert!(msg.contains("`stereotype`, found 2"), "{msg}");
        assert!(set.triples(Section::Intersentence).unwrap().is_empty());
    }
}
