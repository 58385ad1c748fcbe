"""Starts `sieve serve` on a free loopback port for the server tests and
talks to it over plain HTTP (http.client), so the tests see status codes,
headers and bodies exactly as the server sends them."""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from conftest import sieve_bin

LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")


def models_root(tmp: Path, folders: dict[str, Path]) -> Path:
    """A models root whose model folders hold links to the files of `folders`
    (the registry refuses folders that link outside the root, not files)."""
    root = tmp / "models"
    for name, source in folders.items():
        target = root / name
        target.mkdir(parents=True)
        for f in source.iterdir():
            (target / f.name).symlink_to(f.resolve())
    return root


class Server:
    def __init__(self, root: Path, *args: str, env: dict[str, str] | None = None, log: Path | None = None,
                 port: int = 0):
        self.log_path = log or root.parent / f"server-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(sieve_bin()), "serve", "--models", str(root), "--port", str(port), *args],
            stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
        deadline = time.monotonic() + 120
        self.port = None
        while time.monotonic() < deadline:
            m = LISTENING.search(self.log_path.read_text(errors="replace"))
            if m:
                self.port = int(m.group(1))
                break
            if self.process.poll() is not None:
                raise AssertionError(f"sieve serve exited with {self.process.returncode}:\n{self.output()}")
            time.sleep(0.05)
        if self.port is None:
            self.process.kill()
            raise AssertionError(f"sieve serve did not start:\n{self.output()}")
        self.url = f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(errors="replace")

    def request(self, method: str, path: str, body=None, headers: dict[str, str] | None = None,
                timeout: float = 120):
        """(status, headers, parsed JSON or text). `body`: bytes as they are, anything else as JSON."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
            conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
            response = conn.getresponse()
            raw = response.read()
            content_type = response.getheader("Content-Type", "")
            parsed = json.loads(raw) if content_type.startswith("application/json") else raw.decode()
            return response.status, dict(response.getheaders()), parsed
        finally:
            conn.close()

    def post(self, path: str, body, **kwargs):
        return self.request("POST", path, body, **kwargs)

    def get(self, path: str, **kwargs):
        return self.request("GET", path, **kwargs)

    def stop(self, sig=signal.SIGTERM, timeout: float = 60) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError(f"sieve serve did not stop on {sig}:\n{self.output()}")
        self.log.close()
        return self.process.returncode
