//! Mining a corpus for the sentences of one side of the gender binary, balanced `|F| = |M|`
//! (kaneko2023 §2).

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use bias_core::CoreError;
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::words::{Gender, GenderWords};
use crate::util::{csv_error, invalid, source_name};
use crate::DataError;

/// The column of the BUG corpus that holds the sentence.
const BUG_SENTENCE_COLUMN: &str = "sentence_text";

/// How a corpus file holds its sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CorpusFormat {
    /// Plain text, one sentence per line (as news crawl and BookCorpus are distributed;
    /// kaneko2023 §3.1).
    Lines,
    /// The BUG corpus CSV (`data/bug/full_BUG.csv`): sentences in its `sentence_text` column.
    BugCsv,
}

impl CorpusFormat {
    /// Recognises a corpus file: a first line that is a CSV header with a `sentence_text` column
    /// means [`CorpusFormat::BugCsv`], anything else [`CorpusFormat::Lines`].
    ///
    /// # Errors
    /// [`DataError::CorpusUnreadable`] if the file cannot be opened or read.
    pub fn detect(path: impl AsRef<Path>) -> Result<Self, DataError> {
        let path = path.as_ref();
        let mut first = Vec::new();
        open(path)?
            .read_until(b'\n', &mut first)
            .map_err(|e| unreadable(path, e))?;
        let first = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&first);
        let mut header = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(first);
        let mut record = csv::StringRecord::new();
        // A first line that is not valid CSV cannot be a BUG header.
        let is_bug = header.read_record(&mut record).unwrap_or(false)
            && record.iter().any(|f| f.trim() == BUG_SENTENCE_COLUMN);
        Ok(if is_bug {
            CorpusFormat::BugCsv
        } else {
            CorpusFormat::Lines
        })
    }
}

/// Options of [`mine_corpus`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MiningOptions {
    /// The file's format; `None` recognises it with [`CorpusFormat::detect`].
    pub format: Option<CorpusFormat>,
    /// Seed of the down-sampling that balances the sides (`ChaCha8Rng::seed_from_u64`).
    pub seed: u64,
    /// Most sentences kept per side (kaneko2023 §3.1 keeps 2M); `None` keeps as many as the
    /// smaller side has.
    pub max_per_side: Option<usize>,
}

/// What mining read and why sentences were dropped (kaneko2023 §2).
///
/// `lines = empty + duplicates + neither + both + male + female`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MiningStats {
    /// Lines read (records for the BUG CSV).
    pub lines: usize,
    /// Lines empty after trimming.
    pub empty: usize,
    /// Male or female sentences that repeat an earlier one exactly (after trimming).
    pub duplicates: usize,
    /// Sentences with no gender word (every occurrence counted).
    pub neither: usize,
    /// Sentences with male and female words, excluded by kaneko2023 §2 (every occurrence).
    pub both: usize,
    /// Distinct sentences with male words only, before balancing.
    pub male: usize,
    /// Distinct sentences with female words only, before balancing.
    pub female: usize,
    /// Sentences kept on each side after balancing (`|M| = |F|`).
    pub kept_per_side: usize,
}

/// The balanced male and female sentences of a corpus (kaneko2023 §2: `|F| = |M|`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MinedCorpus {
    /// Male sentences kept, in corpus order.
    pub male: Vec<String>,
    /// Female sentences kept, in corpus order.
    pub female: Vec<String>,
    /// Counts of what was read and dropped.
    pub stats: MiningStats,
}

/// Mines a corpus file for bias-controlled fine-tuning (kaneko2023 §2): reads it line by line
/// (or the `sentence_text` column of the BUG CSV), trims each sentence, skips empty lines, keeps
/// sentences with words of exactly one side of `words`, drops exact repeats, and down-samples
/// the larger side at random (seeded) to the size of the smaller, capped at
/// `options.max_per_side`. Kept sentences stay in corpus order.
///
/// Line breaks inside a CSV field become spaces, so every sentence fits on one line of
/// [`write_lines`](super::write_lines).
///
/// # Errors
/// [`DataError::CorpusUnreadable`] if the file cannot be read (for files under `data/`, run
/// `scripts/setup.sh`); [`DataError::InvalidRecord`] for a line that is not UTF-8;
/// [`CoreError::Csv`] / [`CoreError::MissingColumn`] for a malformed BUG CSV;
/// [`DataError::EmptySide`] if a side has no sentence; [`CoreError::InvalidInput`] if
/// `max_per_side` is 0.
pub fn mine_corpus(
    path: impl AsRef<Path>,
    words: &GenderWords,
    options: &MiningOptions,
) -> Result<MinedCorpus, DataError> {
    let path = path.as_ref();
    let name = source_name(path);
    let format = match options.format {
        Some(format) => format,
        None => CorpusFormat::detect(path)?,
    };
    let mut miner = Miner::new(words);
    stream(path, format, &name, &mut |s| miner.push(s))?;
    miner.finish(&name, options)
}

/// Every non-empty sentence of a corpus file (one per line, or the BUG CSV), trimmed, in
/// order: the training text of a plain fine-tuning run (the demo model).
///
/// # Errors
/// As [`mine_corpus`] for reading; [`CoreError::InvalidInput`] if the file has no sentence.
pub fn read_sentences(
    path: impl AsRef<Path>,
    format: Option<CorpusFormat>,
) -> Result<Vec<String>, DataError> {
    let path = path.as_ref();
    let name = source_name(path);
    let format = match format {
        Some(format) => format,
        None => CorpusFormat::detect(path)?,
    };
    let mut sentences = Vec::new();
    stream(path, format, &name, &mut |s| {
        let s = s.trim();
        if !s.is_empty() {
            sentences.push(s.replace(['\r', '\n'], " "));
        }
    })?;
    if sentences.is_empty() {
        return Err(CoreError::InvalidInput(format!("{name} holds no sentence")).into());
    }
    Ok(sentences)
}

/// Streams the sentences of a corpus file in `format` into `sink`.
fn stream(
    path: &Path,
    format: CorpusFormat,
    name: &str,
    sink: &mut dyn FnMut(&str),
) -> Result<(), DataError> {
    match format {
        CorpusFormat::Lines => read_lines(path, name, sink),
        CorpusFormat::BugCsv => read_bug(path, name, sink),
    }
}

/// [`mine_corpus`] on sentences in memory (`options.format` is ignored).
///
/// # Errors
/// [`DataError::EmptySide`] if a side has no sentence; [`CoreError::InvalidInput`] if
/// `max_per_side` is 0.
pub fn mine_sentences(
    sentences: impl IntoIterator<Item = impl AsRef<str>>,
    words: &GenderWords,
    options: &MiningOptions,
) -> Result<MinedCorpus, DataError> {
    let mut miner = Miner::new(words);
    for sentence in sentences {
        miner.push(sentence.as_ref());
    }
    miner.finish("the given sentences", options)
}

/// Opens a corpus file for buffered reading.
fn open(path: &Path) -> Result<BufReader<File>, DataError> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|e| unreadable(path, e))
}

/// A [`DataError::CorpusUnreadable`] whose hint points at the setup script for bundled data.
fn unreadable(path: &Path, source: std::io::Error) -> DataError {
    let bundled = path.components().any(|c| c.as_os_str() == "data");
    let hint = if bundled {
        "run scripts/setup.sh, which fetches the data sets into data/"
    } else {
        "check that the file exists and is readable"
    };
    DataError::CorpusUnreadable {
        path: path.to_path_buf(),
        source,
        hint: hint.to_owned(),
    }
}

/// Streams a one-sentence-per-line file into `miner` (corpora are too large to read whole).
fn read_lines(path: &Path, name: &str, sink: &mut dyn FnMut(&str)) -> Result<(), DataError> {
    let mut reader = open(path)?;
    let mut buf = Vec::new();
    for line in 1u64.. {
        buf.clear();
        if reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| unreadable(path, e))?
            == 0
        {
            break;
        }
        let raw = if line == 1 {
            buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&buf)
        } else {
            &buf
        };
        let text = std::str::from_utf8(raw).map_err(|e| {
            let message = format!(
                "invalid UTF-8 at byte {} of the line; save the file as UTF-8",
                e.valid_up_to() + 1
            );
            invalid(name, format!("line {line}"), message)
        })?;
        sink(text);
    }
    Ok(())
}

/// Streams the `sentence_text` column of a BUG CSV into `miner`.
fn read_bug(path: &Path, name: &str, sink: &mut dyn FnMut(&str)) -> Result<(), DataError> {
    let mut reader = csv::Reader::from_reader(open(path)?);
    let headers = reader.headers().map_err(|e| csv_error(name, e))?;
    let column = headers
        .iter()
        .position(|h| h.trim() == BUG_SENTENCE_COLUMN)
        .ok_or_else(|| CoreError::MissingColumn {
            source_name: name.to_owned(),
            column: BUG_SENTENCE_COLUMN.to_owned(),
            expected: BUG_SENTENCE_COLUMN.to_owned(),
        })?;
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(name, e))?
    {
        sink(record.get(column).unwrap_or_default());
    }
    Ok(())
}

/// Accumulates classified sentences while a corpus streams past.
struct Miner<'w> {
    words: &'w GenderWords,
    /// Kept sentences seen so far. Only male and female sentences are remembered (they are
    /// stored anyway), not every line of a corpus of millions, so repeats of excluded sentences
    /// count under `neither` / `both`.
    seen: HashSet<String>,
    male: Vec<String>,
    female: Vec<String>,
    stats: MiningStats,
}

impl<'w> Miner<'w> {
    fn new(words: &'w GenderWords) -> Self {
        Miner {
            words,
            seen: HashSet::new(),
            male: Vec::new(),
            female: Vec::new(),
            stats: MiningStats::default(),
        }
    }

    /// Counts and, if it has one side's words only and is new, keeps one sentence.
    fn push(&mut self, line: &str) {
        self.stats.lines += 1;
        let sentence = line.trim();
        if sentence.is_empty() {
            self.stats.empty += 1;
            return;
        }
        let side = match self.words.sides(sentence) {
            (true, false) => Gender::Male,
            (false, true) => Gender::Female,
            (true, true) => return self.stats.both += 1,
            (false, false) => return self.stats.neither += 1,
        };
        if !self.seen.insert(sentence.to_owned()) {
            self.stats.duplicates += 1;
            return;
        }
        let sentence = sentence.replace(['\r', '\n'], " ");
        match side {
            Gender::Male => self.male.push(sentence),
            Gender::Female => self.female.push(sentence),
        }
    }

    /// Balances the sides (kaneko2023 §2: `|F| = |M|`) by seeded down-sampling.
    fn finish(self, name: &str, options: &MiningOptions) -> Result<MinedCorpus, DataError> {
        if options.max_per_side == Some(0) {
            return Err(CoreError::InvalidInput(
                "max_per_side must be at least 1 (or None for no cap)".to_owned(),
            )
            .into());
        }
        let mut stats = self.stats;
        (stats.male, stats.female) = (self.male.len(), self.female.len());
        for (side, count) in [(Gender::Male, stats.male), (Gender::Female, stats.female)] {
            if count == 0 {
                return Err(DataError::EmptySide {
                    source_name: name.to_owned(),
                    side,
                    lines: stats.lines,
                });
            }
        }
        let smaller = stats.male.min(stats.female);
        stats.kept_per_side = options.max_per_side.map_or(smaller, |cap| cap.min(smaller));
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        Ok(MinedCorpus {
            male: keep_sample(self.male, stats.kept_per_side, &mut rng),
            female: keep_sample(self.female, stats.kept_per_side, &mut rng),
            stats,
        })
    }
}

/// `k` sentences of `side` drawn at random without replacement, kept in their original order.
fn keep_sample(side: Vec<String>, k: usize, rng: &mut ChaCha8Rng) -> Vec<String> {
    if side.len() <= k {
        return side;
    }
    let mut keep = vec![false; side.len()];
    for i in sample(rng, side.len(), k) {
        keep[i] = true;
    }
    side.into_iter()
        .zip(keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect()
}

/// The BUG column that names the corpus a sentence was drawn from (`wikipedia`, `pubmed`,
/// `covid19`).
pub const BUG_SOURCE_COLUMN: &str = "corpus";

/// The sentences of a BUG CSV whose [`BUG_SOURCE_COLUMN`] is `source` (`wikipedia`, `pubmed` or
/// `covid19`; Levy et al. 2021), trimmed, in file order: one of BUG's source corpora, to stand in
/// for one of kaneko2023 §3.1's corpora (news crawl, BookCorpus) when they are not at hand.
///
/// # Errors
/// As [`read_bug_sources`]; [`CoreError::InvalidInput`] naming the sources the file has when
/// none of its rows is from `source`.
pub fn read_bug_source(path: impl AsRef<Path>, source: &str) -> Result<Vec<String>, DataError> {
    let path = path.as_ref();
    let mut all = read_bug_sources(path)?;
    all.remove(source).ok_or_else(|| {
        CoreError::InvalidInput(format!(
            "{}: no row has {BUG_SOURCE_COLUMN} = {source:?}; the file has {:?}",
            source_name(path),
            all.keys().collect::<Vec<_>>()
        ))
        .into()
    })
}

/// Every non-empty sentence of a BUG CSV, trimmed, by its [`BUG_SOURCE_COLUMN`] (in file order
/// within a source), read in one pass.
///
/// # Errors
/// [`DataError::CorpusUnreadable`] if the file cannot be read; [`CoreError::Csv`] /
/// [`CoreError::MissingColumn`] for a malformed BUG CSV.
pub fn read_bug_sources(
    path: impl AsRef<Path>,
) -> Result<std::collections::BTreeMap<String, Vec<String>>, DataError> {
    let path = path.as_ref();
    let name = source_name(path);
    let mut reader = csv::Reader::from_reader(open(path)?);
    let headers = reader.headers().map_err(|e| csv_error(&name, e))?.clone();
    let column = |wanted: &str| {
        headers
            .iter()
            .position(|h| h.trim() == wanted)
            .ok_or_else(|| CoreError::MissingColumn {
                source_name: name.clone(),
                column: wanted.to_owned(),
                expected: format!("{BUG_SENTENCE_COLUMN}, {BUG_SOURCE_COLUMN}"),
            })
    };
    let (text, corpus) = (column(BUG_SENTENCE_COLUMN)?, column(BUG_SOURCE_COLUMN)?);
    let mut record = csv::StringRecord::new();
    let mut by_source = std::collections::BTreeMap::<String, Vec<String>>::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(&name, e))?
    {
        let from = record.get(corpus).unwrap_or_default().trim();
        let s = record.get(text).unwrap_or_default().trim();
        if !s.is_empty() {
            by_source
                .entry(from.to_owned())
                .or_default()
                .push(s.replace(['\r', '\n'], " "));
        }
    }
    Ok(by_source)
}

/// Holds `per_side` sentences of each side of `corpus` out as development data (kaneko2023
/// §3.1 keeps "a separate 100K sentences as development data"): drawn at random
/// (`ChaCha8Rng::seed_from_u64(seed)`, stream 1, so the draw does not repeat the balancing's),
/// removed from `corpus` (whose `kept_per_side` shrinks by `per_side`) and returned in corpus
/// order. The training sets of [`rate_sets`](super::rate_sets) drawn from `corpus` afterwards
/// never contain them. `per_side` = 0 returns an empty split.
///
/// # Errors
/// [`CoreError::InvalidInput`] if `per_side` leaves a side without a training sentence.
pub fn hold_out_dev(
    corpus: &mut MinedCorpus,
    per_side: usize,
    seed: u64,
) -> Result<MinedCorpus, DataError> {
    let smaller = corpus.male.len().min(corpus.female.len());
    if per_side >= smaller && per_side > 0 {
        return Err(CoreError::InvalidInput(format!(
            "a development split of {per_side} sentences per side leaves no training \
             sentence ({smaller} per side were mined); use a smaller split"
        ))
        .into());
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(1);
    let mut split = |side: &mut Vec<String>| -> Vec<String> {
        let mut dev = vec![false; side.len()];
        for i in sample(&mut rng, side.len(), per_side) {
            dev[i] = true;
        }
        let (held, kept): (Vec<_>, Vec<_>) = std::mem::take(side)
            .into_iter()
            .zip(dev)
            .partition(|(_, d)| *d);
        *side = kept.into_iter().map(|(s, _)| s).collect();
        held.into_iter().map(|(s, _)| s).collect()
    };
    let male = split(&mut corpus.male);
    let female = split(&mut corpus.female);
    corpus.stats.kept_per_side = corpus.male.len().min(corpus.female.len());
    Ok(MinedCorpus {
        stats: MiningStats {
            kept_per_side: per_side,
            ..MiningStats::default()
        },
        male,
        female,
    })
}
