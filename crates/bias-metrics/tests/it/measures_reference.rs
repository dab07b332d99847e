//! The liu2024 measures on a real score table (the committed CrowS-Pairs unigram demo table,
//! 1,508 pairs, 9 bias types) against an independent numpy / scipy float64 implementation of the
//! authors' functions (`scripts/fixtures/liu2024_reference.py` →
//! `fixtures/liu2024/unigram_reference.json`).
//!
//! Tolerances: Gaussian parameters 1e-12; indicator, KLS and the authors' JSS (per type,
//! weighted and pooled) 1e-9; the paper-text JSS (numerical integration on both sides) 1e-7.

use approx::abs_diff_eq;
use std::collections::BTreeMap;

use bias_core::{BiasMeasure, BiasType, Measurement, ScoreTable};
use bias_metrics::{
    Aggregation, DistributionOptions, Gaussian, Indicator, Jss, JssVariant, Kls, Rounding,
    SmallTypePolicy,
};
use serde_json::Value;

const TABLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/scores/crows_pairs_unigram.csv"
);
const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/liu2024/unigram_reference.json"
);

const TOL_GAUSS: f64 = 1e-12;
const TOL_MEASURE: f64 = 1e-9;
const TOL_PAPER: f64 = 1e-7;

fn table() -> ScoreTable {
    ScoreTable::read_csv_path(TABLE).expect("read the demo score table")
}

fn reference() -> Value {
    let text = std::fs::read_to_string(REFERENCE).expect("read the liu2024 reference JSON");
    serde_json::from_str(&text).expect("parse the liu2024 reference JSON")
}

fn num(v: &Value, key: &str, ctx: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{ctx}: reference field `{key}` missing or not a number"))
}

/// Asserts `|got − want| ≤ tol` with `approx::abs_diff_eq!` (naming `what` on failure) and
/// returns the difference, for the maximum each test reports.
fn diff_within(got: f64, want: f64, tol: f64, what: &str) -> f64 {
    assert!(
        abs_diff_eq!(got, want, epsilon = tol),
        "{what}: got {got:.17e}, reference {want:.17e}, |diff| = {:.3e} > {tol:e}",
        (got - want).abs()
    );
    (got - want).abs()
}

fn options(aggregation: Aggregation) -> DistributionOptions {
    DistributionOptions {
        aggregation,
        rounding: Rounding::None,
        small_types: SmallTypePolicy::Error,
    }
}

/// The reference per-type objects keyed by the parsed bias type; checks the type set is the
/// same as the measurement's and that every count agrees.
fn by_type_reference(reference: &Value) -> BTreeMap<BiasType, Value> {
    let obj = reference["by_type"]
        .as_object()
        .expect("reference `by_type` is an object");
    obj.iter()
        .map(|(label, v)| {
            let ty: BiasType = label.parse().expect("reference bias type label");
            (ty, v.clone())
        })
        .collect()
}

/// Compares a measurement's per-type values with the reference field `key`; returns the
/// largest absolute difference.
fn check_by_type(m: &Measurement, refs: &BTreeMap<BiasType, Value>, key: &str, tol: f64) -> f64 {
    assert_eq!(
        m.by_type.keys().collect::<Vec<_>>(),
        refs.keys().collect::<Vec<_>>(),
        "{}: the bias types differ from the reference",
        m.measure
    );
    let mut max = 0.0f64;
    for (ty, tv) in &m.by_type {
        let r = &refs[ty];
        let ctx = format!("{} `{key}`, bias type `{ty}`", m.measure);
        let n = r["n"].as_u64().expect("reference n") as usize;
        assert_eq!(tv.n, n, "{ctx}: pair count");
        max = max.max(diff_within(tv.value, num(r, key, &ctx), tol, &ctx));
    }
    max
}

#[test]
fn table_matches_reference_counts() {
    let t = table();
    let r = reference();
    assert_eq!(t.len(), 1508);
    assert_eq!(t.len() as u64, r["n"].as_u64().expect("reference n"));
    let refs = by_type_reference(&r);
    let groups = t.by_bias_type();
    assert_eq!(groups.len(), 9);
    for (ty, rows) in &groups {
        let n = refs
            .get(*ty)
            .unwrap_or_else(|| panic!("bias type `{ty}` missing from the reference"))["n"]
            .as_u64()
            .expect("reference n");
        assert_eq!(rows.len() as u64, n, "bias type `{ty}`: pair count");
    }
}

#[test]
fn gaussian_fits_per_type() {
    let t = table();
    let refs = by_type_reference(&reference());
    let mut max = 0.0f64;
    for (ty, rows) in t.by_bias_type() {
        let r = &refs[ty];
        let st: Vec<f64> = rows.iter().map(|row| row.score_stereo).collect();
        let at: Vec<f64> = rows.iter().map(|row| row.score_anti).collect();
        let p = Gaussian::fit(&st).unwrap_or_else(|e| panic!("bias type `{ty}`: fit P_st: {e}"));
        let a = Gaussian::fit(&at).unwrap_or_else(|e| panic!("bias type `{ty}`: fit P_at: {e}"));
        for (got, key) in [
            (p.mean, "mu_st"),
            (p.std, "sigma_st"),
            (a.mean, "mu_at"),
            (a.std, "sigma_at"),
        ] {
            let ctx = format!("Gaussian fit `{key}`, bias type `{ty}`");
            max = max.max(diff_within(got, num(r, key, &ctx), TOL_GAUSS, &ctx));
        }
    }
    println!("Gaussian parameters: max |diff| = {max:.3e}");
}

#[test]
fn indicator_overall_and_per_type() {
    let r = reference();
    let refs = by_type_reference(&r);
    let m = Indicator::default().measure(&table()).expect("indicator");
    let d = diff_within(
        m.value,
        num(&r["overall"], "indicator", "overall"),
        TOL_MEASURE,
        "indicator overall (all bias types)",
    );
    let max = check_by_type(&m, &refs, "indicator", TOL_MEASURE).max(d);
    println!("indicator: max |diff| = {max:.3e}");
}

#[test]
fn kls_weighted_pooled_and_per_type() {
    let r = reference();
    let refs = by_type_reference(&r);
    let t = table();
    let w = Kls::new(options(Aggregation::WeightedByType))
        .measure(&t)
        .expect("KLS weighted");
    let p = Kls::new(options(Aggregation::Pooled))
        .measure(&t)
        .expect("KLS pooled");
    let mut max = diff_within(
        w.value,
        num(&r["overall"], "kls_weighted", "overall"),
        TOL_MEASURE,
        "KLS weighted by bias type (all bias types)",
    );
    max = max.max(diff_within(
        p.value,
        num(&r["overall"], "kls_pooled", "overall"),
        TOL_MEASURE,
        "KLS pooled (all bias types)",
    ));
    max = max.max(check_by_type(&w, &refs, "kls", TOL_MEASURE));
    // The pooled aggregation still reports the same per-type values.
    max = max.max(check_by_type(&p, &refs, "kls", TOL_MEASURE));
    println!("KLS: max |diff| = {max:.3e}");
}

#[test]
fn jss_authors_weighted_pooled_and_per_type() {
    let r = reference();
    let refs = by_type_reference(&r);
    let t = table();
    let w = Jss::new(
        JssVariant::AuthorsCode,
        options(Aggregation::WeightedByType),
    )
    .measure(&t)
    .expect("JSS weighted");
    let p = Jss::new(JssVariant::AuthorsCode, options(Aggregation::Pooled))
        .measure(&t)
        .expect("JSS pooled");
    let mut max = diff_within(
        w.value,
        num(&r["overall"], "jss_weighted", "overall"),
        TOL_MEASURE,
        "JSS (authors' code) weighted by bias type (all bias types)",
    );
    max = max.max(diff_within(
        p.value,
        num(&r["overall"], "jss_pooled", "overall"),
        TOL_MEASURE,
        "JSS (authors' code) pooled (all bias types)",
    ));
    max = max.max(check_by_type(&w, &refs, "jss_authors", TOL_MEASURE));
    max = max.max(check_by_type(&p, &refs, "jss_authors", TOL_MEASURE));
    println!("JSS (authors' code): max |diff| = {max:.3e}");
}

#[test]
fn jss_paper_text_weighted_and_per_type() {
    let r = reference();
    let refs = by_type_reference(&r);
    let w = Jss::new(JssVariant::PaperText, options(Aggregation::WeightedByType))
        .measure(&table())
        .expect("JSS paper text weighted");
    let mut max = diff_within(
        w.value,
        num(&r["overall"], "jss_paper_weighted", "overall"),
        TOL_PAPER,
        "JSS (paper text) weighted by bias type (all bias types)",
    );
    max = max.max(check_by_type(&w, &refs, "jss_paper", TOL_PAPER));
    println!("JSS (paper text): max |diff| = {max:.3e}");
}
