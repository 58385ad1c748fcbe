"""The command line's own help: `sieve --version` against Python onnxruntime,
every subcommand's --help with examples that run as shown, and the bash
completion script against the options --help lists."""
from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

import doc_workspace
from conftest import ROOT, sieve_bin


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


@pytest.mark.skipif(not doc_workspace.available(), reason=f"fixture models missing in {doc_workspace.FIXTURES}")
def test_every_example_runs_as_shown(tmp_path):
    """Each example of every --help, in a folder laid out as the examples
    assume (doc_workspace.py)."""
    every = []
    for path in command_paths():
        every += [e for e in examples(sieve(*path, "--help").stdout) if e not in every]
    # The servers last: one of them serves the index that `sieve index add` makes.
    every.sort(key=doc_workspace.is_server)
    work = doc_workspace.Workspace(tmp_path)
    try:
        for example in every:
            if doc_workspace.is_server(example):
                port = doc_workspace.free_port()
                work.start_server(example.replace("--port 8080", f"--port {port}"), port)
                work.stop_servers()
            else:
                work.run(example)
    finally:
        work.close()
    assert len(every) >= 20, every
    assert (work.cwd / "vectors.npy").stat().st_size > 128
    assert (work.cwd / "sieve-app" / "bin" / "sieve").exists()


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
