"""`sieve serve` against hostile clients on the loopback (hostile_clients.py):
floods without an API key, Range bombs, conflicting framing, pipelining,
slow clients while a well-behaved one measures /health, a drain during a
slowloris attack, and a burst of the largest /tokenize requests, after which
resident memory must come back. The fast tier runs each attack for seconds at
small sizes; the full tier at the red team's sizes (bench/hostile/run.py
measures those against a build before and after)."""
from __future__ import annotations

import json
import signal
import socket
import statistics
import threading
import time

import pytest

import hostile_clients as hc
from conftest import MODEL
from server_harness import Server, models_root
from tier import FULL

KEY = "hostile-test-key"
MB = 1 << 20
# Attack sizes: the fast tier's, or the red team's.
FLOOD_BYTES = (300 if FULL else 16) * MB
HEADER_FLOOD_BYTES = (100 if FULL else 4) * MB
SLOW_CLIENTS = 300 if FULL else 150
SLOW_SECONDS = 30 if FULL else 4
BURST = 12 if FULL else 4
MAX_CONNECTIONS = 100


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return models_root(tmp_path_factory.mktemp("hostile"), {"minilm": MODEL})


@pytest.fixture(scope="module")
def notes_index(tmp_path_factory):
    from conftest import run_sieve
    tmp = tmp_path_factory.mktemp("hostile-index")
    (tmp / "notes").mkdir()
    (tmp / "notes" / "a.md").write_text("# Quantization\n\nQuantized models run faster.\n")
    run_sieve("index", "add", "--index", str(tmp / "notes.idx"), "--model", str(MODEL), "-q", str(tmp / "notes"))
    return tmp / "notes.idx"


@pytest.fixture(scope="module")
def server(root, notes_index):
    s = Server(root, "--index", f"notes={notes_index}", "--max-connections", str(MAX_CONNECTIONS),
               "--header-timeout", "2", "--max-response-bytes", str(16_000_000), env={"SIEVE_API_KEYS": KEY})
    yield s
    assert s.stop() == 0, s.output()


def head(method: str, path: str, *lines: str) -> bytes:
    return (f"{method} {path} HTTP/1.1\r\nHost: x\r\n" + "".join(f"{line}\r\n" for line in lines) + "\r\n").encode()


def post(path: str, body: bytes, *lines: str, key: str | None = KEY) -> bytes:
    auth = (f"Authorization: Bearer {key}",) if key else ()
    return head("POST", path, "Content-Type: application/json", f"Content-Length: {len(body)}", *auth,
                *lines) + body


def test_floods_without_a_key_are_refused_before_their_bodies(server):
    pid = server.process.pid
    with hc.PeakRss(pid) as rss:
        chunked = hc.chunked_flood(server.port, "/v1/embeddings", FLOOD_BYTES)
        lengthless = hc.lengthless_flood(server.port, "/v1/embeddings", FLOOD_BYTES)
        headers = hc.header_flood(server.port, "/v1/embeddings", HEADER_FLOOD_BYTES)
    # Refused from the head: 401 with no key, 411 with no length, 431 past the head limit.
    assert (chunked.status, lengthless.status, headers.status) == (401, 411, 431), \
        (chunked, lengthless, headers)
    assert b"Bearer" in chunked.body and b"Content-Length" in lengthless.body
    # What the server read is bounded by its lingering read, not by the flood.
    for out in (chunked, lengthless, headers):
        assert out.sent < 12 * MB, out
    assert rss.peak - rss.before < 32, (rss.before, rss.peak)
    # A key does not lift the body limit, whatever the framing.
    over = hc.chunked_flood(server.port, "/v1/embeddings", 4 * MB, key=KEY)
    assert over.status == 413 and b"--max-body-bytes" in over.body, over
    assert hc.health_latency(server.port) is not None


def test_the_key_is_checked_before_the_body_is_sent(server):
    # A head that announces a body, and no body: the answer comes anyway.
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(head("POST", "/embed", "Content-Type: application/json", "Content-Length: 1000000"))
        assert sock.recv(4096).startswith(b"HTTP/1.1 401 ")
    # With the key, "Expect: 100-continue" is answered before the body is sent.
    body = json.dumps({"inputs": "hello"}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head("POST", "/embed", "Content-Type: application/json", f"Content-Length: {len(body)}",
                          f"Authorization: Bearer {KEY}", "Expect: 100-continue", "Connection: close"))
        assert sock.recv(4096).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    assert len(json.loads(answer.partition(b"\r\n\r\n")[2])[0]) == 384


def test_range_is_ignored(server):
    plain = hc.request(server.port, head("GET", "/ui/ui.js", "Connection: close"))
    bomb = hc.range_bomb(server.port, "GET", "/ui/ui.js", 2000)
    assert plain.status == bomb.status == 200
    assert bomb.body == plain.body and b"multipart" not in bomb.body[:200]
    body = hc.tokenize_body(64, 200)
    plain = hc.request(server.port, post("/tokenize", body, "Connection: close"))
    bomb = hc.range_bomb(server.port, "POST", "/tokenize", 500, body, key=KEY)
    assert plain.status == bomb.status == 200 and len(bomb.body) == len(plain.body)


@pytest.mark.parametrize("lines, status", [
    (("Content-Length: 10", "Content-Length: 20"), 400),
    (("Content-Length: 10", "Transfer-Encoding: chunked"), 400),
    (("Transfer-Encoding: gzip",), 400),
    (("Transfer-Encoding: chunked", "Transfer-Encoding: chunked"), 400),
    (("Content-Length: -1",), 400),
])
def test_conflicting_or_unknown_framing_is_refused(server, lines, status):
    out = hc.request(server.port, head("POST", "/embed", f"Authorization: Bearer {KEY}", *lines) + b"{}" * 10,
                     timeout=10)
    assert out.status == status, out


def test_pipelined_requests_are_answered_in_order(server):
    body = json.dumps({"inputs": ["one", "two"]}).encode()
    statuses = hc.pipelined(server.port, [
        head("GET", "/health"),
        post("/tokenize", body),
        head("GET", "/no-such-route"),
        post("/embed", json.dumps({"inputs": "x", "dimensions": 1e309}).encode().replace(b"Infinity", b"1e309")),
        head("GET", "/ready"),
    ])
    assert statuses == [200, 200, 404, 400, 200]


def test_numbers_out_of_range_and_deep_nesting_are_400(server):
    status, _, body = server.post("/embed", b'{"inputs": "a", "dimensions": 1e309}',
                                  headers={"Authorization": f"Bearer {KEY}"})
    assert status == 400 and "`dimensions`" in body["error"], body
    status, _, body = server.post("/v1/embeddings", b'{"input": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                                  headers={"Authorization": f"Bearer {KEY}"})
    assert status == 400 and "nested deeper" in body["error"]["message"], body


def test_slow_clients_do_not_stop_the_others(server):
    """Slowloris: more slow connections than the server keeps; a client that
    asks for /health every 0.1 s is answered every time, quickly."""
    latencies = []
    with hc.Slowloris(server.port, SLOW_CLIENTS, 1.0) as attack:
        end = time.monotonic() + SLOW_SECONDS
        while time.monotonic() < end:
            latencies.append(hc.health_latency(server.port, timeout=5))
            time.sleep(0.1)
    answered = [x for x in latencies if x is not None]
    assert len(answered) == len(latencies), latencies
    # The server sheds the slow ones (cap, head deadline), not the well-behaved client.
    assert attack.closed_by_server > 0
    assert statistics.median(answered) < 0.5 and max(answered) < 2.5, latencies
    status, _, metrics = server.get("/metrics", headers={"Authorization": f"Bearer {KEY}"})
    assert status == 200 and "sieve_http_connections_shed_total" in metrics


def test_memory_comes_back_after_a_burst_of_large_requests(server):
    """The red team's /tokenize burst: the largest requests the limits allow,
    one after another; resident memory returns to within 20% of where it was."""
    pid = server.process.pid
    body = hc.tokenize_body(2048, 350)
    warm = hc.request(server.port, post("/tokenize", body, "Connection: close"), timeout=120)
    assert warm.status == 200, warm
    time.sleep(0.5)
    start = hc.rss_mib(pid)
    peak = start
    for _ in range(BURST):
        out = hc.request(server.port, post("/tokenize", body, "Connection: close"), timeout=120)
        assert out.status == 200
        peak = max(peak, hc.rss_mib(pid))
    time.sleep(1)
    end = hc.rss_mib(pid)
    assert end <= start * 1.2, (start, peak, end)
    # An answer over --max-response-bytes is refused before it is written.
    big = hc.request(server.port, post("/tokenize", hc.tokenize_body(2048, 900), "Connection: close"), timeout=120)
    assert big.status == 413 and b"--max-response-bytes" in big.body, big


def test_a_drain_does_not_wait_for_slow_clients(root):
    """SIGTERM while 50 slow clients hold connections and two well-behaved
    ones keep a kept-alive connection busy: the slow ones are closed at once,
    the requests in flight are answered, and the server exits 0 at once."""
    server = Server(root, "--drain-timeout", "30")
    stop = threading.Event()
    answered: list[int] = []

    def busy_client():
        import http.client
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        while not stop.is_set():
            try:
                conn.request("POST", "/embed", body=json.dumps({"inputs": ["a few words"] * 4}),
                             headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                answered.append(response.status)
            except (OSError, http.client.HTTPException):
                return

    clients = [threading.Thread(target=busy_client) for _ in range(2)]
    with hc.Slowloris(server.port, 50, 1.0):
        for t in clients:
            t.start()
        time.sleep(1)
        start = time.monotonic()
        code = server.stop(signal.SIGTERM, timeout=60)
        took = time.monotonic() - start
        stop.set()
        for t in clients:
            t.join()
    assert code == 0 and took < 10, (code, took, server.output())
    assert answered and set(answered) == {200}, answered
