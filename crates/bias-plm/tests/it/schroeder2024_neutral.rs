//! The neutral CrowS-Pairs targets of Schröder, Schulz & Hammer (2024, §4.3.4) against the Python
//! fixture of the authors' procedure (`scripts/fixtures/schroeder2024_crows.py`, `transformers`
//! tokenizers): every kept pair of the data set, for the fixture BERT and RoBERTa tokenizers.

use bias_plm::{clean_up_tokenization, mask_differing_tokens, PlmTokenizer};

use bias_testkit::root;

#[test]
fn masked_targets_match_the_authors_procedure() {
    let text = std::fs::read_to_string(root().join("fixtures/embed/schroeder2024_crows.json"))
        .expect("fixture");
    let fx: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pairs = bias_data::load_pairs(root().join("data/crows-pairs/crows_pairs_anonymized.csv"))
        .unwrap()
        .pairs;
    for model in ["bert", "roberta"] {
        let tok = PlmTokenizer::from_dir(root().join("fixtures/models").join(model)).unwrap();
        let masked = fx["models"][model]["masked"].as_object().unwrap();
        assert!(masked.len() > 400, "{model}: {}", masked.len());
        for (id, want) in masked {
            let p = pairs.iter().find(|p| &p.id == id).unwrap();
            let got = mask_differing_tokens(&tok, &p.stereo, &p.anti).unwrap();
            assert_eq!(&got, want.as_str().unwrap(), "{model} pair {id}");
        }
    }
}

#[test]
fn one_mask_per_differing_token() {
    let tok = PlmTokenizer::from_dir(root().join("fixtures/models/bert")).unwrap();
    let mask = tok.id_to_token(tok.mask_id().unwrap()).unwrap();
    let got =
        mask_differing_tokens(&tok, "The african-american man ran.", "The white man ran.").unwrap();
    // "african-american" is three word pieces at least (african, -, american): one mask each.
    let n = got.matches(&mask).count();
    let pieces = tok.encode("african-american").unwrap().len() - 2;
    assert_eq!(n, pieces, "{got}");
    assert_eq!(clean_up_tokenization("a , b ."), "a, b.");
}
