"""BGE-M3's three outputs from one model: a random-weight model in its layout
(XLM-RoBERTa, CLS pooling and Normalize, FlagEmbedding's colbert_linear.pt and
sparse_linear.pt; tools/make_bge_m3_fixture.py), exported by
`sieve-export export` (task bge-m3), against a reference computed from
PyTorch's token states with FlagEmbedding's definitions (reference.json):
the dense vector, the lexical (sparse) weights and the ColBERT vectors, from
the CLI and from the server."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_sieve
from server_harness import Server, models_root

TOL = 1e-5  # measured: 7e-7


@pytest.fixture(scope="module")
def m3(bge_m3_tiny):
    return bge_m3_tiny, json.loads((bge_m3_tiny / "reference.json").read_text())["texts"]


def embed(folder, texts, *extra):
    out = run_sieve("embed", "--model", str(folder), *extra, input=("\n".join(texts) + "\n").encode())
    return [json.loads(line) for line in out.stdout.splitlines()]


def assert_sparse(got_entries, want_pairs, label):
    got = {e["index"]: e["value"] for e in got_entries}
    want = dict((int(i), w) for i, w in want_pairs)
    assert set(got) == set(want), f"{label}: token ids differ"
    assert max((abs(got[i] - want[i]) for i in want), default=0.0) <= TOL, label


def test_cli_gives_all_three_outputs(m3):
    folder, ref = m3
    texts = [r["text"] for r in ref]
    dense = embed(folder, texts)
    for d, r in zip(dense, ref):
        assert np.abs(np.asarray(d) - np.asarray(r["dense"])).max() <= TOL, repr(r["text"])
    for s, r in zip(embed(folder, texts, "--sparse"), ref):
        assert_sparse(s, r["sparse"], repr(r["text"]))
    # Pruning keeps the largest weights.
    top = embed(folder, texts[1:2], "--sparse", "--top-k", "2")[0]
    want = sorted(ref[1]["sparse"], key=lambda p: -p[1])[:2]
    assert sorted(e["index"] for e in top) == sorted(int(i) for i, _ in want)
    for m, r in zip(embed(folder, texts, "--multi-vector", "--tokens"), ref):
        label = repr(r["text"][:30])
        assert m["ids"] == r["ids"][1:], f"{label}: every token but the first"
        if r["colbert"]:
            assert np.abs(np.asarray(m["vectors"]) - np.asarray(r["colbert"])).max() <= TOL, label
    assert len(m3[1][4]["ids"]) == json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"]


@pytest.fixture(scope="module")
def server(m3, tmp_path_factory):
    folder, _ = m3
    s = Server(models_root(tmp_path_factory.mktemp("m3"), {"m3": folder}))
    yield s
    assert s.stop() == 0, s.output()


def test_server_gives_all_three_outputs(m3, server):
    _, ref = m3
    texts = [r["text"] for r in ref]
    # As Text Embeddings Inference, each route refuses a long input unless told to cut it.
    for path in ("/embed", "/embed_sparse", "/embed_all"):
        status, _, answer = server.post(path, {"inputs": texts})
        assert status == 413 or status == 422, answer
        assert "more than the model's maximum of 40" in answer["error"], answer
    status, _, dense = server.post("/embed", {"inputs": texts, "truncate": True})
    assert status == 200, dense
    assert max(np.abs(np.asarray(d) - np.asarray(r["dense"])).max() for d, r in zip(dense, ref)) <= TOL
    status, _, sparse = server.post("/embed_sparse", {"inputs": texts, "truncate": True})
    assert status == 200, sparse
    for s, r in zip(sparse, ref):
        assert_sparse(s, r["sparse"], repr(r["text"]))
    status, _, tokens = server.post("/embed_all", {"inputs": texts[:3], "model": "m3", "truncate": True})
    assert status == 200, tokens
    for t, r in zip(tokens, ref):
        assert np.abs(np.asarray(t) - np.asarray(r["colbert"])).max() <= TOL
    status, _, info = server.get("/info")
    assert status == 200 and info["model_type"] == {"embedding": {"pooling": "cls"}}, info
