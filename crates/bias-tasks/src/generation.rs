//! Greedy generation over a list of prompts, resumable: `bias generate` and the generative
//! tasks write one JSON line per prompt ([`bias_core::Generation`]) as each chunk is done, and a
//! rerun with the same model, options and prompts keeps the lines already written.
//!
//! The output stays one line per prompt, so the run it belongs to is recorded beside it, in
//! `OUT.run.json` (the run's identity, the generation options and the prompts' SHA-256).

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use bias_core::{Finish, Generation, GenerationOptions, TextGenerator};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::TaskError;

/// What a generation run is, for its output to be resumed only by the same run.
#[derive(Debug, Clone)]
pub struct GenerationRun<'a> {
    /// The model and prompt format (a model digest, a chat template's identity).
    pub identity: String,
    /// How far to generate.
    pub options: &'a GenerationOptions,
    /// Prompts per call to the generator (and per write).
    pub chunk: usize,
}

/// How a generation run went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GenerationSummary {
    /// Prompts in the run.
    pub prompts: usize,
    /// Prompts whose output a previous run had written.
    pub resumed: usize,
    /// Continuations that stopped at the token limit, at an end-of-sequence token, at a stop
    /// string.
    pub length: usize,
    /// See [`GenerationSummary::length`].
    pub eos: usize,
    /// See [`GenerationSummary::length`].
    pub stop: usize,
}

/// The record beside an output: which run wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct RunRecord {
    run: String,
    max_new_tokens: usize,
    stop: Vec<String>,
    prompts: usize,
    prompts_sha256: String,
}

/// Where the run record of `out` is: `OUT.run.json`.
pub fn run_record_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".run.json");
    PathBuf::from(name)
}

/// The continuations of `prompts` by `generator`, in order, `run.chunk` prompts per call; with
/// `out`, each chunk's lines are appended to it as they are done, and the lines of a previous
/// run of the same `run` on the same prompts are read back instead of generated again (a line
/// cut short by a kill is dropped and generated again). `progress(done, total)` after each
/// chunk.
///
/// # Errors
/// [`TaskError::Generation`] naming the chunk the generator failed on (the chunks before it are
/// kept); [`TaskError::AnswerCount`]; [`TaskError::NotResuming`] for an output of another run;
/// [`TaskError::Io`].
pub fn generate_logged<G: TextGenerator + ?Sized>(
    generator: &mut G,
    prompts: &[String],
    out: Option<&Path>,
    run: &GenerationRun<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Vec<Generation>, GenerationSummary), TaskError> {
    let mut done: Vec<Generation> = Vec::with_capacity(prompts.len());
    let mut file = match out {
        Some(path) => Some((path, open_output(path, prompts, run, &mut done)?)),
        None => None,
    };
    let resumed = done.len();
    progress(done.len(), prompts.len());
    let start = done.len();
    for (c, chunk) in prompts[start..].chunks(run.chunk.max(1)).enumerate() {
        let first = start + c * run.chunk.max(1);
        let asked: Vec<&str> = chunk.iter().map(String::as_str).collect();
        let got = generator
            .generate_until(&asked, run.options)
            .map_err(|source| TaskError::Generation {
                first,
                end: first + chunk.len(),
                source,
            })?;
        if got.len() != chunk.len() {
            return Err(TaskError::AnswerCount {
                asked: chunk.len(),
                got: got.len(),
            });
        }
        if let Some((path, file)) = file.as_mut() {
            let mut lines = String::new();
            for g in &got {
                lines.push_str(&serde_json::to_string(g).expect("a generation serialises"));
                lines.push('\n');
            }
            file.write_all(lines.as_bytes())
                .and_then(|()| file.flush())
                .map_err(|source| TaskError::Io {
                    path: path.to_path_buf(),
                    source,
                })?;
        }
        done.extend(got);
        progress(done.len(), prompts.len());
    }
    let count = |f: Finish| done.iter().filter(|g| g.finish == f).count();
    let summary = GenerationSummary {
        prompts: prompts.len(),
        resumed,
        length: count(Finish::Length),
        eos: count(Finish::Eos),
        stop: count(Finish::Stop),
    };
    Ok((done, summary))
}

/// The SHA-256 of the prompts (each followed by a NUL).
fn prompts_sha256(prompts: &[String]) -> String {
    let mut h = Sha256::new();
    for p in prompts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    format!("{:x}", h.finalize())
}

/// Opens `path` for appending, after reading into `done` the lines a previous run of the same
/// record wrote (and cutting a last line left incomplete); writes the record for a new output.
fn open_output(
    path: &Path,
    prompts: &[String],
    run: &GenerationRun<'_>,
    done: &mut Vec<Generation>,
) -> Result<File, TaskError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| TaskError::Io { path: p, source }
    };
    let record = RunRecord {
        run: run.identity.clone(),
        max_new_tokens: run.options.max_new_tokens,
        stop: run.options.stop.clone(),
        prompts: prompts.len(),
        prompts_sha256: prompts_sha256(prompts),
    };
    let record_path = run_record_path(path);
    let not_resuming = |reason: String| TaskError::NotResuming {
        path: path.to_path_buf(),
        reason,
    };
    let has_output = path.exists() && std::fs::metadata(path).map_err(io(path))?.len() > 0;
    if has_output {
        let text = std::fs::read_to_string(&record_path).map_err(|_| {
            not_resuming(format!(
                "it has no readable run record {} beside it, so which run wrote it is unknown",
                record_path.display()
            ))
        })?;
        let found: RunRecord = serde_json::from_str(&text)
            .map_err(|e| not_resuming(format!("{}: {e}", record_path.display())))?;
        if found != record {
            return Err(not_resuming(format!(
                "it holds the run {found:?}, not {record:?}"
            )));
        }
        let kept = read_lines(path, prompts, done).map_err(not_resuming)?;
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io(path))?;
        file.set_len(kept).map_err(io(path))?;
    } else {
        let text = serde_json::to_string_pretty(&record).expect("a record serialises");
        std::fs::write(&record_path, text + "\n").map_err(io(&record_path))?;
        File::create(path).map_err(io(path))?;
    }
    OpenOptions::new().append(true).open(path).map_err(io(path))
}

/// Reads the complete lines of `path` into `done` (each must be the generation of the prompt of
/// its line) and returns their length in bytes.
fn read_lines(path: &Path, prompts: &[String], done: &mut Vec<Generation>) -> Result<u64, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(file);
    let mut kept = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?;
        // The end, or the last line of an interrupted run (no newline): dropped.
        if n == 0 || line.last() != Some(&b'\n') {
            return Ok(kept);
        }
        let i = done.len();
        let g: Generation = serde_json::from_slice(&line)
            .map_err(|e| format!("line {} is not a generation ({e})", i + 1))?;
        match prompts.get(i) {
            Some(p) if *p == g.prompt => {}
            _ => {
                return Err(format!(
                    "line {} is not the output of prompt {}",
                    i + 1,
                    i + 1
                ))
            }
        }
        done.push(g);
        kept += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bias_core::BoxError;

    /// Echoes each prompt reversed, token ids its bytes; counts the prompts it is asked.
    struct Reverser {
        asked: usize,
        fail_at: Option<usize>,
    }

    impl TextGenerator for Reverser {
        fn generate_until(
            &mut self,
            prompts: &[&str],
            options: &GenerationOptions,
        ) -> Result<Vec<Generation>, BoxError> {
            if self.fail_at.is_some_and(|f| self.asked + prompts.len() > f) {
                return Err("the server went away".into());
            }
            self.asked += prompts.len();
            Ok(prompts
                .iter()
                .map(|p| Generation {
                    prompt: (*p).to_owned(),
                    text: p.chars().rev().take(options.max_new_tokens).collect(),
                    token_ids: p.bytes().map(i64::from).collect(),
                    finish: Finish::Length,
                })
                .collect())
        }
    }

    fn prompts(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("prompt {i}")).collect()
    }

    #[test]
    fn an_interrupted_run_resumes_and_writes_the_bytes_of_one_run() {
        let dir = bias_testkit::scratch("generation-resume");
        let (clean, cut) = (dir.join("clean.jsonl"), dir.join("cut.jsonl"));
        let options = GenerationOptions {
            max_new_tokens: 3,
            stop: vec![],
        };
        let run = GenerationRun {
            identity: "reverser".into(),
            options: &options,
            chunk: 2,
        };
        let p = prompts(7);
        let mut g = Reverser {
            asked: 0,
            fail_at: None,
        };
        let (all, summary) =
            generate_logged(&mut g, &p, Some(&clean), &run, &mut |_, _| {}).unwrap();
        assert_eq!((all.len(), summary.length, summary.resumed), (7, 7, 0));
        assert_eq!(all[2].text, "2 t");

        // Fails in its third chunk: two chunks kept, and a line cut short by a kill dropped.
        let mut g = Reverser {
            asked: 0,
            fail_at: Some(5),
        };
        let e = generate_logged(&mut g, &p, Some(&cut), &run, &mut |_, _| {}).unwrap_err();
        assert!(e.to_string().contains("prompts 5 to 6"), "{e}");
        let mut f = OpenOptions::new().append(true).open(&cut).unwrap();
        f.write_all(b"{\"prompt\": \"prompt 4\", \"te").unwrap();
        let mut g = Reverser {
            asked: 0,
            fail_at: None,
        };
        let (_, summary) = generate_logged(&mut g, &p, Some(&cut), &run, &mut |_, _| {}).unwrap();
        assert_eq!((summary.resumed, g.asked), (4, 3));
        assert_eq!(std::fs::read(&clean).unwrap(), std::fs::read(&cut).unwrap());

        // Another run's options, or other prompts, are refused.
        let longer = GenerationOptions {
            max_new_tokens: 4,
            stop: vec![],
        };
        let other = GenerationRun {
            options: &longer,
            ..run.clone()
        };
        let e = generate_logged(&mut g, &p, Some(&cut), &other, &mut |_, _| {}).unwrap_err();
        assert!(e.to_string().contains("not resuming"), "{e}");
        let e = generate_logged(&mut g, &prompts(6), Some(&cut), &run, &mut |_, _| {}).unwrap_err();
        assert!(e.to_string().contains("not resuming"), "{e}");
    }
}
