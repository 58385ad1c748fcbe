"""Replicas of `sieve serve` behind HAProxy and nginx (deploy/), on loopback,
under steady load: a rolling restart fails no request; a replica killed
with SIGKILL costs at most a few clear 5xx answers, nothing hangs, and the
replica rejoins when it comes back. Every answer is checked against the
vectors of one replica asked directly."""
from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path

import numpy as np
import pytest

from balancer_harness import BALANCERS, HAProxy, Load, Replica, embed_request, free_ports, replica_requests, \
    wait_for
from server_harness import models_root

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "all-MiniLM-L6-v2"
TEXTS = [
    "The cat sat on the mat.",
    "Replicas behind a load balancer share the requests between them.",
    "A rolling restart stops one server at a time and waits for it to come back.",
    "Least connections sends the next request to the least busy server.",
    "Graceful shutdown finishes the requests already accepted.",
    "Short.",
    "Health checks take a server out of rotation before it stops listening, so that no client sees it go.",
    "Embeddings turn text into vectors.",
]
CLIENTS = 4
REQUEST_TIMEOUT = 45

pytestmark = pytest.mark.skipif(not (shutil.which("haproxy") or Path("/usr/sbin/haproxy").exists()),
                                reason="HAProxy is not installed (scripts/bootstrap.sh installs it)")


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    return models_root(tmp_path_factory.mktemp("balancer"), {"minilm": MODEL})


@pytest.fixture(scope="module")
def references(models) -> np.ndarray:
    replica = Replica(models, free_ports(1)[0])
    try:
        return np.array(embed_request(replica.port, "minilm", TEXTS), dtype=np.float32)
    finally:
        assert replica.stop() == 0


def start(kind: str, models: Path, work: Path, n: int = 2):
    ports = free_ports(n)
    replicas = [Replica(models, p) for p in ports]
    balancer = BALANCERS[kind](work, ports)
    if isinstance(balancer, HAProxy):
        balancer.wait_all_up()
    return replicas, balancer


def stop_all(replicas, balancer) -> None:
    balancer.stop()
    for r in replicas:
        r.stop(signal.SIGKILL if r.process.poll() is None else signal.SIGTERM)


def summary(kind: str, what: str, outcomes, load: Load) -> str:
    line = (f"{kind} {what}: {sum(outcomes.values())} requests, " +
            ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())) +
            f"; longest {load.max_latency():.2f} s")
    print(line)
    return line


@pytest.mark.parametrize("kind", sorted(BALANCERS))
def test_rolling_restart_fails_no_request(kind, models, references, tmp_path):
    if kind == "nginx" and not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        pytest.skip("nginx is not installed")
    replicas, balancer = start(kind, models, tmp_path / kind)
    load = Load(balancer.port, "minilm", TEXTS, references, clients=CLIENTS, timeout=REQUEST_TIMEOUT)
    try:
        load.wait_ok(20)
        for i, old in enumerate(list(replicas)):
            # SIGTERM: /ready turns 503 for the drain grace, the balancer takes the
            # replica out, then it stops listening and finishes what it has.
            assert old.stop(signal.SIGTERM) == 0, old.output()
            assert "drained; exiting" in old.output()
            new = old.restart()
            replicas[i] = new
            if isinstance(balancer, HAProxy):
                balancer.wait_status(f"r{i + 1}", "UP")
            # The replica is back in rotation once it answers requests again.
            wait_for(lambda: replica_requests(new) >= 3, 30, "the restarted replica to get requests")
            load.wait_ok(10, since=time.monotonic())
        outcomes = load.stop()
    finally:
        load.stop()
        stop_all(replicas, balancer)
    line = summary(kind, "rolling restart", outcomes, load)
    assert set(outcomes) == {"ok"}, f"{line}; samples: {load.samples}"
    assert outcomes["ok"] >= 40


@pytest.mark.parametrize("kind", sorted(BALANCERS))
def test_sigkill_costs_only_clear_5xx_and_the_replica_rejoins(kind, models, references, tmp_path):
    if kind == "nginx" and not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        pytest.skip("nginx is not installed")
    replicas, balancer = start(kind, models, tmp_path / kind)
    load = Load(balancer.port, "minilm", TEXTS, references, clients=CLIENTS + 2, timeout=REQUEST_TIMEOUT)
    try:
        load.wait_ok(20)
        killed_at = time.monotonic()
        replicas[0].stop(signal.SIGKILL)
        # The survivor takes everything.
        load.wait_ok(30, since=killed_at + 0.5)
        if isinstance(balancer, HAProxy):
            balancer.wait_status("r1", "DOWN")
        replicas[0] = replicas[0].restart()
        if isinstance(balancer, HAProxy):
            balancer.wait_status("r1", "UP")
        wait_for(lambda: replica_requests(replicas[0]) >= 3, 30, "the restarted replica to get requests")
        outcomes = load.stop()
        # The kill was felt and covered: requests were sent again elsewhere.
        if isinstance(balancer, HAProxy):
            retried = sum(int(r["wretr"] or 0) + int(r["wredis"] or 0) for r in balancer.servers().values())
            assert retried > 0
        else:
            # nginx logs each failed attempt ("upstream prematurely closed
            # connection", "Connection refused") with the replica it went to.
            assert f'upstream: "http://127.0.0.1:{replicas[0].fixed_port}/v1/embeddings"' in \
                (balancer.work / "error.log").read_text()
    finally:
        load.stop()
        stop_all(replicas, balancer)
    line = summary(kind, "SIGKILL of one of two replicas", outcomes, load)
    # Every request got an HTTP answer: the right vectors, or a 5xx a client may retry.
    assert set(outcomes) <= {"ok", "status_502", "status_503", "status_504"}, f"{line}; samples: {load.samples}"
    assert load.max_latency() < REQUEST_TIMEOUT
    # The balancers retry a request whose replica died (HAProxy: empty-response
    # and conn-failure; nginx: error), so failures are at most a handful.
    assert outcomes["ok"] >= 50 and sum(outcomes.values()) - outcomes["ok"] <= CLIENTS + 2, line


def test_public_edge_config_refuses_what_sieve_would(tmp_path):
    """deploy/haproxy/public-edge.cfg is valid, and HAProxy itself refuses an
    oversized body (413) and a source over its connection cap, before Sieve."""
    import socket
    import subprocess
    port = free_ports(1)[0]
    config = tmp_path / "edge.cfg"
    config.write_text((ROOT / "deploy" / "haproxy" / "public-edge.cfg").read_text()
                      .replace("bind 127.0.0.1:8443", f"bind 127.0.0.1:{port}")
                      .replace("check maxconn 256", "maxconn 256"))
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    subprocess.run([haproxy, "-c", "-q", "-f", str(config)], check=True, timeout=30)
    process = subprocess.Popen([haproxy, "-db", "-f", str(config)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        def listening() -> bool:
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", port)) == 0
        wait_for(listening, 10, "HAProxy to listen")

        def answer(raw: bytes) -> bytes:
            # HAProxy may reset the connection right after its answer: asked again then.
            for _ in range(5):
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                        sock.sendall(raw)
                        data = sock.recv(4096)
                        if data:
                            return data
                except ConnectionResetError:
                    pass
                time.sleep(0.1)
            return b""
        big = answer(b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Length: 3000000\r\n\r\n")
        assert big.startswith(b"HTTP/1.1 413"), big
        # 60 connections from one address: those past the cap of 50 open at once are closed.
        held = []
        closed = []
        for i in range(60):
            try:
                held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except ConnectionResetError:  # refused while connecting
                closed.append(i)
                held.append(socket.socket())
        time.sleep(0.5)
        try:
            for i, s in enumerate(held):
                if i in closed:
                    continue
                s.settimeout(0.01)
                try:
                    if s.recv(10) == b"":
                        closed.append(i)
                except ConnectionResetError:
                    closed.append(i)
                except socket.timeout:
                    pass
        finally:
            for s in held:
                s.close()
        assert len(closed) >= 5 and min(closed) >= 40, closed
    finally:
        process.terminate()
        process.wait(timeout=10)
