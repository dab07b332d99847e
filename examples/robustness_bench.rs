//! Times liu2024's sub-sampling robustness study (Robustness Study, Tables 4–5): 100 seeded
//! stratified sub-samples at each of the rates 0.3 … 0.8 of one score table, with the indicator
//! percentage, KLS and JSS (the authors' closed form) and the score-group analysis on each.
//!
//! ```sh
//! cargo run --release -p bias-examples --example robustness_bench -- [SCORES.csv] [REPEATS]
//! ```
//!
//! Without arguments it reads the demo table `fixtures/scores/crows_pairs_unigram.csv`. Set
//! `RAYON_NUM_THREADS` to choose the thread count.

use std::error::Error;
use std::path::PathBuf;
use std::time::Instant;

use bias_core::ScoreTable;
use bias_metrics::{DistributionOptions, Indicator, Jss, JssVariant, Kls};
use bias_robust::{subsample_study, RobustnessOptions, SyncMeasure};

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/scores/crows_pairs_unigram.csv")
        },
        PathBuf::from,
    );
    let repeats: usize = args.next().map_or(Ok(100), |s| s.parse())?;
    let table = ScoreTable::read_csv_path(&path)?;
    let models: Vec<(String, ScoreTable)> = table
        .slices()
        .into_iter()
        .map(|s| (format!("{} / {}", s.model, s.scorer), s.table))
        .collect();
    let options = DistributionOptions::default();
    let indicator = Indicator::default();
    let kls = Kls::new(options);
    let jss = Jss::new(JssVariant::AuthorsCode, options);
    let measures: [SyncMeasure<'_>; 3] = [&indicator, &kls, &jss];
    let sampling = RobustnessOptions {
        repeats,
        ..RobustnessOptions::default()
    };

    let start = Instant::now();
    let report = subsample_study(&models, &measures, &sampling)?;
    let seconds = start.elapsed().as_secs_f64();

    println!(
        "{} — {} model(s), {} rates × {} repeats, {} rayon thread(s)\n",
        path.display(),
        models.len(),
        sampling.rates.len(),
        sampling.repeats,
        rayon::current_num_threads()
    );
    println!("| model | measure | rate | n | full | mean | sd | 2.5 % | 97.5 % |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for m in &report.measure_stats {
        let s = m.summary;
        println!(
            "| {} | {} | {:.1} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            m.model, m.measure, m.rate, m.n, m.full, s.mean, s.sd, s.q025, s.q975
        );
    }
    println!("\n| model | rate | full |Δst|−|Δat| | mean | sd | Δsp (mean) | mean |Δsp| |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for g in &report.score_groups {
        println!(
            "| {} | {:.1} | {:.4} | {:.4} | {:.4} | {:+.4} | {:.4} |",
            g.model,
            g.rate,
            g.full,
            g.delta_difference.mean,
            g.delta_difference.sd,
            g.shift,
            g.mean_abs_shift
        );
    }
    println!("\nstudy took {seconds:.3} s");
    Ok(())
}
