//! Test–retest reliability of a bias measure under random subsets of its targets
//! (schroeder2024 §4.1.3 and Fig. 3, following Du et al. 2021).
//!
//! schroeder2024 computes each cosine score once on all targets (the baseline), then on random
//! subsets holding 1 % … 20 % of the targets, and reports the absolute deviation of the subset
//! score from the baseline, "normalized to the interval [0, 1] for better comparison". The paper
//! does not spell out the normalisation; this module takes it to be the linear map of the
//! measure's theoretical range `[lo, hi]` onto `[0, 1]`, so that an absolute deviation is divided
//! by `hi − lo` (see [`ScoreRange`]). SAME and DirectBias (c ≥ 0) already lie in `[0, 1]`
//! (divisor 1); the WEAT effect size is conventionally taken in `[−2, 2]` (divisor 4), which is
//! how schroeder2024 §4.1.3 can compare WEAT with the other two.
//!
//! WEAT needs two target sets. schroeder2024 §4.1.3 sorts the targets (bios labelled with a job
//! and a gender) into X and Y "based on the jobs distribution in the current test data", that is
//! anew on every subset, and §5.3 blames WEAT's instability on exactly that re-sorting:
//! [`WeatSplit::PerSubset`] (the default) does so, [`WeatSplit::Fixed`] sorts once on all targets.
//! Subsets hold `floor(share · n)` targets ([`subset_size`]), the paper's 106 and 2,120 of 10,602
//! bios at 1 % and 20 % (§5.3). [`title_context_study`] is §5.3's second comparison: the measure
//! on the job titles (single words) against the measure on half of the bios (titles in context).

use bias_embed::{
    direct_bias_terms, same_binary, weat_association, weat_effect_size, BiasSubspace, Ddof,
    EmbedError,
};
use bias_metrics::stats::quantile_linear;
use ndarray::{concatenate, Array2, ArrayView2, Axis};
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::RobustError;

/// The theoretical range `[lo, hi]` of a measure; absolute deviations are divided by `hi − lo`
/// to normalise them to `[0, 1]` (schroeder2024 §4.1.3: "normalized to the interval [0, 1]").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoreRange {
    /// Lower end of the range.
    pub lo: f64,
    /// Upper end of the range (`hi > lo`).
    pub hi: f64,
}

impl ScoreRange {
    /// `[0, 1]`: SAME (schroeder2024 Eq. 16) and DirectBias with `c ≥ 0` (Bolukbasi Eq. 4).
    pub const UNIT: ScoreRange = ScoreRange { lo: 0.0, hi: 1.0 };
    /// `[−2, 2]`: the WEAT effect size (schroeder2024 Eq. 1) for equally large X and Y with the
    /// population standard deviation; unequal sizes can exceed it (see [`retest_weat`]).
    pub const WEAT: ScoreRange = ScoreRange { lo: -2.0, hi: 2.0 };

    /// The divisor `hi − lo`.
    pub fn width(&self) -> f64 {
        self.hi - self.lo
    }
}

bias_core::choice! {
    /// How the subsets of a test–retest study are drawn ([`RetestOptions::draw`]).
    #[derive(Default, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum SubsetDraw: "subset draw" {
        /// The schroeder2024 authors' `robustness.py` (PLMBiasMeasureBenchmark, branch `ijcnn24`,
        /// `test_target_robustness`): repeat `r` shuffles all targets once and share `s` takes the
        /// first `int(s · n)` of that order, so a repeat's subsets are nested. No minimum size: a
        /// subset too small for the measure fails (see [`RetestOptions::skip_failures`]).
        NestedPrefixes = "nested" =>
            "The authors' robustness.py: one shuffle per repeat, nested prefixes of int(share · n).",
        /// Every share and repeat draws its own subset of [`subset_size`] targets (at least 2),
        /// uniformly without replacement (this project's first reading of §4.1.3; the default of
        /// [`RetestOptions::default`]).
        #[default]
        Independent = "independent" => "A fresh subset per share and repeat, at least 2 targets.",
    }
}

/// Settings of a test–retest study (schroeder2024 §4.1.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetestOptions {
    /// Shares of the targets evaluated, each in `(0, 1]`. Default: this project's grid `0.01,
    /// 0.02, 0.05, 0.10, 0.15, 0.20`; the authors' `robustness.py` uses `0.01, 0.03, 0.05, 0.1,
    /// 0.2` ([`RetestOptions::schroeder2024`]).
    pub shares: Vec<f64>,
    /// Random subsets drawn per share (default 100; the paper does not state its count, the
    /// authors' `robustness.py` draws 50).
    pub repeats: usize,
    /// How subsets are drawn (default [`SubsetDraw::Independent`]).
    pub draw: SubsetDraw,
    /// Base seed: repeat `r` of share number `s` draws from ChaCha8 stream `(s << 32) | r` of it,
    /// so a seed gives the same subsets, and the same report, on any number of threads.
    pub seed: u64,
    /// Range used to normalise deviations. `None` in [`retest_study`]: no normalisation (divisor
    /// 1, the report's `normalised` equals `raw`); the embedding wrappers replace `None` by their
    /// measure's range ([`ScoreRange::UNIT`] or [`ScoreRange::WEAT`]).
    pub range: Option<ScoreRange>,
    /// `false` (default): the first failing evaluation (in share, then repeat order) is
    /// returned as the error. `true`: failing subsets are counted in
    /// [`ShareDeviation::failed`] and left out of the statistics (e.g. a WEAT subset holding no
    /// target of X); a share where every subset fails is still an error.
    pub skip_failures: bool,
}

impl Default for RetestOptions {
    fn default() -> Self {
        RetestOptions {
            shares: vec![0.01, 0.02, 0.05, 0.10, 0.15, 0.20],
            repeats: 100,
            draw: SubsetDraw::Independent,
            seed: 0,
            range: None,
            skip_failures: false,
        }
    }
}

impl RetestOptions {
    /// What the schroeder2024 authors' `robustness.py` runs for Fig. 3 (PLMBiasMeasureBenchmark,
    /// branch `ijcnn24`, lines 177–180): shares `0.01, 0.03, 0.05, 0.1, 0.2`, 50 repeats, nested
    /// prefixes of one shuffle per repeat ([`SubsetDraw::NestedPrefixes`]).
    pub fn schroeder2024() -> RetestOptions {
        RetestOptions {
            shares: vec![0.01, 0.03, 0.05, 0.10, 0.20],
            repeats: 50,
            draw: SubsetDraw::NestedPrefixes,
            ..RetestOptions::default()
        }
    }

    /// The number of targets of a subset at `share` of `n_targets` under [`RetestOptions::draw`]:
    /// [`subset_size`], or Python's `int(share · n)` for nested prefixes (may be 0 or 1).
    pub fn subset_len(&self, n_targets: usize, share: f64) -> usize {
        match self.draw {
            SubsetDraw::Independent => subset_size(n_targets, share),
            SubsetDraw::NestedPrefixes => ((n_targets as f64) * share).floor() as usize,
        }
    }
}

/// Deviation statistics of one share (one point of schroeder2024 Fig. 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShareDeviation {
    /// The share of the targets.
    pub share: f64,
    /// Targets per subset: [`subset_size`] of the share.
    pub subset_size: usize,
    /// Subsets evaluated successfully (the statistics are over these).
    pub evaluated: usize,
    /// Subsets whose evaluation failed (only non-zero with `skip_failures`).
    pub failed: usize,
    /// Mean of `|m(subset) − baseline|`, unnormalised. The baseline is the measure on all
    /// targets in [`retest_study`] and on the titles in [`title_context_study`].
    pub mean_abs_deviation_raw: f64,
    /// Mean of `|m(subset) − baseline| / (hi − lo)`: the quantity plotted in schroeder2024 Fig. 3
    /// (and reported in §5.3 for the titles).
    pub mean_abs_deviation: f64,
    /// Sample standard deviation (divisor `n − 1`; 0 for one subset) of the normalised absolute
    /// deviations.
    pub sd: f64,
    /// Quantiles 0.05, 0.25, 0.5, 0.75, 0.95 of the normalised absolute deviations (linear
    /// interpolation between order statistics, numpy's default).
    pub quantiles: [f64; 5],
    /// Largest normalised absolute deviation.
    pub max: f64,
    /// Mean of the subset values themselves (not deviations).
    pub mean_value: f64,
}

/// Result of [`retest_study`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetestReport {
    /// Number of targets in the full set.
    pub n_targets: usize,
    /// The measure on all targets: the baseline.
    pub full_value: f64,
    /// The normalisation used (`None`: deviations are not normalised).
    pub range: Option<ScoreRange>,
    /// Subsets per share.
    pub repeats: usize,
    /// The seed.
    pub seed: u64,
    /// One entry per share, in the order of [`RetestOptions::shares`].
    pub shares: Vec<ShareDeviation>,
}

/// Targets per subset for `share` of `n_targets`: `max(floor(share · n), 2)`, capped at `n`.
///
/// `floor` gives the subset sizes of schroeder2024 §5.3: 1 % of the 10,602 BIOS samples is 106
/// and 20 % is 2,120 (`ceil` would give 107 and 2,121). A product within `1e-9` (relative) of an
/// integer counts as that integer, so that `0.29 · 100` is 29 although it evaluates to
/// 28.999999999999996 in floating point. The floor of 2 keeps a measure such as WEAT, which needs
/// a spread, computable on the smallest shares.
///
/// ```
/// use bias_robust::subset_size;
/// // schroeder2024 §5.3: 1 % and 20 % of the 10,602 bios.
/// assert_eq!(subset_size(10_602, 0.01), 106);
/// assert_eq!(subset_size(10_602, 0.20), 2120);
/// ```
pub fn subset_size(n_targets: usize, share: f64) -> usize {
    let x = (n_targets as f64) * share;
    let nearest = x.round();
    let k = if (x - nearest).abs() <= 1e-9 * x.max(1.0) {
        nearest
    } else {
        x.floor()
    };
    (k as usize).max(2).min(n_targets)
}

/// The test–retest study of schroeder2024 §4.1.3 for any measure of a set of targets.
///
/// `measure` receives ascending target indices (a subset of `0..n_targets`) and returns the bias
/// score on those targets. The baseline is `measure(0..n_targets)`; then, for every share `s` of
/// `options.shares` and every repeat, a subset of [`subset_size`]`(n_targets, s)` indices is drawn
/// uniformly without replacement from a seeded ChaCha8 stream (see [`RetestOptions::seed`]),
/// sorted, and evaluated. Per share the report gives the mean absolute deviation from the
/// baseline, raw and divided by the width of `options.range` (the "[0, 1]" normalisation of the
/// paper; no division when `range` is `None`), with its sd and quantiles. A share of 1 evaluates
/// the full index set again, so its deviation is exactly 0 for a deterministic measure.
///
/// Evaluations run in parallel with rayon; the subsets and the report depend only on the seed,
/// never on the thread count.
///
/// # Errors
/// `E::from(RobustError::InvalidParameter)` for fewer than 2 targets, no shares, a share outside
/// `(0, 1]`, `repeats = 0`, a range without `hi > lo` (both finite), or a non-finite value of the
/// measure; otherwise the measure's own error: on the full set always, on a subset unless
/// `skip_failures` (then only when every subset of a share fails).
pub fn retest_study<E>(
    n_targets: usize,
    measure: &(dyn Fn(&[usize]) -> Result<f64, E> + Sync),
    options: &RetestOptions,
) -> Result<RetestReport, E>
where
    E: From<RobustError> + Send,
{
    check_options(n_targets, options)?;
    let all: Vec<usize> = (0..n_targets).collect();
    let full_value = finite(measure(&all)?, "measure on all targets")?;
    let shares = deviation_study(n_targets, full_value, measure, options)?;
    Ok(RetestReport {
        n_targets,
        full_value,
        range: options.range,
        repeats: options.repeats,
        seed: options.seed,
        shares,
    })
}

fn check_options(n_targets: usize, options: &RetestOptions) -> Result<(), RobustError> {
    if n_targets < 2 {
        return Err(RobustError::invalid(
            "n_targets",
            n_targets,
            "at least two targets",
        ));
    }
    if options.shares.is_empty() {
        return Err(RobustError::invalid(
            "shares",
            "[]",
            "at least one share in (0, 1]",
        ));
    }
    if let Some(&s) = options.shares.iter().find(|&&s| !(s > 0.0 && s <= 1.0)) {
        return Err(RobustError::invalid(
            "share",
            s,
            "a share in (0, 1], such as 0.05",
        ));
    }
    if options.repeats == 0 {
        return Err(RobustError::invalid(
            "repeats",
            0,
            "at least one subset per share",
        ));
    }
    if let Some(r) = options.range {
        if !(r.lo.is_finite() && r.hi.is_finite() && r.hi > r.lo) {
            return Err(RobustError::invalid(
                "range",
                format!("[{}, {}]", r.lo, r.hi),
                "finite hi > lo",
            ));
        }
    }
    Ok(())
}

fn finite(v: f64, what: &str) -> Result<f64, RobustError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(RobustError::invalid(what, v, "a finite bias score"))
    }
}

/// The subsets of [`retest_study`] (and [`title_context_study`]), evaluated and summarised against
/// `baseline`; `options` is already checked.
fn deviation_study<E>(
    n_targets: usize,
    baseline: f64,
    measure: &(dyn Fn(&[usize]) -> Result<f64, E> + Sync),
    options: &RetestOptions,
) -> Result<Vec<ShareDeviation>, E>
where
    E: From<RobustError> + Send,
{
    let width = options.range.map_or(1.0, |r| r.width());
    let repeats = options.repeats;
    let jobs: Vec<(usize, usize)> = (0..options.shares.len())
        .flat_map(|s| (0..repeats).map(move |r| (s, r)))
        .collect();
    // Results keep job order whatever the scheduling, so the report is thread-count invariant.
    let values: Vec<Result<f64, E>> = jobs
        .par_iter()
        .map(|&(s, r)| {
            let k = options.subset_len(n_targets, options.shares[s]);
            let mut idx = match options.draw {
                SubsetDraw::Independent => {
                    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
                    rng.set_stream(((s as u64) << 32) | r as u64);
                    sample(&mut rng, n_targets, k).into_vec()
                }
                SubsetDraw::NestedPrefixes => {
                    // One shuffle per repeat, shared by every share: stream `r` of the seed.
                    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
                    rng.set_stream(r as u64);
                    let mut order = sample(&mut rng, n_targets, n_targets).into_vec();
                    order.truncate(k);
                    order
                }
            };
            if idx.is_empty() {
                return Err(RobustError::invalid(
                    "subset",
                    format!("share {} of {n_targets} targets", options.shares[s]),
                    "at least one target (int(share · n) is 0)",
                )
                .into());
            }
            idx.sort_unstable();
            measure(&idx).and_then(|v| Ok(finite(v, "measure on a subset")?))
        })
        .collect();

    let mut values = values.into_iter();
    let mut shares = Vec::with_capacity(options.shares.len());
    for &share in &options.shares {
        let mut ok = Vec::with_capacity(repeats);
        let mut failed = 0;
        let mut first_err = None;
        for v in values.by_ref().take(repeats) {
            match v {
                Ok(v) => ok.push(v),
                Err(e) if options.skip_failures => {
                    failed += 1;
                    first_err.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        if ok.is_empty() {
            // every subset failed: report the first failure
            if let Some(e) = first_err {
                return Err(e);
            }
        }
        let n = ok.len() as f64;
        let raw: Vec<f64> = ok.iter().map(|v| (v - baseline).abs()).collect();
        let mut norm: Vec<f64> = raw.iter().map(|d| d / width).collect();
        let mean = norm.iter().sum::<f64>() / n;
        let sd = if ok.len() > 1 {
            (norm.iter().map(|d| (d - mean) * (d - mean)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        norm.sort_by(f64::total_cmp);
        shares.push(ShareDeviation {
            share,
            subset_size: options.subset_len(n_targets, share),
            evaluated: ok.len(),
            failed,
            mean_abs_deviation_raw: raw.iter().sum::<f64>() / n,
            mean_abs_deviation: mean,
            sd,
            quantiles: [0.05, 0.25, 0.5, 0.75, 0.95].map(|q| quantile_linear(&norm, q)),
            max: norm[norm.len() - 1],
            mean_value: ok.iter().sum::<f64>() / n,
        });
    }
    Ok(shares)
}

fn with_default_range(options: &RetestOptions, range: ScoreRange) -> RetestOptions {
    let mut c = options.clone();
    c.range.get_or_insert(range);
    c
}

/// Test–retest study of binary SAME (schroeder2024 Eq. 12 and its aggregate, in `[0, 1]`):
/// subsets of the rows of `targets`, attribute groups `a0`, `a1` fixed. A `None` range in
/// `options` becomes [`ScoreRange::UNIT`].
///
/// # Errors
/// As [`retest_study`]; [`RobustError::Embed`] when SAME fails (zero vector, dimension mismatch).
pub fn retest_same_binary(
    targets: ArrayView2<'_, f64>,
    a0: ArrayView2<'_, f64>,
    a1: ArrayView2<'_, f64>,
    options: &RetestOptions,
) -> Result<RetestReport, RobustError> {
    let measure = EmbedMeasure::Same {
        a0: a0.reborrow(),
        a1: a1.reborrow(),
    };
    retest_embedding(targets, None, &measure, options)
}

/// How WEAT's target sets X and Y are formed from labelled targets (schroeder2024 §4.1.3, §5.3).
///
/// Every target has a class (a job) and a protected group (a gender); a class goes to X when at
/// least as many of its targets belong to group 0 as to group 1, and to Y otherwise ("sorting all
/// classes based on their occurrence with the protected groups in the datasets and then assigning
/// all samples with these classes to the respective target groups", schroeder2024 §4.3.5). All
/// targets of a class go to the same side. The paper does not say where a tie goes: here, to X.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WeatSplit {
    /// schroeder2024 §4.1.3 (the default): the classes are sorted on every subset by the
    /// subset's own class–group counts ("based on the jobs distribution in the current test
    /// data"), so a class near parity can change sides between subsets. §5.3 attributes WEAT's
    /// larger deviations to this re-sorting.
    #[default]
    PerSubset,
    /// The classes are sorted once, by their counts on all targets, and every subset keeps that
    /// split (a "manual design of stereotypical groups", which §5.3 expects to be more stable).
    Fixed,
}

impl std::str::FromStr for WeatSplit {
    type Err = RobustError;

    /// `per-subset` or `fixed`, the names of the serde form (and of the CLI's `--weat-split`).
    fn from_str(s: &str) -> Result<Self, RobustError> {
        match s {
            "per-subset" => Ok(WeatSplit::PerSubset),
            "fixed" => Ok(WeatSplit::Fixed),
            other => Err(RobustError::invalid(
                "WEAT split",
                format!("{other:?}"),
                "`per-subset` (the paper's: sorted on every subset) or `fixed` (sorted once on all \
                 targets)",
            )),
        }
    }
}

/// The class and the protected group of every target row, for [`WeatSplit`].
///
/// Classes are `0..n_classes` (every class need not occur); groups are 0 (the side of the first
/// attribute set A, target set X) and 1 (attribute set B, target set Y).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetLabels<'a> {
    class: &'a [usize],
    group: &'a [usize],
    n_classes: usize,
}

impl<'a> TargetLabels<'a> {
    /// Labels of `class.len()` targets: `class[i]` and `group[i]` of row `i`.
    ///
    /// # Errors
    /// [`RobustError::InvalidParameter`] if the slices differ in length, are empty, or a group is
    /// neither 0 nor 1.
    pub fn new(class: &'a [usize], group: &'a [usize]) -> Result<Self, RobustError> {
        if class.len() != group.len() {
            return Err(RobustError::invalid(
                "group",
                format!("{} labels", group.len()),
                format!(
                    "one group label per target, as for the classes ({})",
                    class.len()
                ),
            ));
        }
        if class.is_empty() {
            return Err(RobustError::invalid(
                "class",
                "[]",
                "labels for at least one target",
            ));
        }
        if let Some((i, g)) = group.iter().enumerate().find(|(_, &g)| g > 1) {
            return Err(RobustError::invalid(
                format!("group of target {i}"),
                g,
                "0 (the side of attribute set A) or 1 (attribute set B): map the two protected \
                 groups to 0 and 1",
            ));
        }
        let n_classes = class.iter().max().map_or(0, |&c| c + 1);
        Ok(TargetLabels {
            class,
            group,
            n_classes,
        })
    }

    /// Number of labelled targets.
    pub fn len(&self) -> usize {
        self.class.len()
    }

    /// Always `false`: [`TargetLabels::new`] refuses empty labels.
    pub fn is_empty(&self) -> bool {
        self.class.is_empty()
    }

    /// `1 + ` the largest class.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// The class of every target.
    pub fn class(&self) -> &'a [usize] {
        self.class
    }

    /// The group (0 or 1) of every target.
    pub fn group(&self) -> &'a [usize] {
        self.group
    }

    /// Per class `0..n_classes`: `true` when the class goes to X, counted on the targets `rows`
    /// (group-0 count ≥ group-1 count; a class absent from `rows` ties 0 : 0 and goes to X).
    pub fn classes_in_x(&self, rows: &[usize]) -> Vec<bool> {
        let mut counts = vec![[0usize; 2]; self.n_classes];
        for &i in rows {
            counts[self.class[i]][self.group[i]] += 1;
        }
        counts.iter().map(|[g0, g1]| g0 >= g1).collect()
    }

    /// The rows of `subset` in X and in Y (each ascending when `subset` is) under `split`:
    /// the class sides are counted on `subset` itself ([`WeatSplit::PerSubset`]) or on all
    /// targets ([`WeatSplit::Fixed`]).
    pub fn split(&self, subset: &[usize], split: WeatSplit) -> (Vec<usize>, Vec<usize>) {
        match split {
            WeatSplit::PerSubset => self.split_with(subset, split, &[]),
            WeatSplit::Fixed => self.split_with(subset, split, &self.fixed_sides()),
        }
    }

    /// The class sides counted on all targets: [`TargetLabels::classes_in_x`] of `0..len`.
    fn fixed_sides(&self) -> Vec<bool> {
        self.classes_in_x(&(0..self.len()).collect::<Vec<_>>())
    }

    /// [`TargetLabels::split`] with the sides on all targets, `fixed`, computed by the caller
    /// (read only under [`WeatSplit::Fixed`]).
    fn split_with(
        &self,
        subset: &[usize],
        split: WeatSplit,
        fixed: &[bool],
    ) -> (Vec<usize>, Vec<usize>) {
        match split {
            WeatSplit::PerSubset => self.partition(subset, &self.classes_in_x(subset)),
            WeatSplit::Fixed => self.partition(subset, fixed),
        }
    }

    fn partition(&self, subset: &[usize], in_x: &[bool]) -> (Vec<usize>, Vec<usize>) {
        subset.iter().partition(|&&i| in_x[self.class[i]])
    }
}

/// The targets of a WEAT test–retest study with the class and group of every row, ready for
/// [`retest_weat`] ([`WeatTargets::labels`]).
///
/// Labelled targets (schroeder2024 §4.1.3: bios with their job and gender) fill the fields
/// directly; two fixed target sets X and Y go through [`WeatTargets::from_sets`].
#[derive(Debug, Clone, PartialEq)]
pub struct WeatTargets {
    /// One embedding per target row.
    pub targets: Array2<f64>,
    /// The class of every row.
    pub class: Vec<usize>,
    /// The group (0: side of attribute set A, 1: side of B) of every row.
    pub group: Vec<usize>,
}

impl WeatTargets {
    /// Two fixed target sets: the rows of `x` then those of `y`, every row its own class, group
    /// 0 for the rows of X and 1 for those of Y, so that both [`WeatSplit`]s keep the sets as
    /// they are (Caliskan et al. 2017's WEAT with given X and Y, schroeder2024 Eq. 1).
    ///
    /// # Errors
    /// [`RobustError::Embed`] ([`bias_embed::EmbedError::DimensionMismatch`]) if X and Y differ
    /// in dimension.
    pub fn from_sets(x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<Self, RobustError> {
        if x.ncols() != y.ncols() {
            return Err(EmbedError::DimensionMismatch {
                left: x.ncols(),
                right: y.ncols(),
            }
            .into());
        }
        let targets =
            concatenate(Axis(0), &[x.reborrow(), y.reborrow()]).expect("same number of columns");
        let n = targets.nrows();
        Ok(WeatTargets {
            targets,
            class: (0..n).collect(),
            group: (0..n).map(|i| usize::from(i >= x.nrows())).collect(),
        })
    }

    /// The [`TargetLabels`] of the rows.
    ///
    /// # Errors
    /// As [`TargetLabels::new`].
    pub fn labels(&self) -> Result<TargetLabels<'_>, RobustError> {
        TargetLabels::new(&self.class, &self.group)
    }
}

/// Test–retest study of the WEAT effect size (schroeder2024 Eqs. 1–2, §4.1.3): subsets of the
/// rows of `targets`, sorted into X and Y by `labels` as `split` says (the paper:
/// [`WeatSplit::PerSubset`]); attributes `a`, `b` fixed. The baseline sorts all targets the same
/// way. A `None` range becomes [`ScoreRange::WEAT`] (`[−2, 2]`, the bound for equally large X and
/// Y under [`Ddof::Zero`]; unequal or small subsets can exceed it, so a normalised deviation can
/// exceed 1). A subset whose classes all land on one side (X or Y empty), or with zero spread,
/// fails: set `skip_failures` to count such subsets instead.
///
/// Targets given as two fixed sets X and Y fit this too: give every row its own class and group
/// 0 for the rows of X, 1 for those of Y; both splits then keep the sets as they are.
///
/// # Errors
/// As [`retest_study`]; [`RobustError::InvalidParameter`] if `labels` does not have one entry per
/// target; [`RobustError::EmptyWeatSide`] when all targets or a subset have X or Y empty;
/// [`RobustError::Embed`] when WEAT fails.
pub fn retest_weat(
    targets: ArrayView2<'_, f64>,
    labels: &TargetLabels<'_>,
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    ddof: Ddof,
    split: WeatSplit,
    options: &RetestOptions,
) -> Result<RetestReport, RobustError> {
    let measure = EmbedMeasure::Weat {
        a: a.reborrow(),
        b: b.reborrow(),
        ddof,
        split,
    };
    retest_embedding(targets, Some(labels), &measure, options)
}

/// Test–retest study of DirectBias (Bolukbasi Eq. 4; schroeder2024 Eq. 25) with strictness `c`:
/// subsets of the rows of `targets`, the bias `subspace` fixed. A `None` range becomes
/// [`ScoreRange::UNIT`] (DirectBias lies in `[0, 1]` for `c ≥ 0`).
///
/// # Errors
/// As [`retest_study`]; [`RobustError::Embed`] when DirectBias fails.
pub fn retest_direct_bias(
    targets: ArrayView2<'_, f64>,
    subspace: &BiasSubspace,
    c: f64,
    options: &RetestOptions,
) -> Result<RetestReport, RobustError> {
    let measure = EmbedMeasure::DirectBias { subspace, c };
    retest_embedding(targets, None, &measure, options)
}

/// One of the three cosine scores that schroeder2024 §4.1.3 and §5.3 compare, with everything it
/// needs besides the targets.
#[derive(Debug, Clone, Copy)]
pub enum EmbedMeasure<'a> {
    /// Binary SAME (schroeder2024 Eq. 12 and its aggregate) with attribute groups `a0`, `a1`.
    Same {
        /// Attribute group 0.
        a0: ArrayView2<'a, f64>,
        /// Attribute group 1.
        a1: ArrayView2<'a, f64>,
    },
    /// The WEAT effect size (schroeder2024 Eqs. 1–2) with attribute sets `a`, `b`; the targets
    /// need [`TargetLabels`] and are sorted into X and Y by `split`.
    Weat {
        /// Attribute set A (the side of group 0).
        a: ArrayView2<'a, f64>,
        /// Attribute set B (the side of group 1).
        b: ArrayView2<'a, f64>,
        /// Standard deviation divisor.
        ddof: Ddof,
        /// How X and Y are formed on a subset.
        split: WeatSplit,
    },
    /// DirectBias (Bolukbasi Eq. 4; schroeder2024 Eq. 25) with strictness `c`.
    DirectBias {
        /// The bias subspace.
        subspace: &'a BiasSubspace,
        /// The strictness `c ≥ 0`.
        c: f64,
    },
}

impl EmbedMeasure<'_> {
    /// The measure's range for the "[0, 1]" normalisation: [`ScoreRange::WEAT`] for WEAT,
    /// [`ScoreRange::UNIT`] otherwise.
    pub fn range(&self) -> ScoreRange {
        match self {
            EmbedMeasure::Weat { .. } => ScoreRange::WEAT,
            _ => ScoreRange::UNIT,
        }
    }

    /// The per-row terms the measure averages or compares, computed once on every row of
    /// `targets`: `|SAME|` of each target (schroeder2024 Eq. 12), DirectBias's
    /// `|cos(w, B)|^c` ([`direct_bias_terms`]), or WEAT's association `s(w, A, B)`
    /// ([`weat_association`]). None of them depends on the other rows, so a subset's value is
    /// read off them ([`value_on`]).
    fn terms(&self, targets: ArrayView2<'_, f64>) -> Result<Vec<f64>, RobustError> {
        Ok(match *self {
            EmbedMeasure::Same { a0, a1 } => same_binary(targets, a0, a1)?
                .per_target
                .into_iter()
                .map(f64::abs)
                .collect(),
            EmbedMeasure::DirectBias { subspace, c } => {
                direct_bias_terms(targets, subspace, c)?.to_vec()
            }
            EmbedMeasure::Weat { a, b, .. } => weat_association(targets, a, b)?,
        })
    }
}

/// The measure on `rows` from the per-row `terms` of [`EmbedMeasure::terms`]: their mean for SAME
/// and DirectBias, the WEAT effect size of the target sets `sides` (X, Y) otherwise.
fn value_on(
    measure: &EmbedMeasure<'_>,
    terms: &[f64],
    rows: &[usize],
    sides: impl FnOnce() -> (Vec<usize>, Vec<usize>),
) -> Result<f64, RobustError> {
    let EmbedMeasure::Weat { ddof, .. } = *measure else {
        return Ok(rows.iter().map(|&i| terms[i]).sum::<f64>() / rows.len() as f64);
    };
    let (x, y) = sides();
    if x.is_empty() || y.is_empty() {
        return Err(RobustError::EmptyWeatSide {
            side: if x.is_empty() { 'X' } else { 'Y' },
            targets: rows.len(),
            subset: rows.len() < terms.len(),
        });
    }
    let at = |v: &[usize]| v.iter().map(|&i| terms[i]).collect::<Vec<f64>>();
    Ok(weat_effect_size(&at(&x), &at(&y), ddof)?)
}

/// A measure prepared on all targets: their terms and (WEAT) the class sides counted on all of
/// them, computed once per study; [`Prepared::eval`] then only reads them.
struct Prepared<'m, 'l> {
    measure: EmbedMeasure<'m>,
    labels: Option<&'l TargetLabels<'l>>,
    terms: Vec<f64>,
    fixed: Vec<bool>,
}

impl<'m, 'l> Prepared<'m, 'l> {
    /// Checks `labels` (required, one per row, for WEAT) and computes the terms.
    fn new(
        measure: &EmbedMeasure<'m>,
        targets: ArrayView2<'_, f64>,
        labels: Option<&'l TargetLabels<'l>>,
    ) -> Result<Self, RobustError> {
        check_labels(measure, labels, targets.nrows())?;
        Ok(Prepared {
            measure: *measure,
            labels,
            terms: measure.terms(targets)?,
            fixed: labels.map(TargetLabels::fixed_sides).unwrap_or_default(),
        })
    }

    /// The measure on the targets `rows`; WEAT sorts them into X and Y by the measure's split.
    fn eval(&self, rows: &[usize]) -> Result<f64, RobustError> {
        value_on(&self.measure, &self.terms, rows, || {
            let EmbedMeasure::Weat { split, .. } = self.measure else {
                unreachable!("only WEAT sorts into sides")
            };
            let labels = self.labels.expect("checked by Prepared::new");
            labels.split_with(rows, split, &self.fixed)
        })
    }
}

/// Labels are required (and must fit) for WEAT; other measures ignore them.
fn check_labels(
    measure: &EmbedMeasure<'_>,
    labels: Option<&TargetLabels<'_>>,
    n_targets: usize,
) -> Result<(), RobustError> {
    match (measure, labels) {
        (EmbedMeasure::Weat { .. }, None) => Err(RobustError::invalid(
            "labels",
            "none",
            "a class and a group per target: WEAT sorts the targets into X and Y by them",
        )),
        (_, Some(l)) if l.len() != n_targets => Err(RobustError::invalid(
            "labels",
            format!("{} labelled targets", l.len()),
            format!("one class and group per target row ({n_targets})"),
        )),
        _ => Ok(()),
    }
}

/// [`retest_study`] of one embedding measure; the range defaults to the measure's.
fn retest_embedding(
    targets: ArrayView2<'_, f64>,
    labels: Option<&TargetLabels<'_>>,
    measure: &EmbedMeasure<'_>,
    options: &RetestOptions,
) -> Result<RetestReport, RobustError> {
    let options = with_default_range(options, measure.range());
    check_options(targets.nrows(), &options)?;
    let prepared = Prepared::new(measure, targets, labels)?;
    let eval = |idx: &[usize]| prepared.eval(idx);
    retest_study(targets.nrows(), &eval, &options)
}

/// The share of the bios that schroeder2024 §5.3 compares with the job titles: 50 %.
pub const TITLE_CONTEXT_SHARE: f64 = 0.5;

impl RetestOptions {
    /// The settings of schroeder2024 §5.3's title comparison: the single share
    /// [`TITLE_CONTEXT_SHARE`] (50 % of the bios), otherwise the defaults.
    pub fn title_context() -> RetestOptions {
        RetestOptions {
            shares: vec![TITLE_CONTEXT_SHARE],
            ..RetestOptions::default()
        }
    }
}

/// Result of [`title_context_study`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TitleContextReport {
    /// Number of titles (one per class).
    pub n_titles: usize,
    /// Number of targets in context (bios).
    pub n_targets: usize,
    /// The measure on the titles: the baseline of the deviations.
    pub title_value: f64,
    /// The measure on all targets in context, for reference.
    pub full_value: f64,
    /// The normalisation used.
    pub range: ScoreRange,
    /// Subsets per share.
    pub repeats: usize,
    /// The seed.
    pub seed: u64,
    /// One entry per share: `|m(subset of the bios) − m(titles)|`, summarised.
    pub shares: Vec<ShareDeviation>,
}

/// schroeder2024 §5.3: the measure "computed on job titles (single words) and on 50 % of the
/// bios (job titles in context)", as absolute differences normalised to `[0, 1]` (WEAT divided
/// by 4).
///
/// Row `c` of `titles` is the title (a single word) of class `c`; `targets` are the texts in
/// context, labelled by `labels` (class and group of every row). The baseline is the measure on
/// the titles; then, as in [`retest_study`], random subsets of the targets are drawn for every
/// share of `options` ([`RetestOptions::title_context`]: 50 %) and their deviation from the
/// baseline is summarised. For WEAT the titles are sorted into X and Y by their classes' group
/// counts on all targets; the subsets by `split` (their own counts under
/// [`WeatSplit::PerSubset`]). A `None` range in `options` becomes the measure's
/// ([`EmbedMeasure::range`]). The paper reports the mean (± sd) over models and subsets: pool
/// the reports of several models with [`pool_deviations`].
///
/// # Errors
/// As [`retest_study`]; [`RobustError::InvalidParameter`] if `labels` does not have one entry per
/// target, a class has no title row, a title row's class has no target, or the titles and
/// targets differ in dimension; [`RobustError::EmptyWeatSide`] when WEAT finds X or Y empty on
/// the titles or a subset; [`RobustError::Embed`] when the measure fails on the titles or a
/// subset.
pub fn title_context_study(
    titles: ArrayView2<'_, f64>,
    targets: ArrayView2<'_, f64>,
    labels: &TargetLabels<'_>,
    measure: &EmbedMeasure<'_>,
    options: &RetestOptions,
) -> Result<TitleContextReport, RobustError> {
    let n = targets.nrows();
    check_labels(measure, Some(labels), n)?;
    check_options(n, options)?;
    if titles.ncols() != targets.ncols() {
        return Err(RobustError::invalid(
            "titles",
            format!("dimension {}", titles.ncols()),
            format!(
                "the targets' dimension {}: embed both with the same model",
                targets.ncols()
            ),
        ));
    }
    if titles.nrows() < labels.n_classes() {
        return Err(RobustError::invalid(
            "titles",
            format!("{} rows", titles.nrows()),
            format!(
                "one title row per class 0..{} (row c is the title of class c)",
                labels.n_classes()
            ),
        ));
    }
    let mut seen = vec![false; titles.nrows()];
    for &c in labels.class() {
        seen[c] = true;
    }
    if let Some(c) = seen.iter().position(|&s| !s) {
        return Err(RobustError::invalid(
            format!("title row {c}"),
            "a class without targets",
            "a class that labels at least one target: drop the title or add its texts",
        ));
    }
    let options = with_default_range(options, measure.range());
    let prepared = Prepared::new(measure, targets, Some(labels))?;
    // The titles: row c has class c; WEAT sorts them by the classes' counts on all targets.
    let title_rows: Vec<usize> = (0..titles.nrows()).collect();
    let title_value = finite(
        value_on(measure, &measure.terms(titles)?, &title_rows, || {
            title_rows.iter().partition(|&&c| prepared.fixed[c])
        })?,
        "measure on the titles",
    )?;
    let all: Vec<usize> = (0..n).collect();
    let full_value = finite(prepared.eval(&all)?, "measure on all targets")?;
    let eval = |idx: &[usize]| prepared.eval(idx);
    let shares = deviation_study(n, title_value, &eval, &options)?;
    Ok(TitleContextReport {
        n_titles: titles.nrows(),
        n_targets: n,
        title_value,
        full_value,
        range: options.range.expect("set above"),
        repeats: options.repeats,
        seed: options.seed,
        shares,
    })
}

/// Deviations pooled over several reports (e.g. one per model): what schroeder2024 §5.3 gives as
/// "0.0454 (+/- 0.0368)" and Fig. 3 plots, the mean and sd over all models' subsets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PooledDeviation {
    /// Subsets pooled (the sum of [`ShareDeviation::evaluated`]).
    pub n: usize,
    /// Mean normalised absolute deviation over all pooled subsets.
    pub mean: f64,
    /// Sample standard deviation (divisor `n − 1`; 0 for one subset) over all pooled subsets.
    pub sd: f64,
}

/// Pools [`ShareDeviation`]s (typically the same share of several models' reports) into the
/// mean and sd over all their subsets, exactly as if the normalised deviations had been
/// concatenated: `mean = Σ nᵢ·meanᵢ / N`, `sd² = (Σ (nᵢ−1)·sdᵢ² + nᵢ·(meanᵢ − mean)²) / (N − 1)`.
///
/// # Errors
/// [`RobustError::InvalidParameter`] when nothing is pooled (no entries, or none evaluated).
pub fn pool_deviations(shares: &[&ShareDeviation]) -> Result<PooledDeviation, RobustError> {
    let n: usize = shares.iter().map(|s| s.evaluated).sum();
    if n == 0 {
        return Err(RobustError::invalid(
            "shares",
            format!("{} entries, 0 subsets", shares.len()),
            "at least one evaluated subset to pool: pass the models' reports for one share",
        ));
    }
    let nf = n as f64;
    let mean = shares
        .iter()
        .map(|s| s.evaluated as f64 * s.mean_abs_deviation)
        .sum::<f64>()
        / nf;
    let sd = if n > 1 {
        let ss: f64 = shares
            .iter()
            .filter(|s| s.evaluated > 0)
            .map(|s| {
                let k = s.evaluated as f64;
                (k - 1.0) * s.sd * s.sd + k * (s.mean_abs_deviation - mean).powi(2)
            })
            .sum();
        (ss / (nf - 1.0)).sqrt()
    } else {
        0.0
    };
    Ok(PooledDeviation { n, mean, sd })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn two_fixed_sets_keep_their_sides_under_both_splits() {
        let x = array![[1.0, 0.0], [0.9, 0.1]];
        let y = array![[0.0, 1.0], [0.1, 0.9], [0.2, 0.8]];
        let t = WeatTargets::from_sets(x.view(), y.view()).unwrap();
        // 2 + 3 rows, X first; each row its own class; group 0 for X, 1 for Y.
        assert_eq!(t.targets.dim(), (5, 2));
        assert_eq!(t.targets.row(2), y.row(0));
        assert_eq!(t.class, [0, 1, 2, 3, 4]);
        assert_eq!(t.group, [0, 0, 1, 1, 1]);
        let labels = t.labels().unwrap();
        assert_eq!(labels.n_classes(), 5);
        for split in [WeatSplit::PerSubset, WeatSplit::Fixed] {
            assert_eq!(
                labels.split(&[0, 1, 2, 3, 4], split),
                (vec![0, 1], vec![2, 3, 4])
            );
            assert_eq!(labels.split(&[1, 3], split), (vec![1], vec![3]));
        }
    }

    #[test]
    fn sets_of_different_dimensions_are_refused() {
        let x = array![[1.0, 0.0]];
        let y = array![[1.0, 0.0, 0.0]];
        let e = WeatTargets::from_sets(x.view(), y.view()).unwrap_err();
        assert!(
            matches!(
                e,
                RobustError::Embed(EmbedError::DimensionMismatch { left: 2, right: 3 })
            ),
            "{e}"
        );
    }
}
