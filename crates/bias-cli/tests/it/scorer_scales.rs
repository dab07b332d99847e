//! Every scorer this crate provides has a known scale in the paraphrase study, so its near-tie
//! band is put on the right scale (a new scorer without one would need `--scale`).

use bias_plm::ScorerKind;
use bias_robust::paraphrase::ScoreScale;

#[test]
fn every_scorer_has_its_scale() {
    let scales: Vec<(&str, Option<ScoreScale>)> = ScorerKind::ALL
        .iter()
        .map(|k| (k.name(), ScoreScale::of_scorer(k.name())))
        .collect();
    for (name, scale) in &scales {
        // Sums of log-probabilities: CPS and PLL; AULA's attention weights divide by the length
        // twice; the others are means per scored token.
        let want = match *name {
            "cps" | "pll" => ScoreScale::Sum,
            "aula" => ScoreScale::AttentionWeightedMean,
            _ => ScoreScale::PerTokenMean,
        };
        assert_eq!(*scale, Some(want), "{name}");
    }
}
