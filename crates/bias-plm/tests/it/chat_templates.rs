//! Chat templates rendered by [`bias_plm::ChatTemplate`] against `transformers`'
//! `apply_chat_template` (fixtures/plm/chat_templates.json, written by
//! scripts/fixtures/chat_templates.py) on the templates of Llama 3, Qwen 2.5, Gemma 2, Mistral
//! and Phi-3 (fixtures/chat_templates/): the same text, the same token ids with the fixture
//! tokenizer, and a refusal where the template refuses.

use bias_plm::{ChatTemplate, Message, PlmTokenizer};
use bias_testkit::{json, root};
use serde_json::Value;

#[test]
fn five_families_render_as_transformers_renders_them() {
    let fixture = json::at_root("fixtures/plm/chat_templates.json");
    let tokenizer = PlmTokenizer::from_dir(root().join("fixtures/models/llama")).unwrap();
    let conversations = &fixture["conversations"];
    let mut checked = 0;
    let mut refused = 0;
    for (family, cases) in fixture["templates"].as_object().unwrap() {
        let path = root().join(format!("fixtures/chat_templates/{family}.jinja"));
        let source = std::fs::read_to_string(&path).unwrap();
        let template = ChatTemplate::new(&source, "<s>", "</s>", &path).unwrap();
        for case in cases.as_array().unwrap() {
            let messages: Vec<Message> = conversations[case["conversation"].as_str().unwrap()]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| Message::new(m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
                .collect();
            let generation = case["add_generation_prompt"].as_bool().unwrap();
            let what = format!("{family} {} {generation}", case["conversation"]);
            let ours = template.render(&messages, generation);
            match &case["error"] {
                Value::String(message) => {
                    let err = ours.unwrap_err().to_string();
                    assert!(err.contains(message.as_str()), "{what}: {err} vs {message}");
                    refused += 1;
                }
                _ => {
                    let text = ours.unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(text, case["text"].as_str().unwrap(), "{what}");
                    let ids: Vec<i64> = tokenizer
                        .inner()
                        .encode(text.as_str(), false)
                        .unwrap()
                        .get_ids()
                        .iter()
                        .map(|&i| i64::from(i))
                        .collect();
                    assert_eq!(ids, json::ints(&case["ids"]), "{what}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(fixture["templates"].as_object().unwrap().len(), 5);
    assert!(
        checked >= 30 && refused >= 1,
        "{checked} rendered, {refused} refused"
    );
}

/// A folder's template: `tokenizer_config.json`'s `chat_template` with its special tokens, or
/// none; a list of named templates without `default` is refused naming the file.
#[test]
fn a_folder_gives_its_template_or_none() {
    let dir = bias_testkit::scratch("chat-folder");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("tokenizer_config.json");
    std::fs::write(
        &config,
        r#"{"bos_token": {"content": "<B>"}, "eos_token": "<E>"}"#,
    )
    .unwrap();
    assert!(ChatTemplate::of_folder(&dir).unwrap().is_none());
    std::fs::write(
        &config,
        r#"{"bos_token": "<B>", "eos_token": "<E>",
            "chat_template": "{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content.strip() }}{{ eos_token }}{% endfor %}"}"#,
    )
    .unwrap();
    let t = ChatTemplate::of_folder(&dir).unwrap().unwrap();
    let text = t.render(&[Message::new("user", "  hi  ")], true).unwrap();
    assert_eq!(text, "<B>[user] hi<E>");
    std::fs::write(
        &config,
        r#"{"chat_template": [{"name": "tool_use", "template": "x"}]}"#,
    )
    .unwrap();
    let err = ChatTemplate::of_folder(&dir).unwrap_err().to_string();
    assert!(
        err.contains("tokenizer_config.json") && err.contains("`default`"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
