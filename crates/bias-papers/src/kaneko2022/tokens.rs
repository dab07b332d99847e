//! Token-prediction accuracy of Kaneko & Bollegala (2022), "Unmasking the mask", §4.2 ("Token
//! Prediction Accuracy") and §4.5 ("Meaningful Associations and AUL"): the accuracies and
//! McNemar marks of Table 1, Table 4 (shuffled tokens and unrelated sentences), and the two
//! named options of what is counted.
//!
//! A prediction is correct when the model's most likely token at a position is the original token
//! there (§4.2). Each scorer predicts with the input it scores with:
//!
//! - AUL (and AULA, whose accuracy is the same, §4.2): the unmasked sentence, one pass
//!   (Eq. 4);
//! - CPS (CrowS-Pairs): each unmodified token masked alone (Eq. 3);
//! - SSS (StereoSet): every modified token masked at once (Eq. 2).
//!
//! The unmodified and modified tokens are those of the `difflib` alignment of the pair's token
//! ids (stereotypical sentence first, as the authors' `get_span`), the first and last unmodified
//! positions (the special tokens) dropped for CPS.
//!
//! What is counted is chosen by [`AccuracyOptions`]:
//!
//! - [`AulTokens`]: which positions of a sentence AUL's accuracy covers. The paper (§4.2) counts,
//!   on CrowS-Pairs, "the unmodified tokens between the two sentences in a sentence pair" and, on
//!   StereoSet, the candidate filling the slot, i.e. the positions its masked counterpart (CPS,
//!   SSS) predicts ([`AulTokens::Paper`], the default). The authors' `evaluate.py` (commit
//!   6b10239) prints another accuracy, `Accuracy:`, over every position a method scores
//!   ([`authors_accuracy`], [`AccuracyDefinition::Authors`]). [`AulTokens::Sentence`] counts every non-special token (the positions AUL's score
//!   averages over, the authors' `[1:-1]`), [`AulTokens::WithSpecial`] every token.
//! - [`StereoSetAccuracy`]: on StereoSet the paper (§4.2) counts test cases: "we consider the
//!   prediction to be accurate if the predicted sequence of subtokens exactly matches at least one
//!   of the two candidates" ([`StereoSetAccuracy::Item`], the default: a sentence is right when
//!   every counted position is; an item when either of its sentences is).
//!   [`StereoSetAccuracy::Token`] counts positions, as on CrowS-Pairs.
//!
//! McNemar's test (exact binomial, with the χ² with continuity correction beside it;
//! [`bias_metrics::stats::mcnemar_exact`], checked against `statsmodels`) pairs the outcomes of the
//! same unit: for Table 1, AUL's and the masked scorer's prediction of the same token (the masked
//! scorer's positions) or of the same item; for Table 4, a token's prediction in the original
//! sentence and in the shuffled one, where it sits elsewhere (the shuffle moves tokens, it does
//! not change them, §4.5). The unrelated sentences have other tokens than the original ones, so,
//! as the paper says under Table 4, no paired test is made for them.
//!
//! Shuffling: the non-special subword tokens of each sentence are permuted (the first and last,
//! special, tokens stay), seeded per sentence from [`SHUFFLE_SEED`], the pair's index and the side,
//! so a pair's shuffle does not depend on how many pairs are studied. The paper shuffles "the
//! tokens in a test sentence" and notes that "the set of tokens in a sentence is unchanged under
//! shuffling"; shuffling words and tokenising again would change the tokens.

use crate::PaperError;
use bias_core::Scorer;
use std::str::FromStr;

use bias_core::{
    Choice, DatasetScorer, MaybeTokenPredictor, SentencePair, TokenPredictor, TokenQuery,
};
use bias_data::difflib::align_tokens;
use bias_metrics::stats::{mcnemar_chi2, mcnemar_exact, McNemar};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::{parse_choice, Cell, DataSet, Reproduction, Status, Study, Table};
use bias_robust::RobustError;

/// `FromStr` (any `name` in `ALL`, case aside, through [`parse_choice`], whose error names the
/// option's [`Choice::WHAT`] and lists every name) for named options; `Display` comes with
/// [`bias_core::choice!`].
macro_rules! named_choice {
    ($($ty:ty),+) => {$(
        impl FromStr for $ty {
            type Err = RobustError;
            fn from_str(s: &str) -> Result<Self, RobustError> {
                parse_choice(&<$ty>::ALL, <$ty>::name, s, <$ty as Choice>::WHAT)
            }
        }
    )+};
}

/// The seed of Table 4's shuffles (each sentence's generator is this seed with the stream
/// `2 × pair index + side`).
pub const SHUFFLE_SEED: u64 = 20220222;

/// The significance level of the paper's McNemar marks (Tables 1 and 4: "p < 0.01").
pub const MCNEMAR_ALPHA: f64 = 0.01;

bias_core::choice! {
    /// Which positions of a sentence AUL's token-prediction accuracy covers (Kaneko & Bollegala
    /// 2022, §4.2).
    #[derive(Default)]
    pub enum AulTokens: "AUL accuracy tokens" {
        /// The positions the data set's masked scorer predicts: the unmodified tokens of the pair
        /// on CrowS-Pairs (as CPS), the modified tokens (the candidate) on StereoSet (as SSS), so
        /// AUL and the masked scorer are compared on the same tokens (§4.2). Default.
        #[default]
        Paper = "paper" => "",
        /// Every non-special token of the sentence: the positions AUL's score averages over (Eq. 4;
        /// the authors' `log_probs[1:-1]`).
        Sentence = "sentence" => "",
        /// Every token, the tokenizer's special tokens (`[CLS]`, `[SEP]`, `<s>`, `</s>`) included.
        WithSpecial = "with-special" => "",
    }
}

bias_core::choice! {
    /// What StereoSet's token-prediction accuracy counts (Kaneko & Bollegala 2022, §4.2).
    #[derive(Default)]
    pub enum StereoSetAccuracy: "StereoSet accuracy" {
        /// Test cases: an item is right when the predicted subtokens match at least one of its two
        /// candidates exactly (every counted position of its stereotypical sentence, or every one
        /// of its anti-stereotypical sentence, predicted right), as the paper defines it. Default.
        #[default]
        Item = "item" => "",
        /// Token positions, as on CrowS-Pairs.
        Token = "token" => "",
    }
}

bias_core::choice! {
    /// Whose token-prediction accuracy Table 1 shows (Kaneko & Bollegala 2022, Table 1).
    #[derive(Default)]
    pub enum AccuracyDefinition: "token-prediction accuracy" {
        /// The paper's §4.2 reading ([`scorer_accuracy`] under the default [`AccuracyOptions`]):
        /// AUL counted on the masked scorer's tokens, StereoSet by items, pairs that tokenise
        /// identically or leave the masked scorer nothing to predict left out. Default.
        #[default]
        Paper = "paper" => "The paper's §4.2 reading",
        /// The `Accuracy:` line of the authors' `evaluate.py` (kanekomasahiro/evaluate_bias_in_mlm,
        /// commit 6b10239): the share of rank-1 predictions over every position a method scores,
        /// of both sentences of every pair ([`authors_accuracy`]).
        Authors = "authors" => "The Accuracy: line of the authors' evaluate.py",
    }
}

named_choice!(AulTokens, StereoSetAccuracy, AccuracyDefinition);

/// What the token-prediction accuracy counts; [`Default`] is the paper's definition (§4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct AccuracyOptions {
    /// AUL's positions.
    pub aul_tokens: AulTokens,
    /// StereoSet's unit.
    pub stereoset: StereoSetAccuracy,
}

/// Which data set's rules apply: CrowS-Pairs (CPS, unmodified tokens, token units) or StereoSet
/// (SSS, modified tokens, [`StereoSetAccuracy`] units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccuracySet {
    /// CrowS-Pairs (Nangia et al. 2020).
    CrowsPairs,
    /// StereoSet intrasentence (Nadeem et al. 2021).
    StereoSet,
}

impl AccuracySet {
    /// The masked scorer of the data set in Table 1: `cps` or `sss`.
    pub fn masked_scorer(self) -> &'static str {
        match self {
            AccuracySet::CrowsPairs => Scorer::Cps.name(),
            AccuracySet::StereoSet => Scorer::Sss.name(),
        }
    }

    /// The unit counted under `options`: `token` or `item`.
    pub fn unit(self, options: AccuracyOptions) -> &'static str {
        match (self, options.stereoset) {
            (AccuracySet::StereoSet, StereoSetAccuracy::Item) => "item",
            _ => "token",
        }
    }

    fn by_item(self, options: AccuracyOptions) -> bool {
        self.unit(options) == "item"
    }
}

/// Right/wrong outcomes of one scorer, one per unit (token or item).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcomes(pub Vec<bool>);

impl Outcomes {
    /// Units predicted right.
    pub fn correct(&self) -> usize {
        self.0.iter().filter(|&&c| c).count()
    }

    /// Units counted.
    pub fn total(&self) -> usize {
        self.0.len()
    }

    /// Accuracy in percent (NaN when nothing was counted).
    pub fn percent(&self) -> f64 {
        if self.0.is_empty() {
            f64::NAN
        } else {
            100.0 * self.correct() as f64 / self.total() as f64
        }
    }
}

/// McNemar's test on paired outcomes: exact (binomial) and χ² with continuity correction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedTest {
    /// The 2×2 table `[[both right, first only], [second only, both wrong]]`.
    pub table: [[u64; 2]; 2],
    /// The exact test.
    pub exact: McNemar,
    /// The χ² test with continuity correction (`None` without a discordant pair).
    pub chi2: Option<McNemar>,
}

impl PairedTest {
    /// McNemar's test of `first` against `second` (same length, paired by index).
    ///
    /// # Errors
    /// [`RobustError::Metrics`] if the lengths differ or both are empty.
    pub fn of(first: &[bool], second: &[bool]) -> Result<Self, PaperError> {
        let table = bias_metrics::stats::mcnemar_table(first, second)?;
        Ok(PairedTest {
            table,
            exact: mcnemar_exact(table),
            chi2: mcnemar_chi2(table).ok(),
        })
    }

    /// Whether the exact test rejects at [`MCNEMAR_ALPHA`] (the paper's †).
    pub fn significant(&self) -> bool {
        self.exact.p_value < MCNEMAR_ALPHA
    }
}

/// Table 1 of Kaneko & Bollegala (2022) for one model and data set: the masked scorer's and
/// AUL's token-prediction accuracy, and McNemar's test between them.
#[derive(Debug, Clone, PartialEq)]
pub struct ScorerAccuracy {
    /// `cps` (CrowS-Pairs) or `sss` (StereoSet).
    pub masked_scorer: &'static str,
    /// `token` or `item`.
    pub unit: &'static str,
    /// The masked scorer's outcomes.
    pub masked: Outcomes,
    /// AUL's outcomes on the positions [`AulTokens`] chooses.
    pub aul: Outcomes,
    /// McNemar's test of AUL against the masked scorer on the same units (the masked scorer's
    /// positions, or the items); `None` if no unit was counted.
    pub test: Option<PairedTest>,
    /// Pairs counted.
    pub pairs: usize,
    /// Pairs left out because both sentences tokenise identically.
    pub skipped_identical: usize,
    /// Pairs left out because a sentence has no position the masked scorer predicts (SSS with a
    /// sentence whose tokens all occur in the other; CPS with no unmodified token).
    pub skipped_empty: usize,
}

/// One pair, tokenised and aligned.
struct Aligned {
    ids: [Vec<i64>; 2],
    /// Unmodified positions, special tokens dropped.
    shared: [Vec<usize>; 2],
    /// Modified positions.
    modified: [Vec<usize>; 2],
}

impl Aligned {
    fn masked_positions(&self, set: AccuracySet, side: usize) -> &[usize] {
        match set {
            AccuracySet::CrowsPairs => &self.shared[side],
            AccuracySet::StereoSet => &self.modified[side],
        }
    }

    fn aul_positions(&self, set: AccuracySet, side: usize, tokens: AulTokens) -> Vec<usize> {
        positions(&self.ids[side], tokens, self.masked_positions(set, side))
    }
}

/// The positions of `ids` that `tokens` counts, `paper` being the data set's masked positions.
fn positions(ids: &[i64], tokens: AulTokens, paper: &[usize]) -> Vec<usize> {
    let n = ids.len();
    match tokens {
        AulTokens::Paper => paper.to_vec(),
        AulTokens::Sentence => (1..n.saturating_sub(1)).collect(),
        AulTokens::WithSpecial => (0..n).collect(),
    }
}

/// A model's token predictor and the name its errors carry.
struct Predictor<'a> {
    name: String,
    model: &'a mut dyn TokenPredictor,
}

impl<'a> Predictor<'a> {
    fn of<M: DatasetScorer + TokenPredictor>(model: &'a mut M) -> Self {
        Predictor {
            name: model.name().to_owned(),
            model,
        }
    }

    /// Model `i` of `study` if it predicts tokens (a masked LM); the tables leave the others
    /// out, with a note ([`left_out_note`]).
    fn in_study<M: DatasetScorer + MaybeTokenPredictor>(
        study: &'a mut Study<M>,
        i: usize,
    ) -> Option<Self> {
        let name = study.model_names()[i].clone();
        let model = study.model_mut(i).as_token_predictor()?;
        Some(Predictor { name, model })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn err(&self, dataset: &'static str, source: bias_core::BoxError) -> PaperError {
        RobustError::model(&self.name, dataset, source).into()
    }
}

/// The note naming the models a token-prediction table left out.
fn left_out_note<M: DatasetScorer>(study: &Study<M>, kept: &[&str]) -> Option<String> {
    let left: Vec<String> = study
        .model_names()
        .into_iter()
        .filter(|m| !kept.contains(&m.as_str()))
        .collect();
    (!left.is_empty()).then(|| {
        format!(
            "Left out: {} (not a masked LM: token-prediction accuracy needs one, Kaneko & \
             Bollegala 2022, §4.2).",
            left.join(", ")
        )
    })
}

fn encode(
    model: &mut Predictor<'_>,
    dataset: &'static str,
    sentence: &str,
) -> Result<Vec<i64>, PaperError> {
    model
        .model
        .token_ids(sentence)
        .map_err(|source| model.err(dataset, source))
}

fn predict(
    model: &mut Predictor<'_>,
    dataset: &'static str,
    queries: &[TokenQuery],
) -> Result<Vec<Vec<bool>>, PaperError> {
    match model.model.predict_tokens(queries) {
        Ok(out) if out.len() == queries.len() => Ok(out),
        Ok(out) => Err(RobustError::InvalidConfig(format!(
            "model {:?} answered {} of {} token queries",
            model.name(),
            out.len(),
            queries.len()
        ))
        .into()),
        Err(source) => Err(model.err(dataset, source)),
    }
}

fn dataset_name(set: AccuracySet) -> &'static str {
    match set {
        AccuracySet::CrowsPairs => DataSet::CrowsPairs.name(),
        AccuracySet::StereoSet => DataSet::StereoSet.name(),
    }
}

/// The pairs the accuracy counts, with their index: those that neither tokenise identically nor
/// have a sentence without a position for the data set's masked scorer; and how many of each
/// were left out.
fn counted(
    aligned: Vec<Option<Aligned>>,
    set: AccuracySet,
) -> (Vec<(usize, Aligned)>, usize, usize) {
    let mut kept = Vec::new();
    let (mut identical, mut empty) = (0, 0);
    for (i, a) in aligned.into_iter().enumerate() {
        match a {
            None => identical += 1,
            Some(a)
                if a.masked_positions(set, 0).is_empty()
                    || a.masked_positions(set, 1).is_empty() =>
            {
                empty += 1
            }
            Some(a) => kept.push((i, a)),
        }
    }
    (kept, identical, empty)
}

/// Tokenises and aligns `pairs`; `None` for a pair whose sentences tokenise identically.
fn align(
    model: &mut Predictor<'_>,
    set: AccuracySet,
    pairs: &[SentencePair],
) -> Result<Vec<Option<Aligned>>, PaperError> {
    Ok(align_all(model, set, pairs)?
        .into_iter()
        .map(|a| (a.ids[0] != a.ids[1]).then_some(a))
        .collect())
}

/// Tokenises and aligns every pair of `pairs`, also those whose sentences tokenise identically
/// (every position then unmodified), as the authors' `get_span` does.
fn align_all(
    model: &mut Predictor<'_>,
    set: AccuracySet,
    pairs: &[SentencePair],
) -> Result<Vec<Aligned>, PaperError> {
    let dataset = dataset_name(set);
    let mut out = Vec::with_capacity(pairs.len());
    for p in pairs {
        let s = encode(model, dataset, &p.stereo)?;
        let a = encode(model, dataset, &p.anti)?;
        let al = align_tokens(&s, &a);
        let inner = |v: &[usize]| -> Vec<usize> {
            if v.len() <= 2 {
                Vec::new()
            } else {
                v[1..v.len() - 1].to_vec()
            }
        };
        out.push(Aligned {
            shared: [inner(&al.shared_a), inner(&al.shared_b)],
            modified: [al.modified_a, al.modified_b],
            ids: [s, a],
        });
    }
    Ok(out)
}

fn unmasked(ids: &[i64]) -> TokenQuery {
    TokenQuery {
        ids: ids.to_vec(),
        masked: Vec::new(),
        targets: (0..ids.len()).collect(),
    }
}

/// Reads the outcomes at `at` from an unmasked pass (one outcome per position).
fn read(all: &[bool], at: &[usize]) -> Vec<bool> {
    at.iter().map(|&p| all[p]).collect()
}

/// A sentence's outcomes reduced to units: the item rule needs every position right (and at
/// least one position).
fn side_right(outcomes: &[bool]) -> bool {
    !outcomes.is_empty() && outcomes.iter().all(|&c| c)
}

/// The masked scorer's passes over one sentence of `a`: CPS masks each unmodified token alone,
/// SSS every modified token at once (none when the sentence has no such token).
fn masked_queries(a: &Aligned, set: AccuracySet, side: usize) -> Vec<TokenQuery> {
    let at = a.masked_positions(set, side);
    let query = |masked: Vec<usize>| TokenQuery {
        ids: a.ids[side].clone(),
        targets: masked.clone(),
        masked,
    };
    match set {
        AccuracySet::CrowsPairs => at.iter().map(|&p| query(vec![p])).collect(),
        AccuracySet::StereoSet if at.is_empty() => Vec::new(),
        AccuracySet::StereoSet => vec![query(at.to_vec())],
    }
}

/// Reads the outcomes of [`masked_queries`]`(a, set, side)` from `r`, one per masked position.
fn masked_outcomes<'r>(
    r: &mut impl Iterator<Item = &'r Vec<bool>>,
    a: &Aligned,
    set: AccuracySet,
    side: usize,
) -> Vec<bool> {
    let at = a.masked_positions(set, side);
    match set {
        AccuracySet::CrowsPairs => at
            .iter()
            .map(|_| r.next().expect("one pass per unmodified token")[0])
            .collect(),
        AccuracySet::StereoSet if at.is_empty() => Vec::new(),
        AccuracySet::StereoSet => r.next().expect("one SSS pass").clone(),
    }
}

fn authors_accuracy_in(
    model: &mut Predictor<'_>,
    set: AccuracySet,
    pairs: &[SentencePair],
) -> Result<ScorerAccuracy, PaperError> {
    let aligned = align_all(model, set, pairs)?;
    let mut queries = Vec::new();
    for a in &aligned {
        for side in 0..2 {
            queries.push(unmasked(&a.ids[side]));
            queries.extend(masked_queries(a, set, side));
        }
    }
    let results = predict(model, dataset_name(set), &queries)?;
    let (mut masked, mut aul, mut paired_aul) = (Vec::new(), Vec::new(), Vec::new());
    let mut r = results.iter();
    for a in &aligned {
        for side in 0..2 {
            let all = r.next().expect("one unmasked pass per side");
            masked.extend(masked_outcomes(&mut r, a, set, side));
            aul.extend(all);
            paired_aul.extend(read(all, a.masked_positions(set, side)));
        }
    }
    let test = if masked.is_empty() {
        None
    } else {
        Some(PairedTest::of(&paired_aul, &masked)?)
    };
    Ok(ScorerAccuracy {
        masked_scorer: set.masked_scorer(),
        unit: "token",
        masked: Outcomes(masked),
        aul: Outcomes(aul),
        test,
        pairs: aligned.len(),
        skipped_identical: 0,
        skipped_empty: 0,
    })
}

fn scorer_accuracy_in(
    model: &mut Predictor<'_>,
    set: AccuracySet,
    pairs: &[SentencePair],
    options: AccuracyOptions,
) -> Result<ScorerAccuracy, PaperError> {
    let dataset = dataset_name(set);
    let (kept, skipped_identical, skipped_empty) = counted(align(model, set, pairs)?, set);
    // Queries: per pair and side, the unmasked pass, then the masked scorer's passes.
    let mut queries = Vec::new();
    for (_, a) in &kept {
        for side in 0..2 {
            queries.push(unmasked(&a.ids[side]));
            queries.extend(masked_queries(a, set, side));
        }
    }
    let results = predict(model, dataset, &queries)?;
    let by_item = set.by_item(options);
    let (mut masked, mut aul) = (Vec::new(), Vec::new());
    let (mut paired_masked, mut paired_aul) = (Vec::new(), Vec::new());
    let mut r = results.iter();
    for (_, a) in &kept {
        // An item is right when either of its sentences is.
        let (mut item_masked, mut item_aul) = (false, false);
        for side in 0..2 {
            let all = r.next().expect("one unmasked pass per side");
            let at = a.masked_positions(set, side);
            let m = masked_outcomes(&mut r, a, set, side);
            let chosen = read(all, &a.aul_positions(set, side, options.aul_tokens));
            let on_masked = read(all, at);
            if by_item {
                item_masked |= side_right(&m);
                item_aul |= side_right(&chosen);
            } else {
                masked.extend(&m);
                aul.extend(&chosen);
                paired_masked.extend(&m);
                paired_aul.extend(&on_masked);
            }
        }
        if by_item {
            masked.push(item_masked);
            aul.push(item_aul);
            // Items are paired whatever positions AUL counts.
            paired_masked.push(item_masked);
            paired_aul.push(item_aul);
        }
    }
    let test = if paired_aul.is_empty() {
        None
    } else {
        Some(PairedTest::of(&paired_aul, &paired_masked)?)
    };
    Ok(ScorerAccuracy {
        masked_scorer: set.masked_scorer(),
        unit: set.unit(options),
        masked: Outcomes(masked),
        aul: Outcomes(aul),
        test,
        pairs: kept.len(),
        skipped_identical,
        skipped_empty,
    })
}

/// AUL's accuracy on changed sentences against the original ones (Table 4 of Kaneko & Bollegala
/// 2022).
#[derive(Debug, Clone, PartialEq)]
pub struct Changed {
    /// `token` or `item`.
    pub unit: &'static str,
    /// AUL's outcomes on the original sentences.
    pub original: Outcomes,
    /// AUL's outcomes on the changed sentences (paired with `original` by index when `test` is
    /// made).
    pub changed: Outcomes,
    /// McNemar's test (shuffled: paired; unrelated: `None`, the units differ).
    pub test: Option<PairedTest>,
    /// Pairs counted.
    pub pairs: usize,
    /// Pairs left out because both sentences tokenise identically (or, for the unrelated
    /// sentences, the unrelated sentence tokenises as the stereotypical one).
    pub skipped_identical: usize,
    /// Pairs left out as in Table 1 ([`ScorerAccuracy::skipped_empty`]; for the unrelated
    /// sentences: items where the stereotypical or the unrelated sentence has no modified token
    /// against the other).
    pub skipped_empty: usize,
}

impl Changed {
    /// The drop in accuracy, original − changed, in percentage points (the paper's bracket).
    pub fn drop(&self) -> f64 {
        self.original.percent() - self.changed.percent()
    }
}

/// Permutes the non-special tokens of `ids`; returns the shuffled ids and, per original
/// position, its new position.
fn shuffle(ids: &[i64], seed: u64, stream: u64) -> (Vec<i64>, Vec<usize>) {
    let n = ids.len();
    let mut new_pos: Vec<usize> = (0..n).collect();
    if n <= 3 {
        return (ids.to_vec(), new_pos);
    }
    let mut order: Vec<usize> = (1..n - 1).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    order.shuffle(&mut rng);
    let mut out = ids.to_vec();
    for (k, &from) in order.iter().enumerate() {
        out[1 + k] = ids[from];
        new_pos[from] = 1 + k;
    }
    (out, new_pos)
}

fn shuffled_accuracy_in(
    model: &mut Predictor<'_>,
    set: AccuracySet,
    pairs: &[SentencePair],
    options: AccuracyOptions,
    seed: u64,
) -> Result<Changed, PaperError> {
    Ok(shuffled_accuracies_in(model, set, pairs, options, &[seed])?
        .pop()
        .expect("one result per seed"))
}

fn shuffled_accuracies_in(
    model: &mut Predictor<'_>,
    set: AccuracySet,
    pairs: &[SentencePair],
    options: AccuracyOptions,
    seeds: &[u64],
) -> Result<Vec<Changed>, PaperError> {
    let dataset = dataset_name(set);
    let (kept, skipped_identical, skipped_empty) = counted(align(model, set, pairs)?, set);
    // Per sentence: its counted positions, its original pass, and one shuffled pass per seed.
    let mut queries = Vec::new();
    let mut plan = Vec::new();
    for (i, a) in &kept {
        for side in 0..2 {
            queries.push(unmasked(&a.ids[side]));
            let stream = 2 * *i as u64 + side as u64;
            let mut moves = Vec::with_capacity(seeds.len());
            for &seed in seeds {
                let (ids, new_pos) = shuffle(&a.ids[side], seed, stream);
                queries.push(unmasked(&ids));
                moves.push(new_pos);
            }
            plan.push((a.aul_positions(set, side, options.aul_tokens), moves));
        }
    }
    let results = predict(model, dataset, &queries)?;
    let by_item = set.by_item(options);
    let stride = 1 + seeds.len();
    let mut out = Vec::with_capacity(seeds.len());
    for s in 0..seeds.len() {
        let (mut original, mut changed) = (Vec::new(), Vec::new());
        let mut item = [[false; 2]; 2];
        for (k, (at, moves)) in plan.iter().enumerate() {
            let side = k % 2;
            let o = read(&results[stride * k], at);
            let moved: Vec<usize> = at.iter().map(|&p| moves[s][p]).collect();
            let c = read(&results[stride * k + 1 + s], &moved);
            if by_item {
                item[0][side] = side_right(&o);
                item[1][side] = side_right(&c);
                if side == 1 {
                    original.push(item[0][0] || item[0][1]);
                    changed.push(item[1][0] || item[1][1]);
                }
            } else {
                original.extend(o);
                changed.extend(c);
            }
        }
        let test = if original.is_empty() {
            None
        } else {
            Some(PairedTest::of(&original, &changed)?)
        };
        out.push(Changed {
            unit: set.unit(options),
            original: Outcomes(original),
            changed: Outcomes(changed),
            test,
            pairs: kept.len(),
            skipped_identical,
            skipped_empty,
        });
    }
    Ok(out)
}

fn unrelated_accuracy_in(
    model: &mut Predictor<'_>,
    unrelated: &[SentencePair],
    options: AccuracyOptions,
) -> Result<Changed, PaperError> {
    let set = AccuracySet::StereoSet;
    let (kept, skipped_identical, skipped_empty) = counted(align(model, set, unrelated)?, set);
    let queries: Vec<TokenQuery> = kept
        .iter()
        .flat_map(|(_, a)| a.ids.iter().map(|ids| unmasked(ids)))
        .collect();
    let results = predict(model, DataSet::StereoSetUnrelated.name(), &queries)?;
    let (mut original, mut changed) = (Vec::new(), Vec::new());
    for ((_, a), sides) in kept.iter().zip(results.chunks(2)) {
        let [o, c] = [0, 1].map(|side| {
            read(
                &sides[side],
                &a.aul_positions(set, side, options.aul_tokens),
            )
        });
        if set.by_item(options) {
            original.push(side_right(&o));
            changed.push(side_right(&c));
        } else {
            original.extend(o);
            changed.extend(c);
        }
    }
    Ok(Changed {
        unit: set.unit(options),
        original: Outcomes(original),
        changed: Outcomes(changed),
        test: None,
        pairs: kept.len(),
        skipped_identical,
        skipped_empty,
    })
}

/// The pairs of [`DataSet::StereoSetUnrelated`] that compare an item's stereotypical sentence
/// with its unrelated one (`<id>/stereo-unrelated`).
fn stereo_unrelated(pairs: &[SentencePair]) -> Vec<SentencePair> {
    pairs
        .iter()
        .filter(|p| p.id.ends_with("/stereo-unrelated"))
        .cloned()
        .collect()
}

fn pct(v: f64) -> Cell {
    Cell::num(v, 2)
}

fn p_cell(t: &Option<PairedTest>) -> [Cell; 2] {
    match t {
        Some(t) => [
            Cell::num(t.exact.p_value, 6),
            t.chi2.map_or(Cell::Missing, |c| Cell::num(c.p_value, 6)),
        ],
        None => [Cell::Missing, Cell::Missing],
    }
}

/// Per model, Table 1's accuracies on CrowS-Pairs and StereoSet (see [`scorer_accuracy`]).
///
/// # Errors
/// As [`scorer_accuracy`]; [`RobustError::Data`] for a data set.
pub fn table_1_accuracies<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    options: AccuracyOptions,
) -> Result<Vec<(String, ScorerAccuracy, ScorerAccuracy)>, PaperError> {
    let cp = study.pairs(DataSet::CrowsPairs)?.to_vec();
    let ss = study.pairs(DataSet::StereoSet)?.to_vec();
    let mut out = Vec::new();
    for i in 0..study.len() {
        let Some(mut model) = Predictor::in_study(study, i) else {
            continue;
        };
        let model = &mut model;
        let name = model.name().to_owned();
        let a = scorer_accuracy_in(model, AccuracySet::CrowsPairs, &cp, options)?;
        let b = scorer_accuracy_in(model, AccuracySet::StereoSet, &ss, options)?;
        out.push((name, a, b));
    }
    Ok(out)
}

/// The seeds of Table 4's shuffles: `SHUFFLE_SEED`, `SHUFFLE_SEED + 1`, … (`n` of them).
pub fn shuffle_seeds(n: usize) -> Vec<u64> {
    (0..n as u64).map(|k| SHUFFLE_SEED + k).collect()
}

/// The options of Table 4: token-level, as its caption says ("Token-level prediction
/// accuracy"), AUL counted on the paper's positions (the unmodified tokens on CrowS-Pairs, the
/// candidate's tokens on StereoSet).
pub const TABLE_4_OPTIONS: AccuracyOptions = AccuracyOptions {
    aul_tokens: AulTokens::Paper,
    stereoset: StereoSetAccuracy::Token,
};

/// One model's row of Table 4 of Kaneko & Bollegala (2022).
#[derive(Debug, Clone, PartialEq)]
pub struct Table4Row {
    /// The model.
    pub model: String,
    /// AUL on shuffled CrowS-Pairs sentences, one run per seed ([`shuffled_accuracies`]).
    pub cp_shuffled: Vec<Changed>,
    /// AUL on shuffled StereoSet sentences, one run per seed ([`shuffled_accuracies`]).
    pub ss_shuffled: Vec<Changed>,
    /// AUL on StereoSet's unrelated sentences against the stereotypical ones
    /// ([`unrelated_accuracy`]).
    pub ss_unrelated: Changed,
}

/// Table 4 of Kaneko & Bollegala (2022) for every model of `study`: shuffled CrowS-Pairs and
/// StereoSet sentences (once per seed of `seeds`) and StereoSet's unrelated sentences.
///
/// # Errors
/// As [`scorer_accuracy`]; [`RobustError::Data`] for a data set.
pub fn table_4_rows<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    options: AccuracyOptions,
    seeds: &[u64],
) -> Result<Vec<Table4Row>, PaperError> {
    let cp = study.pairs(DataSet::CrowsPairs)?.to_vec();
    let ss = study.pairs(DataSet::StereoSet)?.to_vec();
    let unrelated = stereo_unrelated(study.pairs(DataSet::StereoSetUnrelated)?);
    let mut rows = Vec::new();
    for i in 0..study.len() {
        let Some(mut model) = Predictor::in_study(study, i) else {
            continue;
        };
        let model = &mut model;
        rows.push(Table4Row {
            model: model.name().to_owned(),
            cp_shuffled: shuffled_accuracies_in(
                model,
                AccuracySet::CrowsPairs,
                &cp,
                options,
                seeds,
            )?,
            ss_shuffled: shuffled_accuracies_in(
                model,
                AccuracySet::StereoSet,
                &ss,
                options,
                seeds,
            )?,
            ss_unrelated: unrelated_accuracy_in(model, &unrelated, options)?,
        });
    }
    Ok(rows)
}

fn options_note(options: AccuracyOptions) -> String {
    format!(
        "AUL's accuracy counts the tokens `{}` chooses (--aul-accuracy-tokens; paper: the \
         unmodified tokens on CrowS-Pairs, the candidate's tokens on StereoSet); StereoSet counts \
         `{}`s (--stereoset-accuracy; paper: items, right when the predicted subtokens match one \
         of the two candidates).",
        options.aul_tokens, options.stereoset
    )
}

/// The mean and the sample standard deviation of `runs`' changed accuracies (SD 0 for one run),
/// and how many runs McNemar's exact test marks †.
fn over_seeds(runs: &[Changed]) -> (f64, f64, usize) {
    let v: Vec<f64> = runs.iter().map(|r| r.changed.percent()).collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = if v.len() < 2 {
        0.0
    } else {
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    };
    let marked = runs
        .iter()
        .filter(|r| r.test.as_ref().is_some_and(PairedTest::significant))
        .count();
    (mean, sd, marked)
}

/// Per model, Table 1's accuracies on CrowS-Pairs and StereoSet as the authors' `evaluate.py`
/// prints them (see [`authors_accuracy`]).
///
/// # Errors
/// As [`table_1_accuracies`].
pub fn authors_table_1_accuracies<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
) -> Result<Vec<(String, ScorerAccuracy, ScorerAccuracy)>, PaperError> {
    let cp = study.pairs(DataSet::CrowsPairs)?.to_vec();
    let ss = study.pairs(DataSet::StereoSet)?.to_vec();
    let mut out = Vec::new();
    for i in 0..study.len() {
        let Some(mut model) = Predictor::in_study(study, i) else {
            continue;
        };
        let model = &mut model;
        let name = model.name().to_owned();
        let a = authors_accuracy_in(model, AccuracySet::CrowsPairs, &cp)?;
        let b = authors_accuracy_in(model, AccuracySet::StereoSet, &ss)?;
        out.push((name, a, b));
    }
    Ok(out)
}

/// A percentage with the paper's † when `test` rejects.
fn marked_pct(value: f64, test: &Option<PairedTest>) -> Cell {
    Cell::Annotated {
        value,
        decimals: 2,
        mark: test.as_ref().filter(|t| t.significant()).map(|_| "†"),
        change: None,
    }
}

/// Writes Table 1 of Kaneko & Bollegala (2022) (token-prediction accuracy of CPS, AUL (CP), SSS,
/// AUL (SS); † where McNemar's exact test of AUL against the masked scorer gives p < 0.01) as
/// `table-1`, counted as `definition` says, with the paper's own rows beside.
///
/// # Errors
/// As [`table_1_accuracies`]; [`RobustError::Io`] writing the table.
pub(super) fn table_1<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    definition: AccuracyDefinition,
) -> Result<(), PaperError> {
    let options = AccuracyOptions::default();
    let rows = match definition {
        AccuracyDefinition::Paper => table_1_accuracies(study, options)?,
        AccuracyDefinition::Authors => authors_table_1_accuracies(study)?,
    };
    let kept: Vec<&str> = rows.iter().map(|(n, _, _)| n.as_str()).collect();
    let left_out = left_out_note(study, &kept);
    let labels = ["CPS", "AUL (CP)", "SSS", "AUL (SS)"];
    let mut columns: Vec<String> = vec!["MLM".into()];
    columns.extend(labels.map(String::from));
    columns.extend(
        [
            "CP McNemar p (exact)",
            "CP McNemar p (χ²)",
            "SS McNemar p (exact)",
            "SS McNemar p (χ²)",
        ]
        .map(String::from),
    );
    for l in labels {
        columns.push(format!("{l} right"));
        columns.push(format!("{l} counted"));
    }
    let mut t = Table::new(&columns);
    for (name, cp, ss) in &rows {
        let [cp_e, cp_c] = p_cell(&cp.test);
        let [ss_e, ss_c] = p_cell(&ss.test);
        let mut row = vec![
            name.clone().into(),
            pct(cp.masked.percent()),
            marked_pct(cp.aul.percent(), &cp.test),
            pct(ss.masked.percent()),
            marked_pct(ss.aul.percent(), &ss.test),
            cp_e,
            cp_c,
            ss_e,
            ss_c,
        ];
        for o in [&cp.masked, &cp.aul, &ss.masked, &ss.aul] {
            row.push(o.correct().into());
            row.push(o.total().into());
        }
        t.row(row);
    }
    for (m, values) in super::published::TABLE_1.iter().enumerate() {
        let mut row = vec![Cell::Text(super::published::row_label(
            super::published::MODELS[m],
        ))];
        for (k, v) in values.iter().enumerate() {
            // The paper marks every AUL accuracy †.
            row.push(Cell::Annotated {
                value: *v,
                decimals: 2,
                mark: (k % 2 == 1).then_some("†"),
                change: None,
            });
        }
        row.extend(std::iter::repeat_n(Cell::Missing, columns.len() - 5));
        t.row(row);
    }
    t.note(
        "Token-prediction accuracy in percent (Kaneko & Bollegala 2022, §4.2): arg-max = original \
         token; CPS masks each unmodified token alone, SSS all modified tokens at once, AUL \
         predicts from the unmasked sentence (AULA's accuracy is AUL's). The `paper:` rows are \
         the paper's Table 1 (bert-base-cased, roberta-large, albert-large-v2).",
    );
    t.note(format!(
        "† AUL differs from the masked scorer by McNemar's exact test, p < {MCNEMAR_ALPHA}, on \
         paired outcomes (the same tokens on CrowS-Pairs, {} on StereoSet).",
        match definition {
            AccuracyDefinition::Paper => "the same items",
            AccuracyDefinition::Authors => "the same tokens",
        }
    ));
    match definition {
        AccuracyDefinition::Paper => {
            t.note(format!(
                "Accuracy as the paper's §4.2 reads (--kaneko2022-accuracy paper): {}",
                options_note(options)
            ));
            for (name, cp, ss) in &rows {
                t.note(format!(
                    "{name}: CrowS-Pairs {} pairs ({} tokenise identically, {} without an \
                     unmodified token, left out); StereoSet {} items ({} tokenise identically, \
                     {} with a sentence without a modified token, left out).",
                    cp.pairs,
                    cp.skipped_identical,
                    cp.skipped_empty,
                    ss.pairs,
                    ss.skipped_identical,
                    ss.skipped_empty
                ));
            }
        }
        AccuracyDefinition::Authors => {
            t.note(
                "Accuracy as the authors' evaluate.py prints it (--kaneko2022-accuracy authors; \
                 kanekomasahiro/evaluate_bias_in_mlm at 6b10239, its `Accuracy:` line): the \
                 share of rank-1 predictions over every position a method scores, of both \
                 sentences of every pair: AUL every token, the special tokens included; CPS each \
                 unmodified token (first and last unmodified positions dropped); SSS each \
                 modified token. Units are tokens on both data sets; no pair is left out.",
            );
        }
    }
    if let Some(n) = left_out {
        t.note(n);
    }
    out.option("kaneko2022 accuracy", definition.name());
    out.table(
        "table-1",
        "Token prediction accuracy of CPS, SSS and AUL on CP and SS",
        Status::Reproduced,
        &t,
    )
}

/// Writes Table 4 of Kaneko & Bollegala (2022) as `table-4`: AUL's token-level prediction
/// accuracy on shuffled CrowS-Pairs and StereoSet sentences (the mean over `shuffles` seeds, its
/// SD, and in how many of them McNemar's exact test gives p < 0.01: † when in all) and on
/// StereoSet's unrelated sentences (against the stereotypical sentences' candidates, one sentence
/// each), the change against the original sentences in brackets, with the paper's rows beside.
///
/// # Errors
/// As [`scorer_accuracy`]; [`RobustError::Data`] for a data set; [`RobustError::Io`] writing the
/// table; [`RobustError::InvalidParameter`] for no seed.
pub(super) fn table_4<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    shuffles: usize,
) -> Result<(), PaperError> {
    if shuffles == 0 {
        return Err(RobustError::InvalidParameter {
            name: "kaneko2022 shuffles".into(),
            value: "0".into(),
            expected: "at least 1 seed for Table 4's shuffles".into(),
        }
        .into());
    }
    let options = TABLE_4_OPTIONS;
    let seeds = shuffle_seeds(shuffles);
    let rows = table_4_rows(study, options, &seeds)?;
    let kept: Vec<&str> = rows.iter().map(|r| r.model.as_str()).collect();
    let left_out = left_out_note(study, &kept);
    let mut t = Table::new(&[
        "MLM",
        "AUL (CP) shuffled",
        "AUL (SS) shuffled",
        "AUL (SS) unrelated",
        "CP shuffled SD",
        "SS shuffled SD",
        "CP seeds †",
        "SS seeds †",
        "CP original",
        "SS original",
        "SS original (stereotypical candidates)",
        "CP tokens",
        "SS tokens",
        "unrelated tokens",
    ]);
    let mut counts = Vec::new();
    for r in &rows {
        let shuffled = |runs: &[Changed]| {
            let (mean, sd, marked) = over_seeds(runs);
            let original = runs[0].original.percent();
            let cell = Cell::Annotated {
                value: mean,
                decimals: 2,
                mark: (marked == runs.len()).then_some("†"),
                change: Some(mean - original),
            };
            (cell, sd, marked, original, runs[0].changed.total())
        };
        let (c, c_sd, c_marked, c_orig, c_n) = shuffled(&r.cp_shuffled);
        let (s, s_sd, s_marked, s_orig, s_n) = shuffled(&r.ss_shuffled);
        let u = &r.ss_unrelated;
        t.row(vec![
            r.model.clone().into(),
            c,
            s,
            Cell::Annotated {
                value: u.changed.percent(),
                decimals: 2,
                mark: None,
                change: Some(u.changed.percent() - u.original.percent()),
            },
            Cell::num(c_sd, 2),
            Cell::num(s_sd, 2),
            c_marked.into(),
            s_marked.into(),
            pct(c_orig),
            pct(s_orig),
            pct(u.original.percent()),
            c_n.into(),
            s_n.into(),
            u.changed.total().into(),
        ]);
        let (cp0, ss0) = (&r.cp_shuffled[0], &r.ss_shuffled[0]);
        counts.push(format!(
            "{}: {} CrowS-Pairs pairs and {} StereoSet items shuffled (left out as in Table 1: \
             {} and {} tokenising identically, {} and {} without a position of CPS / SSS); {} \
             items with an unrelated sentence ({} tokenise as the stereotypical one, {} without \
             a modified token, left out).",
            r.model,
            cp0.pairs,
            ss0.pairs,
            cp0.skipped_identical,
            ss0.skipped_identical,
            cp0.skipped_empty,
            ss0.skipped_empty,
            u.pairs,
            u.skipped_identical,
            u.skipped_empty
        ));
    }
    for (m, cells) in super::published::TABLE_4.iter().enumerate() {
        let mut row = vec![Cell::Text(super::published::row_label(
            super::published::MODELS[m],
        ))];
        row.extend(cells.iter().map(|c| Cell::Annotated {
            value: c.accuracy,
            decimals: 2,
            mark: c.dagger.then_some("†"),
            change: Some(c.change),
        }));
        row.extend(std::iter::repeat_n(Cell::Missing, 10));
        t.row(row);
    }
    t.note(format!(
        "AUL's token-level prediction accuracy in percent (Kaneko & Bollegala 2022, §4.5), in \
         brackets the change against the original sentences counted on the same unit. Shuffled: \
         the non-special subword tokens of each sentence permuted, each counted token predicted \
         at its new position, the mean over {shuffles} seeds ({}; stream 2 × pair index + side; \
         --kaneko2022-shuffles) with its SD; † when McNemar's exact test on the paired outcomes \
         gives p < {MCNEMAR_ALPHA} for every seed (`seeds †` counts them). Unrelated: the \
         unrelated word's tokens in StereoSet's unrelated sentence against the stereotype's \
         tokens in the stereotypical sentence (one sentence on each side, aligned with each \
         other); no test (other tokens, as in the paper).",
        seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    t.note(
        "Units: tokens on both data sets, as the caption says (Table 1's StereoSet column under \
         the paper's reading counts items instead). The paper's brackets are against its Table \
         1, both sentences of a pair, for every column; ours compare like with like. The `paper:` \
         rows are the paper's Table 4.",
    );
    t.note(options_note(options));
    for c in counts {
        t.note(c);
    }
    if let Some(n) = left_out {
        t.note(n);
    }
    out.option("kaneko2022 shuffles", shuffles.to_string());
    out.table(
        "table-4",
        "Token-level prediction accuracy of AUL on shuffled (CP, SS) and unrelated (SS) sentences",
        Status::Reproduced,
        &t,
    )
}

/// Table 1 as the authors' `evaluate.py` (kanekomasahiro/evaluate_bias_in_mlm, commit 6b10239)
/// prints it in its `Accuracy:` line: over both sentences of every pair of `pairs` (also pairs
/// that tokenise identically), the share of rank-1 predictions among every position a method
/// scores: for AUL (`calculate_aul`) every token of the unmasked sentence, the special tokens
/// included; for CPS (`calculate_cps`, CrowS-Pairs) each unmodified token masked alone, the first
/// and last unmodified positions dropped; for SSS (`calculate_sss`, StereoSet) the modified tokens,
/// masked together (a sentence without one adds nothing, their rank `-1` being dropped). Units
/// are tokens; `test` pairs AUL with the masked scorer on the masked scorer's positions (the
/// authors' code makes no test; the paper's † does).
///
/// # Errors
/// As [`scorer_accuracy`].
pub fn authors_accuracy<M: DatasetScorer + TokenPredictor>(
    model: &mut M,
    set: AccuracySet,
    pairs: &[SentencePair],
) -> Result<ScorerAccuracy, PaperError> {
    authors_accuracy_in(&mut Predictor::of(model), set, pairs)
}

/// Table 1 of Kaneko & Bollegala (2022) for one model and data set (see [`ScorerAccuracy`]).
///
/// # Errors
/// [`RobustError::InvalidConfig`] if the model predicts no tokens (a causal LM);
/// [`RobustError::Model`] with the model's error.
pub fn scorer_accuracy<M: DatasetScorer + TokenPredictor>(
    model: &mut M,
    set: AccuracySet,
    pairs: &[SentencePair],
    options: AccuracyOptions,
) -> Result<ScorerAccuracy, PaperError> {
    scorer_accuracy_in(&mut Predictor::of(model), set, pairs, options)
}

/// Table 4, shuffled columns: AUL's accuracy when the non-special tokens of every sentence are
/// shuffled (seeded by `seed`; see the module documentation), against the original sentences,
/// counted on the positions and units `options` chooses; each counted token is paired with itself
/// at its new position.
///
/// # Errors
/// As [`scorer_accuracy`].
pub fn shuffled_accuracy<M: DatasetScorer + TokenPredictor>(
    model: &mut M,
    set: AccuracySet,
    pairs: &[SentencePair],
    options: AccuracyOptions,
    seed: u64,
) -> Result<Changed, PaperError> {
    shuffled_accuracy_in(&mut Predictor::of(model), set, pairs, options, seed)
}

/// [`shuffled_accuracy`] for each of `seeds`, in order, sharing the alignment and the original
/// sentences' passes (the shuffles differ, the originals do not).
///
/// # Errors
/// As [`scorer_accuracy`].
pub fn shuffled_accuracies<M: DatasetScorer + TokenPredictor>(
    model: &mut M,
    set: AccuracySet,
    pairs: &[SentencePair],
    options: AccuracyOptions,
    seeds: &[u64],
) -> Result<Vec<Changed>, PaperError> {
    shuffled_accuracies_in(&mut Predictor::of(model), set, pairs, options, seeds)
}

/// Table 4, unrelated column, like with like: for each StereoSet item, AUL's accuracy on the
/// unrelated sentence's candidate tokens against its accuracy on the stereotypical sentence's
/// candidate tokens, one sentence on each side. `unrelated` holds, per item, its (stereotypical
/// sentence, unrelated sentence) pair (the `…/stereo-unrelated` pairs of
/// [`DataSet::StereoSetUnrelated`]); the candidate tokens are the modified tokens of their
/// alignment under [`AulTokens::Paper`] (the other [`AulTokens`] count whole sentences), and under
/// [`StereoSetAccuracy::Item`] a sentence is right when all of them are. Items whose two sentences
/// tokenise identically, or where one has no modified token, are left out. The candidates are
/// other words, so no paired test is made (`test` is `None`, as in the paper).
///
/// # Errors
/// As [`scorer_accuracy`].
pub fn unrelated_accuracy<M: DatasetScorer + TokenPredictor>(
    model: &mut M,
    unrelated: &[SentencePair],
    options: AccuracyOptions,
) -> Result<Changed, PaperError> {
    unrelated_accuracy_in(&mut Predictor::of(model), unrelated, options)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use bias_core::run::RunSummary;
    use bias_core::{BiasType, BoxError, Direction};

    use super::*;

    /// Sentences are space-separated integers; ids are `[101, words…, 102]`. Unmasked, a position
    /// is predicted right when its id is even or follows its left neighbour by one (so order
    /// matters); masked, when its id is a multiple of 3.
    struct Fake;

    fn rule(ids: &[i64], masked: &[usize], p: usize) -> bool {
        if masked.contains(&p) {
            ids[p] % 3 == 0
        } else {
            ids[p] % 2 == 0 || (p > 0 && ids[p - 1] + 1 == ids[p])
        }
    }

    impl DatasetScorer for Fake {
        fn name(&self) -> &str {
            "fake"
        }
        fn conventions(&self) -> Option<bias_core::ScoringConventions> {
            None
        }
        fn score_into(
            &mut self,
            _: &str,
            _: &[SentencePair],
            _: &Path,
        ) -> Result<RunSummary, BoxError> {
            Err("not a scorer".into())
        }
    }

    impl TokenPredictor for Fake {
        fn token_ids(&mut self, sentence: &str) -> Result<Vec<i64>, BoxError> {
            let mut ids = vec![101];
            for w in sentence.split_whitespace() {
                ids.push(w.parse()?);
            }
            ids.push(102);
            Ok(ids)
        }
        fn predict_tokens(&mut self, queries: &[TokenQuery]) -> Result<Vec<Vec<bool>>, BoxError> {
            Ok(queries
                .iter()
                .map(|q| {
                    q.targets
                        .iter()
                        .map(|&p| rule(&q.ids, &q.masked, p))
                        .collect()
                })
                .collect())
        }
    }

    fn pair(id: &str, stereo: &str, anti: &str) -> SentencePair {
        SentencePair {
            id: id.into(),
            stereo: stereo.into(),
            anti: anti.into(),
            bias_type: BiasType::Gender,
            direction: Direction::Stereo,
            group_id: None,
        }
    }

    fn opts(aul_tokens: AulTokens, stereoset: StereoSetAccuracy) -> AccuracyOptions {
        AccuracyOptions {
            aul_tokens,
            stereoset,
        }
    }

    #[test]
    fn crows_pairs_token_sets_by_hand() {
        // ids [101 2 3 5 102] / [101 2 4 5 102]: unmodified inner positions 1 and 3.
        let pairs = [pair("c", "2 3 5", "2 4 5"), pair("same", "7", "7")];
        let set = AccuracySet::CrowsPairs;
        let item = StereoSetAccuracy::Item; // no effect on CrowS-Pairs
        let paper = scorer_accuracy(&mut Fake, set, &pairs, opts(AulTokens::Paper, item)).unwrap();
        // CPS: ids 2 and 5 masked alone, neither a multiple of 3.
        assert_eq!((paper.masked.correct(), paper.masked.total()), (0, 4));
        // AUL at 1 and 3: stereo 2 (even) ✓, 5 after 3 ✗; anti 2 ✓, 5 after 4 ✓.
        assert_eq!((paper.aul.correct(), paper.aul.total()), (3, 4));
        assert_eq!(paper.unit, "token");
        assert_eq!(paper.test.unwrap().table, [[0, 3], [0, 1]]);
        assert_eq!((paper.pairs, paper.skipped_identical), (1, 1));
        // Sentence: stereo 2 ✓ 3 ✓ 5 ✗, anti 2 ✓ 4 ✓ 5 ✓; the test stays on CPS's tokens.
        let sentence =
            scorer_accuracy(&mut Fake, set, &pairs, opts(AulTokens::Sentence, item)).unwrap();
        assert_eq!((sentence.aul.correct(), sentence.aul.total()), (5, 6));
        assert_eq!(sentence.test.unwrap().table, [[0, 3], [0, 1]]);
        // With special tokens: 101 ✗ (odd, first), 102 ✓ (even) on each side.
        let special =
            scorer_accuracy(&mut Fake, set, &pairs, opts(AulTokens::WithSpecial, item)).unwrap();
        assert_eq!((special.aul.correct(), special.aul.total()), (7, 10));
    }

    #[test]
    fn stereoset_items_and_tokens_by_hand() {
        let pairs = [pair("a", "1 2 3 9", "1 2 4 9"), pair("b", "5 7", "5 8 8")];
        let set = AccuracySet::StereoSet;
        // Item a: SSS stereo 3 ✓ (×3); AUL stereo 3 after 2 ✓ → both right.
        // Item b: SSS 7 ✗, anti 8 8 ✗ → wrong; AUL stereo 7 ✗ but anti 8 8 ✓ → right.
        let items = scorer_accuracy(&mut Fake, set, &pairs, AccuracyOptions::default()).unwrap();
        assert_eq!(items.unit, "item");
        assert_eq!((items.masked.correct(), items.masked.total()), (1, 2));
        assert_eq!((items.aul.correct(), items.aul.total()), (2, 2));
        assert_eq!(items.test.unwrap().table, [[1, 1], [0, 0]]);
        assert_eq!(items.masked.percent(), 50.0);
        // Tokens: SSS [✓ ✗ | ✗ ✗ ✗], AUL [✓ ✓ | ✗ ✓ ✓].
        let tokens = scorer_accuracy(
            &mut Fake,
            set,
            &pairs,
            opts(AulTokens::Paper, StereoSetAccuracy::Token),
        )
        .unwrap();
        assert_eq!((tokens.masked.correct(), tokens.masked.total()), (1, 5));
        assert_eq!((tokens.aul.correct(), tokens.aul.total()), (4, 5));
        assert_eq!(tokens.test.unwrap().table, [[1, 3], [0, 1]]);
        // Every sentence token: item a stereo 1 ✗ 2 ✓ 3 ✓ 9 ✗ → no item is wholly right.
        let sentence = scorer_accuracy(
            &mut Fake,
            set,
            &pairs,
            opts(AulTokens::Sentence, StereoSetAccuracy::Item),
        )
        .unwrap();
        assert_eq!(sentence.aul.correct(), 0);
        // A sentence whose tokens all occur in the other has no modified token: left out.
        let contained = [pair("c", "1 2", "1 2 4")];
        let r = scorer_accuracy(&mut Fake, set, &contained, AccuracyOptions::default()).unwrap();
        assert_eq!((r.pairs, r.skipped_empty), (0, 1));
        assert!(r.test.is_none() && r.aul.percent().is_nan());
    }

    /// The authors' `Accuracy:` counts every position a method scores, of both sentences of
    /// every pair: pairs that tokenise identically count, AUL counts the special tokens, SSS
    /// counts nothing for a sentence without a modified token.
    #[test]
    fn authors_accuracy_by_hand() {
        let pairs = [
            // Unmodified 101, 1, 2, 9, 102; modified 3 / 4.
            pair("a", "1 2 3 9", "1 2 4 9"),
            // Identical: every position unmodified.
            pair("b", "3 6", "3 6"),
            // The stereotypical sentence has no modified token.
            pair("c", "1 2", "1 2 4"),
        ];
        let cp = authors_accuracy(&mut Fake, AccuracySet::CrowsPairs, &pairs).unwrap();
        // AUL: every token of the 6 sentences, [101, …, 102] included: 6 + 6 + 4 + 4 + 4 + 5.
        assert_eq!(cp.aul.total(), 29);
        // Unmasked rule (even, or one more than the left neighbour): a [101 ✗, 1 ✗, 2 ✓, 3 ✓,
        // 9 ✗, 102 ✓] and [101, 1, 2 ✓, 4 ✓, 9, 102 ✓]; b [101, 3, 6 ✓, 102 ✓] twice; c [101, 1,
        // 2 ✓, 102 ✓] and [101, 1, 2 ✓, 4 ✓, 102 ✓].
        assert_eq!(cp.aul.correct(), 3 + 3 + 2 + 2 + 2 + 3);
        // CPS: the unmodified positions but the first and last of them: a 0 1 2 4 5 → 1 2 4
        // (ids 1 2 9) on each side; b 0 1 2 3 → 1 2 (ids 3 6) on each side; c [101 1 2 | 102]
        // → 1 2 (ids 1 2) on each side.
        assert_eq!(cp.masked.total(), 3 + 3 + 2 + 2 + 2 + 2);
        // Masked rule (a multiple of 3): a's 9 and b's 3 and 6, on both sides.
        assert_eq!(cp.masked.correct(), 2 + 4);
        assert_eq!(
            (cp.pairs, cp.skipped_identical, cp.skipped_empty),
            (3, 0, 0)
        );
        let ss = authors_accuracy(&mut Fake, AccuracySet::StereoSet, &pairs).unwrap();
        // SSS: a 3 | 4, b nothing, c nothing | 4: three tokens, 3 ✓.
        assert_eq!((ss.masked.correct(), ss.masked.total()), (1, 3));
        assert_eq!(ss.unit, "token");
        // The paper's reading leaves b (identical) and c (no modified token) out.
        let paper = scorer_accuracy(
            &mut Fake,
            AccuracySet::StereoSet,
            &pairs,
            opts(AulTokens::Paper, StereoSetAccuracy::Token),
        )
        .unwrap();
        assert_eq!(
            (paper.pairs, paper.skipped_identical, paper.skipped_empty),
            (1, 1, 1)
        );
        assert_eq!(paper.masked.total(), 2);
    }

    #[test]
    fn unrelated_by_hand() {
        let unrelated = [
            // Candidates 3 (follows 2: ✓) against 6 (even: ✓).
            pair("a/stereo-unrelated", "1 2 3 9", "1 2 6 9"),
            // 7 (odd, not after 6: ✗) against 11 (✗).
            pair("b/stereo-unrelated", "5 7", "5 11"),
            // 7 against 8 (even: ✓).
            pair("c/stereo-unrelated", "5 7", "5 8"),
            // The stereotypical sentence has no modified token against the unrelated one.
            pair("d/stereo-unrelated", "1 2", "1 2 4"),
            // Both tokenise identically.
            pair("e/stereo-unrelated", "5 7", "5 7"),
        ];
        let u = unrelated_accuracy(&mut Fake, &unrelated, AccuracyOptions::default()).unwrap();
        // Like with like: the stereotypical candidates a ✓, b ✗, c ✗ against the unrelated ones
        // a ✓, b ✗, c ✓, one sentence each.
        assert_eq!(u.unit, "item");
        assert_eq!(u.original.0, [true, false, false]);
        assert_eq!(u.changed.0, [true, false, true]);
        assert_eq!((u.pairs, u.skipped_identical, u.skipped_empty), (3, 1, 1));
        assert!(u.test.is_none());
        assert!((u.drop() - (100.0 / 3.0 - 200.0 / 3.0)).abs() < 1e-12);
        // Tokens of the whole sentence (AUL tokens `sentence`): a stereo 1 ✗ 2 ✓ 3 ✓ 9 ✗,
        // unrelated 1 ✗ 2 ✓ 6 ✓ 9 ✗; b 5 ✗ 7 ✗ / 5 ✗ 11 ✗; c 5 ✗ 7 ✗ / 5 ✗ 8 ✓.
        let t = unrelated_accuracy(
            &mut Fake,
            &unrelated,
            opts(AulTokens::Sentence, StereoSetAccuracy::Token),
        )
        .unwrap();
        assert_eq!((t.original.correct(), t.original.total()), (2, 8));
        assert_eq!((t.changed.correct(), t.changed.total()), (3, 8));
        // The shuffled run leaves out an item Table 1 leaves out (a sentence without a modified
        // token).
        let more = [
            pair("a", "1 2 3 9", "1 2 4 9"),
            pair("b", "5 7", "5 8 8"),
            pair("c", "1 2", "1 2 4"),
        ];
        let o = AccuracyOptions::default();
        let sh = shuffled_accuracy(&mut Fake, AccuracySet::StereoSet, &more, o, 1).unwrap();
        assert_eq!((sh.pairs, sh.skipped_empty), (2, 1));
        // Several seeds share the originals and give one run each, the first equal to the single
        // seed's run.
        let runs =
            shuffled_accuracies(&mut Fake, AccuracySet::StereoSet, &more, o, &[1, 2, 3]).unwrap();
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[0], sh);
        assert!(runs.iter().all(|r| r.original == sh.original));
    }

    #[test]
    fn shuffles_are_seeded_permutations_of_the_inner_tokens() {
        let ids: Vec<i64> = vec![101, 1, 2, 3, 4, 5, 6, 7, 8, 102];
        let (a, pos) = shuffle(&ids, 7, 0);
        assert_eq!((a[0], a[9]), (101, 102));
        for (p, &q) in pos.iter().enumerate() {
            assert_eq!(a[q], ids[p]);
        }
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, {
            let mut s = ids.clone();
            s.sort();
            s
        });
        assert_eq!(shuffle(&ids, 7, 0), (a.clone(), pos));
        assert_ne!(shuffle(&ids, 7, 1).0, a);
        assert_ne!(shuffle(&ids, 8, 0).0, a);
    }

    #[test]
    fn shuffled_outcomes_follow_each_token_to_its_new_position() {
        let pairs = [
            pair("a", "1 2 3 4 5 6 7 9", "1 2 3 4 5 6 8 9"),
            pair("b", "10 11 12 13 14", "10 11 12 13 15"),
        ];
        let set = AccuracySet::CrowsPairs;
        let o = AccuracyOptions::default();
        let r = shuffled_accuracy(&mut Fake, set, &pairs, o, 3).unwrap();
        // The same outcomes, from the rule on the shuffled ids, token by token.
        let mut want_orig = Vec::new();
        let mut want_new = Vec::new();
        for (i, p) in pairs.iter().enumerate() {
            let al = align(&mut Predictor::of(&mut Fake), set, std::slice::from_ref(p)).unwrap();
            let al = al[0].as_ref().unwrap();
            for side in 0..2 {
                let ids = &al.ids[side];
                let (sh, pos) = shuffle(ids, 3, 2 * i as u64 + side as u64);
                for &q in &al.shared[side] {
                    want_orig.push(rule(ids, &[], q));
                    want_new.push(rule(&sh, &[], pos[q]));
                }
            }
        }
        assert_eq!(r.original.0, want_orig);
        assert_eq!(r.changed.0, want_new);
        assert_ne!(want_orig, want_new, "the shuffle changes some outcome");
        assert_eq!(
            r.test.unwrap().table,
            bias_metrics::stats::mcnemar_table(&want_orig, &want_new).unwrap()
        );
    }

    #[test]
    fn context_free_predictions_do_not_change_under_shuffling() {
        /// Right when the id is even, wherever it stands.
        struct Even;
        impl DatasetScorer for Even {
            fn name(&self) -> &str {
                "even"
            }
            fn conventions(&self) -> Option<bias_core::ScoringConventions> {
                None
            }
            fn score_into(
                &mut self,
                _: &str,
                _: &[SentencePair],
                _: &Path,
            ) -> Result<RunSummary, BoxError> {
                Err("not a scorer".into())
            }
        }
        impl TokenPredictor for Even {
            fn token_ids(&mut self, s: &str) -> Result<Vec<i64>, BoxError> {
                Fake.token_ids(s)
            }
            fn predict_tokens(
                &mut self,
                queries: &[TokenQuery],
            ) -> Result<Vec<Vec<bool>>, BoxError> {
                Ok(queries
                    .iter()
                    .map(|q| q.targets.iter().map(|&p| q.ids[p] % 2 == 0).collect())
                    .collect())
            }
        }
        let pairs = [pair("a", "1 2 3 4 5 6 7 9", "1 2 3 4 5 6 8 9")];
        for set in [AccuracySet::CrowsPairs, AccuracySet::StereoSet] {
            for tokens in AulTokens::ALL {
                let o = opts(tokens, StereoSetAccuracy::Token);
                let r = shuffled_accuracy(&mut Even, set, &pairs, o, 11).unwrap();
                assert_eq!(r.original, r.changed);
                let t = r.test.unwrap().table;
                assert_eq!((t[0][1], t[1][0]), (0, 0));
            }
        }
    }

    #[test]
    fn option_names_parse() {
        for t in AulTokens::ALL {
            assert_eq!(t.name().parse::<AulTokens>().unwrap(), t);
        }
        for s in StereoSetAccuracy::ALL {
            assert_eq!(s.name().parse::<StereoSetAccuracy>().unwrap(), s);
        }
        // Case and surrounding blanks are ignored.
        assert_eq!(
            " With-Special ".parse::<AulTokens>().unwrap(),
            AulTokens::WithSpecial
        );
        let err = "all".parse::<AulTokens>().unwrap_err();
        assert!(
            matches!(&err, RobustError::InvalidParameter { name, value, expected }
                if name == "AUL accuracy tokens" && value == "all"
                    && expected == "one of paper, sentence, with-special"),
            "{err:?}"
        );
        let err = "pairs".parse::<StereoSetAccuracy>().unwrap_err();
        assert!(
            matches!(&err, RobustError::InvalidParameter { expected, .. }
                if expected == "one of item, token"),
            "{err:?}"
        );
        let err = "kaneko2099".parse::<crate::Paper>().unwrap_err();
        assert!(
            matches!(&err, RobustError::InvalidParameter { name, expected, .. }
                if name == "paper"
                    && expected == "one of kaneko2022, liu2024, paraphrase, kaneko2023, schroeder2024"),
            "{err:?}"
        );
    }
}
