"""Late interaction (ColBERT) end to end: a PyLate-layout model with random
weights (tools/make_colbert_fixture.py), exported by sieve-export, against
PyLate itself (reference.json: ColBERT.encode for queries and documents, and
MaxSim by pylate.scores). Covers `sieve embed --multi-vector`, `sieve rerank`,
the server's /embed_all, /rerank and /v1/rerank, and the refusals of calls
that want another kind of output."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import MODEL, run_sieve
from server_harness import Server, models_root

VECTOR_TOL = 1e-5  # every coordinate of every token vector (measured: 2e-7)
SCORE_TOL = 1e-4  # MaxSim sums over up to 16 query tokens (measured: 2e-6)


@pytest.fixture(scope="module")
def colbert(colbert_tiny):
    return colbert_tiny, json.loads((colbert_tiny / "reference.json").read_text())


def embed_tokens(folder, texts, *extra):
    out = run_sieve("embed", "--multi-vector", "--tokens", "--model", str(folder), *extra,
                    input=("\n".join(texts) + "\n").encode())
    return [json.loads(line) for line in out.stdout.splitlines()]


def numpy_maxsim(query, document) -> float:
    """The ColBERT paper's score: for each query token, its largest dot product
    with any document token, summed over the query's tokens."""
    q, d = np.asarray(query, dtype=np.float64), np.asarray(document, dtype=np.float64)
    return float((q @ d.T).max(axis=1).sum())


@pytest.mark.parametrize("role", ["queries", "documents"])
def test_token_vectors_match_pylate(colbert, role):
    folder, ref = colbert
    want = ref[role]
    got = embed_tokens(folder, [w["text"] for w in want], *(["--query"] if role == "queries" else []))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        label = repr(w["text"][:30])
        # The same tokens kept: marker after [CLS], expansion with [MASK] for
        # queries, punctuation skipped in documents, both cut to their length.
        assert g["ids"] == w["ids"], label
        assert len(g["tokens"]) == len(g["ids"]) and g["tokens"][0] == "[CLS]", label
        diff = np.abs(np.asarray(g["vectors"]) - np.asarray(w["vectors"])).max()
        assert diff <= VECTOR_TOL, f"{label}: max |difference| {diff:.3g}"
        norms = np.linalg.norm(np.asarray(g["vectors"]), axis=1)
        assert np.allclose(norms, 1, atol=1e-5), label
    if role == "queries":
        assert all(len(g["ids"]) == ref["query_length"] for g in got), "queries are expanded to their length"
    else:
        assert max(len(g["ids"]) for g in got) <= ref["document_length"]


def test_rerank_scores_match_pylate_maxsim(colbert):
    folder, ref = colbert
    documents = [d["text"] for d in ref["documents"]]
    for query, want in zip(ref["queries"], ref["scores"]):
        out = json.loads(run_sieve("rerank", "--model", str(folder), "--query", query["text"],
                                   input=("\n".join(documents) + "\n").encode()).stdout)
        results = out["results"] if isinstance(out, dict) else out
        got = {r["index"]: r["score"] for r in results}
        assert sorted(got) == list(range(len(documents)))
        worst = max(abs(got[i] - want[i]) for i in got)
        assert worst <= SCORE_TOL, f"{query['text']!r}: max |difference| {worst:.3g}"
        # Also the definition itself, on PyLate's vectors.
        for i, d in enumerate(ref["documents"]):
            assert abs(numpy_maxsim(query["vectors"], d["vectors"]) - want[i]) <= SCORE_TOL
        order = [r["index"] for r in results]
        assert [got[i] for i in order] == sorted(got.values(), reverse=True)


def test_python_predict_scores_pairs_by_maxsim(colbert, sieve):
    """sieve.Reranker.predict on a ColBERT model: PyLate's MaxSim for pairs of several queries in one call."""
    folder, ref = colbert
    pairs, want = [], []
    for query, scores in zip(ref["queries"], ref["scores"]):
        for document, score in zip(ref["documents"], scores):
            pairs.append((query["text"], document["text"]))
            want.append(score)
    got = sieve.Reranker(str(folder)).predict(pairs, batch_size=5)
    np.testing.assert_allclose(got, want, atol=SCORE_TOL)


@pytest.mark.parametrize("args, message", [
    (["embed", "--model", "{colbert}", "x"], "late-interaction (ColBERT) model"),
    (["embed", "--model", "{minilm}", "--multi-vector", "x"], "token vectors come from ColBERT models"),
    (["embed", "--model", "{colbert}", "--query", "x"], "--query applies to --multi-vector only"),
    (["embed", "--model", "{colbert}", "--multi-vector", "--sparse", "x"], "give one"),
    (["classify", "--model", "{colbert}", "x"], "does not classify"),
])
def test_cli_refusals(colbert, args, message):
    folder, _ = colbert
    args = [a.format(colbert=folder, minilm=MODEL) for a in args]
    done = run_sieve(*args, check=False)
    assert done.returncode != 0
    assert message in done.stderr.decode(), done.stderr.decode()


def test_info_reports_late_interaction(colbert):
    folder, ref = colbert
    info = json.loads(run_sieve("info", "--json", "--model", str(folder)).stdout)
    assert info["kind"] == "late interaction", info
    assert info["dimension"] == len(ref["queries"][0]["vectors"][0])


@pytest.fixture(scope="module")
def server(colbert, tmp_path_factory):
    folder, _ = colbert
    s = Server(models_root(tmp_path_factory.mktemp("colbert"), {"minilm": MODEL, "colbert": folder}))
    yield s
    assert s.stop() == 0, s.output()


def test_server_embed_all_and_rerank_match_pylate(colbert, server):
    _, ref = colbert
    documents = [d["text"] for d in ref["documents"]]
    status, _, rows = server.post("/embed_all", {"inputs": documents})
    assert status == 200, rows
    for row, want in zip(rows, ref["documents"]):
        assert np.abs(np.asarray(row) - np.asarray(want["vectors"])).max() <= VECTOR_TOL
    status, _, rows = server.post("/embed_all", {"inputs": ref["queries"][0]["text"], "query": True})
    assert status == 200 and len(rows) == 1 and len(rows[0]) == ref["query_length"]
    assert np.abs(np.asarray(rows[0]) - np.asarray(ref["queries"][0]["vectors"])).max() <= VECTOR_TOL

    query, want = ref["queries"][0], ref["scores"][0]
    status, _, ranked = server.post("/rerank", {"query": query["text"], "texts": documents, "model": "colbert"})
    assert status == 200, ranked
    assert max(abs(r["score"] - want[r["index"]]) for r in ranked) <= SCORE_TOL
    status, _, cohere = server.post("/v1/rerank", {"query": query["text"], "documents": documents, "top_n": 2})
    assert status == 200, cohere
    best = sorted(range(len(want)), key=lambda i: -want[i])[:2]
    assert [r["index"] for r in cohere["results"]] == best
    assert all(abs(r["relevance_score"] - want[r["index"]]) <= SCORE_TOL for r in cohere["results"])
    # Usage counts the tokens scored: the expanded query's and every document's kept ones.
    kept = ref["query_length"] + sum(len(d["ids"]) for d in ref["documents"])
    assert cohere["usage"]["total_tokens"] == kept, cohere["usage"]


@pytest.mark.parametrize("path, body, status, message", [
    ("/embed_all", {"model": "minilm", "inputs": "x"}, 400, "not a late-interaction (ColBERT) model"),
    ("/predict", {"model": "colbert", "inputs": "x"}, 422, "does not classify"),
    ("/embed", {"model": "colbert", "inputs": "x"}, 400, "not an embedding model"),
    ("/embed_all", {"inputs": []}, 400, "inputs"),
])
def test_server_refusals(server, path, body, status, message):
    got, _, answer = server.post(path, body)
    assert got == status, answer
    assert message in json.dumps(answer), answer
