//! The native module of the Python package `bias_lm` (`bias_lm._native`): the workspace's
//! library crates behind a few functions that take and return plain Python values (column
//! dictionaries, lists of records); `python/bias_lm/__init__.py` turns them into pandas
//! DataFrames and draws the progress bar.
//!
//! Everything goes through the same library calls as the `bias` command line, so a DataFrame
//! from `bias_lm.score` is `bias score`'s table: `score` runs `bias_core::run::run_scoring`
//! (resumable, into a CSV) and reads the table back; `measures` runs the `MeasureSpec`s of
//! `bias measure` (Nangia et al. 2020's indicator; liu2024's KLS and JSS); `import_lm_eval`
//! reads lm-evaluation-harness's `--log_samples` (`bias_data::lm_eval`).

use std::cell::RefCell;
use std::error::Error;
use std::path::{Path, PathBuf};

use bias_core::run::run_scoring;
use bias_core::{BiasType, Direction, ScoreRow, ScoreTable, SentencePair, SCORE_TABLE_HEADER};
use bias_metrics::{DistributionOptions, MeasureSpec, SmallTypePolicy};
use bias_plm::{BatchOptions, DeviceSpec, LanguageModel, ScoringOptions};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tch::Kind;

mod studies;
mod tasks;

create_exception!(
    _native,
    BiasError,
    PyException,
    "An error of the bias library: its message, then each cause."
);

/// The libtorch version this module is linked against (that of the `tch` crate, 0.24).
const LIBTORCH_VERSION: &str = "2.11.0";

/// A library error as a [`BiasError`] whose message is the error and its causes.
fn bias_error(e: &dyn Error) -> PyErr {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(&format!("\n  caused by: {s}"));
        source = s.source();
    }
    BiasError::new_err(message)
}

/// The libtorch version the module needs (PyTorch's, `torch.__version__` without its local
/// part).
#[pyfunction]
fn libtorch_version() -> &'static str {
    LIBTORCH_VERSION
}

/// The package's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// A score table as `{column: list}` in [`SCORE_TABLE_HEADER`] order.
fn columns<'py>(py: Python<'py>, table: &ScoreTable) -> PyResult<Bound<'py, PyDict>> {
    let rows = table.rows();
    let text = |f: &dyn Fn(&ScoreRow) -> String| rows.iter().map(f).collect::<Vec<String>>();
    let out = PyDict::new(py);
    out.set_item("pair_id", text(&|r| r.pair_id.clone()))?;
    out.set_item("dataset", text(&|r| r.dataset.to_string()))?;
    out.set_item("bias_type", text(&|r| r.bias_type.to_string()))?;
    out.set_item("direction", text(&|r| r.direction.to_string()))?;
    out.set_item("stereo", text(&|r| r.stereo.clone()))?;
    out.set_item("anti", text(&|r| r.anti.clone()))?;
    let scores = |f: &dyn Fn(&ScoreRow) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
    out.set_item("score_stereo", scores(&|r| r.score_stereo))?;
    out.set_item("score_anti", scores(&|r| r.score_anti))?;
    out.set_item("scorer", text(&|r| r.scorer.to_string()))?;
    out.set_item("model", text(&|r| r.model.to_string()))?;
    let tokens = |f: &dyn Fn(&ScoreRow) -> Option<usize>| rows.iter().map(f).collect::<Vec<_>>();
    out.set_item("tokens_stereo", tokens(&|r| r.tokens_stereo))?;
    out.set_item("tokens_anti", tokens(&|r| r.tokens_anti))?;
    let groups: Vec<Option<String>> = rows.iter().map(|r| r.group_id.clone()).collect();
    out.set_item("group_id", groups)?;
    Ok(out)
}

/// One column of a `{column: list}` dictionary, or `None` when absent.
fn column<'py, T: FromPyObjectOwned<'py>>(
    data: &Bound<'py, PyDict>,
    name: &str,
) -> PyResult<Option<Vec<T>>> {
    match data.get_item(name)? {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v
            .extract::<Vec<T>>()
            .map(Some)
            .map_err(|e| BiasError::new_err(format!("column `{name}`: {e}"))),
    }
}

/// A column that must be there.
fn required<'py, T: FromPyObjectOwned<'py>>(
    data: &Bound<'py, PyDict>,
    name: &str,
    what: &str,
) -> PyResult<Vec<T>> {
    column(data, name)?.ok_or_else(|| BiasError::new_err(format!("{what} needs a column `{name}`")))
}

/// Parses a label column (bias types, directions), naming the row of a bad one.
fn labels<T: std::str::FromStr>(
    values: Option<Vec<String>>,
    n: usize,
    name: &str,
    default: &str,
) -> PyResult<Vec<T>>
where
    T::Err: std::fmt::Display,
{
    let values = values.unwrap_or_else(|| vec![default.to_owned(); n]);
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.parse()
                .map_err(|e| BiasError::new_err(format!("column `{name}`, row {i}: {e}")))
        })
        .collect()
}

/// [`BiasError`] unless every length is `n`: the columns of `what` must have one length.
fn same_lengths(lengths: &[usize], n: usize, what: &str) -> PyResult<()> {
    if lengths.iter().any(|&k| k != n) {
        return Err(BiasError::new_err(format!(
            "{what}'s columns must have one length"
        )));
    }
    Ok(())
}

/// Sentence pairs from `{id, stereo, anti[, bias_type, direction, group_id]}` columns.
fn pairs_of(data: &Bound<'_, PyDict>) -> PyResult<Vec<SentencePair>> {
    let what = "a pair table";
    let stereo: Vec<String> = required(data, "stereo", what)?;
    let anti: Vec<String> = required(data, "anti", what)?;
    let n = stereo.len();
    let ids: Vec<String> =
        column(data, "id")?.unwrap_or_else(|| (0..n).map(|i| i.to_string()).collect());
    let bias_types: Vec<BiasType> = labels(column(data, "bias_type")?, n, "bias_type", "unknown")?;
    let directions: Vec<Direction> = labels(column(data, "direction")?, n, "direction", "stereo")?;
    let groups: Vec<Option<String>> = column(data, "group_id")?.unwrap_or_else(|| vec![None; n]);
    same_lengths(
        &[
            anti.len(),
            ids.len(),
            bias_types.len(),
            directions.len(),
            groups.len(),
        ],
        n,
        "a pair table",
    )?;
    Ok((0..n)
        .map(|i| SentencePair {
            id: ids[i].clone(),
            stereo: stereo[i].clone(),
            anti: anti[i].clone(),
            bias_type: bias_types[i].clone(),
            direction: directions[i],
            group_id: groups[i].clone(),
        })
        .collect())
}

/// A score table from the `{column: list}` dictionary [`columns`] writes.
fn table_of(data: &Bound<'_, PyDict>) -> PyResult<ScoreTable> {
    let what = "a score table";
    let ids: Vec<String> = required(data, "pair_id", what)?;
    let n = ids.len();
    let stereo: Vec<f64> = required(data, "score_stereo", what)?;
    let anti: Vec<f64> = required(data, "score_anti", what)?;
    let bias_types: Vec<BiasType> = labels(column(data, "bias_type")?, n, "bias_type", "unknown")?;
    let directions: Vec<Direction> = labels(column(data, "direction")?, n, "direction", "stereo")?;
    let text = |name: &str, default: &str| -> PyResult<Vec<String>> {
        Ok(column(data, name)?.unwrap_or_else(|| vec![default.to_owned(); n]))
    };
    let (datasets, scorers, models) = (
        text("dataset", "pairs")?,
        text("scorer", "score")?,
        text("model", "model")?,
    );
    let (stereo_text, anti_text) = (text("stereo", "")?, text("anti", "")?);
    same_lengths(
        &[
            stereo.len(),
            anti.len(),
            datasets.len(),
            scorers.len(),
            models.len(),
        ],
        n,
        "a score table",
    )?;
    Ok((0..n)
        .map(|i| {
            ScoreRow::builder(ids[i].clone(), bias_types[i].clone(), stereo[i], anti[i])
                .dataset(datasets[i].clone())
                .direction(directions[i])
                .sentences(stereo_text[i].clone(), anti_text[i].clone())
                .scorer(scorers[i].clone())
                .model(models[i].clone())
                .build()
        })
        .collect())
}

/// `f32` (the reference), `f16` or `bf16` ([`bias_plm::Precision`]).
fn kind_of(dtype: &str) -> PyResult<Kind> {
    use bias_core::Choice;
    bias_plm::Precision::parse_choice(dtype)
        .map(bias_plm::Precision::kind)
        .map_err(|e| bias_error(&e))
}

/// Opens `model` (a folder, a LoRA adapter folder, a Hugging Face id in the cache, or the
/// endpoints `http://HOST:PORT/v1[,…]` of a served model whose `tokenizer` folder or id is
/// given), named `name` or after the id, folder or served name.
pub(crate) fn open(
    model: &str,
    device: &str,
    dtype: &str,
    name: Option<&str>,
    tokenizer: Option<&str>,
) -> PyResult<LanguageModel> {
    let served = match tokenizer {
        Some(t) => {
            let dir = bias_plm::resolve_model(t).map_err(|e| bias_error(&e))?.dir;
            Some(bias_plm::ServedOptions::new(dir))
        }
        None => None,
    };
    let lm = LanguageModel::open_any(model, device_of(device)?, kind_of(dtype)?, served.as_ref())
        .map_err(|e| bias_error(&e))?;
    Ok(match name {
        Some(n) => lm.with_name(n),
        None => lm,
    })
}

/// `auto`, `cpu`, `cuda` or `cuda:N`.
fn device_of(device: &str) -> PyResult<DeviceSpec> {
    device
        .parse()
        .map_err(|e: bias_plm::PlmError| bias_error(&e))
}

/// Scores a data set (`dataset`: `crows-pairs`, `stereoset`, a pair file, ... under
/// `data_dir`; or `pairs`: `{id, stereo, anti, bias_type, direction}` columns) with `model` into
/// a score table, returned as `{column: list}`.
///
/// The run is `bias score`'s: resumable when `out` names a CSV (an interrupted run continues
/// where it stopped, a run with other settings is refused), written to a temporary file
/// otherwise. `progress(done, total)` is called after every chunk of pairs.
#[pyfunction]
#[pyo3(signature = (model, *, dataset=None, pairs=None, pairs_name="pairs", scorers=None,
    limit=None, data_dir="data", device="auto", dtype="f32", batch_size=64, batch_tokens=8192,
    chunk=64, out=None, model_name=None, progress=None, tokenizer=None))]
#[allow(clippy::too_many_arguments)]
fn score<'py>(
    py: Python<'py>,
    model: &str,
    dataset: Option<&str>,
    pairs: Option<Bound<'py, PyDict>>,
    pairs_name: &str,
    scorers: Option<Vec<String>>,
    limit: Option<usize>,
    data_dir: &str,
    device: &str,
    dtype: &str,
    batch_size: usize,
    batch_tokens: usize,
    chunk: usize,
    out: Option<PathBuf>,
    model_name: Option<&str>,
    progress: Option<Bound<'py, PyAny>>,
    tokenizer: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let (label, pairs) = data(dataset, pairs, pairs_name, limit, data_dir)?;
    let lm = open(model, device, dtype, model_name, tokenizer)?;
    let run = Run {
        scorers,
        batch_size,
        batch_tokens,
        chunk,
        out,
        progress,
    };
    run.table(py, &lm, &label, &pairs)
}

/// The data set's label and pairs: a named data set under `data_dir`, or a pair table; the
/// first `limit`.
fn data(
    dataset: Option<&str>,
    pairs: Option<Bound<'_, PyDict>>,
    pairs_name: &str,
    limit: Option<usize>,
    data_dir: &str,
) -> PyResult<(String, Vec<SentencePair>)> {
    let (label, mut pairs) = match (dataset, pairs) {
        (Some(name), None) => {
            let d = bias_data::load_named(name, data_dir).map_err(|e| bias_error(&e))?;
            (d.name, d.pairs)
        }
        (None, Some(p)) => (pairs_name.to_owned(), pairs_of(&p)?),
        _ => {
            return Err(BiasError::new_err(
                "give either a data set name (dataset=) or a pair table (pairs=)",
            ))
        }
    };
    if let Some(n) = limit {
        pairs.truncate(n);
    }
    Ok((label, pairs))
}

/// A tensor handed over by Python: `(name, data_ptr, shape, strides, dtype, device)` of a
/// `torch.Tensor` (`str(t.dtype)`, `str(t.device)`).
type TensorView = (String, usize, Vec<i64>, Vec<i64>, String, String);

/// `torch.float32`, ... as a libtorch kind ([`bias_plm::torch_dtype_kind`]).
fn torch_kind(dtype: &str) -> PyResult<Kind> {
    bias_plm::torch_dtype_kind(dtype).ok_or_else(|| {
        BiasError::new_err(format!(
            "a state_dict tensor of dtype {dtype}: not a kind this module reads"
        ))
    })
}

/// `cpu`, `cuda`, `cuda:N` as a libtorch device.
fn torch_device(device: &str) -> PyResult<tch::Device> {
    match device {
        "cpu" => Ok(tch::Device::Cpu),
        "cuda" => Ok(tch::Device::Cuda(0)),
        d => d
            .strip_prefix("cuda:")
            .and_then(|i| i.parse().ok())
            .map(tch::Device::Cuda)
            .ok_or_else(|| {
                BiasError::new_err(format!("a tensor on device {d}: expected cpu or cuda"))
            }),
    }
}

/// The tensors of a `state_dict`, as views on the memory of the Python tensors (no copy).
///
/// # Safety
/// Each view points into a `torch.Tensor` the caller keeps alive (and unchanged in size) for as
/// long as the returned tensors and anything built from them without a copy are used.
#[allow(unsafe_code)]
unsafe fn tensor_views(views: Vec<TensorView>) -> PyResult<Vec<(String, tch::Tensor)>> {
    views
        .into_iter()
        .map(|(name, ptr, shape, strides, dtype, device)| {
            let kind = torch_kind(&dtype)?;
            let device = torch_device(&device)?;
            if shape.len() != strides.len() {
                return Err(BiasError::new_err(format!(
                    "{name}: shape and strides differ in length"
                )));
            }
            // SAFETY: the caller's contract above; libtorch does not free borrowed memory.
            let t =
                unsafe { tch::Tensor::from_blob(ptr as *const u8, &shape, &strides, kind, device) };
            Ok((name, t))
        })
        .collect()
}

/// Scores a data set with a model held in memory — a `transformers` model's configuration,
/// tokenizer and `state_dict` (`bias_plm::ModelParts`), its tensors read where they are, without
/// a copy on the CPU in float32 — like [`score`] scores a folder.
#[pyfunction]
#[pyo3(signature = (name, config_json, tokenizer_json, tensors, *, tokenizer_config_json=None,
    special_tokens_map_json=None, dataset=None, pairs=None, pairs_name="pairs", scorers=None,
    limit=None, data_dir="data", device="auto", dtype="f32", batch_size=64, batch_tokens=8192,
    chunk=64, out=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn score_parts<'py>(
    py: Python<'py>,
    name: &str,
    config_json: String,
    tokenizer_json: String,
    tensors: Vec<TensorView>,
    tokenizer_config_json: Option<String>,
    special_tokens_map_json: Option<String>,
    dataset: Option<&str>,
    pairs: Option<Bound<'py, PyDict>>,
    pairs_name: &str,
    scorers: Option<Vec<String>>,
    limit: Option<usize>,
    data_dir: &str,
    device: &str,
    dtype: &str,
    batch_size: usize,
    batch_tokens: usize,
    chunk: usize,
    out: Option<PathBuf>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (label, pairs) = data(dataset, pairs, pairs_name, limit, data_dir)?;
    // SAFETY: the Python caller (`bias_lm.score_model`) holds the state_dict for the whole call,
    // and the model built from the views is dropped before this function returns.
    #[allow(unsafe_code)]
    let tensors = unsafe { tensor_views(tensors)? };
    let mut parts = bias_plm::ModelParts::new(name, config_json, tokenizer_json, tensors);
    parts.tokenizer_config_json = tokenizer_config_json;
    parts.special_tokens_map_json = special_tokens_map_json;
    let device: DeviceSpec = device
        .parse()
        .map_err(|e: bias_plm::PlmError| bias_error(&e))?;
    let lm =
        LanguageModel::from_parts(parts, device, kind_of(dtype)?).map_err(|e| bias_error(&e))?;
    let run = Run {
        scorers,
        batch_size,
        batch_tokens,
        chunk,
        out,
        progress,
    };
    run.table(py, &lm, &label, &pairs)
}

/// How a scoring run goes: its scorers, batches, chunks, file and progress callback.
struct Run<'py> {
    scorers: Option<Vec<String>>,
    batch_size: usize,
    batch_tokens: usize,
    chunk: usize,
    out: Option<PathBuf>,
    progress: Option<Bound<'py, PyAny>>,
}

impl<'py> Run<'py> {
    /// Scores `pairs` of the data set `label` with `lm` through `run_scoring` (resumable into
    /// the CSV `out`, else a temporary one) and returns the table as `{column: list}`.
    fn table(
        self,
        py: Python<'py>,
        lm: &LanguageModel,
        label: &str,
        pairs: &[SentencePair],
    ) -> PyResult<Bound<'py, PyDict>> {
        let names: Vec<String> = self
            .scorers
            .unwrap_or_else(|| lm.default_scorers().iter().map(|s| s.to_string()).collect());
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let options = ScoringOptions {
            batch: BatchOptions {
                max_batch: self.batch_size.max(1),
                max_tokens: self.batch_tokens.max(1),
            },
            ..ScoringOptions::default()
        };
        let mut scorer = lm.scorer(&names, options).map_err(|e| bias_error(&e))?;
        let fingerprint = lm
            .fingerprint(&*scorer, label, pairs, self.chunk.max(1))
            .map_err(|e| bias_error(&e))?;
        let scratch = TempTable::new(self.out)?;
        let failed: RefCell<Option<PyErr>> = RefCell::new(None);
        let progress = self.progress;
        let mut on_chunk = |done: usize, total: usize| {
            if let Some(cb) = &progress {
                if failed.borrow().is_none() {
                    if let Err(e) = cb.call1((done, total)) {
                        *failed.borrow_mut() = Some(e);
                    }
                }
            }
        };
        run_scoring(
            &mut *scorer,
            pairs,
            fingerprint,
            scratch.path(),
            &mut on_chunk,
        )
        .map_err(|e| bias_error(&e))?;
        if let Some(e) = failed.into_inner() {
            return Err(e);
        }
        let table = ScoreTable::read_csv_path(scratch.path()).map_err(|e| bias_error(&e))?;
        columns(py, &table)
    }
}

/// The CSV a run writes: the caller's, or a temporary one removed when done.
struct TempTable {
    path: PathBuf,
    temporary: bool,
}

impl TempTable {
    fn new(out: Option<PathBuf>) -> PyResult<Self> {
        match out {
            Some(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|e| bias_error(&e))?;
                }
                Ok(TempTable {
                    path,
                    temporary: false,
                })
            }
            None => {
                use std::sync::atomic::{AtomicUsize, Ordering};
                static NEXT: AtomicUsize = AtomicUsize::new(0);
                let n = NEXT.fetch_add(1, Ordering::Relaxed);
                let path =
                    std::env::temp_dir().join(format!("bias_lm-{}-{n}.csv", std::process::id()));
                let _ = std::fs::remove_file(&path);
                Ok(TempTable {
                    path,
                    temporary: true,
                })
            }
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempTable {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_file(&self.path);
            // The run's progress file beside the table.
            let mut progress = self.path.clone().into_os_string();
            progress.push(".progress.json");
            let _ = std::fs::remove_file(PathBuf::from(progress));
        }
    }
}

/// The bias measures (`indicator`, `kls`, `jss`, `jss-paper`) of every (data set, scorer,
/// model) slice of a score table, overall (`bias_type` `all`) and per bias type, as records.
/// `small_types` is `error` (a bias type with one pair stops KLS and JSS) or `skip`. With
/// `bootstrap` replicates, the overall rows get a percentile bootstrap interval (`lower`,
/// `upper`; stratified by bias type, as `bias measure --bootstrap`).
#[pyfunction]
#[pyo3(signature = (table, measures=None, small_types="error", bootstrap=None, level=0.95, seed=0))]
fn measures<'py>(
    py: Python<'py>,
    table: Bound<'py, PyDict>,
    measures: Option<Vec<String>>,
    small_types: &str,
    bootstrap: Option<usize>,
    level: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyList>> {
    let table = table_of(&table)?;
    let specs = measure_specs(measures)?;
    let options = DistributionOptions {
        small_types: match small_types {
            "error" => SmallTypePolicy::Error,
            "skip" => SmallTypePolicy::Skip,
            other => {
                return Err(BiasError::new_err(format!(
                    "small_types {other:?}: expected `error` or `skip`"
                )))
            }
        },
        ..DistributionOptions::default()
    };
    let records = PyList::empty(py);
    for slice in table.slices() {
        for spec in &specs {
            let spec = if spec.is_distributional() {
                spec.with_distribution(options)
            } else {
                *spec
            };
            let m = spec.measure(&slice.table).map_err(|e| bias_error(&e))?;
            let interval = bootstrap
                .map(|replicates| {
                    let options = bias_metrics::BootstrapOptions {
                        replicates,
                        level,
                        seed,
                        stratified: true,
                    };
                    bias_metrics::bootstrap_ci(&spec, &slice.table, &options)
                        .map_err(|e| bias_error(&e))
                })
                .transpose()?;
            let push = |bias_type: &str, n: usize, value: f64| -> PyResult<()> {
                let r = PyDict::new(py);
                r.set_item("dataset", &slice.dataset)?;
                r.set_item("scorer", &slice.scorer)?;
                r.set_item("model", &slice.model)?;
                r.set_item("measure", &m.measure)?;
                r.set_item("bias_type", bias_type)?;
                r.set_item("n", n)?;
                r.set_item("value", value)?;
                r.set_item("no_bias", m.no_bias)?;
                if let Some(b) = interval.as_ref().filter(|_| bias_type == "all") {
                    r.set_item("lower", b.lower)?;
                    r.set_item("upper", b.upper)?;
                }
                records.append(r)
            };
            push("all", m.n, m.value)?;
            for (t, v) in &m.by_type {
                push(t.as_str(), v.n, v.value)?;
            }
        }
    }
    Ok(records)
}

/// The measures named in `measures`, each parsed by `MeasureSpec::from_str`; liu2024's
/// indicator, KLS and JSS ([`MeasureSpec::liu2024`]) when none are named.
pub(crate) fn measure_specs(measures: Option<Vec<String>>) -> PyResult<Vec<MeasureSpec>> {
    let Some(names) = measures else {
        return Ok(MeasureSpec::liu2024().to_vec());
    };
    names
        .iter()
        .map(|s| {
            s.parse()
                .map_err(|e: bias_metrics::MetricsError| bias_error(&e))
        })
        .collect()
}

/// Models compared on the same pairs (`bias compare`, `bias_robust::compare`): one record per
/// (data set, scorer, model B, measure, bias type) with the difference B − A, its paired
/// bootstrap interval, the paired test's p and the Holm (or `correction`) adjusted p.
#[pyfunction]
#[pyo3(signature = (table, measures=None, baseline=None, bootstrap=1000, level=0.95, permutations=9999, correction="holm", alpha=0.05, seed=0))]
#[allow(clippy::too_many_arguments)]
fn compare<'py>(
    py: Python<'py>,
    table: Bound<'py, PyDict>,
    measures: Option<Vec<String>>,
    baseline: Option<String>,
    bootstrap: usize,
    level: f64,
    permutations: usize,
    correction: &str,
    alpha: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyList>> {
    use bias_robust::compare::{compare_models, CompareOptions};
    let table = table_of(&table)?;
    let specs = measure_specs(measures)?;
    let options = CompareOptions {
        paired: bias_metrics::PairedOptions {
            bootstrap: bias_metrics::BootstrapOptions {
                replicates: bootstrap,
                level,
                seed,
                stratified: true,
            },
            permutation: bias_metrics::stats::PermutationOptions { permutations, seed },
        },
        family: bias_metrics::FamilyOptions {
            correction: correction.parse().map_err(|e| bias_error(&e))?,
            alpha,
            ..bias_metrics::FamilyOptions::default()
        },
        baseline,
    };
    let rows =
        compare_models(&table.slices(), &specs, None, &options).map_err(|e| bias_error(&e))?;
    let records = PyList::empty(py);
    for c in &rows {
        let d = &c.difference;
        let r = PyDict::new(py);
        r.set_item("dataset", &c.dataset)?;
        r.set_item("scorer", &c.scorer)?;
        r.set_item("model_a", &c.model_a)?;
        r.set_item("model_b", &c.model_b)?;
        r.set_item("measure", &d.measure)?;
        r.set_item(
            "bias_type",
            d.bias_type.as_ref().map_or("all", |t| t.as_str()),
        )?;
        r.set_item("n", d.n)?;
        r.set_item("value_a", d.value_a)?;
        r.set_item("value_b", d.value_b)?;
        r.set_item("difference", d.difference)?;
        r.set_item("ci_low", d.interval.lower)?;
        r.set_item("ci_high", d.interval.upper)?;
        r.set_item("p_value", d.p_value)?;
        r.set_item("p_adjusted", c.p_adjusted)?;
        r.set_item("significant", c.significant)?;
        r.set_item("test", d.test.name())?;
        r.set_item("correction", c.family.correction.name())?;
        r.set_item("alpha", c.family.alpha)?;
        r.set_item("family_size", c.family_size)?;
        records.append(r)?;
    }
    Ok(records)
}

/// lm-evaluation-harness's `--log_samples` file of a CrowS-Pairs task as a score table
/// (`{column: list}`; `bias_data::lm_eval`).
#[pyfunction]
#[pyo3(signature = (path, dataset="crows-pairs", model="lm-eval"))]
fn import_lm_eval<'py>(
    py: Python<'py>,
    path: PathBuf,
    dataset: &str,
    model: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let table =
        bias_data::read_lm_eval_samples(&path, dataset, model).map_err(|e| bias_error(&e))?;
    columns(py, &table)
}

/// lm-evaluation-harness's `pct_stereotype` and `likelihood_diff` of a one-scorer, one-model
/// score table (`bias_metrics::lm_eval_crows`).
#[pyfunction]
fn lm_eval_crows<'py>(py: Python<'py>, table: Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
    let c = bias_metrics::lm_eval_crows(&table_of(&table)?).map_err(|e| bias_error(&e))?;
    let r = PyDict::new(py);
    r.set_item("pct_stereotype", c.pct_stereotype)?;
    r.set_item("likelihood_diff", c.likelihood_diff)?;
    r.set_item("n", c.n)?;
    Ok(r)
}

/// The module `bias_lm._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("BiasError", m.py().get_type::<BiasError>())?;
    m.add("COLUMNS", SCORE_TABLE_HEADER.to_vec())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(libtorch_version, m)?)?;
    m.add_function(wrap_pyfunction!(score, m)?)?;
    m.add_function(wrap_pyfunction!(score_parts, m)?)?;
    m.add_function(wrap_pyfunction!(measures, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(import_lm_eval, m)?)?;
    m.add_function(wrap_pyfunction!(lm_eval_crows, m)?)?;
    m.add_function(wrap_pyfunction!(studies::subsample, m)?)?;
    m.add_function(wrap_pyfunction!(studies::reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(studies::weat_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(studies::same_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(studies::lookup_vectors, m)?)?;
    m.add_function(wrap_pyfunction!(tasks::bbq, m)?)?;
    m.add_function(wrap_pyfunction!(tasks::winogender, m)?)?;
    m.add_function(wrap_pyfunction!(tasks::stereoset, m)?)?;
    m.add_function(wrap_pyfunction!(tasks::generate, m)?)?;
    Ok(())
}
