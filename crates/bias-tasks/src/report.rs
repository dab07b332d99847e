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

/// A generative BBQ run's report (lm-evaluation-harness's `bbq_generate`): the numbers of a
/// [`BbqReport`], where the generation stopped, and each example's answer as parsed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BbqGenerateReport {
    /// Always `bbq_generate`.
    pub task: &'static str,
    /// The model's name.
    pub model: String,
    /// How many examples were generated for.
    pub examples: usize,
    /// The categories, in the order they were read.
    pub categories: Vec<&'static str>,
    /// The token limit of each generation (`max_gen_toks`).
    pub max_new_tokens: usize,
    /// Prompts resumed and where each generation stopped.
    pub generation: crate::generation::GenerationSummary,
    /// Each example's answer: its id, category, and the choice its generation names (`null`
    /// for none), in input order.
    pub answers: Vec<GeneratedAnswer>,
    /// The numbers.
    #[serde(flatten)]
    pub summary: BbqSummary,
}

/// One example's answer in a [`BbqGenerateReport`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeneratedAnswer {
    /// BBQ's `example_id`.
    pub example_id: u64,
    /// The category.
    pub category: &'static str,
    /// The choice named (one of the twelve), or `None`.
    pub answer: Option<String>,
}

impl BbqGenerateReport {
    /// The report of `run` of `model` on `examples` of `categories`, generated up to
    /// `max_new_tokens` tokens.
    pub fn new(
        model: &str,
        examples: &[bias_data::bbq::BbqExample],
        categories: &[BbqCategory],
        max_new_tokens: usize,
        run: &crate::bbq_generate::BbqGenerateRun,
    ) -> Result<Self, crate::TaskError> {
        let answers = examples
            .iter()
            .zip(&run.parsed)
            .map(|(e, p)| {
                let doc = crate::BbqDoc::new(e)?;
                Ok(GeneratedAnswer {
                    example_id: e.example_id,
                    category: e.category.name(),
                    answer: p.map(|i| doc.choices()[i].clone()),
                })
            })
            .collect::<Result<_, crate::TaskError>>()?;
        Ok(BbqGenerateReport {
            task: "bbq_generate",
            model: model.to_owned(),
            examples: examples.len(),
            categories: categories.iter().map(|c| c.name()).collect(),
            max_new_tokens,
            generation: run.generation,
            answers,
            summary: run.summary.clone(),
        })
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
