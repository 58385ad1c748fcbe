"""`sieve-export optimize`: ONNX Runtime's transformer optimizer
(onnxruntime.transformers.optimizer.optimize_model) at optimum's levels.

    O1  ONNX Runtime's basic graph optimizations only (constant folding,
        redundant node elimination), saved offline; no transformer fusions.
    O2  O1 + the transformer fusions: Attention, LayerNormalization,
        SkipLayerNormalization, EmbedLayerNormalization, BiasGelu/Gelu.
    O3  O2 + GELU approximation (FastGelu, tanh form).
    O4  O3 + FP16 weights and compute (GPU only; inputs/outputs stay as they were).

After optimizing, the fused operators in the graph are counted and printed;
for a BERT-like model, a level whose fusions are missing is an error (the
optimizer did not recognise the graph, so the model would be no faster).
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

from .model_folder import ToolError, log, onnx_path, read_config, save_onnx, warn, write_folder

LEVELS = ("O1", "O2", "O3", "O4")

# config.json model_type -> onnxruntime.transformers.optimizer model type
# (the families whose encoder graph BertOnnxModel fuses, as optimum maps them).
MODEL_TYPES = {
    "bert": "bert", "roberta": "bert", "xlm-roberta": "bert", "camembert": "bert", "distilbert": "bert",
    "electra": "bert", "albert": "bert", "mpnet": "bert", "xlm": "bert", "ernie": "bert", "nomic_bert": "bert",
    "deberta": "bert", "deberta-v2": "bert", "mobilebert": "bert", "layoutlm": "bert", "megatron-bert": "bert",
    "bart": "bart", "mbart": "bart", "gpt2": "gpt2", "gpt_neox": "gpt_neox", "t5": "t5", "mt5": "t5",
    "vit": "vit", "swin": "swin", "clip": "clip", "phi": "phi",
}

# The operators counted in the report (domain-less names; contrib ops live in com.microsoft).
FUSED_OPS = ("Attention", "MultiHeadAttention", "SkipLayerNormalization", "SkipSimplifiedLayerNormalization",
             "LayerNormalization", "SimplifiedLayerNormalization", "EmbedLayerNormalization",
             "BiasGelu", "FastGelu", "Gelu", "QuickGelu", "BiasSplitGelu")


def fused_operator_counts(model) -> dict[str, int]:
    """Counts of the fused operators in an onnx.ModelProto (all graphs)."""
    counts: Counter[str] = Counter()

    def visit(graph):
        for node in graph.node:
            if node.op_type in FUSED_OPS:
                counts[node.op_type] += 1
            for attr in node.attribute:
                if attr.g is not None and attr.g.node:
                    visit(attr.g)

    visit(model.graph)
    return {op: counts.get(op, 0) for op in FUSED_OPS}


def expected_fusions(level: str, counts: dict[str, int], layers: int) -> list[str]:
    """What is missing from a BERT-like model optimized at `level` (empty: all there)."""
    missing = []
    if level == "O1":
        return missing
    attention = counts["Attention"] + counts["MultiHeadAttention"]
    if attention < max(layers, 1):
        missing.append(f"Attention/MultiHeadAttention: {attention}, expected one per layer ({layers})")
    skip = counts["SkipLayerNormalization"] + counts["SkipSimplifiedLayerNormalization"]
    if skip < max(layers, 1):
        missing.append(f"SkipLayerNormalization: {skip}, expected at least one per layer ({layers})")
    if counts["EmbedLayerNormalization"] + counts["LayerNormalization"] + skip < 2 * max(layers, 1) + 1:
        missing.append("Embed/Skip/LayerNormalization: fewer than the embeddings' and two per layer")
    gelu = counts["BiasGelu"] + counts["FastGelu"] + counts["Gelu"]
    if gelu < max(layers, 1):
        missing.append(f"BiasGelu/FastGelu/Gelu: {gelu}, expected one per layer ({layers})")
    if level in ("O3", "O4") and counts["FastGelu"] < max(layers, 1):
        missing.append(f"FastGelu (GELU approximation): {counts['FastGelu']}, expected one per layer ({layers})")
    return missing


def ort_optimize(source: Path, dest: Path, level: int = 1) -> None:
    """Run ONNX Runtime's graph optimizations (1: basic, 2: extended, 99: all)
    on the CPU and save the optimized graph to `dest` (weights inside when they fit)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = {1: ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                                        2: ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                                        99: ort.GraphOptimizationLevel.ORT_ENABLE_ALL}[level]
    options.optimized_model_filepath = str(dest)
    options.log_severity_level = 3
    if Path(source).stat().st_size > 0 and _has_external_data(source):
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name",
                                         dest.name + ".data")
    ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])


def _has_external_data(path: Path) -> bool:
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    return any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer)


def optimizer_model_type(config: dict, override: str | None) -> str:
    if override:
        return override
    model_type = str(config.get("model_type") or "bert")
    if model_type not in MODEL_TYPES:
        warn(f"model_type {model_type!r} is not one the optimizer knows; optimizing it as 'bert'")
    return MODEL_TYPES.get(model_type, "bert")


def optimize(src: Path, out: Path, level: str = "O2", *, model_type: str | None = None,
             num_heads: int | None = None, hidden_size: int | None = None,
             check: bool = True, use_gpu: bool | None = None) -> dict:
    """Optimize the folder `src` into the folder `out`; returns the report
    (level, model type, fused operator counts, missing fusions)."""
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    if level not in LEVELS:
        raise ToolError(f"unknown level {level!r} (one of {', '.join(LEVELS)})")
    src = Path(src)
    source = onnx_path(src)
    config = read_config(src)
    mtype = optimizer_model_type(config, model_type)
    heads = int(num_heads if num_heads is not None else config.get("num_attention_heads", 0) or 0)
    hidden = int(hidden_size if hidden_size is not None else config.get("hidden_size", 0) or 0)
    layers = int(config.get("num_hidden_layers", 0) or 0)
    gpu = level == "O4" if use_gpu is None else use_gpu

    with tempfile.TemporaryDirectory(prefix="sieve-optimize-") as work:
        # ONNX Runtime's basic graph optimizations, saved offline (what
        # optimize_model(opt_level=1) does, without writing next to the input).
        basic = Path(work) / "basic.onnx"
        ort_optimize(source, basic, level=1)
        if level == "O1":
            import onnx

            model = onnx.load(str(basic))
        else:
            options = FusionOptions(mtype)
            options.enable_gelu_approximation = level in ("O3", "O4")
            optimized = optimize_model(str(basic), model_type=mtype, num_heads=heads, hidden_size=hidden,
                                       opt_level=0, optimization_options=options, use_gpu=gpu)
            if level == "O4":
                warn("O4 converts the model to FP16 for GPUs; on the CPU it runs slowly, with casts, or not at all")
                optimized.convert_float_to_float16(keep_io_types=True)
            model = optimized.model

    counts = fused_operator_counts(model)
    missing = expected_fusions(level, counts, layers) if mtype == "bert" else []
    report = {"level": level, "model_type": mtype, "num_heads": heads, "hidden_size": hidden,
              "layers": layers, "fused_operators": counts, "missing_fusions": missing,
              "input": str(src), "output": str(out)}
    if missing and check:
        raise ToolError(f"{src}: optimization level {level} did not produce the expected fusions: "
                        + "; ".join(missing) + f" (counts: {json.dumps(counts)})")

    def write(tmp: Path) -> None:
        save_onnx(model, tmp / "model.onnx")

    write_folder(src, out, write)
    log(f"optimized {src} at {level} into {out}")
    return report


def format_counts(report: dict) -> str:
    counts = {k: v for k, v in report["fused_operators"].items() if v}
    lines = [f"level {report['level']} (model type {report['model_type']}, {report['num_heads']} heads, "
             f"hidden {report['hidden_size']}): fused operators"]
    lines += [f"  {op:34s} {n}" for op, n in counts.items()] or ["  (none)"]
    for m in report["missing_fusions"]:
        lines.append(f"  missing: {m}")
    return "\n".join(lines)


# ---- the fused graph Sieve writes by default (export, the set-up's model)

# What the default graph fuses: each layer's attention into one Attention
# operator and the FFN's bias + GELU into BiasGelu. SkipLayerNormalization
# (residual Add + LayerNormalization) is left out: with ONNX Runtime 1.32's
# CPU kernels it was slower than the Add and LayerNormalization it replaces
# (bench/RESULTS.md, "Fused graphs"), while Attention and BiasGelu gained.
DEFAULT_FUSIONS = ("Attention", "BiasGelu")


def _probe_feed(session, vocab_size: int) -> dict:
    """Inputs that exercise padding: three rows of 23, 9 and 1 real tokens."""
    import numpy as np

    rng = np.random.default_rng(1234)
    lengths = [23, 9, 1]
    batch, seq = len(lengths), max(lengths)
    mask = np.zeros((batch, seq), dtype=np.int64)
    for row, n in enumerate(lengths):
        mask[row, :n] = 1
    ids = rng.integers(min(1000, vocab_size - 1), vocab_size, size=(batch, seq)).astype(np.int64) * mask
    values = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    feed = {}
    for item in session.get_inputs():
        if item.name not in values:
            raise ToolError(f"input {item.name!r} is not one a BERT-like encoder takes")
        feed[item.name] = values[item.name]
    return feed


def fused_parity(original: Path, fused, vocab_size: int) -> float:
    """Largest difference between the two graphs' outputs on padded probe
    inputs (real tokens only for per-token outputs)."""
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    a = ort.InferenceSession(str(original), options, providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(fused.SerializeToString(), options, providers=["CPUExecutionProvider"])
    feed = _probe_feed(a, vocab_size)
    worst = 0.0
    for x, y in zip(a.run(None, feed), b.run(None, feed)):
        if x.shape != y.shape:
            return float("inf")
        diff = np.abs(x.astype(np.float64) - y.astype(np.float64))
        if diff.ndim == 3 and diff.shape[:2] == feed["attention_mask"].shape:
            diff = diff[feed["attention_mask"].astype(bool)]
        worst = max(worst, float(diff.max()) if diff.size else 0.0)
    return worst


def fuse_graph(onnx_file: Path, config: dict, *, atol: float = 1e-4) -> dict:
    """Replace `onnx_file` with its fused graph (DEFAULT_FUSIONS) when ONNX
    Runtime's transformer optimizer fuses every layer and the outputs agree
    within `atol`; otherwise leave it as it is. Returns what happened:
    {"fused": bool, "fused_operators": {...}, "max_difference": float, "reason": str}."""
    import logging

    import onnx

    onnx_file = Path(onnx_file)
    model_type = str(config.get("model_type") or "")
    if MODEL_TYPES.get(model_type) != "bert":
        return {"fused": False, "reason": f"model_type {model_type!r} is not a BERT-like encoder"}
    if _has_external_data(onnx_file):
        return {"fused": False, "reason": "weights in external data (a model over 2 GB) are left unfused"}
    heads = int(config.get("num_attention_heads", 0) or 0)
    hidden = int(config.get("hidden_size", 0) or 0)
    layers = int(config.get("num_hidden_layers", 0) or 0)
    if heads <= 0 or hidden <= 0 or layers <= 0:
        return {"fused": False, "reason": "config.json lacks num_attention_heads, hidden_size or num_hidden_layers"}

    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    with tempfile.TemporaryDirectory(prefix="sieve-fuse-") as work:
        basic = Path(work) / "basic.onnx"
        ort_optimize(onnx_file, basic, level=1)
        options = FusionOptions("bert")
        options.enable_skip_layer_norm = False
        # The optimizer logs its guesses about the exporter at warning level.
        quiet = logging.getLogger("onnxruntime.transformers")
        previous = quiet.level
        quiet.setLevel(logging.ERROR)
        try:
            optimized = optimize_model(str(basic), model_type="bert", num_heads=heads, hidden_size=hidden,
                                       opt_level=0, optimization_options=options, use_gpu=False)
        finally:
            quiet.setLevel(previous)
        model = optimized.model
    counts = {op: n for op, n in fused_operator_counts(model).items() if n}
    report: dict = {"fused": False, "fused_operators": counts}
    attention = counts.get("Attention", 0) + counts.get("MultiHeadAttention", 0)
    if attention < layers:
        report["reason"] = f"attention fused in {attention} of {layers} layers"
        return report
    vocab = int(config.get("vocab_size", 0) or 0) or 30522
    difference = fused_parity(onnx_file, model, vocab)
    report["max_difference"] = difference
    if not difference <= atol:
        report["reason"] = f"the fused graph's outputs differ by {difference:.3g} (more than {atol:g})"
        return report
    onnx.save(model, str(onnx_file))
    report["fused"] = True
    return report


def format_fusion(report: dict) -> str:
    counts = ", ".join(f"{op} {n}" for op, n in report.get("fused_operators", {}).items()) or "none"
    if report.get("fused"):
        return f"fused graph ({counts}; largest output difference {report['max_difference']:.2g})"
    return f"graph left unfused: {report.get('reason', 'unknown')} (fused operators found: {counts})"
