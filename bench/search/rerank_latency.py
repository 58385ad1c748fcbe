#!/usr/bin/env python3
"""Per-query time of hybrid search with cross-encoder reranking, as `sieve search --queries` reports it
(each result's "seconds": the query's embedding, the lists, fusion and reranking; the models loaded
once). The corpus: standard-library docstring bodies, six to a document, indexed in chunks of 256
tokens (Sieve's default) so that candidates are full-size chunks; the queries: 100 docstring summaries.

  .venv/bin/python bench/search/rerank_latency.py --sieve build/sieve \
      --rerank build/fixtures/cross-encoder-minilm-l6 [--candidates 20 --candidates 50] > latency.json

--sieve may name an earlier build, to compare with it (each build indexes the corpus itself).
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import docstring_corpus  # noqa: E402


def run(sieve: str, *args: str, stdin: bytes | None = None) -> str:
    return subprocess.run([sieve, *args], input=stdin, capture_output=True, check=True).stdout.decode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sieve", default=str(ROOT / "build" / "sieve"))
    parser.add_argument("--model", default=str(ROOT / "models" / "all-MiniLM-L6-v2"))
    parser.add_argument("--rerank", default=str(ROOT / "build" / "fixtures" / "cross-encoder-minilm-l6"))
    parser.add_argument("--candidates", type=int, action="append", default=[],
                        help="reranked candidates (default: the build's own default only)")
    parser.add_argument("--window", type=int, action="append", default=[],
                        help="--rerank-window values to measure (a build that has the option)")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    pairs = docstring_corpus.stdlib_pairs(600)
    queries = [summary for _, summary, _ in pairs[:args.queries]]
    report: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as work:
        corpus = Path(work) / "docs.jsonl"
        with open(corpus, "w") as out:
            for first in range(0, len(pairs), 6):
                group = pairs[first:first + 6]
                out.write(json.dumps({"id": group[0][0], "text": "\n\n".join(body for _, _, body in group)}) + "\n")
        index = Path(work) / "idx"
        run(args.sieve, "index", "add", "--index", str(index), "--model", args.model, "--quiet", str(corpus))
        stats = json.loads(run(args.sieve, "index", "stats", "--index", str(index), "--json"))
        lines = "".join(q + "\n" for q in queries).encode()
        runs = [("hybrid", [])]
        for candidates in args.candidates or [0]:
            for window in args.window or [0]:
                extra = ["--rerank", args.rerank]
                label = "hybrid+rerank"
                if candidates:
                    extra += ["--rerank-candidates", str(candidates)]
                    label += f", {candidates} candidates"
                if window:
                    extra += ["--rerank-window", str(window)]
                    label += f", window {window} bytes"
                runs.append((label, extra))
        for name, extra in runs:
            out = run(args.sieve, "search", "--index", str(index), "--queries", "-", "--json", "--k", "10", *extra,
                      stdin=lines)
            seconds = sorted(json.loads(line)["seconds"] for line in out.splitlines())
            report[name] = {"p50_ms": round(1000 * statistics.median(seconds), 1),
                            "p90_ms": round(1000 * seconds[int(0.9 * (len(seconds) - 1))], 1)}
    json.dump({"queries": len(queries), "documents": stats["documents"], "chunks": stats["chunks"],
               "chunk_tokens": stats["chunk_tokens"], "sieve": args.sieve, "results": report}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
