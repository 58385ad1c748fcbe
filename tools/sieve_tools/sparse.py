"""`sieve-export export --task sparse`: a SPLADE sparse encoder (learned sparse
embeddings: a masked language model whose logits are pooled over the tokens
into one weight per vocabulary entry).

Sources: a sentence-transformers SparseEncoder folder whose modules are the
masked language model (MLMTransformer, or since sentence-transformers 5.4 a
Transformer with transformer_task "fill-mask") and SpladePooling; or, with an
explicit --task sparse, a plain `*ForMaskedLM` folder, which
sentence-transformers loads as those two modules (max pooling, relu). Other
SparseEncoder modules (SparseStaticEmbedding, Router for inference-free
models, SparseAutoEncoder for CSR, Dense, ...) are refused.

The graph takes input_ids, attention_mask (and token_type_ids when the model
has them), int64 [batch, sequence], and gives one output, `sparse_embedding`
float32 [batch, vocab]: the SPLADE pooling is part of the graph,

    w[b, j] = pool over tokens i with attention_mask 1 of log1p(relu(logits[b, i, j]))

(pool max or sum, as 1_SpladePooling/config.json says; activation
"log1p_relu" applies log1p twice). Padded positions count as 0, as
sentence-transformers computes it (logits times the mask, then relu). For max
pooling the maximum is taken over the masked logits first and relu and log1p
are applied to [batch, vocab] only: both are non-decreasing, so the values are
the same. log1p is computed as x * log(1 + x) / ((1 + x) - 1) (exact where
1 + x rounds to 1), so that small weights keep their value rather than
rounding to zero as log(1 + x) would. The [batch, sequence, vocab] logits are
an intermediate, never an output.

The folder is what sentence-transformers' SparseEncoder.save writes (config.json,
tokenizer files, modules.json, sentence_bert_config.json,
config_sentence_transformers.json, 1_SpladePooling/config.json) with
model.onnx in place of the PyTorch weights. Two values sentence-transformers
leaves implicit are written out: sentence_bert_config.json max_seq_length (the
tokenizer's model_max_length capped by the positions, which SparseEncoder
truncates at) and 1_SpladePooling/config.json embedding_dimension (the
vocabulary size); SparseEncoder reads both back.

The check runs ONNX Runtime on a few texts (padded together) against
SparseEncoder.encode: every weight within --atol and the same set of terms
above 1e-3.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from .model_folder import SPARSE, ToolError, log, read_config, read_json, write_folder

TASK = "sparse"
OUTPUT = "sparse_embedding"
# Terms at or below this weight are "zero" for the check's set comparison.
TERM_THRESHOLD = 1e-3
POOLING_STRATEGIES = ("max", "sum")
ACTIVATIONS = ("relu", "log1p_relu")

# The transformer module: the legacy MLMTransformer (any import path) or a
# Transformer whose transformer_task is fill-mask (sentence-transformers >= 5.4).
_MLM_CLASSES = {"MLMTransformer"}
_TRANSFORMER_CLASSES = {"Transformer"}


def _class_name(module: dict) -> str:
    return str(module.get("type", "")).rsplit(".", 1)[-1]


def pooling_config(src: Path) -> dict:
    """The SPLADE pooling of `src` ({"pooling_strategy", "activation_function"}),
    after checking that its modules are a masked language model and SpladePooling
    (or, without modules.json, that it is a *ForMaskedLM). Raises ToolError
    naming the module otherwise. Needs no torch."""
    src = Path(src)
    archs = [str(a) for a in read_config(src).get("architectures") or []]
    modules = read_json(src / "modules.json")
    if modules is None:
        if not any(a.endswith("ForMaskedLM") for a in archs):
            raise ToolError(f"{src}: --task sparse needs a masked language model (config.json architectures "
                            f"*ForMaskedLM) or a sentence-transformers SparseEncoder folder, not "
                            f"{', '.join(archs) or 'no architectures'}")
        return {"pooling_strategy": "max", "activation_function": "relu"}
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        raise ToolError(f"{src}/modules.json: not a list of modules")
    names = [_class_name(m) for m in modules]
    allowed = (_MLM_CLASSES | _TRANSFORMER_CLASSES, {"SpladePooling"})
    unsupported = [f"{module.get('type')!r} (entry {i})" for i, (module, name) in enumerate(zip(modules, names))
                   if i >= len(allowed) or name not in allowed[i]]
    if unsupported:
        raise ToolError(f"{src}: SparseEncoder module{'s' if len(unsupported) > 1 else ''} {', '.join(unsupported)} "
                        f"of modules.json not supported: Sieve runs SPLADE encoders, a masked language model "
                        f"(MLMTransformer) followed by SpladePooling, and nothing else (modules: {', '.join(names)})")
    if len(modules) != 2:
        raise ToolError(f"{src}: a SPLADE SparseEncoder has two modules, MLMTransformer and SpladePooling "
                        f"(modules: {', '.join(names) or 'none'})")
    st = read_json(src / "config_sentence_transformers.json")
    if not isinstance(st, dict) or st.get("model_type") != "SparseEncoder":
        # sentence-transformers would take it for a SentenceTransformer and append a SparseAutoEncoder.
        raise ToolError(f"{src}: config_sentence_transformers.json does not say \"model_type\": \"SparseEncoder\" "
                        "(sentence-transformers would not load the folder as the SPLADE encoder its modules.json "
                        "describes); add it")
    if names[0] in _TRANSFORMER_CLASSES:
        st_config = read_json(src / (modules[0].get("path") or "") / "sentence_bert_config.json")
        task = st_config.get("transformer_task") if isinstance(st_config, dict) else None
        if task != "fill-mask":
            raise ToolError(f"{src}: the SparseEncoder's Transformer module has transformer_task {task!r}; "
                            "SPLADE pooling needs the masked language model's logits (\"fill-mask\")")
    if archs and not any(a.endswith("ForMaskedLM") for a in archs):
        raise ToolError(f"{src}: SpladePooling needs a masked language model (config.json architectures "
                        f"*ForMaskedLM), not {', '.join(archs)}")
    config = read_json(src / modules[1]["path"] / "config.json") if modules[1].get("path") else None
    config = config if isinstance(config, dict) else {}
    pooling = {"pooling_strategy": config.get("pooling_strategy", "max"),
               "activation_function": config.get("activation_function", "relu")}
    if pooling["pooling_strategy"] not in POOLING_STRATEGIES:
        raise ToolError(f"{src}: SpladePooling pooling_strategy {pooling['pooling_strategy']!r} is not one of "
                        f"{', '.join(POOLING_STRATEGIES)}")
    if pooling["activation_function"] not in ACTIVATIONS:
        raise ToolError(f"{src}: SpladePooling activation_function {pooling['activation_function']!r} is not one "
                        f"of {', '.join(ACTIVATIONS)}")
    return pooling


def load_sparse_encoder(source: str):
    """sentence-transformers' SparseEncoder for `source`, on the CPU, in float32."""
    import logging

    from sentence_transformers import SparseEncoder

    # A plain *ForMaskedLM folder: "No sentence-transformers model found ... creating
    # MLMTransformer and SpladePooling", which is what is wanted here.
    logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
    return SparseEncoder(source, device="cpu").eval()


def _pooling_module(model):
    from sentence_transformers.sparse_encoder.modules import SpladePooling

    pooling = [m for m in model if isinstance(m, SpladePooling)]
    if len(model) != 2 or len(pooling) != 1 or model[1] is not pooling[0]:
        raise ToolError(f"sentence-transformers built the modules {[type(m).__name__ for m in model]}, "
                        "expected a masked language model and SpladePooling")
    return pooling[0]


def _mlm(model):
    """The transformers *ForMaskedLM inside the SparseEncoder's first module."""
    first = model[0]
    inner = getattr(first, "auto_model", None) or getattr(first, "model", None)
    if inner is None or not hasattr(inner, "get_output_embeddings") or inner.get_output_embeddings() is None:
        raise ToolError(f"the SparseEncoder's first module ({type(first).__name__}) holds no masked language model")
    return inner


def input_names(model) -> list[str]:
    """input_ids, attention_mask, and token_type_ids when the tokenizer makes them
    and the model takes them."""
    import inspect

    names = ["input_ids", "attention_mask"]
    mlm = _mlm(model)
    tokenizer = model.tokenizer
    if ("token_type_ids" in getattr(tokenizer, "model_input_names", [])
            and "token_type_ids" in inspect.signature(mlm.forward).parameters
            and getattr(mlm.config, "type_vocab_size", 0)):
        names.append("token_type_ids")
    return names


def export_graph(model, out_file: Path, opset: int | None, names: list[str]) -> None:
    """model.onnx: the masked language model and the SPLADE pooling, one output."""
    import warnings

    import optimum.exporters.onnx.model_configs  # noqa: F401  (registers the ONNX configurations)
    import torch
    from optimum.exporters.tasks import TasksManager

    pooling = _pooling_module(model)
    strategy, activation = pooling.pooling_strategy, pooling.activation_function
    mlm = _mlm(model).eval()
    try:
        onnx_config = TasksManager.get_exporter_config_constructor(
            "onnx", mlm, task="fill-mask", library_name="transformers")(mlm.config)
        patch = onnx_config.patch_model_for_export(mlm)
    except (KeyError, ValueError) as exc:
        raise ToolError(f"optimum-onnx cannot export model type {mlm.config.model_type!r} "
                        f"for fill-mask: {exc}") from exc

    def log1p(x):
        # Exact where 1 + x rounds to 1 (then log1p(x) = x to float precision);
        # plain log(1 + x) would give 0 for x below half an ulp of 1.
        u = 1.0 + x
        d = u - 1.0
        return torch.where(d == 0, x, x * torch.log(u) / torch.where(d == 0, torch.ones_like(d), d))

    decoder = mlm.get_output_embeddings()
    # Max pooling with the output projection split off (see split_decoder):
    # one [batch, sequence, vocab] tensor in the graph instead of several.
    split = strategy == "max" and split_decoder(mlm, decoder)

    class Splade(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.mlm = mlm
            if split:
                self.weight = decoder.weight  # [vocab, hidden], often tied to the input embeddings
                self.bias = decoder.bias

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            feeds = {"input_ids": input_ids, "attention_mask": attention_mask}
            if token_type_ids is not None:
                feeds["token_type_ids"] = token_type_ids
            out = self.mlm(**feeds)["logits"]  # a dict under optimum's patch, else a ModelOutput
            if split:
                # `out` is the projection's input [batch, sequence, hidden]. Padded
                # positions take the state of the row's first real token: the
                # maximum over the row is then the maximum over its real tokens.
                real = attention_mask.unsqueeze(-1) != 0
                first = attention_mask.argmax(dim=1).view(-1, 1, 1).expand(-1, 1, out.shape[-1])
                states = torch.where(real, out, out.gather(1, first))
                scores = torch.matmul(states, self.weight.t()).amax(dim=1)
                if self.bias is not None:
                    scores = scores + self.bias  # after the maximum: a constant per term keeps the order
                # A row without real tokens has all weights 0, as sentence-transformers gives.
                scores = scores * (attention_mask.sum(dim=1, keepdim=True) > 0).to(scores.dtype)
                weights = log1p(torch.relu(scores))
                return log1p(weights) if activation == "log1p_relu" else weights
            mask = attention_mask.unsqueeze(-1).to(out.dtype)
            masked = out * mask  # padded positions: 0, as sentence-transformers has them
            if strategy == "max":
                # relu and log1p are non-decreasing: pooling first gives the same values.
                weights = log1p(torch.relu(masked.amax(dim=1)))
                return log1p(weights) if activation == "log1p_relu" else weights
            weights = log1p(torch.relu(masked))
            if activation == "log1p_relu":
                weights = log1p(weights)
            return weights.sum(dim=1)

    scratch = Path(tempfile.mkdtemp(prefix=".torch-onnx-", dir=out_file.parent))
    ids = torch.ones(2, 7, dtype=torch.long)
    args = (ids, torch.ones_like(ids)) + ((torch.zeros_like(ids),) if "token_type_ids" in names else ())
    axes = {0: "batch_size", 1: "sequence_length"}
    try:
        with warnings.catch_warnings(), torch.no_grad(), patch:
            warnings.simplefilter("ignore")
            torch.onnx.export(Splade().eval(), args, str(scratch / "model.onnx"), input_names=names,
                              output_names=[OUTPUT],
                              dynamic_axes={**{n: axes for n in names}, OUTPUT: {0: "batch_size"}},
                              opset_version=opset or 17, dynamo=False)
        if len(list(scratch.iterdir())) > 1:
            # Past 2 GiB the exporter writes a file per weight: gathered in model.onnx_data.
            import onnx

            from .model_folder import save_onnx

            save_onnx(onnx.load(str(scratch / "model.onnx")), out_file, external=True)
        else:
            shutil.move(str(scratch / "model.onnx"), out_file)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if split:
            del decoder.forward  # the class's forward again


def split_decoder(mlm, decoder) -> bool:
    """Makes the model's output projection (a Linear, vocab x hidden) pass its
    input through, so that the model gives the projection's input, when the
    head calls it as a module (checked on a short input); the pooled graph then
    applies the projection itself. False (and the model unchanged) otherwise.
    Undone by `del decoder.forward`."""
    import torch

    if not isinstance(decoder, torch.nn.Linear):
        return False
    decoder.forward = lambda x: x
    try:
        with torch.no_grad():
            ids = torch.tensor([[0, 1, 2]])
            out = mlm(input_ids=ids, attention_mask=torch.ones_like(ids)).logits
        if out.shape[-1] == decoder.in_features:
            return True
    except Exception:  # noqa: BLE001  (any failure: the plain graph)
        pass
    del decoder.forward
    return False


def check_io(onnx_file: Path, vocab_size: int) -> dict:
    """Inputs int64 [batch, sequence] (dynamic); one output, sparse_embedding
    float32 [batch, vocab_size] with a dynamic batch axis."""
    import onnx

    model = onnx.load(str(onnx_file), load_external_data=False)

    def dims(value):
        return [d.dim_param or (d.dim_value if d.HasField("dim_value") else "?")
                for d in value.type.tensor_type.shape.dim]

    problems = []
    inputs = {i.name: i for i in model.graph.input}
    for name in ("input_ids", "attention_mask"):
        if name not in inputs:
            problems.append(f"input {name} is missing (inputs: {', '.join(inputs)})")
    for name, value in inputs.items():
        d = dims(value)
        if value.type.tensor_type.elem_type != onnx.TensorProto.INT64:
            problems.append(f"input {name} is not int64")
        if len(d) != 2 or any(isinstance(x, int) for x in d):
            problems.append(f"input {name} has shape {d}, expected two dynamic axes [batch, sequence]")
    outputs = list(model.graph.output)
    if [o.name for o in outputs] != [OUTPUT]:
        problems.append(f"outputs are {[o.name for o in outputs]}, expected only {OUTPUT}")
    else:
        d = dims(outputs[0])
        if outputs[0].type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
            problems.append(f"output {OUTPUT} is not float32")
        if len(d) != 2 or isinstance(d[0], int) or d[1] != vocab_size:
            problems.append(f"output {OUTPUT} has shape {d}, expected [batch, {vocab_size}]")
    if problems:
        raise ToolError(f"{onnx_file}: " + "; ".join(problems))
    return {"inputs": {n: dims(v) for n, v in inputs.items()}, "outputs": {o.name: dims(o) for o in outputs}}


def compare(got: np.ndarray, want: np.ndarray, threshold: float = TERM_THRESHOLD) -> dict:
    """Largest difference, and whether the terms above `threshold` are the same."""
    got_terms, want_terms = got > threshold, want > threshold
    return {"max_abs_diff": float(np.abs(got - want).max()) if got.size else 0.0,
            "terms_above_threshold": int(want_terms.sum()),
            "term_set_mismatches": int((got_terms != want_terms).sum())}


def check_graph(onnx_file: Path, model, texts: list[str], atol: float) -> dict:
    """ONNX Runtime on `texts`, padded together, against SparseEncoder.encode."""
    import onnxruntime as ort
    import torch

    vocab = int(_mlm(model).get_output_embeddings().weight.shape[0])
    io = check_io(onnx_file, vocab)
    session = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    batch = model.tokenizer(texts, padding=True, truncation=True, max_length=model.max_seq_length,
                            return_tensors="np")
    feeds = {n: batch[n].astype(np.int64) if n in batch else np.zeros_like(batch["input_ids"], dtype=np.int64)
             for n in names}
    got = session.run([OUTPUT], feeds)[0]
    with torch.no_grad():
        want = model.encode(texts, convert_to_tensor=True, batch_size=len(texts))
    want = (want.to_dense() if want.is_sparse else want).float().numpy()
    if got.shape != want.shape:
        raise ToolError(f"{onnx_file}: {OUTPUT} has shape {got.shape}, SparseEncoder.encode gives {want.shape}")
    summary = {"io": io, "atol": atol, "texts": len(texts), **compare(got, want)}
    log(f"check against SparseEncoder.encode: max_abs_diff {summary['max_abs_diff']:.3g}, "
        f"{summary['terms_above_threshold']} terms above {TERM_THRESHOLD}, "
        f"{summary['term_set_mismatches']} differ")
    if summary["max_abs_diff"] > atol or summary["term_set_mismatches"]:
        raise ToolError(f"{onnx_file}: ONNX Runtime and SparseEncoder.encode differ (weights by more than {atol}, "
                        f"or the terms above {TERM_THRESHOLD}): {summary}")
    return summary


def max_seq_length(model) -> int:
    length = model.max_seq_length
    positions = getattr(_mlm(model).config, "max_position_embeddings", None)
    if length is None or length > 10**6:
        length = positions
    if positions and length:
        length = min(int(length), int(positions))
    if not length:
        raise ToolError("the model has no maximum sequence length (tokenizer model_max_length, "
                        "max_position_embeddings)")
    return int(length)


def save_support_files(model, dest: Path, vocab: int, length: int) -> None:
    """SparseEncoder.save without the PyTorch weights (model.onnx replaces them),
    with max_seq_length and embedding_dimension written out."""
    staged = Path(tempfile.mkdtemp(prefix=".st-save-", dir=dest))
    try:
        model.save(str(staged), create_model_card=False)
        for item in sorted(staged.rglob("*")):
            rel = item.relative_to(staged)
            if item.is_dir() or item.name in ("model.safetensors", "pytorch_model.bin") or \
                    item.name.endswith((".safetensors", ".bin", ".pt")):
                continue
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(item), dest / rel)
        modules = read_json(dest / "modules.json") or []
        for module in modules:
            if module.get("path"):
                (dest / module["path"]).mkdir(parents=True, exist_ok=True)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    pooling_dir = next(m["path"] for m in modules if _class_name(m) == "SpladePooling")
    st_file = dest / "sentence_bert_config.json"
    pool_file = dest / pooling_dir / "config.json"
    for path, key, value in ((st_file, "max_seq_length", length), (pool_file, "embedding_dimension", vocab)):
        config = read_json(path) or {}
        config[key] = value
        path.write_text(json.dumps(config, indent=4) + "\n", encoding="utf-8")


def export(src: Path, source: str, out: Path, *, opset: int | None, atol: float, check: bool,
           texts: list[str], report: dict) -> dict:
    """Writes the folder `out`; `source` is what SparseEncoder loads."""
    report["pooling"] = pooling_config(src)
    log(f"exporting {report['model']} ({SPARSE}, task {TASK}) with torch.onnx")
    model = load_sparse_encoder(source)
    pooling = _pooling_module(model)
    built = {"pooling_strategy": pooling.pooling_strategy, "activation_function": pooling.activation_function}
    if built != report["pooling"]:
        raise ToolError(f"sentence-transformers built the pooling {built}, the folder says {report['pooling']}")
    vocab = int(_mlm(model).get_output_embeddings().weight.shape[0])
    length = max_seq_length(model)
    names = input_names(model)
    report.update(vocab_size=vocab, max_seq_length=length, inputs=names)

    def write(tmp: Path) -> None:
        # Saved first: optimum's export patches change the model's configuration (use_cache).
        save_support_files(model, tmp, vocab, length)
        export_graph(model, tmp / "model.onnx", opset, names)
        if check:
            report["check"] = check_graph(tmp / "model.onnx", model, texts, atol)

    # The files SparseEncoder.save wrote win over the source's (a plain
    # *ForMaskedLM folder has no sentence-transformers files; its weights are skipped).
    write_folder(src, out, write)
    log(f"wrote {out}")
    return report
