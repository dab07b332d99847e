//! Corpus mining and rate-of-bias training sets for kaneko2023 §2. Expected values are counted
//! by hand in the comments next to each input, are invariants stated in the test, or (the full
//! BUG corpus) come from `scripts/fixtures/bug_mining_counts.py`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use bias_core::CoreError;
use bias_data::corpus::{
    mine_corpus, mine_sentences, parse_rates, rate_sets, write_lines, CorpusFormat, Gender,
    GenderWords, MinedCorpus, MiningOptions, MiningStats, RateSampling,
};
use bias_data::DataError;

/// A temporary folder with a unique name, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("bias-data-corpus-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn file(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn kaneko() -> GenderWords {
    GenderWords::kaneko2023()
}

fn options(seed: u64) -> MiningOptions {
    MiningOptions {
        seed,
        ..MiningOptions::default()
    }
}

// ---------------------------------------------------------------- classify

#[test]
fn classify_matches_whole_words_case_insensitively() {
    let words = kaneko();
    let cases = [
        ("He's late.", Some(Gender::Male)),    // "He's" → he, s
        ("HE IS HERE", Some(Gender::Male)),    // "here" is not "her"
        ("(his)", Some(Gender::Male)),         // punctuation splits
        ("Him, his, he!", Some(Gender::Male)), // several male words
        ("she", Some(Gender::Female)),         // the whole sentence is one word
        ("Woman.", Some(Gender::Female)),      // capital and full stop
        ("My mother-in-law called.", Some(Gender::Female)), // hyphen splits
        ("Hers is red.", None),                // "hers" is not "her"
        ("The mothers met.", None),            // "mothers" is not "mother"
        ("He met her.", None),                 // both sides
        ("His sister smiled.", None),          // both sides
        ("The sky is blue.", None),            // neither
        ("", None),
    ];
    for (sentence, expected) in cases {
        assert_eq!(words.classify(sentence), expected, "{sentence:?}");
    }
}

#[test]
fn classify_uses_unicode_case_and_letters() {
    let words = GenderWords::new(["ÉL"], ["ella"]).unwrap();
    assert!(words.male().contains("él"));
    assert_eq!(words.classify("Dijo que Él vendría"), Some(Gender::Male));
    // "éla" is one word (é is a letter), so it does not contain "él".
    assert_eq!(words.classify("éla"), None);
    assert_eq!(words.classify("ELLA—y nadie más"), Some(Gender::Female));
}

// ---------------------------------------------------------------- GenderWords

#[test]
fn new_lowercases_trims_and_merges_repeats() {
    let words = GenderWords::new([" He ", "he", "HIM"], ["She"]).unwrap();
    let male: Vec<&str> = words.male().iter().map(String::as_str).collect();
    assert_eq!(male, ["he", "him"]);
    let female: Vec<&str> = words.female().iter().map(String::as_str).collect();
    assert_eq!(female, ["she"]);
}

fn invalid_words(result: Result<GenderWords, DataError>) -> (String, String) {
    match result {
        Err(DataError::InvalidWords {
            source_name,
            message,
        }) => (source_name, message),
        other => panic!("expected InvalidWords, got {other:?}"),
    }
}

#[test]
fn new_rejects_overlap_empty_lists_and_phrases() {
    let (_, message) = invalid_words(GenderWords::new(["he", "Parent"], ["she", "parent"]));
    assert!(message.contains("`parent`"), "{message}");
    assert!(message.contains("both lists"), "{message}");

    let (source, message) = invalid_words(GenderWords::new(Vec::<&str>::new(), ["she"]));
    assert_eq!(source, "male word list");
    assert!(message.contains("empty"), "{message}");

    let (source, message) = invalid_words(GenderWords::new(["he"], ["step mother"]));
    assert_eq!(source, "female word list");
    assert!(message.contains("\"step mother\""), "{message}");

    let (_, message) = invalid_words(GenderWords::new(["he"], ["mother-in-law"]));
    assert!(message.contains("mother-in-law"), "{message}");

    let (_, message) = invalid_words(GenderWords::new(["he", "  "], ["she"]));
    assert!(message.contains("not a single word"), "{message}");
}

#[test]
fn from_files_skips_comments_and_blank_lines() {
    let dir = TempDir::new();
    let male = dir.file("male.txt", "# male words\nHe\n\nhim   # object\n");
    let female = dir.file("female.txt", "she\n");
    let words = GenderWords::from_files(&male, &female).unwrap();
    let male_words: Vec<&str> = words.male().iter().map(String::as_str).collect();
    assert_eq!(male_words, ["he", "him"]);
    assert_eq!(words.female().len(), 1);
}

#[test]
fn from_files_errors_name_the_file_and_line() {
    let dir = TempDir::new();
    let male = dir.file("male.txt", "he\n# comment\nstep father\n");
    let female = dir.file("female.txt", "she\n");
    let (source, message) = invalid_words(GenderWords::from_files(&male, &female));
    assert!(source.ends_with("male.txt, line 3"), "{source}");
    assert!(message.contains("step father"), "{message}");

    let comments_only = dir.file("empty.txt", "# nothing\n\n");
    let (source, _) = invalid_words(GenderWords::from_files(&male, &comments_only));
    assert!(source.ends_with("male.txt, line 3"), "{source}");
    let (source, message) = invalid_words(GenderWords::from_files(&female, &comments_only));
    assert!(source.ends_with("empty.txt"), "{source}");
    assert!(message.contains("empty"), "{message}");

    let both = dir.file("both.txt", "she\n");
    let (source, message) = invalid_words(GenderWords::from_files(&female, &both));
    assert!(
        source.contains("female.txt") && source.contains("both.txt"),
        "{source}"
    );
    assert!(message.contains("`she`"), "{message}");

    let missing = dir.0.join("missing.txt");
    match GenderWords::from_files(&missing, &female) {
        Err(DataError::Core(CoreError::Io { path, .. })) => assert_eq!(path, missing),
        other => panic!("expected Io, got {other:?}"),
    }
}

// ---------------------------------------------------------------- mining

/// 14 lines, counted by hand in the right-hand column.
const SMALL_CORPUS: &str = "\
He is a doctor.
She is a nurse.

   He is a doctor.
His brother cooks.
Her sister drives.
The sky is blue.
The sky is blue.
He met her.
His son plays.
A man and his father.
\t
Hers is red.
She's a girl.
";
// line  1 male 1          line  8 neither (repeat, still neither)
// line  2 female 1        line  9 both
// line  3 empty           line 10 male 3
// line  4 duplicate       line 11 male 4
// line  5 male 2          line 12 empty (a tab)
// line  6 female 2        line 13 neither ("hers")
// line  7 neither         line 14 female 3

const SMALL_MALE: [&str; 4] = [
    "He is a doctor.",
    "His brother cooks.",
    "His son plays.",
    "A man and his father.",
];
const SMALL_FEMALE: [&str; 3] = ["She is a nurse.", "Her sister drives.", "She's a girl."];

#[test]
fn mine_corpus_counts_by_hand() {
    let dir = TempDir::new();
    let path = dir.file("small.txt", SMALL_CORPUS);
    let mined = mine_corpus(&path, &kaneko(), &options(0)).unwrap();
    let expected = MiningStats {
        lines: 14,
        empty: 2,
        duplicates: 1,
        neither: 3,
        both: 1,
        male: 4,
        female: 3,
        kept_per_side: 3,
    };
    assert_eq!(mined.stats, expected);
    // The smaller side is kept whole, in corpus order.
    assert_eq!(mined.female, SMALL_FEMALE);
    // The larger side: 3 of its 4 sentences, still in corpus order.
    assert_eq!(mined.male.len(), 3);
    let positions: Vec<usize> = mined
        .male
        .iter()
        .map(|s| SMALL_MALE.iter().position(|m| m == s).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
}

#[test]
fn mine_corpus_equals_mine_sentences() {
    let dir = TempDir::new();
    let path = dir.file("small.txt", SMALL_CORPUS);
    let from_file = mine_corpus(&path, &kaneko(), &options(5)).unwrap();
    let in_memory = mine_sentences(SMALL_CORPUS.lines(), &kaneko(), &options(5)).unwrap();
    assert_eq!(from_file, in_memory);
}

#[test]
fn mine_corpus_reads_crlf_and_a_bom() {
    let dir = TempDir::new();
    let path = dir.file("crlf.txt", "\u{feff}He ran.\r\nShe ran.\r\n");
    let mined = mine_corpus(&path, &kaneko(), &options(0)).unwrap();
    assert_eq!(mined.male, ["He ran."]);
    assert_eq!(mined.female, ["She ran."]);
    assert_eq!(mined.stats.lines, 2);
}

/// `n_male` male and `n_female` female sentences, each distinct.
fn numbered(n_male: usize, n_female: usize) -> Vec<String> {
    let male = (0..n_male).map(|i| format!("he said m{i}"));
    let female = (0..n_female).map(|i| format!("she said f{i}"));
    male.chain(female).collect()
}

#[test]
fn balancing_is_seeded_subset_and_ordered() {
    let text = numbered(40, 10);
    let mine = |seed| mine_sentences(&text, &kaneko(), &options(seed)).unwrap();
    let (a, b, c) = (mine(1), mine(1), mine(2));
    assert_eq!(a, b, "same seed, same corpus");
    assert_ne!(a.male, c.male, "another seed draws other male sentences");
    for mined in [&a, &c] {
        assert_eq!(mined.male.len(), 10);
        assert_eq!(mined.female, text[40..], "smaller side kept whole");
        let index: Vec<usize> = mined
            .male
            .iter()
            .map(|s| text[..40].iter().position(|t| t == s).unwrap())
            .collect();
        assert!(index.windows(2).all(|w| w[0] < w[1]), "corpus order");
    }
}

#[test]
fn max_per_side_caps_both_sides() {
    let text = numbered(40, 10);
    let capped = MiningOptions {
        max_per_side: Some(4),
        ..MiningOptions::default()
    };
    let mined = mine_sentences(&text, &kaneko(), &capped).unwrap();
    assert_eq!((mined.male.len(), mined.female.len()), (4, 4));
    assert_eq!(mined.stats.kept_per_side, 4);
    assert_eq!((mined.stats.male, mined.stats.female), (40, 10));
    assert!(mined.female.iter().all(|s| text[40..].contains(s)));

    let zero = MiningOptions {
        max_per_side: Some(0),
        ..MiningOptions::default()
    };
    match mine_sentences(&text, &kaneko(), &zero) {
        Err(DataError::Core(CoreError::InvalidInput(m))) => assert!(m.contains("max_per_side")),
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

#[test]
fn a_side_without_sentences_is_an_error() {
    let dir = TempDir::new();
    let path = dir.file("male-only.txt", "He ran.\nHis son ran.\nThe end.\n");
    let err = mine_corpus(&path, &kaneko(), &options(0)).unwrap_err();
    let text = err.to_string();
    match err {
        DataError::EmptySide {
            source_name,
            side,
            lines,
        } => {
            assert!(source_name.ends_with("male-only.txt"));
            assert_eq!((side, lines), (Gender::Female, 3));
        }
        other => panic!("expected EmptySide, got {other:?}"),
    }
    assert!(text.contains("no female sentences"), "{text}");
    assert!(text.contains("other word lists"), "{text}");
}

#[test]
fn missing_corpus_names_the_path_and_the_fix() {
    let err = mine_corpus("data/bug/no-such-file.csv", &kaneko(), &options(0)).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, DataError::CorpusUnreadable { .. }), "{err:?}");
    assert!(text.contains("data/bug/no-such-file.csv"), "{text}");
    assert!(text.contains("scripts/setup.sh"), "{text}");

    let dir = TempDir::new();
    let elsewhere = dir.0.join("none.txt");
    let text = mine_corpus(&elsewhere, &kaneko(), &options(0))
        .unwrap_err()
        .to_string();
    assert!(text.contains("none.txt"), "{text}");
    assert!(text.contains("check that the file exists"), "{text}");
}

#[test]
fn invalid_utf8_names_the_line() {
    let dir = TempDir::new();
    let path = dir.0.join("latin1.txt");
    std::fs::write(&path, b"He ran.\nShe ran \xe9.\n").unwrap();
    match mine_corpus(&path, &kaneko(), &options(0)) {
        Err(DataError::InvalidRecord { location, .. }) => assert_eq!(location, "line 2"),
        other => panic!("expected InvalidRecord, got {other:?}"),
    }
}

// ---------------------------------------------------------------- BUG CSV

const BUG_HEADER: &str = ",sentence_text,tokens,profession,g,profession_first_index,g_first_index,predicted gender,stereotype,distance,num_of_pronouns,corpus,data_index\n";

/// Four BUG rows: male, female, both (his + wife), neither; the first has a quoted comma.
fn bug_rows() -> String {
    let rows = [
        "0,\"The doctor, tired, said he would come .\",\"[]\",doctor,he,1,5,male,1,4,1,wiki,0",
        "1,The nurse said she was tired .,\"[]\",nurse,she,1,3,female,1,2,1,wiki,1",
        "2,His wife is a nurse .,\"[]\",nurse,his,4,0,male,0,4,1,pubmed,2",
        "3,The patient arrived .,\"[]\",patient,,1,0,neutral,0,0,0,covid19,3",
    ];
    format!("{BUG_HEADER}{}\n", rows.join("\n"))
}

#[test]
fn detect_recognises_the_bug_header() {
    let dir = TempDir::new();
    let bug = dir.file("bug.csv", &bug_rows());
    assert_eq!(CorpusFormat::detect(&bug).unwrap(), CorpusFormat::BugCsv);
    let plain = dir.file("plain.txt", "He said \"sentence_text\", she said.\n");
    assert_eq!(CorpusFormat::detect(&plain).unwrap(), CorpusFormat::Lines);
    let other_csv = dir.file("other.csv", "id,text\n1,He ran.\n");
    assert_eq!(
        CorpusFormat::detect(&other_csv).unwrap(),
        CorpusFormat::Lines
    );
    let empty = dir.file("empty.txt", "");
    assert_eq!(CorpusFormat::detect(&empty).unwrap(), CorpusFormat::Lines);
}

#[test]
fn bug_csv_is_mined_from_sentence_text() {
    let dir = TempDir::new();
    let bug = dir.file("bug.csv", &bug_rows());
    let mined = mine_corpus(&bug, &kaneko(), &options(0)).unwrap();
    assert_eq!(mined.male, ["The doctor, tired, said he would come ."]);
    assert_eq!(mined.female, ["The nurse said she was tired ."]);
    let expected = MiningStats {
        lines: 4,
        empty: 0,
        duplicates: 0,
        neither: 1,
        both: 1,
        male: 1,
        female: 1,
        kept_per_side: 1,
    };
    assert_eq!(mined.stats, expected);

    // Forced to lines, the header and every row are sentences: the header has "g" and
    // "predicted gender" but no gender word, so it is neither.
    let lines = MiningOptions {
        format: Some(CorpusFormat::Lines),
        ..MiningOptions::default()
    };
    let as_lines = mine_corpus(&bug, &kaneko(), &lines).unwrap();
    assert_eq!(as_lines.stats.lines, 5);
    assert_eq!(as_lines.stats.neither, 2);
}

#[test]
fn malformed_bug_csv_names_file_and_line() {
    let dir = TempDir::new();
    let text = format!("{}4,too few fields\n", bug_rows());
    let bug = dir.file("broken.csv", &text);
    match mine_corpus(&bug, &kaneko(), &options(0)) {
        Err(DataError::Core(CoreError::Csv {
            source_name, line, ..
        })) => {
            assert!(source_name.ends_with("broken.csv"), "{source_name}");
            assert_eq!(line, 6, "header + 4 rows, then the broken one");
        }
        other => panic!("expected Csv, got {other:?}"),
    }

    let forced = MiningOptions {
        format: Some(CorpusFormat::BugCsv),
        ..MiningOptions::default()
    };
    let plain = dir.file("plain.csv", "id,text\n1,He ran.\n");
    match mine_corpus(&plain, &kaneko(), &forced) {
        Err(DataError::Core(CoreError::MissingColumn { column, .. })) => {
            assert_eq!(column, "sentence_text")
        }
        other => panic!("expected MissingColumn, got {other:?}"),
    }
}

/// The full BUG corpus fetched by scripts/setup.sh, mined with the lists of kaneko2023 §3.1.
///
/// Reference counts: `fixtures/corpus/bug_mining_counts.json`, written by
/// `scripts/fixtures/bug_mining_counts.py`, a standard-library Python pass over the same file
/// that applies the documented rules on its own (csv reader; sentences stripped; words split on
/// characters failing `str.isalnum`, lower-cased; both/neither counted at every occurrence,
/// repeats of male or female sentences counted as duplicates).
#[test]
fn full_bug_corpus_with_the_paper_lists() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/bug/full_BUG.csv");
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup.sh to fetch the BUG corpus",
        path.display()
    );
    assert_eq!(CorpusFormat::detect(&path).unwrap(), CorpusFormat::BugCsv);
    let words = kaneko();
    let mined = mine_corpus(&path, &words, &options(0)).unwrap();
    let s = mined.stats;
    println!("BUG with kaneko2023 lists: {s:?}");
    assert_eq!(
        s.lines,
        s.empty + s.duplicates + s.neither + s.both + s.male + s.female
    );
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/corpus/bug_mining_counts.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let want = |key: &str| reference["counts"][key].as_u64().unwrap() as usize;
    assert_eq!(s.lines, want("lines"), "data rows of full_BUG.csv");
    assert_eq!(
        (s.male, s.female, s.both, s.neither, s.duplicates, s.empty),
        (
            want("male"),
            want("female"),
            want("both"),
            want("neither"),
            want("duplicates"),
            want("empty")
        )
    );
    // The values the Python pass gave when the fixture was written, kept here so a regenerated
    // fixture that drifts is noticed too.
    assert_eq!(
        (
            s.lines,
            s.male,
            s.female,
            s.both,
            s.neither,
            s.duplicates,
            s.empty
        ),
        (105_687, 68_600, 20_169, 11_357, 5_547, 14, 0)
    );
    assert_eq!(s.kept_per_side, want("kept_per_side"));
    assert_eq!(mined.male.len(), s.kept_per_side);
    assert_eq!(mined.female.len(), s.kept_per_side);
    assert!(mined
        .male
        .iter()
        .all(|m| words.classify(m) == Some(Gender::Male)));
    assert!(mined
        .female
        .iter()
        .all(|f| words.classify(f) == Some(Gender::Female)));
    let distinct: HashSet<&String> = mined.male.iter().chain(&mined.female).collect();
    assert_eq!(distinct.len(), 2 * s.kept_per_side);
}

// ---------------------------------------------------------------- rate sets

/// 10 male and 10 female sentences, none dropped.
fn ten_a_side() -> (MinedCorpus, Vec<String>) {
    let text = numbered(10, 10);
    let mined = mine_sentences(&text, &kaneko(), &options(0)).unwrap();
    assert_eq!(mined.stats.kept_per_side, 10);
    (mined, text)
}

fn split_sides(sentences: &[String]) -> (HashSet<&str>, HashSet<&str>) {
    let male = sentences
        .iter()
        .filter(|s| s.starts_with("he "))
        .map(String::as_str);
    let female = sentences
        .iter()
        .filter(|s| s.starts_with("she "))
        .map(String::as_str);
    (male.collect(), female.collect())
}

#[test]
fn rate_sets_have_exact_counts_and_are_nested() {
    let (mined, _) = ten_a_side();
    let rates = [0.0, 0.3, 0.5, 0.7, 1.0];
    let sets = rate_sets(&mined, &rates, 10, 42, RateSampling::Nested).unwrap();
    // round(r · 10): 0, 3, 5, 7, 10 male; the rest female.
    let counts: Vec<(usize, usize)> = sets.iter().map(|s| (s.male, s.female)).collect();
    assert_eq!(counts, [(0, 10), (3, 7), (5, 5), (7, 3), (10, 0)]);
    for set in &sets {
        let (male, female) = split_sides(&set.sentences);
        assert_eq!(set.sentences.len(), 10);
        assert_eq!(
            (male.len(), female.len()),
            (set.male, set.female),
            "distinct"
        );
        assert!(male.iter().all(|s| mined.male.iter().any(|m| m == s)));
        assert!(female.iter().all(|s| mined.female.iter().any(|f| f == s)));
    }
    let (male_03, female_03) = split_sides(&sets[1].sentences);
    let (male_07, female_07) = split_sides(&sets[3].sentences);
    assert!(male_03.is_subset(&male_07));
    assert!(female_07.is_subset(&female_03));
    // Shuffled together: the set is not its male sentences followed by its female ones.
    let half = &sets[2].sentences;
    assert!(!(half[..5].iter().all(|s| s.starts_with("he "))));
}

#[test]
fn independent_rate_sets_are_drawn_afresh_for_each_rate() {
    let (mined, _) = ten_a_side();
    let mut nested_everywhere = true;
    for seed in 0..20 {
        let sets = rate_sets(&mined, &[0.3, 0.7], 10, seed, RateSampling::Independent).unwrap();
        let counts: Vec<(usize, usize)> = sets.iter().map(|s| (s.male, s.female)).collect();
        assert_eq!(counts, [(3, 7), (7, 3)]);
        for set in &sets {
            let (male, female) = split_sides(&set.sentences);
            assert_eq!(
                (male.len(), female.len()),
                (set.male, set.female),
                "distinct"
            );
        }
        let (male_03, female_03) = split_sides(&sets[0].sentences);
        let (male_07, female_07) = split_sides(&sets[1].sentences);
        nested_everywhere &= male_03.is_subset(&male_07) && female_07.is_subset(&female_03);
        // A rate's set depends on its own index and the seed, not on the other rates.
        let other = rate_sets(&mined, &[0.1, 0.7], 10, seed, RateSampling::Independent).unwrap();
        assert_eq!(other[1], sets[1]);
    }
    // Nested by chance has probability C(7,3)/C(10,3) = 0.29 per side, 0.085 for both; twenty
    // seeds all nested would be 0.085^20.
    assert!(!nested_everywhere);
}

#[test]
fn rate_sets_are_seeded() {
    let (mined, _) = ten_a_side();
    let a = rate_sets(&mined, &[0.5], 6, 1, RateSampling::Independent).unwrap();
    let b = rate_sets(&mined, &[0.5], 6, 1, RateSampling::Independent).unwrap();
    let c = rate_sets(&mined, &[0.5], 6, 2, RateSampling::Independent).unwrap();
    assert_eq!(a, b);
    assert_ne!(a[0].sentences, c[0].sentences);
}

#[test]
fn rate_sets_round_half_away_from_zero() {
    let (mined, _) = ten_a_side();
    // 0.25 · 10 = 2.5 → 3 male, 7 female; 0.5 · 5 = 2.5 → 3 male, 2 female.
    let sets = rate_sets(&mined, &[0.25], 10, 0, RateSampling::Independent).unwrap();
    assert_eq!((sets[0].male, sets[0].female), (3, 7));
    let sets = rate_sets(&mined, &[0.5], 5, 0, RateSampling::Independent).unwrap();
    assert_eq!((sets[0].male, sets[0].female), (3, 2));
}

#[test]
fn rate_sets_only_need_the_sentences_each_rate_uses() {
    let (mined, _) = ten_a_side();
    // Size 20 at rate 0.5 needs 10 a side: exactly what there is.
    let sets = rate_sets(&mined, &[0.5], 20, 0, RateSampling::Independent).unwrap();
    assert_eq!((sets[0].male, sets[0].female), (10, 10));
}

#[test]
fn rate_sets_errors_name_the_problem() {
    let (mined, _) = ten_a_side();
    for bad in [1.5, -0.1, f64::NAN, f64::INFINITY] {
        match rate_sets(&mined, &[0.0, bad], 10, 0, RateSampling::Independent) {
            Err(DataError::InvalidRates { spec, message }) => {
                assert_eq!(spec, bad.to_string());
                assert!(message.contains(&bad.to_string()), "{message}");
            }
            other => panic!("expected InvalidRates for {bad}, got {other:?}"),
        }
    }
    assert!(matches!(
        rate_sets(&mined, &[], 10, 0, RateSampling::Independent),
        Err(DataError::InvalidRates { .. })
    ));
    assert!(matches!(
        rate_sets(&mined, &[0.5], 0, 0, RateSampling::Independent),
        Err(DataError::Core(CoreError::InvalidInput(_)))
    ));
    let err = rate_sets(&mined, &[0.0, 1.0], 11, 0, RateSampling::Independent).unwrap_err();
    let text = err.to_string();
    match err {
        // Rate 0 needs 11 female sentences first.
        DataError::NotEnoughSentences {
            side,
            needed,
            available,
            ..
        } => assert_eq!((side, needed, available), (Gender::Female, 11, 10)),
        other => panic!("expected NotEnoughSentences, got {other:?}"),
    }
    assert!(text.contains("ask for fewer sentences"), "{text}");
    assert!(text.contains("larger corpus"), "{text}");
}

// ---------------------------------------------------------------- parse_rates

#[test]
fn parse_rates_ranges_are_inclusive_and_exact() {
    let rates = parse_rates("0:1:0.1").unwrap();
    assert_eq!(
        rates,
        [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    );
    assert_eq!(rates[10], 1.0);
    assert_eq!(
        parse_rates("0:1:0.25").unwrap(),
        [0.0, 0.25, 0.5, 0.75, 1.0]
    );
    // 0.9 + 0.3 > 1: the stop is not reached.
    assert_eq!(parse_rates("0:1:0.3").unwrap(), [0.0, 0.3, 0.6, 0.9]);
    assert_eq!(parse_rates(" 0.2 : 0.2 : 0.1 ").unwrap(), [0.2]);
    assert_eq!(parse_rates("0.1:0.3:0.1").unwrap(), [0.1, 0.2, 0.3]);
}

#[test]
fn parse_rates_lists_keep_their_order() {
    assert_eq!(parse_rates("0,0.5,1").unwrap(), [0.0, 0.5, 1.0]);
    assert_eq!(parse_rates(" 1 , 0 ").unwrap(), [1.0, 0.0]);
    assert_eq!(parse_rates("0.3").unwrap(), [0.3]);
}

#[test]
fn parse_rates_errors() {
    let cases = [
        ("", "empty"),
        ("   ", "empty"),
        ("a,b", "`a` is not a number"),
        ("0,,1", "`` is not a number"),
        ("nan", "`nan` is not a number"),
        ("inf", "`inf` is not a number"),
        ("0:1", "three parts"),
        ("0:1:0.1:2", "three parts"),
        ("0:1:0", "step 0 must be positive"),
        ("0:1:-0.1", "must be positive"),
        ("1:0:0.1", "start 1 is above stop 0"),
        ("-0.1:1:0.1", "-0.1 is outside [0, 1]"),
        ("0:2:0.5", "2 is outside [0, 1]"),
        ("0,1.5", "1.5 is outside [0, 1]"),
        ("0,0.5,0.5", "0.5 is given twice"),
        ("0:1:0.00001", "more than 10000 rates"),
    ];
    for (spec, expected) in cases {
        match parse_rates(spec) {
            Err(DataError::InvalidRates { spec: s, message }) => {
                assert_eq!(s, spec);
                assert!(message.contains(expected), "{spec:?}: {message}");
            }
            other => panic!("{spec:?}: expected InvalidRates, got {other:?}"),
        }
    }
}

// ---------------------------------------------------------------- write_lines

#[test]
fn write_lines_round_trips_and_creates_folders() {
    let dir = TempDir::new();
    let (mined, _) = ten_a_side();
    let sets = rate_sets(&mined, &[0.3], 10, 3, RateSampling::Independent).unwrap();
    let path = dir.0.join("sets/rate-0.3/train.txt");
    write_lines(&path, &sets[0].sentences).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines, sets[0].sentences);
    assert!(text.ends_with('\n'));

    let err = write_lines(dir.0.join("bad.txt"), ["one", "two\nthree"]).unwrap_err();
    assert!(err.to_string().contains("sentence 2"), "{err}");
}

// ---------------------------------------------------------------- BUG sources, dev split

#[test]
fn bug_sources_are_read_apart_and_an_unknown_source_names_the_ones_there() {
    let dir = TempDir::new();
    // Three rows from two source corpora; an empty sentence is skipped.
    let csv = dir.file(
        "bug.csv",
        ",sentence_text,profession,corpus\n\
         0,He is a nurse .,nurse,wikipedia\n\
         1,She is a surgeon .,surgeon,pubmed\n\
         2,\"Her brother, a cook .\",cook,wikipedia\n\
         3,  ,cook,pubmed\n",
    );
    let wiki = bias_data::corpus::read_bug_source(&csv, "wikipedia").unwrap();
    assert_eq!(wiki, vec!["He is a nurse .", "Her brother, a cook ."]);
    let all = bias_data::corpus::read_bug_sources(&csv).unwrap();
    assert_eq!(all.keys().collect::<Vec<_>>(), vec!["pubmed", "wikipedia"]);
    assert_eq!(all["pubmed"], vec!["She is a surgeon ."]);
    let err = bias_data::corpus::read_bug_source(&csv, "covid19").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("covid19") && msg.contains("pubmed"), "{msg}");
}

#[test]
fn a_development_split_is_held_out_of_every_rate_set() {
    // 6 male and 6 female sentences; 2 per side held out leave 4 per side to train on.
    let male: Vec<String> = (0..6).map(|i| format!("He walked {i} miles.")).collect();
    let female: Vec<String> = (0..6).map(|i| format!("She walked {i} miles.")).collect();
    let text: Vec<&String> = male.iter().chain(&female).collect();
    let mut corpus = mine_sentences(text, &kaneko(), &options(1)).unwrap();
    let dev = bias_data::corpus::hold_out_dev(&mut corpus, 2, 1).unwrap();
    assert_eq!((dev.male.len(), dev.female.len()), (2, 2));
    assert_eq!((corpus.male.len(), corpus.female.len()), (4, 4));
    assert_eq!(corpus.stats.kept_per_side, 4);
    let held: HashSet<&String> = dev.male.iter().chain(&dev.female).collect();
    // Every sentence is either held out or left, once.
    let left: HashSet<&String> = corpus.male.iter().chain(&corpus.female).collect();
    assert!(held.is_disjoint(&left));
    assert_eq!(held.len() + left.len(), 12);
    // Rate 1 needs 4 male sentences: all of the training side, none of the development side.
    let sets = rate_sets(&corpus, &[0.0, 1.0], 4, 1, RateSampling::Independent).unwrap();
    assert_eq!(sets.len(), 2);
    for set in &sets {
        assert_eq!(set.sentences.len(), 4);
        assert!(set.sentences.iter().all(|s| !held.contains(s)));
    }
    let rate_1: HashSet<&String> = sets[1].sentences.iter().collect();
    assert_eq!(rate_1, corpus.male.iter().collect::<HashSet<_>>());
    // Holding out all 6 per side leaves nothing to train on: refused; 0 holds nothing out.
    let mut again = mine_sentences(
        male.iter().chain(&female).collect::<Vec<_>>(),
        &kaneko(),
        &options(1),
    )
    .unwrap();
    let err = bias_data::corpus::hold_out_dev(&mut again, 6, 1).unwrap_err();
    assert!(
        matches!(&err, DataError::Core(CoreError::InvalidInput(m))
            if m.contains("6 sentences per side leaves no training sentence (6 per side were mined)")),
        "{err:?}"
    );
    let none = bias_data::corpus::hold_out_dev(&mut again, 0, 1).unwrap();
    assert!(none.male.is_empty() && again.male.len() == 6);
}
