//! The paper's group sizes: a seeded draw that keeps, of each original's paraphrases, as many
//! as Kwon & Mihindukulasooriya (2022, §2.1 and Table 1) report per bias type.
//!
//! MPER_AGREE counts an original as agreeing only if *every* paraphrase keeps its MBIAS
//! (MAGREEMENT = 1), so it falls as groups grow: the more paraphrases an original has, the more
//! chances one of them flips. A set with more paraphrases per original than the paper's gives a
//! lower MPER_AGREE on the same model, and cannot be set beside the paper's 57–75 % (§2.2). The
//! paper's group sizes are not printed one by one; Table 1 gives the samples per bias type,
//! and whether its total of 383 counts the 100 originals is left open ([`Table1Reading`]).
//! [`draw_paper_group_sizes`] keeps, per bias type, the number of paraphrases a reading implies,
//! spread over the type's originals as evenly as their paraphrases allow.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::str::FromStr;

use bias_core::{BiasType, SentencePair};
use rand::seq::index::sample;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::paper;
use crate::RobustError;

bias_core::choice! {
    /// How Table 1's "383 samples in total" (Kwon & Mihindukulasooriya 2022, §2.1) is read. The
    /// paper says it produced "3 to 5 paraphrased target phrases" for each of the first 100
    /// CrowS-Pairs samples and "as a result … generated 383 samples in total", and Table 1 splits
    /// the 383 by bias type; neither says whether the 100 originals are counted.
    #[derive(PartialOrd, Ord)]
    pub enum Table1Reading: "Table 1 reading" {
        /// The 383 include the 100 originals: 283 paraphrases, 2.83 per original; a type's
        /// paraphrases are its Table 1 count less its originals. (With this set's 20 gender
        /// originals, gender keeps 109 − 20 = 89 of its 100.)
        IncludesOriginals = "includes-originals" => "Table 1's 383 include the 100 originals.",
        /// The 383 are paraphrases only: 3.83 per original; a type's paraphrases are its Table 1
        /// count. (Gender would need 109 of this set's 100: the draw refuses it.)
        ParaphrasesOnly = "paraphrases-only" => "Table 1's 383 are paraphrases only.",
    }
}

impl Table1Reading {
    /// The reading in words, for table notes and errors.
    pub fn describe(self) -> &'static str {
        match self {
            Table1Reading::IncludesOriginals => {
                "Table 1's 383 include the 100 originals (283 paraphrases)"
            }
            Table1Reading::ParaphrasesOnly => "Table 1's 383 are paraphrases only",
        }
    }

    /// The paraphrases a bias type with `table_1` samples in Table 1 and `originals` originals
    /// keeps under this reading; `None` when the originals alone exceed the count.
    pub fn paraphrases(self, table_1: usize, originals: usize) -> Option<usize> {
        match self {
            Table1Reading::IncludesOriginals => table_1.checked_sub(originals),
            Table1Reading::ParaphrasesOnly => Some(table_1),
        }
    }
}

impl FromStr for Table1Reading {
    type Err = RobustError;
    fn from_str(s: &str) -> Result<Self, RobustError> {
        crate::text::parse_choice(&Table1Reading::ALL, Table1Reading::name, s, "reading")
    }
}

bias_core::choice! {
    /// Which paraphrases of each original a paraphrase study counts (Kwon & Mihindukulasooriya
    /// 2022, §2.1: "3 to 5 paraphrased target phrases" per original).
    #[derive(PartialOrd, Ord)]
    pub enum GroupSizes: "group sizes" {
        /// Every paraphrase of the set (the shipped set: 374 paraphrases, 3.74 per original).
        All = "all" => "Every paraphrase of the set.",
        /// The paper's sizes: a seeded draw matching Table 1 per bias type under a
        /// [`Table1Reading`] ([`draw_paper_group_sizes`]).
        Paper = "paper" => "The paper-sized draw.",
    }
}

impl FromStr for GroupSizes {
    type Err = RobustError;
    fn from_str(s: &str) -> Result<Self, RobustError> {
        crate::text::parse_choice(&GroupSizes::ALL, GroupSizes::name, s, "group sizes")
    }
}

/// One original and the indices (into the pairs) of its paraphrases.
struct Group {
    id: String,
    bias_type: BiasType,
    paraphrases: Vec<usize>,
}

/// The groups of `pairs` in the order of their originals, keyed by group id: a pair's group is
/// its `group_id`, or its own id; the original is the pair whose id is the group id.
fn groups(pairs: &[SentencePair]) -> Result<Vec<Group>, RobustError> {
    let key = |p: &SentencePair| p.group_id.clone().unwrap_or_else(|| p.id.clone());
    let mut ids = HashSet::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    for p in pairs {
        if !ids.insert(p.id.as_str()) {
            return Err(RobustError::invalid(
                "pair id",
                &p.id,
                "unique within the pairs",
            ));
        }
        if key(p) == p.id {
            position.insert(p.id.clone(), groups.len());
            groups.push(Group {
                id: p.id.clone(),
                bias_type: p.bias_type.clone(),
                paraphrases: Vec::new(),
            });
        }
    }
    for (i, p) in pairs.iter().enumerate() {
        let g = key(p);
        if g == p.id {
            continue;
        }
        let Some(&at) = position.get(&g) else {
            return Err(RobustError::MissingOriginal { group: g });
        };
        let group = &mut groups[at];
        if p.bias_type != group.bias_type {
            return Err(RobustError::invalid(
                format!("bias_type of paraphrase {:?}", p.id),
                p.bias_type.as_str(),
                format!(
                    "the bias type of its original {g:?} ({})",
                    group.bias_type.as_str()
                ),
            ));
        }
        group.paraphrases.push(i);
    }
    Ok(groups)
}

/// The paraphrases per bias type that `reading` of the paper's Table 1 (Kwon &
/// Mihindukulasooriya 2022) implies for `pairs`' originals: Table 1's count less the type's
/// originals ([`Table1Reading::IncludesOriginals`]), or the count itself
/// ([`Table1Reading::ParaphrasesOnly`]). For the shipped set (originals per type: race-color 34,
/// gender 20, …) the first reading gives race-color 106 − 34 = 72, gender 109 − 20 = 89, …, 283
/// in all.
///
/// # Errors
/// [`RobustError::InvalidParameter`] for a bias type Table 1 does not list, or one with more
/// originals than its Table 1 count; those of the grouping (see [`draw_group_sizes`]).
pub fn paper_paraphrase_targets(
    pairs: &[SentencePair],
    reading: Table1Reading,
) -> Result<BTreeMap<BiasType, usize>, RobustError> {
    let mut originals: BTreeMap<BiasType, usize> = BTreeMap::new();
    for g in groups(pairs)? {
        *originals.entry(g.bias_type).or_default() += 1;
    }
    originals
        .into_iter()
        .map(|(ty, n)| {
            let count = paper::table_1_count(&ty).ok_or_else(|| {
                RobustError::invalid(
                    "bias type",
                    ty.as_str(),
                    "one of the paper's Table 1 (race-color, gender, sexual-orientation, \
                     religion, age, nationality, disability, physical-appearance, socioeconomic)",
                )
            })?;
            let keep = reading.paraphrases(count, n).ok_or_else(|| {
                RobustError::invalid(
                    format!("originals of bias type {ty}"),
                    n,
                    format!(
                        "at most Table 1's {count} for that type, as {}",
                        reading.describe()
                    ),
                )
            })?;
            Ok((ty, keep))
        })
        .collect()
}

/// The paper's group sizes drawn from `pairs` (Kwon & Mihindukulasooriya 2022, §2.1 and Table
/// 1): [`draw_group_sizes`] with the per-type counts of [`paper_paraphrase_targets`] under
/// `reading`. Same `pairs` and `seed`, same draw.
///
/// # Errors
/// Those of [`paper_paraphrase_targets`] and [`draw_group_sizes`]; a type with fewer
/// paraphrases than the reading needs names the type, both counts and the reading (on the
/// shipped set, [`Table1Reading::ParaphrasesOnly`] fails on gender: 109 needed, 100 there).
pub fn draw_paper_group_sizes(
    pairs: &[SentencePair],
    reading: Table1Reading,
    seed: u64,
) -> Result<Vec<SentencePair>, RobustError> {
    let targets = paper_paraphrase_targets(pairs, reading)?;
    draw(pairs, &targets, seed, &format!(" ({})", reading.describe()))
}

/// Keeps every original of `pairs` and, of its paraphrases, a seeded random subset, so that each
/// bias type keeps exactly `targets[type]` paraphrases (the group sizes of Kwon &
/// Mihindukulasooriya 2022, Table 1, through [`draw_paper_group_sizes`]). The kept pairs come back
/// in the order of `pairs`.
///
/// Within a type the count is spread over its originals as evenly as their paraphrases allow: in
/// a seeded random order of the originals, each original in turn takes one more paraphrase while
/// it has one left, round after round, until the type's count is reached; so sizes differ by at
/// most one, except where an original has fewer paraphrases than the others get. Each original's
/// kept paraphrases are then a uniform random subset of its own. One ChaCha8 stream seeded with
/// `seed` serves the types in sorted order: the same pairs and seed give the same draw.
///
/// A pair's group is its `group_id`, or its own id; the original is the pair whose id is the
/// group id.
///
/// # Errors
/// * [`RobustError::InvalidParameter`] for a repeated pair id, a paraphrase whose bias type
///   differs from its original's, a bias type of the pairs without a target or a target for a
///   type the pairs do not hold, a target above the type's paraphrases ("fewer paraphrases than
///   needed") or below its originals (every original keeps at least one paraphrase, or it has no
///   MAGREEMENT), and an original without any paraphrase;
/// * [`RobustError::MissingOriginal`] for a paraphrase whose original is not among the pairs.
pub fn draw_group_sizes(
    pairs: &[SentencePair],
    targets: &BTreeMap<BiasType, usize>,
    seed: u64,
) -> Result<Vec<SentencePair>, RobustError> {
    draw(pairs, targets, seed, "")
}

fn draw(
    pairs: &[SentencePair],
    targets: &BTreeMap<BiasType, usize>,
    seed: u64,
    context: &str,
) -> Result<Vec<SentencePair>, RobustError> {
    let groups = groups(pairs)?;
    let mut by_type: BTreeMap<&BiasType, Vec<&Group>> = BTreeMap::new();
    for g in &groups {
        by_type.entry(&g.bias_type).or_default().push(g);
    }
    if let Some(ty) = targets.keys().find(|t| !by_type.contains_key(t)) {
        return Err(RobustError::invalid(
            format!("paraphrases to keep for bias type {ty}"),
            targets[ty],
            "a bias type of the pairs: they hold no original of it",
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut keep = vec![false; pairs.len()];
    for (ty, members) in by_type {
        let Some(&target) = targets.get(ty) else {
            return Err(RobustError::invalid(
                format!("paraphrases to keep for bias type {ty}"),
                "none given",
                format!("a count for every bias type of the pairs{context}"),
            ));
        };
        let available: usize = members.iter().map(|g| g.paraphrases.len()).sum();
        if target > available {
            return Err(RobustError::invalid(
                format!("paraphrases to keep for bias type {ty}{context}"),
                target,
                format!(
                    "at most the {available} paraphrases its {} originals have: the type has \
                     fewer paraphrases than the reading needs",
                    members.len()
                ),
            ));
        }
        if target < members.len() {
            return Err(RobustError::invalid(
                format!("paraphrases to keep for bias type {ty}{context}"),
                target,
                format!(
                    "at least one per original ({}), or an original has no MAGREEMENT",
                    members.len()
                ),
            ));
        }
        if let Some(empty) = members.iter().find(|g| g.paraphrases.is_empty()) {
            return Err(RobustError::invalid(
                format!("paraphrases of original {:?}", empty.id),
                0,
                "at least one for every original, or it has no MAGREEMENT",
            ));
        }
        // Sizes: round-robin over the originals in a seeded order.
        let mut order: Vec<usize> = (0..members.len()).collect();
        order.shuffle(&mut rng);
        let mut sizes = vec![0usize; members.len()];
        let mut left = target;
        while left > 0 {
            for &g in &order {
                if left > 0 && sizes[g] < members[g].paraphrases.len() {
                    sizes[g] += 1;
                    left -= 1;
                }
            }
        }
        for (g, &k) in members.iter().zip(&sizes) {
            for j in sample(&mut rng, g.paraphrases.len(), k) {
                keep[g.paraphrases[j]] = true;
            }
        }
    }
    let key = |p: &SentencePair| p.group_id.as_deref().unwrap_or(&p.id) == p.id;
    Ok(pairs
        .iter()
        .zip(keep)
        .filter(|(p, k)| *k || key(p))
        .map(|(p, _)| p.clone())
        .collect())
}
