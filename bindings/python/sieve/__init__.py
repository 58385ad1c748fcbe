"""Sieve: text embeddings on ONNX Runtime, from Python.

    >>> import sieve
    >>> model = sieve.Embedder("models/all-MiniLM-L6-v2")
    >>> model.encode(["A sentence.", "Another one."]).shape
    (2, 384)
    >>> reranker = sieve.Reranker("models/my-cross-encoder")
    >>> reranker.rank("a query", ["a document", "another"], top_k=1)
    [{'corpus_id': 0, 'score': 0.93}]

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

__all__ = ["Embedder", "Reranker", "Tokenizer", "Encoding", "set_log_level", "SieveError", "InvalidArgument", "InvalidInput", "ModelNotFound",
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

    def encode(self, sentences: Union[str, Sequence[str]], batch_size: int = 32,
               show_progress_bar: bool = False, convert_to_numpy: bool = True,
               normalize_embeddings: bool | None = None, prompt_name: str | None = None,
               truncate_dim: int | None = None, precision: str = "float32") -> Union[np.ndarray, list[np.ndarray]]:
        """The embeddings of `sentences` as SentenceTransformer.encode gives
        them: a [len(sentences), dimension] float32 array, or one 1-D vector
        for a single string; a list of 1-D arrays with convert_to_numpy=False.

        Unset, normalize_embeddings, prompt_name and truncate_dim are the
        model's (as the constructor set them); `batch_size` inputs of similar
        length run together. `precision` quantizes as sentence-transformers'
        quantize_embeddings with the ranges of these vectors: "float32",
        "int8", "uint8", "binary", "ubinary" (and "float16"). show_progress_bar draws a tqdm bar when tqdm is
        installed. Ctrl-C stops the call between batches."""
        single = isinstance(sentences, str)
        texts = [sentences] if single else _texts(sentences)
        if single:
            _texts(texts)
        if batch_size < 1:
            raise InvalidArgument("batch_size must be at least 1")
        if truncate_dim is not None and truncate_dim < 1:
            raise InvalidArgument("truncate_dim must be at least 1")
        bar = _progress_bar(len(texts)) if show_progress_bar else None
        try:
            vectors = self._embed(texts, batch_size, normalize_embeddings, truncate_dim, prompt_name, precision,
                                  bar.advance if bar else None)
        finally:
            if bar:
                bar.close()
        if single:
            return vectors[0]
        return vectors if convert_to_numpy else list(vectors)


class _progress_bar:
    """A tqdm bar over the inputs (nothing when tqdm is not installed)."""

    def __init__(self, total: int):
        try:
            from tqdm.auto import tqdm
        except ImportError:
            self._bar = None
        else:
            self._bar = tqdm(total=total, desc="Batches", unit="text")
        self._done = 0

    def advance(self, done: int, total: int) -> None:
        if self._bar is not None:
            self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class Reranker(_sieve.Reranker):
    """A cross-encoder (or another reranker Sieve loads: an LLM reranker, a
    ColBERT model) from a model folder, as sentence_transformers.CrossEncoder.

    `activation` is how logits become scores: "auto" (the folder's
    sentence-transformers activation, else sigmoid for one label and softmax
    for several), "sigmoid", "softmax" or "none"; `max_length` cuts pairs
    (default: the model's); `threads` is ONNX Runtime's intra-op threads."""

    def predict(self, sentences: Sequence[Sequence[str]], batch_size: int = 32) -> np.ndarray:
        """One float32 score per (query, document) pair, as CrossEncoder.predict;
        a single pair gives one score (a 0-d array)."""
        single = len(sentences) == 2 and all(isinstance(s, str) for s in sentences)
        pairs = [tuple(sentences)] if single else [tuple(p) for p in sentences]
        for i, pair in enumerate(pairs):
            if len(pair) != 2:
                raise TypeError(f"pair {i} has {len(pair)} texts, not 2")
            _texts(pair)
        scores = self._predict(pairs, batch_size)
        return scores[0] if single else scores

    def rank(self, query: str, documents: Sequence[str], top_k: int | None = None,
             return_documents: bool = False) -> list[dict]:
        """The documents best first, as CrossEncoder.rank: dicts of
        corpus_id (the document's position) and score, and text with
        return_documents; the top_k best only when given."""
        if not isinstance(query, str):
            raise TypeError(f"query is {type(query).__name__}, not str")
        _texts([query])
        texts = _texts(documents)
        if top_k is not None and top_k < 1:
            raise InvalidArgument("top_k must be at least 1")
        ranked = self._rank(query, texts, top_k or 0)
        if return_documents:
            return [{"corpus_id": i, "score": s, "text": texts[i]} for i, s in ranked]
        return [{"corpus_id": i, "score": s} for i, s in ranked]
