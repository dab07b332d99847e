//! liu2024's measures on a score table: the indicator percentage (Eq. 2), KLS (Eq. 6) and JSS
//! (Eq. 9) per bias type and weighted (Eqs. 10–11), in the layout of the paper's tables, plus the
//! PLL score-group analysis of Table 4, for one score table (one model). Every table and figure
//! of the paper across several models, from model folders, is `bias reproduce liu2024` (or the
//! `liu2024_kls_jss` example, the same library call).
//!
//! ```sh
//! cargo run --release -p bias-examples --example liu2024_measures -- [SCORES.csv]
//! ```
//!
//! Without an argument it reads the demo table `fixtures/scores/crows_pairs_unigram.csv`
//! (CrowS-Pairs scored by a word-unigram model; see the README).

use std::error::Error;
use std::path::PathBuf;

use bias_core::{BiasMeasure, ScoreTable};
use bias_metrics::{score_group_analysis, DistributionOptions, Indicator, Jss, JssVariant, Kls};

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args_os().nth(1).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/scores/crows_pairs_unigram.csv")
        },
        PathBuf::from,
    );
    let table = ScoreTable::read_csv_path(&path)?;
    for scorer in table.scorers() {
        let t = table.for_scorer(scorer);
        let options = DistributionOptions::default();
        let measures = [
            Indicator::default().measure(&t)?,
            Kls::new(options).measure(&t)?,
            Jss::new(JssVariant::AuthorsCode, options).measure(&t)?,
        ];
        println!("{} — scorer {scorer}, {} pairs\n", path.display(), t.len());
        println!("| bias type | n | indicator | KLS | JSS |");
        println!("|---|---:|---:|---:|---:|");
        for (ty, v) in &measures[0].by_type {
            let cell = |i: usize| measures[i].by_type[ty].value;
            println!(
                "| {ty} | {} | {:.2} | {:.2} | {:.2} |",
                v.n,
                cell(0),
                cell(1),
                cell(2)
            );
        }
        println!(
            "| **overall** | {} | {:.2} | {:.2} | {:.2} |",
            t.len(),
            measures[0].value,
            measures[1].value,
            measures[2].value
        );
        let g = score_group_analysis(&t)?;
        let fmt = |s: Option<bias_metrics::ScoreGroupStats>| {
            s.map_or("(empty)".to_owned(), |s| {
                format!(
                    "n = {}, avg stereo {:.4}, avg anti {:.4}, |Δ| {:.4}",
                    s.n, s.mean_stereo, s.mean_anti, s.abs_delta
                )
            })
        };
        println!("\nTable 4 (PLL score groups)");
        println!("  stereotype group:      {}", fmt(g.stereotype_group));
        println!("  anti-stereotype group: {}", fmt(g.anti_stereotype_group));
        println!("  |Δst| − |Δat| = {:.4}\n", g.delta_difference);
    }
    Ok(())
}
