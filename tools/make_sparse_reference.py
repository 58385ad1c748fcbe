#!/usr/bin/env python3
"""The sentence-transformers reference for a SPLADE sparse encoder: what
SparseEncoder.encode gives for a fixed list of texts, written as JSON for the
tests that compare Sieve (and the exported ONNX graph) with it.

    .venv-export/bin/python tools/make_sparse_reference.py --model SRC --out FILE.json [--texts FILE]

SRC is the PyTorch model (a SparseEncoder folder or a *ForMaskedLM folder,
which sentence-transformers loads as MLMTransformer + SpladePooling); never the
exported folder. --texts: one text per line (split on "\\n" only) instead of the
built-in list. Each text is encoded alone (batch size 1: no padding), so the
reference depends on nothing but the text.

The JSON:
  {"model": SRC, "versions": {...}, "max_seq_length": N, "vocab_size": V,
   "pooling_strategy": "max"|"sum", "activation_function": "relu"|"log1p_relu",
   "texts": [{"text": T, "input_ids": [...] (as sentence-transformers tokenized it, truncated at
              max_seq_length), "indices": [...] (token ids of the non-zero weights, ascending),
              "values": [...] (their weights: float32 values written in full)}]}
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

# Varied on purpose: short, a question, punctuation, numbers, non-ASCII
# (accents that BERT uncased strips, CJK, Cyrillic, an emoji), odd whitespace,
# a single character, the empty string, a repeated word, and a text longer
# than the maximum sequence length (truncation).
_LONG = " ".join(
    f"Paragraph {i}: learned sparse retrieval expands every document with related vocabulary terms, "
    f"weighting each term by how strongly the masked language model predicts it at some position; "
    f"inverted indexes then serve these vectors as quickly as classic BM25 postings ({i * 7} of them)."
    for i in range(1, 16))
TEXTS = [
    "hello world",
    "What is the capital of France?",
    "The quick brown fox jumps over the lazy dog.",
    "Wait... what?! (Really?) -- yes; 100% sure: e-mail me @ test@example.com #tags & [brackets] {braces}.",
    "Café crème brûlée, naïve façade — 東京タワー, Съешь же ещё этих мягких французских булок. 😀",
    "In 2023, 3.14159 × 2 = 6.28318; version v1.2.3-rc4 costs $19.99 (≈ €18).",
    "   MIXED case   TEXT\twith\ttabs and   runs of spaces  ",
    "a",
    "",
    "how do learned sparse retrieval models like SPLADE expand queries",
    "sparse sparse sparse sparse sparse sparse sparse sparse",
    _LONG,
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="the PyTorch SPLADE model (folder)")
    ap.add_argument("--out", required=True, type=Path, help="the JSON file to write")
    ap.add_argument("--texts", type=Path, default=None, help="texts, one per line (default: a built-in list)")
    args = ap.parse_args()

    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SparseEncoder
    from sentence_transformers.sparse_encoder.modules import SpladePooling

    texts = TEXTS
    if args.texts is not None:
        texts = args.texts.read_text(encoding="utf-8").split("\n")
        if texts and texts[-1] == "":
            texts.pop()
    logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
    model = SparseEncoder(args.model, device="cpu").eval()
    pooling = model[len(model) - 1]
    if len(model) != 2 or not isinstance(pooling, SpladePooling):
        raise SystemExit(f"{args.model}: sentence-transformers built {[type(m).__name__ for m in model]}, "
                         "not a SPLADE encoder (a masked language model and SpladePooling)")
    entries = []
    with torch.no_grad():
        for text in texts:
            features = model.tokenize([text])
            dense = model.encode([text], convert_to_tensor=True, batch_size=1)
            dense = (dense.to_dense() if dense.is_sparse else dense)[0].float().numpy()
            indices = [int(i) for i in dense.nonzero()[0]]  # ascending
            entries.append({"text": text, "input_ids": [int(i) for i in features["input_ids"][0]],
                            "indices": indices, "values": [float(dense[i]) for i in indices]})
    result = {
        "model": str(args.model),
        "versions": {"sentence_transformers": sentence_transformers.__version__,
                     "transformers": transformers.__version__, "torch": torch.__version__},
        "max_seq_length": int(model.max_seq_length),
        "vocab_size": int(pooling.get_embedding_dimension() or dense.shape[0]),
        "pooling_strategy": pooling.pooling_strategy,
        "activation_function": pooling.activation_function,
        "texts": entries,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(args.out)
    lengths = [len(e["input_ids"]) for e in entries]
    print(f"{args.out}: {len(entries)} texts, {min(lengths)}..{max(lengths)} tokens "
          f"(max_seq_length {result['max_seq_length']}), {sum(len(e['indices']) for e in entries)} non-zero weights",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
