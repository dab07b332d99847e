//! Every error names the file and the line (or item) and says what is wrong.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use bias_core::CoreError;
use bias_data::crows_pairs::{read_crows_pairs, read_crows_pairs_path};
use bias_data::pairs::{read_pairs_csv, read_pairs_jsonl, read_pairs_path};
use bias_data::stereoset::read_stereoset;
use bias_data::wordlists::{load_word_lists, CasePolicy};
use bias_data::{load_pairs, DataError};

const CROWS_HEADER: &str =
    ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,anon_annotators\n";
const CROWS_ROW: &str =
    "0,Women can't drive.,Men can't drive.,stereo,gender,\"[['gender'], [], ['gender'], ['gender'], ['gender']]\",a0,\"['a1', 'a2', 'a3', 'a4', 'a5']\"\n";

/// A temporary file with a unique name, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "bias-data-errors-{}-{n}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }

    fn file_name(&self) -> String {
        self.0.file_name().unwrap().to_string_lossy().into_owned()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn assert_names(err: &DataError, file: &str, line: &str) {
    let msg = err.to_string();
    assert!(msg.contains(file), "message lacks the file {file:?}: {msg}");
    assert!(msg.contains(line), "message lacks {line:?}: {msg}");
}

#[test]
fn crows_row_with_a_missing_column() {
    let row = "1,A b.,C d.,stereo,gender,\"[[], [], [], [], []]\",a0\n";
    let f = TempFile::new(
        "crows.csv",
        format!("{CROWS_HEADER}{CROWS_ROW}{row}").as_bytes(),
    );
    let err = read_crows_pairs_path(&f.0).unwrap_err();
    assert!(
        matches!(err, DataError::Core(CoreError::Csv { line: 3, .. })),
        "{err:?}"
    );
    assert_names(&err, &f.file_name(), "line 3");
    // The CSV library's finding is the source, printed after the message.
    let chain = chain(&err).join("\ncaused by: ");
    assert!(chain.contains("7 fields"), "{chain}");
    // load_pairs takes the same path
    let err = load_pairs(&f.0).unwrap_err();
    assert!(matches!(
        err,
        DataError::Core(CoreError::Csv { line: 3, .. })
    ));
}

#[test]
fn generic_csv_row_with_a_missing_column() {
    let f = TempFile::new("mine.csv", b"id,stereo,anti,bias_type\n1,a,b,age\n2,a,b\n");
    let err = read_pairs_path(&f.0).unwrap_err();
    assert!(
        matches!(err, DataError::Core(CoreError::Csv { line: 3, .. })),
        "{err:?}"
    );
    assert_names(&err, &f.file_name(), "line 3");
}

#[test]
fn generic_csv_header_without_a_required_column() {
    let err = read_pairs_csv("id,stereo,bias_type\n1,a,age\n".as_bytes(), "mine.csv").unwrap_err();
    match &err {
        DataError::Core(CoreError::MissingColumn { column, .. }) => assert_eq!(column, "anti"),
        other => panic!("{other:?}"),
    }
    assert_names(&err, "mine.csv", "in the header");
    assert!(err
        .to_string()
        .contains("expected columns: id, stereo, anti, bias_type (optional: direction, group_id)"));
}

#[test]
fn crows_unknown_direction() {
    let row = CROWS_ROW.replace("stereo,gender", "neutral,gender");
    let err = read_crows_pairs(format!("{CROWS_HEADER}{row}").as_bytes(), "crows.csv").unwrap_err();
    match &err {
        DataError::Core(CoreError::InvalidField {
            line,
            column,
            value,
            ..
        }) => {
            assert_eq!(
                (*line, column.as_str(), value.as_str()),
                (2, "stereo_antistereo", "neutral")
            );
        }
        other => panic!("{other:?}"),
    }
    assert_names(&err, "crows.csv", "line 2");
    assert!(err
        .to_string()
        .contains("expected `stereo` or `antistereo`"));
}

#[test]
fn generic_unknown_direction_csv_and_jsonl() {
    let csv = "id,stereo,anti,bias_type,direction\n1,a,b,age,stereo\n2,a,b,age,sideways\n";
    let err = read_pairs_csv(csv.as_bytes(), "mine.csv").unwrap_err();
    assert!(matches!(
        &err,
        DataError::Core(CoreError::InvalidField { line: 3, column, .. }) if column == "direction"
    ));
    assert_names(&err, "mine.csv", "line 3");

    let f = TempFile::new(
        "mine.jsonl",
        br#"{"id": "1", "stereo": "a", "anti": "b", "bias_type": "age", "direction": "up"}"#,
    );
    let err = read_pairs_path(&f.0).unwrap_err();
    assert!(matches!(
        &err,
        DataError::Core(CoreError::InvalidField { line: 1, value, .. }) if value == "up"
    ));
    assert_names(&err, &f.file_name(), "line 1");
}

#[test]
fn invalid_utf8_in_csv() {
    let mut bytes = format!("{CROWS_HEADER}{CROWS_ROW}").into_bytes();
    bytes.extend_from_slice(
        b"1,Caf\xe9 owners.,Shop owners.,stereo,age,\"[[], [], [], [], []]\",a0,\"['a1']\"\n",
    );
    let f = TempFile::new("latin1.csv", &bytes);
    let err = read_crows_pairs_path(&f.0).unwrap_err();
    assert!(
        matches!(err, DataError::Core(CoreError::Csv { line: 3, .. })),
        "{err:?}"
    );
    assert_names(&err, &f.file_name(), "line 3");
    let chain = chain(&err).join("\ncaused by: ");
    assert!(chain.contains("invalid utf-8"), "{chain}");

    let generic = b"id,stereo,anti,bias_type\n1,a\xff,b,age\n";
    let err = read_pairs_csv(&generic[..], "g.csv").unwrap_err();
    assert!(matches!(
        err,
        DataError::Core(CoreError::Csv { line: 2, .. })
    ));
    assert_names(&err, "g.csv", "line 2");
}

#[test]
fn invalid_utf8_in_jsonl() {
    let mut bytes = br#"{"id": "1", "stereo": "a", "anti": "b", "bias_type": "age"}"#.to_vec();
    bytes.extend_from_slice(
        b"\n{\"id\": \"2\", \"stereo\": \"caf\xe9\", \"anti\": \"b\", \"bias_type\": \"age\"}\n",
    );
    let f = TempFile::new("latin1.jsonl", &bytes);
    let err = load_pairs(&f.0).unwrap_err();
    match &err {
        DataError::InvalidRecord {
            location, message, ..
        } => {
            assert_eq!(location, "line 2");
            assert!(message.contains("invalid UTF-8 at byte 27"), "{message}");
            assert!(message.contains("save the file as UTF-8"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_names(&err, &f.file_name(), "line 2");
}

#[test]
fn invalid_utf8_in_a_text_word_list() {
    let f = TempFile::new("words.txt", b"he\nhim\n\xc3(\n");
    let err = load_word_lists(&f.0, CasePolicy::Keep).unwrap_err();
    assert!(matches!(err, DataError::InvalidRecord { .. }), "{err:?}");
    assert_names(&err, &f.file_name(), "line 3");
}

#[test]
fn crows_empty_sentence() {
    let row = CROWS_ROW.replace("Men can't drive.", "  ");
    let err = read_crows_pairs(format!("{CROWS_HEADER}{row}").as_bytes(), "crows.csv").unwrap_err();
    match &err {
        DataError::Core(CoreError::EmptySentence { line, column, .. }) => {
            assert_eq!((*line, column.as_str()), (2, "sent_less"));
        }
        other => panic!("{other:?}"),
    }
    assert_names(&err, "crows.csv", "line 2");
}

#[test]
fn generic_empty_sentence_csv_and_jsonl() {
    let err =
        read_pairs_csv("id,stereo,anti,bias_type\n1,,b,age\n".as_bytes(), "g.csv").unwrap_err();
    assert!(matches!(
        &err,
        DataError::Core(CoreError::EmptySentence { line: 2, column, .. }) if column == "stereo"
    ));
    assert_names(&err, "g.csv", "line 2");

    let jsonl = "\n{\"id\": \"1\", \"stereo\": \"a\", \"anti\": \" \", \"bias_type\": \"age\"}\n";
    let err = read_pairs_jsonl(jsonl.as_bytes(), "g.jsonl").unwrap_err();
    assert!(matches!(
        &err,
        DataError::Core(CoreError::EmptySentence { line: 2, column, .. }) if column == "anti"
    ));
    assert_names(&err, "g.jsonl", "line 2");
    assert!(err
        .to_string()
        .contains("every pair needs two non-empty sentences"));
}

#[test]
fn missing_file() {
    let path = std::env::temp_dir().join(format!(
        "bias-data-errors-{}-does-not-exist.csv",
        std::process::id()
    ));
    for err in [
        load_pairs(&path).unwrap_err(),
        read_crows_pairs_path(&path).unwrap_err(),
        read_pairs_path(&path).unwrap_err(),
    ] {
        assert!(
            matches!(err, DataError::Core(CoreError::Io { .. })),
            "{err:?}"
        );
        let msg = err.to_string();
        assert!(msg.contains("does-not-exist.csv"), "{msg}");
        assert!(msg.contains("check that the file exists"), "{msg}");
    }
}

#[test]
fn unknown_extension() {
    let f = TempFile::new("pairs.tsv", b"id\tstereo\n");
    let err = load_pairs(&f.0).unwrap_err();
    assert!(
        matches!(err, DataError::UnsupportedFormat { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains(&f.file_name()));
    assert!(err.to_string().contains(".jsonl"));
}

#[test]
fn crows_malformed_annotations_literal() {
    let row = CROWS_ROW.replace("['gender'], [], ['gender']", "['gender'], [], ['gender'");
    let f = TempFile::new(
        "crows.csv",
        format!("{CROWS_HEADER}{CROWS_ROW}{}", row.replacen('0', "1", 1)).as_bytes(),
    );
    let err = read_crows_pairs_path(&f.0).unwrap_err();
    match &err {
        DataError::MalformedLiteral {
            line,
            column,
            source,
            ..
        } => {
            assert_eq!((*line, column.as_str()), (3, "annotations"));
            assert_eq!(
                source.to_string(),
                "at character 51: unexpected end: expected `,` or `]`"
            );
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("line 3, column `annotations`: malformed Python list literal"),
        "{message}"
    );
    assert!(
        message.contains("expected something like [['gender'], []"),
        "{message}"
    );
    // The parser's finding is the source, printed once, not part of the message.
    assert!(!message.contains("at character 51"), "{message}");
    assert_names(&err, &f.file_name(), "line 3");
    assert_each_cause_once(&err);

    let row = CROWS_ROW.replace("['a1', 'a2', 'a3', 'a4', 'a5']", "[a1, a2]");
    let err = read_crows_pairs(format!("{CROWS_HEADER}{row}").as_bytes(), "c.csv").unwrap_err();
    assert!(matches!(
        &err,
        DataError::MalformedLiteral { line: 2, column, .. } if column == "anon_annotators"
    ));
}

#[test]
fn malformed_json_line() {
    let good = r#"{"id": "1", "stereo": "a", "anti": "b", "bias_type": "age"}"#;
    let f = TempFile::new(
        "mine.jsonl",
        format!("{good}\n\n{{\"id\": \"2\", \"stereo\": \"a\",, }}\n").as_bytes(),
    );
    let err = read_pairs_path(&f.0).unwrap_err();
    match &err {
        DataError::MalformedJson {
            line,
            column,
            expected,
            ..
        } => {
            assert_eq!((*line, *column), (3, 27));
            assert!(
                expected.contains("each line must be one JSON object"),
                "{expected}"
            );
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("line 3: malformed JSON at column 27; each line must be one JSON object"),
        "{message}"
    );
    // serde's line and column (within the line) stay in the source.
    assert!(!message.contains("line 1 column"), "{message}");
    assert_names(&err, &f.file_name(), "line 3");
    assert_each_cause_once(&err);
}

use bias_testkit::chain;

use bias_testkit::assert_each_cause_once;

#[test]
fn each_cause_is_printed_once() {
    // A missing file: the data layer's message names it, the I/O error is the source.
    let err = read_pairs_path("/nonexistent/dir/pairs.csv").unwrap_err();
    let messages = assert_each_cause_once(&err);
    assert!(
        messages[0].starts_with("/nonexistent/dir/pairs.csv: cannot open"),
        "{messages:?}"
    );
    // A CSV record with a field too many.
    let err = read_crows_pairs(
        format!("{CROWS_HEADER}{}", CROWS_ROW.replace(",a0,", ",a0,x,")).as_bytes(),
        "c.csv",
    )
    .unwrap_err();
    let messages = assert_each_cause_once(&err);
    assert!(
        messages[0].starts_with("c.csv, line 2: unreadable CSV record"),
        "{messages:?}"
    );
}

#[test]
fn stereoset_unknown_gold_label_names_the_line() {
    let json = "{\"version\": \"v\", \"data\": {\"intersentence\": [], \"intrasentence\": [\n\
                {\"id\": \"i\", \"target\": \"t\", \"bias_type\": \"race\", \"context\": \"BLANK\",\n\
                 \"sentences\": [{\"id\": \"s\", \"sentence\": \"x\", \"labels\": [],\n\
                 \"gold_label\": \"neutral\"}]}]}}";
    let err = read_stereoset(json.as_bytes(), "dev.json").unwrap_err();
    assert!(
        matches!(err, DataError::Core(CoreError::Json { .. })),
        "{err:?}"
    );
    assert_names(&err, "dev.json", "line 4");
    assert!(
        err.to_string()
            .contains("the JSON does not have the expected structure"),
        "{err}"
    );
    let chain = chain(&err).join("\ncaused by: ");
    assert!(chain.contains("unknown variant `neutral`"), "{chain}");
}

#[test]
fn stereoset_with_a_byte_order_mark_reads_and_a_truncated_one_names_its_position() {
    let doc = r#"{"version": "1", "data": {"intrasentence": [], "intersentence": []}}"#;
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend_from_slice(doc.as_bytes());
    let set = bias_data::stereoset::read_stereoset(with_bom.as_slice(), "bom.json").unwrap();
    assert_eq!(set.version, "1");

    let dir = std::env::temp_dir().join(format!("bias-data-trunc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dev.json");
    std::fs::write(&path, &doc[..doc.len() - 10]).unwrap();
    let err = bias_data::load_pairs(&path).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, DataError::Core(bias_core::CoreError::Json { .. })),
        "{err:?}"
    );
    assert!(msg.contains("dev.json") && msg.contains("line 1"), "{msg}");
    std::fs::remove_dir_all(dir).ok();
}

const BBQ_LINE: &str = r#"{"example_id": 0, "question_index": "1", "question_polarity": "neg", "context_condition": "ambig", "category": "Age", "answer_info": {"ans0": ["grandfather", "old"], "ans1": ["grandson", "nonOld"], "ans2": ["Can't be determined", "unknown"]}, "additional_metadata": {"subcategory": "None", "stereotyped_groups": ["old"], "version": "a", "source": ""}, "context": "c", "question": "q", "ans0": "The grandfather", "ans1": "The grandson", "ans2": "Can't be determined", "label": 2}"#;

#[test]
fn bbq_malformed_lines_name_the_file_and_line() {
    use bias_data::bbq::read_bbq_path;
    let cases = [
        // Not JSON on line 2.
        (format!("{BBQ_LINE}\n{{not json\n"), "line 2"),
        // A label outside 0–2.
        (
            format!(
                "{BBQ_LINE}\n{}\n",
                BBQ_LINE
                    .replace("\"example_id\": 0", "\"example_id\": 1")
                    .replace("\"label\": 2", "\"label\": 3")
            ),
            "line 2",
        ),
        // An unknown polarity.
        (
            format!("\n{}\n", BBQ_LINE.replace("\"neg\"", "\"negative\"")),
            "line 2",
        ),
        // The same example twice.
        (format!("{BBQ_LINE}\n{BBQ_LINE}\n"), "line 2"),
        // A missing field.
        (
            format!("{}\n", BBQ_LINE.replace("\"question\": \"q\", ", "")),
            "line 1",
        ),
    ];
    for (text, line) in cases {
        let f = TempFile::new("bbq.jsonl", text.as_bytes());
        let err = read_bbq_path(&f.0).unwrap_err();
        assert_names(&err, &f.file_name(), line);
    }
}

/// Through `read_bbq_dir`: an example of another category, an unknown category, and a bad
/// metadata row each name their file and line.
#[test]
fn bbq_dir_errors_name_the_file_and_line() {
    use bias_data::bbq::{read_bbq_dir, BbqCategory};
    let dir = std::env::temp_dir().join(format!("bias-data-errors-bbq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let header = "category,question_index,example_id,target_loc,label_type\n";
    let meta = format!("{header}Age,1,0,2,label\nAge,1,1,2,label\n");
    std::fs::write(dir.join("additional_metadata.csv"), &meta).unwrap();
    let second = BBQ_LINE.replace("\"example_id\": 0", "\"example_id\": 1");
    std::fs::write(dir.join("Age.jsonl"), format!("{BBQ_LINE}\n{second}\n")).unwrap();
    let examples = read_bbq_dir(&dir, &[BbqCategory::Age]).unwrap();
    assert_eq!(examples.len(), 2);
    assert!(examples.iter().all(|e| e.target_loc == Some(2)));
    let cases = [
        // Line 2 is a Religion example in Age's file.
        (
            "Age.jsonl",
            format!(
                "{BBQ_LINE}\n{}\n",
                second.replace("\"Age\"", "\"Religion\"")
            ),
            "line 2",
        ),
        // Line 3 names no BBQ category.
        (
            "Age.jsonl",
            format!(
                "{BBQ_LINE}\n\n{}\n",
                second.replace("\"Age\"", "\"Height\"")
            ),
            "line 3",
        ),
        // A metadata row whose example_id is not a number.
        (
            "additional_metadata.csv",
            format!("{meta}Age,1,x,2,label\n"),
            "line 4",
        ),
    ];
    for (file, text, line) in cases {
        std::fs::write(dir.join("Age.jsonl"), format!("{BBQ_LINE}\n{second}\n")).unwrap();
        std::fs::write(dir.join("additional_metadata.csv"), &meta).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
        let err = read_bbq_dir(&dir, &[BbqCategory::Age]).unwrap_err();
        assert_names(&err, file, line);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bbq_metadata_errors_name_the_file_and_line() {
    use bias_data::bbq::read_bbq_metadata_path;
    let header = "\"category\",\"question_index\",\"example_id\",\"target_loc\",\"label_type\"\n";
    let cases = [
        (format!("{header}\"Age\",\"1\",0,7,\"label\"\n"), "line 2"),
        (format!("{header}\"Age\",\"1\",x,0,\"label\"\n"), "line 2"),
        (
            format!("{header}\"Age\",\"1\",0,0,\"label\"\n\"Age\",\"1\",0,1,\"label\"\n"),
            "line 3",
        ),
        (
            "\"category\",\"example_id\"\n\"Age\",0\n".to_owned(),
            "in the header",
        ),
        (format!("{header}\"Age\",\"1\",0\n"), "line 2"),
    ];
    for (text, line) in cases {
        let f = TempFile::new("additional_metadata.csv", text.as_bytes());
        let err = read_bbq_metadata_path(&f.0).unwrap_err();
        assert_names(&err, &f.file_name(), line);
    }
}

#[test]
fn winogender_malformed_files_name_the_file_and_line() {
    use bias_data::winogender::read_winogender;
    let sentences = "sentid\tsentence\ntechnician.customer.1.female.txt\tThe technician told the customer that she could pay with cash.\n";
    let templates = "occupation(0)\tother-participant(1)\tanswer\tsentence\ntechnician\tcustomer\t1\tThe $OCCUPATION told the $PARTICIPANT that $NOM_PRONOUN could pay with cash.\n";
    let stats =
        "occupation\tbergsma_pct_female\tbls_pct_female\tbls_year\ntechnician\t9.42\t40.34\t2015\n";
    let read = |s: &str, t: &str, o: &str| {
        read_winogender(
            s.as_bytes(),
            "all_sentences.tsv",
            t.as_bytes(),
            "templates.tsv",
            o.as_bytes(),
            "occupations-stats.tsv",
        )
    };
    assert!(read(sentences, templates, stats).is_ok());
    let cases = [
        // A sentence id of four parts.
        (
            read(&sentences.replace(".female.txt", ""), templates, stats),
            "all_sentences.tsv",
            "line 2",
        ),
        // A gender that is none of the three.
        (
            read(&sentences.replace("female", "other"), templates, stats),
            "all_sentences.tsv",
            "line 2",
        ),
        // The sentence lacks its pronoun.
        (
            read(&sentences.replace(" she ", " he "), templates, stats),
            "all_sentences.tsv",
            "line 2",
        ),
        // No template for the sentence's occupation and answer.
        (
            read(sentences, &templates.replace("\t1\t", "\t0\t"), stats),
            "all_sentences.tsv",
            "line 2",
        ),
        // A template without a pronoun slot.
        (
            read(
                sentences,
                &templates.replace("$NOM_PRONOUN", "someone"),
                stats,
            ),
            "templates.tsv",
            "line 2",
        ),
        // A wrong header.
        (
            read(&sentences.replace("sentid", "id"), templates, stats),
            "all_sentences.tsv",
            "line 1",
        ),
        // A statistic that is not a number.
        (
            read(sentences, templates, &stats.replace("40.34", "many")),
            "occupations-stats.tsv",
            "line 2",
        ),
        // A missing field.
        (
            read(sentences, templates, &stats.replace("\t2015", "")),
            "occupations-stats.tsv",
            "line 2",
        ),
        // An occupation's statistics twice.
        (
            read(
                sentences,
                templates,
                &format!("{stats}technician\t9.42\t40.34\t2015\n"),
            ),
            "occupations-stats.tsv",
            "line 3",
        ),
        // A template whose answer is neither 0 nor 1.
        (
            read(sentences, &templates.replace("\t1\t", "\tone\t"), stats),
            "templates.tsv",
            "line 2",
        ),
        // A second template for the same occupation and answer.
        (
            read(
                sentences,
                &format!("{templates}technician\tclient\t1\tThe $OCCUPATION told the $PARTICIPANT $POSS_PRONOUN bill.\n"),
                stats,
            ),
            "templates.tsv",
            "line 3",
        ),
        // A template with two kinds of pronoun slot.
        (
            read(
                sentences,
                &templates.replace("with cash", "with $POSS_PRONOUN cash"),
                stats,
            ),
            "templates.tsv",
            "line 2",
        ),
        // A participant that is neither the template's nor `someone`.
        (
            read(&sentences.replace("technician.customer", "technician.client"), templates, stats),
            "all_sentences.tsv",
            "line 2",
        ),
        // An answer that is neither 0 nor 1 in a sentence id, on line 3 after a good one.
        (
            read(
                &format!("{sentences}technician.customer.2.male.txt\tThe technician told the customer that he could pay with cash.\n"),
                templates,
                stats,
            ),
            "all_sentences.tsv",
            "line 3",
        ),
        // The same sentence id twice.
        (
            read(
                &format!("{sentences}technician.customer.1.female.txt\tThe technician told the customer that she could pay with cash.\n"),
                templates,
                stats,
            ),
            "all_sentences.tsv",
            "line 3",
        ),
    ];
    for (result, file, line) in cases {
        assert_names(&result.unwrap_err(), file, line);
    }
}

#[test]
fn winobias_malformed_files_name_the_file_and_line() {
    use bias_data::winobias::{pair_lines, read_winobias_lines};
    let good = "1 [The developer] argued with the designer because [he] did not like the design.\n";
    for (text, line) in [
        ("x [The developer] argued because [he] left.\n", "line 1"),
        ("1 [The developer argued because [he] left.\n", "line 1"),
        ("1 The developer] argued because [he] left.\n", "line 1"),
        ("\n2 [The developer] argued because he left.\n", "line 2"),
    ] {
        let err =
            read_winobias_lines(text.as_bytes(), "pro_stereotyped_type1.txt.dev").unwrap_err();
        assert_names(&err, "pro_stereotyped_type1.txt.dev", line);
    }
    let pro = read_winobias_lines(good.as_bytes(), "pro").unwrap();
    let two = read_winobias_lines(
        format!("{good}{}", good.replace("1 [", "2 [")).as_bytes(),
        "anti",
    )
    .unwrap();
    // The anti-stereotyped file has a second sentence the pro-stereotyped one lacks: its line.
    let err = pair_lines(&pro, "pro", &two, "anti", "t")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("anti, line 2") && err.contains("pro has 1 sentences"),
        "{err}"
    );
    // And the other way round.
    let err = pair_lines(&two, "pro", &pro, "anti", "t")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("pro, line 2"), "{err}");
    // Different leading numbers on the same sentence: both lines named.
    let other = read_winobias_lines(good.replace("1 [", "7 [").as_bytes(), "anti").unwrap();
    let err = pair_lines(&pro, "pro", &other, "anti", "t")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pro, line 1") && err.contains("line 1 of anti") && err.contains("number 7"),
        "{err}"
    );
}

/// WinoBias through the files: a blank line shifts the line numbers the errors name.
#[test]
fn winobias_files_misaligned_name_the_file_and_line() {
    use bias_data::winobias::{read_winobias_pairs, WinoBiasSet};
    let dir =
        std::env::temp_dir().join(format!("bias-data-errors-winobias-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("winobias")).unwrap();
    let set: WinoBiasSet = "winobias-type1-dev".parse().unwrap();
    let write = |pro: bool, text: &str| {
        std::fs::write(bias_data::layout::winobias_file(&dir, set, pro), text).unwrap()
    };
    write(
        true,
        "1 [The a] b [he] c.\n2 [The a] b [he] d.\n3 [The a] b [he] e.\n",
    );
    write(
        false,
        "1 [The a] b [she] c.\n\n2 [The a] b [she] d.\n4 [The a] b [she] e.\n",
    );
    let err = read_winobias_pairs(&dir, set).unwrap_err().to_string();
    assert!(
        err.contains("pro_stereotyped_type1.txt.dev")
            && err.contains("line 3 (number 3)")
            && err.contains("line 4 of")
            && err.contains("anti_stereotyped_type1.txt.dev"),
        "{err}"
    );
    write(false, "1 [The a] b [she] c.\n2 [The a] b [she] d.\n");
    let err = read_winobias_pairs(&dir, set).unwrap_err().to_string();
    assert!(
        err.contains("pro_stereotyped_type1.txt.dev") && err.contains("line 3"),
        "{err}"
    );
    write(
        false,
        "1 [The a] b [she] c.\n2 [The a] b she] d.\n3 [The a] b [she] e.\n",
    );
    let err = read_winobias_pairs(&dir, set).unwrap_err().to_string();
    assert!(
        err.contains("anti_stereotyped_type1.txt.dev") && err.contains("line 2"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
