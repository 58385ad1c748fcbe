"""`sieve index watch` and `sieve serve --watch`: an index kept in step with a
folder while files are created, rewritten (in place and by an editor's
atomic save), renamed, deleted, and folders moved in and out; the rescan on
start catches what changed while no watch ran; SIGKILL during a burst of
changes leaves a consistent index that the next start completes.

What the index holds is read with Python's own sqlite3 module and compared
with the files on disk (walked by Python) and, for the chunks, with an index
that `sieve index add` builds from the final files in one go."""
from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Callable

import pytest

import tier
from conftest import run_sieve, sieve_bin
from server_harness import Server, models_root
from test_search import TINY, WORDS, index_rows


@pytest.fixture(scope="module")
def tiny() -> Path:
    if not (TINY / "model.onnx").exists():
        pytest.fail(f"{TINY} is missing: run tools/make_fixtures.py")
    return TINY


def stored_sources(index: Path) -> set[str]:
    """The files the index holds documents of, read in one transaction."""
    if not (index / "index.sqlite").exists():
        return set()
    db = sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True)
    try:
        return {row[0] for row in db.execute("SELECT DISTINCT source FROM documents")}
    finally:
        db.close()


def files_on_disk(folder: Path) -> set[str]:
    """The non-hidden .txt files below `folder`, as absolute paths (what the index should hold)."""
    found = set()
    for parent, folders, files in os.walk(folder):
        folders[:] = [f for f in folders if not f.startswith(".")]
        found.update(str(Path(parent, f).resolve()) for f in files if f.endswith(".txt") and not f.startswith("."))
    return found


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 6) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {timeout} s: {what}")
        time.sleep(0.05)


class Watch:
    """`sieve index watch` as a child process, its standard error in a file."""

    def __init__(self, index: Path, folder: Path, model: Path, log: Path, *extra: str):
        self.log_path = log
        self.start = log.stat().st_size if log.exists() else 0
        self.log = open(log, "ab")
        self.process = subprocess.Popen(
            [str(sieve_bin()), "--log-level", "warn", "index", "watch", "--index", str(index), "--model", str(model),
             "--settle", "0.2", *extra, str(folder)], stdout=subprocess.DEVNULL, stderr=self.log)
        wait_for(lambda: "watching" in self.output() or self.process.poll() is not None, "the watch starting", 30)
        assert self.process.poll() is None, self.output()

    def output(self) -> str:
        """What this run wrote."""
        return self.log_path.read_bytes()[self.start:].decode(errors="replace")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        self.process.send_signal(sig)
        try:
            self.process.wait(timeout=20)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.log.close()
        return self.process.returncode


def bm25_sources(index: Path, query: str) -> set[str]:
    result = run_sieve("search", "--index", str(index), query, "--json", "--mode", "bm25")
    return {hit["source"] for hit in json.loads(result.stdout)["hits"]}


def test_watch_follows_creates_rewrites_renames_moves_and_deletes(tmp_path, tiny):
    docs = tmp_path / "docs"
    outside = tmp_path / "outside"
    docs.mkdir()
    outside.mkdir()
    (docs / "a.txt").write_text("Glaciers carve deep valleys.")
    index = tmp_path / "idx"
    watch = Watch(index, docs, tiny, tmp_path / "watch.log")
    try:
        assert stored_sources(index) == files_on_disk(docs)
        # One writer at a time: the watch holds the index.
        second = run_sieve("index", "add", "--index", str(index), str(docs), check=False)
        assert second.returncode != 0 and b"another process is writing" in second.stderr

        def in_step(what: str) -> None:
            wait_for(lambda: stored_sources(index) == files_on_disk(docs), what)

        (docs / "b.txt").write_text("Zebras graze on the savanna.")
        in_step("a new file")
        assert bm25_sources(index, "zebras") == {str((docs / "b.txt").resolve())}

        # An editor's atomic save: a hidden temporary file renamed over the original.
        (docs / ".a.txt.swp").write_text("Quokkas smile on the island.")
        os.replace(docs / ".a.txt.swp", docs / "a.txt")
        wait_for(lambda: bm25_sources(index, "quokkas") == {str((docs / "a.txt").resolve())}, "an atomic save")
        # A rewrite in place.
        (docs / "b.txt").write_text("Wombats dig burrows.")
        wait_for(lambda: bm25_sources(index, "wombats") == {str((docs / "b.txt").resolve())}, "a rewrite")
        assert bm25_sources(index, "zebras") == set()
        # A save through a temporary file that is not hidden: it is never stored.
        (docs / "a.txt.tmp").write_text("Kiwis nest in burrows.")
        os.replace(docs / "a.txt.tmp", docs / "a.txt")
        wait_for(lambda: bm25_sources(index, "kiwis") == {str((docs / "a.txt").resolve())}, "a save through a temporary file")

        os.rename(docs / "b.txt", docs / "c.txt")
        in_step("a rename")

        # A folder (with a folder in it) moved in; then a file made in its inner folder.
        (outside / "sub" / "deeper").mkdir(parents=True)
        (outside / "sub" / "d.txt").write_text("Lagoons behind reefs.")
        (outside / "sub" / "deeper" / "e.txt").write_text("Marshes beside deltas.")
        os.rename(outside / "sub", docs / "sub")
        in_step("a folder moved in")
        assert len(stored_sources(index)) == 4
        (docs / "sub" / "deeper" / "f.txt").write_text("Tundra under snow.")
        in_step("a file in a folder moved in")
        # A new folder, filled at once.
        (docs / "new").mkdir()
        (docs / "new" / "g.txt").write_text("Canyons at dusk.")
        in_step("a new folder")

        os.rename(docs / "sub", outside / "gone")
        in_step("a folder moved out")
        (docs / "c.txt").unlink()
        (docs / ".hidden.txt").write_text("never read")
        in_step("a deleted file")
        assert stored_sources(index) == {str((docs / "a.txt").resolve()), str((docs / "new" / "g.txt").resolve())}
    finally:
        status = watch.stop()
    output = watch.output()
    assert status == 0, output
    assert "changes: " in output and "stopped watching" in output and "error" not in output
    check = json.loads(run_sieve("index", "check", "--index", str(index), "--json").stdout)
    assert check["ok"], check
    # The chunks are those of an index built from the final files in one go.
    reference = tmp_path / "reference"
    run_sieve("index", "add", "--index", str(reference), "--model", str(tiny), "--quiet", str(docs))
    assert index_rows(index) == index_rows(reference)


def write_burst(docs: Path, rng: random.Random, count: int) -> None:
    for i in range(count):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 80)))
        target = docs / f"f{rng.randrange(40):02d}.txt"
        if rng.random() < 0.15 and target.exists():
            target.unlink()
        else:
            target.write_text(f"File {i}: {words}.\n")


def test_sigkill_during_a_burst_then_restart_completes_the_index(tmp_path, tiny):
    docs = tmp_path / "docs"
    docs.mkdir()
    rng = random.Random(2027)
    write_burst(docs, rng, 20)
    index = tmp_path / "idx"
    log = tmp_path / "watch.log"
    rounds = 4 if tier.FULL else 1
    for _ in range(rounds):
        watch = Watch(index, docs, tiny, log, "--batch-chunks", "4")
        write_burst(docs, rng, 60)
        time.sleep(rng.uniform(0.1, 0.5))  # within the settle time, or during a batch
        assert watch.stop(signal.SIGKILL) == -signal.SIGKILL
        check = json.loads(run_sieve("index", "check", "--index", str(index), "--json", check=False).stdout)
        assert check["ok"], check
        # Changes made while no watch runs are read by the next start's rescan.
        write_burst(docs, rng, 10)
    watch = Watch(index, docs, tiny, log)
    # The rescan is done when the watch says it is watching.
    assert stored_sources(index) == files_on_disk(docs)
    assert watch.stop(signal.SIGINT) == 0, watch.output()
    reference = tmp_path / "reference"
    run_sieve("index", "add", "--index", str(reference), "--model", str(tiny), "--quiet", str(docs))
    assert index_rows(index) == index_rows(reference)
    check = json.loads(run_sieve("index", "check", "--index", str(index), "--json").stdout)
    assert check["ok"], check


def test_serve_watch_makes_a_new_file_searchable(tmp_path, tiny):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Glaciers carve deep valleys.")
    index = tmp_path / "idx"
    run_sieve("index", "add", "--index", str(index), "--model", str(tiny), "--quiet", str(docs))
    root = models_root(tmp_path, {"tiny": tiny})
    # --watch with several indexes must name one.
    refused = run_sieve("serve", "--models", str(root), "--index", f"a={index}", "--index", f"b={index}",
                        "--watch", str(docs), check=False)
    assert refused.returncode != 0 and b"--watch NAME=PATH" in refused.stderr
    server = Server(root, "--index", f"docs={index}", "--watch", f"docs={docs}")
    try:
        wait_for(lambda: "index docs: rescan" in server.output(), "the watch starting", 30)
        (docs / "b.txt").write_text("Wombats dig burrows.")
        expected = str((docs / "b.txt").resolve())

        def found() -> bool:
            status, _, body = server.post("/v1/search", {"query": "wombats", "mode": "bm25"})
            assert status == 200, body
            return [hit["source"] for hit in body["hits"]] == [expected]

        wait_for(found, "a new file, over HTTP")
    finally:
        status = server.stop()
    assert status == 0, server.output()


@pytest.mark.skipif(not tier.FULL, reason="full tier: hundreds of files changed at once")
def test_hundreds_of_changes_at_once(tmp_path, tiny):
    docs = tmp_path / "docs"
    outside = tmp_path / "outside"
    docs.mkdir()
    rng = random.Random(2028)
    index = tmp_path / "idx"
    watch = Watch(index, docs, tiny, tmp_path / "watch.log")
    try:
        for f in range(30):
            folder = outside / f"folder{f:02d}" / "inner"
            folder.mkdir(parents=True)
            for i in range(20):
                (folder / f"{i:02d}.txt").write_text(" ".join(rng.choice(WORDS) for _ in range(30)))
            os.rename(outside / f"folder{f:02d}", docs / f"folder{f:02d}")
        files = sorted(docs.rglob("*.txt"))
        for path in rng.sample(files, 100):
            path.write_text("rewritten " + " ".join(rng.choice(WORDS) for _ in range(30)))
        for path in rng.sample(files, 100):
            path.unlink()
        for f in range(0, 30, 5):
            os.rename(docs / f"folder{f:02d}", outside / f"moved{f:02d}")
        wait_for(lambda: stored_sources(index) == files_on_disk(docs), "hundreds of changes", 60)
    finally:
        assert watch.stop() == 0, watch.output()
    reference = tmp_path / "reference"
    run_sieve("index", "add", "--index", str(reference), "--model", str(tiny), "--quiet", str(docs))
    assert index_rows(index) == index_rows(reference)
