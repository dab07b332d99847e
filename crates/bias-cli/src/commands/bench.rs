//! `bias bench`: the scorers timed on a model (sentences/s, forward passes, GMAC/s, memory).

use bias_core::Scorer;
use std::io::Write;
use std::time::Instant;

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
    let header = format!(
        "model {} ({} {}, {layers} layers, hidden {hidden}, vocab {vocab}), {} pairs \
         ({} sentences, {tokens} tokens), {} threads",
        lm.name(),
        lm.family(),
        lm.model_type(),
        pairs.len(),
        2 * pairs.len(),
        tch::get_num_threads()
    );
    let mut g = Grid::new([
        "scorer",
        "sentences/s",
        "tokens/s",
        "forward passes",
        "seconds",
        "GMAC/s",
        "peak RSS MiB",
    ]);
    let names: Vec<&str> = if args.scorers.is_empty() {
        match lm {
            LanguageModel::Causal(_) => vec![Scorer::LlSum.name()],
            _ => vec![Scorer::Aul.name(), Scorer::Cps.name()],
        }
    } else {
        args.scorers.iter().map(|s| s.name()).collect()
    };
    for name in names {
        // Warm-up (allocator, oneDNN kernels) on a few pairs, untimed and uncounted.
        lm.scorer(&[name], args.model.options())?
            .score_tokenised(&tokenised[..tokenised.len().min(4)])?;
        let mut scorer = lm.scorer(&[name], args.model.options())?;
        let started = Instant::now();
        scorer.score_tokenised(&tokenised)?;
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        let st = scorer.stats();
        g.push(vec![
            name.to_owned(),
            fixed(2.0 * pairs.len() as f64 / secs, 1),
            fixed(tokens as f64 / secs, 0),
            st.forward_passes.to_string(),
            fixed(secs, 2),
            fixed(lm.multiply_adds(&st) / secs / 1e9, 2),
            peak_rss_mib().map_or("n/a".into(), |m| fixed(m, 0)),
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

/// Peak resident memory of this process (Linux `VmHWM`), in MiB.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
