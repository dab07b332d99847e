//! Scoring runs that lose nothing, for any [`PairScorer`].
//!
//! [`run_scoring`] streams rows to a score-table CSV chunk by chunk, and a progress file next to
//! it (`OUT.progress.json`) records how far the run got, so that the same run started again
//! resumes after the last complete chunk — and refuses if the model, the data or the settings
//! differ ([`RunFingerprint`]). Pairs are processed in fixed chunks; a resumed run re-forms
//! exactly the chunks an uninterrupted run forms, so every batch is the same and the output file
//! is byte-identical. [`score_to_table`] does the same in memory for short runs.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

mod shard;

pub use shard::{merge_shards, MergeError, MergeSummary, Shard, ShardSpan};

use crate::scoring::{PairOutcome, PairScorer, SkipReason};
use crate::{CoreError, ScoreRow, ScoreTable, ScoreTableWriter, ScorerName, SentencePair};

/// Why a scoring run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The scorer failed on a batch.
    #[error("scoring pairs {first}..={last} failed")]
    Scorer {
        /// Id of the first pair of the batch.
        first: String,
        /// Id of the last pair of the batch.
        last: String,
        /// The scorer's error (it names the pair where it can).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A pair cannot be scored for what it holds (a sentence longer than the model accepts),
    /// found by [`PairScorer::check_pairs`] before anything was scored or written.
    #[error("pair {pair} (number {number} of the pairs given) cannot be scored")]
    Unscorable {
        /// Its id.
        pair: String,
        /// Its 1-based position in the pairs given to [`run_scoring`] (a file's reader can
        /// turn it into a line: `bias_data::Dataset::origins`).
        number: usize,
        /// The scorer's reason.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The scorer broke the [`PairScorer`] contract.
    #[error("the scorer broke its contract on pairs {first}..={last}: {what}")]
    Contract {
        /// Id of the first pair of the batch.
        first: String,
        /// Id of the last pair of the batch.
        last: String,
        /// What was wrong (a missing outcome, an unknown scorer name).
        what: String,
    },
    /// The model gave a score that is NaN or infinite: its weights hold NaN or inf (a diverged
    /// fine-tune, a broken conversion) or half precision overflowed. Nothing of the chunk that
    /// holds the pair is written, so a resumable run stays valid.
    #[error(
        "model {model} on {dataset}: the {scorer} score of the {sentence} sentence of pair {pair} \
         is {value}: the model's log-probabilities are not finite (weights holding NaN or inf, \
         or half precision overflowing). Nothing of this chunk was written. Try --dtype f32 if \
         the model ran in half precision; else check the checkpoint (a diverged fine-tune?)"
    )]
    NonFinite {
        /// The model's name.
        model: String,
        /// The data set's name.
        dataset: String,
        /// The first pair with a non-finite score.
        pair: String,
        /// The scorer that gave it.
        scorer: String,
        /// `stereo` or `anti`.
        sentence: &'static str,
        /// The value (NaN, inf or -inf).
        value: f64,
    },
    /// The output exists from another run (or without a progress file).
    #[error("{}: not resuming: {reason}", out.display())]
    ResumeMismatch {
        /// The output file.
        out: PathBuf,
        /// What differs.
        reason: String,
    },
    /// Reading or writing the table or the progress file failed.
    #[error(transparent)]
    Core(#[from] CoreError),
}

/// What identifies a run: if any of it changes, an existing output is not resumed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunFingerprint {
    /// The model's name as written to the `model` column.
    pub model: String,
    /// A digest of the model (for a Hugging Face folder: SHA-256 of its configuration, tokenizer
    /// and weights).
    pub model_sha256: String,
    /// The data set's name (`dataset` column).
    pub dataset: String,
    /// SHA-256 of the pairs scored ([`pairs_sha256`]).
    pub dataset_sha256: String,
    /// The scorers, in order.
    pub scorers: Vec<String>,
    /// Every setting that can change a number, as text ([`PairScorer::settings`]).
    pub options: String,
    /// Pairs per chunk.
    pub chunk_pairs: usize,
    /// The part of the data set this run scores, when it is one shard of a sharded run
    /// ([`Shard`]); `None` for the whole data set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardSpan>,
    /// Where the model's files came from when they are a snapshot of a Hugging Face
    /// repository: `org/name@<commit>` (the commit a branch or tag resolved to), so that a run
    /// is not resumed after the revision moved, even to identical files; `None` for a model
    /// folder of one's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_revision: Option<String>,
}

impl RunFingerprint {
    /// The fingerprint of scoring `pairs` of `dataset` with `scorer` on the model `model`
    /// (whose digest is `model_sha256`), `chunk_pairs` pairs at a time.
    pub fn new(
        model: impl Into<String>,
        model_sha256: impl Into<String>,
        dataset: impl Into<String>,
        pairs: &[SentencePair],
        scorer: &impl PairScorer,
        chunk_pairs: usize,
    ) -> Self {
        RunFingerprint {
            model: model.into(),
            model_sha256: model_sha256.into(),
            dataset: dataset.into(),
            dataset_sha256: pairs_sha256(pairs),
            scorers: scorer.scorer_names(),
            options: scorer.settings(),
            chunk_pairs: chunk_pairs.max(1),
            shard: None,
            model_revision: None,
        }
    }

    /// The same run, with the Hugging Face commit its model came from
    /// ([`RunFingerprint::model_revision`]).
    pub fn with_model_revision(mut self, revision: Option<String>) -> Self {
        self.model_revision = revision;
        self
    }
}

/// SHA-256 (hex) of the pairs' content: ids, sentences, bias types, directions and groups, in
/// order. Two runs over the same pairs agree whatever file they came from.
pub fn pairs_sha256(pairs: &[SentencePair]) -> String {
    let mut h = Sha256::new();
    for p in pairs {
        for field in [
            p.id.as_str(),
            &p.stereo,
            &p.anti,
            &p.bias_type.to_string(),
            &p.direction.to_string(),
            p.group_id.as_deref().unwrap_or(""),
        ] {
            // Length-prefixed, so that no two different pairs hash the same bytes.
            h.update((field.len() as u64).to_le_bytes());
            h.update(field.as_bytes());
        }
    }
    format!("{:x}", h.finalize())
}

/// SHA-256 (hex) of a file's bytes, streamed.
///
/// # Errors
/// [`CoreError::Io`] if the file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String, CoreError> {
    let mut f = File::open(path).map_err(|e| CoreError::io(path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(|e| CoreError::io(path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(format!("{:x}", h.finalize()))
}

/// Per-scorer token-prediction counts (Kaneko & Bollegala 2022, Table 1), over both sentences
/// of every pair whose scorer reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accuracy {
    /// Positions whose arg-max prediction was the original token.
    pub correct: u64,
    /// Positions scored.
    pub total: u64,
}

impl Accuracy {
    /// `correct / total` (0 when nothing was scored).
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.correct as f64 / self.total as f64
        }
    }
}

/// What became of scored pairs besides their rows: skipped pairs, pairs a scorer could not
/// score, and token-prediction counts. Shared by [`run_scoring`] and [`score_to_table`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Ids of pairs skipped because both sentences tokenise identically.
    pub skipped_identical: Vec<String>,
    /// Ids of pairs skipped for another reason, with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_other: Vec<(String, String)>,
    /// Per scorer, ids of pairs it could not score (SSS with an empty modified side).
    #[serde(default)]
    pub unscorable: BTreeMap<ScorerName, Vec<String>>,
    /// Per scorer, why it could not score them (the reason of the first such pair).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unscorable_reasons: BTreeMap<ScorerName, String>,
    /// Token-prediction counts per scorer (scorers that report them).
    pub accuracy: BTreeMap<ScorerName, Accuracy>,
}

impl Tally {
    /// Pairs skipped for any reason.
    pub fn skipped(&self) -> usize {
        self.skipped_identical.len() + self.skipped_other.len()
    }

    /// Records one pair's outcome and returns its score-table rows (one per scorer that scored
    /// it), labelled with `dataset` and `model`.
    pub fn absorb(
        &mut self,
        pair: &SentencePair,
        outcome: PairOutcome,
        dataset: &str,
        model: &str,
    ) -> Vec<ScoreRow> {
        let (scores, unscorable) = match outcome {
            PairOutcome::Skipped(SkipReason::IdenticalTokens) => {
                self.skipped_identical.push(pair.id.clone());
                return Vec::new();
            }
            PairOutcome::Skipped(other) => {
                self.skipped_other
                    .push((pair.id.clone(), other.to_string()));
                return Vec::new();
            }
            PairOutcome::Scored { scores, unscorable } => (scores, unscorable),
        };
        for u in unscorable {
            self.unscorable_reasons
                .entry(u.scorer.clone())
                .or_insert(u.reason);
            self.unscorable
                .entry(u.scorer)
                .or_default()
                .push(pair.id.clone());
        }
        scores
            .into_iter()
            .map(|s| {
                for side in [&s.stereo, &s.anti] {
                    if let Some(correct) = side.correct_predictions {
                        let acc = self.accuracy.entry(s.scorer.clone()).or_default();
                        acc.correct += correct as u64;
                        acc.total += side.scored_tokens as u64;
                    }
                }
                ScoreRow {
                    pair_id: pair.id.clone(),
                    dataset: dataset.into(),
                    bias_type: pair.bias_type.clone(),
                    direction: pair.direction,
                    stereo: pair.stereo.clone(),
                    anti: pair.anti.clone(),
                    score_stereo: s.stereo.score,
                    score_anti: s.anti.score,
                    scorer: s.scorer,
                    model: model.into(),
                    tokens_stereo: Some(s.stereo.scored_tokens),
                    tokens_anti: Some(s.anti.scored_tokens),
                    group_id: pair.group_id.clone(),
                }
            })
            .collect()
    }
}

/// Scores one batch and checks the [`PairScorer`] contract.
fn score_batch<S: PairScorer + ?Sized>(
    scorer: &mut S,
    batch: &[SentencePair],
    names: &[String],
    (dataset, model): (&str, &str),
) -> Result<Vec<PairOutcome>, RunError> {
    let span = || {
        (
            batch.first().map_or_else(String::new, |p| p.id.clone()),
            batch.last().map_or_else(String::new, |p| p.id.clone()),
        )
    };
    let outcomes = scorer.score_pairs(batch).map_err(|e| {
        let (first, last) = span();
        RunError::Scorer {
            first,
            last,
            source: Box::new(e),
        }
    })?;
    let broken = |what: String| {
        let (first, last) = span();
        RunError::Contract { first, last, what }
    };
    if outcomes.len() != batch.len() {
        return Err(broken(format!(
            "{} outcomes for {} pairs",
            outcomes.len(),
            batch.len()
        )));
    }
    for (pair, outcome) in batch.iter().zip(&outcomes) {
        if let PairOutcome::Scored { scores, unscorable } = outcome {
            let unknown = scores
                .iter()
                .map(|s| &s.scorer)
                .chain(unscorable.iter().map(|u| &u.scorer))
                .find(|n| !names.iter().any(|name| name == n.as_str()));
            if let Some(name) = unknown {
                return Err(broken(format!(
                    "pair {} has scorer `{name}`, which is not among its scorer names ({})",
                    pair.id,
                    names.join(", ")
                )));
            }
            let non_finite = scores.iter().find_map(|s| {
                [("stereo", s.stereo.score), ("anti", s.anti.score)]
                    .into_iter()
                    .find(|(_, v)| !v.is_finite())
                    .map(|(sentence, value)| (s.scorer.clone(), sentence, value))
            });
            if let Some((scorer, sentence, value)) = non_finite {
                return Err(RunError::NonFinite {
                    model: model.to_owned(),
                    dataset: dataset.to_owned(),
                    pair: pair.id.clone(),
                    scorer: scorer.into_string(),
                    sentence,
                    value,
                });
            }
        }
    }
    Ok(outcomes)
}

/// Scores `pairs` in memory into a score table (rows in pair order, scorers in the scorer's
/// order) and a [`Tally`]: what [`run_scoring`] writes to disk, for short runs that need no
/// resumption (examples, tests). All pairs go to the scorer in one batch.
///
/// # Errors
/// [`RunError::Scorer`] with the scorer's error; [`RunError::Contract`];
/// [`RunError::NonFinite`] for a NaN or infinite score.
pub fn score_to_table<S: PairScorer + ?Sized>(
    scorer: &mut S,
    pairs: &[SentencePair],
    dataset: &str,
    model: &str,
) -> Result<(ScoreTable, Tally), RunError> {
    let names = scorer.scorer_names();
    let outcomes = score_batch(scorer, pairs, &names, (dataset, model))?;
    let mut tally = Tally::default();
    let rows = pairs
        .iter()
        .zip(outcomes)
        .flat_map(|(pair, outcome)| tally.absorb(pair, outcome, dataset, model))
        .collect();
    Ok((ScoreTable::new(rows), tally))
}

/// The progress file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunProgress {
    /// What the run is.
    pub fingerprint: RunFingerprint,
    /// Pairs finished (scored or skipped), from the start of the data set.
    pub pairs_done: usize,
    /// Length of the CSV up to the last complete chunk.
    pub csv_bytes: u64,
    /// Skipped and unscorable pairs and token-prediction counts so far.
    #[serde(flatten)]
    pub tally: Tally,
    /// Whether the run reached the end of the data set.
    pub complete: bool,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// The final progress record.
    pub progress: RunProgress,
    /// Pairs already done when this invocation started (0 for a fresh run).
    pub resumed_from: usize,
    /// Wall-clock seconds of this invocation.
    pub seconds: f64,
}

/// The progress file of an output CSV: `OUT.progress.json`.
pub fn progress_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".progress.json");
    out.with_file_name(name)
}

fn json_error(path: &Path, source: serde_json::Error) -> CoreError {
    CoreError::Json {
        source_name: path.display().to_string(),
        source,
    }
}

pub(crate) fn write_progress(path: &Path, p: &RunProgress) -> Result<(), CoreError> {
    let tmp = path.with_extension("json.tmp");
    let json = serde_json::to_vec_pretty(p).map_err(|e| json_error(path, e))?;
    fs::write(&tmp, json).map_err(|e| CoreError::io(&tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| CoreError::io(path, e))
}

/// Reads the progress file of `out`, if there is one.
///
/// # Errors
/// [`CoreError::Io`] or [`CoreError::Json`] when it exists but cannot be read.
pub fn read_progress(out: &Path) -> Result<Option<RunProgress>, CoreError> {
    let path = progress_path(out);
    match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| json_error(&path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CoreError::io(path, e)),
    }
}

/// Where a run starts: a fresh progress record, or the one of an earlier run of the same
/// fingerprint.
fn starting_point(out: &Path, fingerprint: &RunFingerprint) -> Result<RunProgress, RunError> {
    match (read_progress(out)?, out.exists()) {
        (Some(p), true) if p.fingerprint == *fingerprint => Ok(p),
        (Some(p), true) => Err(RunError::ResumeMismatch {
            out: out.to_owned(),
            reason: describe_mismatch(&p.fingerprint, fingerprint),
        }),
        (None, true) => Err(RunError::ResumeMismatch {
            out: out.to_owned(),
            reason: format!(
                "it exists but has no progress file ({})",
                progress_path(out).display()
            ),
        }),
        (_, false) => Ok(RunProgress {
            fingerprint: fingerprint.clone(),
            pairs_done: 0,
            csv_bytes: 0,
            tally: Tally::default(),
            complete: false,
        }),
    }
}

/// Scores `pairs` into the CSV at `out`, resuming a previous run of the same fingerprint.
///
/// Pairs go to the scorer `fingerprint.chunk_pairs` at a time; after each chunk the rows are
/// flushed, the progress file is replaced atomically, and `on_chunk(done, total)` is called (for
/// a progress display); it is also called once before the first chunk, with the pairs a resumed
/// run starts from (0 for a fresh one), so that a display's rate counts this run's work only.
///
/// A score that is NaN or infinite stops the run before its chunk is written
/// ([`RunError::NonFinite`]); if nothing had been scored yet, the header-only table and its
/// progress file that this call created are removed, so no score file is left.
///
/// # Errors
/// [`RunError::ResumeMismatch`] when `out` exists from a run with another fingerprint (or without
/// a progress file); [`RunError::Unscorable`] for a pair that
/// [`PairScorer::check_pairs`] refuses (before anything is written); [`RunError::Scorer`] with
/// the scorer's error; [`RunError::Contract`];
/// [`RunError::NonFinite`]; [`RunError::Core`] on I/O.
pub fn run_scoring<S: PairScorer + ?Sized>(
    scorer: &mut S,
    pairs: &[SentencePair],
    fingerprint: RunFingerprint,
    out: &Path,
    on_chunk: &mut dyn FnMut(usize, usize),
) -> Result<RunSummary, RunError> {
    let fresh = !out.exists();
    let result = run_scoring_into(scorer, pairs, fingerprint, out, on_chunk);
    if let Err(RunError::NonFinite { .. }) = &result {
        let progress = progress_path(out);
        if fresh
            && read_progress(out)
                .ok()
                .flatten()
                .is_some_and(|p| p.pairs_done == 0)
        {
            // Best effort: the error to report is the non-finite score, not a cleanup failure.
            let _ = fs::remove_file(out);
            let _ = fs::remove_file(progress);
        }
    }
    result
}

fn run_scoring_into<S: PairScorer + ?Sized>(
    scorer: &mut S,
    pairs: &[SentencePair],
    fingerprint: RunFingerprint,
    out: &Path,
    on_chunk: &mut dyn FnMut(usize, usize),
) -> Result<RunSummary, RunError> {
    let started = Instant::now();
    let progress_file = progress_path(out);
    let mut progress = starting_point(out, &fingerprint)?;
    let resumed_from = progress.pairs_done;
    let left = pairs.get(progress.pairs_done..).unwrap_or_default();
    if let Err((i, e)) = scorer.check_pairs(left) {
        return Err(RunError::Unscorable {
            pair: left[i].id.clone(),
            number: progress.pairs_done + i + 1,
            source: Box::new(e),
        });
    }
    if progress.csv_bytes == 0 {
        let file = File::create(out).map_err(|e| CoreError::io(out, e))?;
        ScoreTableWriter::new(BufWriter::new(file))?.flush()?;
        progress.csv_bytes = file_len(out)?;
        write_progress(&progress_file, &progress)?;
    }
    // Drop anything written after the last complete chunk, then append.
    let mut writer = open_append(out, progress.csv_bytes)?;
    let names = scorer.scorer_names();
    let chunk = fingerprint.chunk_pairs.max(1);
    let total = pairs.len();
    on_chunk(progress.pairs_done, total);
    while progress.pairs_done < total {
        let end = (progress.pairs_done + chunk).min(total);
        let batch = &pairs[progress.pairs_done..end];
        let outcomes = score_batch(
            scorer,
            batch,
            &names,
            (&fingerprint.dataset, &fingerprint.model),
        )?;
        for (pair, outcome) in batch.iter().zip(outcomes) {
            let rows =
                progress
                    .tally
                    .absorb(pair, outcome, &fingerprint.dataset, &fingerprint.model);
            for row in &rows {
                writer.append(row)?;
            }
        }
        writer.flush()?;
        progress.pairs_done = end;
        progress.csv_bytes = file_len(out)?;
        progress.complete = end == total;
        write_progress(&progress_file, &progress)?;
        on_chunk(end, total);
    }
    if total == 0 {
        progress.complete = true;
        write_progress(&progress_file, &progress)?;
    }
    Ok(RunSummary {
        progress,
        resumed_from,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn file_len(path: &Path) -> Result<u64, CoreError> {
    Ok(fs::metadata(path)
        .map_err(|e| CoreError::io(path, e))?
        .len())
}

fn open_append(out: &Path, keep: u64) -> Result<ScoreTableWriter<BufWriter<File>>, CoreError> {
    let mut file = OpenOptions::new()
        .write(true)
        .open(out)
        .map_err(|e| CoreError::io(out, e))?;
    file.set_len(keep).map_err(|e| CoreError::io(out, e))?;
    file.seek(SeekFrom::End(0))
        .map_err(|e| CoreError::io(out, e))?;
    Ok(ScoreTableWriter::without_header(BufWriter::new(file)))
}

pub(crate) fn describe_mismatch(old: &RunFingerprint, new: &RunFingerprint) -> String {
    let short = |d: &str| d.chars().take(12).collect::<String>();
    let mut diffs = Vec::new();
    if old.model != new.model {
        diffs.push(format!(
            "the model differs ({} vs {})",
            old.model, new.model
        ));
    } else if old.model_revision != new.model_revision {
        let name = |r: &Option<String>| r.clone().unwrap_or_else(|| "a local folder".into());
        diffs.push(format!(
            "the model's Hugging Face revision moved ({} vs {}): score into a new file, or name \
             the commit the run used (`org/name@<commit>`)",
            name(&old.model_revision),
            name(&new.model_revision)
        ));
    } else if old.model_sha256 != new.model_sha256 {
        diffs.push(format!(
            "the files of model {} differ (digest {}… vs {}…)",
            new.model,
            short(&old.model_sha256),
            short(&new.model_sha256)
        ));
    }
    if old.dataset != new.dataset {
        diffs.push(format!(
            "the data differ ({} vs {})",
            old.dataset, new.dataset
        ));
    } else if old.dataset_sha256 != new.dataset_sha256 {
        diffs.push(format!(
            "the pairs of {} differ (another file, another --limit, or edited pairs)",
            new.dataset
        ));
    }
    if old.scorers != new.scorers {
        diffs.push(format!(
            "the scorers differ ({} vs {})",
            old.scorers.join(","),
            new.scorers.join(",")
        ));
    }
    if old.options != new.options {
        diffs.push(format!(
            "the settings differ ({} vs {})",
            old.options, new.options
        ));
    }
    if old.chunk_pairs != new.chunk_pairs {
        diffs.push(format!(
            "the chunk size differs ({} vs {} pairs)",
            old.chunk_pairs, new.chunk_pairs
        ));
    }
    if old.shard != new.shard {
        let name = |s: &Option<ShardSpan>| {
            s.as_ref()
                .map_or_else(|| "the whole data set".to_owned(), ShardSpan::to_string)
        };
        diffs.push(format!(
            "the shard differs ({} vs {})",
            name(&old.shard),
            name(&new.shard)
        ));
    }
    format!("it was written by another run: {}", diffs.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::{PairScore, SentenceScore, Unscorable};
    use crate::{BiasType, Direction};

    fn pair(id: &str, stereo: &str, anti: &str) -> SentencePair {
        SentencePair {
            id: id.into(),
            stereo: stereo.into(),
            anti: anti.into(),
            bias_type: BiasType::Gender,
            direction: Direction::Stereo,
            group_id: None,
        }
    }

    fn pairs(n: usize) -> Vec<SentencePair> {
        (0..n)
            .map(|i| pair(&i.to_string(), &"a ".repeat(i + 1), &"b ".repeat(i + 2)))
            .collect()
    }

    /// Scores a sentence by minus its word count; pair `3` is skipped, and the `odd` scorer
    /// cannot score pairs with an odd id. Counts its calls, and can be told to drop an outcome.
    #[derive(Default)]
    struct Words {
        calls: usize,
        fail_at_call: Option<usize>,
        drop_one: bool,
        /// The pair whose `words` anti-stereotypical score is NaN.
        nan_at: Option<&'static str>,
        /// The pair that `check_pairs` refuses.
        refuse: Option<&'static str>,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("no more calls")]
    struct Stop;

    impl PairScorer for Words {
        type Error = Stop;
        fn scorer_names(&self) -> Vec<String> {
            vec!["words".into(), "odd".into()]
        }
        fn settings(&self) -> String {
            "plain".into()
        }
        fn score_pairs(&mut self, batch: &[SentencePair]) -> Result<Vec<PairOutcome>, Stop> {
            self.calls += 1;
            if self.fail_at_call == Some(self.calls) {
                return Err(Stop);
            }
            let s = |t: &str| SentenceScore {
                score: -(t.split_whitespace().count() as f64),
                scored_tokens: t.split_whitespace().count(),
                correct_predictions: Some(1),
            };
            let mut out: Vec<PairOutcome> = batch
                .iter()
                .map(|p| {
                    if p.id == "3" {
                        return PairOutcome::Skipped(SkipReason::IdenticalTokens);
                    }
                    let mut words = PairScore {
                        scorer: "words".into(),
                        stereo: s(&p.stereo),
                        anti: s(&p.anti),
                    };
                    if self.nan_at == Some(p.id.as_str()) {
                        words.anti.score = f64::NAN;
                    }
                    let odd = p.id.parse::<usize>().unwrap() % 2 == 1;
                    PairOutcome::Scored {
                        scores: if odd {
                            vec![words]
                        } else {
                            let mut other = words.clone();
                            other.scorer = "odd".into();
                            vec![words, other]
                        },
                        unscorable: if odd {
                            vec![Unscorable {
                                scorer: "odd".into(),
                                reason: "an odd id".into(),
                            }]
                        } else {
                            Vec::new()
                        },
                    }
                })
                .collect();
            if self.drop_one {
                out.pop();
            }
            Ok(out)
        }
        fn check_pairs(&mut self, pairs: &[SentencePair]) -> Result<(), (usize, Stop)> {
            match pairs
                .iter()
                .position(|p| Some(p.id.as_str()) == self.refuse)
            {
                Some(i) => Err((i, Stop)),
                None => Ok(()),
            }
        }
    }

    fn fingerprint(ps: &[SentencePair], chunk: usize) -> RunFingerprint {
        RunFingerprint::new("m", "digest", "toy", ps, &Words::default(), chunk)
    }

    /// A pair that `check_pairs` refuses stops the run before the scorer is called or any file
    /// is written, naming the pair and its place among the pairs given.
    #[test]
    fn a_refused_pair_stops_the_run_before_anything_is_scored_or_written() {
        let dir = std::env::temp_dir().join(format!("bias-core-refuse-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let out = dir.join("scores.csv");
        let _ = fs::remove_file(&out);
        let ps = pairs(6);
        let mut words = Words {
            refuse: Some("4"),
            ..Words::default()
        };
        let err =
            run_scoring(&mut words, &ps, fingerprint(&ps, 2), &out, &mut |_, _| {}).unwrap_err();
        assert!(
            matches!(&err, RunError::Unscorable { pair, number: 5, .. } if pair == "4"),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "pair 4 (number 5 of the pairs given) cannot be scored"
        );
        assert_eq!(words.calls, 0);
        assert!(!out.exists() && !progress_path(&out).exists());
    }

    #[test]
    fn in_memory_table_counts_every_pair() {
        let ps = pairs(6);
        let (table, tally) = score_to_table(&mut Words::default(), &ps, "toy", "m").unwrap();
        // Pairs 0, 2, 4 give two rows, 1 and 5 one, 3 none.
        assert_eq!(table.len(), 8);
        assert_eq!(tally.skipped_identical, vec!["3"]);
        assert_eq!(tally.unscorable["odd"], vec!["1", "5"]);
        assert_eq!(tally.unscorable_reasons["odd"], "an odd id");
        // Words of pair i: stereo i+1, anti i+2; both sides of pairs 0,1,2,4,5 count.
        let words_total: u64 = [0u64, 1, 2, 4, 5].iter().map(|i| 2 * i + 3).sum();
        assert_eq!(tally.accuracy["words"].total, words_total);
        assert_eq!(tally.accuracy["words"].correct, 10);
        assert_eq!(table.rows()[0].score_stereo, -1.0);
        assert_eq!(table.rows()[0].score_anti, -2.0);
    }

    #[test]
    fn a_non_finite_score_stops_a_fresh_run_and_leaves_no_score_file() {
        let dir = std::env::temp_dir().join(format!("bias-core-nan1-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let out = dir.join("s.csv");
        let _ = fs::remove_file(&out);
        let _ = fs::remove_file(progress_path(&out));
        let ps = pairs(4);
        let mut scorer = Words {
            nan_at: Some("0"),
            ..Words::default()
        };
        let err =
            run_scoring(&mut scorer, &ps, fingerprint(&ps, 2), &out, &mut |_, _| {}).unwrap_err();
        assert!(
            matches!(&err, RunError::NonFinite { pair, scorer, sentence: "anti", model, dataset, .. }
                if pair == "0" && scorer == "words" && model == "m" && dataset == "toy"),
            "{err:?}"
        );
        assert!(err.to_string().contains("--dtype f32"), "{err}");
        assert!(!out.exists() && !progress_path(&out).exists());
        let err = score_to_table(&mut scorer, &ps, "toy", "m").unwrap_err();
        assert!(matches!(err, RunError::NonFinite { .. }), "{err:?}");
    }

    #[test]
    fn a_non_finite_score_keeps_the_chunks_before_it_and_the_run_resumes() {
        let dir = std::env::temp_dir().join(format!("bias-core-nan2-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (out, clean) = (dir.join("s.csv"), dir.join("clean.csv"));
        for f in [&out, &clean] {
            let _ = fs::remove_file(f);
            let _ = fs::remove_file(progress_path(f));
        }
        let ps = pairs(6);
        let mut broken = Words {
            nan_at: Some("4"),
            ..Words::default()
        };
        let err =
            run_scoring(&mut broken, &ps, fingerprint(&ps, 2), &out, &mut |_, _| {}).unwrap_err();
        assert!(
            matches!(&err, RunError::NonFinite { pair, .. } if pair == "4"),
            "{err:?}"
        );
        let progress = read_progress(&out).unwrap().unwrap();
        assert_eq!(
            progress.pairs_done, 4,
            "the chunk with pair 4 is not written"
        );
        assert!(!progress.complete);
        let resumed = run_scoring(
            &mut Words::default(),
            &ps,
            fingerprint(&ps, 2),
            &out,
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(resumed.resumed_from, 4);
        run_scoring(
            &mut Words::default(),
            &ps,
            fingerprint(&ps, 2),
            &clean,
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(fs::read(&out).unwrap(), fs::read(&clean).unwrap());
    }

    #[test]
    fn a_moved_hub_revision_is_a_mismatch_naming_both_commits() {
        let ps = pairs(2);
        let at = |c: &str| fingerprint(&ps, 2).with_model_revision(Some(format!("o/m@{c}")));
        let why = describe_mismatch(&at("aaa"), &at("bbb"));
        assert!(why.contains("o/m@aaa vs o/m@bbb"), "{why}");
        let why = describe_mismatch(&fingerprint(&ps, 2), &at("bbb"));
        assert!(why.contains("a local folder vs o/m@bbb"), "{why}");
        // A progress file written before the field existed reads as a local folder's run.
        let json = serde_json::to_string(&fingerprint(&ps, 2)).unwrap();
        assert!(!json.contains("model_revision"), "{json}");
        let back: RunFingerprint = serde_json::from_str(&json).unwrap();
        assert_eq!(back, fingerprint(&ps, 2));
    }

    #[test]
    fn a_short_batch_is_an_error_not_a_silent_drop() {
        let ps = pairs(4);
        let mut scorer = Words {
            drop_one: true,
            ..Words::default()
        };
        let err = score_to_table(&mut scorer, &ps, "toy", "m").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the scorer broke its contract on pairs 0..=3: 3 outcomes for 4 pairs"
        );
    }

    #[test]
    fn an_interrupted_run_resumes_to_the_same_bytes() {
        let dir = std::env::temp_dir().join(format!("bias-core-run-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let ps = pairs(7);
        let whole = dir.join("whole.csv");
        let cut = dir.join("cut.csv");
        for f in [&whole, &cut] {
            let _ = fs::remove_file(f);
            let _ = fs::remove_file(progress_path(f));
        }
        let mut calls = Vec::new();
        run_scoring(
            &mut Words::default(),
            &ps,
            fingerprint(&ps, 3),
            &whole,
            &mut |done, total| calls.push((done, total)),
        )
        .unwrap();
        assert_eq!(calls, vec![(0, 7), (3, 7), (6, 7), (7, 7)]);

        // The second chunk fails; the rerun starts at pair 3 and calls the scorer twice.
        let mut failing = Words {
            fail_at_call: Some(2),
            ..Words::default()
        };
        let err =
            run_scoring(&mut failing, &ps, fingerprint(&ps, 3), &cut, &mut |_, _| {}).unwrap_err();
        assert!(
            matches!(err, RunError::Scorer { ref first, ref last, .. } if first == "3" && last == "5")
        );
        let mut rerun = Words::default();
        let mut calls = Vec::new();
        let summary = run_scoring(&mut rerun, &ps, fingerprint(&ps, 3), &cut, &mut |d, t| {
            calls.push((d, t))
        })
        .unwrap();
        assert_eq!(calls, vec![(3, 7), (6, 7), (7, 7)], "from where it resumes");
        assert_eq!(summary.resumed_from, 3);
        assert_eq!(rerun.calls, 2);
        assert!(summary.progress.complete);
        assert_eq!(fs::read(&whole).unwrap(), fs::read(&cut).unwrap());

        // Other pairs: refused, naming what differs.
        let other = pairs(6);
        let err = run_scoring(
            &mut Words::default(),
            &other,
            fingerprint(&other, 3),
            &whole,
            &mut |_, _| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("the pairs of toy differ"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn merged_shards_are_the_unsharded_run_byte_for_byte() {
        let dir = std::env::temp_dir().join(format!("bias-core-shards-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let ps = pairs(11);
        let whole = dir.join("whole.csv");
        run_scoring(
            &mut Words::default(),
            &ps,
            fingerprint(&ps, 2),
            &whole,
            &mut |_, _| {},
        )
        .unwrap();
        let mut parts = Vec::new();
        for i in 1..=3 {
            let shard = Shard::new(i, 3).unwrap();
            let (subset, span) = shard.select(&ps, 2);
            let part = dir.join(format!("part{i}.csv"));
            let fp = fingerprint(&ps, 2).with_shard(span);
            run_scoring(&mut Words::default(), subset, fp, &part, &mut |_, _| {}).unwrap();
            parts.push(part);
        }
        // Given in any order.
        let merged = dir.join("merged.csv");
        let order = [parts[2].clone(), parts[0].clone(), parts[1].clone()];
        let summary = merge_shards(&order, &merged).unwrap();
        assert_eq!(summary.shards, 3);
        assert_eq!(fs::read(&whole).unwrap(), fs::read(&merged).unwrap());
        assert_eq!(
            fs::read(progress_path(&whole)).unwrap(),
            fs::read(progress_path(&merged)).unwrap()
        );

        let err = merge_shards(&parts[..2], &dir.join("gap.csv")).unwrap_err();
        // 11 pairs in chunks of 2 are 6 chunks, two per shard: the third holds pairs 8..11.
        assert_eq!(err.to_string(), "shard 3/3 (pairs 8..11) is missing");
        let twice = [parts[0].clone(), parts[1].clone(), parts[1].clone()];
        let err = merge_shards(&twice, &dir.join("overlap.csv")).unwrap_err();
        assert!(matches!(err, MergeError::Overlap { index: 2, .. }), "{err}");
        // A shard of another run (other pairs) is named.
        let other = pairs(12);
        let (subset, span) = Shard::new(3, 3).unwrap().select(&other, 2);
        let stray = dir.join("stray.csv");
        let fp = fingerprint(&other, 2).with_shard(span);
        run_scoring(&mut Words::default(), subset, fp, &stray, &mut |_, _| {}).unwrap();
        let mixed = [parts[0].clone(), parts[1].clone(), stray.clone()];
        let err = merge_shards(&mixed, &dir.join("mixed.csv")).unwrap_err();
        assert!(
            matches!(&err, MergeError::Mismatch { shard, .. } if *shard == stray),
            "{err}"
        );
        // The unsharded table is not a shard.
        let err = merge_shards(std::slice::from_ref(&whole), &dir.join("x.csv")).unwrap_err();
        assert!(matches!(err, MergeError::NotAShard { .. }), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pair_digest_sees_every_field() {
        let a = pairs(2);
        let mut b = a.clone();
        assert_eq!(pairs_sha256(&a), pairs_sha256(&b));
        b[1].group_id = Some("g".into());
        assert_ne!(pairs_sha256(&a), pairs_sha256(&b));
        // Moving a character across a field boundary changes the digest.
        let c = vec![pair("0", "ab", "c")];
        let d = vec![pair("0", "a", "bc")];
        assert_ne!(pairs_sha256(&c), pairs_sha256(&d));
    }
}
