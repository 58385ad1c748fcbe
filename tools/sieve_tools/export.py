"""`sieve-export export`: a PyTorch checkpoint to a Sieve model folder, with
optimum's ONNX exporter (`optimum.exporters.onnx.main_export`, package
optimum-onnx), then checked against PyTorch.

Task: feature extraction for embedders (a sentence-transformers folder, or any
model without a classification head): the ONNX output is `last_hidden_state`
[batch, sequence, hidden], which Sieve pools as the folder's 1_Pooling says;
text classification for cross-encoders and classifiers (config.json
architectures `*ForSequenceClassification`, single- or multi-label): the output
is `logits` [batch, labels]; llm-reranker for a causal language model used as a
reranker (the Qwen3-Reranker kind, `*ForCausalLM`; see llm_reranker.py): the
output is `logits` [batch, 2], its "no" and "yes" logits, with llm_reranker.json
beside it; sparse for a SPLADE sparse encoder (see sparse.py): the output is
`sparse_embedding` [batch, vocab], the SPLADE pooling included; bge-m3 for
BGE-M3 (see bge_m3.py): token states, per-token sparse weights and ColBERT
vectors from one graph. Batch and sequence axes are dynamic. `auto` picks
bge-m3 for a folder with colbert_linear.pt and sparse_linear.pt, sparse for a sentence-transformers
SparseEncoder folder (modules.json naming SpladePooling or another
sparse_encoder module; a plain `*ForMaskedLM` needs --task sparse), feature
extraction for any other sentence-transformers folder, text classification for
`*ForSequenceClassification`, llm-reranker for `*ForCausalLM` without
modules.json, else feature extraction.

Encoder-decoder models used as embedders (T5, mT5, UMT5: sentence-T5, GTR)
are exported as their encoder alone (transformers' *EncoderModel, with
torch.onnx.export): optimum would export the decoder too, whose inputs an
embedder has no use for.

Checks on the written file: the inputs (input_ids, attention_mask, and
token_type_ids when the model has them, int64 [batch, sequence]), the output
name, rank and dynamic axes, and the outputs of ONNX Runtime against the
PyTorch model on a few texts (token states and mean-pooled vectors for an
embedder, logits for a cross-encoder) within --atol.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np

from .model_folder import (CROSS_ENCODER, EMBEDDER, SPARSE, ToolError, is_sparse_folder, log, read_config, read_json,
                           write_folder)

TASKS = ("auto", "feature-extraction", "text-classification", "llm-reranker", "sparse", "bge-m3")

CHECK_TEXTS = [
    "A man is eating food.",
    "The quick brown fox jumps over the lazy dog, and keeps running far beyond the hills.",
    "Sieve runs embedding models locally.",
    "Café crème brûlée, 東京, Съешь же ещё.",
    "a",
]
CHECK_PAIRS = [
    ("How many people live in Berlin?", "Berlin has a population of 3.5 million registered inhabitants."),
    ("How many people live in Berlin?", "New York City is famous for the Metropolitan Museum of Art."),
    ("what is a cat", "Cats are small domesticated carnivorous mammals."),
    ("what is a cat", "a"),
]

# Files a hub download needs besides the weights (ONNX export loads the weights itself).
_HUB_PATTERNS = ["*.json", "*.txt", "*.model", "1_Pooling/*", "2_Dense/*", "2_Normalize/*", "3_Normalize/*"]


# model_type -> the transformers class of its encoder alone.
ENCODER_ONLY = {"t5": "T5EncoderModel", "mt5": "MT5EncoderModel", "umt5": "UMT5EncoderModel"}


def encoder_only_class(folder: Path | None, kind: str):
    """The encoder class to export for an encoder-decoder embedder, else None."""
    if folder is None or kind != EMBEDDER:
        return None
    name = ENCODER_ONLY.get(str(read_config(folder).get("model_type", "")))
    if name is None:
        return None
    import transformers

    return getattr(transformers, name)


def export_encoder(encoder_class, source: str, out_file: Path, opset: int | None) -> None:
    """The encoder of an encoder-decoder model: input_ids and attention_mask to
    last_hidden_state, batch and sequence axes dynamic."""
    import warnings

    import torch

    model = encoder_class.from_pretrained(source).eval()

    class Encoder(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    ids = torch.ones(2, 7, dtype=torch.long)
    axes = {0: "batch_size", 1: "sequence_length"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(Encoder(model), (ids, torch.ones_like(ids)), str(out_file),
                          input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes},
                          opset_version=opset or 17, dynamo=False)


def resolve_task(folder: Path | None, task: str) -> str:
    if task != "auto":
        return task
    if folder is None:
        return "feature-extraction"
    if is_sparse_folder(folder):
        return "sparse"
    from .bge_m3 import is_bge_m3_folder

    if is_bge_m3_folder(folder):
        return "bge-m3"
    if (folder / "modules.json").is_file():
        return "feature-extraction"
    archs = read_config(folder).get("architectures") or []
    if any(str(a).endswith("ForSequenceClassification") for a in archs):
        return "text-classification"
    # Without a sentence-transformers pooling, a causal LM's token states have
    # no defined embedding: the LLM rerankers (Qwen3-Reranker) are such folders.
    if any(str(a).endswith("ForCausalLM") for a in archs):
        return "llm-reranker"
    return "feature-extraction"


def _local_or_download(model: str) -> tuple[Path, bool]:
    path = Path(model)
    if path.is_dir():
        return path, True
    if path.exists() or model.startswith((".", "/")):
        raise ToolError(f"{model}: not a model folder")
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:  # pragma: no cover
        raise ToolError(f"{model}: not a local folder, and huggingface_hub is not installed") from exc
    log(f"{model}: not a local folder; fetching its configuration and tokenizer files from the Hugging Face Hub")
    return Path(snapshot_download(model, allow_patterns=_HUB_PATTERNS)), False


def _installed(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a missing parent package
        return False


def export(model: str, out: Path, *, task: str = "auto", opset: int | None = None, atol: float = 1e-4,
           check: bool = True, texts: list[str] | None = None, instruction: str | None = None,
           fuse: bool = True) -> dict:
    # Found, not imported: importing them takes seconds, which a refused folder need not wait.
    if not all(map(_installed, ("torch", "transformers", "optimum.exporters.onnx"))):
        raise ToolError("`sieve-export export` needs torch, transformers and optimum-onnx: install "
                        "`pip install 'sieve-tools[export]'` (scripts/setup_export_env.sh makes .venv-export)")

    src, local = _local_or_download(model)
    if not (src / "config.json").is_file():
        raise ToolError(f"{model}: no config.json (not a transformers model folder)")
    resolved = resolve_task(src, task)
    if resolved not in TASKS[1:]:
        raise ToolError(f"unknown task {task!r} (one of {', '.join(TASKS)})")
    if instruction is not None and resolved != "llm-reranker":
        raise ToolError(f"--instruction is for --task llm-reranker (this export's task is {resolved})")
    if resolved != "sparse" and is_sparse_folder(src):
        raise ToolError(f"{model}: a sentence-transformers SparseEncoder folder exports with --task sparse "
                        f"(or auto), not {resolved}")
    kind = {"feature-extraction": EMBEDDER, "sparse": SPARSE}.get(resolved, CROSS_ENCODER)
    source = str(src) if local else model
    report: dict = {"model": model, "task": resolved, "kind": kind, "output": str(out)}
    if resolved == "llm-reranker":
        from . import llm_reranker

        return llm_reranker.export(src, source, out, opset=opset, atol=atol, check=check, instruction=instruction,
                                   pairs=CHECK_PAIRS, report=report)
    if resolved == "bge-m3":
        from . import bge_m3

        if not local:
            raise ToolError(f"{model}: --task bge-m3 exports a local folder (with colbert_linear.pt and "
                            "sparse_linear.pt)")
        return bge_m3.export(src, source, out, opset=opset, atol=atol, check=check, texts=texts or CHECK_TEXTS,
                             report=report)
    if resolved == "sparse":
        from . import sparse

        return sparse.export(src, source, out, opset=opset, atol=atol, check=check, texts=texts or CHECK_TEXTS,
                             report=report)
    from optimum.exporters.onnx import main_export

    log(f"exporting {model} ({kind}, task {resolved}) with optimum")

    encoder_class = encoder_only_class(src if local else None, kind)

    def fuse_into(onnx_file: Path) -> None:
        # Before the check against PyTorch, so that it covers the file as written.
        if not fuse:
            return
        from .optimize import format_fusion, fuse_graph

        report["fusion"] = fuse_graph(onnx_file, read_config(src), atol=atol)
        log(format_fusion(report["fusion"]))

    def write(tmp: Path) -> None:
        if encoder_class is not None:
            log(f"exporting the encoder alone ({encoder_class.__name__})")
            export_encoder(encoder_class, source, tmp / "model.onnx", opset)
            fuse_into(tmp / "model.onnx")
            if check:
                report["check"] = check_export(tmp / "model.onnx", source, kind, texts=texts, atol=atol,
                                               model_class=encoder_class)
            return
        work = Path(tempfile.mkdtemp(prefix=".optimum-", dir=tmp))
        # library_name="transformers": the graph ends at the token states
        # (last_hidden_state) or the logits; Sieve pools and normalizes as the
        # folder's sentence-transformers files say.
        main_export(source, output=work, task=resolved, opset=opset, library_name="transformers",
                    framework="pt", device="cpu", do_validation=False, local_files_only=local,
                    no_dynamic_axes=False)
        exported = work / "model.onnx"
        if not exported.is_file():
            raise ToolError(f"optimum wrote no model.onnx (files: {sorted(p.name for p in work.iterdir())})")
        for item in work.iterdir():
            # model.onnx and any external data; of the tokenizer and configuration
            # files transformers re-saved, only those the input folder lacks
            # (its own files are copied unchanged).
            if item.is_file() and (item.name.startswith("model.onnx") or not (src / item.name).exists()):
                shutil.move(str(item), tmp / item.name)
        shutil.rmtree(work)
        fuse_into(tmp / "model.onnx")
        if check:
            report["check"] = check_export(tmp / "model.onnx", src if local else model, kind,
                                           texts=texts, atol=atol)

    write_folder(src, out, write)
    log(f"wrote {out}")
    return report


def check_io(onnx_file: Path, kind: str) -> dict:
    """Input and output names, types and dynamic axes, as Sieve needs them."""
    import onnx

    model = onnx.load(str(onnx_file), load_external_data=False)
    inputs = {i.name: i for i in model.graph.input}
    outputs = {o.name: o for o in model.graph.output}
    problems = []

    def dims(value):
        return [d.dim_param or (d.dim_value if d.HasField("dim_value") else "?")
                for d in value.type.tensor_type.shape.dim]

    for name in ("input_ids", "attention_mask"):
        if name not in inputs:
            problems.append(f"input {name} is missing (inputs: {', '.join(inputs)})")
    for name, value in inputs.items():
        if value.type.tensor_type.elem_type != onnx.TensorProto.INT64:
            problems.append(f"input {name} is not int64")
        d = dims(value)
        if len(d) != 2 or any(isinstance(x, int) for x in d):
            problems.append(f"input {name} has shape {d}, expected two dynamic axes [batch, sequence]")
    want = "logits" if kind == CROSS_ENCODER else "last_hidden_state"
    if want not in outputs:
        problems.append(f"output {want} is missing (outputs: {', '.join(outputs)})")
    else:
        d = dims(outputs[want])
        rank = 2 if kind == CROSS_ENCODER else 3
        dynamic = d[:1] if kind == CROSS_ENCODER else d[:2]
        if len(d) != rank or any(isinstance(x, int) for x in dynamic):
            problems.append(f"output {want} has shape {d}, expected rank {rank} with dynamic batch"
                            + ("" if kind == CROSS_ENCODER else " and sequence") + " axes")
    if problems:
        raise ToolError(f"{onnx_file}: " + "; ".join(problems))
    return {"inputs": {n: dims(v) for n, v in inputs.items()}, "outputs": {n: dims(v) for n, v in outputs.items()}}


def check_export(onnx_file: Path, source, kind: str, *, texts: list[str] | None = None,
                 atol: float = 1e-4, model_class=None) -> dict:
    """Compare ONNX Runtime on `onnx_file` with the PyTorch model `source`."""
    import onnxruntime as ort
    import torch
    from transformers import AutoModel, AutoModelForSequenceClassification, AutoTokenizer

    io = check_io(onnx_file, kind)
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    if tokenizer.pad_token is None:  # decoders often have none; any id works under the mask
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    if kind == CROSS_ENCODER:
        torch_model = AutoModelForSequenceClassification.from_pretrained(str(source))
        pairs = CHECK_PAIRS
        batch = tokenizer([q for q, _ in pairs], [d for _, d in pairs], padding=True, truncation=True,
                          return_tensors="np")
    else:
        torch_model = (model_class or AutoModel).from_pretrained(str(source))
        batch = tokenizer(texts or CHECK_TEXTS, padding=True, truncation=True, max_length=128, return_tensors="np")
    torch_model.eval()
    session = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    feeds = {n: batch[n].astype(np.int64) for n in names if n in batch}
    if "token_type_ids" in names and "token_type_ids" not in feeds:
        feeds["token_type_ids"] = np.zeros_like(feeds["input_ids"])
    if "position_ids" in names and "position_ids" not in feeds:
        # As transformers computes them from the mask (and as Sieve feeds them).
        mask = feeds["attention_mask"]
        feeds["position_ids"] = np.where(mask == 0, 1, np.cumsum(mask, axis=1) - 1).astype(np.int64)
    want = "logits" if kind == CROSS_ENCODER else "last_hidden_state"
    got = session.run([want], feeds)[0]
    with torch.no_grad():
        result = torch_model(**{n: torch.from_numpy(v) for n, v in feeds.items()})
    ref = (result.logits if kind == CROSS_ENCODER else result.last_hidden_state).numpy()
    if got.shape != ref.shape:
        raise ToolError(f"{onnx_file}: {want} has shape {got.shape}, PyTorch gives {ref.shape}")
    summary: dict = {"io": io, "atol": atol}
    if kind == CROSS_ENCODER:
        diff = float(np.abs(got - ref).max())
        summary["logits_max_abs_diff"] = diff
        failed = diff > atol
    else:
        mask = feeds["attention_mask"].astype(bool)
        diff = float(np.abs(got - ref)[mask].max())
        m = feeds["attention_mask"][:, :, None].astype(np.float32)
        pooled_got = (got * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        pooled_ref = (ref * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        pooled_diff = float(np.abs(pooled_got - pooled_ref).max())
        summary.update(token_max_abs_diff=diff, mean_pooled_max_abs_diff=pooled_diff)
        failed = diff > atol * max(1.0, float(np.abs(ref).max())) or pooled_diff > atol
    log("check against PyTorch: " + ", ".join(f"{k} {v:.3g}" for k, v in summary.items() if k.endswith("diff")))
    if failed:
        raise ToolError(f"{onnx_file}: ONNX Runtime and PyTorch differ by more than {atol}: {summary}")
    return summary


def st_modules_present(folder: Path) -> bool:
    modules = read_json(Path(folder) / "modules.json")
    return isinstance(modules, list) and bool(modules)
