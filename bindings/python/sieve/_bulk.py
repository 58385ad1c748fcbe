"""What the Ray Data and Spark helpers share: one model per worker process,
kept for the process's life, and the checks on a batch's text column."""
from __future__ import annotations

import os
import threading
from typing import Any, Sequence

import numpy as np

from . import Embedder
from .errors import InvalidArgument, InvalidInput

# Workers run many batches (Ray's actors, Spark's reused Python workers):
# loading the model once per process, not once per batch, is what makes
# small batches affordable.
_models: dict[tuple, Embedder] = {}
_lock = threading.Lock()


def worker_embedder(model: str | os.PathLike, threads: int, options: dict[str, Any]) -> Embedder:
    """This process's Embedder for `model` with `threads` and `options`,
    loaded on first use."""
    key = (os.fspath(model), threads, tuple(sorted(options.items())))
    with _lock:
        found = _models.get(key)
        if found is None:
            found = Embedder(model, threads=threads, **options)
            if found.output != "dense":
                raise InvalidArgument(f"{os.fspath(model)} gives {found.output} outputs; bulk embedding writes one "
                                      "dense vector per row, so it takes a dense embedding model")
            _models[key] = found
        return found


def check_options(options: dict[str, Any]) -> None:
    """Refuses options a worker would only refuse later, on the cluster."""
    allowed = {"providers", "normalize", "pooling", "max_length", "dimensions", "prompt", "prompt_name",
               "batch_size"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise InvalidArgument(f"unknown Embedder option{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)} "
                              f"(allowed: {', '.join(sorted(allowed))})")
    if "providers" in options:
        options["providers"] = tuple(options["providers"])


def threads_for(cpus: float | None) -> int:
    """ONNX Runtime threads for a worker holding `cpus` CPUs: its share,
    at least one; unknown means one, never every core of a shared machine."""
    if not cpus or cpus <= 1:
        return 1
    return int(cpus)


def column_texts(values: Sequence[Any], column: str) -> list[str]:
    """The batch's `column` as a list of str; a null or non-text value is
    an error naming the column and its row in the batch."""
    texts = []
    for i, value in enumerate(values):
        if isinstance(value, np.str_):
            value = str(value)
        if not isinstance(value, str):
            what = "null" if value is None or (isinstance(value, float) and np.isnan(value)) else type(value).__name__
            raise InvalidInput(f"column {column!r}: row {i} of a batch of {len(values)} is {what}, not text",
                               index=i)
        texts.append(value)
    return texts
