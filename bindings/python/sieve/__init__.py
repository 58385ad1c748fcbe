"""Sieve: text embeddings on ONNX Runtime, from Python.

    >>> import sieve
    >>> model = sieve.Embedder("models/all-MiniLM-L6-v2")
    >>> model.encode(["A sentence.", "Another one."]).shape
    (2, 384)

Vectors come back as float32 NumPy arrays that share the library's memory
(no copy); tokenizing and inference run with the GIL released, so threads
may share one model. Errors raise SieveError subclasses (sieve.errors)."""
from __future__ import annotations

from typing import Sequence, Union

import numpy as np

from . import _sieve
from .errors import (Cancelled, InvalidArgument, InvalidInput, ModelNotFound, Overloaded, ParseError, RuntimeFailure,
                     SieveError, Timeout, Unsupported)

Encoding = _sieve.Encoding
Tokenizer = _sieve.Tokenizer
set_log_level = _sieve.set_log_level

__all__ = ["Embedder", "Tokenizer", "Encoding", "set_log_level", "SieveError", "InvalidArgument", "InvalidInput", "ModelNotFound",
           "ParseError", "Unsupported", "RuntimeFailure", "Overloaded", "Timeout", "Cancelled"]


def _texts(sentences: Sequence[str]) -> list[str]:
    if isinstance(sentences, (bytes, bytearray)):
        raise TypeError("sentences must be str or a sequence of str, not bytes: decode them first")
    texts = list(sentences)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"sentence {i} is {type(text).__name__}, not str")
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as e:
                raise InvalidInput(f"text {i}: not valid Unicode: {e.reason} at character {e.start}", index=i) from None
    return texts


class Embedder(_sieve.Embedder):
    """A sentence embedding model from a model folder (model.onnx,
    tokenizer.json and the sentence-transformers files), as
    sentence_transformers.SentenceTransformer.

    Options left unset come from the folder's files: `normalize` (its
    Normalize module), `max_length` (its max_seq_length), `prompt_name`
    (its default prompt). `dimensions` keeps the first N values of each
    vector (Matryoshka), then normalizes when normalization is on;
    `threads` is ONNX Runtime's intra-op threads (0: one per core)."""

    def encode(self, sentences: Union[str, Sequence[str]]) -> np.ndarray:
        """The embeddings of `sentences`: a [len(sentences), dimension]
        float32 array, or one 1-D vector for a single string, as
        SentenceTransformer.encode gives them."""
        if isinstance(sentences, str):
            return self._embed([sentences])[0]
        return self._embed(_texts(sentences))
