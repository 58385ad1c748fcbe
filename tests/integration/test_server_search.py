"""`sieve serve --index NAME=DIR`: POST /v1/search answers what
`sieve search --json` prints for the same index and options (same chunks,
same scores, in the same order), for every mode, with filters and with a
served cross-encoder; GET /v1/indexes lists the indexes with the statistics of
`sieve index stats --json`; bad requests get 400 naming the field, unknown
names 404. The "docs" index has a sparse model too (tiny-splade): sparse
search and the fusion of any of its lists."""
from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import ROOT, run_sieve, sieve_bin
from server_harness import Server, models_root

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
TINY = FIXTURES / "tiny-bert-tokens"
CROSS_ENCODER = FIXTURES / "cross-encoder-minilm-l6"
SPLADE = FIXTURES / "tiny-splade"

QUERIES = ["coral reefs shelter fish", "glaciers carve valleys", "desert winds", "rivers and deltas",
           "volcano island harbor"]
WORDS = ("river mountain forest ocean desert valley glacier volcano island canyon meadow prairie "
         "harbor lagoon delta plateau tundra marsh reef dune").split()


def write_docs(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "a.txt").write_text("Glaciers carve deep valleys over thousands of years.")
    (folder / "b.md").write_text("---\ntitle: Reefs\nregion: pacific\n---\n# Coral\n\nCoral **reefs** shelter fish.")
    (folder / "c.html").write_text("<html><head><title>Dunes</title></head>"
                                   "<body><p>Sand dunes &amp; desert winds.</p></body></html>")
    with open(folder / "d.jsonl", "w") as out:
        for i in range(60):
            words = [WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(5 + i % 17)]
            region = ("europe", "pacific", "africa")[i % 3]
            out.write(json.dumps({"id": f"rec-{i}", "text": " ".join(words), "region": region}) + "\n")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    for folder in (TINY, CROSS_ENCODER, SPLADE):
        if not (folder / "model.onnx").exists():
            pytest.fail(f"{folder} is missing: run tools/make_fixtures.py and tools/make_cross_encoder.py")
    tmp = tmp_path_factory.mktemp("serve-search")
    # "tiny" is served as an embedding model too (for the 400 of a reranker
    # that is not one); the "other" index is built with that very folder, so
    # the server shares the served model with it.
    root = models_root(tmp, {"ce": CROSS_ENCODER, "tiny": TINY})
    write_docs(tmp / "docs")
    (tmp / "docs2").mkdir()
    (tmp / "docs2" / "e.txt").write_text("A lagoon behind the reef, a marsh beside the delta.")
    index = tmp / "index"
    other = tmp / "other"
    run_sieve("index", "add", "--index", str(index), "--model", str(TINY), "--sparse-model", str(SPLADE), "--quiet",
              str(tmp / "docs"))
    run_sieve("index", "add", "--index", str(other), "--model", str(root / "tiny"), "--quiet", str(tmp / "docs2"))
    return {"tmp": tmp, "root": root, "index": index, "other": other}


@pytest.fixture(scope="module")
def server(setup):
    s = Server(setup["root"], "--index", f"docs={setup['index']}", "--index", f"other={setup['other']}")
    yield s
    assert s.stop() == 0, s.output()


def cli_search(index: Path, query: str, *extra: str) -> dict:
    return json.loads(run_sieve("search", "--index", str(index), query, "--json", *extra).stdout)


def without_seconds(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "seconds"}


def assert_same(server_result: dict, cli_result: dict) -> None:
    assert [h["chunk_id"] for h in server_result["hits"]] == [h["chunk_id"] for h in cli_result["hits"]]
    assert [h["score"] for h in server_result["hits"]] == [h["score"] for h in cli_result["hits"]]
    assert without_seconds(server_result) == without_seconds(cli_result)
    assert isinstance(server_result["seconds"], float)


@pytest.mark.parametrize("mode", ["vector", "bm25", "sparse", "hybrid"])
def test_search_answers_what_sieve_search_prints(server, setup, mode):
    for query in QUERIES:
        for k in (1, 5, 20):
            status, headers, body = server.post("/v1/search", {"index": "docs", "query": query, "k": k, "mode": mode})
            assert status == 200, body
            assert headers["Content-Type"].startswith("application/json")
            assert body["mode"] == mode and body["query"] == query
            assert len(body["hits"]) <= k
            assert_same(body, cli_search(setup["index"], query, "--mode", mode, "--k", str(k)))


@pytest.mark.parametrize("fuse", [["vector", "bm25"], ["sparse", "bm25"], ["vector", "sparse"],
                                  ["bm25", "sparse", "vector"]])
def test_hybrid_fuses_the_lists_asked_for(server, setup, fuse):
    status, _, body = server.post("/v1/search", {"index": "docs", "query": "reef lagoon", "k": 12, "fuse": fuse})
    assert status == 200, body
    assert_same(body, cli_search(setup["index"], "reef lagoon", "--k", "12", "--fuse", ",".join(fuse)))
    for name, field in (("vector", "vector_score"), ("bm25", "bm25_score"), ("sparse", "sparse_score")):
        if name not in fuse:
            assert all(h[field] is None for h in body["hits"]), name


def test_per_document_fusion_and_what_a_person_reads(server, setup):
    for options, flags in (({"per_document": 0}, ["--per-document", "0"]),
                           ({"per_document": 1, "fusion": "rrf"}, ["--per-document", "1", "--fusion", "rrf"]),
                           ({"fusion": "weighted"}, [])):
        status, _, body = server.post("/v1/search", {"index": "docs", "query": "reef lagoon", "k": 8, **options})
        assert status == 200, body
        assert_same(body, cli_search(setup["index"], "reef lagoon", "--k", "8", *flags))
        hits = body["hits"]
        if options.get("per_document") == 1:
            assert len({h["document_id"] for h in hits}) == len(hits)
        assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
        assert hits[0]["relevance"] == 1.0 and all(0 <= h["relevance"] <= 1 for h in hits)
        for h in hits:
            snippet = h["snippet"].encode()
            inner = h["text"].encode()[h["snippet_begin"]:h["snippet_end"]]
            assert inner in snippet
            assert {snippet[b:e].decode().lower() for b, e in h["snippet_matches"]} <= {"reef", "reefs", "lagoon",
                                                                                         "lagoons"}


def test_sparse_search_needs_an_index_with_a_sparse_model(server):
    status, _, body = server.post("/v1/search", {"index": "other", "query": "lagoon", "mode": "sparse"})
    assert status == 400 and "sparse-model" in body["error"]["message"], body
    status, _, body = server.post("/v1/search", {"index": "other", "query": "lagoon", "fuse": ["sparse", "bm25"]})
    assert status == 400 and "sparse" in body["error"]["message"], body


def test_defaults_are_hybrid_and_ten(server, setup):
    status, _, body = server.post("/v1/search", {"index": "docs", "query": "coral reefs"})
    assert status == 200, body
    assert body["mode"] == "hybrid" and len(body["hits"]) == 10
    assert_same(body, cli_search(setup["index"], "coral reefs"))


def test_exact_search(server, setup):
    status, _, body = server.post("/v1/search", {"index": "docs", "query": "desert dunes", "mode": "vector",
                                                 "exact": True, "k": 7})
    assert status == 200, body
    assert body["used_ann"] is False
    assert_same(body, cli_search(setup["index"], "desert dunes", "--mode", "vector", "--exact", "--k", "7"))


@pytest.mark.parametrize("mode", ["vector", "bm25", "sparse", "hybrid"])
def test_filters(server, setup, mode):
    for filters in ({"region": "pacific"}, {"region": "europe"}, {"region": "nowhere"},
                    {"source": str(setup["tmp"] / "docs" / "d.jsonl"), "region": "africa"}):
        status, _, body = server.post("/v1/search", {"index": "docs", "query": "reef delta", "mode": mode,
                                                     "k": 15, "filter": filters})
        assert status == 200, body
        flags = [a for key, value in filters.items() for a in ("--filter", f"{key}={value}")]
        assert_same(body, cli_search(setup["index"], "reef delta", "--mode", mode, "--k", "15", *flags))
        if "region" in filters:
            assert all(h["metadata"].get("region") == filters["region"] for h in body["hits"])
    status, _, body = server.post("/v1/search", {"index": "docs", "query": "coral", "filter": {"region": "pacific"}})
    assert status == 200 and body["hits"][0]["title"] == "Reefs"


def test_rerank_with_a_served_cross_encoder(server, setup):
    for mode in ("hybrid", "bm25"):
        status, _, body = server.post("/v1/search", {"index": "docs", "query": "coral reefs shelter fish",
                                                     "mode": mode, "k": 5, "rerank": "ce", "rerank_candidates": 12})
        assert status == 200, body
        assert all(h["rerank_score"] is not None for h in body["hits"])
        assert_same(body, cli_search(setup["index"], "coral reefs shelter fish", "--mode", mode, "--k", "5",
                                     "--rerank", str(CROSS_ENCODER), "--rerank-candidates", "12"))
    # The default number of candidates.
    status, _, body = server.post("/v1/search", {"index": "docs", "query": "glacier", "rerank": "ce"})
    assert status == 200, body
    assert_same(body, cli_search(setup["index"], "glacier", "--rerank", str(CROSS_ENCODER)))


def test_second_index_shares_the_served_model(server, setup):
    assert "model served model tiny" in server.output()
    status, _, body = server.post("/v1/search", {"index": "other", "query": "lagoon", "mode": "vector"})
    assert status == 200, body
    assert_same(body, cli_search(setup["other"], "lagoon", "--mode", "vector"))
    assert body["hits"][0]["source"].endswith("e.txt")


def test_concurrent_searches_agree(server, setup):
    requests = [{"index": "docs", "query": q, "mode": m, "k": 8} for q in QUERIES for m in ("vector", "bm25", "hybrid")]
    expected = {(r["query"], r["mode"]): without_seconds(server.post("/v1/search", r)[2]) for r in requests}
    with ThreadPoolExecutor(max_workers=12) as pool:
        answers = list(pool.map(lambda r: server.post("/v1/search", r), requests * 4))
    for request, (status, _, body) in zip(requests * 4, answers):
        assert status == 200, body
        assert without_seconds(body) == expected[(request["query"], request["mode"])]


def test_indexes_list_and_stats(server, setup):
    status, _, body = server.get("/v1/indexes")
    assert status == 200, body
    assert [i["name"] for i in body["indexes"]] == ["docs", "other"]
    for entry, folder in zip(body["indexes"], (setup["index"], setup["other"])):
        cli = json.loads(run_sieve("index", "stats", "--index", str(folder), "--json").stdout)
        # The database's size includes its write-ahead log, which readers may touch.
        ignore = {"name", "database_bytes"}
        assert {k: v for k, v in entry.items() if k not in ignore} == {k: v for k, v in cli.items() if k not in ignore}
        status, _, single = server.get(f"/v1/indexes/{entry['name']}")
        assert status == 200, single
        assert {k: v for k, v in single.items() if k != "database_bytes"} == \
            {k: v for k, v in entry.items() if k != "database_bytes"}
    status, _, body = server.get("/v1/indexes/nope")
    assert status == 404 and "nope" in body["error"]["message"]
    status, _, metrics = server.get("/metrics")
    assert status == 200 and 'route="/v1/indexes/{name}"' in metrics and 'route="/v1/search"' in metrics


@pytest.mark.parametrize("body, field", [
    ({"index": "docs"}, "query"),
    ({"index": "docs", "query": 7}, "query"),
    ({"index": "docs", "query": "q", "k": 0}, "k"),
    ({"index": "docs", "query": "q", "k": 1001}, "k"),
    ({"index": "docs", "query": "q", "k": "3"}, "k"),
    ({"index": "docs", "query": "q", "k": 2.5}, "k"),
    ({"index": "docs", "query": "q", "mode": "fuzzy"}, "mode"),
    ({"index": "docs", "query": "q", "mode": 1}, "mode"),
    ({"index": "docs", "query": "q", "fuse": "vector,bm25"}, "fuse"),
    ({"index": "docs", "query": "q", "fuse": ["vector", "fuzzy"]}, "fuse"),
    ({"index": "docs", "query": "q", "fuse": [1, 2]}, "fuse"),
    ({"index": "docs", "query": "q", "rerank_candidates": 0}, "rerank_candidates"),
    ({"index": "docs", "query": "q", "per_document": -1}, "per_document"),
    ({"index": "docs", "query": "q", "per_document": "2"}, "per_document"),
    ({"index": "docs", "query": "q", "fusion": "max"}, "fusion"),
    ({"index": "docs", "query": "q", "exact": "yes"}, "exact"),
    ({"index": "docs", "query": "q", "filter": ["region=pacific"]}, "filter"),
    ({"index": "docs", "query": "q", "filter": {"region": 3}}, "filter"),
    ({"index": "docs", "query": "q", "rerank": 5}, "rerank"),
    ({"index": "docs", "query": "q", "rerank": "tiny"}, "rerank"),
    ({"index": 3, "query": "q"}, "index"),
    ({"query": "q"}, "index"),  # two indexes are served: which one?
])
def test_bad_requests_get_400_naming_the_field(server, body, field):
    status, _, answer = server.post("/v1/search", body)
    assert status == 400, answer
    assert answer["error"]["param"] == field
    assert f"`{field}`" in answer["error"]["message"] or field in answer["error"]["message"]


def test_bad_json_and_unknown_names(server):
    status, _, answer = server.post("/v1/search", b"{not json")
    assert status == 400 and "JSON" in answer["error"]["message"]
    status, _, answer = server.post("/v1/search", [1, 2])
    assert status == 400
    status, _, answer = server.post("/v1/search", {"index": "nope", "query": "q"})
    assert status == 404 and answer["error"]["param"] == "index"
    status, _, answer = server.post("/v1/search", {"index": "docs", "query": "q", "rerank": "nope"})
    assert status == 404 and answer["error"]["param"] == "rerank"
    # An empty query is bad input (the library's kInvalidInput).
    status, _, answer = server.post("/v1/search", {"index": "docs", "query": ""})
    assert status == 422, answer


def test_one_index_needs_no_name(setup):
    s = Server(setup["root"], "--model", "ce", "--index", f"only={setup['index']}")
    try:
        status, _, body = s.post("/v1/search", {"query": "coral reefs", "mode": "bm25", "k": 3})
        assert status == 200, body
        assert_same(body, cli_search(setup["index"], "coral reefs", "--mode", "bm25", "--k", "3"))
        status, _, body = s.get("/v1/indexes")
        assert [i["name"] for i in body["indexes"]] == ["only"]
    finally:
        assert s.stop() == 0, s.output()


def test_no_index_served(setup):
    s = Server(setup["root"], "--model", "ce")
    try:
        status, _, body = s.post("/v1/search", {"query": "coral"})
        assert status == 404, body
        status, _, body = s.get("/v1/indexes")
        assert status == 200 and body == {"indexes": []}
    finally:
        assert s.stop() == 0, s.output()


@pytest.mark.parametrize("spec, message", [
    ("noequals", "NAME=DIR"),
    ("=dir", "NAME=DIR"),
    ("x=/nonexistent/index", "x"),
])
def test_bad_index_options_stop_the_server(setup, spec, message):
    result = subprocess.run([str(sieve_bin()), "serve", "--models", str(setup["root"]), "--port", "0",
                             "--index", spec], capture_output=True, timeout=120)
    assert result.returncode != 0
    assert message in result.stderr.decode(errors="replace")


def test_duplicate_index_names_stop_the_server(setup):
    result = subprocess.run([str(sieve_bin()), "serve", "--models", str(setup["root"]), "--port", "0",
                             "--index", f"a={setup['index']}", "--index", f"a={setup['other']}"],
                            capture_output=True, timeout=120)
    assert result.returncode != 0
    assert "twice" in result.stderr.decode(errors="replace")
