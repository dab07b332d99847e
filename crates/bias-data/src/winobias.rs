//! WinoBias (Zhao et al. 2018, "Gender bias in coreference resolution: Evaluation and debiasing
//! methods", NAACL): the pro- and anti-stereotyped sentences of type 1 (no syntactic cue) and
//! type 2 (a syntactic cue), dev and test, as sentence pairs.
//!
//! Each line of a file is `<number> <sentence>`, the two coreferent mentions in brackets:
//! `1 [The developer] argued with the designer because [he] did not like the design.` The pro-
//! and anti-stereotyped files of one type and split are aligned line by line: line *i* of both
//! is the same sentence with the pronoun's gender swapped. A pair is (pro, anti) with the
//! brackets removed — the pipeline's stereotypical and anti-stereotypical sentence.
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
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;

use bias_core::{BiasType, Direction, SentencePair};
use serde::{Deserialize, Serialize};

use crate::util::{invalid, read_file, source_name, utf8_lines};
use crate::DataError;

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
    /// The line's leading number.
    pub number: u32,
    /// The sentence without brackets.
    pub text: String,
    /// The bracketed mentions, in order: the antecedent, then the pronoun(s).
    pub mentions: Vec<String>,
}

/// Reads one WinoBias file. Blank lines are skipped.
///
/// # Errors
/// [`DataError::InvalidRecord`] naming the line for a line without a leading number, with
/// unbalanced brackets, or with fewer than two bracketed mentions.
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
            number,
            text,
            mentions,
        });
    }
    Ok(out)
}

/// Pairs the lines of a pro- and an anti-stereotyped file (line *i* with line *i*): ids
/// `<set>-<number>`, bias type gender.
///
/// # Errors
/// [`DataError::InvalidRecord`] naming both files when their line counts differ, or the line
/// whose numbers differ. (The texts are not compared beyond that: in the published files 11 of
/// the 1,584 pairs differ in their number of words — `because of [she]` against `because [he]`,
/// "a desk" against "one" — and some bracket the antecedent differently; they are kept as
/// published.)
pub fn pair_lines(
    pro: &[WinoBiasLine],
    pro_name: &str,
    anti: &[WinoBiasLine],
    anti_name: &str,
    set: &str,
) -> Result<Vec<SentencePair>, DataError> {
    if pro.len() != anti.len() {
        return Err(invalid(
            pro_name,
            "whole file",
            format!(
                "{} sentences, but {anti_name} has {}; the two files must align line by line",
                pro.len(),
                anti.len()
            ),
        ));
    }
    pro.iter()
        .zip(anti)
        .enumerate()
        .map(|(i, (p, a))| {
            let at = || format!("sentence {} (number {})", i + 1, p.number);
            if p.number != a.number {
                return Err(invalid(
                    pro_name,
                    at(),
                    format!(
                        "its line in {anti_name} is number {}; the files do not align",
                        a.number
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

/// The pairs of one set under `data_dir` ([`crate::layout::winobias_file`]).
///
/// # Errors
/// As [`read_winobias_lines`] and [`pair_lines`]; an I/O error naming a missing file.
pub fn read_winobias_pairs(
    data_dir: impl AsRef<Path>,
    set: WinoBiasSet,
) -> Result<Vec<SentencePair>, DataError> {
    let data_dir = data_dir.as_ref();
    let pro_path = crate::layout::winobias_file(data_dir, set, true);
    let anti_path = crate::layout::winobias_file(data_dir, set, false);
    let (pro_name, anti_name) = (source_name(&pro_path), source_name(&anti_path));
    let pro = read_winobias_lines(read_file(&pro_path)?.as_slice(), &pro_name)?;
    let anti = read_winobias_lines(read_file(&anti_path)?.as_slice(), &anti_name)?;
    let label = format!("{}-{}", set.kind.name(), set.split.name());
    pair_lines(&pro, &pro_name, &anti, &anti_name, &label)
}
