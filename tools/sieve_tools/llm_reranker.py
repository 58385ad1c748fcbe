"""`sieve-export export --task llm-reranker`: a causal language model used as
a reranker (the Qwen3-Reranker kind). Its relevance score is the probability
of "yes" against "no" as the next token after a prompt holding the query and
the document:

    prefix + template(instruction, query, document) + suffix
    score = softmax([logit_no, logit_yes])[1] at the last token

The prefix, body and suffix are tokenized apart, without special tokens, and
concatenated, as the Qwen3-Reranker model card does (tokenizing the joined
text could merge tokens across the seams).

The graph takes input_ids and attention_mask (int64 [batch, sequence], padded
on the right, as Sieve pads) and gives `logits` (float32 [batch, 2]: "no",
"yes") from the hidden state at each row's last real token. Only the two rows
of the output projection are kept: the vocabulary-wide logits would be the
largest tensor of the graph, and all but two of its columns unused. There is no
position_ids input: with right padding the positions transformers numbers
each row with (0, 1, ...) are those of its real tokens, and the causal mask
hides the padding after them from the last one.

Beside model.onnx, llm_reranker.json tells Sieve the prompt:
{"prefix", "suffix", "template" (with {instruction}, {query}, {document}),
"instruction", "yes_token", "no_token", "yes_id", "no_id", "max_length"}.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from .model_folder import CROSS_ENCODER, ToolError, log, read_config, save_onnx, write_folder

CONFIG_FILE = "llm_reranker.json"

# The Qwen3-Reranker model card's prompt.
PREFIX = ("<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the "
          "Instruct provided. Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n<|im_start|>user\n")
SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
TEMPLATE = "<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {document}"
DEFAULT_INSTRUCTION = "Given a web search query, retrieve relevant passages that answer the query"
YES_TOKEN, NO_TOKEN = "yes", "no"
# The model card's max_length, capped by the model's positions.
MAX_LENGTH = 8192


def check_architecture(folder: Path) -> str:
    archs = [str(a) for a in read_config(folder).get("architectures") or []]
    causal = [a for a in archs if a.endswith("ForCausalLM")]
    if not causal:
        raise ToolError(f"{folder}: --task llm-reranker needs a causal language model (config.json architectures "
                        f"*ForCausalLM), not {', '.join(archs) or 'none'}")
    return causal[0]


def answer_ids(tokenizer, vocab_size: int) -> tuple[int, int]:
    """The ids of the "no" and "yes" tokens, each one token of the vocabulary."""
    ids = []
    for word in (NO_TOKEN, YES_TOKEN):
        token_id = tokenizer.convert_tokens_to_ids(word)
        # A missing token is None for a tokenizer without an unknown token, else the unknown token's id.
        if token_id is None or (tokenizer.unk_token_id is not None and token_id == tokenizer.unk_token_id):
            raise ToolError(f"the tokenizer has no single token {word!r}: --task llm-reranker scores the "
                            f"{YES_TOKEN!r} and {NO_TOKEN!r} tokens")
        if not 0 <= token_id < vocab_size:
            raise ToolError(f"the token {word!r} has id {token_id}, outside the model's {vocab_size} logits")
        ids.append(int(token_id))
    return ids[0], ids[1]


def prompt_config(config: dict, instruction: str, no_id: int, yes_id: int) -> dict:
    positions = config.get("max_position_embeddings")
    return {"prefix": PREFIX, "suffix": SUFFIX, "template": TEMPLATE, "instruction": instruction,
            "yes_token": YES_TOKEN, "no_token": NO_TOKEN, "yes_id": yes_id, "no_id": no_id,
            "max_length": min(MAX_LENGTH, int(positions)) if positions else MAX_LENGTH}


def prompt_ids(tokenizer, prompt: dict, pairs: list[tuple[str, str]]) -> list[list[int]]:
    """Token ids of each (query, document) pair under the prompt, as the model card builds them."""
    prefix = tokenizer.encode(prompt["prefix"], add_special_tokens=False)
    suffix = tokenizer.encode(prompt["suffix"], add_special_tokens=False)
    bodies = [prompt["template"].format(instruction=prompt["instruction"], query=q, document=d) for q, d in pairs]
    body_ids = tokenizer(bodies, padding=False, truncation="longest_first", return_attention_mask=False,
                         max_length=prompt["max_length"] - len(prefix) - len(suffix),
                         add_special_tokens=False)["input_ids"]
    return [prefix + ids + suffix for ids in body_ids]


def pad(rows: list[list[int]], pad_id: int, left: bool) -> tuple[np.ndarray, np.ndarray]:
    width = max(map(len, rows))
    ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, row in enumerate(rows):
        at = slice(width - len(row), width) if left else slice(0, len(row))
        ids[i, at], mask[i, at] = row, 1
    return ids, mask


def float32() -> dict:
    """from_pretrained's argument for float32 weights (checkpoints are often
    bfloat16): `dtype` since transformers 4.56, `torch_dtype` before."""
    import torch
    import transformers
    from packaging.version import Version

    return {"dtype" if Version(transformers.__version__) >= Version("4.56") else "torch_dtype": torch.float32}


def export_graph(source: str, out_file: Path, opset: int | None, no_id: int, yes_id: int) -> None:
    import warnings

    import optimum.exporters.onnx.model_configs  # noqa: F401  (registers the ONNX configurations)
    import torch
    from optimum.exporters.tasks import TasksManager
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(source, **float32()).eval()
    try:
        onnx_config = TasksManager.get_exporter_config_constructor(
            "onnx", model, task="text-generation", library_name="transformers")(model.config)
    except (KeyError, ValueError) as exc:
        raise ToolError(f"optimum-onnx cannot export model type {model.config.model_type!r} "
                        f"for text generation: {exc}") from exc

    class Reranker(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.base = model.base_model
            head = model.get_output_embeddings()
            self.head = torch.nn.Linear(head.in_features, 2, bias=head.bias is not None)
            with torch.no_grad():
                # A copy: the output projection is often tied to the input embeddings.
                self.head.weight.copy_(head.weight[[no_id, yes_id]])
                if head.bias is not None:
                    self.head.bias.copy_(head.bias[[no_id, yes_id]])

        def forward(self, input_ids, attention_mask):
            hidden = self.base(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
            last = attention_mask.sum(1) - 1
            return self.head(hidden[torch.arange(hidden.shape[0]), last])

    scratch = Path(tempfile.mkdtemp(prefix=".torch-onnx-", dir=out_file.parent))
    ids = torch.ones(2, 7, dtype=torch.long)
    axes = {0: "batch_size", 1: "sequence_length"}
    # optimum's patches replace what TorchScript cannot trace (transformers
    # builds its attention masks with vmap).
    with warnings.catch_warnings(), torch.no_grad(), onnx_config.patch_model_for_export(model):
        warnings.simplefilter("ignore")
        torch.onnx.export(Reranker().eval(), (ids, torch.ones_like(ids)), str(scratch / "model.onnx"),
                          input_names=["input_ids", "attention_mask"], output_names=["logits"],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "logits": {0: "batch_size"}},
                          opset_version=opset or 17, dynamo=False)
    if len(list(scratch.iterdir())) > 1:
        # Past 2 GiB the exporter writes a file per weight: gathered in model.onnx_data.
        import onnx

        save_onnx(onnx.load(str(scratch / "model.onnx")), out_file, external=True)
    else:
        shutil.move(str(scratch / "model.onnx"), out_file)
    shutil.rmtree(scratch)


def check_graph(onnx_file: Path, source: str, prompt: dict, pairs: list[tuple[str, str]], atol: float) -> dict:
    """ONNX Runtime on right-padded rows against the PyTorch model on the same
    rows padded on the left, as the model card runs it."""
    import onnxruntime as ort
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from .export import check_io

    io = check_io(onnx_file, CROSS_ENCODER)
    if io["outputs"]["logits"][1:] != [2]:
        raise ToolError(f"{onnx_file}: logits has shape {io['outputs']['logits']}, expected [batch, 2]")
    tokenizer = AutoTokenizer.from_pretrained(source)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    rows = prompt_ids(tokenizer, prompt, pairs)
    session = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    ids, mask = pad(rows, pad_id, left=False)
    got = session.run(["logits"], {"input_ids": ids, "attention_mask": mask})[0]
    model = AutoModelForCausalLM.from_pretrained(source, **float32()).eval()
    ids, mask = pad(rows, pad_id, left=True)
    with torch.no_grad():
        logits = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)).logits[:, -1, :]
    ref = logits[:, [prompt["no_id"], prompt["yes_id"]]].numpy()

    def scores(x):
        return torch.softmax(torch.from_numpy(x).double(), dim=1)[:, 1].numpy()

    logits_diff = float(np.abs(got - ref).max())
    score_diff = float(np.abs(scores(got) - scores(ref)).max())
    summary = {"io": io, "atol": atol, "logits_max_abs_diff": logits_diff, "score_max_abs_diff": score_diff}
    log("check against PyTorch: " + ", ".join(f"{k} {v:.3g}" for k, v in summary.items() if k.endswith("diff")))
    if score_diff > atol or logits_diff > atol * max(1.0, float(np.abs(ref).max())):
        raise ToolError(f"{onnx_file}: ONNX Runtime and PyTorch differ by more than {atol}: {summary}")
    return summary


def export(src: Path, source: str, out: Path, *, opset: int | None, atol: float, check: bool,
           instruction: str | None, pairs: list[tuple[str, str]], report: dict) -> dict:
    """Writes the folder `out` (model.onnx, llm_reranker.json and the support
    files of `src`); `source` is what from_pretrained loads."""
    report["architecture"] = check_architecture(src)
    from transformers import AutoTokenizer

    log(f"exporting {report['model']} ({report['kind']}, task {report['task']}) with torch.onnx")
    config = read_config(src)
    tokenizer = AutoTokenizer.from_pretrained(source)
    no_id, yes_id = answer_ids(tokenizer, int(config.get("vocab_size") or len(tokenizer)))
    prompt = prompt_config(config, DEFAULT_INSTRUCTION if instruction is None else instruction, no_id, yes_id)
    report["prompt"] = prompt

    def write(tmp: Path) -> None:
        export_graph(source, tmp / "model.onnx", opset, no_id, yes_id)
        (tmp / CONFIG_FILE).write_text(json.dumps(prompt, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if not (src / "tokenizer.json").is_file():
            # Sieve reads tokenizer.json, which transformers writes for a fast
            # tokenizer made from the folder's vocabulary files. Like optimum's
            # export, only the files the input folder lacks are taken.
            staged = Path(tempfile.mkdtemp(prefix=".tokenizer-", dir=tmp))
            tokenizer.save_pretrained(staged)
            for item in staged.iterdir():
                if item.is_file() and not (src / item.name).exists():
                    shutil.move(str(item), tmp / item.name)
            shutil.rmtree(staged)
        if check:
            report["check"] = check_graph(tmp / "model.onnx", source, prompt, pairs, atol)

    write_folder(src, out, write)
    log(f"wrote {out}")
    return report
