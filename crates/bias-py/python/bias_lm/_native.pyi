"""Type stubs of the native module (crates/bias-py/src/lib.rs)."""
from typing import Any, Callable, Dict, List, Optional, Sequence

COLUMNS: List[str]

class BiasError(Exception):
    """An error of the bias library: its message, then each cause."""

def version() -> str: ...
def libtorch_version() -> str: ...
def score(
    model: str,
    *,
    dataset: Optional[str] = None,
    pairs: Optional[Dict[str, List[Any]]] = None,
    pairs_name: str = "pairs",
    scorers: Optional[Sequence[str]] = None,
    limit: Optional[int] = None,
    data_dir: str = "data",
    device: str = "auto",
    dtype: str = "f32",
    batch_size: int = 64,
    batch_tokens: int = 8192,
    chunk: int = 64,
    out: Optional[str] = None,
    model_name: Optional[str] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    tokenizer: Optional[str] = None,
) -> Dict[str, List[Any]]: ...
def measures(
    table: Dict[str, List[Any]],
    measures: Optional[Sequence[str]] = None,
    small_types: str = "error",
    bootstrap: Optional[int] = None,
    level: float = 0.95,
    seed: int = 0,
) -> List[Dict[str, Any]]: ...
def compare(
    table: Dict[str, List[Any]],
    measures: Optional[Sequence[str]] = None,
    baseline: Optional[str] = None,
    bootstrap: int = 1000,
    level: float = 0.95,
    permutations: int = 9999,
    correction: str = "holm",
    alpha: float = 0.05,
    seed: int = 0,
) -> List[Dict[str, Any]]: ...
def import_lm_eval(path: str, dataset: str = "crows-pairs", model: str = "lm-eval") -> Dict[str, List[Any]]: ...
def lm_eval_crows(table: Dict[str, List[Any]]) -> Dict[str, Any]: ...
def subsample(
    table: Dict[str, List[Any]],
    measures: Optional[Sequence[str]] = None,
    rates: Optional[Sequence[float]] = None,
    repeats: int = 100,
    seed: int = 0,
    kls_jss_scorer: str = "aul",
) -> str: ...
def reproduce(
    paper: str,
    models: List[str],
    out: str,
    data_dir: str = "data",
    max_pairs: Optional[int] = None,
    device: str = "auto",
    dtype: str = "f32",
) -> List[Dict[str, Any]]: ...
def weat_arrays(
    x: List[List[float]], y: List[List[float]], a: List[List[float]], b: List[List[float]],
    ddof: int = 0,
) -> Dict[str, Any]: ...
def same_arrays(
    targets: List[List[float]], a0: List[List[float]], a1: List[List[float]]
) -> Dict[str, Any]: ...
def lookup_vectors(path: str, words: List[str], lower: bool = False) -> "tuple[List[List[float]], List[str]]": ...
def bbq(
    model: str, data_dir: str = "data", categories: Optional[Sequence[str]] = None,
    per_category: Optional[int] = None, device: str = "auto", dtype: str = "f32",
    out: Optional[str] = None, chunk: int = 64,
    progress: Optional[Callable[[int, int], None]] = None,
    tokenizer: Optional[str] = None,
) -> str: ...
def winogender(
    model: str, data_dir: str = "data", device: str = "auto", dtype: str = "f32",
    out: Optional[str] = None, chunk: int = 64,
    progress: Optional[Callable[[int, int], None]] = None,
    tokenizer: Optional[str] = None,
) -> str: ...
def generate(
    model: str, prompts: Sequence[str], max_new_tokens: int = 256,
    stop: Optional[Sequence[str]] = None, apply_chat_template: bool = False,
    system_instruction: Optional[str] = None, device: str = "auto", dtype: str = "f32",
    out: Optional[str] = None, chunk: int = 16,
    progress: Optional[Callable[[int, int], None]] = None,
    tokenizer: Optional[str] = None,
) -> str: ...
def stereoset(
    model: str, split: str = "dev", data_dir: str = "data", limit: Optional[int] = None,
    intersentence: str = "auto", device: str = "auto", dtype: str = "f32",
    out: Optional[str] = None, chunk: int = 64,
    progress: Optional[Callable[[int, int], None]] = None,
    tokenizer: Optional[str] = None,
) -> str: ...
def score_parts(
    name: str,
    config_json: str,
    tokenizer_json: str,
    tensors: List["tuple[str, int, List[int], List[int], str, str]"],
    *,
    tokenizer_config_json: Optional[str] = None,
    special_tokens_map_json: Optional[str] = None,
    dataset: Optional[str] = None,
    pairs: Optional[Dict[str, List[Any]]] = None,
    pairs_name: str = "pairs",
    scorers: Optional[Sequence[str]] = None,
    limit: Optional[int] = None,
    data_dir: str = "data",
    device: str = "auto",
    dtype: str = "f32",
    batch_size: int = 64,
    batch_tokens: int = 8192,
    chunk: int = 64,
    out: Optional[str] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Dict[str, List[Any]]: ...
