//! Small helpers shared by the loaders: file reading and error construction.

use std::path::{Path, PathBuf};

use bias_core::CoreError;

use crate::DataError;

/// Reads a whole file, mapping failure to [`CoreError::Io`].
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, DataError> {
    std::fs::read(path).map_err(|e| CoreError::io(path, e).into())
}

/// The label a path gets in error messages.
pub(crate) fn source_name(path: &Path) -> String {
    path.display().to_string()
}

/// Wraps a CSV error as [`CoreError::Csv`] with the line it reports.
pub(crate) fn csv_error(source_name: &str, source: csv::Error) -> DataError {
    let line = source.position().map_or(0, |p| p.line());
    CoreError::Csv {
        source_name: source_name.to_owned(),
        line,
        source,
    }
    .into()
}

/// The lines of a text, to turn a byte offset into its 1-based line. The `csv` crate's own
/// `Position::line` undercounts by one in files with CRLF line ends (CrowS-Pairs' own CSV), so
/// the readers that name a record's line count it from the bytes.
pub(crate) struct LineIndex<'a> {
    bytes: &'a [u8],
    /// The offset at which each line after the first starts.
    starts: Vec<u64>,
}

impl<'a> LineIndex<'a> {
    /// The line starts of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        let starts = bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .map(|(i, _)| i as u64 + 1)
            .collect();
        LineIndex { bytes, starts }
    }

    /// The 1-based line holding the byte at `offset`.
    pub(crate) fn line(&self, offset: u64) -> u64 {
        self.starts.partition_point(|&s| s <= offset) as u64 + 1
    }

    /// The line a CSV record starts on: the `csv` crate places a record after a CRLF line end
    /// at that line end, so the line ends before its first byte are skipped.
    pub(crate) fn of_record(&self, record: &csv::StringRecord) -> u64 {
        let Some(start) = record.position().map(|p| p.byte()) else {
            return 0;
        };
        let skipped = self
            .bytes
            .get(start as usize..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&b| b == b'\r' || b == b'\n')
            .count();
        self.line(start + skipped as u64)
    }
}

/// Everything `reader` holds ([`CoreError::Io`] naming `source_name` if it cannot be read).
pub(crate) fn read_all(
    mut reader: impl std::io::Read,
    source_name: &str,
) -> Result<Vec<u8>, DataError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| CoreError::io(source_name, e))?;
    Ok(bytes)
}

/// A CSV reader over `bytes`, its header row (errors as [`csv_error`]), and the lines of
/// `bytes` for the records' line numbers.
pub(crate) fn csv_with_header<'a>(
    bytes: &'a [u8],
    source_name: &str,
) -> Result<(csv::Reader<&'a [u8]>, csv::StringRecord, LineIndex<'a>), DataError> {
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(bytes);
    let header = csv
        .headers()
        .map_err(|e| csv_error(source_name, e))?
        .clone();
    Ok((csv, header, LineIndex::new(bytes)))
}

/// The records of a reader that also gives each one's line, without the lines.
pub(crate) fn without_lines<T>(located: Vec<(T, u64)>) -> Vec<T> {
    located.into_iter().map(|(t, _)| t).collect()
}

/// Builds a [`DataError::InvalidRecord`].
pub(crate) fn invalid(
    source_name: &str,
    location: impl Into<String>,
    message: impl Into<String>,
) -> DataError {
    DataError::InvalidRecord {
        path: PathBuf::from(source_name),
        location: location.into(),
        message: message.into(),
    }
}

/// Splits bytes into lines (on `\n`, dropping a trailing `\r`), with 1-based line numbers, and
/// decodes each as UTF-8; an invalid line is an error naming the file and the line.
pub(crate) fn utf8_lines<'a>(
    bytes: &'a [u8],
    source_name: &'a str,
) -> impl Iterator<Item = Result<(u64, &'a str), DataError>> + 'a {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut parts: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if parts.last().is_some_and(|l| l.is_empty()) {
        parts.pop();
    }
    parts.into_iter().enumerate().map(move |(i, raw)| {
        let line = i as u64 + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        std::str::from_utf8(raw).map(|s| (line, s)).map_err(|e| {
            invalid(
                source_name,
                format!("line {line}"),
                format!(
                    "invalid UTF-8 at byte {} of the line; save the file as UTF-8",
                    e.valid_up_to() + 1
                ),
            )
        })
    })
}
