"""`sieve-export quantize`: INT8 models with onnxruntime.quantization.

Dynamic (`--mode dynamic`, quantize_dynamic): weights quantized ahead of time,
activations quantized at run time from their own range; nothing to calibrate.
Static (`--mode static`, quantize_static, QDQ format): activation ranges fixed
from calibration texts (sieve_tools.calibration) by min-max, entropy or
percentile calibration.

The --config presets follow optimum's AutoQuantizationConfig:

    avx2         uint8 weights, reduce_range (7-bit weights: no u8*u8 saturation without VNNI)
    avx512       int8 weights
    avx512_vnni  int8 weights (VNNI dot products)
    arm64        int8 weights

activations uint8 (asymmetric), weights symmetric; --per-channel quantizes
each output channel of a weight with its own scale.

--blockwise-nodes REGEX (dynamic mode) quantizes the MatMuls whose names match
block-wise instead (ONNX Runtime's MatMulNBits, 8 bits, accuracy level 4):
weights symmetric in blocks of --block-size along the input dimension, and
activations quantized at run time per block of the same size rather than per
tensor. That follows activations with a few very large channels, such as
the input of a BERT layer's FFN output projection (what GELU gives), which
per-tensor scales flatten: on all-MiniLM-L6-v2 it lifts mean cosine to FP32
from 0.993 to 0.996 for a few percent of speed (bench/RESULTS.md).

Every quantized model is measured against the float model before it is kept
(accuracy.py): on a text sample its vectors' mean cosine to the float model's
(a cross-encoder's: the correlation of its scores) must reach --min-cosine
(default 0.99), or nothing is written; --force writes it anyway, with a
warning. The figures go into the folder's sieve_accuracy.json, which
`sieve info` shows.

The model is first pre-processed (onnxruntime.quantization.shape_inference.
quant_pre_process: symbolic shape inference and ONNX Runtime's basic graph
optimizations), which lets the quantizer see every tensor's shape; an input
whose pre-processing fails is quantized as it is, with a warning.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from .model_folder import ToolError, detect_kind, log, onnx_path, read_config, warn, write_folder

CONFIGS = {
    "avx2": {"weight_type": "QUInt8", "reduce_range": True},
    "avx512": {"weight_type": "QInt8", "reduce_range": False},
    "avx512_vnni": {"weight_type": "QInt8", "reduce_range": False},
    "arm64": {"weight_type": "QInt8", "reduce_range": False},
}
METHODS = ("minmax", "entropy", "percentile")
# The operators quantized unless --op-types says otherwise: the matrix products
# (MatMul, and the fused Attention of an optimized model), and the embedding
# tables (Gather, or the fused EmbedLayerNormalization) in dynamic mode.
DYNAMIC_OP_TYPES = ("MatMul", "Attention", "Gather", "EmbedLayerNormalization")
STATIC_OP_TYPES = ("MatMul", "Gather")
# The MatMuls of each transformer's feed-forward layers, as optimum's exports name them (BERT, RoBERTa,
# XLM-RoBERTa, MPNet, ELECTRA, DeBERTa-v2, RoFormer: layer.N/intermediate|output/dense; DistilBERT: ffn/lin1|2;
# ModernBERT: mlp/Wi|Wo; T5: DenseReluDense/wi*|wo; Qwen, Gemma: mlp/gate|up|down_proj).
FFN_OUTPUT = r"(layer\.\d+/output/dense|ffn/lin2|mlp/(Wo|down_proj|fc2)|DenseReluDense/wo)/MatMul"
FFN_ALL = (r"(layer\.\d+/(intermediate|output)/dense|ffn/lin[12]|mlp/(Wi|Wo|gate_proj|up_proj|down_proj|fc1|fc2)"
           r"|DenseReluDense/w[io]\w*)/MatMul")
FALLBACKS = ((FFN_OUTPUT, "the feed-forward output projections kept in float"),
             (FFN_ALL, "the feed-forward layers kept in float"))
# Architectures (config.json model_type) whose default keeps some layers in float. MPNet's feed-forward
# activations have outlier channels: all-mpnet-base-v2 quantized whole (per channel) keeps a mean cosine of
# 0.88 to the float model on prose, with its feed-forward output projections in float 0.990, with both
# feed-forward projections in float 0.998 (bench/RESULTS.md).
ARCHITECTURE_FLOAT_NODES = {"mpnet": FFN_ALL}
# ONNX's shape inference gives no types for the outputs of ONNX Runtime's
# fused operators (Attention, BiasGelu, ...), so a fused graph's tensors would
# be untyped to the quantizer; every float tensor of these models is float32.
_FLOAT_DEFAULT = {"DefaultTensorType": 1}  # onnx.TensorProto.FLOAT


def preprocess(source: Path, dest: Path) -> Path:
    """quant_pre_process into `dest`: with symbolic shape inference, else
    (some exported graphs defeat it) without; the original file when both fail."""
    from onnxruntime.quantization.shape_inference import quant_pre_process

    errors = []
    for skip_symbolic in (False, True):
        try:
            quant_pre_process(str(source), str(dest), skip_optimization=False, skip_onnx_shape=False,
                              skip_symbolic_shape=skip_symbolic)
            if skip_symbolic:
                log(f"pre-processed {source.name} without symbolic shape inference ({errors[0]})")
            return dest
        except Exception as exc:  # noqa: BLE001 - the quantizer can still work on the original graph
            errors.append(f"{type(exc).__name__}: {exc}")
    warn(f"pre-processing {source} failed ({'; '.join(errors)}); quantizing it as it is")
    return source


@contextlib.contextmanager
def _working_directory(path: Path):
    previous = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def _matching_nodes(model_file: Path, pattern: str, option: str = "--exclude-nodes",
                    op_type: str | None = None) -> list[str]:
    """Names of the nodes (of `op_type`, when given) whose name matches the
    regular expression `pattern` (re.search)."""
    import re

    import onnx

    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"{option} {pattern!r} is not a regular expression: {exc}") from exc
    model = onnx.load(str(model_file), load_external_data=False)
    names = [n.name for n in model.graph.node
             if n.name and regex.search(n.name) and (op_type is None or n.op_type == op_type)]
    if not names:
        kind = f"{op_type} node" if op_type else "node"
        raise ToolError(f"{option} {pattern!r} matches no {kind} of {model_file.name}")
    return names


def _blockwise(model_file: Path, dest: Path, nodes: list[str], block_size: int) -> None:
    """The MatMuls `nodes` of `model_file` as 8-bit MatMulNBits (symmetric
    weight blocks, per-block INT8 activations at run time) into `dest`."""
    import logging

    import onnx
    from onnxruntime.quantization import matmul_nbits_quantizer as nbits

    # The quantizer logs a line for every node it looks at.
    logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer").setLevel(logging.WARNING)
    config = nbits.DefaultWeightOnlyQuantConfig(block_size=block_size, is_symmetric=True, accuracy_level=4,
                                                bits=8)
    quantizer = nbits.MatMulNBitsQuantizer(onnx.load(str(model_file)), bits=8, block_size=block_size,
                                           is_symmetric=True, accuracy_level=4, nodes_to_include=nodes,
                                           algo_config=config)
    quantizer.process()
    quantizer.model.save_model_to_file(str(dest), use_external_data_format=False)
    done = sum(1 for n in onnx.load(str(dest), load_external_data=False).graph.node if n.op_type == "MatMulNBits")
    if done != len(nodes):
        raise ToolError(f"--blockwise-nodes: {done} of the {len(nodes)} matching MatMuls could be quantized "
                        "block-wise (each needs a constant weight whose input dimension is a multiple of 16)")


def quantize(src: Path, out: Path, *, mode: str = "dynamic", config: str = "avx512_vnni",
             per_channel: bool = False, op_types: list[str] | None = None, calibration: Path | None = None,
             calibration_size: int = 500, calibration_skip: int = 0, method: str = "minmax",
             calibration_batch_size: int = 1, pre_process: bool = True,
             exclude_nodes: str | None = None, blockwise_nodes: str | None = None, block_size: int = 128,
             check: bool = True, check_texts: Path | None = None, check_size: int | None = None,
             min_cosine: float | None = None, force: bool = False) -> dict:
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_dynamic, quantize_static

    if config not in CONFIGS:
        raise ToolError(f"unknown --config {config!r} (one of {', '.join(CONFIGS)})")
    if mode not in ("dynamic", "static"):
        raise ToolError(f"unknown --mode {mode!r} (dynamic or static)")
    if blockwise_nodes is not None and mode != "dynamic":
        raise ToolError("--blockwise-nodes works with --mode dynamic only")
    if block_size < 16 or block_size & (block_size - 1):
        raise ToolError(f"--block-size {block_size}: a power of 2, at least 16")
    src = Path(src).resolve()  # absolute: the work below runs in a temporary directory
    source = onnx_path(src)
    preset = CONFIGS[config]
    weight_type = getattr(QuantType, preset["weight_type"])
    report = {"input": str(src), "output": str(out), "mode": mode, "config": config, "per_channel": per_channel,
              "weight_type": preset["weight_type"], "reduce_range": preset["reduce_range"]}

    from . import accuracy

    threshold = accuracy.DEFAULT_MIN_COSINE if min_cosine is None else min_cosine
    if not 0.0 < threshold <= 1.0:
        raise ToolError(f"--min-cosine {threshold}: a number in (0, 1]")
    kind = detect_kind(src, source)
    if check and (src / "llm_reranker.json").is_file():
        warn(f"{src}: the accuracy check does not cover causal LM rerankers yet; the variant is not measured")
        check = False
    if check:
        sample, sample_name = accuracy.check_texts(check_texts, kind, check_size or accuracy.DEFAULT_CHECK_SIZE)

    if mode == "static":
        if calibration is None:
            raise ToolError("--mode static needs --calibration TEXTS.txt (one text per line)")
        if method not in METHODS:
            raise ToolError(f"unknown --method {method!r} (one of {', '.join(METHODS)})")
        from .calibration import data_reader, read_texts

        texts = read_texts(Path(calibration), limit=calibration_size, skip=calibration_skip)
        report.update(calibration=str(calibration), calibration_texts=len(texts), method=method)

    # What stays in float: the user's --exclude-nodes; else the architecture's default, and when the check
    # finds a default model below the threshold, the feed-forward layers' output projections, then the whole
    # feed-forward layers (where activations have outlier channels that per-tensor INT8 flattens).
    user_chose = op_types is not None or exclude_nodes is not None or blockwise_nodes is not None
    model_type = str(read_config(src).get("model_type") or "")
    if user_chose:
        plans = [(exclude_nodes, None)]
    else:
        first = ARCHITECTURE_FLOAT_NODES.get(model_type)
        plans = [(first, f"{model_type}'s default: its feed-forward layers kept in float") if first else (None, None)]
        if check:
            plans += [(p, why) for p, why in FALLBACKS if p != first]

    def quantize_into(tmp: Path, work: Path, model_in: Path, exclude: str | None) -> list[str]:
        excluded = _matching_nodes(model_in, exclude) if exclude else []
        report["excluded_nodes"] = excluded
        blockwise = (_matching_nodes(model_in, blockwise_nodes, "--blockwise-nodes", "MatMul")
                     if blockwise_nodes else [])
        blockwise = [n for n in blockwise if n not in excluded]
        if mode == "dynamic":
            types = list(op_types or DYNAMIC_OP_TYPES)
            dynamic_out = work / "dynamic.onnx" if blockwise else tmp / "model.onnx"
            quantize_dynamic(str(model_in), str(dynamic_out), op_types_to_quantize=types,
                             per_channel=per_channel, reduce_range=preset["reduce_range"],
                             weight_type=weight_type, nodes_to_exclude=excluded + blockwise,
                             extra_options={"MatMulConstBOnly": True, **_FLOAT_DEFAULT})
            if blockwise:
                _blockwise(dynamic_out, tmp / "model.onnx", blockwise, block_size)
                report.update(blockwise_nodes=blockwise, block_size=block_size)
        else:
            types = list(op_types or STATIC_OP_TYPES)
            names = [i.name for i in ort.InferenceSession(str(model_in), providers=["CPUExecutionProvider"])
                     .get_inputs()]
            reader = data_reader(src, texts, names, kind, calibration_batch_size, same_length=method != "minmax")
            calibrate = {"minmax": CalibrationMethod.MinMax, "entropy": CalibrationMethod.Entropy,
                         "percentile": CalibrationMethod.Percentile}[method]
            quantize_static(str(model_in), str(tmp / "model.onnx"), reader, quant_format=QuantFormat.QDQ,
                            op_types_to_quantize=types, per_channel=per_channel,
                            reduce_range=preset["reduce_range"], activation_type=QuantType.QUInt8,
                            weight_type=weight_type, calibrate_method=calibrate, nodes_to_exclude=excluded,
                            extra_options={"ActivationSymmetric": False, "WeightSymmetric": True,
                                           "MatMulConstBOnly": True, **_FLOAT_DEFAULT})
        report["op_types"] = types
        return types

    def write(tmp: Path) -> None:
        # In a temporary working directory: quant_pre_process and the
        # calibrator write scratch files (sym_shape_infer_temp.onnx,
        # <uuid>.data) into the current directory.
        with tempfile.TemporaryDirectory(prefix="sieve-quantize-") as work, _working_directory(Path(work)):
            model_in = preprocess(source, Path(work) / "pre.onnx") if pre_process else source
            report["preprocessed"] = model_in != source
            record = None
            for attempt, (exclude, why) in enumerate(plans):
                if exclude and not user_chose:
                    try:
                        _matching_nodes(model_in, exclude)
                    except ToolError:  # this graph names its layers otherwise
                        if attempt > 0:
                            continue
                        exclude, why = None, None
                if record is not None:
                    log(f"{figures}, below --min-cosine {threshold}: trying again with {why}")
                types = quantize_into(tmp, Path(work), model_in, exclude)
                if why:
                    report["float_layers"] = why
                if not check:
                    break
                measured = accuracy.measure(src, source, tmp / "model.onnx", kind, sample)
                variant = (f"INT8 {mode} ({config}{', per channel' if per_channel else ''}; ops {' '.join(types)}"
                           + (f"; {why}" if why else "") + ")")
                record = accuracy.record(measured, sample=sample_name, threshold=threshold, variant=variant)
                figures = (f"mean {record['metric']} {record['mean']:.4f} (min {record['min']:.4f}) against the "
                           f"float model on {record['texts']} texts")
                if record["passed"]:
                    break
            report["accuracy"] = record
            if record is None:
                return
            (tmp / accuracy.RECORD).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n",
                                               encoding="utf-8")
            if record["passed"]:
                log(f"accuracy: {figures} (at least {threshold})")
            elif not force:
                raise ToolError(f"the quantized model lost accuracy: {figures}, below --min-cosine {threshold}; "
                                "nothing was written. Try --per-channel, --mode static, fewer --op-types, "
                                "--exclude-nodes REGEX for the layers to keep in float, or --force to write it anyway")
            else:
                warn(f"THE QUANTIZED MODEL LOST ACCURACY: {figures}, below --min-cosine {threshold}; written "
                     f"anyway (--force) and recorded in {out / accuracy.RECORD}")

    write_folder(src, out, write)
    blockwise_note = f", {len(report['blockwise_nodes'])} MatMuls block-wise" if "blockwise_nodes" in report else ""
    log(f"quantized {src} ({mode}, {config}{', per channel' if per_channel else ''}{blockwise_note}) into {out}")
    return report
