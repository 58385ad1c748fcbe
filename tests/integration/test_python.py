"""The Python package (bindings/python): its extension module as
scripts/bootstrap.sh builds it (build/bindings/python, for .venv's Python)
beside the package's own files, imported into this process. Vectors against
`sieve embed` (bit for bit) and the stored sentence-transformers reference,
the tokenizer against Hugging Face tokenizers, threads sharing one model,
and the exceptions bad input raises."""
from __future__ import annotations

import gc
import io
import json
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer as HfTokenizer

import tier
from conftest import MODEL, ROOT, model_type, run_sieve, tokenizer_files

SENTENCES = ROOT / "tests" / "data" / "sentences.txt"
REFERENCE_NPY = ROOT / "tests" / "data" / "all-MiniLM-L6-v2.st-reference.npy"
@pytest.fixture(scope="module")
def model(sieve):
    return sieve.Embedder(str(MODEL))


def sentences() -> list[str]:
    return SENTENCES.read_text(encoding="utf-8").splitlines()


def test_vectors_equal_the_cli_bit_for_bit(model):
    texts = sentences()
    cli = np.load(io.BytesIO(run_sieve("embed", "--model", str(MODEL), "--format", "npy",
                                       input=("\n".join(texts) + "\n").encode()).stdout))
    got = model.encode(texts)
    assert got.dtype == np.float32 and got.shape == cli.shape == (len(texts), 384)
    assert np.array_equal(got, cli)


def test_vectors_match_sentence_transformers(model):
    want = np.load(REFERENCE_NPY)
    got = model.encode(sentences())
    diff = np.abs(got - want).max()
    print(f"\nPython package vs sentence-transformers: {len(got)} sentences, max |difference| {diff:.3g}")
    assert diff <= 1e-5


def test_shapes_as_sentence_transformers_gives_them(model):
    one = model.encode("A single sentence.")
    assert one.shape == (384,) and abs(np.linalg.norm(one) - 1) < 1e-5
    assert np.array_equal(one, model.encode(["A single sentence."])[0])
    assert model.encode([]).shape == (0, 384)
    assert model.encode(("a", "b")).shape == (2, 384)
    assert (model.dimension, model.max_length, model.normalize, model.pooling) == (384, 256, True, "mean")


def test_arrays_share_the_library_memory(sieve):
    local = sieve.Embedder(str(MODEL), threads=1)
    vectors = local.encode(["one", "two"])
    assert not vectors.flags.owndata and vectors.base is not None and vectors.flags.c_contiguous
    want = vectors.copy()
    del local
    gc.collect()
    # The array owns its data, not the model: it outlives it.
    assert np.array_equal(vectors, want)


def test_threads_share_one_model(model):
    texts = sentences()[:64]
    want = model.encode(texts)
    got: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        rows = list(range(k, len(texts), 8))
        got[k] = (rows, model.encode([texts[i] for i in rows]))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8
    for rows, vectors in got.values():
        # Batch composition may move the last bits (as in sieve embed); the rows are the same vectors.
        assert np.abs(vectors - want[rows]).max() <= 1e-5


def test_options_are_read_from_the_folder_or_given(sieve):
    raw = sieve.Embedder(str(MODEL), normalize=False, dimensions=128, max_length=16)
    assert (raw.normalize, raw.dimension, raw.max_length) == (False, 128, 16)
    vector = raw.encode("A sentence long enough to be cut at sixteen tokens by the limit given above.")
    assert vector.shape == (128,) and abs(np.linalg.norm(vector) - 1) > 1e-3
    cli = np.load(io.BytesIO(run_sieve(
        "embed", "--model", str(MODEL), "--format", "npy", "--no-normalize", "--dimensions", "128", "--max-length",
        "16", "A sentence long enough to be cut at sixteen tokens by the limit given above.").stdout))
    assert np.array_equal(vector, cli[0])


def cli_vectors(texts: list[str], *args: str) -> np.ndarray:
    return np.load(io.BytesIO(run_sieve("embed", "--model", str(MODEL), "--format", "npy", *args,
                                        input=("\n".join(texts) + "\n").encode()).stdout))


def test_per_call_options_follow_sentence_transformers(sieve, model):
    """As SentenceTransformer.encode: the model's Normalize module always applies (normalize_embeddings=False does
    not turn it off), truncate_dim cuts after it, normalize_embeddings=True makes the cut vectors unit length
    (the CLI's --dimensions)."""
    texts = sentences()[:40]
    full = cli_vectors(texts, "--batch-size", "5")
    got = model.encode(texts, normalize_embeddings=False, truncate_dim=96, batch_size=5)
    assert got.shape == (40, 96) and np.array_equal(got, full[:, :96])
    assert np.array_equal(model.encode(texts, normalize_embeddings=False, batch_size=5), full)
    unit = model.encode(texts, truncate_dim=64, normalize_embeddings=True)
    np.testing.assert_allclose(unit, cli_vectors(texts, "--dimensions", "64"), atol=1e-6)
    assert np.allclose(np.linalg.norm(unit, axis=1), 1, atol=1e-5)
    int8 = model.encode(texts, truncate_dim=32, precision="int8")
    assert int8.dtype == np.int8 and int8.shape == (40, 32)
    rows = model.encode(texts[:3], convert_to_numpy=False)
    assert isinstance(rows, list) and len(rows) == 3 and rows[0].shape == (384,)
    with pytest.raises(sieve.InvalidArgument, match="exceeds the model's 384 dimensions"):
        model.encode(texts, truncate_dim=385)
    with pytest.raises(sieve.InvalidArgument, match="batch_size"):
        model.encode(texts, batch_size=0)


@pytest.mark.parametrize("precision", ["float16", "int8", "uint8", "binary", "ubinary"])
def test_precision_equals_the_cli(model, precision):
    """sentence-transformers' quantize_embeddings, with the ranges of the vectors themselves (the
    CLI's --precision, checked against a NumPy copy of that function in test_embedding_options.py)."""
    texts = sentences()[:30]
    got = model.encode(texts, precision=precision)
    want = cli_vectors(texts, "--precision", precision)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert not got.flags.owndata


def test_progress_and_interruption_between_batches(model):
    texts = sentences()[:50]
    seen = []
    got = model._model._embed(texts, 8, None, None, None, None, "float32", lambda done, total: seen.append((done, total)))
    assert np.array_equal(got, model.encode(texts, batch_size=8))
    assert seen[-1] == (50, 50) and len(seen) >= 7 and [d for d, _ in seen] == sorted(d for d, _ in seen)
    # Ctrl-C: a SIGINT arriving during the call stops it at the next batch with KeyboardInterrupt.
    import signal
    calls = []

    def interrupt(done, total):
        calls.append(done)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        model._model._embed(texts, 8, None, None, None, None, "float32", interrupt)
    assert len(calls) <= 2
    # An exception of the callback comes out as it is; the model goes on working.
    def fail(done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        model._model._embed(texts, 8, None, None, None, None, "float32", fail)
    assert model.encode(texts[:2]).shape == (2, 384)
    model.encode(texts[:20], show_progress_bar=True)  # tqdm when installed, else nothing


@pytest.mark.parametrize("path", tier.sample(tokenizer_files(), 4, "python-tokenizers"),
                         ids=lambda p: p.parent.name)
def test_tokenizer_matches_hugging_face(sieve, path):
    texts = tier.sample(sentences(), 40, f"python-tokenizer-{path.parent.name}") + ["", "  ", "naïve café ☕ 東京"]
    ours = sieve.Tokenizer.from_file(str(path))
    theirs = HfTokenizer.from_file(str(path))
    is_unigram = model_type(path) == "Unigram"
    unk_id = json.loads(path.read_text(encoding="utf-8"))["model"].get("unk_id")
    for mine, want, text in zip(ours.encode_batch(texts), theirs.encode_batch(texts), texts):
        assert mine.ids == want.ids, text
        # Known gap: for a piece a Unigram model does not know, Hugging Face reports the piece's
        # own text where Sieve reports the unknown token's string; the ids agree.
        known = [i for i, token_id in enumerate(want.ids) if not (is_unigram and token_id == unk_id)]
        assert [mine.tokens[i] for i in known] == [want.tokens[i] for i in known], text
        assert mine.offsets == want.offsets, text
        assert mine.type_ids == want.type_ids, text
        assert mine.attention_mask == want.attention_mask, text
        assert mine.special_tokens_mask == want.special_tokens_mask, text
    single = ours.encode(texts[0], add_special_tokens=False)
    assert single.ids == theirs.encode(texts[0], add_special_tokens=False).ids
    assert ours.get_vocab_size() == theirs.get_vocab_size()


def test_bad_input_raises_the_right_exception(sieve, model, tmp_path):
    with pytest.raises(sieve.ModelNotFound, match="not found") as missing:
        sieve.Embedder(str(tmp_path / "nowhere"))
    assert isinstance(missing.value, FileNotFoundError) and isinstance(missing.value, sieve.SieveError)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "model.onnx").write_bytes(b"not a model")
    (tmp_path / "junk" / "tokenizer.json").write_text("{")
    with pytest.raises(sieve.SieveError, match="junk"):
        sieve.Embedder(str(tmp_path / "junk"))
    # More threads than 4 per hardware thread: refused before any is started.
    with pytest.raises(sieve.InvalidArgument, match=f"threads 1000000: at most {4 * os.cpu_count()} threads"):
        sieve.Embedder(str(MODEL), threads=1_000_000)
    with pytest.raises(TypeError, match="sentence 1 is int"):
        model.encode(["fine", 3])
    with pytest.raises(TypeError, match="bytes"):
        model.encode(b"bytes")
    with pytest.raises(sieve.InvalidInput, match="text 1: not valid Unicode") as bad:
        model.encode(["fine", "a lone surrogate \udcff"])
    assert bad.value.index == 1
    with pytest.raises(sieve.InvalidArgument, match="log level"):
        sieve.set_log_level("loud")
    with pytest.raises(sieve.ModelNotFound):
        sieve.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    with pytest.raises(sieve.ParseError):
        sieve.Tokenizer.from_file(str(tmp_path / "junk" / "tokenizer.json"))
    # The model still works after all of that.
    assert model.encode("still here").shape == (384,)


# ---- Reranker: the fixture cross-encoder (tools/make_cross_encoder.py) against the stored
# CrossEncoder.predict reference (tests/integration/test_rerank.py has the details).

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
CROSS_ENCODER = FIXTURES / "cross-encoder-minilm-l6"
PAIRS = ROOT / "tests" / "data" / "cross-encoder-pairs.json"
CE_REFERENCE = ROOT / "tests" / "data" / "cross-encoder-minilm-l6.ce-reference.json"


@pytest.fixture(scope="module")
def reranker(sieve):
    if not (CROSS_ENCODER / "model.onnx").exists():
        pytest.fail(f"{CROSS_ENCODER} is missing: run tools/make_cross_encoder.py (scripts/test.sh does)")
    return sieve.Reranker(str(CROSS_ENCODER))


def test_reranker_matches_cross_encoder(reranker):
    groups = json.loads(PAIRS.read_text(encoding="utf-8"))["groups"]
    reference = json.loads(CE_REFERENCE.read_text(encoding="utf-8"))["groups"]
    worst = 0.0
    for group, want in zip(groups, reference):
        query, documents, want = group["query"], group["documents"], np.array(want["default"])
        ranked = reranker.rank(query, documents)
        assert sorted(r["corpus_id"] for r in ranked) == list(range(len(documents)))
        scores = np.array([r["score"] for r in sorted(ranked, key=lambda r: r["corpus_id"])])
        assert [r["score"] for r in ranked] == sorted(scores, reverse=True)
        predicted = reranker.predict([(query, d) for d in documents], batch_size=7)
        assert predicted.dtype == np.float32 and predicted.shape == (len(documents),)
        worst = max(worst, float(np.abs(scores - want).max()), float(np.abs(predicted - want).max()))
    print(f"\nPython Reranker vs CrossEncoder: largest difference {worst:.3g}")
    assert worst <= 1e-4


def test_rank_equals_the_cli(reranker):
    group = json.loads(PAIRS.read_text(encoding="utf-8"))["groups"][0]
    query, documents = group["query"], group["documents"]
    cli = json.loads(run_sieve("rerank", "--model", str(CROSS_ENCODER), "--query", query, "--top-k", "3",
                               input="".join(d + "\n" for d in documents).encode()).stdout)["results"]
    got = reranker.rank(query, documents, top_k=3, return_documents=True)
    assert [(r["corpus_id"], np.float32(r["score"])) for r in got] == \
        [(r["index"], np.float32(r["score"])) for r in cli]
    assert all(r["text"] == documents[r["corpus_id"]] for r in got)
    one = reranker.predict((query, documents[got[0]["corpus_id"]]))
    assert one.shape == () and abs(float(one) - got[0]["score"]) <= 1e-6


def test_reranker_refusals(sieve, reranker):
    with pytest.raises(TypeError, match="not 2"):
        reranker.predict([("a", "b", "c")])
    with pytest.raises(TypeError, match="int"):
        reranker.rank("q", ["fine", 7])
    with pytest.raises(sieve.InvalidArgument, match="top_k"):
        reranker.rank("q", ["d"], top_k=0)
    with pytest.raises(sieve.InvalidArgument, match="activation"):
        sieve.Reranker(str(CROSS_ENCODER), activation="cube")
    assert reranker.predict([]).shape == (0,) and reranker.rank("q", []) == []


def test_a_model_of_another_kind_is_refused(sieve):
    with pytest.raises(sieve.Unsupported, match="is a cross-encoder or classifier .*not an embedding model"):
        sieve.Embedder(str(CROSS_ENCODER))
    with pytest.raises(sieve.Unsupported, match="not a cross-encoder.*use it with sieve embed"):
        sieve.Reranker(str(FIXTURES / "tiny-bert-tokens"))


def resident_bytes() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_no_growth_over_many_calls(model, reranker, sieve):
    """Calls of every kind (10,000 in the full tier) leave resident memory and
    Python's own heap where a warm-up left them."""
    import tracemalloc
    calls = tier.fast_or_full(600, 10000)
    tokenizer = sieve.Tokenizer.from_file(str(MODEL / "tokenizer.json"))
    texts = sentences()

    def round_of(i: int) -> None:
        text = texts[i % len(texts)][:80]
        if i % 10 == 9:
            reranker.predict([(text, texts[(i + 1) % len(texts)][:80])])
        elif i % 10 == 8:
            tokenizer.encode_batch([text])
        elif i % 100 == 7:
            with pytest.raises(sieve.InvalidInput):
                model.encode(["\udcff"])
        else:
            model.encode(text)

    for i in range(300):
        round_of(i)
    gc.collect()
    tracemalloc.start()
    before_rss, (before_py, _) = resident_bytes(), tracemalloc.get_traced_memory()
    for i in range(calls):
        round_of(i)
    gc.collect()
    after_rss, (after_py, _) = resident_bytes(), tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"\n{calls} rounds: resident {before_rss / 2**20:.1f} -> {after_rss / 2**20:.1f} MiB, "
          f"Python heap {before_py} -> {after_py} bytes")
    assert after_rss - before_rss < 16 * 2**20
    assert after_py - before_py < 64 * 1024
