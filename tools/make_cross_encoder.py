#!/usr/bin/env python3
"""Create the fixture cross-encoder: ms-marco-MiniLM-L-6-v2's architecture, random weights.

Why: reranking must be tested against sentence-transformers' CrossEncoder on
a model of the real shape (BertForSequenceClassification, 6 layers, hidden
384, 12 heads, intermediate 1536, one label), but no registry package carries
a real cross-encoder's weights.  So this script draws deterministic random
weights (numpy default_rng, fixed seed) and writes a folder that both
Hugging Face / sentence-transformers and Sieve load:

    config.json, model.safetensors              (transformers' files)
    tokenizer.json, tokenizer_config.json,
    special_tokens_map.json, vocab.txt          (the tokenizer of all-MiniLM-L6-v2,
                                                 the same BERT uncased vocabulary)
    model.onnx                                  (tools/bert_onnx.py, classifier head)

    python tools/make_cross_encoder.py --out build/fixtures \
        --tokenizer models/all-MiniLM-L6-v2/tokenizer.json

The folder is build/fixtures/cross-encoder-minilm-l6 (name: FOLDER).  A
second, tiny one, build/fixtures/cross-encoder-tiny-3labels (hidden 32, two
layers, three labels named in id2label only), covers models with several
labels.  Each is built in a temporary sibling and renamed into place;
re-running is a no-op while the stamp (a hash of this script, bert_onnx.py
and the tokenizer) matches, so scripts/test.sh can call it every time.

tokenizer_config.json says model_max_length 512, as the real model's does:
CrossEncoder truncates to that, whatever tokenizer.json's own truncation says
(all-MiniLM-L6-v2's says 128, which a reranker must therefore ignore).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent.parent
FOLDER = "cross-encoder-minilm-l6"
FOLDER_MULTI = "cross-encoder-tiny-3labels"
STAMP = ".sieve-fixture-stamp"
SEED = 2024
MAX_POSITION = 512
MODEL_MAX_LENGTH = 512


class Shape:
    """The sizes of one fixture."""

    def __init__(self, seed: int, hidden: int, layers: int, heads: int, intermediate: int, labels: list[str]):
        self.seed, self.hidden, self.layers, self.heads = seed, hidden, layers, heads
        self.intermediate, self.labels = intermediate, labels


# ms-marco-MiniLM-L-6-v2: 6 layers, hidden 384, 12 heads, intermediate 1536, one label.
MINILM = Shape(SEED, 384, 6, 12, 1536, ["LABEL_0"])
# An NLI-style head (as cross-encoder/nli-* models have) on a tiny encoder.
TINY_MULTI = Shape(SEED + 1, 32, 2, 4, 64, ["contradiction", "entailment", "neutral"])
FIXTURES = {FOLDER: MINILM, FOLDER_MULTI: TINY_MULTI}

SPECIAL_TOKENS_MAP = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
                      "cls_token": "[CLS]", "mask_token": "[MASK]"}


def config(vocab: int, shape: Shape = MINILM) -> dict:
    """A BertConfig as cross-encoder/ms-marco-MiniLM-L-6-v2 has it (one label).

    No sentence-transformers activation is recorded, so CrossEncoder uses its
    default for one label (sigmoid); tests that need another activation write
    their own config.json next to this model.  The number of labels is given
    by id2label alone, as transformers' PretrainedConfig saves it.
    """
    return {
        "architectures": ["BertForSequenceClassification"], "model_type": "bert",
        "hidden_size": shape.hidden, "num_hidden_layers": shape.layers, "num_attention_heads": shape.heads,
        "intermediate_size": shape.intermediate, "hidden_act": "gelu",
        "max_position_embeddings": MAX_POSITION, "type_vocab_size": 2, "vocab_size": vocab,
        "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute",
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02,
        "classifier_dropout": None,
        "id2label": {str(i): name for i, name in enumerate(shape.labels)},
        "label2id": {name: i for i, name in enumerate(shape.labels)},
        "torch_dtype": "float32",
    }


def random_weights(vocab: int, shape: Shape = MINILM) -> dict[str, np.ndarray]:
    """BertForSequenceClassification-named weights scaled so activations stay O(1).

    HF's init (std 0.02) would give nearly one score for every pair; fan-in
    scaling keeps pairs apart, so ranking and truncation change the scores
    visibly.  The classifier is scaled to give logits of a few units, where
    the sigmoid is not yet flat.
    """
    rng = np.random.default_rng(shape.seed)
    w: dict[str, np.ndarray] = {}
    hidden, intermediate = shape.hidden, shape.intermediate

    def normal(size, std):
        return rng.normal(0.0, std, size=size).astype(np.float32)

    def ln(prefix):
        w[f"{prefix}.weight"] = (1.0 + normal((hidden,), 0.1)).astype(np.float32)
        w[f"{prefix}.bias"] = normal((hidden,), 0.1)

    def linear(prefix, fan_in, fan_out, scale=1.0):
        w[f"{prefix}.weight"] = normal((fan_out, fan_in), scale / np.sqrt(fan_in))
        w[f"{prefix}.bias"] = normal((fan_out,), 0.1)

    w["bert.embeddings.word_embeddings.weight"] = normal((vocab, hidden), 1.0)
    w["bert.embeddings.position_embeddings.weight"] = normal((MAX_POSITION, hidden), 0.5)
    w["bert.embeddings.token_type_embeddings.weight"] = normal((2, hidden), 0.5)
    ln("bert.embeddings.LayerNorm")
    for i in range(shape.layers):
        p = f"bert.encoder.layer.{i}"
        for part in ("query", "key", "value"):
            linear(f"{p}.attention.self.{part}", hidden, hidden)
        linear(f"{p}.attention.output.dense", hidden, hidden)
        ln(f"{p}.attention.output.LayerNorm")
        linear(f"{p}.intermediate.dense", hidden, intermediate)
        linear(f"{p}.output.dense", intermediate, hidden)
        ln(f"{p}.output.LayerNorm")
    linear("bert.pooler.dense", hidden, hidden)
    linear("classifier", hidden, len(shape.labels), scale=8.0)
    return w


def weights_digest(weights: dict[str, np.ndarray]) -> str:
    """sha256 over the weights themselves (name, dtype, shape, bytes; sorted by
    name), independent of how a safetensors writer lays out its file."""
    h = hashlib.sha256()
    for name in sorted(weights):
        a = np.ascontiguousarray(weights[name])
        h.update(f"{name}|{a.dtype.str}|{list(a.shape)}\n".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _stamp(tokenizer_path: Path) -> str:
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in ("make_cross_encoder.py", "bert_onnx.py", "sieve_tools/optimize.py"):
        h.update((here / name).read_bytes())
    h.update(tokenizer_path.read_bytes())
    return h.hexdigest()


def _vocab_txt(tokenizer: dict) -> str:
    """vocab.txt in id order, as BertTokenizer (the slow one) saves it."""
    vocab = tokenizer["model"]["vocab"]
    by_id = sorted(vocab.items(), key=lambda kv: kv[1])
    if [i for _, i in by_id] != list(range(len(by_id))):
        raise SystemExit("tokenizer vocabulary ids are not 0..n-1")
    return "".join(token + "\n" for token, _ in by_id)


def write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def make(out_dir: Path, tokenizer_path: Path, force: bool = False, name: str = FOLDER) -> Path:
    shape = FIXTURES[name]
    final = out_dir / name
    stamp = _stamp(tokenizer_path)
    if not force and (final / STAMP).is_file() and (final / STAMP).read_text().strip() == stamp \
            and (final / "model.onnx").is_file():
        print(f"{name}: {final} is up to date")
        return final

    # Imported here: tools/make_ce_reference.py imports this module for
    # weights_digest in an environment that has no onnx.
    import bert_onnx
    from safetensors.numpy import save_file

    tokenizer = json.loads(tokenizer_path.read_text(encoding="utf-8"))
    vocab = len(tokenizer["model"]["vocab"])
    cfg = config(vocab, shape)
    weights = random_weights(vocab, shape)

    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=out_dir))
    os.chmod(tmp, 0o755)  # mkdtemp makes it 0700; the finished folder should be world-readable
    try:
        model = bert_onnx.build_bert_graph(weights, cfg, classifier=True, graph_name=name)
        bert_onnx.save_model(model, tmp / "model.onnx")
        # Fused as the folders Sieve makes for users are (sieve-export export, the set-up's model).
        from sieve_tools.optimize import format_fusion, fuse_graph

        print(f"{name}: {format_fusion(fuse_graph(tmp / 'model.onnx', cfg))}")
        save_file(weights, str(tmp / "model.safetensors"), metadata={"format": "pt"})
        os.chmod(tmp / "model.safetensors", 0o644)  # safetensors writes 0600
        shutil.copyfile(tokenizer_path, tmp / "tokenizer.json")
        (tmp / "vocab.txt").write_text(_vocab_txt(tokenizer), encoding="utf-8")
        write_json(tmp / "config.json", cfg)
        write_json(tmp / "special_tokens_map.json", SPECIAL_TOKENS_MAP)
        write_json(tmp / "tokenizer_config.json", {
            **SPECIAL_TOKENS_MAP, "do_lower_case": True, "tokenize_chinese_chars": True,
            "strip_accents": None, "tokenizer_class": "BertTokenizer",
            "model_max_length": MODEL_MAX_LENGTH,
        })
        write_json(tmp / "fixture.json", {
            "about": "random weights with cross-encoder/ms-marco-MiniLM-L-6-v2's architecture "
                     "(tools/make_cross_encoder.py)",
            "seed": shape.seed, "weights_sha256": weights_digest(weights),
        })
        (tmp / STAMP).write_text(stamp + "\n")
        if final.exists():
            shutil.rmtree(final)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "build/fixtures"), help="folder that receives the fixture folders")
    ap.add_argument("--tokenizer", default=str(ROOT / "models/all-MiniLM-L6-v2/tokenizer.json"),
                    help="a BERT uncased WordPiece tokenizer.json")
    ap.add_argument("--force", action="store_true", help="rebuild even if the folder is up to date")
    args = ap.parse_args(argv)
    tokenizer_path = Path(args.tokenizer)
    if not tokenizer_path.is_file():
        raise SystemExit(f"tokenizer not found: {tokenizer_path}")
    start = time.monotonic()
    for name in FIXTURES:
        make(Path(args.out), tokenizer_path, force=args.force, name=name)
    print(f"cross-encoder fixtures ({', '.join(FIXTURES)}) ready in {args.out} in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
