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
) -> Dict[str, List[Any]]: ...
def measures(
    table: Dict[str, List[Any]],
    measures: Optional[Sequence[str]] = None,
    small_types: str = "error",
) -> List[Dict[str, Any]]: ...
def import_lm_eval(path: str, dataset: str = "crows-pairs", model: str = "lm-eval") -> Dict[str, List[Any]]: ...
def lm_eval_crows(table: Dict[str, List[Any]]) -> Dict[str, Any]: ...
