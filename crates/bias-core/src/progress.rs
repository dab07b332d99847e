//! Progress of long work as plain lines at a steady pace, for a log that is a file rather than
//! a terminal (a Slurm job's stderr, `nohup`, CI): `done / total`, the share done, the rate of
//! this process and the time left. A front end prints the lines [`ProgressLine::update`] gives;
//! on a terminal it may draw a bar instead.
//!
//! The rate counts only the work of this process: a resumed run that starts at 640 of 1,508
//! pairs reports the pace of what it scores, not 640 pairs in its first second.

use std::time::{Duration, Instant};

/// Lines for one piece of long work (`bias score`'s pairs of one data set, a fine-tuning's
/// steps), at most one every `every` and always one for the first and the last update.
#[derive(Debug, Clone)]
pub struct ProgressLine {
    title: String,
    unit: &'static str,
    every: Duration,
    /// When and at how many done the first update came.
    first: Option<(Instant, usize)>,
    /// When the last line was given.
    last: Option<Instant>,
    detail: String,
}

impl ProgressLine {
    /// Lines titled `title`, counting `unit` (`pairs`, `steps`), at most one every `every`.
    pub fn new(title: impl Into<String>, unit: &'static str, every: Duration) -> Self {
        ProgressLine {
            title: title.into(),
            unit,
            every,
            first: None,
            last: None,
            detail: String::new(),
        }
    }

    /// Text appended to the next lines (a fine-tuning's loss and learning rate).
    pub fn set_detail(&mut self, detail: impl Into<String>) {
        self.detail = detail.into();
    }

    /// The line to print for `done` of `total` now, or `None` while the last line is younger
    /// than the pace (the first update and the one that reaches `total` always give a line).
    pub fn update(&mut self, done: usize, total: usize) -> Option<String> {
        self.update_at(done, total, Instant::now())
    }

    /// [`ProgressLine::update`] at the time `now` (for a test's clock).
    pub fn update_at(&mut self, done: usize, total: usize, now: Instant) -> Option<String> {
        let (start, start_done) = *self.first.get_or_insert((now, done));
        let due = match self.last {
            None => true,
            Some(last) => done >= total || now.duration_since(last) >= self.every,
        };
        if !due {
            return None;
        }
        self.last = Some(now);
        let elapsed = now.duration_since(start).as_secs_f64();
        let worked = done.saturating_sub(start_done);
        let rate = (elapsed > 0.0 && worked > 0).then(|| worked as f64 / elapsed);
        Some(self.line(done, total, rate))
    }

    fn line(&self, done: usize, total: usize, rate: Option<f64>) -> String {
        let unit = self.unit;
        let share = if total == 0 {
            100.0
        } else {
            100.0 * done as f64 / total as f64
        };
        let mut line = format!("{}: {done}/{total} {unit} ({share:.1}%)", self.title);
        match rate {
            Some(r) => {
                let left = total.saturating_sub(done) as f64 / r;
                line += &format!(", {} {unit}/s, {} left", rate_text(r), duration_text(left));
            }
            None if done < total => line += ", rate not yet known",
            None => {}
        }
        if !self.detail.is_empty() {
            line += &format!(", {}", self.detail);
        }
        line
    }
}

/// A rate: no decimals from 100 on, one from 1 on, three below 1.
fn rate_text(rate: f64) -> String {
    if rate >= 100.0 {
        format!("{rate:.0}")
    } else if rate >= 1.0 {
        format!("{rate:.1}")
    } else {
        format!("{rate:.3}")
    }
}

/// `3h05m`, `4m07s` or `12s`, rounded to the second.
fn duration_text(seconds: f64) -> String {
    let s = seconds.round().max(0.0) as u64;
    match (s / 3600, s % 3600 / 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_at_the_pace_with_rate_and_time_left() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut p = ProgressLine::new("gpt2 on crows-pairs", "pairs", Duration::from_secs(30));
        // A resumed run: 640 of 1508 done before this process began.
        assert_eq!(
            p.update_at(640, 1508, at(0)).unwrap(),
            "gpt2 on crows-pairs: 640/1508 pairs (42.4%), rate not yet known"
        );
        assert_eq!(p.update_at(704, 1508, at(10)), None, "10 s < 30 s");
        // 128 pairs in 40 s: 3.2 pairs/s; 740 left / 3.2 = 231.25 s = 3m51s.
        assert_eq!(
            p.update_at(768, 1508, at(40)).unwrap(),
            "gpt2 on crows-pairs: 768/1508 pairs (50.9%), 3.2 pairs/s, 3m51s left"
        );
        assert_eq!(p.update_at(800, 1508, at(50)), None);
        p.set_detail("loss 2.310");
        // The last update always prints: 868 pairs in 270 s = 3.21 pairs/s.
        assert_eq!(
            p.update_at(1508, 1508, at(270)).unwrap(),
            "gpt2 on crows-pairs: 1508/1508 pairs (100.0%), 3.2 pairs/s, 0s left, loss 2.310"
        );
    }

    #[test]
    fn durations_and_rates_read_at_a_glance() {
        assert_eq!(duration_text(11_100.0), "3h05m");
        assert_eq!(duration_text(247.4), "4m07s");
        assert_eq!(duration_text(12.0), "12s");
        assert_eq!(rate_text(1234.4), "1234");
        assert_eq!(rate_text(0.25), "0.250");
    }
}
