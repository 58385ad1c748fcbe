#!/usr/bin/env python3
"""Build a BERT encoder ONNX graph by hand from a weight dictionary.

Why this exists: the project must be able to produce ONNX models without
torch (the set-up may not install it), so instead of `torch.onnx.export` we
write the graph node by node with `onnx.helper`.  The graph follows Hugging
Face `BertModel` (eager attention) operation for operation so that the
exported model reproduces sentence-transformers to float32 rounding noise.

Used by tools/export_minilm.py (real weights), tools/make_fixtures.py (tiny
random weights) and tools/make_cross_encoder.py (a BertForSequenceClassification
cross-encoder: `classifier=True` adds the pooler and the classification head).
As a CLI it converts a safetensors file:

    python tools/bert_onnx.py --weights model.safetensors --config config.json \
        --out model.onnx [--pooled | --classifier] [--no-token-type-ids]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Mapping

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# LayerNormalization became a standard operator in opset 17; older opsets
# would force us to spell it out with ReduceMean/Sub/Pow, which is slower in
# ONNX Runtime and gives the optimiser less to fuse.
OPSET = 17
# IR 8 is the oldest IR that opset 17 allows; staying low keeps the file
# loadable by older ONNX Runtime builds the C++ side might link against.
IR_VERSION = 8

# Hugging Face builds the additive attention mask as (1 - mask) * finfo.min.
# Using the same constant (instead of the older -10000) keeps the only
# observable difference -- rows whose mask is all zeros -- identical to HF.
MASK_FILL = float(np.finfo(np.float32).min)

# Prefixes under which checkpoints store BertModel parameters: plain BertModel
# saves none, BertFor* heads save "bert.", some sentence-transformers dumps
# save "0.auto_model." or "model.".
_KNOWN_PREFIXES = ("bert.", "0.auto_model.", "auto_model.", "model.")


def strip_prefix(weights: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Return weights keyed by bare BertModel names, whatever the checkpoint's prefix."""
    anchor = "embeddings.word_embeddings.weight"
    for prefix in ("",) + _KNOWN_PREFIXES:
        if prefix + anchor in weights:
            return {k[len(prefix):]: v for k, v in weights.items() if k.startswith(prefix)}
    raise KeyError(f"no '{anchor}' (with or without a known prefix) among the weights")


class _GraphBuilder:
    """Tiny helper that hands out unique tensor names and collects nodes/initializers."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._counter = 0

    def fresh(self, hint: str) -> str:
        self._counter += 1
        return f"{hint}_{self._counter}"

    def const(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], hint: str | None = None,
           output: str | None = None, name: str | None = None, **attrs) -> str:
        out = output or self.fresh(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=name or self.fresh(f"n_{op_type}"), **attrs))
        return out


def _f32(w: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    if name not in w:
        raise KeyError(f"missing weight '{name}'")
    return np.asarray(w[name], dtype=np.float32)


def build_bert_graph(weights: Mapping[str, np.ndarray], config: Mapping, *,
                     pooled: bool = False, token_type_ids: bool = True,
                     classifier: bool = False, token_logits: bool = False,
                     graph_name: str = "bert") -> onnx.ModelProto:
    """Build and check a BERT encoder ModelProto.

    weights: Hugging Face BertModel parameter names (any known prefix) -> arrays.
    config:  a BertConfig-like dict (hidden_size, num_attention_heads, ...).
    pooled:  replace the token output with in-graph masked mean pooling, giving
             a rank-2 "sentence_embedding" output -- the shape exporters such as
             optimum produce for sentence-transformers models.
    token_type_ids: when False the graph has only two inputs and adds
             token_type_embeddings[0] everywhere, which is what BERT does when
             the caller passes no token types.
    classifier: the head of Hugging Face BertForSequenceClassification: the
             pooler (first token, dense, tanh) and the "classifier" linear
             layer, giving a rank-2 "logits" output [batch, num_labels] -- the
             output optimum exports for cross-encoders.  The head's weights
             are looked up unprefixed ("classifier.weight"), as HF saves them.
    token_logits: a masked-LM shaped head: each token's state times the word
             embeddings (tied, as BERT's decoder) plus "token_logits.bias",
             giving a rank-3 "logits" output [batch, seq, vocab] -- what a
             SPLADE model's transformer hands to its SpladePooling.
    """
    if pooled + classifier + token_logits > 1:
        raise ValueError("pooled, classifier and token_logits are different heads; choose one")
    w = strip_prefix(weights)
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    act = config.get("hidden_act", "gelu")
    if act != "gelu":
        # Only exact (erf) GELU is implemented; silently using it for other
        # activations would produce a model that is subtly wrong.
        raise ValueError(f"unsupported hidden_act {act!r} (only 'gelu')")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("only absolute position embeddings are supported")
    if hidden % heads:
        raise ValueError("hidden_size must be divisible by num_attention_heads")
    head_dim = hidden // heads

    g = _GraphBuilder()

    # ---- constants shared by every layer
    c_zero = g.const("const_zero_1d", np.array([0], dtype=np.int64))
    c_one_f = g.const("const_one_f32", np.array(1.0, dtype=np.float32))
    c_fill = g.const("const_mask_fill", np.array(MASK_FILL, dtype=np.float32))
    c_sqrt_d = g.const("const_sqrt_head_dim", np.array(math.sqrt(head_dim), dtype=np.float32))
    c_sqrt2 = g.const("const_sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    c_half = g.const("const_half", np.array(0.5, dtype=np.float32))
    # Reshape with 0 keeps the batch and sequence dims dynamic.
    c_split_heads = g.const("const_split_heads", np.array([0, 0, heads, head_dim], dtype=np.int64))
    c_merge_heads = g.const("const_merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    c_axis_1 = g.const("const_axis_1", np.array([1], dtype=np.int64))
    c_axis_2 = g.const("const_axis_2", np.array([2], dtype=np.int64))

    def layer_norm(x: str, prefix: str) -> str:
        gamma = g.const(f"{prefix}.weight", _f32(w, f"{prefix}.weight"))
        beta = g.const(f"{prefix}.bias", _f32(w, f"{prefix}.bias"))
        return g.op("LayerNormalization", [x, gamma, beta], hint="ln", axis=-1, epsilon=eps)

    def linear(x: str, prefix: str) -> str:
        # HF Linear stores [out, in]; MatMul wants [in, out].
        weight = g.const(f"{prefix}.weight", _f32(w, f"{prefix}.weight").T.copy())
        bias = g.const(f"{prefix}.bias", _f32(w, f"{prefix}.bias"))
        # Named as PyTorch exports name them ("/encoder/layer.0/output/dense/MatMul"),
        # so that node patterns (sieve-export quantize --exclude-nodes) work on both.
        path = "/" + prefix.replace(".layer.", "/layer.").replace(".", "/").replace("/layer/", "/layer.")
        product = g.op("MatMul", [x, weight], name=f"{path}/MatMul")
        return g.op("Add", [product, bias], hint="linear", name=f"{path}/Add")

    # ---- embeddings
    word = g.const("embeddings.word_embeddings.weight", _f32(w, "embeddings.word_embeddings.weight"))
    pos = g.const("embeddings.position_embeddings.weight", _f32(w, "embeddings.position_embeddings.weight"))
    ttype = _f32(w, "embeddings.token_type_embeddings.weight")

    emb = g.op("Gather", [word, "input_ids"], hint="word_emb", axis=0)
    # Position embeddings are the first `sequence` rows of the table.  Slicing
    # with a 1-D shape tensor avoids the Gather(Shape)->Range pattern, which
    # ONNX Runtime's optimiser rewrites into an invalid Slice (scalar starts).
    seq_len = g.op("Shape", ["input_ids"], hint="seq_len", start=1, end=2)
    pos_rows = g.op("Slice", [pos, c_zero, seq_len, c_zero], hint="pos_emb")
    emb = g.op("Add", [emb, pos_rows])
    if token_type_ids:
        tt = g.const("embeddings.token_type_embeddings.weight", ttype)
        emb = g.op("Add", [emb, g.op("Gather", [tt, "token_type_ids"], hint="tt_emb", axis=0)])
    else:
        emb = g.op("Add", [emb, g.const("embeddings.token_type_embeddings.row0", ttype[0].copy())])
    x = layer_norm(emb, "embeddings.LayerNorm")

    # ---- additive attention mask [batch, 1, 1, sequence]
    # In Hugging Face's order, mask[:, None, None, :] -> float -> (1 - m) * min:
    # Unsqueeze, Unsqueeze, Cast, Sub, Mul is the chain ONNX Runtime's
    # transformer optimizer recognises when it fuses each layer into one
    # Attention operator (a single Unsqueeze over two axes, or the Cast first,
    # computes the same mask but is left unfused).
    mask_4d = g.op("Unsqueeze", [g.op("Unsqueeze", ["attention_mask", c_axis_1], hint="mask_3d"), c_axis_2],
                   hint="mask_4d")
    inv = g.op("Sub", [c_one_f, g.op("Cast", [mask_4d], hint="mask_4d_f32", to=TensorProto.FLOAT)],
               hint="mask_inv")
    additive = g.op("Mul", [inv, c_fill], hint="mask_additive")

    # ---- encoder layers
    for i in range(layers):
        p = f"encoder.layer.{i}"
        q = linear(x, f"{p}.attention.self.query")
        k = linear(x, f"{p}.attention.self.key")
        v = linear(x, f"{p}.attention.self.value")
        q = g.op("Transpose", [g.op("Reshape", [q, c_split_heads])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [k, c_split_heads])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [v, c_split_heads])], perm=[0, 2, 1, 3])
        # Divide after QK^T exactly as HF eager attention does; scaling Q
        # first is mathematically equal but rounds differently.
        scores = g.op("Div", [g.op("MatMul", [q, k], hint="qk"), c_sqrt_d], hint="scores")
        scores = g.op("Add", [scores, additive], hint="scores_masked")
        probs = g.op("Softmax", [scores], hint="probs", axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v], hint="ctx")], perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, c_merge_heads], hint="ctx_merged")
        attn = linear(ctx, f"{p}.attention.output.dense")
        x = layer_norm(g.op("Add", [attn, x], hint="attn_residual"), f"{p}.attention.output.LayerNorm")

        inter = linear(x, f"{p}.intermediate.dense")
        # Exact GELU, 0.5 * x * (1 + erf(x / sqrt(2))), as torch's default.
        erf = g.op("Erf", [g.op("Div", [inter, c_sqrt2])])
        gelu = g.op("Mul", [g.op("Mul", [inter, g.op("Add", [erf, c_one_f])]), c_half], hint="gelu")
        out = linear(gelu, f"{p}.output.dense")
        x = layer_norm(g.op("Add", [out, x], hint="ffn_residual"), f"{p}.output.LayerNorm")

    batch, seq = "batch", "sequence"
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [batch, seq]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [batch, seq])]
    if token_type_ids:
        inputs.append(helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, [batch, seq]))

    if classifier:
        # BertPooler: tanh(dense(hidden_states[:, 0])); then the classifier
        # (dropout is the identity at inference).  A scalar index makes Gather
        # drop the sequence axis, exactly the [:, 0] slice.
        # (const() would make the index 1-D: ascontiguousarray never returns 0-D.)
        c_first = "const_first_token"
        g.initializers.append(numpy_helper.from_array(np.array(0, dtype=np.int64), c_first))
        first = g.op("Gather", [x, c_first], hint="first_token", axis=1)
        pooled_out = g.op("Tanh", [linear(first, "pooler.dense")], hint="pooler_output")
        head_weight = np.asarray(weights["classifier.weight"], dtype=np.float32)
        head_bias = np.asarray(weights["classifier.bias"], dtype=np.float32)
        labels = int(head_weight.shape[0])
        if head_weight.shape != (labels, hidden) or head_bias.shape != (labels,):
            raise ValueError(f"classifier weights {head_weight.shape}/{head_bias.shape} do not fit hidden {hidden}")
        cw = g.const("classifier.weight", head_weight.T.copy())
        cb = g.const("classifier.bias", head_bias)
        g.op("Add", [g.op("MatMul", [pooled_out, cw]), cb], output="logits")
        outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, labels])]
    elif token_logits:
        words = _f32(w, "embeddings.word_embeddings.weight")
        decoder = g.const("token_logits.weight", words.T.copy())
        bias = g.const("token_logits.bias", _f32(weights, "token_logits.bias"))
        g.op("Add", [g.op("MatMul", [x, decoder]), bias], output="logits")
        outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, seq, words.shape[0]])]
    elif pooled:
        # sentence-transformers mean pooling: sum(h * m) / clamp(sum(m), 1e-9).
        mask_f = g.op("Cast", ["attention_mask"], hint="mask_f32", to=TensorProto.FLOAT)
        m3 = g.op("Unsqueeze", [mask_f, c_axis_2], hint="mask_3d")
        summed = g.op("ReduceSum", [g.op("Mul", [x, m3]), c_axis_1], hint="sum_h", keepdims=0)
        count = g.op("ReduceSum", [m3, c_axis_1], hint="sum_m", keepdims=0)
        c_min = g.const("const_min_count", np.array(1e-9, dtype=np.float32))
        count = g.op("Max", [count, c_min], hint="count_clamped")
        g.op("Div", [summed, count], output="sentence_embedding")
        outputs = [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, [batch, hidden])]
    else:
        g.op("Identity", [x], output="last_hidden_state")
        outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [batch, seq, hidden])]

    graph = helper.make_graph(g.nodes, graph_name, inputs, outputs, initializer=g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="sieve-tools-bert_onnx", producer_version="1")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def save_model(model: onnx.ModelProto, path: str | Path) -> None:
    """Save and re-check from disk.

    The path-based checker is used because it also works for models above the
    2 GiB protobuf limit (irrelevant for MiniLM but cheap to be safe about).
    """
    onnx.save(model, str(path))
    onnx.checker.check_model(str(path))


def _main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", required=True, help="model.safetensors")
    ap.add_argument("--config", required=True, help="config.json (BertConfig)")
    ap.add_argument("--out", required=True, help="output .onnx file")
    ap.add_argument("--pooled", action="store_true", help="output mean-pooled sentence_embedding")
    ap.add_argument("--classifier", action="store_true",
                    help="BertForSequenceClassification head: pooler + classifier, output logits")
    ap.add_argument("--no-token-type-ids", action="store_true", help="graph without token_type_ids input")
    args = ap.parse_args(argv)

    from safetensors.numpy import load_file  # only the CLI needs safetensors

    config = json.loads(Path(args.config).read_text(encoding="utf-8"))
    model = build_bert_graph(load_file(args.weights), config, pooled=args.pooled,
                             token_type_ids=not args.no_token_type_ids, classifier=args.classifier)
    save_model(model, args.out)
    print(f"wrote {args.out}: {len(model.graph.node)} nodes, "
          f"outputs={[o.name for o in model.graph.output]}")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
