#!/usr/bin/env python3
"""The million-chunk benchmark's peers: the embedded vector stores users pick, on the same vectors as Sieve.

Each peer is built in one process and searched in another, so that the search process's resident memory is what
the store needs to answer queries (VmRSS before it opens the store and after its first query), as Sieve's runner
(bench/search/scale/scale_bench.cpp) measures it:

    peers.py build --peer faiss-hnsw --dir DIR --base base.f32 --count N      -> {"build_s", "disk_bytes"}
    peers.py query --peer faiss-hnsw --dir DIR --queries queries.f32 --truth truth.i32 -> {"recall_at_10", ...}

Peers (each where its package installs; bench/search/scale/run.sh makes their environment):
  faiss-hnsw      FAISS IndexHNSWFlat (M 16, efConstruction 100, efSearch 64; L2, which ranks normalized vectors as
                  the inner product does): float32 in memory, as Sieve's float32
  faiss-hnsw-sq8  FAISS IndexHNSWSQ (8-bit scalar quantizer, per dimension): int8 in memory, no rescoring
  faiss-ivfpq     FAISS IVF4096,PQ48 with a float32 refinement (IndexRefineFlat, k_factor 4), nprobe 32
  hnswlib         hnswlib 0.8 (the library Sieve's graph uses), float32, same M and ef
  sqlite-vec      sqlite-vec vec0 table: exact search over float32 (no graph), and int8/bit with rescoring
  lancedb         LanceDB IVF_PQ index (num_partitions 1024, num_sub_vectors 48) with refine_factor 4, nprobes 32
  chroma          Chroma PersistentClient (hnswlib inside; M 16, construction_ef 100, search_ef 64)
  qdrant-local    qdrant-client's local mode (on disk, searched in Python)
"""

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

K = 10
M = 16
EF_CONSTRUCTION = 100
EF_SEARCH = 64


def resident_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def folder_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def batches(base: np.ndarray, size: int = 50_000):
    for start in range(0, len(base), size):
        yield start, np.ascontiguousarray(base[start:start + size], dtype=np.float32)


# --- FAISS ----------------------------------------------------------------------------------------------------------
def faiss_build(kind: str, folder: Path, base: np.ndarray) -> None:
    import faiss
    faiss.omp_set_num_threads(int(os.environ.get("THREADS", "2")))
    d = base.shape[1]
    # L2 on the normalized vectors ranks as the inner product does; FAISS's HNSW built on the inner product itself
    # found 0.60 to 0.67 of the exact top 10 on this set at efSearch 64 to 512 (a graph built on a non-metric
    # similarity), so its own recommendation, L2, is what is measured.
    if kind == "faiss-hnsw":
        index = faiss.IndexHNSWFlat(d, M, faiss.METRIC_L2)
        index.hnsw.efConstruction = EF_CONSTRUCTION
    elif kind == "faiss-hnsw-sq8":
        index = faiss.IndexHNSWSQ(d, faiss.ScalarQuantizer.QT_8bit, M, faiss.METRIC_L2)
        index.hnsw.efConstruction = EF_CONSTRUCTION
        sample = np.ascontiguousarray(base[np.random.default_rng(1).choice(len(base), min(len(base), 200_000),
                                                                            replace=False)], dtype=np.float32)
        index.train(sample)
    else:
        ivfpq = faiss.index_factory(d, "IVF4096,PQ48", faiss.METRIC_L2)
        sample = np.ascontiguousarray(base[np.random.default_rng(1).choice(len(base), min(len(base), 200_000),
                                                                            replace=False)], dtype=np.float32)
        ivfpq.train(sample)
        index = faiss.IndexRefineFlat(ivfpq)
    for _, block in batches(base):
        index.add(block)
    faiss.write_index(index, str(folder / "index.faiss"))


def faiss_open(kind: str, folder: Path, ef: int):
    import faiss
    faiss.omp_set_num_threads(1)
    index = faiss.read_index(str(folder / "index.faiss"))
    if kind in ("faiss-hnsw", "faiss-hnsw-sq8"):
        index.hnsw.efSearch = ef
        return lambda q: index.search(q[None, :], K)[1][0]
    params = faiss.IndexRefineSearchParameters(k_factor=4, base_index_params=faiss.SearchParametersIVF(nprobe=32))
    return lambda q: index.search(q[None, :], K, params=params)[1][0]


# --- hnswlib --------------------------------------------------------------------------------------------------------
def hnswlib_build(folder: Path, base: np.ndarray) -> None:
    import hnswlib
    index = hnswlib.Index(space="ip", dim=base.shape[1])
    index.init_index(max_elements=len(base), M=M, ef_construction=EF_CONSTRUCTION)
    index.set_num_threads(int(os.environ.get("THREADS", "2")))
    for start, block in batches(base):
        index.add_items(block, np.arange(start, start + len(block)))
    index.save_index(str(folder / "index.hnsw"))


def hnswlib_open(folder: Path, d: int, ef: int):
    import hnswlib
    index = hnswlib.Index(space="ip", dim=d)
    index.load_index(str(folder / "index.hnsw"))
    index.set_ef(ef)
    index.set_num_threads(1)
    return lambda q: index.knn_query(q, k=K)[0][0]


# --- sqlite-vec -----------------------------------------------------------------------------------------------------
def sqlite_connect(path: Path):
    # APSW: its SQLite loads extensions (this Python's sqlite3 module may not).
    import apsw
    import sqlite_vec
    db = apsw.Connection(str(path))
    db.enable_load_extension(True)
    db.load_extension(sqlite_vec.loadable_path())
    db.enable_load_extension(False)
    return db


def sqlite_vec_build(kind: str, folder: Path, base: np.ndarray) -> None:
    db = sqlite_connect(folder / "vec.db")
    d = base.shape[1]
    if kind == "sqlite-vec":
        db.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{d}] distance_metric=cosine)")
        insert = "INSERT INTO v(rowid, embedding) VALUES (?, ?)"
    else:
        # Codes searched, float32 kept for rescoring (sqlite-vec's documented recipe).
        code = "bit" if kind == "sqlite-vec-bit" else "int8"
        db.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding {code}[{d}], full float[{d}])")
        convert = "vec_quantize_binary(?)" if code == "bit" else "vec_quantize_int8(?, 'unit')"
        insert = f"INSERT INTO v(rowid, embedding, full) VALUES (?, {convert}, ?)"
    for start, block in batches(base, 10_000):
        with db:  # one transaction
            if kind == "sqlite-vec":
                db.executemany(insert, ((start + i + 1, row.tobytes()) for i, row in enumerate(block)))
            else:
                db.executemany(insert, ((start + i + 1, row.tobytes(), row.tobytes()) for i, row in enumerate(block)))
    db.close()


def sqlite_vec_open(kind: str, folder: Path):
    import threading
    local = threading.local()  # a connection per thread, as SQLite wants

    def db():
        if not hasattr(local, "db"):
            local.db = sqlite_connect(folder / "vec.db")
        return local.db

    db()
    if kind == "sqlite-vec":
        statement = "SELECT rowid FROM v WHERE embedding MATCH ? AND k = ? ORDER BY distance"
        return lambda q: [r - 1 for (r,) in db().execute(statement, (q.tobytes(), K))]
    convert = "vec_quantize_binary(?)" if kind == "sqlite-vec-bit" else "vec_quantize_int8(?, 'unit')"
    factor = 10 if kind == "sqlite-vec-bit" else 4
    statement = (f"WITH coarse AS (SELECT rowid, full FROM v WHERE embedding MATCH {convert} AND k = ?) "
                 "SELECT rowid FROM coarse ORDER BY vec_distance_cosine(full, ?) LIMIT ?")
    return lambda q: [r - 1 for (r,) in db().execute(statement, (q.tobytes(), K * factor, q.tobytes(), K))]


# --- LanceDB --------------------------------------------------------------------------------------------------------
def lancedb_build(folder: Path, base: np.ndarray) -> None:
    import lancedb
    import pyarrow as pa
    db = lancedb.connect(str(folder / "lance"))
    d = base.shape[1]
    schema = pa.schema([pa.field("id", pa.int64()), pa.field("vector", pa.list_(pa.float32(), d))])
    table = db.create_table("chunks", schema=schema)
    for start, block in batches(base, 100_000):
        vectors = pa.FixedSizeListArray.from_arrays(pa.array(block.reshape(-1)), d)
        table.add(pa.table({"id": pa.array(np.arange(start, start + len(block))), "vector": vectors}))
    table.create_index(metric="dot", num_partitions=1024, num_sub_vectors=48, index_type="IVF_PQ")


def lancedb_open(folder: Path):
    import lancedb
    table = lancedb.connect(str(folder / "lance")).open_table("chunks")
    return lambda q: (table.search(q).metric("dot").nprobes(32).refine_factor(4).limit(K).select(["id"])
                      .to_arrow()["id"].to_pylist())


# --- Chroma ---------------------------------------------------------------------------------------------------------
def chroma_build(folder: Path, base: np.ndarray) -> None:
    import chromadb
    client = chromadb.PersistentClient(path=str(folder / "chroma"))
    collection = client.create_collection("chunks", configuration={"hnsw": {
        "space": "ip", "max_neighbors": M, "ef_construction": EF_CONSTRUCTION, "ef_search": EF_SEARCH}})
    for start, block in batches(base, 5_000):
        collection.add(ids=[str(i) for i in range(start, start + len(block))], embeddings=block)


def chroma_open(folder: Path):
    import chromadb
    collection = chromadb.PersistentClient(path=str(folder / "chroma")).get_collection("chunks")
    return lambda q: [int(i) for i in collection.query(query_embeddings=q[None, :], n_results=K,
                                                       include=[])["ids"][0]]


# --- Qdrant's local mode --------------------------------------------------------------------------------------------
def qdrant_build(folder: Path, base: np.ndarray) -> None:
    from qdrant_client import QdrantClient, models
    client = QdrantClient(path=str(folder / "qdrant"))
    client.create_collection("chunks", vectors_config=models.VectorParams(size=base.shape[1],
                                                                          distance=models.Distance.DOT))
    for start, block in batches(base, 10_000):
        client.upload_collection("chunks", vectors=block, ids=list(range(start, start + len(block))))
    client.close()


def qdrant_open(folder: Path):
    from qdrant_client import QdrantClient
    client = QdrantClient(path=str(folder / "qdrant"))
    return lambda q: [p.id for p in client.query_points("chunks", query=q, limit=K).points]


PEERS = ["faiss-hnsw", "faiss-hnsw-sq8", "faiss-ivfpq", "hnswlib", "sqlite-vec", "sqlite-vec-int8",
         "sqlite-vec-bit", "lancedb", "chroma", "qdrant-local"]


def build(peer: str, folder: Path, base: np.ndarray) -> None:
    if peer.startswith("faiss"):
        faiss_build(peer, folder, base)
    elif peer == "hnswlib":
        hnswlib_build(folder, base)
    elif peer.startswith("sqlite-vec"):
        sqlite_vec_build(peer, folder, base)
    elif peer == "lancedb":
        lancedb_build(folder, base)
    elif peer == "chroma":
        chroma_build(folder, base)
    elif peer == "qdrant-local":
        qdrant_build(folder, base)


def open_peer(peer: str, folder: Path, d: int, ef: int):
    if peer.startswith("faiss"):
        return faiss_open(peer, folder, ef)
    if peer == "hnswlib":
        return hnswlib_open(folder, d, ef)
    if peer.startswith("sqlite-vec"):
        return sqlite_vec_open(peer, folder)
    if peer == "lancedb":
        return lancedb_open(folder)
    if peer == "chroma":
        return chroma_open(folder)
    return qdrant_open(folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "query"])
    parser.add_argument("--peer", choices=PEERS, required=True)
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--base", type=Path)
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--queries", type=Path)
    parser.add_argument("--truth", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--ef", type=int, default=EF_SEARCH, help="HNSW's ef at query time (FAISS, hnswlib)")
    args = parser.parse_args()
    d = args.dimension
    if args.command == "build":
        base = np.memmap(args.base, dtype=np.float32, mode="r").reshape(-1, d)
        if args.count:
            base = base[:args.count]
        shutil.rmtree(args.dir, ignore_errors=True)
        args.dir.mkdir(parents=True)
        start = time.perf_counter()
        build(args.peer, args.dir, base)
        print(json.dumps({"peer": args.peer, "count": len(base), "build_s": time.perf_counter() - start,
                          "disk_bytes": folder_bytes(args.dir)}))
        return 0
    queries = np.fromfile(args.queries, dtype=np.float32).reshape(-1, d)
    truth = np.fromfile(args.truth, dtype=np.int32).reshape(-1, K)
    n = min(len(queries), len(truth), args.limit or len(queries))
    before = resident_bytes()
    search = open_peer(args.peer, args.dir, d, args.ef)
    start = time.perf_counter()
    search(queries[0])
    first = time.perf_counter() - start
    after = resident_bytes()
    latencies, found = [], 0
    for i in range(n):
        start = time.perf_counter()
        hits = search(queries[i])
        latencies.append((time.perf_counter() - start) * 1000)
        found += len(set(int(h) for h in hits) & set(int(t) for t in truth[i]))
    # Queries/s with two threads asking at once, as Sieve's runner measures it (Qdrant's local mode is not safe
    # across threads: one).
    threads = 1 if args.peer == "qdrant-local" else 2
    from concurrent.futures import ThreadPoolExecutor
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda i: search(queries[i]), range(n)))
    parallel = time.perf_counter() - start
    print(json.dumps({"peer": args.peer, "ef": args.ef, "queries": n, "recall_at_10": found / (n * K),
                      "p50_ms": float(np.percentile(latencies, 50)), "p99_ms": float(np.percentile(latencies, 99)),
                      "threads": threads, "queries_per_s": n / parallel, "first_search_s": first,
                      "search_resident_bytes": max(0, after - before)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
