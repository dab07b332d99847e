//! Statistics with reference checks against scipy, scikit-learn and statsmodels.
//!
//! Every function here is checked against committed fixtures (`fixtures/stats/*.json`, written
//! by `scripts/fixtures/stats_cases.py`) holding the values of the reference implementation named
//! in its documentation; [`quantile_linear`] (numpy's default quantile) is checked against numpy
//! values, and [`scott_bandwidth`] / [`gaussian_kde`] against `scipy.stats.gaussian_kde` values,
//! written in their tests.

mod binomial;
mod correlation;
mod kde;
mod mcnemar;
mod multitest;
mod mutual_info;
mod permutation;
mod quantile;
mod ranks;
mod roc;
mod shapiro;
mod validate;

pub use binomial::{detectable_deviation, sign_test, sign_test_power};
pub use correlation::{
    correlation_p_value, kendall_tau_a, kendall_tau_b, kendall_tau_b_value, pearson, spearman,
    Correlation, KendallPMethod, KendallTau,
};
pub use kde::{gaussian_kde, scott_bandwidth};
pub use mcnemar::{mcnemar_chi2, mcnemar_exact, mcnemar_table, McNemar};
pub use multitest::Correction;
pub use mutual_info::{mutual_info_continuous, mutual_info_discrete_continuous};
pub use permutation::{sign_flip_test, Alternative, PermutationOptions, PermutationTest};
pub use quantile::quantile_linear;
pub use ranks::average_ranks;
pub use roc::{roc_auc, roc_curve, RocCurve};
pub use shapiro::{shapiro_wilk, ShapiroWilk};
