//! The tables and figures of Schröder, Schulz & Hammer (2024), "The SAME score" (see
//! [`super::Paper`]): the MLM experiment of §4.3.4 on CrowS-Pairs over the models under study
//! (Table 1, Table 3's CrowS-Pairs columns, Figure 1 right, Figure 2), the test–retest study of
//! §4.1.3 on CrowS-Pairs targets (Figure 3), and the classification half (BIOS, Jigsaw) listed
//! as out of reach.
//!
//! Per bias type of Table 1 and per model: the CrowS-Pairs pairs the authors' filter keeps
//! ([`bias_embed::protocol::select_pairs`], defining sets [`bias_embed::protocol::authors_sets`]),
//! their neutral targets (`sent_more` with the differing tokens masked,
//! [`bias_core::StudyModel::mask_differing_tokens`]), embedded with the model
//! ([`bias_core::StudyModel::embed`]) beside every defining-set term; SAME, WEAT (two groups) or
//! gWEAT (more), DirectBias with `k = groups − 1`, per sample and aggregated; and the model's CPS
//! on the same pairs: per pair the PLL difference of the stereotypical minus the
//! anti-stereotypical sentence (`sent_more − sent_less` for stereo rows, `sent_less − sent_more`
//! for antistereo rows, as the authors' `compute_individual_bias`), aggregated as the percentage
//! of pairs where it is positive.

use std::collections::BTreeMap;
use std::path::Path;

use bias_core::{Direction, SentencePair, StudyModel};
use bias_embed::protocol::{
    authors_sets, mask_spans, select_pairs, CrowsFilter, DefiningSets, KeptPair, Masking,
    TargetSplit,
};
use bias_embed::{
    bias_subspace, direct_bias, direct_bias_terms, gweat, same_binary, same_multi, weat,
    weat_association, Ddof, SameVariant,
};
use ndarray::{Array2, Axis};

use super::{Cell, DataSet, Reproduction, Status, Study, Table};
use crate::figures::{point_panels, PointPanel, PointSeries};
use crate::{retest_direct_bias, retest_same_binary, retest_weat, RetestOptions, RobustError};
use crate::{TargetLabels, WeatSplit};

/// The scorer whose PLL the MLM experiment compares with (Nangia et al. 2020's CPS; Schröder et
/// al. 2024 Eq. 10).
pub const CPS_SCORER: &str = "cps";

/// The choices of the MLM experiment (Schröder et al. 2024 §4.3.4); [`Default`] is the
/// authors' code.
#[derive(Debug, Clone, PartialEq)]
pub struct SchroederOptions {
    /// Which CrowS-Pairs pairs are kept (default: the authors' filter).
    pub filter: CrowsFilter,
    /// Which group a target counts for (default: the authors', the `sent_less` group for
    /// antistereo rows).
    pub split: TargetSplit,
    /// How the group terms are removed from a target (default: one mask per token).
    pub masking: Masking,
    /// SAME as the paper defines it (default) or as the authors' code computes it.
    pub same: SameVariant,
    /// Standard deviation divisor of WEAT's effect size (default 1, the authors' code).
    pub ddof: Ddof,
    /// DirectBias strictness `c` (default 1).
    pub c: f64,
    /// Table 3's selection: models whose CPS bias deviates from the mean of all models by more
    /// than this many (population) standard deviations (default 1, §4.1.1).
    pub sd_threshold: f64,
    /// Random subsets per share in Figure 3 (default 100).
    pub retest_repeats: usize,
    /// Seed of Figure 3's subsets.
    pub seed: u64,
}

impl Default for SchroederOptions {
    fn default() -> Self {
        SchroederOptions {
            filter: CrowsFilter::Authors,
            split: TargetSplit::Authors,
            masking: Masking::PerToken,
            same: SameVariant::Paper,
            ddof: Ddof::One,
            c: 1.0,
            sd_threshold: 1.0,
            retest_repeats: 100,
            seed: 0,
        }
    }
}

/// One kept pair of one model: its neutral target and sample scores.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleScores {
    /// The pair's id.
    pub pair_id: String,
    /// The group the target counts for (index into the type's groups).
    pub target_group: usize,
    /// The neutral target text.
    pub text: String,
    /// SAME's sample bias: signed `cos(t, â_0 − â_1)` with two groups (Eq. 12), `‖w_B‖` with
    /// more (Eq. 15), as the authors report them.
    pub same: f64,
    /// WEAT's sample association `s(t, A_0, A_1)` (Eq. 2), two groups only.
    pub weat: Option<f64>,
    /// DirectBias's sample term (Eq. 25).
    pub direct_bias: f64,
    /// PLL(stereotypical) − PLL(anti-stereotypical) under CPS.
    pub pll_difference: f64,
}

/// One model on one bias type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeScores {
    /// The bias type (`race-color`, `religion`, `gender`, `age`).
    pub bias_type: String,
    /// The type's groups.
    pub groups: Vec<String>,
    /// Pairs of the type that the filter excluded.
    pub excluded: usize,
    /// Targets per group.
    pub per_group: Vec<usize>,
    /// SAME over all targets (Eq. 16).
    pub same: f64,
    /// WEAT's effect size (Eq. 1), two groups with at least 2 targets each.
    pub weat: Option<f64>,
    /// gWEAT (Eq. 3), more than two groups, each with a target.
    pub gweat: Option<f64>,
    /// DirectBias with `k = groups − 1` (Eq. 25).
    pub direct_bias: f64,
    /// The percentage of kept pairs whose PLL difference is positive.
    pub cps_bias: f64,
    /// Per kept pair.
    pub samples: Vec<SampleScores>,
}

/// The cosine scores of Table 3 and Figures 1–2.
const SCORES: [&str; 4] = ["SAME", "WEAT", "gWEAT", "DirectBias"];

fn model_err(model: &str, source: bias_core::BoxError) -> RobustError {
    RobustError::Model {
        model: model.to_owned(),
        dataset: DataSet::CrowsPairs.name(),
        source,
    }
}

fn embed_f64(
    model: &mut (dyn StudyModel + '_),
    texts: &[String],
) -> Result<Option<Array2<f64>>, RobustError> {
    let name = model.name().to_owned();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    Ok(model
        .embed(&refs)
        .map_err(|e| model_err(&name, e))?
        .map(|m| m.mapv(f64::from)))
}

/// The neutral target of a kept pair under `masking`; `None` when the model cannot mask.
fn neutral_target(
    model: &mut (dyn StudyModel + '_),
    pair: &SentencePair,
    masking: Masking,
) -> Result<Option<String>, RobustError> {
    let name = model.name().to_owned();
    match masking {
        Masking::PerToken => model
            .mask_differing_tokens(&pair.stereo, &pair.anti)
            .map_err(|e| model_err(&name, e)),
        Masking::PerSpan => Ok(Some(mask_spans(&pair.stereo, &pair.anti, "[MASK]"))),
    }
}

/// The MLM experiment (§4.3.4) for one model and one bias type: `None` when the model cannot
/// mask or embed (a causal LM), or keeps fewer than 2 pairs.
///
/// # Errors
/// The model's errors; [`RobustError::Embed`] when a measure fails (e.g. a zero embedding).
pub fn type_scores(
    model: &mut (dyn StudyModel + '_),
    pairs: &[SentencePair],
    cps: &BTreeMap<String, f64>,
    sets: &DefiningSets,
    options: &SchroederOptions,
) -> Result<Option<TypeScores>, RobustError> {
    let (kept, excluded) = select_pairs(pairs, sets, options.filter, options.split);
    // Only pairs the model scored (every pair unless --max-pairs cut the data set).
    let kept: Vec<KeptPair> = kept
        .into_iter()
        .filter(|k| cps.contains_key(&k.pair_id))
        .collect();
    if kept.len() < 2 {
        return Ok(None);
    }
    let mut texts = Vec::with_capacity(kept.len());
    for k in &kept {
        match neutral_target(model, &pairs[k.index], options.masking)? {
            Some(t) => texts.push(t),
            None => return Ok(None),
        }
    }
    let Some(targets) = embed_f64(model, &texts)? else {
        return Ok(None);
    };
    let n_groups = sets.groups.len();
    let mut groups = Vec::with_capacity(n_groups);
    for g in 0..n_groups {
        let terms: Vec<String> = sets.group_terms(g).into_iter().map(str::to_owned).collect();
        match embed_f64(model, &terms)? {
            Some(m) => groups.push(m),
            None => return Ok(None),
        }
    }
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
                .filter(|&i| kept[i].target_group == g)
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
    let tuples: Vec<Array2<f64>> = (0..sets.tuples.len())
        .map(|i| {
            let rows: Vec<_> = groups.iter().map(|g| g.row(i)).collect();
            ndarray::stack(Axis(0), &rows).map_err(|source| {
                RobustError::Embed(bias_embed::EmbedError::Shape {
                    what: format!("{} tuple {i}", sets.bias_type),
                    source,
                })
            })
        })
        .collect::<Result<_, _>>()?;
    let tv: Vec<_> = tuples.iter().map(|m| m.view()).collect();
    let subspace = bias_subspace(&tv, n_groups - 1)?;
    let db = direct_bias(targets.view(), &subspace, options.c)?;
    let db_samples = direct_bias_terms(targets.view(), &subspace, options.c)?;
    let samples: Vec<SampleScores> = kept
        .iter()
        .enumerate()
        .map(|(i, k)| SampleScores {
            pair_id: k.pair_id.clone(),
            target_group: k.target_group,
            text: texts[i].clone(),
            same: same_samples[i],
            weat: weat_samples.as_ref().map(|w| w[i]),
            direct_bias: db_samples[i],
            pll_difference: cps[&k.pair_id],
        })
        .collect();
    let positive = samples.iter().filter(|s| s.pll_difference > 0.0).count();
    Ok(Some(TypeScores {
        bias_type: sets.bias_type.to_string(),
        groups: sets.groups.clone(),
        excluded: excluded.len(),
        per_group: by_group.iter().map(|m| m.nrows()).collect(),
        same: multi.value,
        weat: weat_value,
        gweat: gweat_value,
        direct_bias: db,
        cps_bias: 100.0 * positive as f64 / samples.len() as f64,
        samples,
    }))
}

/// Per pair id, PLL(stereotypical) − PLL(anti-stereotypical) under [`CPS_SCORER`] (the
/// authors' sign convention, see the module docs).
fn cps_differences(study: &mut Study<'_>, i: usize) -> Result<BTreeMap<String, f64>, RobustError> {
    let table = study.scores(i, DataSet::CrowsPairs)?;
    Ok(table
        .rows()
        .iter()
        .filter(|r| r.scorer == CPS_SCORER)
        .map(|r| {
            let d = r.difference();
            let d = if r.direction == Direction::Antistereo {
                -d
            } else {
                d
            };
            (r.pair_id.clone(), d)
        })
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

/// One colour per score in every figure.
fn score_colour(score: &str) -> usize {
    SCORES.iter().position(|s| *s == score).unwrap_or(0)
}

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

fn write_csv(path: &Path, header: &[&str], rows: &[Vec<String>]) -> Result<(), RobustError> {
    let io = |e: csv::Error| RobustError::Io {
        action: "write",
        path: path.to_owned(),
        source: std::io::Error::other(e.to_string()),
    };
    let mut w = csv::Writer::from_path(path).map_err(io)?;
    w.write_record(header).map_err(io)?;
    for r in rows {
        w.write_record(r).map_err(io)?;
    }
    w.flush().map_err(|source| RobustError::Io {
        action: "write",
        path: path.to_owned(),
        source,
    })
}

const BIOS_JIGSAW: &str = "the BIOS supervised subset (Schröder et al. 2023) and the Jigsaw \
     Unintended Bias data (Kaggle) are not shipped by any package here (searched PyPI and npm \
     package lists for jigsaw, biosbias, bias-in-bios), and the 66 classifiers of §4.3.5 are not \
     trained";

/// Writes the paper's tables and figures with the authors' choices.
pub(super) fn reproduce(study: &mut Study<'_>, out: &mut Reproduction) -> Result<(), RobustError> {
    reproduce_with(study, out, &SchroederOptions::default())
}

/// Writes the paper's tables and figures under `options`.
///
/// # Errors
/// Data set, model, measure and file errors.
pub fn reproduce_with(
    study: &mut Study<'_>,
    out: &mut Reproduction,
    options: &SchroederOptions,
) -> Result<(), RobustError> {
    out.set_study(study);
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

    // Table 1.
    let mut t1 = Table::new(&[
        "attribute",
        "groups",
        "# defining sets",
        "CrowS-Pairs pairs kept",
        "excluded",
    ]);
    for s in &sets {
        let (kept, excluded) = select_pairs(&pairs, s, options.filter, options.split);
        t1.row(vec![
            Cell::Text(s.bias_type.to_string()),
            Cell::Text(s.groups.join(", ")),
            Cell::Int(s.tuples.len() as i64),
            Cell::Int(kept.len() as i64),
            Cell::Int(excluded.len() as i64),
        ]);
    }
    t1.note(
        "Defining sets: data/protected_groups.json of the authors' code (shipped in \
         crates/bias-embed/data/). Paper: race 15, religion 14, gender 25, age 8.",
    );
    out.table(
        "table-1",
        "Overview of protected groups used in the experiments",
        Status::Reproduced,
        &t1,
    )?;
    out.out_of_reach(
        "table-2",
        "Hyperparameters in the classification experiments",
        format!("the classification experiments are not run: {BIOS_JIGSAW}"),
    );

    // §4.3.4: per model and type, and the per-sample file.
    let mut t434 = Table::new(&[
        "model",
        "attribute",
        "pairs",
        "targets per group",
        "SAME",
        "WEAT",
        "gWEAT",
        "DirectBias",
        "CPS bias (%)",
    ]);
    let mut sample_rows = Vec::new();
    for (m, per_type) in results.iter().enumerate() {
        for (t, r) in per_type.iter().enumerate() {
            let Some(r) = r else {
                t434.row(vec![
                    Cell::Text(names[m].clone()),
                    Cell::Text(sets[t].bias_type.to_string()),
                    Cell::Missing,
                    Cell::Text("fewer than 2 kept pairs, or the model cannot mask or embed".into()),
                    Cell::Missing,
                    Cell::Missing,
                    Cell::Missing,
                    Cell::Missing,
                    Cell::Missing,
                ]);
                continue;
            };
            let opt = |v: Option<f64>| v.map_or(Cell::Missing, |x| Cell::num(x, 6));
            t434.row(vec![
                Cell::Text(names[m].clone()),
                Cell::Text(r.bias_type.clone()),
                Cell::Int(r.samples.len() as i64),
                Cell::Text(
                    r.per_group
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("/"),
                ),
                Cell::num(r.same, 6),
                opt(r.weat),
                opt(r.gweat),
                Cell::num(r.direct_bias, 6),
                Cell::num(r.cps_bias, 4),
            ]);
            for s in &r.samples {
                sample_rows.push(vec![
                    names[m].clone(),
                    r.bias_type.clone(),
                    s.pair_id.clone(),
                    r.groups[s.target_group].clone(),
                    s.text.clone(),
                    format!("{}", s.same),
                    s.weat.map_or(String::new(), |w| format!("{w}")),
                    format!("{}", s.direct_bias),
                    format!("{}", s.pll_difference),
                ]);
            }
        }
    }
    t434.note(
        "Per-sample scores and PLL differences: analysis-4.3.4-samples.csv. WEAT: effect size \
         with ddof as chosen (authors: 1); SAME: the paper's Eq. 16.",
    );
    out.table(
        "analysis-4.3.4",
        "MLM experiment: aggregated cosine scores and CPS bias per model and attribute",
        Status::Substitute(models_note.clone()),
        &t434,
    )?;
    write_csv(
        &out.dir().join("analysis-4.3.4-samples.csv"),
        &[
            "model",
            "attribute",
            "pair_id",
            "target_group",
            "target",
            "same",
            "weat",
            "direct_bias",
            "pll_difference",
        ],
        &sample_rows,
    )?;

    // Table 3: CrowS-Pairs columns.
    let mut t3 = Table::new(&[
        "cosine score",
        "BIOS gender",
        "Jigsaw race",
        "Jigsaw religion",
        "Jigsaw gender",
        "CrowS-Pairs race",
        "CrowS-Pairs religion",
        "CrowS-Pairs gender",
        "CrowS-Pairs age",
    ]);
    let mut selections = Vec::new();
    for t in 0..sets.len() {
        let have: Vec<usize> = (0..results.len())
            .filter(|&m| results[m][t].is_some())
            .collect();
        let down: Vec<f64> = have
            .iter()
            .map(|&m| results[m][t].as_ref().map_or(f64::NAN, |r| r.cps_bias))
            .collect();
        let sel: Vec<usize> = sd_selection(&down, options.sd_threshold);
        selections.push((have, down, sel));
    }
    for score in SCORES {
        let mut row = vec![Cell::Text(score.into())];
        row.extend((0..4).map(|_| Cell::Text("out of reach".into())));
        for (t, (have, down, sel)) in selections.iter().enumerate() {
            let cos: Vec<Option<f64>> = have
                .iter()
                .map(|&m| results[m][t].as_ref().and_then(|r| score_of(r, score)))
                .collect();
            row.push(match pairwise_accuracy(sel, down, &cos) {
                Some((acc, n)) => Cell::Text(format!("{acc:.2} ({n} pairs)")),
                None => Cell::Missing,
            });
        }
        t3.row(row);
    }
    for (t, (have, _, sel)) in selections.iter().enumerate() {
        let picked: Vec<String> = sel.iter().map(|&k| names[have[k]].clone()).collect();
        t3.note(format!(
            "{}: models deviating by more than {} SD in CPS bias: {}",
            sets[t].bias_type,
            options.sd_threshold,
            if picked.is_empty() {
                "none (no pair to compare)".to_owned()
            } else {
                picked.join(", ")
            }
        ));
    }
    t3.note(
        "Paper (26 models), CrowS-Pairs race/religion/gender/age: SAME .19/.83/.17/.75, \
         WEAT –/–/1.0/0.0, gWEAT .47/.67/–/–, DirectBias .56/.83/0.0/0.5.",
    );
    out.table(
        "table-3",
        "Accuracy of cosine scores predicting which of two models is more biased",
        Status::Substitute(format!(
            "CrowS-Pairs columns only, {models_note}; BIOS and Jigsaw columns out of reach: \
             {BIOS_JIGSAW}"
        )),
        &t3,
    )?;

    // Figure 1 (right) and Figure 2, one panel per attribute.
    let mut f1_panels = Vec::new();
    let mut f1_rows = Vec::new();
    let mut f2_panels = Vec::new();
    let mut f2_rows = Vec::new();
    for (t, s) in sets.iter().enumerate() {
        let mut series = Vec::new();
        for (k, score) in ["SAME", "WEAT", "DirectBias"].into_iter().enumerate() {
            let mut pts = Vec::new();
            for (m, per_type) in results.iter().enumerate() {
                let Some(r) = &per_type[t] else { continue };
                let xs: Option<Vec<f64>> = r.samples.iter().map(|x| sample_of(x, score)).collect();
                let Some(xs) = xs else { continue };
                let ys: Vec<f64> = r.samples.iter().map(|x| x.pll_difference).collect();
                if let Ok(c) = bias_metrics::stats::pearson(&xs, &ys) {
                    pts.push((k as f64 + 0.1 * m as f64, c.statistic));
                    f1_rows.push(vec![
                        s.bias_type.to_string(),
                        names[m].clone(),
                        score.to_owned(),
                        xs.len().to_string(),
                        format!("{}", c.statistic),
                        format!("{}", c.p_value),
                    ]);
                }
            }
            if !pts.is_empty() {
                series.push(PointSeries {
                    name: score.into(),
                    points: pts,
                    colour: Some(score_colour(score)),
                });
            }
        }
        if !series.is_empty() {
            f1_panels.push(PointPanel {
                title: s.bias_type.to_string(),
                x_label: "score (0 SAME, 1 WEAT, 2 DirectBias), models side by side".into(),
                y_label: "Pearson r with the PLL difference".into(),
                series,
                lines: false,
            });
        }
        let mut series = Vec::new();
        for score in SCORES {
            let mut pts = Vec::new();
            for per_type in &results {
                if let Some(r) = &per_type[t] {
                    if let Some(v) = score_of(r, score) {
                        pts.push((v, r.cps_bias));
                    }
                }
            }
            if pts.is_empty() {
                continue;
            }
            let (xs, ys): (Vec<f64>, Vec<f64>) = pts.iter().copied().unzip();
            let r = bias_metrics::stats::pearson(&xs, &ys).ok();
            f2_rows.push(vec![
                s.bias_type.to_string(),
                score.to_owned(),
                pts.len().to_string(),
                r.as_ref()
                    .map_or(String::new(), |c| format!("{}", c.statistic)),
                r.as_ref()
                    .map_or(String::new(), |c| format!("{}", c.p_value)),
            ]);
            let name = match r {
                Some(c) => format!("{score} (r = {:.2}, p = {:.2})", c.statistic, c.p_value),
                None => format!("{score} (r needs 3 models)"),
            };
            series.push(PointSeries {
                name,
                points: pts,
                colour: Some(score_colour(score)),
            });
        }
        if !series.is_empty() {
            f2_panels.push(PointPanel {
                title: s.bias_type.to_string(),
                x_label: "aggregated cosine score".into(),
                y_label: "CPS bias (% stereotypical more likely)".into(),
                series,
                lines: false,
            });
        }
    }
    let f1_title = "Pearson r of sample-wise cosine scores with the PLL difference per model \
                    (right half; data: figure-1.csv)";
    if f1_panels.is_empty() {
        out.out_of_reach(
            "figure-1",
            f1_title,
            "no model gives a Pearson r (at least 3 kept pairs with varying scores are needed)",
        );
    } else {
        point_panels(&f1_panels, out.figure_stem("figure-1"))?;
        write_csv(
            &out.dir().join("figure-1.csv"),
            &["attribute", "model", "score", "pairs", "r", "p"],
            &f1_rows,
        )?;
        out.figure(
            "figure-1",
            f1_title,
            Status::Substitute(format!(
                "right half on every attribute (the paper shows religion), {models_note}; left \
                 half (class-wise TPR gap on BIOS) out of reach: {BIOS_JIGSAW}"
            )),
        );
    }
    let f2_title = "Aggregated cosine scores against the CPS bias over models (data: figure-2.csv)";
    if f2_panels.is_empty() {
        out.out_of_reach("figure-2", f2_title, "no model has a kept pair to score");
    } else {
        point_panels(&f2_panels, out.figure_stem("figure-2"))?;
        write_csv(
            &out.dir().join("figure-2.csv"),
            &["attribute", "score", "models", "r", "p"],
            &f2_rows,
        )?;
        out.figure(
            "figure-2",
            f2_title,
            Status::Substitute(format!(
                "every attribute (the paper shows religion, SAME and DirectBias), {models_note}; \
                 r needs at least 3 models"
            )),
        );
    }

    figure3(study, &pairs, &sets, options, out, &models_note)?;
    out.out_of_reach(
        "analysis-5.3",
        "Bias scores on job titles against 50 % of the bios",
        format!("needs the BIOS bios and job titles: {BIOS_JIGSAW}"),
    );
    Ok(())
}

/// Figure 3 on substitute data: the test–retest study (§4.1.3) of SAME, WEAT and DirectBias on
/// the neutral CrowS-Pairs gender targets of the first model that embeds them.
fn figure3(
    study: &mut Study<'_>,
    pairs: &[SentencePair],
    sets: &[DefiningSets],
    options: &SchroederOptions,
    out: &mut Reproduction,
    models_note: &str,
) -> Result<(), RobustError> {
    let title = "Deviation of bias scores on random subsets of the targets (data: figure-3.csv)";
    let Some(gender) = sets
        .iter()
        .find(|s| s.groups.len() == 2 && s.tuples.len() == 25)
    else {
        out.out_of_reach("figure-3", title, "the defining sets have no gender type");
        return Ok(());
    };
    let (kept, _) = select_pairs(pairs, gender, options.filter, options.split);
    for i in 0..study.len() {
        let model = study.model_mut(i);
        let mut texts = Vec::new();
        for k in &kept {
            match neutral_target(model, &pairs[k.index], options.masking)? {
                Some(t) => texts.push(t),
                None => break,
            }
        }
        if texts.len() != kept.len() || texts.len() < 4 {
            continue;
        }
        let Some(targets) = embed_f64(model, &texts)? else {
            continue;
        };
        let mut groups = Vec::new();
        for g in 0..2 {
            let terms: Vec<String> = gender
                .group_terms(g)
                .into_iter()
                .map(str::to_owned)
                .collect();
            if let Some(m) = embed_f64(model, &terms)? {
                groups.push(m);
            }
        }
        if groups.len() != 2 {
            continue;
        }
        let name = model.name().to_owned();
        let config = RetestOptions {
            repeats: options.retest_repeats,
            seed: options.seed,
            skip_failures: true,
            ..RetestOptions::default()
        };
        let same = retest_same_binary(targets.view(), groups[0].view(), groups[1].view(), &config)?;
        // WEAT: every target its own class, its group the target group (X = group 0).
        let class: Vec<usize> = (0..kept.len()).collect();
        let group: Vec<usize> = kept.iter().map(|k| k.target_group).collect();
        let labels = TargetLabels::new(&class, &group)?;
        let weat_report = retest_weat(
            targets.view(),
            &labels,
            groups[0].view(),
            groups[1].view(),
            options.ddof,
            WeatSplit::PerSubset,
            &config,
        )
        .ok();
        let tuples: Vec<Array2<f64>> = (0..gender.tuples.len())
            .map(|t| {
                ndarray::stack(Axis(0), &[groups[0].row(t), groups[1].row(t)])
                    .expect("two rows of one dimension")
            })
            .collect();
        let tv: Vec<_> = tuples.iter().map(|m| m.view()).collect();
        let subspace = bias_subspace(&tv, 1)?;
        let db = retest_direct_bias(targets.view(), &subspace, options.c, &config)?;
        let mut rows = Vec::new();
        let mut all = Vec::new();
        for (label, report) in [
            ("SAME", Some(&same)),
            ("WEAT", weat_report.as_ref()),
            ("DirectBias", Some(&db)),
        ] {
            let Some(report) = report else { continue };
            let pts: Vec<(f64, f64)> = report
                .shares
                .iter()
                .map(|s| (100.0 * s.share, s.mean_abs_deviation))
                .collect();
            for s in &report.shares {
                rows.push(vec![
                    label.to_owned(),
                    format!("{}", s.share),
                    s.subset_size.to_string(),
                    s.evaluated.to_string(),
                    s.failed.to_string(),
                    format!("{}", s.mean_abs_deviation),
                    format!("{}", s.sd),
                ]);
            }
            all.push(PointSeries {
                name: label.into(),
                points: pts,
                colour: Some(score_colour(label)),
            });
        }
        let without: Vec<PointSeries> = all.iter().filter(|s| s.name != "WEAT").cloned().collect();
        let panel = |title: &str, series: Vec<PointSeries>| PointPanel {
            title: title.into(),
            x_label: "% of the targets".into(),
            y_label: "mean absolute deviation (normalised)".into(),
            series,
            lines: true,
        };
        point_panels(
            &[panel("all scores", all), panel("without WEAT", without)],
            out.figure_stem("figure-3"),
        )?;
        write_csv(
            &out.dir().join("figure-3.csv"),
            &[
                "score",
                "share",
                "subset size",
                "evaluated",
                "failed",
                "mean abs deviation",
                "sd",
            ],
            &rows,
        )?;
        out.figure(
            "figure-3",
            title,
            Status::Substitute(format!(
                "the {} neutral CrowS-Pairs gender targets of {name} instead of the 10,602 BIOS \
                 bios ({BIOS_JIGSAW}); WEAT's X/Y are the targets' groups; {models_note}",
                kept.len()
            )),
        );
        return Ok(());
    }
    out.out_of_reach(
        "figure-3",
        title,
        "no model embeds at least 4 kept CrowS-Pairs gender targets (BIOS itself is out of \
         reach)",
    );
    Ok(())
}

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
    /// xorshift), and which cannot mask tokens.
    struct HashModel;

    impl StudyModel for HashModel {
        fn name(&self) -> &str {
            "hash"
        }
        fn score_into(
            &mut self,
            _: &str,
            _: &[SentencePair],
            _: &Path,
        ) -> Result<bias_core::run::RunSummary, bias_core::BoxError> {
            Err("not a scorer".into())
        }
        fn embed(
            &mut self,
            texts: &[&str],
        ) -> Result<Option<ndarray::Array2<f32>>, bias_core::BoxError> {
            let dim = 6;
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
            Ok(Some(out))
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
        assert!(run(&pairs, 2, &SchroederOptions::default()).is_none());
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
        // SAME of the authors' code: equal with two groups, different with five (religion).
        let code = SchroederOptions {
            same: SameVariant::AuthorsCode,
            ..span.clone()
        };
        assert_abs_diff_eq!(run(&pairs, 2, &code).unwrap().same, g.same, epsilon = 1e-12);
        let (rp, rc) = (
            run(&pairs, 1, &span).unwrap().same,
            run(&pairs, 1, &code).unwrap().same,
        );
        assert!((rp - rc).abs() > 1e-6, "{rp} {rc}");
        // Binary SAME's sample bias is signed and the aggregate is the mean of its absolute
        // values (Eq. 12 and the mean after it).
        let mean_abs = g.samples.iter().map(|s| s.same.abs()).sum::<f64>() / 100.0;
        assert_abs_diff_eq!(g.same, mean_abs, epsilon = 1e-12);
        assert!(g.samples.iter().any(|s| s.same < 0.0));
    }
}
