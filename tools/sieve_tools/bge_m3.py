"""`sieve-export export --task bge-m3`: BGE-M3's three outputs from one graph.

Source: a BGE-M3 folder as BAAI publishes it and FlagEmbedding saves it: an
XLM-RoBERTa (or other) encoder with its tokenizer and sentence-transformers
files (CLS pooling, Normalize), plus two heads FlagEmbedding keeps beside it
as PyTorch state dicts, colbert_linear.pt (a Linear on every token state) and
sparse_linear.pt (a Linear to one weight per token).

The graph takes input_ids and attention_mask, int64 [batch, sequence], and
gives three outputs:

    last_hidden_state  [batch, sequence, hidden]  the encoder's token states
                       (Sieve pools them as the folder's Pooling says: CLS,
                       then normalizes: the dense vector)
    sparse_weights     [batch, sequence]  relu(sparse_linear(state)) per token
                       (Sieve keeps each token id's largest weight, special
                       tokens left out: the lexical weights)
    colbert_vectors    [batch, sequence, colbert]  colbert_linear(state) per
                       token (Sieve drops the first token and the padding and
                       normalizes each: the multi-vector output)

which are FlagEmbedding's BGEM3 definitions. The two heads' weights end up in
the graph, so the folder needs no pickles; they are not copied.

The check runs ONNX Runtime against PyTorch (transformers' model and the two
heads) on a few padded texts: every output within --atol on real tokens.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .model_folder import EMBEDDER, ToolError, log, write_folder

TASK = "bge-m3"
HEADS = ("colbert_linear.pt", "sparse_linear.pt")
OUTPUTS = ("last_hidden_state", "sparse_weights", "colbert_vectors")


def is_bge_m3_folder(folder: Path | None) -> bool:
    return folder is not None and all((Path(folder) / head).is_file() for head in HEADS)


def load(source: Path):
    """(encoder, colbert_linear, sparse_linear, tokenizer), in float32 on the CPU."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    encoder = AutoModel.from_pretrained(str(source)).eval()
    hidden = encoder.config.hidden_size
    heads = []
    for name in HEADS:
        state = torch.load(source / name, map_location="cpu", weights_only=True)
        weight = state.get("weight")
        if weight is None or weight.ndim != 2 or weight.shape[1] != hidden:
            raise ToolError(f"{source / name}: expected a Linear's state dict with weight [out, {hidden}]")
        linear = torch.nn.Linear(hidden, weight.shape[0], bias="bias" in state)
        linear.load_state_dict(state)
        heads.append(linear.eval())
    if heads[1].out_features != 1:
        raise ToolError(f"{source / HEADS[1]}: the sparse head gives {heads[1].out_features} values per token, not 1")
    return encoder, heads[0], heads[1], AutoTokenizer.from_pretrained(str(source))


class _Graph:
    """The module exported: the encoder and the two heads."""

    @staticmethod
    def build(encoder, colbert, sparse):
        import torch

        class M3(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder, self.colbert, self.sparse = encoder, colbert, sparse

            def forward(self, input_ids, attention_mask):
                states = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
                weights = torch.relu(self.sparse(states)).squeeze(-1)
                return states, weights, self.colbert(states)

        return M3().eval()


def reference(encoder, colbert, sparse, feeds: dict) -> list[np.ndarray]:
    import torch

    with torch.no_grad():
        out = _Graph.build(encoder, colbert, sparse)(torch.from_numpy(feeds["input_ids"]),
                                                     torch.from_numpy(feeds["attention_mask"]))
    return [o.numpy() for o in out]


def export(src: Path, source: str, out: Path, *, opset: int | None, atol: float, check: bool,
           texts: list[str], report: dict) -> dict:
    import warnings

    import torch

    log(f"exporting {report['model']} ({EMBEDDER}, task {TASK}: dense, sparse and ColBERT outputs) with torch.onnx")
    encoder, colbert, sparse, tokenizer = load(Path(src))
    graph = _Graph.build(encoder, colbert, sparse)
    axes = {0: "batch_size", 1: "sequence_length"}

    def write(tmp: Path) -> None:
        ids = torch.ones(2, 7, dtype=torch.long)
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(graph, (ids, torch.ones_like(ids)), str(tmp / "model.onnx"),
                              input_names=["input_ids", "attention_mask"], output_names=list(OUTPUTS),
                              dynamic_axes={"input_ids": axes, "attention_mask": axes, OUTPUTS[0]: axes,
                                            OUTPUTS[1]: axes, OUTPUTS[2]: axes},
                              opset_version=opset or 17, dynamo=False)
        if check:
            report["check"] = check_export(tmp / "model.onnx", encoder, colbert, sparse, tokenizer, texts, atol)

    write_folder(src, out, write)
    log(f"wrote {out}")
    return report


def check_export(onnx_file: Path, encoder, colbert, sparse, tokenizer, texts: list[str], atol: float) -> dict:
    import onnxruntime as ort

    batch = tokenizer(texts, padding=True, truncation=True, max_length=128, return_tensors="np")
    feeds = {n: batch[n].astype(np.int64) for n in ("input_ids", "attention_mask")}
    session = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    got = session.run(list(OUTPUTS), feeds)
    want = reference(encoder, colbert, sparse, feeds)
    real = feeds["attention_mask"].astype(bool)
    summary: dict = {"atol": atol}
    for name, g, w in zip(OUTPUTS, got, want):
        if g.shape != w.shape:
            raise ToolError(f"{onnx_file}: {name} has shape {g.shape}, PyTorch gives {w.shape}")
        diff = float(np.abs(g - w)[real].max())
        summary[f"{name}_max_abs_diff"] = diff
        if diff > atol * max(1.0, float(np.abs(w[real]).max())):
            raise ToolError(f"{onnx_file}: {name}: ONNX Runtime and PyTorch differ by {diff:.3g} (> {atol})")
    log("check against PyTorch: " + ", ".join(f"{k} {v:.3g}" for k, v in summary.items() if k.endswith("diff")))
    return summary
