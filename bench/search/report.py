#!/usr/bin/env python3
"""The search benchmark's report: Sieve beside its Python peer, from one run.

Reads what bench/search/run.sh collected and prints a markdown section on
stdout; with --out also writes every figure as one JSON object.

    python bench/search/report.py --corpus-summary corpus.json --sieve-index index.json \\
        --sieve-disk-bytes N --sieve-search sieve.json --peer peer.json [--out report.json] [--note TEXT]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def fmt(value, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus-summary", type=Path, required=True, help="corpus.json of make_corpus.py")
    ap.add_argument("--sieve-index", type=Path, required=True, help="sieve index add --json's summary")
    ap.add_argument("--sieve-disk-bytes", type=int, required=True, help="du -sb of Sieve's index folder")
    ap.add_argument("--sieve-search", type=Path, required=True, help="sieve_search_bench's JSON")
    ap.add_argument("--peer", type=Path, required=True, help="peer.py's JSON")
    ap.add_argument("--out", type=Path, help="write the combined JSON here")
    ap.add_argument("--note", default="", help="a line added under the tables")
    args = ap.parse_args()

    corpus = load(args.corpus_summary)
    sieve_index = load(args.sieve_index)
    sieve = load(args.sieve_search)
    peer = load(args.peer)
    k = sieve.get("settings", {}).get("k", 10)
    recall_key = f"recall@{k}"

    s_docs = sieve_index.get("documents_added", 0)
    s_chunks = sieve_index.get("chunks_added", 0)
    s_seconds = float(sieve_index.get("seconds") or 0)
    indexing = {
        "sieve": {"documents": s_docs, "chunks": s_chunks, "seconds": s_seconds,
                  "documents_per_s": s_docs / s_seconds if s_seconds else None,
                  "chunks_per_s": s_chunks / s_seconds if s_seconds else None,
                  "disk_bytes": args.sieve_disk_bytes,
                  "database_bytes": sieve.get("stats", {}).get("database_bytes"),
                  "ann_bytes": sieve.get("stats", {}).get("ann_bytes")},
        "peer": {key: peer.get("index", {}).get(key) for key in
                 ("documents", "chunks", "seconds", "documents_per_s", "chunks_per_s", "disk_bytes",
                  "database_bytes", "ann_bytes")},
    }

    out: list[str] = []
    out.append("## Search (index and query)")
    out.append("")
    out.append(f"Corpus: {corpus['documents']:,} documents, {corpus['chunks']:,} chunks of at most "
               f"{corpus['chunk_tokens']} tokens ({corpus['overlap']} overlap), {corpus['bytes'] / 1e6:.1f} MB of "
               f"JSONL (bench/search/make_corpus.py: man pages, Python docstrings, Debian package synopses); "
               f"{corpus['queries']} queries. Model all-MiniLM-L6-v2 on both sides; peer: {peer.get('peer')}, "
               f"{peer.get('threads')} threads.")
    out.append("")
    out.append("| indexing | documents | chunks | seconds | documents/s | chunks/s | on disk (MB) |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, row in (("Sieve (`sieve index add`)", indexing["sieve"]), ("Python peer", indexing["peer"])):
        disk = row.get("disk_bytes")
        out.append(f"| {name} | {fmt(row.get('documents'))} | {fmt(row.get('chunks'))} | {fmt(row.get('seconds'))} "
                   f"| {fmt(row.get('documents_per_s'))} | {fmt(row.get('chunks_per_s'))} "
                   f"| {fmt(disk / 1e6 if disk else None)} |")
    if indexing["sieve"]["chunks"] != indexing["peer"]["chunks"]:
        out.append("")
        out.append(f"(The chunk counts differ: Sieve {fmt(indexing['sieve']['chunks'])}, peer "
                   f"{fmt(indexing['peer']['chunks'])}.)")
    out.append("")

    queries = {}
    out.append(f"| query mode | Sieve p50 (ms) | Sieve p99 (ms) | peer p50 (ms) | peer p99 (ms) "
               f"| Sieve {recall_key} | peer {recall_key} |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    order = ["vector", "vector+rerank", "bm25", "bm25+rerank", "hybrid", "hybrid+rerank"]
    found = list(sieve.get("modes", {})) + list(peer.get("modes", {}))
    names = [n for n in order if n in found] + sorted(set(found) - set(order))
    for name in names:
        s = sieve.get("modes", {}).get(name, {})
        p = peer.get("modes", {}).get(name, {})
        queries[name] = {"sieve": s, "peer": p}
        out.append(f"| {name} | {fmt(s.get('p50_ms'), 2)} | {fmt(s.get('p99_ms'), 2)} | {fmt(p.get('p50_ms'), 2)} "
                   f"| {fmt(p.get('p99_ms'), 2)} | {fmt(s.get(recall_key), 3)} | {fmt(p.get(recall_key), 3)} |")
    out.append("")

    s_ann = sieve.get(f"ann_{recall_key}", {})
    p_ann = peer.get(f"ann_{recall_key}", {})
    out.append(f"| approximate vs exact ({recall_key}) | Sieve | peer (hnswlib) |")
    out.append("| --- | ---: | ---: |")
    for mode in [m for m in ("vector", "hybrid") if m in s_ann or m in p_ann]:
        out.append(f"| {mode} | {fmt(s_ann.get(mode), 4)} | {fmt(p_ann.get(mode), 4)} |")
    ann_elements = sieve.get("stats", {}).get("ann_elements")
    if ann_elements == 0:
        out.append("")
        out.append(f"(Sieve's index has no graph: {fmt(sieve['stats'].get('chunks'))} chunks are under its exact "
                   f"threshold of {fmt(sieve['stats'].get('exact_threshold'))}, so its search is exact.)")
    out.append("")
    out.append(f"Latency is per query, end to end (embedding the query, retrieval, and with +rerank the "
               f"cross-encoder on the top {sieve.get('settings', {}).get('rerank_candidates', 50)} candidates); "
               f"{recall_key} counts a query's relevant document as found when one of its chunks is among the "
               f"{k} hits. Graph: M=16, ef_construction=100, ef={sieve.get('settings', {}).get('ef_search', 64)} "
               f"on both sides. Reranker: {Path(sieve.get('rerank_model') or '-').name}.")
    rerank_dir = Path(sieve.get("rerank_model") or peer.get("rerank_model") or "")
    if str(rerank_dir) and (rerank_dir / "fixture.json").is_file():
        out.append("")
        out.append("The reranker is the test fixture (tools/make_cross_encoder.py): a real cross-encoder's shape with "
                   "random weights, so its latency is real and its recall is not.")
    if args.note:
        out.append("")
        out.append(args.note)
    print("\n".join(out))

    if args.out:
        combined = {"corpus": corpus, "indexing": indexing, "queries": queries,
                    "ann": {"sieve": s_ann, "peer": p_ann}, "sieve": sieve, "sieve_index": sieve_index,
                    "peer": peer, "note": args.note}
        args.out.write_text(json.dumps(combined, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
