"""The MCP server, driven by the official MCP Python SDK as the client:
`sieve mcp` over standard input and output (mcp.client.stdio) and
`sieve serve --index` at /mcp over streamable HTTP (mcp.client.streamable_http).
Version negotiation against the SDK's own constants; the tools (search,
get_document with a span, list_indexes, index_stats) against the CLI's answers
and the files indexed; resources listed page by page and read; bad arguments as
tool errors; JSON-RPC errors over a raw pipe; API keys, sessions and foreign
Origins over HTTP; and searches while another process adds to the index."""
from __future__ import annotations

import asyncio
import http.client
import json
import os
import subprocess
from pathlib import Path

import httpx2
import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from conftest import ROOT, run_sieve, sieve_bin
from server_harness import Server, models_root

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
TINY = FIXTURES / "tiny-bert-tokens"
CROSS_ENCODER = FIXTURES / "cross-encoder-minilm-l6"
KEY = "mcp-test-key"
RECORDS = 130  # more than a page of resources/list (100)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    if not (TINY / "model.onnx").exists():
        pytest.fail(f"{TINY} is missing: run tools/make_fixtures.py")
    tmp = tmp_path_factory.mktemp("mcp")
    docs = tmp / "docs"
    docs.mkdir()
    (docs / "glaciers.txt").write_text("Glaciers carve deep valleys over thousands of years. "
                                       "Meltwater feeds the rivers below.")
    (docs / "reefs.md").write_text("---\ntitle: Reefs\nregion: pacific\n---\n# Coral\n\nCoral reefs shelter fish.")
    with open(docs / "records.jsonl", "w") as out:
        for i in range(RECORDS):
            out.write(json.dumps({"id": f"rec-{i:03d}", "text": f"record {i} about harbor number {i}",
                                  "region": ("europe", "africa")[i % 2]}) + "\n")
    index = tmp / "index"
    run_sieve("index", "add", "--index", str(index), "--model", str(TINY), "--quiet", str(docs))
    (tmp / "more").mkdir()
    (tmp / "more" / "lagoon.txt").write_text("A lagoon behind the reef.")
    other = tmp / "other"
    run_sieve("index", "add", "--index", str(other), "--model", str(TINY), "--quiet", str(tmp / "more"))
    return {"tmp": tmp, "index": index, "other": other, "docs": docs}


def stdio_params(setup, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=str(sieve_bin()),
                                 args=["mcp", "--index", f"notes={setup['index']}", "--index",
                                       f"other={setup['other']}", *extra])


async def with_stdio(setup, body, *extra: str):
    with open(setup["tmp"] / "mcp-stderr.log", "a") as errlog:
        async with stdio_client(stdio_params(setup, *extra), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                result = await session.initialize()
                return await body(session, result)


def tool_text(result) -> str:
    return "".join(c.text for c in result.content if c.type == "text")


def test_stdio_tools(setup):
    docs = setup["docs"]

    async def body(session: ClientSession, init):
        assert init.protocol_version == LATEST_HANDSHAKE_VERSION
        assert init.server_info.name == "sieve"
        assert init.capabilities.tools is not None and init.capabilities.resources is not None
        await session.send_ping()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {"search", "get_document", "list_indexes", "index_stats"}
        assert tools["search"].input_schema["required"] == ["query"]
        assert "rerank" not in tools["search"].input_schema["properties"]  # no cross-encoder loaded
        assert tools["search"].output_schema["type"] == "object"

        # The SDK checks structuredContent against the tool's outputSchema.
        found = await session.call_tool("search", {"query": "coral reefs shelter fish", "index": "notes", "k": 3,
                                                   "mode": "bm25"})
        assert not found.is_error, tool_text(found)
        hits = found.structured_content["hits"]
        assert json.loads(tool_text(found)) == found.structured_content
        cli = json.loads(run_sieve("search", "--index", str(setup["index"]), "coral reefs shelter fish", "--k", "3",
                                   "--mode", "bm25", "--json").stdout)
        assert [(h["document_id"], h["chunk_begin"], h["chunk_end"]) for h in cli["hits"]] == \
            [(h["document_id"], h["begin"], h["end"]) for h in hits]
        assert [h["score"] for h in hits] == pytest.approx([h["score"] for h in cli["hits"]])
        assert [(h["rank"], h["relevance"], h["format"], h["snippet"]) for h in hits] == \
            [(h["rank"], pytest.approx(h["relevance"]), h["format"], h["snippet"]) for h in cli["hits"]]
        top = hits[0]
        assert top["source"] == str(docs / "reefs.md") and top["title"] == "Reefs"
        assert top["metadata"] == {"region": "pacific"}

        filtered = await session.call_tool("search", {"query": "harbor", "index": "notes", "k": 50,
                                                      "filters": {"region": "africa"}})
        assert filtered.structured_content["hits"]
        assert {h["metadata"]["region"] for h in filtered.structured_content["hits"]} == {"africa"}

        # get_document with a span: the file's own bytes.
        glaciers = (docs / "glaciers.txt").read_bytes()
        doc = await session.call_tool("get_document", {"index": "notes", "id": str(docs / "glaciers.txt"),
                                                       "begin": 9, "end": 20})
        assert not doc.is_error, tool_text(doc)
        got = doc.structured_content
        assert got["text"].encode() == glaciers[9:20]
        assert (got["begin"], got["end"], got["length"]) == (9, 20, len(glaciers))
        whole = await session.call_tool("get_document", {"index": "notes", "id": str(docs / "glaciers.txt")})
        assert whole.structured_content["text"].encode() == glaciers

        listed = (await session.call_tool("list_indexes", {})).structured_content["indexes"]
        assert [i["name"] for i in listed] == ["notes", "other"]
        stats = (await session.call_tool("index_stats", {"index": "notes"})).structured_content
        cli_stats = json.loads(run_sieve("index", "stats", "--index", str(setup["index"]), "--json").stdout)
        assert (stats["documents"], stats["chunks"]) == (cli_stats["documents"], cli_stats["chunks"])
        assert stats["documents"] == RECORDS + 2 and listed[0]["documents"] == stats["documents"]

        # Bad arguments: tool errors the model can read, not protocol errors.
        errors = {
            "unknown index": ("search", {"query": "x", "index": "nope"}, "unknown index `nope`"),
            "no index named": ("search", {"query": "x"}, "`index` is required"),
            "bad mode": ("search", {"query": "x", "index": "notes", "mode": "fuzzy"}, "`mode` must be"),
            "k range": ("search", {"query": "x", "index": "notes", "k": 0}, "`k` must be from 1 to 100"),
            "k type": ("search", {"query": "x", "index": "notes", "k": "ten"}, "`k` must be an integer"),
            "no query": ("search", {"index": "notes"}, "`query` is required"),
            "blank query": ("search", {"query": "  ", "index": "notes"}, "`query` is required"),
            "filters": ("search", {"query": "x", "index": "notes", "filters": {"region": 3}}, "must be a string"),
            "unknown argument": ("search", {"query": "x", "index": "notes", "top": 3}, "no argument `top`"),
            "rerank": ("search", {"query": "x", "index": "notes", "rerank": True}, "no cross-encoder"),
            "sparse": ("search", {"query": "x", "index": "notes", "mode": "sparse"}, "sparse"),
            "no document": ("get_document", {"index": "notes", "id": "missing"}, "no document `missing`"),
            "span": ("get_document", {"index": "notes", "id": str(docs / "glaciers.txt"), "begin": 5, "end": 2},
                     "`end` must not be below `begin`"),
        }
        for name, (tool, arguments, message) in errors.items():
            result = await session.call_tool(tool, arguments)
            assert result.is_error, name
            assert message in tool_text(result), (name, tool_text(result))
        with pytest.raises(MCPError, match="Unknown tool"):
            await session.call_tool("delete_everything", {})
        return True

    assert asyncio.run(with_stdio(setup, body))


def test_stdio_search_reranks_as_the_cli_does(setup):
    """With --rerank, the search tool offers `rerank`, and a reranked search gives the hits, scores and spans
    `sieve search --rerank` gives (the same default candidates and window)."""
    if not (CROSS_ENCODER / "model.onnx").exists():
        pytest.fail(f"{CROSS_ENCODER} is missing: run tools/make_cross_encoder.py (scripts/test.sh does)")
    query = "meltwater feeds the rivers below the glaciers"

    async def body(session: ClientSession, _):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert tools["search"].input_schema["properties"]["rerank"]["type"] == "boolean"
        found = await session.call_tool("search", {"query": query, "index": "notes", "k": 4, "rerank": True})
        assert not found.is_error, tool_text(found)
        return found.structured_content["hits"]

    hits = asyncio.run(with_stdio(setup, body, "--rerank", str(CROSS_ENCODER)))
    cli = json.loads(run_sieve("search", "--index", str(setup["index"]), query, "--k", "4", "--rerank",
                               str(CROSS_ENCODER), "--json").stdout)["hits"]
    assert len(hits) == 4
    assert [(h["document_id"], h["begin"], h["end"]) for h in hits] == \
        [(h["document_id"], h["chunk_begin"], h["chunk_end"]) for h in cli]
    assert [h["score"] for h in hits] == pytest.approx([h["rerank_score"] for h in cli], abs=1e-5)
    assert [h["relevance"] for h in hits] == pytest.approx([h["relevance"] for h in cli], abs=1e-6)


def test_stdio_resources(setup):
    async def body(session: ClientSession, _):
        templates = (await session.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["sieve://notes/documents/{id}", "sieve://other/documents/{id}"]
        uris, cursor, pages = [], None, 0
        while True:
            page = await session.list_resources(
                params=None if cursor is None else {"cursor": cursor})
            pages += 1
            uris += [str(r.uri) for r in page.resources]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert pages >= 2
        ids = [f"rec-{i:03d}" for i in range(RECORDS)]
        docs = setup["docs"]
        from urllib.parse import quote
        expected = sorted([str(docs / "glaciers.txt"), str(docs / "reefs.md")] + ids)
        assert uris == [f"sieve://notes/documents/{quote(i, safe='')}" for i in expected] + \
            [f"sieve://other/documents/{quote(str(setup['tmp'] / 'more' / 'lagoon.txt'), safe='')}"]
        read = await session.read_resource(f"sieve://notes/documents/{quote(str(docs / 'glaciers.txt'), safe='')}")
        assert read.contents[0].text.encode() == (docs / "glaciers.txt").read_bytes()
        assert read.contents[0].mime_type == "text/plain"
        with pytest.raises(MCPError) as missing:
            await session.read_resource("sieve://notes/documents/nothing-here")
        assert missing.value.error.code == -32002
        with pytest.raises(MCPError):
            await session.list_resources(params={"cursor": "not a cursor"})
        return True

    assert asyncio.run(with_stdio(setup, body))


def test_stdio_json_rpc_errors(setup):
    """Raw lines: the errors JSON-RPC defines, version negotiation, and exit 0 at the end of input."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},  # before initialize
        {"jsonrpc": "2.0", "id": 2, "method": "initialize",
         "params": {"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        "{not json",
        {"jsonrpc": "1.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "id": 4, "method": "no/such/method"},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"arguments": {}}},
        {"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {}},
        {"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [1]},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        [],
        [{"jsonrpc": "2.0", "id": 8, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/cancelled"}],
    ]
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    done = subprocess.run([str(sieve_bin()), "mcp", "--index", f"notes={setup['index']}"], input=text,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 10
    # Requests on an index are answered on worker threads: in any order, by id.
    by_id = {a["id"]: a for a in answers if isinstance(a, dict) and a["id"] is not None}
    codes = {i: a["error"]["code"] for i, a in by_id.items() if "error" in a}
    assert codes == {1: -32600, 3: -32600, 4: -32601, 5: -32602, 6: -32602, 7: -32602}  # 1: not initialized
    assert by_id[2]["result"]["protocolVersion"] == LATEST_HANDSHAKE_VERSION
    # The line that is not JSON and the empty batch: errors without an id.
    assert sorted(a["error"]["code"] for a in answers if isinstance(a, dict) and a["id"] is None) == [-32700, -32600]
    assert [a for a in answers if isinstance(a, list)] == [[{"jsonrpc": "2.0", "id": 8, "result": {}}]]

    # Each version the SDK negotiates by handshake is answered as asked.
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        tools = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        done = subprocess.run([str(sieve_bin()), "mcp", "--index", f"notes={setup['index']}"],
                              input=json.dumps(init) + "\n" + json.dumps(tools) + "\n", capture_output=True,
                              text=True, timeout=60)
        first, second = [json.loads(line) for line in done.stdout.splitlines()]
        assert first["result"]["protocolVersion"] == version
        # outputSchema came with 2025-06-18.
        assert ("outputSchema" in second["result"]["tools"][0]) == (version >= "2025-06-18")


def test_sdk_client_in_its_default_mode(setup):
    """The SDK's high-level Client probes for the stateless protocol era
    first (server/discover) and falls back to the initialize handshake."""

    async def body():
        async with Client(stdio_params(setup)) as client:
            assert client.session.initialize_result.protocol_version == LATEST_HANDSHAKE_VERSION
            result = await client.call_tool("search", {"query": "coral reefs", "index": "notes", "k": 1})
            return result.structured_content["hits"][0]["title"]

    assert asyncio.run(body()) == "Reefs"


@pytest.fixture(scope="module")
def server(setup):
    root = models_root(setup["tmp"], {"tiny": TINY})
    s = Server(root, "--index", f"notes={setup['index']}", env={"SIEVE_API_KEYS": KEY})
    yield s
    assert s.stop() == 0, s.output()


def http_client(key: str = KEY, **headers: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}", **headers}, timeout=30)


async def with_http(server, body, key: str = KEY):
    async with http_client(key) as client:
        async with streamable_http_client(f"{server.url}/mcp", http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                result = await session.initialize()
                return await body(session, result)


def test_http_tools_and_resources(server, setup):
    async def body(session: ClientSession, init):
        assert init.protocol_version == LATEST_HANDSHAKE_VERSION
        assert {t.name for t in (await session.list_tools()).tools} == \
            {"search", "get_document", "list_indexes", "index_stats"}
        found = await session.call_tool("search", {"query": "glaciers carve valleys", "k": 2, "mode": "bm25"})
        assert not found.is_error, tool_text(found)
        cli = json.loads(run_sieve("search", "--index", str(setup["index"]), "glaciers carve valleys", "--k", "2",
                                   "--mode", "bm25", "--json").stdout)
        assert [h["document_id"] for h in found.structured_content["hits"]] == \
            [h["document_id"] for h in cli["hits"]]
        hit = found.structured_content["hits"][0]
        span = await session.call_tool("get_document", {"id": hit["document_id"], "begin": hit["begin"],
                                                        "end": hit["end"]})
        assert span.structured_content["text"] == hit["text"]
        page = await session.list_resources()
        assert len(page.resources) == 100 and page.next_cursor
        read = await session.read_resource(page.resources[0].uri)
        assert read.contents[0].text
        bad = await session.call_tool("search", {"query": "x", "index": "nope"})
        assert bad.is_error and "unknown index `nope`" in tool_text(bad)
        return True

    assert asyncio.run(with_http(server, body))


def raw(server, method: str, body=None, **headers: str):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, "/mcp", body=data, headers={"Content-Type": "application/json",
                                                         "Accept": "application/json, text/event-stream", **headers})
        response = conn.getresponse()
        payload = response.read()
        return response.status, dict(response.getheaders()), json.loads(payload) if payload else None
    finally:
        conn.close()


def innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, MCPError), repr(error)
    return error


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def test_http_keys_sessions_and_origins(server):
    auth = {"Authorization": f"Bearer {KEY}"}
    # The API key, as on every route.
    status, headers, body = raw(server, "POST", INIT)
    assert status == 401 and headers.get("WWW-Authenticate") == "Bearer"
    assert body["error"]["message"].startswith("a valid API key is required")
    assert raw(server, "POST", INIT, Authorization="Bearer wrong")[0] == 401

    async def never(session, init):
        raise AssertionError("initialized with a wrong key")

    with pytest.raises(BaseException) as refused:  # the SDK's task groups wrap it
        asyncio.run(with_http(server, never, key="wrong"))
    assert "a valid API key is required" in str(innermost(refused.value))

    # A page of another site (DNS rebinding) is refused; this machine's pages are not.
    status, _, body = raw(server, "POST", INIT, Origin="http://evil.example", **auth)
    assert status == 403 and "Origin" in body["error"]["message"]
    status, headers, body = raw(server, "POST", INIT, Origin="http://localhost:3000", **auth)
    assert status == 200 and body["result"]["protocolVersion"] == "2025-06-18"
    session = headers["Mcp-Session-Id"]
    assert len(session) >= 32

    # Sessions: required after initialize, unknown ones 404, DELETE ends them.
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert raw(server, "POST", ping, **auth)[0] == 400
    assert raw(server, "POST", ping, **{"Mcp-Session-Id": "0" * 32}, **auth)[0] == 404
    status, _, body = raw(server, "POST", ping, **{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"},
                          **auth)
    assert status == 200 and body == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert raw(server, "POST", ping, **{"Mcp-Session-Id": session, "MCP-Protocol-Version": "1999-01-01"},
               **auth)[0] == 400
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert raw(server, "POST", note, **{"Mcp-Session-Id": session}, **auth)[0] == 202
    assert raw(server, "GET", None, **{"Mcp-Session-Id": session}, **auth)[0] == 405
    assert raw(server, "DELETE", None, **{"Mcp-Session-Id": session}, Origin="http://evil.example",
               **auth)[0] == 403
    assert raw(server, "DELETE", None, **{"Mcp-Session-Id": session}, **auth)[0] == 204
    assert raw(server, "POST", ping, **{"Mcp-Session-Id": session}, **auth)[0] == 404
    assert raw(server, "DELETE", None, Authorization="Bearer wrong", **{"Mcp-Session-Id": session})[0] == 401


def test_searches_while_another_process_adds(server, setup):
    """Concurrent MCP searches over HTTP and stdio while `sieve index add`
    writes to the same index from another process: every call answers, and
    the documents added are found once the writer is done."""
    extra = setup["tmp"] / "extra"
    extra.mkdir()
    for i in range(40):
        (extra / f"x{i:02d}.txt").write_text(f"zanzibar spice market entry {i}. " * 20)
    writer = subprocess.Popen([str(sieve_bin()), "index", "add", "--index", str(setup["index"]), "--quiet",
                               str(extra)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    overlapped = []  # whether each round of searches began while the writer ran

    async def http_body(session: ClientSession, _):
        results = []
        while writer.poll() is None or not results:
            overlapped.append(writer.poll() is None)
            batch = await asyncio.gather(*[
                session.call_tool("search", {"query": q, "k": 5, "mode": m})
                for q in ("zanzibar spice", "glaciers", "harbor") for m in ("bm25", "vector", "hybrid")])
            results += batch
        return results

    async def stdio_body(session: ClientSession, _):
        return await asyncio.gather(*[session.call_tool("search", {"query": "harbor record", "index": "notes"})
                                      for _ in range(10)])

    async def both():
        return await asyncio.gather(with_http(server, http_body), with_stdio(setup, stdio_body))

    http_results, stdio_results = asyncio.run(both())
    assert writer.wait(timeout=120) == 0, writer.stderr.read()
    for result in http_results + stdio_results:
        assert not result.is_error, tool_text(result)
    print("rounds of searches during the write:", overlapped.count(True), "of", len(overlapped))
    assert overlapped[0]

    async def after(session: ClientSession, _):
        return await session.call_tool("search", {"query": "zanzibar spice market", "k": 5, "mode": "bm25"})

    found = asyncio.run(with_http(server, after))
    assert found.structured_content["hits"]
    assert all(h["document_id"].startswith(str(extra)) for h in found.structured_content["hits"])
