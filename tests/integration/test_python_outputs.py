"""The Python package beyond encode(): per-call prompts, pooling and
providers against `sieve embed`; sparse vectors against sentence-transformers'
SparseEncoder (SPLADE-tiny's reference) and multi-vector ones against PyLate
(the ColBERT fixture's reference); sieve.Registry; sieve.Index against
`sieve search` on the same index."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import FIXTURES_DIR, MODEL, run_sieve
from test_colbert import VECTOR_TOL
from test_sparse import assert_matches

CROSS_ENCODER = FIXTURES_DIR / "cross-encoder-minilm-l6"
TEXTS = ["A man is eating food.", "The new movie is awesome!", "Cats sleep most of the day.",
         "Rust has a borrow checker."]


def cli_vectors(folder: Path, texts: list[str], *args: str) -> np.ndarray:
    return np.load(io.BytesIO(run_sieve("embed", "--model", str(folder), "--format", "npy", *args,
                                        input=("\n".join(texts) + "\n").encode()).stdout))


@pytest.fixture(scope="module")
def model(sieve):
    return sieve.Embedder(MODEL, threads=2)


def test_prompt_and_pooling_equal_the_cli(sieve, model):
    assert np.array_equal(model.encode(TEXTS, prompt="query: "), cli_vectors(MODEL, TEXTS, "--prompt", "query: "))
    assert not np.array_equal(model.encode(TEXTS, prompt="query: "), model.encode(TEXTS))
    at_load = sieve.Embedder(MODEL, prompt="query: ")
    assert at_load.prompt == "query: " and np.array_equal(at_load.encode(TEXTS), model.encode(TEXTS, prompt="query: "))
    # "" turns the model's prompt off, as sentence-transformers' prompt="".
    assert np.array_equal(at_load.encode(TEXTS, prompt=""), model.encode(TEXTS))
    cls = sieve.Embedder(MODEL, pooling="cls", precision="int8")
    assert cls.pooling == "cls"
    assert np.array_equal(cls.encode(TEXTS, precision="float32"), cli_vectors(MODEL, TEXTS, "--pooling", "cls"))
    assert cls.encode(TEXTS).dtype == np.int8
    with pytest.raises(sieve.InvalidArgument, match="pooling"):
        sieve.Embedder(MODEL, pooling="median")


def test_providers_fall_back_to_the_cpu_or_are_refused(sieve, model):
    assert model.providers == ["cpu"]
    # This ONNX Runtime has no CUDA: skipped, as `sieve embed --provider cuda` does.
    fallback = sieve.Embedder(MODEL, providers=["cuda:device_id=0"])
    assert fallback.providers == ["cpu"] and np.array_equal(fallback.encode(TEXTS), model.encode(TEXTS))
    with pytest.raises(sieve.SieveError, match="warp-drive"):
        sieve.Embedder(MODEL, providers=["warp-drive"])


def test_sparse_vectors_match_sentence_transformers(sieve, splade_tiny):
    reference = json.loads(splade_tiny.reference.read_text())["texts"]
    splade = sieve.Embedder(splade_tiny.folder)
    assert splade.output == "sparse" and splade.dimension == 30522
    got = splade.encode_sparse([t["text"] for t in reference])
    assert len(got) == len(reference)
    for vector, want in zip(got, reference):
        assert vector.indices.dtype == np.int64 and vector.values.dtype == np.float32
        assert np.all(np.diff(vector.indices) > 0)
        assert_matches(vector.as_dict(), want["indices"], want["values"], repr(want["text"][:40]))
    # Pruning and tokens as `sieve embed --sparse --top-k --min-weight --tokens`.
    text = reference[0]["text"]
    pruned = splade.encode_sparse(text, top_k=8, min_weight=0.1)
    cli = json.loads(run_sieve("embed", "--sparse", "--tokens", "--top-k", "8", "--min-weight", "0.1", "--model",
                               str(splade_tiny.folder), "--", text).stdout)
    assert pruned.indices.tolist() == [e["index"] for e in cli]
    assert np.array_equal(pruned.values, np.array([e["value"] for e in cli], dtype=np.float32))
    heaviest = sorted(cli, key=lambda e: -e["value"])
    assert [t for t, _ in splade.decode_sparse(pruned, top_k=3)] == [e["token"] for e in heaviest[:3]]
    with pytest.raises(sieve.SieveError, match="sparse"):
        splade.encode(text)
    with pytest.raises(sieve.SieveError):
        sieve.Embedder(MODEL).encode_sparse(text)


def test_token_vectors_match_pylate(sieve, colbert_tiny):
    reference = json.loads((colbert_tiny / "reference.json").read_text())
    colbert = sieve.Embedder(colbert_tiny)
    assert colbert.output == "multi-vector"
    for role, is_query in (("queries", True), ("documents", False)):
        want = reference[role]
        got = colbert.encode_multi_vector([w["text"] for w in want], is_query=is_query)
        for g, w in zip(got, want, strict=True):
            assert g.token_ids.tolist() == w["ids"], w["text"]
            assert g.dtype == np.float32 and np.abs(g - np.asarray(w["vectors"])).max() <= VECTOR_TOL
    one = colbert.encode_multi_vector(reference["queries"][0]["text"], is_query=True)
    assert one.shape == (reference["query_length"], colbert.dimension)


def test_registry_loads_each_kind_once(sieve, model, splade_tiny, tmp_path):
    root = tmp_path / "models"
    root.mkdir()
    for name, folder in (("minilm", MODEL), ("splade", splade_tiny.folder), ("reranker", CROSS_ENCODER)):
        shutil.copytree(folder, root / name)
    (root / "notes").mkdir()
    registry = sieve.Registry(root, threads=2)
    listed = {e["name"]: e for e in registry.list()}
    assert set(listed) == {"minilm", "splade", "reranker"}
    assert (listed["minilm"]["kind"], listed["minilm"]["dimension"], listed["minilm"]["loaded"]) == \
        ("embedding", 384, False)
    assert listed["splade"]["kind"] == "sparse embedding" and listed["reranker"]["kind"] == "reranker"
    embedder = registry.embedder("minilm")
    assert np.array_equal(embedder.encode(TEXTS), model.encode(TEXTS))
    assert np.array_equal(embedder.encode(TEXTS, batch_size=1), model.encode(TEXTS))
    with pytest.raises(sieve.InvalidArgument, match="batch_size"):
        embedder.encode(TEXTS, batch_size=0)
    assert registry.describe("minilm")["loaded"] and registry.resident_bytes > 0
    reranker = registry.reranker("reranker")
    assert reranker.rank("cats", TEXTS) == sieve.Reranker(CROSS_ENCODER).rank("cats", TEXTS)
    with pytest.raises(sieve.SieveError, match="reranker"):
        registry.embedder("reranker")
    with pytest.raises(sieve.SieveError, match="nothing"):
        registry.embedder("nothing")
    with pytest.raises(sieve.InvalidArgument):
        registry.embedder("../outside")
    assert registry.unload("minilm") and not registry.unload("minilm")
    # An object taken before the unload keeps its model.
    assert np.array_equal(embedder.encode(TEXTS[:1]), model.encode(TEXTS[:1]))


def cli_search(index: Path, query: str, *args: str) -> list[dict]:
    return json.loads(run_sieve("search", "--index", str(index), "--json", *args, "--", query).stdout)["hits"]


def test_index_equals_the_cli(sieve, model, splade_tiny, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cats.txt").write_text("Cats purr when they are content and sleep most of the day.\n")
    (docs / "rust.md").write_text("# Rust\n\nRust is a systems programming language with a borrow checker.\n")
    (docs / "places.jsonl").write_text(
        json.dumps({"id": "paris", "text": "The Eiffel tower stands in Paris.", "lang": "en"}) + "\n" +
        json.dumps({"id": "rome", "text": "The Colosseum stands in Rome.", "lang": "it"}) + "\n")
    folder = tmp_path / "index"
    index = sieve.Index(folder, model, sparse_model=sieve.Embedder(splade_tiny.folder))
    report = index.add(docs)
    assert (report["files_seen"], report["documents_added"], report["errors"]) == (3, 4, [])
    assert index.add([docs])["files_unchanged"] == 3
    stats = index.stats()
    assert (stats["documents"], stats["model"]["dimension"], stats["sparse_model"]["name"]) == (4, 384, "splade-tiny")
    for mode in ("vector", "bm25", "sparse", "hybrid"):
        hits = index.search("where is the tower", k=3, mode=mode)
        want = cli_search(folder, "where is the tower", "-k", "3", "--mode", mode)
        assert [(h["document_id"], h["text"]) for h in hits] == [(w["document_id"], w["text"]) for w in want], mode
        assert np.allclose([h["score"] for h in hits], [w["score"] for w in want], rtol=1e-6), mode
    assert index.search("tower", mode="vector", k=1)[0]["document_id"] == "paris"
    # Rank, relevance and snippet as the CLI gives them, with per_document and fusion passed through.
    hits = index.search("where is the tower", k=3, per_document=0, fusion="rrf")
    want = cli_search(folder, "where is the tower", "-k", "3", "--per-document", "0", "--fusion", "rrf")
    fields = ("document_id", "rank", "relevance", "snippet", "snippet_matches")
    assert [[h[f] for f in fields] for h in hits] == [[w[f] for f in fields] for w in want]
    with pytest.raises(sieve.InvalidArgument, match="per_document"):
        index.search("x", per_document=-1)
    # Formats, folders and pages as the CLI takes them.
    for args, kwargs in (
            (("--format", "markdown", "--format", "jsonl"), {"formats": ["markdown", "jsonl"]}),
            (("--folder", str(docs / "cats.txt")), {"folders": [docs / "cats.txt"]}),
            (("--offset", "1", "-k", "2"), {"offset": 1, "k": 2})):
        hits = index.search("where is the tower", **kwargs)
        want = cli_search(folder, "where is the tower", *args)
        assert hits and [(h["document_id"], h["rank"]) for h in hits] == [(w["document_id"], w["rank"]) for w in want]
    assert {h["format"] for h in index.search("tower", formats=["markdown"])} == {"markdown"}
    assert index.search("tower", offset=1, k=1)[0]["rank"] == 2
    with pytest.raises(TypeError, match="lists"):
        index.search("x", formats="pdf")
    filtered = index.search("stands in", filters={"lang": "it"})
    assert [h["document_id"] for h in filtered] == ["rome"] and filtered[0]["metadata"] == {"lang": "it"}
    # Opened again, the index loads the models it recorded; a reranker rescores.
    reopened = sieve.Index(folder, reranker=sieve.Reranker(CROSS_ENCODER), threads=1,
                           providers=["cuda:device_id=0"])
    assert reopened.sparse_model.output == "sparse" and reopened.model.providers == ["cpu"]
    with pytest.raises(sieve.SieveError, match="warp-drive"):
        sieve.Index(folder, providers=["warp-drive"])
    reranked = reopened.search("a pet that purrs", k=2)
    assert all(h["rerank_score"] is not None for h in reranked)
    assert [h["document_id"] for h in reranked] == \
        [w["document_id"] for w in cli_search(folder, "a pet that purrs", "-k", "2", "--rerank", str(CROSS_ENCODER))]
    assert reopened.check()["problems"] == []
    assert index.remove("rome") == 1 and index.stats()["documents"] == 3
    with pytest.raises(sieve.ModelNotFound):
        sieve.Index(tmp_path / "no-index")
    with pytest.raises(sieve.InvalidArgument, match="k must"):
        index.search("x", k=0)
    with pytest.raises(sieve.InvalidArgument):
        index.search("x", mode="telepathy")
    other = sieve.Embedder(MODEL, pooling="cls")
    with pytest.raises(sieve.SieveError):
        sieve.Index(folder, other).search("x", mode="vector")
