"""Ollama's API on `sieve serve`, through the clients that speak it, unchanged: the official `ollama` Python
client (embed, the older embeddings, list, show, ps, its errors), LangChain's OllamaEmbeddings and LlamaIndex's
OllamaEmbedding; vectors against the stored sentence-transformers reference of all-MiniLM-L6-v2. And
/api/rerank, Sieve's extension, in the shape Ollama's community proposed."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import MODEL, ROOT
from server_harness import Server, models_root

sys.path.insert(0, str(ROOT / "tools"))
import make_cross_encoder  # noqa: E402  (tools/ on the path just above)

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
LINES = (ROOT / "tests" / "data" / "sentences.txt").read_text(encoding="utf-8").splitlines()
REFERENCE = np.load(ROOT / "tests" / "data" / "all-MiniLM-L6-v2.st-reference.npy")
# Sentences within the model's 256 tokens, with their rows of the reference.
PICKED = [i for i, line in enumerate(LINES) if 0 < len(line) < 300][:6]
TEXTS = [LINES[i] for i in PICKED]
WANT = REFERENCE[PICKED]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    make_cross_encoder.make(FIXTURES, MODEL / "tokenizer.json", name=make_cross_encoder.FOLDER)
    root = models_root(tmp_path_factory.mktemp("ollama"),
                       {"minilm": MODEL, "ce": FIXTURES / make_cross_encoder.FOLDER})
    s = Server(root)
    yield s
    assert s.stop() == 0


def url(server) -> str:
    return f"http://127.0.0.1:{server.port}"


def test_official_client(server):
    import ollama
    client = ollama.Client(host=url(server))
    got = client.embed(model="minilm", input=TEXTS, keep_alive="5m", options={"temperature": 0})
    assert got.model == "minilm" and got.prompt_eval_count > len(TEXTS)
    np.testing.assert_allclose(np.array(got.embeddings), WANT, atol=1e-5)
    one = client.embed(model="minilm:latest", input=TEXTS[0], dimensions=64)
    assert len(one.embeddings) == 1 and len(one.embeddings[0]) == 64
    legacy = client.embeddings(model="minilm", prompt=TEXTS[1])
    np.testing.assert_allclose(np.array(legacy.embedding), WANT[1], atol=1e-5)
    names = sorted(m.model for m in client.list().models)
    assert names == ["ce:latest", "minilm:latest"]
    shown = client.show("minilm")
    assert shown.capabilities == ["embedding"] and shown.modelinfo["bert.embedding_length"] == 384
    assert client.show("ce").capabilities == ["rerank"]
    assert sorted(m.model for m in client.ps().models) == names
    assert client.embed(model="minilm", input=[]).embeddings == []  # Ollama's way to load a model
    with pytest.raises(ollama.ResponseError) as missing:
        client.embed(model="minilmm", input="x")
    assert missing.value.status_code == 404 and "did you mean `minilm`?" in missing.value.error
    with pytest.raises(ollama.ResponseError) as long:
        client.embed(model="minilm", input="word " * 600, truncate=False)
    assert long.value.status_code == 400 and '"truncate": true' in long.value.error
    cut = client.embed(model="minilm", input="word " * 600)  # Ollama cuts by default
    assert len(cut.embeddings[0]) == 384
    with pytest.raises(ollama.ResponseError) as reranker:
        client.embed(model="ce", input="x")
    assert reranker.value.status_code == 400 and "reranker" in reranker.value.error


def test_langchain_and_llama_index(server):
    from langchain_ollama import OllamaEmbeddings
    from llama_index.embeddings.ollama import OllamaEmbedding
    lc = OllamaEmbeddings(model="minilm", base_url=url(server))
    np.testing.assert_allclose(np.array(lc.embed_documents(TEXTS)), WANT, atol=1e-5)
    np.testing.assert_allclose(np.array(lc.embed_query(TEXTS[2])), WANT[2], atol=1e-5)
    li = OllamaEmbedding(model_name="minilm", base_url=url(server))
    np.testing.assert_allclose(np.array(li.get_text_embedding_batch(TEXTS)), WANT, atol=1e-5)
    np.testing.assert_allclose(np.array(li.get_query_embedding(TEXTS[3])), WANT[3], atol=1e-5)


def test_rerank_extension_and_error_shapes(server):
    docs = ["Paris is the capital of France.", "Berlin is in Germany.", "Cats sleep most of the day."]
    status, _, body = server.post("/api/rerank", {"model": "ce:latest", "query": "capital of France",
                                                  "documents": docs, "top_n": 2})
    assert status == 200 and body["model"] == "ce:latest" and len(body["results"]) == 2, body
    # The same scores as the Cohere route, best first.
    _, _, cohere = server.post("/v1/rerank", {"model": "ce", "query": "capital of France", "documents": docs})
    assert body["results"] == cohere["results"][:2]
    for path, payload, status_want, needle in [
        ("/api/embed", {"input": "x"}, 400, "`model` is required"),
        ("/api/embed", {"model": "minilm", "input": 5}, 400, "`input`"),
        ("/api/embed", {"model": "minilm", "input": "x", "keep_alive": [1]}, 400, "`keep_alive`"),
        ("/api/embed", {"model": "minilm", "input": "x", "dimensions": 0}, 422, "`dimensions`"),
        ("/api/embeddings", {"model": "minilm", "prompt": ["x"]}, 400, "`prompt` must be a string"),
        ("/api/show", {}, 400, "`model` is required"),
        ("/api/show", {"model": "nope"}, 404, "does not exist"),
        ("/api/rerank", {"model": "minilm", "query": "q", "documents": ["d"]}, 400, "not a reranker"),
    ]:
        got, _, answer = server.post(path, payload)
        assert got == status_want and set(answer) == {"error"} and needle in answer["error"], (path, payload, answer)
    status, _, body = server.get("/api/version")
    assert status == 200 and body["version"]
