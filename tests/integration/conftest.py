"""Shared fixtures for the integration tests: the sieve binary, the corpus,
the tokenizer files and the model folders. Tests compare Sieve with
independent references (Hugging Face tokenizers, sentence-transformers
output stored by tools/make_st_reference.py), never with Sieve's own output."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

import tier

ROOT = Path(__file__).resolve().parents[2]
SHARED_TOKENIZERS = ROOT.parent / "shared" / "tokenizers"
MODEL = ROOT / "models" / "all-MiniLM-L6-v2"


def sieve_bin() -> Path:
    return Path(os.environ.get("SIEVE_BIN", ROOT / "build" / "sieve"))


def run_sieve(*args: str, input: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([str(sieve_bin()), "--log-level", "warn", *args], input=input,
                            capture_output=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"sieve {' '.join(args)} failed ({result.returncode}): {result.stderr.decode(errors='replace')}")
    return result


def run_command(*cmd, timeout=600) -> subprocess.CompletedProcess:
    """Runs a command; a failure raises with the end of its standard error."""
    result = subprocess.run([str(c) for c in cmd], capture_output=True, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(str(c) for c in cmd)} failed ({result.returncode}):\n"
                             f"{result.stderr.decode(errors='replace')[-4000:]}")
    return result


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory) -> Path:
    """The parity corpus, rebuilt from Debian's word lists and Unicode data."""
    out = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    subprocess.run([sys.executable, str(ROOT / "tools" / "build_corpus.py"), "--out", str(out),
                    "--with-invalid-utf8"], check=True, capture_output=True)
    return out


def corpus_lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def tokenizer_files() -> list[Path]:
    files = sorted(SHARED_TOKENIZERS.glob("*/tokenizer.json"))
    if (MODEL / "tokenizer.json").exists():
        files.append(MODEL / "tokenizer.json")
    return files


def model_type(path: Path) -> str:
    model = json.loads(path.read_text(encoding="utf-8"))["model"]
    if "type" in model:
        return model["type"]
    if "merges" in model:
        return "BPE"
    if "unk_id" in model:
        return "Unigram"
    return "WordPiece"


# ---- tokenizer parity: trained tokenizers and the per-tokenizer summary

TRAINED_FIXTURES = ROOT / "build" / "fixtures" / "trained"


@pytest.fixture(scope="session")
def trained_tokenizers(tmp_path_factory) -> Path:
    """The folder of tools/train_tokenizers.py output, one subfolder per
    configuration.  SIEVE_TRAINED_DIR names a folder to (re)train into when
    its STAMP is stale; else build/fixtures/trained serves when current; else
    the tokenizers are trained now into a temporary folder (about 20 s)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import train_tokenizers

    want = train_tokenizers.stamp()

    def current(folder: Path) -> bool:
        stamp = folder / train_tokenizers.STAMP
        return stamp.is_file() and stamp.read_text().strip() == want

    chosen = os.environ.get("SIEVE_TRAINED_DIR")
    if chosen:
        out = Path(chosen)
    elif current(TRAINED_FIXTURES):
        return TRAINED_FIXTURES
    else:
        out = tmp_path_factory.mktemp("trained")
    if not current(out):
        result = subprocess.run([sys.executable, str(ROOT / "tools" / "train_tokenizers.py"), "--out", str(out)],
                                capture_output=True)
        if result.returncode != 0:
            raise AssertionError(f"tools/train_tokenizers.py failed: {result.stderr.decode(errors='replace')}")
    return out


_PARITY_LINES: list[str] = []


def record_parity(line: str) -> None:
    """A line for the parity summary printed at the end of the session."""
    _PARITY_LINES.append(line)


def pytest_report_header(config) -> str:
    return tier.describe()


def pytest_terminal_summary(terminalreporter) -> None:
    terminalreporter.write_line(tier.describe())
    if _PARITY_LINES:
        terminalreporter.section("tokenizer parity with Hugging Face")
        for line in _PARITY_LINES:
            terminalreporter.write_line(line)


# ---- SPLADE-tiny: a real sparse encoder, exported with `sieve-export export --task sparse`

class SpladeTiny(NamedTuple):
    folder: Path      # the exported Sieve model folder (model.onnx, output sparse_embedding [batch, 30522])
    reference: Path   # tools/make_sparse_reference.py's JSON: SparseEncoder.encode of the PyTorch original


FIXTURES_DIR = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))


def exported_fixture(script: str, name: str, *args: str) -> Path:
    """SIEVE_FIXTURES_DIR/NAME, which scripts/test.sh's fixture stage makes with
    tools/SCRIPT (in .venv-export); made here too when missing."""
    python = ROOT / ".venv-export" / "bin" / "python"
    if not python.is_file():
        pytest.fail(".venv-export is missing: run `bash scripts/setup_export_env.sh` first")
    done = subprocess.run([str(python), str(ROOT / "tools" / script), "--out", str(FIXTURES_DIR), *args],
                          capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        pytest.fail(f"tools/{script} failed:\n{done.stdout}{done.stderr}")
    return FIXTURES_DIR / name


@pytest.fixture(scope="session")
def splade_tiny() -> SpladeTiny:
    """SPLADE-tiny-msmarco exported with --task sparse, and its sentence-transformers reference."""
    folder = exported_fixture("make_splade_fixture.py", "splade-tiny")
    return SpladeTiny(folder, folder / "reference.json")


@pytest.fixture(scope="session")
def colbert_tiny() -> Path:
    """A ColBERT model in PyLate's layout with random weights, exported by
    sieve-export, with PyLate's own token vectors and MaxSim scores in its reference.json."""
    return exported_fixture("make_colbert_fixture.py", "colbert-tiny", "--tokenizer", str(MODEL))


@pytest.fixture(scope="session")
def bge_m3_tiny() -> Path:
    """A model in BGE-M3's layout with random weights, exported with --task bge-m3,
    with its three outputs from FlagEmbedding's definitions in its reference.json."""
    return exported_fixture("make_bge_m3_fixture.py", "bge-m3-tiny")


# The Python package (bindings/python): its extension module as scripts/bootstrap.sh
# builds it (build/bindings/python, for .venv's Python) beside the package's own
# files, imported into the test process.
BUILD = Path(os.environ.get("SIEVE_BUILD_DIR", ROOT / "build"))


@pytest.fixture(scope="session")
def sieve(tmp_path_factory):
    modules = sorted((BUILD / "bindings" / "python").glob("_sieve*.so"))
    if not modules:
        pytest.fail(f"no extension module in {BUILD / 'bindings' / 'python'}: run scripts/bootstrap.sh")
    package = tmp_path_factory.mktemp("python") / "sieve"
    package.mkdir()
    for source in (ROOT / "bindings" / "python" / "sieve").glob("*.py"):
        (package / source.name).symlink_to(source)
    (package / modules[-1].name).symlink_to(modules[-1])
    sys.path.insert(0, str(package.parent))
    try:
        import sieve as module
        yield module
    finally:
        sys.path.remove(str(package.parent))
