"""Many clients at once on the outputs beside dense vectors: BGE-M3's lexical weights (/embed_sparse) and token
vectors (/embed_all), and a ColBERT model's token vectors (/embed_all), each through the server's batch scheduler.

  .venv/bin/python bench/load/heads_load.py [--sieve build/sieve] [--clients 64] [--seconds 20] [--max-queued 256]

One `sieve serve` with both models (the test fixtures bge-m3-tiny and colbert-tiny, made when missing) and a small
queue; `--clients` threads send requests of 1 to 16 texts (sentences and paragraphs) as fast as they are answered,
spread over the three routes, for `--seconds`. Prints, per route, the answers by status and the latency of the
answered ones (p50, p99, max), and the server's resident memory sampled through the run (start, peak, end): a queue
that stays bounded answers 429 instead of growing, and memory stays flat. --json writes the figures."""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "integration"))

ROUTES = [("/embed_sparse", "bge"), ("/embed_all", "bge"), ("/embed_all", "colbert")]


def fixture(script: str, name: str, *args: str) -> Path:
    folder = ROOT / "build" / "fixtures" / name
    if not (folder / "model.onnx").exists():
        subprocess.run([str(ROOT / ".venv-export" / "bin" / "python"), str(ROOT / "tools" / script), "--out",
                        str(folder.parent), *args], check=True)
    return folder


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def texts(rng: random.Random, sentences: list[str]) -> list[str]:
    out = []
    for _ in range(rng.randint(1, 16)):
        n = rng.choice([1, 1, 2, 6])  # mostly sentences, some paragraphs
        start = rng.randrange(len(sentences) - n)
        out.append(" ".join(sentences[start:start + n]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sieve", type=Path, default=ROOT / "build" / "sieve")
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--max-queued", type=int, default=256)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    from server_harness import models_root
    bge = fixture("make_bge_m3_fixture.py", "bge-m3-tiny")
    colbert = fixture("make_colbert_fixture.py", "colbert-tiny", "--tokenizer", str(ROOT / "models" / "all-MiniLM-L6-v2"))
    sentences = [s for s in (ROOT / "tests" / "data" / "sentences.txt").read_text(encoding="utf-8").splitlines()
                 if s.strip()]
    tmp = Path(tempfile.mkdtemp(prefix="heads-load-"))
    root = models_root(tmp, {"bge": bge, "colbert": colbert})
    log = tmp / "server.log"
    proc = subprocess.Popen([str(args.sieve), "serve", "--models", str(root), "--port", "0", "--max-queued",
                             str(args.max_queued), "--http-threads", str(args.clients + 8)],
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    port = 0
    deadline = time.monotonic() + 120
    while not port and time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if "listening on http://127.0.0.1:" in line:
                port = int(line.rsplit(":", 1)[1])
        if proc.poll() is not None:
            raise SystemExit(f"sieve serve exited:\n{log.read_text(errors='replace')}")
        time.sleep(0.05)

    results: dict[str, list[tuple[int, float]]] = {f"{r} {m}": [] for r, m in ROUTES}
    lock = threading.Lock()
    stop_at = time.monotonic() + args.seconds

    def client(seed: int) -> None:
        rng = random.Random(seed)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while time.monotonic() < stop_at:
            route, model = ROUTES[rng.randrange(len(ROUTES))]
            body = json.dumps({"model": model, "inputs": texts(rng, sentences), "truncate": True})
            start = time.monotonic()
            try:
                conn.request("POST", route, body, {"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                status = -1
            with lock:
                results[f"{route} {model}"].append((status, time.monotonic() - start))
        conn.close()

    rss = [rss_kib(proc.pid)]
    threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        rss.append(rss_kib(proc.pid))
        time.sleep(0.25)
    rss.append(rss_kib(proc.pid))
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)

    warm = rss[len(rss) // 4]  # a quarter into the run: the allocator's and ORT's arenas have grown
    report = {"clients": args.clients, "seconds": args.seconds, "max_queued": args.max_queued, "exit_code": code,
              "rss_kib": {"start": rss[0], "quarter": warm, "peak": max(rss), "end": rss[-1]}, "routes": {}}
    print(f"{args.clients} clients for {args.seconds:.0f} s, queue {args.max_queued} inputs per model; "
          f"server exit code {code}")
    print("| route | answers | 200 | 429 | other | p50 ms (200) | p99 ms (200) | max ms (200) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, got in results.items():
        ok = sorted(t for s, t in got if s == 200)
        busy = sum(1 for s, _ in got if s == 429)
        other = len(got) - len(ok) - busy
        p = (lambda q: 1000 * ok[min(len(ok) - 1, int(q * len(ok)))]) if ok else (lambda q: float("nan"))
        report["routes"][name] = {"answers": len(got), "ok": len(ok), "busy": busy, "other": other,
                                  "p50_ms": p(0.5), "p99_ms": p(0.99), "max_ms": 1000 * ok[-1] if ok else None,
                                  "median_ms": 1000 * statistics.median(ok) if ok else None}
        print(f"| {name} | {len(got)} | {len(ok)} | {busy} | {other} | {p(0.5):.1f} | {p(0.99):.1f} | "
              f"{(1000 * ok[-1] if ok else float('nan')):.1f} |")
    print(f"server RSS: start {rss[0] / 1024:.0f} MiB, a quarter in {warm / 1024:.0f} MiB, "
          f"peak {max(rss) / 1024:.0f} MiB, end {rss[-1] / 1024:.0f} MiB")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0 if code == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
