//! BBQ and Winogender on the tiny causal LMs (fixtures/models/gpt2 and llama) against
//! lm-evaluation-harness 0.4.13's own `bbq` and `winogender_all` tasks on the same checkpoints
//! and documents (fixtures/plm/lm_eval_bbq_winogender_{model}.json, written by
//! scripts/fixtures/lm_eval_bbq_winogender.py): the prompts and choices `bias_tasks` builds equal
//! the requests lm-eval logged, every document's answer equals lm-eval's, and every metric —
//! BBQ's `acc`, `accuracy_amb`, `accuracy_disamb` and the ambiguous and disambiguated bias
//! scores overall and per category, Winogender's `acc` — equals lm-eval's.
//!
//! The answers are arg-maxes of log-likelihoods: the fixture's two likeliest choices differ by at
//! least 6e-4 in every document, and ours are within 1e-4 of lm-eval's
//! (tests/it/lm_eval_continuations.rs), so no answer can differ by rounding.

use bias_data::bbq::{read_bbq_category, BbqCategory};
use bias_data::winogender::read_winogender_dir;
use bias_plm::{CausalLm, CausalScorerKind, ChatPrompt, ChatScorer, DeviceSpec, ScoringOptions};
use bias_tasks::bbq::{run_bbq, BbqDoc};
use bias_tasks::winogender::{accuracies, multiple_choice, WinogenderTask};
use bias_tasks::{score_choices, ChoiceRunOptions};
use bias_testkit::json;
use serde_json::Value;
use tch::Kind;

use bias_testkit::root;

fn fixture(model: &str) -> Value {
    let path = root().join(format!("fixtures/plm/lm_eval_bbq_winogender_{model}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn open(model: &str) -> CausalLm {
    CausalLm::open(
        root().join("fixtures/models").join(model),
        DeviceSpec::Cpu,
        Kind::Float,
    )
    .unwrap()
}

/// The first `per` examples of each BBQ category, in lm-eval's category order.
fn bbq_examples(per: usize) -> Vec<bias_data::bbq::BbqExample> {
    let data = root().join("data");
    let mut examples = Vec::new();
    for category in BbqCategory::ALL {
        let mut of = read_bbq_category(&data, category).unwrap();
        of.truncate(per);
        examples.extend(of);
    }
    examples
}

/// Every document's choices scored by `scorer`, in one run without a log.
fn score_all(
    scorer: &mut dyn bias_core::ContinuationScorer,
    prompts: &[bias_tasks::MultipleChoice],
) -> Vec<bias_tasks::ChoiceScores> {
    score_choices(
        scorer,
        prompts,
        None,
        ChoiceRunOptions::default(),
        &mut |_, _| {},
    )
    .unwrap()
}

fn metric(metrics: &Value, key: &str) -> Option<f64> {
    let v = &metrics[key];
    assert!(!v.is_object() && (v.is_null() || v.is_f64()), "{key}: {v}");
    v.as_f64()
}

fn same(ours: Option<f64>, theirs: Option<f64>, what: &str) {
    match (ours, theirs) {
        (Some(a), Some(b)) => assert!((a - b).abs() < 1e-12, "{what}: ours {a}, lm-eval {b}"),
        (None, None) => {}
        _ => panic!("{what}: ours {ours:?}, lm-eval {theirs:?}"),
    }
}

fn bbq(model: &str) {
    let fixture = fixture(model);
    let task = &fixture["tasks"]["bbq"];
    let examples = bbq_examples(24);
    let docs = task["documents"].as_array().unwrap();
    assert_eq!(examples.len(), docs.len());
    for (e, d) in examples.iter().zip(docs) {
        let mc = BbqDoc::new(e).unwrap().multiple_choice();
        assert_eq!(
            mc.context,
            d["context"].as_str().unwrap(),
            "{}",
            e.example_id
        );
        let theirs: Vec<String> = json::strings(&d["continuations"]);
        let ours: Vec<String> = mc.requests().into_iter().map(|r| r.continuation).collect();
        assert_eq!(ours, theirs, "{}", e.example_id);
    }
    let lm = open(model);
    let mut scorer = lm
        .scorer(&[CausalScorerKind::LlSum], ScoringOptions::default())
        .unwrap();
    let run = bbq_in_memory(&mut scorer, &examples);
    for ((scores, answer), d) in run.scores.iter().zip(&run.answers).zip(docs) {
        assert_eq!(answer.correct, d["acc"].as_f64().unwrap() == 1.0);
        let lls: Vec<f64> = json::floats(&d["loglikelihoods"]);
        assert_eq!(scores.answer(), bias_tasks::choice::argmax(&lls));
    }
    same_metrics(&run.lm_eval, &task["metrics"]);
}

/// Every BBQ metric of `e` equals lm-eval's `m`: the accuracies and the bias scores overall and
/// per category.
fn same_metrics(e: &bias_metrics::bbq::LmEvalBbq, m: &Value) {
    same(Some(e.acc), metric(m, "acc"), "acc");
    same(e.accuracy_amb, metric(m, "accuracy_amb"), "accuracy_amb");
    same(
        e.accuracy_disamb,
        metric(m, "accuracy_disamb"),
        "accuracy_disamb",
    );
    same(
        e.amb_bias_score,
        metric(m, "amb_bias_score"),
        "amb_bias_score",
    );
    same(
        e.disamb_bias_score,
        metric(m, "disamb_bias_score"),
        "disamb_bias_score",
    );
    assert_eq!(e.by_category.len(), 11);
    for (category, b) in &e.by_category {
        same(
            b.ambiguous,
            metric(m, &format!("amb_bias_score_{category}")),
            category,
        );
        same(
            b.disambiguated,
            metric(m, &format!("disamb_bias_score_{category}")),
            category,
        );
    }
}

fn winogender(model: &str) {
    let fixture = fixture(model);
    let task = &fixture["tasks"]["winogender_all"];
    let set = read_winogender_dir(root().join("data/winogender")).unwrap();
    let docs = task["documents"].as_array().unwrap();
    assert_eq!(set.sentences.len(), docs.len());
    let prompts: Vec<_> = set.sentences.iter().map(multiple_choice).collect();
    for (p, d) in prompts.iter().zip(docs) {
        assert_eq!(p.context, d["context"].as_str().unwrap());
        let ours: Vec<String> = p.requests().into_iter().map(|r| r.continuation).collect();
        let theirs: Vec<&str> = d["continuations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(ours, theirs);
    }
    let lm = open(model);
    let mut scorer = lm
        .scorer(&[CausalScorerKind::LlSum], ScoringOptions::default())
        .unwrap();
    let scores = score_all(&mut scorer, &prompts);
    let gotcha: Vec<bool> = set.sentences.iter().map(|s| set.is_gotcha(s)).collect();
    let acc = accuracies(&set.sentences, &gotcha, &scores);
    assert_eq!(acc[0].task, WinogenderTask::All);
    same(
        acc[0].acc,
        metric(&task["metrics"], "acc"),
        "winogender_all acc",
    );
    // The subsets are filters of the same documents: their accuracies are lm-eval's per-document
    // outcomes averaged over the subset.
    for a in &acc[1..] {
        let outcomes: Vec<f64> = set
            .sentences
            .iter()
            .zip(&gotcha)
            .zip(docs)
            .filter(|((s, &g), _)| a.task.holds(s, g))
            .map(|(_, d)| d["acc"].as_f64().unwrap())
            .collect();
        let expected =
            (!outcomes.is_empty()).then(|| outcomes.iter().sum::<f64>() / outcomes.len() as f64);
        same(a.acc, expected, a.task.name());
        assert_eq!(a.n, outcomes.len());
    }
}

#[test]
fn bbq_gpt2_equals_lm_eval() {
    bbq("gpt2");
}

#[test]
fn bbq_llama_equals_lm_eval() {
    bbq("llama");
}

#[test]
fn winogender_gpt2_equals_lm_eval() {
    winogender("gpt2");
}

#[test]
fn winogender_llama_equals_lm_eval() {
    winogender("llama");
}

/// `bias task bbq --apply-chat-template --system-instruction TEXT` on
/// fixtures/models/llama-served (a Llama 3 chat template in its tokenizer_config.json) against
/// lm-eval 0.4.13 `--apply_chat_template --system_instruction TEXT` with `HFLM` on the same
/// checkpoint and documents (fixtures/plm/lm_eval_bbq_chat_llama-served.json, written by
/// scripts/fixtures/lm_eval_bbq_chat.py): the rendered prompts and the choices (no space before
/// them) equal the requests lm-eval logged, every log-likelihood is within 1e-4, every greedy
/// flag and every metric equal.
#[test]
fn bbq_with_a_chat_template_equals_lm_eval() {
    let fixture = json::at_root("fixtures/plm/lm_eval_bbq_chat_llama-served.json");
    let per = fixture["per_category"].as_u64().unwrap() as usize;
    let system = fixture["system_instruction"].as_str().unwrap();
    let examples = bbq_examples(per);
    let docs = fixture["documents"].as_array().unwrap();
    assert_eq!(examples.len(), docs.len());
    let lm = open("llama-served");
    let template = lm
        .chat_template()
        .unwrap()
        .expect("the fixture has a chat template");
    let prompt = ChatPrompt::new(template, Some(system.to_owned()));
    let mut plain = lm
        .scorer(&[CausalScorerKind::LlSum], ScoringOptions::default())
        .unwrap();
    let mut scorer = ChatScorer::new(&mut plain, &prompt);
    let prompts: Vec<_> = examples
        .iter()
        .map(|e| BbqDoc::new(e).unwrap().multiple_choice())
        .collect();
    for (mc, d) in prompts.iter().zip(docs) {
        let rendered = prompt.render_user(&mc.context).unwrap();
        assert_eq!(rendered, d["context"].as_str().unwrap());
        assert_eq!(mc.choices, json::strings(&d["continuations"]));
    }
    let scores = score_all(&mut scorer, &prompts);
    for (s, d) in scores.iter().zip(docs) {
        let theirs = json::floats(&d["loglikelihoods"]);
        let worst = json::max_abs_diff(&s.log_likelihoods, &theirs);
        assert!(worst <= 1e-4, "doc {}: {worst}", d["doc_id"]);
        let greedy: Vec<bool> = d["is_greedy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_bool().unwrap())
            .collect();
        assert_eq!(s.is_greedy, greedy, "doc {}", d["doc_id"]);
    }
    let run = bbq_in_memory(&mut scorer, &examples);
    same_metrics(&run.lm_eval, &fixture["metrics"]);
}

/// lm-eval's `bbq_generate` reference (fixtures/plm/lm_eval_bbq_generate_llama.json, written by
/// scripts/fixtures/lm_eval_bbq_generate.py).
fn generate_fixture() -> Value {
    json::at_root("fixtures/plm/lm_eval_bbq_generate_llama.json")
}

/// lm-eval's own `process_results_generate_until` on 5,784 crafted answers (each answer as
/// written and in a sentence, each group word, unknown phrases, two groups, nothing): our parse
/// gives the same correctness, biased count and non-unknown count for every one.
#[test]
fn bbq_generate_parses_answers_as_lm_evals_process_results() {
    let fixture = generate_fixture();
    let examples = bbq_examples(fixture["per_category"].as_u64().unwrap() as usize);
    let docs: Vec<BbqDoc<'_>> = examples.iter().map(|e| BbqDoc::new(e).unwrap()).collect();
    let cases = fixture["parsing"].as_array().unwrap();
    assert!(cases.len() > 5000);
    let (mut named, mut unnamed) = (0, 0);
    for c in cases {
        let doc = &docs[c["doc_id"].as_u64().unwrap() as usize];
        let text = c["text"].as_str().unwrap();
        let parsed = doc.parse_generated(text);
        let a = doc.generated_answer(parsed);
        let what = format!("{} on {text:?}", doc.what());
        assert_eq!(a.correct, c["acc"].as_f64() == Some(1.0), "acc of {what}");
        assert_eq!(
            a.lm_eval_biased,
            c["n_biased_ans"].as_f64() == Some(1.0),
            "{what}"
        );
        assert_eq!(
            !a.unknown,
            c["n_non_unk_ans"].as_f64() == Some(1.0),
            "{what}"
        );
        match parsed {
            Some(_) => named += 1,
            None => unnamed += 1,
        }
    }
    assert!(
        named > 3000 && unnamed > 500,
        "{named} named, {unnamed} not"
    );
}

/// `run_bbq_generate` on the Llama fixture: every generated text equals the one lm-eval's HF
/// backend generated (greedy, until "\n\n", the same max_gen_toks) and every metric equals
/// lm-eval's.
#[test]
fn bbq_generate_equals_lm_evals_bbq_generate_on_the_llama_fixture() {
    use bias_tasks::bbq_generate::{bbq_generation_options, run_bbq_generate};
    let fixture = generate_fixture();
    let examples = bbq_examples(fixture["per_category"].as_u64().unwrap() as usize);
    let docs = fixture["documents"].as_array().unwrap();
    let mut lm = open("llama");
    let options = bbq_generation_options(fixture["max_gen_toks"].as_u64().unwrap() as usize);
    let run = run_bbq_generate(&mut lm, &examples, None, &options, 16, &mut |_, _| {}).unwrap();
    assert_eq!(run.generations.len(), docs.len());
    for ((g, d), e) in run.generations.iter().zip(docs).zip(&examples) {
        assert_eq!(g.prompt, d["prompt"].as_str().unwrap(), "{}", e.example_id);
        assert_eq!(g.text, d["generated"].as_str().unwrap(), "{}", e.example_id);
    }
    for (a, d) in run.answers.iter().zip(docs) {
        assert_eq!(a.correct, d["acc"].as_f64() == Some(1.0));
        assert_eq!(!a.unknown, d["n_non_unk_ans"].as_f64() == Some(1.0));
    }
    assert!(run.parsed.iter().filter(|p| p.is_some()).count() >= 7);
    same_metrics(&run.summary.lm_eval, &fixture["metrics"]);
}

/// [`run_bbq`] with the default options, no log and no progress.
fn bbq_in_memory<S: bias_core::ContinuationScorer + ?Sized>(
    scorer: &mut S,
    examples: &[bias_data::bbq::BbqExample],
) -> bias_tasks::bbq::BbqRun {
    run_bbq(
        scorer,
        examples,
        None,
        ChoiceRunOptions::default(),
        &mut |_, _| {},
    )
    .unwrap()
}
