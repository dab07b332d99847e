//! The tables and figures of Schröder, Schulz & Hammer (2024), "The SAME score" (see
//! [`super::Paper`]): the MLM experiment of §4.3.4 on CrowS-Pairs over the models under study
//! (Table 1, Table 3's CrowS-Pairs columns, Figure 1 right, Figure 2), the test–retest study of
//! §4.1.3 on CrowS-Pairs targets (Figure 3), and the classification half (BIOS, Jigsaw) listed
//! as out of reach.
//!
//! Per bias type of Table 1 and per model: the CrowS-Pairs pairs the authors' filter keeps
//! ([`bias_embed::protocol::select_pairs`], defining sets [`bias_embed::protocol::authors_sets`]),
//! their neutral targets (`sent_more` with the differing tokens masked,
//! [`bias_core::DifferenceMasker::mask_differing_tokens`]), embedded with the model
//! ([`bias_core::Embedder::embed`]) beside every defining-set term; SAME, WEAT (two groups) or
//! gWEAT (more), DirectBias with `k = groups − 1`, per sample and aggregated; and the model's CPS
//! on the same pairs: per pair the PLL difference of the stereotypical minus the
//! anti-stereotypical sentence (`sent_more − sent_less` for stereo rows, `sent_less − sent_more`
//! for antistereo rows, as the authors' `compute_individual_bias`), aggregated as the percentage
//! of pairs where it is positive.

use crate::PaperError;
use bias_core::Scorer;
use std::collections::BTreeMap;
use std::path::Path;

use bias_core::{BiasType, DatasetScorer, DifferenceMasker, Direction, Embedder, SentencePair};
use bias_embed::protocol::{
    authors_sets, data_group_order, mask_spans, select_pairs, CrowsFilter, DefiningSets,
    GroupOrder, KeptPair, Masking, TargetSplit,
};
use bias_embed::{
    bias_subspace_with, direct_bias, direct_bias_terms, gweat, same_binary, same_multi, weat,
    weat_association, BiasSubspace, Ddof, SameVariant, SubspaceVectors,
};
use ndarray::{Array2, Axis};

use super::{Cell, DataSet, Reproduction, Status, Study, Table};
use bias_report::figures::{point_panels, PointPanel, PointSeries};
use bias_robust::{
    retest_direct_bias, retest_same_binary, retest_weat, RetestOptions, RobustError,
};
use bias_robust::{TargetLabels, WeatSplit};

mod figures;
mod tables;
use figures::*;
use tables::*;

/// The scorer whose PLL the MLM experiment compares with (Nangia et al. 2020's CPS; Schröder et
/// al. 2024 Eq. 10).
pub const CPS_SCORER: &str = Scorer::Cps.name();

bias_core::choice! {
    /// How the CrowS-Pairs label sets the sign of a pair's PLL difference (the MLM experiment's
    /// downstream bias, §4.3.4).
    #[derive(Default)]
    pub enum StereoLabels: "label reading" {
        /// The authors' code, which produced the published numbers: `compute_individual_bias` and
        /// `compute_group_bias` (PLMBiasMeasureBenchmark `ijcnn24`, `utils/datasets.py`) compare
        /// the label's name with `'stereotype'`, while the data set's names are `'stereo'` and
        /// `'antistereo'`, so every row is read as antistereo: the difference is always
        /// `PLL(sent_less) − PLL(sent_more)` and the CPS bias is the share of pairs where
        /// `sent_less` is the likelier. For the race and religion pairs (93–95 % stereo rows) this
        /// is about `100 − CPS`.
        #[default]
        AuthorsCode = "authors" =>
            "The authors' code: every pair read as antistereo (their 'stereotype' test never matches the data's 'stereo'), as in the published numbers.",
        /// What the code intends (and the paper describes): `PLL(sent_more) − PLL(sent_less)` for
        /// stereo rows, `PLL(sent_less) − PLL(sent_more)` for antistereo rows (Nangia et al. 2020).
        Intended = "intended" => "Stereotypical minus anti-stereotypical sentence, as intended.",
    }
}

impl StereoLabels {
    /// The label a run's settings write: `authors-code` or `intended` (the CLI takes `authors`).
    pub fn label(self) -> &'static str {
        match self {
            StereoLabels::AuthorsCode => "authors-code",
            StereoLabels::Intended => "intended",
        }
    }
}

bias_core::choice! {
    /// What Figure 1 (right) correlates with the PLL difference.
    #[derive(Default)]
    pub enum Figure1Reading: "Figure 1 reading" {
        /// The authors' notebook (`crowspairs.ipynb`, "sample correlation"): per model,
        /// `linregress(|PLL difference|, |score on the pair's own two groups|)` (the `_cs` scores
        /// of `mlm_experiment.py`: SAME signed on the two groups' direction, WEAT's `s(t, A_g,
        /// A_cf)`, DirectBias with `k = 1` on the two groups), and only models with `p < 0.05` are
        /// drawn.
        #[default]
        AuthorsCode = "authors" =>
            "The authors' notebook: |own-pair score| against |PLL difference|, models with p < 0.05.",
        /// The signed per-sample scores over all of the type's groups against the signed PLL
        /// difference, every model drawn (this project's first reading).
        Signed = "signed" =>
            "Signed all-group per-sample scores against the signed PLL difference, every model.",
    }
}

impl Figure1Reading {
    /// The label a run's settings write: `authors-code` or `signed` (the CLI takes `authors`).
    pub fn label(self) -> &'static str {
        match self {
            Figure1Reading::AuthorsCode => "authors-code",
            Figure1Reading::Signed => "signed",
        }
    }
}

bias_core::choice! {
    /// Which model pairs Table 3's accuracy counts (§4.1.1).
    #[derive(Default)]
    pub enum Table3Pairs: "Table 3 pairs" {
        /// The authors' notebook: every low-bias model (CPS bias below mean − threshold·sd) against
        /// every high-bias model (above mean + threshold·sd), in both orders, the prediction being
        /// `score_i < score_j` against `bias_i < bias_j` (sklearn's `accuracy_score`).
        #[default]
        LowHigh = "low-high" => "The authors' notebook: low-bias × high-bias models, both orders.",
        /// Every pair of selected models (low or high) whose CPS bias differs, counted once.
        AllSelected = "all-selected" => "Every pair of selected models, once.",
    }
}

/// The choices of the MLM experiment (Schröder et al. 2024 §4.3.4); [`Default`] is the
/// authors' code (PLMBiasMeasureBenchmark, branch `ijcnn24`, and EmbeddingBiasScores), which
/// produced the published numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct SchroederOptions {
    /// Which CrowS-Pairs pairs are kept (default: the authors' filter).
    pub filter: CrowsFilter,
    /// Which group a target counts for (default: the authors', the `sent_less` group for
    /// antistereo rows).
    pub split: TargetSplit,
    /// How the group terms are removed from a target (default: one mask per token).
    pub masking: Masking,
    /// SAME as the authors' code computes it (default) or as the paper defines it (Eq. 16); the
    /// two differ for three or more groups.
    pub same: SameVariant,
    /// Standard deviation divisor of WEAT's effect size (default 1, the authors' code).
    pub ddof: Ddof,
    /// DirectBias strictness `c` (default 1).
    pub c: f64,
    /// The vectors of DirectBias's PCA (default raw, the authors' `pca_bias_subspace`).
    pub subspace: SubspaceVectors,
    /// The sign of the PLL difference (default: the authors' code, see [`StereoLabels`]).
    pub labels: StereoLabels,
    /// Which terms a target group is paired with (default: the authors' code).
    pub group_order: GroupOrder,
    /// Figure 1 (right)'s quantity (default: the authors' notebook).
    pub figure1: Figure1Reading,
    /// Table 3's model pairs (default: the authors' low × high).
    pub table3: Table3Pairs,
    /// Table 3's selection: models whose CPS bias deviates from the mean of all models by more
    /// than this many (population) standard deviations (default 1, §4.1.1).
    pub sd_threshold: f64,
    /// Figure 3's test–retest study (default [`RetestOptions::schroeder2024`], the authors'
    /// `robustness.py`).
    pub retest: RetestOptions,
}

impl Default for SchroederOptions {
    fn default() -> Self {
        SchroederOptions {
            filter: CrowsFilter::Authors,
            split: TargetSplit::Authors,
            masking: Masking::PerToken,
            same: SameVariant::AuthorsCode,
            ddof: Ddof::One,
            c: 1.0,
            subspace: SubspaceVectors::Raw,
            labels: StereoLabels::AuthorsCode,
            group_order: GroupOrder::AuthorsCode,
            figure1: Figure1Reading::AuthorsCode,
            table3: Table3Pairs::LowHigh,
            sd_threshold: 1.0,
            retest: RetestOptions::schroeder2024(),
        }
    }
}

impl SchroederOptions {
    /// Every choice by name, for the output's index and notes.
    pub fn named(&self) -> Vec<(&'static str, String)> {
        vec![
            ("schroeder2024 filter", format!("{:?}", self.filter)),
            ("schroeder2024 split", format!("{:?}", self.split)),
            ("schroeder2024 masking", format!("{:?}", self.masking)),
            (
                "schroeder2024 SAME",
                match self.same {
                    SameVariant::Paper => "paper (Eq. 16)".into(),
                    SameVariant::AuthorsCode => "authors-code".into(),
                },
            ),
            ("schroeder2024 WEAT ddof", format!("{:?}", self.ddof)),
            ("schroeder2024 DirectBias c", self.c.to_string()),
            ("schroeder2024 subspace", self.subspace.name().into()),
            ("schroeder2024 labels", self.labels.label().into()),
            ("schroeder2024 group order", self.group_order.label().into()),
            ("schroeder2024 figure 1", self.figure1.label().into()),
            ("schroeder2024 table 3 pairs", self.table3.name().into()),
            ("schroeder2024 sd threshold", self.sd_threshold.to_string()),
            (
                "schroeder2024 retest",
                format!(
                    "shares {:?}, {} repeats, {:?}, seed {}",
                    self.retest.shares, self.retest.repeats, self.retest.draw, self.retest.seed
                ),
            ),
        ]
    }
}

/// One kept pair of one model: its neutral target and sample scores.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleScores {
    /// The pair's id.
    pub pair_id: String,
    /// The group the target counts for (index into the type's groups, after [`GroupOrder`]).
    pub target_group: usize,
    /// The pair's other group (the counterfactual's), after [`GroupOrder`].
    pub other_group: usize,
    /// The neutral target text.
    pub text: String,
    /// SAME's sample bias: signed `cos(t, â_0 − â_1)` with two groups (Eq. 12), the sample bias
    /// of [`SchroederOptions::same`] with more, as the authors' `SAME_individual`.
    pub same: f64,
    /// WEAT's sample association `s(t, A_0, A_1)` (Eq. 2), two groups only.
    pub weat: Option<f64>,
    /// DirectBias's sample term (Eq. 25).
    pub direct_bias: f64,
    /// The authors' `SAME_cs`: signed `cos(t, â_target − â_other)`; `None` when the pair's two
    /// groups coincide (their code divides by zero).
    pub same_pair: Option<f64>,
    /// The authors' `WEAT_cs`: `s(t, A_target, A_other)`.
    pub weat_pair: f64,
    /// The authors' `DirectBias_cs`: DirectBias with `k = 1` on the subspace of the two groups'
    /// tuples; where they coincide, on the first coordinate axis, the component their PCA of
    /// all-zero data returns.
    pub direct_bias_pair: f64,
    /// The PLL difference under [`SchroederOptions::labels`] (CPS's PLL).
    pub pll_difference: f64,
}

/// One model on one bias type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeScores {
    /// The bias type (`race-color`, `religion`, `gender`, `age`).
    pub bias_type: String,
    /// The type's groups (the file's order).
    pub groups: Vec<String>,
    /// The groups (indices into `groups`) in the order they first appear in the kept pairs: the
    /// target group ids of the authors' code ([`GroupOrder::AuthorsCode`]).
    pub data_order: Vec<usize>,
    /// Pairs of the type that the filter excluded.
    pub excluded: usize,
    /// Targets per group.
    pub per_group: Vec<usize>,
    /// SAME over all targets ([`SchroederOptions::same`]).
    pub same: f64,
    /// WEAT's effect size (Eq. 1), two groups with at least 2 targets each.
    pub weat: Option<f64>,
    /// gWEAT (Eq. 3), more than two groups, each with a target.
    pub gweat: Option<f64>,
    /// DirectBias with `k = groups − 1` (Eq. 25).
    pub direct_bias: f64,
    /// The percentage of kept pairs whose PLL difference (under [`SchroederOptions::labels`]) is
    /// positive.
    pub cps_bias: f64,
    /// Per kept pair.
    pub samples: Vec<SampleScores>,
    /// The targets' embeddings, one row per sample (Figure 3 reuses them: no second pass).
    pub target_embeddings: Array2<f64>,
    /// The defining terms' embeddings, one matrix per group (the file's order).
    pub group_embeddings: Vec<Array2<f64>>,
}

/// The cosine scores of Table 3 and Figures 1–2.
const SCORES: [&str; 4] = ["SAME", "WEAT", "gWEAT", "DirectBias"];

fn embed_f64<M: DatasetScorer + Embedder + DifferenceMasker>(
    model: &mut M,
    texts: &[String],
) -> Result<Array2<f64>, PaperError> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    match model.embed(&refs) {
        Ok(m) => Ok(m.mapv(f64::from)),
        Err(e) => {
            Err(RobustError::model(model.name(), DataSet::CrowsPairs.name(), Box::new(e)).into())
        }
    }
}

/// The neutral target of a kept pair under `masking`.
fn neutral_target<M: DatasetScorer + Embedder + DifferenceMasker>(
    model: &mut M,
    pair: &SentencePair,
    masking: Masking,
) -> Result<String, PaperError> {
    match masking {
        Masking::PerToken => model
            .mask_differing_tokens(&pair.stereo, &pair.anti)
            .map_err(|e| RobustError::model(model.name(), DataSet::CrowsPairs.name(), e).into()),
        Masking::PerSpan => Ok(mask_spans(&pair.stereo, &pair.anti, "[MASK]")),
    }
}

/// The PLL difference of a pair under `labels`, from `more_minus_less` = PLL(sent_more) −
/// PLL(sent_less).
fn signed_difference(more_minus_less: f64, direction: Direction, labels: StereoLabels) -> f64 {
    match (labels, direction) {
        (StereoLabels::Intended, Direction::Stereo) => more_minus_less,
        _ => -more_minus_less,
    }
}

/// The embeddings of every group's defining terms, one matrix per group (file order).
fn embed_groups<M: DatasetScorer + Embedder + DifferenceMasker>(
    model: &mut M,
    sets: &DefiningSets,
) -> Result<Vec<Array2<f64>>, PaperError> {
    let mut groups = Vec::with_capacity(sets.groups.len());
    for g in 0..sets.groups.len() {
        let terms: Vec<String> = sets.group_terms(g).into_iter().map(str::to_owned).collect();
        groups.push(embed_f64(model, &terms)?);
    }
    Ok(groups)
}

/// The defining tuples of the groups `which`: tuple `i` stacks row `i` of each group's terms.
fn tuples_of(
    groups: &[Array2<f64>],
    which: &[usize],
    what: &str,
) -> Result<Vec<Array2<f64>>, PaperError> {
    (0..groups[which[0]].nrows())
        .map(|i| {
            let rows: Vec<_> = which.iter().map(|&g| groups[g].row(i)).collect();
            ndarray::stack(Axis(0), &rows).map_err(|source| {
                PaperError::from(bias_embed::EmbedError::Shape {
                    what: format!("{what} tuple {i}"),
                    source,
                })
            })
        })
        .collect()
}

/// The bias subspace of the groups `which` with `k` components.
fn subspace_of(
    groups: &[Array2<f64>],
    which: &[usize],
    k: usize,
    vectors: SubspaceVectors,
    what: &str,
) -> Result<BiasSubspace, PaperError> {
    let tuples = tuples_of(groups, which, what)?;
    let views: Vec<_> = tuples.iter().map(|m| m.view()).collect();
    Ok(bias_subspace_with(&views, k, vectors)?)
}

/// The authors' `_cs` scores of one target on its pair's two groups `(g, cf)` (attribute-set
/// indices): SAME signed, WEAT's association, DirectBias with `k = 1`.
fn pair_scores(
    target: ndarray::ArrayView2<'_, f64>,
    groups: &[Array2<f64>],
    (g, cf): (usize, usize),
    options: &SchroederOptions,
    cache: &mut BTreeMap<(usize, usize), BiasSubspace>,
) -> Result<(Option<f64>, f64, f64), PaperError> {
    let weat = weat_association(target, groups[g].view(), groups[cf].view())?[0];
    if g == cf {
        // The authors' DirectBias(k = 1) on a group against itself: sklearn's PCA of the all-zero
        // centred tuples, whose first component is the first coordinate axis (LAPACK's SVD of a
        // zero matrix returns the identity).
        let mut axis = ndarray::Array1::zeros(target.ncols());
        axis[0] = 1.0;
        let b = BiasSubspace::from_direction(axis.view())?;
        let db = direct_bias_terms(target, &b, options.c)?[0];
        return Ok((None, weat, db));
    }
    let same = same_binary(target, groups[g].view(), groups[cf].view())?.per_target[0];
    let subspace = match cache.get(&(g, cf)) {
        Some(b) => b,
        None => {
            let b = subspace_of(groups, &[g, cf], 1, options.subspace, "pair")?;
            cache.entry((g, cf)).or_insert(b)
        }
    };
    let db = direct_bias_terms(target, subspace, options.c)?[0];
    Ok((Some(same), weat, db))
}

/// The MLM experiment (§4.3.4) for one model and one bias type: `None` when it keeps fewer
/// than 2 pairs. `more_minus_less` holds
/// PLL(sent_more) − PLL(sent_less) per pair id (pairs missing from it are left out).
///
/// # Errors
/// The model's errors; [`RobustError::Embed`] when a measure fails (e.g. a zero embedding).
pub fn type_scores<M: DatasetScorer + Embedder + DifferenceMasker>(
    model: &mut M,
    pairs: &[SentencePair],
    more_minus_less: &BTreeMap<String, f64>,
    sets: &DefiningSets,
    options: &SchroederOptions,
) -> Result<Option<TypeScores>, PaperError> {
    let (mut kept, excluded) = select_pairs(pairs, sets, options.filter, options.split);
    let data_order = data_group_order(&kept);
    options.group_order.apply(&mut kept);
    // Only pairs the model scored (every pair unless --max-pairs cut the data set).
    let kept: Vec<KeptPair> = kept
        .into_iter()
        .filter(|k| more_minus_less.contains_key(&k.pair_id))
        .collect();
    if kept.len() < 2 {
        return Ok(None);
    }
    let mut texts = Vec::with_capacity(kept.len());
    for k in &kept {
        texts.push(neutral_target(model, &pairs[k.index], options.masking)?);
    }
    let targets = embed_f64(model, &texts)?;
    let groups = embed_groups(model, sets)?;
    let n_groups = groups.len();
    let pair_of = |k: &KeptPair| (k.target_group, k.other_group);
    let views: Vec<_> = groups.iter().map(|m| m.view()).collect();
    let multi = same_multi(targets.view(), &views, options.same)?;
    let same_samples = if n_groups == 2 {
        same_binary(targets.view(), views[0], views[1])?.per_target
    } else {
        multi.per_target_bias.clone()
    };
    let by_group: Vec<Array2<f64>> = (0..n_groups)
        .map(|g| {
            let idx: Vec<usize> = (0..kept.len())
                .filter(|&i| pair_of(&kept[i]).0 == g)
                .collect();
            targets.select(Axis(0), &idx)
        })
        .collect();
    let (mut weat_value, mut gweat_value, mut weat_samples) = (None, None, None);
    if n_groups == 2 {
        weat_samples = Some(weat_association(targets.view(), views[0], views[1])?);
        if by_group.iter().all(|m| m.nrows() >= 2) {
            let w = weat(
                by_group[0].view(),
                by_group[1].view(),
                views[0],
                views[1],
                options.ddof,
            )?;
            weat_value = Some(w.effect_size);
        }
    } else if by_group.iter().all(|m| m.nrows() >= 1) {
        let t: Vec<_> = by_group.iter().map(|m| m.view()).collect();
        gweat_value = Some(gweat(&t, &views)?.value);
    }
    let all: Vec<usize> = (0..n_groups).collect();
    let what = sets.bias_type.to_string();
    let subspace = subspace_of(&groups, &all, n_groups - 1, options.subspace, &what)?;
    let db = direct_bias(targets.view(), &subspace, options.c)?;
    let db_samples = direct_bias_terms(targets.view(), &subspace, options.c)?;
    let mut cache = BTreeMap::new();
    let mut samples = Vec::with_capacity(kept.len());
    for (i, k) in kept.iter().enumerate() {
        let (g, cf) = pair_of(k);
        let row = targets.row(i).insert_axis(Axis(0));
        let (same_pair, weat_pair, direct_bias_pair) =
            pair_scores(row, &groups, (g, cf), options, &mut cache)?;
        let direction = pairs[k.index].direction;
        samples.push(SampleScores {
            pair_id: k.pair_id.clone(),
            target_group: g,
            other_group: cf,
            text: texts[i].clone(),
            same: same_samples[i],
            weat: weat_samples.as_ref().map(|w| w[i]),
            direct_bias: db_samples[i],
            same_pair,
            weat_pair,
            direct_bias_pair,
            pll_difference: signed_difference(
                more_minus_less[&k.pair_id],
                direction,
                options.labels,
            ),
        });
    }
    let positive = samples.iter().filter(|s| s.pll_difference > 0.0).count();
    Ok(Some(TypeScores {
        bias_type: sets.bias_type.to_string(),
        groups: sets.groups.clone(),
        data_order,
        excluded: excluded.len(),
        per_group: by_group.iter().map(|m| m.nrows()).collect(),
        same: multi.value,
        weat: weat_value,
        gweat: gweat_value,
        direct_bias: db,
        cps_bias: 100.0 * positive as f64 / samples.len() as f64,
        samples,
        target_embeddings: targets,
        group_embeddings: groups,
    }))
}

/// Per pair id, PLL(sent_more) − PLL(sent_less) under [`CPS_SCORER`] (the sign of
/// [`SchroederOptions::labels`] is applied in [`type_scores`]).
fn cps_differences<M: DatasetScorer + Embedder + DifferenceMasker>(
    study: &mut Study<M>,
    i: usize,
) -> Result<BTreeMap<String, f64>, PaperError> {
    let table = study.scores(i, DataSet::CrowsPairs)?;
    Ok(table
        .rows()
        .iter()
        .filter(|r| r.scorer == CPS_SCORER)
        .map(|r| (r.pair_id.clone(), r.difference()))
        .collect())
}

/// Which models Table 3 compares: those whose value deviates from the mean by more than
/// `threshold` population standard deviations (§4.1.1). A deviation within 1e-9 (relative) of
/// the threshold counts as equal, not beyond (two models deviate by exactly one sd, which float
/// rounding must not tip over).
pub fn sd_selection(values: &[f64], threshold: f64) -> Vec<usize> {
    let n = values.len() as f64;
    if values.len() < 2 {
        return Vec::new();
    }
    let mean = values.iter().sum::<f64>() / n;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
    (0..values.len())
        .filter(|&i| sd > 0.0 && (values[i] - mean).abs() - threshold * sd > 1e-9 * sd)
        .collect()
}

/// Table 3's accuracy: over every pair of `selected` models whose downstream values differ, the
/// share where the cosine score orders them the same way. `None` without such a pair or with a
/// missing score. Returns `(accuracy, pairs compared)`.
pub fn pairwise_accuracy(
    selected: &[usize],
    downstream: &[f64],
    cosine: &[Option<f64>],
) -> Option<(f64, usize)> {
    let (mut agree, mut total) = (0usize, 0usize);
    for (a, &i) in selected.iter().enumerate() {
        for &j in &selected[a + 1..] {
            let d = downstream[i] - downstream[j];
            if d == 0.0 {
                continue;
            }
            let c = cosine[i]? - cosine[j]?;
            total += 1;
            if c * d > 0.0 {
                agree += 1;
            }
        }
    }
    (total > 0).then(|| (agree as f64 / total as f64, total))
}

/// The models below `mean − threshold·sd` and above `mean + threshold·sd` of `values`
/// (population sd, as numpy's `np.std`): the low- and high-bias models of the authors'
/// notebook. The same 1e-9 (relative) tolerance as [`sd_selection`].
pub fn low_high(values: &[f64], threshold: f64) -> (Vec<usize>, Vec<usize>) {
    let selected = sd_selection(values, threshold);
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    selected.into_iter().partition(|&i| values[i] < mean)
}

/// Table 3's accuracy as the authors' notebook computes it: for every low-bias model `i` and
/// high-bias model `j`, in both orders, the prediction `score_i < score_j` is compared with
/// `downstream_i < downstream_j`; the accuracy is the share that agree (so a tie in the score
/// counts once right and once wrong). `None` without a low and a high model or with a missing
/// score. Returns `(accuracy, comparisons)`.
pub fn low_high_accuracy(
    low: &[usize],
    high: &[usize],
    downstream: &[f64],
    cosine: &[Option<f64>],
) -> Option<(f64, usize)> {
    let (mut agree, mut total) = (0usize, 0usize);
    for &i in low {
        for &j in high {
            for (a, b) in [(i, j), (j, i)] {
                let truth = downstream[a] < downstream[b];
                let predicted = cosine[a]? < cosine[b]?;
                total += 1;
                agree += usize::from(truth == predicted);
            }
        }
    }
    (total > 0).then(|| (agree as f64 / total as f64, total))
}

/// The paper's "avg. Rank" column of Table 3: in every column (experiment) the scores are ranked
/// by accuracy, 1 the highest, tied scores sharing the best of their ranks (competition
/// ranking); a score's average rank is the mean over the columns. `columns[c][s]` is score `s`'s
/// accuracy in column `c`; a column missing any score is left out. The paper's own accuracies
/// give SAME 1.375, WEAT/gWEAT 2.25 and DirectBias 2.125, printed 1.4, 2.3 and 2.1.
pub fn average_ranks<const S: usize>(columns: &[[Option<f64>; S]]) -> Option<[f64; S]> {
    let complete: Vec<[f64; S]> = columns
        .iter()
        .filter_map(|c| {
            let mut out = [0.0; S];
            for (o, v) in out.iter_mut().zip(c) {
                *o = (*v)?;
            }
            Some(out)
        })
        .collect();
    if complete.is_empty() {
        return None;
    }
    let mut sums = [0.0; S];
    for c in &complete {
        for (s, sum) in sums.iter_mut().enumerate() {
            *sum += 1.0 + c.iter().filter(|&&v| v > c[s]).count() as f64;
        }
    }
    Some(sums.map(|v| v / complete.len() as f64))
}

/// The palette colour of Figure 1's correlations that the authors' notebook leaves out.
const NOT_SIGNIFICANT_COLOUR: usize = 7;

fn score_of(t: &TypeScores, score: &str) -> Option<f64> {
    match score {
        "SAME" => Some(t.same),
        "WEAT" => t.weat,
        "gWEAT" => t.gweat,
        _ => Some(t.direct_bias),
    }
}

fn sample_of(s: &SampleScores, score: &str) -> Option<f64> {
    match score {
        "SAME" => Some(s.same),
        "WEAT" => s.weat,
        "DirectBias" => Some(s.direct_bias),
        _ => None,
    }
}

const BIOS_JIGSAW: &str = "the BIOS supervised subset (Schröder et al. 2023) and the Jigsaw \
     Unintended Bias data (Kaggle) are not shipped by any package here (searched PyPI and npm \
     package lists for jigsaw, biosbias, bias-in-bios), and the 66 classifiers of §4.3.5 are not \
     trained";

/// Writes the paper's tables and figures with the authors' choices.
pub(super) fn reproduce<M: DatasetScorer + Embedder + DifferenceMasker>(
    study: &mut Study<M>,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    reproduce_with(study, out, &SchroederOptions::default())
}

/// Writes the paper's tables and figures under `options`.
///
/// # Errors
/// Data set, model, measure and file errors.
pub fn reproduce_with<M: DatasetScorer + Embedder + DifferenceMasker>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: &SchroederOptions,
) -> Result<(), PaperError> {
    out.set_study(study);
    for (name, value) in options.named() {
        out.option(name, value);
    }
    let sets = authors_sets()?;
    let pairs = study.pairs(DataSet::CrowsPairs)?.to_vec();
    let names = study.model_names();
    // results[m][t]: model m, Table 1 type t.
    let mut results: Vec<Vec<Option<TypeScores>>> = Vec::new();
    for i in 0..study.len() {
        let cps = cps_differences(study, i)?;
        let mut per_type = Vec::new();
        for s in &sets {
            per_type.push(type_scores(study.model_mut(i), &pairs, &cps, s, options)?);
        }
        results.push(per_type);
    }
    let limited = study
        .max_pairs()
        .map(|n| format!(" (first {n} CrowS-Pairs pairs only)"))
        .unwrap_or_default();
    let models_note = format!(
        "models: {} instead of the paper's 26 Hugging Face MLMs{limited}",
        names.join(", ")
    );
    let settings = settings_note(options);
    table1(&pairs, &sets, options, out)?;
    out.out_of_reach(
        "table-2",
        "Hyperparameters in the classification experiments",
        format!("the classification experiments are not run: {BIOS_JIGSAW}"),
    );
    analysis_434(&results, &names, &sets, &settings, &models_note, out)?;
    table3(
        &results,
        &names,
        &sets,
        options,
        &settings,
        &models_note,
        out,
    )?;
    figure1(
        &results,
        &names,
        &sets,
        options,
        &settings,
        &models_note,
        out,
    )?;
    figure2(&results, &sets, &settings, &models_note, out)?;
    figure3(&names, &results, &sets, options, out, &models_note)?;
    out.out_of_reach(
        "analysis-5.3",
        "Bias scores on job titles against 50 % of the bios",
        format!("needs the BIOS bios and job titles: {BIOS_JIGSAW}"),
    );
    Ok(())
}

/// One score's test–retest result of one model at one share: the deviations or why none.
type ShareResult = Result<bias_robust::ShareDeviation, String>;

/// Per score (SAME, WEAT, DirectBias), per model: the model's name and one result per share.
type PerScore = [Vec<(String, Vec<ShareResult>)>; 3];

/// Figure 3's lines: the CSV rows, the mean and ± 1 sd series, and the failures per share.
type Pooled = (Vec<Vec<String>>, Vec<PointSeries>, Vec<String>);

#[cfg(test)]
mod tests {
    use super::*;
    use approx::{abs_diff_eq, assert_abs_diff_eq};

    #[test]
    fn sd_selection_keeps_models_beyond_one_population_sd() {
        // [0, 0.5, 1]: mean 0.5, population sd sqrt(1/6) = 0.408; deviations 0.5, 0, 0.5.
        assert_eq!(sd_selection(&[0.0, 0.5, 1.0], 1.0), vec![0, 2]);
        // Two models always deviate by exactly one sd: none is strictly beyond it.
        assert!(sd_selection(&[40.0, 60.0], 1.0).is_empty());
        assert!(sd_selection(&[100.0 / 7.0, 300.0 / 7.0], 1.0).is_empty());
        assert!(sd_selection(&[5.0, 5.0, 5.0], 0.0).is_empty());
        // A lower threshold keeps them.
        assert_eq!(sd_selection(&[40.0, 60.0], 0.5), vec![0, 1]);
    }

    #[test]
    fn pairwise_accuracy_counts_agreeing_orders() {
        // Models 0, 1, 3 selected; downstream 10, 30, _, 20; cosine 0.1, 0.3, _, 0.4.
        // Pairs (0,1): up/up agree; (0,3): up/up agree; (1,3): down/up disagree → 2/3.
        let down = [10.0, 30.0, 0.0, 20.0];
        let cos = [Some(0.1), Some(0.3), None, Some(0.4)];
        let (acc, n) = pairwise_accuracy(&[0, 1, 3], &down, &cos).unwrap();
        assert_eq!(n, 3);
        assert_abs_diff_eq!(acc, 2.0 / 3.0, epsilon = 1e-12);
        // A missing score among the selected: no accuracy.
        assert_eq!(pairwise_accuracy(&[0, 2], &down, &cos), None);
        // Equal downstream values are not compared.
        assert_eq!(pairwise_accuracy(&[0, 1], &[5.0, 5.0], &cos), None);
    }

    /// A model whose embedding of a text is a fixed pseudo-random vector of it (FNV-1a seeded
    /// xorshift), and whose masking fails (it has no tokenizer).
    struct HashModel;

    impl DatasetScorer for HashModel {
        fn name(&self) -> &str {
            "hash"
        }
        fn conventions(&self) -> Option<bias_core::ScoringConventions> {
            None
        }
        fn score_into(
            &mut self,
            _: &str,
            _: &[SentencePair],
            _: &Path,
        ) -> Result<bias_core::run::RunSummary, bias_core::BoxError> {
            Err("not a scorer".into())
        }
    }

    impl DifferenceMasker for HashModel {
        fn mask_differing_tokens(
            &mut self,
            _: &str,
            _: &str,
        ) -> Result<String, bias_core::BoxError> {
            Err("the hash model has no tokenizer".into())
        }
    }

    impl Embedder for HashModel {
        type Error = std::convert::Infallible;
        fn dim(&self) -> usize {
            6
        }
        fn embed(&mut self, texts: &[&str]) -> Result<ndarray::Array2<f32>, Self::Error> {
            let dim = self.dim();
            let mut out = Array2::zeros((texts.len(), dim));
            for (i, t) in texts.iter().enumerate() {
                let mut h: u64 = 0xcbf2_9ce4_8422_2325;
                for b in t.bytes() {
                    h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                }
                for j in 0..dim {
                    h ^= h << 13;
                    h ^= h >> 7;
                    h ^= h << 17;
                    out[[i, j]] = ((h % 2001) as f32 - 1000.0) / 1000.0;
                }
            }
            Ok(out)
        }
    }

    /// CrowS-Pairs from the repository's data/ (`None`, and the test skipped, from the
    /// published package, which does not ship it).
    fn crows() -> Option<Vec<SentencePair>> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
        let path = bias_data::layout::crows_pairs(&dir);
        if !path.is_file() {
            eprintln!("SKIPPED: {} missing (a repository file the published package does not ship; scripts/setup.sh fetches data/)", path.display());
            return None;
        }
        Some(bias_data::load_pairs(path).unwrap().pairs)
    }

    fn run(pairs: &[SentencePair], ty: usize, options: &SchroederOptions) -> Option<TypeScores> {
        let cps: BTreeMap<String, f64> = pairs
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.clone(), (i % 7) as f64 - 3.0))
            .collect();
        let sets = authors_sets().unwrap();
        type_scores(&mut HashModel, pairs, &cps, &sets[ty], options).unwrap()
    }

    #[test]
    fn every_option_changes_what_it_says() {
        let Some(pairs) = crows() else { return };
        let span = SchroederOptions {
            masking: Masking::PerSpan,
            ..SchroederOptions::default()
        };
        // The default masks per token: a model without a tokenizer gives nothing.
        // Per-token masking asks the model to mask; this one cannot, and says so.
        let cps: BTreeMap<String, f64> = pairs.iter().map(|p| (p.id.clone(), 1.0)).collect();
        let sets = authors_sets().unwrap();
        let e = type_scores(
            &mut HashModel,
            &pairs,
            &cps,
            &sets[2],
            &SchroederOptions::default(),
        )
        .unwrap_err();
        let why = std::error::Error::source(&e).map(ToString::to_string);
        assert!(why.is_some_and(|w| w.contains("no tokenizer")), "{e}");
        let g = run(&pairs, 2, &span).unwrap();
        assert_eq!(g.samples.len(), 100);
        // CPS bias: the percentage of positive differences, by hand.
        let pos = g.samples.iter().filter(|s| s.pll_difference > 0.0).count();
        assert_abs_diff_eq!(g.cps_bias, 100.0 * pos as f64 / 100.0, epsilon = 1e-12);
        // The filter: fewer gender pairs with a single span.
        let single = SchroederOptions {
            filter: CrowsFilter::SingleSpan,
            ..span.clone()
        };
        assert_eq!(run(&pairs, 2, &single).unwrap().samples.len(), 71);
        // The split moves 30 gender targets between the groups; SAME does not depend on it.
        let more = SchroederOptions {
            split: TargetSplit::SentMore,
            ..span.clone()
        };
        let m = run(&pairs, 2, &more).unwrap();
        let moved = g
            .samples
            .iter()
            .zip(&m.samples)
            .filter(|(a, b)| a.target_group != b.target_group)
            .count();
        assert_eq!(moved, 30);
        assert_ne!(g.per_group, m.per_group);
        assert_ne!(g.weat, m.weat);
        assert_abs_diff_eq!(g.same, m.same, epsilon = 1e-12);
        // ddof 1 vs 0: the effect size scales by sqrt((n - 1) / n) (hand relation).
        let d0 = SchroederOptions {
            ddof: Ddof::Zero,
            ..span.clone()
        };
        let w0 = run(&pairs, 2, &d0).unwrap().weat.unwrap();
        let w1 = g.weat.unwrap();
        assert!(
            abs_diff_eq!(w1, w0 * (99.0f64 / 100.0).sqrt(), epsilon = 1e-9),
            "{w0} {w1}"
        );
        // c = 2: DirectBias is the mean of the squared c = 1 terms.
        let c2 = SchroederOptions {
            c: 2.0,
            ..span.clone()
        };
        let want = g.samples.iter().map(|s| s.direct_bias.powi(2)).sum::<f64>() / 100.0;
        assert_abs_diff_eq!(
            run(&pairs, 2, &c2).unwrap().direct_bias,
            want,
            epsilon = 1e-12
        );
        // SAME of the paper (Eq. 16) against the authors' code (the default): equal with two
        // groups, different with five (religion).
        assert_eq!(span.same, SameVariant::AuthorsCode);
        let paper = SchroederOptions {
            same: SameVariant::Paper,
            ..span.clone()
        };
        assert_abs_diff_eq!(
            run(&pairs, 2, &paper).unwrap().same,
            g.same,
            epsilon = 1e-12
        );
        let (rp, rc) = (
            run(&pairs, 1, &paper).unwrap().same,
            run(&pairs, 1, &span).unwrap().same,
        );
        assert!((rp - rc).abs() > 1e-6, "{rp} {rc}");
        // Labels: the authors' code reads every row as antistereo, so a stereo row's difference
        // is the negative of the intended one and an antistereo row's is the same.
        let intended = SchroederOptions {
            labels: StereoLabels::Intended,
            ..span.clone()
        };
        let i = run(&pairs, 2, &intended).unwrap();
        let mut flipped = 0;
        for (a, b) in g.samples.iter().zip(&i.samples) {
            let row = pairs.iter().find(|p| p.id == a.pair_id).unwrap();
            if row.direction == Direction::Stereo {
                assert_eq!(a.pll_difference, -b.pll_difference);
                flipped += 1;
            } else {
                assert_eq!(a.pll_difference, b.pll_difference);
            }
        }
        assert!(flipped > 0 && flipped < 100, "{flipped}");
        assert_ne!(g.cps_bias, i.cps_bias);
        // Subspace: raw vectors (the default) against unit-normalised ones (the hash model's
        // vectors are not unit length, so DirectBias moves).
        let unit = SchroederOptions {
            subspace: SubspaceVectors::Unit,
            ..span.clone()
        };
        let u = run(&pairs, 2, &unit).unwrap();
        assert!((u.direct_bias - g.direct_bias).abs() > 1e-6);
        assert_eq!(u.same, g.same);
        // Binary SAME's sample bias is signed and the aggregate is the mean of its absolute
        // values (Eq. 12 and the mean after it).
        let mean_abs = g.samples.iter().map(|s| s.same.abs()).sum::<f64>() / 100.0;
        assert_abs_diff_eq!(g.same, mean_abs, epsilon = 1e-12);
        assert!(g.samples.iter().any(|s| s.same < 0.0));
    }

    #[test]
    fn the_authors_group_order_pairs_religion_targets_with_other_groups() {
        let Some(pairs) = crows() else { return };
        let span = SchroederOptions {
            masking: Masking::PerSpan,
            ..SchroederOptions::default()
        };
        let file = SchroederOptions {
            group_order: GroupOrder::File,
            ..span.clone()
        };
        // Religion: the data names muslim before christian, the file christian first.
        let (a, f) = (
            run(&pairs, 1, &span).unwrap(),
            run(&pairs, 1, &file).unwrap(),
        );
        assert_eq!(a.data_order, [1, 0, 2, 4, 3]);
        // Targets per group in the file's order (christian, muslim, jewish, buddhist, hindu); the
        // authors' ids put the 27 muslim targets beside the christian terms and vice versa.
        assert_eq!(f.per_group, [3, 27, 22, 2, 2]);
        assert_eq!(a.per_group, [27, 3, 22, 2, 2]);
        assert_ne!(a.gweat, f.gweat);
        assert_eq!(
            a.same, f.same,
            "SAME does not depend on the targets' groups"
        );
        // Gender: the orders agree, nothing moves.
        let (ag, fg) = (
            run(&pairs, 2, &span).unwrap(),
            run(&pairs, 2, &file).unwrap(),
        );
        assert_eq!(ag.data_order, [0, 1]);
        assert_eq!(ag, fg);
    }

    #[test]
    fn low_high_accuracy_counts_both_orders_and_splits_ties() {
        // Downstream 10, 50, 90, 52: mean 50.5, population sd 28.3; low {0}, high {2}.
        let down = [10.0, 50.0, 90.0, 52.0];
        assert_eq!(low_high(&down, 1.0), (vec![0], vec![2]));
        // Score agrees: both orders right.
        let cos = [Some(0.1), None, Some(0.2), None];
        assert_eq!(low_high_accuracy(&[0], &[2], &down, &cos), Some((1.0, 2)));
        // Score reversed: both wrong.
        let cos = [Some(0.3), None, Some(0.2), None];
        assert_eq!(low_high_accuracy(&[0], &[2], &down, &cos), Some((0.0, 2)));
        // A tie: (0, 2) predicts "not less" (wrong), (2, 0) "not less" (right).
        let cos = [Some(0.2), None, Some(0.2), None];
        assert_eq!(low_high_accuracy(&[0], &[2], &down, &cos), Some((0.5, 2)));
        // Low against low is not compared, unlike every pair of the selected models.
        let down = [0.0, 1.0, 50.0, 50.0, 50.0, 99.0, 100.0];
        let (low, high) = low_high(&down, 1.0);
        assert_eq!((low.clone(), high.clone()), (vec![0, 1], vec![5, 6]));
        let cos: Vec<Option<f64>> = [0.2, 0.1, 0.0, 0.0, 0.0, 0.3, 0.4].map(Some).to_vec();
        // Low × high: every score of a low model is below every high one: 8/8.
        assert_eq!(low_high_accuracy(&low, &high, &down, &cos), Some((1.0, 8)));
        // All selected pairs: (0,1) disagrees: 5/6.
        let (acc, n) = pairwise_accuracy(&[0, 1, 5, 6], &down, &cos).unwrap();
        assert_eq!(n, 6);
        assert_abs_diff_eq!(acc, 5.0 / 6.0, epsilon = 1e-12);
    }

    #[test]
    fn average_ranks_give_the_papers_column() {
        // schroeder2024 Table 3, columns BIOS gender … CrowS-Pairs age; rows SAME,
        // WEAT-or-gWEAT, DirectBias. The paper prints avg. Rank 1.4, 2.3, 2.1.
        let t = |a: f64, b: f64, c: f64| [Some(a), Some(b), Some(c)];
        let columns = [
            t(0.66, 0.51, 0.51),
            t(0.61, 0.59, 0.51),
            t(0.89, 0.64, 0.36),
            t(0.58, 0.53, 0.57),
            t(0.19, 0.47, 0.56),
            t(0.83, 0.67, 0.83),
            t(0.17, 1.0, 0.0),
            t(0.75, 0.0, 0.5),
        ];
        let r = average_ranks(&columns).unwrap();
        assert_abs_diff_eq!(r[0], 1.375, epsilon = 1e-12);
        assert_abs_diff_eq!(r[1], 2.25, epsilon = 1e-12);
        assert_abs_diff_eq!(r[2], 2.125, epsilon = 1e-12);
        // A column missing a score is left out; none left: no rank.
        let mut partial = columns.to_vec();
        partial.push([Some(1.0), None, Some(0.0)]);
        assert_eq!(average_ranks(&partial), Some(r));
        assert_eq!(average_ranks(&[[None, Some(1.0), None]]), None);
    }

    fn sample(pll: f64, same: f64, same_pair: Option<f64>) -> SampleScores {
        SampleScores {
            pair_id: String::new(),
            target_group: 0,
            other_group: 1,
            text: String::new(),
            same,
            weat: Some(same),
            direct_bias: same.abs(),
            same_pair,
            weat_pair: same,
            direct_bias_pair: same.abs(),
            pll_difference: pll,
        }
    }

    #[test]
    fn figure_1_readings_differ_where_the_signs_do() {
        // Signed scores track the signed PLL difference exactly (r = 1).
        let xs = [-2.0, -1.0, 1.0, 2.0, -2.0, -1.0, 1.0, 2.0];
        let ys = [-0.4, -0.2, 0.2, 0.4, -0.4, -0.2, 0.2, 0.4];
        let mut t = TypeScores {
            bias_type: "gender".into(),
            groups: vec!["male".into(), "female".into()],
            data_order: vec![0, 1],
            excluded: 0,
            per_group: vec![8, 0],
            same: 0.0,
            weat: None,
            gweat: None,
            direct_bias: 0.0,
            cps_bias: 50.0,
            samples: xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| sample(x, y, Some(-y * x.abs())))
                .collect(),
            target_embeddings: Array2::zeros((8, 2)),
            group_embeddings: Vec::new(),
        };
        let (_, signed, _) = figure1_r(&t, "SAME", Figure1Reading::Signed).unwrap();
        assert_abs_diff_eq!(signed, 1.0, epsilon = 1e-12);
        // The authors' reading: |same_pair| = |y|·|x| against |x| (hand: r of [0.8, 0.2, 0.2,
        // 0.8] × 2 with [2, 1, 1, 2] × 2 is 1).
        let (n, authors, _) = figure1_r(&t, "SAME", Figure1Reading::AuthorsCode).unwrap();
        assert_eq!(n, 8);
        assert_abs_diff_eq!(authors, 1.0, epsilon = 1e-12);
        // Make the per-pair scores fall as |x| grows: the authors' r turns negative, the signed
        // one does not change.
        for s in &mut t.samples {
            s.same_pair = Some(1.0 / s.pll_difference.abs());
        }
        let (_, authors, _) = figure1_r(&t, "SAME", Figure1Reading::AuthorsCode).unwrap();
        assert!(authors < -0.99, "{authors}");
        assert_eq!(
            figure1_r(&t, "SAME", Figure1Reading::Signed).unwrap().1,
            signed
        );
        // A pair whose two groups coincide has no SAME of its own: r is undefined (NaN in the
        // authors' code), not computed without it.
        t.samples[0].same_pair = None;
        assert_eq!(figure1_r(&t, "SAME", Figure1Reading::AuthorsCode), None);
    }

    #[test]
    fn the_notes_and_the_index_say_which_settings_gave_the_numbers() {
        let authors = SchroederOptions::default();
        let note = settings_note(&authors);
        assert!(note.contains("SAME as the authors' code"), "{note}");
        assert!(note.contains("raw term vectors"), "{note}");
        assert!(note.contains("every pair read as antistereo"), "{note}");
        let other = SchroederOptions {
            same: SameVariant::Paper,
            subspace: SubspaceVectors::Unit,
            labels: StereoLabels::Intended,
            group_order: GroupOrder::File,
            ..SchroederOptions::default()
        };
        let note = settings_note(&other);
        for want in [
            "SAME as the paper's Eq. 16",
            "unit term vectors",
            "intended reading",
            "its own group's terms",
        ] {
            assert!(note.contains(want), "{want}: {note}");
        }
        let named: BTreeMap<_, _> = other.named().into_iter().collect();
        assert_eq!(named["schroeder2024 SAME"], "paper (Eq. 16)");
        assert_eq!(named["schroeder2024 labels"], "intended");
        assert_eq!(named["schroeder2024 group order"], "file");
        assert_eq!(named["schroeder2024 subspace"], "unit");
    }
}
