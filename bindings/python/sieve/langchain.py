"""Sieve models in LangChain: SieveEmbeddings (an Embeddings) and SieveRerank
(a document compressor that reranks with a cross-encoder).

    >>> from langchain_core.vectorstores import InMemoryVectorStore
    >>> from sieve.langchain import SieveEmbeddings, SieveRerank
    >>> embeddings = SieveEmbeddings("models/all-MiniLM-L6-v2")
    >>> store = InMemoryVectorStore.from_texts(["Cats purr.", "Rust has lifetimes."], embeddings)
    >>> store.similarity_search("kittens", k=1)[0].page_content
    'Cats purr.'

Everything runs locally in Sieve: nothing is sent anywhere. Needs
langchain-core (tested with 1.8.3); ContextualCompressionRetriever, which
SieveRerank is usually used with, is in langchain-classic (tested with 1.0.8).
"""
from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Union

try:
    from langchain_core.callbacks import Callbacks
    from langchain_core.documents import BaseDocumentCompressor, Document
    from langchain_core.embeddings import Embeddings
    from pydantic import BaseModel, ConfigDict, Field
except ImportError as e:  # pragma: no cover - exercised only without langchain-core
    raise ImportError("sieve.langchain needs LangChain's core package: pip install langchain-core") from e

from . import Embedder, Reranker

__all__ = ["SieveEmbeddings", "SieveRerank"]

ModelPath = Union[str, "os.PathLike[str]"]


class SieveEmbeddings(BaseModel, Embeddings):
    """LangChain embeddings computed by a Sieve embedding model, for vector
    stores, retrievers and anything else that takes an `Embeddings`.

        embeddings = SieveEmbeddings("models/all-MiniLM-L6-v2")
        embeddings = SieveEmbeddings(sieve.Embedder("models/e5-small", threads=4),
                                     query_prompt_name="query", document_prompt_name="passage")

    `model` is a model folder (loaded with `model_kwargs`, the options of
    sieve.Embedder such as threads or normalize) or a loaded sieve.Embedder,
    which may be shared with other code. Vectors are those of
    `Embedder.encode`, as lists of floats; queries are encoded with the
    model's prompt named `query_prompt_name`, documents with
    `document_prompt_name` (unset: the model's default prompt, if any).
    `batch_size` is how many texts run through the model together (unset:
    the Embedder's default).

    The async methods (aembed_documents, aembed_query) run the same work in a
    thread: Sieve releases the GIL while it computes."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", protected_namespaces=())

    model: Embedder
    """The Sieve embedding model."""
    batch_size: Optional[int] = Field(default=None, ge=1)
    """Texts per batch (unset: the Embedder's default)."""
    query_prompt_name: Optional[str] = None
    """The model's prompt put before queries (embed_query)."""
    document_prompt_name: Optional[str] = None
    """The model's prompt put before documents (embed_documents)."""

    def __init__(self, model: Union[ModelPath, Embedder], *, model_kwargs: Optional[dict[str, Any]] = None,
                 **kwargs: Any):
        """`model`: a model folder or a sieve.Embedder; `model_kwargs`: the
        sieve.Embedder options used to load a folder (threads, normalize,
        max_length, dimensions, ...)."""
        if not isinstance(model, Embedder):
            model = Embedder(os.fspath(model), **(model_kwargs or {}))
        elif model_kwargs:
            raise TypeError("model_kwargs applies when loading a model folder, not to a loaded sieve.Embedder")
        super().__init__(model=model, **kwargs)

    def _encode(self, texts: list[str], prompt_name: Optional[str]) -> list[list[float]]:
        options: dict[str, Any] = {"prompt_name": prompt_name}
        if self.batch_size is not None:
            options["batch_size"] = self.batch_size
        return self.model.encode(texts, **options).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order, computed in batches."""
        return self._encode(list(texts), self.document_prompt_name)

    def embed_query(self, text: str) -> list[float]:
        """The vector of one query."""
        return self._encode([text], self.query_prompt_name)[0]


class SieveRerank(BaseDocumentCompressor):
    """A LangChain document compressor that reorders retrieved documents by
    the scores of a Sieve reranker (a cross-encoder, or another model that
    sieve.Reranker loads) and keeps the `top_n` best, as LangChain's
    CrossEncoderReranker and Cohere's rerank do.

        from langchain_classic.retrievers import ContextualCompressionRetriever
        retriever = ContextualCompressionRetriever(
            base_compressor=SieveRerank("models/ms-marco-MiniLM-L6-v2", top_n=3),
            base_retriever=store.as_retriever(search_kwargs={"k": 20}))
        retriever.invoke("my question")

    `model` is a model folder (loaded with `model_kwargs`, the options of
    sieve.Reranker) or a loaded sieve.Reranker. The documents come back best
    first, copies of the input ones with their score (Reranker.rank's) in
    metadata["relevance_score"]; `top_n=None` keeps them all."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", protected_namespaces=())

    model: Reranker
    """The Sieve reranker."""
    top_n: Optional[int] = Field(default=3, ge=1)
    """How many documents to return (None: all of them, reordered)."""

    def __init__(self, model: Union[ModelPath, Reranker], *, model_kwargs: Optional[dict[str, Any]] = None,
                 **kwargs: Any):
        """`model`: a model folder or a sieve.Reranker; `model_kwargs`: the
        sieve.Reranker options used to load a folder (threads, max_length,
        activation, ...)."""
        if not isinstance(model, Reranker):
            model = Reranker(os.fspath(model), **(model_kwargs or {}))
        elif model_kwargs:
            raise TypeError("model_kwargs applies when loading a model folder, not to a loaded sieve.Reranker")
        super().__init__(model=model, **kwargs)

    def compress_documents(self, documents: Sequence[Document], query: str,
                           callbacks: Optional[Callbacks] = None) -> Sequence[Document]:
        """The `top_n` documents most relevant to `query`, best first, each
        with metadata["relevance_score"]."""
        documents = list(documents)
        if not documents:
            return []
        ranked = self.model.rank(query, [doc.page_content for doc in documents], top_k=self.top_n)
        out = []
        for hit in ranked:
            doc = documents[hit["corpus_id"]]
            metadata = {**doc.metadata, "relevance_score": float(hit["score"])}
            out.append(doc.model_copy(update={"metadata": metadata}))
        return out
