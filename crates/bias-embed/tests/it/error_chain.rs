//! Each cause is printed once: a message says what failed and where (file, line), and leaves
//! the underlying error to `source()` (the CLI prints the chain as `caused by:` lines).

use bias_core::CoreError;
use bias_embed::{load_tpr_csv, EmbedError};

use bias_testkit::assert_each_cause_once;

#[test]
fn an_unreadable_tpr_csv_names_the_file_and_keeps_the_io_error_as_source() {
    let dir = std::env::temp_dir().join(format!("bias-embed-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Not UTF-8: the file cannot be read as text.
    let bad = dir.join("latin1.csv");
    std::fs::write(&bad, b"label,prediction,group\na,a,F\nnurse,caf\xe9,M\n").unwrap();
    let err = load_tpr_csv(&bad).unwrap_err();
    assert!(
        matches!(err, EmbedError::Core(CoreError::Io { .. })),
        "{err:?}"
    );
    let messages = assert_each_cause_once(&err);
    assert!(
        messages[0].contains("latin1.csv: cannot open, read or write it"),
        "{messages:?}"
    );
    assert!(messages[1].contains("UTF-8"), "{messages:?}");

    let err = load_tpr_csv(dir.join("absent.csv")).unwrap_err();
    let messages = assert_each_cause_once(&err);
    assert!(messages[0].contains("absent.csv"), "{messages:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_shape_error_is_a_source_not_part_of_the_message() {
    let source = ndarray::Array2::<f32>::from_shape_vec((2, 3), vec![0.0; 5]).unwrap_err();
    let err = EmbedError::Shape {
        what: "v.txt: 2 vectors of dimension 3".into(),
        source,
    };
    let messages = assert_each_cause_once(&err);
    assert_eq!(
        messages[0],
        "v.txt: 2 vectors of dimension 3: the arrays' shapes do not fit together"
    );
}
