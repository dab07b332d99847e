//! Each cause is printed once: a message says what failed and where, and leaves the underlying
//! error to `source()` (the CLI prints the chain as `caused by:` lines). Messages give no CLI
//! flags.

use bias_core::{BiasMeasure, BiasType, ScoreRow, ScoreTable};
use bias_metrics::{bootstrap_ci, BootstrapOptions, Kls, MetricsError};

fn row(id: usize, ty: BiasType, st: f64, at: f64) -> ScoreRow {
    ScoreRow::builder(id.to_string(), ty, st, at)
        .dataset("chain")
        .sentences(format!("s{id}"), format!("a{id}"))
        .scorer("aul")
        .model("m")
        .build()
}

use bias_testkit::chain;

#[test]
fn a_failing_measure_in_the_bootstrap_is_printed_once() {
    let err = bootstrap_ci(
        &Kls::default(),
        &ScoreTable::default(),
        &BootstrapOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, MetricsError::Measure { .. }), "{err:?}");
    let messages = chain(&err);
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(
        messages[0],
        "bootstrap of kls: full table: the measure failed"
    );
    assert!(messages[1].contains("empty input"), "{messages:?}");
    for (i, outer) in messages.iter().enumerate() {
        for inner in &messages[i + 1..] {
            assert!(
                !outer.contains(inner.as_str()),
                "{outer:?} repeats its cause {inner:?}"
            );
        }
    }
}

#[test]
fn a_single_pair_type_names_the_type_and_the_library_remedy_not_a_flag() {
    let t = ScoreTable::new(vec![
        row(1, BiasType::Gender, -1.0, -2.0),
        row(2, BiasType::Gender, -3.0, -4.0),
        row(3, BiasType::Age, 0.0, 1.0),
    ]);
    let err = Kls::default().measure(&t).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, MetricsError::SmallBiasType { got: 1, .. }),
        "{err:?}"
    );
    assert!(
        text.contains("bias type `age`") && text.contains("SmallTypePolicy::Skip"),
        "{text}"
    );
    assert!(!text.contains("--"), "{text}");
}
