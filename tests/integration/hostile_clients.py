"""Hostile HTTP clients for `sieve serve`, over raw loopback sockets: floods
without a key (chunked, without a length, of header lines), Range bombs,
slow clients (slowloris), conflicting framing, pipelining and memory bursts.

Each attack returns what it saw (status, bytes, seconds) and the server's
resident memory around it, so the same code serves the tests
(tests/integration/test_hostile_clients.py, small sizes) and the
measurements (bench/hostile/run.py, the red team's sizes)."""
from __future__ import annotations

import json
import random
import select
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path


def rss_mib(pid: int) -> float:
    """Resident memory of a process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class PeakRss:
    """The largest resident memory of `pid` while the block runs (sampled every 10 ms)."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._stop = pid, 0.0, threading.Event()

    def __enter__(self):
        self.before = rss_mib(self.pid)
        self.peak = self.before
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, rss_mib(self.pid))
            except OSError:
                return
            time.sleep(0.01)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.after = rss_mib(self.pid)


@dataclass
class Outcome:
    status: int | None = None  # the HTTP status answered, None when none came
    sent: int = 0              # bytes the attacker got onto the connection
    received: int = 0          # bytes of the answer
    seconds: float = 0.0
    closed: bool = False       # the server closed the connection
    body: bytes = b""
    extra: dict = field(default_factory=dict)


def _status(data: bytes) -> int | None:
    if data.startswith(b"HTTP/1."):
        try:
            return int(data.split(b" ", 2)[1])
        except (IndexError, ValueError):
            return None
    return None


def _read_response(sock: socket.socket, timeout: float, keep: int = 1 << 20) -> tuple[bytes, bool, int]:
    """What the server sends until it closes, goes quiet for `timeout`, or
    has sent the whole answer: its first `keep` bytes, whether it closed,
    and how many bytes came in all."""
    sock.settimeout(timeout)
    data = b""
    total = 0
    length = None
    head_size = None
    closed = False
    try:
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                closed = True
                break
            total += len(chunk)
            if len(data) < keep:
                data += chunk[:keep - len(data)]
            if head_size is None and b"\r\n\r\n" in data:
                head = data.partition(b"\r\n\r\n")[0]
                head_size = len(head) + 4
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), None)
            if length is not None and head_size is not None and total - head_size >= length:
                break
    except (socket.timeout, ConnectionResetError):
        closed = True
    return data, closed, total


def flood(port: int, head: bytes, chunks, limit_seconds: float = 60) -> Outcome:
    """Sends `head`, then the byte strings of `chunks` until the server
    answers or closes; then reads its answer."""
    out = Outcome()
    start = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", port))
    try:
        sock.sendall(head)
        out.sent = len(head)
        for chunk in chunks:
            if time.monotonic() - start > limit_seconds:
                break
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            try:
                sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                out.closed = True
                break
            out.sent += len(chunk)
        data, closed, total = _read_response(sock, 5)
        out.closed = out.closed or closed
        out.status = _status(data)
        out.received = total
        out.body = data
    except (BrokenPipeError, ConnectionResetError):
        out.closed = True
    finally:
        sock.close()
    out.seconds = time.monotonic() - start
    return out


def chunked_flood(port: int, path: str, total: int, key: str | None = None) -> Outcome:
    """A chunked POST of `total` bytes of JSON-looking text."""
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{auth}"
            "Transfer-Encoding: chunked\r\n\r\n").encode()
    piece = b"[" + b"\"aaaaaaaa\"," * 6000
    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    return flood(port, head, (chunk for _ in range(total // len(piece) + 1)))


def lengthless_flood(port: int, path: str, total: int, key: str | None = None) -> Outcome:
    """A POST without Content-Length or Transfer-Encoding, then `total` bytes."""
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{auth}\r\n".encode()
    piece = b"\"aaaaaaaa\"," * 6000
    return flood(port, head, (piece for _ in range(total // len(piece) + 1)))


def header_flood(port: int, path: str, total: int) -> Outcome:
    """A GET whose head goes on with header lines for `total` bytes."""
    head = f"GET {path} HTTP/1.1\r\nHost: x\r\n".encode()
    lines = b"".join(b"X-Pad-%06d: %s\r\n" % (i, b"a" * 80) for i in range(700))
    return flood(port, head, (lines for _ in range(total // len(lines) + 1)))


def request(port: int, raw: bytes, timeout: float = 60) -> Outcome:
    """One raw request; the whole answer."""
    out = Outcome()
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(raw)
        out.sent = len(raw)
        data, out.closed, out.received = _read_response(sock, timeout)
    out.seconds = time.monotonic() - start
    out.status = _status(data)
    out.body = data.partition(b"\r\n\r\n")[2]
    return out


def range_bomb(port: int, method: str, path: str, ranges: int, body: bytes = b"",
               key: str | None = None) -> Outcome:
    """A request asking for `ranges` overlapping ranges of the whole answer."""
    spec = ",".join(["0-"] * ranges)
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    raw = (f"{method} {path} HTTP/1.1\r\nHost: x\r\nRange: bytes={spec}\r\n{auth}"
           f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
    return request(port, raw)


def health_latency(port: int, timeout: float = 5) -> float | None:
    """Seconds a fresh connection takes to get GET /health answered; None when it fails."""
    start = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data, _, _ = _read_response(sock, timeout)
        return time.monotonic() - start if _status(data) == 200 else None
    except OSError:
        return None


class Slowloris:
    """`count` connections, each sending a request head one line every
    `interval` seconds and never finishing it; a connection the server
    closes is opened again (as an attacker would)."""

    def __init__(self, port: int, count: int, interval: float, source: str = "127.0.0.1"):
        self.port, self.count, self.interval, self.source = port, count, interval, source
        self.opened = 0
        self.closed_by_server = 0
        self._stop = threading.Event()
        self._sockets: list[socket.socket | None] = []

    def _open(self) -> socket.socket | None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=2,
                                            source_address=(self.source, 0))
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            self.opened += 1
            return sock
        except OSError:
            return None

    def __enter__(self):
        self._sockets = [self._open() for _ in range(self.count)]
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.wait(self.interval):
            for i, sock in enumerate(self._sockets):
                try:
                    if sock is None:
                        raise OSError
                    sock.sendall(b"X-Slow-%d: %d\r\n" % (i, random.randrange(1 << 30)))
                except OSError:
                    if sock is not None:
                        self.closed_by_server += 1
                        sock.close()
                    self._sockets[i] = self._open()

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        for sock in self._sockets:
            if sock is not None:
                sock.close()


def pipelined(port: int, requests: list[bytes], timeout: float = 30) -> list[int | None]:
    """Sends every request in one write; the statuses of the answers, in the order they came."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"".join(requests))
        sock.settimeout(timeout)
        data = b""
        statuses: list[int | None] = []
        while len(statuses) < len(requests):
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    return statuses
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(rest) < length:
                chunk = sock.recv(65536)
                if not chunk:
                    return statuses + [_status(head)]
                rest += chunk
            statuses.append(_status(head))
            data = rest[length:]
        return statuses


def tokenize_body(inputs: int, bytes_each: int, seed: int = 0) -> bytes:
    """A /tokenize body of `inputs` texts of about `bytes_each` bytes of words."""
    rng = random.Random(seed)
    words = ["search", "engine", "quantization", "embedding", "vector", "the", "of", "model", "token",
             "rerank", "index", "document", "server", "memory", "latency", "throughput"]

    def text() -> str:
        out = []
        size = 0
        while size < bytes_each:
            w = rng.choice(words)
            out.append(w)
            size += len(w) + 1
        return " ".join(out)

    return json.dumps({"inputs": [text() for _ in range(inputs)]}).encode()
