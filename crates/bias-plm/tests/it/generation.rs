//! Greedy generation against `transformers`' `generate(do_sample=False)`
//! (fixtures/plm/greedy_generation.json, written by scripts/fixtures/greedy_generation.py): the
//! prompt ids and the generated ids of five prompts on every causal fixture family, through the
//! KV-cached decoder. The prompts cross Mistral's and Gemma 2's sliding windows and Phi-3's
//! LongRoPE switch; the reference's smallest top-2 logit gap (3.4e-4) is far above the 1e-5 the
//! two implementations' logits differ by, so no CPU's rounding can flip a token.

use bias_plm::{Finish, GenerationOptions};
use bias_testkit::root;
use serde_json::Value;

use crate::support::open_causal;

fn reference() -> Value {
    let path = root().join("fixtures/plm/greedy_generation.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn ids(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_i64().unwrap())
        .collect()
}

#[test]
fn greedy_tokens_equal_transformers_generate_on_every_causal_family() {
    let reference = reference();
    let max_new = reference["max_new_tokens"].as_u64().unwrap() as usize;
    let options = GenerationOptions {
        max_new_tokens: max_new,
        stop: Vec::new(),
    };
    let families = reference["families"].as_object().unwrap();
    assert_eq!(families.len(), 10);
    for (family, cases) in families {
        let lm = open_causal(family);
        for case in cases.as_array().unwrap() {
            let prompt = case["prompt"].as_str().unwrap();
            assert_eq!(
                lm.encode_prompt(prompt).unwrap(),
                ids(&case["prompt_ids"]),
                "{family}: prompt ids of {prompt:?}"
            );
            let got = lm.generate(prompt, &options).unwrap();
            let want = ids(&case["token_ids"]);
            if let Some(at) = (0..want.len()).find(|&i| got.token_ids.get(i) != Some(&want[i])) {
                panic!(
                    "{family}: {prompt:?} departs from transformers at generated token {at} \
                     (reference top-2 gap there {})",
                    case["gaps"][at]
                );
            }
            assert_eq!(got.token_ids.len(), want.len(), "{family}: {prompt:?}");
            assert_eq!(got.finish, Finish::Length, "{family}: {prompt:?}");
            assert_eq!(got.text, lm.tokenizer().decode(&want, true).unwrap());
        }
    }
}

/// The stops, on the path transformers generates: an EOS id ends the output with it; a stop
/// string ends decoding at the token that completes it and cuts the text before it.
#[test]
fn eos_ids_and_stop_strings_end_the_greedy_path_where_they_occur() {
    let reference = reference();
    let case = &reference["families"]["llama"][0];
    let want = ids(&case["token_ids"]);
    let prompt = case["prompt"].as_str().unwrap();
    let lm = open_causal("llama");
    let model = lm.model().unwrap();
    let prompt_ids = ids(&case["prompt_ids"]);
    let eos = want[5];
    let first = want.iter().position(|&t| t == eos).unwrap();
    let mut never = |_: &[i64]| Ok(false);
    let g = model.greedy(&prompt_ids, 40, &[eos], &mut never).unwrap();
    assert_eq!(g.token_ids, want[..=first]);
    assert_eq!(g.finish, Finish::Eos);
    assert_eq!(g.margins.len(), g.token_ids.len());
    assert!(g.margins.iter().all(|m| *m > 0.0));

    // A stop string: the text of tokens 3..5 of the path.
    let full = lm.tokenizer().decode(&want, true).unwrap();
    let head = lm.tokenizer().decode(&want[..3], true).unwrap();
    let stop = lm.tokenizer().decode(&want[..5], true).unwrap()[head.len()..].to_owned();
    assert!(
        !stop.is_empty() && full.contains(&stop),
        "{stop:?} in {full:?}"
    );
    let options = GenerationOptions {
        max_new_tokens: 40,
        stop: vec![stop.clone()],
    };
    let g = lm.generate(prompt, &options).unwrap();
    assert_eq!(g.finish, Finish::Stop);
    let cut = full.find(&stop).unwrap();
    assert_eq!(g.text, full[..cut]);
    let ended = lm.tokenizer().decode(&g.token_ids, false).unwrap();
    assert!(ended.contains(&stop), "{ended:?}");
    let before = lm
        .tokenizer()
        .decode(&g.token_ids[..g.token_ids.len() - 1], false);
    assert!(!before.unwrap().contains(&stop), "stopped late");
    assert_eq!(g.token_ids, want[..g.token_ids.len()]);
}

#[test]
fn a_prompt_with_no_room_or_no_tokens_is_refused_before_decoding() {
    let lm = open_causal("gpt2");
    let model = lm.model().unwrap();
    let mut never = |_: &[i64]| Ok(false);
    let e = model.greedy(&[], 4, &[], &mut never).unwrap_err();
    assert!(e.to_string().contains("no tokens"), "{e}");
    let e = model.greedy(&[1, 2], 255, &[], &mut never).unwrap_err();
    assert!(e.to_string().contains("257 tokens exceeds"), "{e}");
    let e = model.greedy(&[1, 5000], 4, &[], &mut never).unwrap_err();
    assert!(e.to_string().contains("5000"), "{e}");
}
