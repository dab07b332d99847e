//! Score-table CSV and JSON: round trips and the error for each kind of malformed input.

use bias_core::{BiasType, CoreError, Direction, ScoreRow, ScoreTable, SCORE_TABLE_COLUMNS};
use proptest::prelude::*;

const HEADER: &str =
    "pair_id,dataset,bias_type,direction,stereo,anti,score_stereo,score_anti,scorer,model";

fn row(id: &str, s: f64, a: f64) -> ScoreRow {
    ScoreRow::builder(id, BiasType::Gender, s, a)
        .dataset("crows-pairs")
        .sentences("Women, \"they\" said, can't drive.", "Men can't drive.")
        .scorer("aul")
        .model("m")
        .tokens(Some(9), None)
        .group(Some("g1".into()))
        .build()
}

fn read(text: &[u8]) -> Result<ScoreTable, CoreError> {
    ScoreTable::read_csv(text, "scores.csv")
}

#[test]
fn header_constant_is_the_documented_column_list() {
    assert_eq!(SCORE_TABLE_COLUMNS.join(","), HEADER);
}

#[test]
fn csv_and_json_round_trip_exactly() {
    let table = ScoreTable::new(vec![row("0", -1.0 / 3.0, -2.5e-17), row("1", -7.25, -7.25)]);
    let mut buf = Vec::new();
    table.write_csv(&mut buf).unwrap();
    assert_eq!(read(&buf).unwrap(), table);
    let json = table.to_json().unwrap();
    assert_eq!(ScoreTable::from_json(&json, "j").unwrap(), table);
}

#[test]
fn minimal_header_reads_with_optional_columns_absent_and_columns_reordered() {
    let text = "model,scorer,pair_id,dataset,bias_type,direction,stereo,anti,score_stereo,score_anti,extra\n\
                m,cps,7,crows-pairs,race-color,antistereo,A b.,C d.,-3.5,-4,x\n";
    let t = read(text.as_bytes()).unwrap();
    assert_eq!(t.len(), 1);
    let r = &t.rows()[0];
    assert_eq!(r.bias_type, BiasType::RaceColor);
    assert_eq!(r.direction, Direction::Antistereo);
    assert_eq!((r.score_stereo, r.score_anti), (-3.5, -4.0));
    assert_eq!(r.tokens_stereo, None);
    assert_eq!(r.group_id, None);
    assert!(r.prefers_stereo());
}

#[test]
fn missing_column_in_header_is_named() {
    let text = "pair_id,dataset,bias_type,direction,stereo,anti,score_stereo,scorer,model\n";
    match read(text.as_bytes()) {
        Err(CoreError::MissingColumn {
            column,
            source_name,
            ..
        }) => {
            assert_eq!(column, "score_anti");
            assert_eq!(source_name, "scores.csv");
        }
        other => panic!("expected MissingColumn, got {other:?}"),
    }
}

#[test]
fn row_with_a_missing_field_names_its_line() {
    let text = format!(
        "{HEADER}\n0,d,gender,stereo,A.,B.,-1,-2,aul,m\n1,d,gender,stereo,A.,B.,-1,aul,m\n"
    );
    let err = read(text.as_bytes()).unwrap_err();
    assert!(matches!(err, CoreError::Csv { line: 3, .. }), "{err:?}");
    assert!(err.to_string().contains("scores.csv, line 3"), "{err}");
}

#[test]
fn non_numeric_score_names_line_column_and_value() {
    let text = format!("{HEADER}\n0,d,gender,stereo,A.,B.,-1,oops,aul,m\n");
    let err = read(text.as_bytes()).unwrap_err();
    match &err {
        CoreError::InvalidField {
            line,
            column,
            value,
            ..
        } => {
            assert_eq!(
                (*line, column.as_str(), value.as_str()),
                (2, "score_anti", "oops")
            );
        }
        other => panic!("expected InvalidField, got {other:?}"),
    }
    assert!(err.to_string().contains("scores.csv, line 2"));
}

#[test]
fn nan_and_infinite_scores_are_rejected() {
    for bad in ["NaN", "inf", "-inf"] {
        let text = format!("{HEADER}\n0,d,gender,stereo,A.,B.,{bad},-1,aul,m\n");
        assert!(
            matches!(read(text.as_bytes()), Err(CoreError::InvalidField { ref column, .. }) if column == "score_stereo"),
            "{bad} accepted"
        );
    }
}

#[test]
fn invalid_utf8_names_its_line() {
    let mut text = format!("{HEADER}\n0,d,gender,stereo,A.,B.,-1,-2,aul,m\n").into_bytes();
    text.extend_from_slice(b"1,d,gender,stereo,A\xff\xfe.,B.,-1,-2,aul,m\n");
    let err = read(&text).unwrap_err();
    assert!(matches!(err, CoreError::Csv { line: 3, .. }), "{err:?}");
}

#[test]
fn empty_sentence_is_an_error() {
    let text = format!("{HEADER}\n0,d,gender,stereo,A.,  ,-1,-2,aul,m\n");
    match read(text.as_bytes()) {
        Err(CoreError::EmptySentence { line, column, .. }) => {
            assert_eq!((line, column.as_str()), (2, "anti"));
        }
        other => panic!("expected EmptySentence, got {other:?}"),
    }
}

#[test]
fn unknown_direction_and_bad_token_count_are_errors() {
    let text = format!("{HEADER}\n0,d,gender,sideways,A.,B.,-1,-2,aul,m\n");
    assert!(
        matches!(read(text.as_bytes()), Err(CoreError::InvalidField { ref column, .. }) if column == "direction")
    );
    let text = format!("{HEADER},tokens_stereo\n0,d,gender,stereo,A.,B.,-1,-2,aul,m,-3\n");
    assert!(
        matches!(read(text.as_bytes()), Err(CoreError::InvalidField { ref column, .. }) if column == "tokens_stereo")
    );
}

#[test]
fn missing_file_names_the_path() {
    let err = ScoreTable::read_csv_path("/nonexistent/dir/scores.csv").unwrap_err();
    assert!(matches!(err, CoreError::Io { .. }));
    assert!(err.to_string().contains("/nonexistent/dir/scores.csv"));
}

#[test]
fn grouping_and_filtering() {
    let mut r2 = row("1", -1.0, -2.0);
    r2.bias_type = BiasType::Age;
    r2.scorer = "cps".into();
    let t = ScoreTable::new(vec![row("0", -1.0, -2.0), r2, row("2", -3.0, -1.0)]);
    assert_eq!(
        t.scorers().into_iter().collect::<Vec<_>>(),
        vec!["aul", "cps"]
    );
    assert_eq!(t.for_scorer("aul").len(), 2);
    let groups = t.by_bias_type();
    assert_eq!(groups[&BiasType::Gender].len(), 2);
    assert_eq!(groups[&BiasType::Age].len(), 1);
}

proptest! {
    #[test]
    fn any_finite_scores_and_text_round_trip(
        s in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO,
        a in -1e6f64..1e6,
        text in "[a-zA-Z ,\"'\n]{0,20}[a-z]",
    ) {
        let mut r = row("p", s, a);
        r.stereo = text.clone();
        let table = ScoreTable::new(vec![r]);
        let mut buf = Vec::new();
        table.write_csv(&mut buf).unwrap();
        prop_assert_eq!(read(&buf).unwrap(), table);
    }
}

#[test]
fn a_repeated_pair_is_an_error_naming_both_lines() {
    let text = format!(
        "{HEADER}\n0,d,gender,stereo,A.,B.,-1,-2,aul,m\n0,d,gender,stereo,A.,B.,-1,-2,cps,m\n0,d,gender,stereo,A.,B.,-1,-2,aul,m\n"
    );
    match read(text.as_bytes()) {
        Err(CoreError::DuplicateRow {
            line,
            first_line,
            pair_id,
            ..
        }) => {
            assert_eq!((line, first_line, pair_id.as_str()), (4, 2, "0"));
        }
        other => panic!("expected DuplicateRow, got {other:?}"),
    }
}

#[test]
fn slices_separate_datasets_scorers_and_models() {
    let mut other_dataset = row("0", -1.0, -2.0);
    other_dataset.dataset = "stereoset".into();
    let mut other_scorer = row("0", -1.0, -2.0);
    other_scorer.scorer = "cps".into();
    let t = ScoreTable::new(vec![
        row("0", -1.0, -2.0),
        other_dataset,
        other_scorer,
        row("1", 0.0, 0.0),
    ]);
    let keys: Vec<(String, String, usize)> = t
        .slices()
        .into_iter()
        .map(|s| (s.dataset, s.scorer, s.table.len()))
        .collect();
    assert_eq!(
        keys,
        vec![
            ("crows-pairs".into(), "aul".into(), 2),
            ("crows-pairs".into(), "cps".into(), 1),
            ("stereoset".into(), "aul".into(), 1),
        ]
    );
}
