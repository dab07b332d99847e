//! The request log of a served model's run: every prompt the server answered, with what it
//! answered, one JSON line each, appended as the answers arrive. A run that stops (an error, a
//! kill, a preempted job) and is started again asks the server only for what the log lacks, and
//! reads the rest back exactly (the numbers are written as `serde_json` writes `f64`: they read
//! back to the same bits), so the resumed run writes the bytes a clean run writes.
//!
//! The first line names the served model; a log of another model is refused. A last line cut
//! short by a kill is dropped (its prompts are asked again).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::client::Echoed;
use crate::PlmError;

/// The first line of a request log.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Header {
    served_model: String,
}

/// One answered prompt.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    /// SHA-256 of the prompt's token ids (little-endian i64s).
    prompt: String,
    log_probs: Vec<f64>,
    top: Vec<bool>,
}

/// A request log, open for appending, with what it already holds.
#[derive(Debug)]
pub(crate) struct RequestLog {
    path: PathBuf,
    known: HashMap<String, Echoed>,
    file: Mutex<File>,
}

impl RequestLog {
    /// Opens (or creates) the log at `path` for the served model `model`.
    ///
    /// # Errors
    /// [`PlmError::Served`] for a log of another model or a line that is not an entry;
    /// [`PlmError::Io`].
    pub(crate) fn open(path: &Path, model: &str) -> Result<Self, PlmError> {
        let io = |source| PlmError::Io {
            path: path.to_path_buf(),
            source,
        };
        let bad = |reason: String| PlmError::Served {
            request: format!("the request log {}", path.display()),
            reason,
        };
        let mut known = HashMap::new();
        let mut valid_bytes = 0u64;
        if path.is_file() {
            let total = file_len(path)?;
            let reader = BufReader::new(File::open(path).map_err(io)?);
            for (i, line) in reader.split(b'\n').enumerate() {
                let line = line.map_err(io)?;
                // A last line without its newline is what a kill cut short: dropped (its
                // prompts are asked again) and cut from the file.
                if valid_bytes + line.len() as u64 + 1 > total {
                    break;
                }
                if i == 0 {
                    let header: Header = serde_json::from_slice(&line)
                        .map_err(|e| bad(format!("line 1 is not its header ({e})")))?;
                    if header.served_model != model {
                        return Err(bad(format!(
                            "it logs the served model {}, not {model}: give the run another \
                             output, or delete the log to ask the server again",
                            header.served_model
                        )));
                    }
                } else {
                    let e: Entry = serde_json::from_slice(&line)
                        .map_err(|e| bad(format!("line {} is not an entry ({e})", i + 1)))?;
                    let echoed = Echoed {
                        log_probs: e.log_probs,
                        top_is_token: e.top,
                    };
                    known.insert(e.prompt, echoed);
                }
                valid_bytes += line.len() as u64 + 1;
            }
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        file.set_len(valid_bytes).map_err(io)?;
        if valid_bytes == 0 {
            let header = Header {
                served_model: model.to_owned(),
            };
            let line = serde_json::to_string(&header).expect("a header serialises");
            writeln!(file, "{line}").map_err(io)?;
        }
        Ok(RequestLog {
            path: path.to_path_buf(),
            known,
            file: Mutex::new(file),
        })
    }

    /// What the log holds for `prompt`.
    pub(crate) fn get(&self, prompt: &[i64]) -> Option<&Echoed> {
        self.known.get(&key(prompt))
    }

    /// Appends the answers to `prompts` (written and flushed before this returns).
    ///
    /// # Errors
    /// [`PlmError::Io`].
    pub(crate) fn append(&self, prompts: &[&[i64]], answers: &[Echoed]) -> Result<(), PlmError> {
        let mut text = String::new();
        for (p, a) in prompts.iter().zip(answers) {
            let entry = Entry {
                prompt: key(p),
                log_probs: a.log_probs.clone(),
                top: a.top_is_token.clone(),
            };
            text += &serde_json::to_string(&entry).expect("an entry serialises");
            text.push('\n');
        }
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|source| PlmError::Io {
                path: self.path.clone(),
                source,
            })
    }

    /// Prompts the log holds.
    pub(crate) fn len(&self) -> usize {
        self.known.len()
    }
}

fn key(prompt: &[i64]) -> String {
    let mut h = Sha256::new();
    for id in prompt {
        h.update(id.to_le_bytes());
    }
    format!("{:x}", h.finalize())
}

fn file_len(path: &Path) -> Result<u64, PlmError> {
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|source| PlmError::Io {
            path: path.to_path_buf(),
            source,
        })
}
