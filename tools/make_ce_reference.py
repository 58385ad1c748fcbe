#!/usr/bin/env python3
"""Compute the stored sentence-transformers CrossEncoder reference for the fixture cross-encoder.

Why: reranking parity must compare Sieve with what users of the original
library get, but the project's set-up must not install torch.  So this script
is run ONCE, in a separate environment that has torch and
sentence-transformers, on the folder tools/make_cross_encoder.py writes, and
its small output is committed:

    tests/data/cross-encoder-minilm-l6.ce-reference.json

    /opt/stvenv/bin/python tools/make_ce_reference.py \
        --model build/fixtures/cross-encoder-minilm-l6

The JSON holds the library versions, the sha256 of the input file
(tests/data/cross-encoder-pairs.json), the fixture's weights digest (as
tools/make_cross_encoder.py computes it, so a changed fixture is detected
instead of failing obscurely), and per group of the input the scores of
CrossEncoder.predict:

    "default"    the model's default activation (sigmoid: one label, nothing configured)
    "raw"        activation_fn=Identity: the logits
    "max_length_24"  CrossEncoder(..., max_length=24): most pairs truncated,
                 longest_first cutting query and document alike
    "tokens" / "tokens_24"  how many tokens each pair had after truncation (from
                 the CrossEncoder's own preprocessing), to show what was truncated
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHORT = 24  # the second maximum length, short enough to truncate most pairs
sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(ROOT / "build/fixtures/cross-encoder-minilm-l6"))
    ap.add_argument("--pairs", default=str(ROOT / "tests/data/cross-encoder-pairs.json"))
    ap.add_argument("--out", default=str(ROOT / "tests/data/cross-encoder-minilm-l6.ce-reference.json"))
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args(argv)

    # Never reach the network: the model is a local folder.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    import numpy as np
    import sentence_transformers
    import torch
    import transformers
    from safetensors.numpy import load_file
    from sentence_transformers import CrossEncoder

    import make_cross_encoder

    # Single-threaded, deterministic CPU maths so re-running reproduces the file.
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    raw_input = Path(args.pairs).read_bytes()
    groups = json.loads(raw_input.decode("utf-8"))["groups"]
    model_dir = Path(args.model)
    digest = make_cross_encoder.weights_digest(load_file(str(model_dir / "model.safetensors")))

    default = CrossEncoder(str(model_dir), device="cpu")
    short = CrossEncoder(str(model_dir), device="cpu", max_length=SHORT)

    def predict(model, pairs, **kwargs) -> list[float]:
        scores = model.predict(pairs, batch_size=args.batch_size, show_progress_bar=False,
                               convert_to_numpy=True, **kwargs)
        # float(np.float32) is exact and json writes repr: the value round-trips.
        return [float(s) for s in np.asarray(scores, dtype=np.float32).reshape(-1)]

    def token_counts(model, pairs) -> list[int]:
        # The features predict() feeds the model, padded to the longest pair.
        features = model.preprocess(pairs)
        return [int(n) for n in features["attention_mask"].sum(dim=1)]

    out_groups = []
    for group in groups:
        pairs = [[group["query"], d] for d in group["documents"]]
        out_groups.append({
            "default": predict(default, pairs),
            "raw": predict(default, pairs, activation_fn=torch.nn.Identity()),
            f"max_length_{SHORT}": predict(short, pairs),
            "tokens": token_counts(default, pairs),
            f"tokens_{SHORT}": token_counts(short, pairs),
        })

    Path(args.out).write_text(json.dumps({
        "model": "fixture cross-encoder (tools/make_cross_encoder.py): architecture of "
                 "cross-encoder/ms-marco-MiniLM-L-6-v2, random weights",
        "weights_sha256": digest,
        "sentence_transformers": sentence_transformers.__version__,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "pairs_file": os.path.relpath(args.pairs, ROOT),
        "pairs_sha256": hashlib.sha256(raw_input).hexdigest(),
        "batch_size": args.batch_size,
        "max_length": default.max_seq_length,
        "default_activation": type(default.activation_fn).__name__,
        "groups": out_groups,
    }, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {sum(len(g['documents']) for g in groups)} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
