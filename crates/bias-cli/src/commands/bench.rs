//! `bias bench`: the scorers timed on a model (sentences/s, forward passes, GMAC/s), the share
//! of this machine's matmul peak each reached (the peak measured in the same run at the model's
//! shapes, [`bias_plm::bench::MatmulPeak`]), and peak memory against the weights' size.

use bias_core::Scorer;
use std::io::Write;

use bias_plm::bench::{MatmulPeak, ScorerBench};
use bias_plm::{LanguageModel, PlmError};
use clap::Args;

use crate::choice::choice;
use crate::error::CliError;
use crate::model_args::ModelArgs;
use crate::output::{fixed, write_json, Format, Grid};

/// Arguments of `bias bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Scorers to time, each on its own [default: aul,cps for a masked LM, ll-sum for a causal
    /// LM].
    #[arg(long, value_parser = choice::<Scorer>(), ignore_case = true, value_delimiter = ',')]
    scorers: Vec<Scorer>,
    /// Output format (the table's header line is printed with `table` only).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Runs `bias bench`.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> Result<(), CliError> {
    let (_, pairs) = args.model.pairs()?;
    let lm = args.model.open()?;
    let tokenised: Vec<_> = pairs
        .iter()
        .map(|p| Ok((p, lm.encode(&p.stereo)?, lm.encode(&p.anti)?)))
        .collect::<Result<_, PlmError>>()?;
    let tokens: usize = tokenised.iter().map(|(_, s, a)| s.len() + a.len()).sum();
    let (layers, hidden, vocab) = lm.shape();
    // The peak is measured before the scorers, in this run, at the model's own shapes.
    let peak = MatmulPeak::of_model(&lm)?;
    let weights = lm.weight_bytes();
    let mut header = format!(
        "model {} ({} {}, {layers} layers, hidden {hidden}, vocab {vocab}), {} pairs \
         ({} sentences, {tokens} tokens), {} threads",
        lm.name(),
        lm.family(),
        lm.model_type(),
        pairs.len(),
        2 * pairs.len(),
        tch::get_num_threads()
    );
    if let Some(p) = &peak {
        header += &format!(
            "\nmatmul peak {} GFLOP/s ({})",
            fixed(p.flops_per_second / 1e9, 1),
            p.shape_label()
        );
    }
    if let Some(w) = weights {
        header += &format!("; weights {} MiB", fixed(mib(w), 0));
    }
    let mut g = Grid::new([
        "scorer",
        "sentences/s",
        "tokens/s",
        "forward passes",
        "seconds",
        "GMAC/s",
        "% of peak",
        "peak RSS MiB",
        "RSS / weights",
    ]);
    let names: Vec<&str> = if args.scorers.is_empty() {
        match lm {
            LanguageModel::Causal(_) => vec![Scorer::LlSum.name()],
            _ => vec![Scorer::Aul.name(), Scorer::Cps.name()],
        }
    } else {
        args.scorers.iter().map(|s| s.name()).collect()
    };
    let na = || "n/a".to_owned();
    for name in names {
        let b = ScorerBench::run(&lm, name, args.model.options(), &tokenised)?;
        let rss = b.peak_rss_bytes;
        g.push(vec![
            name.to_owned(),
            fixed(b.sentences as f64 / b.seconds, 1),
            fixed(b.tokens as f64 / b.seconds, 0),
            b.stats.forward_passes.to_string(),
            fixed(b.seconds, 2),
            fixed(b.gmac_per_second(), 2),
            peak.map_or_else(na, |p| fixed(100.0 * b.share_of(&p), 1)),
            rss.map_or_else(na, |r| fixed(mib(r), 0)),
            rss.zip(weights)
                .map_or_else(na, |(r, w)| fixed(r as f64 / w as f64, 2)),
        ]);
    }
    match args.format {
        Format::Table => {
            writeln!(out, "{header}")?;
            g.write_table(out)
        }
        Format::Csv => g.write_csv(out),
        Format::Json => write_json(&g.records(), out),
    }
}

/// Bytes in MiB.
fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
