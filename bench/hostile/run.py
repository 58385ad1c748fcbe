"""The red team's attacks on `sieve serve`, at their sizes, against one or
more builds of Sieve in one run: what each attack got and what it cost the
server (resident memory, time, /health latency while it ran).

  .venv/bin/python bench/hostile/run.py --sieve /tmp/sieve-before --sieve build/sieve

Each build serves models/all-MiniLM-L6-v2 and a one-file search index (so
that the search page's files are served) with an API key, on loopback.
Prints a markdown table per build (and --json writes the raw figures)."""
from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "integration"))

import hostile_clients as hc  # noqa: E402

KEY = "red-team-key"


def start(sieve: Path, tmp: Path, index: Path, extra: list[str]) -> tuple[subprocess.Popen, int, Path]:
    log = tmp / f"server-{time.monotonic_ns()}.log"
    models = tmp / "models"
    if not models.exists():
        # Links to the model's files (a folder linked from outside the root is refused).
        folder = models / "all-MiniLM-L6-v2"
        folder.mkdir(parents=True)
        for f in (ROOT / "models" / "all-MiniLM-L6-v2").iterdir():
            (folder / f.name).symlink_to(f.resolve())
    proc = subprocess.Popen([str(sieve), "serve", "--models", str(models), "--port", "0", "--index",
                             f"notes={index}", *extra], stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "SIEVE_API_KEYS": KEY})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        for line in text.splitlines():
            if "listening on http://127.0.0.1:" in line:
                return proc, int(line.rsplit(":", 1)[1]), log
        if proc.poll() is not None:
            raise SystemExit(f"{sieve} serve exited:\n{text}")
        time.sleep(0.05)
    raise SystemExit(f"{sieve} serve did not start")


def stop(proc: subprocess.Popen, timeout: float = 60) -> tuple[int | None, float]:
    start_time = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = None
    return code, time.monotonic() - start_time


def attacks(sieve: Path, tmp: Path, index: Path, scale: float) -> list[dict]:
    rows = []
    mb = 1 << 20

    def measured(name: str, pid: int, action, describe):
        with hc.PeakRss(pid) as rss:
            out = action()
        row = {"attack": name, "rss_before_mib": round(rss.before, 1), "rss_peak_mib": round(rss.peak, 1),
               "rss_after_mib": round(rss.after, 1), **describe(out)}
        rows.append(row)
        print(json.dumps(row), flush=True)
        return out

    def flood_row(out: hc.Outcome):
        return {"status": out.status, "sent_mib": round(out.sent / mb, 1), "seconds": round(out.seconds, 2),
                "answer_bytes": out.received}

    proc, port, _ = start(sieve, tmp, index, [])
    try:
        time.sleep(1)
        measured(f"chunked POST of {int(300 * scale)} MB, no key", proc.pid,
                 lambda: hc.chunked_flood(port, "/v1/embeddings", int(300 * scale * mb)), flood_row)
        measured(f"POST without length, {int(300 * scale)} MB, no key", proc.pid,
                 lambda: hc.lengthless_flood(port, "/v1/embeddings", int(300 * scale * mb)), flood_row)
        measured(f"{int(100 * scale)} MB of header lines", proc.pid,
                 lambda: hc.header_flood(port, "/v1/embeddings", int(100 * scale * mb)), flood_row)
        measured("Range: 2000 x 0- on /ui/ui.js", proc.pid,
                 lambda: hc.range_bomb(port, "GET", "/ui/ui.js", 2000),
                 lambda o: {"status": o.status, "answer_bytes": o.received, "seconds": round(o.seconds, 2)})
        body = hc.tokenize_body(2048, 100)
        measured("Range: 500 x 0- on a /tokenize answer", proc.pid,
                 lambda: hc.range_bomb(port, "POST", "/tokenize", 500, body, key=KEY),
                 lambda o: {"status": o.status, "answer_bytes": o.received, "seconds": round(o.seconds, 2)})

        # Slowloris while a well-behaved client asks for /health every 0.2 s.
        def slowloris():
            latencies = []
            with hc.Slowloris(port, 300, 4.0) as attack:
                end = time.monotonic() + 30 * scale
                while time.monotonic() < end:
                    latencies.append(hc.health_latency(port, timeout=5))
                    time.sleep(0.2)
            return latencies, attack

        def slowloris_row(result):
            latencies, attack = result
            ok = [x for x in latencies if x is not None]
            return {"health_requests": len(latencies), "health_failed": len(latencies) - len(ok),
                    "health_p50_ms": round(statistics.median(ok) * 1000, 1) if ok else None,
                    "health_max_ms": round(max(ok) * 1000, 1) if ok else None,
                    "attack_connections_closed_by_server": attack.closed_by_server}
        measured(f"slowloris: 300 connections, a line every 4 s, {int(30 * scale)} s", proc.pid, slowloris,
                 slowloris_row)

        # The /tokenize memory burst: a dozen 1.8 MB requests of 2,048 inputs.
        burst = hc.tokenize_body(2048, 900)

        def tokenize_burst():
            statuses = []
            for _ in range(12):
                raw = (f"POST /tokenize HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
                       f"Content-Type: application/json\r\nContent-Length: {len(burst)}\r\nConnection: close\r\n\r\n"
                       ).encode() + burst
                out = hc.request(port, raw, timeout=120)
                statuses.append(out.status)
            time.sleep(2)
            return statuses
        measured(f"/tokenize burst: 12 x {len(burst) / 1e6:.1f} MB (2,048 inputs)", proc.pid, tokenize_burst,
                 lambda s: {"statuses": sorted(set(s))})
    finally:
        stop(proc)

    # A drain while 50 slow clients hold connections.
    proc, port, _ = start(sieve, tmp, index, ["--drain-timeout", "30"])
    with hc.Slowloris(port, 50, 4.0):
        time.sleep(2)
        code, seconds = stop(proc, timeout=60)
    row = {"attack": "SIGTERM during slowloris (50 connections)", "exit_status": code, "seconds": round(seconds, 2)}
    rows.append(row)
    print(json.dumps(row), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sieve", action="append", type=Path, required=True, help="a sieve executable (repeatable)")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the red team's sizes and durations")
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        notes = tmp / "notes"
        notes.mkdir()
        (notes / "a.md").write_text("# Quantization\n\nQuantized models run faster on a CPU.\n")
        index = tmp / "notes.idx"
        subprocess.run([str(args.sieve[-1]), "--log-level", "warn", "index", "add", "--index", str(index), "--model",
                        str(ROOT / "models" / "all-MiniLM-L6-v2"), "-q", str(notes)], check=True)
        for sieve in args.sieve:
            print(f"== {sieve}", flush=True)
            results[str(sieve)] = attacks(sieve, tmp, index, args.scale)
    print(f"\nMachine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"date {time.strftime('%Y-%m-%d')}")
    for sieve, rows in results.items():
        print(f"\n### {sieve}\n")
        for row in rows:
            print("- " + ", ".join(f"{k}: {v}" for k, v in row.items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
