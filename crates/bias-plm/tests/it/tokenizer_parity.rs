//! `PlmTokenizer` (the `tokenizers` library reading `tokenizer.json` alone) against the
//! tokenizer `transformers` builds for the same folder (`AutoTokenizer.from_pretrained`, which
//! for XLM-RoBERTa and CamemBERT rebuilds the pipeline in `XLMRobertaTokenizer` /
//! `CamembertTokenizer` from the file's vocabulary): the "tokenizer_check" section of
//! fixtures/plm/{arch}.json written by scripts/fixtures/plm_more.py. Hard strings (whitespace
//! variants, accents, unseen scripts, special tokens in the text) are compared id by id; every
//! distinct CrowS-Pairs and StereoSet sentence through one SHA-256 of all their ids.

use bias_plm::PlmTokenizer;
use bias_testkit::json;
use serde_json::Value;
use sha2::{Digest, Sha256};

use bias_testkit::root;

/// Every distinct sentence of the fixture corpus, sorted (byte order of UTF-8 is code-point
/// order, as Python sorts): CrowS-Pairs `sent_more` and `sent_less`, StereoSet intrasentence
/// contexts and sentences (`plm_models.corpus_sentences`).
fn corpus_sentences() -> Vec<String> {
    let crows = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    let stereoset = root().join("data/stereoset/dev.json");
    assert!(
        crows.is_file() && stereoset.is_file(),
        "data/ missing: run scripts/setup.sh"
    );
    let mut out = Vec::new();
    let mut reader = csv::Reader::from_path(&crows).unwrap();
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (more, less) = (column("sent_more"), column("sent_less"));
    for record in reader.records() {
        let record = record.unwrap();
        out.push(record[more].to_owned());
        out.push(record[less].to_owned());
    }
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(stereoset).unwrap()).unwrap();
    for item in doc["data"]["intrasentence"].as_array().unwrap() {
        out.push(item["context"].as_str().unwrap().to_owned());
        for s in item["sentences"].as_array().unwrap() {
            out.push(s["sentence"].as_str().unwrap().to_owned());
        }
    }
    out.sort();
    out.dedup();
    out
}

fn check(arch: &str) {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(format!("fixtures/plm/{arch}.json"))).unwrap(),
    )
    .unwrap();
    let check = &fixture["tokenizer_check"];
    let tok = PlmTokenizer::from_dir(root().join("fixtures/models").join(arch)).unwrap();
    let special = &check["special_tokens"];
    assert_eq!(
        Some(tok.mask_id().unwrap()),
        special["mask"].as_i64(),
        "{arch} mask"
    );
    assert_eq!(
        Some(tok.pad_id().unwrap()),
        special["pad"].as_i64(),
        "{arch} pad"
    );
    for s in check["strings"].as_array().unwrap() {
        let text = s["text"].as_str().unwrap();
        let want: Vec<i64> = json::ints(&s["input_ids"]);
        assert_eq!(
            tok.encode(text).unwrap(),
            want,
            "{arch} {text:?} ({})",
            check["tokenizer_class"]
        );
    }
    let sentences = corpus_sentences();
    assert_eq!(
        Some(sentences.len() as u64),
        check["corpus_sentences"].as_u64(),
        "{arch}: the corpus read here is not the fixture's"
    );
    let lines: Vec<String> = sentences
        .iter()
        .map(|s| {
            let ids = tok.encode(s).unwrap();
            ids.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let digest: String = Sha256::digest(lines.join("\n").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        Some(digest.as_str()),
        check["corpus_sha256"].as_str(),
        "{arch}: the ids of the {} corpus sentences differ from transformers'",
        sentences.len()
    );
}

#[test]
fn electra_tokenizer_matches_transformers() {
    check("electra");
}

#[test]
fn xlm_roberta_tokenizer_matches_transformers() {
    check("xlm-roberta");
}

#[test]
fn camembert_tokenizer_matches_transformers() {
    check("camembert");
}

#[test]
fn mpnet_tokenizer_matches_transformers() {
    check("mpnet");
}
