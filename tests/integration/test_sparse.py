"""Sparse (SPLADE) embeddings end to end on a real model, SPLADE-tiny
exported by sieve-export: `sieve embed --sparse` and the server's
/embed_sparse against sentence-transformers' SparseEncoder (reference.json,
tools/make_sparse_reference.py), pruning, tokens, and the refusals of the
wrong kind of call."""
from __future__ import annotations

import json

import numpy as np
import pytest
from tokenizers import Tokenizer

from conftest import FIXTURES_DIR, MODEL, run_sieve
from server_harness import Server, models_root

ABS_TOL = 1e-4  # every weight
TERM_FLOOR = 1e-3  # terms above it must be the same


@pytest.fixture(scope="module")
def splade(splade_tiny):
    reference = json.loads(splade_tiny.reference.read_text())
    return splade_tiny.folder, reference["texts"]


def as_dict(entries: list[dict]) -> dict[int, float]:
    ids = [e["index"] for e in entries]
    assert ids == sorted(ids) and len(set(ids)) == len(ids), "ids must ascend"
    assert all(e["value"] > 0 for e in entries)
    return {e["index"]: e["value"] for e in entries}


def assert_matches(got: dict[int, float], want_ids: list[int], want_values: list[float], label: str) -> None:
    want = dict(zip(want_ids, want_values))
    above = lambda d: {i for i, v in d.items() if v > TERM_FLOOR}  # noqa: E731
    assert above(got) == above(want), f"{label}: terms above {TERM_FLOOR} differ"
    worst = max((abs(got.get(i, 0.0) - want.get(i, 0.0)) for i in set(got) | set(want)), default=0.0)
    assert worst <= ABS_TOL, f"{label}: max |difference| {worst:.3g}"


def embed_sparse(folder, texts, *extra):
    out = run_sieve("embed", "--sparse", "--model", str(folder), *extra, "--", *texts)
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_cli_matches_sentence_transformers(splade):
    folder, texts = splade
    rows = embed_sparse(folder, [t["text"] for t in texts])
    assert len(rows) == len(texts)
    for row, t in zip(rows, texts):
        assert_matches(as_dict(row), t["indices"], t["values"], repr(t["text"][:40]))


def test_raw_logits_pooled_by_sieve_match_numpy():
    """A graph that leaves the SPLADE pooling to Sieve (tiny-splade: random
    weights, rank-3 logits; tools/make_fixtures.py), against onnxruntime's
    logits pooled by NumPy, over 40 texts in every script."""
    folder = FIXTURES_DIR / "tiny-splade"
    if not (folder / "model.onnx").exists():
        pytest.fail(f"{folder} is missing: run tools/make_fixtures.py")
    reference = json.loads((folder / "reference.json").read_text())["texts"]
    rows = embed_sparse(folder, [t["text"] for t in reference])
    assert len(rows) == len(reference)
    for row, t in zip(rows, reference):
        assert_matches(as_dict(row), t["indices"], t["values"], repr(t["text"][:40]))


def test_cli_pruning_and_tokens(splade):
    folder, texts = splade
    text = texts[0]["text"]
    full = as_dict(embed_sparse(folder, [text])[0])
    top = embed_sparse(folder, [text], "--top-k", "5", "--tokens")[0]
    heaviest = sorted(full, key=lambda i: (-full[i], i))[:5]
    assert [e["index"] for e in top] == sorted(heaviest)
    vocab = Tokenizer.from_file(str(folder / "tokenizer.json"))
    assert [e["token"] for e in top] == [vocab.id_to_token(e["index"]) for e in top]
    floor = float(np.median(list(full.values())))
    heavy = as_dict(embed_sparse(folder, [text], "--min-weight", str(floor))[0])
    assert heavy == {i: v for i, v in full.items() if v > floor}
    as_json = json.loads(run_sieve("embed", "--sparse", "--format", "json", "--model", str(folder), "--", text).stdout)
    assert as_dict(as_json[0]) == full


def test_cli_refuses_the_wrong_kind_of_call(splade, tmp_path):
    folder, _ = splade
    dense = run_sieve("embed", "--model", str(folder), "x", check=False)
    assert dense.returncode != 0 and "--sparse" in dense.stderr.decode(), dense.stderr
    sparse = run_sieve("embed", "--sparse", "--model", str(MODEL), "x", check=False)
    assert sparse.returncode != 0 and "dense embedding model" in sparse.stderr.decode(), sparse.stderr
    options = run_sieve("embed", "--model", str(MODEL), "--top-k", "3", "x", check=False)
    assert options.returncode != 0 and "--sparse only" in options.stderr.decode(), options.stderr
    npy = run_sieve("embed", "--sparse", "--format", "npy", "--model", str(folder), "x", check=False)
    assert npy.returncode != 0 and "jsonl or json" in npy.stderr.decode(), npy.stderr
    doc = tmp_path / "doc.txt"
    doc.write_text("hello world\n")
    index = run_sieve("index", "add", "--index", str(tmp_path / "index"), "--model", str(folder), str(doc),
                      check=False)
    assert index.returncode != 0 and "--sparse-model" in index.stderr.decode(), index.stderr
    assert not (tmp_path / "index").exists(), "a refused index leaves no folder behind"
    info = json.loads(run_sieve("info", "--json", "--model", str(folder)).stdout)
    assert info["kind"] == "sparse embedding" and info["dimension"] == 30522 and info["output"] == "sparse_embedding"


@pytest.fixture(scope="module")
def server(splade, tmp_path_factory):
    folder, _ = splade
    s = Server(models_root(tmp_path_factory.mktemp("sparse"), {"minilm": MODEL, "splade": folder}))
    yield s
    assert s.stop() == 0, s.output()


def test_server_embed_sparse_matches_sentence_transformers(splade, server):
    _, texts = splade
    status, _, rows = server.post("/embed_sparse", {"inputs": [t["text"] for t in texts], "truncate": True})
    assert status == 200, rows
    for row, t in zip(rows, texts):
        assert_matches(as_dict(row), t["indices"], t["values"], repr(t["text"][:40]))
    # One string is a batch of one, as Text Embeddings Inference answers it.
    status, _, one = server.post("/embed_sparse", {"inputs": texts[1]["text"], "model": "splade"})
    assert status == 200 and len(one) == 1 and as_dict(one[0]) == as_dict(rows[1])
    status, _, top = server.post("/embed_sparse", {"inputs": [texts[1]["text"]], "top_k": 3, "return_tokens": True})
    full = as_dict(rows[1])
    assert status == 200 and [e["index"] for e in top[0]] == sorted(sorted(full, key=lambda i: (-full[i], i))[:3])
    assert all(isinstance(e["token"], str) and e["token"] for e in top[0])


@pytest.mark.parametrize("path, body, status, message", [
    ("/embed", {"model": "splade", "inputs": "x"}, 400, "sparse embedding model"),
    ("/embed_sparse", {"model": "minilm", "inputs": "x"}, 400, "an embedding model, not a sparse"),
    ("/embed_sparse", {"inputs": "x", "min_weight": -1}, 422, "min_weight"),
    ("/embed_sparse", {"inputs": "x", "top_k": 0}, 422, "top_k"),
])
def test_server_refusals(server, path, body, status, message):
    got, _, answer = server.post(path, body)
    assert got == status, answer
    assert message in json.dumps(answer), answer


def test_server_info_and_default_models(server):
    status, _, info = server.get("/info?model=splade")
    assert status == 200 and info["model_type"] == {"embedding": {"pooling": "splade"}}
    # Without a model, /embed takes the dense model and /embed_sparse the sparse one.
    status, _, dense = server.post("/embed", {"inputs": "x"})
    assert status == 200 and len(dense[0]) == 384
