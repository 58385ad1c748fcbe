#!/usr/bin/env python3
"""Compare Sieve's embeddings on one provider with an independent CPU reference.

The reference is Python onnxruntime on the CPU over the same model.onnx, with
Hugging Face `tokenizers` for the ids, mean pooling and L2 normalization (the
pooling of all-MiniLM-L6-v2-shaped folders).  Prints one JSON line with the
largest absolute difference and the smallest cosine similarity; exits 1 when
they are outside the tolerance.

    python3 bench/gpu_compare.py --model DIR --sieve-npy embeddings.npy --sentences FILE
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def reference(model: str, sentences: list[str], max_length: int) -> np.ndarray:
    tokenizer = Tokenizer.from_file(f"{model}/tokenizer.json")
    tokenizer.no_padding()  # the file may pad to a fixed length; pool over the text's own tokens
    tokenizer.enable_truncation(max_length)
    session = ort.InferenceSession(f"{model}/model.onnx", providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    rows = []
    for text in sentences:  # one at a time: no padding to account for
        enc = tokenizer.encode(text)
        feed = {"input_ids": np.array([enc.ids], dtype=np.int64),
                "attention_mask": np.array([enc.attention_mask], dtype=np.int64)}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.array([enc.type_ids], dtype=np.int64)
        tokens = session.run(None, feed)[0][0]
        pooled = tokens.mean(axis=0)
        rows.append(pooled / max(np.linalg.norm(pooled), 1e-12))
    return np.stack(rows).astype(np.float32)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--sieve-npy", required=True)
    ap.add_argument("--sentences", required=True)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    args = ap.parse_args()
    with open(args.sentences, encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f if line.strip()]
    got = np.load(args.sieve_npy)
    want = reference(args.model, sentences, args.max_length)
    if got.shape != want.shape:
        print(json.dumps({"error": f"shape {got.shape} against the reference's {want.shape}"}))
        return 1
    max_abs = float(np.abs(got - want).max())
    cosine = float((got * want).sum(axis=1).min())
    print(json.dumps({"rows": len(sentences), "max_abs_diff": max_abs, "min_cosine": cosine,
                      "onnxruntime": ort.__version__}))
    return 0 if max_abs <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
