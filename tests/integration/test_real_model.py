"""`sieve embed` of all-MiniLM-L6-v2 against sentence-transformers
encode(normalize_embeddings=True) on the original PyTorch model. The
reference is stored (tools/make_st_reference.py; torch is too heavy for every
CI run) together with the versions that produced it."""
from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pytest

from conftest import MODEL, ROOT, run_sieve

SENTENCES = ROOT / "tests" / "data" / "sentences.txt"
REFERENCE_NPY = ROOT / "tests" / "data" / "all-MiniLM-L6-v2.st-reference.npy"
REFERENCE_META = ROOT / "tests" / "data" / "all-MiniLM-L6-v2.st-reference.json"

pytestmark = pytest.mark.skipif(not (MODEL / "model.onnx").exists(),
                                reason="models/all-MiniLM-L6-v2 missing: run scripts/bootstrap.sh")


def load_reference():
    meta = json.loads(REFERENCE_META.read_text())
    assert meta["sentences_sha256"] == hashlib.sha256(SENTENCES.read_bytes()).hexdigest(), \
        "tests/data/sentences.txt changed: rerun tools/make_st_reference.py"
    return np.load(REFERENCE_NPY)


@pytest.mark.parametrize("batch_size", ["1", "32", "128"])
def test_matches_sentence_transformers(batch_size):
    expected = load_reference()
    result = run_sieve("embed", "--model", str(MODEL), "--format", "npy", "--batch-size", batch_size,
                       input=SENTENCES.read_bytes())
    got = np.load(io.BytesIO(result.stdout))
    assert got.shape == expected.shape and len(got) >= 200
    cosine = (got * expected).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(expected, axis=1)
    max_abs = np.abs(got - expected).max(axis=1)
    print(f"\nbatch {batch_size}: {len(got)} sentences, min cosine {cosine.min():.9f}, max abs diff {max_abs.max():.3g}")
    assert cosine.min() >= 0.9999
    assert max_abs.max() <= 1e-4


def test_output_formats_agree():
    texts = SENTENCES.read_text(encoding="utf-8").splitlines()[:10]
    payload = ("\n".join(texts) + "\n").encode()
    npy = np.load(io.BytesIO(run_sieve("embed", "--model", str(MODEL), "--format", "npy", input=payload).stdout))
    jsonl = np.array([json.loads(l) for l in run_sieve("embed", "--model", str(MODEL), input=payload).stdout.splitlines()],
                     dtype=np.float32)
    whole = np.array(json.loads(run_sieve("embed", "--model", str(MODEL), "--format", "json", input=payload).stdout),
                     dtype=np.float32)
    args = np.array([json.loads(l) for l in run_sieve("embed", "--model", str(MODEL), *texts).stdout.splitlines()],
                    dtype=np.float32)
    assert npy.shape == (10, 384)
    # Text output prints the shortest decimal that reads back to the same float32.
    assert np.array_equal(npy, jsonl) and np.array_equal(npy, whole) and np.array_equal(npy, args)


def test_normalization_flags():
    raw = np.array(json.loads(run_sieve("embed", "--model", str(MODEL), "--no-normalize", "--format", "json",
                                        "a sentence").stdout), dtype=np.float32)
    unit = np.array(json.loads(run_sieve("embed", "--model", str(MODEL), "--format", "json",
                                         "a sentence").stdout), dtype=np.float32)
    assert abs(np.linalg.norm(unit) - 1) < 1e-5
    assert abs(np.linalg.norm(raw) - 1) > 1e-3
    np.testing.assert_allclose(raw / np.linalg.norm(raw), unit, atol=1e-6)


def test_info_reports_the_model():
    info = json.loads(run_sieve("info", "--model", str(MODEL), "--json").stdout)
    assert info["dimension"] == 384
    assert info["max_length"] == 256
    assert info["pooling"] == "mean"
    assert info["normalize"] is True
    assert info["providers"] == ["cpu"]
    assert [i["name"] for i in info["inputs"]] == ["input_ids", "attention_mask", "token_type_ids"]
