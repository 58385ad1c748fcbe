"""A stand-in for the Hugging Face hub on 127.0.0.1, for the `sieve pull` tests.

It speaks the parts of the hub's protocol that clients use: the metadata
route (GET /api/models/{repo}/revision/{rev}?blobs=true), the tree listing
(huggingface_hub's snapshot_download reads it), and /resolve/ with HEAD, GET
and Range, where files kept in LFS are redirected (302) to a CDN path, as the
real hub sends them to its CDN. The CDN may be a second server on another
port, to check that credentials never follow the redirect. Repositories hold
commits of files given as bytes; a repository may be gated (a token is
needed). Faults are injected per file: a connection cut after N bytes on the
first request, corrupted bytes, a stall after the headers, a hold in the
middle until the test releases it, a 404. A hostile hub is one fault away:
a listing that lies about a file (or leaves out its size or checksums), a
stream longer than the file (with or without a Content-Length), an error
message in the JSON body only. Every request is logged, and the bytes each
file's bodies took are counted."""
from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, unquote, urlsplit

LFS_SUFFIXES = (".onnx", ".onnx_data", ".data", ".safetensors", ".bin", ".h5", ".msgpack", ".ot")


def is_lfs(path: str) -> bool:
    return path.endswith(LFS_SUFFIXES)


def git_blob_sha1(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass
class Repo:
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    token: str | None = None  # gated: this token is needed


@dataclass
class Faults:
    cut_after: dict[str, int] = field(default_factory=dict)   # path -> bytes sent on the first GET
    corrupt: set[str] = field(default_factory=set)            # path -> a byte flipped in every GET
    stall: set[str] = field(default_factory=set)              # path -> headers, then silence
    hold: dict[str, threading.Event] = field(default_factory=dict)  # path -> half, then wait for the event
    missing: set[str] = field(default_factory=set)            # path -> 404 on /resolve/
    halfway: dict[str, threading.Event] = field(default_factory=dict)  # set when a held file is half sent
    listing: dict[str, dict] = field(default_factory=dict)    # path -> fields of its metadata entry replaced (None: left out)
    oversize: dict[str, int] = field(default_factory=dict)    # path -> this many bytes more, after the file
    no_length: set[str] = field(default_factory=set)          # path -> sent without Content-Length, then closed
    error_body: dict[str, str] = field(default_factory=dict)  # path -> 404 on /resolve/, the message in the body only
    header_flood: dict[str, int] = field(default_factory=dict)  # path -> this many bytes of extra headers


@dataclass
class Request:
    server: str
    method: str
    path: str
    query: dict
    headers: dict[str, str]


class MockHub:
    """The hub; with cdn=True a second server on another port serves the LFS files."""

    def __init__(self, cdn: bool = False):
        self.repos: dict[str, Repo] = {}
        self.faults = Faults()
        self.requests: list[Request] = []
        self.served: dict[str, int] = {}  # path -> GET count
        self.sent: dict[str, int] = {}    # path -> body bytes written (until the client hung up)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._counter = 0
        self.hub = self._start("hub")
        self.cdn = self._start("cdn") if cdn else self.hub

    # ---- setup

    def add_commit(self, repo_id: str, files: dict[str, bytes], ref: str = "main", token: str | None = None) -> str:
        repo = self.repos.setdefault(repo_id, Repo())
        if token is not None:
            repo.token = token
        self._counter += 1
        digest = hashlib.sha1()
        digest.update(f"{repo_id}\0{self._counter}".encode())
        for path in sorted(files):
            digest.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
        commit = digest.hexdigest()
        repo.commits[commit] = dict(files)
        repo.refs[ref] = commit
        return commit

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.hub.server_port}"

    @property
    def cdn_url(self) -> str:
        return f"http://127.0.0.1:{self.cdn.server_port}"

    def count(self, server: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if server is None or r.server == server)

    def requests_for(self, path_suffix: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/" + path_suffix)]

    def close(self) -> None:
        self._stop.set()
        for event in self.faults.hold.values():
            event.set()
        for server in {self.hub, self.cdn}:
            server.shutdown()
            server.server_close()

    # ---- the servers

    def _start(self, role: str) -> ThreadingHTTPServer:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_HEAD(self):
                hub._handle(self, role, head=True)

            def do_GET(self):
                hub._handle(self, role, head=False)

        class QuietServer(ThreadingHTTPServer):
            # Clients that hang up mid-body are what the fault tests make happen.
            def handle_error(self, request, client_address):
                if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
                    super().handle_error(request, client_address)

        server = QuietServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def _reply(self, h, status: int, body: bytes = b"", headers: dict | None = None, head: bool = False) -> None:
        h.send_response(status)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if not head:
            h.wfile.write(body)

    def _error(self, h, status: int, code: str | None, message: str, head: bool) -> None:
        headers = {"Content-Type": "application/json", "X-Error-Message": message}
        if code:
            headers["X-Error-Code"] = code
        self._reply(h, status, json.dumps({"error": message}).encode(), headers, head)

    def _authorized(self, h, repo_id: str, repo: Repo, head: bool) -> bool:
        if repo.token is None:
            return True
        auth = h.headers.get("Authorization")
        if auth is None:
            self._error(h, 401, "GatedRepo", f"Access to model {repo_id} is restricted. You must have access to it "
                        "and be authenticated to access it. Please log in.", head)
            return False
        if auth != f"Bearer {repo.token}":
            self._error(h, 401, None, "Invalid credentials in Authorization header", head)
            return False
        return True

    def _resolve(self, h, repo_id: str, revision: str, head: bool):
        repo = self.repos.get(repo_id)
        if repo is None:
            self._error(h, 404, "RepoNotFound", "Repository not found", head)
            return None
        if not self._authorized(h, repo_id, repo, head):
            return None
        commit = repo.refs.get(revision, revision)
        if commit not in repo.commits:
            self._error(h, 404, "RevisionNotFound", f"Invalid rev id: {revision}", head)
            return None
        return repo, commit

    def _handle(self, h, role: str, head: bool) -> None:
        parts = urlsplit(h.path)
        path = unquote(parts.path)
        with self._lock:
            self.requests.append(Request(role, h.command, path, parse_qs(parts.query),
                                         {k.lower(): v for k, v in h.headers.items()}))
        if role == "cdn" or path.startswith("/cdn-lfs/"):
            m = re.fullmatch(r"/cdn-lfs/(.+?)/([0-9a-f]{40})/(.+)", path)
            if m is None or m[1] not in self.repos or m[2] not in self.repos[m[1]].commits:
                return self._error(h, 404, None, "no such object", head)
            return self._send_file(h, m[3], self.repos[m[1]].commits[m[2]][m[3]], {}, head)
        if m := re.fullmatch(r"/api/models/(.+)/revision/([^/]+)", path):
            if (found := self._resolve(h, m[1], m[2], head)) is None:
                return
            repo, commit = found
            siblings = []
            for name, content in sorted(repo.commits[commit].items()):
                sibling = {"rfilename": name, "size": len(content), "blobId": git_blob_sha1(content)}
                if is_lfs(name):
                    sibling["lfs"] = {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content),
                                      "pointerSize": 134}
                for key, value in self.faults.listing.get(name, {}).items():
                    if value is None:
                        sibling.pop(key, None)
                    else:
                        sibling[key] = value
                siblings.append(sibling)
            doc = {"_id": "0" * 24, "id": m[1], "modelId": m[1], "sha": commit, "private": False,
                   "gated": repo.token is not None and "auto", "disabled": False, "tags": [], "siblings": siblings}
            return self._reply(h, 200, json.dumps(doc).encode(), {"Content-Type": "application/json"}, head)
        if m := re.fullmatch(r"/api/models/(.+)/tree/([^/]+)(/.*)?", path):
            if (found := self._resolve(h, m[1], m[2], head)) is None:
                return
            repo, commit = found
            entries = []
            for name, content in sorted(repo.commits[commit].items()):
                entry = {"type": "file", "oid": git_blob_sha1(content), "size": len(content), "path": name}
                if is_lfs(name):
                    entry["lfs"] = {"oid": hashlib.sha256(content).hexdigest(), "size": len(content),
                                    "pointerSize": 134}
                entries.append(entry)
            return self._reply(h, 200, json.dumps(entries).encode(), {"Content-Type": "application/json"}, head)
        if m := re.fullmatch(r"/(.+?)/resolve/([^/]+)/(.+)", path):
            repo_id, revision, name = m[1], m[2], m[3]
            if (found := self._resolve(h, repo_id, revision, head)) is None:
                return
            repo, commit = found
            files = repo.commits[commit]
            if name not in files or name in self.faults.missing:
                return self._error(h, 404, "EntryNotFound", f"{name} does not exist on \"{revision}\"", head)
            if name in self.faults.error_body:
                body = json.dumps({"error": self.faults.error_body[name]}).encode()
                return self._reply(h, 404, body, {"Content-Type": "application/json"}, head)
            content = files[name]
            headers = {"X-Repo-Commit": commit}
            if is_lfs(name):
                sha256 = hashlib.sha256(content).hexdigest()
                headers.update({"X-Linked-Etag": f'"{sha256}"', "X-Linked-Size": str(len(content)), "ETag": f'"{sha256}"',
                                "Location": f"{self.cdn_url}/cdn-lfs/{repo_id}/{commit}/{quote(name)}"})
                return self._reply(h, 302, b"", headers, head)
            headers["ETag"] = f'"{git_blob_sha1(content)}"'
            return self._send_file(h, name, content, headers, head)
        self._error(h, 404, None, f"no route for {path}", head)

    def _send_file(self, h, name: str, content: bytes, headers: dict, head: bool) -> None:
        f = self.faults
        first = False
        if not head:
            with self._lock:
                first = self.served.get(name, 0) == 0
                self.served[name] = self.served.get(name, 0) + 1
        if name in f.corrupt:
            middle = len(content) // 2
            content = content[:middle] + bytes([content[middle] ^ 0xFF]) + content[middle + 1:]
        if name in f.oversize:
            content = content + b"\0" * f.oversize[name]
        size = len(content)
        start, status = 0, 200
        headers = dict(headers, **{"Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"})
        if (rng := h.headers.get("Range")) and (m := re.fullmatch(r"bytes=(\d+)-(\d*)", rng)):
            start = int(m[1])
            end = int(m[2]) + 1 if m[2] else size
            if start >= size:
                return self._reply(h, 416, b"", {"Content-Range": f"bytes */{size}"}, head)
            content, status = content[start:end], 206
            headers["Content-Range"] = f"bytes {start}-{start + len(content) - 1}/{size}"
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, v)
        for i in range(f.header_flood.get(name, 0) // 64):
            h.send_header(f"X-Flood-{i}", "f" * 48)
        if name in f.no_length:
            h.send_header("Connection", "close")  # the body ends when the connection does
            h.close_connection = True
        else:
            h.send_header("Content-Length", str(len(content)))
        h.end_headers()
        if head:
            return
        if name in f.stall:
            h.wfile.flush()
            self._stop.wait(120)
            h.close_connection = True
            return
        if first and name in f.cut_after:
            h.wfile.write(content[:f.cut_after[name]])
            h.wfile.flush()
            h.close_connection = True
            return
        if name in f.hold:
            half = len(content) // 2
            h.wfile.write(content[:half])
            h.wfile.flush()
            f.halfway.setdefault(name, threading.Event()).set()
            f.hold[name].wait(120)
            content = content[half:]
        self._write_counted(h, name, content)

    def _write_counted(self, h, name: str, content: bytes) -> None:
        """Writes the body in pieces, counting what went out until the client hung up."""
        piece = 64 * 1024
        try:
            for start in range(0, len(content), piece):
                h.wfile.write(content[start:start + piece])
                with self._lock:
                    self.sent[name] = self.sent.get(name, 0) + len(content[start:start + piece])
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True


def wait_for(predicate, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False
