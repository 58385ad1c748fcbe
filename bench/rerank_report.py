"""Writes the reranking section of bench/RESULTS.md from one run of
sieve_rerank_bench and bench/rerank_peers.py (bench/run_rerank.sh), with the
machine, date, commit and ratios against the peers.  First checks that
Sieve's scores equal both peers' within --tolerance; writes nothing and
exits 1 if they do not, since a speed ratio between programs that compute
different things means nothing."""
import argparse
import datetime
import json
import platform
import sys
from pathlib import Path

from report import commit, cpu_model
from results_file import replace_section

HEADING = "## Reranking (issue 4)"
PEERS = (("ort_python", "onnxruntime-python loop"), ("sentence_transformers", "sentence-transformers CrossEncoder"))
SHORT = {"ort_python": "onnxruntime-python", "sentence_transformers": "sentence-transformers"}


def max_diff(a, b):
    if len(a) != len(b):
        return float("inf")
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sieve", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--note", default="", help="a line added under the figures (e.g. the machine was shared)")
    ap.add_argument("--tier", action="append", default=[], metavar="NAME=FILE",
                    help="sieve_rerank_bench's JSON of another precision tier (e.g. near-lossless=ov.json): its "
                         "pairs/s against sentence-transformers, and how far its scores are from them")
    args = ap.parse_args()
    s = json.loads(Path(args.sieve).read_text())
    p = json.loads(Path(args.peers).read_text())
    peers = [(k, name) for k, name in PEERS if all(k in row for row in p["sets"])]
    shorts = [SHORT[k] for k, _ in peers]

    # Same inputs, same scores, in this run.
    worst = 0.0
    checks = []
    for srow, prow in zip(s["sets"], p["sets"], strict=True):
        if srow["documents"] != prow["documents"]:
            sys.exit(f"{srow['file']}: Sieve read {srow['documents']} documents, the peers {prow['documents']}")
        diffs = {k: max_diff(srow["scores"], prow[k]["scores"]) for k, _ in peers}
        worst = max([worst, *diffs.values()])
        checks.append(diffs)
        tokens = prow["document_tokens"][0] if len(prow["document_tokens"]) == 1 else prow["document_tokens"]
        print(f"check {tokens} tokens: " + ", ".join(f"max |Sieve - {k}| = {d:.2e}" for k, d in diffs.items()))
    ok = worst <= args.tolerance
    print(f"check: scores {'within' if ok else 'NOT within'} {args.tolerance:g} of the peers (worst {worst:.2e})")
    if not ok:
        sys.exit(1)

    meminfo = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
    m = p["machine"]
    v = p["versions"]
    query_tokens = p["sets"][0]["pair_tokens"][0] - p["sets"][0]["document_tokens"][0] - 3
    lines = [
        "Produced by `bash bench/run_rerank.sh` (bench/rerank_bench.cpp and bench/rerank_peers.py in one run, "
        "same query, same documents, same ONNX file, same machine).",
        "",
        f"- Machine: {cpu_model()}, {s['threads']} threads for Sieve, {p['threads']} for onnxruntime-python and torch, "
        f"{int(meminfo) // 1024 // 1024} GiB RAM, {platform.system()} {platform.release()}; load average "
        f"{m['loadavg_start']} at the start of the peers, {m['loadavg_end']} at their end",
        f"- Date: {datetime.date.today().isoformat()}; commit {commit()}",
        f"- ONNX Runtime {s['onnxruntime_version']} (Sieve); peers: onnxruntime {v.get('onnxruntime')}, tokenizers "
        f"{v.get('tokenizers')}, numpy {v.get('numpy')}, torch {v.get('torch')}, sentence-transformers "
        f"{v.get('sentence_transformers')}, transformers {v.get('transformers')}",
        "- Model: the fixture cross-encoder (tools/make_cross_encoder.py): BertForSequenceClassification, 6 layers, "
        "hidden 384, one label, the architecture of cross-encoder/ms-marco-MiniLM-L-6-v2 with random weights, "
        "so the timings are that model's; max length "
        f"{s['max_length']}, score = {s['activation']} of the logit (CrossEncoder's default).",
        f"- Input: one query ({query_tokens} tokens) against {p['sets'][0]['documents']} documents per length, "
        "each of exactly the stated number of tokens (built by `rerank_peers.py docs` from the words of "
        "tests/data/sentences.txt, counts checked with tokenizers); a pair is query + document + 3 special tokens.",
        f"- One call scores all the documents: tokenize the pairs, order by length, batches of {s['batch_size']} "
        "(CrossEncoder.predict batch_size likewise), one ONNX run per batch, activation. One untimed warm-up call, "
        "then latency p50/p99 over the timed calls (count in the last column); pairs/s = documents / p50 latency.",
        "- Scores agree in this run: " + "; ".join(
            f"{p['sets'][i]['document_tokens'][0]} tokens: "
            + ", ".join(f"max |Sieve - {name}| {c[k]:.1e}" for k, name in peers)
            for i, c in enumerate(checks)
        ) + f" (tolerance {args.tolerance:g}).",
    ]
    if args.note:
        lines.append(f"- {args.note}")
    lines += [
        "",
        "| document tokens | " + " | ".join(f"{n} p50 / p99 ms" for n in ["Sieve", *shorts]) + " | timed calls |",
        "|---:|" + "---:|" * (len(peers) + 2),
    ]
    for srow, prow in zip(s["sets"], p["sets"]):
        cells = [f"{srow['p50_ms']:.1f} / {srow['p99_ms']:.1f}"]
        cells += [f"{prow[k]['p50_ms']:.1f} / {prow[k]['p99_ms']:.1f}" for k, _ in peers]
        reps = "/".join(str(r) for r in [srow["reps"]] + [prow[k]["reps"] for k, _ in peers])
        lines.append(f"| {prow['document_tokens'][0]} | " + " | ".join(cells) + f" | {reps} |")
    lines += [
        "",
        "| document tokens | Sieve pairs/s | "
        + " | ".join(f"{short} pairs/s" for short in shorts)
        + " | "
        + " | ".join(f"Sieve vs {short}: pairs/s, p99" for short in shorts)
        + " |",
        "|---:|" + "---:|" * (1 + 2 * len(peers)),
    ]
    for srow, prow in zip(s["sets"], p["sets"]):
        cells = [f"{srow['pairs_per_s']:.1f}"]
        cells += [f"{prow[k]['pairs_per_s']:.1f}" for k, _ in peers]
        # Both as speed ratios: Sieve's pairs/s over the peer's, and the
        # peer's p99 latency over Sieve's; above 1, Sieve is faster.
        cells += [
            f"{srow['pairs_per_s'] / prow[k]['pairs_per_s']:.2f}x, {prow[k]['p99_ms'] / srow['p99_ms']:.2f}x"
            for k, _ in peers
        ]
        lines.append(f"| {prow['document_tokens'][0]} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Latency is of one call scoring all the documents. Ratios above 1 mean Sieve is faster. The",
        "onnxruntime-python loop runs the same ONNX file through the same ONNX Runtime version with the same",
        "threads, so its ratio is Sieve's own overhead (tokenizing, batching, tensor set-up) against a plain",
        "Python loop; sentence-transformers runs the PyTorch model (the same weights, from model.safetensors)",
        "and shows what a CrossEncoder user gets.",
    ]
    if args.tier and "sentence_transformers" in dict(peers):
        lines += [
            "",
            "Precision tiers (the same sieve_rerank_bench run on another provider or model file, right after the "
            "one above): pairs/s, the ratio to sentence-transformers' CrossEncoder, and the largest difference of "
            "a score from sentence-transformers'.",
            "",
            "| tier | providers | " + " | ".join(f"{prow['document_tokens'][0]} tokens: pairs/s, vs ST, largest score difference"
                                             for prow in p["sets"]) + " |",
            "|---|---|" + "---|" * len(p["sets"]),
        ]
        for spec in args.tier:
            name, _, file = spec.partition("=")
            t = json.loads(Path(file).read_text())
            cells = []
            for trow, prow in zip(t["sets"], p["sets"], strict=True):
                st = prow["sentence_transformers"]
                cells.append(f"{trow['pairs_per_s']:.1f}, {trow['pairs_per_s'] / st['pairs_per_s']:.2f}x, "
                             f"{max_diff(trow['scores'], st['scores']):.1e}")
            lines.append(f"| {name} | {', '.join(t.get('providers', []))} | " + " | ".join(cells) + " |")
    replace_section(Path(args.out), HEADING, lines)


if __name__ == "__main__":
    main()
