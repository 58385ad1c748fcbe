"""The LangChain and LlamaIndex adapters of the Python package
(bindings/python/sieve/langchain.py, llama_index.py), driven through each
framework's own calls: a vector store or index built with Sieve's embeddings
must find the right text and hold exactly Embedder.encode's vectors, and the
rerankers must order what a retriever found as Reranker.rank does. The
LlamaIndex tests run with the network blocked, as LlamaIndex must not
download tokenizer or NLTK data. Each framework's tests are skipped when it
is not installed (requirements.txt installs both)."""
from __future__ import annotations

import asyncio
import importlib
import os
import socket
from pathlib import Path

import numpy as np
import pytest

from conftest import MODEL

ROOT = Path(__file__).resolve().parents[2]
CROSS_ENCODER = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures")) / "cross-encoder-minilm-l6"

# Clearly distinct topics, so that the retrieval answer does not hang on
# small differences between embedding models.
TEXTS = [
    "The cat curled up on the sofa and purred while it slept.",
    "Rust's borrow checker enforces ownership and lifetimes at compile time.",
    "Preheat the oven to 200 degrees and bake the bread for forty minutes.",
    "The striker scored twice in the second half and won the football match.",
    "Jupiter is the largest planet of the solar system, a gas giant.",
    "Interest rates rose again as the central bank tried to curb inflation.",
]
QUERIES = [  # (query, index of the text it must find first)
    ("Which pet likes napping on the couch?", 0),
    ("How does a compiler check memory safety?", 1),
    ("a recipe for baking a loaf", 2),
    ("who won the soccer game", 3),
    ("the biggest planet orbiting the sun", 4),
]


@pytest.fixture(scope="module")
def model(sieve):
    return sieve.Embedder(str(MODEL))


@pytest.fixture(scope="module")
def reranker(sieve):
    if not (CROSS_ENCODER / "model.onnx").exists():
        pytest.fail(f"{CROSS_ENCODER} is missing: run tools/make_cross_encoder.py (scripts/test.sh does)")
    return sieve.Reranker(str(CROSS_ENCODER))


def ranked_texts(reranker, query: str, texts: list[str], top_n: int) -> list[tuple[str, float]]:
    return [(texts[hit["corpus_id"]], hit["score"]) for hit in reranker.rank(query, texts, top_k=top_n)]


# ---- LangChain

@pytest.fixture(scope="module")
def lc(sieve):
    """sieve.langchain, skipped without langchain-core."""
    pytest.importorskip("langchain_core")
    return importlib.import_module("sieve.langchain")


def test_langchain_vector_store_finds_each_topic(lc, model):
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(embedding=lc.SieveEmbeddings(model))
    ids = store.add_texts(TEXTS, metadatas=[{"i": i} for i in range(len(TEXTS))])
    for query, want in QUERIES:
        found = store.similarity_search(query, k=1)
        assert [d.page_content for d in found] == [TEXTS[want]], query
        assert found[0].metadata == {"i": want}
    # The stored vectors are Embedder.encode's, bit for bit.
    stored = np.array([store.store[i]["vector"] for i in ids], dtype=np.float32)
    np.testing.assert_array_equal(stored, model.encode(TEXTS))


def test_langchain_embeddings_equal_encode(lc, model):
    embeddings = lc.SieveEmbeddings(str(MODEL), batch_size=2)
    query = QUERIES[0][0]
    vector = embeddings.embed_query(query)
    assert isinstance(vector, list) and all(type(v) is float for v in vector) and len(vector) == model.dimension
    np.testing.assert_array_equal(np.array(vector, dtype=np.float32), model.encode(query))
    documents = embeddings.embed_documents(TEXTS)
    assert len(documents) == len(TEXTS) and all(isinstance(v, list) for v in documents)
    np.testing.assert_array_equal(np.array(documents, dtype=np.float32), model.encode(TEXTS, batch_size=2))
    assert embeddings.embed_documents([]) == []
    # The async variants (LangChain's defaults, in a thread) give the same.
    assert asyncio.run(embeddings.aembed_query(query)) == vector
    assert asyncio.run(embeddings.aembed_documents(TEXTS)) == documents


def test_langchain_from_texts_and_prompt_names(lc, model, sieve):
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore.from_texts(TEXTS, lc.SieveEmbeddings(model))
    assert store.similarity_search(QUERIES[4][0], k=1)[0].page_content == TEXTS[4]
    # Prompt names reach encode (this model defines none: the same error as encode's).
    with pytest.raises(sieve.InvalidArgument) as direct:
        model.encode("x", prompt_name="query")
    with pytest.raises(sieve.InvalidArgument) as adapted:
        lc.SieveEmbeddings(model, query_prompt_name="query").embed_query("x")
    assert str(adapted.value) == str(direct.value)
    with pytest.raises(sieve.InvalidArgument):
        lc.SieveEmbeddings(model, document_prompt_name="passage").embed_documents(["x"])
    with pytest.raises(TypeError, match="model_kwargs"):
        lc.SieveEmbeddings(model, model_kwargs={"threads": 1})


def test_langchain_rerank_in_contextual_compression(lc, model, reranker):
    pytest.importorskip("langchain_classic")
    from langchain_classic.retrievers import ContextualCompressionRetriever
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore.from_texts(TEXTS, lc.SieveEmbeddings(model), metadatas=[{"i": i} for i in range(6)])
    base = store.as_retriever(search_kwargs={"k": 5})
    retriever = ContextualCompressionRetriever(base_compressor=lc.SieveRerank(reranker, top_n=3),
                                               base_retriever=base)
    for query, _ in QUERIES[:3]:
        candidates = [d.page_content for d in base.invoke(query)]
        got = retriever.invoke(query)
        want = ranked_texts(reranker, query, candidates, 3)
        assert [d.page_content for d in got] == [text for text, _ in want]
        assert [d.metadata["relevance_score"] for d in got] == pytest.approx([s for _, s in want], abs=0)
        assert all(d.metadata["i"] == TEXTS.index(d.page_content) for d in got)
    # The compressor itself: top_n=None keeps every document, input documents untouched.
    from langchain_core.documents import Document

    documents = [Document(page_content=t, metadata={"i": i}) for i, t in enumerate(TEXTS)]
    everything = lc.SieveRerank(str(CROSS_ENCODER), top_n=None).compress_documents(documents, "planets")
    assert [d.page_content for d in everything] == [t for t, _ in ranked_texts(reranker, "planets", TEXTS, None)]
    assert all("relevance_score" not in d.metadata for d in documents)
    assert lc.SieveRerank(reranker).compress_documents([], "q") == []


# ---- LlamaIndex

@pytest.fixture(scope="module")
def no_network():
    """Makes every socket connection and name lookup fail, and clears the
    variables that would point LlamaIndex's tiktoken and NLTK data elsewhere
    than the copies llama-index-core ships."""
    def refuse(*args, **kwargs):
        raise OSError("network access in a test (blocked by test_python_adapters.py)")

    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
        patch.delenv("NLTK_DATA", raising=False)
        for name in ("getaddrinfo", "create_connection"):
            patch.setattr(socket, name, refuse)
        patch.setattr(socket.socket, "connect", refuse)
        patch.setattr(socket.socket, "connect_ex", refuse)
        yield


@pytest.fixture(scope="module")
def li(sieve, no_network):
    """sieve.llama_index, skipped without llama-index-core."""
    pytest.importorskip("llama_index.core")
    return importlib.import_module("sieve.llama_index")


@pytest.fixture(scope="module")
def index(li, model):
    from llama_index.core import Document, VectorStoreIndex

    documents = [Document(text=t, doc_id=f"doc-{i}") for i, t in enumerate(TEXTS)]
    return VectorStoreIndex.from_documents(documents, embed_model=li.SieveEmbedding(model))


def test_llama_index_retrieves_each_topic(index, model):
    from llama_index.core.schema import MetadataMode

    retriever = index.as_retriever(similarity_top_k=2)
    for query, want in QUERIES:
        nodes = retriever.retrieve(query)
        assert len(nodes) == 2 and nodes[0].node.get_content() == TEXTS[want], query
        assert nodes[0].node.ref_doc_id == f"doc-{want}"
    # The stored vectors are Embedder.encode's of what LlamaIndex embedded (each text is one node).
    store = index.vector_store
    by_doc = {}
    for node_id, doc_id in store.data.text_id_to_ref_doc_id.items():
        by_doc[doc_id] = store.get(node_id)
    stored = np.array([by_doc[f"doc-{i}"] for i in range(len(TEXTS))], dtype=np.float32)
    contents = [n.get_content(metadata_mode=MetadataMode.EMBED) for n in index.docstore.docs.values()]
    assert sorted(contents) == sorted(TEXTS)
    np.testing.assert_array_equal(stored, model.encode(TEXTS))


def test_llama_index_embeddings_equal_encode(li, model, sieve):
    embed = li.SieveEmbedding(str(MODEL), embed_batch_size=4)
    assert embed.model_name == str(MODEL) and embed.class_name() == "SieveEmbedding"
    query = QUERIES[1][0]
    vector = embed.get_query_embedding(query)
    np.testing.assert_array_equal(np.array(vector, dtype=np.float32), model.encode(query))
    assert asyncio.run(embed.aget_query_embedding(query)) == vector
    np.testing.assert_array_equal(np.array(embed.get_text_embedding(TEXTS[0]), dtype=np.float32),
                                  model.encode(TEXTS[0]))
    # LlamaIndex's batching: 6 texts in lists of embed_batch_size=4, each list one encode call.
    batch = embed.get_text_embedding_batch(TEXTS)
    np.testing.assert_array_equal(np.array(batch, dtype=np.float32),
                                  np.concatenate([model.encode(TEXTS[:4]), model.encode(TEXTS[4:])]))
    assert asyncio.run(embed.aget_text_embedding_batch(TEXTS)) == batch
    with pytest.raises(sieve.InvalidArgument):
        li.SieveEmbedding(model, query_prompt_name="query").get_query_embedding("x")


def test_llama_index_rerank(li, index, reranker):
    from llama_index.core.schema import MetadataMode

    retriever = index.as_retriever(similarity_top_k=5)
    postprocessor = li.SieveRerank(reranker, top_n=3, keep_retrieval_score=True)
    for query, _ in QUERIES[:3]:
        nodes = retriever.retrieve(query)
        # What the reranker must score: each node's content as LlamaIndex embeds it.
        ids = [n.node.node_id for n in nodes]
        candidates = [n.node.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes]
        retrieval = {n.node.node_id: n.score for n in nodes}
        want = reranker.rank(query, candidates, top_k=3)
        got = postprocessor.postprocess_nodes(nodes, query_str=query)
        assert [n.node.node_id for n in got] == [ids[hit["corpus_id"]] for hit in want]
        assert [n.score for n in got] == pytest.approx([hit["score"] for hit in want], abs=0)
        assert all(n.node.metadata["retrieval_score"] == retrieval[n.node.node_id] for n in got)
    # Asynchronously (LlamaIndex runs it in a thread), from a model folder.
    query = QUERIES[3][0]
    nodes = retriever.retrieve(query)
    ids = [n.node.node_id for n in nodes]
    want = reranker.rank(query, [n.node.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes], top_k=2)
    got = asyncio.run(li.SieveRerank(str(CROSS_ENCODER), top_n=2).apostprocess_nodes(nodes, query_str=query))
    assert [n.node.node_id for n in got] == [ids[hit["corpus_id"]] for hit in want]
    assert postprocessor.postprocess_nodes([], query_str="q") == []
    with pytest.raises(ValueError, match="query"):
        postprocessor.postprocess_nodes(nodes)
