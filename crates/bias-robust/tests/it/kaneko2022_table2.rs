//! Kaneko & Bollegala (2022) Table 2 on the substitute data (wordfreq frequencies, group words
//! from the words CrowS-Pairs modifies), compared exactly (words, groups, ranks, counts) with
//! `scripts/fixtures/kaneko2022_table2.py`, which computes it with `wordfreq.word_frequency` and
//! Python's difflib on the real CrowS-Pairs file, for the default options and two others.

use approx::abs_diff_eq;

use bias_data::wordfreq::{default_path, WordFrequencies};
use bias_robust::frequency_rank::{
    group_words, rank_groups, FrequencyRankOptions, Group, StopWords, STOP_WORDS,
};
use serde_json::Value;

use bias_testkit::root;

#[test]
fn table_2_matches_the_python_reference() {
    let r = root();
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(r.join("fixtures/kaneko2022/table2.json")).unwrap(),
    )
    .unwrap();
    let stop: Vec<&str> = fixture["stop_words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(stop, STOP_WORDS, "the same stop-word list");
    let records = bias_data::crows_pairs::read_crows_pairs_path(bias_data::layout::crows_pairs(
        r.join("data"),
    ))
    .expect("data/crows-pairs (run `bash scripts/setup.sh`)");
    let freqs = WordFrequencies::read_path(default_path(r.join("data")))
        .expect("data/wordfreq (run `bash scripts/setup.sh`)");
    let variants = fixture["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 3);
    let mut tops = Vec::new();
    for v in variants {
        let options = FrequencyRankOptions {
            words_per_group: v["words_per_group"].as_u64().unwrap() as usize,
            stop_words: if v["drop_stop_words"].as_bool().unwrap() {
                StopWords::Drop
            } else {
                StopWords::Keep
            },
        };
        let groups = group_words(&records, &options);
        let expected = v["bias_types"].as_object().unwrap();
        assert_eq!(groups.len(), expected.len());
        assert_eq!(groups.len(), 9);
        for (ty, e) in expected {
            let what = format!("{options:?} {ty}");
            let g = &groups[ty];
            assert_eq!(
                g.advantaged.len() as u64,
                e["advantaged_words"].as_u64().unwrap(),
                "{what}"
            );
            assert_eq!(
                g.disadvantaged.len() as u64,
                e["disadvantaged_words"].as_u64().unwrap(),
                "{what}"
            );
            let ties: Vec<&str> = e["ties_dropped"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            assert_eq!(g.ties, ties, "{what}");
            let r = rank_groups(
                &g.advantaged,
                &g.disadvantaged,
                |w| freqs.bucket(w),
                &options,
            );
            assert_eq!(
                r.unknown as u64,
                e["unknown_dropped"].as_u64().unwrap(),
                "{what}"
            );
            let top = e["top"].as_array().unwrap();
            assert_eq!(r.top.len(), top.len(), "{what}");
            for (i, (got, want)) in r.top.iter().zip(top).enumerate() {
                assert_eq!(got.rank, i + 1);
                assert_eq!(
                    got.word,
                    want["word"].as_str().unwrap(),
                    "{what} rank {}",
                    i + 1
                );
                let group = match want["group"].as_str().unwrap() {
                    "adv" => Group::Advantaged,
                    _ => Group::Disadvantaged,
                };
                assert_eq!(got.group, group, "{what} {}", got.word);
                // wordfreq's word_frequency: 10^(-bucket/100) rounded to 3 significant digits
                // (`round(f, floor(-log10(f)) + 3)`).
                let f = freqs.frequency(&got.word).unwrap();
                let scale = 10f64.powf((-f.log10()).floor() + 3.0);
                let rounded = (f * scale).round() / scale;
                let py = want["frequency"].as_f64().unwrap();
                assert!(
                    abs_diff_eq!(rounded, py, epsilon = 1e-9 * py),
                    "{what} {}: {f} vs {py}",
                    got.word
                );
            }
            assert_eq!(
                r.advantaged_mean_rank,
                e["advantaged_mean_rank"].as_f64(),
                "{what}"
            );
            assert_eq!(
                r.disadvantaged_mean_rank,
                e["disadvantaged_mean_rank"].as_f64(),
                "{what}"
            );
            tops.push(r.top.iter().map(|w| w.word.clone()).collect::<Vec<_>>());
        }
    }
    // Each option changes the table: keeping stop words puts function words on top, two words
    // per group ranks four words.
    assert_ne!(tops[0], tops[9]);
    assert_eq!(tops[18].len(), 4);
}
