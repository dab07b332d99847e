//! A model runtime of your own, plugged into the resumable scoring, the bias measures and the
//! robustness study through the core trait [`bias_core::PairScorer`] — no libtorch anywhere
//! (issue 11: an ONNX or candle model, a remote API or a count-based language model reuses
//! everything after the scoring).
//!
//! ```sh
//! LIBTORCH=/nonexistent cargo run --release -p bias-examples --no-default-features --example custom_scorer -- \
//!     [--data-dir data] [--out out/custom_scorer/scores.csv] [--interrupt-after CHUNKS]
//! ```
//!
//! The "runtime" here is an interpolated bigram language model estimated on the sentences of
//! the BUG corpus (Levy et al. 2021, `data/bug/full_BUG.csv`, read with
//! [`bias_data::corpus::read_sentences`]):
//!
//! - tokens: lower-cased words, i.e. maximal runs of alphanumeric characters (punctuation is
//!   dropped, `can't` gives `can` and `t`), with a start marker `<s>` before and an end marker
//!   `</s>` after every sentence; a word never seen in BUG is `<unk>`;
//! - unigram, add-one smoothed: `P₁(w) = (c(w) + 1) / (N + |V|)`, with `N` the predicted tokens
//!   of the corpus (words and end markers) and `V` its word types plus `</s>` and `<unk>`;
//! - Jelinek–Mercer interpolation with λ = [`LAMBDA`]:
//!   `P(w | h) = λ · c(h, w) / c(h) + (1 − λ) · P₁(w)`, and `P(w | h) = P₁(w)` for a history never
//!   seen in BUG (`c(h) = 0`).
//!
//! It scores each sentence two ways: `bigram-sum`, the log-likelihood `Σ ln P(wᵢ | wᵢ₋₁)` over the
//! words and the end marker, and `bigram-mean`, the same divided by the number of those tokens.
//! It reports the arg-max next-word accuracy (the token-prediction accuracy of Kaneko &
//! Bollegala 2022), and skips a pair whose two sentences map to the same token ids (including
//! pairs that differ only in words unknown to BUG: both become `<unk>`).
//!
//! CrowS-Pairs (Nangia et al. 2020) is scored with [`bias_core::run::run_scoring`] into
//! `out/custom_scorer/scores.csv`, 100 pairs per chunk, with a progress file next to it; running
//! the example again resumes after the last complete chunk (or finds the run complete and scores
//! nothing), and refuses, saying why, if the output came from another model, data set or
//! setting. `--interrupt-after K` makes the scorer fail after `K` chunks, to see a run resume.
//!
//! The table is then read back and measured as in liu2024 (Liu et al. 2024): the indicator
//! percentage (Eq. 2), KLS (Eq. 6) and JSS (Eq. 9, the authors' code) per bias type and weighted
//! overall, and the sub-sampling robustness study (stratified draws at rates 0.1 … 0.5, 10
//! seeded repeats each) with the two scorers as the two "models". A count model of BUG's
//! Wikipedia, PubMed and COVID-19 sentences is no masked LM: the numbers show the pipeline, not
//! a finding about any model anyone uses.

use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use bias_core::run::{progress_path, run_scoring, sha256_file, RunFingerprint};
use bias_core::{
    Measurement, PairOutcome, PairScore, PairScorer, RunError, ScoreTable, SentencePair,
    SentenceScore, SkipReason,
};
use bias_data::corpus::{read_sentences, CorpusFormat};
use bias_data::DataError;
use bias_metrics::MeasureSpec;
use bias_robust::{subsample_study, RobustnessOptions, SyncMeasure};

#[path = "common/mod.rs"]
mod common;
use common::resolve;

const USAGE: &str = "usage: custom_scorer [--data-dir DIR] [--out FILE.csv] \
                     [--interrupt-after CHUNKS]";

/// Weight of the bigram estimate in the Jelinek–Mercer interpolation.
const LAMBDA: f64 = 0.7;
/// Pairs per chunk of the resumable run.
const CHUNK_PAIRS: usize = 100;
/// The names of the two scorers, as written to the `scorer` column.
const SUM: &str = "bigram-sum";
const MEAN: &str = "bigram-mean";

/// Token ids of the markers (every word gets the next free id, in corpus order).
const BOS: u32 = 0;
const EOS: u32 = 1;
const UNK: u32 = 2;

/// The lower-cased words of a sentence: maximal runs of alphanumeric characters.
fn words(sentence: &str) -> impl Iterator<Item = String> + '_ {
    sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The interpolated bigram model: counts, and the arg-max next token of every history.
struct BigramLm {
    /// Word → id (the markers are not in it).
    ids: HashMap<String, u32>,
    /// Per id, its count as a predicted token (words and `</s>`; 0 for `<s>` and `<unk>`).
    unigram: Vec<u64>,
    /// Per id, its count as a history (`<s>` and words).
    history: Vec<u64>,
    /// `c(h, w)`.
    bigram: HashMap<(u32, u32), u64>,
    /// `N`: predicted tokens (words and end markers).
    tokens: u64,
    /// Sentences estimated on.
    sentences: usize,
    /// Per history id, the token of highest `P(w | h)` (smallest id on a tie).
    best_next: Vec<u32>,
}

impl BigramLm {
    /// Reads the sentences of the BUG CSV and estimates the model on them.
    fn load(bug: &Path) -> Result<BigramLm, DataError> {
        let started = Instant::now();
        let lm = BigramLm::estimate(&read_sentences(bug, Some(CorpusFormat::BugCsv))?);
        println!(
            "Estimated on {}: {} sentences, {} tokens (words and end markers), vocabulary {} \
             (word types, `</s>`, `<unk>`), {} bigram types; λ = {LAMBDA} ({:.1} s).\n",
            bug.display(),
            lm.sentences,
            lm.tokens,
            lm.vocabulary(),
            lm.bigram.len(),
            started.elapsed().as_secs_f64()
        );
        Ok(lm)
    }

    fn estimate(sentences: &[String]) -> BigramLm {
        let mut lm = BigramLm {
            ids: HashMap::new(),
            unigram: vec![0; 3],
            history: vec![0; 3],
            bigram: HashMap::new(),
            tokens: 0,
            sentences: sentences.len(),
            best_next: Vec::new(),
        };
        for sentence in sentences {
            let mut prev = BOS;
            for word in words(sentence) {
                let next_id = lm.unigram.len() as u32;
                let id = *lm.ids.entry(word).or_insert(next_id);
                if id == next_id {
                    lm.unigram.push(0);
                    lm.history.push(0);
                }
                lm.count(prev, id);
                prev = id;
            }
            lm.count(prev, EOS);
        }
        lm.best_next = lm.arg_max_per_history();
        lm
    }

    fn count(&mut self, prev: u32, id: u32) {
        self.unigram[id as usize] += 1;
        self.history[prev as usize] += 1;
        *self.bigram.entry((prev, id)).or_default() += 1;
        self.tokens += 1;
    }

    /// `|V|`: the word types, `</s>` and `<unk>`.
    fn vocabulary(&self) -> usize {
        self.ids.len() + 2
    }

    fn unigram_p(&self, id: u32) -> f64 {
        (self.unigram[id as usize] + 1) as f64 / (self.tokens + self.vocabulary() as u64) as f64
    }

    /// `P(id | prev)`.
    fn p(&self, prev: u32, id: u32) -> f64 {
        let c_h = self.history[prev as usize];
        if c_h == 0 {
            return self.unigram_p(id);
        }
        let c_hw = self.bigram.get(&(prev, id)).copied().unwrap_or(0);
        LAMBDA * c_hw as f64 / c_h as f64 + (1.0 - LAMBDA) * self.unigram_p(id)
    }

    /// The arg-max of `P(· | h)` for every history `h`. A token never seen after `h` scores
    /// `(1 − λ)·P₁(w)`, so the arg-max is among the successors of `h` and the most frequent
    /// token: one pass over the bigram counts, not one over the vocabulary per history.
    fn arg_max_per_history(&self) -> Vec<u32> {
        let top = (EOS..self.unigram.len() as u32)
            .max_by(|&a, &b| {
                self.unigram[a as usize]
                    .cmp(&self.unigram[b as usize])
                    .then(b.cmp(&a))
            })
            .unwrap_or(EOS);
        let mut best: Vec<(u32, f64)> = (0..self.history.len() as u32)
            .map(|h| (top, self.p(h, top)))
            .collect();
        for &(h, w) in self.bigram.keys() {
            let p = self.p(h, w);
            let slot = &mut best[h as usize];
            if p > slot.1 || (p == slot.1 && w < slot.0) {
                *slot = (w, p);
            }
        }
        best.into_iter().map(|(w, _)| w).collect()
    }

    /// The token ids of a sentence, unknown words as `<unk>`, without the markers.
    fn ids_of(&self, sentence: &str) -> Vec<u32> {
        words(sentence)
            .map(|w| self.ids.get(&w).copied().unwrap_or(UNK))
            .collect()
    }

    /// Log-likelihood of `ids` followed by `</s>` after `<s>`, the tokens predicted (words and
    /// `</s>`) and how many of them were the arg-max prediction.
    fn log_likelihood(&self, ids: &[u32]) -> (f64, usize, usize) {
        let (mut ll, mut correct, mut prev) = (0.0, 0, BOS);
        for &id in ids.iter().chain(std::iter::once(&EOS)) {
            ll += self.p(prev, id).ln();
            correct += usize::from(self.best_next[prev as usize] == id);
            prev = id;
        }
        (ll, ids.len() + 1, correct)
    }
}

/// Why the scorer failed.
#[derive(Debug)]
enum ScorerError {
    /// The BUG corpus could not be read.
    Corpus(DataError),
    /// The interruption asked for with `--interrupt-after`, after this many chunks.
    Interrupted(usize),
}

impl fmt::Display for ScorerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScorerError::Corpus(_) => f.write_str("estimating the bigram model failed"),
            ScorerError::Interrupted(n) => {
                write!(f, "interrupted after {n} chunks (--interrupt-after)")
            }
        }
    }
}

impl Error for ScorerError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ScorerError::Corpus(e) => Some(e),
            ScorerError::Interrupted(_) => None,
        }
    }
}

/// The BUG corpus could not be read to hash it (most often: it has not been fetched yet); the
/// [`bias_core::CoreError`] saying which file and why is the source.
#[derive(Debug)]
struct CorpusMissing(bias_core::CoreError);

impl fmt::Display for CorpusMissing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cannot read the BUG corpus: scripts/setup.sh fetches it into data/")
    }
}

impl Error for CorpusMissing {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.0)
    }
}

/// The bigram model as a [`PairScorer`] with the scorers `bigram-sum` and `bigram-mean`.
///
/// The model is estimated on the first batch, not before: the fingerprint of a run needs only
/// the scorer's names and settings, so a rerun that finds the run complete never pays for it
/// (the same holds for loading an ONNX file or opening an API session).
struct BigramScorer {
    /// The BUG CSV.
    corpus: PathBuf,
    lm: Option<BigramLm>,
    /// Fail on the batch after this many (to demonstrate resumption).
    interrupt_after: Option<usize>,
    batches: usize,
}

impl BigramScorer {
    fn lm(&mut self) -> Result<&BigramLm, ScorerError> {
        let lm = match self.lm.take() {
            Some(lm) => lm,
            None => BigramLm::load(&self.corpus).map_err(ScorerError::Corpus)?,
        };
        Ok(self.lm.insert(lm))
    }
}

/// The `bigram-sum` and `bigram-mean` scores of a sentence given as token ids.
fn sentence_scores(lm: &BigramLm, ids: &[u32]) -> (SentenceScore, SentenceScore) {
    let (ll, scored_tokens, correct) = lm.log_likelihood(ids);
    let score = |score| SentenceScore {
        score,
        scored_tokens,
        correct_predictions: Some(correct),
    };
    (score(ll), score(ll / scored_tokens as f64))
}

impl PairScorer for BigramScorer {
    type Error = ScorerError;

    fn scorer_names(&self) -> Vec<String> {
        vec![SUM.into(), MEAN.into()]
    }

    fn settings(&self) -> String {
        format!(
            "jelinek-mercer lambda={LAMBDA}; unigram add-one; tokens lowercase alphanumeric runs \
             with <s> </s>, unknown words <unk>"
        )
    }

    fn score_pairs(&mut self, pairs: &[SentencePair]) -> Result<Vec<PairOutcome>, ScorerError> {
        if self.interrupt_after == Some(self.batches) {
            return Err(ScorerError::Interrupted(self.batches));
        }
        self.batches += 1;
        let lm = self.lm()?;
        Ok(pairs
            .iter()
            .map(|pair| {
                let (stereo, anti) = (lm.ids_of(&pair.stereo), lm.ids_of(&pair.anti));
                if stereo == anti {
                    return PairOutcome::Skipped(SkipReason::IdenticalTokens);
                }
                let ((stereo_sum, stereo_mean), (anti_sum, anti_mean)) =
                    (sentence_scores(lm, &stereo), sentence_scores(lm, &anti));
                PairOutcome::Scored {
                    scores: vec![
                        PairScore {
                            scorer: SUM.into(),
                            stereo: stereo_sum,
                            anti: anti_sum,
                        },
                        PairScore {
                            scorer: MEAN.into(),
                            stereo: stereo_mean,
                            anti: anti_mean,
                        },
                    ],
                    unscorable: Vec::new(),
                }
            })
            .collect())
    }
}

struct Args {
    data_dir: PathBuf,
    out: PathBuf,
    interrupt_after: Option<usize>,
}

fn parse_args() -> Result<Option<Args>, Box<dyn Error>> {
    let mut parsed = Args {
        data_dir: PathBuf::from("data"),
        out: PathBuf::from("out/custom_scorer/scores.csv"),
        interrupt_after: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--data-dir" => parsed.data_dir = value()?.into(),
            "--out" => parsed.out = value()?.into(),
            "--interrupt-after" => parsed.interrupt_after = Some(value()?.parse()?),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}").into()),
        }
    }
    parsed.data_dir = resolve(parsed.data_dir);
    Ok(Some(parsed))
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            let mut source = e.source();
            while let Some(cause) = source {
                eprintln!("  caused by: {cause}");
                source = cause.source();
            }
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<ExitCode, Box<dyn Error>> {
    let Some(args) = parse_args()? else {
        return Ok(ExitCode::SUCCESS);
    };
    let bug = args.data_dir.join("bug/full_BUG.csv");
    let data = bias_data::load_pairs(bias_data::layout::crows_pairs(&args.data_dir))?;

    println!("# A bigram language model as a custom scorer\n");

    // 1–2. The scorer (its model is estimated on BUG when the first batch comes) and the
    // model's digest, that of the corpus file: the model is a function of it and the settings.
    let model_sha256 = sha256_file(&bug).map_err(CorpusMissing)?;
    let mut scorer = BigramScorer {
        corpus: bug,
        lm: None,
        interrupt_after: args.interrupt_after,
        batches: 0,
    };

    // 3. The resumable run.
    if let Some(dir) = args.out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let fingerprint = RunFingerprint::new(
        "bigram-jm-bug",
        model_sha256,
        data.name.as_str(),
        &data.pairs,
        &scorer,
        CHUNK_PAIRS,
    );
    let mut on_chunk = |done: usize, total: usize| eprintln!("scored {done}/{total} pairs");
    let summary = match run_scoring(
        &mut scorer,
        &data.pairs,
        fingerprint,
        &args.out,
        &mut on_chunk,
    ) {
        Ok(summary) => summary,
        Err(RunError::ResumeMismatch { out, reason }) => {
            eprintln!(
                "error: {} cannot be resumed: {reason}.\nDelete it and {} to start afresh, or \
                 pass --out to write elsewhere.",
                out.display(),
                progress_path(&out).display()
            );
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => {
            eprintln!(
                "The run stopped; the chunks done are kept in {} and {}: run the example again \
                 to resume.",
                args.out.display(),
                progress_path(&args.out).display()
            );
            return Err(e.into());
        }
    };
    let progress = &summary.progress;
    let total = data.pairs.len();
    let how = match summary.resumed_from {
        0 => "a fresh run".to_owned(),
        n if n == total => format!(
            "already complete: all {total} pairs were done, none scored, no model estimated"
        ),
        n => format!("resumed after {n} of {total} pairs"),
    };
    println!(
        "Wrote {} ({how}; {:.2} s). Pairs skipped, tokenised identically: {}.",
        args.out.display(),
        summary.seconds,
        progress.tally.skipped()
    );
    for (name, acc) in &progress.tally.accuracy {
        println!(
            "Arg-max next-token accuracy, {name}: {:.2} % of {} tokens.",
            100.0 * acc.rate(),
            acc.total
        );
    }

    // 4. The measures, on the table read back from disk.
    let table = ScoreTable::read_csv_path(&args.out)?;
    let specs = MeasureSpec::liu2024();
    let measures: Vec<SyncMeasure<'_>> = specs.iter().map(|m| m as SyncMeasure<'_>).collect();
    let models: Vec<(String, ScoreTable)> = [SUM, MEAN]
        .iter()
        .map(|s| (s.to_string(), table.for_scorer(s)))
        .collect();

    println!(
        "\n## Indicator, KLS and JSS per bias type (no bias: 50 / 50 / 100)\n\n\
         | scorer | bias type | n | indicator | KLS | JSS |\n|---|---|---:|---:|---:|---:|"
    );
    for (name, t) in &models {
        let full = specs
            .iter()
            .map(|m| m.measure(t))
            .collect::<Result<Vec<Measurement>, _>>()?;
        for (ty, v) in &full[0].by_type {
            let cell = |m: &Measurement| m.by_type.get(ty).map_or(f64::NAN, |t| t.value);
            println!(
                "| {name} | {ty} | {} | {:.2} | {:.2} | {:.2} |",
                v.n,
                cell(&full[0]),
                cell(&full[1]),
                cell(&full[2])
            );
        }
        println!(
            "| {name} | **weighted overall** | {} | {:.2} | {:.2} | {:.2} |",
            full[0].n, full[0].value, full[1].value, full[2].value
        );
    }

    // 4. The robustness study, the two scorers standing in for two models.
    let started = Instant::now();
    let options = RobustnessOptions {
        rates: vec![0.1, 0.2, 0.3, 0.4, 0.5],
        repeats: 10,
        seed: 0,
    };
    let report = subsample_study(&models, &measures, &options)?;
    println!(
        "\n## Sub-sampling robustness: {} stratified draws per rate ({:.2} s)\n\n\
         Per scorer the measure's mean ± sd over the draws [2.5 %, 97.5 %]; whether the order of \
         the two scorers by |mean − no bias| is their full-data order, and the share of single \
         draws that keep it.\n",
        options.repeats,
        started.elapsed().as_secs_f64()
    );
    print!("| rate | n | measure |");
    report.models.iter().for_each(|m| print!(" {m} |"));
    println!(" order kept | single draws keeping it |");
    println!(
        "|---:|---:|---|{}---|---:|",
        "---:|".repeat(report.models.len())
    );
    for &rate in &options.rates {
        for measure in &report.measures {
            let cells: Vec<_> = report
                .models
                .iter()
                .filter_map(|model| report.measure_at(model, measure, rate))
                .collect();
            print!(
                "| {rate:.1} | {} | {measure} |",
                cells.first().map_or(0, |c| c.n)
            );
            for c in &cells {
                let s = c.summary;
                print!(
                    " {:.2} ± {:.2} [{:.2}, {:.2}] |",
                    s.mean, s.sd, s.q025, s.q975
                );
            }
            if let Some(a) = report.agreement_at(measure, rate) {
                print!(
                    " {} | {}/{} |",
                    if a.mean_order_kept { "yes" } else { "**no**" },
                    a.agreeing,
                    a.repeats
                );
            }
            println!();
        }
    }
    for measure in &report.measures {
        print!("| full | {} | {measure} |", models[0].1.len());
        for model in &report.models {
            let full = report.measure_at(model, measure, options.rates[0]);
            print!(" {:.2} |", full.map_or(f64::NAN, |c| c.full));
        }
        println!(" | |");
    }
    for measure in &report.measures {
        let Some(no_bias) = report
            .agreement_at(measure, options.rates[0])
            .map(|a| a.no_bias)
        else {
            continue;
        };
        let deviations: Vec<f64> = report
            .models
            .iter()
            .filter_map(|model| report.measure_at(model, measure, options.rates[0]))
            .map(|m| (m.full - no_bias).abs())
            .collect();
        if deviations.windows(2).all(|w| w[0] == w[1]) {
            println!(
                "\nThe scorers tie on {measure} on the full data, so a draw keeps their order only \
                 by tying too."
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
