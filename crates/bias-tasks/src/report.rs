//! What one task run reports: the JSON that `bias task` writes (and `bias report --tasks` reads
//! back) and that `bias_lm` returns, built here once so that the front ends cannot drift apart.

use serde::Serialize;

use bias_data::bbq::BbqCategory;
use bias_data::layout::StereoSetSplit;

use bias_metrics::stereoset::{RowStatistics, StereoSetFullScores, StereoSetIntervals};

use crate::bbq::{BbqRun, BbqSummary};
use crate::stereoset::StereoSetRun;
use crate::winogender::WinogenderAccuracy;

/// A BBQ run's report: lm-evaluation-harness's `bbq` metrics and the BBQ authors' tables, with
/// their intervals and tests ([`BbqSummary`]), and what was run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BbqReport {
    /// Always `bbq`.
    pub task: &'static str,
    /// The model's name.
    pub model: String,
    /// How many examples were scored.
    pub examples: usize,
    /// The categories, in the order they were read.
    pub categories: Vec<&'static str>,
    /// The numbers.
    #[serde(flatten)]
    pub summary: BbqSummary,
}

impl BbqReport {
    /// The report of `run` of `model` over `examples` examples of `categories`.
    pub fn new(model: &str, examples: usize, categories: &[BbqCategory], run: &BbqRun) -> Self {
        BbqReport {
            task: "bbq",
            model: model.to_owned(),
            examples,
            categories: categories.iter().map(|c| c.name()).collect(),
            summary: run.summary(),
        }
    }
}

/// A Winogender run's report: lm-evaluation-harness's `winogender_*` accuracies with their
/// intervals and sign tests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WinogenderReport {
    /// Always `winogender`.
    pub task: &'static str,
    /// The model's name.
    pub model: String,
    /// One accuracy per task (all, gotcha, per gender).
    pub accuracies: Vec<WinogenderAccuracy>,
}

impl WinogenderReport {
    /// The report of `model`'s `accuracies`.
    pub fn new(model: &str, accuracies: Vec<WinogenderAccuracy>) -> Self {
        WinogenderReport {
            task: "winogender",
            model: model.to_owned(),
            accuracies,
        }
    }
}

/// A StereoSet run's report: SS, LMS and ICAT per task and domain as StereoSet's
/// `evaluation.py` aggregates them, their intervals and tests, and how it was run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StereoSetReport {
    /// Always `stereoset`.
    pub task: &'static str,
    /// The split.
    pub split: StereoSetSplit,
    /// The model's name.
    pub model: String,
    /// `masked` or `causal`.
    pub family: String,
    /// How the intersentence sentences were scored.
    pub intersentence: &'static str,
    /// SS, LMS and ICAT per task, domain and overall.
    pub scores: StereoSetFullScores,
    /// Bootstrap intervals of the overall numbers.
    pub intervals: StereoSetIntervals,
    /// Every row's intervals and SS's sign-flip test, Holm over the table.
    pub statistics: Vec<RowStatistics>,
}

impl StereoSetReport {
    /// The report of `run` of `model` (of `family`, `masked` or `causal`) on `split`.
    pub fn new(split: StereoSetSplit, model: &str, family: &str, run: &StereoSetRun) -> Self {
        StereoSetReport {
            task: "stereoset",
            split,
            model: model.to_owned(),
            family: family.to_owned(),
            intersentence: run.intersentence_scoring.as_str(),
            scores: run.scores.clone(),
            intervals: run.intervals.clone(),
            statistics: run.statistics.clone(),
        }
    }

    /// The run log's task name: `stereoset-dev` or `stereoset-test`.
    pub fn log_task(split: StereoSetSplit) -> String {
        format!("stereoset-{}", split.name())
    }
}
