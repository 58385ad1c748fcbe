"""`sieve rerank` against independent references on the fixture cross-encoders.

References: sentence-transformers' CrossEncoder.predict, stored once by
tools/make_ce_reference.py (the set-up has no torch), and Python onnxruntime
on the same model.onnx fed by Hugging Face `tokenizers`, with the scores
computed in numpy as CrossEncoder documents them (sigmoid of one logit,
softmax over several)."""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from tokenizers import Tokenizer

from conftest import ROOT, run_sieve

sys.path.insert(0, str(ROOT / "tools"))
import make_cross_encoder  # noqa: E402  (tools/ on the path just above)

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
PAIRS = ROOT / "tests" / "data" / "cross-encoder-pairs.json"
REFERENCE = ROOT / "tests" / "data" / "cross-encoder-minilm-l6.ce-reference.json"
TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def fixtures() -> Path:
    """The fixture folders, made now when missing or stale (a no-op otherwise)."""
    for name in make_cross_encoder.FIXTURES:
        make_cross_encoder.make(FIXTURES, ROOT / "models" / "all-MiniLM-L6-v2" / "tokenizer.json", name=name)
    return FIXTURES


@pytest.fixture(scope="module")
def model(fixtures) -> Path:
    return fixtures / make_cross_encoder.FOLDER


@pytest.fixture(scope="module")
def groups() -> list[dict]:
    return json.loads(PAIRS.read_text(encoding="utf-8"))["groups"]


@pytest.fixture(scope="module")
def reference(model) -> dict:
    ref = json.loads(REFERENCE.read_text(encoding="utf-8"))
    assert ref["pairs_sha256"] == hashlib.sha256(PAIRS.read_bytes()).hexdigest(), \
        f"{PAIRS} changed since the reference was made: rerun tools/make_ce_reference.py"
    from safetensors.numpy import load_file
    digest = make_cross_encoder.weights_digest(load_file(str(model / "model.safetensors")))
    assert ref["weights_sha256"] == digest, \
        "the fixture cross-encoder's weights changed since the reference was made: rerun tools/make_ce_reference.py"
    return ref


def rerank(model: Path, query: str, documents: list[str], *args: str, check: bool = True):
    stdin = "".join(d + "\n" for d in documents).encode("utf-8")
    result = run_sieve("rerank", "--model", str(model), "--query", query, *args, input=stdin, check=check)
    if not check:
        return result
    return json.loads(result.stdout)


def scores_by_index(output: dict, n: int) -> np.ndarray:
    scores = np.full(n, np.nan)
    for r in output["results"]:
        scores[r["index"]] = r["score"]
    assert not np.isnan(scores).any(), "every document must be scored"
    return scores


def ort_scores(model: Path, query: str, documents: list[str], *, max_length: int, strategy: str,
               label: int = 0, activation: str = "sigmoid") -> np.ndarray:
    """Python onnxruntime on the same file, tokenized by Hugging Face `tokenizers`."""
    tok = Tokenizer.from_file(str(model / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_length, strategy=strategy)
    sess = ort.InferenceSession(str(model / "model.onnx"), providers=["CPUExecutionProvider"])
    logits = []
    for e in tok.encode_batch([(query, d) for d in documents]):
        feeds = {"input_ids": np.array([e.ids], dtype=np.int64),
                 "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                 "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
        logits.append(sess.run(["logits"], feeds)[0][0].astype(np.float64))
    z = np.array(logits)
    if activation == "sigmoid":
        return 1.0 / (1.0 + np.exp(-z[:, label]))
    if activation == "softmax":
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True))[:, label]
    return z[:, label]


def test_matches_sentence_transformers_cross_encoder(model, groups, reference):
    worst = {"default": 0.0, "raw": 0.0, "max_length_24": 0.0}
    args = {"default": [], "raw": ["--raw-scores"], "max_length_24": ["--max-length", "24"]}
    for g, group in enumerate(groups):
        n = len(group["documents"])
        for kind in worst:
            got = scores_by_index(rerank(model, group["query"], group["documents"], *args[kind]), n)
            want = np.array(reference["groups"][g][kind])
            worst[kind] = max(worst[kind], float(np.abs(got - want).max()))
    print(f"\nrerank vs sentence-transformers {reference['sentence_transformers']} CrossEncoder: "
          f"largest differences {worst}")
    for kind, value in worst.items():
        assert value <= TOLERANCE, f"{kind}: {value}"


def test_reference_covers_truncation(reference):
    tokens = [n for g in reference["groups"] for n in g["tokens"]]
    assert max(tokens) == reference["max_length"] == 512, "some pairs must be truncated at 512 tokens"
    assert sum(n == 24 for g in reference["groups"] for n in g["tokens_24"]) > 20


@pytest.mark.parametrize("strategy,max_length", [("longest_first", 512), ("longest_first", 40),
                                                 ("only_second", 64)])
def test_matches_python_onnxruntime(model, groups, strategy, max_length):
    worst = 0.0
    compared = 0
    for group in groups:
        args = ["--truncation", strategy, "--max-length", str(max_length)]
        try:
            want = ort_scores(model, group["query"], group["documents"], max_length=max_length, strategy=strategy)
        except Exception as exc:  # noqa: BLE001 - Hugging Face refuses (query longer than only_second allows)
            result = rerank(model, group["query"], group["documents"], *args, check=False)
            assert result.returncode != 0, f"Hugging Face refused ({exc}) but sieve did not"
            continue
        got = scores_by_index(rerank(model, group["query"], group["documents"], *args), len(want))
        worst = max(worst, float(np.abs(got - want).max()))
        compared += len(want)
    print(f"\nrerank {strategy}/{max_length} vs onnxruntime: {compared} pairs, largest difference {worst:.2e}")
    assert compared > 0
    assert worst <= TOLERANCE


def test_several_labels_softmax_and_raw(fixtures, groups):
    model = fixtures / make_cross_encoder.FOLDER_MULTI
    group = groups[1]
    for label in (0, 2):
        want = ort_scores(model, group["query"], group["documents"], max_length=512, strategy="longest_first",
                          label=label, activation="softmax")
        out = rerank(model, group["query"], group["documents"], "--label", str(label))
        assert out["activation"] == "softmax"
        assert np.abs(scores_by_index(out, len(want)) - want).max() <= TOLERANCE
    want = ort_scores(model, group["query"], group["documents"], max_length=512, strategy="longest_first",
                      label=1, activation="none")
    out = rerank(model, group["query"], group["documents"], "--label", "1", "--raw-scores")
    assert np.abs(scores_by_index(out, len(want)) - want).max() <= TOLERANCE
    result = rerank(model, "q", ["d"], "--label", "3", check=False)
    assert result.returncode != 0 and b"label 3" in result.stderr


def test_top_k_order_and_documents(model, groups, reference):
    g = 4
    group = groups[g]
    want = np.array(reference["groups"][g]["default"])
    order = sorted(range(len(want)), key=lambda i: -want[i])  # stable: ties keep input order
    k = 5
    # The reference ranking is only meaningful where neighbours differ by more than the tolerance.
    assert all(want[order[i]] - want[order[i + 1]] > 2 * TOLERANCE for i in range(k))
    out = rerank(model, group["query"], group["documents"], "--top-k", str(k), "--return-documents")
    assert [r["index"] for r in out["results"]] == order[:k]
    assert [r["document"] for r in out["results"]] == [group["documents"][i] for i in order[:k]]
    scores = [r["score"] for r in out["results"]]
    assert scores == sorted(scores, reverse=True)
    # Without --return-documents there is no document field; K past the end gives all.
    out = rerank(model, group["query"], group["documents"], "--top-k", "1000")
    assert len(out["results"]) == len(group["documents"])
    assert all("document" not in r for r in out["results"])
    # Duplicates score the same and keep their input order.
    out = rerank(model, "berlin", ["same text", "other", "same text"])
    ranks = [r["index"] for r in out["results"]]
    assert ranks.index(0) < ranks.index(2)


def test_empty_input_gives_no_results(model):
    assert rerank(model, "anything", []) == {"activation": "sigmoid", "results": []}


def test_errors(model, fixtures, tmp_path):
    result = rerank(tmp_path / "missing", "q", ["d"], check=False)
    assert result.returncode != 0 and b"not found" in result.stderr
    # An embedding model is not a cross-encoder.
    result = rerank(fixtures / "tiny-bert-tokens", "q", ["d"], check=False)
    assert result.returncode != 0 and b"not a cross-encoder" in result.stderr, result.stderr
    # Invalid UTF-8 on line 2: the error names the line.
    result = run_sieve("rerank", "--model", str(model), "--query", "q", input=b"fine\ncaf\xc3\n", check=False)
    assert result.returncode != 0 and b"line 2" in result.stderr, result.stderr
    result = run_sieve("rerank", "--model", str(model), "--query", "q", "--invalid-utf8", "replace",
                       input=b"fine\ncaf\xc3\n")
    assert len(json.loads(result.stdout.decode("utf-8", errors="replace"))["results"]) == 2
    # Options.
    assert run_sieve("rerank", "--model", str(model), input=b"d\n", check=False).returncode != 0  # no --query
    result = run_sieve("rerank", "--model", str(model), "--query", "q", "--truncation", "only_first",
                       input=b"d\n", check=False)
    assert result.returncode != 0
    result = run_sieve("rerank", "--model", str(model), "--query", "q", "--max-length", "600", input=b"d\n",
                       check=False)
    assert result.returncode != 0 and b"512" in result.stderr
    # A query that only_second cannot keep whole.
    result = run_sieve("rerank", "--model", str(model), "--query", "berlin " * 40, "--truncation", "only_second",
                       "--max-length", "32", input=b"d\n", check=False)
    assert result.returncode != 0 and b"line 1" in result.stderr, result.stderr


def test_info_describes_a_cross_encoder_folder(fixtures):
    """`sieve info --model` on a reranker folder reports it as one (labels and
    activation from its config.json), not as an embedding model."""
    multi = fixtures / "cross-encoder-tiny-3labels"
    config = json.loads((multi / "config.json").read_text(encoding="utf-8"))
    result = run_sieve("info", "--model", str(multi), "--json")
    doc = json.loads(result.stdout)
    assert doc["kind"] == "reranker"
    assert doc["labels"] == len(config["id2label"]) == 3
    assert doc["label_names"] == [config["id2label"][str(i)] for i in range(3)]
    assert doc["activation"] == "softmax"
    assert doc["classification_activation"] == "softmax" and doc["llm_reranker"] is False
    assert doc["output"] == "logits"
    assert "pooling" not in doc
    text = run_sieve("info", "--model", str(fixtures / "cross-encoder-minilm-l6")).stdout.decode()
    assert "kind:        reranker (cross-encoder) and classifier (sieve classify)" in text
    assert "labels:      1" in text
