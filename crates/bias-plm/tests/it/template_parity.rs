//! TBS and the he/she probe (`bias_plm::template`) against `transformers`
//! (fixtures/plm/template_scores.json, written by scripts/fixtures/template_scores.py): every
//! a_target, a_prior, score, TBS mean and probe probability of every case on the four tiny
//! checkpoints, batched (padding included) and one sentence per forward pass; the tokens the
//! words were read as; and the errors for words that are not single tokens.

use approx::assert_abs_diff_eq;

use bias_plm::template::{gender_probe, template_based_score, ProbeOptions, TbsOptions, Template};
use bias_plm::{BatchOptions, DeviceSpec, PlmModel, PlmTokenizer};
use bias_testkit::json::strings;
use serde_json::Value;
use tch::{Device, Kind};

const TOL: f64 = 1e-4;

use bias_testkit::root;

fn fixture() -> Value {
    let path = root().join("fixtures/plm/template_scores.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn load(arch: &str) -> (PlmModel, PlmTokenizer) {
    let dir = root().join("fixtures/models").join(arch);
    let model = PlmModel::load(&dir, DeviceSpec::Cpu, Kind::Float).unwrap();
    (model, PlmTokenizer::from_dir(&dir).unwrap())
}

/// Largest absolute difference seen, for the report.
#[derive(Default)]
struct MaxDiff(f64);

impl MaxDiff {
    fn check(&mut self, what: &str, got: f64, want: &Value) {
        let want = want
            .as_f64()
            .unwrap_or_else(|| panic!("{what}: no reference"));
        let d = (got - want).abs();
        assert!(d <= TOL, "{what}: rust {got} vs transformers {want}");
        self.0 = self.0.max(d);
    }
}

fn check_case(
    arch: &str,
    model: &PlmModel,
    tok: &PlmTokenizer,
    case: &Value,
    batch: BatchOptions,
    max: &mut MaxDiff,
) {
    let name = format!("{arch}/{}", case["name"].as_str().unwrap());
    let template = Template::new(case["template"].as_str().unwrap()).unwrap();
    let targets: Vec<String> = case["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["target"].as_str().unwrap().to_owned())
        .collect();
    let options = TbsOptions {
        male: strings(&case["male"]),
        female: strings(&case["female"]),
        template: template.clone(),
        batch,
    };
    let tbs = template_based_score(model, tok, Device::Cpu, &targets, &options).unwrap();
    assert_eq!(tbs.male_tokens, strings(&case["male_tokens"]), "{name}");
    assert_eq!(tbs.female_tokens, strings(&case["female_tokens"]), "{name}");
    assert_eq!(tbs.sentences().len(), 2 * targets.len());
    for (row, want) in tbs.rows.iter().zip(case["rows"].as_array().unwrap()) {
        let what = format!("{name} {}", row.target);
        let positions = want["target_positions"].as_array().unwrap().len();
        assert_eq!(row.target_tokens, positions, "{what}");
        max.check(&format!("{what} a_target"), row.a_target, &want["a_target"]);
        max.check(&format!("{what} a_prior"), row.a_prior, &want["a_prior"]);
        max.check(&format!("{what} score"), row.score, &want["score"]);
    }
    max.check(&format!("{name} TBS"), tbs.mean, &case["tbs"]);

    let probe_options = ProbeOptions {
        words: strings(&case["probe"]),
        template,
        batch,
    };
    let probe = gender_probe(model, tok, Device::Cpu, &targets, &probe_options).unwrap();
    assert_eq!(probe.tokens, strings(&case["probe_tokens"]), "{name}");
    for (row, want) in probe.rows.iter().zip(case["rows"].as_array().unwrap()) {
        for (k, p) in row.probabilities.iter().enumerate() {
            let what = format!("{name} {} P({})", row.target, probe.words[k]);
            max.check(&what, *p, &want["probe"][k]);
        }
    }
    for (k, m) in probe.means.iter().enumerate() {
        max.check(&format!("{name} mean P"), *m, &case["probe_means"][k]);
    }
}

#[test]
fn tbs_and_probe_match_transformers() {
    let fixture = fixture();
    let mut max = MaxDiff::default();
    for (arch, entry) in fixture["models"].as_object().unwrap() {
        let (model, tok) = load(arch);
        for case in entry["cases"].as_array().unwrap() {
            // Batched (sentences of different lengths padded together) and one per pass.
            for batch in [
                BatchOptions::default(),
                BatchOptions {
                    max_batch: 1,
                    max_tokens: 4096,
                },
            ] {
                check_case(arch, &model, &tok, case, batch, &mut max);
            }
        }
    }
    eprintln!("max |rust - transformers| = {:e}", max.0);
}

#[test]
fn sentences_show_masks() {
    let (model, tok) = load("bert");
    let targets = ["civil servant".to_string(), "engineer".to_string()];
    let tbs =
        template_based_score(&model, &tok, Device::Cpu, &targets, &TbsOptions::default()).unwrap();
    assert_eq!(tbs.rows[0].sentence, "[MASK] is a civil servant.");
    assert_eq!(tbs.rows[0].prior_sentence, "[MASK] is a [MASK] [MASK].");
    assert_eq!(tbs.rows[1].sentence, "[MASK] is an engineer.");
    assert_eq!(tbs.rows[1].prior_sentence, "[MASK] is an [MASK].");
    let mean = (tbs.rows[0].score + tbs.rows[1].score) / 2.0;
    assert_abs_diff_eq!(tbs.mean, mean, epsilon = 1e-12);
    let (model, tok) = load("roberta");
    let tbs =
        template_based_score(&model, &tok, Device::Cpu, &targets, &TbsOptions::default()).unwrap();
    assert_eq!(tbs.rows[1].sentence, "<mask> is an engineer.");
    assert_eq!(tbs.male_tokens, ["He"]);
}

fn err_of(arch: &str, options: &TbsOptions, targets: &[&str]) -> String {
    let (model, tok) = load(arch);
    let targets: Vec<String> = targets.iter().map(|s| s.to_string()).collect();
    template_based_score(&model, &tok, Device::Cpu, &targets, options)
        .unwrap_err()
        .to_string()
}

#[test]
fn word_errors_name_the_word() {
    let multi = TbsOptions {
        male: vec!["he".into(), "epidemiologist".into()],
        ..TbsOptions::default()
    };
    let msg = err_of("bert", &multi, &["writer"]);
    assert!(msg.contains("\"epidemiologist\""), "{msg}");
    assert!(msg.contains("not a single token"), "{msg}");
    assert!(msg.contains("##"), "shows the pieces: {msg}");

    // Uncased BERT reads "He" and "he" as one token: counted twice, refused.
    let twice = TbsOptions {
        male: vec!["he".into(), "He".into()],
        ..TbsOptions::default()
    };
    let msg = err_of("bert", &twice, &["writer"]);
    assert!(msg.contains("both read as the token \"he\""), "{msg}");
    let both = TbsOptions {
        male: vec!["she".into()],
        ..TbsOptions::default()
    };
    assert!(err_of("bert", &both, &["writer"]).contains("both read as"));

    let none = TbsOptions {
        female: vec![],
        ..TbsOptions::default()
    };
    assert!(err_of("bert", &none, &["writer"]).contains("no female words"));
    assert!(err_of("bert", &TbsOptions::default(), &[]).contains("no targets"));
    assert!(err_of("bert", &TbsOptions::default(), &["  "]).contains("empty target"));
    let blank = TbsOptions {
        male: vec![" ".into()],
        ..TbsOptions::default()
    };
    assert!(err_of("bert", &blank, &["writer"]).contains("empty gender word"));
}

#[test]
fn probe_defaults_and_errors() {
    let (model, tok) = load("distilbert");
    let targets = ["writer".to_string(), "musician".to_string()];
    let probe = gender_probe(
        &model,
        &tok,
        Device::Cpu,
        &targets,
        &ProbeOptions::default(),
    )
    .unwrap();
    assert_eq!(probe.words, ["he", "she"]);
    assert_eq!(probe.tokens, ["he", "she"]);
    assert_eq!(probe.rows[1].sentence, "[MASK] is a musician.");
    for k in 0..2 {
        let mean = (probe.rows[0].probabilities[k] + probe.rows[1].probabilities[k]) / 2.0;
        assert_abs_diff_eq!(probe.means[k], mean, epsilon = 1e-15);
        assert!(probe
            .rows
            .iter()
            .all(|r| (0.0..=1.0).contains(&r.probabilities[k])));
    }
    let bad = ProbeOptions {
        words: vec!["he".into(), "she is".into()],
        ..ProbeOptions::default()
    };
    let msg = gender_probe(&model, &tok, Device::Cpu, &targets, &bad)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("\"she is\""), "{msg}");
    let empty = ProbeOptions {
        words: vec![],
        ..ProbeOptions::default()
    };
    let msg = gender_probe(&model, &tok, Device::Cpu, &targets, &empty)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("no probe words"), "{msg}");
}
