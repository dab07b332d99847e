//! Turning texts into the target and attribute sets of the embedding measures: SEAT-style
//! templates ([`fill_templates`], [`embed_templated`]), the bias subspace of a pair set
//! ([`pair_subspace`]), and the CrowS-Pairs protocol of schroeder2024 (§4.2.3, §4.3.1).
//!
//! # The CrowS-Pairs protocol
//!
//! schroeder2024 §4.2.3 and §4.3.4, as the authors' code runs it (HammerLabML/
//! PLMBiasMeasureBenchmark, branch `ijcnn24`, `utils/datasets.py` and `mlm_experiment.py`), each
//! choice a named option whose default is theirs:
//!
//! - **Defining sets** ([`authors_sets`]): their `protected_groups.json` (race-color, religion,
//!   gender, age); [`same_paper_sets`] are sets written for this project before it was shipped.
//! - **Which pairs** ([`CrowsFilter`]): their `get_diff`/`get_group_label` (a case-sensitive
//!   difflib alignment of space-split words, every differing span of `sent_more` a term of one
//!   group and every span of `sent_less` a term of one group, the two groups possibly equal);
//!   [`CrowsFilter::SingleSpan`] is this project's earlier rule. Every excluded pair is reported.
//! - **The target** ([`Masking`]): `sent_more` with every token that differs from `sent_less`
//!   replaced by the mask token, one per token (their `get_neutral_samples_by_masking`).
//! - **Its group** ([`TargetSplit`]): the group the stereotype concerns (`sent_more`'s for stereo
//!   rows, `sent_less`'s for antistereo rows).
//! - **The measures** ([`crows_measures`], [`CrowsMeasureOptions`]): every target and every
//!   defining-set term embedded as its own text; SAME over all targets, WEAT (two groups, X/Y the
//!   targets by group, `ddof` 1) or gWEAT, DirectBias with `k = groups − 1` on a subspace of the
//!   raw term vectors ([`SubspaceVectors::Raw`], their `pca_bias_subspace`).
//!
//! `bias_papers` adds what only the full experiment needs (the PLL side, the group
//! order of their dataset class, the per-pair scores of Figure 1).

use bias_core::{BiasType, Embedder, SentencePair};
use bias_data::difflib::{SequenceMatcher, Tag};
use ndarray::{Array2, Axis};

use crate::{
    bias_subspace, bias_subspace_with, direct_bias, gweat, same_multi, weat, BiasSubspace, Ddof,
    DynEmbedder, EmbedError, PermutationOptions, PermutationTest, SameVariant, SubspaceVectors,
};

/// The defining sets of one bias type: group names and tuples with one term per group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefiningSets {
    /// The bias type the sets describe.
    pub bias_type: BiasType,
    /// Group names, in tuple order.
    pub groups: Vec<String>,
    /// Each tuple holds one term per group (lower case; a term may have several words).
    pub tuples: Vec<Vec<String>>,
}

impl DefiningSets {
    /// Builds sets from string slices.
    pub fn new(bias_type: BiasType, groups: &[&str], tuples: &[&[&str]]) -> Self {
        DefiningSets {
            bias_type,
            groups: groups.iter().map(|s| s.to_string()).collect(),
            tuples: tuples
                .iter()
                .map(|t| t.iter().map(|s| s.to_string()).collect())
                .collect(),
        }
    }

    /// The terms of group `g` (column `g` of the tuples).
    pub fn group_terms(&self, g: usize) -> Vec<&str> {
        self.tuples
            .iter()
            .filter_map(|t| t.get(g))
            .map(String::as_str)
            .collect()
    }

    /// The group a term belongs to, if any.
    pub fn group_of(&self, term: &str) -> Option<usize> {
        self.tuples
            .iter()
            .find_map(|t| t.iter().position(|w| w == term))
    }
}

bias_core::choice! {
    /// Which defining sets the CrowS-Pairs protocol uses (schroeder2024 Table 1).
    #[derive(Default)]
    pub enum DefiningSetsSource: "defining sets" {
        /// The authors' `protected_groups.json` ([`authors_sets`]).
        #[default]
        Authors = "authors" =>
            "The authors' `protected_groups.json` (Schröder et al. 2024 Table 1; shipped with its MIT licence)",
        /// The sets written for this project before the authors' file was shipped
        /// ([`same_paper_sets`]).
        Project = "project" =>
            "The sets written for this project before the authors' file was shipped",
    }
}

impl DefiningSetsSource {
    /// The defining sets, one per bias type.
    ///
    /// # Errors
    /// [`authors_sets`]' parse error (the file is shipped well-formed).
    pub fn sets(self) -> Result<Vec<DefiningSets>, EmbedError> {
        match self {
            DefiningSetsSource::Authors => authors_sets(),
            DefiningSetsSource::Project => Ok(same_paper_sets()),
        }
    }
}

/// Defining sets for the four bias types of schroeder2024 Table 1, written for this project
/// (see the module docs).
pub fn same_paper_sets() -> Vec<DefiningSets> {
    vec![
        DefiningSets::new(
            BiasType::Gender,
            &["male", "female"],
            &[
                &["he", "she"],
                &["him", "her"],
                &["his", "hers"],
                &["man", "woman"],
                &["men", "women"],
                &["boy", "girl"],
                &["boys", "girls"],
                &["father", "mother"],
                &["fathers", "mothers"],
                &["son", "daughter"],
                &["sons", "daughters"],
                &["brother", "sister"],
                &["brothers", "sisters"],
                &["husband", "wife"],
                &["husbands", "wives"],
                &["male", "female"],
                &["males", "females"],
                &["guy", "lady"],
                &["guys", "ladies"],
                &["sir", "madam"],
                &["king", "queen"],
                &["uncle", "aunt"],
                &["nephew", "niece"],
                &["boyfriend", "girlfriend"],
                &["himself", "herself"],
            ],
        ),
        DefiningSets::new(
            BiasType::RaceColor,
            &["white", "black", "asian"],
            &[
                &["white", "black", "asian"],
                &["whites", "blacks", "asians"],
                &["caucasian", "african", "chinese"],
                &["caucasians", "africans", "japanese"],
                &["european", "african-american", "korean"],
                &["europeans", "african-americans", "vietnamese"],
            ],
        ),
        DefiningSets::new(
            BiasType::Religion,
            &["christian", "muslim", "jewish", "hindu", "buddhist"],
            &[
                &["christian", "muslim", "jewish", "hindu", "buddhist"],
                &["christians", "muslims", "jews", "hindus", "buddhists"],
                &["christianity", "islam", "judaism", "hinduism", "buddhism"],
                &["church", "mosque", "synagogue", "mandir", "vihara"],
                &["bible", "quran", "torah", "vedas", "sutras"],
                &["pastor", "imam", "rabbi", "pandit", "monk"],
                &["catholic", "islamic", "jew", "hindi", "buddha"],
            ],
        ),
        DefiningSets::new(
            BiasType::Age,
            &["young", "old"],
            &[
                &["young", "old"],
                &["younger", "older"],
                &["youth", "elderly"],
                &["teenager", "senior"],
                &["teenagers", "seniors"],
                &["kid", "grandpa"],
                &["kids", "grandparents"],
                &["child", "retiree"],
            ],
        ),
    ]
}

/// One masked CrowS-Pairs target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskedTarget {
    /// The pair's id.
    pub pair_id: String,
    /// `sent_more` with its differing words replaced by the mask token.
    pub text: String,
    /// The group the target counts for: that of the `sent_more` term ([`crows_targets`]), or
    /// under [`TargetSplit::Authors`] that of `sent_less` for antistereo rows
    /// ([`crows_targets_with`]).
    pub stereo_group: usize,
    /// The other group of the pair.
    pub anti_group: usize,
}

/// The result of [`crows_targets`]: kept targets and excluded pairs with reasons.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CrowsTargets {
    /// One target per kept pair.
    pub targets: Vec<MaskedTarget>,
    /// `(pair id, reason)` for every pair of the type that was not kept.
    pub excluded: Vec<(String, String)>,
}

/// Lower-cased words with surrounding punctuation stripped (inner hyphens and apostrophes kept).
fn normalise(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// The CrowS-Pairs protocol of schroeder2024 for one bias type (see the module docs).
pub fn crows_targets(
    pairs: &[SentencePair],
    sets: &DefiningSets,
    mask_token: &str,
) -> CrowsTargets {
    let mut out = CrowsTargets::default();
    for p in pairs.iter().filter(|p| p.bias_type == sets.bias_type) {
        match mask_pair(p, sets, mask_token) {
            Ok(t) => out.targets.push(t),
            Err(reason) => out.excluded.push((p.id.clone(), reason)),
        }
    }
    out
}

fn mask_pair(p: &SentencePair, sets: &DefiningSets, mask: &str) -> Result<MaskedTarget, String> {
    let more: Vec<&str> = p.stereo.split_whitespace().collect();
    let less: Vec<&str> = p.anti.split_whitespace().collect();
    let a: Vec<String> = more.iter().map(|w| normalise(w)).collect();
    let b: Vec<String> = less.iter().map(|w| normalise(w)).collect();
    let ops: Vec<_> = SequenceMatcher::new(&a, &b)
        .opcodes()
        .into_iter()
        .filter(|o| o.tag != Tag::Equal)
        .collect();
    let [op] = ops.as_slice() else {
        return Err(format!("{} differing word spans (one expected)", ops.len()));
    };
    if op.tag != Tag::Replace {
        return Err("a word is inserted or deleted, not replaced".to_owned());
    }
    let term_a = a[op.i1..op.i2].join(" ");
    let term_b = b[op.j1..op.j2].join(" ");
    let (Some(ga), Some(gb)) = (sets.group_of(&term_a), sets.group_of(&term_b)) else {
        return Err(format!(
            "`{term_a}` / `{term_b}` not both defining-set terms"
        ));
    };
    if ga == gb {
        return Err(format!("`{term_a}` and `{term_b}` are in the same group"));
    }
    // Keep the original words' punctuation around the mask (e.g. "women." → "[MASK].").
    let first = more[op.i1];
    let last = more[op.i2 - 1];
    let lead: String = first.chars().take_while(|c| !c.is_alphanumeric()).collect();
    let trail: String = {
        let t: Vec<char> = last
            .chars()
            .rev()
            .take_while(|c| !c.is_alphanumeric())
            .collect();
        t.into_iter().rev().collect()
    };
    let mut words: Vec<String> = more[..op.i1].iter().map(|s| s.to_string()).collect();
    words.push(format!("{lead}{mask}{trail}"));
    words.extend(more[op.i2..].iter().map(|s| s.to_string()));
    Ok(MaskedTarget {
        pair_id: p.id.clone(),
        text: words.join(" "),
        stereo_group: ga,
        anti_group: gb,
    })
}

/// The authors' defining sets, `data/protected_groups.json` of Schröder et al.'s public code
/// (HammerLabML/PLMBiasMeasureBenchmark, MIT licence; shipped in `crates/bias-embed/data/` with
/// its licence and provenance).
pub const AUTHORS_PROTECTED_GROUPS: &str = include_str!("../data/protected_groups.json");

/// The bias types of Schröder et al. (2024) Table 1, in its order.
pub const TABLE1_TYPES: [&str; 4] = ["race-color", "religion", "gender", "age"];

/// The authors' defining sets ([`AUTHORS_PROTECTED_GROUPS`]) of the bias types of Table 1
/// (race-color: black, white, asian, 15 terms each; religion: christian, muslim, jewish,
/// buddhist, hindu, 14; gender: male, female, 25; age: old, young, 8), groups in the file's order.
/// Tuple `i` holds term `i` of every group (the file lists them in parallel; duplicates such as
/// `his`, `his` are kept, so a repeated term weighs twice in its group's mean, as in the
/// authors' code). The default of the CrowS-Pairs protocol.
///
/// # Errors
/// [`EmbedError::InvalidParameter`] if the shipped file is malformed (it is not).
pub fn authors_sets() -> Result<Vec<DefiningSets>, EmbedError> {
    parse_protected_groups(AUTHORS_PROTECTED_GROUPS, &TABLE1_TYPES)
}

/// Defining sets from a file laid out as the authors' `protected_groups.json`
/// (`groups_by_bias_types`: type → group names; `terms_by_groups`: group → terms), for the
/// bias types `types`.
///
/// # Errors
/// [`EmbedError::InvalidParameter`] naming the key when the JSON is malformed, a type or group
/// is missing, or a type's groups have term lists of different lengths.
pub fn parse_protected_groups(json: &str, types: &[&str]) -> Result<Vec<DefiningSets>, EmbedError> {
    let bad = |name: &str, value: String, expected: &str| EmbedError::InvalidParameter {
        name: format!("protected groups: {name}"),
        value,
        expected: expected.into(),
    };
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| bad("json", e.to_string(), "a JSON object"))?;
    let mut out = Vec::new();
    for ty in types {
        let groups: Vec<String> = v["groups_by_bias_types"][ty]
            .as_array()
            .ok_or_else(|| {
                bad(
                    "groups_by_bias_types",
                    (*ty).into(),
                    "a list of group names",
                )
            })?
            .iter()
            .map(|g| g.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                bad(
                    "groups_by_bias_types",
                    (*ty).into(),
                    "group names as strings",
                )
            })?;
        let mut columns = Vec::new();
        for g in &groups {
            let terms: Vec<String> = v["terms_by_groups"][g]
                .as_array()
                .ok_or_else(|| bad("terms_by_groups", g.clone(), "a list of terms"))?
                .iter()
                .map(|t| t.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| bad("terms_by_groups", g.clone(), "terms as strings"))?;
            columns.push(terms);
        }
        let n = columns.first().map_or(0, Vec::len);
        if n == 0 || columns.iter().any(|c| c.len() != n) {
            return Err(bad(
                "terms_by_groups",
                format!(
                    "{ty}: {:?}",
                    columns.iter().map(Vec::len).collect::<Vec<_>>()
                ),
                "as many terms (at least one) in every group of the type",
            ));
        }
        let tuples = (0..n)
            .map(|i| columns.iter().map(|c| c[i].clone()).collect())
            .collect();
        out.push(DefiningSets {
            bias_type: ty.parse().map_err(EmbedError::Core)?,
            groups,
            tuples,
        });
    }
    Ok(out)
}

bias_core::choice! {
    /// Which CrowS-Pairs pairs the protocol keeps.
    #[derive(Default)]
    pub enum CrowsFilter: "CrowS-Pairs filter" {
        /// The authors' code (their `get_diff` and `get_group_label`; the default): the sentences
        /// split on single spaces, a case-sensitive difflib alignment of the words, each differing
        /// span lower-cased with punctuation (all but `-`) removed; a pair is kept when every span
        /// of `sent_more` is a term of one group and every span of `sent_less` a term of one group
        /// (the first such group in the file's order). Several differing spans are allowed, and the
        /// two groups may coincide.
        #[default]
        Authors = "authors" =>
            "The authors' code: several differing spans allowed, all terms of one group per side",
        /// This project's earlier protocol: exactly one differing span (words lower-cased,
        /// punctuation stripped at the ends), a replacement, whose two sides are terms of two
        /// different groups.
        SingleSpan = "single-span" =>
            "One differing span whose two sides are terms of two different groups",
    }
}

bias_core::choice! {
    /// Which group a kept pair's target counts for (WEAT's X/Y, gWEAT's sets).
    #[derive(Default)]
    pub enum TargetSplit: "target split" {
        /// The authors' code (the default): the group of `sent_more` for stereo rows, of
        /// `sent_less` for antistereo rows (the group the stereotype concerns).
        #[default]
        Authors = "authors" => "The authors' code: the `sent_less` group for antistereo rows",
        /// The group of `sent_more`, whatever the row's direction.
        SentMore = "sent-more" => "The `sent_more` group whatever the direction",
    }
}

bias_core::choice! {
    /// How a kept pair's group terms are removed from its target.
    #[derive(Default)]
    pub enum Masking: "masking" {
        /// The authors' code (the default): every token of `sent_more` that differs from
        /// `sent_less` is replaced by the mask token, one mask per token (the model's tokenizer
        /// does this: `bias_core::DifferenceMasker::mask_differing_tokens`).
        #[default]
        PerToken = "per-token" =>
            "One mask per differing token, with the model's tokenizer (the authors' code)",
        /// One mask token in place of the differing words (text only, no tokenizer needed).
        PerSpan = "per-span" => "One mask per differing word span",
    }
}

/// PUNCTUATION of the authors' code: Python's `string.punctuation` without `-`.
fn authors_simplify(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| !(c.is_ascii_punctuation() && *c != '-'))
        .collect()
}

/// The differing word spans of two sentences as the authors' `get_diff` finds them.
pub fn authors_diff(more: &str, less: &str) -> (Vec<String>, Vec<String>) {
    let a: Vec<&str> = more.split(' ').collect();
    let b: Vec<&str> = less.split(' ').collect();
    let (mut m1, mut m2) = (Vec::new(), Vec::new());
    for op in SequenceMatcher::new(&a, &b).opcodes() {
        if op.tag == Tag::Equal {
            continue;
        }
        let join = |w: &[&str]| w.iter().map(|x| format!(" {x}")).collect::<String>();
        m1.push(authors_simplify(&join(&a[op.i1..op.i2])));
        m2.push(authors_simplify(&join(&b[op.j1..op.j2])));
    }
    (m1, m2)
}

/// The first group (in the sets' order) whose terms hold every one of `terms`.
fn authors_group(sets: &DefiningSets, terms: &[String]) -> Option<usize> {
    if terms.is_empty() {
        return None;
    }
    (0..sets.groups.len()).find(|&g| {
        let own = sets.group_terms(g);
        terms.iter().all(|t| own.contains(&t.as_str()))
    })
}

/// One kept pair of the CrowS-Pairs protocol, before masking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptPair {
    /// Index of the pair in the input.
    pub index: usize,
    /// The pair's id.
    pub pair_id: String,
    /// Group of the differing terms of `sent_more`.
    pub group_more: usize,
    /// Group of the differing terms of `sent_less`.
    pub group_less: usize,
    /// The group the target counts for ([`TargetSplit`]).
    pub target_group: usize,
    /// The other group (the counterfactual's, under [`TargetSplit::Authors`]).
    pub other_group: usize,
}

/// The pairs of `sets.bias_type` that `filter` keeps, with their groups under `split`, and the
/// excluded pairs with the reason.
pub fn select_pairs(
    pairs: &[SentencePair],
    sets: &DefiningSets,
    filter: CrowsFilter,
    split: TargetSplit,
) -> (Vec<KeptPair>, Vec<(String, String)>) {
    let (mut kept, mut excluded) = (Vec::new(), Vec::new());
    for (index, p) in pairs.iter().enumerate() {
        if p.bias_type != sets.bias_type {
            continue;
        }
        let groups = match filter {
            CrowsFilter::Authors => {
                let (m1, m2) = authors_diff(&p.stereo, &p.anti);
                match (authors_group(sets, &m1), authors_group(sets, &m2)) {
                    (Some(a), Some(b)) => Ok((a, b)),
                    _ => Err(format!(
                        "differing terms {m1:?} / {m2:?} are not all terms of one group"
                    )),
                }
            }
            CrowsFilter::SingleSpan => {
                mask_pair(p, sets, "[MASK]").map(|t| (t.stereo_group, t.anti_group))
            }
        };
        match groups {
            Ok((a, b)) => {
                let (target_group, other_group) = match (split, p.direction) {
                    (TargetSplit::Authors, bias_core::Direction::Antistereo) => (b, a),
                    _ => (a, b),
                };
                kept.push(KeptPair {
                    index,
                    pair_id: p.id.clone(),
                    group_more: a,
                    group_less: b,
                    target_group,
                    other_group,
                });
            }
            Err(reason) => excluded.push((p.id.clone(), reason)),
        }
    }
    (kept, excluded)
}

bias_core::choice! {
    /// Which attribute set a target group is paired with in WEAT, gWEAT and the per-pair scores.
    #[derive(Default)]
    pub enum GroupOrder: "group order" {
        /// The authors' code (the default): a target's group id is its group's position in the
        /// order the groups *first appear in the kept pairs*
        /// (`CrowSPairsDataset.groups_by_bias_types`, built from the data: each pair's `sent_more`
        /// group, then its `sent_less` group), while attribute set `i` is group `i` of
        /// `protected_groups.json`. Where the two orders differ (religion on CrowS-Pairs), targets
        /// are paired with another group's terms.
        #[default]
        AuthorsCode = "authors" =>
            "The authors' code: target groups numbered in the order they appear in the data, attribute sets in the file's order (differs for religion)",
        /// Every target paired with its own group's terms.
        File = "file" => "Every target paired with its own group's terms",
    }
}

impl GroupOrder {
    /// The label a run's settings write: `authors-code` or `file` (the CLI takes `authors`).
    pub fn label(self) -> &'static str {
        match self {
            GroupOrder::AuthorsCode => "authors-code",
            GroupOrder::File => "file",
        }
    }

    /// Renumbers the target and other groups of `kept` as this order pairs them with the
    /// attribute sets (no change for [`GroupOrder::File`]).
    pub fn apply(self, kept: &mut [KeptPair]) {
        if self == GroupOrder::File {
            return;
        }
        let order = data_group_order(kept);
        let id = |g: usize| order.iter().position(|&d| d == g).unwrap_or(g);
        for k in kept {
            k.target_group = id(k.target_group);
            k.other_group = id(k.other_group);
        }
    }
}

/// The groups (indices into the defining sets') in the order they first appear in `kept` (each
/// pair's `sent_more` group, then its `sent_less` group): the order of the authors'
/// `CrowSPairsDataset.groups_by_bias_types`, whose positions are their target group ids.
pub fn data_group_order(kept: &[KeptPair]) -> Vec<usize> {
    let mut order = Vec::new();
    for k in kept {
        for g in [k.group_more, k.group_less] {
            if !order.contains(&g) {
                order.push(g);
            }
        }
    }
    order
}

/// The CrowS-Pairs targets of one bias type under the named options: the pairs `filter` keeps
/// ([`select_pairs`]), each target counted for its group under `split` and paired with the
/// attribute set `order` says, its text given by `mask`
/// (e.g. the model tokenizer's one mask per differing token, or [`mask_spans`]).
///
/// # Errors
/// The first error of `mask`.
pub fn crows_targets_with<E>(
    pairs: &[SentencePair],
    sets: &DefiningSets,
    filter: CrowsFilter,
    split: TargetSplit,
    order: GroupOrder,
    mut mask: impl FnMut(&SentencePair) -> Result<String, E>,
) -> Result<CrowsTargets, E> {
    let (mut kept, excluded) = select_pairs(pairs, sets, filter, split);
    order.apply(&mut kept);
    let mut targets = Vec::with_capacity(kept.len());
    for k in kept {
        targets.push(MaskedTarget {
            text: mask(&pairs[k.index])?,
            pair_id: k.pair_id,
            stereo_group: k.target_group,
            anti_group: k.other_group,
        });
    }
    Ok(CrowsTargets { targets, excluded })
}

/// `sent_more` with its differing words (the single span, or each span the authors' diff finds)
/// replaced by `mask`, once per span ([`Masking::PerSpan`]).
pub fn mask_spans(more: &str, less: &str, mask: &str) -> String {
    let a: Vec<&str> = more.split(' ').collect();
    let b: Vec<&str> = less.split(' ').collect();
    let mut out: Vec<String> = Vec::new();
    for op in SequenceMatcher::new(&a, &b).opcodes() {
        match op.tag {
            Tag::Equal => out.extend(a[op.i1..op.i2].iter().map(|s| s.to_string())),
            _ if op.i1 < op.i2 => out.push(mask.to_owned()),
            _ => {}
        }
    }
    out.join(" ")
}

/// Fills SEAT-style templates: every `[target]` in each template replaced by each term, e.g.
/// `"This is a [target]."` → `"This is a nurse."` (May et al. 2019). Returns, per term, its filled
/// templates (the caller averages their embeddings or keeps them as a set).
pub fn fill_templates(templates: &[&str], terms: &[&str]) -> Vec<Vec<String>> {
    terms
        .iter()
        .map(|t| {
            templates
                .iter()
                .map(|tpl| tpl.replace("[target]", t))
                .collect()
        })
        .collect()
}

/// Embeds terms through SEAT-style templates: every template is filled with each term
/// ([`fill_templates`]), the filled sentences are embedded in one call, and each term's row is
/// the mean of its sentences' embeddings (May et al. 2019 §3, who average a word's template
/// sentences for the sentence-encoder tests). No templates: each term is embedded on its own.
/// One row per term, in `f64`.
///
/// # Errors
/// The embedder's.
pub fn embed_templated<E, S, T>(
    embedder: &mut E,
    templates: &[S],
    terms: &[T],
) -> Result<Array2<f64>, E::Error>
where
    E: Embedder + ?Sized,
    S: AsRef<str>,
    T: AsRef<str>,
{
    let terms: Vec<&str> = terms.iter().map(AsRef::as_ref).collect();
    if templates.is_empty() {
        return Ok(embedder.embed(&terms)?.mapv(f64::from));
    }
    let templates: Vec<&str> = templates.iter().map(AsRef::as_ref).collect();
    let filled: Vec<String> = fill_templates(&templates, &terms)
        .into_iter()
        .flatten()
        .collect();
    let refs: Vec<&str> = filled.iter().map(String::as_str).collect();
    let all = embedder.embed(&refs)?.mapv(f64::from);
    let per = templates.len();
    let mut out = Array2::zeros((terms.len(), all.ncols()));
    for (i, mut row) in out.axis_iter_mut(Axis(0)).enumerate() {
        let idx: Vec<usize> = (i * per..(i + 1) * per).collect();
        let block = all.select(Axis(0), &idx);
        row.assign(&block.mean_axis(Axis(0)).expect("templates are not empty"));
    }
    Ok(out)
}

/// What [`pair_subspace`] does with a pair that has a word without an embedding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingPairs {
    /// Leave the pair out and list it in [`PairSubspace::skipped`].
    Skip,
    /// Fail with [`EmbedError::MissingWords`] naming the pair and its missing words.
    Error,
}

/// A pair left out of [`pair_subspace`] because a word has no embedding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedPair {
    /// Position of the pair in the pair set (0-based).
    pub index: usize,
    /// The pair.
    pub pair: (String, String),
    /// Its words without an embedding.
    pub missing: Vec<String>,
}

/// The result of [`pair_subspace`].
#[derive(Debug, Clone, PartialEq)]
pub struct PairSubspace {
    /// The bias subspace of the pairs used.
    pub subspace: BiasSubspace,
    /// Pairs that spanned it.
    pub used: usize,
    /// Pairs left out under [`MissingPairs::Skip`], in pair-set order.
    pub skipped: Vec<SkippedPair>,
}

/// The bias subspace of a pair set such as Bolukbasi et al.'s (2016, §5.1) ten definitional pairs
/// (`she`/`he`, `woman`/`man`, …): each pair is embedded ([`DynEmbedder::look_up`], one call per
/// pair, through the embedder's templates if any), and [`bias_subspace`] takes the first `k`
/// principal components of the pairs centred on their means, oriented by the first pair used
/// (schroeder2024 Eq. 25 uses it for DirectBias; Bolukbasi et al. §6 neutralise along it).
///
/// `name` names the pair set in errors. A pair with a word that has no embedding (static
/// vectors only) is skipped and reported, or an error, as `missing` says.
///
/// # Errors
/// [`EmbedError::MissingWords`] (set `name pair i (a, b)`) under [`MissingPairs::Error`]; the
/// errors of [`bias_subspace`] (e.g. [`EmbedError::Empty`] when no pair is left) and of the
/// embedder.
pub fn pair_subspace(
    embedder: &mut DynEmbedder<'_>,
    name: &str,
    pairs: &[(String, String)],
    k: usize,
    missing: MissingPairs,
) -> Result<PairSubspace, EmbedError> {
    let mut tuples = Vec::with_capacity(pairs.len());
    let mut skipped = Vec::new();
    for (index, (x, y)) in pairs.iter().enumerate() {
        let l = embedder.look_up(name, &[x.clone(), y.clone()])?;
        if l.missing.is_empty() {
            tuples.push(l.matrix);
        } else if missing == MissingPairs::Error {
            return Err(EmbedError::MissingWords {
                set: format!("{name} pair {index} ({x}, {y})"),
                words: l.missing,
            });
        } else {
            skipped.push(SkippedPair {
                index,
                pair: (x.clone(), y.clone()),
                missing: l.missing,
            });
        }
    }
    let views: Vec<_> = tuples.iter().map(|m| m.view()).collect();
    Ok(PairSubspace {
        subspace: bias_subspace(&views, k)?,
        used: tuples.len(),
        skipped,
    })
}

/// The embedding measures of one bias type on the CrowS-Pairs protocol (schroeder2024 §4.2.3).
#[derive(Debug, Clone, PartialEq)]
pub struct CrowsMeasures {
    /// The bias type.
    pub bias_type: BiasType,
    /// Pairs kept (one masked target each).
    pub kept: usize,
    /// Pairs of the type that were excluded ([`CrowsTargets::excluded`]).
    pub excluded: usize,
    /// Targets whose `sent_more` term is in each group.
    pub targets_per_group: Vec<usize>,
    /// SAME over all targets against the groups' terms (multi-group; the paper's definition or
    /// the authors' code, as asked).
    pub same: f64,
    /// Two groups: WEAT with X, Y = the targets whose stereotype concerns group 0, group 1 and
    /// A, B = the groups' terms, with its permutation test; `None` when a side has < 2 targets.
    pub weat: Option<(f64, PermutationTest)>,
    /// More groups: gWEAT with the targets split the same way; `None` when a group has none.
    pub gweat: Option<f64>,
    /// DirectBias of the targets in the subspace of the first `k = groups − 1` principal
    /// components of the defining tuples (schroeder2024 §4.3.2).
    pub direct_bias: f64,
    /// The `k` used.
    pub k: usize,
}

/// The choices of [`crows_measures`]; [`Default`] is the schroeder2024 authors' code where it
/// differs from the paper (WEAT's `ddof` 1, DirectBias on raw vectors, `c` = 1), except SAME,
/// which is the paper's Eq. 16 unless asked otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct CrowsMeasureOptions {
    /// WEAT's standard-deviation divisor (the authors' `np.std(…, ddof=1)`).
    pub ddof: Ddof,
    /// WEAT's permutation test.
    pub permutations: PermutationOptions,
    /// DirectBias strictness `c` (Eq. 4).
    pub c: f64,
    /// SAME as the paper defines it (Eq. 16) or as the authors' code computes it.
    pub same: SameVariant,
    /// The vectors DirectBias's PCA sees (the authors': raw).
    pub subspace: SubspaceVectors,
}

impl Default for CrowsMeasureOptions {
    fn default() -> Self {
        CrowsMeasureOptions {
            ddof: Ddof::One,
            permutations: PermutationOptions::default(),
            c: 1.0,
            same: SameVariant::Paper,
            subspace: SubspaceVectors::Raw,
        }
    }
}

/// Computes [`CrowsMeasures`] for the targets `found` of one type (schroeder2024 §4.2.3),
/// embedding the masked sentences and the attribute terms, each as its own text, with
/// `embedder` (e.g. a model's mean-pooled last layer, or [`crate::DynEmbedder`]), under
/// `options`.
///
/// # Errors
/// [`EmbedError::InvalidParameter`] with fewer than 2 kept pairs; errors of the embedder and of
/// the measures.
pub fn crows_measures<E>(
    embedder: &mut E,
    sets: &DefiningSets,
    found: &CrowsTargets,
    options: &CrowsMeasureOptions,
) -> Result<CrowsMeasures, E::Error>
where
    E: Embedder + ?Sized,
    E::Error: From<EmbedError>,
{
    crows_measures_with(
        &mut |texts: &[String]| embed_templated(embedder, &[] as &[&str], texts),
        sets,
        found,
        options,
    )
}

fn crows_measures_with<E, F>(
    embed: &mut F,
    sets: &DefiningSets,
    found: &CrowsTargets,
    options: &CrowsMeasureOptions,
) -> Result<CrowsMeasures, E>
where
    E: From<EmbedError>,
    F: FnMut(&[String]) -> Result<Array2<f64>, E>,
{
    let n = found.targets.len();
    if n < 2 {
        return Err(EmbedError::InvalidParameter {
            name: format!("{} targets", sets.bias_type),
            value: n.to_string(),
            expected: "at least 2 kept CrowS-Pairs pairs".into(),
        }
        .into());
    }
    let texts: Vec<String> = found.targets.iter().map(|t| t.text.clone()).collect();
    let targets = embed(&texts)?;
    let groups: Vec<Array2<f64>> = (0..sets.groups.len())
        .map(|g| {
            let terms: Vec<String> = sets.group_terms(g).into_iter().map(str::to_owned).collect();
            embed(&terms)
        })
        .collect::<Result<_, E>>()?;
    let views: Vec<_> = groups.iter().map(|m| m.view()).collect();
    let same = same_multi(targets.view(), &views, options.same)?.value;
    let by_group: Vec<Array2<f64>> = (0..sets.groups.len())
        .map(|g| {
            let idx: Vec<usize> = found
                .targets
                .iter()
                .enumerate()
                .filter(|(_, t)| t.stereo_group == g)
                .map(|(i, _)| i)
                .collect();
            targets.select(Axis(0), &idx)
        })
        .collect();
    let (mut weat_result, mut gweat_result) = (None, None);
    if sets.groups.len() == 2 {
        if by_group.iter().all(|m| m.nrows() >= 2) {
            let w = weat(
                by_group[0].view(),
                by_group[1].view(),
                views[0],
                views[1],
                options.ddof,
            )?;
            weat_result = Some((w.effect_size, w.permutation_test(&options.permutations)?));
        }
    } else if by_group.iter().all(|m| m.nrows() >= 1) {
        let t: Vec<_> = by_group.iter().map(|m| m.view()).collect();
        gweat_result = Some(gweat(&t, &views)?.value);
    }
    // Tuple i is row i of every group's terms (one term per group): reuse those embeddings.
    let tuples: Vec<Array2<f64>> = (0..sets.tuples.len())
        .map(|i| {
            let rows: Vec<_> = groups.iter().map(|g| g.row(i)).collect();
            ndarray::stack(Axis(0), &rows).map_err(|source| {
                EmbedError::Shape {
                    what: format!(
                        "{} tuple {i}: one embedded term per group, stacked",
                        sets.bias_type
                    ),
                    source,
                }
                .into()
            })
        })
        .collect::<Result<_, E>>()?;
    let tv: Vec<_> = tuples.iter().map(|m| m.view()).collect();
    let k = sets.groups.len() - 1;
    let subspace = bias_subspace_with(&tv, k, options.subspace)?;
    let db = direct_bias(targets.view(), &subspace, options.c)?;
    Ok(CrowsMeasures {
        bias_type: sets.bias_type.clone(),
        kept: n,
        excluded: found.excluded.len(),
        targets_per_group: by_group.iter().map(|m| m.nrows()).collect(),
        same,
        weat: weat_result,
        gweat: gweat_result,
        direct_bias: db,
        k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;
    use bias_core::Direction;

    fn pair(id: &str, more: &str, less: &str, ty: BiasType) -> SentencePair {
        SentencePair {
            id: id.into(),
            stereo: more.into(),
            anti: less.into(),
            bias_type: ty,
            direction: Direction::Stereo,
            group_id: None,
        }
    }

    #[test]
    fn keeps_single_term_swaps_and_reports_the_rest() {
        let sets = same_paper_sets();
        let gender = &sets[0];
        let pairs = vec![
            pair(
                "0",
                "Women can't drive.",
                "Men can't drive.",
                BiasType::Gender,
            ),
            pair("1", "Jamal stole it.", "John stole it.", BiasType::Gender),
            pair(
                "2",
                "She said he lied.",
                "He said she lied.",
                BiasType::Gender,
            ),
            pair(
                "3",
                "Old people are slow.",
                "Young people are slow.",
                BiasType::Age,
            ),
        ];
        let out = crows_targets(&pairs, gender, "[MASK]");
        assert_eq!(out.targets.len(), 1);
        let t = &out.targets[0];
        assert_eq!(t.text, "[MASK] can't drive.");
        assert_eq!((t.stereo_group, t.anti_group), (1, 0));
        assert_eq!(out.excluded.len(), 2);
        assert!(out.excluded[0].1.contains("not both defining-set terms"));
        assert!(out.excluded[1].1.contains("2 differing word spans"));
    }

    #[test]
    fn punctuation_around_the_term_is_kept() {
        let sets = same_paper_sets();
        let p = pair(
            "0",
            "It was the women.",
            "It was the men.",
            BiasType::Gender,
        );
        let out = crows_targets(&[p], &sets[0], "<mask>");
        assert_eq!(out.targets[0].text, "It was the <mask>.");
    }

    #[test]
    fn templates_fill_every_placeholder() {
        let filled = fill_templates(
            &["This is a [target].", "[target] here"],
            &["nurse", "pilot"],
        );
        assert_eq!(filled[1], vec!["This is a pilot.", "pilot here"]);
    }

    fn vectors(words: &[(&str, [f32; 2])]) -> DynEmbedder<'static> {
        let names = words.iter().map(|(w, _)| w.to_string()).collect();
        let rows: Vec<f32> = words.iter().flat_map(|(_, v)| *v).collect();
        let matrix = Array2::from_shape_vec((words.len(), 2), rows).unwrap();
        DynEmbedder::vectors(crate::WordVectors::from_parts(names, matrix).unwrap())
    }

    #[test]
    fn templated_embeddings_average_the_filled_sentences() {
        // Static vectors embed a phrase as the mean of its words: "the nurse" = (1, 1).
        let mut e = vectors(&[("the", [0.0, 2.0]), ("nurse", [2.0, 0.0])]);
        let m = embed_templated(&mut e, &["[target]", "the [target]"], &["nurse"]).unwrap();
        assert_eq!(m, ndarray::array![[1.5, 0.5]]);
        let m = embed_templated(&mut e, &[] as &[&str], &["nurse", "the"]).unwrap();
        assert_eq!(m, ndarray::array![[2.0, 0.0], [0.0, 2.0]]);
    }

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn pair_subspace_skips_or_refuses_pairs_with_a_missing_word() {
        // Unit vectors (±0.7071, 0.7071) and (±0.6, 0.8): each pair centred is ±(0.7071, 0) and
        // ±(0.6, 0), so the first component is (1, 0) with variance (0.5 + 0.5 + 0.36 + 0.36) / 3.
        let mut e = vectors(&[
            ("she", [1.0, 1.0]),
            ("he", [-1.0, 1.0]),
            ("woman", [3.0, 4.0]),
            ("man", [-3.0, 4.0]),
        ]);
        let set = pairs(&[("she", "he"), ("woman", "man"), ("she", "xyz")]);
        let p = pair_subspace(&mut e, "defs", &set, 1, MissingPairs::Skip).unwrap();
        assert_eq!(p.used, 2);
        assert_eq!(
            p.skipped,
            vec![SkippedPair {
                index: 2,
                pair: ("she".into(), "xyz".into()),
                missing: vec!["xyz".into()],
            }]
        );
        let c = p.subspace.components.row(0);
        assert_abs_diff_eq!(c[0], 1.0, epsilon = 1e-12);
        assert_abs_diff_eq!(c[1], 0.0, epsilon = 1e-12);
        assert_abs_diff_eq!(p.subspace.explained_variance[0], 1.72 / 3.0, epsilon = 1e-6);

        let err = pair_subspace(&mut e, "defs", &set, 1, MissingPairs::Error).unwrap_err();
        assert_eq!(
            err.to_string(),
            "set `defs pair 2 (she, xyz)`: 1 word(s) not in the vocabulary: xyz; remove them or \
             use vectors that contain them"
        );
        // No pair left: bias_subspace's error.
        let none = pairs(&[("abc", "he")]);
        let err = pair_subspace(&mut e, "defs", &none, 1, MissingPairs::Skip).unwrap_err();
        assert!(matches!(err, EmbedError::Empty), "{err}");
    }

    #[test]
    fn every_tuple_has_one_term_per_group_and_terms_are_unique() {
        for s in same_paper_sets() {
            let mut seen = std::collections::HashSet::new();
            for t in &s.tuples {
                assert_eq!(t.len(), s.groups.len(), "{}", s.bias_type);
                for w in t {
                    assert!(seen.insert(w.clone()), "{} repeats {w}", s.bias_type);
                }
            }
        }
    }
}
