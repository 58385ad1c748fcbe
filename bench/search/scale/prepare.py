#!/usr/bin/env python3
"""The million-chunk benchmark's vectors: real chunks embedded once, grown to the size asked, with ground truth.

1. The corpus of bench/search/make_corpus.py (man pages, Python's docstrings, Debian's package descriptions: text
   nobody here wrote), at least 100,000 chunks of 128 tokens, embedded by `sieve index add` (the model's own
   chunking and pooling, no graph) and read back from the index's database: real.f32, one row per chunk.
2. The queries: the corpus's held-out questions (a man page's NAME line, a module docstring's first line, never
   indexed), embedded by `sieve embed`: queries.f32.
3. Grown to --count rows: the real rows first, then copies of them, each real vector plus Gaussian noise of
   --noise times its norm (spread over the dimensions), renormalized. A copy keeps its original's direction within
   about the angle of near-duplicate chunks (cosine about 1 / sqrt(1 + noise^2): 0.94 at 0.35), so the grown set
   keeps the real one's clusters and density instead of filling space with uniform noise. base.f32.
4. Ground truth: each query's exact top 10 over base.f32 by inner product (float64 sums): truth.i32.

Steps 1 and 2 are cached in --cache (keyed by the model's ONNX hash and the corpus settings); 3 and 4 are written to
--out. Prints a JSON summary.

    python bench/search/scale/prepare.py --out /tmp/sieve-scale --count 1000000
"""

import argparse
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def log(message: str) -> None:
    print(f"prepare: {message}", file=sys.stderr, flush=True)


def real_vectors(args, cache: Path) -> tuple[np.ndarray, np.ndarray]:
    real_file, queries_file = cache / "real.f32", cache / "queries.f32"
    if real_file.exists() and queries_file.exists():
        dimension = json.loads((cache / "info.json").read_text())["dimension"]
        return (np.fromfile(real_file, dtype=np.float32).reshape(-1, dimension),
                np.fromfile(queries_file, dtype=np.float32).reshape(-1, dimension))
    corpus = cache / "corpus"
    if not (corpus / "corpus.jsonl").exists():
        log("building the corpus ...")
        subprocess.run([sys.executable, str(ROOT / "bench/search/make_corpus.py"), "--out-dir", str(corpus),
                        "--target-chunks", str(args.real_chunks), "--queries", "1000", "--chunk-tokens", "128",
                        "--overlap", "16", "--tokenizer", str(args.model / "tokenizer.json")], check=True)
    index = cache / "embed-index"
    log(f"embedding the corpus with sieve index add (into {index}) ...")
    subprocess.run([str(args.sieve), "index", "add", "--index", str(index), "--model", str(args.model),
                    "--chunk-tokens", "128", "--overlap", "16", "--exact-threshold", "1000000000", "--quiet",
                    str(corpus / "corpus.jsonl")], check=True)
    with sqlite3.connect(index / "index.sqlite") as db:
        rows = [np.frombuffer(blob, dtype=np.float32) for (blob,) in db.execute("SELECT vector FROM chunks ORDER BY id")]
    real = np.stack(rows)
    queries = [json.loads(line)["query"] for line in (corpus / "queries.jsonl").read_text().splitlines() if line]
    log(f"embedding {len(queries)} queries with sieve embed ...")
    done = subprocess.run([str(args.sieve), "embed", "--model", str(args.model), "--format", "jsonl"],
                          input="\n".join(q.replace("\n", " ") for q in queries) + "\n", capture_output=True,
                          text=True, check=True)
    query_vectors = np.array([json.loads(line) for line in done.stdout.splitlines() if line], dtype=np.float32)
    assert len(query_vectors) == len(queries), (len(query_vectors), len(queries))
    real.astype(np.float32).tofile(real_file)
    query_vectors.tofile(queries_file)
    (cache / "info.json").write_text(json.dumps({"dimension": real.shape[1], "chunks": len(real),
                                                 "queries": len(queries)}))
    return real, query_vectors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--real-chunks", type=int, default=100_000)
    parser.add_argument("--noise", type=float, default=0.35)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--model", type=Path, default=ROOT / "models/all-MiniLM-L6-v2")
    parser.add_argument("--sieve", type=Path, default=ROOT / "build/sieve")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.environ.get("SIEVE_CACHE_DIR", Path.home() / ".cache/sieve")) / "bench-scale")
    args = parser.parse_args()
    key = hashlib.sha256(f"{sha256(args.model / 'model.onnx')} {args.real_chunks} 128/16".encode()).hexdigest()[:16]
    cache = args.cache / key
    cache.mkdir(parents=True, exist_ok=True)
    real, queries = real_vectors(args, cache)
    dimension = real.shape[1]
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {"real_chunks": len(real), "count": args.count, "dimension": dimension, "queries": len(queries),
               "noise": args.noise, "seed": args.seed, "cache": str(cache)}
    made = args.out / "vectors.json"
    if made.exists() and json.loads(made.read_text()) == summary and (args.out / "truth.i32").exists():
        log(f"{args.out} holds these vectors already")
        print(json.dumps(summary))
        return 0
    log(f"growing {len(real)} real vectors to {args.count} (noise {args.noise}) ...")
    random = np.random.default_rng(args.seed)
    with open(args.out / "base.f32", "wb") as out:
        written = 0
        while written < args.count:
            take = min(len(real), args.count - written)
            block = real[:take].astype(np.float32)
            if written >= len(real):
                noise = random.standard_normal(block.shape).astype(np.float32)
                noise *= args.noise / np.sqrt(dimension)
                block = block + noise * np.linalg.norm(block, axis=1, keepdims=True)
                block /= np.linalg.norm(block, axis=1, keepdims=True)
            block.astype(np.float32).tofile(out)
            written += take
    base = np.memmap(args.out / "base.f32", dtype=np.float32, mode="r").reshape(-1, dimension)
    queries.astype(np.float32).tofile(args.out / "queries.f32")
    log(f"exact top 10 of {len(queries)} queries over {len(base)} vectors ...")
    best_scores = np.full((len(queries), 10), -np.inf)
    best_rows = np.zeros((len(queries), 10), dtype=np.int64)
    q64 = queries.astype(np.float64)
    for start in range(0, len(base), 100_000):
        block = np.asarray(base[start:start + 100_000], dtype=np.float64)
        scores = q64 @ block.T
        both_scores = np.concatenate([best_scores, scores], axis=1)
        both_rows = np.concatenate([best_rows, np.arange(start, start + len(block))[None, :].repeat(len(queries), 0)],
                                   axis=1)
        keep = np.argpartition(-both_scores, 10, axis=1)[:, :10]
        best_scores = np.take_along_axis(both_scores, keep, axis=1)
        best_rows = np.take_along_axis(both_rows, keep, axis=1)
    order = np.argsort(-best_scores, axis=1)
    np.take_along_axis(best_rows, order, axis=1).astype(np.int32).tofile(args.out / "truth.i32")
    made.write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
