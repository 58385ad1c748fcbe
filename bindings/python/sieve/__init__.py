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

import os
from typing import Sequence, Union

import numpy as np

from . import _sieve
from . import similarity as _similarity
from .errors import (Cancelled, InvalidArgument, InvalidInput, ModelNotFound, Overloaded, ParseError, RuntimeFailure,
                     SieveError, Timeout, Unsupported)

Encoding = _sieve.Encoding
Tokenizer = _sieve.Tokenizer
set_log_level = _sieve.set_log_level

__all__ = ["Embedder", "Reranker", "Registry", "Index", "SparseEmbedding", "MultiVectorEmbedding", "Tokenizer",
           "Encoding", "set_log_level", "SieveError", "InvalidArgument", "InvalidInput", "ModelNotFound",
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


class SparseEmbedding:
    """A learned sparse vector: `indices` (token ids, ascending, int64) and
    their `values` (float32 weights), as fastembed's SparseEmbedding."""

    __slots__ = ("indices", "values")

    def __init__(self, indices: np.ndarray, values: np.ndarray):
        self.indices = indices
        self.values = values

    def as_dict(self) -> dict[int, float]:
        """{token id: weight}."""
        return dict(zip(self.indices.tolist(), self.values.tolist()))

    def __len__(self) -> int:
        return len(self.indices)

    def __repr__(self) -> str:
        return f"SparseEmbedding(nonzero={len(self.indices)})"


class MultiVectorEmbedding(np.ndarray):
    """A text's token vectors, [tokens, dimension] float32 (each row
    L2-normalized), with the token id each row came from as `token_ids`."""

    token_ids: np.ndarray

    @staticmethod
    def _of(vectors: np.ndarray, ids: np.ndarray) -> "MultiVectorEmbedding":
        out = vectors.view(MultiVectorEmbedding)
        out.token_ids = ids
        return out

    def __array_finalize__(self, obj) -> None:
        self.token_ids = getattr(obj, "token_ids", None)


class Embedder:
    """An embedding model from a model folder (model.onnx, tokenizer.json
    and the sentence-transformers files), as
    sentence_transformers.SentenceTransformer; also a learned sparse model
    (SPLADE: encode_sparse) or a ColBERT model (encode_multi_vector).

    Options left unset come from the folder's files: `normalize` (its
    Normalize module), `pooling` ("mean", "cls", "max", "mean_sqrt_len",
    "lasttoken", "weightedmean"; its Pooling module), `max_length` (its
    max_seq_length), `prompt`/`prompt_name` (its default prompt).
    `dimensions` keeps the first N values of each vector (Matryoshka), then
    normalizes when normalization is on; `precision` is encode's default;
    `threads` is ONNX Runtime's intra-op threads (0: one per core);
    `providers` are tried in order ("cuda", "cuda:device_id=1", "tensorrt",
    ...), the CPU last, a provider ONNX Runtime lacks skipped.

    As in sentence-transformers, `truncate_dim` keeps the first N values of
    the model's vectors (after its own normalization: not unit length
    again, unlike `dimensions`), encode's default, and
    `similarity_fn_name` ("cosine", "dot", "euclidean", "manhattan";
    default: the folder's, else cosine) is what similarity() computes."""

    def __init__(self, folder: Union[str, "os.PathLike[str]"], *, threads: int = 0,
                 providers: Sequence[str] = (), normalize: bool | None = None, pooling: str | None = None,
                 max_length: int | None = None, dimensions: int | None = None, precision: str = "float32",
                 prompt: str | None = None, prompt_name: str | None = None, batch_size: int = 32,
                 truncate_dim: int | None = None, similarity_fn_name: str | None = None):
        if batch_size < 1:
            raise InvalidArgument("batch_size must be at least 1")
        if truncate_dim is not None and truncate_dim < 1:
            raise InvalidArgument("truncate_dim must be at least 1")
        self._load = dict(folder=os.fspath(folder), threads=threads, providers=list(providers), normalize=normalize,
                          pooling=pooling, max_length=max_length, dimensions=dimensions, prompt=prompt,
                          prompt_name=prompt_name, batch_size=batch_size)
        self._model = _sieve.Embedder(self._load["folder"], **{k: v for k, v in self._load.items() if k != "folder"})
        self._precision = precision
        self._batch_size = batch_size
        self._truncate_dim = truncate_dim
        if truncate_dim is not None and truncate_dim > self._model.dimension:
            raise InvalidArgument(f"truncate_dim {truncate_dim} exceeds the model's {self._model.dimension} dimensions")
        self._similarity_fn_name = (_similarity.function_name(similarity_fn_name) if similarity_fn_name else
                                    _similarity.folder_choice(self._model.folder))

    @classmethod
    def _wrap(cls, model: "_sieve.Embedder") -> "Embedder":
        self = cls.__new__(cls)
        # 0 lets the native model use the batch size it was loaded with.
        self._model, self._precision, self._batch_size, self._load, self._truncate_dim = model, "float32", 0, None, None
        self._similarity_fn_name = _similarity.folder_choice(model.folder)
        return self

    dimension = property(lambda self: self._model.dimension, doc="Values per vector (vocabulary size for SPLADE).")
    max_length = property(lambda self: self._model.max_length, doc="Tokens per input; longer inputs are cut.")
    normalize = property(lambda self: self._model.normalize, doc="Whether vectors are L2-normalized.")
    pooling = property(lambda self: self._model.pooling, doc='How token states become one vector ("mean", ...).')
    providers = property(lambda self: self._model.providers, doc="Execution providers the model runs on.")
    output = property(lambda self: self._model.output, doc='"dense", "sparse" (SPLADE) or "multi-vector" (ColBERT).')
    prompts = property(lambda self: dict(self._model.prompts), doc="The folder's prompts by name.")
    prompt = property(lambda self: self._model.prompt, doc="The prompt put before every input.")
    tokenizer = property(lambda self: self._model.tokenizer, doc="The model's tokenizer (a sieve.Tokenizer).")

    def get_sentence_embedding_dimension(self) -> int:
        """Values per vector encode gives by default (truncate_dim when set at load)."""
        return self._truncate_dim or self._model.dimension

    @property
    def max_seq_length(self) -> int:
        """Tokens per input, as SentenceTransformer.max_seq_length; setting it reloads the model with that length."""
        return self._model.max_length

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        if self._load is None:
            raise InvalidArgument("this model came from a Registry: load it with Embedder(folder, max_length=N)")
        load = dict(self._load, max_length=int(value))
        self._model = _sieve.Embedder(load["folder"], **{k: v for k, v in load.items() if k != "folder"})
        self._load = load

    @property
    def similarity_fn_name(self) -> str:
        """What similarity() computes: "cosine", "dot", "euclidean" or "manhattan" (or the folder's own name of
        another function, such as a ColBERT model's "MaxSim", which similarity() refuses)."""
        return self._similarity_fn_name

    @similarity_fn_name.setter
    def similarity_fn_name(self, value: str) -> None:
        self._similarity_fn_name = _similarity.function_name(value)

    def similarity(self, embeddings1, embeddings2):
        """The similarity of every row of embeddings1 with every row of embeddings2, by similarity_fn_name, as
        SentenceTransformer.similarity (a float32 NumPy array; a torch tensor for torch tensors)."""
        return _similarity.similarity(embeddings1, embeddings2, self._similarity_fn_name)

    def similarity_pairwise(self, embeddings1, embeddings2):
        """The similarity of embeddings1[i] with embeddings2[i], as SentenceTransformer.similarity_pairwise."""
        return _similarity.similarity_pairwise(embeddings1, embeddings2, self._similarity_fn_name)

    def encode_query(self, sentences: Union[str, Sequence[str]], prompt_name: str | None = None,
                     prompt: str | None = None, **kwargs):
        """encode() for search queries, as SentenceTransformer.encode_query: unless a prompt is given, the
        folder's "query" prompt, and no prompt at all (not the default one) when it has none, as
        sentence-transformers (which gives every model an empty "query" prompt) does."""
        return self.encode(sentences, **self._role_prompt("query", prompt_name, prompt), **kwargs)

    def encode_document(self, sentences: Union[str, Sequence[str]], prompt_name: str | None = None,
                        prompt: str | None = None, **kwargs):
        """encode() for the documents searched, as SentenceTransformer.encode_document: unless a prompt is given,
        the folder's "document" prompt, and no prompt at all when it has none (sentence-transformers gives every
        model an empty "document" prompt, so its fallbacks to "passage" and "corpus" never apply)."""
        return self.encode(sentences, **self._role_prompt("document", prompt_name, prompt), **kwargs)

    def _role_prompt(self, role: str, prompt_name: str | None, prompt: str | None) -> dict:
        if prompt_name is not None or prompt is not None:
            return {"prompt_name": prompt_name, "prompt": prompt}
        return {"prompt_name": role} if role in self.prompts else {"prompt": ""}

    def __repr__(self) -> str:
        return (f"Embedder({str(self._model.folder)!r}, output={self.output!r}, dimension={self.dimension}, "
                f"pooling={self.pooling!r}, normalize={self.normalize})")

    def _call_sizes(self, batch_size: int | None, truncate_dim: int | None) -> tuple[int, int | None]:
        """A call's batch size and truncate_dim, checked; unset: the constructor's."""
        if batch_size is None:
            batch_size = self._batch_size
        elif batch_size < 1:
            raise InvalidArgument("batch_size must be at least 1")
        if truncate_dim is not None and truncate_dim < 1:
            raise InvalidArgument("truncate_dim must be at least 1")
        if truncate_dim is None:
            truncate_dim = self._truncate_dim
        if truncate_dim is not None and truncate_dim > self._model.dimension:
            raise InvalidArgument(f"truncate_dim {truncate_dim} exceeds the model's {self._model.dimension} dimensions")
        return batch_size, truncate_dim

    def encode(self, sentences: Union[str, Sequence[str]], batch_size: int | None = None,
               show_progress_bar: bool = False, convert_to_numpy: bool = True,
               normalize_embeddings: bool | None = None, prompt_name: str | None = None, prompt: str | None = None,
               truncate_dim: int | None = None, precision: str | None = None, convert_to_tensor: bool = False
               ) -> Union[np.ndarray, list[np.ndarray]]:
        """The embeddings of `sentences` as SentenceTransformer.encode gives
        them: a [len(sentences), dimension] float32 array, or one 1-D vector
        for a single string; a list of 1-D arrays with convert_to_numpy=False.

        As in sentence-transformers, the model's own normalization (its
        Normalize module, or the constructor's `normalize`) always applies;
        `truncate_dim` then keeps the first N values (the constructor's by
        default), and normalize_embeddings=True makes the result unit
        length (again). prompt_name and prompt unset are the model's;
        `prompt` wins over `prompt_name` ("" for none). `batch_size` inputs of similar length
        run together (default: the constructor's, 32). `precision` quantizes
        as sentence-transformers' quantize_embeddings with the ranges of
        these vectors: "float32", "int8", "uint8", "binary", "ubinary" (and
        "float16"). show_progress_bar draws a tqdm bar when tqdm is
        installed. convert_to_tensor=True gives a torch tensor (sharing the
        array's memory) when PyTorch is installed. Ctrl-C stops the call
        between batches."""
        single = isinstance(sentences, str)
        texts = _texts([sentences] if single else sentences)
        batch_size, truncate_dim = self._call_sizes(batch_size, truncate_dim)
        precision = precision or self._precision
        cut = truncate_dim is not None and truncate_dim < self._model.dimension
        bar = _progress_bar(len(texts)) if show_progress_bar else None
        try:
            # Cut here, after the model's normalization: the library would make the cut vectors unit length.
            vectors = self._model._embed(texts, batch_size, True if normalize_embeddings and not cut else None, None,
                                         prompt_name, prompt, "float32" if cut else precision,
                                         bar.advance if bar else None)
        finally:
            if bar:
                bar.close()
        if cut:
            vectors = np.ascontiguousarray(vectors[:, :truncate_dim])
            if normalize_embeddings:
                vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            if precision != "float32":
                vectors = _sieve._quantize(vectors, precision)
        if convert_to_tensor:
            return _similarity.to_tensor(vectors[0] if single else vectors)
        if single:
            return vectors[0]
        return vectors if convert_to_numpy else list(vectors)

    def encode_late_chunks(self, chunks: Sequence[str], chunk_separator: str = " ", overlap: int | None = None,
                           batch_size: int | None = None, normalize_embeddings: bool | None = None,
                           prompt_name: str | None = None, prompt: str | None = None,
                           truncate_dim: int | None = None) -> np.ndarray:
        """Late chunking: `chunks`, consecutive parts of one document, joined by `chunk_separator` and encoded
        together (in windows of the model's maximum length sharing `overlap` text tokens when the document is
        longer, a quarter of a window by default); each chunk's vector is the model's pooling over its own tokens'
        states, so that it knows the text around it. A [len(chunks), dimension] float32 array, normalized as
        encode() normalizes (`truncate_dim` keeps the first N values, then the model's normalization applies).
        The model must pool by mean or max from its token states; a chunk without a token raises, naming it."""
        if isinstance(chunks, str):
            raise InvalidArgument("chunks must be a list of the document's consecutive parts, not one string")
        texts = _texts(chunks)
        batch_size, truncate_dim = self._call_sizes(batch_size, truncate_dim)
        if overlap is not None and overlap < 0:
            raise InvalidArgument("overlap must be at least 0")
        cut = truncate_dim is not None and truncate_dim < self._model.dimension
        # As encode(): cut after the model's normalization, which the library would apply to the cut vectors.
        vectors = self._model._embed_late_chunks(texts, chunk_separator, overlap, batch_size,
                                                 True if normalize_embeddings and not cut else None, None,
                                                 prompt_name, prompt)
        if cut:
            vectors = np.ascontiguousarray(vectors[:, :truncate_dim])
            if normalize_embeddings:
                vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors

    def encode_sparse(self, sentences: Union[str, Sequence[str]], top_k: int | None = None,
                      min_weight: float = 0.0) -> Union[SparseEmbedding, list[SparseEmbedding]]:
        """A learned sparse model's (SPLADE, or BGE-M3's lexical weights)
        vectors, as sentence-transformers' SparseEncoder.encode computes
        them: one SparseEmbedding per text (one for a single string), its
        non-zero weights by ascending token id; `top_k` keeps the largest
        weights, `min_weight` drops those at or below it."""
        single = isinstance(sentences, str)
        texts = _texts([sentences] if single else sentences)
        if top_k is not None and top_k < 1:
            raise InvalidArgument("top_k must be at least 1")
        out = [SparseEmbedding(ids, weights) for ids, weights in self._model._embed_sparse(texts, top_k or 0,
                                                                                         float(min_weight))]
        return out[0] if single else out

    def decode_sparse(self, embedding: SparseEmbedding, top_k: int | None = None) -> list[tuple[str, float]]:
        """The tokens of a sparse vector with their weights, heaviest first,
        as SparseEncoder.decode."""
        order = np.argsort(-embedding.values, kind="stable")[: top_k or None]
        tokenizer = self._model.tokenizer
        return [(tokenizer.id_to_token(int(embedding.indices[i])), float(embedding.values[i])) for i in order]

    def encode_multi_vector(self, sentences: Union[str, Sequence[str]], is_query: bool = False
                            ) -> Union[MultiVectorEmbedding, list[MultiVectorEmbedding]]:
        """A ColBERT model's (or BGE-M3's) token vectors, as PyLate's
        ColBERT.encode: one [tokens, dimension] float32 array per text,
        encoded as queries (marker, expansion to the query length) or as
        documents (marker, punctuation left out)."""
        single = isinstance(sentences, str)
        texts = _texts([sentences] if single else sentences)
        out = [MultiVectorEmbedding._of(v, ids) for v, ids in self._model._embed_tokens(texts, is_query)]
        return out[0] if single else out


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


def _pairs(sentences: Sequence[Sequence[str]]) -> tuple[bool, list[tuple[str, str]]]:
    """CrossEncoder.predict's input as pairs: one pair (a single score) or a list of them, each checked."""
    single = len(sentences) == 2 and all(isinstance(s, str) for s in sentences)
    pairs = [tuple(sentences)] if single else [tuple(p) for p in sentences]
    for i, pair in enumerate(pairs):
        if len(pair) != 2:
            raise TypeError(f"pair {i} has {len(pair)} texts, not 2")
        _texts(pair)
    return single, pairs


class Reranker:
    """A cross-encoder (or another reranker Sieve loads: an LLM reranker, a
    ColBERT model) from a model folder, as sentence_transformers.CrossEncoder.

    `activation` is how logits become scores: "auto" (the folder's
    sentence-transformers activation, else sigmoid for one label and softmax
    for several), "sigmoid", "softmax" or "none"; `max_length` cuts pairs
    (default: the model's); `threads` is ONNX Runtime's intra-op threads;
    `providers` as Embedder's."""

    def __init__(self, folder: Union[str, "os.PathLike[str]"], *, threads: int = 0, providers: Sequence[str] = (),
                 max_length: int | None = None, activation: str = "auto", batch_size: int = 32):
        self._model = _sieve.Reranker(os.fspath(folder), threads=threads, providers=list(providers),
                                      max_length=max_length, activation=activation, batch_size=batch_size)

    @classmethod
    def _wrap(cls, model: "_sieve.Reranker") -> "Reranker":
        self = cls.__new__(cls)
        self._model = model
        return self

    max_length = property(lambda self: self._model.max_length, doc="Tokens per pair; longer pairs are cut.")
    num_labels = property(lambda self: self._model.num_labels, doc="Logits per pair.")
    labels = property(lambda self: self._model.labels, doc="The labels' names, from the model's config.json.")
    activation = property(lambda self: self._model.activation, doc="How logits become scores.")
    providers = property(lambda self: self._model.providers, doc="Execution providers the model runs on.")

    def predict(self, sentences: Sequence[Sequence[str]], batch_size: int = 32, show_progress_bar: bool | None = None,
                activation_fn=None, apply_softmax: bool = False, convert_to_numpy: bool = True,
                convert_to_tensor: bool = False) -> np.ndarray:
        """One float32 score per (query, document) pair, as CrossEncoder.predict
        (an LLM reranker: its probability of "yes"; a ColBERT model: MaxSim);
        a single pair gives one score (a 0-d array). A model with several
        labels (NLI, ...) gives a row per pair: each label's probability
        (softmax), or its logits with activation="none". apply_softmax turns each row into
        probabilities (as CrossEncoder does after its activation);
        convert_to_tensor gives a torch tensor, convert_to_numpy=False a
        list. The activation is chosen at load (Reranker(folder,
        activation=...)): activation_fn is refused rather than ignored."""
        if activation_fn is not None:
            raise InvalidArgument("activation_fn is not supported: choose the activation when loading, "
                                  "Reranker(folder, activation=\"sigmoid\" | \"softmax\" | \"none\")")
        single, pairs = _pairs(sentences)
        if batch_size < 1:
            raise InvalidArgument("batch_size must be at least 1")
        rows = self._model._label_rows
        if rows:
            scores = self._model._classify_pairs(pairs, self.activation == "none")
        else:
            scores = self._model._predict(pairs, batch_size)
        scores = scores[0] if single else scores
        if apply_softmax and rows and self.activation == "none":
            e = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
        if convert_to_tensor:
            return _similarity.to_tensor(scores)
        return scores if convert_to_numpy else list(scores)


    def rank(self, query: str, documents: Sequence[str], top_k: int | None = None, return_documents: bool = False,
             batch_size: int = 32, show_progress_bar: bool | None = None, activation_fn=None,
             apply_softmax: bool = False, convert_to_numpy: bool = True, convert_to_tensor: bool = False
             ) -> list[dict]:
        """The documents best first, as CrossEncoder.rank: dicts of
        corpus_id (the document's position) and score, and text with
        return_documents; the top_k best only when given. The other
        arguments are CrossEncoder.rank's: batch size and progress bar do
        not change the scores; activation_fn is refused (see predict)."""
        if activation_fn is not None:
            raise InvalidArgument("activation_fn is not supported: choose the activation when loading, "
                                  "Reranker(folder, activation=\"sigmoid\" | \"softmax\" | \"none\")")
        if batch_size < 1:
            raise InvalidArgument("batch_size must be at least 1")
        if not isinstance(query, str):
            raise TypeError(f"query is {type(query).__name__}, not str")
        _texts([query])
        texts = _texts(documents)
        if top_k is not None and top_k < 1:
            raise InvalidArgument("top_k must be at least 1")
        ranked = self._model._rank(query, texts, top_k or 0)
        if return_documents:
            return [{"corpus_id": i, "score": s, "text": texts[i]} for i, s in ranked]
        return [{"corpus_id": i, "score": s} for i, s in ranked]


class Registry:
    """Many models in one process, addressed by name: a name is a folder
    under `root` ("minilm", "org/model"). A model is loaded on first use,
    once however many threads ask for it, and shared by every caller; with a
    `memory_budget` (bytes, estimated from the models' files) the least
    recently used models nobody holds are let go. `threads` and `providers`
    apply to every model; `shared_thread_pool` runs them all on one pool of
    threads."""

    def __init__(self, root: Union[str, "os.PathLike[str]"], *, memory_budget: int = 0, threads: int = 0,
                 providers: Sequence[str] = (), shared_thread_pool: bool = False):
        self._registry = _sieve.Registry(os.fspath(root), memory_budget=memory_budget, threads=threads,
                                         providers=list(providers), shared_thread_pool=shared_thread_pool)

    def embedder(self, name: str) -> Embedder:
        """The embedding model `name` (loaded if needed)."""
        return Embedder._wrap(self._registry._embedder(name))

    def reranker(self, name: str) -> Reranker:
        """The reranker `name` (a cross-encoder, an LLM reranker or a ColBERT model; loaded if needed)."""
        return Reranker._wrap(self._registry._reranker(name))

    def list(self) -> list[dict]:
        """Every model folder under the root: name, kind, dimension,
        max_length, providers, loaded, estimated_bytes (and error, for a
        folder that could not be described). Nothing is loaded."""
        return self._registry.list()

    def describe(self, name: str) -> dict:
        """One model as list() describes it."""
        return self._registry.describe(name)

    def load(self, name: str) -> None:
        """Loads a model now rather than on first use."""
        self._registry.load(name)

    def unload(self, name: str) -> bool:
        """Lets go of a model (False when it was not loaded); objects still holding it keep working."""
        return self._registry.unload(name)

    root = property(lambda self: self._registry.root, doc="The models' folder.")
    resident_bytes = property(lambda self: self._registry.resident_bytes,
                              doc="The loaded models' estimated memory, in bytes.")


class Index:
    """A local search index in `folder` (SQLite: documents, chunks,
    vectors, BM25 and, with a sparse model, posting lists; a nearest-neighbour
    graph beyond 20,000 chunks): the same index `sieve index` and `sieve
    search` use.

    Index(folder, model) creates the index for an Embedder (and a SPLADE
    `sparse_model`) or opens it, checking that it was built with those
    models; Index(folder) opens an existing one and loads the models it
    was built with from the folders it recorded, with `threads` and
    `providers` as Embedder takes them. `reranker`, when given, rescores the
    best candidates of every search."""

    def __init__(self, folder: Union[str, "os.PathLike[str]"], model: Embedder | None = None, *,
                 sparse_model: Embedder | None = None, reranker: Reranker | None = None,
                 chunk_tokens: int = 256, overlap_tokens: int = 32, threads: int = 0,
                 providers: Sequence[str] = ()):
        if model is None and sparse_model is not None:
            raise InvalidArgument("a sparse model needs the index's dense model too")
        self._index = _sieve.Index(os.fspath(folder), model._model if model else None,
                                   sparse_model._model if sparse_model else None, chunk_tokens, overlap_tokens)
        if model is None:
            stats = self._index._stats()
            model = Embedder(stats["model"]["path"], threads=threads, providers=providers)
            if stats.get("sparse_model"):
                sparse_model = Embedder(stats["sparse_model"]["path"], threads=threads, providers=providers)
        self.model, self.sparse_model, self.reranker = model, sparse_model, reranker

    def add(self, paths: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]], *,
            max_file_bytes: int = 256 << 20, follow_links: bool = False,
            include: Sequence[str] = (), exclude: Sequence[str] = (), keep_missing: bool = False) -> dict:
        """Reads files and folders (recursively) into the index, each file
        by its format (text, Markdown, HTML, JSONL, PDF, Office, OpenDocument,
        EPUB, e-mail, manual pages, source code, compressed files and
        archives; binary files are left out); a file already read is
        skipped unless it changed. `include` and `exclude` are glob patterns
        (a pattern without "/" matches names, one with "/" the path below
        the folder given). Files read before that no longer exist are
        removed with their documents unless `keep_missing`. Returns the report: files_seen, documents_added,
        chunks_added, ..., files_by_format, skipped_by_reason, skipped,
        warnings (an encoding guessed) and errors (files that could not be
        read or parsed: one larger than `max_file_bytes`, FIFOs, devices and
        anything under /dev, /proc or /sys, malformed content). Symbolic
        links in folders are followed only to files within the paths given,
        unless `follow_links`; the others are listed in skipped."""
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        return self._index._add([os.fspath(p) for p in paths], self.model._model,
                                self.sparse_model._model if self.sparse_model else None, max_file_bytes, follow_links,
                                list(include), list(exclude), keep_missing)

    def remove(self, sources_or_ids: Union[str, Sequence[str]]) -> int:
        """Removes the documents of these files (or these document ids); returns how many."""
        if isinstance(sources_or_ids, str):
            sources_or_ids = [sources_or_ids]
        return self._index._remove(list(sources_or_ids))

    def search(self, query: str, k: int = 10, mode: str = "hybrid", filters: dict[str, str] | None = None,
               rerank_candidates: int = 20, exact: bool = False, per_document: int = 2,
               fusion: str = "weighted", formats: Sequence[str] = (), folders: Sequence[str] = (),
               offset: int = 0) -> list[dict]:
        """The k best chunks for `query`, best first, as dicts: rank (1 for
        the best), relevance (0 to 1: the reranker's probability, the
        cosine for vector search, else the score over the best hit's),
        score, vector_score, bm25_score, sparse_score, rerank_score,
        document_id, source, title, chunk_index, text, matches (UTF-8 byte
        spans of query words in text, compared by stem), snippet (a passage
        of about 240 bytes around the matches, "…" where text was cut),
        snippet_matches (byte spans in snippet), metadata. `mode`:
        "vector", "bm25", "sparse" or "hybrid" (the index's lists fused:
        `fusion` "weighted" or "rrf"); `filters` are metadata key=value
        pairs that must all hold; `formats` keeps documents of any of these
        formats ("pdf", "markdown", "text": see stats()'s
        documents_by_format) and `folders` those from files in or below any
        of these absolute paths (on path boundaries); `offset` skips that
        many hits first (offset=k is the second page of the same ranking);
        `per_document`: at most this many chunks of one document (0: no
        limit); a reranker scores the best `rerank_candidates`."""
        if not isinstance(query, str):
            raise TypeError(f"query is {type(query).__name__}, not str")
        _texts([query])
        if k < 1:
            raise InvalidArgument("k must be at least 1")
        if per_document < 0:
            raise InvalidArgument("per_document must be 0 (no limit) or more")
        if offset < 0:
            raise InvalidArgument("offset must be 0 or more")
        if isinstance(formats, str) or isinstance(folders, str):
            raise TypeError("formats and folders are lists of strings")
        result = self._index._search(query, k, mode, list((filters or {}).items()), self.model._model,
                                     self.reranker._model if self.reranker else None,
                                     self.sparse_model._model if self.sparse_model else None, rerank_candidates,
                                     exact, per_document, fusion, list(formats),
                                     [os.fspath(f) for f in folders], offset)
        return result["hits"]

    def stats(self) -> dict:
        """What the index holds: model, sparse_model, documents, chunks, sizes on disk, ..."""
        return self._index._stats()

    def check(self) -> dict:
        """A consistency check of the index: problems (empty when sound) and notes."""
        return self._index._check()
