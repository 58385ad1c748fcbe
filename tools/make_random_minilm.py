#!/usr/bin/env python3
"""An embedding-model folder with a real model's files and architecture but random weights.

For speed measurements on a machine where the real weights cannot be had (a
GPU machine with no registry access): run time depends on the graph's shapes,
not on the values of its weights.  Never use such a folder for accuracy.

    python3 tools/make_random_minilm.py --like models/all-MiniLM-L6-v2 --out build/gpu/random-minilm-l6

Every file of --like except its weights (model.onnx, model.safetensors) is
copied; model.onnx is built from --like's config.json with random weights.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bert_onnx  # noqa: E402  (sibling module)
import make_cross_encoder  # noqa: E402  (sibling module: random_weights, Shape)

_WEIGHTS = {"model.onnx", "model.safetensors", "pytorch_model.bin", ".gitattributes", ".sieve-export-stamp"}


def make(like: Path, out: Path, seed: int) -> Path:
    config = json.loads((like / "config.json").read_text(encoding="utf-8"))
    tokenizer = json.loads((like / "tokenizer.json").read_text(encoding="utf-8"))
    shape = make_cross_encoder.Shape(seed, config["hidden_size"], config["num_hidden_layers"],
                                     config["num_attention_heads"], config["intermediate_size"], ["LABEL_0"])
    weights = make_cross_encoder.random_weights(len(tokenizer["model"]["vocab"]), shape)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for item in sorted(like.rglob("*")):
        rel = item.relative_to(like)
        if rel.name in _WEIGHTS or "__pycache__" in rel.parts:
            continue
        if item.is_dir():
            (out / rel).mkdir(parents=True, exist_ok=True)
        else:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(item, out / rel)
    model = bert_onnx.build_bert_graph(weights, config, graph_name=f"random-{like.name}")
    bert_onnx.save_model(model, out / "model.onnx")
    (out / "RANDOM_WEIGHTS.txt").write_text(
        f"Random weights (seed {seed}) in {like.name}'s architecture, from tools/make_random_minilm.py: "
        "for speed measurements only.\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--like", type=Path, required=True, help="model folder whose files and config.json to use")
    ap.add_argument("--out", type=Path, required=True, help="folder to write (replaced if it exists)")
    ap.add_argument("--seed", type=int, default=20261130)
    args = ap.parse_args(argv)
    for name in ("config.json", "tokenizer.json"):
        if not (args.like / name).is_file():
            print(f"make_random_minilm: {args.like / name} is missing", file=sys.stderr)
            return 1
    print(make(args.like, args.out, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
