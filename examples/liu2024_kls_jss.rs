//! liu2024 end to end on one or more masked LMs: the same library call as
//! `bias reproduce liu2024` ([`bias_papers::reproduce_liu2024`]). It scores StereoSet
//! (intrasentence dev) and CrowS-Pairs with AUL, CPS and SSS, writes Tables 1–5 and Figures 2,
//! 4 and 5 of Liu et al. (2024) (Figures 1 and 3 are schematic drawings, listed as such) into
//! `--out` with an index, and prints Table 2 (SSS / CPS beside AUL, KLS, JSS, the models ranked
//! per measure) and the order changes of Figure 5.
//!
//! ```sh
//! cargo run --release -p bias-examples --example liu2024_kls_jss -- \
//!     [--model DIR]... [--data-dir data] [--out out/liu2024-example] [--max-pairs N] \
//!     [--jss authors|paper] [--repeats 100] [--seed 0] [--threads N]
//! ```
//!
//! `--model` may be repeated: the paper compares three models (bert-base-cased, roberta-large,
//! albert-large-v2), and its Figure 4 (Pearson r between the measures over the models) needs at
//! least 3, the mutual information at least 4. Without `--model` the example studies
//! `data/demo-mlm`, the small demonstration masked LM that `make demo` builds (a sentence
//! encoder given an MLM head and briefly fine-tuned: it shows the pipeline, not the biases of a
//! real model); without it, the tiny *random* `fixtures/models/bert`, whose numbers mean
//! nothing. Relative paths are tried from the current directory, then from the repository root.
//! `--threads` sets libtorch's intra-op threads; `RAYON_NUM_THREADS` those of the sub-sampling
//! study.

use std::error::Error;
use std::path::PathBuf;
use std::time::Instant;

use bias_metrics::JssVariant;
use bias_papers::{reproduce_liu2024, Liu2024Options, Paper, Reproduction, Study};
use bias_plm::{DeviceSpec, LanguageModel, ScoringOptions, StudiedLm};

#[path = "common/mod.rs"]
mod common;
use common::{default_model, resolve};

const USAGE: &str = "usage: liu2024_kls_jss [--model DIR]... [--data-dir DIR] [--out DIR] \
                     [--max-pairs N] [--jss authors|paper] [--repeats N] [--seed N] [--threads N]";

fn main() -> Result<(), Box<dyn Error>> {
    let mut model_dirs: Vec<PathBuf> = Vec::new();
    let mut data_dir = PathBuf::from("data");
    let mut out_dir = PathBuf::from("out/liu2024-example");
    let mut max_pairs = None;
    let mut options = Liu2024Options::default();
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
            "--jss" => {
                options.jss = match value()?.as_str() {
                    "authors" => JssVariant::AuthorsCode,
                    "paper" => JssVariant::PaperText,
                    other => return Err(format!("--jss {other:?}: authors or paper").into()),
                }
            }
            "--repeats" => options.robustness.repeats = value()?.parse()?,
            "--seed" => options.robustness.seed = value()?.parse()?,
            "--threads" => tch::set_num_threads(value()?.parse::<i32>()?.max(1)),
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
        let lm = LanguageModel::open(resolve(dir), DeviceSpec::Auto, tch::Kind::Float)?;
        // liu2024 needs AUL (its PLL score, fitted by KLS and JSS), CPS and SSS only.
        let scorers = ["aul", "cps", "sss"].map(str::to_owned).to_vec();
        // The scorer conventions of the authors' evaluation.py (matrix SSS), as `bias reproduce
        // liu2024` uses by default.
        let options =
            ScoringOptions::default().with_conventions(Paper::Liu2024.scoring_conventions());
        models.push(
            StudiedLm::new(lm)
                .with_scorers(scorers)
                .with_options(options),
        );
    }

    let started = Instant::now();
    let mut study =
        Study::new(models, resolve(data_dir), out_dir.join("scores"))?.with_max_pairs(max_pairs);
    let mut out = Reproduction::create(Paper::Liu2024, out_dir.join("liu2024"))?;
    let result = reproduce_liu2024(&mut study, &mut out, &options);
    let artifacts = out.finish()?;
    result?;
    println!(
        "# Liu et al. (2024) on {} ({:.1} s)\n",
        study.model_names().join(", "),
        started.elapsed().as_secs_f64()
    );
    for a in &artifacts {
        let detail = a.status.detail();
        println!(
            "- {} ({}): {}{}",
            a.id,
            a.status.label(),
            a.title,
            if detail.is_empty() {
                String::new()
            } else {
                format!(" — {detail}")
            }
        );
    }
    let dir = out_dir.join("liu2024");
    for id in ["table-2", "figure-5"] {
        let path = dir.join(format!("{id}.md"));
        if let Ok(text) = std::fs::read_to_string(&path) {
            println!("\n{text}");
        }
    }
    println!("index: {}", dir.join("index.html").display());
    Ok(())
}
