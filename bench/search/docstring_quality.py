#!/usr/bin/env python3
"""Retrieval quality of each search mode on the docstring set of tests/integration/test_search.py:
600 standard-library docstring bodies indexed with all-MiniLM-L6-v2 (and SPLADE-tiny's sparse vectors
when --sparse-model is given), 300 docstring summaries as queries, each one's relevant document the
body of its own docstring. Prints recall@10 and MRR@10 (by document) of vector, BM25, sparse and
hybrid search, hybrid with each fusion the Sieve given knows.

  .venv/bin/python bench/search/docstring_quality.py --sieve build/sieve \
      --sparse-model build/fixtures/splade-tiny [--weights vector=0.6,bm25=0.4 ...] > quality.json

--sieve may name an earlier build (one without --fusion), to compare with it on the same index
format: each build indexes the corpus itself.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import docstring_corpus  # noqa: E402


def run(sieve: str, *args: str, stdin: bytes | None = None) -> str:
    return subprocess.run([sieve, *args], input=stdin, capture_output=True, check=True).stdout.decode()


def measure(sieve: str, index: Path, queries: list[tuple[str, str]], extra: list[str]) -> dict:
    lines = "".join(q + "\n" for _, q in queries).encode()
    out = run(sieve, "search", "--index", str(index), "--queries", "-", "--json", "--k", "10", *extra, stdin=lines)
    results = [json.loads(line) for line in out.splitlines()]
    recall = 0
    reciprocal = 0.0
    for (relevant, _), result in zip(queries, results):
        documents = [h["document_id"] for h in result["hits"]][:10]
        if relevant in documents:
            recall += 1
            reciprocal += 1 / (documents.index(relevant) + 1)
    return {"recall@10": round(recall / len(queries), 4), "mrr@10": round(reciprocal / len(queries), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sieve", default=str(ROOT / "build" / "sieve"))
    parser.add_argument("--model", default=str(ROOT / "models" / "all-MiniLM-L6-v2"))
    parser.add_argument("--sparse-model", default="")
    parser.add_argument("--work", default="", help="folder for the corpus and index (default: a temporary one)")
    parser.add_argument("--weights", action="append", default=[], help="extra weighted fusions to measure")
    args = parser.parse_args()
    pairs = docstring_corpus.stdlib_pairs(600)
    queries = [(key, summary) for key, summary, _ in pairs[:300]]
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(args.work or temporary)
        work.mkdir(parents=True, exist_ok=True)
        corpus = work / "docstrings.jsonl"
        with open(corpus, "w") as out:
            for key, _, body in pairs:
                out.write(json.dumps({"id": key, "text": body}) + "\n")
        index = work / "idx"
        add = ["index", "add", "--index", str(index), "--model", args.model, "--quiet", "--chunk-tokens", "128",
               "--overlap", "16", "--exact-threshold", "200", str(corpus)]
        if args.sparse_model:
            add[6:6] = ["--sparse-model", args.sparse_model]
        run(args.sieve, *add)
        knows_fusion = "--fusion" in run(args.sieve, "search", "--help")
        lists = ["vector", "bm25"] + (["sparse"] if args.sparse_model else [])
        configs: dict[str, list[str]] = {mode: ["--mode", mode] for mode in lists}
        fusions = ["vector,bm25"] + (["vector,bm25,sparse"] if args.sparse_model else [])
        for fuse in fusions:
            base = ["--mode", "hybrid", "--fuse", fuse]
            if knows_fusion:
                configs[f"hybrid {fuse} rrf"] = base + ["--fusion", "rrf"]
                configs[f"hybrid {fuse} weighted"] = base + ["--fusion", "weighted"]
                for weights in args.weights:
                    configs[f"hybrid {fuse} weighted {weights}"] = base + ["--fusion", "weighted", "--weights", weights]
            else:
                configs[f"hybrid {fuse} rrf"] = base
        report = {name: measure(args.sieve, index, queries, extra) for name, extra in configs.items()}
    json.dump({"queries": len(queries), "documents": len(pairs), "sieve": args.sieve, "results": report},
              sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
