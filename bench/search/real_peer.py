#!/usr/bin/env python3
"""The real-corpus benchmark's peer: the documents Sieve read from a real
folder, indexed the way a desktop user's Python stack would -- LanceDB with
sentence-transformers, the same model -- for time, memory and query latency
beside `sieve index add` (bench/search/real_corpus.sh).

  index   reads the documents (JSON Lines {"id", "title", "text"}, as
          sieve_read_corpus --documents writes them: the same texts Sieve
          indexes, so both sides embed the same words), chunks them by
          tokens with overlap as Sieve does (bench/search/chunking.py, the
          model's tokenizer), embeds the chunks with sentence-transformers
          (normalized, batches of 32), writes them to a LanceDB table in
          batches, then builds LanceDB's full-text index and, past 20,000
          chunks (Sieve's exact-search threshold), a vector index
          (IVF_HNSW_SQ, cosine).
  search  runs each query of a JSONL file ({"query", "relevant": [ids]}) as
          vector search and full-text search (k=10), and reports per-query
          latency p50/p99 (embedding the query included) and recall@10
          against the relevant documents (a document counts when one of its
          chunks is among the hits), as sieve_search_bench does.

Prints one JSON object on stdout (progress on stderr).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chunking import chunk_spans  # noqa: E402


def log(*parts: object) -> None:
    print("[real peer]", *parts, file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[rank]


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def index(args: argparse.Namespace) -> dict:
    import lancedb
    import pyarrow as pa
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(args.model) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    model = SentenceTransformer(args.model, device="cpu")
    out = Path(args.index_dir)
    shutil.rmtree(out, ignore_errors=True)
    db = lancedb.connect(str(out))
    table = None
    started = time.perf_counter()
    documents = chunks = 0
    pending: list[dict] = []

    def flush() -> None:
        nonlocal table, pending
        if not pending:
            return
        vectors = model.encode([c["text"] for c in pending], batch_size=32, normalize_embeddings=True,
                               convert_to_numpy=True)
        batch = pa.table({
            "document_id": [c["document_id"] for c in pending],
            "title": [c["title"] for c in pending],
            "text": [c["text"] for c in pending],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1), pa.float32()),
                                                        vectors.shape[1]),
        })
        if table is None:
            table = db.create_table("chunks", data=batch)
        else:
            table.add(batch)
        pending = []

    with open(args.documents, encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            text = doc["text"]
            offsets = tokenizer.encode(text, add_special_tokens=False).offsets
            spans = chunk_spans(offsets, args.chunk_tokens, args.overlap)
            documents += 1
            for begin, end in spans:
                pending.append({"document_id": doc["id"], "title": doc.get("title", ""), "text": text[begin:end]})
                chunks += 1
            if len(pending) >= args.batch_chunks:
                flush()
                log(f"{documents} documents, {chunks} chunks, {time.perf_counter() - started:.0f} s")
    flush()
    embedded = time.perf_counter() - started
    if table is not None:
        table.create_fts_index("text", use_tantivy=False, replace=True)
        if chunks > args.exact_threshold:
            table.create_index(metric="cosine", vector_column_name="vector", index_type="IVF_HNSW_SQ")
    seconds = time.perf_counter() - started
    return {"documents": documents, "chunks": chunks, "seconds": seconds, "embedding_seconds": embedded,
            "documents_per_s": documents / seconds, "chunks_per_s": chunks / seconds,
            "index_bytes": folder_bytes(out), "vector_index": chunks > args.exact_threshold}


def search(args: argparse.Namespace) -> dict:
    import lancedb
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(args.model, device="cpu")
    table = lancedb.connect(args.index_dir).open_table("chunks")
    queries = [json.loads(line) for line in open(args.queries, encoding="utf-8") if line.strip()]
    rows = {}
    for mode in ("vector", "bm25"):
        def run(query: str) -> list[dict]:
            if mode == "vector":
                vector = model.encode([query], normalize_embeddings=True, convert_to_numpy=True)[0]
                return table.search(vector).metric("cosine").limit(args.k).to_list()
            return table.search(query, query_type="fts").limit(args.k).to_list()

        run(queries[0]["query"])  # warm-up
        latencies, recalls = [], []
        for q in queries:
            started = time.perf_counter()
            hits = run(q["query"])
            latencies.append((time.perf_counter() - started) * 1000)
            found = {h["document_id"] for h in hits}
            relevant = q.get("relevant", [])
            if relevant:
                recalls.append(sum(1 for r in relevant if r in found) / len(relevant))
        rows[mode] = {"queries": len(queries), "p50_ms": percentile(latencies, 50),
                      "p99_ms": percentile(latencies, 99), "mean_ms": statistics.fmean(latencies),
                      f"recall@{args.k}": statistics.fmean(recalls) if recalls else None}
        log(mode, rows[mode])
    return {"modes": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["index", "search"])
    parser.add_argument("--documents", help="documents JSONL (index)")
    parser.add_argument("--queries", help="queries JSONL (search)")
    parser.add_argument("--model", required=True, help="sentence-transformers model folder")
    parser.add_argument("--index-dir", required=True)
    parser.add_argument("--chunk-tokens", type=int, default=256)
    parser.add_argument("--overlap", type=int, default=32)
    parser.add_argument("--batch-chunks", type=int, default=256)
    parser.add_argument("--exact-threshold", type=int, default=20000)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    result = index(args) if args.command == "index" else search(args)
    import lancedb
    import sentence_transformers
    import torch
    result["versions"] = {"lancedb": lancedb.__version__, "sentence_transformers": sentence_transformers.__version__,
                          "torch": torch.__version__}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
