//! Schröder, Schulz & Hammer (2024), "The SAME score", end to end on one or more masked LMs: the
//! same library call as `bias reproduce schroeder2024`
//! ([`bias_papers::reproduce_schroeder2024_with`]). Per bias type of the paper's
//! Table 1 it keeps the CrowS-Pairs pairs the authors' code keeps (their defining sets, shipped
//! in `crates/bias-embed/data/`), masks the group tokens of `sent_more`, embeds the targets and
//! the defining terms with each model (mean of the last layer), computes SAME, WEAT / gWEAT and
//! DirectBias per sample and aggregated beside each model's CPS, and writes Tables 1–3, Figures
//! 1–3 (on the data here: the CrowS-Pairs columns and halves; BIOS and Jigsaw are out of reach)
//! and the index into `--out`. It prints the index and the per-model scores.
//!
//! ```sh
//! cargo run --release -p bias-examples --example schroeder2024_same -- \
//!     [--model DIR]... [--data-dir data] [--out out/schroeder2024-example] [--max-pairs N] \
//!     [--filter authors|single-span] [--split authors|sent-more] [--masking per-token|per-span]
//! ```
//!
//! Without `--model` the example studies `data/demo-mlm` (built by `make demo`), else the tiny
//! random `fixtures/models/bert`, whose numbers mean nothing. Table 3 and Figure 2 compare
//! models: give several (the paper has 26).

use std::error::Error;
use std::path::PathBuf;

use bias_embed::protocol::{CrowsFilter, Masking, TargetSplit};
use bias_papers::{reproduce_schroeder2024_with, Paper, Reproduction, SchroederOptions, Study};
use bias_plm::{DeviceSpec, MaskedLm, StudiedMlm};

#[path = "common/mod.rs"]
mod common;
use common::{default_model, resolve};

const USAGE: &str = "usage: schroeder2024_same [--model DIR]... [--data-dir DIR] [--out DIR] \
                     [--max-pairs N] [--filter authors|single-span] [--split authors|sent-more] \
                     [--masking per-token|per-span]";

fn main() -> Result<(), Box<dyn Error>> {
    let mut model_dirs: Vec<PathBuf> = Vec::new();
    let mut data_dir = PathBuf::from("data");
    let mut out_dir = PathBuf::from("out/schroeder2024-example");
    let mut max_pairs = None;
    let mut options = SchroederOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--model" => model_dirs.push(value()?.into()),
            "--data-dir" => data_dir = value()?.into(),
            "--out" => out_dir = value()?.into(),
            "--max-pairs" => max_pairs = Some(value()?.parse::<usize>()?),
            "--filter" => {
                options.filter = match value()?.as_str() {
                    "authors" => CrowsFilter::Authors,
                    "single-span" => CrowsFilter::SingleSpan,
                    o => return Err(format!("--filter {o:?}: authors or single-span").into()),
                }
            }
            "--split" => {
                options.split = match value()?.as_str() {
                    "authors" => TargetSplit::Authors,
                    "sent-more" => TargetSplit::SentMore,
                    o => return Err(format!("--split {o:?}: authors or sent-more").into()),
                }
            }
            "--masking" => {
                options.masking = match value()?.as_str() {
                    "per-token" => Masking::PerToken,
                    "per-span" => Masking::PerSpan,
                    o => return Err(format!("--masking {o:?}: per-token or per-span").into()),
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}").into()),
        }
    }
    if model_dirs.is_empty() {
        model_dirs.push(default_model());
    }
    let mut models = Vec::new();
    for dir in model_dirs {
        let lm = MaskedLm::open(resolve(dir), DeviceSpec::Auto, tch::Kind::Float)?;
        // The MLM experiment compares with CPS only (Schröder et al. 2024 Eq. 10).
        models.push(StudiedMlm::new(lm).with_scorers(vec!["cps".into()]));
    }
    let mut study =
        Study::new(models, resolve(data_dir), out_dir.join("scores"))?.with_max_pairs(max_pairs);
    let dir = out_dir.join("schroeder2024");
    let mut out = Reproduction::create(Paper::Schroeder2024, &dir)?;
    let result = reproduce_schroeder2024_with(&mut study, &mut out, &options);
    let artifacts = out.finish()?;
    result?;
    println!(
        "# Schröder, Schulz & Hammer (2024) on {}\n",
        study.model_names().join(", ")
    );
    for a in &artifacts {
        println!("- {} ({}): {}", a.id, a.status.label(), a.title);
    }
    for id in ["table-1", "analysis-4.3.4", "table-3"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(format!("{id}.md"))) {
            println!("\n{text}");
        }
    }
    println!("index: {}", dir.join("index.html").display());
    Ok(())
}
