#!/usr/bin/env python3
"""Markdown report of one bench/load/run_load.sh run (standard library only).

Reads the run's folder: meta.txt, offline.json (sieve_bench), and for each
server NAME (sieve, then the peers) NAME-b<batch>-c<concurrency>.json and
NAME-memory.json (loadgen -json), NAME-stop.json, NAME-versions.json. Prints
the report on stdout. Ratios are Sieve/peer throughout: above 1 means Sieve
is faster for throughput, below 1 means Sieve is faster for latency.
"""

import argparse
import json
import re
import sys
from pathlib import Path

PEER_TITLES = {
    "st": "FastAPI + sentence-transformers with dynamic batching (bench/load/peer_server.py)",
    "infinity": "infinity-emb (torch engine, CPU)",
}
VERSION_KEYS = ("infinity_emb", "torch", "sentence-transformers", "transformers", "fastapi", "uvicorn", "orjson")


def load(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def cells(folder: Path, name: str) -> dict[tuple[int, int], dict]:
    out = {}
    for p in folder.glob(f"{name}-b*-c*.json"):
        m = re.fullmatch(rf"{re.escape(name)}-b(\d+)-c(\d+)\.json", p.name)
        if m and (r := load(p)) is not None:
            out[(int(m[1]), int(m[2]))] = r
    return dict(sorted(out.items()))


def ms(v: float) -> str:
    return f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def mib(kib) -> str:
    return "–" if kib is None else f"{kib / 1024:.1f}"


def signed_mib(kib) -> str:
    return "–" if kib is None else f"{kib / 1024:+.1f}"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if a > 0 and b > 0 else "–"


def errors(r: dict) -> str:
    if not r["errors"]:
        return "0"
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(r["errors_by_kind"].items()))
    return f"{r['errors']} ({kinds})"


def server_table(grid: dict) -> list[str]:
    lines = ["| batch | concurrency | requests | requests/s | sentences/s | p50 ms | p99 ms | p99.9 ms | max ms | errors |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for (b, c), r in grid.items():
        lat = r["latency_ms"]
        lines.append(f"| {b} | {c} | {r['requests']} | {r['requests_per_second']:.1f} | {r['sentences_per_second']:.1f} | "
                     f"{ms(lat['p50'])} | {ms(lat['p99'])} | {ms(lat['p99.9'])} | {ms(lat['max'])} | {errors(r)} |")
    return lines


def one_line(path: Path) -> str:
    """A progress line for one loadgen result."""
    r = load(path)
    if r is None:
        return f"no result in {path}"
    lat, k = r["latency_ms"], r.get("rss_kib") or {}
    line = (f"{r['requests_per_second']:.1f} requests/s, {r['sentences_per_second']:.1f} sentences/s, "
            f"p50 {ms(lat['p50'])} ms, p99 {ms(lat['p99'])} ms, errors {errors(r)}")
    if "before" in k and "after" in k:
        line += f", RSS {mib(k['before'])} -> {mib(k['after'])} MiB"
    return line


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--summary", type=Path, help="print one line for this loadgen result and exit")
    ap.add_argument("--dir", type=Path, help="the run's folder (run_load.sh's OUT_DIR)")
    ap.add_argument("--peers", default="", help="peer names, space-separated, in run order")
    ap.add_argument("--goal-fraction", type=float, default=0.80,
                    help="dynamic batching goal: this share of offline throughput at concurrency 64")
    ap.add_argument("--goal-concurrency", type=int, default=64)
    ap.add_argument("--rss-tolerance-mib", type=float, default=8.0,
                    help="memory counts as flat when RSS after the memory run exceeds RSS before it by at most this")
    args = ap.parse_args()
    if args.summary:
        print(one_line(args.summary))
        return 0
    if args.dir is None:
        ap.error("--dir or --summary is required")
    folder = args.dir
    peers = [p for p in args.peers.split() if p]

    meta = {}
    if (folder / "meta.txt").is_file():
        for line in (folder / "meta.txt").read_text().splitlines():
            key, _, value = line.partition("=")
            meta[key] = value
    offline = load(folder / "offline.json") or {}
    offline_rate = offline.get("embed", {}).get("32", {}).get("sentences_per_second", 0.0)
    sieve_grid = cells(folder, "sieve")
    if not sieve_grid:
        print(f"report.py: no sieve results in {folder}", file=sys.stderr)
        return 1

    out = ["# Load benchmark: `sieve serve`" + (f" and its peers ({', '.join(peers)})" if peers else ""), ""]
    out.append(f"{meta.get('date', '?')}, commit {meta.get('commit', '?')}; {meta.get('cpu', '?')}, "
               f"{meta.get('cpus', '?')} CPUs; model {meta.get('model', '?')}; sentences {meta.get('sentences', '?')}.")
    out.append("")
    out.append("Closed-loop load over loopback by bench/load/loadgen.go (" + meta.get("go", "go") +
               "; one keep-alive connection per concurrent request), on the same machine as the server, so it "
               "takes CPU from it. Grid: batch sizes x concurrencies " + meta.get("grid", "?") +
               ". Latency percentiles are exact (nearest rank over every successful request).")
    if meta.get("sieve_args"):
        out.append(f"`sieve serve` extra arguments: `{meta['sieve_args']}`.")
    out.append("")

    out += ["## Offline throughput (sieve_bench)", ""]
    if offline_rate:
        out.append(f"Batch 32 over the same sentences: **{offline_rate:.1f} sentences/s** "
                   f"({offline.get('threads', '?')} threads, ONNX Runtime {offline.get('onnxruntime_version', '?')}).")
    else:
        out.append("No offline result (offline.json missing or without batch 32).")
    out.append("")

    out += ["## Sieve (`sieve serve`)", ""] + server_table(sieve_grid) + [""]
    peer_grids = {}
    for p in peers:
        grid = cells(folder, p)
        peer_grids[p] = grid
        out += [f"## Peer: {PEER_TITLES.get(p, p)}", ""]
        versions = load(folder / f"{p}-versions.json") or {}
        listed = ", ".join(f"{k} {versions[k]}" for k in VERSION_KEYS if versions.get(k))
        if listed:
            out += [f"Python {versions.get('python', '?')}: {listed}. Model: {meta.get('peer_model', '?')} "
                    "(the PyTorch original of the ONNX export Sieve runs).", ""]
        out += (server_table(grid) if grid else ["No results."]) + [""]

    for p, grid in peer_grids.items():
        out += [f"## Sieve / {p}", "",
                "Throughput above 1 and latency below 1: Sieve is better.", "",
                "| batch | concurrency | throughput | p50 | p99 | p99.9 |", "|---:|---:|---:|---:|---:|---:|"]
        for key, s in sieve_grid.items():
            if (r := grid.get(key)) is None:
                continue
            sl, pl = s["latency_ms"], r["latency_ms"]
            out.append(f"| {key[0]} | {key[1]} | {ratio(s['sentences_per_second'], r['sentences_per_second'])} | "
                       f"{ratio(sl['p50'], pl['p50'])} | {ratio(sl['p99'], pl['p99'])} | "
                       f"{ratio(sl['p99.9'], pl['p99.9'])} |")
        out.append("")

    gc = args.goal_concurrency
    at_goal = {b: r for (b, c), r in sieve_grid.items() if c == gc}
    out += [f"## Dynamic batching against offline (concurrency {gc})", "",
            "| batch | server sentences/s | offline sentences/s (batch 32) | fraction |", "|---:|---:|---:|---:|"]
    for b, r in at_goal.items():
        frac = r["sentences_per_second"] / offline_rate if offline_rate else 0
        out.append(f"| {b} | {r['sentences_per_second']:.1f} | {offline_rate:.1f} | "
                   f"{f'{frac:.2f}' if offline_rate else '–'} |")
    out.append("")

    servers = ["sieve"] + peers
    memory = {s: load(folder / f"{s}-memory.json") for s in servers}
    if any(memory.values()):
        out += ["## Memory run", "",
                "Requests of one sentence; RSS of the server process in MiB: at the start, after the warm-up "
                "(before), after the last request (after), and the largest seen while measuring (sampled every 250 ms).", "",
                "| server | requests | concurrency | requests/s | p99 ms | p99.9 ms | errors | RSS start | before | after | max | after − before |",
                "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
        for s, r in memory.items():
            if not r:
                continue
            k = r.get("rss_kib") or {}
            growth = k["after"] - k["before"] if "after" in k and "before" in k else None
            lat = r["latency_ms"]
            out.append(f"| {s} | {r['requests']} | {r['concurrency']} | {r['requests_per_second']:.1f} | "
                       f"{ms(lat['p99'])} | {ms(lat['p99.9'])} | {errors(r)} | {mib(k.get('initial'))} | "
                       f"{mib(k.get('before'))} | {mib(k.get('after'))} | {mib(k.get('max_during'))} | "
                       f"{signed_mib(growth)} |")
        out.append("")

    stops = {s: load(folder / f"{s}-stop.json") for s in servers}
    if any(stops.values()):
        # 143 (128 + SIGTERM) is what a server that re-raises SIGTERM after a
        # graceful shutdown returns (uvicorn does), but also one with no
        # handler at all: the status alone cannot tell, so this is reported,
        # not judged.
        out += ["## Shutdown on SIGTERM", "",
                "Exit status 143 is 128 + SIGTERM: either no handler, or a graceful shutdown that re-raises the "
                "signal (uvicorn does).", "",
                "| server | exit status | seconds | killed after the timeout |", "|---|---:|---:|---|"]
        for s, r in stops.items():
            if r:
                out.append(f"| {s} | {r['exit_status']} | {r['seconds']:.2f} | {'yes' if r['killed'] else 'no'} |")
        out.append("")

    # Goals, for Sieve only: the peers are the yardstick, not the subject.
    out += ["## Goals (Sieve)", ""]
    b1 = at_goal.get(1) or next(iter(at_goal.values()), None)
    if b1 and offline_rate:
        frac = b1["sentences_per_second"] / offline_rate
        verdict = "met" if frac >= args.goal_fraction else "NOT met"
        out.append(f"- Dynamic batching at concurrency {gc} (batch {b1['batch']}) reaches at least "
                   f"{args.goal_fraction:.0%} of offline throughput: {frac:.2f} of it, **{verdict}**.")
    else:
        out.append(f"- Dynamic batching against offline: not measured (no concurrency {gc} cell or no offline result).")
    total_errors = sum(r["errors"] + r.get("warmup_errors", 0) for r in sieve_grid.values())
    total_requests = sum(r["requests"] for r in sieve_grid.values())
    if memory.get("sieve"):
        total_errors += memory["sieve"]["errors"] + memory["sieve"].get("warmup_errors", 0)
        total_requests += memory["sieve"]["requests"]
    out.append(f"- No errors: {total_errors} errors (warm-ups included) in {total_requests} measured requests, "
               f"**{'met' if total_errors == 0 else 'NOT met'}**.")
    k = (memory.get("sieve") or {}).get("rss_kib") or {}
    if "before" in k and "after" in k:
        growth_mib = (k["after"] - k["before"]) / 1024
        flat = growth_mib <= args.rss_tolerance_mib
        out.append(f"- Memory flat over {memory['sieve']['requests']} requests: RSS {mib(k['before'])} → "
                   f"{mib(k['after'])} MiB ({growth_mib:+.1f} MiB; tolerance {args.rss_tolerance_mib:g} MiB), "
                   f"**{'met' if flat else 'NOT met'}**.")
    else:
        out.append("- Memory flat: not measured (no memory run, or RSS unreadable).")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
