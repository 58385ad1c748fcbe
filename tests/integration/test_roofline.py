"""The roofline report's two halves (bench/roofline): the FLOP count read
from a graph's shapes, checked against the count from the architecture's
formula, and the peak-throughput program's output."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_command

sys.path.insert(0, str(ROOT / "bench" / "roofline"))
import roofline  # noqa: E402

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))


@pytest.mark.parametrize("batch,length", [(1, 16), (3, 7), (8, 128)])
def test_graph_flops_equal_the_architectures(batch, length):
    folder = FIXTURES / "tiny-bert-tokens"
    config = json.loads((folder / "config.json").read_text())
    counted = roofline.count_flops(folder / "model.onnx", batch, length)
    assert counted["total"] == roofline.bert_flops(config, batch, length)
    # Six products per layer plus two in the FFN.
    assert len(counted["per_node"]) == 8 * config["num_hidden_layers"]


def test_a_classifier_heads_products_are_counted_too(tmp_path):
    from safetensors.numpy import load_file

    sys.path.insert(0, str(ROOT / "tools"))
    import bert_onnx

    folder = FIXTURES / "cross-encoder-tiny-3labels"
    config = json.loads((folder / "config.json").read_text())
    # The plain graph (the fixture itself is fused, which ONNX shape inference cannot follow).
    graph = bert_onnx.build_bert_graph(load_file(str(folder / "model.safetensors")), config, classifier=True)
    bert_onnx.save_model(graph, tmp_path / "model.onnx")
    h, labels = config["hidden_size"], 3
    counted = roofline.count_flops(tmp_path / "model.onnx", 2, 10)["total"]
    # The encoder, then the pooler (h x h) and the classifier (h x labels) on the first token of each row.
    assert counted == roofline.bert_flops(config, 2, 10) + 2 * 2 * (h * h + h * labels)
    with pytest.raises(ValueError, match="not inferred"):
        roofline.count_flops(folder / "model.onnx", 2, 10)


def test_unknown_shapes_are_refused(tmp_path):
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "n"])
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, ["n", "m"])  # a second input: no fixed size
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g", [x, w], [y])
    onnx.save(helper.make_model(graph), str(tmp_path / "m.onnx"))
    with pytest.raises(ValueError, match="not inferred"):
        roofline.count_flops(tmp_path / "m.onnx", 2, 4)


def test_the_peak_program_reports_both_ceilings():
    out = run_command(ROOT / "build" / "sieve_roofline_peak", "--threads", "1", "--seconds", "0.02", "--rounds", "1")
    doc = json.loads(out.stdout)
    assert doc["threads"] == 1
    assert doc["fp32"]["gflops"] > 0 and doc["fp32"]["isa"]
    assert doc["int8"]["gops"] > 0 and doc["int8"]["isa"]
