//! Static word vectors: a vocabulary index and an `f32` matrix with one row per word.
//!
//! [`WordVectors::load`] streams the three usual file formats through a buffered reader (the file
//! is never read into memory as a whole; memory use is close to the size of the matrix):
//!
//! - **word2vec binary** ([`VectorFormat::Word2VecBinary`]): a header line `WORDS DIM`, then per
//!   word the word's bytes up to a space and `DIM` little-endian `f32`, optionally followed by a
//!   line break (both layouts occur in the wild; both are read).
//! - **word2vec text** ([`VectorFormat::Word2VecText`]): a header line `WORDS DIM`, then one
//!   `word v1 … vDIM` line per word.
//! - **GloVe text** ([`VectorFormat::Glove`]): no header; one `word v1 … vDIM` line per word, the
//!   dimension taken from the first line. A word is the first whitespace-separated token of its
//!   line (the few GloVe 840B entries whose word contains a space are reported as malformed lines).
//!
//! [`VectorFormat::Auto`] looks at the content, not at the file name: if the first line is a
//! header of two integers, the file is word2vec binary when the bytes after the header are not
//! plain text (invalid UTF-8 or control characters other than tab, CR and LF in the first 4 KiB),
//! word2vec text otherwise; without such a header it is GloVe. Pass the format explicitly when in
//! doubt (a one-dimensional GloVe file whose first word is a number reads as a header).
//!
//! Decisions, applied by every loader:
//!
//! - **Invalid UTF-8** in a word is decoded lossily (invalid bytes become U+FFFD) and counted in
//!   [`LoadReport::lossy_words`]; the full GoogleNews file holds a few such words, and refusing
//!   the whole file for them would help nobody.
//! - **Duplicate words**: the first occurrence wins; later ones are skipped and counted in
//!   [`LoadReport::duplicates`] (see [`WordVectors::duplicates`]).
//! - **Case** ([`CasePolicy`]): with [`CasePolicy::Lower`] words are lower-cased at load and the
//!   first occurrence of a lower-cased word wins; word2vec files list frequent forms first, so
//!   `he` (or the more frequent of `He`/`HE`) is the one kept. Lookups then lower-case the query
//!   too. A word merged away by lower-casing counts as a duplicate.
//! - **Values** must be finite: NaN and infinities are errors (they would poison every cosine).
//! - **Errors** are [`EmbedError::Format`] naming the file and the line (text formats) or the
//!   1-based word index (binary): a wrong number of values, a value that is not a number, a
//!   truncated file, fewer or more words than the header announces. I/O failures are
//!   [`EmbedError::Core`] with [`bias_core::CoreError::Io`].
//!
//! # Example
//!
//! ```
//! use bias_embed::{CasePolicy, VectorFormat, WordVectors};
//! use ndarray::array;
//!
//! let vectors = WordVectors::from_parts(
//!     vec!["He".into(), "she".into(), "nurse".into()],
//!     array![[1.0, 0.0], [0.0, 1.0], [0.25, 1.0]],
//! )?;
//! let path = std::env::temp_dir().join(format!("bias-embed-doc-{}.bin", std::process::id()));
//! vectors.save_word2vec_binary(&path)?;
//! let loaded = WordVectors::load(&path, VectorFormat::Auto, CasePolicy::Lower);
//! std::fs::remove_file(&path).ok();
//! let loaded = loaded?;
//!
//! assert_eq!((loaded.len(), loaded.dim()), (3, 2));
//! assert_eq!(loaded.words(), ["he", "she", "nurse"]);
//! assert_eq!(loaded.get("HE").unwrap()[0], 1.0); // queries are lower-cased too
//!
//! // Missing words are reported, never silently dropped.
//! let female = loaded.lookup_set("female", &["she", "her"])?;
//! assert_eq!(female.present, ["she"]);
//! assert_eq!(female.missing, ["her"]);
//! assert_eq!(female.matrix.dim(), (1, 2));
//! assert!(loaded.lookup_set_strict("female", &["she", "her"]).is_err());
//!
//! // A phrase is the mean of its words' vectors.
//! assert_eq!(loaded.phrase("he nurse")?, array![0.625, 0.5]);
//! # Ok::<(), bias_embed::EmbedError>(())
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;

use bias_core::CoreError;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};

use crate::EmbedError;

/// Longest header line read before giving up.
const MAX_HEADER_BYTES: u64 = 1024;
/// Longest word (in bytes) of a binary file before giving up.
const MAX_WORD_BYTES: u64 = 64 * 1024;
/// Bytes after the header inspected by [`VectorFormat::Auto`].
const SNIFF_BYTES: usize = 4096;
/// Duplicate words kept as examples in the [`LoadReport`].
const DUPLICATE_EXAMPLES: usize = 10;
/// Buffer size of the readers and writers.
const BUFFER_BYTES: usize = 1 << 20;

/// The layout of a word-vector file (see [`WordVectors`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VectorFormat {
    /// word2vec binary: header `WORDS DIM`, then per word `word<space>` and `DIM` little-endian
    /// `f32`, optionally followed by a line break.
    Word2VecBinary,
    /// word2vec text: header `WORDS DIM`, then one `word v1 … vDIM` line per word.
    Word2VecText,
    /// GloVe text: no header, one `word v1 … vDIM` line per word.
    Glove,
    /// Decide from the content: a two-integer header followed by non-text bytes is word2vec
    /// binary, a header followed by text is word2vec text, no header is GloVe.
    Auto,
}

/// How the case of words is treated at load time and in lookups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CasePolicy {
    /// Words are kept as they are in the file; lookups are case-sensitive.
    #[default]
    Keep,
    /// Words are lower-cased at load; the first occurrence of each lower-cased word wins (word2vec
    /// files list frequent forms first) and later ones count as duplicates. Lookups lower-case
    /// the query.
    Lower,
}

impl CasePolicy {
    fn apply(self, word: &str) -> Cow<'_, str> {
        match self {
            CasePolicy::Keep => Cow::Borrowed(word),
            CasePolicy::Lower if word.is_ascii() => {
                if word.bytes().any(|b| b.is_ascii_uppercase()) {
                    Cow::Owned(word.to_ascii_lowercase())
                } else {
                    Cow::Borrowed(word)
                }
            }
            CasePolicy::Lower => {
                let lower = word.to_lowercase();
                if lower == word {
                    Cow::Borrowed(word)
                } else {
                    Cow::Owned(lower)
                }
            }
        }
    }
}

/// What a load found besides the vectors.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadReport {
    /// The format the file was read as ([`VectorFormat::Auto`] resolved).
    pub format: VectorFormat,
    /// Word records read from the file (duplicates included).
    pub records: usize,
    /// Records skipped because their word (after the [`CasePolicy`]) was already loaded; the
    /// first occurrence wins.
    pub duplicates: usize,
    /// The first few skipped duplicate words, for a message.
    pub duplicate_examples: Vec<String>,
    /// Words whose bytes were not valid UTF-8 and were decoded lossily (U+FFFD).
    pub lossy_words: usize,
}

/// Word vectors: a vocabulary index and an `f32` matrix, one row per word, in file order.
#[derive(Clone)]
pub struct WordVectors {
    words: Vec<String>,
    index: HashMap<String, usize>,
    matrix: Array2<f32>,
    case: CasePolicy,
    report: Option<LoadReport>,
}

impl fmt::Debug for WordVectors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WordVectors")
            .field("len", &self.len())
            .field("dim", &self.dim())
            .field("case", &self.case)
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

/// The vectors of a word set, with the words that were found and those that were not.
#[derive(Debug, Clone, PartialEq)]
pub struct LookedUp {
    /// The set's name (used in error messages).
    pub set: String,
    /// Words found, in the order given (one matrix row each).
    pub present: Vec<String>,
    /// Words not in the vocabulary, in the order given.
    pub missing: Vec<String>,
    /// The vectors of `present`, one row per word, in `f64`.
    pub matrix: Array2<f64>,
}

impl LookedUp {
    /// Whether every word was found.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }

    /// Returns `self` if every word was found.
    ///
    /// # Errors
    /// [`EmbedError::MissingWords`] naming the set and the missing words.
    pub fn require_complete(self) -> Result<Self, EmbedError> {
        if self.missing.is_empty() {
            Ok(self)
        } else {
            Err(EmbedError::MissingWords {
                set: self.set,
                words: self.missing,
            })
        }
    }
}

fn format_error(
    path: &Path,
    location: impl Into<String>,
    message: impl Into<String>,
) -> EmbedError {
    EmbedError::Format {
        path: path.to_path_buf(),
        location: location.into(),
        message: message.into(),
    }
}

fn io_error(path: &Path, e: io::Error) -> EmbedError {
    EmbedError::Core(CoreError::io(path, e))
}

/// A short, printable excerpt of a token or line for messages.
fn excerpt(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        format!("`{}`", text.escape_debug())
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("`{}…`", head.escape_debug())
    }
}

fn parse_header(line: &str) -> Option<(usize, usize)> {
    let mut tokens = line.split_ascii_whitespace();
    let words = tokens.next()?.parse().ok()?;
    let dim = tokens.next()?.parse().ok()?;
    tokens.next().is_none().then_some((words, dim))
}

/// Accumulates the rows of a load, applying the case policy and the first-wins rule.
struct Builder {
    case: CasePolicy,
    dim: usize,
    words: Vec<String>,
    index: HashMap<String, usize>,
    data: Vec<f32>,
    records: usize,
    duplicates: usize,
    duplicate_examples: Vec<String>,
    lossy_words: usize,
}

impl Builder {
    fn new(case: CasePolicy, dim: usize, expected_rows: usize) -> Self {
        Builder {
            case,
            dim,
            words: Vec::with_capacity(expected_rows),
            index: HashMap::with_capacity(expected_rows),
            data: Vec::with_capacity(expected_rows.saturating_mul(dim)),
            records: 0,
            duplicates: 0,
            duplicate_examples: Vec::new(),
            lossy_words: 0,
        }
    }

    fn add(&mut self, word: Cow<'_, str>, values: &[f32]) {
        debug_assert_eq!(values.len(), self.dim);
        self.records += 1;
        let word = match self.case.apply(&word) {
            Cow::Owned(w) => w,
            Cow::Borrowed(_) => word.into_owned(),
        };
        if self.index.contains_key(&word) {
            self.duplicates += 1;
            if self.duplicate_examples.len() < DUPLICATE_EXAMPLES {
                self.duplicate_examples.push(word);
            }
            return;
        }
        self.index.insert(word.clone(), self.words.len());
        self.words.push(word);
        self.data.extend_from_slice(values);
    }

    fn finish(mut self, path: &Path, format: VectorFormat) -> Result<WordVectors, EmbedError> {
        self.data.shrink_to_fit();
        let rows = self.words.len();
        let dim = self.dim;
        let matrix =
            Array2::from_shape_vec((rows, dim), self.data).map_err(|source| EmbedError::Shape {
                what: format!("{}: {rows} vectors of dimension {dim}", path.display()),
                source,
            })?;
        Ok(WordVectors {
            words: self.words,
            index: self.index,
            matrix,
            case: self.case,
            report: Some(LoadReport {
                format,
                records: self.records,
                duplicates: self.duplicates,
                duplicate_examples: self.duplicate_examples,
                lossy_words: self.lossy_words,
            }),
        })
    }
}

fn check_finite(path: &Path, location: &str, word: &str, values: &[f32]) -> Result<(), EmbedError> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(k) => Err(format_error(
            path,
            location,
            format!(
                "value {} of {} is {} (values must be finite)",
                k + 1,
                excerpt(word),
                values[k]
            ),
        )),
    }
}

fn read_binary<R: BufRead>(
    mut reader: R,
    path: &Path,
    file_len: u64,
    case: CasePolicy,
) -> Result<WordVectors, EmbedError> {
    let io = |e| io_error(path, e);
    let mut line = Vec::new();
    let header_len = (&mut reader)
        .take(MAX_HEADER_BYTES)
        .read_until(b'\n', &mut line)
        .map_err(io)?;
    if header_len == 0 {
        return Err(format_error(
            path,
            "header",
            "empty file; expected a word2vec header `WORDS DIM`",
        ));
    }
    let header = String::from_utf8_lossy(&line);
    let (count, dim) = parse_header(&header).ok_or_else(|| {
        format_error(
            path,
            "header",
            format!(
                "expected `WORDS DIM` (two integers) on the first line, found {}; is this a GloVe file?",
                excerpt(header.trim_end())
            ),
        )
    })?;
    if dim == 0 {
        return Err(format_error(path, "header", "the dimension is 0"));
    }
    let row_bytes = dim
        .checked_mul(4)
        .ok_or_else(|| format_error(path, "header", format!("dimension {dim} is too large")))?;
    // Never trust the header for an allocation: the row buffers below are sized by the
    // dimension, so a dimension whose one row is larger than the rest of the file is an error
    // before anything is allocated, and at most as many rows as the file can hold are reserved.
    let body_len = file_len.saturating_sub(header_len as u64);
    if count > 0 && row_bytes as u64 > body_len {
        return Err(format_error(
            path,
            "header",
            format!(
                "the header announces {count} words of dimension {dim} ({row_bytes} bytes per vector), but the file holds only {body_len} bytes after it (truncated file or wrong header?)"
            ),
        ));
    }
    let available = body_len / (row_bytes as u64 + 2);
    let expected = count.min(usize::try_from(available).unwrap_or(usize::MAX));
    let mut builder = Builder::new(case, dim, expected);
    let mut word = Vec::new();
    // No row buffer for a header of 0 words: its dimension was not checked against the file.
    let (buffer_bytes, buffer_values) = if count == 0 { (0, 0) } else { (row_bytes, dim) };
    let mut bytes = vec![0u8; buffer_bytes];
    let mut values = vec![0f32; buffer_values];
    for i in 0..count {
        let location = format!("word {}", i + 1);
        // The line break after the previous vector is optional.
        loop {
            let buf = reader.fill_buf().map_err(io)?;
            match buf.first() {
                Some(b'\n') => reader.consume(1),
                _ => break,
            }
        }
        word.clear();
        let got = (&mut reader)
            .take(MAX_WORD_BYTES)
            .read_until(b' ', &mut word)
            .map_err(io)?;
        if got == 0 {
            return Err(format_error(
                path,
                location,
                format!(
                    "the file ends after {i} words but the header announces {count} (truncated file?)"
                ),
            ));
        }
        if word.last() != Some(&b' ') {
            let message = if got as u64 >= MAX_WORD_BYTES {
                format!("no space within {MAX_WORD_BYTES} bytes: not a word2vec binary file?")
            } else {
                "the file ends inside the word (truncated file?)".to_string()
            };
            return Err(format_error(path, location, message));
        }
        word.pop();
        if word.is_empty() {
            return Err(format_error(path, location, "empty word"));
        }
        if word.contains(&b'\n') {
            return Err(format_error(
                path,
                location,
                format!(
                    "the word {} contains a line break: not a word2vec binary file (word2vec text? use VectorFormat::Word2VecText)",
                    excerpt(&String::from_utf8_lossy(&word))
                ),
            ));
        }
        let text = match std::str::from_utf8(&word) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => {
                builder.lossy_words += 1;
                String::from_utf8_lossy(&word)
            }
        };
        if let Err(e) = reader.read_exact(&mut bytes) {
            return Err(if e.kind() == io::ErrorKind::UnexpectedEof {
                format_error(
                    path,
                    location,
                    format!(
                        "the file ends inside the vector of {} ({dim} values of 4 bytes expected; truncated file?)",
                        excerpt(&text)
                    ),
                )
            } else {
                io_error(path, e)
            });
        }
        for (v, b) in values.iter_mut().zip(bytes.chunks_exact(4)) {
            *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        check_finite(path, &location, &text, &values)?;
        builder.add(text, &values);
    }
    // Only whitespace may follow the last announced word.
    loop {
        let buf = reader.fill_buf().map_err(io)?;
        if buf.is_empty() {
            break;
        }
        if buf.iter().any(|b| !b.is_ascii_whitespace()) {
            return Err(format_error(
                path,
                format!("word {}", count + 1),
                format!("the file holds more words than the {count} the header announces"),
            ));
        }
        let n = buf.len();
        reader.consume(n);
    }
    builder.finish(path, VectorFormat::Word2VecBinary)
}

fn read_text<R: BufRead>(
    mut reader: R,
    path: &Path,
    file_len: u64,
    case: CasePolicy,
    header: bool,
) -> Result<WordVectors, EmbedError> {
    let io = |e| io_error(path, e);
    let format = if header {
        VectorFormat::Word2VecText
    } else {
        VectorFormat::Glove
    };
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    let mut announced = None;
    let mut builder = None;
    if header {
        let n = reader.read_until(b'\n', &mut buf).map_err(io)?;
        line_no = 1;
        if n == 0 {
            return Err(format_error(
                path,
                "line 1",
                "empty file; expected a word2vec header `WORDS DIM`",
            ));
        }
        let line = String::from_utf8_lossy(&buf);
        let (count, dim) = parse_header(&line).ok_or_else(|| {
            format_error(
                path,
                "line 1",
                format!(
                    "expected a header `WORDS DIM` (two integers), found {}; is this a GloVe file?",
                    excerpt(line.trim_end())
                ),
            )
        })?;
        if dim == 0 {
            return Err(format_error(path, "line 1", "the dimension is 0"));
        }
        // Each value takes at least two bytes ("0 "): never allocate more than the file can hold.
        // (saturating: the dimension comes from the untrusted header and may be near u64::MAX).
        let per_row = (dim as u64).saturating_mul(2).saturating_add(2);
        let bound = usize::try_from(file_len / per_row).unwrap_or(usize::MAX);
        announced = Some(count);
        builder = Some(Builder::new(case, dim, count.min(bound)));
    }
    let mut values: Vec<f32> = Vec::new();
    let mut first_line_was_header = false;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let location = format!("line {line_no}");
        let (line, lossy) = match std::str::from_utf8(&buf) {
            Ok(s) => (Cow::Borrowed(s), false),
            Err(_) => (String::from_utf8_lossy(&buf), true),
        };
        let mut tokens = line.split_ascii_whitespace();
        let Some(word) = tokens.next() else {
            continue; // blank line
        };
        if let (Some(count), Some(b)) = (announced, &builder) {
            if b.records == count {
                return Err(format_error(
                    path,
                    location,
                    format!(
                        "the file holds more words than the {count} the header announces (next word {})",
                        excerpt(word)
                    ),
                ));
            }
        }
        values.clear();
        for (k, token) in tokens.enumerate() {
            let v: f32 = token.parse().map_err(|_| {
                format_error(
                    path,
                    &location,
                    format!(
                        "value {} of {}, {}, is not a number",
                        k + 1,
                        excerpt(word),
                        excerpt(token)
                    ),
                )
            })?;
            values.push(v);
        }
        if builder.is_none() {
            // GloVe: the first line fixes the dimension.
            if values.is_empty() {
                return Err(format_error(
                    path,
                    location,
                    format!("{} has no values", excerpt(word)),
                ));
            }
            first_line_was_header = parse_header(&line).is_some();
        }
        let b = builder.get_or_insert_with(|| {
            let estimate = usize::try_from(file_len / (n as u64).max(1) + 1).unwrap_or(usize::MAX);
            Builder::new(case, values.len(), estimate.saturating_add(estimate / 8))
        });
        if values.len() != b.dim {
            let origin = if header {
                "the header"
            } else {
                "the first line"
            };
            let mut message = format!(
                "{} has {} values, expected {} (the dimension of {origin})",
                excerpt(word),
                values.len(),
                b.dim
            );
            if first_line_was_header && b.dim == 1 {
                message.push_str(
                    "; the first line looks like a word2vec header `WORDS DIM`: load as VectorFormat::Word2VecText",
                );
            }
            return Err(format_error(path, location, message));
        }
        check_finite(path, &location, word, &values)?;
        if lossy {
            b.lossy_words += 1;
        }
        b.add(Cow::Borrowed(word), &values);
    }
    let builder = builder.ok_or_else(|| {
        format_error(
            path,
            format!("line {}", line_no + 1),
            "no word vectors in the file (empty file?)",
        )
    })?;
    if let Some(count) = announced {
        if builder.records < count {
            return Err(format_error(
                path,
                format!("line {} (end of file)", line_no + 1),
                format!(
                    "the file ends after {} words but the header announces {count} (truncated file?)",
                    builder.records
                ),
            ));
        }
    }
    builder.finish(path, format)
}

/// Decides the format of a file from its first bytes (see [`VectorFormat::Auto`]).
fn sniff(path: &Path) -> Result<VectorFormat, EmbedError> {
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    let mut head = Vec::with_capacity(MAX_HEADER_BYTES as usize + SNIFF_BYTES);
    file.take(MAX_HEADER_BYTES + SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| io_error(path, e))?;
    let Some(end) = head.iter().position(|&b| b == b'\n') else {
        return Ok(VectorFormat::Glove);
    };
    let is_header = std::str::from_utf8(&head[..end])
        .ok()
        .and_then(parse_header)
        .is_some();
    if !is_header {
        return Ok(VectorFormat::Glove);
    }
    let rest = &head[end + 1..];
    let rest = &rest[..rest.len().min(SNIFF_BYTES)];
    let utf8 = match std::str::from_utf8(rest) {
        Ok(_) => true,
        // A character cut at the end of the window is fine.
        Err(e) => e.error_len().is_none(),
    };
    let control = rest
        .iter()
        .any(|&b| b.is_ascii_control() && !matches!(b, b'\t' | b'\n' | b'\r'));
    Ok(if utf8 && !control {
        VectorFormat::Word2VecText
    } else {
        VectorFormat::Word2VecBinary
    })
}

impl WordVectors {
    /// Loads a word-vector file, streaming it (memory close to the size of the matrix).
    ///
    /// # Errors
    /// [`EmbedError::Core`] if the file cannot be opened or read; [`EmbedError::Format`] naming
    /// the file and the line or word index for a malformed file (wrong number of values, a
    /// non-numeric or non-finite value, a truncated file, more or fewer words than the header
    /// announces).
    pub fn load(
        path: impl AsRef<Path>,
        format: VectorFormat,
        case: CasePolicy,
    ) -> Result<Self, EmbedError> {
        let path = path.as_ref();
        let format = match format {
            VectorFormat::Auto => sniff(path)?,
            other => other,
        };
        let file = File::open(path).map_err(|e| io_error(path, e))?;
        let file_len = file.metadata().map_err(|e| io_error(path, e))?.len();
        let reader = BufReader::with_capacity(BUFFER_BYTES, file);
        match format {
            VectorFormat::Word2VecBinary => read_binary(reader, path, file_len, case),
            VectorFormat::Word2VecText => read_text(reader, path, file_len, case, true),
            VectorFormat::Glove | VectorFormat::Auto => {
                read_text(reader, path, file_len, case, false)
            }
        }
    }

    /// Builds vectors from words and a matrix with one row per word (e.g. the output of hard
    /// debiasing). The case policy is [`CasePolicy::Keep`]; there is no load report.
    ///
    /// # Errors
    /// [`EmbedError::InvalidParameter`] if the number of words differs from the number of rows,
    /// the dimension is 0, a word is empty, contains ASCII whitespace (no file format could store
    /// it) or occurs twice, or a value is not finite.
    pub fn from_parts(words: Vec<String>, matrix: Array2<f32>) -> Result<Self, EmbedError> {
        let invalid = |name: &str, value: String, expected: &str| EmbedError::InvalidParameter {
            name: name.to_string(),
            value,
            expected: expected.to_string(),
        };
        if words.len() != matrix.nrows() {
            return Err(invalid(
                "words",
                format!("{} words", words.len()),
                &format!("one word per matrix row ({} rows)", matrix.nrows()),
            ));
        }
        if matrix.ncols() == 0 {
            return Err(invalid(
                "matrix",
                "0 columns".to_string(),
                "a dimension of at least 1",
            ));
        }
        let mut index = HashMap::with_capacity(words.len());
        for (i, word) in words.iter().enumerate() {
            if word.is_empty() || word.bytes().any(|b| b.is_ascii_whitespace()) {
                return Err(invalid(
                    "words",
                    format!("word {} = {}", i + 1, excerpt(word)),
                    "non-empty words without whitespace",
                ));
            }
            if index.insert(word.clone(), i).is_some() {
                return Err(invalid(
                    "words",
                    format!("word {} = {}", i + 1, excerpt(word)),
                    "distinct words (it occurs earlier)",
                ));
            }
        }
        for (i, row) in matrix.rows().into_iter().enumerate() {
            if row.iter().any(|v| !v.is_finite()) {
                return Err(invalid(
                    "matrix",
                    format!("row {} ({})", i + 1, excerpt(&words[i])),
                    "finite values",
                ));
            }
        }
        Ok(WordVectors {
            words,
            index,
            matrix,
            case: CasePolicy::Keep,
            report: None,
        })
    }

    /// Splits the vectors into their words and matrix.
    pub fn into_parts(self) -> (Vec<String>, Array2<f32>) {
        (self.words, self.matrix)
    }

    /// Writes the vectors in word2vec binary format (header, then `word<space>`, the
    /// little-endian `f32` values and a line break per word).
    ///
    /// # Errors
    /// [`EmbedError::Core`] if the file cannot be written.
    pub fn save_word2vec_binary(&self, path: impl AsRef<Path>) -> Result<(), EmbedError> {
        let path = path.as_ref();
        self.write_with(path, |w, vectors| {
            writeln!(w, "{} {}", vectors.len(), vectors.dim())?;
            for (word, row) in vectors.words.iter().zip(vectors.matrix.rows()) {
                w.write_all(word.as_bytes())?;
                w.write_all(b" ")?;
                for v in row {
                    w.write_all(&v.to_le_bytes())?;
                }
                w.write_all(b"\n")?;
            }
            Ok(())
        })
    }

    /// Writes the vectors in word2vec text format (header `WORDS DIM`, then `word v1 … vDIM`
    /// lines). Values are written in the shortest form that reads back to the same `f32`, so a
    /// round trip is exact.
    ///
    /// # Errors
    /// [`EmbedError::Core`] if the file cannot be written.
    pub fn save_text(&self, path: impl AsRef<Path>) -> Result<(), EmbedError> {
        let path = path.as_ref();
        self.write_with(path, |w, vectors| {
            writeln!(w, "{} {}", vectors.len(), vectors.dim())?;
            for (word, row) in vectors.words.iter().zip(vectors.matrix.rows()) {
                w.write_all(word.as_bytes())?;
                for v in row {
                    write!(w, " {v}")?;
                }
                w.write_all(b"\n")?;
            }
            Ok(())
        })
    }

    fn write_with(
        &self,
        path: &Path,
        body: impl FnOnce(&mut BufWriter<File>, &Self) -> io::Result<()>,
    ) -> Result<(), EmbedError> {
        let run = || -> io::Result<()> {
            let mut w = BufWriter::with_capacity(BUFFER_BYTES, File::create(path)?);
            body(&mut w, self)?;
            w.into_inner().map_err(|e| e.into_error())?.sync_all()
        };
        run().map_err(|e| io_error(path, e))
    }

    /// Number of words (matrix rows).
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether there are no words.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Vector dimension (matrix columns).
    pub fn dim(&self) -> usize {
        self.matrix.ncols()
    }

    /// The words, in row order.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// The matrix, one row per word.
    pub fn matrix(&self) -> ArrayView2<'_, f32> {
        self.matrix.view()
    }

    /// The case policy the vectors were loaded with (queries are normalised with it).
    pub fn case_policy(&self) -> CasePolicy {
        self.case
    }

    /// What the load found (format, records, duplicates, lossy words); `None` for vectors built
    /// with [`WordVectors::from_parts`].
    pub fn load_report(&self) -> Option<&LoadReport> {
        self.report.as_ref()
    }

    /// Number of records skipped at load because their word was already loaded (0 for
    /// [`WordVectors::from_parts`]).
    pub fn duplicates(&self) -> usize {
        self.report.as_ref().map_or(0, |r| r.duplicates)
    }

    /// The row of `word` (lower-cased first under [`CasePolicy::Lower`]).
    pub fn index(&self, word: &str) -> Option<usize> {
        self.index.get(self.case.apply(word).as_ref()).copied()
    }

    /// Whether `word` has a vector.
    pub fn contains(&self, word: &str) -> bool {
        self.index(word).is_some()
    }

    /// The vector of `word`.
    pub fn get(&self, word: &str) -> Option<ArrayView1<'_, f32>> {
        self.index(word).map(|i| self.matrix.row(i))
    }

    /// Looks up a word set: the vectors (in `f64`) of the words present, and the words missing.
    /// Missing words are reported, never dropped silently; use
    /// [`WordVectors::lookup_set_strict`] or [`LookedUp::require_complete`] to refuse them.
    ///
    /// # Errors
    /// [`EmbedError::Empty`] if `words` is empty.
    pub fn lookup_set<S: AsRef<str>>(
        &self,
        name: &str,
        words: &[S],
    ) -> Result<LookedUp, EmbedError> {
        if words.is_empty() {
            return Err(EmbedError::Empty);
        }
        let mut rows = Vec::with_capacity(words.len());
        let mut present = Vec::with_capacity(words.len());
        let mut missing = Vec::new();
        for word in words {
            let word = word.as_ref();
            match self.index(word) {
                Some(i) => {
                    rows.push(i);
                    present.push(word.to_string());
                }
                None => missing.push(word.to_string()),
            }
        }
        let matrix = self.matrix.select(Axis(0), &rows).mapv(f64::from);
        Ok(LookedUp {
            set: name.to_string(),
            present,
            missing,
            matrix,
        })
    }

    /// As [`WordVectors::lookup_set`], but every word must be present.
    ///
    /// # Errors
    /// [`EmbedError::Empty`]; [`EmbedError::MissingWords`] naming the set and every missing word.
    pub fn lookup_set_strict<S: AsRef<str>>(
        &self,
        name: &str,
        words: &[S],
    ) -> Result<LookedUp, EmbedError> {
        self.lookup_set(name, words)?.require_complete()
    }

    /// The mean of the vectors of the whitespace-separated words of `text` (a single word gives
    /// its own vector exactly). The sum is taken in `f64`.
    ///
    /// # Errors
    /// [`EmbedError::InvalidParameter`] if `text` has no words; [`EmbedError::MissingWords`]
    /// listing every word of `text` not in the vocabulary.
    pub fn phrase(&self, text: &str) -> Result<Array1<f32>, EmbedError> {
        let mut missing = Vec::new();
        let mean = self.phrase_mean(text, &mut missing)?;
        if missing.is_empty() {
            Ok(mean)
        } else {
            Err(EmbedError::MissingWords {
                set: format!("phrase {}", excerpt(text)),
                words: missing,
            })
        }
    }

    /// Mean of the words of `text`; unknown words are appended to `missing` (the mean is then
    /// meaningless).
    fn phrase_mean(
        &self,
        text: &str,
        missing: &mut Vec<String>,
    ) -> Result<Array1<f32>, EmbedError> {
        let mut sum = Array1::<f64>::zeros(self.dim());
        let mut n = 0usize;
        for word in text.split_whitespace() {
            n += 1;
            match self.get(word) {
                Some(v) => sum.zip_mut_with(&v, |s, &x| *s += f64::from(x)),
                None => {
                    if !missing.iter().any(|m| m == word) {
                        missing.push(word.to_string());
                    }
                }
            }
        }
        if n == 0 {
            return Err(EmbedError::InvalidParameter {
                name: "text".to_string(),
                value: excerpt(text),
                expected: "at least one word".to_string(),
            });
        }
        let n = n as f64;
        Ok(sum.mapv(|s| (s / n) as f32))
    }
}

impl bias_core::Embedder for WordVectors {
    type Error = EmbedError;

    fn dim(&self) -> usize {
        self.matrix.ncols()
    }

    /// Each text is a word or a phrase (the mean of its words' vectors); one row per text, in
    /// order. Fails with [`EmbedError::MissingWords`] listing every unknown word of the batch.
    fn embed(&mut self, texts: &[&str]) -> Result<Array2<f32>, EmbedError> {
        let mut out = Array2::<f32>::zeros((texts.len(), self.dim()));
        let mut missing = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let row = self.phrase_mean(text, &mut missing).map_err(|e| match e {
                EmbedError::InvalidParameter {
                    value, expected, ..
                } => EmbedError::InvalidParameter {
                    name: format!("texts[{i}]"),
                    value,
                    expected,
                },
                other => other,
            })?;
            out.row_mut(i).assign(&row);
        }
        if missing.is_empty() {
            Ok(out)
        } else {
            Err(EmbedError::MissingWords {
                set: "embedded texts".to_string(),
                words: missing,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_parsing() {
        assert_eq!(parse_header("3 2\n"), Some((3, 2)));
        assert_eq!(parse_header("3 2 1"), None);
        assert_eq!(parse_header("the 0.1"), None);
    }

    #[test]
    fn case_folding() {
        assert_eq!(CasePolicy::Lower.apply("He"), "he");
        assert_eq!(CasePolicy::Lower.apply("ÉCOLE"), "école");
        assert!(matches!(CasePolicy::Lower.apply("he"), Cow::Borrowed(_)));
        assert_eq!(CasePolicy::Keep.apply("He"), "He");
    }
}
