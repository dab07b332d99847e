//! Progress of every long command: a bar where stderr is a terminal; where it is a file (a Slurm
//! job's log, `nohup`, CI), a line at a steady pace ([`bias_core::progress::ProgressLine`]),
//! every `BIAS_PROGRESS_SECONDS` seconds (30 unless set).

use std::io::IsTerminal;
use std::time::Duration;

use bias_core::progress::ProgressLine;
use indicatif::{ProgressBar, ProgressStyle};

/// The pace of the lines where stderr is not a terminal.
const PACE_VAR: &str = "BIAS_PROGRESS_SECONDS";
const DEFAULT_PACE: Duration = Duration::from_secs(30);

/// Progress of one piece of long work, counted in `unit`s.
pub enum Progress {
    Bar(ProgressBar),
    Lines(ProgressLine),
}

impl Progress {
    /// Progress titled `title` counting `unit` (`pairs`, `steps`, `examples`).
    pub fn new(title: &str, unit: &'static str) -> Self {
        if !std::io::stderr().is_terminal() {
            return Progress::Lines(ProgressLine::new(title, unit, pace()));
        }
        let bar = ProgressBar::new(0);
        let template = format!(
            "{{prefix}} {{bar:30}} {{pos}}/{{len}} {unit}  {{per_sec}}  elapsed {{elapsed_precise}}  \
             ETA {{eta_precise}} {{msg}}"
        );
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        bar.set_prefix(title.to_owned());
        Progress::Bar(bar)
    }

    /// `done` of `total` are done.
    pub fn update(&mut self, done: usize, total: usize) {
        match self {
            Progress::Bar(bar) => {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
            Progress::Lines(lines) => {
                if let Some(line) = lines.update(done, total) {
                    eprintln!("{line}");
                }
            }
        }
    }

    /// Text shown beside the count (a fine-tuning's loss and learning rate).
    pub fn set_detail(&mut self, detail: String) {
        match self {
            Progress::Bar(bar) => bar.set_message(detail),
            Progress::Lines(lines) => lines.set_detail(detail),
        }
    }

    /// The work is done: the bar is cleared (the lines have said it).
    pub fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// `BIAS_PROGRESS_SECONDS` (a non-negative number of seconds; 0 prints every update), else 30 s.
fn pace() -> Duration {
    let Ok(text) = std::env::var(PACE_VAR) else {
        return DEFAULT_PACE;
    };
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Duration::from_secs_f64(s),
        _ => {
            eprintln!("warning: {PACE_VAR}={text:?} is not a number of seconds; using 30");
            DEFAULT_PACE
        }
    }
}

/// Runs `f` with a [`Progress`] counting `unit` (the callback `f` passes on), finished when it
/// returns.
pub fn with_progress<T>(
    title: &str,
    unit: &'static str,
    f: impl FnOnce(&mut dyn FnMut(usize, usize)) -> T,
) -> T {
    let mut progress = Progress::new(title, unit);
    let out = f(&mut |done, total| progress.update(done, total));
    progress.finish();
    out
}

/// A [`bias_plm::ProgressFn`]: one [`Progress`] for each piece of a model's work (a data set
/// scored, a fine-tuning), titled with the model that does it.
pub fn model_progress() -> bias_plm::ProgressFn {
    let mut current: Option<(String, Progress)> = None;
    Box::new(move |r: &bias_plm::WorkReport<'_>| {
        let title = format!("{}: {}", r.model, r.work);
        if current.as_ref().is_none_or(|(t, _)| *t != title) {
            let progress = Progress::new(&title, r.unit);
            current = Some((title, progress));
        }
        if let Some((_, progress)) = current.as_mut() {
            progress.update(r.done, r.total);
            if r.done >= r.total {
                progress.finish();
                current = None;
            }
        }
    })
}
