"""Sieve models in LlamaIndex: SieveEmbedding (an embedding model for indexes
and retrievers) and SieveRerank (a node postprocessor that reranks with a
cross-encoder).

    >>> from llama_index.core import Document, VectorStoreIndex
    >>> from sieve.llama_index import SieveEmbedding, SieveRerank
    >>> index = VectorStoreIndex.from_documents(
    ...     [Document(text="Cats purr."), Document(text="Rust has lifetimes.")],
    ...     embed_model=SieveEmbedding("models/all-MiniLM-L6-v2"))
    >>> index.as_retriever(similarity_top_k=1).retrieve("kittens")[0].text
    'Cats purr.'

Everything runs locally in Sieve: nothing is sent anywhere. Needs
llama-index-core (tested with 0.14.25).

Working offline: pass embed_model= (or set Settings.embed_model), or
LlamaIndex falls back to its default OpenAI embedding. Indexing and
retrieving need no LLM (a query engine does: Settings.llm = None gives
LlamaIndex's MockLLM). LlamaIndex's text splitters count tokens with tiktoken
and use NLTK data; llama-index-core ships both (llama_index/core/_static) and
uses them unless the TIKTOKEN_CACHE_DIR or NLTK_DATA environment variables
point elsewhere, in which case it downloads what that folder lacks.
"""
from __future__ import annotations

import asyncio
import os
from typing import Any, List, Optional, Union

try:
    from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
    from llama_index.core.bridge.pydantic import Field, PrivateAttr
    from llama_index.core.callbacks import CBEventType, EventPayload
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
except ImportError as e:  # pragma: no cover - exercised only without llama-index-core
    raise ImportError("sieve.llama_index needs LlamaIndex's core package: pip install llama-index-core") from e

from . import Embedder, Reranker

__all__ = ["SieveEmbedding", "SieveRerank"]

ModelPath = Union[str, "os.PathLike[str]"]


def _name(model: Any) -> str:
    return model if isinstance(model, str) else os.fspath(model) if isinstance(model, os.PathLike) else "sieve"


class SieveEmbedding(BaseEmbedding):
    """A LlamaIndex embedding model computed by a Sieve embedding model, for
    VectorStoreIndex, retrievers and Settings.embed_model.

        embed_model = SieveEmbedding("models/all-MiniLM-L6-v2")
        embed_model = SieveEmbedding(sieve.Embedder("models/e5-small", threads=4),
                                     query_prompt_name="query", text_prompt_name="passage")

    `model` is a model folder (loaded with `model_kwargs`, the options of
    sieve.Embedder such as threads or normalize) or a loaded sieve.Embedder,
    which may be shared with other code. Vectors are those of
    `Embedder.encode`; queries are encoded with the model's prompt named
    `query_prompt_name`, texts (nodes) with `text_prompt_name` (unset: the
    model's default prompt, if any). LlamaIndex hands texts over
    `embed_batch_size` at a time; Sieve encodes each such list in one call.
    The async methods run the same work in a thread: Sieve releases the GIL
    while it computes."""

    query_prompt_name: Optional[str] = Field(default=None, description="The model's prompt put before queries.")
    text_prompt_name: Optional[str] = Field(default=None, description="The model's prompt put before texts.")

    _model: Embedder = PrivateAttr()

    def __init__(self, model: Union[ModelPath, Embedder], *, model_kwargs: Optional[dict[str, Any]] = None,
                 embed_batch_size: int = 32, query_prompt_name: Optional[str] = None,
                 text_prompt_name: Optional[str] = None, model_name: Optional[str] = None, **kwargs: Any):
        """`model`: a model folder or a sieve.Embedder; `model_kwargs`: the
        sieve.Embedder options used to load a folder (threads, normalize,
        max_length, dimensions, ...); `model_name`: the name LlamaIndex
        reports (default: the folder)."""
        if not isinstance(model, Embedder):
            name = _name(model)
            model = Embedder(os.fspath(model), **(model_kwargs or {}))
        elif model_kwargs:
            raise TypeError("model_kwargs applies when loading a model folder, not to a loaded sieve.Embedder")
        else:
            name = "sieve"
        super().__init__(model_name=model_name or name, embed_batch_size=embed_batch_size,
                         query_prompt_name=query_prompt_name, text_prompt_name=text_prompt_name, **kwargs)
        self._model = model

    @classmethod
    def class_name(cls) -> str:
        return "SieveEmbedding"

    @property
    def model(self) -> Embedder:
        """The Sieve embedding model."""
        return self._model

    def _encode(self, texts: List[str], prompt_name: Optional[str]) -> List[Embedding]:
        return self._model.encode(texts, batch_size=self.embed_batch_size, prompt_name=prompt_name).tolist()

    def _get_query_embedding(self, query: str) -> Embedding:
        return self._encode([query], self.query_prompt_name)[0]

    async def _aget_query_embedding(self, query: str) -> Embedding:
        return await asyncio.to_thread(self._get_query_embedding, query)

    def _get_text_embedding(self, text: str) -> Embedding:
        return self._encode([text], self.text_prompt_name)[0]

    async def _aget_text_embedding(self, text: str) -> Embedding:
        return await asyncio.to_thread(self._get_text_embedding, text)

    def _get_text_embeddings(self, texts: List[str]) -> List[Embedding]:
        return self._encode(list(texts), self.text_prompt_name)

    async def _aget_text_embeddings(self, texts: List[str]) -> List[Embedding]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)


class SieveRerank(BaseNodePostprocessor):
    """A LlamaIndex node postprocessor that reorders retrieved nodes by the
    scores of a Sieve reranker (a cross-encoder, or another model that
    sieve.Reranker loads) and keeps the `top_n` best, as LlamaIndex's
    SentenceTransformerRerank does.

        reranker = SieveRerank("models/ms-marco-MiniLM-L6-v2", top_n=3)
        query_engine = index.as_query_engine(similarity_top_k=20, node_postprocessors=[reranker])
        nodes = reranker.postprocess_nodes(retrieved_nodes, query_str="my question")

    `model` is a model folder (loaded with `model_kwargs`, the options of
    sieve.Reranker) or a loaded sieve.Reranker. Each node is scored on its
    content as LlamaIndex embeds it (metadata included); the nodes come back
    best first with node.score set to the reranker's score (Reranker.rank's),
    and with keep_retrieval_score the retrieval score kept in the node's
    metadata["retrieval_score"]."""

    model: str = Field(default="sieve", description="The reranker's model folder (or name).")
    top_n: int = Field(default=2, ge=1, description="Number of nodes to return, best first.")
    keep_retrieval_score: bool = Field(default=False,
                                       description="Whether to keep the retrieval score in the node's metadata.")

    _reranker: Reranker = PrivateAttr()

    def __init__(self, model: Union[ModelPath, Reranker], *, top_n: int = 2,
                 model_kwargs: Optional[dict[str, Any]] = None, keep_retrieval_score: bool = False, **kwargs: Any):
        """`model`: a model folder or a sieve.Reranker; `model_kwargs`: the
        sieve.Reranker options used to load a folder (threads, max_length,
        activation, ...)."""
        if not isinstance(model, Reranker):
            name = _name(model)
            model = Reranker(os.fspath(model), **(model_kwargs or {}))
        elif model_kwargs:
            raise TypeError("model_kwargs applies when loading a model folder, not to a loaded sieve.Reranker")
        else:
            name = "sieve"
        super().__init__(model=name, top_n=top_n, keep_retrieval_score=keep_retrieval_score, **kwargs)
        self._reranker = model

    @classmethod
    def class_name(cls) -> str:
        return "SieveRerank"

    @property
    def reranker(self) -> Reranker:
        """The Sieve reranker."""
        return self._reranker

    def _postprocess_nodes(self, nodes: List[NodeWithScore],
                           query_bundle: Optional[QueryBundle] = None) -> List[NodeWithScore]:
        if query_bundle is None:
            raise ValueError("SieveRerank needs the query: pass query_str or query_bundle")
        if not nodes:
            return []
        texts = [node.node.get_content(metadata_mode=MetadataMode.EMBED) for node in nodes]
        with self.callback_manager.event(
            CBEventType.RERANKING,
            payload={EventPayload.NODES: nodes, EventPayload.MODEL_NAME: self.model,
                     EventPayload.QUERY_STR: query_bundle.query_str, EventPayload.TOP_K: self.top_n},
        ) as event:
            ranked = self._reranker.rank(query_bundle.query_str, texts, top_k=self.top_n)
            out = []
            for hit in ranked:
                node = nodes[hit["corpus_id"]]
                if self.keep_retrieval_score:
                    node.node.metadata["retrieval_score"] = node.score
                node.score = float(hit["score"])
                out.append(node)
            event.on_end(payload={EventPayload.NODES: out})
        return out
