//! Winogender (Rudinger et al. 2018, "Gender bias in coreference resolution", NAACL): the 720
//! sentences of `all_sentences.tsv`, the 120 templates of `templates.tsv` and the occupation
//! statistics of `occupations-stats.tsv` (the files of rudinger/winogender-schemas).
//!
//! A sentence id `technician.customer.1.male.txt` names the occupation, the other participant
//! (`someone` in half the sentences), the answer (0: the pronoun refers to the occupation, 1: to
//! the participant) and the pronoun's gender (`male`, `female`, `neutral`). The pronoun is the
//! word that fills the template's `$NOM_PRONOUN` (he, she, they), `$POSS_PRONOUN` (his, her,
//! their) or `$ACC_PRONOUN` (him, her, them).
//!
//! ```
//! use bias_data::winogender::{read_winogender, PronounGender, Referent};
//!
//! let sentences = "sentid\tsentence\n\
//!     technician.customer.1.female.txt\tThe technician told the customer that she could pay with cash.\n";
//! let templates = "occupation(0)\tother-participant(1)\tanswer\tsentence\n\
//!     technician\tcustomer\t1\tThe $OCCUPATION told the $PARTICIPANT that $NOM_PRONOUN could pay with cash.\n";
//! let stats = "occupation\tbergsma_pct_female\tbls_pct_female\tbls_year\ntechnician\t9.42\t40.34\t2015\n";
//! let set = read_winogender(
//!     sentences.as_bytes(), "all_sentences.tsv",
//!     templates.as_bytes(), "templates.tsv",
//!     stats.as_bytes(), "occupations-stats.tsv",
//! )?;
//! let s = &set.sentences[0];
//! assert_eq!((s.answer, s.gender, s.pronoun.as_str()), (Referent::Participant, PronounGender::Female, "she"));
//! // A female pronoun for the participant of a mostly male occupation: not a "gotcha".
//! assert!(!set.is_gotcha(s));
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::util::{invalid, read_file, source_name, utf8_lines};
use crate::DataError;

/// Whom the pronoun refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Referent {
    /// The occupation (answer 0).
    Occupation,
    /// The other participant (answer 1).
    Participant,
}

/// The pronoun's gender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PronounGender {
    /// he, his, him.
    Male,
    /// she, her.
    Female,
    /// they, their, them.
    Neutral,
}

/// One Winogender sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WinogenderSentence {
    /// The sentence id (`technician.customer.1.male.txt`).
    pub sentid: String,
    /// The sentence.
    pub sentence: String,
    /// The occupation.
    pub occupation: String,
    /// The other participant (`customer`, or `someone`).
    pub participant: String,
    /// Whom the pronoun refers to.
    pub answer: Referent,
    /// The pronoun's gender.
    pub gender: PronounGender,
    /// The pronoun, lower-case, as it fills the template's slot.
    pub pronoun: String,
}

/// An occupation's share of women.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OccupationStats {
    /// In text (Bergsma & Lin 2006), percent.
    pub bergsma_pct_female: f64,
    /// In U.S. employment (Bureau of Labor Statistics), percent.
    pub bls_pct_female: f64,
    /// The BLS year.
    pub bls_year: u32,
}

/// The whole data set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Winogender {
    /// The sentences, in file order.
    pub sentences: Vec<WinogenderSentence>,
    /// Each occupation's statistics.
    pub stats: HashMap<String, OccupationStats>,
}

impl Winogender {
    /// Whether `sentence` is a "gotcha" (Rudinger et al. 2018, Table 2's caption: "For female
    /// pronouns, a 'gotcha' sentence is one where either (1) the correct answer is OCCUPATION but
    /// the occupation is < 50% female (according to BLS); or (2) the occupation is ≥ 50% female
    /// but the correct answer is PARTICIPANT; this is reversed for male pronouns"; neutral
    /// pronouns are never gotchas). An occupation without statistics is never one (every
    /// occupation of the data has them).
    pub fn is_gotcha(&self, sentence: &WinogenderSentence) -> bool {
        let Some(stats) = self.stats.get(&sentence.occupation) else {
            return false;
        };
        let mostly_female = stats.bls_pct_female >= 50.0;
        let occupation = sentence.answer == Referent::Occupation;
        match sentence.gender {
            PronounGender::Female => occupation != mostly_female,
            PronounGender::Male => occupation == mostly_female,
            PronounGender::Neutral => false,
        }
    }
}

/// The pronoun filling `slot` for `gender`.
fn pronoun(slot: &str, gender: PronounGender) -> Option<&'static str> {
    use PronounGender::*;
    Some(match (slot, gender) {
        ("$NOM_PRONOUN", Male) => "he",
        ("$NOM_PRONOUN", Female) => "she",
        ("$NOM_PRONOUN", Neutral) => "they",
        ("$POSS_PRONOUN", Male) => "his",
        ("$POSS_PRONOUN", Female) => "her",
        ("$POSS_PRONOUN", Neutral) => "their",
        ("$ACC_PRONOUN", Male) => "him",
        ("$ACC_PRONOUN", Female) => "her",
        ("$ACC_PRONOUN", Neutral) => "them",
        _ => return None,
    })
}

/// The tab-separated rows of a file after its header, with 1-based line numbers; the header
/// must be `header`.
fn rows<'a>(
    bytes: &'a [u8],
    name: &'a str,
    header: &[&str],
) -> Result<Vec<(u64, Vec<&'a str>)>, DataError> {
    let mut lines = utf8_lines(bytes, name);
    let first = lines
        .next()
        .transpose()?
        .ok_or_else(|| invalid(name, "line 1", "empty file; expected a header"))?;
    let found: Vec<&str> = first.1.split('\t').map(str::trim).collect();
    if found != header {
        return Err(invalid(
            name,
            "line 1",
            format!("header {found:?}, expected {header:?}"),
        ));
    }
    let mut out = Vec::new();
    for line in lines {
        let (n, text) = line?;
        if text.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = text.split('\t').collect();
        if fields.len() != header.len() {
            return Err(invalid(
                name,
                format!("line {n}"),
                format!(
                    "{} tab-separated fields, expected {}",
                    fields.len(),
                    header.len()
                ),
            ));
        }
        out.push((n, fields));
    }
    Ok(out)
}

fn read_all(mut r: impl Read, name: &str) -> Result<Vec<u8>, DataError> {
    let mut bytes = Vec::new();
    r.read_to_end(&mut bytes)
        .map_err(|e| bias_core::CoreError::io(name, e))?;
    Ok(bytes)
}

/// Reads the three files (each with the name its errors give).
///
/// # Errors
/// [`DataError::InvalidRecord`] naming the file and line for a wrong header or field count, a
/// sentence id that is not `occupation.participant.answer.gender.txt`, a sentence without a
/// template for its occupation and answer, a template without exactly one pronoun slot, a
/// sentence that does not contain its pronoun, or a statistic that is not a number.
pub fn read_winogender(
    sentences: impl Read,
    sentences_name: &str,
    templates: impl Read,
    templates_name: &str,
    stats: impl Read,
    stats_name: &str,
) -> Result<Winogender, DataError> {
    let template_bytes = read_all(templates, templates_name)?;
    let mut slots: HashMap<(String, String), &str> = HashMap::new();
    for (n, f) in rows(
        &template_bytes,
        templates_name,
        &[
            "occupation(0)",
            "other-participant(1)",
            "answer",
            "sentence",
        ],
    )? {
        let found: Vec<&str> = ["$NOM_PRONOUN", "$POSS_PRONOUN", "$ACC_PRONOUN"]
            .into_iter()
            .filter(|s| f[3].contains(s))
            .collect();
        let [slot] = found[..] else {
            return Err(invalid(
                templates_name,
                format!("line {n}"),
                format!("{} pronoun slots in the template; expected one of $NOM_PRONOUN, $POSS_PRONOUN, $ACC_PRONOUN", found.len()),
            ));
        };
        slots.insert((f[0].trim().to_owned(), f[2].trim().to_owned()), slot);
    }
    let sentence_bytes = read_all(sentences, sentences_name)?;
    let mut out = Vec::new();
    for (n, f) in rows(&sentence_bytes, sentences_name, &["sentid", "sentence"])? {
        let at = || format!("line {n}");
        let sentid = f[0].trim();
        let parts: Vec<&str> = sentid.split('.').collect();
        let [occupation, participant, answer, gender, "txt"] = parts[..] else {
            return Err(invalid(
                sentences_name,
                at(),
                format!("sentence id `{sentid}` is not occupation.participant.answer.gender.txt"),
            ));
        };
        let answer_enum = match answer {
            "0" => Referent::Occupation,
            "1" => Referent::Participant,
            other => {
                return Err(invalid(
                    sentences_name,
                    at(),
                    format!("answer `{other}` is neither 0 nor 1"),
                ))
            }
        };
        let gender = match gender {
            "male" => PronounGender::Male,
            "female" => PronounGender::Female,
            "neutral" => PronounGender::Neutral,
            other => {
                return Err(invalid(
                    sentences_name,
                    at(),
                    format!("gender `{other}` is none of male, female, neutral"),
                ))
            }
        };
        let slot = slots
            .get(&(occupation.to_owned(), answer.to_owned()))
            .ok_or_else(|| {
                invalid(
                    sentences_name,
                    at(),
                    format!(
                        "no template in {templates_name} for {occupation} with answer {answer}"
                    ),
                )
            })?;
        let word = pronoun(slot, gender).expect("a known slot");
        let sentence = f[1].trim().to_owned();
        let has_word = sentence
            .split(|c: char| !c.is_alphabetic())
            .any(|w| w.eq_ignore_ascii_case(word));
        if !has_word {
            return Err(invalid(
                sentences_name,
                at(),
                format!("the sentence does not contain its pronoun `{word}` ({slot}, {gender:?})"),
            ));
        }
        out.push(WinogenderSentence {
            sentid: sentid.to_owned(),
            sentence,
            occupation: occupation.to_owned(),
            participant: participant.to_owned(),
            answer: answer_enum,
            gender,
            pronoun: word.to_owned(),
        });
    }
    let stats_bytes = read_all(stats, stats_name)?;
    let mut stats_map = HashMap::new();
    for (n, f) in rows(
        &stats_bytes,
        stats_name,
        &[
            "occupation",
            "bergsma_pct_female",
            "bls_pct_female",
            "bls_year",
        ],
    )? {
        let number = |i: usize, what: &str| -> Result<f64, DataError> {
            f[i].trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    invalid(
                        stats_name,
                        format!("line {n}"),
                        format!("{what} `{}` is not a number", f[i]),
                    )
                })
        };
        let year = f[3].trim().parse::<u32>().map_err(|_| {
            invalid(
                stats_name,
                format!("line {n}"),
                format!("bls_year `{}` is not a year", f[3]),
            )
        })?;
        stats_map.insert(
            f[0].trim().to_owned(),
            OccupationStats {
                bergsma_pct_female: number(1, "bergsma_pct_female")?,
                bls_pct_female: number(2, "bls_pct_female")?,
                bls_year: year,
            },
        );
    }
    Ok(Winogender {
        sentences: out,
        stats: stats_map,
    })
}

/// Reads `all_sentences.tsv`, `templates.tsv` and `occupations-stats.tsv` from `dir`
/// ([`crate::layout::winogender_dir`]).
///
/// # Errors
/// As [`read_winogender`]; an I/O error naming a missing file.
pub fn read_winogender_dir(dir: impl AsRef<Path>) -> Result<Winogender, DataError> {
    let dir = dir.as_ref();
    let (s, t, o) = (
        dir.join("all_sentences.tsv"),
        dir.join("templates.tsv"),
        dir.join("occupations-stats.tsv"),
    );
    read_winogender(
        read_file(&s)?.as_slice(),
        &source_name(&s),
        read_file(&t)?.as_slice(),
        &source_name(&t),
        read_file(&o)?.as_slice(),
        &source_name(&o),
    )
}
