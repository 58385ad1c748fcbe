#!/usr/bin/env python3
"""The million-chunk benchmark's table (bench/search/scale/run.sh): one row per store and setting, from results.jsonl.

    python bench/search/scale/report.py results.jsonl vectors.json
"""
import json
import sys


def mb(value) -> str:
    return f"{value / 1e6:,.0f}" if value else "-"


def main() -> int:
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    vectors = json.load(open(sys.argv[2]))
    print(f"{vectors['count']:,} vectors of {vectors['dimension']} dimensions ({vectors['real_chunks']:,} real chunks, "
          f"the rest grown with noise {vectors['noise']}), {vectors['queries']} held-out queries, k 10.\n")
    print("| store | setting | build s | on disk MB | resident MB | recall@10 | p50 ms | p99 ms | queries/s "
          "| recall@10 per ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        build, query = row["result"]["build"], row["result"]["query"]
        name = row["name"]
        setting = ""
        if name.startswith("sieve"):
            setting = "exact" if query.get("exact") else f"ef {query['ef']}"
            if query.get("rescore"):
                setting += f", rescore {query['rescore']}x"
            build_s = build["store_s"] + build["graph_s"]
            resident = query["graph_resident_bytes"]
        else:
            if name.startswith(("faiss-hnsw", "hnswlib")):
                setting = f"ef {query['ef']}"
            build_s = build["build_s"]
            resident = query["search_resident_bytes"]
        per_ms = query["recall_at_10"] / query["p50_ms"] if query["p50_ms"] else 0
        print(f"| {name} | {setting} | {build_s:,.0f} | {mb(build['disk_bytes'])} | {mb(resident)} | "
              f"{query['recall_at_10']:.4f} | {query['p50_ms']:.2f} | {query['p99_ms']:.2f} | "
              f"{query['queries_per_s']:,.0f} ({query.get('threads', 1)} threads) | {per_ms:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
