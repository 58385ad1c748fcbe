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

The model is first pre-processed (onnxruntime.quantization.shape_inference.
quant_pre_process: symbolic shape inference and ONNX Runtime's basic graph
optimizations), which lets the quantizer see every tensor's shape; an input
whose pre-processing fails is quantized as it is, with a warning.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .model_folder import ToolError, detect_kind, log, onnx_path, warn, write_folder

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


def _matching_nodes(model_file: Path, pattern: str) -> list[str]:
    """Names of the nodes whose name matches the regular expression `pattern` (re.search)."""
    import re

    import onnx

    regex = re.compile(pattern)
    model = onnx.load(str(model_file), load_external_data=False)
    names = [n.name for n in model.graph.node if n.name and regex.search(n.name)]
    if not names:
        raise ToolError(f"--exclude-nodes {pattern!r} matches no node of {model_file.name}")
    return names


def quantize(src: Path, out: Path, *, mode: str = "dynamic", config: str = "avx512_vnni",
             per_channel: bool = False, op_types: list[str] | None = None, calibration: Path | None = None,
             calibration_size: int = 500, calibration_skip: int = 0, method: str = "minmax",
             calibration_batch_size: int = 1, pre_process: bool = True,
             exclude_nodes: str | None = None) -> dict:
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_dynamic, quantize_static

    if config not in CONFIGS:
        raise ToolError(f"unknown --config {config!r} (one of {', '.join(CONFIGS)})")
    if mode not in ("dynamic", "static"):
        raise ToolError(f"unknown --mode {mode!r} (dynamic or static)")
    src = Path(src).resolve()  # absolute: the work below runs in a temporary directory
    source = onnx_path(src)
    preset = CONFIGS[config]
    weight_type = getattr(QuantType, preset["weight_type"])
    report = {"input": str(src), "output": str(out), "mode": mode, "config": config, "per_channel": per_channel,
              "weight_type": preset["weight_type"], "reduce_range": preset["reduce_range"]}

    if mode == "static":
        if calibration is None:
            raise ToolError("--mode static needs --calibration TEXTS.txt (one text per line)")
        if method not in METHODS:
            raise ToolError(f"unknown --method {method!r} (one of {', '.join(METHODS)})")
        from .calibration import data_reader, read_texts

        texts = read_texts(Path(calibration), limit=calibration_size, skip=calibration_skip)
        report.update(calibration=str(calibration), calibration_texts=len(texts), method=method)

    def write(tmp: Path) -> None:
        # In a temporary working directory: quant_pre_process and the
        # calibrator write scratch files (sym_shape_infer_temp.onnx,
        # <uuid>.data) into the current directory.
        with tempfile.TemporaryDirectory(prefix="sieve-quantize-") as work, _working_directory(Path(work)):
            model_in = preprocess(source, Path(work) / "pre.onnx") if pre_process else source
            report["preprocessed"] = model_in != source
            excluded = _matching_nodes(model_in, exclude_nodes) if exclude_nodes else []
            report["excluded_nodes"] = excluded
            if mode == "dynamic":
                types = list(op_types or DYNAMIC_OP_TYPES)
                quantize_dynamic(str(model_in), str(tmp / "model.onnx"), op_types_to_quantize=types,
                                 per_channel=per_channel, reduce_range=preset["reduce_range"],
                                 weight_type=weight_type, nodes_to_exclude=excluded,
                                 extra_options={"MatMulConstBOnly": True, **_FLOAT_DEFAULT})
            else:
                types = list(op_types or STATIC_OP_TYPES)
                names = [i.name for i in ort.InferenceSession(str(model_in), providers=["CPUExecutionProvider"])
                         .get_inputs()]
                reader = data_reader(src, texts, names, detect_kind(src, source), calibration_batch_size,
                                     same_length=method != "minmax")
                calibrate = {"minmax": CalibrationMethod.MinMax, "entropy": CalibrationMethod.Entropy,
                             "percentile": CalibrationMethod.Percentile}[method]
                quantize_static(str(model_in), str(tmp / "model.onnx"), reader, quant_format=QuantFormat.QDQ,
                                op_types_to_quantize=types, per_channel=per_channel,
                                reduce_range=preset["reduce_range"], activation_type=QuantType.QUInt8,
                                weight_type=weight_type, calibrate_method=calibrate, nodes_to_exclude=excluded,
                                extra_options={"ActivationSymmetric": False, "WeightSymmetric": True,
                                               "MatMulConstBOnly": True, **_FLOAT_DEFAULT})
            report["op_types"] = types

    write_folder(src, out, write)
    log(f"quantized {src} ({mode}, {config}{', per channel' if per_channel else ''}) into {out}")
    return report
