"""Writes bench/RESULTS.md from one run of sieve_bench and bench/peers.py,
with the machine, date and commit, and ratios against the peers."""
import argparse
import datetime
import json
import platform
import subprocess
from pathlib import Path

from results_file import replace_section


def cpu_model():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def commit():
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
        return head + ("+uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sieve", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    s = json.loads(Path(args.sieve).read_text())
    p = json.loads(Path(args.peers).read_text())
    ort = p["ort_python"]["batch"]
    ort_sorted = p.get("ort_python_sorted", {}).get("batch", {})
    st = (p.get("sentence_transformers") or {}).get("batch", {})
    meminfo = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
    lines = [
        "Produced by `bash bench/run.sh` (bench/sieve_bench.cpp and bench/peers.py in one run, same sentences, same machine).",
        "",
        f"- Machine: {cpu_model()}, {p['threads']} threads used, {int(meminfo) // 1024 // 1024} GiB RAM, {platform.system()} {platform.release()}",
        f"- Date: {datetime.date.today().isoformat()}; commit {commit()}",
        f"- ONNX Runtime {s['onnxruntime_version']}; peers: " + ", ".join(f"{k} {v}" for k, v in p["versions"].items()),
        f"- Input: {s['sentences']} sentences of tests/data/sentences.txt, {s['total_tokens']} tokens after truncation to {s['max_length']} "
        "(mixed lengths, 12 sentences at the 256-token limit); medians over repetitions of at least "
        f"{p['min_seconds']} s each.",
        f"- Peers compute the same vectors: max |onnxruntime-python - sentence-transformers| = {p['check']['max_abs_diff_ort_vs_st']:.2e}.",
        "",
        "### Tokenization (single thread)",
        "",
        "| | tokens/s | ratio |",
        "|---|---:|---:|",
        f"| Sieve | {s['tokenize']['tokens_per_second']:,.0f} | {s['tokenize']['tokens_per_second'] / p['tokenize']['tokens_per_s']:.2f}x |",
        f"| Hugging Face tokenizers (encode_batch, RAYON_NUM_THREADS=1) | {p['tokenize']['tokens_per_s']:,.0f} | 1.00x |",
        "",
        "### Embedding throughput (sentences/s)",
        "",
        "| batch | Sieve | onnxruntime-python, file order | onnxruntime-python, length-sorted | sentence-transformers | Sieve / ort sorted | Sieve / sentence-transformers |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    batches = sorted(s["embed"].items(), key=lambda kv: int(kv[0]))
    for b, row in batches:
        sv = row["sentences_per_second"]
        o = ort.get(b, {}).get("sentences_per_s")
        os_ = ort_sorted.get(b, {}).get("sentences_per_s")
        t = st.get(b, {}).get("sentences_per_s")
        fmt = lambda x: f"{x:.1f}" if x else "-"
        ratio = lambda x: f"{sv / x:.2f}x" if x else "-"
        lines.append(f"| {b} | {sv:.1f} | {fmt(o)} | {fmt(os_)} | {fmt(t)} | {ratio(os_)} | {ratio(t)} |")
    lines += [
        "",
        "### Where Sieve's time goes (share of wall time of `embed`)",
        "",
        "| batch | outside ORT run | tokenize | pad + tensors | pool + normalize + copy | padding overhead (extra tokens) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for b, row in batches:
        lines.append(f"| {b} | {row['share_outside_ort']:.2%} | {row['tokenize_share']:.2%} | {row['prepare_share']:.2%} | "
                     f"{row['pool_share']:.2%} | {row['padding_overhead']:.1%} |")
    ol = p["ort_python"]["latency_batch1"]
    tl = (p.get("sentence_transformers") or {}).get("latency_batch1", {})
    lines += [
        "",
        "### Single-sentence latency (one sentence per call, tokenization included)",
        "",
        "| | p50 ms | p99 ms |",
        "|---|---:|---:|",
        f"| Sieve | {s['latency_ms']['p50']:.2f} | {s['latency_ms']['p99']:.2f} |",
        f"| onnxruntime-python | {ol['p50_ms']:.2f} | {ol['p99_ms']:.2f} |",
    ]
    if tl:
        lines.append(f"| sentence-transformers | {tl['p50_ms']:.2f} | {tl['p99_ms']:.2f} |")
    lines += [
        "",
        "### Notes",
        "",
        "- Sieve orders inputs by token count and cuts a batch early where padding would exceed half of its real",
        "  tokens, so the few 256-token sentences do not drag short ones to their length (compare the padding overhead",
        "  and batch 128 above with the length-sorted Python loop, which cuts batches by count only).",
        "- Time outside ONNX Runtime's run (tokenizing, padding, tensor set-up, pooling, copying) stays near 1% of the",
        "  wall time: the target was under 3% at batch 32. Tensors borrow Sieve's buffers (no copy into ORT).",
        "- Tokenization: WordPiece lookups take string views into two hash maps (word starts, and continuations",
        "  keyed without the `##` prefix) so no string is built per lookup; pure-ASCII text takes a byte path through",
        "  the BERT normalizer. The trie / linear-time WordPiece of the tokenizers issue is still to come.",
        "- Same thread count (2, the physical cores) for Sieve, Python onnxruntime and torch.",
        "",
    ]
    replace_section(Path(args.out), "## Embedding: all-MiniLM-L6-v2 (issue 2)", lines)


if __name__ == "__main__":
    main()
