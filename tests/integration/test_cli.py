"""Bad input and bad files: a one-line error on stderr and a non-zero exit,
never an abort, a stack trace or partial garbage."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import MODEL, ROOT, run_sieve, sieve_bin

needs_model = pytest.mark.skipif(not (MODEL / "model.onnx").exists(), reason="models/all-MiniLM-L6-v2 missing")


def assert_clean_error(result, *fragments):
    err = result.stderr.decode(errors="replace")
    assert result.returncode != 0, err
    assert result.returncode < 128, f"killed by a signal: {err}"
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("sieve: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], err
    for word in ("terminate called", "Aborted", "Segmentation", "AddressSanitizer", "runtime error"):
        assert word not in err


def test_missing_model_folder():
    assert_clean_error(run_sieve("embed", "--model", "/nonexistent/model", "x", check=False), "/nonexistent/model")


def test_missing_tokenizer_file():
    assert_clean_error(run_sieve("tokenize", "--tokenizer", "/nonexistent.json", "x", check=False), "/nonexistent.json")


def test_malformed_tokenizer_json(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "WordPiece", "vocab": {"a": "zero"}}}')
    assert_clean_error(run_sieve("tokenize", "--tokenizer", str(bad), "x", check=False), "/model/vocab/a")
    bad.write_text('{"model": ')
    assert_clean_error(run_sieve("tokenize", "--tokenizer", str(bad), "x", check=False), "invalid JSON")
    bad.write_text('{"model": {"type": "WordPiece", "vocab": {}}, "normalizer": {"type": "Fancy"}}')
    assert_clean_error(run_sieve("tokenize", "--tokenizer", str(bad), "x", check=False), 'unsupported normalizer type "Fancy"')


@needs_model
def test_invalid_utf8_names_the_line():
    result = run_sieve("embed", "--model", str(MODEL), input=b"fine\nalso fine\nbad \xff\xfe here\n", check=False)
    assert_clean_error(result, "input 3", "not valid UTF-8")
    ok = run_sieve("embed", "--model", str(MODEL), "--invalid-utf8", "replace", input=b"fine\nbad \xff here\n")
    assert len(ok.stdout.splitlines()) == 2


@needs_model
def test_model_folder_with_a_corrupt_onnx(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(MODEL, folder, ignore=shutil.ignore_patterns("model.onnx"))
    (folder / "model.onnx").write_bytes(b"\x08\x01garbage")
    assert_clean_error(run_sieve("embed", "--model", str(folder), "x", check=False), "model.onnx")
    (folder / "model.onnx").unlink()
    assert_clean_error(run_sieve("embed", "--model", str(folder), "x", check=False), "model.onnx")


@needs_model
def test_corrupt_pooling_config(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(MODEL, folder)
    (folder / "1_Pooling" / "config.json").write_text("{oops")
    assert_clean_error(run_sieve("embed", "--model", str(folder), "x", check=False), "1_Pooling/config.json")


@needs_model
def test_bad_options():
    assert_clean_error(run_sieve("embed", "--model", str(MODEL), "--provider", "warp", "x", check=False),
                       'unknown execution provider "warp"')
    assert_clean_error(run_sieve("embed", "--model", str(MODEL), "--max-length", "100000", "x", check=False),
                       "exceeds the model's 512 positions")
    assert_clean_error(run_sieve("embed", "--model", str(MODEL), "--pooling", "median", "x", check=False),
                       'unknown pooling "median"')
    strict = run_sieve("embed", "--model", str(MODEL), "--provider", "cuda", "--strict-providers", "x", check=False)
    assert_clean_error(strict, "cuda")
    # Without --strict-providers the session falls back to the CPU, saying so.
    fallback = run_sieve("embed", "--model", str(MODEL), "--provider", "cuda", "x", check=False)
    assert fallback.returncode == 0


def test_usage_errors_exit_nonzero():
    import subprocess
    result = subprocess.run([str(sieve_bin()), "embed"], capture_output=True, timeout=60)
    assert result.returncode != 0 and b"--model" in result.stderr
    result = subprocess.run([str(sieve_bin())], capture_output=True, timeout=60)
    assert result.returncode != 0


@needs_model
def test_empty_and_huge_inputs():
    # An empty line is a valid (empty) text; a 2 MB line is truncated.
    huge = ("word " * 400_000).encode()
    result = run_sieve("embed", "--model", str(MODEL), input=b"\n" + huge + b"\n")
    rows = [json.loads(l) for l in result.stdout.splitlines()]
    assert len(rows) == 2 and all(len(r) == 384 for r in rows)
    assert run_sieve("embed", "--model", str(MODEL), input=b"").stdout == b""


@needs_model
def test_tokenize_output_shape():
    result = run_sieve("tokenize", "--model", str(MODEL), "Hello, world!")
    doc = json.loads(result.stdout)
    assert set(doc) == {"ids", "tokens", "type_ids", "attention_mask", "special_tokens_mask"}
    assert doc["tokens"][:6] == ["[CLS]", "hello", ",", "world", "!", "[SEP]"]
    # The file pads to 128, as Hugging Face does by default with this file.
    assert len(doc["ids"]) == 128 and sum(doc["attention_mask"]) == 6


def test_info_lists_a_models_root_with_kinds(tmp_path):
    """sieve info --models: the registry's listing, kinds detected from
    config.json and the ONNX outputs; a folder linking out of the root is
    not served."""
    fixtures = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
    for name in ("tiny-bert-tokens", "tiny-bert-pooled", "cross-encoder-tiny-3labels"):
        if not (fixtures / name).is_dir():
            pytest.fail(f"fixture {fixtures / name} missing: run tools/make_fixtures.py and tools/make_cross_encoder.py")
        shutil.copytree(fixtures / name, tmp_path / "root" / "org" / name)
    (tmp_path / "root" / "escape").symlink_to(fixtures / "tiny-bert-tokens", target_is_directory=True)
    for extra in ([], ["--no-load"]):
        doc = json.loads(run_sieve("info", "--models", str(tmp_path / "root"), "--json", *extra).stdout)
        models = {m["name"]: m for m in doc["models"]}
        assert models["org/tiny-bert-tokens"]["kind"] == "embedding"
        assert models["org/tiny-bert-pooled"]["kind"] == "pooled embedding"
        assert models["org/cross-encoder-tiny-3labels"]["kind"] == "reranker"
        assert models["org/cross-encoder-tiny-3labels"]["dimension"] == 3
        assert all(m.get("providers", ["cpu"])[-1] == "cpu" for m in models.values() if "error" not in m)
        assert "dimension" not in models.get("escape", {})


def test_texts_given_as_arguments_are_taken_as_typed():
    """A text argument in brackets ("[MASK]", "[a,b]") is one text, brackets
    included, as Hugging Face tokenizers sees it: the argument parser must not
    read it as a list."""
    tokenizers = pytest.importorskip("tokenizers")
    reference = tokenizers.Tokenizer.from_file(str(MODEL / "tokenizer.json"))
    texts = ["[MASK]", "[CLS] hello [SEP]", "[a,b]", "plain"]
    out = run_sieve("tokenize", "--model", str(MODEL), *texts).stdout.decode().splitlines()
    assert len(out) == len(texts)
    for line, text in zip(out, texts):
        got = json.loads(line)
        want = reference.encode(text)
        n = sum(got["attention_mask"])
        assert got["ids"][:n] == want.ids[:n] and n == sum(want.attention_mask), text
