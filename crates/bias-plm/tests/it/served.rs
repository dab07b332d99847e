//! A served causal LM ([`CausalLm::serve`]) against a stand-in OpenAI-compatible server on
//! 127.0.0.1 (`bias_testkit::standin`), whose log-probabilities are a hand formula
//! ([`fake_logprob`]): the scores equal that formula on the ids the tokenizer gives, every
//! sentence is asked for once, and under injected faults (429, 500, a cut connection, a reply
//! cut short, a slow reply) a run either equals a clean one byte for byte or stops with an error
//! naming the request, keeping what it had written (a rerun resumes to the clean bytes). The
//! same client against a real vLLM is `make served-test` (scripts/served_test.sh).

use std::path::Path;
use std::time::Duration;

use bias_core::run::{run_scoring, RunSummary};
use bias_core::{PairOutcome, SentencePair};
use bias_plm::{CausalLm, CausalScorerKind, PlmError, ScoringOptions, ServedOptions};
use bias_testkit::standin::{fake_is_top, fake_logprob, Fault, StandIn};
use bias_testkit::{root, scratch};

const KINDS: [CausalScorerKind; 2] = [CausalScorerKind::LlSum, CausalScorerKind::LlMean];

/// The first `n` CrowS-Pairs pairs.
fn crows(n: usize) -> Vec<SentencePair> {
    let mut pairs = crate::support::pairs_in_order("crows-pairs/crows_pairs_anonymized.csv");
    pairs.truncate(n);
    pairs
}

fn options() -> ServedOptions {
    let mut o = ServedOptions::new(root().join("fixtures/models/llama"));
    o.prompts_per_request = 4;
    o.max_in_flight = 3;
    o.timeout = Duration::from_millis(800);
    o.retries = 3;
    o.backoff = Duration::from_millis(10);
    o
}

fn serve(servers: &[&StandIn], o: &ServedOptions) -> Result<CausalLm, PlmError> {
    let urls: Vec<String> = servers.iter().map(|s| s.url.clone()).collect();
    CausalLm::serve(&urls, o)
}

/// Scores `pairs` into `out` (resumable, 4 pairs a chunk).
fn score(lm: &CausalLm, pairs: &[SentencePair], out: &Path) -> Result<RunSummary, String> {
    let mut scorer = lm.scorer(&KINDS, ScoringOptions::default()).unwrap();
    let fingerprint = bias_core::run::RunFingerprint::new(
        lm.name(),
        lm.digest().unwrap(),
        "crows-pairs",
        pairs,
        &scorer,
        4,
    );
    run_scoring(&mut scorer, pairs, fingerprint, out, &mut |_, _| {}).map_err(|e| {
        let mut text = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            text += &format!(": {s}");
            source = s.source();
        }
        text
    })
}

#[test]
fn served_scores_are_the_servers_log_probabilities_on_the_tokenizers_ids() {
    let server = StandIn::start("org/tiny-llama", 256, vec![]);
    let lm = serve(&[&server], &options()).unwrap();
    assert_eq!(lm.name(), "tiny-llama");
    assert_eq!(lm.model_type(), "served");
    let pairs = crows(10);
    let mut scorer = lm.scorer(&KINDS, ScoringOptions::default()).unwrap();
    let outcomes = bias_core::PairScorer::score_pairs(&mut scorer, &pairs).unwrap();
    for (pair, outcome) in pairs.iter().zip(&outcomes) {
        let PairOutcome::Scored { scores, .. } = outcome else {
            panic!("{}: {outcome:?}", pair.id)
        };
        for (text, side) in [(&pair.stereo, 0), (&pair.anti, 1)] {
            // <s> then the sentence: every token after the first scored, by the hand formula.
            let ids = lm.encode(text).unwrap();
            assert_eq!(ids[0], 1, "the llama fixture's <s>");
            let lps: Vec<f64> = (1..ids.len())
                .map(|i| fake_logprob(ids[i - 1], ids[i], i))
                .collect();
            let sum: f64 = lps.iter().sum();
            let hits = ids[1..].iter().filter(|&&t| fake_is_top(t)).count();
            let s = if side == 0 {
                &scores[0].stereo
            } else {
                &scores[0].anti
            };
            assert_eq!(s.score, sum, "{} ll-sum", pair.id);
            assert_eq!(s.scored_tokens, ids.len() - 1);
            assert_eq!(s.correct_predictions, Some(hits));
            let m = if side == 0 {
                &scores[1].stereo
            } else {
                &scores[1].anti
            };
            assert_eq!(m.score, sum / lps.len() as f64, "{} ll-mean", pair.id);
        }
    }
    // Every distinct sentence asked for once: 20 sentences, 4 prompts a request.
    let answered = server.answered.lock().unwrap().clone();
    assert_eq!(answered.len(), 20);
    assert_eq!(
        server.completions.load(std::sync::atomic::Ordering::SeqCst),
        5
    );
}

#[test]
fn transient_faults_are_retried_and_the_table_equals_a_clean_run() {
    let pairs = crows(24);
    let dir = scratch("served-faults");
    let clean_server = StandIn::start("m", 256, vec![]);
    let clean = dir.join("clean.csv");
    score(
        &serve(&[&clean_server], &options()).unwrap(),
        &pairs,
        &clean,
    )
    .unwrap();
    let clean_requests = clean_server
        .completions
        .load(std::sync::atomic::Ordering::SeqCst);

    let slow = Fault::Slow(Duration::from_millis(1500));
    let faults = vec![
        Some(Fault::TooMany),
        Some(Fault::ServerError),
        None,
        Some(Fault::Cut),
        Some(Fault::Truncated),
        Some(slow),
        None,
        Some(Fault::ServerError),
    ];
    let (a, b) = (
        StandIn::start("m", 256, faults.clone()),
        StandIn::start("m", 256, faults),
    );
    let faulty = dir.join("faulty.csv");
    // Enough retries for one request to meet every fault of both replicas in a row.
    let mut patient = options();
    patient.retries = 12;
    score(&serve(&[&a, &b], &patient).unwrap(), &pairs, &faulty).unwrap();
    assert_eq!(
        std::fs::read(&faulty).unwrap(),
        std::fs::read(&clean).unwrap()
    );
    // Round-robin: both replicas answered; no prompt answered twice.
    let (na, nb) = (
        a.answered.lock().unwrap().len(),
        b.answered.lock().unwrap().len(),
    );
    assert!(na > 0 && nb > 0, "{na} {nb}");
    assert_eq!(
        na + nb,
        clean_server.answered.lock().unwrap().len(),
        "{clean_requests}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_request_that_keeps_failing_stops_the_run_naming_it_and_a_rerun_resumes() {
    let pairs = crows(24);
    let dir = scratch("served-stop");
    let clean = dir.join("clean.csv");
    score(
        &serve(&[&StandIn::start("m", 256, vec![])], &options()).unwrap(),
        &pairs,
        &clean,
    )
    .unwrap();
    // Chunks of 4 pairs are 2 requests of 4 prompts; the 3rd chunk's first request fails 4
    // times (1 try + 3 retries).
    let mut faults = vec![None; 4];
    faults.extend([Some(Fault::ServerError); 4]);
    let server = StandIn::start("m", 256, faults);
    let out = dir.join("stopped.csv");
    // One request at a time, so that the failing one meets all four faults.
    let mut one = options();
    one.max_in_flight = 1;
    let err = score(&serve(&[&server], &one).unwrap(), &pairs, &out).unwrap_err();
    assert!(
        err.contains("POST /completions (prompts 1–4 of 8)")
            && err.contains("HTTP 500")
            && err.contains("gave up after 4 attempts"),
        "{err}"
    );
    // The two chunks before it are kept; a rerun against a healthy server resumes from them.
    let healthy = StandIn::start("m", 256, vec![]);
    let summary = score(&serve(&[&healthy], &options()).unwrap(), &pairs, &out).unwrap();
    assert_eq!(summary.resumed_from, 8);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&clean).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_server_that_does_not_echo_log_probabilities_is_refused_with_what_to_do() {
    let server = StandIn::start("m", 256, vec![Some(Fault::NoLogprobs)]);
    let mut one = options();
    one.max_in_flight = 1;
    let lm = serve(&[&server], &one).unwrap();
    let dir = scratch("served-nologprobs");
    let err = score(&lm, &crows(4), &dir.join("t.csv")).unwrap_err();
    assert!(
        err.contains("cannot echo a prompt's log-probabilities")
            && err.contains("prompts 1–4 of 8"),
        "{err}"
    );
    // Not retried: another try would fail the same way.
    assert_eq!(
        server.completions.load(std::sync::atomic::Ordering::SeqCst),
        1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_served_model_is_checked_on_connecting() {
    let server = StandIn::start("org/a", 256, vec![]);
    let mut o = options();
    o.served_name = Some("org/b".into());
    let err = serve(&[&server], &o).unwrap_err().to_string();
    assert!(
        err.contains("serves no model org/b (it serves: org/a)"),
        "{err}"
    );
    let other = StandIn::start("org/c", 256, vec![]);
    let err = serve(&[&server, &other], &options())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("every --model endpoint must serve the same model"),
        "{err}"
    );
    let nobody = "http://127.0.0.1:9/v1".to_owned();
    let mut quick = options();
    quick.retries = 0;
    let err = CausalLm::serve(&[nobody], &quick).unwrap_err().to_string();
    assert!(err.contains("GET http://127.0.0.1:9/v1/models"), "{err}");
}

/// lm-evaluation-harness's `loglikelihood` requests through the server: the continuation's
/// tokens after the context's, by the hand formula, greedy where every one is the server's
/// top-1 (what `bias task` reads).
#[test]
fn continuations_are_scored_after_their_context() {
    use bias_core::{Continuation, ContinuationScorer};
    let server = StandIn::start("m", 256, vec![]);
    let lm = serve(&[&server], &options()).unwrap();
    let mut scorer = lm
        .scorer(&[CausalScorerKind::LlSum], ScoringOptions::default())
        .unwrap();
    let requests = [
        Continuation::new("The nurse said that", " she was tired."),
        Continuation::new("Question: who? Answer:", " the doctor"),
        Continuation::new("", "An empty context."),
    ];
    let scores = scorer.score_continuations(&requests).unwrap();
    for (r, s) in requests.iter().zip(&scores) {
        let e = scorer.encode_continuation(r).unwrap();
        let ids: Vec<i64> = e.context.iter().chain(&e.continuation).copied().collect();
        let first = e.context.len();
        let expected: f64 = (first..ids.len())
            .map(|t| fake_logprob(ids[t - 1], ids[t], t))
            .sum();
        assert_eq!(s.log_likelihood, expected, "{r:?}");
        assert_eq!(s.tokens, e.continuation.len());
        assert_eq!(s.is_greedy, ids[first..].iter().all(|&t| fake_is_top(t)));
    }
}

/// The request log: a run stopped inside a chunk keeps the answers it had (its last chunk is
/// not in the table), and the rerun asks the server only for the rest and writes the clean
/// bytes; a line cut short by a kill is dropped; a log of another model is refused.
#[test]
fn the_request_log_saves_every_answer_for_the_rerun() {
    let pairs = crows(8);
    let dir = scratch("served-log");
    let clean = dir.join("clean.csv");
    let reference = StandIn::start("m", 256, vec![]);
    score(&serve(&[&reference], &options()).unwrap(), &pairs, &clean).unwrap();
    let prompts = reference.answered.lock().unwrap().len();

    // The first chunk's first request is answered, its second fails four times.
    let mut one = options();
    one.max_in_flight = 1;
    let faulty = StandIn::start(
        "m",
        256,
        vec![
            None,
            Some(Fault::ServerError),
            Some(Fault::ServerError),
            Some(Fault::ServerError),
            Some(Fault::ServerError),
        ],
    );
    let (out, log) = (dir.join("t.csv"), dir.join("t.requests.jsonl"));
    let mut lm = serve(&[&faulty], &one).unwrap();
    assert_eq!(lm.log_requests(&log).unwrap(), Some(0));
    score(&lm, &pairs, &out).unwrap_err();
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().lines().count(),
        1 + 4
    );

    // A kill cut the last line short: dropped, its prompts asked again.
    let mut text = std::fs::read_to_string(&log).unwrap();
    text += "{\"prompt\":\"ab";
    std::fs::write(&log, text).unwrap();
    let healthy = StandIn::start("m", 256, vec![]);
    let mut lm = serve(&[&healthy], &options()).unwrap();
    assert_eq!(lm.log_requests(&log).unwrap(), Some(4));
    score(&lm, &pairs, &out).unwrap();
    assert_eq!(
        healthy.answered.lock().unwrap().len(),
        prompts - 4,
        "only what the log lacked"
    );
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&clean).unwrap());

    // Scored again from scratch with the whole log: the server is not asked at all.
    std::fs::remove_file(&out).unwrap();
    std::fs::remove_file(dir.join("t.csv.progress.json")).unwrap();
    let idle = StandIn::start("m", 256, vec![]);
    let mut lm = serve(&[&idle], &options()).unwrap();
    assert_eq!(lm.log_requests(&log).unwrap(), Some(prompts));
    score(&lm, &pairs, &out).unwrap();
    assert_eq!(
        idle.completions.load(std::sync::atomic::Ordering::SeqCst),
        0
    );
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&clean).unwrap());

    let other = StandIn::start("other", 256, vec![]);
    let err = serve(&[&other], &options())
        .unwrap()
        .log_requests(&log)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("it logs the served model m, not other"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Generation through `POST /completions` with `return_token_ids`: each prompt's ids are the
/// stand-in's formula ([`fake_generation`]) on the prompt's ids, an EOS stop is told from a
/// stop string's, the text is decoded here (and cut at a stop string), and the prompts are
/// spread over requests of `prompts_per_request`, in order, through a 500 that is retried.
#[test]
fn served_generation_is_the_servers_tokens_in_prompt_order_through_faults() {
    use bias_core::{Finish, GenerationOptions};
    use bias_testkit::standin::{fake_generation, FAKE_EOS};
    let server = StandIn::start("m", 256, vec![None, Some(Fault::ServerError)]);
    let lm = serve(&[&server], &options()).unwrap();
    assert_eq!(lm.eos_token_ids(), [FAKE_EOS]);
    let prompts: Vec<String> = crows(9).iter().map(|p| p.stereo.clone()).collect();
    let asked: Vec<&str> = prompts.iter().map(String::as_str).collect();
    let options = GenerationOptions {
        max_new_tokens: 30,
        stop: Vec::new(),
    };
    let got = lm.generate_batch(&asked, &options).unwrap();
    assert_eq!(
        server.completions.load(std::sync::atomic::Ordering::SeqCst),
        4
    );
    let mut finishes = Vec::new();
    for (g, p) in got.iter().zip(&prompts) {
        let ids = fake_generation(&lm.encode_prompt(p).unwrap(), 30);
        assert_eq!(g.token_ids, ids, "{p}");
        assert_eq!(g.prompt, *p);
        assert_eq!(g.text, lm.tokenizer().decode(&ids, true).unwrap());
        let want = if ids.last() == Some(&FAKE_EOS) {
            Finish::Eos
        } else {
            Finish::Length
        };
        assert_eq!(g.finish, want);
        finishes.push(g.finish);
    }
    assert!(finishes.contains(&Finish::Eos) && finishes.contains(&Finish::Length));

    // A stop string is sent, and the text cut before it here too.
    let g = &got[0];
    let stop = lm.tokenizer().decode(&g.token_ids[2..4], true).unwrap();
    let options = GenerationOptions {
        max_new_tokens: 30,
        stop: vec![stop.clone()],
    };
    let cut = lm.generate(&prompts[0], &options).unwrap();
    let at = g.text.find(&stop).unwrap();
    assert_eq!(cut.text, g.text[..at]);
}

/// The server's chat template through `POST /chat/completions` ([`bias_plm::ServerChat`]): each
/// prompt goes as the user's turn after the system instruction, the tokens are the server's, the
/// text is decoded here; a local model is refused.
#[test]
fn a_chat_on_the_server_sends_the_turns_and_reads_the_tokens() {
    use bias_core::{GenerationOptions, TextGenerator};
    use bias_testkit::standin::{fake_chat_ids, fake_generation};
    let server = StandIn::start("m", 256, vec![]);
    let lm = serve(&[&server], &options()).unwrap();
    let mut chat = bias_plm::ServerChat::new(&lm, Some("Be brief.".into()));
    let options = GenerationOptions {
        max_new_tokens: 12,
        stop: Vec::new(),
    };
    let prompts = ["Who was late?", "Who is a nurse?", "Q"];
    let got = chat.generate_until(&prompts, &options).unwrap();
    for (g, p) in got.iter().zip(prompts) {
        let turns = [
            ("system".to_owned(), "Be brief.".to_owned()),
            ("user".to_owned(), p.to_owned()),
        ];
        let ids = fake_generation(&fake_chat_ids(&turns), 12);
        assert_eq!((g.prompt.as_str(), &g.token_ids), (p, &ids));
        assert_eq!(g.text, lm.tokenizer().decode(&ids, true).unwrap());
    }
    let local = crate::support::open_causal("llama");
    let e = bias_plm::ServerChat::new(&local, None)
        .generate_until(&prompts, &options)
        .unwrap_err();
    assert!(e.to_string().contains("local model"), "{e}");
}
