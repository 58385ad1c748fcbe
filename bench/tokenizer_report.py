"""Writes the tokenizer section of bench/RESULTS.md from one run of
sieve_tokenizer_bench and bench/tokenizer_peers.py: throughput ratios per
tokenizer, and whether both produced the same ids."""
from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path

from report import commit, cpu_model
from results_file import replace_section

# The targets: x times Hugging Face's single-threaded throughput.
TARGETS = {"WordPiece": 3.0, "BPE": 1.5, "Unigram": 1.5}


def model_type(path: str) -> str:
    model = json.loads(Path(path).read_text(encoding="utf-8"))["model"]
    if "type" in model:
        return model["type"]
    if "merges" in model:
        return "BPE"
    if isinstance(model.get("vocab"), list):
        return "Unigram"
    return "WordPiece"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sieve", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--files", required=True, help="JSON {name: tokenizer.json path}")
    ap.add_argument("--notes", required=True, help="markdown file: what was done for speed and what it bought")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    s = json.loads(Path(args.sieve).read_text())
    p = json.loads(Path(args.peers).read_text())
    files = json.loads(Path(args.files).read_text())
    lines = [
        "Produced by `bash bench/run_tokenizers.sh` (bench/tokenizer_bench.cpp and bench/tokenizer_peers.py in one run,",
        "same corpus, same machine). Each side encodes every line with the file's normalizer, pre-tokenizer, model and",
        "post-processor, without its truncation and padding; both sides' ids are hashed and compared.",
        "",
        f"- Machine: {cpu_model()}, {s['cores']} cores; date {datetime.date.today().isoformat()}; commit {commit()}",
        f"- Peer: Hugging Face tokenizers {p['tokenizers_version']} from Python, `encode_batch`; single thread = "
        "TOKENIZERS_PARALLELISM=false and RAYON_NUM_THREADS=1; Sieve single thread = `encode_each(texts, true, 1)`.",
        f"- Corpus: {s['lines']} valid UTF-8 lines of the parity corpus (tools/build_corpus.py); medians of repetitions.",
        "",
        "| tokenizer | model | tokens | Sieve tok/s (1 thread) | HF tok/s (1 thread) | ratio | target | "
        "Sieve all cores | HF all cores | ratio | same ids |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, entry in s["tokenizers"].items():
        peer = p["tokenizers"].get(name)
        kind = model_type(files[name])
        if peer is None:
            continue
        one = entry["single_thread"]["tokens_per_second"]
        peer_one = peer["single_thread"]["tokens_per_second"]
        many = entry["all_cores"]["tokens_per_second"]
        peer_many = peer["all_cores"]["tokens_per_second"]
        same = "yes" if entry["ids_hash"] == peer["ids_hash"] and entry["tokens"] == peer["tokens"] else "**NO**"
        target = TARGETS.get(kind, 1.5)
        lines.append(f"| {name} | {kind} | {entry['tokens']:,} | {one:,.0f} | {peer_one:,.0f} | {one / peer_one:.2f}x | "
                     f"{target:.1f}x | {many:,.0f} | {peer_many:,.0f} | {many / peer_many:.2f}x | {same} |")
    lines += ["", Path(args.notes).read_text(encoding="utf-8").strip()]
    replace_section(Path(args.out), "## Tokenizers (issue 3)", lines)


if __name__ == "__main__":
    main()
