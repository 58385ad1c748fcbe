"""The command line's own help: `sieve --version` against Python onnxruntime,
every subcommand's --help with examples that run as shown, and the bash
completion script against the options --help lists."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import MODEL, ROOT, sieve_bin
from mock_hub import MockHub

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
CROSS_ENCODER = FIXTURES / "cross-encoder-minilm-l6"
CLASSIFIER = FIXTURES / "cross-encoder-tiny-3labels"
TINY = FIXTURES / "tiny-bert-tokens"


def sieve(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([str(sieve_bin()), *args], capture_output=True, text=True, timeout=120)
    if check:
        assert result.returncode == 0, f"sieve {' '.join(args)}: {result.stderr}"
    return result


def subcommands(help_text: str) -> list[str]:
    """The names under "Subcommands:" of a --help text."""
    section = help_text.split("Subcommands:", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in section.splitlines() if line.strip()]


def command_paths() -> list[list[str]]:
    paths, todo = [], [[]]
    while todo:
        path = todo.pop(0)
        paths.append(path)
        text = sieve(*path, "--help").stdout
        if "Subcommands:" in text:
            todo += [path + [name] for name in subcommands(text)]
    return paths


def options_in_help(help_text: str) -> set[str]:
    section = help_text.split("Options:", 1)[1].split("\nSubcommands:", 1)[0].split("\nExamples:", 1)[0]
    names = set()
    for line in section.splitlines():
        m = re.match(r"\s{2}(-[-\w,]+)", line)
        if m:
            names |= {n for n in m.group(1).split(",") if n}
    return names


def examples(help_text: str) -> list[str]:
    if "\nExamples:" not in help_text:
        return []
    block = help_text.split("\nExamples:", 1)[1]
    return [line.strip() for line in block.splitlines() if line.startswith("  ") and line.strip()]


def test_version_names_sieve_and_the_onnx_runtime_it_loaded():
    import onnxruntime

    out = sieve("--version").stdout.splitlines()
    project = re.search(r"project\(sieve VERSION ([\d.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
    assert out[0] == f"sieve {project}"
    m = re.fullmatch(r"ONNX Runtime (\S+) \(execution providers: (.+)\)", out[1])
    assert m, out
    assert m.group(1) == onnxruntime.__version__
    ours = m.group(2).split(", ")
    # The native library and the Python package come from the same release:
    # the same providers, in the same order (Sieve spells CPU as "cpu").
    python = [p.removesuffix("ExecutionProvider") for p in onnxruntime.get_available_providers()]
    assert [p.lower() for p in ours] == [p.lower() for p in python]
    assert "cpu" in ours


def test_every_command_has_help_with_examples():
    paths = command_paths()
    top = {p[0] for p in paths if len(p) == 1}
    assert {"embed", "rerank", "serve", "index", "search", "completion"} <= top
    for path in paths:
        text = sieve(*path, "--help").stdout
        assert "Usage:" in text and "Options:" in text, path
        if len(path) <= 1:  # sieve itself and each top-level command; `index add` shares `index`'s
            assert examples(text), f"sieve {' '.join(path)} --help shows no examples"
        for example in examples(text):
            assert re.search(r"(^|[|&;(<] *)sieve ", example), f"{path}: {example!r} does not run sieve"


def link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_server_example(command: str, env: dict, cwd: Path) -> None:
    port = free_port()
    command = command.replace("--port 8080", f"--port {port}").replace("--host 0.0.0.0", "--host 127.0.0.1")
    process = subprocess.Popen(["bash", "-c", "exec " + command], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while True:
            assert process.poll() is None, f"{command!r} exited: {process.stderr.read()}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
                    assert response.status == 200
                    break
            except OSError:
                assert time.time() < deadline, f"{command!r} did not answer /health"
                time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


@pytest.mark.skipif(not (CROSS_ENCODER / "model.onnx").exists() or not (CLASSIFIER / "model.onnx").exists(),
                    reason=f"fixture models missing in {FIXTURES}")
def test_every_example_runs_as_shown(tmp_path):
    """Each example of every --help, in a folder laid out as the examples
    assume: models/ with an embedder, a cross-encoder and a classifier (the
    test fixtures under the names the examples use), notes/ to index, and a
    hub serving the repository the pull examples name."""
    work = tmp_path / "work"
    models = work / "models"
    models.mkdir(parents=True)
    for name, folder in {"all-MiniLM-L6-v2": MODEL, "ms-marco-MiniLM-L-6-v2": CROSS_ENCODER,
                         "distilbert-sst2": CLASSIFIER}.items():
        # Copies (hard links where the file system allows): the server serves
        # no folder that a symbolic link leads out of its models root.
        shutil.copytree(folder, models / name, copy_function=link_or_copy)
    notes = work / "notes"
    notes.mkdir()
    (notes / "quantize.md").write_text("# Quantization\n\nQuantize a model to INT8 with sieve-export quantize.\n")
    (notes / "cats.txt").write_text("Cats sleep most of the day.\n")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "sieve").symlink_to(sieve_bin())
    home = tmp_path / "home"
    home.mkdir()
    hub = MockHub()
    files = {("onnx/model.onnx" if p.name == "model.onnx" else p.relative_to(TINY).as_posix()): p.read_bytes()
             for p in sorted(TINY.rglob("*")) if p.is_file() and p.name != "reference.json"}
    files["onnx/model_qint8_avx512.onnx"] = files["onnx/model.onnx"]
    hub.add_commit("sentence-transformers/all-MiniLM-L6-v2", files)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING", "SIEVE_MODELS"))}
    env.update(PATH=f"{bindir}:{env['PATH']}", HOME=str(home), HF_ENDPOINT=hub.url, SIEVE_PULL_TIMEOUT="5")
    every = []
    for path in command_paths():
        every += [e for e in examples(sieve(*path, "--help").stdout) if e not in every]
    # The servers last: one of them serves the index that `sieve index add` makes.
    every.sort(key=lambda e: bool(re.match(r"sieve serve\b", e)))
    ran = []
    try:
        for example in every:
            if re.match(r"sieve serve\b", example):
                run_server_example(example, env, work)
            else:
                result = subprocess.run(["bash", "-o", "pipefail", "-c", example], env=env, cwd=work,
                                        capture_output=True, text=True, timeout=300)
                assert result.returncode == 0, f"{example!r} failed ({result.returncode}):\n{result.stderr}"
                assert "error" not in result.stderr.lower(), f"{example!r}:\n{result.stderr}"
            ran.append(example)
    finally:
        hub.close()
    assert len(ran) >= 20, ran
    assert (work / "vectors.npy").stat().st_size > 128
    assert (work / "sieve-app" / "bin" / "sieve").exists()


COMPLETION_CASES = [
    (["sieve", "em"], ["embed"]),
    (["sieve", "--log"], ["--log-level"]),
    (["sieve", "--log-level", "w"], ["warn"]),
    (["sieve", "index", "a"], ["add"]),
    (["sieve", "index", "add", "--chunk"], ["--chunk-tokens"]),
    (["sieve", "embed", "--mo"], ["--model"]),
    (["sieve", "embed", "--format", ""], ["json", "jsonl", "npy"]),
    (["sieve", "embed", "--batch-size", ""], []),
    (["sieve", "search", "--mode", "h"], ["hybrid"]),
    (["sieve", "embed", "--model", "models/all"], ["models/all-MiniLM-L6-v2"]),
    # After an option's value, subcommands and options again.
    (["sieve", "--log-level", "warn", "tok"], ["tokenize"]),
    (["sieve", "completion", ""], ["bash"]),
]


def completions(script: Path, words: list[str], cwd: Path) -> list[str]:
    program = (f"source {shlex.quote(str(script))}\n"
               f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
               "_sieve; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    result = subprocess.run(["bash", "-c", program], cwd=cwd, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return sorted(line for line in result.stdout.splitlines() if line)


def test_bash_completion(tmp_path):
    script = tmp_path / "sieve.bash"
    script.write_text(sieve("completion", "bash").stdout)
    (tmp_path / "models" / "all-MiniLM-L6-v2").mkdir(parents=True)
    for words, expected in COMPLETION_CASES:
        assert completions(script, words, tmp_path) == expected, words
    # Every option each --help lists completes, for every command.
    for path in command_paths():
        listed = options_in_help(sieve(*path, "--help").stdout)
        offered = set(completions(script, ["sieve", *path, "-"], tmp_path))
        assert listed <= offered, (path, listed - offered)
    assert sieve("completion", "zsh", check=False).returncode != 0
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
