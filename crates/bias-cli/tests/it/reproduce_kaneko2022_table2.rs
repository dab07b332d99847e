//! `bias reproduce kaneko2022` Table 2 (Kaneko & Bollegala 2022) on four crafted gender pairs,
//! with the real wordfreq list: the group words, the ranks and the two options
//! (`--kaneko2022-table2-words`, `--kaneko2022-stop-words`) checked by hand.

use crate::support::kaneko2022_on_bert;
use std::path::{Path, PathBuf};

use serde_json::Value;

use bias_testkit::root;

const ANNOTATIONS: &str =
    "\"[['gender'], ['gender'], ['gender'], [], []]\",a0,\"['a1', 'a2', 'a3', 'a4', 'a5']\"";

/// stereo rows: `sent_more`'s modified words are Dis, `sent_less`'s Adv; antistereo: reversed.
fn crafted_crows() -> String {
    let rows = [
        "0,She is a nurse.,He is a nurse.,stereo,gender",
        "1,Women can't drive.,Men can't drive.,stereo,gender",
        "2,The mother cooked.,A father cooked.,stereo,gender",
        "3,His wife cried.,Her husband cried.,antistereo,gender",
    ];
    let mut s = ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,anon_annotators\n"
        .to_owned();
    for r in rows {
        s.push_str(&format!("{r},{ANNOTATIONS}\n"));
    }
    s
}

fn gender_row(out: &Path) -> (Value, Value) {
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("index.json")).unwrap()).unwrap();
    let a = index["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "table-2")
        .unwrap()
        .clone();
    let t: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("table-2.json")).unwrap()).unwrap();
    let row = t["table"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["bias type"] == "gender")
        .unwrap()
        .clone();
    (a, row)
}

fn words(row: &Value, n: usize) -> Vec<String> {
    (1..=n)
        .map(|i| row[i.to_string()].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn table_2_by_hand_and_its_options() {
    let r = root();
    let tmp = std::env::temp_dir().join(format!(
        "bias-reproduce-kaneko2022-table2-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    let data = tmp.join("data");
    for d in ["crows-pairs", "stereoset", "wordfreq"] {
        std::fs::create_dir_all(data.join(d)).unwrap();
    }
    std::fs::write(
        data.join("crows-pairs/crows_pairs_anonymized.csv"),
        crafted_crows(),
    )
    .unwrap();
    for f in ["stereoset/dev.json", "wordfreq/large_en.msgpack.gz"] {
        std::fs::copy(r.join("data").join(f), data.join(f))
            .unwrap_or_else(|e| panic!("data/{f} ({e}); run `bash scripts/setup.sh`"));
    }
    let run = |name: &str, extra: &[&str]| -> PathBuf {
        kaneko2022_on_bert(&data, &tmp.join(name), 2, extra)
    };

    // Group words: Adv he, men, father, his, wife (+ the stop word "a"); Dis she, women,
    // mother, her, husband (+ "the"). wordfreq 3.1.1 (word_frequency): he 0.0049, his 0.00324,
    // her 0.002, she 0.00182, women 0.000372, men 0.000324, father 0.000182, mother 0.000174,
    // wife 0.00017, husband 0.0001; the 0.0537, a 0.0229.
    let (a, row) = gender_row(&run("paper", &[]));
    assert_eq!(a["status"]["status"], "substitute");
    // Top 4 of each group: he his men father / her she women mother.
    assert_eq!(
        words(&row, 8),
        [
            "he (A)",
            "his (A)",
            "her (D)",
            "she (D)",
            "women (D)",
            "men (A)",
            "father (A)",
            "mother (D)"
        ]
    );
    assert_eq!(row["Adv"].as_f64(), Some((1.0 + 2.0 + 6.0 + 7.0) / 4.0));
    assert_eq!(row["Dis"].as_f64(), Some((3.0 + 4.0 + 5.0 + 8.0) / 4.0));
    assert_eq!(row["pairs"], 4);
    assert_eq!(row["Adv words"], 5);
    assert_eq!(row["Dis words"], 5);
    assert_eq!(row["stop words dropped"], 2);
    assert_eq!(row["non-letter words dropped"], 0);

    // One word per group: he (A) 1, her (D) 2.
    let (_, row) = gender_row(&run("one", &["--kaneko2022-table2-words", "1"]));
    assert_eq!(words(&row, 2), ["he (A)", "her (D)"]);
    assert!(row.get("3").is_none());
    assert_eq!(
        (row["Adv"].as_f64(), row["Dis"].as_f64()),
        (Some(1.0), Some(2.0))
    );

    // Stop words kept: "a" (Adv) and "the" (Dis) enter the top 4 of their groups.
    let (_, row) = gender_row(&run("keep", &["--kaneko2022-stop-words", "keep"]));
    assert_eq!(
        words(&row, 8),
        [
            "the (D)",
            "a (A)",
            "he (A)",
            "his (A)",
            "her (D)",
            "she (D)",
            "women (D)",
            "men (A)"
        ]
    );
    assert_eq!(row["Adv"].as_f64(), Some((2.0 + 3.0 + 4.0 + 8.0) / 4.0));
    assert_eq!(row["Dis"].as_f64(), Some((1.0 + 5.0 + 6.0 + 7.0) / 4.0));
    assert_eq!(row["stop words dropped"], 0);

    // No wordfreq list: Table 2 is listed as out of reach, saying how to fetch it.
    std::fs::remove_file(data.join("wordfreq/large_en.msgpack.gz")).unwrap();
    let out = run("missing", &[]);
    let index = std::fs::read_to_string(out.join("index.json")).unwrap();
    let index: Value = serde_json::from_str(&index).unwrap();
    let a = index["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "table-2")
        .unwrap();
    assert_eq!(a["status"]["status"], "out-of-reach");
    assert!(a["status"].to_string().contains("scripts/setup.sh"), "{a}");
    let _ = std::fs::remove_dir_all(&tmp);
}
