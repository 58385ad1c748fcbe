"""Similarity functions as sentence-transformers defines them
(sentence_transformers.util and SimilarityFunction): "cosine", "dot",
"euclidean" (the negative L2 distance) and "manhattan" (the negative L1
distance), between every pair of rows (`similarity`) or row by row
(`similarity_pairwise`). NumPy arrays in, a float32 NumPy array out; torch
tensors in (or to_tensor), a torch tensor out."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .errors import InvalidArgument

NAMES = ("cosine", "dot", "euclidean", "manhattan")
# sentence-transformers' older names of the same functions.
ALIASES = {"cos_sim": "cosine", "dot_score": "dot", "dot_product": "dot", "euclidean_sim": "euclidean",
           "manhattan_sim": "manhattan"}


def function_name(name: str | None) -> str:
    """The canonical name of a similarity function; None is cosine, sentence-transformers' default."""
    if name is None:
        return "cosine"
    key = str(getattr(name, "value", name)).lower()
    key = ALIASES.get(key, key)
    if key not in NAMES:
        raise InvalidArgument(f"unknown similarity function {name!r}: expected one of {', '.join(NAMES)}")
    return key


def folder_function_name(folder: str | os.PathLike) -> str | None:
    """similarity_fn_name from a model folder's config_sentence_transformers.json (None when unset)."""
    try:
        config = json.loads((Path(folder) / "config_sentence_transformers.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return config.get("similarity_fn_name") if isinstance(config, dict) else None


def folder_choice(folder: str | os.PathLike) -> str:
    """The similarity function a model folder names, canonical when it is one of NAMES; another name (a ColBERT
    model's "MaxSim") is kept as written, for similarity() to refuse with it."""
    name = folder_function_name(folder)
    try:
        return function_name(name)
    except InvalidArgument:
        return str(name)


def _as_matrix(x, name: str) -> tuple[np.ndarray, bool]:
    torch_in = type(x).__module__.startswith("torch")
    a = x.detach().cpu().numpy() if torch_in else np.asarray(x)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise InvalidArgument(f"{name} must be a vector or a matrix of vectors, not {a.ndim}-dimensional")
    return a.astype(np.float64, copy=False), torch_in


def _out(values: np.ndarray, to_tensor: bool):
    values = values.astype(np.float32)
    if to_tensor:
        import torch  # pylint: disable=import-outside-toplevel
        return torch.from_numpy(values)
    return values


def similarity(a, b, name: str | None = None):
    """The [len(a), len(b)] matrix of the function `name` between the rows of a and b."""
    fn = function_name(name)
    x, tx = _as_matrix(a, "a")
    y, ty = _as_matrix(b, "b")
    if x.shape[1] != y.shape[1]:
        raise InvalidArgument(f"vectors of {x.shape[1]} and {y.shape[1]} values cannot be compared")
    if fn == "cosine":
        x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
        y = y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), 1e-12)
        values = x @ y.T
    elif fn == "dot":
        values = x @ y.T
    elif fn == "euclidean":
        values = -np.sqrt(np.maximum((x * x).sum(1)[:, None] + (y * y).sum(1)[None, :] - 2 * x @ y.T, 0))
    else:
        values = -np.abs(x[:, None, :] - y[None, :, :]).sum(-1)
    return _out(values, tx or ty)


def similarity_pairwise(a, b, name: str | None = None):
    """The function `name` between a[i] and b[i], for each i."""
    fn = function_name(name)
    x, tx = _as_matrix(a, "a")
    y, ty = _as_matrix(b, "b")
    if x.shape != y.shape:
        raise InvalidArgument(f"pairwise similarity needs arrays of one shape, not {x.shape} and {y.shape}")
    if fn == "cosine":
        values = (x * y).sum(1) / np.maximum(np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1), 1e-12)
    elif fn == "dot":
        values = (x * y).sum(1)
    elif fn == "euclidean":
        values = -np.linalg.norm(x - y, axis=1)
    else:
        values = -np.abs(x - y).sum(1)
    return _out(values, tx or ty)


def to_tensor(values: np.ndarray):
    """A torch tensor of `values` (sharing its memory), for convert_to_tensor=True."""
    try:
        import torch  # pylint: disable=import-outside-toplevel
    except ImportError as exc:
        raise InvalidArgument("convert_to_tensor=True needs PyTorch (pip install torch); "
                              "without it, use the NumPy arrays encode returns") from exc
    return torch.from_numpy(np.ascontiguousarray(values))
