"""The C ABI (include/sieve.h) gives the same answers as the rest of Sieve:
libsieve.so, loaded with ctypes, against `sieve embed` / `sieve rerank` /
`sieve info` bit for bit (issue 6, point 5: same answers everywhere), and
against the independent references: Hugging Face `tokenizers` for
tokenization, the fixtures' Python onnxruntime references and
sentence-transformers' stored outputs for vectors and scores.

Nothing is built here: SIEVE_LIB names the library (default
build/libsieve.so). tests/capi/capi_test.c covers the error paths."""
from __future__ import annotations

import ctypes
import io
import json
import os
import sys
from ctypes import POINTER, byref, c_char_p, c_float, c_int, c_int32, c_int64, c_size_t, c_uint32, c_uint8, c_void_p
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from conftest import MODEL, ROOT, run_sieve

LIB = Path(os.environ.get("SIEVE_LIB", ROOT / "build" / "libsieve.so"))
FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
SENTENCES = ROOT / "tests" / "data" / "sentences.txt"
PAIRS = ROOT / "tests" / "data" / "cross-encoder-pairs.json"
ST_REFERENCE = ROOT / "tests" / "data" / "all-MiniLM-L6-v2.st-reference.npy"
CE_REFERENCE = ROOT / "tests" / "data" / "cross-encoder-minilm-l6.ce-reference.json"

sys.path.insert(0, str(ROOT / "tools"))
import make_cross_encoder  # noqa: E402  (tools/ on the path just above)

EMBEDDERS = ["tiny-bert-tokens", "tiny-bert-pooled", "tiny-bert-cls", "tiny-bert-max"]
RERANKERS = ["cross-encoder-minilm-l6", "cross-encoder-tiny-3labels"]
KIND_NAMES = {1: "embedding", 2: "reranker", 3: "sparse embedding", 4: "multi-vector"}
# A sparse (SPLADE) model exported from a real one by scripts/test.sh's fixtures stage, with
# sentence-transformers' vectors for some texts in its reference.json.
SPLADE = FIXTURES / "splade-tiny"


# ---- ctypes mirror of sieve.h ---------------------------------------------------

class Text(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]


class ModelOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("kind", c_int), ("intra_op_threads", c_int32),
                ("inter_op_threads", c_int32), ("providers", POINTER(c_char_p)), ("provider_count", c_size_t),
                ("strict_providers", c_int32), ("normalize", c_int32), ("pooling", c_char_p),
                ("max_length", c_size_t), ("batch_size", c_size_t), ("dimensions", c_size_t),
                ("prompt_name", c_char_p), ("replace_invalid_utf8", c_int32)]


class ModelInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("kind", c_int), ("dimension", c_size_t), ("max_length", c_size_t),
                ("normalize", c_int32), ("pooling", c_char_p), ("providers", c_char_p), ("folder", c_char_p),
                ("onnx_file", c_char_p)]


class RerankResult(ctypes.Structure):
    _fields_ = [("index", c_size_t), ("score", c_float)]


class SparseOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("top_k", c_size_t), ("min_weight", c_float)]


class RegistryEntry(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("name", c_char_p), ("kind", c_int), ("dimension", c_size_t),
                ("max_length", c_size_t), ("loaded", c_int32), ("providers", c_char_p), ("error", c_char_p)]


SIGNATURES = {
    "sieve_status_get_code": (c_int, [c_void_p]),
    "sieve_status_message": (c_char_p, [c_void_p]),
    "sieve_status_input_index": (c_int64, [c_void_p]),
    "sieve_status_destroy": (None, [c_void_p]),
    "sieve_set_log_level": (c_void_p, [c_char_p]),
    "sieve_onnxruntime_version": (c_char_p, []),
    "sieve_model_options_init": (None, [POINTER(ModelOptions), c_size_t]),
    "sieve_model_load": (c_void_p, [c_char_p, POINTER(ModelOptions), POINTER(c_void_p)]),
    "sieve_model_destroy": (None, [c_void_p]),
    "sieve_model_get_info": (c_void_p, [c_void_p, POINTER(ModelInfo)]),
    "sieve_embed": (c_void_p, [c_void_p, POINTER(Text), c_size_t, POINTER(c_float), c_size_t]),
    "sieve_embed_size": (c_void_p, [c_void_p, c_size_t, POINTER(c_size_t)]),
    "sieve_sparse_options_init": (None, [POINTER(SparseOptions), c_size_t]),
    "sieve_embed_sparse": (c_void_p, [c_void_p, POINTER(Text), c_size_t, POINTER(SparseOptions),
                                      POINTER(c_void_p)]),
    "sieve_sparse_embeddings_count": (c_size_t, [c_void_p]),
    "sieve_sparse_embeddings_get": (c_void_p, [c_void_p, c_size_t, POINTER(POINTER(c_uint32)),
                                               POINTER(POINTER(c_float)), POINTER(c_size_t)]),
    "sieve_sparse_embeddings_destroy": (None, [c_void_p]),
    "sieve_score": (c_void_p, [c_void_p, Text, POINTER(Text), c_size_t, POINTER(c_float), c_size_t]),
    "sieve_rerank": (c_void_p, [c_void_p, Text, POINTER(Text), c_size_t, c_size_t, POINTER(RerankResult), c_size_t,
                                POINTER(c_size_t)]),
    "sieve_classify": (c_void_p, [c_void_p, POINTER(Text), POINTER(Text), c_size_t, c_int32, POINTER(c_float),
                                  c_size_t]),
    "sieve_model_label": (c_void_p, [c_void_p, c_size_t, POINTER(c_char_p)]),
    "sieve_tokenizer_load": (c_void_p, [c_char_p, POINTER(c_void_p)]),
    "sieve_tokenizer_destroy": (None, [c_void_p]),
    "sieve_tokenize": (c_void_p, [c_void_p, Text, POINTER(Text), c_int32, POINTER(c_void_p)]),
    "sieve_encoding_destroy": (None, [c_void_p]),
    "sieve_encoding_size": (c_size_t, [c_void_p]),
    "sieve_encoding_ids": (POINTER(c_uint32), [c_void_p]),
    "sieve_encoding_type_ids": (POINTER(c_uint32), [c_void_p]),
    "sieve_encoding_attention_mask": (POINTER(c_uint8), [c_void_p]),
    "sieve_encoding_special_tokens_mask": (POINTER(c_uint8), [c_void_p]),
    "sieve_encoding_offsets": (POINTER(c_uint32), [c_void_p]),
    "sieve_tokenizer_id_to_token": (c_void_p, [c_void_p, c_uint32, POINTER(Text)]),
    "sieve_tokenizer_vocab_size": (c_size_t, [c_void_p]),
    "sieve_tokenizer_decode": (c_void_p, [c_void_p, POINTER(c_uint32), c_size_t, c_int32, POINTER(c_void_p),
                                          POINTER(c_size_t)]),
    "sieve_string_free": (None, [c_void_p]),
    "sieve_registry_open": (c_void_p, [c_char_p, c_void_p, POINTER(c_void_p)]),
    "sieve_registry_destroy": (None, [c_void_p]),
    "sieve_registry_list": (c_void_p, [c_void_p, POINTER(c_void_p)]),
    "sieve_model_list_size": (c_size_t, [c_void_p]),
    "sieve_model_list_get": (c_void_p, [c_void_p, c_size_t, POINTER(RegistryEntry)]),
    "sieve_model_list_destroy": (None, [c_void_p]),
}


class SieveError(Exception):
    def __init__(self, code: int, message: str, index: int):
        super().__init__(f"code {code}: {message}")
        self.code, self.index = code, index


def texts_array(texts: list[bytes]):
    """A sieve_text array over the bytes (kept alive by the caller holding the result)."""
    array = (Text * max(len(texts), 1))()
    for i, t in enumerate(texts):
        array[i] = Text(ctypes.cast(ctypes.c_char_p(t), c_void_p), len(t))
    return array


class Sieve:
    """Thin wrappers that turn statuses into SieveError and buffers into numpy."""

    def __init__(self, path: Path):
        self.lib = ctypes.CDLL(str(path))
        for name, (restype, argtypes) in SIGNATURES.items():
            function = getattr(self.lib, name)
            function.restype, function.argtypes = restype, argtypes

    def check(self, status) -> None:
        if status:
            error = SieveError(self.lib.sieve_status_get_code(status),
                               self.lib.sieve_status_message(status).decode(errors="replace"),
                               self.lib.sieve_status_input_index(status))
            self.lib.sieve_status_destroy(status)
            raise error

    def options(self, **fields) -> ModelOptions:
        options = ModelOptions()
        self.lib.sieve_model_options_init(byref(options), ctypes.sizeof(options))
        for key, value in fields.items():
            setattr(options, key, value)
        return options

    def load(self, folder: Path, **fields) -> c_void_p:
        model = c_void_p()
        self.check(self.lib.sieve_model_load(str(folder).encode(), byref(self.options(**fields)), byref(model)))
        return model

    def info(self, model) -> ModelInfo:
        info = ModelInfo(struct_size=ctypes.sizeof(ModelInfo))
        self.check(self.lib.sieve_model_get_info(model, byref(info)))
        return info

    def embed(self, model, texts: list[bytes]) -> np.ndarray:
        dimension = self.info(model).dimension
        out = np.empty((len(texts), dimension), dtype=np.float32)
        array = texts_array(texts)
        self.check(self.lib.sieve_embed(model, array, len(texts), out.ctypes.data_as(POINTER(c_float)), out.size))
        return out

    def embed_sparse(self, model, texts: list[bytes] | None, top_k: int = 0, min_weight: float = 0.0,
                     options: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each text's (ids, weights); texts None passes NULL, options False NULL options."""
        opts = SparseOptions()
        self.lib.sieve_sparse_options_init(byref(opts), ctypes.sizeof(opts))
        opts.top_k, opts.min_weight = top_k, min_weight
        count = 0 if texts is None else len(texts)
        array = texts_array(texts) if texts is not None else None
        listing = c_void_p()
        self.check(self.lib.sieve_embed_sparse(model, array, count, byref(opts) if options else None, byref(listing)))
        try:
            assert self.lib.sieve_sparse_embeddings_count(listing) == count
            vectors = []
            for i in range(count):
                ids, weights, size = POINTER(c_uint32)(), POINTER(c_float)(), c_size_t()
                self.check(self.lib.sieve_sparse_embeddings_get(listing, i, byref(ids), byref(weights), byref(size)))
                if size.value == 0:
                    assert not ids and not weights, "an empty vector's arrays are NULL"
                    vectors.append((np.zeros(0, np.uint32), np.zeros(0, np.float32)))
                else:
                    vectors.append((np.ctypeslib.as_array(ids, (size.value,)).copy(),
                                    np.ctypeslib.as_array(weights, (size.value,)).copy()))
            return vectors
        finally:
            self.lib.sieve_sparse_embeddings_destroy(listing)

    def score(self, model, query: bytes, documents: list[bytes]) -> np.ndarray:
        out = np.empty(len(documents), dtype=np.float32)
        array = texts_array(documents)
        self.check(self.lib.sieve_score(model, Text(ctypes.cast(c_char_p(query), c_void_p), len(query)), array,
                                        len(documents), out.ctypes.data_as(POINTER(c_float)), out.size))
        return out

    def rerank(self, model, query: bytes, documents: list[bytes], top_k: int) -> list[tuple[int, float]]:
        results = (RerankResult * len(documents))()
        count = c_size_t()
        array = texts_array(documents)
        self.check(self.lib.sieve_rerank(model, Text(ctypes.cast(c_char_p(query), c_void_p), len(query)), array,
                                         len(documents), top_k, results, len(documents), byref(count)))
        return [(results[i].index, results[i].score) for i in range(count.value)]

    def classify(self, model, texts: list[bytes], pairs: list[bytes] | None = None, raw: bool = False) -> np.ndarray:
        out = np.empty((len(texts), self.info(model).dimension), dtype=np.float32)
        first = texts_array(texts)
        second = texts_array(pairs) if pairs is not None else None
        self.check(self.lib.sieve_classify(model, first, second, len(texts), int(raw),
                                           out.ctypes.data_as(POINTER(c_float)), out.size))
        return out

    def label(self, model, index: int) -> str:
        name = c_char_p()
        self.check(self.lib.sieve_model_label(model, index, byref(name)))
        return name.value.decode()


@pytest.fixture(scope="module")
def sieve() -> Sieve:
    assert LIB.exists(), f"{LIB} is missing: build the sieve_shared target (cmake --build build)"
    s = Sieve(LIB)
    s.check(s.lib.sieve_set_log_level(b"warn"))
    # The mirror above must match the header: the defaults land in the fields they belong to.
    defaults = s.options()
    assert (defaults.kind, defaults.inter_op_threads, defaults.normalize, defaults.batch_size,
            defaults.replace_invalid_utf8) == (0, 1, -1, 32, 0), "ModelOptions does not mirror sieve.h"
    return s


@pytest.fixture(scope="module")
def fixtures() -> Path:
    for name in make_cross_encoder.FIXTURES:  # a no-op when they are current
        make_cross_encoder.make(FIXTURES, MODEL / "tokenizer.json", name=name)
    for name in EMBEDDERS:
        assert (FIXTURES / name / "model.onnx").exists(), f"{FIXTURES / name} missing: run tools/make_fixtures.py"
    return FIXTURES


@pytest.fixture
def models(sieve):
    """Loads models for one test and destroys them after it."""
    loaded = []

    def load(folder: Path, **fields):
        loaded.append(sieve.load(folder, **fields))
        return loaded[-1]

    yield load
    for model in loaded:
        sieve.lib.sieve_model_destroy(model)


def sentences() -> list[bytes]:
    return SENTENCES.read_bytes().rstrip(b"\n").split(b"\n")


def cli_embed(folder: Path, texts: list[bytes], *args: str) -> np.ndarray:
    out = run_sieve("embed", "--model", str(folder), "--format", "npy", *args, input=b"".join(t + b"\n" for t in texts))
    return np.load(io.BytesIO(out.stdout))


def assert_bitwise_equal(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype == np.float32
    differ = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert differ.size == 0, f"{differ.size} of {got.size} floats differ, first at flat index {differ[0]}: " \
                             f"{got.flat[differ[0]]!r} vs {want.flat[differ[0]]!r}"


# ---- embedding ------------------------------------------------------------------

# The real model once (it is slow); the tiny ones with a second batch size too.
@pytest.mark.parametrize("name,batch_size", [("all-MiniLM-L6-v2", 32)] +
                         [(name, b) for name in EMBEDDERS for b in (32, 5)])
def test_embed_equals_the_cli_bit_for_bit(sieve, models, fixtures, name, batch_size):
    folder = MODEL if name == "all-MiniLM-L6-v2" else fixtures / name
    texts = sentences()
    got = sieve.embed(models(folder, batch_size=batch_size), texts)
    assert_bitwise_equal(got, cli_embed(folder, texts, "--batch-size", str(batch_size)))


@pytest.mark.parametrize("fields,args", [
    ({"normalize": 0}, ["--no-normalize"]),
    ({"pooling": b"cls"}, ["--pooling", "cls"]),
    ({"pooling": b"max"}, ["--pooling", "max"]),
    ({"pooling": b"mean_sqrt_len"}, ["--pooling", "mean_sqrt_len"]),
    ({"pooling": b"lasttoken"}, ["--pooling", "lasttoken"]),
    ({"dimensions": 16}, ["--dimensions", "16"]),
    ({"max_length": 12}, ["--max-length", "12"]),
    ({"intra_op_threads": 1}, ["--threads", "1"]),
], ids=lambda v: "-".join(v) if isinstance(v, list) else None)
def test_embedding_options_equal_the_cli_flags(sieve, models, fixtures, fields, args):
    folder = fixtures / "tiny-bert-tokens"
    texts = sentences()[:60]
    got = sieve.embed(models(folder, **fields), texts)
    want = cli_embed(folder, texts, *args)
    assert_bitwise_equal(got, want)
    # The option changed something: the defaults give other vectors.
    assert not np.array_equal(want, cli_embed(folder, texts)) or fields == {"intra_op_threads": 1}


def test_replaced_invalid_utf8_equals_the_cli(sieve, models, fixtures):
    folder = fixtures / "tiny-bert-tokens"
    texts = [b"valid", b"broken \xff byte", b"truncated \xe2\x82", b"\x80 leading"]
    got = sieve.embed(models(folder, replace_invalid_utf8=1), texts)
    assert_bitwise_equal(got, cli_embed(folder, texts, "--invalid-utf8", "replace"))
    with pytest.raises(SieveError) as error:
        sieve.embed(models(folder), texts)
    assert error.value.code == 2 and error.value.index == 1  # SIEVE_INVALID_INPUT, the first bad text


@pytest.mark.parametrize("name", EMBEDDERS)
def test_embed_matches_the_python_onnxruntime_reference(sieve, models, fixtures, name):
    """tools/make_fixtures.py's reference: Hugging Face tokenizers + Python onnxruntime + numpy pooling."""
    reference = json.loads((fixtures / name / "reference.json").read_text(encoding="utf-8"))
    model = models(fixtures / name, batch_size=reference["batch_size"], normalize=int(reference["normalize"]))
    got = sieve.embed(model, [t.encode() for t in reference["texts"]])
    want = np.array(reference["embeddings"], dtype=np.float32)
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= 1e-5


@pytest.mark.skipif(not (MODEL / "model.onnx").exists(), reason="models/all-MiniLM-L6-v2 missing")
def test_embed_matches_sentence_transformers(sieve, models):
    want = np.load(ST_REFERENCE)
    got = sieve.embed(models(MODEL), sentences())
    assert got.shape == want.shape
    cosine = (got * want).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert cosine.min() >= 0.9999
    assert np.abs(got - want).max() <= 1e-4


# ---- sparse embedding -------------------------------------------------------------

@pytest.fixture(scope="module")
def splade() -> Path:
    """The sparse fixture: required where scripts/test.sh runs (it sets SIEVE_TEST_TIER, and CI runs
    it), else the sparse tests skip without it."""
    if not SPLADE.is_dir():
        if os.environ.get("SIEVE_TEST_TIER"):
            pytest.fail(f"{SPLADE} missing: scripts/test.sh's fixtures stage exports it (sieve-export --task sparse)")
        pytest.skip(f"{SPLADE} missing (scripts/test.sh's fixtures stage exports it)")
    return SPLADE


def read_sparse_reference(folder: Path) -> tuple[list[str], list[tuple[np.ndarray, np.ndarray]]]:
    """tools/make_sparse_reference.py's reference.json: the texts and, per text, sentence-transformers'
    token ids of the non-zero weights (ascending) and the weights."""
    entries = json.loads((folder / "reference.json").read_text(encoding="utf-8"))["texts"]
    assert entries, "an empty reference"
    return [e["text"] for e in entries], [(np.array(e["indices"], dtype=np.int64),
                                           np.array(e["values"], dtype=np.float32)) for e in entries]


def assert_well_formed(ids: np.ndarray, weights: np.ndarray, vocabulary: int, floor: float = 0.0) -> None:
    assert ids.dtype == np.uint32 and weights.dtype == np.float32 and ids.shape == weights.shape
    assert np.all(np.diff(ids.astype(np.int64)) > 0), "ids strictly ascending"
    assert ids.size == 0 or int(ids[-1]) < vocabulary
    assert np.all(np.isfinite(weights)) and np.all(weights > floor)


def dense(ids: np.ndarray, weights: np.ndarray, vocabulary: int) -> np.ndarray:
    out = np.zeros(vocabulary, dtype=np.float32)
    out[ids.astype(np.int64)] = weights
    return out


def pruned(ids: np.ndarray, weights: np.ndarray, top_k: int, min_weight: float) -> tuple[np.ndarray, np.ndarray]:
    """The header's pruning: the weights above min_weight, then the top_k largest (ties: the smaller id), by id."""
    keep = weights > np.float32(min_weight)
    ids, weights = ids[keep], weights[keep]
    if top_k and ids.size > top_k:
        order = np.lexsort((ids, -weights))[:top_k]  # by weight descending, then id ascending
        order.sort()
        ids, weights = ids[order], weights[order]
    return ids, weights


def test_sparse_info_equals_sieve_info(sieve, models, splade):
    info = sieve.info(models(splade))
    want = json.loads(run_sieve("info", "--model", str(splade), "--json").stdout)
    assert info.kind == 3 and KIND_NAMES[info.kind] == want["kind"]  # SIEVE_KIND_SPARSE
    assert info.dimension == want["dimension"] and info.dimension >= 1000  # the vocabulary
    assert info.max_length == want["max_length"]
    assert info.normalize == 0 and not want["normalize"]
    assert info.pooling.decode() == want["pooling"] and want["pooling"] in ("splade max", "splade sum", "model")
    assert Path(info.folder.decode()).resolve() == splade.resolve()
    # Loading with the kind asked for: only SPARSE (or AUTO) takes a SPLADE folder, and SPARSE nothing else.
    assert sieve.info(models(splade, kind=3)).kind == 3
    for folder, kind in ((splade, 1), (splade, 2), (FIXTURES / "tiny-bert-tokens", 3),
                         (FIXTURES / "cross-encoder-tiny-3labels", 3)):
        with pytest.raises(SieveError) as error:
            models(folder, kind=kind)
        assert error.value.code == 7, (folder, kind)  # SIEVE_WRONG_KIND


def test_embed_sparse_matches_sentence_transformers(sieve, models, splade):
    texts, want = read_sparse_reference(splade)
    model = models(splade)
    vocabulary = sieve.info(model).dimension
    got = sieve.embed_sparse(model, [t.encode() for t in texts])
    for text, (ids, weights), (want_ids, want_weights) in zip(texts, got, want):
        assert_well_formed(ids, weights, vocabulary)
        ours, theirs = dense(ids, weights, vocabulary), dense(want_ids, want_weights, vocabulary)
        assert np.abs(ours - theirs).max() <= 1e-4, text
        assert np.array_equal(np.flatnonzero(ours > 1e-3), np.flatnonzero(theirs > 1e-3)), text


def test_embed_sparse_pruning(sieve, models, splade):
    model = models(splade, batch_size=5)
    vocabulary = sieve.info(model).dimension
    texts = sentences()[:40] + [b"", b"NUL\x00inside", "caf\u00e9 \U0001F600 \u4f60\u597d".encode(), b"long " * 400]
    full = sieve.embed_sparse(model, texts)
    for ids, weights in full:
        assert_well_formed(ids, weights, vocabulary)
        assert ids.size > 0
    # NULL options are the defaults; a second call gives the same bits.
    for (ids, weights), (again_ids, again_weights) in zip(full, sieve.embed_sparse(model, texts, options=False)):
        assert np.array_equal(ids, again_ids) and np.array_equal(weights.view(np.uint32), again_weights.view(np.uint32))
    floor = float(np.median(full[0][1]))
    for top_k, min_weight in ((1, 0.0), (3, 0.0), (32, 0.0), (10 ** 6, 0.0), (0, floor), (4, floor), (0, 1e30)):
        got = sieve.embed_sparse(model, texts, top_k=top_k, min_weight=min_weight)
        for (ids, weights), (got_ids, got_weights) in zip(full, got):
            want_ids, want_weights = pruned(ids, weights, top_k, min_weight)
            assert np.array_equal(got_ids, want_ids) and np.array_equal(got_weights, want_weights), (top_k, min_weight)
            assert_well_formed(got_ids, got_weights, vocabulary, min_weight)
    # Ties go to the smaller id: a text's weights tied on purpose cannot be arranged, so check that
    # every kept weight beats (or ties with a larger id) every dropped one.
    for (ids, weights), (got_ids, _) in zip(full, sieve.embed_sparse(model, texts, top_k=5)):
        dropped = ~np.isin(ids, got_ids)
        if dropped.any():
            assert weights[~dropped].min() >= weights[dropped].max()


def test_embed_sparse_errors(sieve, models, fixtures, splade):
    model = models(splade)
    assert sieve.embed_sparse(model, None) == [] and sieve.embed_sparse(model, []) == []
    with pytest.raises(SieveError) as error:
        sieve.embed_sparse(model, [b"valid", b"also valid", b"broken \xff byte", b"\x80"])
    assert error.value.code == 2 and error.value.index == 2  # SIEVE_INVALID_INPUT, the first bad text
    for min_weight in (-0.5, float("nan")):
        with pytest.raises(SieveError) as error:
            sieve.embed_sparse(model, [b"text"], min_weight=min_weight)
        assert error.value.code == 1 and "min_weight" in str(error.value)
    # NULL parameters.
    listing = c_void_p()
    for args in ((None, texts_array([b"x"]), 1, None, byref(listing)), (model, None, 1, None, byref(listing)),
                 (model, texts_array([b"x"]), 1, None, None)):
        with pytest.raises(SieveError) as error:
            sieve.check(sieve.lib.sieve_embed_sparse(*args))
        assert error.value.code == 1
    assert sieve.lib.sieve_sparse_embeddings_count(None) == 0
    sieve.lib.sieve_sparse_embeddings_destroy(None)
    sieve.check(sieve.lib.sieve_embed_sparse(model, texts_array([b"x"]), 1, None, byref(listing)))
    try:
        ids, weights, size = POINTER(c_uint32)(), POINTER(c_float)(), c_size_t()
        with pytest.raises(SieveError) as error:
            sieve.check(sieve.lib.sieve_sparse_embeddings_get(listing, 1, byref(ids), byref(weights), byref(size)))
        assert error.value.code == 1
    finally:
        sieve.lib.sieve_sparse_embeddings_destroy(listing)
    # Each call on the other kinds, naming the right call.
    dense_model, reranker = models(fixtures / "tiny-bert-tokens"), models(fixtures / "cross-encoder-tiny-3labels")
    for call, name in ((lambda: sieve.embed(model, [b"text"]), "sieve_embed_sparse"),
                       (lambda: sieve.check(sieve.lib.sieve_embed_size(model, 1, byref(c_size_t()))),
                        "sieve_embed_sparse"),
                       (lambda: sieve.score(model, b"query", [b"text"]), "reranker"),
                       (lambda: sieve.embed_sparse(dense_model, [b"text"]), "sieve_embed"),
                       (lambda: sieve.embed_sparse(reranker, [b"text"]), "reranker")):
        with pytest.raises(SieveError) as error:
            call()
        assert error.value.code == 7 and name in str(error.value)  # SIEVE_WRONG_KIND


def test_every_call_serves_or_refuses_every_model_kind(sieve, models, fixtures, splade_tiny, colbert_tiny,
                                                        bge_m3_tiny):
    """Each kind of model answers the calls it serves; any other call is SIEVE_WRONG_KIND (or, for a call its kind
    answers only in part, SIEVE_UNSUPPORTED) naming the model's kind and a call that serves it."""
    folders = {"embedding": fixtures / "tiny-bert-tokens", "sparse embedding": splade_tiny.folder,
               "multi-vector": colbert_tiny, "bge-m3": bge_m3_tiny, "reranker": fixtures / "cross-encoder-tiny-3labels"}
    serves = {"embedding": {"sieve_embed"}, "sparse embedding": {"sieve_embed_sparse"},
              "multi-vector": {"sieve_score", "sieve_rerank"}, "bge-m3": {"sieve_embed", "sieve_embed_sparse"},
              "reranker": {"sieve_score", "sieve_rerank", "sieve_classify"}}
    nouns = {"embedding": "dense embedding model", "sparse embedding": "sparse (SPLADE)",
             "multi-vector": "late-interaction (ColBERT)", "bge-m3": "dense embedding model", "reranker": "reranker"}
    for kind, folder in folders.items():
        model = models(folder)
        assert KIND_NAMES[sieve.info(model).kind] == ("embedding" if kind == "bge-m3" else kind)
        calls = {"sieve_embed": lambda: sieve.embed(model, [b"x"]),
                 "sieve_embed_sparse": lambda: sieve.embed_sparse(model, [b"x"]),
                 "sieve_score": lambda: sieve.score(model, b"q", [b"d"]),
                 "sieve_rerank": lambda: sieve.rerank(model, b"q", [b"d"], 0),
                 "sieve_classify": lambda: sieve.classify(model, [b"x"])}
        for name, call in calls.items():
            if name in serves[kind]:
                assert len(call()) == 1, (kind, name)
                continue
            with pytest.raises(SieveError) as error:
                call()
            message = str(error.value)
            assert error.value.code in (7, 3), (kind, name, message)  # SIEVE_WRONG_KIND, SIEVE_UNSUPPORTED
            assert nouns[kind] in message and any(c in message for c in serves[kind]), (kind, name, message)


# ---- reranking --------------------------------------------------------------------

def cli_rerank(folder: Path, query: str, documents: list[str], *args: str) -> list[tuple[int, float]]:
    stdin = "".join(d + "\n" for d in documents).encode()
    out = json.loads(run_sieve("rerank", "--model", str(folder), "--query", query, *args, input=stdin).stdout)
    # The CLI prints each float32 in the shortest form that reads back to it.
    return [(r["index"], float(np.float32(r["score"]))) for r in out["results"]]


@pytest.mark.parametrize("name,batch_size", [("cross-encoder-minilm-l6", 32), ("cross-encoder-tiny-3labels", 32),
                                             ("cross-encoder-tiny-3labels", 3)])
def test_score_and_rerank_equal_the_cli_bit_for_bit(sieve, models, fixtures, name, batch_size):
    folder = fixtures / name
    model = models(folder, batch_size=batch_size)
    groups = json.loads(PAIRS.read_text(encoding="utf-8"))["groups"]
    for group in groups:
        query, documents = group["query"], group["documents"]
        encoded = [d.encode() for d in documents]
        want = cli_rerank(folder, query, documents, "--batch-size", str(batch_size))
        got_scores = sieve.score(model, query.encode(), encoded)
        by_index = np.full(len(documents), np.nan, dtype=np.float32)
        for index, score in want:
            by_index[index] = score
        assert_bitwise_equal(got_scores, by_index)
        assert sieve.rerank(model, query.encode(), encoded, 0) == want
        assert sieve.rerank(model, query.encode(), encoded, 3) == want[:3]


def test_scores_match_sentence_transformers(sieve, models, fixtures):
    reference = json.loads(CE_REFERENCE.read_text(encoding="utf-8"))
    model = models(fixtures / make_cross_encoder.FOLDER)
    groups = json.loads(PAIRS.read_text(encoding="utf-8"))["groups"]
    worst = 0.0
    for g, group in enumerate(groups):
        got = sieve.score(model, group["query"].encode(), [d.encode() for d in group["documents"]])
        worst = max(worst, float(np.abs(got - np.array(reference["groups"][g]["default"])).max()))
    assert worst <= 1e-4


# ---- classification ---------------------------------------------------------------

THREE_LABELS = FIXTURES / "cross-encoder-tiny-3labels"


@pytest.fixture(scope="module")
def three_labels(sieve, fixtures):
    model = sieve.load(THREE_LABELS, batch_size=3)
    yield model
    sieve.lib.sieve_model_destroy(model)


def cli_classify(lines: list[bytes], labels: list[str], *args: str) -> np.ndarray:
    """`sieve classify`'s scores in the model's label order (the CLI lists each input's labels best first,
    ties in label order: checked here against the scores it prints)."""
    out = run_sieve("classify", "--model", str(THREE_LABELS), "--batch-size", "3", *args,
                    input=b"".join(line + b"\n" for line in lines)).stdout.decode().splitlines()
    assert len(out) == len(lines)
    rows = []
    for line in out:
        ranked = [(entry["label"], np.float32(entry["score"])) for entry in json.loads(line)]
        row = dict(ranked)
        assert sorted(row) == sorted(labels)
        rows.append([row[label] for label in labels])
        assert [label for label, _ in ranked] == sorted(labels, key=lambda label: -row[label])
    return np.array(rows, dtype=np.float32)


def test_classify_equals_the_cli_bit_for_bit(sieve, three_labels):
    labels = [sieve.label(three_labels, i) for i in range(sieve.info(three_labels).dimension)]
    assert labels == ["contradiction", "entailment", "neutral"]
    texts = sentences()[:40] + [b"", b"NUL\x00inside", "caf\u00e9 \U0001F600 \u4f60\u597d".encode(), b"long " * 400]
    # The CLI reads a pair as two texts around a tab, so none may hold one.
    pairs = [(group["query"].encode(), document.encode())
             for group in json.loads(PAIRS.read_text(encoding="utf-8"))["groups"] for document in group["documents"]
             if "\t" not in group["query"] + document]
    for raw, flags in ((False, []), (True, ["--raw-scores"])):
        got = sieve.classify(three_labels, texts, raw=raw)
        assert_bitwise_equal(got, cli_classify(texts, labels, *flags))
        got_pairs = sieve.classify(three_labels, [a for a, _ in pairs], [b for _, b in pairs], raw=raw)
        assert_bitwise_equal(got_pairs, cli_classify([a + b"\t" + b for a, b in pairs], labels, "--pairs", *flags))
        if not raw:  # a softmax: every row sums to one
            assert np.abs(got.sum(1) - 1).max() <= 1e-5 and np.abs(got_pairs.sum(1) - 1).max() <= 1e-5
    assert sieve.classify(three_labels, []).shape == (0, 3)


def test_classify_errors(sieve, models, fixtures, three_labels):
    with pytest.raises(SieveError) as error:
        sieve.label(three_labels, 3)
    assert error.value.code == 1 and "label 3" in str(error.value)  # SIEVE_INVALID_ARGUMENT
    with pytest.raises(SieveError) as error:
        sieve.classify(three_labels, [b"ok", b"ok"], [b"ok", b"bad \xc3"])
    assert error.value.code == 2 and error.value.index == 1  # SIEVE_INVALID_INPUT, the second pair
    out = (c_float * 3)()
    one = texts_array([b"ok"])
    status = sieve.lib.sieve_classify(three_labels, one, None, 1, 0, out, 2)
    with pytest.raises(SieveError) as error:
        sieve.check(status)
    assert error.value.code == 8  # SIEVE_BUFFER_TOO_SMALL
    embedder = models(fixtures / "tiny-bert-tokens")
    for call in (lambda: sieve.classify(embedder, [b"text"]), lambda: sieve.label(embedder, 0)):
        with pytest.raises(SieveError) as error:
            call()
        assert error.value.code == 7  # SIEVE_WRONG_KIND


# ---- model description ------------------------------------------------------------

@pytest.mark.parametrize("name", ["all-MiniLM-L6-v2", *EMBEDDERS, *RERANKERS])
def test_info_equals_sieve_info(sieve, models, fixtures, name):
    folder = MODEL if name == "all-MiniLM-L6-v2" else fixtures / name
    info = sieve.info(models(folder))
    want = json.loads(run_sieve("info", "--model", str(folder), "--json").stdout)
    assert KIND_NAMES[info.kind] == want["kind"]
    assert info.dimension == want["dimension"]
    assert info.max_length == want["max_length"]
    assert info.providers.decode() == ",".join(want["providers"])
    assert Path(info.folder.decode()).resolve() == Path(want["folder"]).resolve()
    assert Path(info.onnx_file.decode()).resolve() == Path(want["onnx_file"]).resolve()
    if want["kind"] == "embedding":
        assert info.normalize == int(want["normalize"])
        assert info.pooling.decode() == want["pooling"]
    else:
        assert info.pooling == b""
    assert sieve.lib.sieve_onnxruntime_version().decode() == want["onnxruntime_version"]


def test_registry_list_equals_sieve_info_models(sieve, fixtures):
    registry, listing = c_void_p(), c_void_p()
    sieve.check(sieve.lib.sieve_registry_open(str(fixtures).encode(), None, byref(registry)))
    try:
        sieve.check(sieve.lib.sieve_registry_list(registry, byref(listing)))
        entries = []
        for i in range(sieve.lib.sieve_model_list_size(listing)):
            entry = RegistryEntry(struct_size=ctypes.sizeof(RegistryEntry))
            sieve.check(sieve.lib.sieve_model_list_get(listing, i, byref(entry)))
            entries.append((entry.name.decode(), KIND_NAMES.get(entry.kind), entry.dimension, entry.max_length,
                            entry.providers.decode(), entry.error.decode(), entry.loaded))
        sieve.lib.sieve_model_list_destroy(listing)
    finally:
        sieve.lib.sieve_registry_destroy(registry)
    want = json.loads(run_sieve("info", "--models", str(fixtures), "--json", "--no-load").stdout)["models"]
    # "pooled embedding" is an embedding model to the C ABI, and "late interaction" (ColBERT) a multi-vector one.
    kinds = {"pooled embedding": "embedding", "late interaction": "multi-vector"}
    assert entries == [(m["name"], kinds.get(m["kind"], m["kind"]), m["dimension"],
                        m["max_length"], ",".join(m["providers"]), "", 0) for m in want]


# ---- tokenization -----------------------------------------------------------------

class CTokenizer:
    def __init__(self, sieve: Sieve, path: Path):
        self.sieve, self.handle = sieve, c_void_p()
        sieve.check(sieve.lib.sieve_tokenizer_load(str(path).encode(), byref(self.handle)))

    def encode(self, text: str, pair: str | None, add_special_tokens: bool) -> dict:
        lib = self.sieve.lib
        a, b = text.encode(), (pair.encode() if pair is not None else None)
        second = Text(ctypes.cast(c_char_p(b), c_void_p), len(b)) if b is not None else None
        encoding = c_void_p()
        self.sieve.check(lib.sieve_tokenize(self.handle, Text(ctypes.cast(c_char_p(a), c_void_p), len(a)),
                                            byref(second) if second is not None else None,
                                            int(add_special_tokens), byref(encoding)))
        try:
            n = lib.sieve_encoding_size(encoding)
            offsets = lib.sieve_encoding_offsets(encoding)
            return {"ids": lib.sieve_encoding_ids(encoding)[:n],
                    "type_ids": lib.sieve_encoding_type_ids(encoding)[:n],
                    "attention_mask": lib.sieve_encoding_attention_mask(encoding)[:n],
                    "special_tokens_mask": lib.sieve_encoding_special_tokens_mask(encoding)[:n],
                    "offsets": [(offsets[2 * i], offsets[2 * i + 1]) for i in range(n)]}
        finally:
            lib.sieve_encoding_destroy(encoding)

    def decode(self, ids: list[int], skip_special_tokens: bool) -> str:
        out, size = c_void_p(), c_size_t()
        array = (c_uint32 * max(len(ids), 1))(*ids)
        self.sieve.check(self.sieve.lib.sieve_tokenizer_decode(self.handle, array, len(ids), int(skip_special_tokens),
                                                               byref(out), byref(size)))
        try:
            return ctypes.string_at(out, size.value).decode()
        finally:
            self.sieve.lib.sieve_string_free(out)

    def close(self):
        self.sieve.lib.sieve_tokenizer_destroy(self.handle)


def byte_offsets(text: str, offsets: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Hugging Face's character offsets as byte offsets into the UTF-8 text."""
    position = [0]
    for ch in text:
        position.append(position[-1] + len(ch.encode()))
    return [(position[begin], position[end]) for begin, end in offsets]


def hugging_face(encoding, text: str, pair: str | None) -> dict:
    offsets = encoding.offsets
    if pair is None:
        converted = byte_offsets(text, offsets)
    else:  # each token's offsets are into its own sequence
        converted = [byte_offsets(text if s == 0 else pair, [o])[0] if s is not None else (0, 0)
                     for s, o in zip(encoding.sequence_ids, offsets)]
    return {"ids": encoding.ids, "type_ids": encoding.type_ids, "attention_mask": encoding.attention_mask,
            "special_tokens_mask": encoding.special_tokens_mask, "offsets": converted}


@pytest.fixture(scope="module")
def tokenizers(sieve):
    path = MODEL / "tokenizer.json"
    ours = CTokenizer(sieve, path)
    yield ours, Tokenizer.from_file(str(path))
    ours.close()


TOKENIZER_TEXTS = [s.decode() for s in sentences()[:120]] + [
    "hello\x00world", "\x00", "", "tabs\tand\u00a0no-break spaces", "caf\u00e9 \U0001F600 \u4f60\u597d"]


@pytest.mark.parametrize("add_special_tokens", [True, False])
def test_tokenize_matches_hugging_face(tokenizers, add_special_tokens):
    ours, theirs = tokenizers
    for text in TOKENIZER_TEXTS:
        want = hugging_face(theirs.encode(text, add_special_tokens=add_special_tokens), text, None)
        assert ours.encode(text, None, add_special_tokens) == want, repr(text)


@pytest.mark.parametrize("add_special_tokens", [True, False])
def test_tokenize_pairs_matches_hugging_face(tokenizers, add_special_tokens):
    ours, theirs = tokenizers
    for group in json.loads(PAIRS.read_text(encoding="utf-8"))["groups"]:
        for document in group["documents"]:
            query = group["query"]
            want = hugging_face(theirs.encode(query, document, add_special_tokens=add_special_tokens), query, document)
            assert ours.encode(query, document, add_special_tokens) == want, (query, document)


def test_decode_and_vocabulary_match_hugging_face(sieve, tokenizers):
    ours, theirs = tokenizers
    for text in TOKENIZER_TEXTS:
        ids = theirs.encode(text).ids
        for skip in (True, False):
            assert ours.decode(ids, skip) == theirs.decode(ids, skip_special_tokens=skip), repr(text)
    vocab = theirs.get_vocab(with_added_tokens=True)
    assert sieve.lib.sieve_tokenizer_vocab_size(ours.handle) == theirs.get_vocab_size(with_added_tokens=True)
    token = Text()
    for word, id_ in vocab.items():
        sieve.check(sieve.lib.sieve_tokenizer_id_to_token(ours.handle, id_, byref(token)))
        assert ctypes.string_at(token.data, token.size).decode() == word


# ---- search: sieve_index_* against `sieve search --json` ------------------------

class SearchOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("k", c_size_t), ("mode", c_int), ("rerank_candidates", c_size_t),
                ("exact", c_int32), ("ef_search", c_size_t), ("filter_keys", POINTER(Text)),
                ("filter_values", POINTER(Text)), ("filter_count", c_size_t), ("per_document", c_size_t),
                ("offset", c_size_t), ("formats", POINTER(Text)), ("format_count", c_size_t),
                ("folders", POINTER(Text)), ("folder_count", c_size_t)]


class SearchHit(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("score", ctypes.c_double), ("vector_score", ctypes.c_double),
                ("bm25_score", ctypes.c_double), ("rerank_score", ctypes.c_double), ("document_id", Text),
                ("source", Text), ("title", Text), ("text", Text), ("chunk_id", c_int64), ("chunk_index", c_size_t),
                ("chunk_begin", c_size_t), ("chunk_end", c_size_t), ("matches", POINTER(c_size_t)),
                ("match_count", c_size_t), ("metadata_json", c_char_p), ("section", Text), ("rank", c_size_t),
                ("relevance", ctypes.c_double), ("format", Text), ("snippet", Text),
                ("snippet_matches", POINTER(c_size_t)), ("snippet_match_count", c_size_t)]


SEARCH_SIGNATURES = {
    "sieve_index_open": (c_void_p, [c_char_p, POINTER(c_void_p)]),
    "sieve_index_destroy": (None, [c_void_p]),
    "sieve_index_stats_json": (c_void_p, [c_void_p, POINTER(c_void_p), POINTER(c_size_t)]),
    "sieve_search_options_init": (None, [POINTER(SearchOptions), c_size_t]),
    "sieve_index_search": (c_void_p, [c_void_p, c_void_p, c_void_p, Text, POINTER(SearchOptions),
                                      POINTER(c_void_p)]),
    "sieve_search_results_destroy": (None, [c_void_p]),
    "sieve_search_results_size": (c_size_t, [c_void_p]),
    "sieve_search_results_get": (c_void_p, [c_void_p, c_size_t, POINTER(SearchHit)]),
    "sieve_search_results_json": (c_void_p, [c_void_p, POINTER(c_void_p), POINTER(c_size_t)]),
}
SEARCH_MODES = {"hybrid": 0, "vector": 1, "bm25": 2}
TINY = FIXTURES / "tiny-bert-tokens"
CROSS_ENCODER = FIXTURES / "cross-encoder-minilm-l6"
SEARCH_QUERIES = ["coral reefs shelter fish", "glaciers carve valleys", "desert winds", "rivers and deltas"]


def text_bytes(text: Text) -> bytes:
    return ctypes.string_at(text.data, text.size) if text.size else b""


def optional_score(value: float):
    return None if value != value else value  # NaN: absent


class Search:
    """sieve_index_* through ctypes, results as `sieve search --json` writes them."""

    def __init__(self, sieve: Sieve):
        self.sieve, self.lib = sieve, sieve.lib
        for name, (restype, argtypes) in SEARCH_SIGNATURES.items():
            function = getattr(self.lib, name)
            function.restype, function.argtypes = restype, argtypes

    def string(self, call, *args) -> str:
        out, size = c_void_p(), c_size_t()
        self.sieve.check(call(*args, byref(out), byref(size)))
        try:
            return ctypes.string_at(out, size.value).decode()
        finally:
            self.lib.sieve_string_free(out)

    def open(self, folder: Path) -> c_void_p:
        index = c_void_p()
        self.sieve.check(self.lib.sieve_index_open(str(folder).encode(), byref(index)))
        return index

    def search(self, index, query: str, embedder=None, reranker=None, filters: dict[str, str] | None = None,
               formats: tuple[str, ...] = (), folders: tuple[str, ...] = (), **fields) -> tuple[list[dict], dict]:
        options = SearchOptions()
        self.lib.sieve_search_options_init(byref(options), ctypes.sizeof(options))
        for key, value in fields.items():
            setattr(options, key, SEARCH_MODES[value] if key == "mode" else value)
        filters = filters or {}
        keys = texts_array([k.encode() for k in filters])
        values = texts_array([v.encode() for v in filters.values()])
        options.filter_keys, options.filter_values, options.filter_count = keys, values, len(filters)
        # The encoded bytes stay referenced until the call: the arrays point into them.
        format_bytes, folder_bytes = [f.encode() for f in formats], [f.encode() for f in folders]
        format_texts, folder_texts = texts_array(format_bytes), texts_array(folder_bytes)
        options.formats, options.format_count = format_texts, len(formats)
        options.folders, options.folder_count = folder_texts, len(folders)
        q = query.encode()
        results = c_void_p()
        self.sieve.check(self.lib.sieve_index_search(index, embedder, reranker,
                                                     Text(ctypes.cast(c_char_p(q), c_void_p), len(q)),
                                                     byref(options), byref(results)))
        try:
            hits = []
            for i in range(self.lib.sieve_search_results_size(results)):
                hit = SearchHit(struct_size=ctypes.sizeof(SearchHit))
                self.sieve.check(self.lib.sieve_search_results_get(results, i, byref(hit)))
                hits.append({
                    "score": hit.score, "vector_score": optional_score(hit.vector_score),
                    "bm25_score": optional_score(hit.bm25_score), "rerank_score": optional_score(hit.rerank_score),
                    # The C ABI's hit has no sparse score: its indexes have no sparse model.
                    "sparse_score": None,
                    "document_id": text_bytes(hit.document_id).decode(), "source": text_bytes(hit.source).decode(),
                    "title": text_bytes(hit.title).decode(), "chunk_id": hit.chunk_id,
                    "chunk_index": hit.chunk_index, "chunk_begin": hit.chunk_begin, "chunk_end": hit.chunk_end,
                    "section": text_bytes(hit.section).decode(), "text": text_bytes(hit.text).decode(),
                    "matches": [[hit.matches[2 * m], hit.matches[2 * m + 1]] for m in range(hit.match_count)],
                    "metadata": json.loads(hit.metadata_json), "rank": hit.rank, "relevance": hit.relevance,
                    "format": text_bytes(hit.format).decode(), "snippet": text_bytes(hit.snippet).decode(),
                    "snippet_matches": [[hit.snippet_matches[2 * m], hit.snippet_matches[2 * m + 1]]
                                        for m in range(hit.snippet_match_count)]})
            whole = json.loads(self.string(self.lib.sieve_search_results_json, results))
            return hits, whole
        finally:
            self.lib.sieve_search_results_destroy(results)


@pytest.fixture(scope="module")
def search_index(tmp_path_factory) -> Path:
    for folder in (TINY, CROSS_ENCODER):
        assert (folder / "model.onnx").exists(), f"{folder} missing: run tools/make_fixtures.py"
    tmp = tmp_path_factory.mktemp("capi-search")
    docs = tmp / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Glaciers carve deep valleys over thousands of years.")
    (docs / "b.md").write_text("---\ntitle: Reefs\nregion: pacific\n---\n# Coral\n\nCoral **reefs** shelter fish.")
    (docs / "c.html").write_text("<html><head><title>Dunes</title></head><body><p>Sand dunes &amp; desert winds.</p>"
                                 "</body></html>")
    words = ("river mountain forest ocean desert valley glacier volcano island canyon meadow prairie harbor "
             "lagoon delta plateau tundra marsh reef dune").split()
    with open(docs / "d.jsonl", "w") as out:
        for i in range(40):
            text = " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(5 + i % 13))
            out.write(json.dumps({"id": f"rec-{i}", "text": text, "region": ("europe", "pacific")[i % 2]}) + "\n")
    index = tmp / "index"
    run_sieve("index", "add", "--index", str(index), "--model", str(TINY), "--quiet", str(docs))
    return index


@pytest.fixture(scope="module")
def search(sieve) -> Search:
    return Search(sieve)


def cli_search(index: Path, query: str, *args: str) -> dict:
    return json.loads(run_sieve("search", "--index", str(index), query, "--json", *args).stdout)


def without_seconds(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "seconds"}


# The fields of a hit that sieve_search_hit carries; the JSON (compared whole) has more (snippet_begin...).
HIT_STRUCT_FIELDS = ("score", "vector_score", "bm25_score", "rerank_score", "sparse_score", "document_id", "source",
                     "title", "chunk_id", "chunk_index", "chunk_begin", "chunk_end", "section", "text", "matches",
                     "metadata", "rank", "relevance", "format", "snippet", "snippet_matches")


def struct_fields(hits: list[dict]) -> list[dict]:
    return [{k: h[k] for k in HIT_STRUCT_FIELDS} for h in hits]


@pytest.mark.parametrize("mode", ["vector", "bm25", "hybrid"])
def test_search_equals_the_cli(sieve, search, search_index, mode):
    index = search.open(search_index)
    embedder = sieve.load(TINY)
    try:
        for query in SEARCH_QUERIES:
            for k in (1, 5, 30):
                want = cli_search(search_index, query, "--mode", mode, "--k", str(k))
                for model in (None, embedder):  # the index's own model, and the caller's
                    hits, whole = search.search(index, query, embedder=model, mode=mode, k=k)
                    assert hits == struct_fields(want["hits"])
                    assert without_seconds(whole) == without_seconds(want)
        want = cli_search(search_index, "dunes", "--mode", mode, "--exact")
        hits, whole = search.search(index, "dunes", embedder=embedder, mode=mode, exact=1)
        assert hits == struct_fields(want["hits"]) and without_seconds(whole) == without_seconds(want)
    finally:
        sieve.lib.sieve_model_destroy(embedder)
        search.lib.sieve_index_destroy(index)


@pytest.mark.parametrize("mode", ["vector", "bm25", "hybrid"])
def test_search_filters_equal_the_cli(search, search_index, mode):
    index = search.open(search_index)
    try:
        for filters in ({"region": "pacific"}, {"region": "nowhere"},
                        {"source": str(search_index.parent / "docs" / "d.jsonl"), "region": "europe"}):
            flags = [a for key, value in filters.items() for a in ("--filter", f"{key}={value}")]
            want = cli_search(search_index, "reef delta", "--mode", mode, "--k", "15", *flags)
            hits, whole = search.search(index, "reef delta", filters=filters, mode=mode, k=15)
            assert hits == struct_fields(want["hits"]) and without_seconds(whole) == without_seconds(want)
    finally:
        search.lib.sieve_index_destroy(index)


def test_search_pages_formats_and_folders_equal_the_cli(search, search_index):
    index = search.open(search_index)
    docs = search_index.parent / "docs"
    try:
        for fields, flags in (({"per_document": 0, "k": 5}, ["--per-document", "0", "--k", "5"]),
                              ({"per_document": 1, "k": 5}, ["--per-document", "1", "--k", "5"]),
                              ({"offset": 3, "k": 3}, ["--offset", "3", "--k", "3"]),
                              ({"formats": ("markdown", "html")}, ["--format", "markdown", "--format", "html"]),
                              ({"folders": (str(docs / "d.jsonl"),)}, ["--folder", str(docs / "d.jsonl")])):
            want = cli_search(search_index, "reef delta dunes", *flags)
            hits, whole = search.search(index, "reef delta dunes", **fields)
            assert hits and hits == struct_fields(want["hits"]), flags
            assert without_seconds(whole) == without_seconds(want)
        hits, _ = search.search(index, "reef", offset=2, k=2)
        assert [h["rank"] for h in hits] == [3, 4]
    finally:
        search.lib.sieve_index_destroy(index)


def test_search_rerank_equals_the_cli(sieve, search, search_index):
    index = search.open(search_index)
    reranker = sieve.load(CROSS_ENCODER)
    try:
        for mode in ("hybrid", "bm25"):
            want = cli_search(search_index, "coral reefs shelter fish", "--mode", mode, "--k", "5",
                              "--rerank", str(CROSS_ENCODER), "--rerank-candidates", "12")
            hits, whole = search.search(index, "coral reefs shelter fish", reranker=reranker, mode=mode, k=5,
                                        rerank_candidates=12)
            assert all(h["rerank_score"] is not None for h in hits)
            assert hits == struct_fields(want["hits"]) and without_seconds(whole) == without_seconds(want)
    finally:
        sieve.lib.sieve_model_destroy(reranker)
        search.lib.sieve_index_destroy(index)


def test_index_stats_json_equals_the_cli(search, search_index):
    index = search.open(search_index)
    try:
        stats = json.loads(search.string(search.lib.sieve_index_stats_json, index))
    finally:
        search.lib.sieve_index_destroy(index)
    want = json.loads(run_sieve("index", "stats", "--index", str(search_index), "--json").stdout)
    # The database's size counts its write-ahead log, which readers may touch.
    assert {k: v for k, v in stats.items() if k != "database_bytes"} == \
        {k: v for k, v in want.items() if k != "database_bytes"}
    assert stats["documents"] == 43


def test_search_errors(sieve, search, search_index, tmp_path):
    with pytest.raises(SieveError) as error:
        search.open(tmp_path / "none")
    assert error.value.code == 3  # SIEVE_NOT_FOUND
    index = search.open(search_index)
    try:
        with pytest.raises(SieveError) as error:
            search.search(index, "q", mode="bm25", k=0)
        assert error.value.code == 1 and "k" in str(error.value)
        with pytest.raises(SieveError) as error:
            search.search(index, "", mode="bm25")
        assert error.value.code == 2  # SIEVE_INVALID_INPUT
        other = sieve.load(FIXTURES / "tiny-bert-cls")
        try:
            with pytest.raises(SieveError) as error:
                search.search(index, "q", embedder=other, mode="vector")
            assert error.value.code == 1 and "tiny-bert-tokens" in str(error.value)
            with pytest.raises(SieveError) as error:
                search.search(index, "q", reranker=other, mode="bm25")
            assert error.value.code == 7  # SIEVE_WRONG_KIND
        finally:
            sieve.lib.sieve_model_destroy(other)
    finally:
        search.lib.sieve_index_destroy(index)
