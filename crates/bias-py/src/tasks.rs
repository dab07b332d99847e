//! The benchmarks scored by continuations, as `bias task` runs them, for `bias_lm`: BBQ
//! (Parrish et al. 2022; lm-evaluation-harness's accuracies and the BBQ authors' bias scores),
//! Winogender (Rudinger et al. 2018; lm-evaluation-harness's `winogender_*` accuracies) and
//! StereoSet in full (Nadeem et al. 2021; SS, LMS and ICAT of both tasks). Each returns the JSON
//! `bias task NAME --json` prints, resumable through a log file like `bias task --out`.

use std::path::{Path, PathBuf};

use bias_core::Choice;
use bias_data::bbq::BbqCategory;
use bias_data::layout::StereoSetSplit;
use bias_plm::{CausalScorerKind, DeviceSpec, LanguageModel, NextSentenceModel, ScoringOptions};
use bias_tasks::choice::ChoiceRunOptions;
use bias_tasks::stereoset::{Intersentence, IntersentenceChoice};
use pyo3::prelude::*;

use crate::{bias_error, device_of, kind_of, open, BiasError};

/// A model opened for a task, with the log that makes its run resumable.
struct TaskRun {
    lm: LanguageModel,
    dir: PathBuf,
    device: DeviceSpec,
    kind: tch::Kind,
    log: Option<(PathBuf, String)>,
}

impl TaskRun {
    fn open(
        model: &str,
        tokenizer: Option<&str>,
        device: &str,
        dtype: &str,
        out: Option<PathBuf>,
    ) -> PyResult<Self> {
        let lm = open(model, device, dtype, None, tokenizer)?;
        let dir = lm.dir().to_path_buf();
        let (device, kind) = (device_of(device)?, kind_of(dtype)?);
        if let Some(dir) = &out {
            std::fs::create_dir_all(dir).map_err(|e| bias_error(&e))?;
        }
        Ok(TaskRun {
            lm,
            dir,
            device,
            kind,
            log: out.map(|d| (d, String::new())),
        })
    }

    /// `TASK.jsonl` in the output folder and the run's identity (`bias task`'s).
    fn log(&mut self, task: &str, name: &str) -> PyResult<Option<(&Path, &str)>> {
        let digest = self.lm.digest().map_err(|e| bias_error(&e))?.to_owned();
        Ok(match &mut self.log {
            None => None,
            Some((dir, run)) => {
                let path = if dir.extension().is_some_and(|e| e == "jsonl") {
                    dir.clone()
                } else {
                    dir.join(format!("{task}.jsonl"))
                };
                *dir = path;
                *run = format!("{task} on {name} ({digest})");
                Some((dir.as_path(), run.as_str()))
            }
        })
    }
}

/// The causal LM BBQ and Winogender score answers with, or an error naming the model.
fn causal(lm: &LanguageModel) -> PyResult<&bias_plm::CausalLm> {
    match lm {
        LanguageModel::Causal(c) => Ok(c),
        other => Err(not_causal(other, "BBQ and Winogender score answers")),
    }
}

/// The error for a masked LM where `work` needs a causal LM.
fn not_causal(lm: &LanguageModel, work: &str) -> PyErr {
    BiasError::new_err(format!(
        "{}: a masked LM; {work} with a causal LM ({})",
        lm.name(),
        bias_plm::CausalType::supported_list()
    ))
}

impl TaskRun {
    /// Runs a causal LM's choice task `task` (BBQ, Winogender) with `bias task`'s `ll-sum`
    /// scorer, log and progress: `runner` gets the scorer, the resumable log, the chunk size and
    /// the progress callback. Returns the model's name and the runner's result.
    fn causal_choices<T>(
        &mut self,
        task: &str,
        chunk: usize,
        progress: &Option<Bound<'_, PyAny>>,
        runner: impl FnOnce(
            &mut bias_plm::CausalScorer<'_>,
            Option<(&Path, &str)>,
            ChoiceRunOptions,
            &mut dyn FnMut(usize, usize),
        ) -> Result<T, bias_tasks::TaskError>,
    ) -> PyResult<(String, T)> {
        let name = self.lm.name().to_owned();
        let log = self
            .log(task, &name)?
            .map(|(p, r)| (p.to_path_buf(), r.to_owned()));
        let mut scorer = causal(&self.lm)?
            .scorer(&[CausalScorerKind::LlSum], ScoringOptions::default())
            .map_err(|e| bias_error(&e))?;
        let failed = std::cell::RefCell::new(None);
        let result = runner(
            &mut scorer,
            log.as_ref().map(|(p, r)| (p.as_path(), r.as_str())),
            ChoiceRunOptions {
                chunk_docs: chunk.max(1),
            },
            &mut reporter(progress, &failed),
        )
        .map_err(|e| bias_error(&e))?;
        callback_result(failed)?;
        Ok((name, result))
    }
}

/// Calls `progress(done, total)`, keeping the first Python error for after the run.
fn reporter<'a, 'py>(
    progress: &'a Option<Bound<'py, PyAny>>,
    failed: &'a std::cell::RefCell<Option<PyErr>>,
) -> impl FnMut(usize, usize) + 'a {
    move |done, total| {
        if let Some(cb) = progress {
            if failed.borrow().is_none() {
                if let Err(e) = cb.call1((done, total)) {
                    *failed.borrow_mut() = Some(e);
                }
            }
        }
    }
}

/// The result as the JSON `bias task NAME --json` prints: through a `Value`, as the CLI writes
/// it (the same key order, sorted, in both).
fn to_json(value: impl serde::Serialize) -> PyResult<String> {
    let value = serde_json::to_value(&value).map_err(|e| bias_error(&e))?;
    serde_json::to_string(&value).map_err(|e| bias_error(&e))
}

/// The first error of the progress callback, if any.
fn callback_result(failed: std::cell::RefCell<Option<PyErr>>) -> PyResult<()> {
    failed.into_inner().map_or(Ok(()), Err)
}

/// BBQ with a causal LM: lm-evaluation-harness's `bbq` multiple choice and the BBQ authors' bias
/// scores, over `categories` (default: all eleven), the first `per_category` of each.
#[pyfunction]
#[pyo3(signature = (model, data_dir=PathBuf::from("data"), categories=None, per_category=None,
    device="auto", dtype="f32", out=None, chunk=64, progress=None, tokenizer=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn bbq(
    model: &str,
    data_dir: PathBuf,
    categories: Option<Vec<String>>,
    per_category: Option<usize>,
    device: &str,
    dtype: &str,
    out: Option<PathBuf>,
    chunk: usize,
    progress: Option<Bound<'_, PyAny>>,
    tokenizer: Option<&str>,
) -> PyResult<String> {
    let categories: Vec<BbqCategory> = match categories {
        None => BbqCategory::ALL.to_vec(),
        Some(c) => c
            .iter()
            .map(|c| c.parse::<BbqCategory>().map_err(|e| bias_error(&e)))
            .collect::<PyResult<_>>()?,
    };
    let examples = bias_data::bbq::read_bbq_sample(&data_dir, &categories, per_category)
        .map_err(|e| bias_error(&e))?;
    let mut run = TaskRun::open(model, tokenizer, device, dtype, out)?;
    let (name, result) =
        run.causal_choices("bbq", chunk, &progress, |scorer, log, options, report| {
            bias_tasks::run_bbq(scorer, &examples, log, options, report)
        })?;
    let value = bias_tasks::BbqReport::new(&name, examples.len(), &categories, &result);
    to_json(value)
}

/// Winogender with a causal LM: lm-evaluation-harness's `winogender_*` accuracies.
#[pyfunction]
#[pyo3(signature = (model, data_dir=PathBuf::from("data"), device="auto", dtype="f32", out=None,
    chunk=64, progress=None, tokenizer=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn winogender(
    model: &str,
    data_dir: PathBuf,
    device: &str,
    dtype: &str,
    out: Option<PathBuf>,
    chunk: usize,
    progress: Option<Bound<'_, PyAny>>,
    tokenizer: Option<&str>,
) -> PyResult<String> {
    let set =
        bias_data::winogender::read_winogender_dir(bias_data::layout::winogender_dir(&data_dir))
            .map_err(|e| bias_error(&e))?;
    let mut run = TaskRun::open(model, tokenizer, device, dtype, out)?;
    let (name, accuracies) = run.causal_choices(
        "winogender",
        chunk,
        &progress,
        |scorer, log, options, report| {
            bias_tasks::winogender::run_winogender(scorer, &set, log, options, report)
        },
    )?;
    let value = bias_tasks::WinogenderReport::new(&name, accuracies);
    to_json(value)
}

/// StereoSet in full (both tasks; `split` `dev` or `test`, the first `limit` items of each): a
/// masked LM's PLL or a causal LM's log-likelihood; the intersentence task with BERT's
/// next-sentence head when `intersentence` is `auto` and the checkpoint has it, or as asked
/// (`conditional`, `next-sentence-head`).
#[pyfunction]
#[pyo3(signature = (model, split="dev", data_dir=PathBuf::from("data"), limit=None,
    intersentence="auto", device="auto", dtype="f32", out=None, chunk=64, progress=None,
    tokenizer=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn stereoset(
    model: &str,
    split: &str,
    data_dir: PathBuf,
    limit: Option<usize>,
    intersentence: &str,
    device: &str,
    dtype: &str,
    out: Option<PathBuf>,
    chunk: usize,
    progress: Option<Bound<'_, PyAny>>,
    tokenizer: Option<&str>,
) -> PyResult<String> {
    let split: StereoSetSplit = split.parse().map_err(|e| bias_error(&e))?;
    let set = bias_data::stereoset::read_stereoset_path(split.path(&data_dir))
        .map_err(|e| bias_error(&e))?;
    let mut run = TaskRun::open(model, tokenizer, device, dtype, out)?;
    let intersentence = IntersentenceChoice::parse_choice(intersentence)
        .map_err(|e| bias_error(&e))?
        .resolve(|| bias_plm::has_next_sentence_head(&run.dir).map_err(|e| bias_error(&e)))?;
    let head = match intersentence {
        Intersentence::NextSentenceHead => Some(
            NextSentenceModel::open(&run.dir, run.device, run.kind).map_err(|e| bias_error(&e))?,
        ),
        Intersentence::Conditional => None,
    };
    let task = bias_tasks::StereoSetReport::log_task(split);
    let name = format!(
        "{} (intersentence: {})",
        run.lm.name(),
        intersentence.as_str()
    );
    let log = run
        .log(&task, &name)?
        .map(|(p, r)| (p.to_path_buf(), r.to_owned()));
    let mut scorer = run
        .lm
        .stereoset_scorer(head.as_ref(), ScoringOptions::default())
        .map_err(|e| bias_error(&e))?;
    let failed = std::cell::RefCell::new(None);
    let result = bias_tasks::stereoset::run_stereoset(
        &mut *scorer,
        &set,
        limit,
        intersentence,
        log.as_ref().map(|(p, r)| (p.as_path(), r.as_str())),
        ChoiceRunOptions {
            chunk_docs: chunk.max(1),
        },
        &mut reporter(&progress, &failed),
    )
    .map_err(|e| bias_error(&e))?;
    let value = bias_tasks::StereoSetReport::new(split, run.lm.name(), run.lm.family(), &result);
    callback_result(failed)?;
    to_json(value)
}

/// Greedy continuations of `prompts` with a causal LM, as `bias generate` writes them: a list
/// of `{"prompt", "text", "token_ids", "finish"}`; `out` (a `.jsonl` file) makes the run
/// resumable; `apply_chat_template` renders each prompt through the model's chat template.
#[pyfunction]
#[pyo3(signature = (model, prompts, max_new_tokens=256, stop=None, apply_chat_template=false,
    system_instruction=None, device="auto", dtype="f32", out=None, chunk=16, progress=None,
    tokenizer=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn generate(
    model: &str,
    prompts: Vec<String>,
    max_new_tokens: usize,
    stop: Option<Vec<String>>,
    apply_chat_template: bool,
    system_instruction: Option<String>,
    device: &str,
    dtype: &str,
    out: Option<PathBuf>,
    chunk: usize,
    progress: Option<Bound<'_, PyAny>>,
    tokenizer: Option<&str>,
) -> PyResult<String> {
    let options = bias_core::GenerationOptions {
        max_new_tokens,
        stop: stop.unwrap_or_default(),
    };
    let mut lm = match open(model, device, dtype, None, tokenizer)? {
        LanguageModel::Causal(lm) => lm,
        other => return Err(not_causal(&other, "generation runs")),
    };
    let chat = chat_prompt(&lm, apply_chat_template, system_instruction)?;
    let digest = lm.digest().map_err(|e| bias_error(&e))?.to_owned();
    let identity = match &chat {
        Some(p) => format!("{} ({digest}, {})", lm.name(), p.identity()),
        None => format!("{} ({digest})", lm.name()),
    };
    if let Some(parent) = out.as_deref().and_then(Path::parent) {
        std::fs::create_dir_all(parent).map_err(|e| bias_error(&e))?;
    }
    let run = bias_tasks::generation::GenerationRun {
        identity,
        options: &options,
        chunk,
    };
    let failed = std::cell::RefCell::new(None);
    let mut report = reporter(&progress, &failed);
    let result = match &chat {
        Some(p) => bias_tasks::generation::generate_logged(
            &mut bias_plm::ChatGenerator::new(&mut lm, p),
            &prompts,
            out.as_deref(),
            &run,
            &mut report,
        ),
        None => bias_tasks::generation::generate_logged(
            &mut lm,
            &prompts,
            out.as_deref(),
            &run,
            &mut report,
        ),
    };
    drop(report);
    let (generations, _) = result.map_err(|e| bias_error(&e))?;
    callback_result(failed)?;
    to_json(generations)
}

/// The model's chat prompt when asked for (`bias`'s `--apply-chat-template` and
/// `--system-instruction`).
fn chat_prompt(
    lm: &bias_plm::CausalLm,
    apply: bool,
    system: Option<String>,
) -> PyResult<Option<bias_plm::ChatPrompt>> {
    if !apply {
        if system.is_some() {
            return Err(BiasError::new_err(
                "system_instruction needs apply_chat_template=True",
            ));
        }
        return Ok(None);
    }
    let template = lm
        .chat_template()
        .map_err(|e| bias_error(&e))?
        .ok_or_else(|| {
            BiasError::new_err(format!(
                "{}: the tokenizer has no chat_template",
                lm.tokenizer_dir().display()
            ))
        })?;
    Ok(Some(bias_plm::ChatPrompt::new(template, system)))
}
