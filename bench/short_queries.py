#!/usr/bin/env python3
"""Latency of one short query (at most 16 tokens) per precision tier, in-process and over HTTP.

    .venv/bin/python bench/short_queries.py [--rounds 3] [--queries 300] [--threads 2]

Tiers of all-MiniLM-L6-v2 (made under build/short_queries/ on the first run):
  fp32            models/all-MiniLM-L6-v2 on ONNX Runtime's CPU provider
  int8            `sieve_tools quantize --per-channel` (dynamic INT8) on the CPU provider
  near-lossless   the fp32 folder on --provider openvino (the plugin, or OpenVINO's own runtime where the plugin offers
                  no device), its default precision (bf16 on CPUs with AMX/AVX512-BF16)
  ov-int8         `sieve_tools quantize --mode static --per-channel` (QDQ) on --provider openvino

Paths:
  python          sieve.Embedder(...).encode([query]) in a fresh process per (tier, round), after a warm-up
  http            POST /v1/embeddings {"model", "input": query} to `sieve serve` on loopback, one kept-alive
                  connection, in a fresh server per (tier, round), with the server's defaults: a lone input
                  waits up to --max-wait-ms (2 ms) for others to share its run
  http-nowait     the same with --max-wait-ms 0

Queries: the summary lines of Python's standard library docstrings that tokenize to at most 16 tokens (special
tokens included), each query sent alone. Rounds interleave the tiers in a fresh random order; the table shows the
median over rounds of each round's p50 and p99. Results: build/short_queries/result.json and the Markdown table
on stdout.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "short_queries"
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "bench"))

TIERS = {
    "fp32": ("fp32", None),
    "int8": ("int8", None),
    "near-lossless": ("fp32", "openvino"),
    "ov-int8": ("qdq", "openvino"),
}
GOALS_MS = {"int8": 1.0, "near-lossless": 2.0}  # in-process p50 goals on a 2-core machine


def log(msg: str) -> None:
    print(f"[short_queries] {msg}", file=sys.stderr, flush=True)


def queries(model: Path, limit: int) -> list[str]:
    from tokenizers import Tokenizer

    from sieve_tools.accuracy import _SAMPLE_MODULES, _paragraphs
    import sysconfig

    tok = Tokenizer.from_file(str(model / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    lines = list(dict.fromkeys(s for m in _SAMPLE_MODULES for s, _ in _paragraphs(stdlib / m)))
    short = [q for q in lines if 3 <= len(tok.encode(q).ids) <= 16]
    random.Random(7).shuffle(short)
    return (short * (limit // max(1, len(short)) + 1))[:limit]


def folders(args) -> dict[str, Path]:
    made = {"fp32": args.model}
    tools = [str(args.python), "-m", "sieve_tools", "quantize", str(args.model)]
    for name, extra in (("int8", ["--per-channel"]),
                        ("qdq", ["--mode", "static", "--per-channel", "--calibration",
                                 str(ROOT / "tests" / "data" / "sentences.txt"), "--calibration-size", "200"])):
        out = OUT / f"minilm-{name}"
        if not (out / "model.onnx").is_file():
            log(f"making {out}")
            subprocess.run([*tools, "--out", str(out), *extra], check=True, env={**os.environ,
                           "PYTHONPATH": str(ROOT / "tools")}, stdout=subprocess.DEVNULL)
        made[name] = out
    return made


WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import sieve
folder, provider, threads, qfile = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
queries = json.load(open(qfile))
emb = sieve.Embedder(folder, threads=threads, providers=[provider] if provider else [])
for q in queries[:50]:
    emb.encode([q])
out = []
for q in queries:
    t = time.perf_counter(); emb.encode([q]); out.append(time.perf_counter() - t)
print(json.dumps({"seconds": out, "providers": emb.providers}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def time_python(args, folder: Path, provider: str | None, qfile: Path) -> dict:
    done = subprocess.run([str(args.python), "-c", WORKER, str(args.package), str(folder), provider or "",
                           str(args.threads), str(qfile)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def time_http(args, folder: Path, provider: str | None, qs: list[str], wait: bool) -> dict:
    port = free_port()
    root = folder.parent
    cmd = [str(args.sieve), "--log-level", "warn", "serve", "--models", str(root), "--model", folder.name,
           "--port", str(port), "--threads", str(args.threads)]
    if not wait:
        cmd += ["--max-wait-ms", "0"]
    if provider:
        cmd += ["--provider", provider]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("GET", "/health")
                if conn.getresponse().read() is not None:
                    break
            except OSError:
                if server.poll() is not None or time.time() > deadline:
                    raise SystemExit(f"sieve serve did not start: {server.stderr.read()[-400:]}")
                time.sleep(0.1)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

        def one(q: str) -> None:
            body = json.dumps({"model": folder.name, "input": q})
            conn.request("POST", "/v1/embeddings", body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
            if resp.status != 200:
                raise SystemExit(f"/v1/embeddings answered {resp.status}: {data[:200]!r}")

        for q in qs[:50]:
            one(q)
        out = []
        for q in qs:
            t = time.perf_counter()
            one(q)
            out.append(time.perf_counter() - t)
        return {"seconds": out}
    finally:
        server.terminate()
        server.wait(timeout=30)


def percentiles(seconds: list[float]) -> dict:
    ms = sorted(s * 1000 for s in seconds)
    if not ms:
        raise SystemExit("no timings")
    pick = lambda p: ms[min(len(ms) - 1, int(round(p / 100 * (len(ms) - 1))))]  # noqa: E731
    return {"p50": pick(50), "p99": pick(99)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "all-MiniLM-L6-v2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tiers", default=",".join(TIERS))
    ap.add_argument("--paths", default="python,http,http-nowait")
    ap.add_argument("--python", type=Path, default=ROOT / ".venv" / "bin" / "python")
    ap.add_argument("--sieve", type=Path, default=ROOT / "build" / "sieve")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    import tempfile

    import python_peers as pp

    work = Path(tempfile.mkdtemp(prefix="short-queries-"))
    pp_args = argparse.Namespace(build=ROOT / "build")
    args.package = pp.snapshot_binaries(pp_args, work)[0]
    made = folders(args)
    qs = queries(args.model, args.queries)
    qfile = work / "queries.json"
    qfile.write_text(json.dumps(qs), encoding="utf-8")
    tiers = [t for t in args.tiers.split(",") if t]
    paths = [p for p in args.paths.split(",") if p]
    log(f"{len(qs)} queries of at most 16 tokens, tiers {tiers}, paths {paths}, {args.rounds} rounds")
    rounds: dict = {f"{t}/{p}": [] for t in tiers for p in paths}
    rng = random.Random(args.seed)
    for r in range(args.rounds):
        for tier, path in rng.sample([(t, p) for t in tiers for p in paths], len(tiers) * len(paths)):
            _, provider = TIERS[tier]
            if path == "python":
                got = time_python(args, made[TIERS[tier][0]], provider, qfile)
            else:
                got = time_http(args, made[TIERS[tier][0]], provider, qs, wait=path == "http")
            stats = percentiles(got["seconds"])
            rounds[f"{tier}/{path}"].append(stats)
            log(f"round {r + 1}: {tier}/{path}: p50 {stats['p50']:.3f} ms, p99 {stats['p99']:.3f} ms")
    summary = {k: {"p50_ms": statistics.median(x["p50"] for x in v), "p99_ms": statistics.median(x["p99"] for x in v)}
               for k, v in rounds.items() if v}
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    result = {"date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"), "commit": head.strip(),
              "cpu": pp.cpu_model(), "threads": args.threads, "queries": len(qs), "rounds": rounds,
              "summary": summary}
    (OUT / "result.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"## Short queries (bench/short_queries.py)\n\n- {result['date']}, commit {result['commit']}; "
          f"{result['cpu']}; {args.threads} threads; {len(qs)} queries of 3 to 16 tokens, one at a time; "
          f"{args.rounds} rounds, medians of each round's percentiles\n")
    print("| tier | in-process p50 ms | p99 ms | HTTP /v1/embeddings p50 ms | p99 ms | HTTP, --max-wait-ms 0, "
          "p50 ms | p99 ms | goal (in-process p50) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for tier in tiers:
        cells = []
        for path in ("python", "http", "http-nowait"):
            s = summary.get(f"{tier}/{path}")
            cells += [f"{s['p50_ms']:.3f}", f"{s['p99_ms']:.3f}"] if s else ["-", "-"]
        goal = GOALS_MS.get(tier)
        met = ""
        if goal and f"{tier}/python" in summary:
            met = f"<= {goal} ms: **{'yes' if summary[f'{tier}/python']['p50_ms'] <= goal else 'no'}**"
        print(f"| {tier} | " + " | ".join(cells) + f" | {met} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
