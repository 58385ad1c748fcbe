"""A folder laid out as the examples in --help and in the docs assume, for
the tests that run them (test_cli_help.py, test_docs.py):

    models/all-MiniLM-L6-v2         the set-up's embedding model
    models/ms-marco-MiniLM-L-6-v2   a cross-encoder (the test fixture)
    models/distilbert-sst2          a classifier (the three-label fixture)
    models/splade-tiny              a sparse (SPLADE) model
    models/colbert-tiny             a ColBERT model (random weights)
    notes/                          two small documents to index
    texts.txt                       sentences, one per line (tests/data/sentences.txt)
    build/fixtures, build/stage,    the test fixtures, the installed library, the
    build/wheelhouse                Python package's wheel
    .venv-export                    and the export tools' environment, as in a
                                    checkout after the set-up

with `sieve`, `sieve-export` (and the tests' Python as python3, importing the `sieve` package
as if installed) on PATH, HOME a scratch folder, and a stand-in hub (mock_hub.py)
serving sentence-transformers/all-MiniLM-L6-v2 (a tiny fixture model with an
INT8 variant) for the `sieve pull` examples. Commands run in bash from the
folder, sharing one shell's state (doc_examples.Shell); a `sieve serve`
command is started, waited for (GET /health) and stopped; port 8080 in a
command becomes a free port."""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from conftest import BUILD, MODEL, ROOT, sieve_bin
from server_harness import models_root
from doc_examples import Shell
from mock_hub import MockHub

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
CROSS_ENCODER = FIXTURES / "cross-encoder-minilm-l6"
CLASSIFIER = FIXTURES / "cross-encoder-tiny-3labels"
TINY = FIXTURES / "tiny-bert-tokens"
FOLDERS = {"all-MiniLM-L6-v2": MODEL, "ms-marco-MiniLM-L-6-v2": CROSS_ENCODER, "distilbert-sst2": CLASSIFIER,
           "splade-tiny": FIXTURES / "splade-tiny", "colbert-tiny": FIXTURES / "colbert-tiny"}
EXPORT_VENV = ROOT / ".venv-export"


def available() -> bool:
    return all((folder / "model.onnx").is_file() for folder in FOLDERS.values()) and (TINY / "model.onnx").is_file()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# `[exec] [NAME=value ...] sieve serve ...`
SERVER = re.compile(r"^(exec )?(?P<assignments>(\w+=\S* )*)sieve serve\b")


def is_server(command: str) -> bool:
    return SERVER.match(command) is not None


class Workspace:
    def __init__(self, tmp: Path):
        self.root = tmp
        self.cwd = tmp / "work"
        models_root(self.cwd, FOLDERS)
        notes = self.cwd / "notes"
        notes.mkdir()
        (notes / "quantize.md").write_text("# Quantization\n\nQuantize a model to INT8 with sieve-export quantize.\n")
        (notes / "cats.txt").write_text("Cats sleep most of the day.\n")
        shutil.copy(ROOT / "tests" / "data" / "sentences.txt", self.cwd / "texts.txt")
        bindir = tmp / "bin"
        bindir.mkdir()
        (bindir / "sieve").symlink_to(sieve_bin())
        if (EXPORT_VENV / "bin" / "sieve-export").exists():
            (bindir / "sieve-export").symlink_to(EXPORT_VENV / "bin" / "sieve-export")
            (self.cwd / ".venv-export").symlink_to(EXPORT_VENV)
        home = tmp / "home"
        home.mkdir()
        build = self.cwd / "build"
        build.mkdir()
        (build / "fixtures").symlink_to(FIXTURES.resolve())
        (build / "stage").symlink_to((BUILD / "stage").resolve())
        (build / "wheelhouse").symlink_to(Path(os.environ.get("SIEVE_WHEELHOUSE", BUILD / "wheelhouse")).resolve())
        package = tmp / "python" / "sieve"
        package.mkdir(parents=True)
        for source in (ROOT / "bindings" / "python" / "sieve").glob("*.py"):
            (package / source.name).symlink_to(source)
        for module in sorted((BUILD / "bindings" / "python").glob("_sieve*.so"))[-1:]:
            (package / module.name).symlink_to(module)
        self.hub = MockHub()
        files = {("onnx/model.onnx" if p.name == "model.onnx" else p.relative_to(TINY).as_posix()): p.read_bytes()
                 for p in sorted(TINY.rglob("*")) if p.is_file() and p.name != "reference.json"}
        files["onnx/model_qint8_avx512.onnx"] = files["onnx/model.onnx"]
        self.hub.add_commit("sentence-transformers/all-MiniLM-L6-v2", files)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING", "SIEVE_MODELS"))}
        # This Python (with the openai client and numpy) as python3, as a user's own would be.
        self.env.update(PATH=f"{bindir}:{Path(sys.executable).parent}:{self.env['PATH']}", HOME=str(home), HF_ENDPOINT=self.hub.url,
                        SIEVE_PULL_TIMEOUT="5", PYTHONPATH=str(package.parent))
        self.shell = Shell(self.cwd, self.env, tmp / "shell")
        self.servers: dict[int, subprocess.Popen] = {}  # by port
        self.logs: list[Path] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def run(self, command: str, timeout: int = 300) -> subprocess.CompletedProcess:
        """Runs `command` in bash; a failure or an error message raises. No
        pipefail: in `curl ... | head -c 60` curl fails by design when head
        has read enough; a failing `sieve` earlier in a pipeline still shows
        in its error message on standard error and in the output checked."""
        result = self.shell.run(command, timeout)
        assert result.returncode == 0, f"{command!r} failed ({result.returncode}):\n{result.stderr}"
        assert "error" not in result.stderr.lower(), f"{command!r}:\n{result.stderr}"
        return result

    def start_server(self, command: str, port: int) -> str:
        """Starts `sieve serve ... --port PORT`, waits until it answers and
        returns what it has logged. A server already on PORT is stopped first,
        as a user stops one before starting another there."""
        if port in self.servers:
            self.stop_servers([port])
        command = command.replace("--host 0.0.0.0", "--host 127.0.0.1")
        log = self.root / f"server-{len(self.logs)}.log"
        self.logs.append(log)
        with log.open("w") as stderr:
            # exec after the variable assignments (`KEY=value exec sieve serve ...`)
            # so that stopping bash stops the server.
            command = SERVER.sub(r"\g<assignments>exec sieve serve", command, count=1)
            process = subprocess.Popen(["bash", "-c", self.shell.script(command, save=False)],
                                       env=self.env, cwd=self.cwd, stdout=subprocess.DEVNULL, stderr=stderr)
        self.servers[port] = process
        deadline = time.time() + 60
        while True:
            assert process.poll() is None, f"{command!r} exited: {log.read_text()}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
                    if response.status == 200:
                        return log.read_text()
            except OSError:
                pass
            assert time.time() < deadline, f"{command!r} did not answer /health"
            time.sleep(0.2)

    def stop_servers(self, ports: list[int] | None = None) -> None:
        stopping = [self.servers.pop(port) for port in (list(self.servers) if ports is None else ports)]
        for process in stopping:
            process.send_signal(signal.SIGTERM)
        for process in stopping:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self) -> None:
        self.stop_servers()
        self.hub.close()


class Checkout(Workspace):
    """The README's tour runs here: a copy of the repository as the set-up leaves it, nothing prepared. Its
    top-level files and folders are links to this checkout's (build/, .venv/, docs/ ...), except models/,
    which holds only the set-up's models/all-MiniLM-L6-v2, so that what the tour writes (a pulled model, an
    index, vectors.npy) lands in the copy. Nothing is on PATH but the system's (the tour adds build/ and
    activates .venv itself); HOME is a scratch folder and the hub is the stand-in, serving
    cross-encoder/ms-marco-MiniLM-L-6-v2 (the cross-encoder fixture)."""

    def __init__(self, tmp: Path):  # pylint: disable=super-init-not-called
        self.root = tmp
        self.cwd = tmp / "work"
        self.cwd.mkdir()
        for entry in ROOT.iterdir():
            if entry.name not in (".git", "models"):
                (self.cwd / entry.name).symlink_to(entry)
        (self.cwd / "models").mkdir()
        (self.cwd / "models" / "all-MiniLM-L6-v2").symlink_to(MODEL.resolve())
        home = tmp / "home"
        home.mkdir()
        self.hub = MockHub()
        self.hub.add_commit("cross-encoder/ms-marco-MiniLM-L-6-v2", {
            ("onnx/model.onnx" if p.name == "model.onnx" else p.relative_to(CROSS_ENCODER).as_posix()): p.read_bytes()
            for p in sorted(CROSS_ENCODER.rglob("*")) if p.is_file() and p.name != "reference.json"})
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("HF_", "HUGGING", "SIEVE_MODELS", "VIRTUAL_ENV", "PYTHON"))}
        system_path = [d for d in self.env["PATH"].split(":") if d and not d.startswith(str(ROOT))
                       and "venv" not in d]
        self.env.update(PATH=":".join(system_path), HOME=str(home), HF_ENDPOINT=self.hub.url, SIEVE_PULL_TIMEOUT="5")
        self.shell = Shell(self.cwd, self.env, tmp / "shell")
        self.servers = {}
        self.logs = []


def for_page(page: Path, tmp: Path) -> Workspace:
    """The README's tour runs in a copy of the checkout; the other pages in the workspace laid out above."""
    return Checkout(tmp) if page.name == "README.md" else Workspace(tmp)
