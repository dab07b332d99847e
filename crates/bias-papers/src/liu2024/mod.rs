//! The tables and figures of Liu et al. (2024), "Robust evaluation measures for evaluating social
//! biases in masked language models" (AAAI), across the models of a [`Study`].
//!
//! | id | what | how |
//! |---|---|---|
//! | `figure-1` | the indicator pipeline (schematic) | out of reach: a drawing, no data |
//! | `table-1` | Shapiro–Wilk of the AUL scores per model × data set | [`bias_metrics::normality_by_type`] |
//! | `figure-2-<model>` | kernel density and fitted Gaussian of the AUL scores on CrowS-Pairs | [`bias_report::figures::score_densities`] |
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
//! "paper …" ([`published`]).

use crate::PaperError;
use bias_core::Scorer;
use std::collections::BTreeMap;

use bias_core::{BiasMeasure, DatasetScorer, Measurement, ScoreTable};
use bias_metrics::{
    normality_by_type, score_group_analysis, DistributionOptions, Indicator, Jss, JssVariant, Kls,
    Side, SmallTypePolicy,
};

pub mod published;
use super::{Cell, DataSet, Reproduction, Status, Study, Table};
use bias_report::figures as draw;
use bias_report::report::file_part;
use bias_robust::{
    correlate_measures, correlate_pearson, CorrelateOptions, RobustError, RobustnessOptions,
    RobustnessReport, SyncMeasure,
};

mod figures;
mod tables;
use figures::*;
use tables::*;

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
) -> Result<(), PaperError> {
    reproduce_liu2024(study, out, &Liu2024Options::default())
}

/// Writes every table and figure of Liu et al. (2024) into `out`, over the models of `study`
/// (see the module documentation for what each is and how it is computed), with `options`.
///
/// # Errors
/// [`RobustError::Data`] / [`RobustError::Model`] when a data set or a model fails;
/// [`RobustError::Measure`] when a measure fails on a model's scores (naming model and data set);
/// [`PaperError::Report`] (`ReportError::Io` / `ReportError::Draw`) when a file cannot be written. Figure 4 with too
/// few models, or measures constant across the models, is listed as out of reach, not an error.
pub fn reproduce_liu2024<M: DatasetScorer>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: &Liu2024Options,
) -> Result<(), PaperError> {
    if options.mi_neighbors == 0 {
        return Err(RobustError::InvalidConfig(
            "liu2024: mi_neighbors (--liu2024-mi-neighbors) is 0; the nearest-neighbour mutual \
             information of Figure 4 needs at least 1 neighbour (the paper's numbers come from 1)"
                .to_owned(),
        )
        .into());
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
        draw::score_densities(
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
) -> Result<Measured, PaperError> {
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
        ))
        .into());
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

/// The worked example of liu2024's "PLL Score Analysis": stereotypical scores
/// {0.4, 0.3, 0.9, 0.8} against anti-stereotypical {0.5, 0.4, 0.1, 0.2}, where Eq. 2 gives 50
/// ("no social biases") while `|Δst| = 0.7`, `|Δat| = 0.1`: the paper's own inputs, computed
/// here with the same functions as Tables 2 and 4 (plus KLS and JSS, which the paper does not
/// print for it).
const PLL_EXAMPLE: [(f64, f64); 4] = [(0.4, 0.5), (0.3, 0.4), (0.9, 0.1), (0.8, 0.2)];

/// The `source` of a row computed here.
const THIS_RUN: &str = "this run";
/// The `source` of a row of the paper's printed values ([`published`]).
const PAPER: &str = "paper";

/// The `--max-pairs` caveat, if any.
fn study_note<M: DatasetScorer>(study: &Study<M>) -> Option<String> {
    study.max_pairs().map(|n| {
        format!("Only the first {n} pairs of each data set (--max-pairs): not the paper's numbers.")
    })
}

/// Models needed for Pearson's r (3: with 2 it is ±1 by construction).
pub const MIN_MODELS_PEARSON: usize = 3;

/// Models needed for Figure 4's mutual information with `k` neighbours (Liu et al. 2024,
/// "Correlation Analysis"): the Kraskov–Stögbauer–Grassberger estimator needs `k + 1`
/// observations, so the paper's three models suffice for its k = 1
/// ([`published::FIGURE_4_MI_NEIGHBORS`]).
pub fn min_models_mi(k: usize) -> usize {
    k + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Paper;
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
    /// tests/it/liu2024_figure4.rs) in its own column beside the paper's column, on 3 models.
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
            Err(PaperError::Robust(RobustError::InvalidConfig(m))) => {
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
