"""Embedding options of `sieve embed` and `sieve similarity` on
all-MiniLM-L6-v2: prompts, Matryoshka truncation, output precision and
similarity functions.

References are independent of Sieve:
- embeddings: Hugging Face tokenizers + Python onnxruntime on the same ONNX
  file, pooled and normalized in NumPy the way sentence-transformers'
  encode() does it (prompt prepended to the text; its tokens masked out of
  pooling when the Pooling config says include_prompt false; truncate_dim
  before normalize_embeddings);
- quantization and similarity: NumPy transcriptions of sentence-transformers'
  quantize_embeddings and similarity functions (below), applied to the float32
  vectors Sieve printed (the quantizer is what is under test, so bucket edges
  must see the same floats);
- where tests/data/all-MiniLM-L6-v2.st-options.npz exists
  (tools/make_st_options_reference.py, run once with torch and
  sentence-transformers), the real sentence-transformers output.
"""
from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

from conftest import MODEL, ROOT, run_sieve

SENTENCES = ROOT / "tests" / "data" / "sentences.txt"
ST_OPTIONS = ROOT / "tests" / "data" / "all-MiniLM-L6-v2.st-options.npz"
PROMPTS = {"query": "query: ", "passage": "passage: ", "instruct": "Represent this sentence for retrieval: "}

pytestmark = pytest.mark.skipif(not (MODEL / "model.onnx").exists(),
                                reason="models/all-MiniLM-L6-v2 missing: run scripts/bootstrap.sh")


def sentences(n: int | None = None) -> list[str]:
    lines = SENTENCES.read_bytes().decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[:n] if n else lines


def payload(texts: list[str]) -> bytes:
    return ("\n".join(texts) + "\n").encode("utf-8")


def sieve_npy(*args: str, texts: list[str]) -> np.ndarray:
    return np.load(io.BytesIO(run_sieve("embed", "--format", "npy", *args, input=payload(texts)).stdout))


# ---- NumPy transcriptions of sentence-transformers


def st_quantize(embeddings, precision, ranges=None, calibration_embeddings=None):
    """sentence_transformers.util.quantization.quantize_embeddings (main):
    ranges from the calibration set, else from the embeddings; floor into 255
    steps, clip to [0, 255], a zero step replaced by 1; int8 = bucket - 128;
    binary = packbits(x > 0) per row, minus 128."""
    if precision == "float32":
        return embeddings.astype(np.float32)
    if precision == "float16":  # not in sentence-transformers; NumPy's cast
        return embeddings.astype(np.float16)
    if precision.endswith("int8"):
        if ranges is None:
            src = calibration_embeddings if calibration_embeddings is not None else embeddings
            ranges = np.vstack((np.min(src, axis=0), np.max(src, axis=0)))
        ranges = ranges.astype(np.float32, copy=False)
        starts = ranges[0, :]
        steps = (ranges[1, :] - starts) / 255
        steps = np.where(steps == 0, 1, steps)
        q = np.clip(np.floor((embeddings - starts) / steps), 0, 255)
        return q.astype(np.uint8) if precision == "uint8" else (q - 128).astype(np.int8)
    if precision == "binary":
        return (np.packbits(embeddings > 0, axis=-1) - 128).astype(np.int8)
    if precision == "ubinary":
        return np.packbits(embeddings > 0, axis=-1)
    raise ValueError(precision)


def st_similarity(a, b, name):
    """sentence_transformers.util: cos_sim, dot_score, euclidean_sim (negated
    distance), manhattan_sim (negated distance)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if name == "cosine":
        an = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
        bn = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)
        return an @ bn.T
    if name == "dot":
        return a @ b.T
    if name == "euclidean":
        return -np.linalg.norm(a[:, None, :] - b[None, :, :], axis=-1)
    if name == "manhattan":
        return -np.abs(a[:, None, :] - b[None, :, :]).sum(-1)
    raise ValueError(name)


class Reference:
    """all-MiniLM-L6-v2 as sentence-transformers runs it, on onnxruntime."""

    def __init__(self):
        import onnxruntime
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(MODEL / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(256)  # sentence_bert_config.json max_seq_length
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 2
        self.session = onnxruntime.InferenceSession(str(MODEL / "model.onnx"), options,
                                                    providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]

    def prompt_length(self, prompt: str) -> int:
        # SentenceTransformer._get_prompt_length: the tokenized prompt, less a trailing special token.
        enc = self.tok.encode(prompt)
        n = len(enc.ids)
        return n - 1 if enc.special_tokens_mask[-1] else n

    def encode(self, texts, prompt="", include_prompt=True, truncate_dim=None, normalize=True, pooling="mean"):
        texts = [prompt + t for t in texts]
        prompt_length = self.prompt_length(prompt) if prompt and not include_prompt else 0
        out = []
        for text in texts:  # one at a time: no padding to reason about
            enc = self.tok.encode(text)
            feeds = {"input_ids": np.array([enc.ids], dtype=np.int64),
                     "attention_mask": np.array([enc.attention_mask], dtype=np.int64),
                     "token_type_ids": np.array([enc.type_ids], dtype=np.int64)}
            states = self.session.run(None, {k: v for k, v in feeds.items() if k in self.inputs})[0][0]
            mask = np.array(enc.attention_mask, dtype=np.float32)
            mask[:prompt_length] = 0  # Pooling: attention_mask[:, :prompt_length] = 0
            if pooling == "cls":  # Pooling 6.x: the first attended position, attention_mask.argmax()
                pooled = states[int(np.argmax(mask))]
            else:
                pooled = (states * mask[:, None]).sum(0) / max(mask.sum(), 1e-9)
            # The model's Normalize module runs inside forward(), then
            # truncate_dim, then normalize_embeddings.
            pooled = pooled / max(np.linalg.norm(pooled), 1e-12)
            if truncate_dim:
                pooled = pooled[:truncate_dim]
            if normalize:
                pooled = pooled / max(np.linalg.norm(pooled), 1e-12)
            out.append(pooled)
        return np.array(out, dtype=np.float32)


@pytest.fixture(scope="module")
def reference():
    return Reference()


def model_copy(tmp_path: Path, st_config: dict, include_prompt: bool = True, pooling_mode: str | None = None) -> Path:
    """all-MiniLM-L6-v2 with another config_sentence_transformers.json (and
    pooling configuration); the large files are linked, not copied."""
    folder = tmp_path / "model"
    folder.mkdir(parents=True)
    for entry in MODEL.iterdir():
        if entry.name in ("config_sentence_transformers.json", "1_Pooling"):
            continue
        (folder / entry.name).symlink_to(entry)
    (folder / "config_sentence_transformers.json").write_text(json.dumps(st_config))
    (folder / "1_Pooling").mkdir()
    pooling = json.loads((MODEL / "1_Pooling" / "config.json").read_text())
    pooling["include_prompt"] = include_prompt
    if pooling_mode == "cls":
        pooling["pooling_mode_mean_tokens"] = False
        pooling["pooling_mode_cls_token"] = True
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    return folder


def assert_close(got, expected, atol=1e-5):
    assert got.shape == expected.shape
    worst = np.abs(got - expected).max()
    print(f" max abs diff {worst:.3g}", end="")
    assert worst <= atol


# ---- prompts


@pytest.mark.parametrize("include_prompt", [True, False])
def test_prompt_name_matches_reference(tmp_path, reference, include_prompt):
    folder = model_copy(tmp_path, {"prompts": PROMPTS, "default_prompt_name": None}, include_prompt)
    texts = sentences(40)
    for name in ("query", "instruct"):
        got = sieve_npy("--model", str(folder), "--prompt-name", name, texts=texts)
        assert_close(got, reference.encode(texts, PROMPTS[name], include_prompt))
    free = sieve_npy("--model", str(folder), "--prompt", "search_query: ", texts=texts)
    assert_close(free, reference.encode(texts, "search_query: ", include_prompt))


def test_excluded_prompt_with_cls_pooling(tmp_path, reference):
    folder = model_copy(tmp_path, {"prompts": PROMPTS}, include_prompt=False, pooling_mode="cls")
    texts = sentences(20)
    got = sieve_npy("--model", str(folder), "--prompt-name", "instruct", texts=texts)
    assert_close(got, reference.encode(texts, PROMPTS["instruct"], include_prompt=False, pooling="cls"))


def test_default_prompt_and_turning_it_off(tmp_path, reference):
    folder = model_copy(tmp_path, {"prompts": PROMPTS, "default_prompt_name": "passage"})
    texts = sentences(10)
    assert_close(sieve_npy("--model", str(folder), texts=texts), reference.encode(texts, "passage: "))
    assert_close(sieve_npy("--model", str(folder), "--prompt", "", texts=texts), reference.encode(texts))


def test_unknown_prompt_name_lists_the_known_ones(tmp_path):
    folder = model_copy(tmp_path, {"prompts": PROMPTS})
    result = run_sieve("embed", "--model", str(folder), "--prompt-name", "document", "x", check=False)
    err = result.stderr.decode()
    assert result.returncode != 0
    assert '"document"' in err and "instruct, passage, query" in err, err
    result = run_sieve("embed", "--model", str(MODEL), "--prompt-name", "query", "x", check=False)
    assert result.returncode != 0 and "defines no prompts" in result.stderr.decode()


# ---- Matryoshka truncation


@pytest.mark.parametrize("dims", [32, 128, 384])
def test_dimensions_match_reference(reference, dims):
    texts = sentences(40)
    got = sieve_npy("--model", str(MODEL), "--dimensions", str(dims), texts=texts)
    assert got.shape == (40, dims)
    assert_close(got, reference.encode(texts, truncate_dim=dims))
    raw = sieve_npy("--model", str(MODEL), "--dimensions", str(dims), "--no-normalize", texts=texts)
    full_raw = sieve_npy("--model", str(MODEL), "--no-normalize", texts=texts)
    assert np.array_equal(raw, full_raw[:, :dims])


@pytest.mark.parametrize("dims", ["0", "385"])
def test_dimensions_out_of_range(dims):
    result = run_sieve("embed", "--model", str(MODEL), "--dimensions", dims, "x", check=False)
    assert result.returncode != 0
    assert "dimensions" in result.stderr.decode()


# ---- precision


@pytest.fixture(scope="module")
def floats():
    texts = sentences()
    return texts, sieve_npy("--model", str(MODEL), texts=texts)


@pytest.mark.parametrize("precision", ["float32", "float16", "int8", "uint8", "binary", "ubinary"])
def test_precision_matches_quantize_embeddings(floats, precision):
    texts, f32 = floats
    expected = st_quantize(f32, precision)
    got = sieve_npy("--model", str(MODEL), "--precision", precision, texts=texts)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected)
    # The text output carries the same numbers.
    lines = run_sieve("embed", "--model", str(MODEL), "--precision", precision, input=payload(texts[:5])).stdout
    # Floats are printed in their shortest float32 form, so read them back as float32.
    rows = np.array([json.loads(l) for l in lines.splitlines()], dtype=np.float32)
    small = st_quantize(f32[:5], precision)
    assert np.array_equal(rows, small.astype(np.float32))


@pytest.mark.parametrize("precision", ["int8", "uint8"])
def test_precision_with_calibration(tmp_path, floats, precision):
    texts, f32 = floats
    calibration = f32[100:]  # calibrate on some sentences, quantize others
    np.save(tmp_path / "calibration.npy", calibration)
    got = sieve_npy("--model", str(MODEL), "--precision", precision, "--calibration",
                    str(tmp_path / "calibration.npy"), texts=texts[:100])
    assert np.array_equal(got, st_quantize(f32[:100], precision, calibration_embeddings=calibration))
    # Ranges as a [2, dim] file of minimums and maximums, in JSON lines.
    ranges = np.vstack((calibration.min(0), calibration.max(0)))
    (tmp_path / "ranges.jsonl").write_text("\n".join(json.dumps(r.tolist()) for r in ranges) + "\n")
    got = sieve_npy("--model", str(MODEL), "--precision", precision, "--calibration",
                    str(tmp_path / "ranges.jsonl"), texts=texts[:100])
    assert np.array_equal(got, st_quantize(f32[:100], precision, ranges=ranges))


def test_calibration_errors(tmp_path):
    np.save(tmp_path / "short.npy", np.zeros((3, 10), dtype=np.float32))
    result = run_sieve("embed", "--model", str(MODEL), "--precision", "int8", "--calibration",
                       str(tmp_path / "short.npy"), "x", check=False)
    assert result.returncode != 0 and "10 dimensions" in result.stderr.decode()
    result = run_sieve("embed", "--model", str(MODEL), "--precision", "binary", "--calibration",
                       str(tmp_path / "short.npy"), "x", check=False)
    assert result.returncode != 0 and "int8 and uint8" in result.stderr.decode()


def test_precision_after_dimensions(reference):
    texts = sentences(30)
    f32 = sieve_npy("--model", str(MODEL), "--dimensions", "100", texts=texts)
    got = sieve_npy("--model", str(MODEL), "--dimensions", "100", "--precision", "ubinary", texts=texts)
    assert got.shape == (30, 13)  # 100 bits, the last byte padded
    assert np.array_equal(got, st_quantize(f32, "ubinary"))


# ---- similarity


def similarity(*args: str, input: bytes | None = None) -> dict:
    return json.loads(run_sieve("similarity", "--model", str(MODEL), *args, input=input).stdout)


@pytest.mark.parametrize("function", ["cosine", "dot", "euclidean", "manhattan"])
def test_similarity_of_two_texts(reference, function):
    a, b = "A man is eating food.", "A man is eating a piece of bread."
    out = similarity("--function", function, a, b)
    emb = reference.encode([a, b])
    assert out["similarity"] == function
    assert abs(out["score"] - st_similarity(emb[:1], emb[1:], function)[0, 0]) <= 1e-5


def test_similarity_query_against_lines(reference):
    texts = sentences(60)
    query = "A man is playing a guitar."
    out = similarity("--query", query, "--top-k", "5", "--with-text", input=payload(texts))
    scores = st_similarity(reference.encode([query]), reference.encode(texts), "cosine")[0]
    best = np.argsort(-scores, kind="stable")[:5]
    assert out["similarity"] == "cosine" and out["query"] == query
    assert [r["index"] for r in out["results"]] == best.tolist()
    for r in out["results"]:
        assert abs(r["score"] - scores[r["index"]]) <= 1e-5 and r["text"] == texts[r["index"]]
    everything = similarity("--query", query, input=payload(texts))["results"]
    assert len(everything) == 60 and "text" not in everything[0]


def test_similarity_follows_the_model_function(tmp_path):
    folder = model_copy(tmp_path, {"similarity_fn_name": "dot"})
    out = json.loads(run_sieve("similarity", "--model", str(folder), "a", "b").stdout)
    assert out["similarity"] == "dot"


def test_similarity_needs_two_texts_or_a_query():
    result = run_sieve("similarity", "--model", str(MODEL), "only one", check=False)
    assert result.returncode != 0 and "two texts" in result.stderr.decode()


# ---- the real sentence-transformers (stored by tools/make_st_options_reference.py)


@pytest.mark.skipif(not ST_OPTIONS.exists(), reason="no stored sentence-transformers options reference")
def test_matches_stored_sentence_transformers(tmp_path):
    ref = np.load(ST_OPTIONS)
    meta = json.loads(str(ref["meta"]))
    assert meta["sentences_sha256"] == hashlib.sha256(SENTENCES.read_bytes()).hexdigest(), \
        "tests/data/sentences.txt changed: rerun tools/make_st_options_reference.py"
    texts = sentences(meta["count"])
    folder = model_copy(tmp_path / "a", {"prompts": meta["prompts"]}, include_prompt=True)
    excluded = model_copy(tmp_path / "b", {"prompts": meta["prompts"]}, include_prompt=False)
    assert_close(sieve_npy("--model", str(folder), "--prompt-name", "query", texts=texts), ref["prompt_query"], 1e-4)
    assert_close(sieve_npy("--model", str(excluded), "--prompt-name", "query", texts=texts),
                 ref["prompt_query_excluded"], 1e-4)
    assert_close(sieve_npy("--model", str(MODEL), "--dimensions", "128", texts=texts), ref["truncate_128"], 1e-4)
    # Quantized outputs may differ where a float sits on a bucket edge (Sieve
    # and PyTorch agree to ~1e-6, not bit for bit): allow a few such values.
    for precision in ("int8", "uint8", "binary", "ubinary"):
        # The transcription reproduces the library bit for bit on its own floats.
        assert np.array_equal(st_quantize(ref["float32"], precision), ref[f"precision_{precision}"])
        got = sieve_npy("--model", str(MODEL), "--precision", precision, texts=texts)
        expected = ref[f"precision_{precision}"]
        assert got.dtype == expected.dtype and got.shape == expected.shape
        diff = np.abs(got.astype(np.int64) - expected.astype(np.int64))
        if precision.endswith("binary"):
            # A flipped sign bit changes a packed byte by a power of two.
            flips = sum(bin(int(x)).count("1") for x in (got.view(np.uint8) ^ expected.view(np.uint8)).ravel())
            print(f" {precision}: {flips} flipped bits", end="")
            assert flips <= max(2, got.size // 1000)
        else:
            print(f" {precision}: {(diff > 0).sum()} values off, max {diff.max()}", end="")
            assert diff.max() <= 1 and (diff > 0).sum() <= max(2, got.size // 1000)
    for function in ("cosine", "dot", "euclidean", "manhattan"):
        out = json.loads(run_sieve("similarity", "--model", str(MODEL), "--function", function,
                                   texts[0], texts[1]).stdout)
        assert abs(out["score"] - float(ref[f"similarity_{function}"])) <= 1e-4
