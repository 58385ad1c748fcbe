"""Report of bench/bindings/run.sh: Markdown tables from its results.jsonl."""
from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict

LEGS = ["cpp", "c", "go", "zig", "sievego", "ortgo"]
NAMES = {
    "cpp": "C++ API (reference)",
    "c": "C ABI (`sieve.h`)",
    "go": "Go binding",
    "zig": "Zig binding",
    "sievego": "Go binding, in the peers' harness",
    "ortgo": "DIY Go: onnxruntime_go + daulet/tokenizers",
}


def main(path: str) -> None:
    rows = [json.loads(line) for line in open(path) if line.strip()]
    loops = defaultdict(list)  # (leg, batch) -> rows, one per round
    for row in rows:
        if row["kind"] == "loop":
            loops[(row["leg"], row["batch"])].append(row)
    batches = sorted({batch for _, batch in loops})
    rounds = max((row["round"] for row in rows if row["kind"] == "loop"), default=0)

    print(f"Per-call latency and throughput, medians over {rounds} rounds (one full cycle through the file per "
          "leg and round, after one untimed cycle):\n")
    print("| leg | batch | p50 ms | p99 ms | sentences/s | p50 / C++ p50, median (range) over rounds |")
    print("|---|---:|---:|---:|---:|---|")
    for batch in batches:
        reference = {row["round"]: row["median_ms"] for row in loops.get(("cpp", batch), [])}
        for leg in LEGS:
            runs = loops.get((leg, batch))
            if not runs:
                continue
            ratios = [row["median_ms"] / reference[row["round"]] for row in runs if row["round"] in reference]
            ratio = (f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})" if ratios else "")
            print(f"| {NAMES[leg]} | {batch} | {statistics.median(r['median_ms'] for r in runs):.2f} | "
                  f"{statistics.median(r['p99_ms'] for r in runs):.2f} | "
                  f"{statistics.median(r['sentences_per_s'] for r in runs):.1f} | {ratio} |")

    tiny = defaultdict(list)
    for row in rows:
        if row["kind"] == "tiny":
            tiny[(row["leg"], row["batch"])].append(row)
    if tiny:
        print("\nThe bindings' own cost per call, on the tiny fixture model (same texts, 20 cycles per leg and "
              "round): the difference of each leg's p50 from the C++ leg's in the same round, in microseconds "
              "(median over rounds), and that difference as a share of the real model's C++ p50 above:\n")
        print("| leg | batch | p50 µs | minus C++ p50, µs (range) | share of the real model's call |")
        print("|---|---:|---:|---|---:|")
        for batch in sorted({b for _, b in tiny}):
            reference = {row["round"]: row["median_ms"] for row in tiny.get(("cpp", batch), [])}
            real = loops.get(("cpp", batch))
            real_ms = statistics.median(r["median_ms"] for r in real) if real else None
            for leg in ["cpp", "c", "go", "zig"]:
                runs = tiny.get((leg, batch))
                if not runs:
                    continue
                diffs = [1e3 * (row["median_ms"] - reference[row["round"]]) for row in runs
                         if row["round"] in reference]
                diff = statistics.median(diffs)
                share = f"{100 * diff / (1e3 * real_ms):+.2f}%" if real_ms else ""
                print(f"| {NAMES[leg]} | {batch} | {1e3 * statistics.median(r['median_ms'] for r in runs):.1f} | "
                      f"{diff:+.1f} ({min(diffs):+.1f} to {max(diffs):+.1f}) | {share} |")

    gomlx = [row for row in rows if row["kind"] == "gomlx"]
    if gomlx:
        print("\ngomlx + onnx-gomlx on the pure-Go simplego backend (short runs, indicative):\n")
        print("| batch | timed calls | p50 ms | p99 ms | sentences/s |")
        print("|---:|---:|---:|---:|---:|")
        for row in gomlx:
            print(f"| {row['batch']} | {row['iters']} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | "
                  f"{row['sentences_per_s']:.2f} |")

    agreement = {row["peer"]: row for row in rows if row["kind"] == "agreement"}
    code = {row["peer"]: row["lines"] for row in rows if row["kind"] == "user_code"}
    print("\nAgreement with `sieve embed --format npy` over every line, and user code (non-blank, non-comment "
          "lines of the peer's embed.go):\n")
    print("| peer | max abs difference | min cosine | lines of user code |")
    print("|---|---:|---:|---:|")
    for peer in ["sievego", "ortgo", "gomlx"]:
        a = agreement.get(peer)
        cells = (f"{a['max_abs_diff']:.3g} | {a['min_cosine']:.9f}" if a else "not run | not run")
        print(f"| {peer} | {cells} | {code.get(peer, '')} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/bench-bindings/results.jsonl")
