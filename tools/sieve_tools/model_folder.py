"""Sieve model folders: finding the ONNX file, reading the configuration,
telling embedders from cross-encoders, and writing a new folder atomically.

A model folder is `model.onnx` (or `onnx/model.onnx`) next to `tokenizer.json`,
`config.json`, `tokenizer_config.json`, `special_tokens_map.json` and, for
sentence-transformers models, `modules.json`, `sentence_bert_config.json`,
`config_sentence_transformers.json` and the module folders (`1_Pooling/config.json`,
`2_Normalize`, ...). Every subcommand writes a complete folder: the new ONNX
file plus these files copied from its input, built in a temporary sibling and
renamed into place, so an interrupted run never leaves a folder that looks valid.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

EMBEDDER = "embedder"
CROSS_ENCODER = "cross-encoder"
# A SPLADE sparse encoder (sentence-transformers SparseEncoder; sparse.py).
SPARSE = "sparse"

# Weights and files that describe another format or a particular export; they
# are not copied into a new folder (its ONNX file replaces them).
_SKIP_NAMES = {
    "model.safetensors", "pytorch_model.bin", "tf_model.h5", "flax_model.msgpack", "rust_model.ot",
    "model.safetensors.index.json", "pytorch_model.bin.index.json", ".gitattributes",
    "reference.json", "fixture.json",
    # A variant's measured accuracy (accuracy.py) describes that variant's ONNX file only.
    "sieve_accuracy.json",
}
_SKIP_SUFFIXES = (".onnx", ".onnx_data", ".onnx.data", ".safetensors", ".bin", ".pt", ".ckpt", ".h5", ".msgpack")
_SKIP_DIRS = {"onnx", "openvino", "__pycache__", ".git", ".cache"}


class ToolError(Exception):
    """An error for the user: printed as one line, exit status 1."""


def log(message: str) -> None:
    print(f"sieve-export: {message}", file=sys.stderr, flush=True)


def warn(message: str) -> None:
    print(f"sieve-export: warning: {message}", file=sys.stderr, flush=True)


def onnx_path(folder: Path) -> Path:
    """The folder's ONNX file, where Sieve looks for it."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ToolError(f"{folder}: model folder not found")
    for candidate in (folder / "model.onnx", folder / "onnx" / "model.onnx"):
        if candidate.is_file():
            return candidate
    raise ToolError(f"{folder}: no model.onnx (nor onnx/model.onnx)")


def read_json(path: Path) -> dict | list | None:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ToolError(f"{path}: not valid JSON ({exc})") from exc


def read_config(folder: Path) -> dict:
    config = read_json(Path(folder) / "config.json")
    return config if isinstance(config, dict) else {}


def onnx_output_names(path: Path) -> list[str]:
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    return [o.name for o in model.graph.output]


_SPARSE_MODULE_CLASSES = {"SpladePooling", "MLMTransformer", "SparseStaticEmbedding", "SparseAutoEncoder"}


def is_sparse_folder(folder: Path) -> bool:
    """A sentence-transformers SparseEncoder folder: modules.json names a
    sparse_encoder module (SpladePooling, MLMTransformer, SparseStaticEmbedding,
    SparseAutoEncoder), or config_sentence_transformers.json says model_type
    SparseEncoder (e.g. an inference-free Router)."""
    folder = Path(folder)
    modules = read_json(folder / "modules.json")
    if not isinstance(modules, list):
        return False
    for module in modules:
        kind = str(module.get("type", "")) if isinstance(module, dict) else ""
        if kind.rsplit(".", 1)[-1] in _SPARSE_MODULE_CLASSES or ".sparse_encoder." in kind:
            return True
    st = read_json(folder / "config_sentence_transformers.json")
    return isinstance(st, dict) and st.get("model_type") == "SparseEncoder"


def detect_kind(folder: Path, onnx_file: Path | None = None) -> str:
    """embedder, cross-encoder or sparse, as Sieve decides: a folder with
    llm_reranker.json (a causal LM reranker) is a cross-encoder; a
    SparseEncoder folder (is_sparse_folder) sparse; any other
    sentence-transformers folder (modules.json) an embedder; config.json
    architectures naming *ForSequenceClassification a cross-encoder; else the
    ONNX outputs decide (logits: cross-encoder)."""
    folder = Path(folder)
    if (folder / "llm_reranker.json").is_file():
        return CROSS_ENCODER
    if is_sparse_folder(folder):
        return SPARSE
    if (folder / "modules.json").is_file():
        return EMBEDDER
    archs = read_config(folder).get("architectures") or []
    if any(str(a).endswith("ForSequenceClassification") for a in archs):
        return CROSS_ENCODER
    if onnx_file is None:
        try:
            onnx_file = onnx_path(folder)
        except ToolError:
            return EMBEDDER
    return CROSS_ENCODER if "logits" in onnx_output_names(onnx_file) else EMBEDDER


def max_length(folder: Path) -> int:
    """The maximum sequence length Sieve uses for the folder (without --max-length):
    max_seq_length, else model_max_length, else max_position_embeddings; never
    more than the positions. For a cross-encoder, model_max_length (capped)."""
    folder = Path(folder)
    positions = int(read_config(folder).get("max_position_embeddings") or 512)
    candidates = []
    st = read_json(folder / "sentence_bert_config.json")
    if isinstance(st, dict) and st.get("max_seq_length"):
        candidates.append(int(st["max_seq_length"]))
    tc = read_json(folder / "tokenizer_config.json")
    if isinstance(tc, dict) and tc.get("model_max_length") and int(tc["model_max_length"]) < 10**6:
        candidates.append(int(tc["model_max_length"]))
    length = candidates[0] if candidates else positions
    return min(length, positions)


def module_dirs(folder: Path) -> list[str]:
    """The sub-folders modules.json names (its modules after the transformer)."""
    modules = read_json(Path(folder) / "modules.json")
    if not isinstance(modules, list):
        return []
    return [m["path"] for m in modules if isinstance(m, dict) and isinstance(m.get("path"), str) and m["path"]]


def support_files(src: Path) -> list[Path]:
    """The files of `src` a new folder needs besides its ONNX file, relative to `src`:
    configuration and tokenizer files, and the weights of the modules after the
    transformer (Dense, LayerNorm), which Sieve applies itself."""
    src = Path(src)
    keep_weights = {Path(d) for d in module_dirs(src)}
    out = []
    for item in sorted(src.rglob("*")):
        rel = item.relative_to(src)
        if not item.is_file() or any(part in _SKIP_DIRS for part in rel.parts[:-1]):
            continue
        if rel.name == "model.safetensors" and rel.parent in keep_weights:
            out.append(rel)
            continue
        if rel.name in _SKIP_NAMES or rel.name.endswith(_SKIP_SUFFIXES) or rel.name.startswith(".sieve"):
            continue
        out.append(rel)
    return out


def convert_module_weights(src: Path, dest: Path | None = None) -> list[Path]:
    """Writes model.safetensors beside each module's pytorch_model.bin (a pickle,
    which Sieve does not read) that lacks one; `dest` is the folder to write
    into (default: `src` itself). Returns the files written."""
    src = Path(src)
    dest = src if dest is None else Path(dest)
    written = []
    for d in module_dirs(src):
        bin_file, st_file = src / d / "pytorch_model.bin", src / d / "model.safetensors"
        if not bin_file.is_file() or st_file.is_file():
            continue
        import torch
        from safetensors.torch import save_file

        state = torch.load(bin_file, map_location="cpu", weights_only=True)
        target = dest / d / "model.safetensors"
        target.parent.mkdir(parents=True, exist_ok=True)
        save_file({k: v.contiguous() for k, v in state.items()}, str(target))
        log(f"{bin_file} -> {target}")
        written.append(target)
    return written


def copy_support_files(src: Path, dest: Path) -> None:
    src, dest = Path(src), Path(dest)
    for rel in support_files(src):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, target)
    convert_module_weights(src, dest)
    # sentence-transformers saves Normalize as an empty folder, which packages
    # and copies drop: recreate every module path modules.json names.
    modules = read_json(dest / "modules.json")
    if isinstance(modules, list):
        for module in modules:
            if isinstance(module, dict) and module.get("path"):
                (dest / module["path"]).mkdir(parents=True, exist_ok=True)


def replace_folder(tmp: Path, out: Path) -> None:
    """Rename the finished folder `tmp` to `out`. An existing `out` is moved
    aside first, so `out` never mixes old files with new ones."""
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rmdir(old)
        os.rename(out, old)
        os.rename(tmp, out)
        shutil.rmtree(old)
    else:
        os.rename(tmp, out)


def write_folder(src: Path | None, out: Path, write: Callable[[Path], None]) -> Path:
    """Build the folder `out`: `write(tmp)` writes model.onnx (and any external
    data) into a temporary sibling, the support files of `src` are copied next
    to it (files `write` already wrote win), then the sibling is renamed to `out`
    (an existing `out` is replaced)."""
    out = Path(out).resolve()
    if src is not None and Path(src).resolve() == out:
        raise ToolError(f"{out}: the output folder must differ from the input folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    os.chmod(tmp, 0o755)  # mkdtemp makes it 0700; a finished folder should be world-readable
    try:
        write(tmp)
        if not (tmp / "model.onnx").is_file():
            raise ToolError("internal error: no model.onnx was written")
        if src is not None:
            staged = Path(tempfile.mkdtemp(prefix=".support-", dir=tmp))
            copy_support_files(Path(src), staged)
            for item in sorted(staged.rglob("*")):
                rel = item.relative_to(staged)
                target = tmp / rel
                if item.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                elif not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(item, target)
            shutil.rmtree(staged)
        if not (tmp / "tokenizer.json").is_file():
            warn(f"{out}: no tokenizer.json in the folder (Sieve needs one)")
        replace_folder(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


# Protobuf's 2 GiB limit: larger models keep their weights in model.onnx_data.
_EXTERNAL_THRESHOLD = 1_800_000_000


def save_onnx(model, path: Path, *, external: bool | None = None, location: str = "model.onnx_data",
              size_threshold: int = 1024) -> None:
    """onnx.save, with the weights in `location` beside the file when asked or
    when the model is too large for one protobuf."""
    import onnx

    if external is None:
        external = model.ByteSize() > _EXTERNAL_THRESHOLD
    if external:
        onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                  location=location, size_threshold=size_threshold)
    else:
        onnx.save(model, str(path))


def folder_size(folder: Path) -> int:
    """Bytes of the ONNX file and its external data."""
    onnx_file = onnx_path(folder)
    total = onnx_file.stat().st_size
    for extra in onnx_file.parent.iterdir():
        if extra.name != onnx_file.name and extra.name.startswith(onnx_file.name) and extra.is_file():
            total += extra.stat().st_size
    return total
