"""Graphs whose id inputs are int32 and whose outputs are float16 (as some
exporters and GPU conversions write them): Sieve feeds and reads them and
still matches sentence-transformers.

The fixture embedder's graph is rewritten with onnx: each int64 input
becomes int32 (cast back inside), and the token states leave as float16.
The reference is the fixture's stored sentence-transformers output; float16
token states cost about 1e-3 of precision, so the bound on the difference is
looser than the model zoo's 1e-4, the cosine bound the same."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from conftest import ROOT, run_sieve

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))


def retype_graph(source: Path, out: Path, input_type: int, float16_output: bool) -> None:
    """Each int64 input becomes `input_type` (cast back to int64 inside);
    with `float16_output`, every output leaves as float16."""
    model = onnx.load(str(source))
    graph = model.graph
    nodes = []
    if input_type != TensorProto.INT64:
        for graph_input in graph.input:
            if graph_input.type.tensor_type.elem_type != TensorProto.INT64:
                continue
            inner = graph_input.name + "_int64"
            for node in graph.node:
                node.input[:] = [inner if name == graph_input.name else name for name in node.input]
            nodes.append(helper.make_node("Cast", [graph_input.name], [inner], to=TensorProto.INT64))
            graph_input.type.tensor_type.elem_type = input_type
    if float16_output:
        for graph_output in graph.output:
            inner = graph_output.name + "_float32"
            for node in graph.node:
                node.output[:] = [inner if name == graph_output.name else name for name in node.output]
            graph.node.append(helper.make_node("Cast", [inner], [graph_output.name], to=TensorProto.FLOAT16))
            graph_output.type.tensor_type.elem_type = TensorProto.FLOAT16
    for node in reversed(nodes):
        graph.node.insert(0, node)
    onnx.checker.check_model(model)
    onnx.save(model, str(out))


@pytest.mark.parametrize("int32_inputs,float16_output", [(True, False), (False, True), (True, True)])
def test_int32_inputs_and_float16_outputs(tmp_path, int32_inputs, float16_output):
    source = FIXTURES / "tiny-bert-tokens"
    folder = tmp_path / "model"
    shutil.copytree(source, folder)
    retype_graph(source / "model.onnx", folder / "model.onnx", TensorProto.INT32 if int32_inputs else TensorProto.INT64,
                 float16_output)
    info = json.loads(run_sieve("info", "--model", str(folder), "--json").stdout)
    types = {t["name"]: t["type"] for t in info["inputs"] + info["outputs"]}
    assert types["input_ids"] == ("int32" if int32_inputs else "int64")
    assert types[info["output"]] == ("float16" if float16_output else "float32")

    reference = json.loads((source / "reference.json").read_text(encoding="utf-8"))
    texts = reference["texts"]
    want = np.asarray(reference["embeddings"], dtype=np.float64)
    result = run_sieve("embed", "--model", str(folder), "--format", "jsonl", *texts)
    got = np.asarray([json.loads(line) for line in result.stdout.decode().splitlines()], dtype=np.float64)
    assert got.shape == want.shape
    cosine = (got * want).sum(1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1))
    assert cosine.min() >= 0.9999, cosine.min()
    bound = 2e-3 if float16_output else 1e-5
    assert np.abs(got - want).max() <= bound, np.abs(got - want).max()


def test_input_of_another_type_is_refused(tmp_path):
    """A float id input is no graph Sieve can feed: the error names it."""
    source = FIXTURES / "tiny-bert-tokens"
    folder = tmp_path / "model"
    shutil.copytree(source, folder)
    retype_graph(source / "model.onnx", folder / "model.onnx", TensorProto.FLOAT, False)
    result = run_sieve("embed", "--model", str(folder), "hello", check=False)
    assert result.returncode != 0
    assert 'input "input_ids" is float32[' in result.stderr.decode(), result.stderr
    assert "expected int64 or int32" in result.stderr.decode(), result.stderr
