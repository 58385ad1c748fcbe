#!/usr/bin/env python3
"""Hugging Face `tokenizers` on the tokenizer benchmark's corpus: the peer of
bench/tokenizer_bench.cpp, run in the same session on the same lines.

    python bench/tokenizer_peers.py --tokenizer [NAME=]FILE ... --corpus FILE [--min-seconds S]

For each file: the library's own batch encode (encode_batch) without the
file's truncation and padding, single-threaded (TOKENIZERS_PARALLELISM=false,
RAYON_NUM_THREADS=1, set before the library is imported) and, in a child
process, on all cores. Prints one JSON object like the C++ program's, with
the same FNV-1a hash of every id so that the report can check both sides
produced identical output.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def parse_spec(spec: str) -> tuple[str, str]:
    if "=" in spec:
        name, path = spec.split("=", 1)
        return name, path
    return Path(spec).parent.name, spec


def hash_ids(encodings) -> int:
    h = 1469598103934665603
    mask = (1 << 64) - 1
    for e in encodings:
        for i in e.ids:
            h = ((h ^ i) * 1099511628211) & mask
        h = ((h ^ 0xFFFFFFFF) * 1099511628211) & mask
    return h


def median(values: list[float]) -> float:
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def measure(path: str, lines: list[str], min_seconds: float, with_hash: bool, all_cores: bool = False) -> dict:
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(path)
    tok.no_truncation()
    tok.no_padding()
    first = tok.encode_batch(lines)  # warm-up and the reference output
    tokens = sum(len(e.ids) for e in first)
    out = {"tokens": tokens}
    if with_hash:
        out["ids_hash"] = str(hash_ids(first))
    # Single-threaded runs count process CPU time (as Sieve's side does), so
    # that other load on the machine does not count; the all-cores child
    # counts wall time. Counting the tokens stays outside the timed region.
    clock = time.perf_counter if all_cores else time.process_time
    rates = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_seconds or len(rates) < 3:
        t = clock()
        encodings = tok.encode_batch(lines)
        seconds = clock() - t
        rates.append(sum(len(e.ids) for e in encodings) / seconds)
    out["tokens_per_second"] = median(rates)
    out["repetitions"] = len(rates)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", action="append", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--min-seconds", type=float, default=3)
    ap.add_argument("--child-all-cores", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    lines = Path(args.corpus).read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()

    if args.child_all_cores:
        name, path = parse_spec(args.tokenizer[0])
        print(json.dumps(measure(path, lines, args.min_seconds, with_hash=False, all_cores=True)))
        return 0

    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    os.environ["RAYON_NUM_THREADS"] = "1"
    import tokenizers
    report = {"lines": len(lines), "tokenizers_version": tokenizers.__version__, "tokenizers": {}}
    for spec in args.tokenizer:
        name, path = parse_spec(spec)
        single = measure(path, lines, args.min_seconds, with_hash=True)
        env = {k: v for k, v in os.environ.items() if k not in ("RAYON_NUM_THREADS",)}
        env["TOKENIZERS_PARALLELISM"] = "true"
        child = subprocess.run([sys.executable, __file__, "--tokenizer", spec, "--corpus", args.corpus,
                                "--min-seconds", str(args.min_seconds), "--child-all-cores"],
                               env=env, check=True, capture_output=True, text=True)
        multi = json.loads(child.stdout)
        report["tokenizers"][name] = {
            "tokens": single["tokens"], "ids_hash": single["ids_hash"],
            "single_thread": {"tokens_per_second": single["tokens_per_second"],
                              "repetitions": single["repetitions"]},
            "all_cores": {"tokens_per_second": multi["tokens_per_second"], "repetitions": multi["repetitions"]},
        }
        print(f"{name}: {report['tokenizers'][name]}", file=sys.stderr)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
