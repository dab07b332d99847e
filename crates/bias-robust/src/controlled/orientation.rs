//! Orientation of gender pairs male-vs-female for the bias-controlled study (kaneko2023 §1):
//! which sentence of a CrowS-Pairs gender pair (Nangia et al. 2020) holds the male words, by the
//! gender word lists of [`GenderWords`] (the lists that mine the training sentences,
//! kaneko2023 §2–3.1), matched the same way (whole words, case-insensitive, split by
//! [`sentence_words`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use bias_core::{ScoreRow, ScoreTable};
use bias_data::corpus::{sentence_words, Gender, GenderWords, KANEKO2023_FEMALE, KANEKO2023_MALE};
use bias_data::DataError;
use serde::{Deserialize, Serialize};

/// The word lists of kaneko2023 §3.1 as `(male, female)`, in the paper's order, ready for
/// [`orient_by_gender`]: the words of [`GenderWords::kaneko2023`].
pub fn kaneko2023_word_lists() -> (Vec<String>, Vec<String>) {
    let owned = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect();
    (owned(KANEKO2023_MALE), owned(KANEKO2023_FEMALE))
}

/// Which sentence of a pair is the male one ([`male_side`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MaleSide {
    /// The `stereo` sentence holds the male words: the row is kept as it is.
    Stereo,
    /// The `anti` sentence holds the male words: the row is swapped.
    Anti,
}

/// A row [`orient_by_gender`] could not orient, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unoriented {
    /// The pair's id.
    pub pair_id: String,
    /// The row's scorer.
    pub scorer: String,
    /// Why it was left out: the text of its [`OrientationError`] ("no gendered word among the
    /// differing words (john, mary)", ...), followed by that of its causes, each after `": "`
    /// (for [`OrientationError::InvalidWords`], why the word lists were refused).
    pub reason: String,
}

/// Why a pair cannot be oriented male-vs-female by the rule of [`orient_by_gender`].
///
/// `words` lists the differing words on neither gender list, lower-cased, sorted and without
/// repeats.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum OrientationError {
    /// The two sentences hold the same words (as multisets).
    #[error("the two sentences have the same words")]
    SameWords,
    /// No differing word is on either list.
    #[error("no gendered word among the differing words ({})", words.join(", "))]
    NoGenderedWord {
        /// The differing words.
        words: Vec<String>,
    },
    /// Some differing words are gendered, others on neither list: not a pure gender swap.
    #[error("the differing words include words on neither list ({})", words.join(", "))]
    UnlistedWords {
        /// The differing words on neither list.
        words: Vec<String>,
    },
    /// Both sentences' differing words are male.
    #[error("both sides have male words")]
    BothMale,
    /// Both sentences' differing words are female.
    #[error("both sides have female words")]
    BothFemale,
    /// One sentence's differing words are male and female.
    #[error("one side has both male and female words")]
    MixedSide,
    /// Only one sentence has words the other lacks.
    #[error("only one side has differing words")]
    OneSided,
    /// The `male` and `female` lists given to [`male_side`] or [`orient_by_gender`] are not
    /// valid [`GenderWords`] (an empty list, an entry that is not one word, a word on both).
    #[error("the male and female word lists cannot be used")]
    InvalidWords {
        /// Why [`GenderWords::new`] refused them.
        #[source]
        source: Arc<DataError>,
    },
}

impl PartialEq for OrientationError {
    /// Variants and their words compare; two [`OrientationError::InvalidWords`] compare by their
    /// message ([`DataError`] has no equality).
    fn eq(&self, other: &Self) -> bool {
        use OrientationError as E;
        match (self, other) {
            (E::NoGenderedWord { words: a }, E::NoGenderedWord { words: b })
            | (E::UnlistedWords { words: a }, E::UnlistedWords { words: b }) => a == b,
            (E::InvalidWords { source: a }, E::InvalidWords { source: b }) => {
                a.to_string() == b.to_string()
            }
            (E::SameWords, E::SameWords)
            | (E::BothMale, E::BothMale)
            | (E::BothFemale, E::BothFemale)
            | (E::MixedSide, E::MixedSide)
            | (E::OneSided, E::OneSided) => true,
            _ => false,
        }
    }
}

impl Eq for OrientationError {}

/// What one side's differing words are made of.
#[derive(Default)]
struct SideWords {
    male: usize,
    female: usize,
    other: Vec<String>,
}

/// Counts the male, female and other words of one side.
fn classify(words: &GenderWords, side: &[String]) -> SideWords {
    let mut counts = SideWords::default();
    for w in side {
        match words.gender_of(w) {
            Some(Gender::Male) => counts.male += 1,
            Some(Gender::Female) => counts.female += 1,
            None => counts.other.push(w.clone()),
        }
    }
    counts
}

/// The rule of [`orient_by_gender`] on the classified differing words of both sides.
fn decide(s: &SideWords, a: &SideWords) -> Result<MaleSide, OrientationError> {
    let mut other: Vec<String> = s.other.iter().chain(&a.other).cloned().collect();
    other.sort_unstable();
    other.dedup();
    if s.male + s.female + a.male + a.female == 0 {
        return Err(OrientationError::NoGenderedWord { words: other });
    }
    if !other.is_empty() {
        return Err(OrientationError::UnlistedWords { words: other });
    }
    let kind = |w: &SideWords| match (w.male > 0, w.female > 0) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    };
    match (kind(s), kind(a)) {
        (Some(true), Some(false)) => Ok(MaleSide::Stereo),
        (Some(false), Some(true)) => Ok(MaleSide::Anti),
        (Some(true), Some(true)) => Err(OrientationError::BothMale),
        (Some(false), Some(false)) => Err(OrientationError::BothFemale),
        _ if (s.male > 0 && s.female > 0) || (a.male > 0 && a.female > 0) => {
            Err(OrientationError::MixedSide)
        }
        _ => Err(OrientationError::OneSided),
    }
}

/// The multiset differences `stereo − anti` and `anti − stereo` of the sentences' words
/// ([`sentence_words`]), each sorted (so reasons are deterministic).
fn differing_words(stereo: &str, anti: &str) -> (Vec<String>, Vec<String>) {
    let mut count: BTreeMap<String, i64> = BTreeMap::new();
    for w in sentence_words(stereo) {
        *count.entry(w.into_owned()).or_default() += 1;
    }
    for w in sentence_words(anti) {
        *count.entry(w.into_owned()).or_default() -= 1;
    }
    let (mut stereo_only, mut anti_only) = (Vec::new(), Vec::new());
    for (w, c) in count {
        let side = if c > 0 {
            &mut stereo_only
        } else {
            &mut anti_only
        };
        side.extend(std::iter::repeat_n(w, c.unsigned_abs() as usize));
    }
    (stereo_only, anti_only)
}

/// `male` and `female` as [`GenderWords`] (entries trimmed and lower-cased).
fn word_lists(male: &[String], female: &[String]) -> Result<GenderWords, OrientationError> {
    GenderWords::new(male, female).map_err(|e| OrientationError::InvalidWords {
        source: Arc::new(e),
    })
}

/// Which sentence of `row` is the male one, by the rule of [`orient_by_gender`] with the lists
/// of `words`.
///
/// # Errors
/// The [`OrientationError`] saying why the row cannot be oriented.
pub fn male_side_by_words(
    row: &ScoreRow,
    words: &GenderWords,
) -> Result<MaleSide, OrientationError> {
    let (stereo_only, anti_only) = differing_words(&row.stereo, &row.anti);
    if stereo_only.is_empty() && anti_only.is_empty() {
        return Err(OrientationError::SameWords);
    }
    decide(&classify(words, &stereo_only), &classify(words, &anti_only))
}

/// [`male_side_by_words`] with the word lists given as `male` and `female`.
///
/// Builds the [`GenderWords`] on every call; [`orient_by_gender`] builds them once.
///
/// # Errors
/// [`OrientationError::InvalidWords`] if the lists are not valid [`GenderWords`]; otherwise the
/// [`OrientationError`] saying why the row cannot be oriented.
pub fn male_side(
    row: &ScoreRow,
    male: &[String],
    female: &[String],
) -> Result<MaleSide, OrientationError> {
    male_side_by_words(row, &word_lists(male, female)?)
}

/// `row` with its two sentences, scores and token counts exchanged.
fn swapped(row: &ScoreRow) -> ScoreRow {
    let mut r = row.clone();
    std::mem::swap(&mut r.stereo, &mut r.anti);
    std::mem::swap(&mut r.score_stereo, &mut r.score_anti);
    std::mem::swap(&mut r.tokens_stereo, &mut r.tokens_anti);
    r
}

/// [`orient_by_gender`] with the word lists of `words`.
pub fn orient_by_gender_words(
    table: &ScoreTable,
    words: &GenderWords,
) -> (ScoreTable, Vec<Unoriented>) {
    let mut kept = Vec::with_capacity(table.len());
    let mut unoriented = Vec::new();
    for row in table.rows() {
        match male_side_by_words(row, words) {
            Ok(MaleSide::Stereo) => kept.push(row.clone()),
            Ok(MaleSide::Anti) => kept.push(swapped(row)),
            Err(reason) => unoriented.push(left_out(row, &reason)),
        }
    }
    (ScoreTable::new(kept), unoriented)
}

/// The [`Unoriented`] entry of `row`: a record for reports, so its reason spells out the error
/// and its causes in one line.
fn left_out(row: &ScoreRow, reason: &OrientationError) -> Unoriented {
    let mut text = reason.to_string();
    let mut cause = std::error::Error::source(reason);
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    Unoriented {
        pair_id: row.pair_id.clone(),
        scorer: row.scorer.to_string(),
        reason: text,
    }
}

/// Orients gender pairs male-vs-female for the controlled experiment (kaneko2023 §1: a measure
/// should report male bias for a model fine-tuned on male sentences).
///
/// CrowS-Pairs gender pairs differ in gendered words, but the male sentence is sometimes the
/// stereotypical one and sometimes the anti-stereotypical one. For each row, the words that
/// differ between `stereo` and `anti` are found (lower-cased word multisets, split on every
/// non-alphanumeric character by [`sentence_words`], so "He's" gives `he`, `s`), and matched
/// whole-word and case-insensitively against `male` and `female`, read as [`GenderWords`]:
///
/// - the stereo side's differing words all male (≥ 1) and the anti side's all female (≥ 1):
///   the row is kept as it is;
/// - the reverse: the sentences, scores and token counts are swapped;
/// - anything else: the row is left out and listed in the returned [`Unoriented`]s with a
///   reason (an [`OrientationError`]: no differing words, no gendered differing word, a
///   differing word on neither list, both sides male or both female, one side with both, only
///   one side with differing words).
///
/// Only the *differing* words are compared, and every one of them must be on a list: a pair
/// that also changes another word (a name, "doctor" → "nurse") is not a pure gender swap and
/// is left out. With the short lists of kaneko2023 §3.1 ([`kaneko2023_word_lists`]) this leaves
/// out plurals ("men"/"women") and names ("John"/"Mary"); pass longer lists
/// ([`GenderWords::kaneko2023_extended`]) to keep more pairs, and report `table.len()` against
/// the number of [`Unoriented`]s.
///
/// Lists that are not valid [`GenderWords`] (an empty list, an entry that is not a single word,
/// a word on both lists) orient nothing: every row is listed with
/// [`OrientationError::InvalidWords`] as its reason.
///
/// **In the returned table, `stereo` means "the male sentence"** and `anti` "the female
/// sentence", so [`bias_metrics::Indicator`] is the percentage of pairs whose male sentence
/// scores higher (50 = no gender preference, above 50 = male bias). `direction` is kept
/// unchanged: it still records CrowS-Pairs' annotation of the *original* pair (which group its
/// `sent_more` disadvantages), so direction-based sub-scores (Nangia's, kaneko2022 Table 3) are
/// not meaningful on an oriented table. Use [`male_side`] to tell kept rows from swapped ones.
///
/// Rows of every bias type are examined; pass the gender pairs (`bias_type` = gender) to stay
/// within the experiment's scope. Each (pair, scorer) row is judged on its own, so a pair left
/// out is listed once per scorer.
pub fn orient_by_gender(
    table: &ScoreTable,
    male: &[String],
    female: &[String],
) -> (ScoreTable, Vec<Unoriented>) {
    match word_lists(male, female) {
        Ok(words) => orient_by_gender_words(table, &words),
        Err(reason) => {
            let rows = table.rows().iter().map(|row| left_out(row, &reason));
            (ScoreTable::new(Vec::new()), rows.collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use bias_core::BiasType;

    use super::*;

    fn row(stereo: &str, anti: &str) -> ScoreRow {
        ScoreRow::builder("1", BiasType::Gender, -1.0, -2.0)
            .dataset("crows-pairs")
            .sentences(stereo, anti)
            .scorer("aul")
            .model("bert")
            .build()
    }

    /// The lists of kaneko2023 §3.1, copied from the paper's text ("we used the female words
    /// she, woman, female, her, wife, mother, girl, sister, daughter, girlfriend as F, and male
    /// words he, man, male, him, his, husband, father, boy, brother, son, boyfriend as M"): a
    /// word added, dropped, misspelt or put on the wrong side in the constants fails here.
    #[test]
    fn the_word_lists_are_the_papers_kaneko2023() {
        let paper_female: Vec<&str> =
            "she woman female her wife mother girl sister daughter girlfriend"
                .split(' ')
                .collect();
        let paper_male: Vec<&str> = "he man male him his husband father boy brother son boyfriend"
            .split(' ')
            .collect();
        let (male, female) = kaneko2023_word_lists();
        assert_eq!(male, paper_male, "male list, in the paper's order");
        assert_eq!(female, paper_female, "female list, in the paper's order");
        let words = GenderWords::kaneko2023();
        let set = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(*words.male(), set(&paper_male));
        assert_eq!(*words.female(), set(&paper_female));
        // And they orient: a she/he swap is female-first, a her/his swap male-first.
        assert_eq!(
            male_side_by_words(&row("She cooks.", "He cooks."), &words),
            Ok(MaleSide::Anti)
        );
        assert_eq!(
            male_side_by_words(&row("His car.", "Her car."), &words),
            Ok(MaleSide::Stereo)
        );
    }

    #[test]
    fn lists_and_gender_words_orient_alike() {
        let (male, female) = kaneko2023_word_lists();
        let words = GenderWords::kaneko2023();
        for (s, a) in [("She cooks.", "He cooks."), ("John cooks.", "Mary cooks.")] {
            let r = row(s, a);
            assert_eq!(
                male_side(&r, &male, &female),
                male_side_by_words(&r, &words)
            );
        }
        assert_eq!(
            male_side(&row("She cooks.", "He cooks."), &male, &female),
            Ok(MaleSide::Anti)
        );
    }

    #[test]
    fn invalid_lists_orient_nothing_and_say_why() {
        let (male, female) = (vec!["he".to_owned()], vec!["he".to_owned()]);
        let err = male_side(&row("He cooks.", "She cooks."), &male, &female).unwrap_err();
        assert!(
            matches!(err, OrientationError::InvalidWords { .. }),
            "{err}"
        );
        // The message says what is wrong; why the lists were refused is its source, once.
        let source = std::error::Error::source(&err)
            .expect("the DataError")
            .to_string();
        assert!(source.contains("in both lists"), "{source}");
        assert!(!err.to_string().contains(&source), "{err}");
        // The report's reason spells out both.
        let table = ScoreTable::new(vec![row("He cooks.", "She cooks.")]);
        let (oriented, left_out) = orient_by_gender(&table, &male, &female);
        assert!(oriented.is_empty());
        assert_eq!(left_out[0].reason, format!("{err}: {source}"));
    }
}
