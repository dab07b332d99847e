//! kaneko2022 human agreement on the real CrowS-Pairs file, against the scikit-learn fixture
//! (`scripts/fixtures/human_auc.py` → `fixtures/robust/human_auc.json`).

use approx::assert_abs_diff_eq;
use bias_core::{BiasType, Direction, ScoreRow, ScoreTable};
use bias_data::crows_pairs::{read_crows_pairs, read_crows_pairs_path, CrowsPair};
use bias_robust::{
    advantaged_split, human_agreement, human_labels, matching_annotations, RobustError,
    DEFAULT_MIN_MATCHING,
};
use serde_json::Value;

use bias_testkit::root;

fn crows_pairs() -> Vec<CrowsPair> {
    let path = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup.sh to fetch the data",
        path.display()
    );
    read_crows_pairs_path(&path).unwrap()
}

fn unigram() -> ScoreTable {
    ScoreTable::read_csv_path(root().join("fixtures/scores/crows_pairs_unigram.csv"))
        .unwrap()
        .for_scorer("unigram-mean")
}

fn fixture() -> Value {
    let text = std::fs::read_to_string(root().join("fixtures/robust/human_auc.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn auc_and_labels_match_sklearn() {
    let fx = fixture();
    let pairs = crows_pairs();
    let h = human_agreement(&pairs, &unigram(), DEFAULT_MIN_MATCHING).unwrap();
    assert_eq!(h.n as u64, fx["n"].as_u64().unwrap());
    assert_eq!(h.biased as u64, fx["biased"].as_u64().unwrap());
    assert_eq!(h.not_biased as u64, fx["not_biased"].as_u64().unwrap());
    assert_eq!((h.biased, h.not_biased), (1346, 162));
    assert_abs_diff_eq!(h.auc, fx["auc"].as_f64().unwrap(), epsilon = 1e-9);
    assert_eq!(h.roc.fpr.len() as u64, fx["roc_points"].as_u64().unwrap());
    assert_eq!(h.scorer, "unigram-mean");

    let mut hist = std::collections::BTreeMap::new();
    for l in &h.labels {
        *hist.entry(l.matching.to_string()).or_insert(0u64) += 1;
    }
    for (k, v) in fx["matching_histogram"].as_object().unwrap() {
        assert_eq!(
            hist.get(k).copied().unwrap_or(0),
            v.as_u64().unwrap(),
            "matching = {k}"
        );
    }
}

#[test]
fn table3_split_matches_fixture() {
    let fx = fixture();
    let s = advantaged_split(&unigram()).unwrap();
    for (got, key) in [
        (s.advantaged, "advantaged"),
        (s.disadvantaged, "disadvantaged"),
    ] {
        assert_eq!(got.n as u64, fx[key]["n"].as_u64().unwrap());
        assert_eq!(
            got.stereo_preferred as u64,
            fx[key]["stereo_preferred"].as_u64().unwrap()
        );
        assert_abs_diff_eq!(
            got.bias_score,
            fx[key]["bias_score"].as_f64().unwrap(),
            epsilon = 1e-9
        );
    }
    assert_eq!((s.advantaged.n, s.disadvantaged.n), (218, 1290));
    assert_abs_diff_eq!(s.abs_diff, fx["abs_diff"].as_f64().unwrap(), epsilon = 1e-9);
}

const SMALL: &str = ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,anon_annotators\n\
0,A s.,A a.,stereo,gender,\"[['gender'], ['gender'], ['gender'], [], []]\",w,\"['a', 'b', 'c', 'd', 'e']\"\n\
1,B s.,B a.,stereo,gender,\"[['gender'], ['age'], ['age'], ['age'], []]\",w,\"['a', 'b', 'c', 'd', 'e']\"\n\
2,C s.,C a.,antistereo,age,\"[['age', 'gender'], ['age'], ['gender'], ['age'], ['age']]\",w,\"['a', 'b', 'c', 'd', 'e']\"\n";

fn row(id: &str, diff: f64, direction: Direction) -> ScoreRow {
    ScoreRow::builder(id, BiasType::Gender, diff, 0.0)
        .dataset("crows-pairs")
        .direction(direction)
        .sentences("s", "a")
        .scorer("x")
        .model("m")
        .build()
}

#[test]
fn rule_counts_only_the_pairs_own_bias_type() {
    let pairs = read_crows_pairs(SMALL.as_bytes(), "small.csv").unwrap();
    // Pair 0: 3 gender → biased; pair 1: 1 gender (3 age annotations do not count) → not;
    // pair 2: 4 age → biased.
    let m: Vec<usize> = pairs.iter().map(matching_annotations).collect();
    assert_eq!(m, [3, 1, 4]);
    let labels = human_labels(&pairs, DEFAULT_MIN_MATCHING);
    assert_eq!(
        labels.iter().map(|l| l.biased).collect::<Vec<_>>(),
        [true, false, true]
    );

    // Differences 0.2 (biased), 0.5 (not), −0.1 (biased): positives beat the negative 0 of 2
    // times → AUC 0.
    let t = ScoreTable::new(vec![
        row("0", 0.2, Direction::Stereo),
        row("1", 0.5, Direction::Stereo),
        row("2", -0.1, Direction::Antistereo),
    ]);
    let h = human_agreement(&pairs, &t, 3).unwrap();
    assert_eq!(h.auc, 0.0);
    assert_eq!(h.differences, [0.2, 0.5, -0.1]);
    // With min_matching = 4 only pair 2 is biased: it is below both → AUC 0 again; with 1 all
    // three are biased → one class only, an error from the ROC.
    let h4 = human_agreement(&pairs, &t, 4).unwrap();
    assert_eq!(
        h4.labels.iter().map(|l| l.biased).collect::<Vec<_>>(),
        [false, false, true]
    );
    assert_eq!(h4.auc, 0.0);
    assert!(matches!(
        human_agreement(&pairs, &t, 1),
        Err(RobustError::Metrics(_))
    ));

    // Split: advantaged = pair 2 (−0.1 → not preferred) 0 %, disadvantaged 2 of 2 = 100 %.
    let s = advantaged_split(&t).unwrap();
    assert_eq!(
        (
            s.advantaged.bias_score,
            s.disadvantaged.bias_score,
            s.abs_diff
        ),
        (0.0, 100.0, 100.0)
    );
}

#[test]
fn errors() {
    let pairs = read_crows_pairs(SMALL.as_bytes(), "small.csv").unwrap();
    let t = ScoreTable::new(vec![
        row("0", 0.2, Direction::Stereo),
        row("1", 0.5, Direction::Stereo),
    ]);
    match human_agreement(&pairs, &t, 3) {
        Err(RobustError::MissingScore { pair_id }) => assert_eq!(pair_id, "2"),
        other => panic!("expected MissingScore, got {other:?}"),
    }
    assert!(human_agreement(&pairs, &t, 0).is_err());
    assert!(human_agreement(&[], &t, 3).is_err());
    assert!(human_agreement(&pairs, &ScoreTable::default(), 3).is_err());
    // No antistereo rows → the advantaged group is empty.
    assert!(advantaged_split(&t).is_err());
    let mut other = row("2", 0.1, Direction::Antistereo);
    other.scorer = "y".into();
    let mixed = ScoreTable::new(vec![
        row("0", 0.2, Direction::Stereo),
        row("1", 0.5, Direction::Stereo),
        other,
    ]);
    assert!(human_agreement(&pairs, &mixed, 3).is_err());
    assert!(advantaged_split(&mixed).is_err());
}
