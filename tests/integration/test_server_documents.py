"""`sieve serve --index NAME=DIR`: the documents of an index
(GET /v1/documents/{id}: the text as indexed, or a span of it;
GET /v1/documents/{id}/original: the file itself, only while it is the file
indexed, with headers that keep a browser from running anything of it in
the server's origin), and the filters and pages of POST /v1/search and
`sieve search` (--format, --folder, --offset).

The references are independent of Sieve: the files' own bytes, Python's
slicing of the UTF-8 text, the files written (which folder, which format),
and for pages the longer ranking they must be cut from."""
from __future__ import annotations

import io
import json
import os
import urllib.parse
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, run_sieve
from server_harness import Server, models_root
from test_formats import minimal_pdf

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
TINY = FIXTURES / "tiny-bert-tokens"
KEY = "documents-test-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
HTML = ("<html><head><title>Harbor</title></head><body><p>Alpine harbor lights.</p>"
        "<script>document.title = 'pwned'</script></body></html>")
CHANGING = "Alpine text that is changed after it was indexed.\n"


def write_docs(docs: Path) -> dict[str, bytes]:
    files = {
        "b/one.txt": "Alpine lakes mirror the peaks at dawn. Ünïcode too.\n".encode(),
        "bc/two.txt": b"Alpine meadows bloom in early summer.\n",
        "b/deeper/three.md": b"# Ridge\n\nAlpine ridges in markdown.\n",
        "notes.md": b"# Notes\n\nAlpine notes in markdown, and more alpine words.\n",
        "page.html": HTML.encode(),
        "report.pdf": minimal_pdf(["Glacier survey first page", "Alpine survey second page"]),
        "changing.txt": CHANGING.encode(),
        "gone.txt": b"Alpine text of a file deleted after it was indexed.\n",
    }
    for i in range(12):
        files[f"many/m{i:02d}.txt"] = f"Alpine valley number {i} with {'snow ' * (i % 5)}and rivers.\n".encode()
    for name, data in files.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_bytes(data)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("inner/x.txt", "Alpine archive member text.\n")
    (docs / "pack.zip").write_bytes(out.getvalue())
    files["pack.zip"] = out.getvalue()
    return files


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    if not (TINY / "model.onnx").exists():
        pytest.fail(f"{TINY} is missing: run tools/make_fixtures.py")
    tmp = tmp_path_factory.mktemp("documents")
    docs = tmp / "docs"
    files = write_docs(docs)
    index = tmp / "index"
    run_sieve("index", "add", "--index", str(index), "--model", str(TINY), "--quiet", str(docs))
    # Changed (same size, other bytes) and deleted after indexing.
    (docs / "changing.txt").write_text(CHANGING.replace("Alpine", "Arctic"))
    (docs / "gone.txt").unlink()
    root = models_root(tmp, {"tiny": TINY})
    server = Server(root, "--index", f"docs={index}", env={"SIEVE_API_KEYS": KEY})
    yield {"tmp": tmp, "docs": docs.resolve(), "files": files, "index": index, "server": server}
    assert server.stop() == 0, server.output()


def path_of(setup, name: str) -> str:
    return str(setup["docs"] / name)


def doc_url(doc_id: str, suffix: str = "", query: str = "") -> str:
    return f"/v1/documents/{urllib.parse.quote(doc_id, safe='')}{suffix}?index=docs{query}"


def get(setup, path: str, auth: bool = True):
    return setup["server"].get(path, headers=AUTH if auth else {})


def search(setup, **body):
    status, _, result = setup["server"].post("/v1/search", {"index": "docs", "query": "alpine", **body}, headers=AUTH)
    assert status == 200, result
    return result["hits"]


def test_document_text_and_span(setup):
    doc_id = path_of(setup, "b/one.txt")
    status, headers, doc = get(setup, doc_url(doc_id))
    assert status == 200, doc
    text = setup["files"]["b/one.txt"].decode().strip()
    assert doc["id"] == doc_id and doc["source"] == doc_id and doc["format"] == "text"
    assert doc["text"].strip() == text and doc["length"] == len(doc["text"].encode())
    # A byte span, cut from the UTF-8 text as Python cuts it.
    raw = doc["text"].encode()
    begin = raw.index("Ünïcode".encode())
    status, _, span = get(setup, doc_url(doc_id, query=f"&begin={begin}&end={begin + len('Ünïcode'.encode())}"))
    assert status == 200 and span["text"] == "Ünïcode" and span["begin"] == begin and span["length"] == len(raw)
    # A span starting inside a character moves back to its start.
    status, _, inside = get(setup, doc_url(doc_id, query=f"&begin={begin + 1}&end={begin + 2}"))
    assert status == 200 and inside["begin"] == begin
    for query in ("&begin=x", "&begin=5&end=2", "&end=-1"):
        status, _, error = get(setup, doc_url(doc_id, query=query))
        assert status == 400, (query, error)


def test_unknown_document_and_auth(setup):
    missing = path_of(setup, "nothing-here.txt")
    for suffix in ("", "/original"):
        status, _, error = get(setup, doc_url(missing, suffix))
        assert status == 404 and missing in error["error"]["message"], error
        status, headers, _ = get(setup, doc_url(path_of(setup, "b/one.txt"), suffix), auth=False)
        assert status == 401 and headers.get("WWW-Authenticate") == "Bearer"
    status, _, error = get(setup, "/v1/documents/x?index=nosuchindex")
    assert status == 404


def test_listing_pages_through_every_document(setup):
    ids, after = [], ""
    while True:
        status, _, page = get(setup, f"/v1/documents?index=docs&limit=4&after={urllib.parse.quote(after)}")
        assert status == 200, page
        ids += [d["id"] for d in page["documents"]]
        if not page["next"]:
            break
        after = page["next"]
    # Every file written is one document (the archive: its member), gone.txt too: it was indexed.
    expected = {path_of(setup, n) for n in setup["files"] if n != "pack.zip"} | {path_of(setup, "pack.zip") + "!inner/x.txt"}
    assert ids == sorted(ids, key=lambda s: s.encode()) and set(ids) == expected


def check_protected(headers: dict, sandbox: bool = True) -> None:
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Content-Disposition"].startswith("inline; filename=")
    if sandbox:
        assert headers["Content-Security-Policy"] == "sandbox"


def test_original_files_are_served_as_they_are(setup):
    for name, kind, sandbox in (("b/one.txt", "text/plain; charset=utf-8", True),
                                ("notes.md", "text/plain; charset=utf-8", True),
                                ("page.html", "text/html; charset=utf-8", True),
                                ("report.pdf", "application/pdf", False)):
        conn_status, headers, body = request_bytes(setup, doc_url(path_of(setup, name), "/original"))
        assert conn_status == 200, (name, body[:200])
        assert headers["Content-Type"] == kind, name
        assert body == setup["files"][name], name
        check_protected(headers, sandbox)
        assert f'filename="{Path(name).name}"' in headers["Content-Disposition"]


def request_bytes(setup, path: str):
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", setup["server"].port, timeout=30)
    try:
        conn.request("GET", path, headers=AUTH)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_a_large_original_is_sent_in_blocks_never_held_whole(setup):
    """24 MiB of HTML (a comment: little text to index) goes out byte for byte while the server's peak
    memory grows by far less than the file; HEAD tells its length alone."""
    import hashlib
    import http.client

    big = setup["docs"] / "big" / "big.html"
    big.parent.mkdir()
    comment = b"<!-- " + b"0123456789abcdef" * (24 << 16) + b" -->"
    big.write_bytes(b"<html><head><title>Big</title></head><body><p>Alpine giant.</p>" + comment + b"</body></html>")
    # The module's index takes it for this test alone (a second server would cost seconds).
    run_sieve("index", "add", "--index", str(setup["index"]), "--model", str(TINY), "--quiet", str(big))
    status_file = Path(f"/proc/{setup['server'].process.pid}/status")

    def peak() -> int:
        line = next(line for line in status_file.read_text().splitlines() if line.startswith("VmHWM:"))
        return int(line.split()[1]) * 1024

    conn = http.client.HTTPConnection("127.0.0.1", setup["server"].port, timeout=60)
    try:
        # The peak starts again from what the server holds now (Linux: clear_refs 5).
        Path(f"/proc/{setup['server'].process.pid}/clear_refs").write_text("5")
        before = peak()
        conn.request("GET", doc_url(str(big), "/original"), headers=AUTH)
        response = conn.getresponse()
        digest, size = hashlib.sha256(), 0
        while chunk := response.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
        grown = peak() - before
        assert response.status == 200 and response.getheader("Content-Security-Policy") == "sandbox"
        assert int(response.getheader("Content-Length")) == size == big.stat().st_size
        assert digest.hexdigest() == hashlib.sha256(big.read_bytes()).hexdigest()
        assert grown < 8 << 20, f"the server's peak memory grew by {grown >> 20} MiB for a {size >> 20} MiB file"
        conn.request("HEAD", doc_url(str(big), "/original"), headers=AUTH)
        head = conn.getresponse()
        assert head.status == 200 and int(head.getheader("Content-Length")) == size and head.read() == b""
    finally:
        conn.close()
        run_sieve("index", "rm", "--index", str(setup["index"]), str(big))


def test_an_archive_member_is_served_as_its_indexed_text(setup):
    member = path_of(setup, "pack.zip") + "!inner/x.txt"
    status, headers, body = request_bytes(setup, doc_url(member, "/original"))
    assert status == 200 and headers["Content-Type"] == "text/plain; charset=utf-8"
    check_protected(headers)
    assert body.decode().strip() == "Alpine archive member text." and not body.startswith(b"PK")
    status, _, doc = get(setup, doc_url(member))
    assert status == 200 and doc["source"] == path_of(setup, "pack.zip") and doc["format"] == "text"


def test_a_changed_or_deleted_file_is_refused(setup):
    status, _, error = get(setup, doc_url(path_of(setup, "changing.txt"), "/original"))
    assert status == 404 and "changed since it was indexed" in error["error"]["message"], error
    status, _, error = get(setup, doc_url(path_of(setup, "gone.txt"), "/original"))
    assert status == 404 and "gone.txt" in error["error"]["message"], error
    # Their indexed text is still there.
    status, _, doc = get(setup, doc_url(path_of(setup, "changing.txt")))
    assert status == 200 and doc["text"].strip() == CHANGING.strip()


def test_stats_count_documents_by_format(setup):
    status, _, stats = get(setup, "/v1/indexes/docs")
    assert status == 200
    # one, two, changing, gone, 12 many, the archive member: text; three.md, notes.md: markdown.
    assert stats["documents_by_format"] == {"text": 17, "markdown": 2, "html": 1, "pdf": 1}


def test_filter_by_format(setup):
    hits = search(setup, k=50, formats=["markdown"])
    assert {h["source"] for h in hits} == {path_of(setup, "notes.md"), path_of(setup, "b/deeper/three.md")}
    assert {h["format"] for h in hits} == {"markdown"}
    hits = search(setup, k=50, formats=["pdf", "html"])
    assert {h["source"] for h in hits} == {path_of(setup, "report.pdf"), path_of(setup, "page.html")}
    assert search(setup, formats=["docx"]) == []
    # With a metadata filter too: both hold.
    assert search(setup, k=50, formats=["text"], filter={"source": path_of(setup, "b/one.txt")})[0]["source"] == \
        path_of(setup, "b/one.txt")


def test_filter_by_folder_on_path_boundaries(setup):
    b = {path_of(setup, "b/one.txt"), path_of(setup, "b/deeper/three.md")}
    for folder in (path_of(setup, "b"), path_of(setup, "b") + "/"):
        assert {h["source"] for h in search(setup, k=50, folders=[folder])} == b, folder
    assert {h["source"] for h in search(setup, k=50, folders=[path_of(setup, "bc")])} == {path_of(setup, "bc/two.txt")}
    # Any of several; a file names itself; with a format, both hold.
    both = search(setup, k=50, folders=[path_of(setup, "bc"), path_of(setup, "notes.md")])
    assert {h["source"] for h in both} == {path_of(setup, "bc/two.txt"), path_of(setup, "notes.md")}
    only_md = search(setup, k=50, folders=[path_of(setup, "b")], formats=["markdown"])
    assert {h["source"] for h in only_md} == {path_of(setup, "b/deeper/three.md")}
    status, _, error = setup["server"].post("/v1/search", {"index": "docs", "query": "alpine", "folders": ["b"]},
                                            headers=AUTH)
    assert status == 400 and error["error"]["param"] == "folders"


def test_pages_continue_the_same_ranking(setup):
    for mode in ("hybrid", "bm25", "vector"):
        whole = search(setup, k=12, mode=mode)
        assert len(whole) == 12
        pages = [search(setup, k=4, offset=offset, mode=mode) for offset in (0, 4, 8)]
        ids = [h["chunk_id"] for page in pages for h in page]
        assert ids == [h["chunk_id"] for h in whole], mode
        assert len(set(ids)) == len(ids)
    for bad in (-1, 1000, "2"):
        status, _, error = setup["server"].post("/v1/search", {"index": "docs", "query": "alpine", "offset": bad},
                                                headers=AUTH)
        assert status == 400, (bad, error)


def cli(setup, *args: str, cwd: Path | None = None) -> list[dict]:
    import subprocess

    from conftest import sieve_bin

    result = subprocess.run([str(sieve_bin()), "--log-level", "warn", "search", "--index", str(setup["index"]),
                             "alpine", "--json", *args], capture_output=True, timeout=120, cwd=cwd)
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)["hits"]


def test_cli_format_folder_and_offset(setup):
    hits = cli(setup, "--k", "50", "--format", "markdown", "--format", "pdf")
    assert {h["source"] for h in hits} == {path_of(setup, "notes.md"), path_of(setup, "b/deeper/three.md"),
                                           path_of(setup, "report.pdf")}
    # A relative folder is taken from the working directory, as sieve index add takes paths.
    hits = cli(setup, "--k", "50", "--folder", "docs/b", cwd=setup["tmp"])
    assert {h["source"] for h in hits} == {path_of(setup, "b/one.txt"), path_of(setup, "b/deeper/three.md")}
    whole = cli(setup, "--k", "6")
    assert [h["chunk_id"] for h in cli(setup, "--k", "3", "--offset", "3")] == [h["chunk_id"] for h in whole[3:]]
    # The server answers the same page.
    assert [h["chunk_id"] for h in search(setup, k=3, offset=3)] == [h["chunk_id"] for h in whole[3:]]


def test_an_index_made_before_formats_were_recorded(setup, tmp_path):
    import shutil
    import sqlite3

    old = tmp_path / "old-index"
    shutil.copytree(setup["index"], old)
    db = sqlite3.connect(old / "index.sqlite")
    db.execute("ALTER TABLE documents DROP COLUMN format")
    db.commit()
    db.close()
    # Opened again, its documents get their formats from their file names.
    stats = json.loads(run_sieve("index", "stats", "--index", str(old), "--json").stdout)
    assert stats["documents_by_format"] == {"text": 17, "markdown": 2, "html": 1, "pdf": 1}
    hits = json.loads(run_sieve("search", "--index", str(old), "alpine", "--json", "--k", "50", "--format",
                                "markdown").stdout)["hits"]
    assert {h["source"] for h in hits} == {path_of(setup, "notes.md"), path_of(setup, "b/deeper/three.md")}
