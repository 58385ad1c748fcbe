"""`sieve serve` end to end: the real server on loopback, called by the
official OpenAI and Hugging Face clients and by plain HTTP. Vectors are
compared with `sieve embed` (itself checked against sentence-transformers
in test_real_model.py) and scores with `sieve rerank` (checked against
CrossEncoder in test_rerank.py)."""
from __future__ import annotations

import base64
import json
import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from conftest import MODEL, ROOT, run_sieve
from server_harness import Server, models_root

sys.path.insert(0, str(ROOT / "tools"))
import make_cross_encoder  # noqa: E402  (tools/ on the path just above)

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
# Sentences within the model's 256 tokens (the file also holds longer ones).
SENTENCES = [s for s in (ROOT / "tests" / "data" / "sentences.txt").read_text().splitlines() if len(s) < 400]
TEXTS = SENTENCES[:40]
LONG_TEXT = " ".join(["word"] * 400)  # over all-MiniLM-L6-v2's 256 tokens


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    for name in (make_cross_encoder.FOLDER, make_cross_encoder.FOLDER_MULTI):
        make_cross_encoder.make(FIXTURES, MODEL / "tokenizer.json", name=name)
    return models_root(tmp_path_factory.mktemp("serve"),
                       {"minilm": MODEL, "ce": FIXTURES / make_cross_encoder.FOLDER,
                        "nli": FIXTURES / make_cross_encoder.FOLDER_MULTI})


@pytest.fixture(scope="module")
def server(root):
    s = Server(root)
    yield s
    assert s.stop() == 0, s.output()


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    out = run_sieve("embed", "--model", str(MODEL), "--format", "json", input="\n".join(TEXTS).encode())
    return np.array(json.loads(out.stdout), dtype=np.float32)


def rerank_reference(query: str, documents: list[str]) -> np.ndarray:
    folder = FIXTURES / make_cross_encoder.FOLDER
    out = run_sieve("rerank", "--model", str(folder), "--query", query,
                    input="".join(d + "\n" for d in documents).encode())
    scores = np.full(len(documents), np.nan, dtype=np.float32)
    for row in json.loads(out.stdout)["results"]:
        scores[row["index"]] = row["score"]
    assert not np.isnan(scores).any()
    return scores


def assert_close(actual, expected, tol=1e-5):
    actual = np.asarray(actual, dtype=np.float32)
    assert actual.shape == expected.shape
    assert np.max(np.abs(actual - expected)) <= tol


# --- official clients ------------------------------------------------------

def test_openai_client_gets_the_vectors_of_sieve_embed(server, reference):
    from openai import OpenAI
    client = OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0)
    for encoding_format in ("float", "base64"):
        response = client.embeddings.create(model="minilm", input=TEXTS, encoding_format=encoding_format)
        assert [d.index for d in response.data] == list(range(len(TEXTS)))
        vectors = [d.embedding if isinstance(d.embedding, list)
                   else np.frombuffer(base64.b64decode(d.embedding), dtype=np.float32) for d in response.data]
        assert_close(vectors, reference)
        assert response.model == "minilm"
        assert response.usage.prompt_tokens == response.usage.total_tokens > len(TEXTS)
    single = client.embeddings.create(model="minilm", input=TEXTS[3])
    assert_close([single.data[0].embedding], reference[3:4])
    # Matryoshka: the first dimensions, normalized again.
    short = client.embeddings.create(model="minilm", input=TEXTS[:2], dimensions=64, encoding_format="float")
    expected = reference[:2, :64] / np.linalg.norm(reference[:2, :64], axis=1, keepdims=True)
    assert_close([d.embedding for d in short.data], expected)
    assert [m.id for m in client.models.list()] == ["ce", "minilm", "nli"]


def test_huggingface_inference_client_gets_the_vectors_of_sieve_embed(server, reference):
    from huggingface_hub import InferenceClient
    client = InferenceClient(model=f"{server.url}/embed")
    assert_close(client.feature_extraction(TEXTS), reference)
    assert_close(client.feature_extraction(TEXTS[5]), reference[5:6])


# --- every endpoint's success shape ------------------------------------------

def test_openai_token_id_inputs(server, reference):
    ids = [json.loads(line)["ids"] for line in run_sieve(
        "tokenize", "--model", str(MODEL), "--no-padding", input="\n".join(TEXTS[:3]).encode()).stdout.splitlines()]
    status, _, body = server.post("/v1/embeddings", {"model": "minilm", "input": ids})
    assert status == 200, body
    assert_close([d["embedding"] for d in body["data"]], reference[:3])
    status, _, body = server.post("/v1/embeddings", {"model": "minilm", "input": ids[0]})
    assert status == 200 and len(body["data"]) == 1
    assert_close([body["data"][0]["embedding"]], reference[:1])


def test_tei_embed_options(server, reference):
    status, _, body = server.post("/embed", {"inputs": TEXTS[:4]})
    assert status == 200
    assert_close(body, reference[:4])
    status, _, body = server.post("/embed", {"inputs": TEXTS[0], "dimensions": 32})
    assert status == 200 and len(body) == 1 and len(body[0]) == 32
    assert abs(np.linalg.norm(body[0]) - 1) < 1e-5
    raw = np.array(server.post("/embed", {"inputs": TEXTS[:2], "normalize": False})[2], dtype=np.float32)
    assert abs(np.linalg.norm(raw[0]) - 1) > 1e-3
    assert_close(raw / np.linalg.norm(raw, axis=1, keepdims=True), reference[:2])
    # Truncation from either side: the kept tokens differ, so the vectors do.
    left = server.post("/embed", {"inputs": LONG_TEXT + " end", "truncate": True, "truncation_direction": "Left"})
    right = server.post("/embed", {"inputs": LONG_TEXT + " end", "truncate": True, "truncation_direction": "right"})
    assert left[0] == right[0] == 200
    assert not np.allclose(left[2], right[2])


def test_tei_rerank_and_cohere_rerank(server):
    query = "What do cats eat?"
    documents = SENTENCES[40:52]
    expected = rerank_reference(query, documents)
    status, _, body = server.post("/rerank", {"query": query, "texts": documents, "return_text": True})
    assert status == 200
    assert [r["index"] for r in body] == sorted(range(len(documents)), key=lambda i: -expected[i])
    for r in body:
        assert abs(r["score"] - expected[r["index"]]) <= 1e-5
        assert r["text"] == documents[r["index"]]
    status, _, raw = server.post("/rerank", {"query": query, "texts": documents, "raw_scores": True})
    logits = {r["index"]: r["score"] for r in raw}
    for r in body:  # sigmoid of the raw logit
        assert abs(1 / (1 + np.exp(-logits[r["index"]])) - r["score"]) <= 1e-5
    docs = [d if i % 2 else {"text": d} for i, d in enumerate(documents)]
    status, _, cohere = server.post("/v1/rerank", {"model": "ce", "query": query, "documents": docs, "top_n": 3,
                                                   "return_documents": True})
    assert status == 200
    assert [r["index"] for r in cohere["results"]] == [r["index"] for r in body[:3]]
    for r in cohere["results"]:
        assert abs(r["relevance_score"] - expected[r["index"]]) <= 1e-5
        assert r["document"] == {"text": documents[r["index"]]}
    assert cohere["model"] == "ce" and cohere["usage"]["total_tokens"] > 0
    status, _, plain = server.post("/v1/rerank", {"query": query, "documents": documents})
    assert len(plain["results"]) == len(documents) and "document" not in plain["results"][0]


def classify_reference(inputs: list, raw: bool = False) -> list[list[dict]]:
    """`sieve classify` on the three-label fixture: texts, or tab-joined pairs."""
    pairs = isinstance(inputs[0], (list, tuple))
    lines = "".join(("\t".join(i) if pairs else i) + "\n" for i in inputs).encode()
    args = ["--pairs"] if pairs else []
    out = run_sieve("classify", "--model", str(FIXTURES / make_cross_encoder.FOLDER_MULTI), *args,
                    *(["--raw-scores"] if raw else []), input=lines)
    return [json.loads(line) for line in out.stdout.decode().splitlines()]


def assert_predictions(got: list[dict], want: list[dict]) -> None:
    assert [p["label"] for p in got] == [p["label"] for p in want]
    for g, w in zip(got, want):
        assert abs(g["score"] - w["score"]) <= 1e-5


def test_tei_predict_texts_pairs_and_batches(server):
    """/predict as Text Embeddings Inference reads it: a string is one text, a
    list of two strings one pair, any other list a batch of texts and pairs."""
    premise, hypothesis = "A man is eating food.", "Someone eats."
    status, _, single = server.post("/predict", {"model": "nli", "inputs": premise})
    assert status == 200, single
    assert_predictions(single, classify_reference([premise])[0])
    status, _, pair = server.post("/predict", {"model": "nli", "inputs": [premise, hypothesis]})
    assert_predictions(pair, classify_reference([(premise, hypothesis)])[0])
    batch = [[premise], [premise, hypothesis], "Cats sleep.", [hypothesis, premise]]
    status, _, rows = server.post("/predict", {"model": "nli", "inputs": batch})
    assert status == 200 and len(rows) == 4
    assert_predictions(rows[0], classify_reference([premise])[0])
    assert_predictions(rows[1], classify_reference([(premise, hypothesis)])[0])
    assert_predictions(rows[2], classify_reference(["Cats sleep."])[0])
    assert_predictions(rows[3], classify_reference([(hypothesis, premise)])[0])
    status, _, raw = server.post("/predict", {"model": "nli", "inputs": [[premise], ["x"]], "raw_scores": True})
    assert_predictions(raw[0], classify_reference([premise], raw=True)[0])
    logits = np.array([p["score"] for p in sorted(raw[0], key=lambda p: p["label"])], dtype=np.float64)
    softmax = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    activated = np.array([p["score"] for p in sorted(rows[0], key=lambda p: p["label"])])
    assert np.abs(softmax - activated).max() <= 1e-5
    status, _, info = server.get("/info?model=nli")
    labels = json.loads((FIXTURES / make_cross_encoder.FOLDER_MULTI / "config.json").read_text())["id2label"]
    assert info["model_type"] == {"classifier": {"id2label": labels, "label2id": {v: int(k) for k, v in labels.items()}}}


@pytest.mark.parametrize("payload, status, needle", [
    ({"model": "nli", "inputs": []}, 400, "must not be empty"),
    ({"model": "nli", "inputs": [1]}, 422, "neither a text nor a pair"),
    ({"model": "nli", "inputs": [["a", "b", "c"]]}, 422, "item 0"),
    ({"model": "nli"}, 422, "`inputs` is required"),
    ({"model": "nli", "inputs": ["ok", "ok", LONG_TEXT * 2]}, 422, "input 2"),
    ({"model": "minilm", "inputs": "x"}, 400, "not a reranker"),
])
def test_tei_predict_errors(server, payload, status, needle):
    got, _, body = server.post("/predict", payload)
    assert got == status, body
    assert needle in tei_error(body)["error"], body


def test_tei_tokenize_decode_info(server):
    text = "Héllo, wörld!"
    expected = json.loads(run_sieve("tokenize", "--model", str(MODEL), "--no-padding", "--byte-offsets",
                                    input=text.encode()).stdout)
    expected["offsets"] = expected.pop("byte_offsets")
    status, _, body = server.post("/tokenize", {"inputs": [text]})
    assert status == 200 and len(body) == 1
    assert [t["id"] for t in body[0]] == expected["ids"]
    encoded = text.encode()
    for token, special, (start, stop) in zip(body[0], expected["special_tokens_mask"], expected["offsets"]):
        assert token["special"] == bool(special)
        if special:
            assert token["start"] is None and token["text"] in ("[CLS]", "[SEP]")
        else:
            assert (token["start"], token["stop"]) == (start, stop)
            assert token["text"] == encoded[start:stop].decode()
    status, _, decoded = server.post("/decode", {"ids": [expected["ids"], [101, 7592, 102]], "model": "minilm"})
    assert status == 200 and decoded == ["hello, world!", "hello"]
    status, _, info = server.get("/info")
    assert status == 200 and info["model_id"] == "ce" and "reranker" in info["model_type"]
    status, _, info = server.get("/info?model=minilm")
    assert info["model_type"] == {"embedding": {"pooling": "mean"}} and info["max_input_length"] == 256


def test_health_ready_metrics(server):
    assert server.get("/health")[:1] == (200,)
    status, _, ready = server.get("/ready")
    assert status == 200 and ready["ready"] is True and ready["models"] == ["ce", "minilm", "nli"]
    server.post("/embed", {"inputs": "metrics please"})
    status, headers, text = server.get("/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    for name in ("sieve_requests_total{route=\"/embed\",status=\"200\"}", "sieve_batch_size_bucket",
                 "sieve_batch_tokens_bucket", "sieve_tokenize_duration_seconds_bucket",
                 "sieve_inference_duration_seconds_bucket", "sieve_request_duration_seconds_bucket",
                 "sieve_queue_depth{model=\"minilm\"}", "sieve_model_load_seconds{model=\"minilm\"}",
                 "sieve_resident_memory_bytes"):
        assert name in text, name
    rss = int(next(line for line in text.splitlines() if line.startswith("sieve_resident_memory_bytes ")).split()[1])
    assert rss > 10_000_000


# --- errors, in each API's own shape ------------------------------------------

def openai_error(body) -> dict:
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}, body
    return body["error"]


def tei_error(body) -> dict:
    assert set(body) == {"error", "error_type"}, body
    return body


@pytest.mark.parametrize("payload, status, needle", [
    (b"{not json", 400, "not valid JSON"),
    (b'{"model": "minilm", "input": "\xff\xfe"}', 400, "not valid JSON"),  # invalid UTF-8
    (b"[1, 2]", 400, "JSON object"),
    ({"model": "minilm"}, 422, "`input` is required"),
    ({"model": "minilm", "input": 5}, 422, "`input` must be"),
    ({"model": "minilm", "input": ["a", 5]}, 422, "input 1 is not a string"),
    ({"model": "minilm", "input": []}, 400, "must not be empty"),
    ({"model": "minilm", "input": [[]]}, 422, "no token ids"),
    ({"model": "minilm", "input": [[1, -2]]}, 422, "token ids must be integers"),
    ({"model": "minilm", "input": [[101, 99999999]]}, 422, "outside the vocabulary"),
    # OpenAI's API cannot ask for truncation: the error names the server's flag that does.
    ({"model": "minilm", "input": ["fine", LONG_TEXT]}, 422, ("input 1", "--auto-truncate")),
    ({"model": "minilm", "input": "x", "dimensions": 0}, 422, "`dimensions`"),
    ({"model": "minilm", "input": "x", "dimensions": 385}, 422, "`dimensions`"),
    ({"model": "minilm", "input": "x", "encoding_format": "int8"}, 422, "encoding_format"),
    ({"model": "nope", "input": "x"}, 404, ("does not exist", "embedding models served here: minilm")),
    ({"model": "minlm", "input": "x"}, 404, ("does not exist", "did you mean `minilm`?")),
    ({"model": "../minilm", "input": "x"}, 404, "does not exist"),
    ({"model": "/tmp", "input": "x"}, 404, "does not exist"),
    ({"model": "ce", "input": "x"}, 400, "is a reranker"),
])
def test_openai_errors(server, payload, status, needle):
    got, _, body = server.post("/v1/embeddings", payload)
    assert got == status, body
    error = openai_error(body)
    assert all(n in error["message"] for n in ((needle,) if isinstance(needle, str) else needle)), error
    if status == 404:
        assert error["code"] == "model_not_found" and error["param"] == "model"


@pytest.mark.parametrize("path, payload, status, needle", [
    ("/embed", {"inputs": []}, 400, "must not be empty"),
    ("/embed", {"inputs": "x", "normalize": "yes"}, 422, "`normalize` must be a boolean"),
    ("/embed", {"inputs": "x", "truncate": 1}, 422, "`truncate` must be a boolean"),
    ("/embed", {"inputs": "x", "truncation_direction": "middle"}, 422, "truncation_direction"),
    ("/embed", {"inputs": "x", "prompt_name": "query"}, 400, "unknown prompt name"),
    ("/embed", {"inputs": ["ok", "ok", LONG_TEXT]}, 422, ("input 2", '"truncate": true', "--auto-truncate")),
    ("/rerank", {"query": "q"}, 422, "`texts` is required"),
    ("/rerank", {"query": "q", "texts": [LONG_TEXT * 2]}, 422, ("input 0", '"truncate": true')),
    ("/rerank", {"texts": ["a"]}, 422, "`query` is required"),
    ("/tokenize", {"inputs": 3}, 422, "`inputs` must be"),
    ("/decode", {"ids": ["a"]}, 422, "`ids` must be"),
    ("/decode", {"ids": [5, 99999999]}, 422, "outside the vocabulary"),
])
def test_tei_errors(server, path, payload, status, needle):
    got, _, body = server.post(path, payload)
    assert got == status, body
    error = tei_error(body)
    assert all(n in error["error"] for n in ((needle,) if isinstance(needle, str) else needle)), error
    assert error["error_type"] == {400: "Empty", 422: "Validation"}[status]


def test_long_inputs_are_cut_when_asked(server):
    status, _, body = server.post("/embed", {"inputs": [LONG_TEXT], "truncate": True})
    assert status == 200 and len(body[0]) == 384
    status, _, body = server.post("/rerank", {"query": "q", "texts": [LONG_TEXT * 2], "truncate": True})
    assert status == 200
    status, _, body = server.post("/v1/rerank", {"query": "q", "documents": [LONG_TEXT * 2]})
    assert status == 200  # Cohere cuts long documents


def test_cohere_errors_and_unknown_routes(server):
    status, _, body = server.post("/v1/rerank", {"query": "q", "documents": [1]})
    assert status == 422 and set(body) == {"message"} and "item 0" in body["message"]
    status, _, body = server.post("/v1/rerank", {"query": "q", "documents": ["a"], "top_n": 0})
    assert status == 422 and "top_n" in body["message"]
    status, _, body = server.post("/v1/rerank", {"model": "minilm", "query": "q", "documents": ["a"]})
    assert status == 400 and "embedding model" in body["message"]
    status, _, body = server.get("/v2/nothing")
    assert status == 404 and "no route" in body["error"]
    status, _, body = server.get("/v1/nothing")
    assert status == 404 and "no route" in openai_error(body)["message"]


def test_limits_body_inputs_queue_and_timeout(root, tmp_path):
    s = Server(root, "--max-body-bytes", "20000", "--max-inputs", "8", "--max-queued", "16",
               "--max-wait-ms", "50")
    try:
        status, _, body = s.post("/v1/embeddings", {"model": "minilm", "input": "x" * 30000})
        assert status == 413 and "larger than the 20000 bytes" in openai_error(body)["message"]
        status, _, body = s.post("/embed", {"inputs": "x" * 30000})
        assert status == 413 and tei_error(body)["error_type"] == "Validation"
        status, _, body = s.post("/v1/embeddings", {"model": "minilm", "input": ["a"] * 9})
        assert status == 413 and "more than the 8 allowed" in openai_error(body)["message"]
        # More queued inputs than the queue holds: some requests are refused
        # at once with 429 and Retry-After, the others answered in full.
        with ThreadPoolExecutor(32) as pool:
            results = list(pool.map(lambda i: s.post("/embed", {"inputs": SENTENCES[i % 200: i % 200 + 8]}),
                                    range(64)))
        statuses = [r[0] for r in results]
        assert set(statuses) <= {200, 429}, statuses
        assert 429 in statuses and 200 in statuses, statuses
        for status, headers, body in results:
            if status == 429:
                assert headers["Retry-After"] == "1" and tei_error(body)["error_type"] == "Overloaded"
            else:
                assert len(body) == 8
    finally:
        assert s.stop() == 0, s.output()
    s = Server(root, "--request-timeout", "0.001", "--max-wait-ms", "100")
    try:
        status, headers, body = s.post("/v1/embeddings", {"model": "minilm", "input": SENTENCES[:32]})
        assert status == 503 and headers["Retry-After"] == "1", body
        assert openai_error(body)["code"] == "timeout"
    finally:
        assert s.stop() == 0, s.output()


def test_concurrent_clients_get_what_sequential_ones_get(server):
    requests = [SENTENCES[(7 * i) % 200:(7 * i) % 200 + 1 + i % 8] for i in range(128)]

    def embed(texts):
        status, _, body = server.post("/v1/embeddings", {"model": "minilm", "input": texts,
                                                        "encoding_format": "base64"})
        assert status == 200, body
        return np.stack([np.frombuffer(base64.b64decode(d["embedding"]), dtype=np.float32) for d in body["data"]])

    sequential = [embed(texts) for texts in requests]
    with ThreadPoolExecutor(64) as pool:
        concurrent = list(pool.map(embed, requests))
    worst = max(float(np.max(np.abs(a - b))) for a, b in zip(sequential, concurrent))
    # The same inputs in other batches: ONNX Runtime's kernels may sum in
    # another order for another batch shape, nothing more.
    assert worst <= 1e-6, worst


def test_api_keys(root, tmp_path):
    key_file = tmp_path / "keys"
    key_file.write_text("# keys\nfile-key\n")
    s = Server(root, "--api-key-file", str(key_file), env={"SIEVE_API_KEYS": "env-key"})
    try:
        assert "API keys required" in s.output()
        assert "file-key" not in s.output() and "env-key" not in s.output()
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "env-key"},
                        {"Authorization": "Bearer env-key2"}):
            status, h, body = s.post("/v1/embeddings", {"model": "minilm", "input": "x"}, headers=headers)
            assert status == 401 and openai_error(body)["code"] == "invalid_api_key" and h["WWW-Authenticate"] == "Bearer"
            status, _, body = s.post("/embed", {"inputs": "x"}, headers=headers)
            assert status == 401 and tei_error(body)["error_type"] == "Unauthorized"
            assert s.get("/metrics", headers=headers)[0] == 401
        for key in ("env-key", "file-key"):
            status, _, _ = s.post("/embed", {"inputs": "x"}, headers={"Authorization": f"Bearer {key}"})
            assert status == 200
        from openai import AuthenticationError, OpenAI
        with pytest.raises(AuthenticationError):
            OpenAI(base_url=f"{s.url}/v1", api_key="bad", max_retries=0).embeddings.create(model="minilm", input="x")
        ok = OpenAI(base_url=f"{s.url}/v1", api_key="file-key", max_retries=0).embeddings.create(model="minilm",
                                                                                               input="x")
        assert len(ok.data[0].embedding) == 384
        assert s.get("/health")[0] == 200 and s.get("/ready")[0] == 200  # probes stay open
    finally:
        assert s.stop() == 0, s.output()


def test_cors_is_off_unless_enabled(root, server):
    _, headers, _ = server.post("/embed", {"inputs": "x"}, headers={"Origin": "http://example.test"})
    assert "Access-Control-Allow-Origin" not in headers
    s = Server(root, "--cors-allow-origin", "http://example.test")
    try:
        _, headers, _ = s.post("/embed", {"inputs": "x"}, headers={"Origin": "http://example.test"})
        assert headers["Access-Control-Allow-Origin"] == "http://example.test"
        status, headers, _ = s.request("OPTIONS", "/embed", headers={"Origin": "http://example.test",
                                                                     "Access-Control-Request-Method": "POST"})
        assert status == 204 and "POST" in headers["Access-Control-Allow-Methods"]
        _, headers, _ = s.post("/embed", {"inputs": "x"}, headers={"Origin": "http://other.test"})
        assert "Access-Control-Allow-Origin" not in headers
    finally:
        assert s.stop() == 0, s.output()


def test_binds_loopback_and_models_are_named_not_loaded_from_paths(root, server):
    assert "listening on http://127.0.0.1:" in server.output()
    for name in (str(MODEL), "minilm/../ce", "~/models"):
        status, _, body = server.post("/v1/embeddings", {"model": name, "input": "x"})
        assert status == 404, body


def test_sigterm_drains_accepted_requests(root):
    s = Server(root, "--drain-grace", "1")
    failures, answered = [], []
    stop = threading.Event()

    def client(i):
        while not stop.is_set():
            try:
                status, _, body = s.post("/v1/embeddings", {"model": "minilm", "input": SENTENCES[i:i + 16]},
                                         timeout=60)
            except (ConnectionError, OSError):
                return  # not accepted: the server had stopped listening
            if status == 200 and len(body["data"]) == 16:
                answered.append(status)
            elif status != 200:
                failures.append((status, body))
                return

    threads = [threading.Thread(target=client, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    s.process.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    status, _, ready = s.get("/ready")  # still listening during the grace period
    assert status == 503 and ready["ready"] is False
    stop.set()
    for t in threads:
        t.join(timeout=120)
    assert s.process.wait(timeout=60) == 0, s.output()
    s.stop()
    assert not failures, failures[:3]
    assert answered  # the load really ran (how much depends on the machine)
    assert "draining" in s.output() and "drained; exiting" in s.output()


def test_random_bodies_never_break_the_server(server):
    """Garbage bytes and JSON of every shape at every POST route: each gets a
    4xx in its API's shape (or 200 where the shape happens to be valid), and
    the server answers normally afterwards."""
    import random
    rng = random.Random(5)
    leaves = [None, True, 0, -1, 2**40, 1.5, "", "text", "\u00e9\u4e2d", [], {}, [1, 2], ["a"], [[1]], [[]]]
    keys = ["input", "inputs", "model", "query", "texts", "documents", "ids", "dimensions", "normalize", "truncate",
            "truncation_direction", "top_n", "encoding_format", "raw_scores", "return_text", "prompt_name"]

    def value(depth=0):
        if depth > 2 or rng.random() < 0.5:
            return rng.choice(leaves)
        if rng.random() < 0.5:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return {rng.choice(keys): value(depth + 1) for _ in range(rng.randint(0, 3))}

    for i in range(300):
        path = ["/v1/embeddings", "/embed", "/rerank", "/v1/rerank", "/tokenize", "/decode"][i % 6]
        if i % 5 == 0:
            payload = bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
        else:
            payload = {rng.choice(keys): value() for _ in range(rng.randint(0, 5))}
        status, _, body = server.post(path, payload)
        assert status in (200, 400, 404, 413, 422), (path, payload, status, body)
        assert isinstance(body, (dict, list)), (path, payload, body)
    status, _, body = server.post("/embed", {"inputs": "still alive"})
    assert status == 200 and len(body[0]) == 384


def metric(text: str, name: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name))


def test_work_of_a_client_that_went_away_is_dropped(root):
    """A request queued behind a long one whose client hangs up is answered
    499 in the metrics and its inputs never run."""
    import socket
    s = Server(root, "--max-wait-ms", "0", "--max-batch-tokens", "4096")
    try:
        long_texts = [LONG_TEXT] * 96  # ~1 s or more of work on two cores
        blocker = threading.Thread(target=s.post, args=("/embed", {"inputs": long_texts, "truncate": True}))
        blocker.start()
        # Once the blocker's first run is done, the rest of it is queued
        # ahead of what follows (tokenizing it first can take a while in a
        # sanitizer build).
        deadline = time.monotonic() + 60
        while metric(s.get("/metrics")[2], "sieve_batches_total") < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        body = json.dumps({"model": "minilm", "input": SENTENCES[:50]}).encode()
        with socket.create_connection(("127.0.0.1", s.port)) as sock:
            sock.sendall(b"POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            time.sleep(0.05)
        blocker.join(timeout=120)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = s.get("/metrics")[2]
            if metric(text, 'sieve_requests_total{route="/v1/embeddings",status="499"}') == 1:
                break
            time.sleep(0.1)
        assert metric(text, 'sieve_requests_total{route="/v1/embeddings",status="499"}') == 1, text
        assert metric(text, "sieve_batch_size_sum") == len(long_texts)  # none of the 50 ran
    finally:
        assert s.stop() == 0, s.output()
