"""The Python package (bindings/python): its extension module as
scripts/bootstrap.sh builds it (build/bindings/python, for .venv's Python)
beside the package's own files, imported into this process. Vectors against
`sieve embed` (bit for bit) and the stored sentence-transformers reference,
the tokenizer against Hugging Face tokenizers, threads sharing one model,
and the exceptions bad input raises."""
from __future__ import annotations

import gc
import io
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer as HfTokenizer

import tier
from conftest import MODEL, ROOT, run_sieve, tokenizer_files

SENTENCES = ROOT / "tests" / "data" / "sentences.txt"
REFERENCE_NPY = ROOT / "tests" / "data" / "all-MiniLM-L6-v2.st-reference.npy"
BUILD = Path(os.environ.get("SIEVE_BUILD_DIR", ROOT / "build"))


@pytest.fixture(scope="module")
def sieve(tmp_path_factory):
    modules = sorted((BUILD / "bindings" / "python").glob("_sieve*.so"))
    if not modules:
        pytest.fail(f"no extension module in {BUILD / 'bindings' / 'python'}: run scripts/bootstrap.sh")
    package = tmp_path_factory.mktemp("python") / "sieve"
    package.mkdir()
    for source in (ROOT / "bindings" / "python" / "sieve").glob("*.py"):
        (package / source.name).symlink_to(source)
    (package / modules[-1].name).symlink_to(modules[-1])
    sys.path.insert(0, str(package.parent))
    try:
        import sieve as module
        yield module
    finally:
        sys.path.remove(str(package.parent))


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


@pytest.mark.parametrize("path", tier.sample(tokenizer_files(), 4, "python-tokenizers"),
                         ids=lambda p: p.parent.name)
def test_tokenizer_matches_hugging_face(sieve, path):
    texts = tier.sample(sentences(), 40, f"python-tokenizer-{path.parent.name}") + ["", "  ", "naïve café ☕ 東京"]
    ours = sieve.Tokenizer.from_file(str(path))
    theirs = HfTokenizer.from_file(str(path))
    for mine, want, text in zip(ours.encode_batch(texts), theirs.encode_batch(texts), texts):
        assert mine.ids == want.ids, text
        assert mine.tokens == want.tokens, text
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
