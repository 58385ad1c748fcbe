"""`sieve-export fp16`: FP16 weights and compute for GPUs, with ONNX Runtime's
float16 converter (onnxruntime.transformers OnnxModel.convert_float_to_float16)
and keep_io_types: the inputs and outputs stay int64/float32, so Sieve feeds
and reads the model as before.

ONNX Runtime's CPU provider has few float16 kernels: on the CPU such a model
fails to load, or runs with casts around most operators, slower than FP32.
Use it with the CUDA provider (`--provider cuda`).
"""

from __future__ import annotations

from pathlib import Path

from .model_folder import log, onnx_path, save_onnx, warn, write_folder

CPU_WARNING = ("FP16 models are meant for GPUs: ONNX Runtime's CPU provider lacks float16 kernels for most "
               "operators, so on the CPU the model fails to load or runs slowly with casts")


def convert(src: Path, out: Path, *, keep_io_types: bool = True, op_block_list: list[str] | None = None) -> dict:
    import onnx
    from onnxruntime.transformers.onnx_model import OnnxModel

    src = Path(src)
    model = OnnxModel(onnx.load(str(onnx_path(src))))
    kwargs = {"keep_io_types": keep_io_types}
    if op_block_list:
        kwargs["op_block_list"] = op_block_list
    model.convert_float_to_float16(**kwargs)
    warn(CPU_WARNING)

    def write(tmp: Path) -> None:
        save_onnx(model.model, tmp / "model.onnx")

    write_folder(src, out, write)
    log(f"converted {src} to FP16 (inputs/outputs kept: {keep_io_types}) into {out}")
    return {"input": str(src), "output": str(out), "keep_io_types": keep_io_types}
