//! Hostile model folders: property tests that copy a fixture checkpoint (the tiny BERT and
//! Qwen2 of `fixtures/models`), break one thing in it — a `config.json` value or its type, a
//! part of `tokenizer.json`, the safetensors header's length prefix, one tensor's dtype, shape or
//! data offsets, or the file's length — and open and score it. Whatever the damage, the result
//! must be a clean error (`PlmError`, or the run's `NonFinite` refusal for weights that became
//! NaN) or a table of finite scores: never a panic, a crash inside libtorch, or an allocation
//! sized by a header (which would abort the process, failing the test binary).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use bias_core::run::score_to_table;
use bias_core::{BiasType, Direction, SentencePair};
use bias_plm::{DeviceSpec, LanguageModel, ScoringOptions};
use bias_testkit::json::read as read_json;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tch::Kind;

const ARCHS: [&str; 2] = ["bert", "qwen2"];

use bias_testkit::root;

use crate::support::CAUSAL_FAMILIES;

/// A fresh copy of the fixture folder `arch`.
fn copy(arch: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "bias-plm-hostile-{}-{n}-{arch}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(root().join("fixtures/models").join(arch)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    dir
}

fn pairs() -> Vec<SentencePair> {
    [
        ("a", "The poor are lazy.", "The rich are lazy."),
        ("b", "She is bad at math.", "He is bad at math."),
    ]
    .into_iter()
    .map(|(id, s, a)| SentencePair {
        id: id.into(),
        stereo: s.into(),
        anti: a.into(),
        bias_type: BiasType::Other("test".into()),
        direction: Direction::Stereo,
        group_id: None,
    })
    .collect()
}

/// Opens and scores the folder: `Ok` with a finite table, or the error's message. Panics are
/// what the properties forbid, so they are not caught.
fn exercise(dir: &Path) -> Result<(), String> {
    let lm = LanguageModel::open(dir, DeviceSpec::Cpu, Kind::Float).map_err(|e| e.to_string())?;
    let scorers = lm.default_scorers();
    let mut scorer = lm
        .scorer(&scorers, ScoringOptions::default())
        .map_err(|e| e.to_string())?;
    let (table, _) =
        score_to_table(&mut *scorer, &pairs(), "hostile", "m").map_err(|e| e.to_string())?;
    for row in table.rows() {
        assert!(
            row.score_stereo.is_finite() && row.score_anti.is_finite(),
            "a non-finite score passed the run's check: {row:?}"
        );
    }
    Ok(())
}

/// Runs `exercise` and removes the copy; an error must say something.
fn check(dir: PathBuf) {
    let result = exercise(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(message) = result {
        assert!(!message.trim().is_empty());
    }
}

/// A JSON value of any type, with the integers a hostile file would hold.
fn hostile_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(1_i64 << 40)),
        Just(json!(i64::MAX)),
        Just(json!(u64::MAX)),
        (-1000i64..1000).prop_map(|v| json!(v)),
        (-1e6f64..1e6).prop_map(|v| json!(v)),
        Just(json!(1e300)),
        Just(json!("x")),
        Just(json!(true)),
        Just(json!([1, 2])),
        Just(json!({"a": 1})),
    ]
}

/// The safetensors file split into its header (as JSON) and its data.
fn read_safetensors(path: &Path) -> (Map<String, Value>, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: Map<String, Value> = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    (header, bytes[8 + n..].to_vec())
}

fn write_safetensors(path: &Path, header: &Map<String, Value>, data: &[u8]) {
    let text = serde_json::to_vec(header).unwrap();
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend(text);
    out.extend(data);
    std::fs::write(path, out).unwrap();
}

/// One way to damage a safetensors header entry.
#[derive(Debug, Clone)]
enum TensorDamage {
    Dtype(&'static str),
    Shape(Vec<u64>),
    Offsets(u64, u64),
    ShiftEnd(i64),
}

fn tensor_damage() -> impl Strategy<Value = TensorDamage> {
    prop_oneof![
        prop::sample::select(vec![
            "F16", "BF16", "F64", "I64", "I32", "I8", "U8", "BOOL", "X"
        ])
        .prop_map(TensorDamage::Dtype),
        prop::collection::vec(
            prop_oneof![
                Just(0u64),
                1u64..64,
                Just(1 << 31),
                Just(1 << 40),
                Just(u64::MAX)
            ],
            0..4
        )
        .prop_map(TensorDamage::Shape),
        (any::<u64>(), any::<u64>()).prop_map(|(a, b)| TensorDamage::Offsets(a, b)),
        (-64i64..64).prop_map(TensorDamage::ShiftEnd),
    ]
}

fn damage_tensor(entry: &mut Value, damage: &TensorDamage) {
    match damage {
        TensorDamage::Dtype(d) => entry["dtype"] = json!(d),
        TensorDamage::Shape(s) => entry["shape"] = json!(s),
        TensorDamage::Offsets(a, b) => entry["data_offsets"] = json!([a, b]),
        TensorDamage::ShiftEnd(by) => {
            let end = entry["data_offsets"][1].as_u64().unwrap();
            entry["data_offsets"][1] = json!(end.saturating_add_signed(*by));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// One `config.json` key set to a value of any type or size, or removed.
    #[test]
    fn config_values_and_types(arch in prop::sample::select(ARCHS.to_vec()),
                               key in any::<prop::sample::Index>(),
                               value in prop::option::of(hostile_value())) {
        let dir = copy(arch);
        let path = dir.join("config.json");
        let mut config = read_json(&path);
        let map = config.as_object_mut().unwrap();
        let keys: Vec<String> = map.keys().cloned().collect();
        let k = key.get(&keys).clone();
        match value {
            Some(v) => { map.insert(k, v); }
            None => { map.remove(&k); }
        }
        std::fs::write(&path, serde_json::to_string(&config).unwrap()).unwrap();
        check(dir);
    }

    /// `tokenizer.json` cut short, one top-level part replaced, or one vocabulary id moved.
    #[test]
    fn tokenizer_parts(arch in prop::sample::select(ARCHS.to_vec()),
                       cut in prop::option::of(0.0f64..1.0),
                       key in any::<prop::sample::Index>(),
                       value in hostile_value(),
                       id in prop_oneof![Just(-1i64), Just(1 << 40), 0i64..5000]) {
        let dir = copy(arch);
        let path = dir.join("tokenizer.json");
        if let Some(cut) = cut {
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..(bytes.len() as f64 * cut) as usize]).unwrap();
        } else {
            let mut tok = read_json(&path);
            let keys: Vec<String> = tok.as_object().unwrap().keys().cloned().collect();
            let k = key.get(&keys).clone();
            if k == "model" {
                // Move one vocabulary entry to another id.
                if let Some(vocab) = tok["model"]["vocab"].as_object_mut() {
                    let words: Vec<String> = vocab.keys().cloned().collect();
                    let w = key.get(&words).clone();
                    vocab.insert(w, json!(id));
                }
            } else {
                tok[k.as_str()] = value;
            }
            std::fs::write(&path, serde_json::to_string(&tok).unwrap()).unwrap();
        }
        check(dir);
    }

    /// One safetensors tensor's dtype, shape or data offsets damaged.
    #[test]
    fn safetensors_tensor_entries(arch in prop::sample::select(ARCHS.to_vec()),
                                  which in any::<prop::sample::Index>(),
                                  damage in tensor_damage()) {
        let dir = copy(arch);
        let path = dir.join("model.safetensors");
        let (mut header, data) = read_safetensors(&path);
        let names: Vec<String> =
            header.keys().filter(|k| *k != "__metadata__").cloned().collect();
        let name = which.get(&names).clone();
        damage_tensor(header.get_mut(&name).unwrap(), &damage);
        write_safetensors(&path, &header, &data);
        check(dir);
    }

    /// The header's length prefix replaced, or the file cut short.
    #[test]
    fn safetensors_lengths(arch in prop::sample::select(ARCHS.to_vec()),
                           prefix in prop::option::of(prop_oneof![
                               Just(0u64), 1u64..4096, Just(u64::MAX), Just(1 << 40), any::<u64>()]),
                           cut in 0.0f64..1.0) {
        let dir = copy(arch);
        let path = dir.join("model.safetensors");
        let mut bytes = std::fs::read(&path).unwrap();
        match prefix {
            Some(p) => bytes[..8].copy_from_slice(&p.to_le_bytes()),
            None => bytes.truncate((bytes.len() as f64 * cut) as usize),
        }
        std::fs::write(&path, bytes).unwrap();
        check(dir);
    }
}

/// The values a random search may miss, on every key of the configurations of each masked and
/// causal family with its own configuration code: each integer that sizes something (layers,
/// heads, widths, positions, windows) set to 2⁴⁰, −1, 0 and 2⁶⁴ − 1.
#[test]
fn every_config_key_at_extreme_integers() {
    for arch in ["bert", "albert", "deberta-v2", "modernbert", "mpnet"]
        .into_iter()
        .chain(CAUSAL_FAMILIES)
    {
        let keys: Vec<String> = read_json(
            &root()
                .join("fixtures/models")
                .join(arch)
                .join("config.json"),
        )
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
        for key in keys {
            for value in [json!(1_i64 << 40), json!(-1), json!(0), json!(u64::MAX)] {
                let dir = copy(arch);
                let path = dir.join("config.json");
                let mut config = read_json(&path);
                config[key.as_str()] = value;
                std::fs::write(&path, serde_json::to_string(&config).unwrap()).unwrap();
                check(dir);
            }
        }
    }
}
