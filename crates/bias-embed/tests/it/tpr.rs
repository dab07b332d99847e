//! TPR gap (schroeder2024 Eq. 9, §4.3.3) and its CSV loader.

use approx::assert_abs_diff_eq;
use bias_embed::{load_tpr_csv, tpr_gap, EmbedError, TprRecord};

fn r(l: &str, p: &str, g: &str) -> TprRecord {
    TprRecord::new(l, p, g)
}

#[test]
fn binary_gap_is_signed_difference_in_group_order() {
    let recs = vec![
        r("a", "a", "F"),
        r("a", "b", "F"),
        r("a", "a", "M"),
        r("b", "b", "F"),
        r("b", "a", "M"),
        r("b", "b", "M"),
        r("b", "b", "M"),
        r("c", "c", "F"), // no M sample of class c: skipped
    ];
    let gap = tpr_gap(&recs, None).unwrap();
    assert_eq!(gap.groups, ["F", "M"]);
    assert_eq!(gap.skipped, ["c"]);
    assert_eq!(gap.classes[0].tpr, [0.5, 1.0]);
    assert_eq!(gap.classes[0].gap, -0.5);
    assert_abs_diff_eq!(gap.classes[1].gap, 1.0 - 2.0 / 3.0, epsilon = 1e-15);
    assert_abs_diff_eq!(gap.aggregate, (0.5 + 1.0 / 3.0) / 2.0, epsilon = 1e-15);
    let order = ["M".to_string(), "F".to_string()];
    let swapped = tpr_gap(&recs, Some(&order)).unwrap();
    assert_eq!(swapped.classes[0].gap, 0.5);
    assert_eq!(swapped.aggregate, gap.aggregate);
}

#[test]
fn multi_group_gap_is_population_variance() {
    let recs = vec![
        r("x", "x", "a"),
        r("x", "y", "b"),
        r("x", "x", "c"),
        r("x", "y", "c"),
    ];
    let gap = tpr_gap(&recs, None).unwrap();
    // TPRs 1, 0, 0.5: mean 0.5, variance (0.25 + 0.25 + 0) / 3
    assert_abs_diff_eq!(gap.classes[0].gap, 0.5 / 3.0, epsilon = 1e-15);
    assert_eq!(gap.aggregate, gap.classes[0].gap);
}

#[test]
fn errors() {
    assert!(matches!(tpr_gap(&[], None), Err(EmbedError::Empty)));
    assert!(matches!(
        tpr_gap(&[r("a", "a", "F")], None),
        Err(EmbedError::InvalidParameter { .. })
    ));
    let groups = ["F".to_string()];
    assert!(matches!(
        tpr_gap(&[r("a", "a", "F"), r("a", "a", "M")], Some(&groups)),
        Err(EmbedError::InvalidParameter { .. })
    ));
}

#[test]
fn csv_loader() {
    let dir = std::env::temp_dir().join(format!("bias-embed-tpr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = dir.join("ok.csv");
    std::fs::write(
        &ok,
        "group,label,prediction,extra\nF,nurse,nurse,1\nM,nurse,\"doctor\",2\n",
    )
    .unwrap();
    let recs = load_tpr_csv(&ok).unwrap();
    assert_eq!(recs, [r("nurse", "nurse", "F"), r("nurse", "doctor", "M")]);

    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "label,prediction,group\na,a,F\nb,,M\n").unwrap();
    let e = load_tpr_csv(&bad).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, EmbedError::Format { .. }));
    assert!(msg.contains("bad.csv") && msg.contains("line 3"), "{msg}");

    let short = dir.join("short.csv");
    std::fs::write(&short, "label,prediction,group\na,a\n").unwrap();
    let msg = load_tpr_csv(&short).unwrap_err().to_string();
    assert!(msg.contains("short.csv") && msg.contains("line 2"), "{msg}");

    let nohead = dir.join("nohead.csv");
    std::fs::write(&nohead, "label,pred,group\na,a,F\n").unwrap();
    let msg = load_tpr_csv(&nohead).unwrap_err().to_string();
    assert!(
        msg.contains("line 1") && msg.contains("prediction"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
