#!/usr/bin/env python3
"""Throughput and latency of `sieve serve` replicas behind HAProxy (and
nginx), on loopback, in one run: 1, 2 and 4 replicas behind each balancer,
and one replica asked directly as the baseline that shows what the balancer
itself costs. The load is bench/load/loadgen.go (closed loop, keep-alive,
exact percentiles), the same texts and the same total of ONNX Runtime
threads in every configuration (the machine's cores shared among the
replicas).

    .venv/bin/python bench/scaleout/balancer_bench.py [--seconds 15] [--concurrency 16] [--batch 1]

Prints a markdown table and writes the raw loadgen results beside it
(--out, default a temporary folder). On a machine with fewer cores than
replicas the replicas share cores: such a run shows what the balancer costs
and that requests are spread, not how throughput scales with machines.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "integration"))

from balancer_harness import BALANCERS, HAProxy, Replica, free_ports  # noqa: E402
from server_harness import models_root  # noqa: E402


def loadgen(binary: Path, port: int, args, out: Path, label: str) -> dict:
    cmd = [str(binary), "-url", f"http://127.0.0.1:{port}/v1/embeddings", "-model", "minilm", "-sentences",
           str(args.sentences), "-batch", str(args.batch), "-concurrency", str(args.concurrency),
           "-duration", f"{args.seconds}s", "-json", "-label", label]
    result = subprocess.run(cmd, check=True, capture_output=True, text=True)
    (out / f"{label}.json").write_text(result.stdout)
    return json.loads(result.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=ROOT / "models" / "all-MiniLM-L6-v2")
    parser.add_argument("--sentences", type=Path, default=ROOT / "tests" / "data" / "sentences.txt")
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--replicas", default="1,2,4")
    parser.add_argument("--balancers", default="haproxy,nginx")
    parser.add_argument("--rounds", type=int, default=3, help="the whole grid this many times, interleaved; medians")
    parser.add_argument("--cores", type=int, default=len(os.sched_getaffinity(0)),
                        help="ONNX Runtime threads in all, shared among the replicas")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="sieve-balancer-"))
    out.mkdir(parents=True, exist_ok=True)
    binary = out / "loadgen"
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=ROOT / "bench" / "load", check=True)
    shutil.rmtree(out / "work", ignore_errors=True)
    models = models_root(out / "work", {"minilm": args.model})

    rows: dict[str, list] = {}

    def run(label: str, kind: str | None, n: int) -> None:
        threads = max(1, args.cores // n)
        ports = free_ports(n)
        # --auto-truncate: the sentence file has lines longer than the model's 256 tokens.
        replicas = [Replica(models, p, "--auto-truncate", threads=threads) for p in ports]
        balancer = None
        try:
            if kind:
                balancer = BALANCERS[kind](out / "work" / label, ports)
                if isinstance(balancer, HAProxy):
                    balancer.wait_all_up()
            r = loadgen(binary, balancer.port if balancer else ports[0], args, out, f"{label}-r{len(rows.get(label, []))}")
            rows.setdefault(label, []).append((kind or "none (direct)", n, threads, r))
            print(f"{label}: {r['requests_per_second']:.1f} req/s, p50 {r['latency_ms']['p50']:.1f} ms, "
                  f"p99 {r['latency_ms']['p99']:.1f} ms, errors {r['errors']}", file=sys.stderr, flush=True)
        finally:
            if balancer:
                balancer.stop()
            for replica in replicas:
                replica.stop()

    for _ in range(args.rounds):
        run("direct-1", None, 1)
        for kind in args.balancers.split(","):
            for n in (int(x) for x in args.replicas.split(",")):
                run(f"{kind}-{n}", kind, n)

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d')}; commit {head.stdout.strip()}; model {args.model.name}; "
          f"batch {args.batch}, concurrency {args.concurrency}, {args.seconds} s per run, medians of {args.rounds} "
          f"interleaved rounds; "
          f"{args.cores} ONNX Runtime threads shared among the replicas")
    print()
    print("| balancer | replicas | threads each | requests/s (median; min-max) | p50 ms | p99 ms | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for runs in rows.values():
        kind, n, threads, _ = runs[0]
        rates = [r["requests_per_second"] for *_, r in runs]
        p50 = statistics.median(r["latency_ms"]["p50"] for *_, r in runs)
        p99 = statistics.median(r["latency_ms"]["p99"] for *_, r in runs)
        errors = sum(r["errors"] for *_, r in runs)
        print(f"| {kind} | {n} | {threads} | {statistics.median(rates):.1f} ({min(rates):.0f}-{max(rates):.0f}) | "
              f"{p50:.1f} | {p99:.1f} | {errors} |")
    print(f"\nraw results: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
