"""sieve index / sieve search end to end: ingest of every format, replacement
and removal, crash safety under SIGKILL at random moments, readers during
indexing, and retrieval quality of the real all-MiniLM-L6-v2.

The crash and reader tests read the index's SQLite file with Python's own
sqlite3 module, independently of Sieve's code."""
from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tier
from conftest import MODEL, ROOT, run_sieve, sieve_bin

sys.path.insert(0, str(ROOT / "tools"))
import docstring_corpus  # noqa: E402

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
TINY = FIXTURES / "tiny-bert-tokens"
TINY_SPLADE = FIXTURES / "tiny-splade"
CROSS_ENCODER = FIXTURES / "cross-encoder-minilm-l6"

WORDS = ("river mountain forest ocean desert valley glacier volcano island canyon meadow prairie "
         "harbor lagoon delta plateau tundra marsh reef dune").split()


def make_corpus(folder: Path, documents: int, seed: int = 7) -> int:
    """Text files and a JSONL file of synthetic documents; returns the document count."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for i in range(documents):
        words = [rng.choice(WORDS) for _ in range(rng.randint(5, 120))]
        (folder / f"doc{i:04d}.txt").write_text(f"Document {i}. " + " ".join(words) + ".\n")
        count += 1
    with open(folder / "records.jsonl", "w") as out:
        for i in range(documents):
            words = [rng.choice(WORDS) for _ in range(rng.randint(3, 60))]
            out.write(json.dumps({"id": f"rec-{i}", "text": " ".join(words), "group": str(i % 3)}) + "\n")
            count += 1
    return count


def index_rows(index: Path) -> list[tuple]:
    """(document, chunk number, start, end, text) of every chunk, read in one transaction."""
    db = sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True)
    try:
        return sorted(db.execute(
            "SELECT d.key, c.ordinal, c.start_byte, c.end_byte, c.text FROM chunks c "
            "JOIN documents d ON d.id = c.document_id").fetchall())
    finally:
        db.close()


def search_json(index: Path, query: str, *extra: str) -> dict:
    return json.loads(run_sieve("search", "--index", str(index), query, "--json", *extra).stdout)


@pytest.fixture(scope="module")
def tiny() -> Path:
    if not (TINY / "model.onnx").exists():
        pytest.fail(f"{TINY} is missing: run tools/make_fixtures.py")
    return TINY


def test_index_add_search_rm_stats_check(tmp_path, tiny):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Glaciers carve deep valleys over thousands of years.")
    (docs / "b.md").write_text("---\ntitle: Reefs\nregion: pacific\n---\n# Coral\n\nCoral **reefs** shelter fish.")
    (docs / "c.html").write_text("<html><head><title>Dunes</title><style>p{}</style></head>"
                                 "<body><p>Sand dunes &amp; desert winds.</p></body></html>")
    (docs / "d.jsonl").write_text(json.dumps({"id": "x1", "text": "Rivers carry sediment to deltas.",
                                              "region": "europe"}) + "\n")
    index = tmp_path / "idx"
    summary = json.loads(run_sieve("index", "add", "--index", str(index), "--model", str(tiny), "--json",
                                   str(docs)).stdout)
    assert summary["files_seen"] == 4 and summary["documents_added"] == 4 and summary["errors"] == []
    stats = json.loads(run_sieve("index", "stats", "--index", str(index), "--json").stdout)
    assert stats["documents"] == 4 and stats["model"]["name"] == "tiny-bert-tokens"
    assert len(stats["model"]["onnx_sha256"]) == 64

    hits = search_json(index, "sediment deltas", "--mode", "bm25")["hits"]
    assert hits[0]["document_id"] == "x1" and hits[0]["metadata"] == {"region": "europe"}
    text = hits[0]["text"]
    assert [text[b:e] for b, e in hits[0]["matches"]] == ["sediment", "deltas"]
    # Rank, a relevance in [0, 1] (BM25: the best hit's is 1), and the snippet's spans are its words.
    assert hits[0]["rank"] == 1 and hits[0]["relevance"] == 1.0
    snippet = hits[0]["snippet"].encode()
    assert [snippet[b:e].decode() for b, e in hits[0]["snippet_matches"]] == ["sediment", "deltas"]
    # BM25 compares stems, and highlights leave stop words out: "carving" finds "carve", "the" is not marked.
    hits = search_json(index, "the carving of glaciers", "--mode", "bm25")["hits"]
    assert len(hits) == 1 and hits[0]["source"].endswith("a.txt")
    text = hits[0]["text"].encode()
    assert [text[b:e].decode() for b, e in hits[0]["matches"]] == ["Glaciers", "carve"]
    for mode in ("vector", "hybrid"):
        hits = search_json(index, "glaciers and reefs", "--mode", mode, "--k", "4")["hits"]
        assert [h["rank"] for h in hits] == [1, 2, 3, 4]
        assert all(0 <= h["relevance"] <= 1 for h in hits), hits
        relevance = [h["relevance"] for h in hits]
        assert relevance == sorted(relevance, reverse=True)
    hits = search_json(index, "reefs", "--mode", "bm25")["hits"]
    assert hits[0]["title"] == "Reefs" and "**" not in hits[0]["text"]
    assert search_json(index, "coral", "--filter", "region=pacific")["hits"][0]["title"] == "Reefs"
    assert search_json(index, "coral", "--mode", "bm25", "--filter", "region=europe")["hits"] == []
    assert len(search_json(index, "anything at all", "--mode", "vector", "--k", "3")["hits"]) == 3
    # Plain output names the document and marks the matched words.
    plain = run_sieve("search", "--index", str(index), "desert", "--mode", "bm25").stdout.decode()
    assert "c.html" in plain and "[desert]" in plain

    again = json.loads(run_sieve("index", "add", "--index", str(index), "--json", str(docs)).stdout)
    assert again["files_unchanged"] == 4 and again["chunks_added"] == 0
    run_sieve("index", "rm", "--index", str(index), str(docs / "a.txt"), "x1")
    assert json.loads(run_sieve("index", "stats", "--index", str(index), "--json").stdout)["documents"] == 2
    check = json.loads(run_sieve("index", "check", "--index", str(index), "--json").stdout)
    assert check["ok"], check


def test_errors_are_clear(tmp_path, tiny):
    index = tmp_path / "idx"
    result = run_sieve("search", "--index", str(index), "query", check=False)
    assert result.returncode == 1 and b"no search index" in result.stderr
    result = run_sieve("index", "add", "--index", str(index), str(tmp_path), check=False)
    assert result.returncode == 1 and b"no search index" in result.stderr
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.txt").write_text("fine text")
    (docs / "bad.jsonl").write_text('{"id": "1", "text": "good"}\n{"id": "2"}\n')
    (docs / "latin1.txt").write_bytes(b"caf\xe9\n")
    result = run_sieve("index", "add", "--index", str(index), "--model", str(tiny), str(docs), check=False)
    assert result.returncode == 1
    err = result.stderr.decode()
    assert "bad.jsonl" in err and "line 2" in err, err
    # Text that is not UTF-8 is read as Windows-1252, with a warning: never a failed run.
    assert "warning: " + str(docs / "latin1.txt") + ": not valid UTF-8 (byte 3)" in err, err
    assert json.loads(run_sieve("index", "stats", "--index", str(index), "--json").stdout)["documents"] == 2
    other = FIXTURES / "tiny-bert-cls"
    result = run_sieve("index", "add", "--index", str(index), "--model", str(other), str(docs), check=False)
    assert result.returncode == 1 and b"was built with tiny-bert-tokens" in result.stderr
    result = run_sieve("search", "--index", str(index), "q", "--model", str(other), check=False)
    assert result.returncode == 1 and b"was built with" in result.stderr
    result = run_sieve("search", "--index", str(index), "q", "--filter", "novalue", check=False)
    assert result.returncode == 1 and b"key=value" in result.stderr
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "index.sqlite").write_bytes(b"this is not a database" * 100)
    result = run_sieve("index", "stats", "--index", str(tmp_path / "broken"), check=False)
    assert result.returncode == 1 and b"index" in result.stderr


def test_rerank_reorders_by_the_cross_encoders_scores(tmp_path, tiny):
    docs = tmp_path / "docs"
    make_corpus(docs, 20)
    index = tmp_path / "idx"
    run_sieve("index", "add", "--index", str(index), "--model", str(tiny), "--quiet", str(docs))
    query = "glacier valley river"
    plain = search_json(index, query, "--k", "10", "--mode", "hybrid")["hits"]
    reranked = search_json(index, query, "--k", "10", "--rerank", str(CROSS_ENCODER),
                           "--rerank-candidates", "10")["hits"]
    # The same ten candidates, in the order of sieve rerank's scores for the passages scored.
    assert sorted(h["chunk_id"] for h in plain) == sorted(h["chunk_id"] for h in reranked)
    span = {h["chunk_id"]: h["rerank_span"] for h in reranked}
    passages = [h["text"].encode()[span[h["chunk_id"]][0]:span[h["chunk_id"]][1]].decode() for h in plain]
    assert all(p.strip() for p in passages)
    texts = "\n".join(p.replace("\n", " ") for p in passages) + "\n"
    scores = json.loads(run_sieve("rerank", "--model", str(CROSS_ENCODER), "--query", query,
                                  input=texts.encode()).stdout)["results"]
    assert [plain[r["index"]]["chunk_id"] for r in scores] == [h["chunk_id"] for h in reranked]
    assert [round(r["score"], 5) for r in scores] == [round(h["rerank_score"], 5) for h in reranked]
    # The fixture's activation is a sigmoid: its score is the relevance.
    assert all(h["relevance"] == h["rerank_score"] for h in reranked)
    assert [h["rank"] for h in reranked] == list(range(1, 11))


def run_add_until_killed(index: Path | str, docs: Path, model: Path, delay: float, *options: str) -> bool:
    """Starts sieve index add (with `options`) and SIGKILLs it after `delay` seconds; True if it was still running."""
    process = subprocess.Popen([str(sieve_bin()), "--log-level", "warn", "index", "add", "--index", str(index),
                                "--model", str(model), "--quiet", "--batch-chunks", "16", "--exact-threshold", "40",
                                *options, str(docs)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        process.wait(timeout=delay)
        assert process.returncode == 0, process.stderr.read().decode()
        return False
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        process.wait()
        return True


def test_sigkill_at_random_moments_leaves_a_consistent_index(tmp_path, tiny):
    docs = tmp_path / "docs"
    make_corpus(docs, 150)
    reference = tmp_path / "reference"
    started = time.monotonic()
    run_sieve("index", "add", "--index", str(reference), "--model", str(tiny), "--quiet", "--batch-chunks", "16",
              "--exact-threshold", "40", str(docs))
    full = time.monotonic() - started
    expected = index_rows(reference)
    assert len(expected) > 300

    index = tmp_path / "crashing"
    rng = random.Random(2026)
    kills = 0
    # Each add resumes where the killed one stopped, and the machine's load changes while the
    # test runs: a run that finishes before its moment bounds the next moments by its own
    # length, and rounds go on (up to 20) until at least 5 runs were killed.
    latest = full * 1.1
    round_number = 0
    while round_number < 10 or (kills < 5 and round_number < 20):
        if round_number == 5:
            # A changed file between crashes: the final index must hold its new text only.
            (docs / "doc0003.txt").write_text("Document 3 was rewritten: lagoon reef island.\n")
            run_sieve("index", "add", "--index", str(reference), "--quiet", str(docs))
            expected = index_rows(reference)
        round_number += 1
        started = time.monotonic()
        # The index keeps int8 codes in its graph, whose scales are written with each graph.
        if run_add_until_killed(index, docs, tiny, rng.uniform(0.05, max(0.1, latest)), "--vectors", "int8"):
            kills += 1
        else:
            latest = (time.monotonic() - started) * 0.9
        if not (index / "index.sqlite").exists():
            continue
        check = json.loads(run_sieve("index", "check", "--index", str(index), "--json", check=False).stdout)
        assert check["ok"], (round_number, check)
        # Every stored document is whole: chunk numbers 0..n-1, as in the reference.
        rows = index_rows(index)
        by_document: dict[str, list[int]] = {}
        for key, ordinal, *_ in rows:
            by_document.setdefault(key, []).append(ordinal)
        assert all(sorted(o) == list(range(len(o))) for o in by_document.values())
        assert len(rows) == len(set(rows))
    assert kills >= 5, f"only {kills} of {round_number} runs were killed before finishing"
    run_sieve("index", "add", "--index", str(index), "--quiet", str(docs))
    assert index_rows(index) == expected
    check = json.loads(run_sieve("index", "check", "--index", str(index), "--json").stdout)
    assert check["ok"] and not any("were being read" in n for n in check["notes"]), check
    # Exact searches agree with the index built in one go, hit for hit. The graph is approximate and
    # its shape follows the order chunks arrived in (which the kills changed), so through the graph
    # each index finds most of the exact top 10, not necessarily the same misses.
    def hits(where: Path, query: str, *mode: str) -> list[tuple[str, int]]:
        return [(h["document_id"], h["chunk_index"]) for h in search_json(where, query, "--mode", "vector", *mode)["hits"]]

    for query in ("glacier canyon", "ocean reef lagoon"):
        exact = hits(reference, query, "--exact")
        assert hits(index, query, "--exact") == exact
        for where in (index, reference):
            found = len(set(hits(where, query)) & set(exact))
            assert found >= 8, (where.name, query, found, hits(where, query), exact)


def test_vectors_in_the_graph_are_chosen_once_shown_and_checked(tmp_path, tiny):
    docs = tmp_path / "docs"
    make_corpus(docs, 12)
    index = tmp_path / "binary"
    run_sieve("index", "add", "--index", str(index), "--model", str(tiny), "--quiet", "--exact-threshold", "10",
              "--vectors", "binary", str(docs))
    stats = json.loads(run_sieve("index", "stats", "--index", str(index), "--json").stdout)
    dimension = stats["model"]["dimension"]
    assert (stats["vectors"], stats["rescore"], stats["graph_dimensions"]) == ("binary", 10, 0), stats
    assert stats["ann_elements"] >= 24 and stats["ann_vector_bytes"] == stats["ann_elements"] * ((dimension + 7) // 8)
    text = run_sieve("index", "stats", "--index", str(index)).stdout.decode()
    assert "binary in the graph" in text and "rescored with the float32 vectors" in text, text
    # Rescored, the graph's hits are exact search's, with the same cosines.
    for query in ("glacier canyon", "ocean reef lagoon"):
        graph = search_json(index, query, "--mode", "vector", "--per-document", "0")
        exact = search_json(index, query, "--mode", "vector", "--per-document", "0", "--exact")
        assert [(h["chunk_id"], h["score"]) for h in graph["hits"]] == \
            [(h["chunk_id"], h["score"]) for h in exact["hits"]]
    # Chosen when the index is made: another choice for it is refused, not mixed.
    for option in (("--vectors", "int8"), ("--rescore", "3"), ("--graph-dimensions", "8")):
        refused = run_sieve("index", "add", "--index", str(index), *option, str(docs), check=False)
        assert refused.returncode != 0 and "chosen when an index is made" in refused.stderr.decode(), option
    refused = run_sieve("index", "create", "--index", str(tmp_path / "f"), "--model", str(tiny), "--rescore", "2",
                        check=False)
    assert refused.returncode != 0 and "rescoring needs int8 or binary" in refused.stderr.decode()
    refused = run_sieve("index", "create", "--index", str(tmp_path / "w"), "--model", str(tiny),
                        "--graph-dimensions", str(dimension + 1), check=False)
    assert refused.returncode != 0 and "cannot hold" in refused.stderr.decode()
    # int8 codes made with other scales than the index records: check finds every one.
    int8 = tmp_path / "int8"
    run_sieve("index", "add", "--index", str(int8), "--model", str(tiny), "--quiet", "--exact-threshold", "10",
              "--vectors", "int8", "--graph-dimensions", str(dimension // 2), str(docs))
    assert json.loads(run_sieve("index", "check", "--index", str(int8), "--json").stdout)["ok"]
    with sqlite3.connect(int8 / "index.sqlite") as db:
        scales = db.execute("SELECT value FROM meta WHERE key = 'graph_scales'").fetchone()[0].split()
        assert len(scales) == dimension // 2
        db.execute("UPDATE meta SET value = ? WHERE key = 'graph_scales'", (" ".join(["0.5"] * len(scales)),))
    damaged = run_sieve("index", "check", "--index", str(int8), "--json", check=False)
    report = json.loads(damaged.stdout)
    assert damaged.returncode == 1 and not report["ok"]
    assert any("int8 vectors unlike the ones stored" in p for p in report["problems"]), report


@pytest.mark.skipif(not tier.FULL, reason="full tier (scripts/test.sh --full)")
@pytest.mark.parametrize("vectors", [("int8",), ("binary",), ("float32", "--graph-dimensions", "192")])
def test_recall_at_10_of_vectors_in_memory_with_the_real_model(tmp_path, docstring_index, vectors):
    """The docstring set again, its graph holding codes (or a prefix): rescored, vector search keeps the recall of
    the float32 graph."""
    index, queries = docstring_index
    corpus = index.parent / "docstrings.jsonl"
    coded = tmp_path / "coded"
    run_sieve("index", "add", "--index", str(coded), "--model", str(MODEL), "--quiet", "--chunk-tokens", "128",
              "--overlap", "16", "--exact-threshold", "200", "--vectors", *vectors, str(corpus))
    recall = recall_at_10(coded, queries, "--mode", "vector")
    exact = recall_at_10(index, queries, "--mode", "vector", "--exact")
    print(f"\nrecall@10 of {vectors}: {recall:.3f}; exact float32 search {exact:.3f}")
    assert recall >= exact - 0.02, (vectors, recall, exact)


def test_readers_see_whole_documents_while_an_add_runs(tmp_path, tiny):
    docs = tmp_path / "docs"
    make_corpus(docs, 150, seed=11)
    index = tmp_path / "idx"
    (docs / "first.txt").write_text("A first document so that the index exists.")
    run_sieve("index", "add", "--index", str(index), "--model", str(tiny), "--quiet", str(docs / "first.txt"))
    writer = subprocess.Popen([str(sieve_bin()), "--log-level", "warn", "index", "add", "--index", str(index),
                               "--quiet", "--batch-chunks", "8", str(docs)], stderr=subprocess.PIPE)
    snapshots = 0
    searches = 0
    try:
        while writer.poll() is None:
            db = sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True)
            try:
                db.execute("BEGIN")
                documents = db.execute("SELECT count(*) FROM documents").fetchone()[0]
                broken = db.execute(
                    "SELECT count(*) FROM (SELECT document_id, count(*) n, max(ordinal) m FROM chunks "
                    "GROUP BY document_id HAVING m != n - 1)").fetchone()[0]
                fts = db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
                chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
                db.execute("COMMIT")
            finally:
                db.close()
            assert broken == 0 and fts == chunks and documents >= 1
            snapshots += 1
            result = run_sieve("search", "--index", str(index), "river delta", "--json", check=False)
            assert result.returncode == 0, result.stderr.decode()
            for hit in json.loads(result.stdout)["hits"]:
                assert hit["text"]
            searches += 1
    finally:
        writer.wait(timeout=600)
    assert writer.returncode == 0, writer.stderr.read().decode()
    assert snapshots >= 2 and searches >= 2


def sparse_vectors(model: Path, texts: list[str]) -> list[dict[int, float]]:
    """`sieve embed --sparse` of each text (checked against NumPy in test_sparse.py)."""
    out = run_sieve("embed", "--sparse", "--model", str(model), "--format", "jsonl", "--", *texts)
    return [{e["index"]: e["value"] for e in json.loads(line)} for line in out.stdout.splitlines()]


def test_sparse_index_search_and_fusion(tmp_path, tiny):
    """An index with a sparse model: its postings give each chunk the dot product of its sparse
    vector with the query's (as `sieve embed --sparse` computes them), hybrid fuses the lists
    asked for, and removals, checks and refusals cover the postings."""
    docs = tmp_path / "docs"
    make_corpus(docs, 40)
    index = tmp_path / "idx"
    summary = json.loads(run_sieve("index", "add", "--index", str(index), "--model", str(tiny), "--sparse-model",
                                   str(TINY_SPLADE), "--json", "--chunk-tokens", "48", str(docs)).stdout)
    assert summary["chunks_added"] > 80
    stats = json.loads(run_sieve("index", "stats", "--index", str(index), "--json").stdout)
    assert stats["sparse_model"]["name"] == "tiny-splade" and stats["sparse_model"]["vocabulary"] == 30522
    assert stats["sparse_postings"] > stats["chunks"]
    assert "sparse:" in run_sieve("index", "stats", "--index", str(index)).stdout.decode()

    query = "glacier canyon lagoon"
    got = search_json(index, query, "--mode", "sparse", "--k", "15")
    assert got["mode"] == "sparse" and len(got["hits"]) == 15
    texts = [query] + [h["text"] for h in got["hits"]]
    q, *chunks = sparse_vectors(TINY_SPLADE, texts)
    for hit, vector in zip(got["hits"], chunks):
        want = sum(w * vector.get(i, 0.0) for i, w in q.items())
        assert abs(hit["score"] - want) <= 1e-4 * max(1.0, want), (hit["document_id"], hit["score"], want)
        assert hit["sparse_score"] == hit["score"] and hit["vector_score"] is None
    scores = [h["score"] for h in got["hits"]]
    assert scores == sorted(scores, reverse=True)

    # Hybrid: all three lists by default, or those --fuse names. With --fusion rrf each hit's score is
    # the sum of 1/(60 + rank) over the lists (their 50 best), as each list alone ranks it; weighted
    # (the default), the sum of each list's weight times its score scaled to [0, 1] over those 50.
    ranks = {}
    scaled = {}
    for mode in ("vector", "bm25", "sparse"):
        extra = ["--exact"] if mode == "vector" else []
        hits = search_json(index, query, "--mode", mode, "--k", "50", "--per-document", "0", *extra)["hits"]
        ranks[mode] = {h["chunk_id"]: r + 1 for r, h in enumerate(hits)}
        low, high = min(h["score"] for h in hits), max(h["score"] for h in hits)
        scaled[mode] = {h["chunk_id"]: (h["score"] - low) / (high - low) for h in hits}
    weights = {"vector": 0.6, "bm25": 0.4, "sparse": 0.4}
    for fuse in (None, "sparse,bm25", "vector,sparse"):
        lists = fuse.split(",") if fuse else ["vector", "bm25", "sparse"]
        extra = ["--fuse", fuse] if fuse else []
        hits = search_json(index, query, "--mode", "hybrid", "--exact", "--k", "10", "--per-document", "0",
                           "--fusion", "rrf", *extra)["hits"]
        assert len(hits) == 10
        for h in hits:
            want = sum(1 / (60 + ranks[m][h["chunk_id"]]) for m in lists if h["chunk_id"] in ranks[m])
            assert abs(h["score"] - want) < 1e-9, (fuse, h["chunk_id"])
        hits = search_json(index, query, "--mode", "hybrid", "--exact", "--k", "10", "--per-document", "0",
                           *extra)["hits"]
        assert len(hits) == 10
        for h in hits:
            want = sum(weights[m] * scaled[m].get(h["chunk_id"], 0.0) for m in lists)
            assert abs(h["score"] - want) < 1e-6, (fuse, h["chunk_id"], h["score"], want)
        assert hits[0]["relevance"] == 1.0

    # A later add finds the sparse model in the index; removals take the postings with them.
    (docs / "extra.txt").write_text("Document extra. lagoon reef island lagoon.\n")
    run_sieve("index", "add", "--index", str(index), "--quiet", str(docs))
    assert search_json(index, "lagoon reef island", "--mode", "sparse", "--k", "50")["hits"]
    run_sieve("index", "rm", "--index", str(index), "--quiet", str(docs / "extra.txt"))
    db = sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True)
    try:
        orphans = db.execute("SELECT count(*) FROM sparse_postings WHERE chunk_id NOT IN (SELECT id FROM chunks)")
        assert orphans.fetchone()[0] == 0
    finally:
        db.close()
    assert json.loads(run_sieve("index", "check", "--index", str(index), "--json").stdout)["ok"]

    # Refusals name what is wrong.
    dense = tmp_path / "dense"
    run_sieve("index", "add", "--index", str(dense), "--model", str(tiny), "--quiet", str(docs / "doc0001.txt"))
    for args, words in [
        (["search", "--index", str(dense), "q", "--mode", "sparse"], "--sparse-model"),
        (["search", "--index", str(dense), "q", "--fuse", "sparse,bm25"], "sparse"),
        (["search", "--index", str(index), "q", "--fuse", "sparse"], "two or more"),
        (["search", "--index", str(index), "q", "--fuse", "sparse,,bm25"], "unknown search mode"),
        (["search", "--index", str(index), "q", "--mode", "vector", "--fuse", "sparse,bm25"], "--mode hybrid"),
        (["index", "add", "--index", str(dense), "--sparse-model", str(TINY_SPLADE), str(docs)],
         "stores no sparse vectors"),
        (["index", "add", "--index", str(tmp_path / "new"), "--model", str(tiny), "--sparse-model", str(tiny),
          str(docs)], "not a sparse"),
        (["index", "add", "--index", str(tmp_path / "new"), "--model", str(TINY_SPLADE), str(docs)],
         "--sparse-model"),
    ]:
        result = run_sieve(*args, check=False)
        assert result.returncode != 0, args
        assert words in result.stderr.decode(), (args, result.stderr.decode())


# ---- retrieval quality with the real model -------------------------------------------------------
# Queries are standard-library docstring summaries; each one's relevant document is its docstring's
# body (tools/docstring_corpus.py). The reranker is all-MiniLM-L6-v2 fine-tuned as a cross-encoder
# on docstrings of third-party packages only (tools/train_cross_encoder.py), so it never saw this text.

RERANKER = FIXTURES / "cross-encoder-docstrings"
EXPORT_PYTHON = ROOT / ".venv-export" / "bin" / "python"
RERANK_CANDIDATES = 20
# The trained reranker is about as good as the first stage, no better (a few minutes of training on two
# cores against all-MiniLM-L6-v2's billion pairs): 0.81 after reranking against hybrid's 0.84 on
# 2026-12-02. The floor also tells a reranker that knows relevance from one that does not: the
# random-weight fixture (same architecture, no training) shuffles the candidates to 0.49.
RERANK_FLOOR = 0.70
RERANK_MAX_LOSS = 0.12
# Out of 300, the fast tier's sample: its recall's standard error (about 0.025) leaves the floor
# and the loss bound three of them away from the figures measured on all 300. (A sample of 100
# drew 0.67 with seed 1165178157; 150 gives 0.70 or more on that seed.)
RERANK_FAST_QUERIES = 150


def search_all(index: Path, queries: list[tuple[str, str]], *extra: str) -> list[dict]:
    lines = "".join(query + "\n" for _, query in queries).encode()
    out = run_sieve("search", "--index", str(index), "--queries", "-", "--json", *extra, input=lines).stdout
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["query"] for r in results] == [q for _, q in queries]
    return results


def recall_at(k: int, queries: list[tuple[str, str]], results: list[dict]) -> float:
    found = sum(relevant in {h["document_id"] for h in r["hits"][:k]} for (relevant, _), r in zip(queries, results))
    return found / len(queries)


def recall_at_10(index: Path, queries: list[tuple[str, str]], *extra: str) -> float:
    return recall_at(10, queries, search_all(index, queries, "--k", "10", *extra))


@pytest.fixture(scope="module")
def docstring_index(tmp_path_factory, splade_tiny) -> tuple[Path, list[tuple[str, str]]]:
    """An index of 600 docstring bodies (all-MiniLM-L6-v2, and the real SPLADE-tiny for sparse
    vectors) and the 300 summaries used as queries."""
    if not (MODEL / "model.onnx").exists():
        pytest.fail(f"{MODEL} is missing: run scripts/bootstrap.sh")
    pairs = docstring_corpus.stdlib_pairs(600)
    assert len(pairs) >= 500
    folder = tmp_path_factory.mktemp("docstrings")
    corpus = folder / "docstrings.jsonl"
    with open(corpus, "w") as out:
        for key, _, body in pairs:
            out.write(json.dumps({"id": key, "text": body}) + "\n")
    index = folder / "idx"
    run_sieve("index", "add", "--index", str(index), "--model", str(MODEL), "--sparse-model", str(splade_tiny.folder),
              "--quiet", "--chunk-tokens", "128", "--overlap", "16", "--exact-threshold", "200", str(corpus))
    assert json.loads(run_sieve("index", "stats", "--index", str(index), "--json").stdout)["ann_elements"] > 0
    return index, [(key, summary) for key, summary, _ in pairs[:300]]


# SPLADE-tiny (4M parameters, trained on MS MARCO) measured 0.72 on 2026-12-04, below all-MiniLM-L6-v2.
SPARSE_FLOOR = 0.65
FUSIONS = ("vector,bm25", "vector,sparse", "sparse,bm25", "vector,bm25,sparse")


def test_recall_at_10_of_each_mode_with_the_real_model(docstring_index):
    index, queries = docstring_index
    recall = {mode: recall_at_10(index, queries, "--mode", mode) for mode in ("vector", "bm25", "sparse")}
    recall["exact"] = recall_at_10(index, queries, "--mode", "vector", "--exact")
    for fuse in FUSIONS:
        recall[fuse] = recall_at_10(index, queries, "--mode", "hybrid", "--fuse", fuse)
    recall["hybrid"] = recall_at_10(index, queries, "--mode", "hybrid")
    print(f"\nrecall@10 on {len(queries)} docstring queries: {recall}")
    # Thresholds sit below the figures measured on 2026-12-01 and, for sparse, 2026-12-04 (see
    # bench/RESULTS.md).
    assert recall["vector"] >= recall["exact"] - 0.02
    assert recall["vector"] >= 0.55
    assert recall["bm25"] >= 0.45
    assert recall["sparse"] >= SPARSE_FLOOR
    assert recall["hybrid"] == recall["vector,bm25,sparse"]
    # Weighted fusion is at least as good as the better of vector and BM25 (0.877 against vector's 0.843
    # on 2026-12-06, bench/RESULTS.md).
    assert recall["vector,bm25"] >= max(recall["vector"], recall["bm25"]), recall
    assert recall["hybrid"] >= recall["vector"], recall
    for fuse in FUSIONS:
        best = max(recall[m] for m in fuse.split(","))
        assert recall[fuse] >= best - 0.05, (fuse, recall)


@pytest.fixture(scope="module")
def reranker() -> Path:
    if not (RERANKER / "model.onnx").exists():
        pytest.fail(f"{RERANKER} is missing: run .venv-export/bin/python tools/train_cross_encoder.py")
    return RERANKER


def test_recall_at_10_after_reranking_with_a_real_model_cross_encoder(docstring_index, reranker):
    index, queries = docstring_index
    # Each query reranks 20 pairs of up to 128 tokens: the fast tier measures a third of the queries.
    queries = tier.sample(queries, RERANK_FAST_QUERIES, "rerank-recall")
    first_stage = search_all(index, queries, "--mode", "hybrid", "--k", str(RERANK_CANDIDATES))
    reranked = search_all(index, queries, "--mode", "hybrid", "--k", "10", "--rerank", str(reranker),
                          "--rerank-candidates", str(RERANK_CANDIDATES))
    recall = {"hybrid": recall_at(10, queries, first_stage),
              f"hybrid@{RERANK_CANDIDATES}": recall_at(RERANK_CANDIDATES, queries, first_stage),
              "hybrid+rerank": recall_at(10, queries, reranked)}
    print(f"\nrecall@10 on {len(queries)} docstring queries, reranking the top {RERANK_CANDIDATES}: {recall}")
    # Reranking only reorders the candidates: it can find no document they lack.
    assert recall["hybrid+rerank"] <= recall[f"hybrid@{RERANK_CANDIDATES}"]
    assert recall["hybrid+rerank"] >= RERANK_FLOOR, recall
    assert recall["hybrid+rerank"] >= recall["hybrid"] - RERANK_MAX_LOSS, recall


def test_real_model_cross_encoder_scores_match_sentence_transformers(docstring_index, reranker):
    """Sieve's scores for the reranked hits equal CrossEncoder.predict on the trained weights."""
    if not EXPORT_PYTHON.exists():
        pytest.fail(f"{EXPORT_PYTHON} is missing: run scripts/setup_export_env.sh")
    index, queries = docstring_index
    results = search_all(index, queries[:20], "--mode", "hybrid", "--k", "10", "--rerank", str(reranker),
                         "--rerank-candidates", "10")
    # The reranker reads the passage around each hit's matches (rerank_span, UTF-8 bytes of text).
    pairs = [(r["query"], h["text"].encode()[h["rerank_span"][0]:h["rerank_span"][1]].decode())
             for r in results for h in r["hits"]]
    sieve_scores = [h["rerank_score"] for r in results for h in r["hits"]]
    script = ("import json, sys\n"
              "from sentence_transformers import CrossEncoder\n"
              "model = CrossEncoder(sys.argv[1], device='cpu')\n"
              "pairs = json.load(sys.stdin)\n"
              "print(json.dumps([float(s) for s in model.predict(pairs, batch_size=32)]))\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    out = subprocess.run([str(EXPORT_PYTHON), "-c", script, str(reranker)], input=json.dumps(pairs).encode(),
                         capture_output=True, env=env, timeout=600, check=True).stdout
    reference = json.loads(out)
    assert len(reference) == len(sieve_scores) == 200
    worst = max(abs(a - b) for a, b in zip(reference, sieve_scores))
    print(f"\nlargest |sieve - CrossEncoder| over {len(pairs)} pairs: {worst:.2e}")
    assert worst < 1e-4


def test_search_output_escapes_control_characters(tmp_path, tiny):
    """A document's text, title, metadata and name reach the terminal with
    their control characters escaped: only Sieve's own highlighting is an
    escape sequence."""
    docs = tmp_path / "docs"
    docs.mkdir()
    hostile = "\x1b[2J\x1b[31m\r\x08"
    (docs / f"evil{hostile}.md").write_text(f"---\ntitle: T{hostile}\ntag: v{hostile}\n---\n"
                                            f"glacier {hostile} valley\n")
    index = tmp_path / "idx"
    run_sieve("index", "add", "--index", str(index), "--model", str(tiny), "--quiet", str(docs))
    out = run_sieve("search", "--index", str(index), "glacier", "--mode", "bm25").stdout.decode()
    assert "\x1b" not in out and "\r" not in out and "\x08" not in out, repr(out)
    escaped = "\\x1b[2J\\x1b[31m\\r\\b"
    assert f"evil{escaped}.md" in out and f"T{escaped}" in out and f"v{escaped}" in out
    # The snippet is one line: its line breaks (\r among them) become spaces.
    assert "[glacier] \\x1b[2J\\x1b[31m \\b valley" in out, out
