#!/usr/bin/env python3
"""The ColBERT fixture: a PyLate model folder with random weights, exported by
`sieve-export export`, and beside it reference.json, PyLate's own output.

No registry package carries a real ColBERT model, so this draws one: a BERT
encoder (2 layers, hidden 32, the BERT uncased vocabulary of
all-MiniLM-L6-v2's tokenizer) and PyLate's Dense projection to 16 dimensions,
seeded, saved by PyLate in the layout its models are published in
(modules.json with pylate.models.Dense.Dense, config_sentence_transformers.json
with the query and document prefixes, lengths, query expansion and the
punctuation skip list). Query length 16 and document length 32 are short so
that the reference texts exercise truncation.

    .venv-export/bin/python tools/make_colbert_fixture.py --out build/fixtures \
        --tokenizer models/all-MiniLM-L6-v2 [--cache DIR]

Writes OUT/colbert-tiny; made once per key (this script, the export tool's
sources, the pinned versions and the tokenizer) in CACHE/colbert-tiny/KEY and
copied from there on later runs.

reference.json: for each text, PyLate's query and document token vectors
(ColBERT.encode, is_query True and False: prefixes, expansion with [MASK],
skip list, projection, per-token normalization) and its input ids, and the
MaxSim score of every query against every document
(pylate.scores.colbert_scores_pairwise).
"""
from __future__ import annotations

import argparse
import importlib.machinery
import json
import os
import shutil
import string
import subprocess
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cached_fixture  # noqa: E402

NAME = "colbert-tiny"
SEED = 20261204
QUERY_LENGTH = 16
DOCUMENT_LENGTH = 32
SOURCES = ("tools/make_colbert_fixture.py", "scripts/setup_export_env.sh")
# PyLate and the sentence-transformers release it is made for, installed apart
# from the export environment's own by scripts/setup_export_env.sh.
PYLATE_SITE = "pylate-site"
PYLATE_ST = "5.3.0"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")

QUERIES = [
    "what is late interaction?",
    "How do I bake bread at home, step by step, without a bread machine or any special tools at all?",
    "Zürich café prices",
    "",
]
DOCUMENTS = [
    "ColBERT encodes queries and documents into bags of token vectors; MaxSim sums, over query tokens, "
    "the best match among document tokens.",
    "Bread needs flour, water, salt and yeast. Knead, let it rise, shape, and bake at 230 °C!",
    "A café in Zürich charges CHF 5.50 for an espresso (2026).",
    "...,,,;;;!!!???",
    "",
    "short",
]


def import_pylate():
    """PyLate's model classes. Its package imports `datasets` for training
    helpers that encoding never calls; a placeholder stands in for it."""
    if "datasets" not in sys.modules:
        placeholder = types.ModuleType("datasets")
        placeholder.__spec__ = importlib.machinery.ModuleSpec("datasets", None)
        sys.modules["datasets"] = placeholder
    from pylate import models, scores

    return models, scores


def build(tokenizer: Path, work: Path) -> Path:
    """The PyLate folder with random weights, in the layout PyLate saves.
    (Written here rather than by PyLate's constructor, whose path for a bare
    encoder depends on the sentence-transformers release; PyLate loads it.)"""
    import torch
    from safetensors.torch import save_file
    from transformers import BertConfig, BertModel

    torch.manual_seed(SEED)
    folder = work / "pylate"
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=512)
    BertModel(config).eval().save_pretrained(folder)
    for name in TOKENIZER_FILES:
        if (tokenizer / name).is_file():
            shutil.copy2(tokenizer / name, folder / name)
    (folder / "1_Dense").mkdir()
    save_file({"linear.weight": torch.randn(16, 32) / 32 ** 0.5}, str(folder / "1_Dense" / "model.safetensors"))
    files = {
        "modules.json": [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                         {"idx": 1, "name": "1", "path": "1_Dense", "type": "pylate.models.Dense.Dense"}],
        "sentence_bert_config.json": {"max_seq_length": DOCUMENT_LENGTH - 1, "do_lower_case": False},
        "1_Dense/config.json": {"in_features": 32, "out_features": 16, "bias": False,
                                "activation_function": "torch.nn.modules.linear.Identity", "use_residual": False},
        "config_sentence_transformers.json": {
            "model_type": "ColBERT", "prompts": {}, "default_prompt_name": None, "similarity_fn_name": "MaxSim",
            "query_prefix": "[unused0]", "document_prefix": "[unused1]", "query_length": QUERY_LENGTH,
            "document_length": DOCUMENT_LENGTH, "attend_to_expansion_tokens": False,
            "skiplist_words": list(string.punctuation), "do_query_expansion": True},
    }
    for name, doc in files.items():
        (folder / name).write_text(json.dumps(doc, indent=2))
    return folder


def reference(folder: Path) -> dict:
    import torch

    models, scores = import_pylate()
    import sentence_transformers

    if sentence_transformers.__version__ != PYLATE_ST:
        sys.exit(f"make_colbert_fixture: PyLate needs sentence-transformers {PYLATE_ST}, found "
                 f"{sentence_transformers.__version__} (run it with --reference, which puts {PYLATE_SITE} first)")
    model = models.ColBERT(model_name_or_path=str(folder), device="cpu")
    if [type(m).__name__ for m in model] != ["Transformer", "Dense"]:
        sys.exit(f"make_colbert_fixture: PyLate loaded {[type(m).__name__ for m in model]}, not Transformer, Dense")
    out: dict = {"queries": [], "documents": [], "scores": []}
    for role, texts in (("queries", QUERIES), ("documents", DOCUMENTS)):
        is_query = role == "queries"
        vectors = model.encode(texts, is_query=is_query, batch_size=3, convert_to_numpy=True)
        raw = model.encode(texts, is_query=is_query, batch_size=3, output_value=None)
        for k, (text, v) in enumerate(zip(texts, vectors)):
            ids, masks = raw["input_ids"][k].tolist(), raw["masks"][k].tolist()
            kept = [int(i) for i, keep in zip(ids, masks) if keep]
            if len(kept) != len(v):
                sys.exit(f"make_colbert_fixture: {len(kept)} kept ids but {len(v)} vectors for {text!r}")
            out[role].append({"text": text, "ids": kept, "vectors": v.tolist()})
    for q in out["queries"]:
        row = []
        for d in out["documents"]:
            qt, dt = torch.tensor(q["vectors"]), torch.tensor(d["vectors"])
            row.append(float(scores.colbert_scores_pairwise(qt[None], dt[None])[0]))
        out["scores"].append(row)
    out["query_length"], out["document_length"] = QUERY_LENGTH, DOCUMENT_LENGTH
    return out


def build_fixture(tokenizer: Path, tmp: Path) -> None:
    folder = build(tokenizer, tmp)
    cached_fixture.sieve_export("make_colbert_fixture", "export", str(folder), "--out", str(tmp / "model"))
    site = Path(sys.executable).parent.parent / PYLATE_SITE
    if not site.is_dir():
        sys.exit(f"make_colbert_fixture: {site} is missing; run `bash scripts/setup_export_env.sh`")
    env = dict(os.environ, PYTHONPATH=str(site))
    ref = subprocess.run([sys.executable, __file__, "--reference", str(folder), "--out",
                          str(tmp / "model" / "reference.json")], env=env, capture_output=True, text=True, timeout=900)
    if ref.returncode != 0:
        sys.exit(f"make_colbert_fixture: the PyLate reference failed ({ref.returncode}):\n{ref.stderr[-4000:]}")


def main(argv: list[str] | None = None) -> int:
    ap = cached_fixture.arguments(__doc__, NAME)
    ap.add_argument("--tokenizer", type=Path, help="folder with a BERT uncased tokenizer.json")
    ap.add_argument("--reference", type=Path, help=argparse.SUPPRESS)  # PyLate's output for this folder to --out
    args = ap.parse_args(argv)
    if args.reference:
        args.out.write_text(json.dumps(reference(args.reference)))
        return 0
    if args.tokenizer is None:
        ap.error("--tokenizer is required")
    tokenizer = (args.tokenizer if args.tokenizer.is_dir() else args.tokenizer.parent).resolve()
    extra = [name.encode() + b"\0" + (tokenizer / name).read_bytes() for name in TOKENIZER_FILES
             if (tokenizer / name).is_file()]
    cache = (args.cache or cached_fixture.default_cache()) / NAME
    made = cached_fixture.made_once(cache, cached_fixture.key("colbert-tiny 1", SOURCES, extra),
                                    lambda tmp: build_fixture(tokenizer, tmp))
    return cached_fixture.publish(made, args.out, NAME)


if __name__ == "__main__":
    sys.exit(main())
