"""Type stubs of bias_lm (see its docstrings)."""
from os import PathLike
from typing import Any, Dict, List, Optional, Sequence, Union

import pandas as pd

from ._native import BiasError as BiasError

__version__: str
COLUMNS: list[str]

def score(
    model: Union[str, PathLike],
    dataset: Optional[str] = None,
    *,
    pairs: Optional[pd.DataFrame] = None,
    scorers: Optional[Sequence[str]] = None,
    limit: Optional[int] = None,
    data_dir: Union[str, PathLike] = "data",
    device: str = "auto",
    dtype: str = "f32",
    batch_size: int = 64,
    batch_tokens: int = 8192,
    chunk: int = 64,
    out: Optional[Union[str, PathLike]] = None,
    model_name: Optional[str] = None,
    progress: bool = True,
    tokenizer: Optional[Union[str, PathLike]] = None,
) -> pd.DataFrame: ...
def measures(
    table: pd.DataFrame,
    measures: Sequence[str] = ("indicator", "kls", "jss"),
    small_types: str = "error",
    bootstrap: Optional[int] = None,
    level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame: ...
def compare(
    *tables: pd.DataFrame,
    measures: Sequence[str] = ("indicator", "kls", "jss"),
    baseline: Optional[str] = None,
    bootstrap: int = 1000,
    level: float = 0.95,
    permutations: int = 9999,
    correction: str = "holm",
    alpha: float = 0.05,
    seed: int = 0,
) -> pd.DataFrame: ...
def from_lm_eval(
    path: Union[str, PathLike], dataset: str = "crows-pairs", model: str = "lm-eval"
) -> pd.DataFrame: ...
def lm_eval_crows(table: pd.DataFrame) -> Dict[str, Any]: ...
def subsample(
    table: pd.DataFrame,
    measures: Sequence[str] = ("indicator", "kls", "jss"),
    rates: Optional[Sequence[float]] = None,
    repeats: int = 100,
    seed: int = 0,
    kls_jss_scorer: str = "aul",
) -> Dict[str, pd.DataFrame]: ...
def reproduce(
    paper: str,
    models: Sequence[Union[str, PathLike]],
    out: Union[str, PathLike],
    data_dir: Union[str, PathLike] = "data",
    max_pairs: Optional[int] = None,
    device: str = "auto",
    dtype: str = "f32",
) -> pd.DataFrame: ...
def weat(x: Any, y: Any, a: Any, b: Any, ddof: int = 0) -> Dict[str, Any]: ...
def same(targets: Any, a0: Any, a1: Any) -> Dict[str, Any]: ...
def word_vectors(
    path: Union[str, PathLike], words: Sequence[str], lower: bool = False
) -> "tuple[Any, list[str]]": ...
def bbq(
    model: Union[str, PathLike],
    data_dir: Union[str, PathLike] = "data",
    categories: Optional[Sequence[str]] = None,
    per_category: Optional[int] = None,
    device: str = "auto",
    dtype: str = "f32",
    out: Optional[Union[str, PathLike]] = None,
    chunk: int = 64,
    progress: bool = True,
    tokenizer: Optional[Union[str, PathLike]] = None,
) -> Dict[str, Any]: ...
def winogender(
    model: Union[str, PathLike],
    data_dir: Union[str, PathLike] = "data",
    device: str = "auto",
    dtype: str = "f32",
    out: Optional[Union[str, PathLike]] = None,
    chunk: int = 64,
    progress: bool = True,
    tokenizer: Optional[Union[str, PathLike]] = None,
) -> Dict[str, Any]: ...
def generate(
    model: Union[str, PathLike],
    prompts: Sequence[str],
    max_new_tokens: int = 256,
    stop: Optional[Sequence[str]] = None,
    apply_chat_template: bool = False,
    system_instruction: Optional[str] = None,
    device: str = "auto",
    dtype: str = "f32",
    out: Optional[Union[str, PathLike]] = None,
    chunk: int = 16,
    progress: bool = True,
    tokenizer: Optional[Union[str, PathLike]] = None,
) -> List[Dict[str, Any]]: ...
def stereoset(
    model: Union[str, PathLike],
    split: str = "dev",
    data_dir: Union[str, PathLike] = "data",
    limit: Optional[int] = None,
    intersentence: str = "auto",
    device: str = "auto",
    dtype: str = "f32",
    out: Optional[Union[str, PathLike]] = None,
    chunk: int = 64,
    progress: bool = True,
    tokenizer: Optional[Union[str, PathLike]] = None,
) -> Dict[str, Any]: ...
def score_model(
    model: Any,
    tokenizer: Any,
    dataset: Optional[str] = None,
    *,
    pairs: Optional[pd.DataFrame] = None,
    name: Optional[str] = None,
    scorers: Optional[Sequence[str]] = None,
    limit: Optional[int] = None,
    data_dir: Union[str, PathLike] = "data",
    device: str = "auto",
    dtype: str = "f32",
    batch_size: int = 64,
    batch_tokens: int = 8192,
    chunk: int = 64,
    out: Optional[Union[str, PathLike]] = None,
    progress: bool = True,
) -> pd.DataFrame: ...
