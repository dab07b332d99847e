//! Each cause is printed once: a message says what failed and where (file, pair, measure, model,
//! rate, repeat), and leaves the underlying error to `source()` (the CLI prints the chain as
//! `caused by:` lines). Messages give no CLI flags.

use bias_core::{BiasType, ScoreRow, ScoreTable};
use bias_metrics::{DistributionOptions, Kls};
use bias_robust::controlled::{male_side, OrientationError};
use bias_robust::{
    retest_weat, subsample_study, RetestOptions, RobustError, RobustnessOptions, SyncMeasure,
    TargetLabels, WeatSplit,
};

fn row(id: usize, ty: BiasType, stereo: &str, anti: &str, st: f64, at: f64) -> ScoreRow {
    ScoreRow::builder(id.to_string(), ty, st, at)
        .dataset("chain")
        .sentences(stereo, anti)
        .scorer("aul")
        .model("m")
        .build()
}

use bias_testkit::{assert_library_chain, chain};

#[test]
fn a_failing_measure_names_measure_model_rate_and_repeat_and_leaves_why_to_its_source() {
    // KLS needs two pairs per bias type (standard deviation, ddof = 1): a stratified draw at
    // rate 0.5 keeps one pair of each type.
    let tiny = ScoreTable::new(vec![
        row(0, BiasType::Gender, "s", "a", -1.0, -2.0),
        row(1, BiasType::Gender, "s", "a", -1.5, -1.75),
        row(2, BiasType::Age, "s", "a", -3.0, -1.0),
        row(3, BiasType::Age, "s", "a", -2.0, -2.0),
    ]);
    let kls = Kls::new(DistributionOptions::default());
    let measures: [SyncMeasure<'_>; 1] = [&kls];
    let options = RobustnessOptions {
        rates: vec![0.5],
        repeats: 2,
        seed: 0,
    };
    let err = subsample_study(&[("m".to_owned(), tiny)], &measures, &options).unwrap_err();
    assert!(matches!(err, RobustError::Measure { .. }), "{err:?}");
    let messages = chain(&err);
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0], "kls on model `m`, rate 0.5, repeat 0 failed");
    assert!(
        messages[1].starts_with("kls: bias type `") && messages[1].contains("got 1"),
        "{messages:?}"
    );
    assert_library_chain(&messages);
}

#[test]
fn an_orientation_error_names_the_pair_and_its_cause_says_why() {
    let male = vec!["he".to_owned()];
    let female = vec!["she".to_owned()];
    let r = row(7, BiasType::Gender, "John cooks.", "Mary cooks.", 0.0, 0.0);
    let err = RobustError::Orientation {
        pair_id: r.pair_id.clone(),
        source: male_side(&r, &male, &female).unwrap_err(),
    };
    let messages = chain(&err);
    assert_eq!(
        messages,
        [
            "pair \"7\" cannot be oriented male-vs-female",
            "no gendered word among the differing words (john, mary)",
        ]
    );
    assert_library_chain(&messages);

    // Word lists that cannot be used: three levels, each said once.
    let both = vec!["he".to_owned()];
    let source = male_side(&r, &both, &both).unwrap_err();
    assert!(
        matches!(source, OrientationError::InvalidWords { .. }),
        "{source:?}"
    );
    let err = RobustError::Orientation {
        pair_id: r.pair_id.clone(),
        source,
    };
    let messages = chain(&err);
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[1], "the male and female word lists cannot be used");
    assert!(messages[2].contains("in both lists"), "{messages:?}");
    assert_library_chain(&messages);
}

#[test]
fn an_empty_weat_side_is_its_own_variant_and_names_the_library_option_not_a_flag() {
    let targets = ndarray::arr2(&[[1.0, 0.0], [0.8, 0.6], [0.6, 0.8], [0.0, 1.0]]);
    let (a, b) = (ndarray::arr2(&[[1.0, 0.1]]), ndarray::arr2(&[[0.1, 1.0]]));
    let weat = |class: &[usize], group: &[usize], options: &RetestOptions| {
        let labels = TargetLabels::new(class, group).unwrap();
        retest_weat(
            targets.view(),
            &labels,
            a.view(),
            b.view(),
            bias_embed::Ddof::Zero,
            WeatSplit::PerSubset,
            options,
        )
        .unwrap_err()
    };
    // Every target in group 0: target set Y is empty on all of them, whatever the draws.
    let err = weat(&[0, 0, 1, 1], &[0, 0, 0, 0], &RetestOptions::default());
    assert!(
        matches!(
            err,
            RobustError::EmptyWeatSide {
                side: 'Y',
                targets: 4,
                subset: false
            }
        ),
        "{err:?}"
    );
    let messages = chain(&err);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains("on all 4 targets"), "{messages:?}");
    assert!(!messages[0].contains("skip_failures"), "{messages:?}");
    assert_library_chain(&messages);

    // Two classes, one per group: a drawn half holding one class only has a side empty.
    let options = RetestOptions {
        shares: vec![0.5],
        repeats: 20,
        ..RetestOptions::default()
    };
    let err = weat(&[0, 0, 1, 1], &[0, 0, 1, 1], &options);
    assert!(
        matches!(
            err,
            RobustError::EmptyWeatSide {
                targets: 2,
                subset: true,
                ..
            }
        ),
        "{err:?}"
    );
    let messages = chain(&err);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("on a subset of 2 targets")
            && messages[0].contains("RetestOptions::skip_failures"),
        "{messages:?}"
    );
    assert_library_chain(&messages);
}
