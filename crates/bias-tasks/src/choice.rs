//! Multiple-choice documents scored by log-likelihood, as lm-evaluation-harness's
//! `output_type: multiple_choice` tasks score them (Gao et al. 2024, `lm_eval/api/task.py`,
//! `ConfigurableTask.construct_requests`, read at 0.4.13): one `loglikelihood` request
//! `(context, target_delimiter + choice)` per choice, the delimiter a space; the answer is the
//! first choice of highest log-likelihood (`np.argmax`).
//!
//! [`score_choices`] runs the requests of many documents through any
//! [`ContinuationScorer`], a chunk of documents at a time, reporting progress, and — given a
//! log file — writes each document's scores as it goes and resumes a run left there.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use bias_core::{Continuation, ContinuationScorer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::TaskError;

/// lm-evaluation-harness's default `target_delimiter`, put before every choice.
pub const TARGET_DELIMITER: &str = " ";

/// One multiple-choice document: a prompt and its choices.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MultipleChoice {
    /// The prompt (`doc_to_text`).
    pub context: String,
    /// The choices (`doc_to_choice`), in order.
    pub choices: Vec<String>,
}

impl MultipleChoice {
    /// The `loglikelihood` requests: `(context, " " + choice)` for each choice, in order.
    pub fn requests(&self) -> Vec<Continuation> {
        self.choices
            .iter()
            .map(|c| Continuation::new(self.context.clone(), format!("{TARGET_DELIMITER}{c}")))
            .collect()
    }
}

/// The scores of one document's choices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceScores {
    /// `log P(" " + choice | context)` per choice.
    pub log_likelihoods: Vec<f64>,
    /// Whether each choice is the model's greedy continuation.
    pub is_greedy: Vec<bool>,
    /// The tokens each log-likelihood sums over.
    pub tokens: Vec<usize>,
}

impl ChoiceScores {
    /// The chosen answer: the first index of highest log-likelihood (`np.argmax`), `None` for
    /// no choices.
    pub fn answer(&self) -> Option<usize> {
        argmax(&self.log_likelihoods)
    }
}

/// The first index of the largest value (`np.argmax` on finite values).
pub fn argmax(values: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, &v) in values.iter().enumerate() {
        if best.is_none_or(|b| v > values[b]) {
            best = Some(i);
        }
    }
    best
}

/// How [`score_choices`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChoiceRunOptions {
    /// Documents per call to the scorer (and per progress report and log flush).
    pub chunk_docs: usize,
}

impl Default for ChoiceRunOptions {
    fn default() -> Self {
        ChoiceRunOptions { chunk_docs: 64 }
    }
}

/// The SHA-256 of the documents' requests (every context and continuation, length-prefixed),
/// which a run log records so that it is never resumed on other documents.
pub fn documents_sha256(docs: &[Vec<Continuation>]) -> String {
    let mut h = Sha256::new();
    for d in docs {
        for r in d {
            for text in [&r.context, &r.continuation] {
                h.update((text.len() as u64).to_le_bytes());
                h.update(text.as_bytes());
            }
        }
        h.update(u64::MAX.to_le_bytes());
    }
    format!("{:x}", h.finalize())
}

/// The first line of a run log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct LogHeader {
    /// What the caller says identifies the run (task, model and its digest).
    run: String,
    /// [`documents_sha256`].
    documents_sha256: String,
    /// The number of documents.
    documents: usize,
}

/// One document's line of a run log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct LogLine {
    doc: usize,
    #[serde(flatten)]
    scores: ChoiceScores,
}

/// Scores every choice of every document with `scorer`, `options.chunk_docs` documents per call,
/// calling `progress(done, total)` after each chunk.
///
/// With `log` (a JSON-lines file; `run` names the task and model), each chunk's scores are
/// appended as they come, and a log left by an interrupted run of the same `run` on the same
/// documents is resumed: its documents are not scored again (a last line cut short by the
/// interruption is dropped).
///
/// # Errors
/// [`TaskError::Document`] for a request the scorer's
/// [`check_continuations`](ContinuationScorer::check_continuations) refuses, before anything
/// is scored; [`TaskError::Model`] naming the chunk; [`TaskError::NonFinite`] naming the document and
/// choice (nothing non-finite is logged or returned); [`TaskError::NotResuming`] for a log of
/// another run; [`TaskError::Io`].
pub fn score_choices<S: ContinuationScorer + ?Sized>(
    scorer: &mut S,
    docs: &[MultipleChoice],
    log: Option<(&Path, &str)>,
    options: ChoiceRunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<ChoiceScores>, TaskError> {
    let requests: Vec<Vec<Continuation>> = docs.iter().map(MultipleChoice::requests).collect();
    score_documents(scorer, &requests, log, options, progress)
}

/// [`score_choices`] for documents given as their requests (any contexts, one score per
/// request): what a task whose answers are not `(prompt, " " + choice)` runs (StereoSet's
/// sentences).
///
/// # Errors
/// As [`score_choices`].
pub fn score_documents<S: ContinuationScorer + ?Sized>(
    scorer: &mut S,
    docs: &[Vec<Continuation>],
    log: Option<(&Path, &str)>,
    options: ChoiceRunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<ChoiceScores>, TaskError> {
    if let Some(doc) = docs.iter().position(Vec::is_empty) {
        return Err(TaskError::NoChoices { doc });
    }
    let mut done: Vec<Option<ChoiceScores>> = vec![None; docs.len()];
    let mut writer = match log {
        Some((path, run)) => Some(open_log(path, run, docs, &mut done)?),
        None => None,
    };
    let todo: Vec<usize> = (0..docs.len()).filter(|&i| done[i].is_none()).collect();
    run_chunks(
        scorer,
        docs,
        &todo,
        &mut done,
        writer.as_mut(),
        options,
        progress,
    )?;
    Ok(done
        .into_iter()
        .map(|d| d.expect("every document scored"))
        .collect())
}

/// Scores shard `shard` of `docs` only — whole chunks of `options.chunk_docs` documents, as
/// [`bias_core::run::Shard::range`] cuts them — into its own log (resumable), with the header of
/// the whole run, so that separate jobs can share the work: [`import_shard_logs`] then gathers
/// the shards' logs into the run's log, from which [`score_documents`] resumes with nothing left
/// to score. Returns the documents of the shard.
///
/// # Errors
/// As [`score_documents`].
pub fn score_shard<S: ContinuationScorer + ?Sized>(
    scorer: &mut S,
    docs: &[Vec<Continuation>],
    shard: bias_core::run::Shard,
    log: (&Path, &str),
    options: ChoiceRunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<std::ops::Range<usize>, TaskError> {
    if let Some(doc) = docs.iter().position(Vec::is_empty) {
        return Err(TaskError::NoChoices { doc });
    }
    let range = shard.range(docs.len(), options.chunk_docs.max(1));
    let mut done: Vec<Option<ChoiceScores>> = vec![None; docs.len()];
    let (path, run) = log;
    let mut writer = open_log(path, run, docs, &mut done)?;
    let todo: Vec<usize> = range.clone().filter(|&i| done[i].is_none()).collect();
    // run_chunks counts every document not to do as done; the shard's count leaves out the
    // documents outside it.
    let outside = docs.len() - range.len();
    let mut of_shard = |d: usize, _: usize| progress(d.saturating_sub(outside), range.len());
    run_chunks(
        scorer,
        docs,
        &todo,
        &mut done,
        Some(&mut writer),
        options,
        &mut of_shard,
    )?;
    Ok(range)
}

/// The log of shard `shard` beside the run log `log` (`<task>.jsonl`):
/// `<task>.shard-I-of-N.jsonl`.
pub fn shard_log_path(log: &Path, shard: bias_core::run::Shard) -> std::path::PathBuf {
    let stem = log.file_stem().and_then(|s| s.to_str()).unwrap_or("run");
    log.with_file_name(format!(
        "{stem}.shard-{}-of-{}.jsonl",
        shard.index(),
        shard.count()
    ))
}

/// Every shard log beside the run log `log` ([`shard_log_path`]'s names, any `I` and `N`),
/// sorted by name.
///
/// # Errors
/// [`TaskError::Io`] when the folder cannot be listed.
pub fn shard_logs_beside(log: &Path) -> Result<Vec<std::path::PathBuf>, TaskError> {
    let dir = match log.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let stem = log.file_stem().and_then(|s| s.to_str()).unwrap_or("run");
    let prefix = format!("{stem}.shard-");
    let mut shards: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| TaskError::Io {
            path: dir.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".jsonl"))
        })
        .collect();
    shards.sort();
    Ok(shards)
}

/// Copies into the run log `log` (created if absent) every document that a shard's log of the
/// same run holds and `log` lacks; returns how many were copied.
///
/// # Errors
/// [`TaskError::NotResuming`] naming a shard log of another run or documents;
/// [`TaskError::Io`].
pub fn import_shard_logs(
    log: (&Path, &str),
    docs: &[Vec<Continuation>],
    shard_logs: &[std::path::PathBuf],
) -> Result<usize, TaskError> {
    let (path, run) = log;
    let mut done: Vec<Option<ChoiceScores>> = vec![None; docs.len()];
    let (_, mut file) = open_log(path, run, docs, &mut done)?;
    let mut copied = 0;
    let mut lines = String::new();
    for shard in shard_logs {
        let mut theirs: Vec<Option<ChoiceScores>> = vec![None; docs.len()];
        // Opening it as a log of the same run checks its header and drops a cut last line.
        drop(open_log(shard, run, docs, &mut theirs)?);
        for (i, scores) in theirs.into_iter().enumerate() {
            if let (None, Some(scores)) = (&done[i], scores) {
                let line = LogLine { doc: i, scores };
                lines.push_str(&serde_json::to_string(&line).expect("finite scores serialise"));
                lines.push('\n');
                done[i] = Some(line.scores);
                copied += 1;
            }
        }
    }
    file.write_all(lines.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|source| TaskError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(copied)
}

/// Scores the documents `todo`, a chunk at a time, into `done` and the log.
fn run_chunks<S: ContinuationScorer + ?Sized>(
    scorer: &mut S,
    docs: &[Vec<Continuation>],
    todo: &[usize],
    done: &mut [Option<ChoiceScores>],
    mut writer: Option<&mut (&Path, File)>,
    options: ChoiceRunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(), TaskError> {
    // Every request is checked before anything is scored: a bad document stops the run at
    // once, named, rather than after the chunks before it.
    for &i in todo {
        scorer
            .check_continuations(&docs[i])
            .map_err(|source| TaskError::Document {
                doc: i,
                what: format!("document {i}"),
                source,
            })?;
    }
    let mut finished = docs.len() - todo.len();
    progress(finished, docs.len());
    for chunk in todo.chunks(options.chunk_docs.max(1)) {
        let requests: Vec<Continuation> = chunk.iter().flat_map(|&i| docs[i].clone()).collect();
        let first = chunk[0];
        let end = chunk[chunk.len() - 1] + 1;
        let answers = scorer
            .score_continuations(&requests)
            .map_err(|source| TaskError::Model { first, end, source })?;
        if answers.len() != requests.len() {
            return Err(TaskError::AnswerCount {
                asked: requests.len(),
                got: answers.len(),
            });
        }
        let mut next = answers.into_iter();
        let mut lines = String::new();
        for &i in chunk {
            let n = docs[i].len();
            let of: Vec<_> = next.by_ref().take(n).collect();
            if let Some((choice, a)) = of
                .iter()
                .enumerate()
                .find(|(_, a)| !a.log_likelihood.is_finite())
            {
                return Err(TaskError::NonFinite {
                    doc: i,
                    choice,
                    value: a.log_likelihood,
                });
            }
            let scores = ChoiceScores {
                log_likelihoods: of.iter().map(|a| a.log_likelihood).collect(),
                is_greedy: of.iter().map(|a| a.is_greedy).collect(),
                tokens: of.iter().map(|a| a.tokens).collect(),
            };
            if writer.is_some() {
                let line = LogLine {
                    doc: i,
                    scores: scores.clone(),
                };
                lines.push_str(&serde_json::to_string(&line).expect("finite scores serialise"));
                lines.push('\n');
            }
            done[i] = Some(scores);
        }
        if let Some((path, file)) = writer.as_deref_mut() {
            file.write_all(lines.as_bytes())
                .and_then(|()| file.flush())
                .map_err(|source| TaskError::Io {
                    path: path.to_path_buf(),
                    source,
                })?;
        }
        finished += chunk.len();
        progress(finished, docs.len());
    }
    Ok(())
}

/// Opens (or creates) a run log, filling `done` with the documents it holds.
fn open_log<'p>(
    path: &'p Path,
    run: &str,
    docs: &[Vec<Continuation>],
    done: &mut [Option<ChoiceScores>],
) -> Result<(&'p Path, File), TaskError> {
    let io = |source| TaskError::Io {
        path: path.to_path_buf(),
        source,
    };
    let header = LogHeader {
        run: run.to_owned(),
        documents_sha256: documents_sha256(docs),
        documents: docs.len(),
    };
    if !path.exists() || std::fs::metadata(path).map_err(io)?.len() == 0 {
        let mut file = File::create(path).map_err(io)?;
        let line = serde_json::to_string(&header).expect("a header serialises");
        writeln!(file, "{line}").map_err(io)?;
        return Ok((path, file));
    }
    let not_resuming = |reason: String| TaskError::NotResuming {
        path: path.to_path_buf(),
        reason,
    };
    let reader = BufReader::new(File::open(path).map_err(io)?);
    let mut kept_bytes = 0u64;
    let mut lines = reader.split(b'\n');
    let first = lines.next().transpose().map_err(io)?.unwrap_or_default();
    let found: LogHeader = serde_json::from_slice(&first)
        .map_err(|e| not_resuming(format!("its first line is not a run header ({e})")))?;
    if found != header {
        return Err(not_resuming(format!(
            "it holds the run `{}` on {} documents (sha256 {}), not `{}` on these {} (sha256 {})",
            found.run,
            found.documents,
            found.documents_sha256,
            header.run,
            header.documents,
            header.documents_sha256
        )));
    }
    kept_bytes += first.len() as u64 + 1;
    let total = std::fs::metadata(path).map_err(io)?.len();
    for line in lines {
        let line = line.map_err(io)?;
        // A complete line ends with the newline the split removed.
        let complete = kept_bytes + (line.len() as u64) < total;
        match serde_json::from_slice::<LogLine>(&line) {
            Ok(l) if complete && l.doc < docs.len() => {
                let n = docs[l.doc].len();
                if l.scores.log_likelihoods.len() != n
                    || l.scores.is_greedy.len() != n
                    || l.scores.tokens.len() != n
                {
                    return Err(not_resuming(format!(
                        "document {} has {} scores for {n} requests",
                        l.doc,
                        l.scores.log_likelihoods.len(),
                    )));
                }
                done[l.doc] = Some(l.scores);
                kept_bytes += line.len() as u64 + 1;
            }
            // The last line of an interrupted run: dropped, scored again.
            _ if !complete => break,
            Ok(l) => {
                return Err(not_resuming(format!(
                    "document {} is outside the {} documents",
                    l.doc,
                    docs.len()
                )))
            }
            Err(e) => {
                return Err(not_resuming(format!(
                    "a line is not a document's scores ({e})"
                )))
            }
        }
    }
    let file = OpenOptions::new().write(true).open(path).map_err(io)?;
    file.set_len(kept_bytes).map_err(io)?;
    let mut file = OpenOptions::new().append(true).open(path).map_err(io)?;
    file.flush().map_err(io)?;
    Ok((path, file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bias_core::{BoxError, ContinuationScore};

    /// Scores a continuation by its length in bytes, greedy when even.
    struct ByLength {
        calls: usize,
    }

    impl ContinuationScorer for ByLength {
        fn score_continuations(
            &mut self,
            requests: &[Continuation],
        ) -> Result<Vec<ContinuationScore>, BoxError> {
            self.calls += 1;
            Ok(requests
                .iter()
                .map(|r| ContinuationScore {
                    log_likelihood: -(r.continuation.len() as f64),
                    is_greedy: r.continuation.len() % 2 == 0,
                    tokens: 1,
                })
                .collect())
        }
    }

    fn docs() -> Vec<MultipleChoice> {
        (0..5)
            .map(|i| MultipleChoice {
                context: format!("Q{i}:"),
                choices: vec!["ccc".into(), "a".into(), "bb".into(), "z".into()],
            })
            .collect()
    }

    #[test]
    fn requests_put_a_space_before_each_choice_and_argmax_takes_the_first_maximum() {
        let d = &docs()[0];
        assert_eq!(d.requests()[1], Continuation::new("Q0:", " a"));
        assert_eq!(argmax(&[-2.0, -1.0, -3.0, -1.0]), Some(1));
        assert_eq!(argmax(&[]), None);
    }

    #[test]
    fn a_log_resumes_without_scoring_again_and_drops_a_cut_line() {
        let dir = std::env::temp_dir().join(format!("bias-tasks-choice-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("run.jsonl");
        let _ = std::fs::remove_file(&path);
        let docs = docs();
        let options = ChoiceRunOptions { chunk_docs: 2 };
        let mut m = ByLength { calls: 0 };
        let full =
            score_choices(&mut m, &docs, Some((&path, "t")), options, &mut |_, _| {}).unwrap();
        assert_eq!(m.calls, 3);
        assert_eq!(full[0].answer(), Some(1));
        // Cut the log in the middle of its last line: that document alone is scored again.
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, &text[..text.len() - 5]).unwrap();
        let mut again = ByLength { calls: 0 };
        let mut seen = Vec::new();
        let resumed = score_choices(
            &mut again,
            &docs,
            Some((&path, "t")),
            options,
            &mut |d, n| seen.push((d, n)),
        )
        .unwrap();
        assert_eq!(resumed, full);
        assert_eq!(again.calls, 1);
        assert_eq!(seen, vec![(4, 5), (5, 5)]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        // Another run's log is refused, naming the file.
        let err = score_choices(
            &mut again,
            &docs,
            Some((&path, "other")),
            options,
            &mut |_, _| {},
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("run.jsonl") && err.contains("not resuming"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shards_scored_apart_and_imported_give_the_unsharded_log() {
        let dir = std::env::temp_dir().join(format!("bias-tasks-shards-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let docs: Vec<Vec<Continuation>> = super::tests::docs()
            .iter()
            .chain(&super::tests::docs())
            .map(MultipleChoice::requests)
            .collect();
        let options = ChoiceRunOptions { chunk_docs: 3 };
        let whole = dir.join("whole.jsonl");
        let _ = std::fs::remove_file(&whole);
        let mut m = ByLength { calls: 0 };
        let expected =
            score_documents(&mut m, &docs, Some((&whole, "t")), options, &mut |_, _| {}).unwrap();
        let mut shard_logs = Vec::new();
        let mut covered = Vec::new();
        for i in 1..=3 {
            let path = dir.join(format!("shard-{i}.jsonl"));
            let _ = std::fs::remove_file(&path);
            let shard = bias_core::run::Shard::new(i, 3).unwrap();
            let mut last = (0, 0);
            let range = score_shard(&mut m, &docs, shard, (&path, "t"), options, &mut |d, n| {
                last = (d, n)
            })
            .unwrap();
            assert_eq!(last, (range.len(), range.len()));
            covered.extend(range);
            shard_logs.push(path);
        }
        assert_eq!(covered, (0..docs.len()).collect::<Vec<_>>());
        let merged = dir.join("merged.jsonl");
        let _ = std::fs::remove_file(&merged);
        assert_eq!(
            import_shard_logs((&merged, "t"), &docs, &shard_logs).unwrap(),
            docs.len()
        );
        let mut none = ByLength { calls: 0 };
        let resumed = score_documents(
            &mut none,
            &docs,
            Some((&merged, "t")),
            options,
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!((resumed, none.calls), (expected, 0));
        // A shard of another run is refused.
        let err = import_shard_logs((&merged, "other"), &docs, &shard_logs).unwrap_err();
        assert!(err.to_string().contains("not resuming"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shard_logs_are_named_beside_the_run_log_and_found_in_order() {
        let dir =
            std::env::temp_dir().join(format!("bias-tasks-shardnames-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("bbq.jsonl");
        let second = shard_log_path(&log, "2/3".parse().unwrap());
        assert_eq!(second, dir.join("bbq.shard-2-of-3.jsonl"));
        let first = shard_log_path(&log, "1/3".parse().unwrap());
        for f in [
            &second,
            &first,
            &dir.join("winogender.shard-1-of-2.jsonl"),
            &log,
        ] {
            std::fs::write(f, "").unwrap();
        }
        assert_eq!(shard_logs_beside(&log).unwrap(), vec![first, second]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A request the scorer's check refuses stops the run before any chunk is scored, naming
    /// its document.
    #[test]
    fn a_refused_request_stops_the_run_before_scoring() {
        struct Checked(ByLength);
        impl ContinuationScorer for Checked {
            fn score_continuations(
                &mut self,
                requests: &[Continuation],
            ) -> Result<Vec<ContinuationScore>, BoxError> {
                self.0.score_continuations(requests)
            }
            fn check_continuations(&mut self, requests: &[Continuation]) -> Result<(), BoxError> {
                match requests.iter().position(|r| r.context == "Q3:") {
                    Some(i) => Err(format!("request {i}: too long").into()),
                    None => Ok(()),
                }
            }
        }
        let mut scorer = Checked(ByLength { calls: 0 });
        let options = ChoiceRunOptions { chunk_docs: 2 };
        let err = score_choices(&mut scorer, &docs(), None, options, &mut |_, _| {}).unwrap_err();
        assert!(
            matches!(&err, TaskError::Document { doc: 3, what, .. } if what == "document 3"),
            "{err:?}"
        );
        assert_eq!(scorer.0.calls, 0, "nothing is scored");
    }

    #[test]
    fn a_non_finite_score_is_an_error_naming_the_document() {
        struct Nan;
        impl ContinuationScorer for Nan {
            fn score_continuations(
                &mut self,
                requests: &[Continuation],
            ) -> Result<Vec<ContinuationScore>, BoxError> {
                Ok(requests
                    .iter()
                    .map(|_| ContinuationScore {
                        log_likelihood: f64::NAN,
                        is_greedy: false,
                        tokens: 1,
                    })
                    .collect())
            }
        }
        let err = score_choices(
            &mut Nan,
            &docs(),
            None,
            ChoiceRunOptions::default(),
            &mut |_, _| {},
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                TaskError::NonFinite {
                    doc: 0,
                    choice: 0,
                    ..
                }
            ),
            "{err}"
        );
    }
}
