//! The pseudo-log-likelihood sentence scores of kaneko2022: AUL, AULA (kaneko2022 Eqs. 4–5),
//! CPS (Nangia et al. 2020; kaneko2022 Eq. 3), SSS (kaneko2022 Eq. 2), all-masked (kaneko2022
//! Table 3) and PLL (Salazar et al. 2020; liu2024 Eq. 1), with token-prediction accuracy.
//!
//! Each scorer turns a pair into [`Job`]s (masked copies of its sentences); jobs of many pairs and
//! several scorers go through one [`Engine`] run, so a forward pass is never repeated: AUL and
//! AULA share their unmasked pass, and the masked copies of CPS and PLL are batched across
//! sentences.

use std::fmt;

use bias_core::{PairOutcome, PairScore, SentencePair, SentenceScore, SkipReason, Unscorable};
use bias_data::difflib::align_tokens;

use crate::engine::{BatchOptions, Engine, EngineStats, Job, JobResult, Target};
use crate::model::MaskedLanguageModel;
use crate::{PlmError, PlmTokenizer};

/// Which sentence score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScorerKind {
    /// All Unmasked Likelihood (kaneko2022 Eq. 4): one pass on the unmasked sentence, the
    /// **mean** of `log P(t_i | S)` over the non-special positions.
    Aul,
    /// AUL with Attention weights (kaneko2022 Eq. 5): `(1/(S−2)) Σ a_i log P(t_i | S)`, `a_i` the
    /// attention position `i` receives, averaged over layers, heads and queries (not
    /// renormalised after dropping the special positions).
    Aula,
    /// CrowS-Pairs Score (Nangia et al. 2020; kaneko2022 Eq. 3): mask each unmodified token alone
    /// and **sum** `log P(original)`.
    Cps,
    /// StereoSet Score as kaneko2022 Eq. 2 defines it: mask all modified tokens at once and
    /// average `log P(original)` over them.
    Sss,
    /// All-masked (kaneko2022 Table 3 baseline): mask every non-special token at once and average
    /// `log P(original)`.
    AllMasked,
    /// Pseudo-log-likelihood (Salazar et al. 2020; liu2024 Eq. 1): mask each non-special token in
    /// turn and sum `log P(original)`.
    Pll,
}

impl ScorerKind {
    /// Every scorer, in the order tables list them.
    pub const ALL: [ScorerKind; 6] = [
        ScorerKind::Aul,
        ScorerKind::Aula,
        ScorerKind::Cps,
        ScorerKind::Sss,
        ScorerKind::AllMasked,
        ScorerKind::Pll,
    ];

    /// The scorer's identity, shared with every crate that reads score tables.
    pub const fn scorer(self) -> bias_core::Scorer {
        match self {
            ScorerKind::Aul => bias_core::Scorer::Aul,
            ScorerKind::Aula => bias_core::Scorer::Aula,
            ScorerKind::Cps => bias_core::Scorer::Cps,
            ScorerKind::Sss => bias_core::Scorer::Sss,
            ScorerKind::AllMasked => bias_core::Scorer::AllMasked,
            ScorerKind::Pll => bias_core::Scorer::Pll,
        }
    }

    /// The name written to a score table's `scorer` column ([`bias_core::Scorer::name`]).
    pub const fn name(self) -> &'static str {
        self.scorer().name()
    }

    /// The masked-LM scorer `scorer` is; `None` for a causal LM's.
    pub fn of(scorer: bias_core::Scorer) -> Option<ScorerKind> {
        ScorerKind::ALL.into_iter().find(|k| k.scorer() == scorer)
    }

    /// Whether the score depends on the other sentence of the pair (through the alignment).
    pub fn needs_alignment(self) -> bool {
        matches!(self, ScorerKind::Cps | ScorerKind::Sss)
    }
}

impl fmt::Display for ScorerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

pub use bias_core::SssAverage;

bias_core::choice! {
    /// The order in which a pair's token sequences are aligned (difflib is not symmetric).
    #[derive(Default)]
    pub enum AlignmentOrder: "alignment order" {
        /// `(stereo, anti)` = `(sent_more, sent_less)` for every pair, as Kaneko's and Liu's code.
        /// Default.
        #[default]
        StereoFirst = "stereo-first" => "Align (stereo, anti) for every pair (Kaneko, Liu)",
        /// Nangia et al.'s CrowS-Pairs script: `(sent_less, sent_more)` on `antistereo` rows.
        Nangia = "nangia" => "Nangia's script: (anti, stereo) on antistereo rows",
    }
}

/// Options of the scorers; [`Default`] reproduces the papers' definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScoringOptions {
    /// Round each CPS sentence score to 3 decimals before use, as Nangia's and Kaneko's scripts
    /// do (Liu's copy does not). Default off.
    pub cps_round_3: bool,
    /// SSS averaging.
    pub sss: SssAverage,
    /// Alignment order.
    pub alignment: AlignmentOrder,
    /// Truncate sentences longer than the model accepts (keeping the first tokens and the final
    /// special token) instead of failing. Default off.
    pub truncate: bool,
    /// Batching.
    pub batch: BatchOptions,
}

impl ScoringOptions {
    /// The conventions these options score with (SSS's average, CPS's rounding).
    pub fn conventions(&self) -> bias_core::ScoringConventions {
        bias_core::ScoringConventions {
            sss: self.sss,
            cps_round_3: self.cps_round_3,
        }
    }

    /// These options with `conventions`' SSS average and CPS rounding.
    pub fn with_conventions(mut self, conventions: bias_core::ScoringConventions) -> Self {
        self.sss = conventions.sss;
        self.cps_round_3 = conventions.cps_round_3;
        self
    }
}

/// Tokens of one pair, aligned.
#[derive(Debug, Clone)]
struct PreparedPair {
    stereo: Vec<i64>,
    anti: Vec<i64>,
    /// Unmodified positions (CPS) of stereo / anti, special tokens excluded.
    shared: [Vec<usize>; 2],
    /// Modified positions (SSS) of stereo / anti.
    modified: [Vec<usize>; 2],
}

/// Scores pairs with any set of pseudo-log-likelihood scorers on one masked LM, sharing forward
/// passes; implements the core [`bias_core::PairScorer`] trait, so the resumable runs of
/// [`bias_core::run`] drive it.
///
/// Build it with [`crate::MaskedLm::scorer`], or with [`MlmScorer::new`] from a model and its
/// tokenizer (a model fine-tuned in memory, say).
#[derive(Debug)]
pub struct MlmScorer<'m> {
    engine: Engine<'m>,
    tokenizer: &'m PlmTokenizer,
    kinds: Vec<ScorerKind>,
    options: ScoringOptions,
    max_tokens: usize,
    dtype: tch::Kind,
}

impl<'m> MlmScorer<'m> {
    /// A scorer for `kinds` on `model`, whose sentences `tokenizer` encodes.
    ///
    /// `special` holds the tokenizer's mask and padding ids and the longest sequence (special
    /// tokens included) the model accepts ([`SpecialIds::of`]).
    ///
    /// # Errors
    /// [`PlmError::UnknownScorer`] if `kinds` is empty.
    pub fn new(
        model: &'m dyn MaskedLanguageModel,
        tokenizer: &'m PlmTokenizer,
        special: SpecialIds,
        kinds: &[ScorerKind],
        options: ScoringOptions,
    ) -> Result<Self, PlmError> {
        let kinds = chosen_kinds(kinds)?;
        Ok(MlmScorer {
            engine: Engine::new(
                model,
                special.mask,
                special.pad,
                model.device(),
                options.batch,
            ),
            tokenizer,
            kinds,
            options,
            max_tokens: special.max_tokens,
            dtype: model.kind(),
        })
    }

    /// The scorers, in order.
    pub fn kinds(&self) -> &[ScorerKind] {
        &self.kinds
    }

    /// Work counters so far.
    pub fn stats(&self) -> EngineStats {
        self.engine.stats()
    }

    /// Scores pairs already tokenised (`(stereo ids, anti ids)`, special tokens included).
    ///
    /// # Errors
    /// [`PlmError::TooLong`] naming the pair when a sentence exceeds the model's maximum and
    /// truncation is off; [`PlmError::Torch`] on a libtorch failure.
    pub fn score_tokenised(
        &mut self,
        pairs: &[(&SentencePair, Vec<i64>, Vec<i64>)],
    ) -> Result<Vec<PairOutcome>, PlmError> {
        let mut prepared = Vec::with_capacity(pairs.len());
        for (pair, s, a) in pairs {
            let cut = self.options.truncate.then_some(Cut::KeepLast);
            let fit = |side, ids| fit_length(pair, side, ids, self.max_tokens, cut);
            let s = fit("stereo", s)?;
            let a = fit("anti", a)?;
            prepared.push(if s == a {
                None
            } else {
                Some(self.prepare(pair, s, a))
            });
        }
        // Build every job of every pair and scorer, remembering where each one goes.
        let mut jobs = Vec::new();
        let mut plan: Vec<Vec<(ScorerKind, [Vec<usize>; 2])>> = Vec::new();
        for p in &prepared {
            let mut per_kind = Vec::new();
            if let Some(p) = p {
                for &kind in &self.kinds {
                    let mut idx = [Vec::new(), Vec::new()];
                    for (side, slots) in idx.iter_mut().enumerate() {
                        for job in self.jobs_for(kind, p, side) {
                            slots.push(jobs.len());
                            jobs.push(job);
                        }
                    }
                    per_kind.push((kind, idx));
                }
            }
            plan.push(per_kind);
        }
        let shared = deduplicate(&jobs);
        let results = self.engine.run(&shared.unique_jobs)?;
        let results: Vec<&JobResult> = shared.map.iter().map(|&u| &results[u]).collect();

        let mut outcomes = Vec::with_capacity(prepared.len());
        for (p, per_kind) in prepared.iter().zip(&plan) {
            let Some(p) = p else {
                outcomes.push(PairOutcome::Skipped(SkipReason::IdenticalTokens));
                continue;
            };
            let mut scores = Vec::new();
            let mut unscorable = Vec::new();
            for (kind, idx) in per_kind {
                if *kind == ScorerKind::Sss
                    && (p.modified[0].is_empty() || p.modified[1].is_empty())
                {
                    unscorable.push(Unscorable {
                        scorer: kind.name().to_owned().into(),
                        reason: "a sentence without modified tokens".to_owned(),
                    });
                    continue;
                }
                let side_score = |side: usize| {
                    let rs: Vec<&JobResult> = idx[side].iter().map(|&j| results[j]).collect();
                    let ids = if side == 0 { &p.stereo } else { &p.anti };
                    self.combine(*kind, ids, &p.modified[side], &rs)
                };
                scores.push(PairScore {
                    scorer: kind.name().to_owned().into(),
                    stereo: side_score(0),
                    anti: side_score(1),
                });
            }
            outcomes.push(PairOutcome::Scored { scores, unscorable });
        }
        Ok(outcomes)
    }

    fn prepare(&self, pair: &SentencePair, stereo: Vec<i64>, anti: Vec<i64>) -> PreparedPair {
        // Only CPS and SSS read the alignment; the others score each sentence on its own.
        if !self.kinds.iter().any(|k| k.needs_alignment()) {
            return PreparedPair {
                stereo,
                anti,
                shared: [Vec::new(), Vec::new()],
                modified: [Vec::new(), Vec::new()],
            };
        }
        let swap = self.options.alignment == AlignmentOrder::Nangia
            && pair.direction == bias_core::Direction::Antistereo;
        let al = if swap {
            let al = align_tokens(&anti, &stereo);
            bias_data::difflib::Alignment {
                shared_a: al.shared_b,
                shared_b: al.shared_a,
                modified_a: al.modified_b,
                modified_b: al.modified_a,
            }
        } else {
            align_tokens(&stereo, &anti)
        };
        // The first and last equal positions are the special tokens (the alignment of Nangia et al. 2020's CrowS-Pairs code).
        let inner = |v: &[usize]| -> Vec<usize> {
            if v.len() <= 2 {
                Vec::new()
            } else {
                v[1..v.len() - 1].to_vec()
            }
        };
        PreparedPair {
            shared: [inner(&al.shared_a), inner(&al.shared_b)],
            modified: [al.modified_a, al.modified_b],
            stereo,
            anti,
        }
    }

    fn jobs_for(&self, kind: ScorerKind, p: &PreparedPair, side: usize) -> Vec<Job> {
        let ids = if side == 0 { &p.stereo } else { &p.anti };
        let n = ids.len();
        let inner: Vec<usize> = (1..n.saturating_sub(1)).collect();
        let target = |pos: usize| Target {
            position: pos,
            tokens: vec![ids[pos]],
        };
        let job = |masked: Vec<usize>, targets: Vec<Target>, attention: bool| Job {
            ids: ids.clone(),
            masked,
            targets,
            attention,
        };
        match kind {
            ScorerKind::Aul | ScorerKind::Aula => vec![job(
                Vec::new(),
                inner.iter().map(|&i| target(i)).collect(),
                kind == ScorerKind::Aula,
            )],
            ScorerKind::Cps => p.shared[side]
                .iter()
                .map(|&i| job(vec![i], vec![target(i)], false))
                .collect(),
            ScorerKind::Pll => inner
                .iter()
                .map(|&i| job(vec![i], vec![target(i)], false))
                .collect(),
            ScorerKind::AllMasked => {
                vec![job(
                    inner.clone(),
                    inner.iter().map(|&i| target(i)).collect(),
                    false,
                )]
            }
            ScorerKind::Sss => {
                let modified = &p.modified[side];
                if modified.is_empty() {
                    return Vec::new();
                }
                let tokens_of_modified: Vec<i64> = modified.iter().map(|&i| ids[i]).collect();
                let targets = modified
                    .iter()
                    .map(|&i| {
                        // The original token first, then every modified token (for the n×n mean).
                        let mut tokens = vec![ids[i]];
                        if self.options.sss == SssAverage::Matrix {
                            tokens.extend(&tokens_of_modified);
                        }
                        Target {
                            position: i,
                            tokens,
                        }
                    })
                    .collect();
                vec![job(modified.clone(), targets, false)]
            }
        }
    }

    fn combine(
        &self,
        kind: ScorerKind,
        ids: &[i64],
        modified: &[usize],
        results: &[&JobResult],
    ) -> SentenceScore {
        let own: Vec<f64> = results
            .iter()
            .flat_map(|r| r.log_probs.iter().map(|lp| lp[0]))
            .collect();
        let correct = results
            .iter()
            .flat_map(|r| r.correct.iter())
            .filter(|&&c| c)
            .count();
        let n = own.len();
        let mean = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        let score = match kind {
            ScorerKind::Aul | ScorerKind::AllMasked => mean(&own),
            ScorerKind::Pll => own.iter().sum(),
            ScorerKind::Cps => {
                let s: f64 = own.iter().sum();
                if self.options.cps_round_3 {
                    (s * 1000.0).round() / 1000.0
                } else {
                    s
                }
            }
            ScorerKind::Aula => {
                let r = results[0];
                let a = r.attention_received.as_deref().unwrap_or(&[]);
                let s = ids.len();
                // Targets are positions 1..S-1 in order; weights are not renormalised.
                let total: f64 = own
                    .iter()
                    .enumerate()
                    .map(|(k, lp)| a.get(k + 1).copied().unwrap_or(0.0) * lp)
                    .sum();
                if s > 2 {
                    total / (s - 2) as f64
                } else {
                    0.0
                }
            }
            ScorerKind::Sss => match self.options.sss {
                SssAverage::Diagonal => mean(&own),
                SssAverage::Matrix => {
                    let m = modified.len();
                    let all: Vec<f64> = results
                        .iter()
                        .flat_map(|r| r.log_probs.iter().flat_map(|lp| lp[1..].iter().copied()))
                        .collect();
                    debug_assert_eq!(all.len(), m * m);
                    mean(&all)
                }
            },
        };
        SentenceScore {
            score,
            scored_tokens: n,
            correct_predictions: Some(correct),
        }
    }
}

/// Special token ids and length limit of a model's tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecialIds {
    /// The mask token id.
    pub mask: i64,
    /// The padding token id.
    pub pad: i64,
    /// The longest sequence (special tokens included) the model accepts.
    pub max_tokens: usize,
}

impl SpecialIds {
    /// The mask and padding ids of `tokenizer` and the maximum length of `model`.
    ///
    /// # Errors
    /// [`PlmError::MissingSpecialToken`] when the tokenizer has no mask or padding token.
    pub fn of(model: &dyn MaskedLanguageModel, tokenizer: &PlmTokenizer) -> Result<Self, PlmError> {
        Ok(SpecialIds {
            mask: tokenizer.mask_id()?,
            pad: tokenizer.pad_id()?,
            max_tokens: model.config().max_tokens().max(0) as usize,
        })
    }
}

impl bias_core::PairScorer for MlmScorer<'_> {
    type Error = PlmError;

    fn scorer_names(&self) -> Vec<String> {
        self.kinds.iter().map(|k| k.name().to_owned()).collect()
    }

    /// The scoring options and the model's floating-point kind.
    fn settings(&self) -> String {
        format!("{:?}, dtype {:?}", self.options, self.dtype)
    }

    /// Tokenises both sentences of each pair and scores them with [`MlmScorer::score_tokenised`].
    fn score_pairs(&mut self, pairs: &[SentencePair]) -> Result<Vec<PairOutcome>, PlmError> {
        let tokenised = pairs
            .iter()
            .map(|p| {
                Ok((
                    p,
                    self.tokenizer.encode(&p.stereo)?,
                    self.tokenizer.encode(&p.anti)?,
                ))
            })
            .collect::<Result<Vec<_>, PlmError>>()?;
        self.score_tokenised(&tokenised)
    }

    /// Refuses the first pair with a sentence longer than the model accepts (truncation off),
    /// tokenising every sentence once before anything runs on the model.
    fn check_pairs(&mut self, pairs: &[SentencePair]) -> Result<(), (usize, PlmError)> {
        let cut = self.options.truncate.then_some(Cut::KeepLast);
        for (i, p) in pairs.iter().enumerate() {
            let fits = |side, text: &str| -> Result<(), PlmError> {
                let len = self.tokenizer.encode(text)?.len();
                check_length(p, side, len, self.max_tokens, cut)
            };
            fits("stereo", &p.stereo)
                .and_then(|()| fits("anti", &p.anti))
                .map_err(|e| (i, e))?;
        }
        Ok(())
    }
}

/// Jobs after merging identical ones (AUL and AULA read the same unmasked pass).
struct SharedJobs {
    unique_jobs: Vec<Job>,
    /// For each original job, its index in `unique_jobs`.
    map: Vec<usize>,
}

/// Merges jobs that are the same forward pass with the same targets, so that AUL and AULA on one
/// sentence cost one pass, and a CPS copy is not evaluated again for PLL. Attention is requested
/// if any of the merged jobs needs it.
fn deduplicate(jobs: &[Job]) -> SharedJobs {
    use std::collections::HashMap;
    /// A forward pass and what is read from it (attention aside).
    #[derive(PartialEq, Eq, Hash)]
    struct PassKey<'j> {
        ids: &'j [i64],
        masked: &'j [usize],
        targets: &'j [Target],
    }
    let mut index: HashMap<PassKey<'_>, usize> = HashMap::new();
    let mut unique: Vec<Job> = Vec::new();
    let mut map = Vec::with_capacity(jobs.len());
    for job in jobs {
        let key = PassKey {
            ids: &job.ids,
            masked: &job.masked,
            targets: &job.targets,
        };
        match index.get(&key) {
            Some(&u) => {
                unique[u].attention |= job.attention;
                map.push(u);
            }
            None => {
                index.insert(key, unique.len());
                map.push(unique.len());
                unique.push(job.clone());
            }
        }
    }
    SharedJobs {
        unique_jobs: unique,
        map,
    }
}

/// The scorers asked for, repeated neighbours dropped.
///
/// # Errors
/// [`PlmError::UnknownScorer`] if `kinds` is empty.
pub(crate) fn chosen_kinds<K: Clone + PartialEq>(kinds: &[K]) -> Result<Vec<K>, PlmError> {
    if kinds.is_empty() {
        return Err(PlmError::UnknownScorer("(none given)".to_owned()));
    }
    let mut kinds = kinds.to_vec();
    kinds.dedup();
    Ok(kinds)
}

/// How [`fit_length`] shortens a sentence over the model's window when truncation is on.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cut {
    /// Keep the first tokens (a causal LM's prefix and what follows it).
    KeepFirst,
    /// Keep the first tokens and the last (a masked LM's closing special token).
    KeepLast,
}

/// [`PlmError::TooLong`] naming the pair and its side unless a sentence of `len` tokens fits in
/// `max`, or can be cut to it (`cut` is `Some` when truncation is on).
pub(crate) fn check_length(
    pair: &SentencePair,
    side: &str,
    len: usize,
    max: usize,
    cut: Option<Cut>,
) -> Result<(), PlmError> {
    if len <= max || (cut.is_some() && max >= 2) {
        return Ok(());
    }
    Err(PlmError::TooLong {
        pair_id: pair.id.clone(),
        side: side.to_owned(),
        tokens: len,
        max,
    })
}

/// `ids` if they fit in `max` tokens; else cut to `max` tokens as `cut` says, or
/// [`PlmError::TooLong`] ([`check_length`]).
pub(crate) fn fit_length(
    pair: &SentencePair,
    side: &str,
    ids: &[i64],
    max: usize,
    cut: Option<Cut>,
) -> Result<Vec<i64>, PlmError> {
    check_length(pair, side, ids.len(), max, cut)?;
    Ok(match cut {
        _ if ids.len() <= max => ids.to_vec(),
        Some(Cut::KeepLast) => {
            let mut out = ids[..max - 1].to_vec();
            out.push(*ids.last().expect("longer than max ≥ 2"));
            out
        }
        _ => ids[..max].to_vec(),
    })
}
