//! A figure that cannot be written names what failed and where, and leaves the underlying
//! error to `source()` (as the studies' errors do: `bias-robust`'s `tests/it/error_chain.rs`).

use std::path::Path;

use bias_metrics::stats::RocCurve;
use bias_report::figures;
use bias_report::ReportError;

use bias_testkit::{assert_library_chain, chain};

#[test]
fn a_figure_that_cannot_be_written_names_the_folder_and_leaves_the_os_error_to_its_source() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bias-report-error-chain");
    std::fs::create_dir_all(&dir).unwrap();
    let blocker = dir.join("a-file-not-a-folder");
    std::fs::write(&blocker, "x").unwrap();
    let curve = RocCurve {
        fpr: vec![0.0, 1.0],
        tpr: vec![0.0, 1.0],
        thresholds: vec![f64::INFINITY, 0.0],
    };
    let err = figures::roc_curves(&[("x", &curve, 0.5)], blocker.join("roc")).unwrap_err();
    assert!(
        matches!(
            err,
            ReportError::Io {
                action: "create",
                ..
            }
        ),
        "{err:?}"
    );
    let messages = chain(&err);
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0], format!("cannot create {}", blocker.display()));
    assert_library_chain(&messages);
    // The source is the operating system's refusal to make a folder where a file is (EEXIST).
    let io = std::error::Error::source(&err)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .expect("an io::Error source");
    assert_eq!(io.kind(), std::io::ErrorKind::AlreadyExists, "{io}");
}
