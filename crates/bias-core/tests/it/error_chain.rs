//! Each cause is printed once: a message names what went wrong and where, and leaves the
//! underlying error to `source()` (the CLI prints the chain as `caused by:` lines).

use std::error::Error;

use bias_core::{CoreError, ScoreTable};

const HEADER: &str =
    "pair_id,dataset,bias_type,direction,stereo,anti,score_stereo,score_anti,scorer,model";

use bias_testkit::assert_each_cause_once;

#[test]
fn a_csv_error_names_file_and_line_and_leaves_the_detail_to_its_source() {
    let text = format!(
        "{HEADER}\n0,d,gender,stereo,A.,B.,-1,-2,aul,m\n1,d,gender,stereo,A.,B.,-1,aul,m\n"
    );
    let err = ScoreTable::read_csv(text.as_bytes(), "scores.csv").unwrap_err();
    assert!(matches!(err, CoreError::Csv { line: 3, .. }), "{err:?}");
    let messages = assert_each_cause_once(&err);
    assert!(messages[0].starts_with("scores.csv, line 3: unreadable CSV record"));
    assert!(
        messages[1].contains("found record with 9 fields"),
        "{messages:?}"
    );
}

#[test]
fn io_and_json_errors_keep_their_cause_out_of_the_message() {
    let err = ScoreTable::read_csv_path("/nonexistent/dir/scores.csv").unwrap_err();
    let messages = assert_each_cause_once(&err);
    assert_eq!(
        messages[0],
        "/nonexistent/dir/scores.csv: cannot open, read or write it (check that the file exists \
         and is readable)"
    );
    let io = err
        .source()
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .expect("an io::Error source");
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound, "{io}");

    let err = ScoreTable::from_json("[{\"pair_id\": }", "t.json").unwrap_err();
    let messages = assert_each_cause_once(&err);
    assert_eq!(messages[0], "t.json, line 1, column 14: malformed JSON");
    assert!(messages[1].contains("line 1 column"), "{messages:?}");
    // serde_json's own words for the missing value after `"pair_id": ` (column 14).
    assert_eq!(messages[1], "expected value at line 1 column 14");
}
