"""Replicas of `sieve serve` behind a real load balancer (HAProxy or nginx,
from Debian's packages), all on loopback, for tests/integration/test_balancer.py
and bench/scaleout/balancer_bench.py.

The balancers run the configurations users are given, deploy/haproxy/haproxy.cfg
and deploy/nginx/sieve.conf, with only the listening port and the replicas'
lines replaced. Every daemon is started here and stopped by its process id."""
from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

from server_harness import Server

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CONFIG = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
NGINX_CONFIG = ROOT / "deploy" / "nginx" / "sieve.conf"
REPLICAS_MARKER = "# replicas ("


def free_ports(n: int) -> list[int]:
    """n loopback ports free now (bound together, so they differ)."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def wait_for(condition, timeout: float, what: str, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def replace_replicas(config: str, lines: list[str]) -> str:
    """The configuration with the server lines after the replicas marker
    replaced by `lines` (indented as the marker is)."""
    out, skipping = [], False
    for line in config.splitlines():
        if REPLICAS_MARKER in line:
            indent = line[:len(line) - len(line.lstrip())]
            out.append(line)
            out.extend(indent + item for item in lines)
            skipping = True
            continue
        if skipping and line.strip().startswith("server "):
            continue
        skipping = False
        out.append(line)
    if not skipping and not any(REPLICAS_MARKER in line for line in out):
        raise AssertionError("the configuration has no replicas marker")
    return "\n".join(out) + "\n"


class Replica(Server):
    """`sieve serve` on a fixed port, so that it can be restarted where the
    balancer expects it, with a drain grace longer than the health check's
    fall time."""

    def __init__(self, models: Path, port: int, *args: str, threads: int = 1, drain_grace: float = 1.5):
        self.models, self.fixed_port, self.args = models, port, args
        self.threads, self.drain_grace = threads, drain_grace
        super().__init__(models, "--threads", str(threads), "--drain-grace", str(drain_grace), *args,
                         port=port, log=models.parent / f"replica-{port}-{time.monotonic_ns()}.log")

    def restart(self) -> "Replica":
        return Replica(self.models, self.fixed_port, *self.args, threads=self.threads,
                       drain_grace=self.drain_grace)


class Balancer:
    port: int
    process: subprocess.Popen

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def _wait_listening(self) -> None:
        def listening():
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode}:\n{self.output()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                return False
        wait_for(listening, 30, f"{self.name} to listen")

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")


class HAProxy(Balancer):
    name = "haproxy"

    def __init__(self, work: Path, replica_ports: list[int]):
        work.mkdir(parents=True, exist_ok=True)
        self.port = free_ports(1)[0]
        self.socket_path = work / "haproxy.sock"
        config = HAPROXY_CONFIG.read_text().replace("bind 127.0.0.1:8080", f"bind 127.0.0.1:{self.port}")
        config = replace_replicas(config, [f"server r{i + 1} 127.0.0.1:{p}" for i, p in enumerate(replica_ports)])
        # The runtime API, to see what the health checks concluded.
        config = config.replace("global\n", f"global\n    stats socket {self.socket_path} mode 600 level admin\n", 1)
        self.config_path = work / "haproxy.cfg"
        self.config_path.write_text(config)
        self.log_path = work / "haproxy.log"
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen([shutil.which("haproxy") or "/usr/sbin/haproxy", "-db", "-f",
                                         str(self.config_path)], stdout=self.log, stderr=subprocess.STDOUT)
        self._wait_listening()
        wait_for(lambda: os.path.exists(self.socket_path), 10, "haproxy's stats socket")

    def command(self, line: str) -> str:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(str(self.socket_path))
            s.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def servers(self) -> dict[str, dict[str, str]]:
        """`show stat` of the replicas' backend, by server name."""
        lines = self.command("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        out = {}
        for line in lines[1:]:
            row = dict(zip(header, line.split(",")))
            if row.get("pxname") == "sieve_replicas" and row.get("svname") not in ("FRONTEND", "BACKEND"):
                out[row["svname"]] = row
        return out

    def wait_status(self, server: str, status: str, timeout: float = 20) -> None:
        wait_for(lambda: self.servers()[server]["status"].startswith(status), timeout,
                 f"haproxy to see {server} {status}")

    def wait_all_up(self, timeout: float = 20) -> None:
        wait_for(lambda: all(r["status"].startswith("UP") for r in self.servers().values()), timeout,
                 "haproxy to see every replica up")


class Nginx(Balancer):
    name = "nginx"

    def __init__(self, work: Path, replica_ports: list[int]):
        work.mkdir(parents=True, exist_ok=True)
        self.work = work
        self.port = free_ports(1)[0]
        site = NGINX_CONFIG.read_text().replace("listen 127.0.0.1:8080", f"listen 127.0.0.1:{self.port}")
        site = replace_replicas(site, [f"server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;" for p in replica_ports])
        (work / "sieve.conf").write_text(site)
        # The main context a distribution's nginx.conf would give.
        user = "user root;\n" if os.geteuid() == 0 else ""
        (work / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {work}/nginx.pid;\nerror_log {work}/error.log;\n"
            "events { worker_connections 1024; }\n"
            f"http {{\n  access_log off;\n  client_body_temp_path {work}/body;\n  proxy_temp_path {work}/proxy;\n"
            f"  include {work}/sieve.conf;\n}}\n")
        self.log_path = work / "nginx.log"
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [shutil.which("nginx") or "/usr/sbin/nginx", "-p", str(work), "-e", str(work / "error.log"), "-c",
             str(work / "nginx.conf")], stdout=self.log, stderr=subprocess.STDOUT)
        self._wait_listening()

    def stop(self) -> None:
        # SIGQUIT: nginx's graceful stop (SIGTERM is its fast one).
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
        super().stop()


BALANCERS = {"haproxy": HAProxy, "nginx": Nginx}


def embed_request(port: int, model: str, texts: list[str], timeout: float = 60) -> list[list[float]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/v1/embeddings", body=json.dumps({"model": model, "input": texts}),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise AssertionError(f"{response.status}: {body[:300]!r}")
        return [d["embedding"] for d in json.loads(body)["data"]]
    finally:
        conn.close()


class Load:
    """Steady closed-loop load: `clients` threads, each with one keep-alive
    connection to the balancer, sending embedding requests of 1 to 3
    sentences and checking every answer against the reference vectors.

    Each outcome is recorded: "ok", "wrong" (an answer that is not the right
    vectors), "status_NNN", or the client-side error's class (a connection
    reset, a timeout). A client-side error means the balancer itself failed
    the request without an HTTP answer."""

    def __init__(self, port: int, model: str, texts: list[str], references, clients: int = 4,
                 timeout: float = 45, tolerance: float = 2e-5):
        self.port, self.model, self.texts, self.references = port, model, texts, references
        self.timeout, self.tolerance = timeout, tolerance
        self.outcomes: list[tuple[float, str, float]] = []  # (start time, outcome, latency)
        self.samples: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._client, args=(i,), daemon=True) for i in range(clients)]
        for t in self._threads:
            t.start()

    def _client(self, seed: int) -> None:
        import numpy as np

        conn = None
        i = seed
        while not self._stop.is_set():
            picks = [(i + j * 7) % len(self.texts) for j in range(1 + i % 3)]
            i += 1
            body = json.dumps({"model": self.model, "input": [self.texts[p] for p in picks]})
            start = time.monotonic()
            outcome, sample = "ok", ""
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
                conn.request("POST", "/v1/embeddings", body=body, headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                raw = response.read()
                if response.status != 200:
                    outcome, sample = f"status_{response.status}", raw[:300].decode(errors="replace")
                else:
                    got = np.array([d["embedding"] for d in json.loads(raw)["data"]], dtype=np.float32)
                    if got.shape != (len(picks), self.references.shape[1]) or \
                            not np.allclose(got, self.references[picks], atol=self.tolerance, rtol=0):
                        outcome, sample = "wrong", f"vectors for {picks} differ"
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as e:
                outcome, sample = type(e).__name__, repr(e)
                if conn is not None:
                    conn.close()
                conn = None
            latency = time.monotonic() - start
            with self._lock:
                self.outcomes.append((start, outcome, latency))
                if outcome != "ok":
                    self.samples.setdefault(outcome, sample)
        if conn is not None:
            conn.close()

    def count(self, outcome: str = "ok", since: float = 0.0) -> int:
        with self._lock:
            return sum(1 for start, o, _ in self.outcomes if o == outcome and start >= since)

    def wait_ok(self, n: int, since: float = 0.0, timeout: float = 60) -> None:
        wait_for(lambda: self.count("ok", since) >= n, timeout, f"{n} answered requests")

    def stop(self) -> Counter:
        self._stop.set()
        for t in self._threads:
            t.join(self.timeout + 10)
            if t.is_alive():
                raise AssertionError("a load client hung past the request timeout")
        return Counter(o for _, o, _ in self.outcomes)

    def max_latency(self) -> float:
        return max(latency for _, _, latency in self.outcomes)


def replica_requests(replica: Server) -> int:
    """Embedding requests a replica answered, from its /metrics."""
    _, _, text = replica.get("/metrics")
    return sum(int(float(m.group(1))) for m in
               re.finditer(r'^sieve_requests_total\{route="/v1/embeddings",status="200"\} (\S+)$', text, re.M))
