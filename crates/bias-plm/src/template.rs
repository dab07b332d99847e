//! The template-based score TBS (Kurita et al. 2019, as kaneko2023 Appendix A uses it) and the
//! he/she probe of kaneko2023 §3.4.
//!
//! A [`Template`] holds a gender slot `[G]`, a target slot `[T]` and any number of article slots
//! `[A]` (the default is `"[G] is [A] [T]."`, kaneko2023's `"[MASK] is a/an [Occupation]."`).
//!
//! **TBS** ([`template_based_score`], kaneko2023 Appendix A). For a target `T`, with `[G]` masked and `T`
//! filled in, read at the gender slot
//!
//! `a_T = ln Σ_{m ∈ male} P(m) − ln Σ_{f ∈ female} P(f)`,
//!
//! and the prior `a_prior`, the same quantity at the gender slot when every word-piece of `T` is
//! masked too (so the sentence keeps its length: `"[MASK] is a [MASK] [MASK]."`). The bias of `T`
//! is `a_T − a_prior` (positive: male-leaning) and TBS is its mean over targets. This follows the
//! paper; Kurita's published code reads the prior one position off for templates that start with
//! the gender slot.
//!
//! **Probe** ([`gender_probe`], kaneko2023 §3.4 and Figure 2). For each occupation, the softmax
//! probabilities over the whole vocabulary of `he` and `she` (configurable) at the mask of
//! `"[MASK] is a/an [occupation]."`, and their means over occupations.
//!
//! # How words map to tokens
//!
//! The model sees the template filled with the target and a gender word, tokenised by the model's
//! own tokenizer; the gender slot becomes the one token that covers the word's characters (the
//! characters it covers besides the word may only be white space: `Ġhe` / `▁he` mid-sentence),
//! and that position is then replaced by the mask token. So a word is read as the token the
//! tokenizer produces for it *in its place*: `he` in uncased BERT, `He` at the start of a
//! RoBERTa sentence, `Ġhe` after a space. When the gender slot starts a sentence (only white
//! space before it, or `.`, `!`, `?` and white space) the capitalised word (`He`) is tried first
//! and the word as given second, so a cased vocabulary reads `He` when it has it and an uncased
//! one (which lower-cases `He` itself) reads `he`. A word that is not one token either way is an
//! error naming it. The target's positions are the tokens that overlap its characters (a piece
//! such as ALBERT's `er.` that also covers the full stop is masked with it), with any
//! white-space-only pieces right before them (ALBERT's lone `▁` before a rare word).
//!
//! # Example
//!
//! ```no_run
//! use bias_plm::template::{gender_probe, template_based_score, ProbeOptions, TbsOptions};
//! use bias_plm::{DeviceSpec, PlmModel, PlmTokenizer};
//!
//! let dir = "path/to/bert-base-uncased";
//! let model = PlmModel::load(dir, DeviceSpec::Auto, tch::Kind::Float)?;
//! let tokenizer = PlmTokenizer::from_dir(dir)?;
//! let targets = ["writer".to_string(), "musician".to_string()];
//! let tbs = template_based_score(&model, &tokenizer, model.device(), &targets, &TbsOptions::default())?;
//! println!("TBS = {:.3}", tbs.mean);
//! let probe = gender_probe(&model, &tokenizer, model.device(), &targets, &ProbeOptions::default())?;
//! println!("P(he) = {:.3}, P(she) = {:.3}", probe.means[0], probe.means[1]);
//! # Ok::<(), bias_plm::PlmError>(())
//! ```

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use bias_core::CoreError;
use serde::Serialize;
use tch::Device;

use crate::engine::{BatchOptions, Engine, Job, Target};
use crate::model::MaskedLanguageModel;
use crate::{PlmError, PlmTokenizer};

/// The gender slot of a [`Template`] (the masked position that is read).
pub const GENDER_SLOT: &str = "[G]";
/// The target slot of a [`Template`] (an occupation in kaneko2023 §3.4).
pub const TARGET_SLOT: &str = "[T]";
/// The article slot of a [`Template`]: `a`, or `an` before a target that starts with a vowel.
pub const ARTICLE_SLOT: &str = "[A]";
/// kaneko2023 §3.4's `"[MASK] is a/an [Occupation]."`, the default template.
pub const DEFAULT_TEMPLATE: &str = "[G] is [A] [T].";

/// One part of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Gender,
    Target,
    Article,
}

/// A sentence template with exactly one gender slot [`GENDER_SLOT`], exactly one target slot
/// [`TARGET_SLOT`] and any number of article slots [`ARTICLE_SLOT`] (Kurita et al. 2019's
/// `"[TARGET] is a [ATTRIBUTE]"` templates; kaneko2023 §3.4). [`Default`] is [`DEFAULT_TEMPLATE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    text: String,
    pieces: Vec<Piece>,
}

/// A template filled with a gender word and a target, with where each landed (byte ranges).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilledTemplate {
    /// The sentence.
    pub text: String,
    /// Byte range of the gender word in `text`.
    pub gender: Range<usize>,
    /// Byte range of the target in `text`.
    pub target: Range<usize>,
}

impl Template {
    /// Parses a template.
    ///
    /// # Errors
    /// [`CoreError::InvalidInput`] (in [`PlmError::Core`]) quoting the template if it has no
    /// [`GENDER_SLOT`] or [`TARGET_SLOT`], or either more than once.
    pub fn new(text: &str) -> Result<Self, PlmError> {
        let pieces = parse_pieces(text);
        for (slot, piece, role) in [
            (GENDER_SLOT, Piece::Gender, "the gender word"),
            (TARGET_SLOT, Piece::Target, "the target word"),
        ] {
            let n = pieces.iter().filter(|p| **p == piece).count();
            if n != 1 {
                let found = if n == 0 { "no" } else { "more than one" };
                return Err(invalid(format!(
                    "template {text:?} has {found} {slot} slot ({role}); a template needs \
                     exactly one {GENDER_SLOT} and one {TARGET_SLOT}, e.g. {DEFAULT_TEMPLATE:?}"
                )));
            }
        }
        Ok(Template {
            text: text.to_owned(),
            pieces,
        })
    }

    /// The template as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the gender slot starts a sentence (only white space before it, or text ending in
    /// `.`, `!` or `?` and white space), where a capitalised gender word is tried first.
    pub fn gender_starts_sentence(&self) -> bool {
        let before: String = self
            .pieces
            .iter()
            .take_while(|p| **p != Piece::Gender)
            .map(|p| match p {
                Piece::Text(t) => t.as_str(),
                _ => "x", // a slot before [G] is a word
            })
            .collect();
        let before = before.trim_end();
        before.is_empty() || before.ends_with(['.', '!', '?'])
    }

    /// The template with `gender` in [`GENDER_SLOT`], `target` in [`TARGET_SLOT`] and
    /// [`indefinite_article`]`(target)` in each [`ARTICLE_SLOT`].
    pub fn fill(&self, gender: &str, target: &str) -> FilledTemplate {
        let mut text = String::new();
        let (mut g, mut t) = (0..0, 0..0);
        for piece in &self.pieces {
            let start = text.len();
            match piece {
                Piece::Text(s) => text.push_str(s),
                Piece::Article => text.push_str(indefinite_article(target)),
                Piece::Gender => {
                    text.push_str(gender);
                    g = start..text.len();
                }
                Piece::Target => {
                    text.push_str(target);
                    t = start..text.len();
                }
            }
        }
        FilledTemplate {
            text,
            gender: g,
            target: t,
        }
    }
}

impl Default for Template {
    fn default() -> Self {
        Template::new(DEFAULT_TEMPLATE).expect("the default template is valid")
    }
}

impl FromStr for Template {
    type Err = PlmError;
    fn from_str(s: &str) -> Result<Self, PlmError> {
        Template::new(s)
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Splits a template into text and slots.
fn parse_pieces(text: &str) -> Vec<Piece> {
    let slots = [
        (GENDER_SLOT, Piece::Gender),
        (TARGET_SLOT, Piece::Target),
        (ARTICLE_SLOT, Piece::Article),
    ];
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some((slot, piece)) = slots.iter().find(|(s, _)| rest.starts_with(s)) {
            if !literal.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut literal)));
            }
            pieces.push(piece.clone());
            rest = &rest[slot.len()..];
        } else {
            literal.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Text(literal));
    }
    pieces
}

/// `"an"` if `word` starts with a vowel letter (a, e, i, o, u, either case), else `"a"`: the
/// spelling rule of kaneko2023's "a/an". Pronunciation is not considered ("a university",
/// "an hour" come out as "an university", "a hour"); give such targets a template without `[A]`.
pub fn indefinite_article(word: &str) -> &'static str {
    match word.trim_start().chars().next() {
        Some(c) if "aeiouAEIOU".contains(c) => "an",
        _ => "a",
    }
}

/// Options of [`template_based_score`].
#[derive(Debug, Clone, PartialEq)]
pub struct TbsOptions {
    /// Male words, summed in `ln Σ_m P(m)`; default `["he"]` (Kurita et al. 2019).
    pub male: Vec<String>,
    /// Female words, summed in `ln Σ_f P(f)`; default `["she"]`.
    pub female: Vec<String>,
    /// The template; default [`DEFAULT_TEMPLATE`].
    pub template: Template,
    /// Batching of the forward passes.
    pub batch: BatchOptions,
}

impl Default for TbsOptions {
    fn default() -> Self {
        TbsOptions {
            male: vec!["he".into()],
            female: vec!["she".into()],
            template: Template::default(),
            batch: BatchOptions::default(),
        }
    }
}

/// TBS of one target (kaneko2023 Appendix A).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TbsRow {
    /// The target as given.
    pub target: String,
    /// The sentence read for `a_target`, gender slot shown as the mask token
    /// (`[MASK] is a writer.`).
    pub sentence: String,
    /// The sentence read for `a_prior`, one mask token shown per word-piece of the target
    /// (`[MASK] is a [MASK].`).
    pub prior_sentence: String,
    /// Word-pieces of the target (mask tokens in the prior sentence).
    pub target_tokens: usize,
    /// `ln Σ_m P(m) − ln Σ_f P(f)` at the gender slot, target filled.
    pub a_target: f64,
    /// The same with the target masked too.
    pub a_prior: f64,
    /// `a_target − a_prior`; positive means male-leaning.
    pub score: f64,
}

/// The result of [`template_based_score`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TbsResult {
    /// The vocabulary tokens the male words were read as (see the module docs).
    pub male_tokens: Vec<String>,
    /// The vocabulary tokens the female words were read as.
    pub female_tokens: Vec<String>,
    /// One row per target, in input order.
    pub rows: Vec<TbsRow>,
    /// TBS: the mean of the rows' scores.
    pub mean: f64,
}

impl TbsResult {
    /// Every sentence given to the model, in order (each target's sentence, then its prior
    /// sentence).
    pub fn sentences(&self) -> Vec<&str> {
        self.rows
            .iter()
            .flat_map(|r| [r.sentence.as_str(), r.prior_sentence.as_str()])
            .collect()
    }
}

/// Options of [`gender_probe`].
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeOptions {
    /// Words whose probabilities are read at the gender slot; default `["he", "she"]`.
    pub words: Vec<String>,
    /// The template; default [`DEFAULT_TEMPLATE`].
    pub template: Template,
    /// Batching of the forward passes.
    pub batch: BatchOptions,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions {
            words: vec!["he".into(), "she".into()],
            template: Template::default(),
            batch: BatchOptions::default(),
        }
    }
}

/// The probe of one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeRow {
    /// The target as given.
    pub target: String,
    /// The sentence read, gender slot shown as the mask token.
    pub sentence: String,
    /// `P(word)` at the gender slot (softmax over the whole vocabulary), per probe word in order.
    pub probabilities: Vec<f64>,
}

/// The result of [`gender_probe`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeResult {
    /// The probe words, in order.
    pub words: Vec<String>,
    /// The vocabulary tokens they were read as (see the module docs).
    pub tokens: Vec<String>,
    /// One row per target, in input order.
    pub rows: Vec<ProbeRow>,
    /// Per word, the mean probability over targets (kaneko2023 Figure 2).
    pub means: Vec<f64>,
}

/// TBS (Kurita et al. 2019; kaneko2023 Appendix A) of `targets` under
/// `options.template`: per target `a_T − a_prior` and their mean (see the module docs). All
/// sentences run in padded batches on `device` (the model's device), and the MLM head is applied
/// only at the gender slots.
///
/// # Errors
/// [`CoreError::InvalidInput`] (in [`PlmError::Core`]) for no targets, an empty target, an empty
/// word list, a gender word that is not one token of the vocabulary in its slot (naming it), or
/// two gender words read as the same token; [`PlmError::MissingSpecialToken`] without a mask or
/// pad token; those of [`Engine::run`] and the model (a sentence too long for it).
pub fn template_based_score(
    model: &dyn MaskedLanguageModel,
    tokenizer: &PlmTokenizer,
    device: Device,
    targets: &[String],
    options: &TbsOptions,
) -> Result<TbsResult, PlmError> {
    let words: Vec<String> = options
        .male
        .iter()
        .chain(&options.female)
        .cloned()
        .collect();
    nonempty("male words", &options.male)?;
    nonempty("female words", &options.female)?;
    let set = prepare_all(tokenizer, &options.template, &words, targets)?;
    let jobs: Vec<Job> = set
        .sentences
        .iter()
        .flat_map(|s| [s.job(false), s.job(true)])
        .collect();
    let mask = tokenizer.mask_id()?;
    let mut engine = Engine::new(model, mask, tokenizer.pad_id()?, device, options.batch);
    let results = engine.run(&jobs)?;
    let n_male = options.male.len();
    let log_odds = |lp: &[f64]| log_sum_exp(&lp[..n_male]) - log_sum_exp(&lp[n_male..]);
    let rows: Vec<TbsRow> = set
        .sentences
        .iter()
        .zip(results.chunks(2))
        .map(|(s, pair)| {
            let a_target = log_odds(&pair[0].log_probs[0]);
            let a_prior = log_odds(&pair[1].log_probs[0]);
            TbsRow {
                target: s.target.clone(),
                sentence: s.display.clone(),
                prior_sentence: s.prior_display.clone(),
                target_tokens: s.target_pos.len(),
                a_target,
                a_prior,
                score: a_target - a_prior,
            }
        })
        .collect();
    let mean = rows.iter().map(|r| r.score).sum::<f64>() / rows.len() as f64;
    let (male_tokens, female_tokens) = set.tokens.split_at(n_male);
    Ok(TbsResult {
        male_tokens: male_tokens.to_vec(),
        female_tokens: female_tokens.to_vec(),
        rows,
        mean,
    })
}

/// The probe of kaneko2023 §3.4: for each target, `P(word)` of each of `options.words` at the
/// gender slot of `options.template` with the target filled in (softmax over the whole
/// vocabulary), and each word's mean over targets (the averages of kaneko2023 Figure 2). Batched
/// as [`template_based_score`].
///
/// # Errors
/// As [`template_based_score`], for `options.words`.
pub fn gender_probe(
    model: &dyn MaskedLanguageModel,
    tokenizer: &PlmTokenizer,
    device: Device,
    targets: &[String],
    options: &ProbeOptions,
) -> Result<ProbeResult, PlmError> {
    nonempty("probe words", &options.words)?;
    let set = prepare_all(tokenizer, &options.template, &options.words, targets)?;
    let jobs: Vec<Job> = set.sentences.iter().map(|s| s.job(false)).collect();
    let mask = tokenizer.mask_id()?;
    let mut engine = Engine::new(model, mask, tokenizer.pad_id()?, device, options.batch);
    let results = engine.run(&jobs)?;
    let rows: Vec<ProbeRow> = set
        .sentences
        .iter()
        .zip(&results)
        .map(|(s, r)| ProbeRow {
            target: s.target.clone(),
            sentence: s.display.clone(),
            probabilities: r.log_probs[0].iter().map(|lp| lp.exp()).collect(),
        })
        .collect();
    let means = (0..options.words.len())
        .map(|k| rows.iter().map(|r| r.probabilities[k]).sum::<f64>() / rows.len() as f64)
        .collect();
    Ok(ProbeResult {
        words: options.words.clone(),
        tokens: set.tokens,
        rows,
        means,
    })
}

/// One target's sentence, tokenised, with its gender slot and target positions.
#[derive(Debug)]
struct Sentence {
    target: String,
    /// Token ids with the first word in the gender slot (the slot is masked by the jobs).
    ids: Vec<i64>,
    gender_pos: usize,
    target_pos: Vec<usize>,
    /// The token id of each word in the gender slot.
    word_ids: Vec<i64>,
    display: String,
    prior_display: String,
}

impl Sentence {
    /// The job reading the words' log-probabilities at the gender slot, with the target masked
    /// too for the prior.
    fn job(&self, prior: bool) -> Job {
        let mut masked = vec![self.gender_pos];
        if prior {
            masked.extend(&self.target_pos);
        }
        Job {
            ids: self.ids.clone(),
            masked,
            targets: vec![Target {
                position: self.gender_pos,
                tokens: self.word_ids.clone(),
            }],
            attention: false,
        }
    }
}

/// Every target's [`Sentence`], and the token strings the words were read as.
struct SentenceSet {
    sentences: Vec<Sentence>,
    tokens: Vec<String>,
}

fn prepare_all(
    tokenizer: &PlmTokenizer,
    template: &Template,
    words: &[String],
    targets: &[String],
) -> Result<SentenceSet, PlmError> {
    nonempty("targets", targets)?;
    let sentences = targets
        .iter()
        .map(|t| prepare(tokenizer, template, words, t))
        .collect::<Result<Vec<_>, _>>()?;
    // A sane tokenizer reads a word as the same token in every sentence; say so if not, since
    // the rows would not measure the same thing.
    let first = &sentences[0];
    if let Some(other) = sentences.iter().find(|s| s.word_ids != first.word_ids) {
        return Err(invalid(format!(
            "the gender words {words:?} are read as tokens {:?} in {:?} but {:?} in {:?}; use a \
             template where the gender slot does not depend on the target",
            token_strings(tokenizer, &first.word_ids),
            first.display,
            token_strings(tokenizer, &other.word_ids),
            other.display
        )));
    }
    let tokens = token_strings(tokenizer, &first.word_ids);
    Ok(SentenceSet { sentences, tokens })
}

/// Tokenises the template filled with `target` and each word in turn.
fn prepare(
    tokenizer: &PlmTokenizer,
    template: &Template,
    words: &[String],
    target: &str,
) -> Result<Sentence, PlmError> {
    if target.trim().is_empty() {
        return Err(invalid("an empty target was given".into()));
    }
    let encodings = words
        .iter()
        .map(|w| encode_word(tokenizer, template, w, target))
        .collect::<Result<Vec<_>, _>>()?;
    let first = &encodings[0];
    for (w, e) in words.iter().zip(&encodings) {
        let mut ids = e.ids.clone();
        if let Some(id) = ids.get_mut(first.gender_pos) {
            *id = first.ids[first.gender_pos];
        }
        if (e.gender_pos, &e.target_pos, &ids) != (first.gender_pos, &first.target_pos, &first.ids)
        {
            return Err(invalid(format!(
                "with target {target:?}, the gender word {w:?} changes how the rest of the \
                 sentence is tokenised (compared with {:?}); the words must be interchangeable",
                words[0]
            )));
        }
    }
    let word_ids: Vec<i64> = encodings.iter().map(|e| e.ids[e.gender_pos]).collect();
    check_distinct(tokenizer, words, &word_ids)?;
    let (display, prior_display) = displays(tokenizer, template, target, first.target_pos.len())?;
    Ok(Sentence {
        target: target.to_owned(),
        ids: first.ids.clone(),
        gender_pos: first.gender_pos,
        target_pos: first.target_pos.clone(),
        word_ids,
        display,
        prior_display,
    })
}

/// A sentence tokenised with one gender word.
struct Encoded {
    ids: Vec<i64>,
    gender_pos: usize,
    target_pos: Vec<usize>,
}

/// Tokenises the template with `word` (capitalised first at a sentence start; see the module
/// docs), failing if it is not one token.
fn encode_word(
    tokenizer: &PlmTokenizer,
    template: &Template,
    word: &str,
    target: &str,
) -> Result<Encoded, PlmError> {
    let word = word.trim();
    if word.is_empty() {
        return Err(invalid("an empty gender word was given".into()));
    }
    let mut candidates = Vec::new();
    if template.gender_starts_sentence() {
        candidates.push(capitalise(word));
    }
    candidates.push(word.to_owned());
    candidates.dedup();
    let mut pieces = Vec::new();
    for candidate in &candidates {
        match encode_filled(tokenizer, &template.fill(candidate, target))? {
            Ok(encoded) => return Ok(encoded),
            Err(p) => pieces.push(format!("{candidate:?} → {p:?}")),
        }
    }
    Err(invalid(format!(
        "gender word {word:?} is not a single token of the vocabulary of {} in {:?} (it \
         tokenises as {}); choose words the model has as one token",
        tokenizer.path().display(),
        template.fill(word, target).text,
        pieces.join(", ")
    )))
}

/// Tokenises a filled template; `Err(pieces)` (inner) if the gender word is not one token.
fn encode_filled(
    tokenizer: &PlmTokenizer,
    filled: &FilledTemplate,
) -> Result<Result<Encoded, Vec<String>>, PlmError> {
    let enc = tokenizer.encode_detailed(&filled.text)?;
    let overlapping = |span: &Range<usize>| -> Vec<usize> {
        (0..enc.ids.len())
            .filter(|&i| !enc.special[i])
            .filter(|&i| enc.offsets[i].0 < span.end && span.start < enc.offsets[i].1)
            .collect()
    };
    let gender = overlapping(&filled.gender);
    let mut target_pos = overlapping(&filled.target);
    // A white-space-only piece right before the target (ALBERT's lone `▁` before a rare word)
    // belongs to it: masking the target must leave no trace of it.
    let blank = |i: usize| {
        let (s, e) = enc.offsets[i];
        !enc.special[i] && filled.text.get(s..e).is_some_and(|t| t.trim().is_empty())
    };
    while let Some(&first) = target_pos.first() {
        match first.checked_sub(1) {
            Some(k) if blank(k) => target_pos.insert(0, k),
            _ => break,
        }
    }
    if target_pos.is_empty() {
        return Err(invalid(format!(
            "the target in {:?} produces no token",
            filled.text
        )));
    }
    // The token may cover white space besides the word (`Ġhe`), nothing else.
    let clean = |i: usize| {
        let (s, e) = enc.offsets[i];
        s <= filled.gender.start
            && e >= filled.gender.end
            && filled.text[s..filled.gender.start].trim().is_empty()
            && filled.text[filled.gender.end..e].trim().is_empty()
    };
    match gender.as_slice() {
        [g] if clean(*g) && !target_pos.contains(g) => Ok(Ok(Encoded {
            ids: enc.ids,
            gender_pos: *g,
            target_pos,
        })),
        _ => Ok(Err(token_strings(
            tokenizer,
            &gender.iter().map(|&i| enc.ids[i]).collect::<Vec<_>>(),
        ))),
    }
}

/// Errors if two words are read as the same token (they would be counted twice, or on both
/// sides).
fn check_distinct(tokenizer: &PlmTokenizer, words: &[String], ids: &[i64]) -> Result<(), PlmError> {
    for j in 1..ids.len() {
        if let Some(i) = (0..j).find(|&i| ids[i] == ids[j]) {
            return Err(invalid(format!(
                "the gender words {:?} and {:?} are both read as the token {:?}; list each \
                 token once",
                words[i],
                words[j],
                token_strings(tokenizer, &[ids[i]])[0]
            )));
        }
    }
    Ok(())
}

/// The sentence and the prior sentence as shown in results, with mask tokens in place.
fn displays(
    tokenizer: &PlmTokenizer,
    template: &Template,
    target: &str,
    pieces: usize,
) -> Result<(String, String), PlmError> {
    let mask = token_strings(tokenizer, &[tokenizer.mask_id()?]).remove(0);
    let filled = template.fill(&mask, target);
    let masks = vec![mask.as_str(); pieces].join(" ");
    let prior = format!(
        "{}{masks}{}",
        &filled.text[..filled.target.start],
        &filled.text[filled.target.end..]
    );
    Ok((filled.text, prior))
}

fn token_strings(tokenizer: &PlmTokenizer, ids: &[i64]) -> Vec<String> {
    ids.iter()
        .map(|&id| {
            tokenizer
                .id_to_token(id)
                .unwrap_or_else(|| format!("#{id}"))
        })
        .collect()
}

/// `word` with its first letter in upper case.
fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `ln Σ exp(x)`, shifted by the maximum so that no term overflows or underflows to 0.
fn log_sum_exp(xs: &[f64]) -> f64 {
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return max;
    }
    max + xs.iter().map(|x| (x - max).exp()).sum::<f64>().ln()
}

fn nonempty(what: &str, list: &[String]) -> Result<(), PlmError> {
    if list.is_empty() {
        return Err(invalid(format!("no {what} were given")));
    }
    Ok(())
}

fn invalid(message: String) -> PlmError {
    CoreError::InvalidInput(message).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn default_template_fills_with_articles() {
        let t = Template::default();
        assert_eq!(t.text(), DEFAULT_TEMPLATE);
        let f = t.fill("he", "writer");
        assert_eq!(f.text, "he is a writer.");
        assert_eq!(&f.text[f.gender.clone()], "he");
        assert_eq!(&f.text[f.target.clone()], "writer");
        let f = t.fill("She", "engineer");
        assert_eq!(f.text, "She is an engineer.");
        assert_eq!(&f.text[f.target.clone()], "engineer");
        assert_eq!(t.fill("he", "Officer").text, "he is an Officer.");
        assert_eq!(t.fill("he", "civil servant").text, "he is a civil servant.");
    }

    #[test]
    fn article_rule() {
        for (w, a) in [
            ("apple", "an"),
            ("Engineer", "an"),
            ("idol", "an"),
            ("umpire", "an"),
            ("owl", "an"),
            ("nurse", "a"),
            ("youth", "a"),
            ("hour", "a"),
            ("", "a"),
            ("Émile", "a"),
        ] {
            assert_eq!(indefinite_article(w), a, "{w}");
        }
    }

    #[test]
    fn template_validation() {
        for (text, needle) in [
            ("is a [T].", "has no [G] slot"),
            ("[G] is a nurse.", "has no [T] slot"),
            ("[G] and [G] are [T]s.", "more than one [G]"),
            ("[G] is a [T] and a [T].", "more than one [T]"),
            ("", "has no [G]"),
        ] {
            let msg = Template::new(text).unwrap_err().to_string();
            assert!(msg.contains(needle), "{text:?}: {msg}");
            assert!(msg.contains(&format!("{text:?}")), "{msg}");
        }
        // Only the exact slot names are slots: `[T2]` is text.
        let t: Template = "[G] is [A] [T2] [T]".parse().unwrap();
        assert_eq!(t.fill("he", "owl").text, "he is an [T2] owl");
        let t = Template::new("[A] [T] said that [G] was late; [A] [T] indeed.");
        assert!(t.is_err());
        let t = Template::new("[A] [T] said that [G] was late.").unwrap();
        assert_eq!(
            t.fill("he", "actor").text,
            "an actor said that he was late."
        );
        assert!(!t.gender_starts_sentence());
        assert!(Template::new("  [G] is [T].")
            .unwrap()
            .gender_starts_sentence());
        assert!(Template::new("Look! [G] is [T].")
            .unwrap()
            .gender_starts_sentence());
        assert!(!Template::new("[T]. [A] [G]")
            .unwrap()
            .gender_starts_sentence());
        assert_eq!(Template::default().to_string(), DEFAULT_TEMPLATE);
    }

    #[test]
    fn helpers() {
        assert_eq!(capitalise("he"), "He");
        assert_eq!(capitalise("élise"), "Élise");
        assert_eq!(capitalise(""), "");
        let lse = log_sum_exp(&[-1000.0, -1000.0]);
        assert_abs_diff_eq!(lse, -1000.0 + 2f64.ln(), epsilon = 1e-12);
        assert_eq!(log_sum_exp(&[f64::NEG_INFINITY]), f64::NEG_INFINITY);
    }
}
