//! Agreement between bias measures: Pearson correlations across models and mutual information
//! between measures (liu2024 Fig. 4 and the MI analysis that follows it).
//!
//! liu2024 scores a set of masked language models with every measure (SSS/CPS, AUL, KLS, JSS),
//! correlates the measures across the models (Pearson, Fig. 4), and estimates the mutual
//! information between the measures with the nearest-neighbour estimators of Kraskov et al.
//! (2004) and Ross (2014). [`correlate_measures`] does both on a table of measure values per
//! model; [`correlate_pair_scores`] applies the same statistics to the per-pair score differences
//! of two scorers in one [`ScoreTable`].

use std::collections::{BTreeMap, BTreeSet};

use bias_core::ScoreTable;
use bias_metrics::stats::{mutual_info_continuous, pearson};
use serde::{Deserialize, Serialize};

use crate::RobustError;

/// Options of [`correlate_measures`] and [`correlate_pair_scores`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorrelateOptions {
    /// Neighbours of the Kraskov–Stögbauer–Grassberger estimator (default 3, scikit-learn's
    /// default `n_neighbors=3` of `mutual_info_regression`). At least `k + 1` observations are
    /// needed. Liu et al. (2024)'s printed mutual information (Figure 4's text: 0.50 and 0.17
    /// over three models) comes from k = 1, which its reproduction uses
    /// (`reproduce::Liu2024Options::mi_neighbors`).
    pub k: usize,
    /// Divide each variable by its population standard deviation before estimating MI (default
    /// `true`), as scikit-learn's `mutual_info_regression` does (without its random jitter). The
    /// KSG estimate uses the max-norm over (x, y), so it depends on the relative scales; Pearson
    /// is unaffected.
    pub standardise: bool,
}

impl Default for CorrelateOptions {
    fn default() -> Self {
        CorrelateOptions {
            k: 3,
            standardise: true,
        }
    }
}

/// One pair of measures in [`MeasureCorrelation`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasurePair {
    /// First measure (alphabetically earlier).
    pub a: String,
    /// Second measure.
    pub b: String,
    /// Pearson's r across models.
    pub r: f64,
    /// Two-sided p-value of r (exact null for bivariate normal data, as `scipy.stats.pearsonr`).
    pub p_value: f64,
    /// KSG mutual information (nats), clipped at 0; NaN from [`correlate_pearson`].
    pub mutual_info: f64,
}

/// Pearson correlation matrix and pairwise mutual information of measures across models
/// (liu2024 Fig. 4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureCorrelation {
    /// The models, in input order.
    pub models: Vec<String>,
    /// The measures, sorted; rows and columns of the matrices.
    pub measures: Vec<String>,
    /// Pearson's r, `measures × measures`; 1 on the diagonal.
    pub r: Vec<Vec<f64>>,
    /// Two-sided p-values of `r`; 0 on the diagonal.
    pub p_value: Vec<Vec<f64>>,
    /// Mutual information (nats), symmetric (each pair estimated once); `None` on the diagonal.
    pub mutual_info: Vec<Vec<Option<f64>>>,
    /// The upper triangle as a list.
    pub pairs: Vec<MeasurePair>,
    /// The options used.
    pub options: CorrelateOptions,
}

/// Correlation of two scorers' per-pair score differences within one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairScoreCorrelation {
    /// First scorer.
    pub scorer_a: String,
    /// Second scorer.
    pub scorer_b: String,
    /// Pairs scored by both (joined on dataset, model and pair id).
    pub n_pairs: usize,
    /// Pairs of `scorer_a` without a partner in `scorer_b`.
    pub unmatched_a: usize,
    /// Pairs of `scorer_b` without a partner in `scorer_a`.
    pub unmatched_b: usize,
    /// Pearson's r of `score_stereo − score_anti` across the joined pairs.
    pub r: f64,
    /// Two-sided p-value of `r`.
    pub p_value: f64,
    /// KSG mutual information (nats) of the two differences.
    pub mutual_info: f64,
    /// The options used.
    pub options: CorrelateOptions,
}

fn check_options(options: &CorrelateOptions, n: usize, what: &str) -> Result<(), RobustError> {
    if options.k == 0 {
        return Err(RobustError::invalid("k", 0, "at least one neighbour"));
    }
    // Pearson needs 3 observations, the KSG estimator k + 1.
    let needed = (options.k + 1).max(3);
    if n < needed {
        return Err(RobustError::invalid(
            what,
            n,
            format!(
                "at least {needed} (Pearson needs 3, mutual information with k = {} needs k + 1)",
                options.k
            ),
        ));
    }
    Ok(())
}

fn scaled(x: &[f64], standardise: bool) -> Vec<f64> {
    if !standardise {
        return x.to_vec();
    }
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let sd = (x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n).sqrt();
    if sd > 0.0 && sd.is_finite() {
        x.iter().map(|v| v / sd).collect()
    } else {
        x.to_vec()
    }
}

/// Pearson's r and p of two columns, and their KSG mutual information when `mi` is asked for.
fn pair_stats(
    x: &[f64],
    y: &[f64],
    options: &CorrelateOptions,
    mi: bool,
) -> Result<(f64, f64, Option<f64>), RobustError> {
    let c = pearson(x, y)?;
    let mi = if mi {
        Some(mutual_info_continuous(
            &scaled(x, options.standardise),
            &scaled(y, options.standardise),
            options.k,
        )?)
    } else {
        None
    };
    Ok((c.statistic, c.p_value, mi))
}

/// Pearson correlation matrix (with p-values) and pairwise mutual information of bias measures
/// across models, as in liu2024 Fig. 4 and its MI analysis.
///
/// `table` holds one entry per model: its name and its value for every measure. Every model must
/// report the same measures. For each pair of measures, the models' values form two vectors;
/// r and p come from [`bias_metrics::stats::pearson`], the MI from
/// [`bias_metrics::stats::mutual_info_continuous`] with `options.k` neighbours (after scaling to
/// unit variance if `options.standardise`). The estimator assumes distinct values: models tied
/// on a measure make its MI depend on tie-breaking. With a handful of models (liu2024 compares
/// three: BERT, RoBERTa and ALBERT) both statistics are very noisy; the MI with k = 3 needs at
/// least four, and liu2024's own numbers (Figure 4's text) come from k = 1 on its three.
///
/// # Errors
/// [`RobustError::InvalidParameter`] for `k = 0`, fewer than `max(3, k + 1)` models, fewer than
/// two measures, a repeated model name, or a model lacking a measure another reports;
/// [`RobustError::Metrics`] for a non-finite value or a measure constant across the models.
pub fn correlate_measures(
    table: &[(String, BTreeMap<String, f64>)],
    options: &CorrelateOptions,
) -> Result<MeasureCorrelation, RobustError> {
    check_options(options, table.len(), "models")?;
    correlate_table(table, options, true)
}

/// [`correlate_measures`] without the mutual information, for 3 models or more: too few models
/// for the KSG estimator (k + 1) still give Pearson's r (liu2024 Fig. 4 has 3 models). Every
/// `mutual_info` is `None`, and NaN in [`MeasurePair::mutual_info`].
///
/// # Errors
/// As [`correlate_measures`], with 3 models as the minimum.
pub fn correlate_pearson(
    table: &[(String, BTreeMap<String, f64>)],
) -> Result<MeasureCorrelation, RobustError> {
    if table.len() < 3 {
        return Err(RobustError::invalid(
            "models",
            table.len(),
            "at least 3 (Pearson needs 3)",
        ));
    }
    correlate_table(table, &CorrelateOptions::default(), false)
}

/// The checks of the table and the pairwise statistics shared by [`correlate_measures`] and
/// [`correlate_pearson`].
fn correlate_table(
    table: &[(String, BTreeMap<String, f64>)],
    options: &CorrelateOptions,
    mi: bool,
) -> Result<MeasureCorrelation, RobustError> {
    let mut seen = BTreeSet::new();
    for (model, _) in table {
        if !seen.insert(model.as_str()) {
            return Err(RobustError::invalid("model", model, "each model once"));
        }
    }
    let measures: Vec<String> = table
        .iter()
        .flat_map(|(_, m)| m.keys().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if measures.len() < 2 {
        return Err(RobustError::invalid(
            "measures",
            measures.len(),
            "at least two measures",
        ));
    }
    let mut columns: Vec<Vec<f64>> = vec![Vec::with_capacity(table.len()); measures.len()];
    for (model, values) in table {
        for (j, name) in measures.iter().enumerate() {
            let v = values.get(name).ok_or_else(|| {
                RobustError::invalid(
                    "measure",
                    format!("{name} (model {model})"),
                    "every model reports every measure",
                )
            })?;
            columns[j].push(*v);
        }
    }
    let m = measures.len();
    let mut r = vec![vec![1.0; m]; m];
    let mut p_value = vec![vec![0.0; m]; m];
    let mut mutual_info = vec![vec![None; m]; m];
    let mut pairs = Vec::new();
    for i in 0..m {
        for j in i + 1..m {
            let (rij, pij, mij) = pair_stats(&columns[i], &columns[j], options, mi)?;
            r[i][j] = rij;
            r[j][i] = rij;
            p_value[i][j] = pij;
            p_value[j][i] = pij;
            mutual_info[i][j] = mij;
            mutual_info[j][i] = mij;
            pairs.push(MeasurePair {
                a: measures[i].clone(),
                b: measures[j].clone(),
                r: rij,
                p_value: pij,
                mutual_info: mij.unwrap_or(f64::NAN),
            });
        }
    }
    Ok(MeasureCorrelation {
        models: table.iter().map(|(m, _)| m.clone()).collect(),
        measures,
        r,
        p_value,
        mutual_info,
        pairs,
        options: *options,
    })
}

/// Pearson correlation and mutual information of two scorers' per-pair score differences
/// (`score_stereo − score_anti`) in one score table: the pair-level analogue of liu2024 Fig. 4.
///
/// Rows of `scorer_a` and `scorer_b` are joined on (dataset, model, pair id), so a table holding
/// several models or data sets compares each pair with its own counterpart; pairs present for
/// one scorer only are counted, not used. Pearson and MI as in [`correlate_measures`].
///
/// # Errors
/// [`RobustError::InvalidParameter`] if the scorers are equal, a scorer has a (dataset, model,
/// pair id) twice, `k = 0`, or fewer than `max(3, k + 1)` pairs join; [`RobustError::Metrics`]
/// for non-finite or constant differences.
pub fn correlate_pair_scores(
    table: &ScoreTable,
    scorer_a: &str,
    scorer_b: &str,
    options: &CorrelateOptions,
) -> Result<PairScoreCorrelation, RobustError> {
    if scorer_a == scorer_b {
        return Err(RobustError::invalid(
            "scorer_b",
            scorer_b,
            "a scorer other than scorer_a",
        ));
    }
    type Key<'a> = (&'a str, &'a str, &'a str);
    let collect = |scorer: &str| -> Result<BTreeMap<Key<'_>, f64>, RobustError> {
        let mut out = BTreeMap::new();
        for row in table.rows().iter().filter(|r| r.scorer == scorer) {
            let key = (
                row.dataset.as_str(),
                row.model.as_str(),
                row.pair_id.as_str(),
            );
            if out.insert(key, row.difference()).is_some() {
                return Err(RobustError::invalid(
                    "pair_id",
                    format!(
                        "{} (scorer {scorer}, model {}, dataset {})",
                        key.2, key.1, key.0
                    ),
                    "one row per pair, model and data set for each scorer",
                ));
            }
        }
        Ok(out)
    };
    let a = collect(scorer_a)?;
    let b = collect(scorer_b)?;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (key, va) in &a {
        if let Some(vb) = b.get(key) {
            x.push(*va);
            y.push(*vb);
        }
    }
    let n_pairs = x.len();
    check_options(options, n_pairs, "joined pairs")?;
    let (r, p_value, mutual_info) = pair_stats(&x, &y, options, true)?;
    let mutual_info = mutual_info.expect("asked for");
    Ok(PairScoreCorrelation {
        scorer_a: scorer_a.to_string(),
        scorer_b: scorer_b.to_string(),
        n_pairs,
        unmatched_a: a.len() - n_pairs,
        unmatched_b: b.len() - n_pairs,
        r,
        p_value,
        mutual_info,
        options: *options,
    })
}
