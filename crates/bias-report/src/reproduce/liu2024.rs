//! The tables and figures of Liu et al. (2024), "Robust evaluation measures for evaluating social
//! biases in masked language models" (AAAI), across the models of a [`Study`].
//!
//! | id | what | how |
//! |---|---|---|
//! | `figure-1` | the indicator pipeline (schematic) | out of reach: a drawing, no data |
//! | `table-1` | Shapiro–Wilk of the AUL scores per model × data set | [`bias_metrics::normality_by_type`] |
//! | `figure-2-<model>` | kernel density and fitted Gaussian of the AUL scores on CrowS-Pairs | [`crate::figures::score_densities`] |
//! | `figure-3` | a toy example from distributions to KLS and JSS (schematic) | out of reach: a drawing |
//! | `table-2` | SSS (StereoSet) / CPS (CrowS-Pairs) beside AUL, KLS, JSS; the models ranked per measure | Eq. 2 on each scorer; KLS and JSS (Eqs. 6, 9–11) on AUL |
//! | `table-3` | KLS / JSS per bias type and model | as `table-2`, per type |
//! | `figure-4` | Pearson r and mutual information between the measures over the models | [`bias_robust::correlate_measures`], the MI with [`Liu2024Options::mi_neighbors`] neighbours (1, the paper's); drawn as `figure-4-stereoset`, `figure-4-crows-pairs` |
//! | `table-4` | the score-group imbalance `|Δst| − |Δat|` on CrowS-Pairs (AUL) | [`bias_metrics::score_group_analysis`] |
//! | `figure-5` | the sub-sampling study on CrowS-Pairs: order of the models per measure and rate, order changes marked, of the mean over the draws and of single draws | [`bias_robust::subsample_study`]; drawn as `figure-5-cps`, `-aul`, `-kls`, `-jss` |
//! | `analysis-pll-score-analysis` | the "PLL Score Analysis" example (Eq. 2 at 50, `|Δst| = 0.7`, `|Δat| = 0.1`) | the paper's inputs |
//! | `table-5` | `|Δst| − |Δat|` per sampling rate and its shift `Δsp`, of the mean over the draws and per draw | [`bias_robust::subsample_study`] |
//!
//! KLS and JSS are fitted to AUL scores (Liu et al. 2024, "Proposed Evaluation Measure": "Our
//! work adopts AUL as the PLL score"); JSS is the authors' code ([`JssVariant::AuthorsCode`],
//! the default; it produced the paper's numbers). A model without AUL scores (a causal LM) is
//! left out of every table, and the tables say so.
//!
//! Where the paper prints numbers (Tables 1–5, Figure 4's text, Figure 5's red circles), the
//! tables show them beside the computed ones, in rows with source "paper" or columns named
//! "paper …" ([`super::liu2024_published`]).

use bias_core::Scorer;
use std::collections::BTreeMap;

use bias_core::{BiasMeasure, DatasetScorer, Measurement, ScoreTable};
use bias_metrics::{
    normality_by_type, score_group_analysis, DistributionOptions, Indicator, Jss, JssVariant, Kls,
    Side, SmallTypePolicy,
};

use super::liu2024_published as published;
use super::{Cell, DataSet, Reproduction, Status, Study, Table};
use crate::figures;
use crate::report::file_part;
use bias_robust::{
    correlate_measures, correlate_pearson, CorrelateOptions, RobustError, RobustnessOptions,
    RobustnessReport, SyncMeasure,
};

/// Options of the liu2024 reproduction ([`reproduce_liu2024`]); [`Default`] is the paper's
/// and the authors' computation.
#[derive(Debug, Clone, PartialEq)]
pub struct Liu2024Options {
    /// Which JSS (Liu et al. 2024 Eq. 9): the authors' code (default, it produced the paper's
    /// numbers) or the paper's text ([`JssVariant::PaperText`]).
    pub jss: JssVariant,
    /// The sub-sampling study of Figure 5 and Table 5 (rates 0.3 … 0.8 as the paper; the paper
    /// averages "multiple sampling experiments" without saying how many, while the authors'
    /// script draws once per rate: 100 seeded repeats by default, each table showing the
    /// average over the draws beside the single draws).
    pub robustness: RobustnessOptions,
    /// Neighbours `k` of the Kraskov–Stögbauer–Grassberger estimator for Figure 4's mutual
    /// information (Liu et al. 2024, "Correlation Analysis"). Default 1
    /// ([`published::FIGURE_4_MI_NEIGHBORS`]): scikit-learn's
    /// `mutual_info_regression(x, y, n_neighbors=1)`, which scales each measure to unit variance
    /// as done here, gives the paper's 0.50 and 0.17 from its Table 2. The estimator needs more
    /// models than neighbours (`k + 1`, [`min_models_mi`]): 3 models suffice for k = 1 or 2;
    /// scikit-learn's default k = 3 needs 4.
    pub mi_neighbors: usize,
}

impl Default for Liu2024Options {
    fn default() -> Self {
        Liu2024Options {
            jss: JssVariant::AuthorsCode,
            robustness: RobustnessOptions::default(),
            mi_neighbors: published::FIGURE_4_MI_NEIGHBORS,
        }
    }
}

/// The scorer KLS and JSS are fitted to, and the second indicator column of Table 2.
const AUL: &str = Scorer::Aul.name();

/// One data set of the paper's Tables 2–3 and Figure 4.
struct SetSpec {
    set: DataSet,
    /// `SS` / `CP`, as the paper abbreviates them.
    short: &'static str,
    /// The scorer of the data set's own measure: `sss` on StereoSet, `cps` on CrowS-Pairs.
    prior: &'static str,
    /// Its label: `SSS` / `CPS`.
    prior_label: &'static str,
}

const SETS: [SetSpec; 2] = [
    SetSpec {
        set: DataSet::StereoSet,
        short: "SS",
        prior: Scorer::Sss.name(),
        prior_label: "SSS",
    },
    SetSpec {
        set: DataSet::CrowsPairs,
        short: "CP",
        prior: Scorer::Cps.name(),
        prior_label: "CPS",
    },
];

/// A model's measures on one data set: Eq. 2 on the prior scorer and on AUL, KLS and JSS on AUL.
struct SetMeasures {
    prior: Measurement,
    aul: Measurement,
    kls: Measurement,
    jss: Measurement,
    /// The AUL slice (for Table 1, Table 4, Figure 2).
    aul_table: ScoreTable,
}

impl SetMeasures {
    /// The four values of Table 2, in its column order.
    fn values(&self) -> [&Measurement; 4] {
        [&self.prior, &self.aul, &self.kls, &self.jss]
    }
}

fn measure_err(
    model: &str,
    set: DataSet,
    e: impl std::error::Error + Send + Sync + 'static,
) -> RobustError {
    RobustError::Measure {
        what: format!("liu2024: model {model} on {}", set.name()),
        source: Box::new(e),
    }
}

/// Distribution options of this reproduction: the paper's weighted form (Eqs. 10–11); a bias
/// type with a single pair (only with `--max-pairs`: every type of CrowS-Pairs and StereoSet has
/// many) is left out and counted in the table notes instead of failing the run.
fn distribution_options() -> DistributionOptions {
    DistributionOptions {
        small_types: SmallTypePolicy::Skip,
        ..DistributionOptions::default()
    }
}

/// Pairs in bias types with fewer than 2 pairs (left out of KLS and JSS).
fn single_pair_types(table: &ScoreTable) -> usize {
    table
        .by_bias_type()
        .values()
        .filter(|rows| rows.len() < 2)
        .map(Vec::len)
        .sum()
}

/// Pairs of an SSS slice with more than one modified token on either side (the scorer records
/// the modified tokens it scored): where the diagonal and the k×k matrix form of SSS differ.
fn multi_token_pairs(sss: &ScoreTable) -> usize {
    sss.rows()
        .iter()
        .filter(|r| r.tokens_stereo.unwrap_or(1) > 1 || r.tokens_anti.unwrap_or(1) > 1)
        .count()
}

/// Competition ranks (1 = most biased) of `deviations`: equal deviations share a rank.
fn ranks(deviations: &[f64]) -> Vec<usize> {
    deviations
        .iter()
        .map(|d| 1 + deviations.iter().filter(|o| **o > *d).count())
        .collect()
}

/// Writes Liu et al. (2024)'s tables and figures with the paper's options.
pub(super) fn reproduce<M: DatasetScorer>(
    study: &mut Study<M>,
    out: &mut Reproduction,
) -> Result<(), RobustError> {
    reproduce_liu2024(study, out, &Liu2024Options::default())
}

/// Writes every table and figure of Liu et al. (2024) into `out`, over the models of `study`
/// (see the module documentation for what each is and how it is computed), with `options`.
///
/// # Errors
/// [`RobustError::Data`] / [`RobustError::Model`] when a data set or a model fails;
/// [`RobustError::Measure`] when a measure fails on a model's scores (naming model and data set);
/// [`RobustError::Io`] / [`RobustError::Draw`] when a file cannot be written. Figure 4 with too
/// few models, or measures constant across the models, is listed as out of reach, not an error.
pub fn reproduce_liu2024<M: DatasetScorer>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: &Liu2024Options,
) -> Result<(), RobustError> {
    if options.mi_neighbors == 0 {
        return Err(RobustError::InvalidConfig(
            "liu2024: mi_neighbors (--liu2024-mi-neighbors) is 0; the nearest-neighbour mutual \
             information of Figure 4 needs at least 1 neighbour (the paper's numbers come from 1)"
                .to_owned(),
        ));
    }
    let names = study.model_names();
    out.set_study(study);
    let dist = distribution_options();
    let indicator = Indicator::default();
    let kls = Kls::new(dist);
    let jss = Jss::new(options.jss, dist);

    let m = measure_models(study, &names, &indicator, &kls, &jss)?;
    let models = &m.models;
    out.out_of_reach(
        "figure-1",
        "Processes for evaluating social biases in MLMs",
        "a schematic drawing of the indicator pipeline (Eq. 2), not computed from data",
    );

    write_table_1(&m, out)?;
    // Figure 2: densities of the AUL scores on CrowS-Pairs, one figure per model.
    for (model, ms) in models.iter().zip(&m.measures) {
        let id = format!("figure-2-{}", file_part(model));
        figures::score_densities(
            &ms[1].aul_table,
            &format!("{model}: AUL scores on CrowS-Pairs"),
            out.figure_stem(&id),
        )?;
        out.figure(
            &id,
            &format!("Kernel density and Gaussian of AUL scores on CrowS-Pairs ({model})"),
            Status::Reproduced,
        );
    }
    out.out_of_reach(
        "figure-3",
        "A simple example from the distribution of PLL scores to KLS and JSS",
        "a schematic drawing with unstated example numbers, not computed from data",
    );

    write_table_2(&m, study.conventions_note(), out)?;
    write_table_3(&m, out)?;
    // Figure 4: correlation between the measures over the models.
    figure_4(out, models, &m.measures, options.mi_neighbors)?;

    write_table_4(&m, out)?;
    pll_example(out, &indicator, &kls, &jss)?;

    write_figure_5(&m, options, &indicator, &kls, &jss, out)
}

/// The models with AUL, CPS and SSS scores and their measures per data set (Tables 2–3), with
/// the notes every table repeats.
struct Measured {
    /// The models measured, in order.
    models: Vec<String>,
    /// Per model: StereoSet, then CrowS-Pairs.
    measures: Vec<[SetMeasures; 2]>,
    /// Per model: its CrowS-Pairs score table (every scorer).
    cp_tables: Vec<ScoreTable>,
    /// Per data set: the most single-pair bias types a model's KLS/JSS left out.
    skipped_small: [usize; 2],
    /// Per model: its StereoSet pairs with several modified tokens.
    sss_multi: Vec<String>,
    /// Notes for every table: the models left out, the study's restriction.
    common: Vec<String>,
}

impl Measured {
    /// Adds the notes every table carries.
    fn note(&self, t: &mut Table) {
        for n in &self.common {
            t.note(n.clone());
        }
    }
}

/// Measures every model with AUL, CPS and SSS scores on both data sets; the others are left
/// out with a note. An error when none is left.
fn measure_models<M: DatasetScorer>(
    study: &mut Study<M>,
    names: &[String],
    indicator: &Indicator,
    kls: &Kls,
    jss: &Jss,
) -> Result<Measured, RobustError> {
    let mut models: Vec<String> = Vec::new();
    let mut excluded: Vec<String> = Vec::new();
    let mut measures: Vec<[SetMeasures; 2]> = Vec::new();
    let mut cp_tables: Vec<ScoreTable> = Vec::new();
    let mut skipped_small = [0usize; 2];
    let mut sss_multi: Vec<String> = Vec::new();
    'models: for (i, name) in names.iter().enumerate() {
        let mut per_set = Vec::new();
        for (k, spec) in SETS.iter().enumerate() {
            let table = study.scores(i, spec.set)?;
            let aul_table = table.for_scorer(AUL);
            let prior_table = table.for_scorer(spec.prior);
            if aul_table.is_empty() || prior_table.is_empty() {
                excluded.push(name.clone());
                continue 'models;
            }
            if spec.set == DataSet::CrowsPairs {
                cp_tables.push(table.clone());
            } else {
                sss_multi.push(format!(
                    "{name} {} of {}",
                    multi_token_pairs(&prior_table),
                    prior_table.len()
                ));
            }
            skipped_small[k] = skipped_small[k].max(single_pair_types(&aul_table));
            let m = |e| measure_err(name, spec.set, e);
            per_set.push(SetMeasures {
                prior: indicator.measure(&prior_table).map_err(m)?,
                aul: indicator.measure(&aul_table).map_err(m)?,
                kls: kls.measure(&aul_table).map_err(m)?,
                jss: jss.measure(&aul_table).map_err(m)?,
                aul_table,
            });
        }
        let [ss, cp]: [SetMeasures; 2] = per_set
            .try_into()
            .unwrap_or_else(|_| unreachable!("two data sets per model"));
        measures.push([ss, cp]);
        models.push(name.clone());
    }
    if models.is_empty() {
        return Err(RobustError::InvalidConfig(format!(
            "liu2024 compares masked LMs by their AUL, CPS and SSS scores; none of the models \
             ({}) has them: give masked LM folders to --models",
            names.join(", ")
        )));
    }
    let mut common = Vec::new();
    if !excluded.is_empty() {
        common.push(format!(
            "Left out (no AUL/SSS/CPS scores: not a masked LM): {}.",
            excluded.join(", ")
        ));
    }
    if let Some(n) = study_note(study) {
        common.push(n);
    }
    Ok(Measured {
        models,
        measures,
        cp_tables,
        skipped_small,
        sss_multi,
        common,
    })
}

/// Table 1: Shapiro–Wilk on the AUL scores per model and data set, beside the paper's rows.
fn write_table_1(m: &Measured, out: &mut Reproduction) -> Result<(), RobustError> {
    let (models, measures) = (&m.models, &m.measures);
    // Table 1: Shapiro–Wilk on the AUL scores per model × data set.
    let mut t1 = Table::new(&[
        "source", "data set", "model", "side", "n", "W", "p-value", "mark",
    ]);
    for spec in &SETS {
        for (model, m) in models.iter().zip(measures) {
            let sm = &m[set_index(spec.set)];
            for test in normality_by_type(&sm.aul_table)
                .into_iter()
                .filter(|t| t.bias_type.is_none())
            {
                let mark = match test.p_value {
                    Some(p) if p > 0.05 => "♭",
                    Some(p) if p > 0.01 => "‡",
                    Some(_) => "",
                    None => test.undefined.as_deref().unwrap_or("undefined"),
                };
                t1.row(vec![
                    THIS_RUN.into(),
                    spec.short.into(),
                    model.as_str().into(),
                    match test.side {
                        Side::Stereo => "stereotypical",
                        Side::Anti => "anti-stereotypical",
                    }
                    .into(),
                    test.n.into(),
                    test.w.map_or(Cell::Missing, |w| Cell::num(w, 3)),
                    test.p_value.map_or(Cell::Missing, |p| Cell::num(p, 3)),
                    mark.into(),
                ]);
            }
        }
        for c in published::TABLE_1
            .iter()
            .filter(|c| c.data_set == spec.short)
        {
            t1.row(vec![
                PAPER.into(),
                spec.short.into(),
                published::MODELS[c.model].name.into(),
                "stereotypical".into(),
                Cell::Missing,
                Cell::num(c.w, 3),
                Cell::num(c.p_value, 3),
                c.mark.into(),
            ]);
        }
    }
    t1.note(paper_rows_note());
    t1.note(
        "Shapiro–Wilk (1965) on the AUL scores of all pairs (the paper's PLL score), each side \
         separately (the paper prints the stereotypical side: \"similar for anti-stereotypes\"). \
         ♭: p > 0.05; ‡: 0.01 < p ≤ 0.05 (normality not rejected at that level).",
    );
    m.note(&mut t1);
    out.table(
        "table-1",
        "Shapiro–Wilk test on PLL (AUL) scores per model and data set",
        Status::Reproduced,
        &t1,
    )?;

    Ok(())
}

/// Table 2: SSS / CPS, AUL, KLS and JSS per model and data set, with the models' ranks.
fn write_table_2(
    m: &Measured,
    conventions: Option<String>,
    out: &mut Reproduction,
) -> Result<(), RobustError> {
    let (models, measures) = (&m.models, &m.measures);
    // Table 2: the measures per model, and the models ranked per measure.
    let mut t2 = Table::new(&[
        "source",
        "data set",
        "model",
        "n",
        "SSS / CPS",
        "AUL",
        "KLS",
        "JSS",
        "rank SSS / CPS",
        "rank AUL",
        "rank KLS",
        "rank JSS",
    ]);
    for spec in &SETS {
        let k = set_index(spec.set);
        let rank_cols: Vec<Vec<usize>> = (0..4)
            .map(|c| {
                ranks(
                    &measures
                        .iter()
                        .map(|m| m[k].values()[c].deviation())
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        for (j, (model, m)) in models.iter().zip(measures).enumerate() {
            let mut row: Vec<Cell> = vec![
                THIS_RUN.into(),
                format!("{} ({})", spec.short, spec.prior_label).into(),
                model.as_str().into(),
                m[k].aul.n.into(),
            ];
            row.extend(m[k].values().iter().map(|v| Cell::num(v.value, 2)));
            row.extend(rank_cols.iter().map(|r| Cell::from(r[j])));
            t2.row(row);
        }
        for p in published::TABLE_2
            .iter()
            .filter(|p| p.data_set == spec.short)
        {
            let mut row: Vec<Cell> = vec![
                PAPER.into(),
                format!("{} ({})", spec.short, spec.prior_label).into(),
                published::MODELS[p.model].name.into(),
                Cell::Missing,
            ];
            row.extend([p.prior, p.aul, p.kls, p.jss].map(|v| Cell::num(v, 2)));
            row.extend((0..4).map(|_| Cell::Missing));
            t2.row(row);
        }
    }
    t2.note(paper_rows_note());
    t2.note(
        "SSS (on StereoSet) and CPS (on CrowS-Pairs) and AUL are Eq. 2, the percentage of pairs \
         whose stereotypical sentence scores higher (no bias: 50); KLS (Eq. 6, no bias: 50) and \
         JSS (Eq. 9, no bias: 100, the authors' code unless --liu2024-jss paper) are fitted to the AUL \
         scores and weighted by bias type (Eqs. 10–11). Ranks: 1 = most biased by |value − no \
         bias| (the paper's underline), the last rank = least biased (its bold); ties share a \
         rank.",
    );
    t2.note(
        "SSS: the paper's numbers came from the authors' evaluation.py (a29a457), which averages \
         the whole k×k matrix of modified positions × modified tokens (`--sss matrix`, the \
         default of `bias reproduce liu2024`), not Eq. 12's diagonal (each modified position's \
         own token: `--sss diagonal`); the two agree on every pair whose modified span is a \
         single token and differ on the others. CPS is unrounded, as in evaluation.py.",
    );
    if let Some(n) = conventions {
        t2.note(n);
    }
    t2.note(format!(
        "StereoSet pairs with more than one modified token on a side (where the two SSS forms \
         differ), per model: {}.",
        m.sss_multi.join(", ")
    ));
    if m.skipped_small.iter().any(|&n| n > 0) {
        t2.note(format!(
            "KLS/JSS leave out bias types with a single pair (SS: {} pairs, CP: {} pairs at most \
             per model; only with --max-pairs).",
            m.skipped_small[0], m.skipped_small[1]
        ));
    }
    m.note(&mut t2);
    out.table(
        "table-2",
        "SSS / CPS, AUL, KLS and JSS on StereoSet and CrowS-Pairs, the models ranked per measure",
        Status::Reproduced,
        &t2,
    )?;

    Ok(())
}

/// Table 3: KLS and JSS per bias type, beside the paper's.
fn write_table_3(m: &Measured, out: &mut Reproduction) -> Result<(), RobustError> {
    let (models, measures) = (&m.models, &m.measures);
    // Table 3: KLS / JSS per bias type.
    let mut cols: Vec<String> = vec!["data set".into(), "bias type".into(), "n".into()];
    for model in models {
        cols.push(format!("{model} KLS"));
        cols.push(format!("{model} JSS"));
    }
    cols.push("most biased (KLS)".into());
    cols.push("least biased (KLS)".into());
    for pm in &published::MODELS {
        cols.push(format!("paper {} KLS", pm.name));
        cols.push(format!("paper {} JSS", pm.name));
    }
    let mut t3 = Table::new(&cols);
    for spec in &SETS {
        let k = set_index(spec.set);
        // Every bias type any model has a KLS for, in `BiasType` order.
        let mut types: BTreeMap<bias_core::BiasType, usize> = BTreeMap::new();
        for m in measures {
            for (ty, v) in &m[k].kls.by_type {
                types.entry(ty.clone()).or_insert(v.n);
            }
        }
        for (ty, n) in &types {
            let mut row: Vec<Cell> = vec![spec.short.into(), ty.to_string().into(), (*n).into()];
            let mut devs = Vec::new();
            for m in measures {
                let kv = m[k].kls.by_type.get(ty).map(|v| v.value);
                let jv = m[k].jss.by_type.get(ty).map(|v| v.value);
                row.push(kv.map_or(Cell::Missing, |v| Cell::num(v, 2)));
                row.push(jv.map_or(Cell::Missing, |v| Cell::num(v, 2)));
                devs.push(kv.map_or(f64::NAN, |v| (v - 50.0).abs()));
            }
            let best = |most: bool| -> String {
                let finite: Vec<(usize, f64)> = devs
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|(_, d)| d.is_finite())
                    .collect();
                let target = finite.iter().map(|&(_, d)| d).fold(
                    if most { f64::MIN } else { f64::MAX },
                    |a, d| {
                        if most {
                            a.max(d)
                        } else {
                            a.min(d)
                        }
                    },
                );
                finite
                    .iter()
                    .filter(|&&(_, d)| d == target)
                    .map(|&(j, _)| models[j].clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            row.push(best(true).into());
            row.push(best(false).into());
            let paper = published::TABLE_3
                .iter()
                .find(|p| p.data_set == spec.short && p.bias_type == ty.as_str());
            for j in 0..published::MODELS.len() {
                match paper {
                    Some(p) => row.extend([Cell::num(p.kls[j], 2), Cell::num(p.jss[j], 2)]),
                    None => row.extend([Cell::Missing, Cell::Missing]),
                }
            }
            t3.row(row);
        }
    }
    t3.note(
        "KLS / JSS (Eqs. 6 and 9) within each bias type on the AUL scores. \"most biased\": the \
         model whose KLS is farthest from 50 (the paper's underline); \"least biased\": closest \
         (its bold).",
    );
    t3.note(
        "\"paper <model> KLS / JSS\": Liu et al. (2024) Table 3 for its models BERT \
         (bert-base-cased), RoBERTa (roberta-large), ALBERT (albert-large-v2) on the same bias \
         type (its CrowS-Pairs \"race\" is race-color), to the paper's 2 decimals.",
    );
    m.note(&mut t3);
    out.table(
        "table-3",
        "KLS / JSS per bias type on StereoSet and CrowS-Pairs",
        Status::Reproduced,
        &t3,
    )?;

    Ok(())
}

/// Table 4: the stereotype and anti-stereotype sample groups on CrowS-Pairs (AUL).
fn write_table_4(m: &Measured, out: &mut Reproduction) -> Result<(), RobustError> {
    let (models, measures) = (&m.models, &m.measures);
    // Table 4: score groups on CrowS-Pairs (AUL).
    let mut t4 = Table::new(&[
        "source",
        "model",
        "st group n",
        "st group avg stere-score",
        "st group avg anti-score",
        "|Δst|",
        "at group n",
        "at group avg stere-score",
        "at group avg anti-score",
        "|Δat|",
        "|Δst| − |Δat|",
    ]);
    for (model, m) in models.iter().zip(measures) {
        let g = score_group_analysis(&m[1].aul_table)
            .map_err(|e| measure_err(model, DataSet::CrowsPairs, e))?;
        let mut row: Vec<Cell> = vec![THIS_RUN.into(), model.as_str().into()];
        for s in [g.stereotype_group, g.anti_stereotype_group] {
            match s {
                Some(s) => row.extend([
                    s.n.into(),
                    Cell::num(s.mean_stereo, 4),
                    Cell::num(s.mean_anti, 4),
                    Cell::num(s.abs_delta, 4),
                ]),
                None => row.extend([0usize.into(), Cell::Missing, Cell::Missing, Cell::Missing]),
            }
        }
        row.push(Cell::num(g.delta_difference, 4));
        t4.row(row);
    }
    for p in &published::TABLE_4 {
        t4.row(vec![
            PAPER.into(),
            published::MODELS[p.model].name.into(),
            Cell::Missing,
            Cell::num(p.st_mean_stereo, 4),
            Cell::num(p.st_mean_anti, 4),
            Cell::num(p.st_abs_delta, 4),
            Cell::Missing,
            Cell::num(p.at_mean_stereo, 4),
            Cell::num(p.at_mean_anti, 4),
            Cell::num(p.at_abs_delta, 4),
            Cell::num(p.delta_difference, 4),
        ]);
    }
    t4.note(paper_rows_note());
    t4.note(
        "AUL scores on CrowS-Pairs. Stereotype sample group: pairs with f(S_st) > f(S_at) (Eq. \
         2); anti-stereotype sample group: the others. |Δ| is the absolute difference of the \
         group's mean stereotypical and mean anti-stereotypical score.",
    );
    m.note(&mut t4);
    out.table(
        "table-4",
        "Stereotype vs anti-stereotype sample groups on CrowS-Pairs (AUL)",
        Status::Reproduced,
        &t4,
    )?;

    Ok(())
}

/// Figure 5 and Table 5: the sub-sampling study on CrowS-Pairs.
fn write_figure_5(
    m: &Measured,
    options: &Liu2024Options,
    indicator: &Indicator,
    kls: &Kls,
    jss: &Jss,
    out: &mut Reproduction,
) -> Result<(), RobustError> {
    let (models, measures) = (&m.models, &m.measures);
    // Figure 5 and Table 5: the sub-sampling study on CrowS-Pairs.
    let cps_tables: Vec<(String, ScoreTable)> = models
        .iter()
        .zip(&m.cp_tables)
        .map(|(m, t)| (m.clone(), t.for_scorer(Scorer::Cps.name())))
        .collect();
    let aul_tables: Vec<(String, ScoreTable)> = models
        .iter()
        .zip(measures)
        .map(|(m, s)| (m.clone(), s[1].aul_table.clone()))
        .collect();
    let cps_study = bias_robust::subsample_study(&cps_tables, &[indicator], &options.robustness)?;
    let aul_measures: [SyncMeasure<'_>; 3] = [indicator, kls, jss];
    let aul_study = bias_robust::subsample_study(&aul_tables, &aul_measures, &options.robustness)?;
    let panels: [(&str, &RobustnessReport, &str); 4] = [
        ("CPS", &cps_study, "indicator"),
        ("AUL", &aul_study, "indicator"),
        ("KLS", &aul_study, "kls"),
        ("JSS", &aul_study, jss.name()),
    ];
    let mut f5 = figure_5_table();
    for (label, report, measure) in panels {
        figure_5_rows(&mut f5, label, report, measure);
        let id = format!("figure-5-{}", label.to_lowercase());
        // The figure is titled with the paper's name of the measure (CPS, AUL, KLS, JSS).
        figures::robustness_curves(
            &relabelled(report, measure, label),
            label,
            out.figure_stem(&id),
        )?;
        out.figure(
            &id,
            &format!(
                "{label} on CrowS-Pairs sub-samples, per model and rate (order changes ringed red)"
            ),
            Status::Reproduced,
        );
    }
    let repeats = options.robustness.repeats;
    f5.note(format!(
        "CrowS-Pairs sub-sampled at each rate, stratified by bias type, {repeats} seeded draws per \
         rate (seed {}). Models ordered most biased first by |value − no bias| (`=`: equally \
         far, a tie); an order \"changed\" where it differs from the full-data order, a tie \
         broken or made included (the paper's red circles). Two views of the same {repeats} \
         draws: averaged (\"draws averaged\": the order of the mean over the draws, as the paper's \
         text describes, \"the average of the results of multiple sampling experiments\") and \
         single draws (\"single draws\": how many of the draws, each on its own, change the order; \
         the authors' sampling script draws once per rate, so a figure from it shows one such \
         draw). The averaged view depends on the number of draws. CPS and AUL are Eq. 2 on their \
         scorers; KLS and JSS on AUL.",
        options.robustness.seed
    ));
    f5.note(
        "\"paper: order changed\": Liu et al. (2024) Figure 5's red circles as its Robustness \
         Study lists them (CPS at 30 % and 60 %, AUL at every rate but 80 %, KLS and JSS never), \
         for its models BERT, RoBERTa and ALBERT.",
    );
    if models.len() < 2 {
        f5.note("With a single model every order is kept: give two or more models.");
    }
    m.note(&mut f5);
    out.table(
        "figure-5",
        "Order of the models per measure and sampling rate on CrowS-Pairs (the data of figures 5-*)",
        Status::Reproduced,
        &f5,
    )?;

    let mut t5 = table_5(models, &aul_study);
    t5.note(format!(
        "|Δst| − |Δat| (Table 4) on CrowS-Pairs sub-samples (AUL). Rows \"this run\", per model \
         and rate, two views of {repeats} seeded draws: averaged (\"|Δst| − |Δat|\" is the mean \
         over the draws, \"Δsp\" = that mean − \"full\", signed, and \"|Δsp|\" its size) and single \
         draws (\"mean |Δsp| of single draws\": each draw's own |Δsp|, averaged; how far one draw \
         moves, the scale of the paper's 0.01 thresholds). Averaging cancels shifts of opposite \
         signs, so the averaged |Δsp| shrinks as draws are added while the per-draw one does not."
    ));
    t5.note(
        "Rows \"paper\": Liu et al. (2024) Table 5 for its models (\"full\" is its Table 4); the \
         paper prints |Δsp| with ↑ for a positive and ↓ for a negative Δsp, kept here as the \
         sign of \"Δsp\". Its number of draws is unstated (the authors' script draws once per \
         rate).",
    );
    m.note(&mut t5);
    out.table(
        "table-5",
        "|Δst| − |Δat| per sampling rate on CrowS-Pairs and its shift Δsp",
        Status::Reproduced,
        &t5,
    )?;
    Ok(())
}

/// The worked example of liu2024's "PLL Score Analysis": stereotypical scores
/// {0.4, 0.3, 0.9, 0.8} against anti-stereotypical {0.5, 0.4, 0.1, 0.2}, where Eq. 2 gives 50
/// ("no social biases") while `|Δst| = 0.7`, `|Δat| = 0.1`: the paper's own inputs, computed
/// here with the same functions as Tables 2 and 4 (plus KLS and JSS, which the paper does not
/// print for it).
const PLL_EXAMPLE: [(f64, f64); 4] = [(0.4, 0.5), (0.3, 0.4), (0.9, 0.1), (0.8, 0.2)];

fn pll_example(
    out: &mut Reproduction,
    indicator: &Indicator,
    kls: &Kls,
    jss: &Jss,
) -> Result<(), RobustError> {
    let rows = PLL_EXAMPLE
        .iter()
        .enumerate()
        .map(|(i, &(s, a))| bias_core::ScoreRow {
            pair_id: format!("example-{}", i + 1),
            dataset: "liu2024-example".into(),
            bias_type: bias_core::BiasType::Other("example".into()),
            direction: bias_core::Direction::Stereo,
            stereo: String::new(),
            anti: String::new(),
            score_stereo: s,
            score_anti: a,
            scorer: "example".into(),
            model: "example".into(),
            tokens_stereo: None,
            tokens_anti: None,
            group_id: None,
        })
        .collect();
    let table = ScoreTable::new(rows);
    let err = |e: bias_metrics::MetricsError| RobustError::Measure {
        what: "liu2024: the PLL Score Analysis example".into(),
        source: Box::new(e),
    };
    let g = score_group_analysis(&table).map_err(err)?;
    let abs = |s: Option<bias_metrics::ScoreGroupStats>| s.map_or(0.0, |s| s.abs_delta);
    let mut t = Table::new(&["quantity", "value", "the paper"]);
    let paper = |v: f64| Cell::num(v, 1);
    t.row(vec![
        "Eq. 2 (indicator)".into(),
        Cell::num(indicator.measure(&table).map_err(err)?.value, 2),
        paper(50.0),
    ]);
    t.row(vec![
        "|Δst|".into(),
        Cell::num(abs(g.stereotype_group), 4),
        paper(0.7),
    ]);
    t.row(vec![
        "|Δat|".into(),
        Cell::num(abs(g.anti_stereotype_group), 4),
        paper(0.1),
    ]);
    t.row(vec![
        "|Δst| − |Δat|".into(),
        Cell::num(g.delta_difference, 4),
        paper(0.6),
    ]);
    t.row(vec![
        "KLS (Eq. 6)".into(),
        Cell::num(kls.measure(&table).map_err(err)?.value, 2),
        Cell::Missing,
    ]);
    t.row(vec![
        "JSS (Eq. 9)".into(),
        Cell::num(jss.measure(&table).map_err(err)?.value, 2),
        Cell::Missing,
    ]);
    t.note(
        "S_st = {0.4, 0.3, 0.9, 0.8}, S_at = {0.5, 0.4, 0.1, 0.2} (one bias type): Eq. 2 reads \
         \"no bias\" while the two sample groups are unbalanced; KLS and JSS see the different \
         spreads of the two sides.",
    );
    out.table(
        "analysis-pll-score-analysis",
        "The PLL Score Analysis example: Eq. 2 at 50 with unbalanced sample groups",
        Status::Reproduced,
        &t,
    )
}

/// The `source` of a row computed here.
const THIS_RUN: &str = "this run";
/// The `source` of a row of the paper's printed values ([`published`]).
const PAPER: &str = "paper";

/// The note of a table with rows of the paper's values.
fn paper_rows_note() -> String {
    let models = published::MODELS
        .iter()
        .map(|m| format!("{} ({})", m.name, m.checkpoint))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "Rows with source \"paper\": the values Liu et al. (2024) print for its models {models}, \
         to the paper's decimals; a dash where the paper prints nothing."
    )
}

fn yes_no(changed: bool) -> Cell {
    if changed { "yes (red circle)" } else { "no" }.into()
}

/// The columns of the `figure-5` table: the averaged and the per-draw view of the order
/// changes, each with its number of draws, and the paper's red circles.
fn figure_5_table() -> Table {
    Table::new(&[
        "measure",
        "rate",
        "full-data order",
        "draws averaged",
        "order of the mean",
        "mean order changed",
        "Kendall τ-b (mean)",
        "single draws",
        "single draws changing the order",
        "share of single draws changing the order",
        "paper: order changed",
    ])
}

/// The rows of `measure` (labelled `label`: CPS, AUL, KLS, JSS) in the `figure-5` table, one per
/// rate of `report`: Liu et al. (2024) Figure 5's question, whether the order of the models
/// changes, asked of the mean over the draws (averaged view) and of each draw on its own
/// (per-draw view), beside the paper's answer ([`published::figure_5_order_changed`]).
fn figure_5_rows(t: &mut Table, label: &str, report: &RobustnessReport, measure: &str) {
    for a in report
        .rank_agreement
        .iter()
        .filter(|a| a.measure == measure)
    {
        let changing = a.repeats - a.agreeing;
        t.row(vec![
            label.into(),
            Cell::num(a.rate, 1),
            order_text(&a.full_order, |m| {
                report
                    .measure_at(m, measure, a.rate)
                    .map(|v| (v.full - a.no_bias).abs())
            })
            .into(),
            a.repeats.into(),
            order_text(&a.mean_order, |m| {
                report
                    .measure_at(m, measure, a.rate)
                    .map(|v| (v.summary.mean - a.no_bias).abs())
            })
            .into(),
            yes_no(!a.mean_order_kept),
            a.kendall_tau.map_or(Cell::Missing, |t| Cell::num(t, 3)),
            a.repeats.into(),
            changing.into(),
            Cell::num(changing as f64 / a.repeats as f64, 2),
            published::figure_5_order_changed(label, a.rate).map_or(Cell::Missing, yes_no),
        ]);
    }
}

/// Liu et al. (2024) Table 5 in long form, one row per model and rate: `|Δst| − |Δat|` on the
/// sub-samples of `study` averaged over the draws with its shift `Δsp` from the full data
/// (signed, and its size), beside the mean of each single draw's `|Δsp|`; then the paper's
/// rows ([`published::TABLE_5`], "full" from [`published::TABLE_4`]).
fn table_5(models: &[String], study: &RobustnessReport) -> Table {
    let mut t = Table::new(&[
        "source",
        "model",
        "rate",
        "n",
        "draws",
        "full",
        "|Δst| − |Δat|",
        "Δsp",
        "|Δsp|",
        "mean |Δsp| of single draws",
    ]);
    for model in models {
        for &rate in &study.options.rates {
            let Some(g) = study.score_groups_at(model, rate) else {
                continue;
            };
            t.row(vec![
                THIS_RUN.into(),
                model.as_str().into(),
                Cell::num(rate, 1),
                g.n.into(),
                study.options.repeats.into(),
                Cell::num(g.full, 4),
                Cell::num(g.delta_difference.mean, 4),
                Cell::num(g.shift, 4),
                Cell::num(g.shift.abs(), 4),
                Cell::num(g.mean_abs_shift, 4),
            ]);
        }
    }
    for c in &published::TABLE_5 {
        t.row(vec![
            PAPER.into(),
            published::MODELS[c.model].name.into(),
            Cell::num(c.rate, 1),
            Cell::Missing,
            Cell::Missing,
            Cell::num(published::TABLE_4[c.model].delta_difference, 4),
            Cell::num(c.value, 4),
            Cell::num(c.shift, 4),
            Cell::num(c.shift.abs(), 4),
            Cell::Missing,
        ]);
    }
    t
}

/// `report` with `measure` renamed `label` (the indicator on CPS scores is liu2024's CPS).
fn relabelled(report: &RobustnessReport, measure: &str, label: &str) -> RobustnessReport {
    let mut r = report.clone();
    let rename = |m: &mut String| {
        if m == measure {
            *m = label.to_owned();
        }
    };
    r.measures.iter_mut().for_each(rename);
    r.measure_stats
        .iter_mut()
        .for_each(|m| rename(&mut m.measure));
    r.rank_agreement
        .iter_mut()
        .for_each(|a| rename(&mut a.measure));
    r
}

/// Models most biased first, joined by `>`, or by `=` where two neighbours deviate equally
/// from no bias (a tie the order comparison of [`bias_robust::RankAgreement`] keeps apart).
fn order_text(order: &[String], deviation: impl Fn(&str) -> Option<f64>) -> String {
    let mut text = String::new();
    for (i, m) in order.iter().enumerate() {
        if i > 0 {
            let tied = deviation(&order[i - 1]).is_some_and(|d| Some(d) == deviation(m));
            text.push_str(if tied { " = " } else { " > " });
        }
        text.push_str(m);
    }
    text
}

/// Index of `set` in [`SETS`].
fn set_index(set: DataSet) -> usize {
    SETS.iter()
        .position(|s| s.set == set)
        .unwrap_or_else(|| unreachable!("liu2024 uses StereoSet and CrowS-Pairs only"))
}

/// The `--max-pairs` caveat, if any.
fn study_note<M: DatasetScorer>(study: &Study<M>) -> Option<String> {
    study.max_pairs().map(|n| {
        format!("Only the first {n} pairs of each data set (--max-pairs): not the paper's numbers.")
    })
}

/// Models needed for Pearson's r (3: with 2 it is ±1 by construction).
pub const MIN_MODELS_PEARSON: usize = 3;

/// Models needed for the mutual information with scikit-learn's default of 3 neighbours.
#[deprecated(
    since = "0.2.0",
    note = "the models Figure 4's mutual information needs depend on \
            Liu2024Options::mi_neighbors (k + 1; 2 with the paper's k = 1): use min_models_mi"
)]
pub const MIN_MODELS_MI: usize = 4;

/// Models needed for Figure 4's mutual information with `k` neighbours (Liu et al. 2024,
/// "Correlation Analysis"): the Kraskov–Stögbauer–Grassberger estimator needs `k + 1`
/// observations, so the paper's three models suffice for its k = 1
/// ([`published::FIGURE_4_MI_NEIGHBORS`]).
pub fn min_models_mi(k: usize) -> usize {
    k + 1
}

/// Figure 4 and its numbers: per data set, Pearson's r and, with at least `k + 1` models, the
/// mutual information with `k` neighbours between SSS/CPS, AUL, KLS and JSS over the models,
/// beside the values the paper's text prints ([`published::figure_4_pearson`],
/// [`published::figure_4_mi`]).
fn figure_4(
    out: &mut Reproduction,
    models: &[String],
    measures: &[[SetMeasures; 2]],
    k: usize,
) -> Result<(), RobustError> {
    let title =
        "Pearson correlations (and mutual information) between the measures over the models";
    let n = models.len();
    let mi_models = min_models_mi(k);
    if n < MIN_MODELS_PEARSON {
        out.out_of_reach(
            "figure-4",
            title,
            format!(
                "{n} model(s) with AUL scores: Pearson's r over models needs at least \
                 {MIN_MODELS_PEARSON} (with 2 it is ±1 by construction), the mutual information \
                 (KSG, k = {k}) at least {mi_models}; the paper has 3"
            ),
        );
        return Ok(());
    }
    let mut t = Table::new(&[
        "data set",
        "measure a",
        "measure b",
        "models",
        "Pearson r",
        "p-value",
        "MI (nats)",
        "paper r",
        "paper MI",
    ]);
    let mut problems = Vec::new();
    for spec in &SETS {
        let set = set_index(spec.set);
        let labels = [spec.prior_label, "AUL", "KLS", "JSS"];
        let rows: Vec<(String, BTreeMap<String, f64>)> = models
            .iter()
            .zip(measures)
            .map(|(model, m)| {
                let values = labels
                    .iter()
                    .zip(m[set].values())
                    .map(|(l, v)| ((*l).to_owned(), v.value))
                    .collect();
                (model.clone(), values)
            })
            .collect();
        let corr = if n >= mi_models {
            correlate_measures(
                &rows,
                &CorrelateOptions {
                    k,
                    standardise: true,
                },
            )
        } else {
            correlate_pearson(&rows)
        };
        match corr {
            Ok(c) => {
                for p in &c.pairs {
                    let mi = c
                        .measures
                        .iter()
                        .position(|m| *m == p.a)
                        .zip(c.measures.iter().position(|m| *m == p.b))
                        .and_then(|(i, j)| c.mutual_info[i][j]);
                    let paper = |v: Option<f64>| v.map_or(Cell::Missing, |v| Cell::num(v, 2));
                    t.row(vec![
                        spec.short.into(),
                        p.a.as_str().into(),
                        p.b.as_str().into(),
                        n.into(),
                        Cell::num(p.r, 3),
                        Cell::num(p.p_value, 3),
                        mi.map_or(Cell::Missing, |v| Cell::num(v, 3)),
                        paper(published::figure_4_pearson(spec.short, &p.a, &p.b)),
                        paper(published::figure_4_mi(spec.short, &p.a, &p.b)),
                    ]);
                }
                let id = format!("figure-4-{}", spec.set.name());
                figures::correlation_heatmap(&c, out.figure_stem(&id))?;
                out.figure(
                    &id,
                    &format!(
                        "Pearson r between the measures over the models ({})",
                        spec.short
                    ),
                    Status::Reproduced,
                );
            }
            Err(e) => problems.push(format!("{}: {e}", spec.short)),
        }
    }
    if !problems.is_empty() {
        if t.rows.is_empty() {
            out.out_of_reach("figure-4", title, problems.join("; "));
            return Ok(());
        }
        t.note(format!("Not computed: {}.", problems.join("; ")));
    }
    let mi_note = if n >= mi_models {
        format!(
            "the mutual information is the Kraskov–Stögbauer–Grassberger estimate with k = {k} \
             neighbours, each measure scaled to unit variance, in nats (as scikit-learn's \
             `mutual_info_regression(x, y, n_neighbors={k})`)"
        )
    } else {
        format!(
            "the mutual information with k = {k} neighbours needs at least {mi_models} models \
             and is printed – (--liu2024-mi-neighbors 1, the paper's, needs 2)"
        )
    };
    t.note(format!(
        "Pearson's r and its two-sided p-value over the {n} models; {mi_note}. With so few \
         models both are very noisy (the paper has 3): with 3 models and k = 1 the estimate is \
         ψ(3) + ψ(1) − ⟨ψ(n_x + 1)⟩ − ⟨ψ(n_y + 1)⟩ with counts of 0 to 2, a multiple of 1/6 \
         between 0 and 1.5. The measures' values are \
         correlated as they are, as in the paper, whose three models all score above 50: a model \
         below 50 on SSS, CPS, AUL or KLS is less biased the higher it scores, so with such \
         models the correlations mix directions."
    ));
    t.note(format!(
        "\"paper r\" / \"paper MI\": the values the text of Liu et al. (2024) Figure 4 prints for \
         its three models: r = 0.84 for KLS–SSS on StereoSet (0.8497 from its Table 2, \
         truncated), MI 0.17 between SSS and the other measures on StereoSet and 0.50 between \
         all others; scikit-learn's mutual_info_regression with n_neighbors = {} gives exactly \
         these (1/6 and 1/2) from the paper's Table 2.",
        published::FIGURE_4_MI_NEIGHBORS
    ));
    out.table("figure-4", title, Status::Reproduced, &t)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::Paper;
    use bias_robust::ExplicitDraws;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("liu2024-unit-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// The column `name` of row `i` of `t`.
    fn cell<'a>(t: &'a Table, i: usize, name: &str) -> &'a Cell {
        let j = t
            .columns
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", t.columns));
        &t.rows[i][j]
    }

    fn num(c: &Cell) -> f64 {
        match c {
            Cell::Num(v, _) => *v,
            Cell::Int(v) => *v as f64,
            other => panic!("not a number: {other:?}"),
        }
    }

    fn measurement(value: f64, no_bias: f64) -> Measurement {
        Measurement {
            measure: "paper".into(),
            value,
            no_bias,
            n: 1,
            by_type: BTreeMap::new(),
        }
    }

    /// The paper's Table 2 as the measures of three models.
    fn paper_measures() -> (Vec<String>, Vec<[SetMeasures; 2]>) {
        let models = published::MODELS
            .iter()
            .map(|m| m.name.to_owned())
            .collect();
        let measures = (0..3)
            .map(|m| {
                let set = |short: &str| {
                    let r = published::TABLE_2
                        .iter()
                        .find(|r| r.data_set == short && r.model == m)
                        .unwrap();
                    SetMeasures {
                        prior: measurement(r.prior, 50.0),
                        aul: measurement(r.aul, 50.0),
                        kls: measurement(r.kls, 50.0),
                        jss: measurement(r.jss, 100.0),
                        aul_table: ScoreTable::new(Vec::new()),
                    }
                };
                [set("SS"), set("CP")]
            })
            .collect();
        (models, measures)
    }

    /// The rows of the figure-4 table written for the paper's Table 2 with `k` neighbours.
    fn figure_4_rows(k: usize, name: &str) -> (Vec<serde_json::Value>, String) {
        let dir = scratch(name);
        let (models, measures) = paper_measures();
        let mut out = Reproduction::create(Paper::Liu2024, &dir).unwrap();
        figure_4(&mut out, &models, &measures, k).unwrap();
        out.finish().unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("figure-4.json")).unwrap())
                .unwrap();
        let md = std::fs::read_to_string(dir.join("figure-4.md")).unwrap();
        (v["table"]["rows"].as_array().unwrap().clone(), md)
    }

    /// Figure 4 of the paper's Table 2 with the default neighbours (k = 1) prints the paper's
    /// MI (0.17 for SSS on SS, 0.50 elsewhere; exactly scikit-learn's 1/6 and 1/2, see
    /// tests/liu2024_figure4.rs) in its own column beside the paper's column, on 3 models.
    #[test]
    fn figure_4_of_the_papers_table_2_prints_the_papers_mi_on_three_models() {
        let k = Liu2024Options::default().mi_neighbors;
        let (rows, _) = figure_4_rows(k, "f4-k1");
        assert_eq!(rows.len(), 12);
        for r in &rows {
            assert_eq!(r["models"], 3);
            let mi = r["MI (nats)"].as_f64().unwrap_or_else(|| panic!("{r}"));
            let paper = r["paper MI"].as_f64().unwrap();
            assert!((mi - paper).abs() < 0.005, "{r}");
            let exact = if paper == 0.17 { 1.0 / 6.0 } else { 0.5 };
            assert!((mi - exact).abs() < 1e-12, "{r}");
        }
        let kls_sss = rows
            .iter()
            .find(|r| r["data set"] == "SS" && r["measure a"] == "KLS" && r["measure b"] == "SSS")
            .unwrap();
        assert_eq!(kls_sss["paper r"].as_f64(), Some(0.84));
        assert!((kls_sss["Pearson r"].as_f64().unwrap() - 0.8497).abs() < 5e-5);
        assert_eq!(rows.iter().filter(|r| r["paper r"].is_null()).count(), 11);
    }

    /// scikit-learn's default k = 3 needs 4 models: Pearson only, the MI column empty and the
    /// note naming the neighbours and the models needed.
    #[test]
    fn figure_4_with_three_neighbours_on_three_models_is_pearson_only() {
        let (rows, md) = figure_4_rows(3, "f4-k3");
        assert_eq!(rows.len(), 12);
        assert!(rows.iter().all(|r| r["MI (nats)"].is_null()), "{rows:?}");
        assert!(rows.iter().all(|r| r["Pearson r"].is_f64()));
        assert!(
            md.contains("k = 3 neighbours needs at least 4 models"),
            "{md}"
        );
    }

    #[test]
    fn zero_neighbours_are_refused_by_name() {
        assert_eq!(min_models_mi(1), 2);
        assert_eq!(min_models_mi(3), 4);
        let dir = scratch("k0");
        let mut study = Study::new(
            Vec::<Box<dyn bias_core::DatasetScorer>>::new(),
            dir.join("data"),
            dir.join("scores"),
        )
        .unwrap();
        let mut out = Reproduction::create(Paper::Liu2024, dir.join("out")).unwrap();
        let options = Liu2024Options {
            mi_neighbors: 0,
            ..Liu2024Options::default()
        };
        match reproduce_liu2024(&mut study, &mut out, &options) {
            Err(RobustError::InvalidConfig(m)) => {
                assert!(
                    m.contains("--liu2024-mi-neighbors") && m.contains("at least 1"),
                    "{m}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    /// Scores of pairs 0..4 (one bias type) of one model.
    fn model_table(name: &str, scores: [(f64, f64); 4]) -> (String, ScoreTable) {
        let rows = scores
            .iter()
            .enumerate()
            .map(|(i, &(s, a))| bias_core::ScoreRow {
                pair_id: i.to_string(),
                dataset: "crows-pairs".into(),
                bias_type: bias_core::BiasType::Gender,
                direction: bias_core::Direction::Stereo,
                stereo: String::new(),
                anti: String::new(),
                score_stereo: s,
                score_anti: a,
                scorer: "aul".into(),
                model: name.into(),
                tokens_stereo: None,
                tokens_anti: None,
                group_id: None,
            })
            .collect();
        (name.to_owned(), ScoreTable::new(rows))
    }

    /// Two models and two given draws of half the pairs, where the averaged view and the
    /// per-draw view disagree; every number by hand.
    ///
    /// A: (s, a) = (1, 0), (0.5, 0), (0.3, 0), (0, 0.2); B: (1, 0), (1, 0), (0, 0.5), (0, 0.5).
    /// Indicator (Eq. 2): A 75 on all pairs (deviation 25), B 50 (deviation 0): A > B.
    /// Draw 1 = pairs {0, 1}: A 100, B 100, a tie (the order changes).
    /// Draw 2 = pairs {2, 3}: A 50 (deviation 0), B 0 (deviation 50): B > A (changes).
    /// Mean over the 2 draws: A 75, B 50, the full-data order (kept).
    ///
    /// |Δst| − |Δat| (Table 4): A on all pairs |0.6 − 0| − |0 − 0.2| = 0.4; draw 1: 0.75 − 0
    /// (no anti-stereotype group) = 0.75, Δsp = +0.35; draw 2: 0.3 − 0.2 = 0.1, Δsp = −0.3.
    /// Mean 0.425, Δsp of the mean 0.025, mean |Δsp| of the draws (0.35 + 0.3) / 2 = 0.325.
    /// B on all pairs 1 − 0.5 = 0.5; draw 1: 1 − 0 = 1, Δsp = +0.5; draw 2: 0 − 0.5 = −0.5,
    /// Δsp = −1. Mean 0.25, Δsp of the mean −0.25, mean |Δsp| 0.75.
    fn hand_study() -> RobustnessReport {
        let models = [
            model_table("A", [(1.0, 0.0), (0.5, 0.0), (0.3, 0.0), (0.0, 0.2)]),
            model_table("B", [(1.0, 0.0), (1.0, 0.0), (0.0, 0.5), (0.0, 0.5)]),
        ];
        let indicator = Indicator::default();
        let draws = ExplicitDraws {
            rates: vec![0.5],
            rows: vec![vec![vec![0, 1], vec![2, 3]]],
        };
        bias_robust::subsample_study_on_draws(&models, &[&indicator], &draws).unwrap()
    }

    #[test]
    fn figure_5_shows_the_per_draw_order_changes_beside_the_averaged_order() {
        let report = hand_study();
        let mut t = figure_5_table();
        figure_5_rows(&mut t, "AUL", &report, "indicator");
        assert_eq!(t.rows.len(), 1);
        assert_eq!(cell(&t, 0, "full-data order").text(), "A > B");
        // Averaged view: 2 draws, the order of the mean is kept.
        assert_eq!(num(cell(&t, 0, "draws averaged")), 2.0);
        assert_eq!(cell(&t, 0, "order of the mean").text(), "A > B");
        assert_eq!(cell(&t, 0, "mean order changed").text(), "no");
        assert_eq!(num(cell(&t, 0, "Kendall τ-b (mean)")), 1.0);
        // Per-draw view: both single draws change the order.
        assert_eq!(num(cell(&t, 0, "single draws")), 2.0);
        assert_eq!(num(cell(&t, 0, "single draws changing the order")), 2.0);
        assert_eq!(
            num(cell(&t, 0, "share of single draws changing the order")),
            1.0
        );
        // The paper rings AUL red at 50 %.
        assert_eq!(
            cell(&t, 0, "paper: order changed").text(),
            "yes (red circle)"
        );
        // Every JSON cell of a count or share is a number.
        let json = t.json();
        let row = &json["rows"][0];
        for c in [
            "draws averaged",
            "single draws",
            "single draws changing the order",
        ] {
            assert!(row[c].is_u64(), "{c}: {row}");
        }
    }

    #[test]
    fn table_5_shows_the_per_draw_mean_abs_shift_beside_the_shift_of_the_mean() {
        let report = hand_study();
        let t = table_5(&["A".to_owned(), "B".to_owned()], &report);
        assert_eq!(t.rows.len(), 2 + 18);
        let expect = [
            ("A", 0.4, 0.425, 0.025, 0.325),
            ("B", 0.5, 0.25, -0.25, 0.75),
        ];
        for (i, (model, full, mean, shift, mean_abs)) in expect.into_iter().enumerate() {
            assert_eq!(cell(&t, i, "source").text(), "this run");
            assert_eq!(cell(&t, i, "model").text(), model);
            assert_eq!(num(cell(&t, i, "rate")), 0.5);
            assert_eq!(num(cell(&t, i, "n")), 2.0);
            assert_eq!(num(cell(&t, i, "draws")), 2.0);
            let close = |name: &str, want: f64| {
                let got = num(cell(&t, i, name));
                assert!(
                    (got - want).abs() < 1e-12,
                    "{model} {name}: {got} vs {want}"
                );
            };
            close("full", full);
            close("|Δst| − |Δat|", mean);
            close("Δsp", shift);
            close("|Δsp|", shift.abs());
            close("mean |Δsp| of single draws", mean_abs);
        }
        // The paper's rows: Table 5 with its arrows as signs, "full" from Table 4.
        let paper: Vec<usize> = (0..t.rows.len())
            .filter(|&i| cell(&t, i, "source").text() == "paper")
            .collect();
        assert_eq!(paper.len(), 18);
        let first = paper[0];
        assert_eq!(cell(&t, first, "model").text(), "BERT");
        assert_eq!(num(cell(&t, first, "rate")), 0.3);
        assert_eq!(num(cell(&t, first, "full")), 0.0192);
        assert_eq!(num(cell(&t, first, "|Δst| − |Δat|")), 0.0413);
        assert_eq!(num(cell(&t, first, "Δsp")), 0.0221);
        let roberta_30 = paper
            .iter()
            .find(|&&i| cell(&t, i, "model").text() == "RoBERTa")
            .copied()
            .unwrap();
        assert_eq!(num(cell(&t, roberta_30, "Δsp")), -0.0189);
        assert_eq!(num(cell(&t, roberta_30, "|Δsp|")), 0.0189);
        assert_eq!(
            *cell(&t, roberta_30, "mean |Δsp| of single draws"),
            Cell::Missing
        );
    }

    #[test]
    fn orders_show_ties() {
        let order = ["a", "b", "c"].map(String::from);
        let dev = |m: &str| Some(if m == "a" { 2.0 } else { 1.0 });
        assert_eq!(order_text(&order, dev), "a > b = c");
        assert_eq!(order_text(&order, |_| None), "a > b > c");
    }

    #[test]
    fn competition_ranks_most_biased_first() {
        assert_eq!(ranks(&[1.0, 5.0, 1.0, 0.5]), vec![2, 1, 2, 4]);
        assert_eq!(ranks(&[]), Vec::<usize>::new());
    }
}
