//! The report's sections of `bias task`'s results: one per benchmark found in the folders given
//! with `--tasks` (`bbq.json`, `winogender.json`, `stereoset-<split>.json`), the same tables
//! `bias task` prints, with their interval and direction notes.

use std::path::Path;

use bias_report::report::Section;
use bias_tasks::winogender::WinogenderAccuracy;
use bias_tasks::BbqSummary;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::commands::task_tables::{self as tables, TaskTable};
use crate::error::CliError;

#[derive(Deserialize)]
struct Model {
    model: String,
}

#[derive(Deserialize)]
struct Winogender {
    accuracies: Vec<WinogenderAccuracy>,
}

#[derive(Deserialize)]
struct StereoSet {
    split: String,
    /// Absent in results written before the next-sentence head (they were conditional).
    #[serde(default)]
    intersentence: bias_tasks::stereoset::Intersentence,
    scores: bias_metrics::stereoset::StereoSetFullScores,
    intervals: bias_metrics::stereoset::StereoSetIntervals,
    /// Absent in results written before every row had its test.
    #[serde(default)]
    statistics: Option<Vec<bias_metrics::stereoset::RowStatistics>>,
}

fn read<T: DeserializeOwned>(path: &Path) -> Result<T, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| bias_core::CoreError::io(path, e))?;
    serde_json::from_str(&text).map_err(|e| {
        CliError::Usage(format!(
            "{}: not a result of `bias task` ({e}); give --tasks the folders `bias task --out` \
             wrote",
            path.display()
        ))
    })
}

fn push(section: Section, tables: Vec<TaskTable>) -> Section {
    tables.into_iter().fold(section, |s, t| {
        s.text(t.title)
            .table(&t.headers, t.rows)
            .text(t.note.replace('\n', " "))
    })
}

/// One section per benchmark result in `dirs`, in the order BBQ, Winogender, StereoSet (splits
/// by name); `None` when there is none.
///
/// # Errors
/// [`CliError::Usage`] naming a result file that does not parse; an I/O error.
pub fn sections(dirs: &[impl AsRef<Path>]) -> Result<Option<Section>, CliError> {
    let mut bbq = Vec::new();
    let mut winogender = Vec::new();
    let mut stereoset = Vec::new();
    for dir in dirs {
        let dir = dir.as_ref();
        let entries = std::fs::read_dir(dir).map_err(|e| bias_core::CoreError::io(dir, e))?;
        let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for path in files {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name == "bbq.json" {
                let model: Model = read(&path)?;
                bbq.extend(tables::bbq(&model.model, &read::<BbqSummary>(&path)?));
            } else if name == "winogender.json" {
                let model: Model = read(&path)?;
                let w: Winogender = read(&path)?;
                winogender.extend(tables::winogender(&model.model, &w.accuracies));
            } else if name.starts_with("stereoset-") && name.ends_with(".json") {
                let model: Model = read(&path)?;
                let s: StereoSet = read(&path)?;
                stereoset.extend(tables::stereoset(
                    &model.model,
                    &s.split,
                    s.intersentence,
                    &s.scores,
                    &s.intervals,
                    s.statistics.as_deref(),
                ));
            }
        }
    }
    if bbq.is_empty() && winogender.is_empty() && stereoset.is_empty() {
        return Ok(None);
    }
    let mut section =
        Section::new("Benchmarks: BBQ, Winogender, StereoSet in full").anchor("tasks");
    for (title, anchor, tables) in [
        ("BBQ (Parrish et al. 2022)", "tasks-bbq", bbq),
        (
            "Winogender (Rudinger et al. 2018)",
            "tasks-winogender",
            winogender,
        ),
        (
            "StereoSet, both tasks (Nadeem et al. 2021)",
            "tasks-stereoset",
            stereoset,
        ),
    ] {
        if !tables.is_empty() {
            section = section.details(title, push(Section::new(title).anchor(anchor), tables));
        }
    }
    Ok(Some(section))
}
